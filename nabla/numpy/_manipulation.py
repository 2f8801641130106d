"""More of NumPy's array manipulation: ``delete``, ``insert``, ``block``, ``trim_zeros``, ``choose``,
``unstack``, ``permute_dims``, ``matrix_transpose``, and the checks ``asarray_chkfinite``,
``real_if_close``, ``require``.

Where the result's shape follows from index arguments (``delete``, ``insert``) the indices are read on
the host, as NumPy reads them, and the values move in one gather on MAX. Where it follows from the
data (``trim_zeros``) or an error does (``choose``, ``asarray_chkfinite``), one small answer is read
back from MAX.
"""

from __future__ import annotations

import numpy as _np

from .. import array_api as _xp
from ..ops.base import as_index
from ..ops.view import reshape as _reshape
from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops.elementwise import astype as _astype
from ..ops.view_layout import share_memory
from . import _dtypes as D
from ._arrays import swapaxes, transpose
from ._ufuncs import write_out

_I64 = _dt.int64


def _axis(axis, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise _np.exceptions.AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _host_index(obj):
    """Index arguments on the host (they decide the result's shape)."""
    return _np.asarray(obj.numpy() if isinstance(obj, Tensor) else obj)


def _flat_or_axis(arr, axis, op):
    a = D.asarray(arr, op=op)
    if axis is None:
        return (_reshape(a, (-1,)) if a.ndim != 1 else a), 0
    return a, _axis(axis, a.ndim)


def delete(arr, obj, axis=None):
    a, axis = _flat_or_axis(arr, axis, "delete")
    n = a.shape[axis]
    keep = _np.ones(n, dtype=bool)
    if isinstance(obj, slice):
        keep[obj] = False
    elif (index := as_index(obj)) is not None:
        obj = index
        if obj < -n or obj >= n:
            raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
        keep[obj] = False
    else:
        idx = _host_index(obj)
        if idx.size == 0 and not isinstance(obj, (_np.ndarray, Tensor)):
            idx = idx.astype(_np.intp)
        if idx.dtype == bool:
            if idx.shape != (n,):
                raise ValueError("boolean array argument obj to delete must be one dimensional and match the "
                                 f"axis length of {n}")
            keep = ~idx
        else:
            if idx.dtype.kind not in "iu" and idx.size:
                raise IndexError("arrays used as indices must be of integer (or boolean) type")
            bad = idx[(idx < -n) | (idx >= n)]
            if bad.size:
                raise IndexError(f"index {int(bad[0])} is out of bounds for axis {axis} with size {n}")
            keep[idx.astype(_np.intp)] = False
    return _xp.take(a, _xp.asarray(_np.flatnonzero(keep).astype(_np.int64)), axis=axis)


def insert(arr, obj, values, axis=None):
    a, axis = _flat_or_axis(arr, axis, "insert")
    n = a.shape[axis]
    if isinstance(obj, slice):
        idx = _np.arange(*obj.indices(n), dtype=_np.intp)
    else:
        idx = _np.array(_host_index(obj))
        if idx.dtype == bool:
            if idx.ndim != 1:
                raise ValueError("boolean array argument obj to insert must be one dimensional")
            idx = _np.flatnonzero(idx)
        elif idx.ndim > 1:
            raise ValueError("index array argument obj to insert must be one dimensional or scalar")
    if idx.size == 1:
        index = idx.item()
        if index < -n or index > n:
            raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
        index = index + n if index < 0 else index
        v = D.asarray(values, op="insert")
        v = _reshape(v, (1,) * (a.ndim - v.ndim) + v.shape) if v.ndim < a.ndim else v
        v = v if v.dtype is a.dtype else _astype(v, a.dtype)
        if idx.ndim == 0:  # NumPy: a[:, 0:1, :] = values, the values' first axis moved to ``axis``
            v = _xp.moveaxis(v, 0, axis)
        k = v.shape[axis]
        v = _xp.broadcast_to(v, a.shape[:axis] + (k,) + a.shape[axis + 1:])
        order = _np.concatenate([_np.arange(index), n + _np.arange(k), _np.arange(index, n)])
    else:
        if idx.size == 0 and not isinstance(obj, (_np.ndarray, Tensor)):
            idx = idx.astype(_np.intp)
        if idx.dtype.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        if ((idx < -n) | (idx > n)).any():
            raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
        idx = _np.where(idx < 0, idx + n, idx)
        k = idx.size
        # (the positions are the call's host arguments, as a key is: planned here, the data moves on MAX)
        order_new = _np.argsort(idx, kind="stable")
        pos = idx.copy()
        pos[order_new] += _np.arange(k)  # where each new value lands in the result
        v = D.asarray(values, op="insert")
        v = v if v.dtype is a.dtype else _astype(v, a.dtype)
        v = _xp.broadcast_to(v, a.shape[:axis] + (k,) + a.shape[axis + 1:])
        order = _np.empty(n + k, dtype=_np.int64)
        old = _np.ones(n + k, dtype=bool)
        old[pos] = False
        order[old] = _np.arange(n)
        order[pos] = n + _np.arange(k)
    both = _xp.concat([a, v], axis=axis)
    return _xp.take(both, _xp.asarray(order.astype(_np.int64)), axis=axis)


# --- block --------------------------------------------------------------------------------------------

def _at(index) -> str:
    return "arrays" + "".join(f"[{i}]" for i in index)


def _block_depth(arrays, index=()):
    """Depth of the nested lists and the deepest leaf's ndim; NumPy's errors for ragged nesting."""
    if type(arrays) is tuple:
        raise TypeError(f"{_at(index)} is a tuple. Only lists can be used to arrange blocks, and np.block does "
                        "not allow implicit conversion from tuple to ndarray.")
    if type(arrays) is list:
        if not arrays:
            raise ValueError(f"List at {_at(index)} cannot be empty")
        found = [_block_depth(x, index + (i,)) for i, x in enumerate(arrays)]
        depth = found[0][0]
        for i, (d, _) in enumerate(found):
            if d != depth:
                raise ValueError(f"List depths are mismatched. First element was at depth {depth + 1}, but there "
                                 f"is an element at depth {d + 1} ({_at(index + (i,))})")
        return depth + 1, max(nd for _, nd in found)
    return 0, D.asarray(arrays, op="block").ndim if not isinstance(arrays, Tensor) else arrays.ndim


def block(arrays):
    depth, max_ndim = _block_depth(arrays)
    ndim = max(depth, max_ndim)
    leaves = []

    def gather(x):
        if type(x) is list:
            return [gather(y) for y in x]
        leaves.append(D.asarray(x, op="block"))
        return len(leaves) - 1

    tree = gather(arrays)
    leaves = D.promote_all(leaves, "block")
    leaves = [_reshape(t, (1,) * (ndim - t.ndim) + t.shape) for t in leaves]

    def join(node, level):
        if not isinstance(node, list):
            return leaves[node]
        return _xp.concat([join(x, level + 1) for x in node], axis=-(depth - level))

    return join(tree, 0)


# --- data-dependent shapes ----------------------------------------------------------------------------

def trim_zeros(filt, trim="fb", axis=None):
    """Leading and/or trailing zeros removed (along every axis, or ``axis``); which ones is read back
    from MAX as one boolean per position."""
    a = D.asarray(filt, op="trim_zeros")
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    axes = tuple(range(a.ndim)) if axis is None else \
        tuple(_axis(ax, a.ndim) for ax in ((axis,) if isinstance(axis, int) else axis))
    if not axes:
        return filt
    nz = a != 0 if not a.dtype.is_bool else a
    starts, stops = [], []
    for ax in range(a.ndim):
        others = tuple(k for k in range(a.ndim) if k != ax)
        hit = _np.flatnonzero(_xp.any(nz, axis=others).numpy() if others else nz.numpy())
        if hit.size == 0:
            starts = stops = [0] * a.ndim
            break
        starts.append(int(hit[0]) if "f" in trim else None)
        stops.append(int(hit[-1]) + 1 if "b" in trim else None)
    key = tuple(slice(starts[ax], stops[ax]) if ax in axes else slice(None) for ax in range(a.ndim))
    if len(key) == 1 and not isinstance(filt, Tensor):  # NumPy keeps a 1-d list a list
        return filt[key[0]]
    return a[key]


def choose(a, choices, out=None, mode="raise"):
    idx = D.asarray(a, op="choose")
    if not (idx.dtype.is_integer or idx.dtype.is_bool):
        raise TypeError(f"Cannot cast array data from dtype('{idx.dtype.numpy_dtype}') to dtype('int64') "
                        "according to the rule 'safe'")
    opts = D.promote_all([D.asarray(c, op="choose") for c in (choices if not isinstance(choices, Tensor)
                                                               else _xp.unstack(choices, axis=0))], "choose")
    n = len(opts)
    idx = _astype(idx, _I64)
    if mode == "raise":
        if idx.size and bool(_xp.any(_xp.logical_or(idx < 0, idx >= n))):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        idx = idx % n
    elif mode == "clip":
        idx = _xp.clip(idx, 0, n - 1)
    else:
        raise ValueError(f"clipmode not understood: {mode!r}")
    parts = _xp.broadcast_arrays(idx, *opts)
    idx, opts = parts[0], parts[1:]
    r = _xp.squeeze(_xp.take_along_axis(_xp.stack(opts, axis=0), _xp.expand_dims(idx, axis=0), axis=0), axis=0)
    if out is not None:
        return write_out(out, r, "choose", "unsafe")
    return r


# --- axes ---------------------------------------------------------------------------------------------

def unstack(x, /, *, axis=0):
    a = D.asarray(x, op="unstack")
    if a.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    return tuple(_xp.unstack(a, axis=_axis(axis, a.ndim)))


def permute_dims(a, axes=None):
    return transpose(a, axes)


def matrix_transpose(x, /):
    a = D.asarray(x, op="matrix_transpose")
    if a.ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {a.ndim}")
    return swapaxes(a, -1, -2)


def from_dlpack(x, /, *, device=None, copy=None):
    return _xp.from_dlpack(x)


# --- checks -------------------------------------------------------------------------------------------

def asarray_chkfinite(a, dtype=None, order=None):
    x = D.asarray(a, dtype, "asarray_chkfinite")
    if x.dtype.kind in "fc" and not bool(_xp.all(_xp.isfinite(x))):
        raise ValueError("array must not contain infs or NaNs")
    return x


def real_if_close(a, tol=100):
    x = D.asarray(a, op="real_if_close")
    if not x.dtype.is_complex:
        return x
    info = _np.finfo(x.dtype.numpy_dtype)
    tol = tol * info.eps if tol > 1 else tol
    return _xp.real(x) if bool(_xp.all(_xp.abs(_xp.imag(x)) < tol)) else x


def require(a, dtype=None, requirements=None, *, like=None):
    """Nabla's arrays are C-contiguous, aligned, writeable and own their data: only ``dtype`` acts."""
    if requirements:
        known = set("CAFWOE") | {"C_CONTIGUOUS", "CONTIGUOUS", "F_CONTIGUOUS", "FORTRAN", "ALIGNED",
                                 "WRITEABLE", "OWNDATA", "ENSUREARRAY"}
        reqs = [requirements] if isinstance(requirements, str) else list(requirements)
        for r in reqs:
            if r.upper() not in known:
                raise KeyError(r)
    return D.asarray(a, dtype, "require")


def iterable(y):
    if isinstance(y, Tensor):
        return y.ndim > 0
    return _np.iterable(y)


def isfortran(a):
    x = a if isinstance(a, Tensor) else D.asarray(a, op="isfortran")
    return False if isinstance(x, Tensor) else _np.isfortran(x)  # one layout: C order


def shares_memory(a, b, max_work=None):
    """Whether ``a`` and ``b`` hold an element in the same place of memory (a view and its base, two
    overlapping slices of one array), as NumPy's: exactly, from their layouts."""
    return share_memory(D.asarray(a, op="shares_memory"), D.asarray(b, op="shares_memory"), exact=True)


def may_share_memory(a, b, max_work=None):
    """Whether the memory bounds of ``a`` and ``b`` overlap, as NumPy's."""
    return share_memory(D.asarray(a, op="may_share_memory"), D.asarray(b, op="may_share_memory"), exact=False)


__all__ = [n for n, v in list(globals().items()) if not n.startswith("_") and callable(v)
           and getattr(v, "__module__", None) == __name__]
