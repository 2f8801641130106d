"""Counts and histograms as NumPy computes them: ``bincount``, ``histogram``, ``histogramdd``,
``histogram2d`` and ``histogram_bin_edges``. Bin numbers come from ``searchsorted`` on MAX and the counts from one
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
from ..ops.base import as_index
from ..ops.elementwise import astype as _astype
from ..ops.index_primitives import scatter_add_op
from . import _dtypes as D
from ._bin_rules import bin_count
from ._math import _real_floats

_F64, _I64 = _dt.float64, _dt.int64


def bincount(x, weights=None, minlength=0):
    """Counts per value as one scatter-add on MAX (the length is read from the data: a host boundary)."""
    v = D.asarray(x, op="bincount")
    if v.ndim != 1 or not (v.dtype.is_integer or v.dtype.is_bool):
        raise TypeError(f"nabla.numpy.bincount: x must be a 1-D array of non-negative integers, got "
                        f"{v.dtype.name}{list(v.shape)}")
    v = _astype(v, _I64)
    if v.shape[0] and int(_xp.min(v)) < 0:
        raise ValueError("nabla.numpy.bincount: 'list' argument must have no negative elements")
    n = builtins.max(int(_xp.max(v)) + 1 if v.shape[0] else 0, minlength)
    w = _xp.ones(v.shape, dtype=_I64) if weights is None else _real_floats(weights, "bincount")
    if w.shape != v.shape:
        raise ValueError(f"nabla.numpy.bincount: the weights and list don't have the same length "
                         f"(weights of shape {w.shape}, list of shape {v.shape})")
    return scatter_add_op(_xp.zeros((n,), dtype=w.dtype), w, v, axis=0)


def _equal_edges(lo: float, hi: float, nb: int, dtype):
    """``nb + 1`` equal bins' edges from ``lo`` to ``hi`` as NumPy's linspace makes them, in ``dtype``
    (a range of one value widened by 0.5 each way): ``(lo, hi, edges)``."""
    t = _np.dtype(dtype).type
    lo_s, hi_s = t(lo), t(hi)
    if lo_s == hi_s:
        lo_s, hi_s = lo_s - t(0.5), hi_s + t(0.5)
    step = (hi_s - lo_s) / t(nb)  # (host scalars: the two ends are parameters)
    inner = _xp.arange(nb, dtype=D.to_nabla(dtype, "histogram")) * float(step) + float(lo_s)
    return float(lo_s), float(hi_s), _xp.concat([inner, _xp.full((1,), float(hi_s), dtype=inner.dtype)])


def histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002
    x = _reshape(D.asarray(a, op="histogram"), (-1,))
    if isinstance(bins, str):  # (a rule by name: its number of equal bins, from the data's spread)
        bins = bin_count(x, bins, range, weights, "histogram")
    nb = as_index(bins)  # (a Python or NumPy integer, or a 0-d integer array)
    if nb is not None:
        if nb < 1:
            raise ValueError(f"nabla.numpy.histogram: `bins` must be positive, when an integer (got {nb})")
        # NumPy's edges are of the data's dtype and the range's (a Python number is weak), floating
        ends = (0, 1) if range is None and not x.shape[0] else range
        bin_type = _np.result_type(x.dtype.numpy_dtype, *(() if ends is None else ends))
        bin_type = _np.result_type(bin_type, float) if bin_type.kind in "biu" else bin_type
        xf = D.to_nabla(bin_type, "histogram")
        # (data already of the bins' dtype is read as it is: a pending cast of it, live beside its
        # min, would make the min's trace one of two outputs, which the fused kernel does not run)
        xf = x if x.dtype is xf else _astype(x, xf)
        if range is None:
            lo, hi = (float(_xp.min(xf)), float(_xp.max(xf))) if x.shape[0] else (0.0, 1.0)
            if not (math.isfinite(lo) and math.isfinite(hi)):
                raise ValueError(f"nabla.numpy.histogram: autodetected range of [{lo}, {hi}] is not finite")
        else:
            lo, hi = float(range[0]), float(range[1])
            if lo > hi:
                raise ValueError(f"nabla.numpy.histogram: max must be larger than min in range parameter "
                                 f"(range {tuple(range)})")
            if not (math.isfinite(lo) and math.isfinite(hi)):
                raise ValueError(f"nabla.numpy.histogram: supplied range of [{lo}, {hi}] is not finite")
        # NumPy's linspace runs in the ends' dtype: the data's, where they are its min and max
        lo, hi, edges = _equal_edges(lo, hi, nb, bin_type if range is None and x.shape[0] else _np.float64)
        edges = _astype(edges, xf.dtype)
        # NumPy's bin rule: index from the scaled position, corrected against the edges themselves
        k = _astype(_xp.floor((xf - lo) * (nb / (hi - lo))), _I64)
        k = _xp.where(k == nb, nb - 1, k)
        k = k - _astype(xf < _xp.take(edges, _xp.clip(k, 0, nb), axis=0), _I64)
        k = k + _astype(xf >= _xp.take(edges, _xp.clip(k + 1, 0, nb), axis=0), _I64) * _astype(k != nb - 1, _I64)
        inside = _xp.logical_and(xf >= lo, xf <= hi)
    else:
        given = D.asarray(bins, op="histogram")  # returned as given, of its own dtype (NumPy's)
        edges = _astype(given, _F64)
        if given.ndim != 1:
            raise ValueError(f"nabla.numpy.histogram: bins must be 1d, when an array (shape {given.shape})")
        if given.shape[0] > 1 and bool(_xp.any(edges[1:] < edges[:-1])):
            raise ValueError("nabla.numpy.histogram: `bins` must increase monotonically, when an array")
        xf = _astype(x, _F64)
        nb = edges.shape[0] - 1
        k = _xp.searchsorted(edges, xf, side="right") - 1
        k = _xp.where(xf == edges[-1], nb - 1, k)
        inside = _xp.logical_and(xf >= edges[0], xf <= edges[-1])
        edges = given

    w = _xp.ones(x.shape, dtype=_I64) if weights is None else \
        _reshape(D.asarray(weights, _np.float64, "histogram"), (-1,))
    w = _xp.where(inside, w, _xp.zeros((), dtype=w.dtype))
    counts = scatter_add_op(_xp.zeros((nb,), dtype=w.dtype), w, _xp.clip(k, 0, nb - 1), axis=0)
    if density:
        widths = edges[1:] - edges[:-1]
        counts = _astype(counts, _F64) / widths / _xp.sum(_astype(counts, _F64))
    return counts, edges


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


__all__ = ["bincount", "histogram", "histogramdd", "histogram2d", "histogram_bin_edges"]
