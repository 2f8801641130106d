"""Complex arithmetic on (real, imaginary) pairs, written once for every backend.

Each formula takes ``k``, a backend: an object whose methods build real elementwise work (MAX graph
ops in ``lowerings.MAX_OPS``; nodes of a trace the fused kernel runs in ``fused_complex``), so that
a compiled graph and the fused kernel compute the same operations, bit for bit. Special values
(infinities, NaN, signed zeros) follow C99 Annex G, as NumPy's complex loops do.

A backend has ``add subtract multiply divide negative abs sqrt exp log log1p cos sin atan2 maximum minimum equal
greater greater_equal logical_and logical_or logical_not isnan isinf where`` and ``const(value, like)``.
"""

from __future__ import annotations

import math


def isfinite(k, x):
    return k.logical_not(k.logical_or(k.isnan(x), k.isinf(x)))


def signbit_of_number(k, x):
    """Sign bit of each non-NaN element (-0.0 counts); NaN gives False."""
    zero = k.const(0, x)
    neg_zero = k.logical_and(k.equal(x, zero), k.greater(zero, k.divide(k.const(1, x), x)))
    return k.logical_or(k.greater(zero, x), neg_zero)


def copysign_of_number(k, x, y):
    """``copysign`` for a ``y`` whose NaNs' signs do not matter."""
    ax = k.abs(x)
    return k.where(signbit_of_number(k, y), k.negative(ax), ax)


def hypot(k, x, y):
    """sqrt(x^2 + y^2) scaled by the larger magnitude (no overflow); inf where either is infinite."""
    ax, ay = k.abs(x), k.abs(y)
    big, small = k.maximum(ax, ay), k.minimum(ax, ay)
    ratio = k.divide(small, k.where(k.equal(big, k.const(0, x)), k.const(1, x), big))
    out = k.multiply(big, k.sqrt(k.add(k.const(1, x), k.multiply(ratio, ratio))))
    out = k.where(k.logical_or(k.isnan(x), k.isnan(y)), k.const(math.nan, x), out)
    return k.where(k.logical_or(k.isinf(x), k.isinf(y)), k.const(math.inf, x), out)


def multiply(k, a, b):
    (ar, ai), (br, bi) = a, b
    return k.subtract(k.multiply(ar, br), k.multiply(ai, bi)), k.add(k.multiply(ar, bi), k.multiply(ai, br))


def unit_infinities(k, x):
    """+-1 where ``x`` is infinite, +-0 elsewhere (C99's way to give an infinite operand a direction)."""
    return copysign_of_number(k, k.where(k.isinf(x), k.const(1, x), k.const(0, x)), x)


def divide(k, a, b):
    """Smith's algorithm (R. L. Smith, "Algorithm 116: Complex division", CACM 1962: scales by the
    larger part of ``b``, so |b|^2 never overflows), with C99's limits."""
    (ar, ai), (br, bi) = a, b
    wide = k.greater_equal(k.abs(br), k.abs(bi))
    big = k.where(wide, br, bi)
    other = k.where(wide, bi, br)
    ratio = k.divide(other, big)
    d = k.add(big, k.multiply(other, ratio))
    r_wide = k.divide(k.add(ar, k.multiply(ai, ratio)), d)
    i_wide = k.divide(k.subtract(ai, k.multiply(ar, ratio)), d)
    r_tall = k.divide(k.add(k.multiply(ar, ratio), ai), d)
    i_tall = k.divide(k.subtract(k.multiply(ai, ratio), ar), d)
    r, i = k.where(wide, r_wide, r_tall), k.where(wide, i_wide, i_tall)
    # a finite numerator over an infinite denominator is a signed zero
    over_inf = k.logical_and(k.logical_or(k.isinf(br), k.isinf(bi)),
                             k.logical_and(isfinite(k, ar), isfinite(k, ai)))
    ubr, ubi = unit_infinities(k, br), unit_infinities(k, bi)
    zero = k.const(0, ar)
    r = k.where(over_inf, k.multiply(zero, k.add(k.multiply(ar, ubr), k.multiply(ai, ubi))), r)
    i = k.where(over_inf, k.multiply(zero, k.subtract(k.multiply(ai, ubr), k.multiply(ar, ubi))), i)
    return r, i


def reciprocal(k, z):
    re = z[0]
    return divide(k, (k.const(1, re), k.const(0, re)), z)


def exp_limits(k, a, b, r, i, at_minus_inf):
    """exp-like results at a = +-inf with b infinite or NaN (C99 limits, not inf * NaN)."""
    b_bad = k.logical_not(isfinite(k, b))
    neg = k.logical_and(k.equal(a, k.const(-math.inf, a)), b_bad)
    pos = k.logical_and(k.equal(a, k.const(math.inf, a)), b_bad)
    r = k.where(neg, at_minus_inf, k.where(pos, a, r))
    i = k.where(neg, k.const(0, a), k.where(pos, k.const(math.nan, a), i))
    return r, i


