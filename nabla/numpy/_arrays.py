"""Creation and manipulation as NumPy spells them (float64/int64 defaults, lists accepted), over
``nabla.array_api``. Reshapes, transposes and basic slices return views (see ``ops/aliasing.py``)."""

from __future__ import annotations

import builtins
import math
import operator

import numpy as _np

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops import aliasing
from ..ops.base import as_index, normalize_axis
from ..ops.elementwise import astype as _astype
from ..ops.view_layout import is_c_contiguous, is_f_contiguous
from ..ops.broadcasting import grids
from ..ops.indexing import check_bounds
from . import _dtypes as D
from ._reductions import sum as _sum
from ._ufuncs import write_out

_F64, _I64 = _dt.float64, _dt.int64


def _default(dtype, op, fallback=_F64):
    return D.to_nabla(dtype, op) or fallback


def _shape(shape) -> tuple:
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    return (operator.index(shape),) if not isinstance(shape, (tuple, list)) else tuple(operator.index(s) for s in shape)


# --- creation -----------------------------------------------------------------------------------------

def array(obj, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None, device=None):
    x = D.asarray(obj, dtype, "array", device, strings=True)
    if isinstance(x, _np.ndarray):  # strings: NumPy's own array, on the host
        return _np.array(x, copy=False, ndmin=ndmin)
    if isinstance(obj, Tensor) and x is obj and copy is not False:
        x = Tensor(obj._impl)  # values are immutable underneath: a new name is a copy
    if x.ndim < ndmin:
        x = _reshape(x, (1,) * (ndmin - x.ndim) + x.shape)
    return x


def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    if copy:
        return array(a, dtype, device=device)
    x = D.asarray(a, dtype, "asarray", device, strings=True)
    if order in ("C", "F") and isinstance(x, Tensor) and x.ndim > 1 \
            and not (is_c_contiguous(x) if order == "C" else is_f_contiguous(x)):
        return array(x, device=device)  # (NumPy's copy where the memory is not in that order)
    return x


def asfortranarray(a, dtype=None, *, like=None):
    """``a`` itself where its elements are one run of memory in Fortran order, else a copy."""
    return asarray(a, dtype, order="F")


asanyarray = ascontiguousarray = asarray


def copy(a, order="K", subok=False):
    return array(a, copy=True)


def zeros(shape, dtype=None, order="C", *, device=None, like=None):
    return _xp.zeros(_shape(shape), dtype=_default(dtype, "zeros"), device=device)


def ones(shape, dtype=None, order="C", *, device=None, like=None):
    return _xp.ones(_shape(shape), dtype=_default(dtype, "ones"), device=device)


def empty(shape, dtype=None, order="C", *, device=None, like=None):
    return zeros(shape, dtype, device=device)


def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    if dtype is None:
        fill = D.asarray(fill_value, op="full")
        return _xp.broadcast_to(fill, _shape(shape)) if fill.ndim else \
            _xp.full(_shape(shape), fill.item(), dtype=fill.dtype, device=device)
    target = D.to_nabla(dtype, "full")
    if isinstance(fill_value, (Tensor, list, tuple, _np.ndarray)) and _np.ndim(fill_value):
        # (an array fill: broadcast, cast as ``copyto`` casts it, unsafe)
        return _xp.broadcast_to(_astype(D.asarray(fill_value, op="full"), target), _shape(shape))
    return _xp.full(_shape(shape), _fill(fill_value, target), dtype=target, device=device)


def _fill(value, dtype):
    """A scalar fill converted as NumPy's ``full`` converts it (``copyto`` with unsafe casting: a
    float into an integer dtype is C-cast, an int that does not fit is NEP 50's OverflowError):
    the 0-d conversion of one Python scalar on the host, never array data."""
    if isinstance(value, (int, float, complex, _np.generic)) and not isinstance(value, _np.datetime64):
        return _np.full((), value, dtype=dtype.numpy_dtype).item()
    return value


def _like(fn, a, dtype, shape, **kw):
    x = D.asarray(a, op=fn.__name__)
    return fn(x.shape if shape is None else shape, dtype=dtype or x.dtype, **kw)


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _like(zeros, a, dtype, shape)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _like(ones, a, dtype, shape)


def empty_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _like(zeros, a, dtype, shape)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    x = D.asarray(a, op="full_like")
    target = D.to_nabla(dtype, "full_like") or x.dtype
    return _xp.full(x.shape if shape is None else _shape(shape), _fill(fill_value, target), dtype=target)


