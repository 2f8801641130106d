"""MAX lowerings of the hyperbolic and inverse trigonometric functions, ``power`` and ``logaddexp``:
within an ulp or so where MAX's own lose more, finite up to overflow, and with the standard's special
values."""

from __future__ import annotations

import math

from max.dtype import DType
from ..core.lazy_module import graph_ops as ops

from .lowerings import _any_nan, _exp64, const, exp, is_float, isfinite, nan_like, select, signbit_of_number


def expm1(x):
    # Kahan's trick: (u - 1) * x / log(u) is accurate where exp(x) - 1 cancels (above 1, u - 1 is)
    u = exp(x)
    d = ops.sub(u, const(1, x))
    body = ops.div(ops.mul(d, x), ops.log(u))
    out = select(ops.equal(d, const(0, x)), x, select(ops.equal(d, const(-1, x)), d, body))
    out = select(ops.greater(x, const(1, x)), d, out)
    return select(ops.is_inf(u), u, out)


def log_base(base: float):
    scale = 1.0 / math.log(base)
    return lambda x: ops.mul(ops.log(x), const(scale, x))


#: floor(ln(largest finite)): e^x is finite below it
_EXP_OVERFLOWS_FROM = {DType.float16: 11, DType.float32: 88, DType.float64: 709}


def _overflow_halved(x):
    """Whether e^|x| overflows or nearly (sinh and cosh are still finite up to ln 2 past that), and
    |x|, halved there: e^|x| / 2 = (e^(|x|/2) / 2) e^(|x|/2)."""
    ax = ops.abs(x)
    big = ops.greater(ax, const(_EXP_OVERFLOWS_FROM.get(x.dtype, 88), x))
    return big, ops.mul(ax, select(big, const(0.5, x), const(1, x)))


def sinh(x):
    big, scaled = _overflow_halved(x)
    e = expm1(scaled)
    mag = ops.mul(ops.add(e, ops.div(e, ops.add(e, const(1, x)))), const(0.5, x))
    h = ops.add(e, const(1, x))
    mag = select(big, ops.mul(ops.mul(h, const(0.5, x)), h), select(ops.is_inf(e), e, mag))
    out = select(ops.greater(const(0, x), x), ops.negate(mag), mag)
    return select(ops.logical_or(ops.equal(x, const(0, x)), ops.is_inf(x)), x, out)


def cosh(x):
    big, scaled = _overflow_halved(x)
    e = exp(scaled)
    return select(big, ops.mul(ops.mul(e, const(0.5, x)), e), ops.mul(ops.add(e, ops.div(const(1, x), e)), const(0.5, x)))


def tan(x):
    return ops.div(ops.sin(x), ops.cos(x))


_TAN_PI_12 = 2 - math.sqrt(3)
_SQRT3 = math.sqrt(3)


def atan(x):
    """Range reduction to |t| <= tan(pi/12), then the Taylor series (error below 1 ulp in float64)."""
    ax = ops.abs(x)
    big = ops.greater(ax, const(1, x))
    r = select(big, ops.div(const(1, x), ax), ax)  # r in [0, 1]
    mid = ops.greater(r, const(_TAN_PI_12, x))
    t = select(mid, ops.div(ops.sub(ops.mul(r, const(_SQRT3, x)), const(1, x)), ops.add(r, const(_SQRT3, x))), r)
    t2 = ops.mul(t, t)
    terms = 13 if x.dtype == DType.float64 else 6
    poly = const(1.0 / (2 * terms - 1) * (-1) ** (terms - 1), x)
    for k in range(terms - 2, -1, -1):
        poly = ops.add(ops.mul(poly, t2), const((-1) ** k / (2 * k + 1), x))
    a = ops.mul(t, poly)
    a = select(mid, ops.add(a, const(math.pi / 6, x)), a)
    a = select(big, ops.sub(const(math.pi / 2, x), a), a)
    out = select(ops.greater(const(0, x), x), ops.negate(a), a)
    return select(ops.equal(x, const(0, x)), x, select(ops.is_nan(x), x, out))


def asin(x):
    one = const(1, x)
    cos_ = ops.sqrt(ops.mul(ops.sub(one, x), ops.add(one, x)))
    out = atan(ops.div(x, cos_))
    return select(ops.greater(ops.abs(x), one), nan_like(x), select(ops.equal(x, const(0, x)), x, out))


