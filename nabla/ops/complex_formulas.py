"""Complex arithmetic on (real, imaginary) pairs, written once for every backend.

Each formula takes ``k``, a backend: an object whose methods build real elementwise work (MAX graph
values in ``lowerings.MAX_OPS``; nodes of a trace the fused kernel runs in ``fused_complex``), so that
a compiled graph and the fused kernel compute the same operations, bit for bit. Special values
(infinities, NaN, signed zeros) follow C99 Annex G, as NumPy's complex loops do.

Both backends are built from the registered elementwise ops: ``k.<name>`` is the op of the row of
that name (``k.exp``, ``k.atan2``, ``k.round``: any row of ``elementwise.py``), on real operands;
besides them a backend has ``where(cond, x, y)`` and ``const(value, like)``.
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


def divide(k, a, b):
    """NumPy's complex division: Smith's algorithm (R. L. Smith, "Algorithm 116: Complex division",
    CACM 1962: scales by the larger part of ``b``, so |b|^2 never overflows), times the reciprocal
    of the scaled denominator, with NumPy's NaN cases rather than C99's limits (a finite value over
    inf + inf j is NaN there, not 0)."""
    (ar, ai), (br, bi) = a, b
    abr, abi = k.abs(br), k.abs(bi)
    one, zero, nan = k.const(1, ar), k.const(0, ar), k.const(math.nan, ar)
    wide = k.greater_equal(abr, abi)  # false where either is NaN, as NumPy's isgreaterequal
    big, other = k.where(wide, br, bi), k.where(wide, bi, br)
    rat = k.divide(other, big)
    scl = k.divide(one, k.add(big, k.multiply(other, rat)))
    r = k.where(wide, k.add(ar, k.multiply(ai, rat)), k.add(k.multiply(ar, rat), ai))
    i = k.where(wide, k.subtract(ai, k.multiply(ar, rat)), k.subtract(k.multiply(ai, rat), ar))
    r, i = k.multiply(r, scl), k.multiply(i, scl)
    # over 0: each part over |0| (inf or NaN), and NaN where the numerator is NaN with a zero or NaN
    ar_nan, ai_nan = k.isnan(ar), k.isnan(ai)
    b_zero = k.logical_and(k.equal(br, zero), k.equal(bi, zero))
    nan_over_zero = k.logical_or(k.logical_and(ar_nan, k.logical_or(k.equal(ai, zero), ai_nan)),
                                 k.logical_and(k.equal(ar, zero), ai_nan))
    r = k.where(b_zero, k.where(nan_over_zero, k.where(ar_nan, ar, ai), k.divide(ar, abr)), r)
    i = k.where(b_zero, k.where(nan_over_zero, k.where(ai_nan, ai, ar), k.divide(ai, abi)), i)
    # a numerator with a NaN part and an infinite one (over a nonzero b), or a NaN part over
    # inf + inf j, is NaN + NaN j
    a_inf = k.logical_or(k.logical_and(k.logical_not(ar_nan), k.isinf(ar)),
                         k.logical_and(k.logical_not(ai_nan), k.isinf(ai)))
    b_number = k.logical_not(k.logical_or(k.isnan(br), k.isnan(bi)))
    both_inf = k.logical_and(k.isinf(br), k.isinf(bi))
    all_nan = k.logical_and(k.logical_and(b_number, k.logical_or(ar_nan, ai_nan)),
                            k.logical_or(k.logical_and(a_inf, k.logical_not(b_zero)), both_inf))
    return k.where(all_nan, nan, r), k.where(all_nan, nan, i)


def reciprocal(k, z):
    """NumPy's own loop: 1 / (a + bi) scaled by the larger part, with no special cases."""
    a, b = z
    one = k.const(1, a)
    wide = k.greater_equal(k.abs(a), k.abs(b))  # |b| <= |a|: false where either is NaN
    big, other = k.where(wide, a, b), k.where(wide, b, a)
    rat = k.divide(other, big)
    d = k.add(big, k.multiply(other, rat))
    return k.divide(k.where(wide, one, rat), d), k.negative(k.divide(k.where(wide, rat, one), d))


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
    """NumPy 2's loop: z / |z| (0 at 0); one infinite part gives its direction, two give NaN, as
    does a NaN |z|; an |z| overflowing from finite parts gives 0 + +-1j (NumPy's branch for it)."""
    a, b = z
    m = k.hypot(a, b)
    zero, one, nan = k.const(0, m), k.const(1, m), k.const(math.nan, m)
    at_zero = k.equal(m, zero)
    safe = k.where(at_zero, one, m)
    r = k.where(at_zero, zero, k.divide(a, safe))
    i = k.where(at_zero, zero, k.divide(b, safe))
    unit_b = k.where(k.greater(b, zero), one, k.const(-1, m))
    r_inf = k.isinf(a)
    r = k.where(k.isinf(m), k.where(r_inf, k.where(k.greater(a, zero), one, k.const(-1, m)), zero), r)
    i = k.where(k.isinf(m), k.where(r_inf, zero, unit_b), i)
    both = k.logical_or(k.isnan(m), k.logical_and(r_inf, k.isinf(b)))
    return k.where(both, nan, r), k.where(both, nan, i)


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


