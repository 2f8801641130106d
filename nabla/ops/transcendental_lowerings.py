"""MAX lowerings of the hyperbolic and inverse trigonometric functions, ``power`` and ``logaddexp``:
within an ulp or so where MAX's own lose more, finite up to overflow, and with the standard's special
values."""

from __future__ import annotations

import math

from max.dtype import DType
from ..core.lazy_module import graph_ops as ops

from .lowerings import _any_nan, const, exp, is_float, isfinite, nan_like, select, signbit_of_number


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
    mag = ops.pow(safe, y)
    if x.dtype == DType.float64:
        # MAX's float64 pow of a non-integer exponent is off by up to ~4e4 ulp (its exp's error):
        # e^(y log|x|) by ``exp``, within |y log x| ulp; y = 0.5 is sqrt, exact (NumPy's x ** 0.5)
        mag = select(ops.equal(ops.floor(y), y), mag, exp(ops.mul(y, ops.log(safe))))
        mag = select(ops.equal(y, const(0.5, y)), ops.sqrt(safe), mag)
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