def acos(x):
    one = const(1, x)
    out = ops.mul(const(2, x), atan(ops.sqrt(ops.div(ops.sub(one, x), ops.add(one, x)))))
    return select(ops.greater(ops.abs(x), one), nan_like(x), out)


def atan2(y, x):
    zero = const(0, x)
    pi = const(math.pi, x)
    base = atan(ops.div(y, x))
    y_neg = signbit_of_number(y)
    x_neg = signbit_of_number(x)
    # quadrant: x < 0 (or -0) adds pi with y's sign
    shifted = select(y_neg, ops.sub(base, pi), ops.add(base, pi))
    out = select(x_neg, shifted, base)
    # both zero: +-0 or +-pi by the signs
    signed_pi = select(y_neg, ops.negate(pi), pi)
    zero_y = select(y_neg, const(-0.0, x), zero)
    both_zero = ops.logical_and(ops.equal(x, zero), ops.equal(y, zero))
    out = select(both_zero, select(x_neg, signed_pi, zero_y), out)
    # y = +-0, x nonzero
    y_zero = ops.equal(y, zero)
    out = select(ops.logical_and(y_zero, ops.logical_not(ops.equal(x, zero))), select(x_neg, signed_pi, zero_y), out)
    # infinities
    x_inf, y_inf = ops.is_inf(x), ops.is_inf(y)
    half = select(y_neg, const(-math.pi / 2, x), const(math.pi / 2, x))
    quarter = select(x_neg, const(3 * math.pi / 4, x), const(math.pi / 4, x))
    quarter = select(y_neg, ops.negate(quarter), quarter)
    out = select(ops.logical_and(y_inf, ops.logical_not(x_inf)), half, out)
    out = select(ops.logical_and(y_inf, x_inf), quarter, out)
    out = select(ops.logical_and(x_inf, ops.logical_not(y_inf)),
                 select(x_neg, signed_pi, zero_y), out)
    out = select(ops.logical_and(ops.equal(x, zero), ops.logical_not(y_zero)), half, out)
    return select(_any_nan(x, y), nan_like(x), out)


def asinh(x):
    ax = ops.abs(x)
    one = const(1, x)
    x2 = ops.mul(ax, ax)
    small = ops.log1p(ops.add(ax, ops.div(x2, ops.add(one, ops.sqrt(ops.add(one, x2))))))
    large = ops.add(ops.log(ax), const(math.log(2), x))
    mag = select(ops.greater(ax, const(1e150 if x.dtype == DType.float64 else 1e18, x)), large, small)
    out = select(ops.greater(const(0, x), x), ops.negate(mag), mag)
    return select(ops.logical_or(ops.equal(x, const(0, x)), ops.logical_or(ops.is_inf(x), ops.is_nan(x))), x, out)


def acosh(x):
    one = const(1, x)
    small = ops.log(ops.add(x, ops.mul(ops.sqrt(ops.sub(x, one)), ops.sqrt(ops.add(x, one)))))
    large = ops.add(ops.log(x), const(math.log(2), x))
    out = select(ops.greater(x, const(1e150 if x.dtype == DType.float64 else 1e18, x)), large, small)
    return select(ops.greater(one, x), nan_like(x), out)


def atanh(x):
    return select(ops.is_nan(x), x, ops.atanh(x))


def _is_odd_integer(y):
    finite = isfinite(y)
    integral = ops.equal(ops.floor(y), y)
    odd = ops.equal(ops.mod(y, const(2, y)), const(1, y))
    return ops.logical_and(finite, ops.logical_and(integral, odd))


def _split(a):
    """``a`` as two halves of 26 bits, exactly (Veltkamp's split; |a| below 2^996)."""
    c = ops.mul(const(134217729.0, a), a)
    hi = ops.sub(c, ops.sub(c, a))
    return hi, ops.sub(a, hi)


def _two_prod(a, b):
    """``a b`` and its rounding error, exactly (Dekker's product: MAX's graphs have no fma, whose
    ``fma(a, b, -a b)`` the fused kernel takes, the same number)."""
    p = ops.mul(a, b)
    ah, al = _split(a)
    bh, bl = _split(b)
    err = ops.add(ops.add(ops.add(ops.sub(ops.mul(ah, bh), p), ops.mul(ah, bl)), ops.mul(al, bh)), ops.mul(al, bl))
    return p, err


