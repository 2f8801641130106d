"""The machinery of NumPy's samplers in ``_distributions.py``, over flat float64 parameters: rounds
(compaction into branches, rejection of the proposals a round refuses), log-factorial differences
that do not cancel, and inversion by sequential search."""

from __future__ import annotations

import math

from .. import array_api as _xp
from ..core import dtypes as _dt
from ..core.graph import GRAPH
from ..core.tensor import Tensor
from ..ops.elementwise import astype as _astype
from ..ops.view import reshape as _reshape

_F64, _I64 = _dt.float64, _dt.int64

#: rejection rounds; every sampler here accepts at least ~0.5 of its proposals, so an element is
#: left after them with probability below 2**-64, and takes a valid approximation (its ``fallback``)
_ROUNDS = 64
#: inversion terms; they serve means below 10, where P(X >= 48) < 1e-17 (under float64's resolution)
_TERMS = 48


# --- rounds: compaction, branches, rejection ---------------------------------------------------------
def _gather(params, idx):
    return [_xp.take(p, idx) for p in params]


def _spread(mask, vals) -> Tensor:
    """``vals`` (one per True of ``mask``, in order) laid on the mask's positions: a scatter as a gather."""
    pos = _xp.cumulative_sum(_astype(mask, _I64)) - 1
    return _xp.take(vals, _xp.clip(pos, 0, vals.shape[0] - 1))


def _split(cond, params, yes, no) -> Tensor:
    """``yes(*params)`` where ``cond`` holds and ``no(*params)`` elsewhere, each run on its elements only."""
    k, n = int(_xp.sum(cond)), cond.shape[0]
    if k == n:
        return yes(*params)
    if k == 0:
        return no(*params)
    other = _xp.logical_not(cond)
    a = yes(*_gather(params, _xp.nonzero(cond)[0]))
    b = no(*_gather(params, _xp.nonzero(other)[0]))
    return _xp.where(cond, _spread(cond, a), _spread(other, b))


def _reject(params, propose, fallback) -> Tensor:
    """Rejection in rounds: ``propose(*params)`` gives (values, accepted) for its elements; later rounds
    propose for the rejected elements only. After ``_ROUNDS`` the few left take ``fallback(*params)``."""
    val, ok = propose(*params)
    n = val.shape[0]
    for _ in range(_ROUNDS):
        left = _xp.logical_not(ok)
        count = _xp.sum(left)
        GRAPH.evaluate([val._impl, ok._impl, count._impl])  # one run; the next round builds on its results
        m = int(count)
        if not m:
            return val
        # the rejected elements' positions, padded to a power of two (at least 64) so that the rounds
        # of later calls meet the same shapes and reuse their programs' plans
        size = max(64, 1 << (m - 1).bit_length())
        pos = _xp.cumulative_sum(_astype(left, _I64))
        idx = _xp.minimum(_xp.searchsorted(pos, _xp.arange(1, size + 1, dtype=_xp.int64)), n - 1)
        v, a = propose(*_gather(params, idx))
        at = _xp.clip(pos - 1, 0, size - 1)
        val = _xp.where(left, _xp.take(v, at), val)
        ok = ok | (left & _xp.take(a, at))
    return _xp.where(ok, val, fallback(*params))


# --- log-factorials ------------------------------------------------------------------------------------
def _corr(z):
    """Stirling's series for lgamma(z) less (z - 1/2) log z - z + log(2 pi)/2; error < 1e-14 for z >= 11."""
    r = 1.0 / z
    r2 = r * r
    return r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 * (1 / 1680 - r2 / 1188))))


def _shift_ratio(x, y):
    """(x + 1) ... (x + 10) / ((y + 1) ... (y + 10)): log(x!) = lgamma(x + 11) - log((x + 1) ... (x + 10))
    puts Stirling's series at 11 or more, without a branch for small x."""
    r = (x + 1.0) / (y + 1.0)
    for i in range(2, 11):
        r = r * ((x + float(i)) / (y + float(i)))
    return r


def _lf_diff(x, y):
    """log(x!) - log(y!) for integer-valued x, y >= 0, written so that large x and y near each other
    do not cancel: lgamma(zx) - lgamma(zy) = d log zx + (zy - 1/2) log1p(d / zy) - d + corrections."""
    zx, zy = x + 11.0, y + 11.0
    d = x - y
    lg = d * _xp.log(zx) + (zy - 0.5) * _xp.log1p(d / zy) - d + (_corr(zx) - _corr(zy))
    return lg - _xp.log(_shift_ratio(x, y))


def _terms(mean=None, top=None) -> int:
    """Inversion terms (a read each): at most ``_TERMS``; for means up to ``mean``, to mean + 10 sd + 12,
    where the tail left is below float64's resolution of u; to the support's ``top``."""
    if (mean if mean is not None else top).shape[0] == 0:
        return 1
    t = _TERMS
    if mean is not None:
        lam = float(_xp.max(mean))
        t = min(t, int(lam + 10.0 * math.sqrt(lam)) + 13)
    return t if top is None else min(t, int(_xp.max(top)) + 1)


def _invert(u, first, ratio, terms):
    """Inversion by sequential search: how many of the first ``terms`` cumulative probabilities lie
    below ``u``. ``first``: P(0); ``ratio(j)``: P(j + 1) / P(j). The terms fuse into one pass; for a
    small draw (a loop's scalar ``binomial(n, p)``) they are a table, P(j) a running product and
    the cumulative probabilities its running sum: a few nodes, where the pass was five per term."""
    n = u.shape[0]
    if 1 < terms and n * terms <= _TABLE:
        j = _reshape(_xp.arange(terms - 1, dtype=_F64), (terms - 1, 1))
        c = first + _xp.cumulative_sum(first * _xp.cumulative_prod(ratio(j), axis=0), axis=0)
        return _astype(first < u, _F64) + _xp.sum(_astype(c < u, _F64), axis=0)
    p = c = first
    k = _astype(c < u, _F64)
    for j in range(1, terms):
        p = p * ratio(float(j - 1))
        c = c + p
        k = k + _astype(c < u, _F64)
    return k


#: the most values of a draw's inversion table (``_invert``): draws times terms
_TABLE = 1 << 14
