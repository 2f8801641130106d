"""NumPy 2's array-API-style functions and a few numeric helpers: ``cumulative_sum``/``cumulative_prod``
(``include_initial``), ``vecdot``, ``matvec``, ``vecmat``, ``trapezoid``, ``unwrap`` and ``fix``,
written with the face's ufuncs so that dtypes follow NumPy's loops."""

from __future__ import annotations

import math

import numpy as _np

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops.elementwise import astype as _astype
from . import _dtypes as D
from ._arrays import atleast_1d, full_like
from ._joins import concatenate
from ._math import diff
from ._reductions import cumsum, sum as _sum
from ._ufunc_table import UFUNCS as _U
from ._ufuncs import write_out


def _axis(axis, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise _np.exceptions.AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


# --- scans --------------------------------------------------------------------------------------------

def _cumulative(u, x, axis, dtype, out, include_initial):
    a = atleast_1d(D.asarray(x, op=f"cumulative_{'sum' if u.__name__ == 'add' else 'prod'}"))
    if axis is None:
        if a.ndim >= 2:
            raise ValueError("For arrays which have more than one dimension ``axis`` argument is required.")
        axis = 0
    axis = _axis(axis, a.ndim)
    res = u.accumulate(a, axis=axis, dtype=dtype)
    if include_initial:
        shape = list(a.shape)
        shape[axis] = 1
        res = concatenate([full_like(res, u.identity, shape=tuple(shape)), res], axis=axis)
    return res if out is None else write_out(out, res, f"cumulative_{u.__name__}")


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _cumulative(_U["add"], x, axis, dtype, out, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _cumulative(_U["multiply"], x, axis, dtype, out, include_initial)


# --- vector products ----------------------------------------------------------------------------------

def _core(a, b, op, ka, kb, dim_a, dim_b):
    """Checks of the gufuncs' core dimensions: ``a`` needs ``ka`` axes, ``b`` ``kb``, sizes matching."""
    if a.ndim < ka or b.ndim < kb:
        raise ValueError(f"{op}: input operand does not have enough dimensions")
    if a.shape[dim_a] != b.shape[dim_b]:
        raise ValueError(f"{op}: input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                         f"(size {b.shape[dim_b]} is different from {a.shape[dim_a]})")


def _sum_last(p, axis):
    if p.dtype.is_bool:  # NumPy's boolean loops: or of ands
        return _xp.any(p, axis=axis)
    return _sum(p, axis=axis, dtype=p.dtype.numpy_dtype)  # (sum would widen small integers; NumPy's loop keeps them)


def _conj(x):
    return _xp.conj(x) if x.dtype.is_complex else x


def vecdot(x1, x2, /, out=None, *, axis=-1, dtype=None, **kwargs):
    a, b = D.asarray(x1, op="vecdot"), D.asarray(x2, op="vecdot")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("vecdot: input operand does not have enough dimensions")
    a, b = _xp.moveaxis(a, _axis(axis, a.ndim), -1), _xp.moveaxis(b, _axis(axis, b.ndim), -1)
    _core(a, b, "vecdot", 1, 1, -1, -1)
    r = _sum_last(_U["multiply"](_conj(a), b, dtype=dtype), -1)
    return r if out is None else write_out(out, r, "vecdot")


def matvec(x1, x2, /, out=None, *, dtype=None, **kwargs):
    a, b = D.asarray(x1, op="matvec"), D.asarray(x2, op="matvec")
    _core(a, b, "matvec", 2, 1, -1, -1)
    r = _sum_last(_U["multiply"](a, _xp.expand_dims(b, axis=-2), dtype=dtype), -1)
    return r if out is None else write_out(out, r, "matvec")


def vecmat(x1, x2, /, out=None, *, dtype=None, **kwargs):
    a, b = D.asarray(x1, op="vecmat"), D.asarray(x2, op="vecmat")
    _core(a, b, "vecmat", 1, 2, -1, -2)
    r = _sum_last(_U["multiply"](_xp.expand_dims(_conj(a), axis=-1), b, dtype=dtype), -2)
    return r if out is None else write_out(out, r, "vecmat")


# --- calculus and phases ------------------------------------------------------------------------------

def _along(nd, axis, s):
    key = [slice(None)] * nd
    key[axis] = s
    return tuple(key)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    yy = D.asarray(y, op="trapezoid")
    nd = yy.ndim
    axis = _axis(axis, nd)
    if x is None:
        d = dx
    else:
        xx = D.asarray(x, op="trapezoid")
        if xx.ndim == 1:
            d = diff(xx)
            shape = [1] * nd
            shape[axis] = d.shape[0]
            d = _reshape(d, tuple(shape))
        else:
            d = diff(xx, axis=axis)
    mid = _U["add"](yy[_along(nd, axis, slice(1, None))], yy[_along(nd, axis, slice(None, -1))])
    return _sum(_U["divide"](_U["multiply"](d, mid), 2.0), axis=axis)


def unwrap(p, discont=None, axis=-1, *, period=2 * math.pi):
    """NumPy's unwrap: jumps larger than ``discont`` replaced by their complement modulo ``period``."""
    pp = D.asarray(p, op="unwrap")
    nd = pp.ndim
    axis = _axis(axis, nd)
    dd = diff(pp, axis=axis)
    if discont is None:
        discont = period / 2
    target = _np.result_type(dd.dtype.numpy_dtype, period)
    if _np.issubdtype(target, _np.integer):
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = _U["add"](_U["remainder"](_U["subtract"](dd, low), period), low)
    if ambiguous:  # a jump of exactly half a period keeps its direction
        ddmod = _xp.where(_xp.logical_and(ddmod == low, dd > 0), _xp.full_like(ddmod, high), ddmod)
    correct = _U["subtract"](ddmod, dd)
    correct = _xp.where(_U["absolute"](dd) < discont, _xp.zeros_like(correct), correct)
    tdt = _dt.as_dtype(target)
    up = pp if pp.dtype is tdt else _astype(pp, tdt)
    if pp.shape[axis] < 2:
        return up
    tail = _U["add"](pp[_along(nd, axis, slice(1, None))], cumsum(correct, axis=axis))
    tail = tail if tail.dtype is tdt else _astype(tail, tdt)
    return _xp.concat([up[_along(nd, axis, slice(0, 1))], tail], axis=axis)


def fix(x, out=None):
    """Round toward zero in ``x``'s dtype (NumPy's ``ceil`` loop, so integers stay integers)."""
    a = x if isinstance(x, Tensor) else D.asarray(x, op="fix")
    return _U["trunc"](a, out=out)


__all__ = ["cumulative_sum", "cumulative_prod", "vecdot", "matvec", "vecmat", "trapezoid", "unwrap", "fix"]
