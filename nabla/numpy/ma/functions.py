"""``numpy.ma``'s functions on masked arrays: construction, the ``masked_*`` family, shape functions
(applied to data and mask alike, so views of both stay views), joins, ``where``, ``dot``, sorting,
comparisons of whole arrays, and the row/column helpers. All of it is face operations on MAX; only the
functions whose result size depends on the mask (``compressed``, ``compress_rowcols``) read it."""

from __future__ import annotations

import numpy as _np

from .core import (MaskedArray, _bool_array, _copy_mask, _fnp, _fresh, _or, fill_scalar, filled, getdata, getmask,
                   getmaskarray, masked, maximum_fill_value, minimum_fill_value, nomask)
from .reductions import _as_masked, mean, sum as _sum
from . import ufuncs as _ufuncs

# --- construction ---------------------------------------------------------------------------------------
masked_array = MaskedArray


def array(data, dtype=None, copy=False, order=None, mask=nomask, fill_value=None, keep_mask=True,
          hard_mask=False, shrink=True, subok=True, ndmin=0):
    return MaskedArray(data, mask=mask, dtype=dtype, copy=copy, ndmin=ndmin, fill_value=fill_value,
                       keep_mask=keep_mask, hard_mask=hard_mask, shrink=shrink)


def asarray(a, dtype=None, order=None):
    if isinstance(a, MaskedArray) and (dtype is None or _np.dtype(dtype) == a.dtype.numpy_dtype):
        return a
    return MaskedArray(a, dtype=dtype)


asanyarray = asarray


def _created(name: str):
    def make(*args, **kwargs):
        return MaskedArray._from(_fnp().asarray(getattr(_fnp(), name)(*args, **kwargs)), nomask)
    make.__name__ = name
    make.__doc__ = f"NumPy's ``{name}`` as a masked array with nothing masked."
    return make


def _created_like(name: str):
    def make(a, *args, **kwargs):
        return MaskedArray._from(getattr(_fnp(), name)(getdata(a), *args, **kwargs), nomask)
    make.__name__ = name
    return make


zeros, ones, empty, arange, identity, indices, fromfunction, frombuffer = (
    _created(n) for n in ("zeros", "ones", "empty", "arange", "identity", "indices", "fromfunction", "frombuffer"))
zeros_like, ones_like, empty_like = (_created_like(n) for n in ("zeros_like", "ones_like", "empty_like"))


def masked_all(shape, dtype=float):
    fnp = _fnp()
    return MaskedArray._from(fnp.zeros(shape, dtype), fnp.ones(shape, bool))


def masked_all_like(arr):
    a = getdata(arr)
    return masked_all(a.shape, a.dtype.numpy_dtype)


# --- masking by condition and value -------------------------------------------------------------------
def masked_where(condition, a, copy=True):
    """``a`` with the entries where ``condition`` holds masked (besides those already masked)."""
    cond = _bool_array(condition)
    a = _as_masked(a)
    if cond.shape and cond.shape != a.shape:
        raise IndexError(f"nabla.numpy.ma.masked_where: inconsistent shape between the condition and the input "
                         f"(got {cond.shape} and {a.shape})")
    data = a._data.copy() if copy else a._data
    out = MaskedArray._from(data, _or(cond, a._mask, a.shape), a)
    if not copy and a._mask is nomask:
        a._mask = out._mask
    return out


def _masked_by(op: str, sets_fill: bool = False):
    def fn(x, value, copy=True):
        out = masked_where(_ufuncs.COMPARISONS[op](x, value), x, copy=copy)
        if sets_fill:
            out.fill_value = value
        return out
    fn.__name__ = f"masked_{op}"
    return fn


masked_equal = _masked_by("equal", sets_fill=True)
masked_not_equal = _masked_by("not_equal")
masked_greater = _masked_by("greater")
masked_greater_equal = _masked_by("greater_equal")
masked_less = _masked_by("less")
masked_less_equal = _masked_by("less_equal")


def masked_inside(x, v1, v2, copy=True):
    """Entries in the closed interval between v1 and v2 masked."""
    lo, hi = min(v1, v2), max(v1, v2)
    xf = filled(x)
    return masked_where(_fnp().logical_and(xf >= lo, xf <= hi), x, copy=copy)


