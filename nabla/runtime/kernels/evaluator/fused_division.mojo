# The fused evaluator's floor division and remainder of floats (see fused.mojo): Python's `//` and
# `%`, exact, from C's fmod computed exactly in float64, with the standard's special values. The
# steps are those of nabla/ops/division_lowerings.py, so the fused kernel and MAX's graphs give the
# same bits.
from std.math import floor, fma, trunc
from .fused_bits import _is_inf, _is_nan, _nan, _sign_bit


comptime TWO_52 = 4503599627370496.0
comptime TWO_32 = 4294967296.0


def _fmod_reduced(x: Float64, y: Float64) -> Float64:
    """x brought below y 2^32 by exact multiples y 2^(32 k) of y, the largest first (x >= y 2^52,
    both finite, y > 0); each step's quotient is below 2^32 + 1, so its residual is exact."""
    var top = y
    var m = 0
    while top * TWO_32 <= x:
        top = top * TWO_32
        m += 1
    var r = x
    for j in range(m, 0, -1):
        var d = y
        for _ in range(j):
            d = d * TWO_32
        var q = trunc(r / d)
        r = fma(-q, d, r)
        if r < 0:
            r = r + d
    return r


@always_inline
def _fmod_exact[w: Int](ax: SIMD[DType.float64, w], ay: SIMD[DType.float64, w]) -> SIMD[DType.float64, w]:
    """fmod(ax, ay) of finite ax >= 0 and ay > 0, exactly (ay = inf leaves ax), as
    division_lowerings._fmod_exact gives it: q = trunc(ax / ay), then ax - q ay in one rounding
    (exact: the residual is representable); where ax / ay rounded up to an integer, q is one too
    large and the negative residual takes ay back. Quotients of 2^52 and more (rare) are first
    brought down lane by lane (``_fmod_reduced``)."""
    var r = ax
    var usual = ~_is_inf(ax) & ~_is_nan(ax) & ~_is_inf(ay) & ~_is_nan(ay) & ay.gt(0)
    var big = usual & ax.ge(ay * TWO_52)
    if big.reduce_or():
        for i in range(w):
            if big[i]:
                r[i] = _fmod_reduced(ax[i], ay[i])
    var q = trunc(r / ay)
    var out = fma(-q, ay, r)
    out = out.lt(0).select(out + ay, out)
    return _is_inf(ay).select(ax, out)


@always_inline
def _fmod64[T: DType, w: Int](x: SIMD[T, w], y: SIMD[T, w]) -> SIMD[DType.float64, w]:
    """C's fmod (x's sign), exactly, in float64 (narrower floats' fmod can be subnormal there)."""
    var x64 = x.cast[DType.float64]()
    var f = _fmod_exact(abs(x64), abs(y.cast[DType.float64]()))
    return _sign_bit(x64).select(-f, f)


@always_inline
def _remainder[T: DType, w: Int](x: SIMD[T, w], y: SIMD[T, w]) -> SIMD[T, w]:
    """Python's float ``%`` (the sign of y), exact, with the standard's special values: the steps of
    division_lowerings.remainder, so both paths give the same bits; rounded once to T."""
    var f = _fmod64(x, y)
    var y64 = y.cast[DType.float64]()
    var fix = f.ne(0) & (_sign_bit(f) ^ _sign_bit(y64))
    var r = fix.select(f + y64, f).cast[T]()
    var differ = _sign_bit(x) ^ _sign_bit(y)
    var x_finite_y_inf = ~_is_inf(x) & ~_is_nan(x) & _is_inf(y)
    r = x_finite_y_inf.select((differ & x.ne(0)).select(y, x), r)  # x itself, or y where signs differ
    r = (r.eq(0) & ~_is_nan(r)).select(_sign_bit(y).select(SIMD[T, w](-0.0), SIMD[T, w](0.0)), r)
    var bad = _is_inf(x) | y.eq(0) | _is_nan(x) | _is_nan(y)
    return bad.select(_nan[T, w](), r)


@always_inline
def _floor_divide[T: DType, w: Int](x: SIMD[T, w], y: SIMD[T, w]) -> SIMD[T, w]:
    """NumPy's float ``//`` (its npy_divmod: the quotient from the exact fmod, one less where the
    fmod and y differ in sign, rounded to the nearest integer) with the standard's special values:
    the steps of division_lowerings.floor_divide, so both paths give the same bits."""
    var mod = _fmod64(x, y).cast[T]()
    var div = (x - mod) / y
    div = (mod.ne(0) & ~_is_nan(mod) & (y.lt(0) ^ mod.lt(0))).select(div - 1, div)
    var whole = floor(div)
    whole = (div - whole).gt(0.5).select(whole + 1, whole)
    var signed_zero = (_sign_bit(x) ^ _sign_bit(y)).select(SIMD[T, w](-0.0), SIMD[T, w](0.0))
    var q = (div.eq(0) & ~_is_nan(div)).select(signed_zero, whole)
    q = (y.eq(0) | _is_inf(x)).select(x / y, q)  # x / 0, and an infinite x: the standard's infinities
    q = (~_is_inf(x) & ~_is_nan(x) & _is_inf(y)).select(signed_zero, q)
    return (_is_nan(x) | _is_nan(y)).select(_nan[T, w](), q)
