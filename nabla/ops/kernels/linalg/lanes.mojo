# Stacks of small real matrices side by side in SIMD lanes: lane l of every vector belongs to
# matrix l of a group of V, so each step of LU or Cholesky runs on whole vectors, pivot search and
# row swaps included (selects on lane masks: a pivot row per lane). For orders up to LANES_UP_TO a
# matrix-at-a-time loop is bound by its scalar pivoting and short rows; V at a time does the same
# arithmetic in the same order per matrix (the results match the scalar path's), about V times
# denser. The batched-lanes layout is the one cuBLAS and MKL's compact routines use for
# batches of tiny matrices ("compact" / interleaved batch layout).
from std.math import sqrt
from std.memory import bitcast
from std.sys.info import simd_width_of
from .common import W, nan64

comptime LANES_UP_TO = 16
comptime V = simd_width_of[DType.float64]()
comptime Vec = SIMD[DType.float64, V]
comptime Mask = SIMD[DType.bool, V]


@always_inline
def _non_finite(x: Vec) -> Mask:
    var mag = bitcast[DType.int64, V](x) & SIMD[DType.int64, V](0x7FFFFFFFFFFFFFFF)
    return mag.ge(SIMD[DType.int64, V](0x7FF0000000000000))


@always_inline
def _is_nan(x: Vec) -> Mask:
    var mag = bitcast[DType.int64, V](x) & SIMD[DType.int64, V](0x7FFFFFFFFFFFFFFF)
    return mag.gt(SIMD[DType.int64, V](0x7FF0000000000000))


def gather_lanes(src: UnsafePointer[Float64, _], item: Int, count: Int, dst: W) -> Mask:
    """V items of ``count`` values (item l at src + l * item) into lanes: value e of item l at
    dst[e * V + l]. Returns the lanes holding a NaN or an infinity."""
    var bad = Mask(fill=False)
    for e in range(count):
        var v = Vec(0)
        for l in range(V):
            v[l] = src.unsafe_load(l * item + e)
        bad |= _non_finite(v)
        dst.unsafe_store(e * V, v)
    return bad


def scatter_lanes(src: W, count: Int, dst: UnsafePointer[mut=True, Float64, _], item: Int, bad: Mask):
    """The inverse of gather_lanes; lanes in ``bad`` are written NaN."""
    var nan = Vec(nan64())
    for e in range(count):
        var v = bad.select(nan, src.unsafe_load[width=V](e * V))
        for l in range(V):
            dst.unsafe_store(l * item + e, v[l])


@always_inline
def _swap_rows(a: W, r0: Int, r1: Int, count: Int, m: Mask):
    """Rows r0 and r1 (``count`` lane vectors each) exchanged in the lanes of ``m``."""
    for j in range(count):
        var x = a.unsafe_load[width=V]((r0 + j) * V)
        var y = a.unsafe_load[width=V]((r1 + j) * V)
        a.unsafe_store((r0 + j) * V, m.select(y, x))
        a.unsafe_store((r1 + j) * V, m.select(x, y))


def lu_solve_lanes(a: W, b: W, n: Int, k: Int):
    """A x = B for V lane-interleaved n x n matrices and n x k right-hand sides, in place (B becomes
    x): LU with partial pivoting as lu.mojo's lu_factor (the largest |a|, never a NaN; a column of
    zeros is skipped) and back substitution."""
    for col in range(n):
        var best = Vec(-1.0)
        var piv = Vec(Float64(col))
        for i in range(col, n):
            var v = abs(a.unsafe_load[width=V]((i * n + col) * V))
            var take = v.gt(best) & ~_is_nan(v)
            best = take.select(v, best)
            piv = take.select(Vec(Float64(i)), piv)
        for i in range(col + 1, n):
            var m = piv.eq(Vec(Float64(i)))
            if m.reduce_or():
                _swap_rows(a, col * n + col, i * n + col, n - col, m)
                _swap_rows(b, col * k, i * k, k, m)
        var ok = best.gt(Vec(0.0))
        var d = a.unsafe_load[width=V]((col * n + col) * V)
        for i in range(col + 1, n):
            var l = ok.select(a.unsafe_load[width=V]((i * n + col) * V) / d, Vec(0.0))
            for j in range(col + 1, n):
                var at = (i * n + j) * V
                a.unsafe_store(at, a.unsafe_load[width=V](at) - l * a.unsafe_load[width=V]((col * n + j) * V))
            for e in range(k):
                var at = (i * k + e) * V
                b.unsafe_store(at, b.unsafe_load[width=V](at) - l * b.unsafe_load[width=V]((col * k + e) * V))
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            var u = a.unsafe_load[width=V]((i * n + j) * V)
            for e in range(k):
                var at = (i * k + e) * V
                b.unsafe_store(at, b.unsafe_load[width=V](at) - u * b.unsafe_load[width=V]((j * k + e) * V))
        var inv = Vec(1.0) / a.unsafe_load[width=V]((i * n + i) * V)
        for e in range(k):
            var at = (i * k + e) * V
            b.unsafe_store(at, b.unsafe_load[width=V](at) * inv)


def cholesky_lanes(a: W, n: Int):
    """The lower Cholesky factor of V lane-interleaved n x n matrices, in place on the lower triangle,
    as cholesky.mojo's cholesky_factor: a pivot that is not positive is NaN, and so is all that
    follows from it; the strict upper triangle is set to zero."""
    for i in range(n):
        for j in range(i + 1):
            var s = Vec(0.0)
            for p in range(j):
                s += a.unsafe_load[width=V]((i * n + p) * V) * a.unsafe_load[width=V]((j * n + p) * V)
            var r = a.unsafe_load[width=V]((i * n + j) * V) - s
            if j == i:
                var good = r.gt(Vec(0.0)) & ~_is_nan(r)
                a.unsafe_store((i * n + i) * V, good.select(sqrt(good.select(r, Vec(1.0))), Vec(nan64())))
            else:
                a.unsafe_store((i * n + j) * V, r / a.unsafe_load[width=V]((j * n + j) * V))
        for j in range(i + 1, n):
            a.unsafe_store((i * n + j) * V, Vec(0.0))
