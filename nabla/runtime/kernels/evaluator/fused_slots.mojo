# How the fused evaluator's programs (see fused.mojo) read their data slots into registers and
# write a result out of them. A load reads a block of an input in order, one value for all (an input
# of size 1), or through a strided layout of it (NumPy's view model: slices, transposes and
# broadcasts); a gather reads it at the positions a register holds; bytes are read as the dtype
# their code names. A strided store writes a block through the output's layout (a slice write).
from std.sys.info import simd_width_of
from .fused_int import _code_of, as_stored, itemsize
from .opcodes import Code


@always_inline
def slot[S: DType](data: UnsafePointer[Int, _], a: Int) -> UnsafePointer[Scalar[S], MutUntrackedOrigin]:
    """Data slot ``a`` of a program: ``data`` holds (address, size) per slot."""
    return UnsafePointer[Scalar[S], MutUntrackedOrigin](unsafe_from_address=data.unsafe_load(2 * a))


@always_inline
def _load_as[S: DType, T: DType](dst: UnsafePointer[Scalar[T], MutUntrackedOrigin], src: UnsafePointer[UInt8, _],
                                 nbytes: Int, start: Int, count: Int, layout: UnsafePointer[Float64, _], strided: Bool):
    var typed = src.unsafe_bitcast[Scalar[S]]()
    if strided:
        _fill_strided[S, T](dst, typed, start, count, layout)
    else:
        _fill[S, T](dst, typed, nbytes // itemsize(_code_of[S]()), start, count)


@always_inline
def _load_coded[T: DType](code: Int, dst: UnsafePointer[Scalar[T], MutUntrackedOrigin], src: UnsafePointer[UInt8, _],
                          nbytes: Int, start: Int, count: Int, layout: UnsafePointer[Float64, _], strided: Bool):
    """A block of an input held as bytes, read as the dtype ``code`` into registers of ``T``."""
    if code == Code.INT8:
        _load_as[DType.int8, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.INT16:
        _load_as[DType.int16, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.INT32:
        _load_as[DType.int32, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.INT64:
        _load_as[DType.int64, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.UINT16:
        _load_as[DType.uint16, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.UINT32:
        _load_as[DType.uint32, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.FLOAT32:
        _load_as[DType.float32, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.FLOAT64:
        _load_as[DType.float64, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.FLOAT16:
        _load_as[DType.float16, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.UINT64:
        _load_as[DType.uint64, T](dst, src, nbytes, start, count, layout, strided)
    else:  # bool, uint8
        _load_as[DType.uint8, T](dst, src, nbytes, start, count, layout, strided)


@always_inline
def _fill[S: DType, T: DType](dst: UnsafePointer[Scalar[T], MutUntrackedOrigin], src: UnsafePointer[Scalar[S], _],
                            size: Int, start: Int, count: Int):
    """A block of an input read in order, or one value for all (an input of size 1)."""
    comptime w = simd_width_of[T]()
    if size == 1:
        var v = SIMD[T, w](src.unsafe_load(0).cast[T]())
        for i in range(0, count, w):
            dst.unsafe_store(i, v)
    else:
        var whole = count // w * w
        for i in range(0, whole, w):
            dst.unsafe_store(i, src.unsafe_load[width=w](start + i).cast[T]())
        for i in range(whole, count):
            dst.unsafe_store(i, src.unsafe_load(start + i).cast[T]())


@always_inline
def _fill_strided[S: DType, T: DType](dst: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                    src: UnsafePointer[Scalar[S], _], start: Int, count: Int,
                                    layout: UnsafePointer[Float64, _]):
    """A block of a strided view of an input: layout = [rank, offset, then (size, stride) per axis of
    the trace's elements, outermost first] (stride 0 where the input is broadcast)."""
    comptime w = simd_width_of[T]()
    var rank = Int(layout.unsafe_load(0))
    var index = alloc[Int](rank)
    var at = Int(layout.unsafe_load(1))
    var rest = start
    for d in range(rank - 1, -1, -1):
        var size = Int(layout.unsafe_load(2 + 2 * d))
        var i = rest % size
        rest //= size
        index.unsafe_store(d, i)
        at += i * Int(layout.unsafe_load(3 + 2 * d))
    var last = rank - 1
    var n_last = Int(layout.unsafe_load(2 + 2 * last))
    var s_last = Int(layout.unsafe_load(3 + 2 * last))
    if n_last < w and rank >= 2:
        # a short innermost axis (a complex part read at its storage's shape: broadcast along the
        # pair axis of 2): element by element along the last two axes, where runs of the last
        # alone would pay the carry below every few elements
        _fill_short_rows[S, T](dst, src, count, layout, index, at)
        index.free()
        return
    var done = 0
    while done < count:
        var run = min(n_last - index.unsafe_load(last), count - done)
        if s_last == 1:
            var whole = run // w * w
            for i in range(0, whole, w):
                dst.unsafe_store(done + i, src.unsafe_load[width=w](at + i).cast[T]())
            for i in range(whole, run):
                dst.unsafe_store(done + i, src.unsafe_load(at + i).cast[T]())
        elif s_last == 0:
            var v = SIMD[T, w](src.unsafe_load(at).cast[T]())
            var whole = run // w * w
            for i in range(0, whole, w):
                dst.unsafe_store(done + i, v)
            for i in range(whole, run):
                dst.unsafe_store(done + i, v[0])
        else:
            var i = 0
            comptime if w >= 2:
                if s_last == 2:  # (a complex part at its own shape: vectors of the storage, halved;
                    # whole ones only while they read inside the run)
                    while i + w < run:
                        var both = src.unsafe_load[width=2 * w](at + 2 * i).cast[T]()
                        dst.unsafe_store(done + i, both.deinterleave()[0])
                        i += w
            for k in range(i, run):
                dst.unsafe_store(done + k, src.unsafe_load(at + k * s_last).cast[T]())
        done += run
        at += run * s_last
        index.unsafe_store(last, index.unsafe_load(last) + run)
        var d = last
        while d > 0 and index.unsafe_load(d) == Int(layout.unsafe_load(2 + 2 * d)):
            at -= Int(layout.unsafe_load(2 + 2 * d)) * Int(layout.unsafe_load(3 + 2 * d))
            index.unsafe_store(d, 0)
            d -= 1
            index.unsafe_store(d, index.unsafe_load(d) + 1)
            at += Int(layout.unsafe_load(3 + 2 * d))
    index.free()


@always_inline
def _fill_short_rows[S: DType, T: DType](dst: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                       src: UnsafePointer[Scalar[S], _], count: Int,
                                       layout: UnsafePointer[Float64, _], index: UnsafePointer[Int, MutUntrackedOrigin], at: Int):
    """``_fill_strided``'s block where the innermost axis is short: ``index`` and ``at`` are the
    block's first element's coordinates and position; the last two axes are walked here, the
    others carried as they end."""
    comptime w = simd_width_of[T]()
    var rank = Int(layout.unsafe_load(0))
    var last = rank - 1
    var pen = last - 1
    var n_last = Int(layout.unsafe_load(2 + 2 * last))
    var s_last = Int(layout.unsafe_load(3 + 2 * last))
    var n_pen = Int(layout.unsafe_load(2 + 2 * pen))
    var s_pen = Int(layout.unsafe_load(3 + 2 * pen))
    var j = index.unsafe_load(last)
    var p = index.unsafe_load(pen)
    var row = at - j * s_last  # the position of (..., p, 0)
    # a complex part of contiguous storage, broadcast along the pair axis (x.re at x's storage's
    # shape): each vector of the storage, its part's lanes doubled; whole vectors only while they
    # read inside the row (the other part's last lane past its end is never read). A real value
    # broadcast along the pair axis (a part computed apart, stacked): half vectors, lanes doubled.
    # A complex element moved whole (a transpose of complex storage): its pair in one load.
    var pairs = n_last == 2 and s_last == 0 and s_pen == 2
    var doubled = n_last == 2 and s_last == 0 and s_pen == 1
    var moves = n_last == 2 and s_last == 1
    var i = 0
    while i < count:
        comptime if w >= 2:
            if pairs and j == 0:
                var run = min((n_pen - p) * 2, count - i)
                var k = 0
                while k + w < run:
                    var part = src.unsafe_load[width=w](row + k).cast[T]().deinterleave()[0]
                    dst.unsafe_store(i + k, part.interleave(part))
                    k += w
                i += k
                p += k // 2
                row += k
                if i == count:
                    break
            elif doubled and j == 0:  # (a real value stacked as a part: each lane doubled)
                var run = min((n_pen - p - 1) * 2, count - i) // w * w  # (the row's last pair below: it carries)
                var k = 0
                while k < run:
                    var half = src.unsafe_load[width = w // 2](row + k // 2).cast[T]()
                    dst.unsafe_store(i + k, half.interleave(half))
                    k += w
                i += k
                p += k // 2
                row += k // 2
                if i == count:
                    break
            elif moves and j == 0:  # (a complex element moved whole: its pair at once)
                var run = min((n_pen - p - 1) * 2, count - i) // 2 * 2  # (the row's last pair below: it carries)
                var k = 0
                while k < run:
                    dst.unsafe_store(i + k, src.unsafe_load[width=2](row + (k // 2) * s_pen).cast[T]())
                    k += 2
                i += k
                p += k // 2
                row += (k // 2) * s_pen
                if i == count:
                    break
        dst.unsafe_store(i, src.unsafe_load(row + j * s_last).cast[T]())
        i += 1
        j += 1
        if j == n_last:
            j = 0
            p += 1
            row += s_pen
            if p == n_pen:
                p = 0
                row -= n_pen * s_pen
                var d = pen - 1
                while d >= 0:
                    var size = Int(layout.unsafe_load(2 + 2 * d))
                    var step = Int(layout.unsafe_load(3 + 2 * d))
                    var next = index.unsafe_load(d) + 1
                    if next < size:
                        index.unsafe_store(d, next)
                        row += step
                        break
                    row -= (next - 1) * step
                    index.unsafe_store(d, 0)
                    d -= 1


@always_inline
def _gather_as[D: DType, T: DType](dst: UnsafePointer[Scalar[T], MutUntrackedOrigin], src: UnsafePointer[Scalar[D], _],
                                   pos: UnsafePointer[Scalar[T], MutUntrackedOrigin], start: Int, count: Int,
                                   view: UnsafePointer[Float64, _]):
    """Element e of the block is an input's element at the position in ``pos`` along one of its axes
    (clamped into that axis: memory stays safe whatever the indices) and at e's coordinates along
    the others. e's coordinates: (outer, m, inner) with m the gathered span (an index's axes, or
    a concatenation's axis) of extent M. view = [code, rows, row stride, offset, M, inner, k,
    then (size, stride) of the input's other k axes, outer ones first]."""
    var rows = Int(view.unsafe_load(1))
    var step = Int(view.unsafe_load(2))
    var offset = Int(view.unsafe_load(3))
    var span = Int(view.unsafe_load(4)) * Int(view.unsafe_load(5))
    var inner = Int(view.unsafe_load(5))
    var k = Int(view.unsafe_load(6))
    # e's (outer, m, inner) coordinates kept as e advances (one division per block, not per
    # element: a 64-bit division costs tens of cycles, more than the load it addresses)
    if count <= 0 or span <= 0:  # (nothing to gather)
        return
    var outer = start // span
    var in_span = start - outer * span
    var in_inner = in_span % inner
    # one other axis or none (a 1-D take; a complex value's pair, inner; a take along a matrix's
    # last axis, outer): its coordinate is in_inner's or outer's as they stand, where the general
    # loop below divides per element and per axis (a complex take ran at a fifth of a real one's speed)
    if k == 0:
        for i in range(count):
            var p = max(0, min(rows - 1, Int(pos.unsafe_load(i).cast[DType.int64]())))
            dst.unsafe_store(i, src.unsafe_load(offset + p * step).cast[T]())
        return
    if k == 1 and (Int(view.unsafe_load(7)) == inner or inner == 1):
        var s0 = Int(view.unsafe_load(8))
        for i in range(count):
            var p = max(0, min(rows - 1, Int(pos.unsafe_load(i).cast[DType.int64]())))
            dst.unsafe_store(i, src.unsafe_load(offset + p * step + (in_inner if inner > 1 else outer) * s0).cast[T]())
            in_inner += 1
            if in_inner == inner:
                in_inner = 0
            in_span += 1
            if in_span == span:
                in_span = 0
                in_inner = 0
                outer += 1
        return
    for i in range(count):
        var p = max(0, min(rows - 1, Int(pos.unsafe_load(i).cast[DType.int64]())))
        var at = offset + p * step
        if k > 0:
            var q = outer * inner + in_inner
            for a in range(k - 1, -1, -1):
                var n = Int(view.unsafe_load(7 + 2 * a))
                at += (q % n) * Int(view.unsafe_load(8 + 2 * a))
                q //= n
        dst.unsafe_store(i, src.unsafe_load(at).cast[T]())
        in_inner += 1
        if in_inner == inner:
            in_inner = 0
        in_span += 1
        if in_span == span:
            in_span = 0
            in_inner = 0
            outer += 1


@always_inline
def _gather[S: DType, T: DType](dst: UnsafePointer[Scalar[T], MutUntrackedOrigin], src: UnsafePointer[Scalar[S], _],
                                pos: UnsafePointer[Scalar[T], MutUntrackedOrigin], start: Int, count: Int,
                                view: UnsafePointer[Float64, _]):
    """A gather from a data slot of the program's dtype, or (bytes) of the dtype code view[0]."""
    comptime if S == T:
        _gather_as[S, T](dst, src, pos, start, count, view)
    else:
        var code = Int(view.unsafe_load(0))
        var b = src.unsafe_bitcast[UInt8]()
        if code == Code.INT8:
            _gather_as[DType.int8, T](dst, b.unsafe_bitcast[Int8](), pos, start, count, view)
        elif code == Code.INT16:
            _gather_as[DType.int16, T](dst, b.unsafe_bitcast[Int16](), pos, start, count, view)
        elif code == Code.INT32:
            _gather_as[DType.int32, T](dst, b.unsafe_bitcast[Int32](), pos, start, count, view)
        elif code == Code.INT64:
            _gather_as[DType.int64, T](dst, b.unsafe_bitcast[Int64](), pos, start, count, view)
        elif code == Code.UINT16:
            _gather_as[DType.uint16, T](dst, b.unsafe_bitcast[UInt16](), pos, start, count, view)
        elif code == Code.UINT32:
            _gather_as[DType.uint32, T](dst, b.unsafe_bitcast[UInt32](), pos, start, count, view)
        elif code == Code.FLOAT32:
            _gather_as[DType.float32, T](dst, b.unsafe_bitcast[Float32](), pos, start, count, view)
        elif code == Code.FLOAT64:
            _gather_as[DType.float64, T](dst, b.unsafe_bitcast[Float64](), pos, start, count, view)
        elif code == Code.FLOAT16:
            _gather_as[DType.float16, T](dst, b.unsafe_bitcast[Float16](), pos, start, count, view)
        elif code == Code.UINT64:
            _gather_as[DType.uint64, T](dst, b.unsafe_bitcast[UInt64](), pos, start, count, view)
        else:  # bool, uint8
            _gather_as[DType.uint8, T](dst, b, pos, start, count, view)


@always_inline
def _store_strided_as[T: DType, D: DType](dst: UnsafePointer[UInt8, MutAnyOrigin], src: UnsafePointer[Scalar[T], _],
                                          start: Int, count: Int, layout: UnsafePointer[Float64, _]):
    """Values ``start .. start + count`` of a program's elements written through a strided layout of
    the output (``[rank, offset, then (size, stride) per axis]``, as loads read: a slice write)."""
    comptime w = simd_width_of[T]()
    var out = dst.unsafe_bitcast[Scalar[D]]()
    var rank = Int(layout.unsafe_load(0))
    var index = alloc[Int](max(rank, 1))
    var at = Int(layout.unsafe_load(1))
    var rest = start
    for d in range(rank - 1, -1, -1):
        var size = Int(layout.unsafe_load(2 + 2 * d))
        var i = rest % size
        rest //= size
        index.unsafe_store(d, i)
        at += i * Int(layout.unsafe_load(3 + 2 * d))
    if rank == 0:
        out.unsafe_store(at, as_stored[D, T, 1](src.unsafe_load[width=1](0)))
        index.free()
        return
    var last = rank - 1
    var n_last = Int(layout.unsafe_load(2 + 2 * last))
    var s_last = Int(layout.unsafe_load(3 + 2 * last))
    var done = 0
    while done < count:
        var run = min(n_last - index.unsafe_load(last), count - done)
        if s_last == 1:
            var whole = run // w * w
            for i in range(0, whole, w):
                out.unsafe_store(at + i, as_stored[D, T, w](src.unsafe_load[width=w](done + i)))
            for i in range(whole, run):
                out.unsafe_store(at + i, as_stored[D, T, 1](src.unsafe_load[width=1](done + i)))
        else:
            for i in range(run):
                out.unsafe_store(at + i * s_last, as_stored[D, T, 1](src.unsafe_load[width=1](done + i)))
        done += run
        at += run * s_last
        index.unsafe_store(last, index.unsafe_load(last) + run)
        var d = last
        while d > 0 and index.unsafe_load(d) == Int(layout.unsafe_load(2 + 2 * d)):
            at -= Int(layout.unsafe_load(2 + 2 * d)) * Int(layout.unsafe_load(3 + 2 * d))
            index.unsafe_store(d, 0)
            d -= 1
            index.unsafe_store(d, index.unsafe_load(d) + 1)
            at += Int(layout.unsafe_load(3 + 2 * d))
    index.free()


@always_inline
def store_strided[T: DType](code: Int, dst: UnsafePointer[UInt8, MutAnyOrigin], src: UnsafePointer[Scalar[T], _],
                            start: Int, count: Int, layout: UnsafePointer[Float64, _]):
    """``store_coded`` through a strided layout of the output (a slice write)."""
    if code == Code.INT8:
        _store_strided_as[T, DType.int8](dst, src, start, count, layout)
    elif code == Code.INT16:
        _store_strided_as[T, DType.int16](dst, src, start, count, layout)
    elif code == Code.INT32:
        _store_strided_as[T, DType.int32](dst, src, start, count, layout)
    elif code == Code.INT64:
        _store_strided_as[T, DType.int64](dst, src, start, count, layout)
    elif code == Code.UINT16:
        _store_strided_as[T, DType.uint16](dst, src, start, count, layout)
    elif code == Code.UINT32:
        _store_strided_as[T, DType.uint32](dst, src, start, count, layout)
    elif code == Code.FLOAT32:
        _store_strided_as[T, DType.float32](dst, src, start, count, layout)
    elif code == Code.FLOAT64:
        _store_strided_as[T, DType.float64](dst, src, start, count, layout)
    elif code == Code.FLOAT16:
        _store_strided_as[T, DType.float16](dst, src, start, count, layout)
    elif code == Code.UINT64:
        _store_strided_as[T, DType.uint64](dst, src, start, count, layout)
    else:
        _store_strided_as[T, DType.uint8](dst, src, start, count, layout)
