# Sums of products of two inputs (``x @ y`` of a matrix and a vector, ``sum(a * b, axis)``), read
# straight from the inputs' data: one pass over each, no registers. The general path loads each
# input into a register, multiplies into a third and sums that (four passes over the block, ~2.4
# cycles an element, where a matrix-vector product is bound by reading the matrix once). The sums
# are taken in the general path's order, NumPy's (a row pairwise, ``fused_pairwise.mojo``; columns
# one row after another), so a value is the same bits whichever path computes it: each product is
# rounded before it is added (``_rounded``), as the general path's register pass rounds it.
from std.sys import inlined_assembly
from std.sys.info import simd_width_of
from .fused import HEADER, WIDTH_OF_INSTRUCTION
from .fused_pairwise import LEAF, split
from .fused_slots import slot
from .opcodes import Op, Reduce

comptime _FIRST = HEADER  # the program's first instruction (a load)
comptime _SECOND = HEADER + WIDTH_OF_INSTRUCTION  # its second (the other load)
comptime _PRODUCT = HEADER + 2 * WIDTH_OF_INSTRUCTION  # its third (their product, the result)


def is_dot(p: UnsafePointer[Int32, _], kind: Int) -> Bool:
    """Whether program ``p`` is a sum (or mean) of the product of two loads, nothing else."""
    if Int(p.unsafe_load(0)) != 3 or not (kind == Reduce.SUM or kind == Reduce.MEAN):
        return False
    if Int(p.unsafe_load(_FIRST)) != Op.LOAD or Int(p.unsafe_load(_SECOND)) != Op.LOAD:
        return False
    if Int(p.unsafe_load(_PRODUCT)) != Op.MULTIPLY or p.unsafe_load(_PRODUCT + 1) != p.unsafe_load(1):
        return False
    var r0 = p.unsafe_load(_FIRST + 1)
    var r1 = p.unsafe_load(_SECOND + 1)
    var a = p.unsafe_load(_PRODUCT + 2)
    var b = p.unsafe_load(_PRODUCT + 3)
    return r0 != r1 and ((a == r0 and b == r1) or (a == r1 and b == r0))


@always_inline
def _whole_runs(p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], load: Int, run: Int) -> Bool:
    """Whether every aligned run of ``run`` elements of the load at ``load`` is one step apart in its
    data (in order, one value for all, or within one run of its layout's innermost axis)."""
    var b = Int(p.unsafe_load(load + 3))
    if b == 0:
        return True
    var rank = Int(k.unsafe_load(b - 1))
    return Int(k.unsafe_load(b - 1 + 2 * rank)) % run == 0


def dot_fits(p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], run: Int) -> Bool:
    """Whether both loads read each aligned run of ``run`` elements with one step (``_operand``)."""
    return run > 0 and _whole_runs(p, k, _FIRST, run) and _whole_runs(p, k, _SECOND, run)


@always_inline
def _operand[T: DType](p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], data: UnsafePointer[Int, _],
                       load: Int, e: Int) -> Tuple[UnsafePointer[Scalar[T], MutUntrackedOrigin], Int]:
    """Where the load at ``load`` reads the program's element ``e``, and its step to e + 1 (within
    a run ``dot_fits`` allowed); layouts as ``_fill_strided`` reads them."""
    var a = Int(p.unsafe_load(load + 2))
    var b = Int(p.unsafe_load(load + 3))
    var src = slot[T](data, a)
    if b == 0:
        if data.unsafe_load(2 * a + 1) == 1:
            return (src, 0)
        return (src + e, 1)
    var layout = k + (b - 1)
    var rank = Int(layout.unsafe_load(0))
    var at = Int(layout.unsafe_load(1))
    var rest = e
    for d in range(rank - 1, -1, -1):
        var size = Int(layout.unsafe_load(2 + 2 * d))
        at += (rest % size) * Int(layout.unsafe_load(3 + 2 * d))
        rest //= size
    return (src + at, Int(layout.unsafe_load(1 + 2 * rank)))


