"""Multi-dimensional histograms as NumPy computes them: ``histogramdd``, ``histogram2d`` and
``histogram_bin_edges``. Bin numbers come from ``searchsorted`` on MAX and the counts from one
scatter-add over the flattened bins (an outlier bin at each end of every axis, dropped at the end).
An automatic range reads the data's minimum and maximum back (they decide the edges)."""

from __future__ import annotations

import builtins
import math
import operator

import numpy as _np

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops.elementwise import astype as _astype
from ..ops.index_primitives import scatter_add_op
from . import _dtypes as D
from ._math import histogram

_F64, _I64 = _dt.float64, _dt.int64


def _outer_edges(col: Tensor, rng):
    if rng is not None:
        lo, hi = rng
        if lo > hi:
            raise ValueError("max must be larger than min in range parameter.")
        if not (_np.isfinite(lo) and _np.isfinite(hi)):
            raise ValueError(f"supplied range of [{lo}, {hi}] is not finite")
    elif col.shape[0] == 0:
        lo, hi = 0, 1
    else:
        lo, hi = float(_xp.min(col)), float(_xp.max(col))
        if not (_np.isfinite(lo) and _np.isfinite(hi)):
            raise ValueError(f"autodetected range of [{lo}, {hi}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


def _sample(sample):
    if isinstance(sample, Tensor) and sample.ndim == 2:
        return sample
    if isinstance(sample, _np.ndarray) and sample.ndim == 2:
        return D.asarray(sample, op="histogramdd")
    cols = sample if isinstance(sample, (list, tuple)) else [sample]
    cols = [_reshape(D.asarray(c, op="histogramdd"), (-1,)) for c in cols]
    return _xp.stack(D.promote_all(cols, "histogramdd"), axis=1)


def histogramdd(sample, bins=10, range=None, density=None, weights=None):  # noqa: A002
    s = _sample(sample)
    n, d = s.shape
    edge_dtype = _dt.as_dtype(_np.result_type(s.dtype.numpy_dtype, 1.0))
    try:
        if len(bins) != d:
            raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    except TypeError:
        bins = d * [bins]
    if range is None:
        range = (None,) * d  # noqa: A001
    elif len(range) != d:
        raise ValueError("range argument must have one entry per dimension")
    edges, nbin = [], []
    for i in builtins.range(d):
        col = s[:, i]
        if _np.ndim(bins[i]) == 0:
            if bins[i] < 1:
                raise ValueError(f"`bins[{i}]` must be positive, when an integer")
            lo, hi = _outer_edges(col, range[i])
            try:
                k = operator.index(bins[i])
            except TypeError as e:
                raise TypeError(f"`bins[{i}]` must be an integer, when a scalar") from e
            e = _astype(_xp.linspace(float(lo), float(hi), k + 1, dtype=_F64), edge_dtype) \
                if edge_dtype is not _F64 else _xp.linspace(float(lo), float(hi), k + 1, dtype=_F64)
        elif _np.ndim(bins[i]) == 1:
            e = D.asarray(bins[i], op="histogramdd")
            if e.shape[0] > 1 and bool(_xp.any(e[:-1] > e[1:])):
                raise ValueError(f"`bins[{i}]` must be monotonically increasing, when an array")
        else:
            raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")
        edges.append(e)
        nbin.append(e.shape[0] + 1)  # an outlier bin at each end
    flat = None
    for i, e in enumerate(edges):
        col = s[:, i]
        ec, cc = D.promote_all([e, col], "histogramdd")
        k = _astype(_xp.searchsorted(ec, cc, side="right"), _I64)
        k = k - _astype(cc == ec[-1], _I64)  # the last edge belongs to the last bin
        flat = k if flat is None else flat * nbin[i] + k
    if weights is None:
        w = _xp.ones((n,), dtype=_F64)
    else:
        w = _astype(_reshape(D.asarray(weights, op="histogramdd"), (-1,)), _F64)  # NumPy's hist is float
    total = math.prod(nbin)
    hist = scatter_add_op(_xp.zeros((total,), dtype=w.dtype), w, flat, axis=0) if n else \
        _xp.zeros((total,), dtype=w.dtype)
    hist = _reshape(hist, tuple(nbin))[(slice(1, -1),) * d]
    if density:
        mass = _xp.sum(hist)
        for i, e in enumerate(edges):
            shape = [1] * d
            shape[i] = nbin[i] - 2
            hist = hist / _reshape(_astype(e[1:] - e[:-1], _F64) if not e.dtype.is_floating else e[1:] - e[:-1],
                                      tuple(shape))
        hist = hist / mass
    return hist, edges



def histogram2d(x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002
    if len(x) != len(y):
        raise ValueError("x and y must have the same length.")
    try:
        nb = len(bins)
    except TypeError:
        nb = 1
    if nb not in (1, 2):
        bins = [bins, bins]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """The edges ``histogram`` uses (integer or explicit bins, or a rule by name)."""
    if isinstance(bins, str):  # (``histogram`` reads the rule; its counts are never computed)
        return histogram(a, bins, range, weights=weights)[1]
    if _np.ndim(bins) == 1:
        e = D.asarray(bins, op="histogram_bin_edges")
        if e.shape[0] > 1 and bool(_xp.any(e[:-1] > e[1:])):
            raise ValueError("`bins` must increase monotonically, when an array")
        return e
    return histogram(a, bins, range)[1]  # lazy: the counts are never computed


__all__ = ["histogramdd", "histogram2d", "histogram_bin_edges"]
