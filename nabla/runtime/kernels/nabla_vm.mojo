# Nabla's program kernel: a trace's whole program of stages run in one call from Python.
#
# A read runs its trace as a program of stages (runtime/program.py writes it): each stage is one
# program of the fused evaluator (evaluator/fused.mojo: registers over blocks of the stage's elements,
# inputs read through strided layouts) whose result is stored into a buffer, in order or through a
# strided layout (a slice write), or reduced over one run of axes, or summed running; or a copy of
# bytes. The stages' buffers are the trace's leaves, its outputs and an arena of intermediates, all
# given by address, so one call runs any program: nothing is compiled per structure, and a read
# pays one call, not one per stage. A row write (a scatter) copies rows of bytes to the rows an
# int64 index names, in order.
#
# Called from Python through ctypes (a C symbol of this shared library), not through a MAX graph:
# MAX's ``model.execute`` of a custom op costs ~30-40 us per call on the 2-core machine, a direct
# call ~1 us, and a loop that reads a scalar per step pays that floor every step. ctypes releases
# the GIL for the call: other Python threads run meanwhile, and a thread in the kernel never holds
# a lock that work it waits for (its own tasks, MAX's) could need.
#
# The call: an int64 array [n_stages, then STAGE ints per stage]:
#   kind (0 map, 1 reduce, 2 scan, 3 copy, 4 scatter, 5 scatter-add, 6 nonzero, 7 gather), family (0 float32, 1 float64,
#   2 integers in int64 registers over bytes, 3 coded float32, 4 coded float64, 5 bools in byte
#   registers (maps only); scatter-add: the
#   dtype's code), program address (int32), constants address (float64; scatter-add: outer, extent,
#   inner; nonzero: the axis's stride and size), output address, n (map and scan: elements; reduce:
#   outputs; copy: bytes; scatters and gather: rows; nonzero: the mask's elements), store layout
#   address (0: in order), count (reduce of a float family into int64: 1; scatter and gather: the
#   bytes of a row; nonzero: the true elements), then the data table: (address, size) for each of
#   eight data slots (the scatters: the rows written or added, then their int64 row numbers; the
#   gather: the rows read, then their int64 row numbers; nonzero: the bool mask).
from std.memory import UnsafePointer, unsafe_memcpy
from evaluator.fused import map_into
from evaluator.fused_reduce import reduce_into
from evaluator.fused_scan import scan_into, scan_into_coded, scan_into_ints

comptime STAGE = 24


@export
def nabla_vm_run(call: Int) -> Int:
    """Run the program of stages whose call array is at address ``call``; 0 when done, 1 when a
    stage raised (nothing the kernel computes raises: a guard)."""
    var c = UnsafePointer[Int, MutUntrackedOrigin](unsafe_from_address=call)
    var n = c.unsafe_load(0)
    try:
        for s in range(n):
            _stage(c + 1 + s * STAGE)
    except:
        return 1
    return 0


