"""NumPy's rules for a histogram's number of bins by name (``bins="auto"``, ``"fd"``, ...): a bin
width from the data's spread (its range, standard deviation, interquartile range, skewness) and
count, read once on the host, then as many equal bins as cover the range. The widths are the
published rules: Sturges (1926), Scott (1979), Freedman and Diaconis (1981), Doane (1976), the
square root and Rice rules; ``auto`` is the smaller of Freedman-Diaconis' width (at least half the
square root rule's) and Sturges'."""

from __future__ import annotations

import math

import numpy as _np

from .. import array_api as _xp
from ..core import dtypes as _dt
from ..ops.elementwise import astype as _astype
from . import _reductions as R


def _spread(x) -> float:
    return float(_xp.max(x)) - float(_xp.min(x))


def _sturges(x, n):
    return _spread(x) / (math.log2(n) + 1.0)


def _fd(x, n):
    q75, q25 = (float(v) for v in R.percentile(x, [75, 25]))
    return 2.0 * (q75 - q25) * n ** (-1.0 / 3.0)


def _doane(x, n):
    if n <= 2:
        return 0.0
    sigma = float(_xp.std(x))
    if not sigma > 0.0:
        return 0.0
    skew = float(_xp.mean(((x - _xp.mean(x)) / sigma) ** 3))
    sg1 = math.sqrt(6.0 * (n - 2) / ((n + 1.0) * (n + 3)))
    return _spread(x) / (1.0 + math.log2(n) + math.log2(1.0 + abs(skew) / sg1))


def _auto(x, n):
    # (NumPy 2's: Freedman-Diaconis' width kept at least half the square root rule's, so that a
    # narrow interquartile range does not make a great many bins; then at most Sturges')
    return min(max(_fd(x, n), _spread(x) / math.sqrt(n) / 2.0), _sturges(x, n))


#: the width each rule gives for ``n`` values ``x`` (float64)
WIDTHS = {
    "sqrt": lambda x, n: _spread(x) / math.sqrt(n),
    "sturges": _sturges,
    "rice": lambda x, n: _spread(x) / (2.0 * n ** (1.0 / 3.0)),
    "scott": lambda x, n: (24.0 * math.pi ** 0.5 / n) ** (1.0 / 3.0) * float(_xp.std(x)),
    "fd": _fd,
    "doane": _doane,
    "auto": _auto,
}


def bin_count(x, rule: str, range, weights, op: str) -> int:
    """The number of equal bins NumPy's ``rule`` gives 1-D data ``x`` over ``range`` (None: its min
    and max)."""
    if rule not in WIDTHS:
        if rule == "stone":
            raise NotImplementedError(f"nabla.numpy.{op}: the 'stone' bin rule (a search over histograms) is not "
                                      f"supported; give a number of bins or another rule")
        raise ValueError(f"{rule!r} is not a valid estimator for `bins`")
    if weights is not None:
        raise TypeError("Automated estimation of the number of bins is not supported for weighted data")
    xf = _astype(x, _dt.float64)
    if range is not None:
        lo, hi = float(range[0]), float(range[1])
        keep = _xp.logical_and(xf >= lo, xf <= hi)
        if not bool(_xp.all(keep)):
            xf = xf[keep]
    elif x.shape[0]:
        lo, hi = float(_xp.min(xf)), float(_xp.max(xf))
    n = xf.shape[0]
    if not n:
        return 1
    if range is None and lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    width = WIDTHS[rule](xf, n)
    if not width:
        return 1
    if x.dtype.is_integer and width < 1:
        width = 1.0
    return int(_np.ceil((hi - lo) / width))
