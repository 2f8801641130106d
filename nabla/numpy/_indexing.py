"""Index helpers and in-place writers as NumPy spells them: ``where``, ``nonzero``, ``argwhere``,
``unravel_index``, ``ix_``, ``r_``/``c_``, ``put``, ``putmask``, ``copyto``, ``select``, ``digitize``,
``searchsorted``, ``sliding_window_view``. Writers go through ``ops.aliasing`` so views stay in sync."""

from __future__ import annotations

import math
import warnings

import numpy as _np

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops import aliasing
from ..ops.indexing import check_bounds
from ..ops.elementwise import astype as _astype
from . import _dtypes as D
from ._arrays import arange, array, linspace
from ._joins import concatenate
from ._ndarray import ndarray
from ._ufuncs import plain_operands, write_out
from ..ops.elementwise import where_op
from . import _strings

_I64 = _dt.int64
_PY_SCALARS = (bool, int, float, complex)


def where(condition, x=None, y=None):
    if type(condition) is ndarray and x is not None and y is not None:
        r = _plain_where(condition, x, y)
        if r is not None:
            return r
    if (x is not None and _strings.is_text(x)) or (y is not None and _strings.is_text(y)):
        # (strings stay on the host: NumPy's where, the condition and any other choice read back)
        return _strings.on_host("where", tuple(_np.asarray(v) for v in (condition, x, y)), {}, None)
    cond = D.asarray(condition, op="where")
    if x is None and y is None:
        return nonzero(cond)
    if x is None or y is None:
        raise ValueError("nabla.numpy.where: either both or neither of x and y should be given")
    a, b = D.operand(x, "where"), D.operand(y, "where")
    if isinstance(a, Tensor) and isinstance(b, Tensor) and a.dtype is not b.dtype:
        a, b = D.promote_all([a, b], "where")
    elif not isinstance(a, Tensor) and not isinstance(b, Tensor):
        if type(a) in _PY_SCALARS and type(b) in _PY_SCALARS:  # both weak: NEP 50's dtype, C-cast into it
            target = _np.result_type(a, b)
            a, b = (_np.asarray(v).astype(target) for v in (a, b))
        a, b = D.promote_all([D.asarray(a), D.asarray(b)], "where")
    elif isinstance(a, Tensor) != isinstance(b, Tensor):  # one weak scalar: NEP 50 decides the dtype
        t = a if isinstance(a, Tensor) else b
        s = b if t is a else a
        target = _np.result_type(t.dtype.numpy_dtype, s)
        t = D.cast(t, target)
        if type(s) is int and target.kind in "iub":
            # NumPy's where converts the scalar as a C cast (-1 with uint8 is 255); an int past
            # 64 bits is its OverflowError
            s = _np.asarray(s).astype(target).item()
        a, b = (t, s) if t is not None and isinstance(a, Tensor) else (s, t)
    return _xp.where(_astype(cond, _dt.bool_) if cond.dtype is not _dt.bool_ else cond, a, b)


def _plain_where(cond, x, y):
    """``where`` of a bool array over ``x`` and ``y`` that ``plain_operands`` takes as they are:
    the select recorded without dtype resolution (a loop's ``where(mask, x, 0.0)`` is one op);
    None for anything else."""
    if cond._impl.dtype is not _dt.bool_ or cond._impl.batch_dims:
        return None
    pair = plain_operands(x, y)
    return None if pair is None else where_op(cond, *pair)


def nonzero(a):
    x = D.asarray(a, op="nonzero")
    if x.ndim == 0:
        raise ValueError("nabla.numpy.nonzero: calling nonzero on 0d arrays is not allowed; use atleast_1d")
    return tuple(_xp.nonzero(x))


def flatnonzero(a):
    return _xp.nonzero(_reshape(D.asarray(a, op="flatnonzero"), (-1,)))[0]


def argwhere(a):
    x = D.asarray(a, op="argwhere")
    if x.ndim == 0:  # (NumPy's: one row of no coordinates where it is nonzero, none where it is zero)
        return _xp.zeros((int(bool(x)), 0), dtype=_dt.int64, device=x.device)
    return _xp.stack(_xp.nonzero(x), axis=1)


def unravel_index(indices, shape, order="C"):
    idx = D.asarray(indices, op="unravel_index")
    out = []
    for n in reversed(tuple(shape)):
        out.append(idx % n)
        idx = idx // n
    return tuple(reversed(out))


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    parts = [D.asarray(i, op="ravel_multi_index") for i in multi_index]
    flat = None
    for axis, (p, n) in enumerate(zip(parts, dims)):
        if mode == "raise":
            try:
                check_bounds(p, n, axis, "ravel_multi_index", negative=False)
            except IndexError as e:  # (NumPy's class here)
                raise ValueError(f"nabla.numpy.ravel_multi_index: invalid entry in coordinates array ({e})") from None
        p = p % n if mode == "wrap" else _xp.clip(p, 0, n - 1) if mode == "clip" else p
        flat = p if flat is None else flat * n + p
    return flat


