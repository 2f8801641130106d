"""Reductions, scans and statistics with NumPy's signatures (``axis``, ``dtype``, ``out``, ``keepdims``,
``initial``, ``where``, ``ddof``) and NumPy's result dtypes, over ``nabla.array_api``."""

from __future__ import annotations

import builtins

import math

import numpy as _np

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops.elementwise import astype as _astype, where as _where
from . import _dtypes as D, _quantile_methods as QM
from ._complex_order import complex_arg, extreme
from ._ndarray import ndarray
from ._ufunc_table import UFUNCS
from ._ufuncs import empty_reduction, initial_alone, initial_in, write_out
from ..ops.reduction import REDUCE_OPS


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


#: dtypes whose sum, mean, max and min NumPy gives in the same dtype, with the reduction ops' values
_OWN_DTYPE = frozenset((_dt.float32, _dt.float64))


def _plain(name, a, axis, keepdims):
    """``name`` (sum, mean, max or min) of a plain array of a float dtype over all axes or one, as
    its op at once: what the general path records, without its layers (a loop's ``abs(u - un).max()``
    and ``x.sum()``); None where the general path decides (and raises what NumPy raises)."""
    if type(a) is not ndarray or (axis is not None and type(axis) is not int):
        return None
    impl = a._impl
    if impl.dtype not in _OWN_DTYPE or impl.batch_dims or 0 in impl.cached_shape:
        return None
    return REDUCE_OPS[name].apply(a, axis, keepdims)


def _finish(r: Tensor, dtype, out, op: str):
    if dtype is not None:
        target = D.to_nabla(dtype, op)
        if r.dtype is not target:
            r = _astype(r, target)
    return r if out is None else write_out(out, r, op)


def _prepared(a, op: str, kind: str, dtype=None):
    x = D.asarray(a, op=op)
    target = D.to_nabla(dtype, op) if dtype is not None else _dt.as_dtype(D.reduction_dtype(x, kind))
    return x if x.dtype is target else _astype(x, target)


def _masked(x, where, fill, op):
    if where is True:
        return x
    return _where(D.asarray(where, op=op), x, _xp.full_like(x, fill))


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):  # noqa: A001
    if dtype is None and out is None and initial is None and where is True:
        r = _plain("sum", a, axis, keepdims)
        if r is not None:
            return r
    x = _masked(_prepared(a, "sum", "sum", dtype), where, 0, "sum")
    if x.dtype.is_bool:  # (dtype=bool: NumPy adds in bool, an OR)
        r = _xp.any(x, axis=_axis(axis), keepdims=keepdims)
    else:
        r = _xp.sum(x, axis=_axis(axis), keepdims=keepdims, dtype=x.dtype)  # (the standard's sum widens int8)
    if initial is not None:
        r = r + initial
    return _finish(r, None, out, "sum")


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    x = _masked(_prepared(a, "prod", "sum", dtype), where, 1, "prod")
    if x.dtype.is_bool:  # (dtype=bool: NumPy multiplies in bool, an AND)
        r = _xp.all(x, axis=_axis(axis), keepdims=keepdims)
    else:
        r = _xp.prod(x, axis=_axis(axis), keepdims=keepdims, dtype=x.dtype)
    if initial is not None:
        r = r * initial
    return _finish(r, None, out, "prod")


def _extreme(name, a, axis, out, keepdims, initial, where):
    if out is None and initial is None and where is True:
        r = _plain(name, a, axis, keepdims)
        if r is not None:
            return r
    x = D.asarray(a, op=name)
    if where is not True:
        if initial is None:
            raise ValueError(f"nabla.numpy.{name}: where= needs initial= (a reduction with no identity)")
        x = _masked(x, where, initial, name)
    if initial is not None:
        alone = initial_alone(x, axis, keepdims, initial)
        if alone is not None:
            return _finish(alone, None, out, name)
    elif empty_reduction(x, axis) is not None:
        raise ValueError(f"nabla.numpy.{name}: zero-size array to reduction operation {name} which has no identity")
    if x.dtype is _dt.bool_:  # NumPy's boolean max and min: any and all
        r = (_xp.any if name == "max" else _xp.all)(x, axis=_axis(axis), keepdims=keepdims)
    else:
        r = extreme(name, x, _axis(axis), keepdims)
    if initial is not None:  # (NumPy's reduction starts from ``initial`` in x's dtype)
        r = UFUNCS["maximum" if name == "max" else "minimum"](r, initial_in(x.dtype, initial))
    return _finish(r, None, out, name)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=True):  # noqa: A001
    return _extreme("max", a, axis, out, keepdims, initial, where)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=True):  # noqa: A001
    return _extreme("min", a, axis, out, keepdims, initial, where)


