"""Sorting, searching and set routines as NumPy spells them, on Nabla's sort ops."""

from __future__ import annotations

import math

import numpy as _np

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core import dtypes as _dt
from ..ops.base import normalize_axis
from ..ops.elementwise import astype as _astype
from . import _dtypes as D
from ._records_ops import argsort as argsort_records, sort as sort_records
from ..array_api._functions import UniqueAllResult, UniqueCountsResult, UniqueInverseResult

_I64 = _dt.int64


def _flat_or(x, axis):
    return (_reshape(x, (-1,)), -1) if axis is None else (x, axis)


def _by_fields(a, order) -> bool:
    """Sorting by fields: order= given, or NumPy's structured array (``_records_ops`` sorts both)."""
    return order is not None or getattr(getattr(a, "dtype", None), "names", None) is not None


def _check_kind(kind, op: str) -> None:
    """NumPy's ValueError for a sort kind it does not name (it reads the first letter)."""
    if kind is not None and not isinstance(kind, str):
        raise TypeError(f"nabla.numpy.{op}: sort kind must be str, not {type(kind).__name__}")
    if kind is not None and kind[:1].lower() not in ("q", "h", "m", "s"):
        raise ValueError(f"nabla.numpy.{op}: sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    _check_kind(kind, "sort")
    if _by_fields(a, order):
        return sort_records(a, axis, kind, order)
    x, axis = _flat_or(D.asarray(a, op="sort"), axis)
    if x.dtype.is_complex:  # lexicographic, real part first, as NumPy's (NaNs last)
        return _xp.take_along_axis(x, lexsort([x], axis=axis), axis=axis)
    return _xp.sort(x, axis=axis)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    _check_kind(kind, "argsort")
    if _by_fields(a, order):
        return argsort_records(a, axis, kind, order)
    x, axis = _flat_or(D.asarray(a, op="argsort"), axis)
    if x.dtype.is_complex:
        return lexsort([x], axis=axis)
    return _xp.argsort(x, axis=axis)


def _check_kth(a, kth, axis, op):
    """NumPy's check of ``kth``: each an index along the partitioned axis."""
    x = D.asarray(a, op=op)
    n = x.size if axis is None else x.shape[axis] if x.ndim else 1
    for k in _np.atleast_1d(_np.asarray(kth)).reshape(-1):
        if not -n <= int(k) < n:
            raise ValueError(f"nabla.numpy.{op}: kth(={int(k)}) out of bounds ({n})")


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """A full sort satisfies partition's contract (kth in place, smaller before, larger after)."""
    _check_kth(a, kth, axis, "partition")
    return sort(a, axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    _check_kth(a, kth, axis, "argpartition")
    return argsort(a, axis)


def lexsort(keys, axis=-1):
    """Indices sorting by the last key first: stable argsorts from the least significant key up."""
    ks = list(keys) if not hasattr(keys, "ndim") or keys.ndim > 1 else [keys]
    ks = [D.asarray(k, op="lexsort") for k in ks]
    ks = [part for k in ks for part in (_complex_keys(k) if k.dtype.is_complex else (k,))]
    perm = None
    for k in ks:
        if perm is None:
            perm = _xp.argsort(k, axis=axis, stable=True)
        else:
            k_perm = _xp.take_along_axis(k, perm, axis=axis)
            perm = _xp.take_along_axis(perm, _xp.argsort(k_perm, axis=axis, stable=True), axis=axis)
    return perm


def _complex_keys(z):
    """NumPy's order of complex values as keys, least significant first: by real part, then imaginary
    part; values with NaNs after all others, in the classes R + nanj, nan + Rj, nan + nanj."""
    re, im = _xp.real(z), _xp.imag(z)
    nan_class = _astype(_xp.isnan(re), _dt.int8) * 2 + _astype(_xp.isnan(im), _dt.int8)
    return im, re, nan_class


def sort_complex(a):
    x = D.asarray(a, op="sort_complex")
    if not x.dtype.is_complex:
        # (NumPy's rule: the 8- and 16-bit integers to complex64, everything else to complex128)
        x = _astype(x, _dt.complex64 if x.dtype in (_dt.int8, _dt.int16, _dt.uint8, _dt.uint16) else _dt.complex128)
    return _xp.take(x, lexsort([x]), axis=0)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           sorted=True):  # noqa: A002
    x = D.asarray(ar, op="unique")
    if axis is None:
        flat = _reshape(x, (-1,))
        rows = _reshape(flat, (-1, 1))
        values, index, inverse, counts = _unique_rows(rows, equal_nan)
        values = _reshape(values, (-1,))
        if return_inverse:
            inverse = _reshape(inverse, x.shape)  # NumPy 2: the input's shape
    else:
        axis = normalize_axis(axis, x.ndim, "unique")
        moved = _xp.moveaxis(x, axis, 0)
        rows = _reshape(moved, (moved.shape[0], math.prod(moved.shape[1:])))
        values, index, inverse, counts = _unique_rows(rows, equal_nan)
        values = _xp.moveaxis(_reshape(values, (values.shape[0],) + moved.shape[1:]), 0, axis)
    out = [values]
    if return_index:
        out.append(index)
    if return_inverse:
        out.append(inverse)
    if return_counts:
        out.append(counts)
    return out[0] if len(out) == 1 else tuple(out)


def _unique_rows(rows, equal_nan):
    """Unique rows of a 2-D array: a lexicographic (stable) sort, then the starts of runs of equal rows."""
    n = rows.shape[0]
    if n == 0:
        empty = _xp.zeros((0,), dtype=_I64)
        return rows, empty, empty, empty
    cols = [rows[:, j] for j in range(rows.shape[1] - 1, -1, -1)]
    perm = lexsort(cols) if cols else _xp.arange(n)
    s = _xp.take(rows, perm, axis=0)
    differ = s[1:] != s[:-1]
    if equal_nan and rows.dtype.kind in "fc":
        differ = _xp.logical_and(differ, _xp.logical_not(_xp.logical_and(_xp.isnan(s[1:]), _xp.isnan(s[:-1]))))
    starts_mask = _xp.concat([_xp.ones((1,), dtype=_dt.bool_), _xp.any(differ, axis=1)], axis=0)
    starts = _xp.nonzero(starts_mask)[0]
    values = _xp.take(s, starts, axis=0)
    index = _xp.take(perm, starts, axis=0)
    group = _xp.cumulative_sum(_astype(starts_mask, _I64)) - 1
    inverse = _xp.take(group, _xp.argsort(perm), axis=0)
    ends = _xp.concat([starts[1:], _xp.full((1,), n, dtype=_I64)], axis=0)
    return values, index, inverse, ends - starts


def unique_values(x):
    return unique(x)


def unique_counts(x):
    return UniqueCountsResult(*unique(x, return_counts=True))


def unique_inverse(x):
    return UniqueInverseResult(*unique(x, return_inverse=True))


def unique_all(x):
    return UniqueAllResult(*unique(x, True, True, True))


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    e = D.asarray(element, op="isin")
    t = D.asarray(test_elements, op="isin")
    e, t = D.promote_all([e, t], "isin")
    return _xp.isin(e, _reshape(t, (-1,)), invert=invert)


def in1d(ar1, ar2, assume_unique=False, invert=False, *, kind=None):
    return _reshape(isin(ar1, ar2, invert=invert), (-1,))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    a, b = unique(ar1), unique(ar2)
    mask = isin(a, b)
    common = a[mask]
    if not return_indices:
        return common
    _, ia = unique(ar1, return_index=True)
    _, ib = unique(ar2, return_index=True)
    ia = ia[mask]
    if b.dtype.is_bool:  # (MAX's comparisons take no bools: searched as 0 and 1)
        b, common = _astype(b, _dt.uint8), _astype(common, _dt.uint8)
    ib = _xp.take(ib, _xp.searchsorted(b, common), axis=0)
    return (common if common.dtype is a.dtype else _astype(common, a.dtype)), ia, ib


def union1d(ar1, ar2):
    a, b = D.promote_all([D.asarray(ar1, op="union1d"), D.asarray(ar2, op="union1d")], "union1d")
    return unique(_xp.concat([_reshape(a, (-1,)), _reshape(b, (-1,))], axis=0))


def setdiff1d(ar1, ar2, assume_unique=False):
    a = unique(ar1) if not assume_unique else _reshape(D.asarray(ar1), (-1,))
    return a[isin(a, ar2, invert=True)]


def setxor1d(ar1, ar2, assume_unique=False):
    a, b = unique(ar1), unique(ar2)
    return unique(_xp.concat(D.promote_all([a[isin(a, b, invert=True)], b[isin(b, a, invert=True)]], "setxor1d"),
                             axis=0))


__all__ = ["sort", "argsort", "partition", "argpartition", "lexsort", "sort_complex", "unique", "unique_values",
           "unique_counts", "unique_inverse", "unique_all", "isin", "in1d", "intersect1d", "union1d",
           "setdiff1d", "setxor1d"]