def maximum(k, a, b, order=greater_equal):
    """NumPy's complex maximum: ``a`` where ``a >= b`` in its order or ``a`` has a NaN part, else ``b``
    (a NaN propagates, the first one where both are)."""
    first = k.logical_or(order(k, a, b), isnan(k, a))
    return k.where(first, a[0], b[0]), k.where(first, a[1], b[1])


def minimum(k, a, b):
    return maximum(k, a, b, less_equal)


def log(k, z):
    """log|z| + i arg z. Near the unit circle log|z| = log1p((M - 1)(M + 1) + m^2) / 2 (M, m: the
    larger and smaller of |a|, |b|) keeps the digits log(|z|) loses."""
    a, b = z
    h = k.hypot(a, b)
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
    return k.hypot(*z)


def square(k, z):
    return multiply(k, z, z)


def add(k, a, b):
    return k.add(a[0], b[0]), k.add(a[1], b[1])


def subtract(k, a, b):
    return k.subtract(a[0], b[0]), k.subtract(a[1], b[1])


def round_parts(k, z):
    return k.round(z[0]), k.round(z[1])


# --- the elementary functions: C99 Annex G's special values; the inverse functions in Kahan's
# branch-cut-safe forms ("Branch Cuts for Complex Elementary Functions", 1987), which need no
# squaring and so do not overflow; the trigonometric functions from the hyperbolic ones by f(iz)

def _times_i(k, z):
    return k.negative(z[1]), z[0]


def _times_minus_i(k, z):
    return z[1], k.negative(z[0])


def _either_inf(k, a, b):
    return k.logical_or(k.isinf(a), k.isinf(b))


def expm1(k, z):
    a, b = z
    half_sin = k.sin(k.multiply(b, k.const(0.5, b)))
    # expm1(a) cos b - 2 sin^2(b/2): no cancellation near 0
    r = k.subtract(k.multiply(k.expm1(a), k.cos(b)), k.multiply(k.const(2, b), k.multiply(half_sin, half_sin)))
    zero = k.const(0, b)
    r = k.where(k.logical_and(k.equal(a, zero), k.equal(b, zero)), zero, r)  # the standard's +0 at +-0 + 0j
    i = k.where(k.equal(b, zero), b, k.multiply(k.exp(a), k.sin(b)))
    return exp_limits(k, a, b, r, i, k.const(-1, a))


def log1p(k, z):
    a, b = z
    one = k.const(1, a)
    ap1 = k.add(a, one)
    # near 0, log|1 + z| = log1p(a(a + 2) + b^2) / 2 keeps the digits log(|1 + z|) would lose; near
    # -1 that sum cancels to |1 + z|^2 (SciPy's complex logsumexp meets it), where 1 + a is exact
    small = k.logical_and(k.logical_and(k.greater(one, k.abs(a)), k.greater(one, k.abs(b))),
                          k.greater(a, k.const(-0.5, a)))
    near = k.multiply(k.log1p(k.add(k.multiply(a, k.add(a, k.const(2, a))), k.multiply(b, b))), k.const(0.5, a))
    r = k.where(small, near, k.log(k.hypot(ap1, b)))
    real_axis = k.logical_and(k.equal(b, k.const(0, b)), k.greater_equal(a, k.const(-1, a)))
    return k.where(real_axis, k.log1p(a), r), k.atan2(b, ap1)


def log_base(base: float):
    """log(z) / log(base)."""
    scale = 1.0 / math.log(base)

    def formula(k, z):
        r, i = log(k, z)
        return k.multiply(r, k.const(scale, r)), k.multiply(i, k.const(scale, i))
    return formula


