# The fused evaluator's reductions (see fused.mojo for the programs they run; running ones:
# fused_scan.mojo): over one run of axes of the program's elements, seen as an (outer, r, inner)
# block, without transposing anything. A float sum, mean or product is NumPy's, in the data's dtype
# (a row pairwise, fused_pairwise.mojo; columns one row after another); max and min in float64, the
# integer family in int64.
from std.memory import bitcast
from std.sys.info import num_logical_cores, simd_width_of
from max.algorithm import parallelize
from .denormals import KeepDenormals
from .fused_bits import _is_nan
from .fused import BLOCK, BLOCKS_PER_TASK, HEADER, MAX_REGISTERS, SERIAL_DOT_WORK, SERIAL_WORK, _run_block, program_work, register_of, register_stride, registers_used
from .fused_accumulate import _combine, _identity, _reduce_block, accumulator
from .fused_dot import accumulate_rows, dot_fits, dot_pairwise, dot_pairwise4, is_dot
from .fused_int import store_coded
from .fused_slots import slot
from .fused_pairwise import joined_parts, pairwise_part, pairwise_sum, split, split_parts
from .opcodes import Op, Reduce, Code


@always_inline
def _accumulate[T: DType, A: DType](kind: Int, acc: UnsafePointer[Scalar[A], MutUntrackedOrigin],
                                    row: UnsafePointer[Scalar[T], MutUntrackedOrigin], count: Int):
    """acc[i] = acc[i] (+) row[i], elementwise in accumulator lanes; NaN wins in max and min."""
    comptime w = simd_width_of[A]()
    var whole = count // w * w
    for i in range(0, whole, w):
        var a = acc.unsafe_load[width=w](i)
        var v = row.unsafe_load[width=w](i).cast[A]()
        if kind == Reduce.SUM or kind == Reduce.MEAN:
            a = a + v
        elif kind == Reduce.PROD:
            a = a * v
        else:
            var better = v.gt(a) if kind == Reduce.MAX else v.lt(a)
            comptime if A.is_floating_point():
                a = _is_nan(v).select(v, _is_nan(a).select(a, better.select(v, a)))
            else:
                a = better.select(v, a)
        acc.unsafe_store(i, a)
    for i in range(whole, count):
        acc.unsafe_store(i, _combine[A](kind, acc.unsafe_load(i), row.unsafe_load(i).cast[A]()))


