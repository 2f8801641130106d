"""NumPy's ``Generator`` distributions beyond the basic ones, sampled on MAX from Nabla's Philox stream.

``Distributions`` is a mixin of ``random.Generator``. Each method checks its parameters at the call
(NumPy's ValueError messages: a host test of a Python scalar, one read of an array), broadcasts them
to the output's shape and samples on flat arrays with Nabla's ops, drawing with ``_uniform`` and
``_normal`` (each draw advances the counter). Rejection methods run in rounds: the first proposes
for every element, each later one only for the elements still rejected (found by a search of the
mask's running count, put back by a gather on it), with the count read between rounds.
Discrete results are int64 and continuous ones float64, as NumPy's; integer parameters (``n``,
``ngood``...) are exact up to 2**53.
"""

from __future__ import annotations

import math
import operator
import warnings

import numpy as _np

from .. import array_api as _xp
from ..core import dtypes as _dt
from ..core.graph import GRAPH
from ..core.tensor import Tensor
from ..ops.elementwise import astype as _astype
from ..ops.view import reshape as _reshape
from . import _dtypes as D
from ._sampling import _TERMS, _corr, _invert, _lf_diff, _reject, _split, _terms

_F64, _I64 = _dt.float64, _dt.int64
_LAM_MAX = 9.223372006484771e18  # NumPy's largest Poisson mean: int64's max less ten of its square roots
_INT_MAX = 9.223372036854775e18
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
# Stadlober's (1989) ratio-of-uniforms hat: width D1 * sqrt(var + 1/2) + D2 about mean + 1/2
_ROU_D1, _ROU_D2 = 2 * math.sqrt(2 / math.e), 3 - 2 * math.sqrt(3 / math.e)


def _shape(size) -> tuple:
    if size is None:
        return ()
    return (operator.index(size),) if not isinstance(size, (tuple, list)) else tuple(operator.index(s) for s in size)


def _flat(p, shape) -> Tensor:
    """A parameter broadcast to the output's shape, flattened (every sampler works on flat arrays)."""
    n = math.prod(shape)
    if not isinstance(p, Tensor):
        return _xp.full((n,), float(p), dtype=_xp.float64)
    return _reshape(_xp.broadcast_to(p if p.dtype == _F64 else _astype(p, _F64), shape), (n,))


def _realized(flats) -> list:
    """Flat parameters realized as arrays of the output's size (``+ 0.0`` makes them computed, not a
    view of a fill): work on a broadcast scalar is computed at one element and fed to the later
    programs as computed one-element inputs, of which a program takes only a few."""
    flats = [f + 0.0 for f in flats]
    GRAPH.evaluate([f._impl for f in flats])
    return flats


def _ints(x, shape) -> Tensor:
    return _reshape(_astype(x, _I64), shape)


def _bad(op, p, test, msg):
    """NumPy's ValueError where ``test`` holds for parameter ``p``; ``{nan}`` in ``msg`` reads as
    NumPy words it: 'is NaN' for a scalar, 'contains NaNs' for an array."""
    if isinstance(p, Tensor):
        hit, scalar = p.size and bool(_xp.any(test(p))), p.ndim == 0
    else:
        hit, scalar = bool(test(_np.float64(p))), True
    if hit:
        raise ValueError(f"nabla.numpy.random.{op}: " + msg.format(nan="is NaN" if scalar else "contains NaNs"))


def _open(gen, n) -> Tensor:
    """Uniforms on (0, 1], whose logs are finite."""
    return 1.0 - gen._uniform((n,))


# --- flat samplers (float64 in, float64 out) -------------------------------------------------------------
def _rou_step(gen, a, h, hi, mode_diff):
    """One proposal of Stadlober's (1989) ratio-of-uniforms on support [0, hi]: X = a + h (V - 1/2) / U,
    kept where U**2 <= P(floor X) / P(mode), ``mode_diff(k)`` being log P(k) - log P(mode)."""
    n = a.shape[0]
    u, v = _open(gen, n), gen._uniform((n,))
    x = a + h * (v - 0.5) / u
    k = _xp.floor(x)
    kk = _xp.clip(k, 0.0, hi)
    return kk, (x >= 0) & (k <= hi) & (2.0 * _xp.log(u) <= mode_diff(kk))