@always_inline
def _rounded[T: DType, w: Int](product: SIMD[T, w]) -> SIMD[T, w]:
    """``product`` as it is: an empty asm the compiler cannot see through, so it does not contract
    the multiply and the add that follows into one fused multiply-add (the kernels are built with
    contraction allowed; a fused multiply-add rounds once, the general path twice)."""
    comptime if T.is_floating_point():
        return inlined_assembly["", SIMD[T, w], constraints="=v,0", has_side_effect=False](product)
    return product


@always_inline
def _gathered[T: DType, w: Int](x: UnsafePointer[Scalar[T], MutUntrackedOrigin], step: Int, i: Int) -> SIMD[T, w]:
    """w values of ``x`` from element i on, ``step`` apart (0: one value for all)."""
    if step == 1:
        return x.unsafe_load[width=w](i)
    if step == 0:
        return SIMD[T, w](x.unsafe_load(0))
    var v = SIMD[T, w]()
    for j in range(w):
        v[j] = x.unsafe_load((i + j) * step)
    return v


def dot_pairwise[T: DType](p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _],
                           data: UnsafePointer[Int, _], e: Int, n: Int) -> Scalar[T]:
    """NumPy's sum (``fused_pairwise.mojo``) of the products of elements e .. e + n - 1, each product
    rounded to T before it is added, as ``np.sum(a * b)`` adds the products it stored."""
    var x, sx = _operand[T](p, k, data, _FIRST, e)
    var y, sy = _operand[T](p, k, data, _SECOND, e)
    return Scalar[T](0) + _pairwise_products[T](x, sx, y, sy, 0, n)


def _pairwise_products[T: DType](x: UnsafePointer[Scalar[T], MutUntrackedOrigin], sx: Int,
                                 y: UnsafePointer[Scalar[T], MutUntrackedOrigin], sy: Int, i: Int, n: Int) -> Scalar[T]:
    if n > LEAF:
        var half = split(n)
        return _pairwise_products[T](x, sx, y, sy, i, half) + _pairwise_products[T](x, sx, y, sy, i + half, n - half)
    if n < 8:
        var s = -Scalar[T](0)
        for j in range(i, i + n):
            s += _rounded[T, 1](x.unsafe_load(j * sx) * y.unsafe_load(j * sy))
        return s
    var lanes = _rounded[T, 8](_gathered[T, 8](x, sx, i) * _gathered[T, 8](y, sy, i))
    var whole = n - n % 8
    for j in range(i + 8, i + whole, 8):
        lanes += _rounded[T, 8](_gathered[T, 8](x, sx, j) * _gathered[T, 8](y, sy, j))
    var s = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))
    for j in range(i + whole, i + n):
        s += _rounded[T, 1](x.unsafe_load(j * sx) * y.unsafe_load(j * sy))
    return s


def dot_pairwise4[T: DType](p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _],
                            data: UnsafePointer[Int, _], e: Int, r: Int, n: Int) -> SIMD[T, 4]:
    """``dot_pairwise`` of four rows r apart (elements e + q * r on, q < 4), read side by side: four
    streams in flight, each row's sum in its own lane, its order and bits those of ``dot_pairwise``."""
    var x0, sx0 = _operand[T](p, k, data, _FIRST, e)
    var x1, sx1 = _operand[T](p, k, data, _FIRST, e + r)
    var x2, sx2 = _operand[T](p, k, data, _FIRST, e + 2 * r)
    var x3, sx3 = _operand[T](p, k, data, _FIRST, e + 3 * r)
    var y0, sy0 = _operand[T](p, k, data, _SECOND, e)
    var y1, sy1 = _operand[T](p, k, data, _SECOND, e + r)
    var y2, sy2 = _operand[T](p, k, data, _SECOND, e + 2 * r)
    var y3, sy3 = _operand[T](p, k, data, _SECOND, e + 3 * r)
    if not (sx0 == 1 and sx1 == 1 and sx2 == 1 and sx3 == 1 and sy0 == 1 and sy1 == 1 and sy2 == 1 and sy3 == 1):
        return SIMD[T, 4](dot_pairwise[T](p, k, data, e, n), dot_pairwise[T](p, k, data, e + r, n),
                          dot_pairwise[T](p, k, data, e + 2 * r, n), dot_pairwise[T](p, k, data, e + 3 * r, n))
    return SIMD[T, 4](0) + _pairwise_products4[T](x0, x1, x2, x3, y0, y1, y2, y3, 0, n)