amax, amin = max, min


def _count(x: Tensor, axis, keepdims: bool, where=True) -> Tensor | int:
    if where is not True:
        w = _xp.broadcast_to(D.asarray(where, op="mean"), x.shape)
        return _xp.sum(_astype(w, x.dtype if x.dtype.kind != "c" else _dt.real_dtype(x.dtype)),
                       axis=_axis(axis), keepdims=keepdims)
    axes = range(x.ndim) if axis is None else ((axis,) if isinstance(axis, int) else axis)
    return math.prod(x.shape[a] for a in axes)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    if dtype is None and out is None and where is True:
        r = _plain("mean", a, axis, keepdims)
        if r is not None:
            return r
    x = _prepared(a, "mean", "mean", dtype)
    if where is True:
        r = _xp.mean(x, axis=_axis(axis), keepdims=keepdims)
    else:
        r = _xp.sum(_masked(x, where, 0, "mean"), axis=_axis(axis), keepdims=keepdims) / \
            _count(x, axis, keepdims, where)
    return _finish(r, None, out, "mean")


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None):
    x = _prepared(a, "var", "mean", dtype)
    ddof = correction if correction is not None else ddof
    dof = _count(x, axis, keepdims, where) - ddof
    # the standard's var is real-only and gives NaN where no degree of freedom is left; NumPy's takes
    # complex values (a real result) and divides by max(dof, 0): inf, or NaN for no spread
    if where is True and mean is None and not x.dtype.is_complex and dof > 0:
        r = _xp.var(x, axis=_axis(axis), correction=ddof, keepdims=keepdims)
    else:
        m = mean if mean is not None else _xp.sum(_masked(x, where, 0, "var"), axis=_axis(axis), keepdims=True) / \
            _count(x, axis, True, where)
        d = x - m
        sq = _xp.real(d * _xp.conj(d)) if x.dtype.is_complex else d * d
        r = _xp.sum(_masked(sq, where, 0, "var"), axis=_axis(axis), keepdims=keepdims) / \
            (builtins.max(dof, 0) if isinstance(dof, (int, float)) else _xp.maximum(dof, 0))
    return _finish(r, None, out, "var")


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None):
    r = _xp.sqrt(var(a, axis, dtype, None, ddof, keepdims, where=where, mean=mean, correction=correction))
    return _finish(r, None, out, "std")


def _arg(name, a, axis, out, keepdims):
    x = D.asarray(a, op=name)
    if x.dtype.is_complex:
        r = complex_arg(name, x, axis, keepdims)
    else:
        r = (_xp.argmax if name == "argmax" else _xp.argmin)(x, axis=axis, keepdims=keepdims)
    return _finish(r, None, out, name)


def argmax(a, axis=None, out=None, *, keepdims=False):
    return _arg("argmax", a, axis, out, keepdims)


def argmin(a, axis=None, out=None, *, keepdims=False):
    return _arg("argmin", a, axis, out, keepdims)


def _logical(name, a, axis, out, keepdims, where):
    x = D.asarray(a, op=name)
    if where is not True:
        x = _where(D.asarray(where, op=name), _xp.astype(x, _dt.bool_), name == "all")
    r = (_xp.all if name == "all" else _xp.any)(x, axis=_axis(axis), keepdims=keepdims)
    return _finish(r, None, out, name)


def all(a, axis=None, out=None, keepdims=False, *, where=True):  # noqa: A001
    return _logical("all", a, axis, out, keepdims, where)


def any(a, axis=None, out=None, keepdims=False, *, where=True):  # noqa: A001
    return _logical("any", a, axis, out, keepdims, where)


def _scan(name, a, axis, dtype, out):
    x = _prepared(a, name, "sum", dtype)
    if axis is None:
        x, axis = _reshape(x, (-1,)), 0
    fn = _xp.cumulative_sum if name == "cumsum" else _xp.cumulative_prod
    return _finish(fn(x, axis=axis, dtype=x.dtype), None, out, name)  # (the standard's widens int8, as sum's)