def masked_outside(x, v1, v2, copy=True):
    """Entries outside the closed interval between v1 and v2 masked."""
    lo, hi = min(v1, v2), max(v1, v2)
    xf = filled(x)
    return masked_where(_fnp().logical_or(xf < lo, xf > hi), x, copy=copy)


def masked_invalid(a, copy=True):
    """NaNs and infinities masked."""
    fnp = _fnp()
    return masked_where(fnp.logical_not(fnp.isfinite(getdata(a))), a, copy=copy)


def masked_values(x, value, rtol=1e-5, atol=1e-8, copy=True, shrink=True):
    """Entries close to ``value`` masked (equal, for integers); ``value`` becomes the fill value."""
    fnp = _fnp()
    xnew = filled(x, value)
    if xnew.dtype.numpy_dtype.kind in "fc":
        mask = fnp.isclose(xnew, value, atol=atol, rtol=rtol)
    else:
        mask = fnp.equal(xnew, value)
    return MaskedArray(xnew, mask=mask, copy=copy, fill_value=value)


def masked_object(x, value, copy=True, shrink=True):
    raise TypeError("nabla.numpy.ma.masked_object: object arrays cannot live on MAX; use masked_equal or "
                    "masked_values on a numeric array")


def fix_invalid(a, mask=nomask, copy=True, fill_value=None):
    """NaNs and infinities masked and their data replaced by the fill value."""
    fnp = _fnp()
    a = MaskedArray(a, mask=mask, copy=copy, fill_value=fill_value)
    invalid = fnp.logical_not(fnp.isfinite(a._data))
    fv = fill_scalar(a.fill_value, a.dtype.numpy_dtype)
    return MaskedArray._from(fnp.where(invalid, fv, a._data), _or(invalid, a._mask, a.shape), a)


# --- shape functions: the same function on data and mask ---------------------------------------------
def _on_both(name: str):
    def fn(a, *args, **kwargs):
        f = getattr(_fnp(), name)
        a = _as_masked(a)
        d = f(a._data, *args, **kwargs)
        return MaskedArray._from(d, nomask if a._mask is nomask else f(a._mask, *args, **kwargs), a)
    fn.__name__ = name
    fn.__doc__ = f"NumPy's ``{name}`` on the data and the mask alike."
    return fn


_SHAPE_FUNCTIONS = ("reshape", "ravel", "transpose", "swapaxes", "squeeze", "expand_dims", "moveaxis",
                    "repeat", "diagonal", "flip", "fliplr", "flipud", "rot90", "roll", "broadcast_to", "take",
                    "tril", "triu", "diag", "diagflat")
(reshape, ravel, transpose, swapaxes, squeeze, expand_dims, moveaxis, repeat, diagonal, flip, fliplr, flipud, rot90,
 roll, broadcast_to, take, tril, triu, diag, diagflat) = (_on_both(name) for name in _SHAPE_FUNCTIONS)
assert [f.__name__ for f in (reshape, ravel, transpose, swapaxes, squeeze, expand_dims, moveaxis, repeat, diagonal,
                             flip, fliplr, flipud, rot90, roll, broadcast_to, take, tril, triu, diag, diagflat)] \
    == list(_SHAPE_FUNCTIONS)


def _atleast(name: str):
    def fn(*arys):
        f = _on_both(name)
        out = [f(a) for a in arys]
        return out[0] if len(out) == 1 else out
    fn.__name__ = name
    return fn


atleast_1d, atleast_2d, atleast_3d = (_atleast(n) for n in ("atleast_1d", "atleast_2d", "atleast_3d"))


def _joined(name: str):
    def fn(arrays, *args, **kwargs):
        f = getattr(_fnp(), name)
        arrays = [_as_masked(a) for a in arrays]
        d = f([a._data for a in arrays], *args, **kwargs)
        m = nomask if all(a._mask is nomask for a in arrays) else \
            f([getmaskarray(a) for a in arrays], *args, **kwargs)
        return MaskedArray._from(d, m, arrays[0] if arrays else None)
    fn.__name__ = name
    return fn


concatenate, stack, vstack, hstack, dstack, column_stack = (
    _joined(n) for n in ("concatenate", "stack", "vstack", "hstack", "dstack", "column_stack"))
row_stack = vstack


def compress(condition, a, axis=None):
    """The entries (or slices along ``axis``) where ``condition`` holds; its length is read."""
    fnp = _fnp()
    a = _as_masked(a)
    return MaskedArray._from(fnp.compress(condition, a._data, axis),
                             nomask if a._mask is nomask else fnp.compress(condition, a._mask, axis), a)


