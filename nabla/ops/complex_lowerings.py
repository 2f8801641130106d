"""MAX lowerings on complex storage: a complex tensor is paired reals on a trailing axis of 2.

Formulas follow the Array API standard's special-case tables (C99 Annex G): the
inverse functions use Kahan's branch-cut-safe forms ("Branch Cuts for Complex
Elementary Functions", 1987), which need no squaring and so do not overflow;
the trigonometric functions come from the hyperbolic ones through ``f(iz)``.
"""

from __future__ import annotations

import math

from max.graph import ops

from . import complex_formulas as F
from .lowerings import (MAX_OPS, const, copysign_of_number, exp, hypot, identity, isfinite, nan_like,
                        select, signbit_of_number, slice_tensor)
from .transcendental_lowerings import asinh, atan2, cosh, expm1, sinh


def _part(x, k):
    rank = len(x.shape)
    return ops.squeeze(slice_tensor(x, [slice(None)] * (rank - 1) + [slice(k, k + 1)]), -1)


def re(x):
    return _part(x, 0)


def im(x):
    return _part(x, 1)


def pack(real, imag):
    return ops.stack([real, imag], axis=-1)


def _pair(x):
    return re(x), im(x)


class _ComplexOps(MAX_OPS):
    """``MAX_OPS`` with the lowerings the formulas of logarithms take from this package's others."""

    atan2 = staticmethod(atan2)


def pairwise(formula):
    """A formula on pairs as a lowering on complex storage (a pair result packed again)."""
    def lowering(*xs):
        out = formula(_ComplexOps, *map(_pair, xs))
        return pack(*out) if isinstance(out, tuple) else out
    return lowering



def cconj(x):
    return pack(re(x), ops.negate(im(x)))


def _pi(x, k=1.0):
    return const(math.pi * k, x)


def _inf(x):
    return const(math.inf, x)


def _times_i(z):
    return pack(ops.negate(im(z)), re(z))


def _times_minus_i(z):
    return pack(im(z), ops.negate(re(z)))


def _either_inf(a, b):
    return ops.logical_or(ops.is_inf(a), ops.is_inf(b))



def _exp_limits(a, b, r, i, at_minus_inf):
    return pack(*F.exp_limits(MAX_OPS, a, b, r, i, at_minus_inf))


def cexpm1(x):
    a, b = re(x), im(x)
    half_sin = ops.sin(ops.mul(b, const(0.5, b)))
    # expm1(a) cos b - 2 sin^2(b/2): no cancellation near 0
    r = ops.sub(ops.mul(expm1(a), ops.cos(b)), ops.mul(const(2, b), ops.mul(half_sin, half_sin)))
    zero = const(0, b)
    r = select(ops.logical_and(ops.equal(a, zero), ops.equal(b, zero)), zero, r)  # the standard's +0 at +-0 + 0j
    i = select(ops.equal(b, zero), b, ops.mul(exp(a), ops.sin(b)))
    return _exp_limits(a, b, r, i, const(-1, a))


def clog1p(x):
    a, b = re(x), im(x)
    one = const(1, a)
    ap1 = ops.add(a, one)
    # near 0, log|1 + z| = log1p(a(a + 2) + b^2) / 2 keeps the digits log(|1 + z|) would lose; near
    # -1 that sum cancels to |1 + z|^2 (SciPy's complex logsumexp meets it), where 1 + a is exact
    small = ops.logical_and(ops.logical_and(ops.greater(one, ops.abs(a)), ops.greater(one, ops.abs(b))),
                            ops.greater(a, const(-0.5, a)))
    near = ops.mul(ops.log1p(ops.add(ops.mul(a, ops.add(a, const(2, a))), ops.mul(b, b))), const(0.5, a))
    r = select(small, near, ops.log(hypot(ap1, b)))
    real_axis = ops.logical_and(ops.equal(b, const(0, b)), ops.greater_equal(a, const(-1, a)))
    return pack(select(real_axis, ops.log1p(a), r), atan2(b, ap1))


def clog_base(base: float):
    scale = 1.0 / math.log(base)
    return lambda x: ops.mul(clog(x), ops.constant(scale, x.dtype, x.device))