def cumsum(a, axis=None, dtype=None, out=None):
    return _scan("cumsum", a, axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
    return _scan("cumprod", a, axis, dtype, out)


def ptp(a, axis=None, out=None, keepdims=False):
    return _finish(max(a, axis, keepdims=keepdims) - min(a, axis, keepdims=keepdims), None, out, "ptp")


def count_nonzero(a, axis=None, *, keepdims=False):
    return _xp.count_nonzero(D.asarray(a, op="count_nonzero"), axis=_axis(axis), keepdims=keepdims)


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    x = D.asarray(a, op="average")
    if weights is None:
        r = mean(x, axis, keepdims=keepdims)
        n = _count(x, axis, keepdims)
        return (r, _xp.full_like(r, n)) if returned else r
    w = D.asarray(weights, op="average")
    if w.shape != x.shape:
        if axis is None:
            raise TypeError(f"nabla.numpy.average: Axis must be specified when shapes of a and weights differ "
                            f"({x.shape} and {w.shape})")
        if w.ndim != 1 or w.shape[0] != x.shape[axis]:
            raise ValueError(f"nabla.numpy.average: weights of shape {w.shape} do not match a of shape {x.shape} "
                             f"along axis {axis}")
        w = _reshape(w, tuple(-1 if k == axis % x.ndim else 1 for k in range(x.ndim)))
    target = _np.result_type(x.dtype.numpy_dtype, w.dtype.numpy_dtype, _np.float64 if x.dtype.kind in "biu" else
                             x.dtype.numpy_dtype)
    x, w = D.cast(x, target), D.cast(w, target)
    wsum = _xp.sum(_xp.broadcast_to(w, x.shape), axis=_axis(axis), keepdims=keepdims)
    if bool(_xp.any(wsum == 0.0)):  # (NumPy's check, a read of one flag)
        raise ZeroDivisionError("nabla.numpy.average: Weights sum to zero, can't be normalized")
    r = _xp.sum(x * w, axis=_axis(axis), keepdims=keepdims) / wsum
    return (r, wsum) if returned else r


# --- the nan* family: NaNs replaced by the reduction's identity, counted out of means ---------------

def _nan_filled(a, fill, op):
    x = D.asarray(a, op=op)
    return x if not (x.dtype.is_floating or x.dtype.is_complex) else _where(_xp.isnan(x), fill, x)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return sum(_nan_filled(a, 0, "nansum"), axis, dtype, out, keepdims, initial, where)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return prod(_nan_filled(a, 1, "nanprod"), axis, dtype, out, keepdims, initial, where)


def _nan_count(x, axis, keepdims):
    """The count of numbers (a complex value with a NaN part is none), as a real float."""
    real = _dt.as_dtype(D.reduction_dtype(x, "var"))
    return _xp.sum(_astype(_xp.logical_not(_xp.isnan(x)), real), axis=_axis(axis), keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    x = _prepared(a, "nanmean", "mean", dtype)
    r = sum(_nan_filled(x, 0, "nanmean"), axis, keepdims=keepdims, where=where) / \
        _nan_count(_masked(x, where, _np.nan, "nanmean"), axis, keepdims)
    return _finish(r, None, out, "nanmean")


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True):
    x = _masked(_prepared(a, "nanvar", "mean", dtype), where, _np.nan, "nanvar")
    m = nanmean(x, axis, keepdims=True)
    d = _where(_xp.isnan(x), 0, x - m)  # (only the skipped values: an inf's deviation is NaN, as NumPy's)
    sq = _xp.real(d * _xp.conj(d)) if x.dtype.is_complex else d * d  # (|d|**2: real, as NumPy's)
    dof = _nan_count(x, axis, keepdims) - ddof
    r = _where(dof <= 0, _np.nan, _xp.sum(sq, axis=_axis(axis), keepdims=keepdims) / dof)  # (NumPy warns)
    return _finish(r, None, out, "nanvar")


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True):
    return _finish(_xp.sqrt(nanvar(a, axis, dtype, None, ddof, keepdims, where=where)), None, out, "nanstd")