def put(a, indices, values, mode="raise"):
    """``a.flat[indices] = values``, masks included."""
    fnp = _fnp()
    flat = ravel(a)  # a view: writes reach a
    idx = fnp.asarray(getdata(indices))
    vals = _as_masked(values)
    n = idx.size
    vd = fnp.resize(fnp.ravel(vals._data), (n,))
    flat[fnp.ravel(idx)] = MaskedArray._from(vd, nomask if vals._mask is nomask else
                                             fnp.resize(fnp.ravel(vals._mask), (n,)))


def angle(z, deg=False):
    z = _as_masked(z)
    return MaskedArray._from(_fnp().angle(z._data, deg), _copy_mask(z._mask), z)


def cov(x, y=None, rowvar=True, bias=False, allow_masked=True, ddof=None):
    """Covariance over the pairs of observations both unmasked (NumPy's ``ma.cov``)."""
    fnp = _fnp()
    x = MaskedArray(x, ndmin=2, copy=True, dtype=float)
    if not allow_masked and x._mask is not nomask and bool(fnp.any(x._mask)):
        raise ValueError("nabla.numpy.ma.cov: cannot process masked data (allow_masked=False)")
    rowvar = True if x.shape[0] == 1 else rowvar
    if y is not None:
        y = MaskedArray(y, ndmin=2, copy=True, dtype=float)
        if x.shape == y.shape:  # (NumPy's: an observation masked in either is masked in both)
            both = fnp.logical_or(getmaskarray(x), getmaskarray(y))
            x, y = MaskedArray._from(x._data, both), MaskedArray._from(y._data, both)
        x = concatenate([x, y], axis=0 if rowvar else 1)
    ddof = (0 if bias else 1) if ddof is None else ddof

    x = x - mean(x, axis=1 if rowvar else 0, keepdims=True)
    present = fnp.logical_not(getmaskarray(x)).astype(float)
    xf = filled(x, 0)
    if rowvar:
        fact, data = fnp.dot(present, present.T) - ddof, fnp.dot(xf, fnp.conj(xf).T)
    else:
        fact, data = fnp.dot(present.T, present) - ddof, fnp.dot(xf.T, fnp.conj(xf))
    out = _ufuncs.MASKED_UFUNCS["true_divide"](data, fact)
    out = MaskedArray._from(out._data, fnp.logical_or(getmaskarray(out), fact <= 0))
    return squeeze(out)


def corrcoef(x, y=None, rowvar=True, bias=None, allow_masked=True, ddof=None):
    c = cov(x, y, rowvar, allow_masked=allow_masked)
    if c.ndim == 0:
        return c / c
    d = _ufuncs.MASKED_UFUNCS["sqrt"](diagonal(c))
    return c / _ufuncs.MASKED_UFUNCS["multiply"].outer(d, d)


def ndenumerate(a, compressed=True):
    """(index, value) pairs of the unmasked entries (all, with ``masked``, if not ``compressed``): read."""
    for index, value in _np.ma.ndenumerate(_as_masked(a).numpy(), compressed=compressed):
        yield index, (masked if value is _np.ma.masked else value)


def append(a, b, axis=None):
    a, b = _as_masked(a), _as_masked(b)
    if axis is None:
        a, b = ravel(a), ravel(b)
        axis = 0
    return concatenate([a, b], axis=axis)


def diff(a, n=1, axis=-1, prepend=None, append=None):  # noqa: A002
    a = _as_masked(a)
    parts = [_as_masked(p) for p in (prepend, a, append) if p is not None]
    if len(parts) > 1:
        axis_ = axis % a.ndim
        parts = [p if p.ndim == a.ndim else
                 broadcast_to(p, a.shape[:axis_] + (1,) + a.shape[axis_ + 1:])
                 for p in parts]
        a = concatenate(parts, axis=axis)
    for _ in range(n):
        k = a.shape[axis]
        hi = (slice(None),) * (axis % a.ndim) + (slice(1, k),)
        lo = (slice(None),) * (axis % a.ndim) + (slice(0, k - 1),)
        a = a[hi] - a[lo]
    return a


def ediff1d(arr, to_end=None, to_begin=None):
    return diff(ravel(arr), prepend=to_begin, append=to_end)