def _hyperbolic_products(a, b, first):
    """(sinh a cos b, cosh a sin b) for ``first`` "sinh", (cosh a cos b, sinh a sin b) for "cosh".
    Where sinh a and cosh a overflow the products may not: e^|a| / 2 times a cosine or sine is
    (e^(|a|/2) cos / 2) e^(|a|/2)."""
    sh, ch, c, s = sinh(a), cosh(a), ops.cos(b), ops.sin(b)
    big = ops.logical_and(ops.is_inf(ch), isfinite(a))
    h = exp(ops.mul(ops.abs(a), const(0.5, a)))
    sign = select(ops.greater(const(0, a), a), const(-1, a), const(1, a))

    def product(hyperbolic, trig):
        scaled = ops.mul(ops.mul(h, ops.mul(trig, const(0.5, a))), h)
        return select(big, ops.mul(sign, scaled) if hyperbolic is sh else scaled, ops.mul(hyperbolic, trig))

    return (product(sh, c), product(ch, s)) if first == "sinh" else (product(ch, c), product(sh, s))


def csinh(x):
    a, b = re(x), im(x)
    b_bad = ops.logical_not(isfinite(b))
    r, i = _hyperbolic_products(a, b, "sinh")
    r = select(ops.logical_and(b_bad, ops.logical_or(ops.is_inf(a), ops.equal(a, const(0, a)))), a, r)
    i = select(ops.equal(b, const(0, b)), b, select(ops.logical_and(ops.is_inf(a), b_bad), nan_like(a), i))
    return pack(r, i)


def ccosh(x):
    a, b = re(x), im(x)
    b_bad = ops.logical_not(isfinite(b))
    inf_a = ops.logical_and(ops.is_inf(a), b_bad)
    r, i = _hyperbolic_products(a, b, "cosh")
    r = select(inf_a, _inf(a), r)
    i = select(inf_a, nan_like(a), i)
    i = select(ops.logical_and(b_bad, ops.equal(a, const(0, a))), const(0, a), i)
    i = select(ops.equal(b, const(0, b)), select(signbit_of_number(a), ops.negate(b), b), i)
    return pack(r, i)


def ctanh(x):
    """Kahan's form: with t = tan b, s = sinh a, beta = 1 + t^2:
    tanh = (beta cosh(a) s + i t) / (1 + beta s^2); for |a| > 22 it is sign(a) + i 0 to working precision."""
    a, b = re(x), im(x)
    one = const(1, a)
    t = ops.div(ops.sin(b), ops.cos(b))
    s = sinh(a)
    beta = ops.add(one, ops.mul(t, t))
    d = ops.add(one, ops.mul(beta, ops.mul(s, s)))
    r = ops.div(ops.mul(ops.mul(beta, cosh(a)), s), d)
    i = ops.div(t, d)
    big = ops.greater(ops.abs(a), const(22, a))
    tiny_i = ops.mul(ops.mul(const(4, a), ops.mul(ops.sin(b), ops.cos(b))), exp(ops.mul(const(-2, a), ops.abs(a))))
    r = select(ops.logical_or(ops.is_inf(a), ops.logical_and(big, isfinite(b))), copysign_of_number(one, a), r)
    r = select(ops.equal(a, const(0, a)), a, r)
    i = select(big, tiny_i, i)
    i = select(ops.is_inf(a), copysign_of_number(const(0, a), b), i)
    i = select(ops.equal(b, const(0, b)), b, i)
    return pack(r, i)


def csin(x):
    return _times_minus_i(csinh(_times_i(x)))


def ccos(x):
    return ccosh(_times_i(x))


def ctan(x):
    return _times_minus_i(ctanh(_times_i(x)))


def _sqrt_pair(z, sign):
    """csqrt(1 - z) and csqrt(1 + z) for sign=-1; csqrt(z - 1), csqrt(z + 1) for sign=+1.
    The zero imaginary parts keep their signs: Kahan's branch cuts rely on them."""
    a, b = re(z), im(z)
    one = const(1, a)
    if sign < 0:
        return csqrt(pack(ops.sub(one, a), ops.negate(b))), csqrt(pack(ops.add(one, a), b))
    return csqrt(pack(ops.sub(a, one), b)), csqrt(pack(ops.add(a, one), b))


def casinh(x):
    a, b = re(x), im(x)
    # Kahan: asin(w) = atan(Re w / Re(sqrt(1-w) sqrt(1+w))) + i asinh(Im(conj(sqrt(1-w)) sqrt(1+w))), w = iz
    w = _times_i(x)
    p, q = _sqrt_pair(w, -1)
    pr, pi_, qr, qi = re(p), im(p), re(q), im(q)
    asin_re = atan2(re(w), ops.sub(ops.mul(pr, qr), ops.mul(pi_, qi)))
    asin_im = asinh(ops.sub(ops.mul(pr, qi), ops.mul(pi_, qr)))
    r, i = asin_im, ops.negate(asin_re)  # asinh(z) = -i asin(iz)
    inf_in = _either_inf(a, b)
    r = select(inf_in, copysign_of_number(_inf(a), a), r)
    i = select(inf_in, atan2(b, ops.abs(a)), i)
    i = select(ops.equal(b, const(0, b)), b, i)
    r = select(ops.equal(b, const(0, b)), asinh(a), r)
    return pack(r, i)