def _nan_extreme(name, a, axis, out, keepdims):
    x = D.asarray(a, op=name)
    if not (x.dtype.is_floating or x.dtype.is_complex):  # no NaN to skip: max and min (bool's: any, all)
        return _extreme(name[3:], x, axis, out, keepdims, None, True)
    fill = _np.inf if name == "nanmin" else -_np.inf
    nan = _xp.isnan(x)
    r = extreme(name[3:], _where(nan, complex(fill, fill) if x.dtype.is_complex else fill, x), _axis(axis), keepdims)
    # an all-NaN slice gives its first value, as NumPy's fmin/fmax reduction (which also warns); a
    # complex min/max picks the first value with a NaN part
    first = extreme(name[3:], x, _axis(axis), keepdims) if x.dtype.is_complex else _np.nan
    r = _where(_xp.all(nan, axis=_axis(axis), keepdims=keepdims), first, r)
    return _finish(r, None, out, name)


def nanmax(a, axis=None, out=None, keepdims=False):
    return _nan_extreme("nanmax", a, axis, out, keepdims)


def nanmin(a, axis=None, out=None, keepdims=False):
    return _nan_extreme("nanmin", a, axis, out, keepdims)


def _nan_arg(name, a, axis):
    x = D.asarray(a, op=name)
    if (x.dtype.is_floating or x.dtype.is_complex) and bool(_xp.any(_xp.all(_xp.isnan(x), axis=axis))):
        raise ValueError("All-NaN slice encountered")  # (NumPy's words: a slice with no number has no position)
    fill = _np.inf if name == "nanargmin" else -_np.inf
    return _arg(name[3:], _nan_filled(x, fill, name), axis, None, False)


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    return _nan_arg("nanargmax", a, axis)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    return _nan_arg("nanargmin", a, axis)


def nancumsum(a, axis=None, dtype=None, out=None):
    return cumsum(_nan_filled(a, 0, "nancumsum"), axis, dtype, out)


def nancumprod(a, axis=None, dtype=None, out=None):
    return cumprod(_nan_filled(a, 1, "nancumprod"), axis, dtype, out)


# --- order statistics: a sort on MAX, then NumPy's interpolation methods ----------------------------