def arange(start, stop=None, step=None, dtype=None, *, device=None, like=None):
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    target = D.to_nabla(dtype, "arange")
    if target is None:
        target = _dt.as_dtype(_np.result_type(*(v.dtype.numpy_dtype if isinstance(v, Tensor) else
                                                type(v) if not isinstance(v, _np.generic) else v.dtype
                                                for v in (start, stop, step))))
        if target.kind == "f":
            target = _F64
    return _xp.arange(start, stop, step, dtype=target, device=device)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    if isinstance(start, (Tensor, list, tuple, _np.ndarray)) or isinstance(stop, (Tensor, list, tuple, _np.ndarray)):
        lo, hi = D.asarray(start, _np.float64, "linspace"), D.asarray(stop, _np.float64, "linspace")
        t = _xp.linspace(0.0, 1.0, num, dtype=_F64, endpoint=endpoint)
        t = _reshape(t, (num,) + (1,) * builtins.max(lo.ndim, hi.ndim))
        out = lo + (hi - lo) * t
        if axis != 0:
            out = _xp.moveaxis(out, 0, axis)
    else:
        out = _xp.linspace(start, stop, num, dtype=_F64, endpoint=endpoint, device=device)
    if dtype is not None:
        target = D.to_nabla(dtype, "linspace")
        if target.is_integer:  # (NumPy 2 floors toward an integer dtype, where a cast truncates)
            out = _xp.floor(out)
        out = _astype(out, target)
    if retstep:
        div = (num - 1) if endpoint else num
        step = (stop - start) / div if div > 0 else _np.nan  # (of Python numbers or 0-d data: a 0-d result)
        return out, D.asarray(step, _np.float64, "linspace")
    return out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    out = _xp.pow(float(base), linspace(start, stop, num, endpoint, axis=axis))
    return out if dtype is None else _astype(out, D.to_nabla(dtype, "logspace"))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    if start == 0 or stop == 0:
        raise ValueError("nabla.numpy.geomspace: geometric sequence cannot include zero")
    # NumPy's steps: start rotated to positive, 10 ** linspace of the log10s, the ends set exactly (1..1000
    # gives exact powers of ten before an integer cast truncates), rotated back; log10 < 0 is NaN
    sign = 1.0 if start > 0 else -1.0
    lo, hi = float(start) * sign, float(stop) * sign
    out = logspace(math.log10(lo), math.log10(hi) if hi > 0 else math.nan, num, endpoint, dtype=_F64)
    ends = [_xp.full((1,), v, dtype=_F64) for v in (lo, hi)]
    out = out if num == 0 else _xp.concat([ends[0], out[1:-1], ends[1]] if num > 1 and endpoint else [ends[0], out[1:]])
    return out * sign if dtype is None else _astype(out * sign, D.to_nabla(dtype, "geomspace"))


def eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    return _xp.eye(N, M, k=k, dtype=_default(dtype, "eye"), device=device)


def identity(n, dtype=None, *, like=None):
    return eye(n, dtype=dtype or float)


def tri(N, M=None, k=0, dtype=float, *, like=None):
    return _xp.tril(_xp.ones((N, N if M is None else M), dtype=_default(dtype, "tri")), k=k)


def tril(m, k=0):
    return _xp.tril(D.asarray(m, op="tril"), k=k)


def triu(m, k=0):
    return _xp.triu(D.asarray(m, op="triu"), k=k)


def diag(v, k=0):
    x = D.asarray(v, op="diag")
    if x.ndim not in (1, 2):
        raise ValueError(f"nabla.numpy.diag: input must be 1-D or 2-D, got shape {x.shape}")
    return diagonal(x, k) if x.ndim == 2 else _xp.diag(x, k=k)  # (of a matrix: its read-only view, as NumPy's)


def diagflat(v, k=0):
    return diag(ravel(D.asarray(v, op="diagflat")), k)


def diagonal(a, offset=0, axis1=0, axis2=1):
    x = D.asarray(a, op="diagonal")
    if x.ndim < 2:
        raise ValueError(f"nabla.numpy.diagonal: needs at least 2-D, got shape {x.shape}")
    derive = lambda p: _xp.linalg.diagonal(_xp.moveaxis(p, (axis1, axis2), (-2, -1)), offset=offset)  # noqa: E731
    return aliasing.read_only_view(x, derive(x), derive)  # NumPy's diagonal is a read-only view


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return _sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype, out=out)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    arrays = [ravel(D.asarray(x, op="meshgrid")) for x in xi]
    if sparse:
        n = len(arrays)
        out = []
        for k, a in enumerate(arrays):
            pos = (1 - k if k < 2 else k) if indexing == "xy" and n > 1 else k
            out.append(_reshape(a, tuple(a.shape[0] if j == pos else 1 for j in range(n))))
        return tuple(out)
    return grids(arrays, indexing)  # (each grid in its array's dtype, as NumPy's)