@always_inline
def _joined[T: DType](lanes: SIMD[T, 8]) -> Scalar[T]:
    return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))


def _pairwise_products4[T: DType](x0: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                  x1: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                  x2: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                  x3: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                  y0: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                  y1: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                  y2: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                  y3: UnsafePointer[Scalar[T], MutUntrackedOrigin], i: Int, n: Int) -> SIMD[T, 4]:
    if n > LEAF:
        var half = split(n)
        return _pairwise_products4[T](x0, x1, x2, x3, y0, y1, y2, y3, i, half) + \
            _pairwise_products4[T](x0, x1, x2, x3, y0, y1, y2, y3, i + half, n - half)
    var whole = 0 if n < 8 else n - n % 8
    var s = -SIMD[T, 4](0)
    if n >= 8:
        var l0 = _rounded[T, 8](x0.unsafe_load[width=8](i) * y0.unsafe_load[width=8](i))
        var l1 = _rounded[T, 8](x1.unsafe_load[width=8](i) * y1.unsafe_load[width=8](i))
        var l2 = _rounded[T, 8](x2.unsafe_load[width=8](i) * y2.unsafe_load[width=8](i))
        var l3 = _rounded[T, 8](x3.unsafe_load[width=8](i) * y3.unsafe_load[width=8](i))
        for j in range(i + 8, i + whole, 8):
            l0 += _rounded[T, 8](x0.unsafe_load[width=8](j) * y0.unsafe_load[width=8](j))
            l1 += _rounded[T, 8](x1.unsafe_load[width=8](j) * y1.unsafe_load[width=8](j))
            l2 += _rounded[T, 8](x2.unsafe_load[width=8](j) * y2.unsafe_load[width=8](j))
            l3 += _rounded[T, 8](x3.unsafe_load[width=8](j) * y3.unsafe_load[width=8](j))
        s = SIMD[T, 4](_joined[T](l0), _joined[T](l1), _joined[T](l2), _joined[T](l3))
    for j in range(i + whole, i + n):
        var xs = SIMD[T, 4](x0.unsafe_load(j), x1.unsafe_load(j), x2.unsafe_load(j), x3.unsafe_load(j))
        var ys = SIMD[T, 4](y0.unsafe_load(j), y1.unsafe_load(j), y2.unsafe_load(j), y3.unsafe_load(j))
        s += _rounded[T, 4](xs * ys)
    return s


@always_inline
def _place(p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], data: UnsafePointer[Int, _], load: Int, e: Int,
           index: UnsafePointer[Int, MutUntrackedOrigin]) -> Int:
    """Where in its source the load at ``load`` reads the program's element ``e`` (``_operand``'s
    offset), with ``index`` set to e's coordinates in the load's layout, for ``_moved``."""
    var b = Int(p.unsafe_load(load + 3))
    if b == 0:
        return 0 if data.unsafe_load(2 * Int(p.unsafe_load(load + 2)) + 1) == 1 else e
    var layout = k + (b - 1)
    var rank = Int(layout.unsafe_load(0))
    var at = Int(layout.unsafe_load(1))
    var rest = e
    for d in range(rank - 1, -1, -1):
        var size = Int(layout.unsafe_load(2 + 2 * d))
        var i = rest % size
        index.unsafe_store(d, i)
        at += i * Int(layout.unsafe_load(3 + 2 * d))
        rest //= size
    return at


