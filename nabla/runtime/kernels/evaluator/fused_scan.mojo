# The fused evaluator's running combines (see fused.mojo for the programs they run): sums, products,
# maxima and minima of the program's values over one axis, an (outer, r, inner) block, each value
# taken after the one before it, as NumPy's ``accumulate`` takes them.
from max.algorithm import parallelize
from .denormals import KeepDenormals
from .fused import BLOCK, BLOCKS_PER_TASK, MAX_REGISTERS, SERIAL_WORK, _run_block, program_work, registers_used
from .fused_accumulate import _combine, _identity
from .fused_int import store_coded
from .fused_reduce import _accumulate
from .opcodes import Code


def scan_into[T: DType](p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], data: UnsafePointer[Int, _],
                        dst: UnsafePointer[Scalar[T], MutAnyOrigin], n: Int) raises where T.is_floating_point():
    """A program's running combine over r (header: 1 forward or 2 reverse, plus four times the
    reduction kind: sum, product, max, min) into ``n`` outputs, each partial rounded to T as NumPy's
    ``accumulate`` rounds it."""
    with KeepDenormals():  # as NumPy (see fused.mojo)
        _scan[T, T, T](p, k, data, n, dst.unsafe_bitcast[UInt8]())


def scan_into_coded[T: DType](p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], data: UnsafePointer[Int, _],
                              dst: UnsafePointer[UInt8, MutAnyOrigin], n: Int) raises where T.is_floating_point():
    """The coded float family's running sums: in T's registers, written as the dtype the header
    names; a float16 result's partial sums rounded to float16 each step (NumPy's float16 loop adds
    in float32 and rounds)."""
    with KeepDenormals():
        _scan[T, DType.uint8, T](p, k, data, n, dst)


def scan_into_ints(p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], data: UnsafePointer[Int, _],
                   dst: UnsafePointer[UInt8, MutAnyOrigin], n: Int) raises:
    """The integer family's running combines: int64, wrapping, written as the dtype the header names."""
    _scan[DType.int64, DType.uint8, DType.int64](p, k, data, n, dst)


@always_inline
def _store_run[T: DType, S: DType](code: Int, dst: UnsafePointer[UInt8, MutAnyOrigin],
                                   src: UnsafePointer[Scalar[T], MutUntrackedOrigin], start: Int, count: Int):
    """``count`` values from element ``start`` on: in T (a float family's output), or as bytes of
    the dtype ``code`` (the integer family's)."""
    comptime if S == T:
        var out = dst.unsafe_bitcast[Scalar[T]]()
        for i in range(count):
            out.unsafe_store(start + i, src.unsafe_load(i))
    else:
        store_coded[T](code, dst, src, start, count)


def _scan[T: DType, S: DType, A: DType](
    p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], data: UnsafePointer[Int, _],
    n: Int, dst: UnsafePointer[UInt8, MutAnyOrigin],
) raises:
    """Running combines (in A: the registers' float, or the integers' int64) of the program's values
    over r, in an (outer, r, inner) space: rows (inner = 1) a task's whole rows at a time, else an
    outer index and a chunk of inner columns per task, a row of the chunk at a time; each value
    taken after the one before it, as NumPy's ``accumulate`` takes them."""
    var reverse = Int(p.unsafe_load(2)) % 4 == 2
    var kind = Int(p.unsafe_load(2)) // 4
    var r = Int(p.unsafe_load(3))
    var inner = Int(p.unsafe_load(4))
    var code = Int(p.unsafe_load(5))
    var half = S != T and A.is_floating_point() and code == Code.FLOAT16
    var outer = n // (r * inner)
    var result_at = Int(p.unsafe_load(1))
    var chunk = min(inner, BLOCK)
    var chunks = (inner + chunk - 1) // chunk
    var rows_per_task = max(1, BLOCKS_PER_TASK * BLOCK // r) if inner == 1 else 1
    var tasks = (outer + rows_per_task - 1) // rows_per_task if inner == 1 else outer * chunks

    var memory = registers_used(p) * BLOCK  # (a task's registers: counted once for every task)
    def task(t: Int) {memory, p, k, data, r, inner, outer, chunk, chunks, rows_per_task,
                      reverse, kind, dst, result_at, code, half}:
        var regs = alloc[Scalar[T]](memory)
        var ptrs = alloc[Int](MAX_REGISTERS, alignment=64)  # (whole cache lines: tasks on other cores write theirs)
        var values = regs + result_at * BLOCK  # (scans keep whole blocks: their rows are long)
        if inner == 1:
            for row in range(t * rows_per_task, min(outer, (t + 1) * rows_per_task)):
                var acc = _identity[A](kind)
                var blocks = (r + BLOCK - 1) // BLOCK
                for b in range(blocks):
                    var first = (blocks - 1 - b) * BLOCK if reverse else b * BLOCK
                    var count = min(BLOCK, r - first)
                    var start = row * r + first
                    _run_block[T, S](p, k, data, regs, BLOCK, start, count, ptrs, result_at)
                    for j in range(count):
                        var i = count - 1 - j if reverse else j
                        acc = _combine[A](kind, acc, values.unsafe_load(i).cast[A]())
                        if half:
                            acc = acc.cast[DType.float16]().cast[A]()
                        values.unsafe_store(i, acc.cast[T]())
                    _store_run[T, S](code, dst, values, start, count)
        else:
            var o = t // chunks
            var col = (t % chunks) * chunk
            var width = min(chunk, inner - col)
            var acc = alloc[Scalar[A]](chunk)
            for i in range(width):
                acc.unsafe_store(i, _identity[A](kind))
            for j in range(r):
                var kk = r - 1 - j if reverse else j
                var start = (o * r + kk) * inner + col
                _run_block[T, S](p, k, data, regs, BLOCK, start, width, ptrs, result_at)
                _accumulate[T, A](kind, acc, values, width)
                if half:
                    for i in range(width):
                        acc.unsafe_store(i, acc.unsafe_load(i).cast[DType.float16]().cast[A]())
                for i in range(width):
                    values.unsafe_store(i, acc.unsafe_load(i).cast[T]())
                _store_run[T, S](code, dst, values, start, width)
            acc.free()
        regs.free()
        ptrs.free()

    def kept(t: Int) {task}:  # (denormals kept on MAX's worker threads: see fused.mojo)
        with KeepDenormals():
            task(t)

    if tasks == 1 or program_work(p, n) < SERIAL_WORK:  # (see fused.mojo)
        for t in range(tasks):
            kept(t)
    else:
        parallelize(kept, tasks)
