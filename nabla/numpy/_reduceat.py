"""``ufunc.reduceat`` (a method of the ufunc class, bound by ``_methods.bind``): reductions over slices ``indices[i]:indices[i + 1]`` along an axis, on MAX.

The slices' elements are gathered one after another (a slice whose end is not past its start is its
first element alone, as in NumPy), then reduced: associative ufuncs by a segmented scan (Hillis and
Steele's doubling, restarted at each slice's start; log2 of the longest slice whole-array steps) read
at each slice's end; the others fold left, one step per element of the longest slice.
"""

from __future__ import annotations

import numpy as _np

from .. import array_api as _xp
from ..core.tensor import Tensor
from ..ops.base import tensor_from_host
from ..ops.elementwise import astype as _astype, where as _where
from . import _dtypes as D
from ._ufuncs import _ASSOCIATIVE, write_out

#: a non-associative ufunc folds one element per step: slices longer than this would build huge traces
MAX_FOLD = 256


def _host_indices(indices, n: int, name: str) -> _np.ndarray:
    idx = indices.numpy() if isinstance(indices, Tensor) else _np.asarray(indices)
    if idx.dtype.kind == "b" or idx.dtype.kind not in "iuf" and idx.size:
        raise TypeError(f"nabla.numpy.{name}: indices must be integers, got {idx.dtype}")
    idx = idx.astype(_np.int64).reshape(-1)
    bad = idx[(idx < 0) | (idx >= n)]
    if bad.size:
        raise IndexError(f"nabla.numpy.{name}: index {int(bad[0])} out-of-bounds in {name} [0, {n})")
    return idx


def reduceat(u, array, indices, axis=0, dtype=None, out=None):
    """``u.reduceat``: reductions over ``array[indices[i]:indices[i + 1]]`` along ``axis``."""
    name = f"{u.__name__}.reduceat"
    u._binary_only("reduceat")
    x = D.asarray(array, op=name)
    if x.ndim == 0:
        raise TypeError(f"nabla.numpy.{name}: cannot reduceat on a scalar (shape (), {x.dtype.name})")
    if not -x.ndim <= axis < x.ndim:
        raise _np.exceptions.AxisError(f"nabla.numpy.{name}: axis {axis} is out of bounds for array of dimension "
                                       f"{x.ndim} (shape {x.shape})")
    axis %= x.ndim
    if dtype is not None:
        x = _astype(x, D.to_nabla(dtype, name))
    elif u.__name__ in ("add", "multiply"):  # NumPy widens small integers and bools, as sum and prod do
        x = D.cast(x, D.reduction_dtype(x, "sum"))
    x = u._as_loop_dtype(x)
    n = x.shape[axis]
    idx = _host_indices(indices, n, name)
    starts = idx
    ends = _np.append(idx[1:], n)
    ends = _np.where(ends > starts, ends, starts + 1)  # NumPy: a slice that does not grow is one element
    lengths = ends - starts
    if idx.size == 0:
        r = D.axis_range(x, axis, 0, 0)
    elif u.__name__ in _ASSOCIATIVE:
        r = _segmented(u, x, axis, starts, lengths)
    else:
        r = _left_folds(u, x, axis, starts, lengths, name)
    return r if out is None else write_out(out, r, name)


def _on_axis(values: _np.ndarray, x, axis: int):
    """A host table along ``axis`` of ``x`` (broadcasting over the other axes), as a tensor."""
    return tensor_from_host(_np.ascontiguousarray(values).reshape((-1,) + (1,) * (x.ndim - axis - 1)), x.device)


def _segmented(u, x, axis, starts, lengths):
    # (starts and lengths are the call's host indices: the segments' layout is planned here, the
    # data reduced on MAX)
    # (each slice's positions, one after another, in a few whole-array steps: an arange per slice
    # cost a CSR product of 2,000 rows 2 ms a call)
    placed = _np.cumsum(lengths) - lengths  # where each slice's first element lands
    positions = _np.arange(int(lengths.sum())) + _np.repeat(starts - placed, lengths)
    first = _np.zeros(positions.size, dtype=bool)
    first[placed] = True
    g = _xp.take(x, tensor_from_host(positions, x.device), axis=axis)
    total, k = positions.size, 1
    while k < lengths.max():
        # element i takes (i - k) op i unless a slice starts in (i - k, i]; the flags double alike
        head = D.axis_range(g, axis, 0, k)
        later, earlier = D.axis_range(g, axis, k, total), D.axis_range(g, axis, 0, total - k)
        tail = _where(_on_axis(first[k:], g, axis), later, u._fn(earlier, later))
        g = _xp.concat([head, tail], axis=axis)
        first = first | _np.concatenate([_np.zeros(k, dtype=bool), first[:-k]])
        k *= 2
    last = _np.cumsum(lengths) - 1
    return _xp.take(g, tensor_from_host(last, x.device), axis=axis)


def _left_folds(u, x, axis, starts, lengths, name):
    longest = int(lengths.max())
    if longest > MAX_FOLD:
        raise NotImplementedError(f"nabla.numpy.{name}: {u.__name__} is not associative, so its slices fold one "
                                  f"element per step; the longest slice has {longest} elements (at most "
                                  f"{MAX_FOLD}); array of shape {x.shape} {x.dtype.name}")
    r = _xp.take(x, tensor_from_host(starts, x.device), axis=axis)
    for j in range(1, longest):
        step = _xp.take(x, tensor_from_host(_np.minimum(starts + j, x.shape[axis] - 1), x.device), axis=axis)
        r = _where(_on_axis(j < lengths, r, axis), u._fn(r, step), r)
    return r

