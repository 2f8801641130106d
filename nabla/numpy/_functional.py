"""Python callables over Nabla arrays, as NumPy's ``apply_along_axis``, ``apply_over_axes`` and
``piecewise``: the callable gets slices of the array (lazy, on MAX) and its results are stacked or
written back with Nabla ops. ``apply_along_axis`` first calls the callable once over all the slices
at once (``vmap``, as JAX's does): its ops are recorded once, not once per slice; a callable that
reads its slice's data (an ``if`` on a value, ``float()``, a mask's selection), writes into an array
or draws random numbers cannot run so, and is then called once per slice, as NumPy calls it."""

from __future__ import annotations

import collections.abc
import itertools
import math
import random

import numpy as _np

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core import dtypes as _dt
from ..core.context import SideEffect, no_side_effects
from ..core.tensor import Tensor
from ..transforms.vmap import vmap
from . import _dtypes as D


def _axis(axis, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise _np.exceptions.AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    a = D.asarray(arr, op="apply_along_axis")
    axis = _axis(axis, a.ndim)
    moved = _xp.moveaxis(a, axis, -1)
    outer = moved.shape[:-1]
    if any(n == 0 for n in outer):
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    out = _at_once(func1d, moved, outer, args, kwargs)
    if out is None:
        results = [D.asarray(func1d(moved[ind], *args, **kwargs), op="apply_along_axis")
                   for ind in itertools.product(*(range(n) for n in outer))]
        first = results[0]
        for r in results[1:]:
            if r.shape != first.shape:
                raise ValueError(f"could not broadcast input array from shape {r.shape} into shape {first.shape}")
        # NumPy writes every result into an array of the first result's dtype
        results = [r if r.dtype is first.dtype else _xp.astype(r, first.dtype) for r in results]
        out = _reshape(_xp.stack(results, axis=0), outer + first.shape)
    # the result's own axes take the place of ``axis``
    k = out.ndim - len(outer)
    order = tuple(range(axis)) + tuple(range(len(outer), len(outer) + k)) + tuple(range(axis, len(outer)))
    return _xp.permute_dims(out, order) if order != tuple(range(out.ndim)) else out


def _at_once(func1d, moved, outer, args, kwargs):
    """``func1d`` over every slice of ``moved``'s last axis in one call (``vmap`` over the slices,
    flattened to one axis), its results of shape ``outer + result``; None where there is one slice,
    or where the callable does what a batch of slices cannot (it reads their data, or writes into
    them: the loop then calls it per slice, and raises what NumPy raises)."""
    count = math.prod(outer)
    if count == 1:
        return None
    rows = _reshape(moved, (count, moved.shape[-1]))

    def each(row):
        impl = row._impl
        out = func1d(row, *args, **kwargs)
        if row._impl is not impl:  # it wrote into its slice: a write NumPy makes into ``arr``
            raise SideEffect("a write into the slice")
        return D.asarray(out, op="apply_along_axis")
    host = _np.random.get_state(), random.getstate()
    try:
        with no_side_effects():
            out = vmap(each)(rows)
    except Exception:  # (the callable reads or writes data, draws random numbers, or needs NumPy's arrays)
        out = None
    if _drawn(host):  # host random numbers drawn once for all slices, where NumPy draws them per slice
        _np.random.set_state(host[0])
        random.setstate(host[1])
        return None
    return None if out is None else _reshape(out, outer + tuple(out.shape[1:]))


def _drawn(host) -> bool:
    """Whether NumPy's or Python's global random numbers were drawn since ``host`` (their states)."""
    (_, key, pos, gauss, cached), now = host[0], _np.random.get_state()
    return now[2] != pos or now[3] != gauss or now[4] != cached or now[1].tobytes() != key.tobytes() \
        or random.getstate() != host[1]


def apply_over_axes(func, a, axes):
    val = D.asarray(a, op="apply_over_axes")
    n = val.ndim
    for axis in ((axes,) if _np.ndim(axes) == 0 else tuple(axes)):
        axis = axis + n if axis < 0 else axis
        res = D.asarray(func(val, axis), op="apply_over_axes")
        if res.ndim != val.ndim:
            if not -res.ndim - 1 <= axis <= res.ndim:
                raise _np.exceptions.AxisError(f"axis {axis} is out of bounds for array of dimension {res.ndim + 1}")
            res = _xp.expand_dims(res, axis=axis)
            if res.ndim != val.ndim:
                raise ValueError("function is not returning an array of the correct shape")
        val = res
    return val


def piecewise(x, condlist, funclist, *args, **kw):
    """NumPy's piecewise: ``y[cond] = f(x[cond])`` per condition, later conditions winning, into an
    array of ``x``'s dtype (zeros where no condition holds)."""
    a = D.asarray(x, op="piecewise")
    n2 = len(funclist)
    if _np.isscalar(condlist) or isinstance(condlist, Tensor) and condlist.ndim == 0 or (
            not isinstance(condlist[0], (list, _np.ndarray, Tensor)) and a.ndim != 0):
        condlist = [condlist]
    conds = [_xp.broadcast_to(_xp.astype(c, _dt.bool_) if c.dtype is not _dt.bool_ else c, a.shape)
             for c in (D.asarray(c, op="piecewise") for c in condlist)]
    n = len(conds)
    if n == n2 - 1:  # the "otherwise" condition
        none = conds[0]
        for c in conds[1:]:
            none = _xp.logical_or(none, c)
        conds.append(_xp.logical_not(none))
        n += 1
    elif n != n2:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    y = _xp.zeros(a.shape, dtype=a.dtype)
    for cond, func in zip(conds, funclist):
        if not isinstance(func, collections.abc.Callable):
            value = D.asarray(func, op="piecewise")
            y = _xp.where(cond, value if value.dtype is a.dtype else _xp.astype(value, a.dtype), y)
        elif a.ndim == 0:  # a 0-d x: the function sees x itself when the condition holds
            if bool(cond):
                y = _cast(D.asarray(func(a, *args, **kw), op="piecewise"), a.dtype, a.shape)
        else:
            vals = a[cond]  # the selected elements, as NumPy passes them (their count is read back)
            if vals.shape[0] > 0:
                y[cond] = _cast(D.asarray(func(vals, *args, **kw), op="piecewise"), a.dtype, vals.shape)
    return y


def _cast(v, dtype, shape):
    v = v if v.dtype is dtype else _xp.astype(v, dtype)
    return _xp.broadcast_to(v, shape)


__all__ = ["apply_along_axis", "apply_over_axes", "piecewise"]