def _mt_step(gen, s):
    """Marsaglia and Tsang (2000): a cubed normal, accepted on a log test; shape s >= 1."""
    n = s.shape[0]
    d = s - 1.0 / 3.0
    x, u = gen._normal((n,)), _open(gen, n)
    v = 1.0 + x / _xp.sqrt(9.0 * d)
    v3 = v * v * v
    ok = (v > 0) & (_xp.log(u) < 0.5 * x * x + d - d * v3 + d * _xp.log(v3))
    return d * v3, ok | (s != s)


def _gamma_parts(gen, a):
    """Gamma(a) as g * exp(t): g ~ Gamma(max(a, a + 1 if a < 1)), t = log(U) / a for a < 1 (Marsaglia
    and Tsang's boost), else 0. Kept apart so that logs of tiny-shape draws do not underflow."""
    small = a < 1
    g = _reject([_xp.where(small, a + 1.0, a)], lambda s: _mt_step(gen, s), lambda s: s)
    t = _xp.where(small, _xp.where(a > 0, _xp.log(_open(gen, a.shape[0])) / a, -_xp.inf), 0.0)
    return g, t


def _gamma(gen, a):
    g, t = _gamma_parts(gen, a)
    return g * _xp.exp(t)


def _log_gamma(gen, a):
    g, t = _gamma_parts(gen, a)
    return _xp.log(g) + t


def _ptrs_step(gen, lam):
    """Hormann's (1993) PTRS, transformed rejection with squeeze, for lam >= 10."""
    n = lam.shape[0]
    u, v = gen._uniform((n,)) - 0.5, gen._uniform((n,))
    b = 0.931 + 2.53 * _xp.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2.0)
    us = 0.5 - _xp.abs(u)
    k = _xp.floor((2.0 * a / us + b) * u + lam + 0.43)
    quick = (us >= 0.07) & (v <= vr)
    out = (k < 0) | ((us < 0.013) & (v > us))
    kk = _xp.maximum(k, 0.0)
    lhs = _xp.log(v * inv_alpha / (a / (us * us) + b))
    return kk, quick | (_xp.logical_not(out) & (lhs <= _poisson_logpmf(kk, lam)))


def _poisson_logpmf(k, lam):
    """log(lam**k exp(-lam) / k!) through lgamma(k + 11) (see ``_shift_ratio``), with log(z / lam) as
    log1p((z - lam) / lam) so that k near a large lam does not cancel."""
    z = k + 11.0
    t = (z - lam) / lam
    r = (k + 1.0) / lam
    for i in range(2, 11):
        r = r * ((k + float(i)) / lam)
    return -0.5 * _xp.log(lam) - (z - 0.5) * _xp.log1p(t) + lam * t - _HALF_LOG_2PI - _corr(z) + _xp.log(r)


def _poisson(gen, lam):
    def invert(m):
        return _invert(gen._uniform(m.shape), _xp.exp(-m), lambda j: m / (j + 1.0), _terms(m))

    def ptrs(m):
        return _reject([m], lambda x: _ptrs_step(gen, x), _xp.floor)

    return _split(lam < 10, [lam], invert, ptrs)


def _binomial(gen, n, p):
    """Inversion where n min(p, 1-p) < 10, Stadlober's ratio-of-uniforms above; p > 1/2 by symmetry."""
    flip = p > 0.5
    q = _xp.where(flip, 1.0 - p, p)

    def invert(n, q):
        r = q / (1.0 - q)
        k = _invert(gen._uniform(n.shape), _xp.exp(n * _xp.log1p(-q)), lambda j: (n - j) / (j + 1.0) * r,
                    _terms(n * q, n))
        return _xp.minimum(k, n)

    def rou(n, q):
        m = _xp.floor((n + 1.0) * q)
        h = _ROU_D1 * _xp.sqrt(n * q * (1.0 - q) + 0.5) + _ROU_D2
        return _reject([n, q, m, h], lambda n, q, m, h: _rou_step(gen, n * q + 0.5, h, n, lambda k: _lf_diff(
            m, k) + _lf_diff(n - m, n - k) + (k - m) * (_xp.log(q) - _xp.log1p(-q))), lambda n, q, m, h: m)

    k = _split(n * q < 10, [n, q], invert, rou)
    return _xp.where(flip, n - k, k)