def ix_(*args):
    n = len(args)
    out = []
    for k, a in enumerate(args):
        x = D.asarray(a, op="ix_")
        if x.dtype.is_bool:
            x = _xp.nonzero(x)[0]
        out.append(_reshape(x, tuple(-1 if j == k else 1 for j in range(n))))
    return tuple(out)


class _Concatenator:
    """``r_[...]`` and ``c_[...]`` as NumPy's ``AxisConcatenator``: slices become aranges (complex
    steps: linspace counts); a first string directive sets the axis, ``ndmin`` and ``trans1d``
    (``'0,2,0'``), or asks for a 2-d row or column (``'r'``, ``'c'``: NumPy's matrix, as an array)."""

    def __init__(self, axis: int = 0, ndmin: int = 1, trans1d: int = -1):
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    def __getitem__(self, key):
        axis, ndmin, trans1d, matrix, col = self.axis, self.ndmin, self.trans1d, False, False
        objs, kinds = [], []  # kinds: NumPy's result_type inputs (weak Python scalars, dtypes)
        for k, it in enumerate(key if isinstance(key, tuple) else (key,)):
            if isinstance(it, str):
                if k != 0:
                    raise ValueError("nabla.numpy.r_: special directives must be the first entry.")
                axis, ndmin, trans1d, matrix, col = _directive(it, axis, ndmin, trans1d)
                continue
            if isinstance(it, slice):
                start = 0 if it.start is None else it.start
                step = 1 if it.step is None else it.step
                obj = linspace(start, it.stop, int(abs(step))) if isinstance(step, complex) else \
                    arange(start, it.stop, step)
                if ndmin > 1:
                    obj = array(obj, ndmin=ndmin)
                    if trans1d != -1:  # NumPy swaps the last axis with trans1d
                        perm = list(range(obj.ndim))
                        perm[-1], perm[trans1d] = perm[trans1d], perm[-1]
                        obj = _xp.permute_dims(obj, tuple(perm))
                objs.append(obj)
                kinds.append(obj.dtype.numpy_dtype)
            elif D.is_scalar(it) or isinstance(it, _np.generic):
                objs.append(it)
                kinds.append(it)
            else:
                item_ndim = _np.ndim(it) if not isinstance(it, Tensor) else it.ndim
                obj = array(it, ndmin=ndmin)
                if trans1d != -1 and item_ndim < ndmin:  # NumPy's placement of the new axes
                    k2, k1 = ndmin - item_ndim, trans1d
                    k1 = k1 + k2 + 1 if k1 < 0 else k1
                    defaxes = list(range(ndmin))
                    obj = _xp.permute_dims(obj, tuple(defaxes[:k1] + defaxes[k2:] + defaxes[k1:k2]))
                objs.append(obj)
                kinds.append(obj.dtype.numpy_dtype)
        if kinds:
            target = _np.result_type(*kinds)
            objs = [array(o, dtype=target, ndmin=ndmin) for o in objs]
        res = concatenate(objs, axis=axis)
        if matrix:  # NumPy's matrix of the result: 2-d (axes of length 1 dropped), a row (a column for 'c')
            was_1d = res.ndim == 1
            shape = tuple(n for n in res.shape if n > 1) if res.ndim > 2 else res.shape
            if len(shape) > 2:
                raise ValueError("nabla.numpy.r_: shape too large to be a matrix.")
            res = _reshape(res, (1,) * (2 - len(shape)) + shape)
            if was_1d and col:
                res = _xp.permute_dims(res, (1, 0))
        return D.as_face(res)

    def __len__(self):
        return 0


def _directive(item: str, axis, ndmin, trans1d):
    """NumPy's directive grammar: 'r' or 'c', 'axis,ndmin[,trans1d]', or 'axis'."""
    if item in ("r", "c"):
        return axis, ndmin, trans1d, True, item == "c"
    if "," in item:
        vec = item.split(",")
        try:
            axis, ndmin = (int(x) for x in vec[:2])
            if len(vec) == 3:
                trans1d = int(vec[2])
        except Exception as e:
            raise ValueError(f"nabla.numpy.r_: unknown special directive {item!r}") from e
        return axis, ndmin, trans1d, False, False
    try:
        return int(item), ndmin, trans1d, False, False
    except (ValueError, TypeError) as e:
        raise ValueError(f"nabla.numpy.r_: unknown special directive {item!r}") from e