def casin(x):
    return _times_minus_i(casinh(_times_i(x)))


def cacos(x):
    a, b = re(x), im(x)
    # Kahan: acos(z) = 2 atan(Re sqrt(1-z) / Re sqrt(1+z)) + i asinh(Im(conj(sqrt(1+z)) sqrt(1-z)))
    p, q = _sqrt_pair(x, -1)
    r = ops.mul(const(2, a), atan2(re(p), re(q)))
    i = asinh(ops.sub(ops.mul(re(q), im(p)), ops.mul(im(q), re(p))))
    inf_in = _either_inf(a, b)
    r = select(inf_in, atan2(ops.abs(b), a), r)
    i = select(inf_in, select(signbit_of_number(b), _inf(a), const(-math.inf, a)), i)
    r = select(ops.equal(a, const(0, a)), _pi(a, 0.5), r)
    return pack(r, i)


def cacosh(x):
    a, b = re(x), im(x)
    # Kahan: acosh(z) = asinh(Re(conj(sqrt(z-1)) sqrt(z+1))) + 2i atan(Im sqrt(z-1) / Re sqrt(z+1))
    p, q = _sqrt_pair(x, 1)
    r = asinh(ops.add(ops.mul(re(p), re(q)), ops.mul(im(p), im(q))))
    i = ops.mul(const(2, a), atan2(im(p), re(q)))
    inf_in = _either_inf(a, b)
    r = select(inf_in, _inf(a), r)
    i = select(inf_in, atan2(b, a), i)
    i = select(ops.logical_and(ops.equal(a, const(0, a)), ops.is_nan(b)), _pi(a, 0.5), i)
    return pack(r, i)


def catanh(x):
    """atanh = (log1p(z) - log1p(-z)) / 2 in closed form; 1/z asymptotics beyond |z| = 1e10."""
    a, b = re(x), im(x)
    one = const(1, a)
    om = ops.sub(one, a)
    near_zero = ops.mul(const(0.25, a), ops.log1p(ops.div(ops.mul(const(4, a), a),
                                                          ops.add(ops.mul(om, om), ops.mul(b, b)))))
    # away from 0, log1p's argument nears -1 where |1 + z| is small: take the logs apart
    apart = ops.mul(const(0.5, a), ops.sub(ops.log(hypot(ops.add(one, a), b)), ops.log(hypot(om, b))))
    r = select(ops.greater(const(0.5, a), ops.abs(a)), near_zero, apart)
    i = ops.mul(const(0.5, a), atan2(ops.mul(const(2, b), b), ops.sub(ops.mul(om, ops.add(one, a)), ops.mul(b, b))))
    h = hypot(a, b)
    big = ops.greater(h, const(1e10, a))
    inf_in = _either_inf(a, b)
    half_pi = copysign_of_number(_pi(a, 0.5), b)
    r = select(big, ops.div(ops.div(a, h), h), r)
    r = select(inf_in, copysign_of_number(const(0, a), a), r)
    r = select(ops.equal(a, const(0, a)), a, r)
    i = select(ops.logical_or(big, inf_in), half_pi, i)
    i = select(ops.is_nan(b), b, i)
    return pack(r, i)


def catan(x):
    return _times_minus_i(catanh(_times_i(x)))


clog = pairwise(F.log)


def csqrt(x):
    r, i = re(x), im(x)
    m = hypot(r, i)
    s = ops.sqrt(ops.mul(ops.add(m, ops.abs(r)), const(0.5, r)))
    zero = ops.equal(s, const(0, s))
    t = select(zero, const(0, s), ops.div(ops.abs(i), ops.mul(s, const(2, s))))
    pos = ops.logical_not(signbit_of_number(r))
    out_r = select(pos, s, t)
    out_i = select(pos, select(zero, i, ops.div(i, ops.mul(s, const(2, s)))), copysign_of_number(s, i))
    out_r = select(ops.is_inf(i), const(math.inf, r), out_r)
    out_i = select(ops.is_inf(i), i, out_i)
    return pack(out_r, out_i)


# the ops whose complex form is their real one on the whole storage (a sum, a negation, a rounding of
# each part); an op whose row names only a formula of the pair is lowered by ``pairwise`` of it
cnegative, cpositive, creal, cimag, cround = ops.negate, identity, re, im, ops.round
clog2, clog10 = clog_base(2), clog_base(10)
cadd, csubtract = ops.add, ops.sub