def _hypergeometric(gen, g, b, s):
    """Reduced by symmetry to s <= N/2 and g <= b (support 0..min(g, s)); exact inversion where
    min(g, s) < 48, Stadlober's (1989) ratio-of-uniforms above."""
    total = g + b
    flip = s > total / 2
    s1 = _xp.where(flip, total - s, s)
    swap = g > b
    g1, b1 = _xp.where(swap, b, g), _xp.where(swap, g, b)

    def invert(g, b, s):
        first = _xp.exp(_lf_diff(b, b - s) - _lf_diff(g + b, g + b - s))
        k = _invert(gen._uniform(g.shape), first, lambda j: (g - j) * (s - j) / ((j + 1.0) * (b - s + j + 1.0)),
                    _terms(top=_xp.minimum(g, s)))
        return _xp.minimum(k, _xp.minimum(g, s))

    def rou(g, b, s):
        total = g + b
        m = _xp.floor((s + 1.0) * (g + 1.0) / (total + 2.0))
        var = s * g * b * (total - s) / (total * total * (total - 1.0))
        h = _ROU_D1 * _xp.sqrt(var + 0.5) + _ROU_D2
        return _reject([g, b, s, m, h], lambda g, b, s, m, h: _rou_step(
            gen, s * g / (g + b) + 0.5, h, _xp.minimum(g, s), lambda k: _lf_diff(m, k) + _lf_diff(g - m, g - k)
            + _lf_diff(s - m, s - k) + _lf_diff(b - s + m, b - s + k)), lambda g, b, s, m, h: m)

    k = _split(_xp.minimum(g1, s1) < _TERMS, [g1, b1, s1], invert, rou)
    k = _xp.where(swap, s1 - k, k)
    return _xp.where(flip, g - k, k)


def _zipf_step(gen, a):
    """Devroye's (1986) rejection for Zipf: X = floor(U**(-1/(a-1))) against the bound 2**(a-1). U is drawn
    where X stays below 2**63 (NumPy rejects the rest), so heavy tails (a near 1) do not stall."""
    n = a.shape[0]
    am1 = a - 1.0
    lo = _xp.exp(-am1 * (63 * math.log(2)))
    u, v = 1.0 - gen._uniform((n,)) * (1.0 - lo), gen._uniform((n,))
    x = _xp.minimum(_xp.floor(u ** (-1.0 / am1)), _INT_MAX)
    # V X (T - 1) / (b - 1) <= T / b, with T = (1 + 1/X)**(a-1) and b = 2**(a-1), divided through by T / b
    ok = v * x * -_xp.expm1(-am1 * _xp.log1p(1.0 / x)) <= -_xp.expm1(-am1 * math.log(2))
    return x, ok | (a != a)


def _vonmises_step(gen, kappa, s):
    """Best and Fisher (1979): a wrapped-Cauchy envelope; returns cos(angle) and the acceptance."""
    n = kappa.shape[0]
    u, v = gen._uniform((n,)), _open(gen, n)
    z = _xp.cos(math.pi * u)
    w = (1.0 + s * z) / (s + z)
    y = kappa * (s - w)
    return w, (y * (2.0 - y) - v > 0) | (_xp.log(y / v) + 1.0 - y >= 0) | (kappa != kappa)