def reduce_into[T: DType, S: DType, O: DType](p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _],
                                              data: UnsafePointer[Int, _], out_bytes: UnsafePointer[UInt8, MutAnyOrigin],
                                              m: Int) raises:
    """A program's values over (outer, r, inner) reduced over r into ``m`` outputs: of O where the
    data is of T (O int64 for a count), else (bytes) of the dtype code in the program's header."""
    comptime A = accumulator[T]()
    var code = Int(p.unsafe_load(5))
    var kind = Int(p.unsafe_load(2))
    var r = Int(p.unsafe_load(3))
    var inner = Int(p.unsafe_load(4))
    var result = alloc[Scalar[A]](max(m, 1))
    var dot = False  # a sum of products of two loads, read straight from their data (fused_dot.mojo)
    comptime if S == T and T.is_floating_point():
        dot = is_dot(p, kind) and dot_fits(p, k, r if inner == 1 else inner)
    with KeepDenormals():  # as NumPy (see fused.mojo)
        if kind == Reduce.ARGMAX or kind == Reduce.ARGMIN:
            _arg_reduce[T, S](p, k, data, m // inner, r, inner, kind, result)
        elif inner == 1:
            var counted = False
            comptime if T == DType.int64 and S == DType.uint8:
                var at = _counted_bytes(p, data, m, r, kind)
                if at >= 0:  # (a mask's count: its bytes summed as bytes)
                    result.unsafe_store(0, Scalar[A](_sum_bytes(slot[DType.uint8](data, at), r)))
                    counted = True
            if not counted:
                _reduce_rows[T, S](p, k, data, m, r, kind, result, dot)
        else:
            # a float16 sum or product over an axis before the last: NumPy adds each row into its
            # float16 output in turn, every partial rounded to float16 (a sum of 5,000 values
            # near 1 stops at 4,096): so do these columns, one row after another
            var half = S != T and code == Code.FLOAT16 and (kind == Reduce.SUM or kind == Reduce.PROD)
            var in_order = False  # (a float sum, mean or product: NumPy's order, one row after another)
            comptime if T.is_floating_point():
                in_order = kind == Reduce.SUM or kind == Reduce.MEAN or kind == Reduce.PROD
            if in_order:
                _reduce_columns_in_order[T, S](p, k, data, m // inner, r, inner, kind, result, dot, half)
            else:
                _reduce_columns[T, S](p, k, data, m // inner, r, inner, kind, result)
    comptime if not A.is_floating_point():
        if code == Code.UINT64 and (kind == Reduce.MAX or kind == Reduce.MIN):
            # (the program flipped each uint64 value's sign bit, so that signed order is unsigned
            # order: the best value flipped back)
            for i in range(m):
                result.unsafe_store(i, result.unsafe_load(i) ^ Scalar[A](Int64.MIN))
    var test = Int(p.unsafe_load(6))
    if test != 0:  # the reduction's test (a count's ``> c``, negated for ``all``): 1 / 0
        var c: Scalar[A]
        comptime if A.is_floating_point():
            c = k.unsafe_load(Int(p.unsafe_load(7))).cast[A]()
        else:
            c = bitcast[DType.int64, 1](k.unsafe_load(Int(p.unsafe_load(7)))).cast[A]()
        for i in range(m):
            var above = result.unsafe_load(i) > c
            result.unsafe_store(i, Scalar[A](1) if above == (test == 2) else Scalar[A](0))
    comptime if S == T:
        var out = out_bytes.unsafe_bitcast[Scalar[O]]()
        for i in range(m):
            var v = result.unsafe_load(i)
            out.unsafe_store(i, (_mean(v, r, O == DType.float32) if kind == Reduce.MEAN else v).cast[O]())
    else:
        comptime if A.is_floating_point():  # (the coded float family's mean)
            if kind == Reduce.MEAN:
                for i in range(m):  # float32 (code 8) and float16 (10) both sum in float32, as NumPy
                    result.unsafe_store(i, _mean(result.unsafe_load(i), r, code == Code.FLOAT32 or code == Code.FLOAT16))
        store_coded[A](code, out_bytes, result, 0, m)
    result.free()


def _counted_bytes(p: UnsafePointer[Int32, _], data: UnsafePointer[Int, _], m: Int, r: Int, kind: Int) -> Int:
    """The data slot whose ``r`` bools (or uint8) a program of the integer family sums whole, one
    load in order and nothing else (``mask.sum()``, a mask's count before its positions, ``any``);
    -1 for any other program."""
    if m != 1 or kind != Reduce.SUM or Int(p.unsafe_load(0)) != 1:
        return -1
    var op = Int(p.unsafe_load(HEADER))
    var a = Int(p.unsafe_load(HEADER + 2))
    var code = Int(p.unsafe_load(HEADER + 4))
    if op != Op.LOAD or Int(p.unsafe_load(HEADER + 3)) != 0 or (code != Code.BOOL and code != Code.UINT8) \
            or data.unsafe_load(2 * a + 1) != r:
        return -1
    return a


def _sum_bytes(src: UnsafePointer[UInt8, _], n: Int) -> Int:
    """The sum of ``n`` bytes: 32 at a time in 16-bit lanes, each lane's sum taken out before it could
    wrap (255 adds of at most 255), where the integer family widens each byte to int64 first."""
    comptime w = 32
    var total = 0
    var i = 0
    var whole = n // w * w
    while i < whole:
        var end = min(whole, i + 255 * w)
        var acc = SIMD[DType.uint16, w](0)
        while i < end:
            acc += src.unsafe_load[width=w](i).cast[DType.uint16]()
            i += w
        total += Int(acc.cast[DType.uint32]().reduce_add())
    for j in range(whole, n):
        total += Int(src.unsafe_load(j))
    return total


@always_inline
def _mean[A: DType](total: Scalar[A], r: Int, single: Bool) -> Scalar[A]:
    """A mean from its accumulated sum. A single-precision mean is NumPy's: the sum rounded to
    float32 (inf past its range) over the count; the quotient of two float32 values taken in
    float64 and rounded once to float32 is float32's correctly rounded quotient."""
    comptime if A.is_floating_point():
        if single:
            return total.cast[DType.float32]().cast[A]() / Scalar[A](r)
    return total / Scalar[A](r)


def _reduce_rows[T: DType, S: DType](
    p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], data: UnsafePointer[Int, _],
    m: Int, r: Int, kind: Int, result: UnsafePointer[Scalar[accumulator[T]()], MutUntrackedOrigin], dot: Bool,
) raises:
    """``m`` rows of r contiguous elements (inner = 1). Every row is reduced the same way wherever
    it lies (a row's value does not depend on how many rows there are: SciPy's bootstrap compares a
    batched run with an unbatched one bit for bit): a row of at most BLOCK elements in one SIMD
    pass over it, several rows to a block; a longer row in row-relative blocks, and past one
    task's span in pieces whose partials are combined in order."""
    comptime A = accumulator[T]()
    # a float sum is NumPy's pairwise one in the data's dtype (``fused_pairwise.mojo``), a float
    # product NumPy's one value after another in it
    var numpy_sum = False
    var numpy_prod = False
    comptime if T.is_floating_point():
        numpy_sum = kind == Reduce.SUM or kind == Reduce.MEAN
        numpy_prod = kind == Reduce.PROD
    if numpy_sum and not dot and r > BLOCK:
        _split_rows[T, S, A](p, k, data, m, r, result, program_work(p, m * r) >= SERIAL_WORK)
        return
    var span = BLOCKS_PER_TASK * BLOCK  # the elements one task reduces, about
    var pieces = 1 if numpy_prod or (numpy_sum and dot) else max(1, (r + span - 1) // span)  # tasks per row (a row longer than a span)
    var rows_per_task = max(1, span // max(r, 1)) if pieces == 1 else 1
    if dot:  # (four rows at a time: ``dot_pairwise4``)
        rows_per_task = (rows_per_task + 3) // 4 * 4
    var row_tasks = (m + rows_per_task - 1) // rows_per_task
    var tasks = row_tasks * pieces
    var partials = alloc[Scalar[A]](max(1, m * pieces if pieces > 1 and not numpy_sum else 1))
    var result_at = Int(p.unsafe_load(1))
    var stride = register_stride[T](m * r)

    var memory = 0 if dot else registers_used(p) * stride  # (a task's registers: counted once for every task)
    def task(t: Int) {memory, p, k, data, r, kind, result, partials, result_at, stride, span, pieces,
                      rows_per_task, m, dot, numpy_sum, numpy_prod}:
        var regs = alloc[Scalar[T]](max(memory, 1))
        var ptrs = alloc[Int](MAX_REGISTERS, alignment=64)  # (whole cache lines: tasks on other cores write theirs)
        var piece = t % pieces
        var row0 = (t // pieces) * rows_per_task
        var row1 = min(m, row0 + rows_per_task)
        if dot:  # (the same sums, each row's products read from the data, four rows side by side)
            var row = row0
            while row + 4 <= row1:
                var four = dot_pairwise4[T](p, k, data, row * r, r, r)
                for q in range(4):
                    result.unsafe_store(row + q, four[q].cast[A]())
                row += 4
            for rest in range(row, row1):
                result.unsafe_store(rest, dot_pairwise[T](p, k, data, rest * r, r).cast[A]())
        elif r <= BLOCK:  # whole rows to a block, each reduced over its own elements
            var per_block = max(1, BLOCK // max(r, 1))
            var row = row0
            while row < row1:
                var rows = min(per_block, row1 - row)
                if r > 0:
                    _run_block[T, S](p, k, data, regs, stride, row * r, rows * r, ptrs, -1)
                var values = register_of[T, S](ptrs, regs, stride, result_at)
                for j in range(rows):
                    if numpy_sum:
                        result.unsafe_store(row + j, pairwise_sum[T](values + j * r, r).cast[A]())
                    elif numpy_prod:
                        result.unsafe_store(row + j, _product[T](Scalar[T](1), values + j * r, r).cast[A]())
                    else:
                        result.unsafe_store(row + j, _reduce_block[T, A](kind, values + j * r, r) if r > 0
                                            else _identity[A](kind))
                row += rows
        elif numpy_prod:  # (one piece: in order)
            for row in range(row0, row1):
                var acc = Scalar[T](1)
                var at = 0
                while at < r:
                    var count = min(BLOCK, r - at)
                    _run_block[T, S](p, k, data, regs, stride, row * r + at, count, ptrs, -1)
                    acc = _product[T](acc, register_of[T, S](ptrs, regs, stride, result_at), count)
                    at += count
                result.unsafe_store(row, acc.cast[A]())
        else:
            var lo = piece * span
            var hi = min(r, lo + span)
            for row in range(row0, row1):
                var acc = _identity[A](kind)
                var at = lo
                while at < hi:  # blocks at offsets of the row's own start
                    var count = min(BLOCK, hi - at)
                    _run_block[T, S](p, k, data, regs, stride, row * r + at, count, ptrs, -1)
                    acc = _combine[A](kind, acc, _reduce_block[T, A](kind, register_of[T, S](ptrs, regs, stride, result_at), count))
                    at += count
                if pieces == 1:
                    result.unsafe_store(row, acc)
                else:
                    partials.unsafe_store(row * pieces + piece, acc)
        regs.free()
        ptrs.free()

    def kept(t: Int) {task}:  # (denormals kept on MAX's worker threads: see fused.mojo)
        with KeepDenormals():
            task(t)

    if tasks == 1 or program_work(p, m * r) < (SERIAL_DOT_WORK if dot else SERIAL_WORK):  # (see fused.mojo)
        for t in range(tasks):
            kept(t)
    else:
        parallelize(kept, tasks)
    if pieces > 1:
        for row in range(m):
            var acc = partials.unsafe_load(row * pieces)
            for q in range(1, pieces):
                acc = _combine[A](kind, acc, partials.unsafe_load(row * pieces + q))
            result.unsafe_store(row, acc)
    partials.free()


def _split_rows[T: DType, S: DType, A: DType](
    p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], data: UnsafePointer[Int, _], m: Int, r: Int,
    result: UnsafePointer[Scalar[A], MutUntrackedOrigin], parallel: Bool,
) raises:
    """NumPy's pairwise sum of each of ``m`` rows of a program's ``r`` values (r over a block) by
    walking the split: down to parts of at most a block, each computed into a block and summed
    there (the same bits as the row's values summed whole), or, where the program only loads its
    data (``x.sum()``), straight from memory. (Leaves computed a block of them at a time, their
    bounds and partials kept and joined afterwards, cost as much as the sums again: 2.5M float64
    ``x.sum()`` 1.0 -> 0.42 ms, ``(x * 2).sum()`` 2.4 -> 0.5.) ``parallel``: rows over cores, or one
    row's first parts of the split apart, each a task, joined as the split adds them."""
    var direct = _loaded_slot[T, S](p, data)
    var stride = register_stride[T](m * r)
    var memory = 0 if direct >= 0 else registers_used(p) * stride
    var depth = 0
    if parallel and m == 1:
        depth = 1
        while (1 << depth) < num_logical_cores() and depth < 3:
            depth += 1
    var starts = alloc[Int]((1 << depth) + 1)
    var parts = split_parts(0, r, depth, 0, starts)
    starts.unsafe_store(parts, r)
    var sums = alloc[Scalar[T]](m * parts)
    var groups = min(m, 4 * num_logical_cores()) if parallel else 1  # (rows to a task: a row alone is little work)
    var per = (m + groups - 1) // groups
    var tasks = parts * ((m + per - 1) // per)

    def task(t: Int) {memory, p, k, data, r, m, starts, parts, sums, stride, direct, per}:
        with KeepDenormals():
            var regs = alloc[Scalar[T]](max(memory, 1))
            var ptrs = alloc[Int](MAX_REGISTERS, alignment=64)
            var part = t % parts
            var at = starts.unsafe_load(part)
            var n = starts.unsafe_load(part + 1) - at
            var first = (t // parts) * per
            for row in range(first, min(m, first + per)):
                if direct >= 0:
                    sums.unsafe_store(row * parts + part, pairwise_part[T](slot[T](data, direct) + row * r + at, n))
                else:
                    sums.unsafe_store(row * parts + part, _split_sum[T, S](p, k, data, regs, stride, ptrs,
                                                                           row * r + at, n))
            regs.free()
            ptrs.free()

    if parallel and tasks > 1:
        parallelize(task, tasks)
    else:
        for t in range(tasks):
            task(t)
    var counted = alloc[Int](1)
    for row in range(m):
        counted.unsafe_store(0, row * parts)
        result.unsafe_store(row, (Scalar[T](0) + joined_parts[T](r, depth, sums, counted)).cast[A]())
    counted.free()
    starts.free()
    sums.free()


def _split_sum[T: DType, S: DType](
    p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], data: UnsafePointer[Int, _],
    regs: UnsafePointer[Scalar[T], MutUntrackedOrigin], stride: Int, ptrs: UnsafePointer[Int, MutUntrackedOrigin],
    start: Int, n: Int,
) -> Scalar[T]:
    """The split's sum of the program's values ``start`` .. ``start + n - 1``, a part of a row's split."""
    if n <= BLOCK:
        _run_block[T, S](p, k, data, regs, stride, start, n, ptrs, -1)
        return pairwise_part[T](register_of[T, S](ptrs, regs, stride, Int(p.unsafe_load(1))), n)
    var half = split(n)
    var left = _split_sum[T, S](p, k, data, regs, stride, ptrs, start, half)
    return left + _split_sum[T, S](p, k, data, regs, stride, ptrs, start + half, n - half)


def _loaded_slot[T: DType, S: DType](p: UnsafePointer[Int32, _], data: UnsafePointer[Int, _]) -> Int:
    """The data slot that program ``p`` only loads, in order (one instruction, its result: the
    values are the slot's own data of T); -1 for any other program."""
    comptime if S == T:
        if Int(p.unsafe_load(0)) == 1 and Int(p.unsafe_load(HEADER)) == Op.LOAD \
                and Int(p.unsafe_load(HEADER + 3)) == 0 and p.unsafe_load(HEADER + 1) == p.unsafe_load(1):
            var a = Int(p.unsafe_load(HEADER + 2))
            if data.unsafe_load(2 * a + 1) != 1:  # (not one value for all)
                return a
    return -1


@always_inline
def _product[T: DType](start: Scalar[T], v: UnsafePointer[Scalar[T], MutUntrackedOrigin], n: Int) -> Scalar[T]:
    """``start`` times n values one after another, each product rounded to T (NumPy's float product)."""
    var acc = start
    for i in range(n):
        acc *= v.unsafe_load(i)
    return acc


#: rows of the reduced axis one task of a column reduction sums (``_reduce_columns``)
comptime SPAN_ROWS = 1024

#: the fewest columns a task of an in-order column reduction takes where it splits them over cores
#: (``_reduce_columns_in_order``): 4 KiB of float64 per row
comptime MIN_STRIP = 512


def _reduce_columns[T: DType, S: DType](
    p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], data: UnsafePointer[Int, _],
    outer: Int, r: Int, inner: Int, kind: Int, result: UnsafePointer[Scalar[accumulator[T]()], MutUntrackedOrigin],
) raises:
    """Reduction over a middle axis (inner > 1): a task takes one outer index, a chunk of at most
    BLOCK inner columns and a span of the reduced axis, accumulating whole rows of its columns
    elementwise (no transpose); the spans' partials are combined in order afterwards (max, min and
    the integers' reductions: exact in any order; ``_reduce_columns_in_order`` takes float sums)."""
    var chunk = min(inner, BLOCK)
    var chunks = (inner + chunk - 1) // chunk
    # spans of a fixed number of rows: the order a column is reduced in depends on r alone, not on
    # how many columns there are (SciPy's bootstrap compares a batched run with an unbatched one)
    var per_span = SPAN_ROWS
    var spans = max(1, (r + per_span - 1) // per_span)
    var tasks = outer * chunks * spans
    comptime A = accumulator[T]()
    var partials = alloc[Scalar[A]](tasks * chunk)
    var result_at = Int(p.unsafe_load(1))
    var stride = register_stride[T](outer * r * inner)

    var memory = registers_used(p) * stride  # (a task's registers: counted once for every task)
    def task(t: Int) {memory, p, k, data, r, inner, kind, chunk, chunks, spans, per_span,
                      partials, result_at, stride}:
        var regs = alloc[Scalar[T]](max(memory, 1))
        var ptrs = alloc[Int](MAX_REGISTERS, alignment=64)  # (whole cache lines: tasks on other cores write theirs)
        var span = t % spans
        var c = (t // spans) % chunks
        var o = t // (spans * chunks)
        var col = c * chunk
        var width = min(chunk, inner - col)
        var acc = partials + t * chunk
        for i in range(width):
            acc.unsafe_store(i, _identity[A](kind))
        var k0 = span * per_span
        var k1 = min(r, k0 + per_span)
        # whole rows fit a block when the chunk is all of them: several rows per block
        var rows = max(1, BLOCK // inner) if width == inner else 1
        var kk = k0
        while kk < k1:
            var nrows = min(rows, k1 - kk)
            var start = (o * r + kk) * inner + col
            var count = (nrows - 1) * inner + width
            _run_block[T, S](p, k, data, regs, stride, start, count, ptrs, -1)
            var values = register_of[T, S](ptrs, regs, stride, result_at)
            for j in range(nrows):
                _accumulate[T, A](kind, acc, values + j * inner, width)
            kk += nrows
        regs.free()
        ptrs.free()

    def kept(t: Int) {task}:  # (denormals kept on MAX's worker threads: see fused.mojo)
        with KeepDenormals():
            task(t)

    if tasks == 1 or program_work(p, outer * r * inner) < SERIAL_WORK:  # (see fused.mojo: a task per outer index, however small)
        for t in range(tasks):
            kept(t)
    else:
        parallelize(kept, tasks)
    for t in range(0, tasks, spans):
        var c = (t // spans) % chunks
        var o = t // (spans * chunks)
        var col = c * chunk
        var width = min(chunk, inner - col)
        var dst = result + o * inner + col
        for i in range(width):
            dst.unsafe_store(i, partials.unsafe_load(t * chunk + i))
        for s in range(1, spans):
            _combine_rows[A](kind, dst, partials + (t + s) * chunk, width)
    partials.free()


def _reduce_columns_in_order[T: DType, S: DType](
    p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], data: UnsafePointer[Int, _],
    outer: Int, r: Int, inner: Int, kind: Int, result: UnsafePointer[Scalar[accumulator[T]()], MutUntrackedOrigin],
    dot: Bool, half: Bool = False,
) raises:
    """A float sum, mean or product over a middle axis (inner > 1) in NumPy's order: a task takes
    one outer index and a chunk of columns over all of r, adding whole rows of its columns one after
    another (no transpose), each partial rounded to the data's dtype (``half``: to float16, as
    NumPy's float16 loop adds each row into its output)."""
    comptime A = accumulator[T]()
    var chunk = min(inner, 2 * BLOCK if dot else BLOCK)  # (a dot's running sums: 16 KiB of float64)
    var work = program_work(p, outer * r * inner)
    var parallel = work >= (SERIAL_DOT_WORK if dot else SERIAL_WORK)
    var strips = min(max(1, num_logical_cores() // outer), inner // MIN_STRIP)
    if work >= SERIAL_WORK and strips > (inner + chunk - 1) // chunk:
        # (no spans: a chunk of columns per core, each a whole share of the rows: a 5,500-column
        # ``y @ A`` took three tasks on two cores; but each task streams its columns' part of every
        # row, and a part under ``MIN_STRIP`` columns streams badly: eight strips of a
        # 1,800 x 1,399 ``v @ A`` read 0.46 ns a product, two 0.13)
        chunk = ((inner + strips - 1) // strips + 7) // 8 * 8
    var chunks = (inner + chunk - 1) // chunk
    var tasks = outer * chunks
    var result_at = Int(p.unsafe_load(1))
    var stride = register_stride[T](outer * r * inner)

    var memory = 0 if dot else registers_used(p) * stride  # (a task's registers: counted once for every task)
    def task(t: Int) {memory, p, k, data, r, inner, kind, chunk, chunks, result, result_at, stride, dot, half}:
        var regs = alloc[Scalar[T]](max(memory, 1))
        var ptrs = alloc[Int](MAX_REGISTERS, alignment=64)  # (whole cache lines: tasks on other cores write theirs)
        var c = t % chunks
        var o = t // chunks
        var col = c * chunk
        var width = min(chunk, inner - col)
        var acc = result + o * inner + col  # (its columns' own outputs: no other task adds to them)
        for i in range(width):
            acc.unsafe_store(i, _identity[A](kind))
        var k1 = r
        # whole rows fit a block when the chunk is all of them: several rows per block
        var rows = max(1, BLOCK // inner) if width == inner else 1
        var kk = 0
        if dot:  # (the same sums, each row's products read from the data, four rows at a time)
            accumulate_rows[T, A](p, k, data, o * r * inner + col, inner, k1, acc, width)
            kk = k1
        while kk < k1:
            var nrows = min(rows, k1 - kk)
            var start = (o * r + kk) * inner + col
            var count = (nrows - 1) * inner + width
            _run_block[T, S](p, k, data, regs, stride, start, count, ptrs, -1)
            var values = register_of[T, S](ptrs, regs, stride, result_at)
            for j in range(nrows):
                _accumulate[T, A](kind, acc, values + j * inner, width)
                if half:
                    for i in range(width):
                        acc.unsafe_store(i, acc.unsafe_load(i).cast[DType.float16]().cast[A]())
                else:
                    comptime if T != A:  # (float32's sum of two float32 values is the float64 sum rounded once)
                        for i in range(width):
                            acc.unsafe_store(i, acc.unsafe_load(i).cast[T]().cast[A]())
            kk += nrows
        regs.free()
        ptrs.free()

    def kept(t: Int) {task}:  # (denormals kept on MAX's worker threads: see fused.mojo)
        with KeepDenormals():
            task(t)

    if tasks == 1 or not parallel:  # (see fused.mojo: a task per outer index, however small)
        for t in range(tasks):
            kept(t)
    else:
        parallelize(kept, tasks)


def _arg_reduce[T: DType, S: DType](
    p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], data: UnsafePointer[Int, _],
    outer: Int, r: Int, inner: Int, kind: Int, result: UnsafePointer[Scalar[accumulator[T]()], MutUntrackedOrigin],
) raises:
    """argmax (kind 6) or argmin (7) over r: the first position of the largest (smallest) value, a
    NaN's before any (NumPy's). A task takes one outer index and a chunk of at most BLOCK inner
    columns over all of r, in order, so the first position found is the first there is."""
    var chunk = min(inner, BLOCK)
    var chunks = (inner + chunk - 1) // chunk
    var tasks = outer * chunks
    comptime A = accumulator[T]()
    var result_at = Int(p.unsafe_load(1))
    var stride = register_stride[T](outer * r * inner)

    var memory = registers_used(p) * stride  # (a task's registers: counted once for every task)
    def task(t: Int) {memory, p, k, data, r, inner, kind, chunk, chunks, result, result_at,
                      stride}:
        var regs = alloc[Scalar[T]](memory)
        var ptrs = alloc[Int](MAX_REGISTERS, alignment=64)  # (whole cache lines: tasks on other cores write theirs)
        var o = t // chunks
        var col = (t % chunks) * chunk
        var width = min(chunk, inner - col)
        var best = alloc[Scalar[T]](width)
        var at = alloc[Int](width)
        for i in range(width):
            at.unsafe_store(i, -1)
        # a block holds consecutive positions of r (inner = 1), or whole rows of the columns
        var rows = BLOCK if inner == 1 else (max(1, BLOCK // inner) if width == inner else 1)
        var kk = 0
        while kk < r:
            var nrows = min(rows, r - kk)
            var start = (o * r + kk) * inner + col
            var count = (nrows - 1) * inner + width
            _run_block[T, S](p, k, data, regs, stride, start, count, ptrs, -1)
            var values = register_of[T, S](ptrs, regs, stride, result_at)
            for j in range(nrows):
                for i in range(width):
                    _take[T](kind, best, at, i, values.unsafe_load(j * inner + i), kk + j)
            kk += nrows
        for i in range(width):
            result.unsafe_store(o * inner + col + i, Scalar[A](at.unsafe_load(i)))
        best.free()
        at.free()
        regs.free()
        ptrs.free()

    def kept(t: Int) {task}:  # (denormals kept on MAX's worker threads: see fused.mojo)
        with KeepDenormals():
            task(t)

    if tasks == 1 or program_work(p, outer * r * inner) < SERIAL_WORK:  # (see fused.mojo: a task per outer index, however small)
        for t in range(tasks):
            kept(t)
    else:
        parallelize(kept, tasks)


@always_inline
def _take[T: DType](kind: Int, best: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                    at: UnsafePointer[Int, MutUntrackedOrigin], i: Int, v: Scalar[T], position: Int):
    """Position ``position`` of value ``v`` replaces lane ``i``'s best if it is the first, the first
    NaN, or strictly better than a best that is not NaN."""
    if at.unsafe_load(i) < 0:
        best.unsafe_store(i, v)
        at.unsafe_store(i, position)
        return
    var b = best.unsafe_load(i)
    comptime if T.is_floating_point():
        if _is_nan[T, 1](b):
            return
        if _is_nan[T, 1](v):
            best.unsafe_store(i, v)
            at.unsafe_store(i, position)
            return
    if v > b if kind == Reduce.ARGMAX else v < b:
        best.unsafe_store(i, v)
        at.unsafe_store(i, position)


def _combine_rows[A: DType](kind: Int, acc: UnsafePointer[Scalar[A], MutUntrackedOrigin],
                           part: UnsafePointer[Scalar[A], MutUntrackedOrigin], count: Int):
    for i in range(count):
        acc.unsafe_store(i, _combine[A](kind, acc.unsafe_load(i), part.unsafe_load(i)))
