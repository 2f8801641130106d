# Moving complex data between interleaved (re, im) storage and the split planes the transforms
# run on, a SIMD vector at a time.
from std.memory import stack_allocation
from std.sys.info import simd_width_of


@always_inline
def split_run[T: DType](src: UnsafePointer[Scalar[T], _], xr: UnsafePointer[mut=True, Scalar[T], _],
                         xi: UnsafePointer[mut=True, Scalar[T], _], count: Int):
    """count interleaved (re, im) pairs into two planes, a vector at a time."""
    comptime w = simd_width_of[T]()
    var whole = count // w * w
    for k in range(0, whole, w):
        var pair = src.load[width=2 * w](2 * k).deinterleave()
        xr.store(k, pair[0])
        xi.store(k, pair[1])
    for k in range(whole, count):
        xr[k] = src[2 * k]
        xi[k] = src[2 * k + 1]


@always_inline
def join_run[T: DType](dst: UnsafePointer[mut=True, Scalar[T], _], xr: UnsafePointer[Scalar[T], _],
                        xi: UnsafePointer[Scalar[T], _], count: Int, scale: Scalar[T]):
    comptime w = simd_width_of[T]()
    var whole = count // w * w
    for k in range(0, whole, w):
        dst.store(2 * k, (xr.load[width=w](k) * scale).interleave(xi.load[width=w](k) * scale))
    for k in range(whole, count):
        dst[2 * k] = xr[k] * scale
        dst[2 * k + 1] = xi[k] * scale


def _log2(v: Int) -> Int:
    var k = 0
    while (1 << k) < v:
        k += 1
    return k


@always_inline
def transpose_lanes[T: DType, v: Int](r: UnsafePointer[mut=True, SIMD[T, v], _]):
    """In place, r[j][i] becomes r[i][j]: a v x v transpose (v a power of two) in registers, as
    log2(v) perfect shuffles: interleaving row i with row i + v / 2 into rows 2i and 2i + 1 rotates
    the (row, column) bits of every element's index left by one. 4 v shuffles for v = 16."""
    var a = stack_allocation[v, SIMD[T, v]]()
    var b = stack_allocation[v, SIMD[T, v]]()
    comptime for i in range(v):
        a[i] = r[i]
    comptime for _ in range(_log2(v)):
        comptime for i in range(v // 2):
            var w = a[i].interleave(a[i + v // 2])
            b[2 * i] = w.slice[v, offset=0]()
            b[2 * i + 1] = w.slice[v, offset=v]()
        comptime for i in range(v):
            a[i] = b[i]
    comptime for i in range(v):
        r[i] = a[i]


def split_rows[T: DType](src: UnsafePointer[Scalar[T], _], ls: Int, count: Int,
                          xr: UnsafePointer[mut=True, Scalar[T], _], xi: UnsafePointer[mut=True, Scalar[T], _]):
    """A full group of V rows (row l at src + l * ls, ``count`` (re, im) pairs each) into lane
    planes (value k of row l at k * V + l), V / 2 pairs at a time: a row's V scalars, transposed,
    give the pairs' re and im lane vectors in turn (no deinterleaving)."""
    comptime V = simd_width_of[T]()
    comptime H = V // 2
    comptime assert H >= 1, "split_rows: SIMD vectors of at least two lanes"
    var r = stack_allocation[V, SIMD[T, V]]()
    var whole = count // H * H
    for k0 in range(0, whole, H):
        comptime for l in range(V):
            r[l] = src.load[width=V](l * ls + 2 * k0)
        transpose_lanes[T, V](r)
        comptime for j in range(H):
            xr.store((k0 + j) * V, r[2 * j])
            xi.store((k0 + j) * V, r[2 * j + 1])
    for k in range(whole, count):
        for l in range(V):
            xr[k * V + l] = src[l * ls + 2 * k]
            xi[k * V + l] = src[l * ls + 2 * k + 1]


@always_inline
def store_tile[T: DType, V: Int](dst: UnsafePointer[mut=True, Scalar[T], _], ls: Int, k0: Int,
                                 re: UnsafePointer[SIMD[T, V], _], im: UnsafePointer[SIMD[T, V], _]):
    """V lane vectors (re[i], im[i]: value k0 + i of V rows) into the rows (row l at dst + l * ls) as
    (re, im) pairs k0 .. k0 + V - 1, half of them at a time: re and im lane vectors in turn,
    transposed, are the rows' interleaved pairs."""
    comptime H = V // 2
    var r = stack_allocation[V, SIMD[T, V]]()
    comptime for part in range(2):
        comptime for j in range(H):
            r[2 * j] = re[part * H + j]
            r[2 * j + 1] = im[part * H + j]
        transpose_lanes[T, V](r)
        comptime for l in range(V):
            dst.store(l * ls + 2 * (k0 + part * H), r[l])


def join_rows[T: DType](dst: UnsafePointer[mut=True, Scalar[T], _], ls: Int, count: Int,
                         xr: UnsafePointer[Scalar[T], _], xi: UnsafePointer[Scalar[T], _], scale: Scalar[T]):
    """The inverse of split_rows, scaled."""
    comptime V = simd_width_of[T]()
    var re = stack_allocation[V, SIMD[T, V]]()
    var im = stack_allocation[V, SIMD[T, V]]()
    var whole = count // V * V
    for k0 in range(0, whole, V):
        comptime for i in range(V):  # V lane vectors (values k0 + i of every row)
            re[i] = xr.load[width=V]((k0 + i) * V) * scale
            im[i] = xi.load[width=V]((k0 + i) * V) * scale
        store_tile[T, V](dst, ls, k0, re, im)
    for k in range(whole, count):
        for l in range(V):
            dst[l * ls + 2 * k] = xr[k * V + l] * scale
            dst[l * ls + 2 * k + 1] = xi[k * V + l] * scale
