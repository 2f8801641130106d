# Moving complex data between interleaved (re, im) storage and the split planes the transforms
# run on, a SIMD vector at a time.
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


@always_inline
def transpose_tile[T: DType, v: Int](rows: UnsafePointer[SIMD[T, v], _]) -> SIMD[T, v * v]:
    """out[j * v + i] = rows[i][j]: a v x v transpose in registers. Each level interleaves row i
    with row i + v / 2 of the level before (v = 16: float32 under AVX-512; 8; 4; 2)."""
    comptime if v == 16:
        var a0 = rows[0].interleave(rows[8])
        var a1 = rows[1].interleave(rows[9])
        var a2 = rows[2].interleave(rows[10])
        var a3 = rows[3].interleave(rows[11])
        var a4 = rows[4].interleave(rows[12])
        var a5 = rows[5].interleave(rows[13])
        var a6 = rows[6].interleave(rows[14])
        var a7 = rows[7].interleave(rows[15])
        var c0 = a0.interleave(a4).interleave(a2.interleave(a6))
        var c1 = a1.interleave(a5).interleave(a3.interleave(a7))
        return rebind[SIMD[T, v * v]](c0.interleave(c1))
    elif v == 8:
        var w0 = rows[0].interleave(rows[4]).interleave(rows[2].interleave(rows[6]))
        var w1 = rows[1].interleave(rows[5]).interleave(rows[3].interleave(rows[7]))
        return rebind[SIMD[T, v * v]](w0.interleave(w1))
    elif v == 4:
        var w0 = rows[0].interleave(rows[2])
        var w1 = rows[1].interleave(rows[3])
        return rebind[SIMD[T, v * v]](w0.interleave(w1))
    elif v == 2:
        return rebind[SIMD[T, v * v]](rows[0].interleave(rows[1]))
    else:
        var out = SIMD[T, v * v](0)
        for i in range(v):
            for j in range(v):
                out[j * v + i] = rows[i][j]
        return out


def split_rows[T: DType](src: UnsafePointer[Scalar[T], _], ls: Int, count: Int,
                          xr: UnsafePointer[mut=True, Scalar[T], _], xi: UnsafePointer[mut=True, Scalar[T], _]):
    """A full group of V rows (row l at src + l * ls, ``count`` (re, im) pairs each) into lane
    planes (value k of row l at k * V + l), a V x V tile at a time."""
    comptime V = simd_width_of[T]()
    var re = alloc[SIMD[T, V]](V)
    var im = alloc[SIMD[T, V]](V)
    var whole = count // V * V
    for k0 in range(0, whole, V):
        for l in range(V):
            var pair = src.load[width=2 * V](l * ls + 2 * k0).deinterleave()
            re[l] = rebind[SIMD[T, V]](pair[0])
            im[l] = rebind[SIMD[T, V]](pair[1])
        xr.store(k0 * V, transpose_tile[T, V](re))
        xi.store(k0 * V, transpose_tile[T, V](im))
    for k in range(whole, count):
        for l in range(V):
            xr[k * V + l] = src[l * ls + 2 * k]
            xi[k * V + l] = src[l * ls + 2 * k + 1]
    re.free()
    im.free()


@always_inline
def store_tile[T: DType, V: Int](dst: UnsafePointer[mut=True, Scalar[T], _], ls: Int, k0: Int,
                                 re: UnsafePointer[SIMD[T, V], _], im: UnsafePointer[SIMD[T, V], _],
                                 tile: UnsafePointer[mut=True, Scalar[T], _]):
    """V lane vectors (re[i], im[i]: value k0 + i of V rows) into the rows (row l at dst + l * ls) as
    (re, im) pairs k0 .. k0 + V - 1; ``tile`` holds 2 V V scalars."""
    tile.store(0, transpose_tile[T, V](re))  # row l's values k0 .. k0 + V - 1 at l * V
    tile.store(V * V, transpose_tile[T, V](im))
    for l in range(V):
        dst.store(l * ls + 2 * k0, tile.load[width=V](l * V).interleave(tile.load[width=V](V * V + l * V)))


def join_rows[T: DType](dst: UnsafePointer[mut=True, Scalar[T], _], ls: Int, count: Int,
                         xr: UnsafePointer[Scalar[T], _], xi: UnsafePointer[Scalar[T], _], scale: Scalar[T]):
    """The inverse of split_rows, scaled."""
    comptime V = simd_width_of[T]()
    var re = alloc[SIMD[T, V]](V)
    var im = alloc[SIMD[T, V]](V)
    var tile = alloc[Scalar[T]](2 * V * V)
    var whole = count // V * V
    for k0 in range(0, whole, V):
        for i in range(V):  # V lane vectors (values k0 + i of every row)
            re[i] = xr.load[width=V]((k0 + i) * V) * scale
            im[i] = xi.load[width=V]((k0 + i) * V) * scale
        store_tile[T, V](dst, ls, k0, re, im, tile)
    for k in range(whole, count):
        for l in range(V):
            dst[l * ls + 2 * k] = xr[k * V + l] * scale
            dst[l * ls + 2 * k + 1] = xi[k * V + l] * scale
    re.free()
    im.free()
    tile.free()