@always_inline
def _moved(p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], data: UnsafePointer[Int, _], load: Int, at: Int,
           n: Int, index: UnsafePointer[Int, MutUntrackedOrigin]) -> Int:
    """``_place``'s offset ``at`` of some element e moved to element e + n's, ``index`` carried along
    (axis by axis from the innermost, a division only where an axis wraps more than once: a row
    after row walk pays no division per axis per row, as ``_operand`` does)."""
    var b = Int(p.unsafe_load(load + 3))
    if b == 0:
        return 0 if data.unsafe_load(2 * Int(p.unsafe_load(load + 2)) + 1) == 1 else at + n
    var layout = k + (b - 1)
    var d = Int(layout.unsafe_load(0)) - 1
    var moved = at
    var carry = n
    while carry > 0 and d >= 0:
        var size = Int(layout.unsafe_load(2 + 2 * d))
        var was = index.unsafe_load(d)
        var i = was + carry
        carry = 0
        if i >= size:
            if i < 2 * size:
                i -= size
                carry = 1
            else:
                carry = i // size
                i -= carry * size
        index.unsafe_store(d, i)
        moved += (i - was) * Int(layout.unsafe_load(3 + 2 * d))
        d -= 1
    return moved


@always_inline
def _step(p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], data: UnsafePointer[Int, _], load: Int) -> Int:
    """The load's step from one element to the next within a run ``dot_fits`` allowed (``_operand``'s)."""
    var b = Int(p.unsafe_load(load + 3))
    if b == 0:
        return 0 if data.unsafe_load(2 * Int(p.unsafe_load(load + 2)) + 1) == 1 else 1
    var layout = k + (b - 1)
    return Int(layout.unsafe_load(1 + 2 * Int(layout.unsafe_load(0))))


@always_inline
def _rank(p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], load: Int) -> Int:
    var b = Int(p.unsafe_load(load + 3))
    return 0 if b == 0 else Int(k.unsafe_load(b - 1))


def accumulate_rows[T: DType, A: DType](p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _],
                                        data: UnsafePointer[Int, _], e: Int, inner: Int, rows: Int,
                                        acc: UnsafePointer[Scalar[A], MutUntrackedOrigin], count: Int):
    """acc[i] += the product at element e + q * inner + i, for i < count, row q after row q < rows
    (four rows at a time where the sums are T's own; each row's sum rounded to T where they are
    wider, as NumPy's loop stores each row's partial): the rows' places in the data walked from one
    to the next (``_moved``)."""
    var ix = alloc[Int](max(_rank(p, k, _FIRST), 1))
    var iy = alloc[Int](max(_rank(p, k, _SECOND), 1))
    var x = slot[T](data, Int(p.unsafe_load(_FIRST + 2)))
    var y = slot[T](data, Int(p.unsafe_load(_SECOND + 2)))
    var sx = _step(p, k, data, _FIRST)
    var sy = _step(p, k, data, _SECOND)
    var ax = _place(p, k, data, _FIRST, e, ix)
    var ay = _place(p, k, data, _SECOND, e, iy)
    var q = 0
    comptime if T == A:
        while q + 4 <= rows:
            var ax1 = _moved(p, k, data, _FIRST, ax, inner, ix)
            var ax2 = _moved(p, k, data, _FIRST, ax1, inner, ix)
            var ax3 = _moved(p, k, data, _FIRST, ax2, inner, ix)
            var ay1 = _moved(p, k, data, _SECOND, ay, inner, iy)
            var ay2 = _moved(p, k, data, _SECOND, ay1, inner, iy)
            var ay3 = _moved(p, k, data, _SECOND, ay2, inner, iy)
            _accumulate4[T, A](x + ax, x + ax1, x + ax2, x + ax3, sx, y + ay, y + ay1, y + ay2, y + ay3, sy, acc,
                               count)
            q += 4
            if q < rows:
                ax = _moved(p, k, data, _FIRST, ax3, inner, ix)
                ay = _moved(p, k, data, _SECOND, ay3, inner, iy)
    while q < rows:
        _accumulate[T, A](x + ax, sx, y + ay, sy, acc, count)
        comptime if T != A:
            for i in range(count):
                acc.unsafe_store(i, acc.unsafe_load(i).cast[T]().cast[A]())
        q += 1
        if q < rows:
            ax = _moved(p, k, data, _FIRST, ax, inner, ix)
            ay = _moved(p, k, data, _SECOND, ay, inner, iy)
    ix.free()
    iy.free()