# --- values ---------------------------------------------------------------------------------------------
def where(condition, x=None, y=None):
    """NumPy's ``ma.where``: masked where the condition is, or where the chosen operand is."""
    fnp = _fnp()
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("nabla.numpy.ma.where: either both or neither of x and y should be given")
    cf = fnp.asarray(filled(condition, False) if isinstance(condition, MaskedArray) else getdata(condition))
    cf = cf if cf.dtype.numpy_dtype == _np.bool_ else cf.astype(bool)
    xd, yd, xm, ym = getdata(x), getdata(y), getmask(x), getmask(y)
    if x is masked and y is not masked:
        xd = fnp.zeros((), fnp.asarray(yd).dtype.numpy_dtype)
    elif y is masked and x is not masked:
        yd = fnp.zeros((), fnp.asarray(xd).dtype.numpy_dtype)
    data = fnp.where(cf, xd, yd)
    cm = getmask(condition)
    if xm is nomask and ym is nomask and cm is nomask:
        return MaskedArray._from(data, nomask)
    xm = fnp.zeros((), bool) if xm is nomask else xm
    ym = fnp.zeros((), bool) if ym is nomask else ym
    m = fnp.where(cf, xm, ym)
    m = m if cm is nomask else fnp.logical_or(m, cm)
    return MaskedArray._from(data, _fresh(m, data.shape))


def nonzero(a):
    return _fnp().nonzero(filled(_as_masked(a), 0))


def clip(a, a_min=None, a_max=None, **kwargs):
    a = _as_masked(a)

    def bound(v):  # (a Python number stays one: weak, so an int32 array stays int32)
        return v if v is None or type(v) in (int, float, bool) else getdata(v)

    return MaskedArray._from(_fnp().clip(a._data, bound(a_min), bound(a_max), **kwargs), _copy_mask(a._mask), a)


def round(a, decimals=0, out=None):  # noqa: A001
    a = _as_masked(a)
    return MaskedArray._from(_fnp().around(a._data, decimals), _copy_mask(a._mask), a)


around = round_ = round


def copy(a):
    a = _as_masked(a)
    return MaskedArray._from(a._data.copy(), _copy_mask(a._mask), a)


def dot(a, b, strict=False, out=None):
    """Products over unmasked entries; a result entry is masked when every product behind it is
    (``strict=True``: when any is, by masking whole rows of ``a`` and columns of ``b``)."""
    fnp = _fnp()
    a, b = _as_masked(a), _as_masked(b)
    if strict and a.ndim == 2 and b.ndim == 2:
        a, b = mask_rowcols(a, 0), mask_rowcols(b, 1)
    d = fnp.dot(filled(a, 0), filled(b, 0))
    if a._mask is nomask and b._mask is nomask:
        return MaskedArray._from(d, nomask, a)
    am = fnp.logical_not(getmaskarray(a)).astype(fnp.float32)
    bm = fnp.logical_not(getmaskarray(b)).astype(fnp.float32)
    return MaskedArray._from(d, fnp.logical_not(fnp.dot(am, bm) > 0), a)


def inner(a, b):
    a, b = _as_masked(a), _as_masked(b)
    return dot(a, swapaxes(b, -1, -2) if b.ndim > 1 else b)


innerproduct = inner


def outer(a, b):
    return _ufuncs.MASKED_UFUNCS["multiply"].outer(ravel(a), ravel(b))


