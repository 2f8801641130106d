"""Masked reductions and statistics, as NumPy's ``ma`` computes them: the masked entries are filled with
the operation's identity (0 for ``sum``, the dtype's largest value for ``min``, ...) and the face's
reduction runs on MAX; a result is masked where all of its inputs were. ``mean`` is the sum over the
count of unmasked entries, ``var`` the mean squared anomaly over ``count - ddof``."""

from __future__ import annotations

import math

import numpy as _np

from .core import MaskedArray, _fnp, _fresh, fill_scalar, maximum_fill_value, minimum_fill_value, nomask
from .ufuncs import MASKED_UFUNCS, REDUCTIONS, SCANS


def _as_masked(a) -> MaskedArray:
    return a if isinstance(a, MaskedArray) else MaskedArray(a)


def _no_out(out, op: str):
    if out is not None:
        raise TypeError(f"nabla.numpy.ma.{op}: out= is not supported for masked arrays; use the result")


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _all_masked(m, axis, keepdims):
    return nomask if m is nomask else _fnp().all(m, axis=_axis(axis), keepdims=keepdims)


def _result(d, newmask, like):
    """A reduction's result: a masked array, or the plain 0-d array when nothing can be masked."""
    if newmask is nomask and d.ndim == 0:
        return d
    return MaskedArray._from(d, newmask, like)


def count(a, axis=None, keepdims=False):
    """Unmasked entries along ``axis``: a Python int for a whole array without a mask, as NumPy."""
    a = _as_masked(a)
    fnp = _fnp()
    if a._mask is nomask:
        if axis is None and not keepdims:
            return a.size
        axes = tuple(range(a.ndim)) if axis is None else \
            tuple(ax % a.ndim for ax in ((axis,) if isinstance(axis, int) else axis))
        shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape)) if keepdims else \
            tuple(n for i, n in enumerate(a.shape) if i not in axes)
        return fnp.full(shape, math.prod(a.shape[i] for i in axes), dtype=_np.intp)
    return fnp.sum(fnp.logical_not(a._mask), axis=_axis(axis), dtype=_np.intp, keepdims=keepdims)


def count_masked(arr, axis=None):
    m = _as_masked(arr)._mask
    if m is nomask:
        return 0
    return _fnp().sum(m, axis=_axis(axis), dtype=_np.intp)


def _filled_reduction(face_name: str, fill):
    def reduce(a, axis=None, dtype=None, out=None, keepdims=False):
        _no_out(out, face_name)
        a = _as_masked(a)
        kw = {} if dtype is None else {"dtype": dtype}
        d = getattr(_fnp(), face_name)(a.filled(fill), axis=_axis(axis), keepdims=keepdims, **kw)
        return _result(d, _all_masked(a._mask, axis, keepdims), a)
    reduce.__name__ = face_name
    reduce.__doc__ = f"NumPy's ``ma.{face_name}``: masked entries count as {fill!r}."
    return reduce


sum = _filled_reduction("sum", 0)  # noqa: A001
prod = product = _filled_reduction("prod", 1)
all = _filled_reduction("all", True)  # noqa: A001
any = _filled_reduction("any", False)  # noqa: A001


def _extreme(face_name: str, fill_rule):
    def reduce(a, axis=None, out=None, fill_value=None, keepdims=False):
        _no_out(out, face_name)
        a = _as_masked(a)
        fill = fill_rule(a) if fill_value is None else fill_value
        d = getattr(_fnp(), face_name)(a.filled(fill), axis=_axis(axis), keepdims=keepdims)
        newmask = _all_masked(a._mask, axis, keepdims)
        if newmask is not nomask and d.ndim:  # NumPy: the fill value, not an infinity, under the mask
            d = _fnp().where(newmask, fill_scalar(a.fill_value, d.dtype.numpy_dtype), d)
        return _result(d, newmask, a)
    reduce.__name__ = face_name
    return reduce


min = amin = _extreme("min", minimum_fill_value)  # noqa: A001
max = amax = _extreme("max", maximum_fill_value)  # noqa: A001


def ptp(a, axis=None, out=None, fill_value=None, keepdims=False):
    return max(a, axis, out, fill_value, keepdims) - min(a, axis, out, fill_value, keepdims)


def _arg(face_name: str, fill_rule):
    def arg(a, axis=None, fill_value=None, out=None, *, keepdims=False):
        _no_out(out, face_name)
        a = _as_masked(a)
        fill = fill_rule(a) if fill_value is None else fill_value
        return getattr(_fnp(), face_name)(a.filled(fill), axis=axis, keepdims=keepdims)
    arg.__name__ = face_name
    return arg


argmin = _arg("argmin", minimum_fill_value)
argmax = _arg("argmax", maximum_fill_value)


def _scan(face_name: str, fill):
    def scan(a, axis=None, dtype=None, out=None):
        _no_out(out, face_name)
        a = _as_masked(a)
        d = getattr(_fnp(), face_name)(a.filled(fill), axis=axis, dtype=dtype)
        m = a._mask if a._mask is nomask or axis is not None else _fnp().ravel(a._mask)
        return MaskedArray._from(d, m if m is nomask else _fresh(m, d.shape), a)
    scan.__name__ = face_name
    return scan