def _two_sum(a, b):
    """``a + b`` and its rounding error, exactly (Knuth)."""
    s = ops.add(a, b)
    bb = ops.sub(s, a)
    return s, ops.add(ops.sub(a, ops.sub(s, bb)), ops.sub(b, bb))


def _dd_mul(ah, al, bh, bl):
    p, err = _two_prod(ah, bh)
    e = ops.add(err, ops.add(ops.mul(ah, bl), ops.mul(al, bh)))
    hi = ops.add(p, e)
    return hi, ops.sub(e, ops.sub(hi, p))


#: ln 2 in two parts (fdlibm's: e LN2_HI is exact) and 2/3 in two parts
_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10
_TWO_THIRDS_HI, _TWO_THIRDS_LO = 0.6666666666666666, 3.700743415417188e-17


def _log_dd(x):
    """log of a positive finite float64 ``x`` as a double-double (hi, lo), by the fused kernel's
    ``_log_dd`` steps (its m and e found without a bit cast: e from log, put right next to a power
    of two, m = x 2^-e as two exact powers of two)."""
    tiny = ops.greater(const(2.2250738585072014e-308, x), x)
    scaled = select(tiny, ops.mul(x, const(18014398509481984.0, x)), x)  # 2^54
    e = ops.floor(ops.mul(ops.log(scaled), const(1.4426950408889634, x)))
    two = const(2.0, x)
    half_e = ops.floor(ops.mul(e, const(0.5, x)))
    m = ops.mul(ops.mul(scaled, ops.pow(two, ops.negate(half_e))), ops.pow(two, ops.negate(ops.sub(e, half_e))))
    one = const(1.0, x)
    for wrong, factor, step in ((ops.greater_equal(m, two), 0.5, 1.0), (ops.greater(one, m), 2.0, -1.0),
                                (None, 0.5, 1.0)):
        if wrong is None:  # (last: m in [1, 2) folded to [sqrt(1/2), sqrt(2)))
            wrong = ops.greater(m, const(1.4142135623730951, x))
        m = select(wrong, ops.mul(m, const(factor, x)), m)
        e = select(wrong, ops.add(e, const(step, x)), e)
    e = ops.sub(e, select(tiny, const(54.0, x), const(0.0, x)))
    f = ops.sub(m, one)
    dh = ops.add(m, one)
    dl = ops.sub(m, ops.sub(dh, one))
    sh = ops.div(f, dh)
    p, err = _two_prod(sh, dh)
    sl = ops.div(ops.sub(ops.sub(ops.sub(f, p), err), ops.mul(sh, dl)), dh)
    s2h, s2e = _two_prod(sh, sh)
    s2l = ops.add(s2e, ops.mul(ops.mul(const(2.0, x), sh), sl))
    s3h, s3l = _dd_mul(s2h, s2l, sh, sl)
    th, tl = _dd_mul(s3h, s3l, const(_TWO_THIRDS_HI, x), const(_TWO_THIRDS_LO, x))
    series = const(2.0 / 27.0, x)
    for k in range(25, 3, -2):
        series = ops.add(const(2.0 / k, x), ops.mul(s2h, series))
    rest = ops.mul(ops.mul(s3h, s2h), series)
    ah, ae = _two_sum(ops.mul(e, const(_LN2_HI, x)), ops.mul(sh, const(2.0, x)))
    hi, he = _two_sum(ah, th)
    lo = ops.add(ops.add(ae, he), ops.add(tl, ops.add(ops.mul(e, const(_LN2_LO, x)),
                                                       ops.add(ops.mul(sl, const(2.0, x)), rest))))
    h = ops.add(hi, lo)
    return h, ops.sub(lo, ops.sub(h, hi))


def _power64(safe, y):
    """|x| ** y for float64 (``safe``: |x|, 1 where x is 0) within about an ulp: e^(y log|x|) with log|x| and its product with y in double-double, the low part taken
    into exp's reduced argument (the fused kernel's ``_pow``: the same steps and bits)."""
    lh, ll = _log_dd(safe)
    qh, qe = _two_prod(y, lh)
    # (past 2^995 Dekker's split overflows: y log|x| is then past any finite result, or log|x| is 0)
    ql = select(ops.greater(ops.abs(y), const(2.0 ** 995, y)), const(0.0, y), ops.add(qe, ops.mul(y, ll)))
    mag = _exp64(qh, select(ops.is_inf(qh), const(0.0, y), ql))
    return select(ops.equal(y, const(0.5, y)), ops.sqrt(safe), mag)


