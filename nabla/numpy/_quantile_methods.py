"""NumPy's quantile methods beyond the five of ``linear``'s position (Hyndman and Fan, "Sample
quantiles in statistical packages", The American Statistician 50(4), 1996: types 1-9): where each
puts quantile ``q`` of ``n`` sorted values, as a position to pick or two neighbours and a weight.
The positions are host arithmetic in float64 (``q`` a host scalar) or ops over a count per row
(``nanquantile``: each row's count of numbers)."""

from __future__ import annotations

import math

from .. import array_api as _xp
from ..core import dtypes as _dt
from ..ops.elementwise import astype as _astype, where as _where

#: the continuous methods (types 4-9 but 7, ``linear``): (alpha, beta) of the virtual position
#: ``n q + alpha + q (1 - alpha - beta) - 1``, interpolated between its neighbours
CONTINUOUS = {"interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5), "weibull": (0.0, 0.0),
              "median_unbiased": (1 / 3, 1 / 3), "normal_unbiased": (3 / 8, 3 / 8)}
#: the methods that pick one element (types 1 and 3): the data's dtype, as NumPy's
PICKED = frozenset(("inverted_cdf", "closest_observation"))
METHODS = frozenset(CONTINUOUS) | PICKED | {"averaged_inverted_cdf"}


def host_position(method: str, n: int, q: float) -> tuple:
    """``(lo, hi, t)`` of ``method`` for ``n`` values and a host ``q``: the value is ``lo``'s where
    ``t`` is None, else NumPy's lerp of ``lo``'s and ``hi``'s with weight ``t`` (indices in range)."""
    nq = n * q
    if method in PICKED:
        v = nq - 0.5 if method == "closest_observation" else nq
        j = math.floor(v)
        whole = v == j and (method == "inverted_cdf" or j % 2 == 0)  # (type 3: to the even order statistic)
        i = min(max(j - 1 if whole else j, 0), n - 1)
        return i, i, None
    if method == "averaged_inverted_cdf":  # (type 2: the two neighbours' mean at a jump, else the next)
        v = nq - 1
        t = 0.5 if v == math.floor(v) else 1.0
    else:
        alpha, beta = CONTINUOUS[method]
        v = nq + alpha + q * (1 - alpha - beta) - 1
        t = v - math.floor(v)
    if v < 0:
        return 0, 0, t
    if v >= n - 1:
        return n - 1, n - 1, t
    lo = math.floor(v)
    return lo, lo + 1, t


def row_positions(method: str, counts, q: float) -> tuple:
    """``host_position`` per row of ``counts`` (int64, each row's count of values): ``(lo, hi, t)``
    as arrays (``t`` None for a picking method)."""
    n = _astype(counts, _dt.float64)
    nq = n * q
    last = _xp.clip(counts - 1, 0, None)
    if method in PICKED:
        v = nq - 0.5 if method == "closest_observation" else nq
        j = _xp.floor(v)
        whole = v == j
        if method == "closest_observation":
            whole = _xp.logical_and(whole, _astype(j, _dt.int64) % 2 == 0)
        i = _xp.clip(_astype(_where(whole, j - 1, j), _dt.int64), 0, None)
        i = _xp.minimum(i, last)
        return i, i, None
    if method == "averaged_inverted_cdf":
        v = nq - 1
        t = _where(v == _xp.floor(v), 0.5, 1.0)
    else:
        alpha, beta = CONTINUOUS[method]
        v = nq + (alpha + q * (1 - alpha - beta) - 1)
        t = v - _xp.floor(v)
    lo = _xp.minimum(_xp.clip(_astype(_xp.floor(v), _dt.int64), 0, None), last)
    hi = _where(v < 0, lo, _xp.minimum(lo + 1, last))
    return lo, hi, t