def _hyperbolic_products(k, a, b, first):
    """(sinh a cos b, cosh a sin b) for ``first`` "sinh", (cosh a cos b, sinh a sin b) for "cosh".
    Where sinh a and cosh a overflow the products may not: e^|a| / 2 times a cosine or sine is
    (e^(|a|/2) cos / 2) e^(|a|/2)."""
    sh, ch, c, s = k.sinh(a), k.cosh(a), k.cos(b), k.sin(b)
    big = k.logical_and(k.isinf(ch), isfinite(k, a))
    h = k.exp(k.multiply(k.abs(a), k.const(0.5, a)))
    sign = k.where(k.greater(k.const(0, a), a), k.const(-1, a), k.const(1, a))

    def product(hyperbolic, trig, odd):
        scaled = k.multiply(k.multiply(h, k.multiply(trig, k.const(0.5, a))), h)
        return k.where(big, k.multiply(sign, scaled) if odd else scaled, k.multiply(hyperbolic, trig))

    if first == "sinh":
        return product(sh, c, True), product(ch, s, False)
    return product(ch, c, False), product(sh, s, True)


def sinh(k, z):
    a, b = z
    b_bad = k.logical_not(isfinite(k, b))
    r, i = _hyperbolic_products(k, a, b, "sinh")
    r = k.where(k.logical_and(b_bad, k.logical_or(k.isinf(a), k.equal(a, k.const(0, a)))), a, r)
    i = k.where(k.equal(b, k.const(0, b)), b,
                k.where(k.logical_and(k.isinf(a), b_bad), k.const(math.nan, a), i))
    return r, i


def cosh(k, z):
    a, b = z
    b_bad = k.logical_not(isfinite(k, b))
    inf_a = k.logical_and(k.isinf(a), b_bad)
    r, i = _hyperbolic_products(k, a, b, "cosh")
    r = k.where(inf_a, k.const(math.inf, a), r)
    i = k.where(inf_a, k.const(math.nan, a), i)
    i = k.where(k.logical_and(b_bad, k.equal(a, k.const(0, a))), k.const(0, a), i)
    return r, k.where(k.equal(b, k.const(0, b)), k.where(signbit_of_number(k, a), k.negative(b), b), i)


def tanh(k, z):
    """Kahan's form: with t = tan b, s = sinh a, beta = 1 + t^2:
    tanh = (beta cosh(a) s + i t) / (1 + beta s^2); for |a| > 22 it is sign(a) + i 0 to working precision."""
    a, b = z
    one = k.const(1, a)
    sin_b, cos_b = k.sin(b), k.cos(b)
    t = k.divide(sin_b, cos_b)
    s = k.sinh(a)
    beta = k.add(one, k.multiply(t, t))
    d = k.add(one, k.multiply(beta, k.multiply(s, s)))
    r = k.divide(k.multiply(k.multiply(beta, k.cosh(a)), s), d)
    i = k.divide(t, d)
    big = k.greater(k.abs(a), k.const(22, a))
    tiny_i = k.multiply(k.multiply(k.const(4, a), k.multiply(sin_b, cos_b)),
                        k.exp(k.multiply(k.const(-2, a), k.abs(a))))
    r = k.where(k.logical_or(k.isinf(a), k.logical_and(big, isfinite(k, b))), copysign_of_number(k, one, a), r)
    r = k.where(k.equal(a, k.const(0, a)), a, r)
    i = k.where(big, tiny_i, i)
    i = k.where(k.isinf(a), copysign_of_number(k, k.const(0, a), b), i)
    return r, k.where(k.equal(b, k.const(0, b)), b, i)


def sin(k, z):
    return _times_minus_i(k, sinh(k, _times_i(k, z)))


def cos(k, z):
    return cosh(k, _times_i(k, z))


def tan(k, z):
    return _times_minus_i(k, tanh(k, _times_i(k, z)))


def sqrt(k, z):
    r, i = z
    m = k.hypot(r, i)
    s = k.sqrt(k.multiply(k.add(m, k.abs(r)), k.const(0.5, r)))
    zero = k.equal(s, k.const(0, s))
    t = k.where(zero, k.const(0, s), k.divide(k.abs(i), k.multiply(s, k.const(2, s))))
    pos = k.logical_not(signbit_of_number(k, r))
    out_r = k.where(pos, s, t)
    out_i = k.where(pos, k.where(zero, i, k.divide(i, k.multiply(s, k.const(2, s)))), copysign_of_number(k, s, i))
    return k.where(k.isinf(i), k.const(math.inf, r), out_r), k.where(k.isinf(i), i, out_i)


def _sqrt_pair(k, z, sign):
    """sqrt(1 - z) and sqrt(1 + z) for sign=-1; sqrt(z - 1), sqrt(z + 1) for sign=+1. The zero
    imaginary parts keep their signs: Kahan's branch cuts rely on them."""
    a, b = z
    one = k.const(1, a)
    if sign < 0:
        return sqrt(k, (k.subtract(one, a), k.negative(b))), sqrt(k, (k.add(one, a), b))
    return sqrt(k, (k.subtract(a, one), b)), sqrt(k, (k.add(a, one), b))