def indices(dimensions, dtype=int, sparse=False):
    dims = tuple(dimensions)
    grids = [_reshape(_xp.arange(n, dtype=_default(dtype, "indices", _I64)),
                         tuple(n if j == k else 1 for j in range(len(dims)))) for k, n in enumerate(dims)]
    if sparse:
        return tuple(grids)
    return _xp.stack([_xp.broadcast_to(g, dims) for g in grids], axis=0) if dims else _xp.zeros((0,), dtype=_I64)


def fromfunction(function, shape, *, dtype=float, **kwargs):
    return function(*indices(shape, dtype=dtype), **kwargs)


# --- views and reshaping ------------------------------------------------------------------------------

def _index_order(order, op: str) -> str:
    """NumPy's index orders: 'C' (last index fastest) or 'F' (first fastest). Nabla's arrays are
    logically C-ordered, so 'A' reads as 'C', and so does 'K' (memory order is C order here)."""
    if order is None or order in ("C", "A", "K"):
        return "C"
    if order == "F":
        return "F"
    raise ValueError(f"nabla.numpy.{op}: order must be one of 'C', 'F', 'A' or 'K' (got {order!r})")


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    x = D.asarray(a, op="reshape")
    shape = shape if shape is not None else newshape
    if _index_order(order, "reshape") == "C":
        return aliasing.reshape(x, shape)
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    return _fortran(x, lambda t: _reshape(t, dims[::-1]), lambda t: aliasing.reshape(t, dims[::-1]))


def ravel(a, order="C"):
    x = D.asarray(a, op="ravel")
    if _index_order(order, "ravel") == "C":  # (NumPy's view of C-ordered memory only, else a copy)
        return aliasing.reshape(x, (-1,)) if is_c_contiguous(x) else _reshape(x, (-1,))
    return _fortran(x, lambda t: _reshape(t, (-1,)), lambda t: aliasing.reshape(t, (-1,)))


def _fortran(x, flat, flat_view):
    """A reshape in Fortran order: the axes reversed, reshaped in C order, reversed back. NumPy
    gives a view where the array has at most one axis longer than 1 (its elements are in Fortran
    order already) and a copy otherwise; so does this."""
    if builtins.sum(d > 1 for d in x.shape) <= 1:
        out = flat_view(aliasing.transpose(x))
        return aliasing.transpose(out) if out.ndim > 1 else out
    out = flat(_xp.permute_dims(x, tuple(reversed(range(x.ndim)))))
    return D.as_face(_xp.permute_dims(out, tuple(reversed(range(out.ndim)))))
def transpose(a, axes=None):
    x = D.asarray(a, op="transpose")
    return aliasing.transpose(x, *(() if axes is None else (tuple(axes),)))


def swapaxes(a, axis1, axis2):
    return aliasing.swapaxes(D.asarray(a, op="swapaxes"), axis1, axis2)