def power(x, y):
    if not is_float(x):
        # negative integer exponents have no integer result; 0 keeps MAX's kernel defined
        y = select(ops.greater(const(0, y), y), const(0, y), y)
        if y.dtype not in (DType.int64, DType.uint64, DType.uint32):
            return ops.pow(x, y)
        # MAX's integer pow takes an int32 count: y = a 2^62 + b 2^31 + c, each part below 2^31, and
        # x^y = x^c (x^(2^31))^b (x^(2^62))^a, the powers of two by squaring (wrapping, as NumPy's)
        part = const(1 << 31, y)
        rest = ops.floor_div(y, part)
        big = x
        for _ in range(31):
            big = ops.mul(big, big)
        bigger = big
        for _ in range(31):
            bigger = ops.mul(bigger, bigger)
        low = ops.pow(x, ops.sub(y, ops.mul(rest, part)))
        middle = ops.pow(big, ops.sub(rest, ops.mul(ops.floor_div(rest, part), part)))
        return ops.mul(ops.mul(low, middle), ops.pow(bigger, ops.floor_div(rest, part)))
    if x.dtype == DType.float32:
        # in float64, rounded once: MAX's float32 pow overflows short of float32's largest value
        # (3.4028235e38 ** 0.99999997 is 3.4028055e38, MAX's inf) and is off by several ulp elsewhere
        return ops.cast(power(ops.cast(x, DType.float64), ops.cast(y, DType.float64)), DType.float32)
    zero, one, inf = const(0, x), const(1, x), const(math.inf, x)
    ax = ops.abs(x)
    safe = select(ops.equal(ax, zero), one, ax)
    if x.dtype == DType.float64:
        # (an integral |y| <= 4 by MAX's pow, a few roundings, exact where the power is; the fused
        # kernel's square and multiply in double-double for any integral y would be ~1,500 graph ops)
        integral = ops.logical_and(ops.equal(ops.floor(y), y), ops.greater_equal(const(4.0, y), ops.abs(y)))
        mag = select(integral, ops.pow(safe, y), _power64(safe, y))
    else:
        mag = ops.pow(safe, y)
        # MAX's pow mishandles exponents past int32 (it returns 1 for y = 2**31 or 1e200): take
        # exp(y log|x|) there
        within = ops.greater(const(2.0 ** 31, y), ops.abs(y))
        mag = select(within, mag, exp(ops.mul(y, ops.log(safe))))
    y_pos = ops.greater(y, zero)
    # |x| = 0 and |x| = inf are limits MAX's pow does not take
    mag = select(ops.equal(ax, zero), select(y_pos, zero, inf), mag)
    mag = select(ops.is_inf(ax), select(y_pos, inf, zero), mag)
    y_inf = ops.is_inf(y)
    gt1 = ops.greater(ax, one)
    mag = select(ops.logical_and(y_inf, gt1), select(y_pos, inf, zero), mag)
    mag = select(ops.logical_and(y_inf, ops.greater(one, ax)), select(y_pos, zero, inf), mag)
    mag = select(ops.logical_and(y_inf, ops.equal(ax, one)), one, mag)
    out = select(ops.logical_and(signbit_of_number(x), _is_odd_integer(y)), ops.negate(mag), mag)
    non_integer = ops.logical_not(ops.equal(ops.floor(y), y))
    negative_finite = ops.logical_and(ops.greater(zero, x), isfinite(x))
    out = select(ops.logical_and(negative_finite, ops.logical_and(non_integer, isfinite(y))), nan_like(x), out)
    out = select(_any_nan(x, y), nan_like(x), out)
    out = select(ops.equal(x, one), one, out)
    return select(ops.equal(y, zero), one, out)


def logaddexp(x, y):
    big = ops.max(x, y)
    d = select(ops.equal(x, y), const(0, x), ops.abs(ops.sub(x, y)))
    out = ops.add(big, ops.log1p(exp(ops.negate(d))))
    return select(_any_nan(x, y), nan_like(x), out)