_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")
#: the methods whose result is one of the elements (of the input's dtype, as NumPy's)
_PICKING = frozenset({"lower", "higher", "nearest"})


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
             weights=None, interpolation=None, _nan=False, _median=False):
    op = "quantile"
    method = interpolation or method
    if weights is not None:
        if method != "inverted_cdf":
            raise ValueError(f"nabla.numpy.{op}: only method 'inverted_cdf' supports weights, got {method!r}")
        if _nan:
            raise NotImplementedError(f"nabla.numpy.nan{op}: weights= is not supported yet")
    elif method not in _METHODS and method not in QM.METHODS:
        raise ValueError(f"nabla.numpy.{op}: method {method!r} is not supported; use one of "
                         f"{sorted(_METHODS + tuple(QM.METHODS))}")
    x = D.asarray(a, op=op)
    if x.dtype.is_complex and not _median:  # (complex values have a median, not quantiles, in NumPy)
        raise TypeError(f"nabla.numpy.{op}: a must be an array of real numbers, got {x.dtype}")
    picked_bools = x.dtype.is_bool and not _median and weights is None
    if picked_bools and method not in _PICKING and method not in QM.PICKED:  # (NumPy's interpolation subtracts, which bools refuse)
        raise TypeError(f"nabla.numpy.{op}: method {method!r} interpolates, and bool data has no subtraction "
                        f"(methods {sorted(_PICKING)} pick an element)")
    q_host = q.numpy() if isinstance(q, Tensor) else q  # q: host parameters
    if x.dtype.kind == "b" or (weights is not None and x.dtype.kind in "iu"):
        x = _astype(x, _dt.float64)
    # an interpolated quantile is of the data's and q's dtypes (a Python number is weak), and
    # floating; a method that picks an element keeps the data's dtype, as NumPy's
    result = x.dtype.numpy_dtype if type(q) in (int, float) else \
        _np.result_type(x.dtype.numpy_dtype, _np.asarray(q_host).dtype)
    result = _dt.float64 if result.kind in "biu" else D.to_nabla(result, op)
    w = None if weights is None else _quantile_weights(weights, x, axis, op)
    qs = _np.asarray(q_host, dtype=_np.float64)
    # NumPy's position of a quantile, (n - 1) * q, is computed in q's dtype (float64 but for a
    # float32 or float16 array of them)
    q_dtype = _np.asarray(q_host).dtype if type(q) not in (int, float) else _np.dtype(_np.float64)
    q_dtype = q_dtype if q_dtype.kind == "f" else _np.dtype(_np.float64)
    if qs.size and (qs.min() < 0 or qs.max() > 1):
        raise ValueError(f"nabla.numpy.{op}: Quantiles must be in the range [0, 1]")
    x, ax, kept = _reduced_last(x, axis)
    if w is not None:
        w = _reduced_last(w, axis)[0]
        order = _xp.argsort(x, axis=ax, stable=True)
        s, ws = _xp.take_along_axis(x, order, axis=ax), _xp.take_along_axis(w, order, axis=ax)
        cdf = _xp.cumulative_sum(ws, axis=ax) / _xp.sum(ws, axis=ax, keepdims=True)
        cdf = _where(cdf == 0, -1.0, cdf)  # leading zero weights never hold a quantile
    else:
        s = _complex_sorted(x, ax) if x.dtype.is_complex else _xp.sort(x, axis=ax)
    n = s.shape[ax]
    if n == 0 and _median:  # NumPy's median of nothing is the mean of nothing: NaN
        r = _xp.full(kept if keepdims else s.shape[:ax] + s.shape[ax + 1:], _np.nan, dtype=result)
        return r if out is None else write_out(out, r, op)
    if n == 0:  # (NumPy's message: it indexes the sorted axis's last element)
        raise IndexError(f"nabla.numpy.{op}: index -1 is out of bounds for axis {ax} with size 0 "
                         f"(quantiles of an empty axis, shape {tuple(s.shape)})")
    counts = None
    if _nan:  # nan-quantile: NaNs sort last; each row's quantile ranges over its count of numbers
        counts = _xp.sum(_astype(_xp.logical_not(_xp.isnan(s)), _dt.int64), axis=ax, keepdims=True)
    results = []
    for qv in qs.reshape(-1):
        if weights is not None:
            # inverted CDF: the first value whose cumulative weight reaches q
            first = _xp.sum(_astype(cdf < float(qv), _dt.int64), axis=ax, keepdims=True)
            pick = _xp.take_along_axis(s, _xp.minimum(first, n - 1), axis=ax)
            results.append(_xp.squeeze(pick, axis=ax))
        elif _median and counts is None:  # NumPy's median: the mean of the middle one or two
            middle = D.axis_range(s, ax, (n - 1) // 2, n // 2 + 1)  # (not a lerp: an int8 difference wraps)
            results.append(_xp.mean(middle if middle.dtype is result else _astype(middle, result), axis=ax))
        elif _median:  # nanmedian: the mean of each row's middle numbers (NaN where it has none)
            i = _xp.clip(counts - 1, 0, None)
            lo = _xp.squeeze(_xp.take_along_axis(s, i // 2, axis=ax), axis=ax)
            hi = _xp.squeeze(_xp.take_along_axis(s, (i + 1) // 2, axis=ax), axis=ax)
            # (lo alone: exact, no overflow; a complex one is NumPy's mean of one, lo / (1 + 0j))
            mid = _where(_xp.squeeze(i % 2 == 0, axis=ax), lo / 1 if lo.dtype.is_complex else lo, (lo + hi) / 2)
            results.append(_where(_xp.squeeze(counts == 0, axis=ax), _np.nan, mid))
        else:
            results.append(_pick(s, ax, n, q_dtype.type(qv), method, counts, result))
    r = results[0] if qs.ndim == 0 else _xp.stack(results, axis=0)
    if qs.ndim > 1:  # (q's own shape leads the result, as NumPy's)
        r = _reshape(r, qs.shape + tuple(r.shape[1:]))
    if not _nan and x.dtype.is_complex:  # NumPy's median gives the last sorted value where it has a NaN part
        last = _xp.squeeze(D.axis_range(s, ax, n - 1, n), axis=ax)
        r = _where(_xp.isnan(last), last, r)
    elif not _nan and x.dtype.is_floating:
        bad = _xp.any(_xp.isnan(x), axis=ax)
        r = _where(bad, _np.nan, r)
    if keepdims:
        lead = () if qs.ndim == 0 else qs.shape
        r = _reshape(r, lead + kept)
    if picked_bools:  # an element, of the data's dtype (sorted as numbers)
        r = r != 0
    return r if out is None else write_out(out, r, op)


def _complex_sorted(x, ax):
    """``x`` sorted along ``ax`` in NumPy's complex order: by real part, then imaginary part; then the
    values with a NaN part, R+nanj, nan+Rj, nan+nanj (each by its number): stable sorts by the
    imaginary part, the real part (NaN last), then that class."""
    nan_re, nan_im = _xp.isnan(_xp.real(x)), _xp.isnan(_xp.imag(x))
    keys = (_xp.imag(x), _xp.real(x), _astype(nan_re, _dt.int8) * 2 + _astype(nan_im, _dt.int8))
    order = None
    for key in keys:
        key = key if order is None else _xp.take_along_axis(key, order, axis=ax)
        step = _xp.argsort(key, axis=ax, stable=True)
        order = step if order is None else _xp.take_along_axis(order, step, axis=ax)
    return _xp.take_along_axis(x, order, axis=ax)


def _reduced_last(x, axis):
    """``x`` with the reduced axes merged into its last axis: ``(x, that axis, keepdims shape)``."""
    if axis is None:
        return _reshape(x, (-1,)), 0, (1,) * x.ndim
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(k % x.ndim for k in axes)
    rest = [k for k in range(x.ndim) if k not in axes]
    kept = tuple(1 if k in axes else n for k, n in enumerate(x.shape))
    y = _xp.permute_dims(x, tuple(rest) + axes)
    return _reshape(y, y.shape[:len(rest)] + (math.prod(y.shape[len(rest):]),)), len(rest), kept


def _quantile_weights(weights, x, axis, op):
    """``weights`` of ``x``'s shape (NumPy takes ``x``'s shape, or 1-D along a single ``axis``),
    non-negative (checked when they come as host data)."""
    if not isinstance(weights, Tensor) and _np.any(_np.asarray(weights) < 0):
        raise ValueError(f"nabla.numpy.{op}: weights must be non-negative")
    w = D.asarray(weights, _np.float64, op)
    if w.shape == x.shape:
        return w
    if w.ndim == 1 and isinstance(axis, int) and w.shape[0] == x.shape[axis % x.ndim]:
        shape = [1] * x.ndim
        shape[axis % x.ndim] = w.shape[0]
        return _xp.broadcast_to(_reshape(w, tuple(shape)), x.shape)
    raise ValueError(f"nabla.numpy.{op}: weights of shape {w.shape} do not fit data of shape {x.shape} "
                     f"along axis {axis}")


def _pick(s, ax, n, q, method, counts, result):
    """Quantile ``q`` of the sorted ``s`` along ``ax`` by NumPy's ``method``: an element (of ``s``'s
    dtype) or, interpolated, of the ``result`` dtype as NumPy's lerp makes it: the difference in
    ``s``'s dtype, then ``lo + d * t`` (``hi - d * (1 - t)`` from ``t = 0.5`` on)."""
    if method in QM.METHODS:  # (Hyndman and Fan's other types: ``_quantile_methods``)
        if counts is None:
            lo_i, hi_i, t = QM.host_position(method, n, float(q))
            lo = _xp.squeeze(D.axis_range(s, ax, lo_i, lo_i + 1), axis=ax)
            hi = None if t is None else _xp.squeeze(D.axis_range(s, ax, hi_i, hi_i + 1), axis=ax)
        else:
            lo_i, hi_i, t = QM.row_positions(method, counts, float(q))
            lo = _xp.squeeze(_xp.take_along_axis(s, lo_i, axis=ax), axis=ax)
            hi = None if t is None else _xp.squeeze(_xp.take_along_axis(s, hi_i, axis=ax), axis=ax)
            t = None if t is None else _xp.squeeze(t, axis=ax)
        return lo if t is None else _lerp(lo, hi, t, result, counts is None)
    if counts is None:
        pos = float(q * q.dtype.type(n - 1))  # (host scalars, in q's dtype)
        lo_i, hi_i = math.floor(pos), math.ceil(pos)
        lo = _xp.squeeze(D.axis_range(s, ax, lo_i, lo_i + 1), axis=ax)
        hi = _xp.squeeze(D.axis_range(s, ax, hi_i, hi_i + 1), axis=ax)
        frac = pos - lo_i
    else:
        pos = _astype(counts - 1, D.to_nabla(q.dtype, "quantile")) * float(q)
        lo_i = _xp.clip(_astype(_xp.floor(pos), _dt.int64), 0, n - 1)
        hi_i = _xp.clip(_astype(_xp.ceil(pos), _dt.int64), 0, n - 1)
        lo = _xp.squeeze(_xp.take_along_axis(s, lo_i, axis=ax), axis=ax)
        hi = _xp.squeeze(_xp.take_along_axis(s, hi_i, axis=ax), axis=ax)
        frac = _xp.squeeze(pos - _astype(lo_i, pos.dtype), axis=ax)
    if method == "lower":
        return lo
    if method == "higher":
        return hi
    if method == "nearest":
        if counts is None:
            k = round(pos)  # NumPy rounds half to even, as Python's round
            return _xp.squeeze(D.axis_range(s, ax, k, k + 1), axis=ax)
        odd = _xp.squeeze(lo_i % 2 == 1, axis=ax)
        return _where(_xp.logical_or(frac > 0.5, _xp.logical_and(frac == 0.5, odd)), hi, lo)
    if method == "midpoint":  # half way, where the position falls between two elements
        frac = (0.5 if frac else 0.0) if counts is None else _where(frac == 0, 0.0, 0.5)
    # NumPy's lerp runs to the element after ``lo`` even at a whole position (t = 0), so an
    # infinite next element makes it NaN (``inf * 0``): only the last element is its own next
    if counts is None:
        nxt = lo_i + 1 if lo_i + 1 < n else n - 1
        hi = _xp.squeeze(D.axis_range(s, ax, nxt, nxt + 1), axis=ax)
    else:
        hi = _xp.squeeze(_xp.take_along_axis(s, _xp.minimum(lo_i + 1, _xp.clip(counts - 1, 0, None)), axis=ax),
                         axis=ax)
    return _lerp(lo, hi, frac, result, counts is None)


def _lerp(lo, hi, t, result, host: bool):
    """NumPy's lerp of ``lo`` and ``hi`` by ``t`` (a host number, or an array), in ``result``."""
    d = _astype(hi - lo, result)
    lo, hi = _astype(lo, result), _astype(hi, result)
    if host:
        return lo + d * t if t < 0.5 else hi - d * (1 - t)
    t = _astype(t, result)
    return _where(t >= 0.5, hi - d * (1 - t), lo + d * t)


def _fractions(q):
    """Percentiles as quantiles, of q's dtype (a Python number stays one: weak, as in NumPy)."""
    if type(q) in (int, float):
        return q / 100
    return _np.true_divide(q.numpy() if isinstance(q, Tensor) else q, 100)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
               weights=None, interpolation=None):
    fractions = _fractions(q)
    if _np.size(fractions) and (_np.min(fractions) < 0 or _np.max(fractions) > 1):
        raise ValueError("nabla.numpy.percentile: Percentiles must be in the range [0, 100]")
    return quantile(a, fractions, axis, out, overwrite_input, method, keepdims, weights=weights,
                    interpolation=interpolation)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return quantile(a, 0.5, axis, out, keepdims=keepdims, _median=True)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None, interpolation=None):
    return quantile(a, q, axis, out, overwrite_input, method, keepdims, weights=weights,
                    interpolation=interpolation, _nan=True)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                  weights=None, interpolation=None):
    return nanquantile(a, _fractions(q), axis, out, overwrite_input, method, keepdims, weights=weights,
                       interpolation=interpolation)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    x = D.asarray(a, op="nanmedian")
    if not x.dtype.is_floating and not x.dtype.is_complex:  # no NaN to skip: NumPy's median
        return median(x, axis, out, keepdims=keepdims)
    return quantile(x, 0.5, axis, out, keepdims=keepdims, _nan=True, _median=True)


__all__ = [n for n, v in list(globals().items()) if not n.startswith("_") and callable(v)
           and getattr(v, "__module__", None) == __name__]
__all__ += ["amax", "amin"]