def moveaxis(a, source, destination):
    x = D.asarray(a, op="moveaxis")
    src = [normalize_axis(s, x.ndim, "moveaxis") for s in ((source,) if isinstance(source, int) else source)]
    dst = [normalize_axis(d, x.ndim, "moveaxis") for d in ((destination,) if isinstance(destination, int) else destination)]
    order = [k for k in range(x.ndim) if k not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return aliasing.transpose(x, tuple(order))


def rollaxis(a, axis, start=0):
    x = D.asarray(a, op="rollaxis")
    axis %= x.ndim
    start = start % (x.ndim + 1) if start < 0 else start
    return moveaxis(x, axis, start if start < axis else start - 1)


def squeeze(a, axis=None):
    x = D.asarray(a, op="squeeze")
    if axis is None:
        axis = tuple(k for k, n in enumerate(x.shape) if n == 1)
    return aliasing.squeeze(x, axis)


def expand_dims(a, axis):
    x = D.asarray(a, op="expand_dims")
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    n = x.ndim + len(axes)
    axes = sorted(normalize_axis(k, n, "expand_dims") for k in axes)
    shape = list(x.shape)
    for k in axes:
        shape.insert(k, 1)
    return aliasing.reshape(x, tuple(shape))


def atleast_1d(*arys):  # (each a view of its array, as NumPy's)
    out = [D.asarray(a, op="atleast_1d") for a in arys]
    out = [aliasing.reshape(a, (1,)) if a.ndim == 0 else a for a in out]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_2d(*arys):
    out = [D.asarray(a, op="atleast_2d") for a in arys]
    out = [aliasing.reshape(a, (1,) * (2 - a.ndim) + a.shape) if a.ndim < 2 else a for a in out]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_3d(*arys):
    def up(a):
        if a.ndim == 0:
            return aliasing.reshape(a, (1, 1, 1))
        if a.ndim == 1:
            return aliasing.reshape(a, (1, a.shape[0], 1))
        if a.ndim == 2:
            return aliasing.reshape(a, a.shape + (1,))
        return a

    out = [up(D.asarray(a, op="atleast_3d")) for a in arys]
    return out[0] if len(out) == 1 else tuple(out)


def broadcast_to(array, shape, subok=False):
    x, shape = D.asarray(array, op="broadcast_to"), _shape(shape)
    derive = lambda p: _xp.broadcast_to(p, shape)  # noqa: E731
    return aliasing.read_only_view(x, derive(x), derive)  # read-only, as NumPy's


def broadcast_arrays(*args, subok=False):
    """Each array itself where it has the common shape, else its read-only broadcast view (NumPy's
    are views, writable under a FutureWarning: a write into one here raises, as into broadcast_to's)."""
    xs = [D.asarray(a, op="broadcast_arrays") for a in args]
    shape = _xp.broadcast_shapes(*(x.shape for x in xs))
    return tuple(x if x.shape == shape else broadcast_to(x, shape) for x in xs)


broadcast_shapes = _xp.broadcast_shapes


# --- rearranging --------------------------------------------------------------------------------------

def flip(m, axis=None):
    return _xp.flip(D.asarray(m, op="flip"), axis=axis)


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def rot90(m, k=1, axes=(0, 1)):
    x = D.asarray(m, op="rot90")
    k %= 4
    a, b = axes
    if k == 0:
        return array(x)
    if k == 2:
        return flip(flip(x, a), b)
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return _xp.permute_dims(flip(x, b), perm) if k == 1 else flip(_xp.permute_dims(x, perm), b)


def roll(a, shift, axis=None):
    x = D.asarray(a, op="roll")
    if axis is not None:  # (NumPy broadcasts shifts against axes, and adds the shifts of one axis)
        shifts = (shift,) if as_index(shift) is not None else tuple(shift)
        axes = (axis,) if as_index(axis) is not None else tuple(axis)
        if len(shifts) != len(axes) and 1 in (len(shifts), len(axes)):
            n = builtins.max(len(shifts), len(axes))
            shifts, axes = (shifts * n if len(shifts) == 1 else shifts), (axes * n if len(axes) == 1 else axes)
        total: dict = {}
        for s, ax in zip(shifts, axes):
            ax = normalize_axis(ax, x.ndim, "roll")
            total[ax] = total.get(ax, 0) + as_index(s)
        if len(shifts) == len(axes):
            shift, axis = tuple(total.values()), tuple(total)
    return _xp.roll(x, shift, axis=axis)


def tile(A, reps):
    return _xp.tile(D.asarray(A, op="tile"), (reps,) if isinstance(reps, int) else tuple(reps))


def resize(a, new_shape):
    """``a``'s entries, flattened and repeated cyclically, in ``new_shape`` (zeros if ``a`` is empty)."""
    x = D.asarray(a, op="resize")
    shape = _shape(new_shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"nabla.numpy.resize: all elements of new_shape must be non-negative, got {shape}")
    n = math.prod(shape)
    if x.size == 0 or n == 0:
        return _xp.zeros(shape, dtype=x.dtype)
    flat = _reshape(x, (-1,))
    return _reshape(_xp.tile(flat, (-(-n // x.size),))[:n], shape)


def repeat(a, repeats, axis=None):
    x = D.asarray(a, op="repeat")
    if isinstance(repeats, int):
        negative = repeats < 0
    else:
        repeats = D.asarray(repeats, op="repeat")
        negative = repeats.size and int(_xp.min(repeats)) < 0  # (the counts are read anyway: the result's length)
    if negative:
        raise ValueError("nabla.numpy.repeat: repeats may not contain negative values.")
    if axis is None:
        x, axis = _reshape(x, (-1,)), 0
    return _xp.repeat(x, repeats, axis=axis)


def take(a, indices, axis=None, out=None, mode="raise"):
    x = D.asarray(a, op="take")
    idx = D.asarray(indices, op="take")
    if axis is None:
        x, axis = _reshape(x, (-1,)), 0
    if mode == "wrap":
        idx = idx % x.shape[axis]
    elif mode == "clip":
        idx = _xp.clip(idx, 0, x.shape[axis] - 1)
    flat = _reshape(idx, (-1,))
    r = _xp.take(x, flat, axis=axis)
    r = _reshape(r, x.shape[:axis] + idx.shape + x.shape[axis + 1:])
    if out is not None:
        return write_out(out, r, "take")
    return r


def take_along_axis(arr, indices, axis=-1):
    x = D.asarray(arr, op="take_along_axis")
    if axis is None:
        x, axis = _reshape(x, (-1,)), 0
    idx = D.asarray(indices, op="take_along_axis")
    if x.ndim:
        check_bounds(idx, x.shape[axis % x.ndim], axis % x.ndim, "take_along_axis")
    return _xp.take_along_axis(x, idx, axis=axis)


__all__ = [n for n, v in list(globals().items()) if not n.startswith("_") and callable(v)
           and getattr(v, "__module__", None) == __name__]