@always_inline
def _accumulate[T: DType, A: DType](x0: UnsafePointer[Scalar[T], MutUntrackedOrigin], sx0: Int,
                                    y0: UnsafePointer[Scalar[T], MutUntrackedOrigin], sy0: Int,
                                    acc: UnsafePointer[Scalar[A], MutUntrackedOrigin], count: Int):
    """acc[i] += x[i * sx] * y[i * sy], for i < count, each product rounded to T."""
    comptime w = simd_width_of[T]()
    var x, sx, y, sy = x0, sx0, y0, sy0
    if sx == 0 and sy != 0:  # (one value for all second: products commute, bit for bit)
        swap(x, y)
        swap(sx, sy)
    var whole = count // w * w
    if sx == 1 and sy == 0:
        var v = SIMD[T, w](y.unsafe_load(0))
        for i in range(0, whole, w):
            acc.unsafe_store(i, acc.unsafe_load[width=w](i) + _rounded[T, w](x.unsafe_load[width=w](i) * v).cast[A]())
    else:
        for i in range(0, whole, w):
            var xy = _rounded[T, w](_gathered[T, w](x, sx, i) * _gathered[T, w](y, sy, i))
            acc.unsafe_store(i, acc.unsafe_load[width=w](i) + xy.cast[A]())
    for i in range(whole, count):
        acc.unsafe_store(i, acc.unsafe_load(i) + _rounded[T, 1](x.unsafe_load(i * sx) * y.unsafe_load(i * sy)).cast[A]())


@always_inline
def _accumulate4[T: DType, A: DType](x0: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                     x1: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                     x2: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                     x3: UnsafePointer[Scalar[T], MutUntrackedOrigin], sx: Int,
                                     y0: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                     y1: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                     y2: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                     y3: UnsafePointer[Scalar[T], MutUntrackedOrigin], sy: Int,
                                     acc: UnsafePointer[Scalar[A], MutUntrackedOrigin], count: Int):
    """``_accumulate`` of four rows, added to each column in the rows' order, the column's running
    sum kept in a register between them (a vector against one value per row: a matrix's columns
    times a vector's elements)."""
    comptime w = simd_width_of[T]()
    var a0, a1, a2, a3, b0, b1, b2, b3 = x0, x1, x2, x3, y0, y1, y2, y3
    if sx == 0 and sy == 1:  # (the vector first: products commute, bit for bit)
        a0, a1, a2, a3, b0, b1, b2, b3 = y0, y1, y2, y3, x0, x1, x2, x3
    elif not (sx == 1 and sy == 0):
        _accumulate[T, A](x0, sx, y0, sy, acc, count)
        _accumulate[T, A](x1, sx, y1, sy, acc, count)
        _accumulate[T, A](x2, sx, y2, sy, acc, count)
        _accumulate[T, A](x3, sx, y3, sy, acc, count)
        return
    var v0 = SIMD[T, w](b0.unsafe_load(0))
    var v1 = SIMD[T, w](b1.unsafe_load(0))
    var v2 = SIMD[T, w](b2.unsafe_load(0))
    var v3 = SIMD[T, w](b3.unsafe_load(0))
    var whole = count // w * w
    for i in range(0, whole, w):
        var a = acc.unsafe_load[width=w](i) + _rounded[T, w](a0.unsafe_load[width=w](i) * v0).cast[A]()
        a = a + _rounded[T, w](a1.unsafe_load[width=w](i) * v1).cast[A]()
        a = a + _rounded[T, w](a2.unsafe_load[width=w](i) * v2).cast[A]()
        acc.unsafe_store(i, a + _rounded[T, w](a3.unsafe_load[width=w](i) * v3).cast[A]())
    for i in range(whole, count):
        var a = acc.unsafe_load(i) + _rounded[T, 1](a0.unsafe_load(i) * v0[0]).cast[A]()
        a = a + _rounded[T, 1](a1.unsafe_load(i) * v1[0]).cast[A]()
        a = a + _rounded[T, 1](a2.unsafe_load(i) * v2[0]).cast[A]()
        acc.unsafe_store(i, a + _rounded[T, 1](a3.unsafe_load(i) * v3[0]).cast[A]())