def _sigmoid(d):
    e = _xp.exp(-_xp.abs(d))
    return _xp.where(d >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


class Distributions:
    """NumPy's ``Generator`` distributions (mixed into ``nabla.numpy.random.Generator``)."""

    def _flats(self, size, *params, op, checks=()):
        """Output shape, the parameters (NumPy's checks applied: (index, test, message)) and their flats."""
        shape, ps = self._params(size, *params, op=op)
        for i, test, msg in checks:
            _bad(op, ps[i], test, msg)
        return shape, ps, _realized([_flat(p, shape) for p in ps])

    # --- discrete ------------------------------------------------------------------------------------------
    def poisson(self, lam=1.0, size=None):
        shape, _, (lam,) = self._flats(size, lam, op="poisson", checks=[
            (0, lambda x: (x < 0) | (x != x), "lam < 0 or lam {nan}"),
            (0, lambda x: x > _LAM_MAX, "lam value too large")])
        return _ints(_poisson(self, lam), shape)

    def binomial(self, n, p, size=None):
        shape, _, (n, p) = self._flats(size, n, p, op="binomial", checks=[
            (0, lambda x: x != x, "cannot convert float NaN to integer"), (0, lambda x: x < 0, "n < 0"),
            (1, lambda x: (x < 0) | (x > 1) | (x != x), "p < 0, p > 1 or p {nan}")])
        return _ints(_binomial(self, _xp.trunc(n), p), shape)

    def geometric(self, p, size=None):
        """Inversion: ceil(log U / log(1 - p))."""
        shape, _, (p,) = self._flats(size, p, op="geometric", checks=[
            (0, lambda x: (x <= 0) | (x > 1) | (x != x), "p <= 0, p > 1 or p contains NaNs")])
        k = _xp.ceil(_xp.log(_open(self, p.shape[0])) / _xp.log1p(-p))
        return _ints(_xp.clip(k, 1.0, _INT_MAX), shape)

    def negative_binomial(self, n, p, size=None):
        """A Poisson of a gamma mean: Poisson(Gamma(n, (1 - p) / p))."""
        shape, _, (n, p) = self._flats(size, n, p, op="negative_binomial", checks=[
            (0, lambda x: x != x, "n must not be NaN"), (0, lambda x: x <= 0, "n <= 0"),
            (1, lambda x: (x <= 0) | (x > 1) | (x != x), "p <= 0, p > 1 or p contains NaNs")])
        big = (1.0 - p) / p * (n + 10.0 * _xp.sqrt(n))  # the gamma's mean plus ten deviations
        if p.shape[0] and bool(_xp.any(big > _LAM_MAX)):
            raise ValueError("nabla.numpy.random.negative_binomial: n too large or p too small, see "
                             "Generator.negative_binomial Notes")
        return _ints(_poisson(self, _xp.minimum(_gamma(self, n) * ((1.0 - p) / p), _LAM_MAX)), shape)

    def hypergeometric(self, ngood, nbad, nsample, size=None):
        shape, ps, (g, b, s) = self._flats(size, ngood, nbad, nsample, op="hypergeometric")
        g0, b0, s0 = (_xp.trunc(p) if isinstance(p, Tensor) else math.trunc(p) for p in ps)
        big = "both ngood and nbad must be less than 1000000000"
        for p, test, msg in ((g0 + b0 - s0, lambda x: x < 0, "ngood + nbad < nsample"),
                             (g0, lambda x: x < 0, "ngood < 0"), (b0, lambda x: x < 0, "nbad < 0"),
                             (s0, lambda x: x < 0, "nsample < 0"), (g0, lambda x: x >= 1e9, big),
                             (b0, lambda x: x >= 1e9, big)):
            _bad("hypergeometric", p, test, msg)
        return _ints(_hypergeometric(self, _xp.trunc(g), _xp.trunc(b), _xp.trunc(s)), shape)

    def logseries(self, p, size=None):
        """Kemp's (1981) second algorithm: a geometric count with a random parameter 1 - (1 - p)**U."""
        shape, _, (p,) = self._flats(size, p, op="logseries", checks=[
            (0, lambda x: (x < 0) | (x >= 1) | (x != x), "p < 0, p >= 1 or p {nan}")])
        v, u = _open(self, p.shape[0]), self._uniform(p.shape)
        q = -_xp.expm1(_xp.log1p(-p) * u)
        k = _xp.minimum(_xp.floor(1.0 + _xp.log(v) / _xp.log(q)), _INT_MAX)
        return _ints(_xp.where((v >= p) | (v > q), 1.0, _xp.where(v > q * q, 2.0, k)), shape)

    def zipf(self, a, size=None):
        shape, _, (a,) = self._flats(size, a, op="zipf", checks=[
            (0, lambda x: (x <= 1) | (x != x), "a <= 1 or a {nan}")])
        return _ints(_reject([a], lambda a: _zipf_step(self, a), lambda a: _xp.ones_like(a)), shape)

    def multinomial(self, n, pvals, size=None):
        """Sequential conditional binomials: count j ~ Binomial(n left, p_j / probability left)."""
        pv = D.asarray(pvals, _np.float64, "random.multinomial")
        if pv.ndim == 0 or pv.shape[-1] == 0:
            raise ValueError("nabla.numpy.random.multinomial: pvals must have at least 1 dimension and the last "
                             "dimension of pvals must be greater than 0.")
        n = n if D.is_scalar(n) else D.asarray(n, _np.float64, "random.multinomial")
        _bad("multinomial", n, lambda x: x < 0, "n < 0")
        _bad("multinomial", pv, lambda x: (x < 0) | (x > 1) | (x != x), "pvals < 0, pvals > 1 or pvals contains NaNs")
        _bad("multinomial", _xp.sum(pv[..., :-1], axis=-1), lambda x: x > 1.0 + 1e-12, "sum(pvals[:-1]) > 1.0")
        k = pv.shape[-1]
        batch = _shape(size) if size is not None else \
            _xp.broadcast_shapes(() if D.is_scalar(n) else n.shape, pv.shape[:-1])
        left, *cols = _realized([_flat(n, batch)] + [_flat(pv[..., j], batch) for j in range(k - 1)])
        left, mass, counts = _xp.trunc(left), _xp.ones_like(left), []
        for pj in cols:
            prob = _xp.clip(_xp.where(mass > 0, pj / _xp.maximum(mass, 1e-300), 0.0), 0.0, 1.0)
            x = _binomial(self, left, prob)
            counts.append(x)
            left, mass = left - x, mass - pj
        counts.append(left)
        return _ints(_xp.stack(counts, axis=-1), batch + (k,))

    # --- continuous ------------------------------------------------------------------------------------------
    def standard_gamma(self, shape, size=None, dtype=_np.float64, out=None):
        """Marsaglia and Tsang (2000); shape < 1 as Gamma(shape + 1) * U**(1/shape)."""
        dt = D.to_nabla(dtype, "random.standard_gamma")
        if dt not in (_dt.float32, _dt.float64):
            raise TypeError(f"nabla.numpy.random.standard_gamma: dtype must be float32 or float64, got {dt.name}")
        out_shape, _, (a,) = self._flats(out.shape if out is not None and size is None else size, shape,
                                         op="standard_gamma", checks=[(0, lambda x: x < 0, "shape < 0")])
        return self._finish(_astype(_reshape(_gamma(self, a), out_shape), dt), out)

    def gamma(self, shape, scale=1.0, size=None):
        out_shape, _, (a, s) = self._flats(size, shape, scale, op="gamma", checks=[
            (0, lambda x: x < 0, "shape < 0"), (1, lambda x: x < 0, "scale < 0")])
        return _reshape(_gamma(self, a) * s, out_shape)

    def beta(self, a, b, size=None):
        """Two gammas in log space: X / (X + Y) = sigmoid(log X - log Y), so tiny shapes give no 0/0."""
        shape, _, (a, b) = self._flats(size, a, b, op="beta", checks=[
            (0, lambda x: x <= 0, "a <= 0"), (1, lambda x: x <= 0, "b <= 0")])
        return _reshape(_sigmoid(_log_gamma(self, a) - _log_gamma(self, b)), shape)

    def chisquare(self, df, size=None):
        shape, _, (df,) = self._flats(size, df, op="chisquare", checks=[(0, lambda x: x <= 0, "df <= 0")])
        return _reshape(2.0 * _gamma(self, 0.5 * df), shape)

    def standard_t(self, df, size=None):
        """Z / sqrt(chi2(df) / df)."""
        shape, _, (df,) = self._flats(size, df, op="standard_t", checks=[(0, lambda x: x <= 0, "df <= 0")])
        z = self._normal(df.shape)
        return _reshape(z * _xp.sqrt(df / (2.0 * _gamma(self, 0.5 * df))), shape)

    def f(self, dfnum, dfden, size=None):
        shape, _, (d1, d2) = self._flats(size, dfnum, dfden, op="f", checks=[
            (0, lambda x: x <= 0, "dfnum <= 0"), (1, lambda x: x <= 0, "dfden <= 0")])
        return _reshape(_gamma(self, 0.5 * d1) * d2 / (_gamma(self, 0.5 * d2) * d1), shape)

    def noncentral_chisquare(self, df, nonc, size=None):
        """A Poisson mixture of central ones: chi2(df + 2 J), J ~ Poisson(nonc / 2)."""
        shape, _, (df, nc) = self._flats(size, df, nonc, op="noncentral_chisquare", checks=[
            (0, lambda x: x <= 0, "df <= 0"), (1, lambda x: x < 0, "nonc < 0")])
        return _reshape(self._ncx2(df, nc), shape)

    def _ncx2(self, df, nc):
        j = _poisson(self, _xp.where(nc == nc, _xp.minimum(0.5 * nc, _LAM_MAX), 0.0))
        return _xp.where(nc == nc, 2.0 * _gamma(self, 0.5 * df + j), _xp.nan)

    def noncentral_f(self, dfnum, dfden, nonc, size=None):
        shape, _, (d1, d2, nc) = self._flats(size, dfnum, dfden, nonc, op="noncentral_f", checks=[
            (0, lambda x: x <= 0, "dfnum <= 0"), (1, lambda x: x <= 0, "dfden <= 0"), (2, lambda x: x < 0, "nonc < 0")])
        return _reshape(self._ncx2(d1, nc) * d2 / (2.0 * _gamma(self, 0.5 * d2) * d1), shape)

    def standard_cauchy(self, size=None):
        shape = _shape(size)
        return _xp.tan(math.pi * (self._uniform(shape) - 0.5))

    def pareto(self, a, size=None):
        """NumPy's Pareto II (Lomax): exp(E / a) - 1."""
        shape, _, (a,) = self._flats(size, a, op="pareto", checks=[(0, lambda x: x <= 0, "a <= 0")])
        return _reshape(_xp.expm1(-_xp.log(_open(self, a.shape[0])) / a), shape)

    def power(self, a, size=None):
        shape, _, (a,) = self._flats(size, a, op="power", checks=[(0, lambda x: x <= 0, "a <= 0")])
        return _reshape(_open(self, a.shape[0]) ** (1.0 / a), shape)

    def rayleigh(self, scale=1.0, size=None):
        shape, _, (s,) = self._flats(size, scale, op="rayleigh", checks=[(0, lambda x: x < 0, "scale < 0")])
        return _reshape(s * _xp.sqrt(-2.0 * _xp.log(_open(self, s.shape[0]))), shape)

    def weibull(self, a, size=None):
        shape, _, (a,) = self._flats(size, a, op="weibull", checks=[(0, lambda x: x < 0, "a < 0")])
        e = -_xp.log(_open(self, a.shape[0]))
        return _reshape(_xp.where(a == 0, 0.0, e ** (1.0 / _xp.where(a == 0, 1.0, a))), shape)

    def triangular(self, left, mode, right, size=None):
        """Inversion of the piecewise-quadratic CDF."""
        shape, ps, (lo, mo, hi) = self._flats(size, left, mode, right, op="triangular")
        _bad("triangular", ps[0] - ps[1], lambda x: x > 0, "left > mode")
        _bad("triangular", ps[1] - ps[2], lambda x: x > 0, "mode > right")
        _bad("triangular", ps[0] - ps[2], lambda x: x == 0, "left == right")
        u, w = self._uniform(lo.shape), hi - lo
        r = _xp.where(u <= (mo - lo) / w, lo + _xp.sqrt(u * w * (mo - lo)), hi - _xp.sqrt((1.0 - u) * w * (hi - mo)))
        return _reshape(r, shape)

    def wald(self, mean, scale, size=None):
        """Michael, Schucany and Haas (1976), the smaller root written without cancellation."""
        shape, _, (mu, lam) = self._flats(size, mean, scale, op="wald", checks=[
            (0, lambda x: x <= 0, "mean <= 0"), (1, lambda x: x <= 0, "scale <= 0")])
        z, u = self._normal(mu.shape), self._uniform(mu.shape)
        root = mu * _xp.abs(z) + _xp.sqrt(mu * mu * z * z + 4.0 * mu * lam)
        x = 4.0 * mu * mu * lam / (root * root)
        return _reshape(_xp.where(u * (mu + x) <= mu, x, mu * mu / x), shape)

    def vonmises(self, mu, kappa, size=None):
        """Best and Fisher (1979); kappa < 1e-8 uniform and kappa > 1e6 a wrapped normal, as NumPy's."""
        shape, _, (mu, k) = self._flats(size, mu, kappa, op="vonmises", checks=[(1, lambda x: x < 0, "kappa < 0")])
        kc = _xp.clip(k, 1e-8, 1e6)
        tau = 1.0 + _xp.sqrt(1.0 + 4.0 * kc * kc)
        rho = 2.0 * kc / (tau + _xp.sqrt(2.0 * tau))  # (tau - sqrt(2 tau)) / (2 kappa), without cancelling
        s = (1.0 + rho * rho) / (2.0 * rho)
        w = _reject([kc, s], lambda k, s: _vonmises_step(self, k, s), lambda k, s: _xp.ones_like(k))
        n = k.shape[0]
        angle = _xp.where(self._uniform((n,)) < 0.5, -1.0, 1.0) * _xp.acos(_xp.clip(w, -1.0, 1.0))
        angle = _xp.where(k < 1e-8, math.pi * (2.0 * self._uniform((n,)) - 1.0), angle)
        angle = _xp.where(k > 1e6, self._normal((n,)) / _xp.sqrt(k), angle)
        return _reshape(_xp.remainder(mu + angle + math.pi, 2 * math.pi) - math.pi, shape)

    def dirichlet(self, alpha, size=None):
        """Normalized gammas, normalized in log space (small alphas underflow no sum to 0)."""
        al = D.asarray(alpha, _np.float64, "random.dirichlet")
        if al.ndim != 1:
            raise ValueError("nabla.numpy.random.dirichlet: alpha must be a 1-dimensional array")
        _bad("dirichlet", al, lambda x: x < 0, "alpha < 0")
        shape = _shape(size) + al.shape
        lg = _reshape(_log_gamma(self, _realized([_flat(al, shape)])[0]), shape)
        top = _xp.max(lg, axis=-1, keepdims=True)
        lse = top + _xp.log(_xp.sum(_xp.exp(lg - top), axis=-1, keepdims=True))
        return _xp.exp(lg - lse)

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8, *, method="svd"):
        """mean + Z A^T with cov = A A^T: A = U sqrt(S) (svd), V sqrt(|w|) (eigh) or the Cholesky factor."""
        from . import linalg as _la  # (lazy: the face's linalg imports random, which imports this module)

        op = "nabla.numpy.random.multivariate_normal"
        if method not in ("svd", "eigh", "cholesky"):
            raise ValueError(f"{op}: method must be one of {{'eigh', 'svd', 'cholesky'}}")
        mu, c = D.asarray(mean, _np.float64, op), D.asarray(cov, _np.float64, op)
        if mu.ndim != 1:
            raise ValueError(f"{op}: mean must be 1 dimensional")
        if c.ndim != 2 or c.shape[0] != c.shape[1]:
            raise ValueError(f"{op}: cov must be 2 dimensional and square")
        if mu.shape[0] != c.shape[0]:
            raise ValueError(f"{op}: mean and cov must have same length")
        if method == "cholesky":
            factor, psd = _la.cholesky(c), True
            if bool(_xp.any(_xp.isnan(factor))):  # (Nabla's factor of an indefinite matrix holds NaNs)
                raise _la.LinAlgError(f"{op}: Matrix is not positive definite")
        else:
            if check_valid not in ("warn", "raise", "ignore"):
                raise ValueError(f"{op}: check_valid must equal 'warn', 'raise', or 'ignore'")
            if method == "eigh":
                w, v = _la.eigh(c)
                factor = v * _xp.sqrt(_xp.abs(w))
                psd = check_valid == "ignore" or not bool(_xp.any(w < -tol))
            else:
                u, s, vh = _la.svd(c)
                factor = u * _xp.sqrt(s)
                back = _xp.matrix_transpose(vh) * s @ vh
                psd = check_valid == "ignore" or bool(_xp.all(_xp.abs(back - c) <= tol + tol * _xp.abs(c)))
        if not psd:
            if check_valid == "raise":
                raise ValueError(f"{op}: covariance is not symmetric positive-semidefinite.")
            warnings.warn("covariance is not symmetric positive-semidefinite.", RuntimeWarning, stacklevel=2)
        z = self._normal(_shape(size) + mu.shape)
        return mu + z @ _xp.matrix_transpose(factor)

    def permuted(self, x, *, axis=None, out=None):
        """Each slice along ``axis`` shuffled independently (the whole array when axis is None): an
        argsort of uniform keys."""
        arr = D.asarray(x, op="random.permuted")
        if out is not None and tuple(out.shape) != tuple(arr.shape):
            raise ValueError("nabla.numpy.random.permuted: out must have the same shape as x")
        if axis is None:
            r = _reshape(self.permutation(_reshape(arr, (-1,))), arr.shape)
        else:
            ax = operator.index(axis)
            if not -arr.ndim <= ax < arr.ndim:
                raise _np.exceptions.AxisError(ax, arr.ndim)
            r = _xp.take_along_axis(arr, _xp.argsort(self._uniform(arr.shape), axis=ax), axis=ax)
        return self._finish(r, out)