r_ = _Concatenator(0)
c_ = _Concatenator(-1, ndmin=2, trans1d=0)


def cycled(values, n: int):
    """``values`` flattened and repeated over ``n`` positions, as NumPy's ``put``, ``putmask`` and
    ``a.flat[...] = values`` repeat a shorter value."""
    vals = _reshape(D.asarray(values, op="put"), (-1,))
    if vals.shape[0] == n:
        return vals
    if vals.shape[0] == 0:
        raise ValueError(f"nabla.numpy: cannot assign an empty value to {n} positions")
    return _xp.take(vals, _xp.arange(n) % vals.shape[0], axis=0)


def put(a, ind, v, mode="raise"):
    """``a.flat[ind] = v`` in place."""
    flat = _reshape(a, (-1,))
    idx = D.asarray(ind, op="put")
    n = flat.shape[0]
    idx = idx % n if mode == "wrap" else _xp.clip(idx, 0, n - 1) if mode == "clip" else idx
    idx = _reshape(idx, (-1,))
    flat[idx] = cycled(v, idx.shape[0])
    aliasing.setitem(a, ..., _reshape(flat, a.shape))


def putmask(a, mask, values):
    m = D.asarray(mask, op="putmask")
    if type(values) in _PY_SCALARS:  # NumPy converts it as ``a.dtype.type(values)``
        values = a.dtype.numpy_dtype.type(values).item()  # (its OverflowError, ValueError, TypeError)
    v = D.asarray(values, op="putmask")
    if not isinstance(values, (*_PY_SCALARS, _np.generic)) and \
            not _np.can_cast(v.dtype.numpy_dtype, a.dtype.numpy_dtype, "safe"):
        raise TypeError(f"nabla.numpy.putmask: cannot cast array data from {v.dtype} to {a.dtype} "
                        "according to the rule 'safe'")
    if v.shape != a.shape:  # NumPy repeats values over the flat positions
        v = _reshape(cycled(v, math.prod(a.shape)), a.shape)
    aliasing.setitem(a, ..., _xp.where(m, _astype(v, a.dtype), a))