cumsum = _scan("cumsum", 0)
cumprod = _scan("cumprod", 1)


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    _no_out(out, "mean")
    a = _as_masked(a)
    if a._mask is nomask:
        return _result(_fnp().mean(a._data, axis=_axis(axis), dtype=dtype, keepdims=keepdims), nomask, a)
    return sum(a, axis, dtype, keepdims=keepdims) * 1.0 / count(a, axis, keepdims=keepdims)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, mean=None):  # noqa: A002
    _no_out(out, "var")
    fnp = _fnp()
    a = _as_masked(a)
    if a._mask is nomask and mean is None:
        return _result(fnp.var(a._data, axis=_axis(axis), dtype=dtype, ddof=ddof, keepdims=keepdims), nomask, a)
    cnt = count(a, axis, keepdims=keepdims) - ddof
    danom = a - (mean if mean is not None else _mean(a, axis, dtype, keepdims=True))
    danom = abs(danom) ** 2 if a.dtype.numpy_dtype.kind == "c" else danom * danom
    dvar = MASKED_UFUNCS["true_divide"](sum(danom, axis, keepdims=keepdims), cnt)
    if dvar._mask is not nomask:
        dvar._mask = fnp.logical_or(dvar._mask, fnp.asarray(cnt) <= 0)
    return dvar


_mean = mean


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, mean=None):  # noqa: A002
    v = var(a, axis, dtype, out, ddof, keepdims, mean)
    return MASKED_UFUNCS["sqrt"](v) if isinstance(v, MaskedArray) else _fnp().sqrt(v)


def anom(a, axis=None, dtype=None):
    """Deviations from the mean along ``axis`` (NumPy's ``anomalies``)."""
    a = _as_masked(a)
    return a - _mean(a, axis, dtype, keepdims=axis is not None)


anomalies = anom


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median of the unmasked entries: NaN where an unmasked entry is NaN, masked where all are."""
    _no_out(out, "median")
    fnp = _fnp()
    a = _as_masked(a)
    if a._mask is nomask:
        return _result(fnp.median(a._data, axis=axis, keepdims=keepdims), nomask, a)
    dt = a.dtype.numpy_dtype if a.dtype.numpy_dtype.kind == "f" else _np.dtype(_np.float64)
    x = a._data if a._data.dtype.numpy_dtype == dt else a._data.astype(dt)
    med = fnp.nanmedian(fnp.where(a._mask, _np.nan, x), axis=axis, keepdims=keepdims)
    nan_seen = fnp.any(fnp.logical_and(fnp.isnan(x), fnp.logical_not(a._mask)), axis=axis, keepdims=keepdims)
    med = fnp.where(nan_seen, _np.nan, med)
    return MaskedArray._from(med, _all_masked(a._mask, axis, keepdims), a)


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    fnp = _fnp()
    a = _as_masked(a)
    if weights is None:
        avg = mean(a, axis, keepdims=keepdims)
        scl = count(a, axis, keepdims=keepdims)
        scl = fnp.asarray(scl, dtype=avg.dtype.numpy_dtype)
    else:
        wgt = _as_masked(weights)
        kinds = a.dtype.numpy_dtype.kind
        result_dtype = _np.result_type(a.dtype.numpy_dtype, wgt.dtype.numpy_dtype, *(["f8"] if kinds in "biu" else []))
        if a.shape != wgt.shape:
            if axis is None:
                raise TypeError("nabla.numpy.ma.average: axis must be specified when shapes of a and weights "
                                f"differ ({a.shape} and {wgt.shape})")
            if wgt.ndim != 1:
                raise TypeError("nabla.numpy.ma.average: 1D weights expected when shapes of a and weights differ")
            if wgt.shape[0] != a.shape[axis]:
                raise ValueError(f"nabla.numpy.ma.average: length of weights {wgt.shape[0]} not compatible with "
                                 f"axis {axis} of length {a.shape[axis]}")
            shape = [1] * a.ndim
            shape[axis] = wgt.shape[0]
            wgt = MaskedArray._from(fnp.broadcast_to(fnp.reshape(wgt._data, shape), a.shape).copy(),
                                    nomask if wgt._mask is nomask else
                                    fnp.broadcast_to(fnp.reshape(wgt._mask, shape), a.shape).copy(), wgt)
        if a._mask is not nomask:
            wgt = wgt * fnp.logical_not(a._mask)
            wgt._mask = a._mask.copy() if wgt._mask is nomask else fnp.logical_or(wgt._mask, a._mask)
        scl = sum(wgt, axis, dtype=result_dtype, keepdims=keepdims)
        avg = sum(MASKED_UFUNCS["multiply"](a, wgt, dtype=result_dtype), axis, keepdims=keepdims) / scl
    if returned:
        if getattr(scl, "shape", ()) != avg.shape:
            scl = fnp.broadcast_to(scl, avg.shape).copy()
        return avg, scl
    return avg


REDUCTIONS.update({"add": sum, "multiply": prod, "maximum": max, "minimum": min, "logical_and": all,
                   "logical_or": any})
SCANS.update({"add": cumsum, "multiply": cumprod})


def _count_method(self, axis=None, keepdims=False):
    """Unmasked entries along ``axis`` (``count``)."""
    return count(self, axis, keepdims=keepdims)


MaskedArray.count = _count_method