def exp(k, z):
    a, b = z
    m = k.exp(a)
    c, s = k.cos(b), k.sin(b)
    # where e^a overflows, e^a cos b may not: (e^(a/2) cos b) e^(a/2)
    h = k.exp(k.multiply(a, k.const(0.5, a)))
    big = k.logical_and(k.isinf(m), isfinite(k, a))
    r = k.where(big, k.multiply(k.multiply(h, c), h), k.multiply(m, c))
    i = k.where(big, k.multiply(k.multiply(h, s), h), k.multiply(m, s))
    # exp(a + 0j) stays real even where cos/sin of 0 meet an infinite magnitude
    b_zero = k.equal(b, k.const(0, b))
    r = k.where(b_zero, m, r)
    i = k.where(b_zero, b, i)
    return exp_limits(k, a, b, r, i, k.const(0, a))


def sign(k, z):
    """z / |z| (0 at 0); an infinite part sets the direction (NumPy's answer)."""
    a, b = z
    inf_in = k.logical_or(k.isinf(a), k.isinf(b))
    a, b = k.where(inf_in, unit_infinities(k, a), a), k.where(inf_in, unit_infinities(k, b), b)
    m = hypot(k, a, b)
    zero = k.equal(m, k.const(0, m))
    safe = k.where(zero, k.const(1, m), m)
    return k.where(zero, k.const(0, m), k.divide(a, safe)), k.where(zero, k.const(0, m), k.divide(b, safe))


def equal(k, a, b):
    return k.logical_and(k.equal(a[0], b[0]), k.equal(a[1], b[1]))


def not_equal(k, a, b):
    return k.logical_not(equal(k, a, b))


def isnan(k, z):
    return k.logical_or(k.isnan(z[0]), k.isnan(z[1]))


def isinf(k, z):
    return k.logical_or(k.isinf(z[0]), k.isinf(z[1]))


def complex_isfinite(k, z):
    return k.logical_and(isfinite(k, z[0]), isfinite(k, z[1]))


def greater(k, a, b, tie="greater"):
    """NumPy's order of complex values (its CGT / CGE): real parts first, imaginary parts on a tie
    (``tie``: greater or greater_equal); a NaN imaginary part makes the real parts' order false."""
    (ar, ai), (br, bi) = a, b
    numbers = k.logical_not(k.logical_or(k.isnan(ai), k.isnan(bi)))
    return k.logical_or(k.logical_and(k.greater(ar, br), numbers),
                        k.logical_and(k.equal(ar, br), getattr(k, tie)(ai, bi)))


def greater_equal(k, a, b):
    return greater(k, a, b, "greater_equal")


def less(k, a, b):
    return greater(k, b, a)


def less_equal(k, a, b):
    return greater(k, b, a, "greater_equal")


def log(k, z):
    """log|z| + i arg z. Near the unit circle log|z| = log1p((M - 1)(M + 1) + m^2) / 2 (M, m: the
    larger and smaller of |a|, |b|) keeps the digits log(|z|) loses."""
    a, b = z
    h = hypot(k, a, b)
    near = k.logical_and(k.greater(h, k.const(0.5, a)), k.greater(k.const(2, a), h))
    one = k.const(1, a)
    big, small = k.maximum(k.abs(a), k.abs(b)), k.minimum(k.abs(a), k.abs(b))
    unit = k.multiply(k.const(0.5, a), k.log1p(k.add(k.multiply(k.subtract(big, one), k.add(big, one)), k.multiply(small, small))))
    return k.where(near, unit, k.log(h)), k.atan2(b, a)


def power(k, a, b):
    """exp(b log a), with NumPy's limits: exp(b log 0) is 0 * inf, which NumPy gives as 0 where
    re(b) > 0 and NaN elsewhere; and z ** 0 is 1."""
    r, i = exp(k, multiply(k, b, log(k, a)))
    zero = k.const(0, r)
    at_zero = k.logical_and(k.equal(a[0], zero), k.equal(a[1], zero))
    limit = k.where(k.greater(b[0], zero), zero, k.const(math.nan, r))
    r, i = k.where(at_zero, limit, r), k.where(at_zero, limit, i)
    b_zero = k.logical_and(k.equal(b[0], zero), k.equal(b[1], zero))
    return k.where(b_zero, k.const(1, r), r), k.where(b_zero, zero, i)


# the formulas of the ops whose complex form is plain arithmetic on the pair (each op's row names
# its formula: ``formula=`` in ops/elementwise.py)
def negative(k, z):
    return k.negative(z[0]), k.negative(z[1])


def positive(k, z):
    return z


def conj(k, z):
    return z[0], k.negative(z[1])


def real(k, z):
    return z[0]


def imag(k, z):
    return z[1]


def magnitude(k, z):
    return hypot(k, *z)


def square(k, z):
    return multiply(k, z, z)


def add(k, a, b):
    return k.add(a[0], b[0]), k.add(a[1], b[1])


def subtract(k, a, b):
    return k.subtract(a[0], b[0]), k.subtract(a[1], b[1])