def place(arr, mask, vals):
    """NumPy's ``place``: the true places of ``mask`` take ``vals`` in order, repeated as needed."""
    m = D.asarray(mask, op="place")
    v = _xp.reshape(D.asarray(vals, op="place"), (-1,))
    count = int(_xp.sum(_astype(m, _I64)))
    if count == 0:
        return
    if v.shape[0] == 0:
        raise ValueError("nabla.numpy.place: cannot insert from an empty array")
    if v.shape[0] < count:
        v = _xp.tile(v, (-(-count // v.shape[0]),))
    arr[m] = v[:count]


def copyto(dst, src, casting="same_kind", where=True):
    s = D.asarray(src, op="copyto")
    if where is not True:
        s = _xp.where(D.asarray(where, op="copyto"), _xp.broadcast_to(_astype(s, dst.dtype), dst.shape), dst)
    write_out(dst, s, "copyto", casting)


def put_along_axis(arr, indices, values, axis):
    if axis is None:
        raise NotImplementedError("nabla.numpy.put_along_axis: axis=None; ravel first")
    idx = D.asarray(indices, op="put_along_axis")
    axis %= arr.ndim
    grids = [_reshape(_xp.arange(n), tuple(n if j == k else 1 for j in range(arr.ndim)))
             for k, n in enumerate(idx.shape)]
    key = tuple(idx if k == axis else _xp.broadcast_to(g, idx.shape) for k, g in enumerate(grids))
    arr[key] = D.asarray(values, op="put_along_axis")


def select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError("nabla.numpy.select: list of cases must be same length as list of conditions")
    if any(_strings.is_text(c) for c in (*choicelist, default)):  # (strings stay on the host: NumPy's select)
        return _strings.on_host("select", ([_np.asarray(c) for c in condlist], list(choicelist)),
                                {"default": default}, None)
    choices = [D.asarray(c, op="select") for c in choicelist]
    # NumPy's result type: the choices' and the default's, a Python number weak (NEP 50)
    weak = D.operand(default, "select")
    target = _np.result_type(*(c.dtype.numpy_dtype for c in choices), weak if D.is_scalar(weak) else weak.dtype.numpy_dtype)
    choices = [D.cast(c, target) for c in choices + [D.asarray(default, op="select")]]
    out = choices[-1]
    for cond, choice in zip(reversed(condlist), reversed(choices[:-1])):
        out = _xp.where(D.asarray(cond, op="select"), choice, out)
    return out


def extract(condition, arr):
    return _reshape(D.asarray(arr, op="extract"), (-1,))[_reshape(D.asarray(condition), (-1,)) != 0]


def compress(condition, a, axis=None):
    x = D.asarray(a, op="compress")
    c = D.asarray(condition, op="compress")
    if axis is None:
        x, axis = _reshape(x, (-1,)), 0
    idx = _xp.nonzero(c)[0]
    return _xp.take(x, idx, axis=axis)


def searchsorted(a, v, side="left", sorter=None):
    x = D.asarray(a, op="searchsorted")
    vals = D.asarray(v, op="searchsorted")
    x, vals = D.promote_all([x, vals], "searchsorted")
    if x.dtype is _dt.bool_:  # (False < True: ordered as 0 and 1)
        x, vals = _astype(x, _dt.uint8), _astype(vals, _dt.uint8)
    s = None if sorter is None else D.asarray(sorter, op="searchsorted")
    return _xp.searchsorted(x, vals, side=side, sorter=s)


def digitize(x, bins, right=False):
    b = D.asarray(bins, op="digitize")
    v = D.asarray(x, op="digitize")
    if v.dtype.is_complex:
        raise TypeError(f"nabla.numpy.digitize: x may not be complex, got {v.dtype}")
    if b.ndim != 1:
        raise ValueError("nabla.numpy.digitize: bins must be 1-dimensional")
    # increasing bins: searchsorted with the opposite side (NumPy's own definition); bins neither
    # increasing nor decreasing are NumPy's ValueError (one read of two flags, as NumPy checks them)
    increasing = True
    if b.shape[0] >= 2:
        up, down = b[1:] >= b[:-1], b[1:] <= b[:-1]
        increasing, decreasing = bool(_xp.all(up)), bool(_xp.all(down))
        if not (increasing or decreasing):
            raise ValueError("nabla.numpy.digitize: bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    if increasing:
        return searchsorted(b, v, side=side)
    rb = _xp.flip(b)
    return b.shape[0] - searchsorted(rb, v, side=side)


def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """Every window of ``window_shape`` along ``axis`` (all axes by default) on new trailing axes: a
    gather on MAX, and a read-only view of ``x`` (it sees writes to ``x``), as NumPy's is read-only."""
    op = "lib.stride_tricks.sliding_window_view"
    a = D.asarray(x, op=op)
    ws = (window_shape,) if isinstance(window_shape, int) else tuple(window_shape)
    if axis is None:
        if len(ws) != a.ndim:
            raise ValueError(f"nabla.numpy.{op}: since axis is None, must provide window_shape for all "
                             f"dimensions of x; got {len(ws)} window_shape elements and x.ndim is {a.ndim}")
        axes = tuple(range(a.ndim))
    else:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        if len(ws) != len(axes):
            raise ValueError(f"nabla.numpy.{op}: must provide matching length window_shape and axis; got "
                             f"{len(ws)} window_shape elements and {len(axes)} axes elements")
    if any(w < 0 for w in ws):
        raise ValueError(f"nabla.numpy.{op}: window_shape cannot contain negative values, got {ws}")
    if writeable:
        warnings.warn(f"nabla.numpy.{op}: the windows are read-only on MAX (gathered; they see writes to x, "
                      f"writes to them cannot reach x)", UserWarning, stacklevel=2)
    axes = tuple(_axis(ax, a.ndim, op) for ax in axes)
    sizes = list(a.shape)
    for w, ax in zip(ws, axes):
        if w > sizes[ax]:
            raise ValueError(f"nabla.numpy.{op}: window shape cannot be larger than input array shape "
                             f"(window {ws} on axes {axes} of an array of shape {a.shape})")
        sizes[ax] -= w - 1

    def derive(p):
        out = p
        for w, ax in zip(ws, axes):
            n = out.shape[ax]
            # windows as a gather: row i holds elements i .. i+w-1 (a new trailing axis)
            idx = _reshape(_xp.arange(n - w + 1), (-1, 1)) + _reshape(_xp.arange(w), (1, -1))
            g = _xp.take(out, _reshape(idx, (-1,)), axis=ax)
            g = _reshape(g, out.shape[:ax] + (n - w + 1, w) + out.shape[ax + 1:])
            out = _xp.moveaxis(g, ax + 1, -1)
        return out

    return aliasing.read_only_view(a, derive(a), derive)


def _axis(ax, ndim: int, op: str) -> int:
    if not -ndim <= ax < ndim:
        raise _np.exceptions.AxisError(f"nabla.numpy.{op}: axis {ax} is out of bounds for array of dimension {ndim}")
    return ax % ndim


__all__ = [n for n, v in list(globals().items()) if not n.startswith("_") and callable(v)
           and getattr(v, "__module__", None) == __name__]