@always_inline
def _stage(st: UnsafePointer[Int, MutUntrackedOrigin]) raises:
    var kind = st.unsafe_load(0)
    var family = st.unsafe_load(1)
    var p = UnsafePointer[Int32, MutUntrackedOrigin](unsafe_from_address=st.unsafe_load(2))
    var k = UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=st.unsafe_load(3))
    var dst = UnsafePointer[UInt8, MutAnyOrigin](unsafe_from_address=st.unsafe_load(4))
    var n = st.unsafe_load(5)
    var at = st.unsafe_load(6)
    var layout = UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=at) if at != 0 else k
    var data = st + 8
    if kind == 3:  # (a buffer copied whole into a new one: the C library's copy, wide and unrolled)
        unsafe_memcpy(dest=dst, src=UnsafePointer[UInt8, MutAnyOrigin](unsafe_from_address=data.unsafe_load(0)), count=n)
    elif kind == 4:
        var src = UnsafePointer[UInt8, MutUntrackedOrigin](unsafe_from_address=data.unsafe_load(0))
        var rows = UnsafePointer[Int64, MutUntrackedOrigin](unsafe_from_address=data.unsafe_load(2))
        var row = st.unsafe_load(7)
        for i in range(n):
            _copy(dst + Int(rows.unsafe_load(i)) * row, src + i * row, row)
    elif kind == 5:
        var src = UnsafePointer[UInt8, MutUntrackedOrigin](unsafe_from_address=data.unsafe_load(0))
        var rows = UnsafePointer[Int64, MutUntrackedOrigin](unsafe_from_address=data.unsafe_load(2))
        var outer = Int(k.unsafe_load(0))
        var extent = Int(k.unsafe_load(1))
        var inner = Int(k.unsafe_load(2))
        if family == 9:
            _scatter_add[DType.float64](dst, src, rows, n, outer, extent, inner)
        elif family == 8:
            _scatter_add[DType.float32](dst, src, rows, n, outer, extent, inner)
        elif family == 10:  # float16: each sum in float32, rounded to float16 (NumPy's float16 loop)
            _scatter_add[DType.float16, DType.float32](dst, src, rows, n, outer, extent, inner)
        elif family == 4 or family == 11:  # (int64, and uint64's same bits)
            _scatter_add[DType.int64](dst, src, rows, n, outer, extent, inner)
        elif family == 3 or family == 7:
            _scatter_add[DType.int32](dst, src, rows, n, outer, extent, inner)
        elif family == 2 or family == 6:
            _scatter_add[DType.int16](dst, src, rows, n, outer, extent, inner)
        else:  # int8, uint8
            _scatter_add[DType.int8](dst, src, rows, n, outer, extent, inner)
    elif kind == 7:  # rows gathered: row i of the output is the row an int64 index names (a take's)
        var src = UnsafePointer[UInt8, MutUntrackedOrigin](unsafe_from_address=data.unsafe_load(0))
        var rows = UnsafePointer[Int64, MutUntrackedOrigin](unsafe_from_address=data.unsafe_load(2))
        var row = st.unsafe_load(7)
        _gather_rows(dst, src, rows, n, row, data.unsafe_load(1) // row)
    elif kind == 6:  # one axis's coordinates of the mask's true elements, in order
        var mask = UnsafePointer[UInt8, MutUntrackedOrigin](unsafe_from_address=data.unsafe_load(0))
        var stride, size = Int(k.unsafe_load(0)), Int(k.unsafe_load(1))
        _nonzero_axis(mask, dst.unsafe_bitcast[Int64](), n, stride, size, st.unsafe_load(7))
    elif kind == 0:
        if family == 0:
            map_into[DType.float32, DType.float32](p, k, data, dst, n, layout, at != 0)
        elif family == 1:
            map_into[DType.float64, DType.float64](p, k, data, dst, n, layout, at != 0)
        elif family == 2:
            map_into[DType.int64, DType.uint8](p, k, data, dst, n, layout, at != 0)
        elif family == 3:
            map_into[DType.float32, DType.uint8](p, k, data, dst, n, layout, at != 0)
        elif family == 5:  # (the byte family: a map of bools alone, in registers of one byte)
            map_into[DType.uint8, DType.uint8](p, k, data, dst, n, layout, at != 0)
        else:
            map_into[DType.float64, DType.uint8](p, k, data, dst, n, layout, at != 0)
    elif kind == 1:
        var count = st.unsafe_load(7) != 0
        if family == 0:
            if count:
                reduce_into[DType.float32, DType.float32, DType.int64](p, k, data, dst, n)
            else:
                reduce_into[DType.float32, DType.float32, DType.float32](p, k, data, dst, n)
        elif family == 1:
            if count:
                reduce_into[DType.float64, DType.float64, DType.int64](p, k, data, dst, n)
            else:
                reduce_into[DType.float64, DType.float64, DType.float64](p, k, data, dst, n)
        elif family == 2:
            reduce_into[DType.int64, DType.uint8, DType.uint8](p, k, data, dst, n)
        elif family == 3:
            reduce_into[DType.float32, DType.uint8, DType.uint8](p, k, data, dst, n)
        else:
            reduce_into[DType.float64, DType.uint8, DType.uint8](p, k, data, dst, n)
    elif kind == 2:
        if family == 0:
            scan_into[DType.float32](p, k, data, dst.unsafe_bitcast[Float32](), n)
        elif family == 1:
            scan_into[DType.float64](p, k, data, dst.unsafe_bitcast[Float64](), n)
        elif family == 2:
            scan_into_ints(p, k, data, dst, n)
        elif family == 3:
            scan_into_coded[DType.float32](p, k, data, dst, n)
        else:
            scan_into_coded[DType.float64](p, k, data, dst, n)


def _nonzero_axis(mask: UnsafePointer[UInt8, MutUntrackedOrigin], coords: UnsafePointer[Int64, MutAnyOrigin], n: Int,
                  stride: Int, size: Int, count: Int):
    """coords[j]: the coordinate ``(i // stride) % size`` of the mask's j-th true element i, for the
    first ``count`` of them. The coordinate is kept per run of elements that share it (or, on the
    innermost axis, grows by one an element), not divided out per element; and every element is
    stored without a branch (a random mask's branch mispredicts at about every other true element):
    the store goes to coords[j] and j grows by the mask's bit, a chunk never longer than the places
    left in ``coords``; sixty-four (or sixteen) false elements in a row are passed over at once (a
    bin's mask of 400,000 elements with 400 true, azimint_naive's: its run 0.080 -> 0.067 ms)."""
    var run = size if stride == 1 else stride
    var step = 1 if stride == 1 else 0
    var coord = 0
    var start = 0
    var j = 0
    while start < n and j < count:
        var end = min(start + run, n)
        var e = start
        while e < end and j < count:
            var last = e + min(end - e, count - j)
            var q = e
            while q + 64 <= last:  # sixty-four at a time, all false passed over at once (a sparse mask)
                if mask.unsafe_load[width=64](q).reduce_max() != 0:
                    for h in range(q, q + 64, 16):
                        if mask.unsafe_load[width=16](h).reduce_max() != 0:
                            for r in range(h, h + 16):
                                coords.unsafe_store(j, Int64(coord + (r - start) * step))
                                j += Int(mask.unsafe_load(r) != 0)
                q += 64
            while q + 16 <= last:  # sixteen at a time
                if mask.unsafe_load[width=16](q).reduce_max() != 0:
                    for r in range(q, q + 16):
                        coords.unsafe_store(j, Int64(coord + (r - start) * step))
                        j += Int(mask.unsafe_load(r) != 0)
                q += 16
            while q < last:
                coords.unsafe_store(j, Int64(coord + (q - start) * step))
                j += Int(mask.unsafe_load(q) != 0)
                q += 1
            e = last
        start = end
        if stride != 1:
            coord = coord + 1 if coord + 1 < size else 0


def _scatter_add[D: DType, A: DType = D](dst: UnsafePointer[UInt8, MutAnyOrigin],
                                         src: UnsafePointer[UInt8, MutUntrackedOrigin],
                                         rows: UnsafePointer[Int64, MutUntrackedOrigin], n: Int, outer: Int,
                                         extent: Int, inner: Int):
    """out[o, rows[i], :] += u[o, i, :] over i in order (a negative row from the end; one outside
    the extent adds nothing): NumPy's ``add.at`` order, so float sums round as its do, each added
    in A and rounded to D. Integers add modulo 2^bits, as NumPy's wrap."""
    var out = dst.unsafe_bitcast[Scalar[D]]()
    var u = src.unsafe_bitcast[Scalar[D]]()
    for o in range(outer):
        for i in range(n):
            var j = Int(rows.unsafe_load(i))
            if j < 0:
                j += extent
            if j < 0 or j >= extent:
                continue
            var d = out + (o * extent + j) * inner
            var s = u + (o * n + i) * inner
            for e in range(inner):
                d.unsafe_store(e, (d.unsafe_load(e).cast[A]() + s.unsafe_load(e).cast[A]()).cast[D]())


def _gather_rows(dst: UnsafePointer[UInt8, MutAnyOrigin], src: UnsafePointer[UInt8, MutUntrackedOrigin],
                 rows: UnsafePointer[Int64, MutUntrackedOrigin], n: Int, row: Int, extent: Int):
    """Row i of ``dst`` (``row`` bytes) from row ``rows[i]`` of ``src``'s ``extent``, for i < n (each
    row number clamped into them, as the program's gathers clamp: memory stays safe whatever the
    indices): a word or a pair of words (an element of 8 bytes, a complex128 one) moved as such,
    other rows copied."""
    var last = extent - 1
    if row == 8:
        var d = dst.unsafe_bitcast[Int64]()
        var s = src.unsafe_bitcast[Int64]()
        for i in range(n):
            d.unsafe_store(i, s.unsafe_load(max(0, min(last, Int(rows.unsafe_load(i))))))
    elif row == 16:
        var d = dst.unsafe_bitcast[Int64]()
        var s = src.unsafe_bitcast[Int64]()
        for i in range(n):
            d.unsafe_store(2 * i, s.unsafe_load[width=2](2 * max(0, min(last, Int(rows.unsafe_load(i))))))
    else:
        for i in range(n):
            _copy(dst + i * row, src + max(0, min(last, Int(rows.unsafe_load(i)))) * row, row)


def _copy(dst: UnsafePointer[UInt8, MutAnyOrigin], src: UnsafePointer[UInt8, MutUntrackedOrigin], n: Int):
    """``n`` bytes, eight at a time."""
    var words = n // 8
    var d = dst.unsafe_bitcast[Int64]()
    var s = src.unsafe_bitcast[Int64]()
    for i in range(words):
        d.unsafe_store(i, s.unsafe_load(i))
    for i in range(words * 8, n):
        dst.unsafe_store(i, src.unsafe_load(i))