outerproduct = outer


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return _sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def putmask(a, mask, values):
    """``a[mask] = values`` (values repeated over the masked entries, as NumPy)."""
    fnp = _fnp()
    m = _bool_array(mask)
    vals = _as_masked(values)
    n = a.size
    reps = -(-n // max(vals.size, 1))
    flat = MaskedArray._from(fnp.reshape(fnp.tile(fnp.ravel(vals._data), reps)[:n], a.shape),
                             nomask if vals._mask is nomask else
                             fnp.reshape(fnp.tile(fnp.ravel(vals._mask), reps)[:n], a.shape))
    a[...] = where(m, flat, a)


# --- sorting ----------------------------------------------------------------------------------------------
def argsort(a, axis=-1, kind=None, order=None, endwith=True, fill_value=None, stable=None):
    """Indices that sort the unmasked entries, the masked ones last (``endwith=False``: first)."""
    a = _as_masked(a)
    if fill_value is None:
        if endwith:
            fill_value = _np.nan if a.dtype.numpy_dtype.kind == "f" else minimum_fill_value(a)
        else:
            fill_value = maximum_fill_value(a)
    x = a.filled(fill_value)
    if axis is None:
        x, axis = _fnp().ravel(x), 0
    return _fnp().argsort(x, axis=axis, kind="stable" if kind is None else kind)


def sort(a, axis=-1, kind=None, order=None, endwith=True, fill_value=None, stable=None):
    a = _as_masked(a)
    if axis is None:
        a, axis = ravel(a), 0
    idx = argsort(a, axis, kind, order, endwith, fill_value)
    fnp = _fnp()
    return MaskedArray._from(fnp.take_along_axis(a._data, idx, axis),
                             nomask if a._mask is nomask else fnp.take_along_axis(a._mask, idx, axis), a)


# --- whole-array comparisons (read: they return Python bools) -----------------------------------------
def allequal(a, b, fill_value=True):
    fnp = _fnp()
    m = _or(getmask(a), getmask(b), fnp.broadcast_shapes(_np.shape(getdata(a)), _np.shape(getdata(b))))
    d = fnp.equal(getdata(a), getdata(b))
    if m is nomask:
        return bool(fnp.all(d))
    return bool(fnp.all(fnp.logical_or(d, m))) if fill_value else False


def allclose(a, b, masked_equal=True, rtol=1e-5, atol=1e-8):
    x, y = _as_masked(a), _as_masked(b)
    close = _ufuncs.COMPARISONS["less_equal"](abs(x - y), atol + rtol * abs(y))
    same = _ufuncs.COMPARISONS["equal"](x, y)  # equal infinities
    fnp = _fnp()
    ok = fnp.logical_or(filled(close, masked_equal), filled(same, masked_equal))
    return bool(fnp.all(ok))


# --- rows and columns ---------------------------------------------------------------------------------
def mask_rowcols(a, axis=None):
    """A 2-D array with every row (``axis=0``), column (``1``) or both (None) holding a masked entry masked."""
    fnp = _fnp()
    a = _as_masked(a)
    if a.ndim != 2:
        raise NotImplementedError("nabla.numpy.ma.mask_rowcols: works for 2-D arrays only")
    if a._mask is nomask:
        return copy(a)
    m = a._mask
    if axis in (None, 0):
        m = fnp.logical_or(m, fnp.any(a._mask, axis=1, keepdims=True))
    if axis in (None, 1, -1):
        m = fnp.logical_or(m, fnp.any(a._mask, axis=0, keepdims=True))
    return MaskedArray._from(a._data.copy(), _fresh(m, a.shape), a)


def mask_rows(a, axis=None):
    return mask_rowcols(a, 0)


def mask_cols(a, axis=None):
    return mask_rowcols(a, 1)


def compress_rowcols(x, axis=None):
    """The 2-D data without the rows and/or columns that hold a masked entry (reads the mask)."""
    fnp = _fnp()
    x = _as_masked(x)
    if x.ndim != 2:
        raise NotImplementedError("nabla.numpy.ma.compress_rowcols: works for 2-D arrays only")
    d = x._data
    if x._mask is nomask:
        return d
    if axis in (None, 0):
        d = d[fnp.logical_not(fnp.any(x._mask, axis=1))]
    if axis in (None, 1, -1):
        d = d[:, fnp.logical_not(fnp.any(x._mask, axis=0))]
    return d


def compress_rows(a):
    return compress_rowcols(a, 0)


def compress_cols(a):
    return compress_rowcols(a, 1)


def compressed(x):
    return _as_masked(x).compressed()


def flatten_mask(mask):
    return _fnp().ravel(_bool_array(mask))


def make_mask_descr(ndtype):
    return _np.dtype(_np.bool_)


def common_fill_value(a, b):
    fa, fb = _as_masked(a).fill_value, _as_masked(b).fill_value
    return fa if fa == fb else None


def set_fill_value(a, fill_value):
    if isinstance(a, MaskedArray):
        a.fill_value = fill_value


def harden_mask(a):
    return a.harden_mask()


def soften_mask(a):
    return a.soften_mask()


def shape(obj):
    return _np.shape(getdata(obj)) if not hasattr(obj, "shape") else obj.shape


def ndim(obj):
    return len(shape(obj))


def size(obj, axis=None):
    s = shape(obj)
    return int(_np.prod(s)) if axis is None else s[axis]