def asinh(k, z):
    a, b = z
    # Kahan: asin(w) = atan(Re w / Re(sqrt(1-w) sqrt(1+w))) + i asinh(Im(conj(sqrt(1-w)) sqrt(1+w))), w = iz
    w = _times_i(k, z)
    (pr, pi_), (qr, qi) = _sqrt_pair(k, w, -1)
    asin_re = k.atan2(w[0], k.subtract(k.multiply(pr, qr), k.multiply(pi_, qi)))
    r = k.asinh(k.subtract(k.multiply(pr, qi), k.multiply(pi_, qr)))
    i = k.negative(asin_re)  # asinh(z) = -i asin(iz)
    inf_in = _either_inf(k, a, b)
    r = k.where(inf_in, copysign_of_number(k, k.const(math.inf, a), a), r)
    i = k.where(inf_in, k.atan2(b, k.abs(a)), i)
    b_zero = k.equal(b, k.const(0, b))
    return k.where(b_zero, k.asinh(a), r), k.where(b_zero, b, i)


def asin(k, z):
    return _times_minus_i(k, asinh(k, _times_i(k, z)))


def acos(k, z):
    a, b = z
    # Kahan: acos(z) = 2 atan(Re sqrt(1-z) / Re sqrt(1+z)) + i asinh(Im(conj(sqrt(1+z)) sqrt(1-z)))
    (pr, pi_), (qr, qi) = _sqrt_pair(k, z, -1)
    r = k.multiply(k.const(2, a), k.atan2(pr, qr))
    i = k.asinh(k.subtract(k.multiply(qr, pi_), k.multiply(qi, pr)))
    inf_in = _either_inf(k, a, b)
    r = k.where(inf_in, k.atan2(k.abs(b), a), r)
    i = k.where(inf_in, k.where(signbit_of_number(k, b), k.const(math.inf, a), k.const(-math.inf, a)), i)
    return k.where(k.equal(a, k.const(0, a)), k.const(math.pi * 0.5, a), r), i


def acosh(k, z):
    a, b = z
    # Kahan: acosh(z) = asinh(Re(conj(sqrt(z-1)) sqrt(z+1))) + 2i atan(Im sqrt(z-1) / Re sqrt(z+1))
    (pr, pi_), (qr, qi) = _sqrt_pair(k, z, 1)
    r = k.asinh(k.add(k.multiply(pr, qr), k.multiply(pi_, qi)))
    i = k.multiply(k.const(2, a), k.atan2(pi_, qr))
    inf_in = _either_inf(k, a, b)
    r = k.where(inf_in, k.const(math.inf, a), r)
    i = k.where(inf_in, k.atan2(b, a), i)
    return r, k.where(k.logical_and(k.equal(a, k.const(0, a)), k.isnan(b)), k.const(math.pi * 0.5, a), i)


def atanh(k, z):
    """atanh = (log1p(z) - log1p(-z)) / 2 in closed form; 1/z asymptotics beyond |z| = 1e10."""
    a, b = z
    one = k.const(1, a)
    om = k.subtract(one, a)
    near_zero = k.multiply(k.const(0.25, a), k.log1p(k.divide(k.multiply(k.const(4, a), a),
                                                                k.add(k.multiply(om, om), k.multiply(b, b)))))
    # away from 0, log1p's argument nears -1 where |1 + z| is small: take the logs apart
    apart = k.multiply(k.const(0.5, a), k.subtract(k.log(k.hypot(k.add(one, a), b)), k.log(k.hypot(om, b))))
    r = k.where(k.greater(k.const(0.5, a), k.abs(a)), near_zero, apart)
    i = k.multiply(k.const(0.5, a), k.atan2(k.multiply(k.const(2, b), b),
                                            k.subtract(k.multiply(om, k.add(one, a)), k.multiply(b, b))))
    h = k.hypot(a, b)
    big = k.greater(h, k.const(1e10, a))
    inf_in = _either_inf(k, a, b)
    r = k.where(big, k.divide(k.divide(a, h), h), r)
    r = k.where(inf_in, copysign_of_number(k, k.const(0, a), a), r)
    r = k.where(k.equal(a, k.const(0, a)), a, r)
    i = k.where(k.logical_or(big, inf_in), copysign_of_number(k, k.const(math.pi * 0.5, a), b), i)
    return r, k.where(k.isnan(b), b, i)


def atan(k, z):
    return _times_minus_i(k, atanh(k, _times_i(k, z)))
