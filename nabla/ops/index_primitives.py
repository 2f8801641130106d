"""The primitives of indexing: a basic slice, its write, a gather, a scatter (and its add), and
``nonzero``; ``indexing`` builds NumPy's keys from them."""

from __future__ import annotations

import functools
import math
import operator

import numpy as np
from max.dtype import DType

from ..core import dtypes as _dt
from ..core.operation import Fused, Operation
from ..core.tensor import Tensor
from . import lowerings as L
from ._physical import broadcast_batch_dims, incr_batch_dims_op
from .creation import full
from .elementwise import dense_tangents, where, zeros_like_physical
from .ranges import arange
from .view import reshape_op
from ..core.lazy_module import graph_ops as ops


def _coords(shape, index) -> np.ndarray:
    """Static coordinates (into ``shape``) of the elements a basic ``index`` selects."""
    axes = [np.arange(*sl, dtype=np.int64) for sl in index]
    grids = np.meshgrid(*axes, indexing="ij") if axes else []
    if not grids:
        return np.zeros((0,), np.int64)
    return np.stack(grids, axis=-1)


def sliced_shape(index) -> tuple:
    """The shape a basic ``index`` of (start, stop, step) per axis selects."""
    sizes = []
    for a, b, c in index:  # (a plain loop: asked of every slice a loop records)
        sizes.append((b - a if b > a else 0) if c == 1 else len(range(a, b, c)))
    return tuple(sizes)


def one_run(shape, index) -> bool:
    """Whether the slice ``index`` (``(start, stop, step)`` per axis) of a C-ordered array of
    ``shape`` is one run of its memory, in order."""
    inner = True  # every axis inside this one is taken whole, in order
    for n, (start, stop, step) in zip(reversed(shape), reversed(index)):
        size = len(range(start, stop, step))
        if not inner:
            if size != 1:
                return False
        elif size != n or (step != 1 and n != 1):
            if size > 1 and step != 1:
                return False
            inner = False
    return True


def element_layout(shape, index) -> list:
    """The fused kernel's layout of the slice ``index`` of a C-ordered array of ``shape``: its rank,
    its first element's offset, and per axis its size and step, in elements."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    strides.reverse()
    at = 0
    layout = [float(len(index)), 0]
    for (start, stop, step), st in zip(index, strides):
        at += start * st
        layout += [float(len(range(start, stop, step))), float(step * st)]
    layout[1] = at
    return layout


class SliceOp(Operation):
    """``x[start:stop:step, ...]`` per physical axis; ``index`` holds normalized (start, stop, step).
    ``shape``, where given, is the result's shape: the slice's, with axes of length 1 dropped or
    added (an integer's axis, a ``None``): one op where a slice and a reshape were two."""
    sharding_rule = "slice"
    fused = Fused(view="strided")

    name = "getitem"
    supports_complex = True
    index_kwarg = "index"

    def complex_storage_kwargs(self, kwargs):
        out = {"index": tuple(kwargs["index"]) + ((0, 2, 1),)}
        if "shape" in kwargs:
            out["shape"] = tuple(kwargs["shape"]) + (2,)
        return out

    def abstract_eval(self, x, *, index, shape=None):
        return sliced_shape(index) if shape is None else shape, x.dtype, x.batch_dims

    def lift_kwargs(self, kwargs, n):
        out = {"index": ((0, n, 1), *kwargs["index"])}
        if "shape" in kwargs:
            out["shape"] = (n, *kwargs["shape"])
        return out

    def maxpr(self, x, *, index, shape=None):
        sizes = list(sliced_shape(index))
        out = sizes if shape is None else list(shape)
        if 0 in sizes:
            return L.broadcast_to(ops.constant(0, x.dtype, x.device), out) if x.dtype != DType.bool else \
                L.broadcast_to(ops.constant(False, DType.bool, x.device), out)
        plain = []
        for axis, (start, stop, step) in enumerate(index):
            if step > 0:
                plain.append(slice(start, start + (sizes[axis] - 1) * step + 1, step))
            else:
                plain.append(slice(None))
        if any(sl != slice(None) for sl in plain):
            x = L.slice_tensor(x, plain)
        for axis, (start, stop, step) in enumerate(index):
            if step < 0:  # MAX slices take positive steps only: gather the reversed positions
                rows = np.arange(start, stop, step, dtype=np.int64)
                x = ops.gather(x, ops.constant(rows, DType.int64, x.device), axis)
        return x if shape is None or list(shape) == sizes else ops.reshape(x, out)

    def jvp_rule(self, primals, tangents, output, *, index, shape=None):
        t = tangents[0]
        return slice_op(t, **_rebased(index, shape, t, primals[0]))

    def vjp_rule(self, primals, cotangent, output, *, index, shape=None):
        x = primals[0]
        base = broadcast_batch_dims(zeros_like_physical(x), cotangent._impl.batch_shape)
        return [set_slice_op(base, cotangent, index=_rebase(index, cotangent, x))]


def _rebase(index, t, primal):
    """``index`` over ``primal``'s physical axes, for ``t``, whose batch axes may be more or wider:
    indexing never narrows batch axes, so they are taken whole."""
    return tuple((0, n, 1) for n in t._impl.batch_shape) + tuple(index[primal.batch_dims:])


def _rebased(index, shape, t, primal) -> dict:
    """A slice's kwargs (``_rebase``) for ``t``; its result ``shape`` given the same batch axes."""
    out = {"index": _rebase(index, t, primal)}
    if shape is not None:
        out["shape"] = tuple(t._impl.batch_shape) + tuple(shape[primal.batch_dims:])
    return out


class SetSliceOp(Operation):
    """``x`` with ``x[index] = v`` for a basic ``index``; ``v`` has the slice's physical shape, or
    (recorded outside transforms and meshes) the slice's size in another shape, read in row-major
    order: ``x[i, 1:-1] = row`` and ``x[i, j] = a`` without a reshape op of their own."""
    sharding_rule = "set_slice"
    writes_first = True

    name = "setitem"
    supports_complex = True
    index_kwarg = "index"

    def complex_storage_kwargs(self, kwargs):
        return {"index": tuple(kwargs["index"]) + ((0, 2, 1),)}

    def abstract_eval(self, x, v, *, index):
        return x.cached_shape, x.dtype, x.batch_dims

    def maxpr(self, x, v, *, index):
        coords = _coords(x.shape, index)
        if coords.size == 0:
            return x
        if list(v.shape) != list(coords.shape[:-1]):
            v = ops.reshape(v, list(coords.shape[:-1]))
        return ops.scatter_nd(x, v, ops.constant(coords, DType.int64, x.device))

    def jvp_rule(self, primals, tangents, output, *, index):
        return set_slice_op(*dense_tangents(primals, tangents), index=index)

    def vjp_rule(self, primals, cotangent, output, *, index):
        index = _rebase(index, cotangent, primals[0])
        sliced = slice_op(cotangent, index=index)
        return [set_slice_op(cotangent, zeros_like_physical(sliced), index=index), sliced]


class GatherOp(Operation):
    """``take`` along a physical ``axis`` with an int64 index tensor (already in range)."""
    sharding_rule = "take"

    name = "take"
    shape_polymorphic = True
    supports_complex = True
    reads_what_it_returns = True

    def abstract_eval(self, x, idx, *, axis):
        s = x.cached_shape
        return s[:axis] + idx.cached_shape + s[axis + 1:], x.dtype, x.batch_dims

    def maxpr(self, x, idx, *, axis):
        return ops.gather(x, idx, axis)

    def jvp_rule(self, primals, tangents, output, *, axis):
        return gather_op(tangents[0], primals[1], axis=axis)

    def vjp_rule(self, primals, cotangent, output, *, axis):
        x, idx = primals
        base = broadcast_batch_dims(zeros_like_physical(x), cotangent._impl.batch_shape)
        return [scatter_add_op(base, cotangent, idx, axis=axis + cotangent.batch_dims - x.batch_dims), None]


class ScatterAddOp(Operation):
    """``x`` plus ``u`` added at ``idx`` along ``axis`` (the transpose of ``GatherOp``)."""
    sharding_rule = "scatter"
    writes_first = True

    name = "scatter_add"
    shape_polymorphic = True

    def abstract_eval(self, x, u, idx, *, axis):
        if x.dtype.is_bool:  # (MAX's scatter-add compiles for no bool; callers count in integers)
            raise TypeError(f"nabla.scatter_add: bool operands are not supported (got shape {x.shape} bool)")
        return x.cached_shape, x.dtype, x.batch_dims

    def maxpr(self, x, u, idx, *, axis):
        # gather's output axes (idx's dims at ``axis``) flattened; each element's coordinates for
        # scatter_nd_add: the axis's from idx, the others its own positions (``ops.range``, so the
        # dims may be symbolic: one model serves every size, histogram's and bincount's)
        k = len(idx.shape)
        n = functools.reduce(operator.mul, idx.shape) if k else 1
        outer, inner = list(u.shape[:axis]), list(u.shape[axis + k:])
        shape = outer + [n] + inner
        u2 = ops.reshape(u, shape)
        coords = []
        for a, d in enumerate(shape):
            if a == axis:
                coords.append(L.broadcast_to(ops.reshape(idx, [1] * axis + [n] + [1] * len(inner)), shape))
            else:
                r = ops.range(0, d, 1, out_dim=d, dtype=DType.int64, device=x.device)
                coords.append(L.broadcast_to(ops.reshape(r, [1] * a + [d] + [1] * (len(shape) - a - 1)), shape))
        return ops.scatter_nd_add(x, u2, ops.stack(coords, axis=-1))

    def jvp_rule(self, primals, tangents, output, *, axis):
        return scatter_add_op(*dense_tangents(primals[:2], tangents[:2]), primals[2], axis=axis)

    def vjp_rule(self, primals, cotangent, output, *, axis):
        shift = cotangent.batch_dims - primals[0].batch_dims
        return [cotangent, gather_op(cotangent, primals[2], axis=axis + shift), None]


class ScatterOp(Operation):
    """``x`` with the rows ``idx`` of the flattened leading ``k`` axes replaced by ``u`` (last wins)."""
    sharding_rule = "scatter"
    writes_first = True

    name = "scatter"
    supports_complex = True

    def abstract_eval(self, x, u, idx, *, k):
        return x.cached_shape, x.dtype, x.batch_dims

    def maxpr(self, x, u, idx, *, k):
        xs = [int(d) for d in x.shape]
        lead = math.prod(xs[:k])
        flat = ops.reshape(x, [lead] + xs[k:])
        n = math.prod(int(d) for d in idx.shape)
        if n == 0:
            return x
        u2 = ops.reshape(u, [n] + xs[k:])
        out = ops.scatter_nd(flat, u2, ops.reshape(idx, [n, 1]))
        return ops.reshape(out, xs)

    def jvp_rule(self, primals, tangents, output, *, k):
        return scatter_op(*dense_tangents(primals[:2], tangents[:2]), primals[2], k=k)

    def vjp_rule(self, primals, cotangent, output, *, k):
        x, u, idx = primals
        physical = x._impl.cached_shape
        extra = cotangent._impl.cached_shape[:cotangent.batch_dims - x.batch_dims]  # vmap over cotangents
        if cotangent._impl.batch_shape[len(extra):] != x._impl.batch_shape:
            # the rows idx names were counted over x's batch axes, and the cotangent's are wider
            raise NotImplementedError(
                f"nabla.scatter: cotangent batch shape {cotangent._impl.batch_shape} is wider than the primal's "
                f"{x._impl.batch_shape} (vmap over the vjp of a batched array assignment); call vjp inside the vmap")
        flat = reshape_op(cotangent, shape=extra + (math.prod(physical[:k]),) + physical[k:])
        picked = gather_op(flat, idx, axis=len(extra))
        # a row named twice keeps the last write only: earlier writes get no cotangent
        won = _last_writes(idx, math.prod(physical[:k]))
        won = reshape_op(won, shape=(1,) * len(extra) + idx._impl.cached_shape + (1,) * len(physical[k:]))
        for _ in range(picked.batch_dims):
            won = incr_batch_dims_op(won)
        picked = where(won, picked, zeros_like_physical(picked))
        du = reshape_op(picked, shape=extra + u._impl.cached_shape)
        if not extra:
            return [scatter_op(cotangent, zeros_like_physical(u), idx, k=k), du, None]
        # scatter writes leading axes only: replaced rows are cut out by a mask instead
        replaced = scatter_op(zeros_like_physical(x), zeros_like_physical(u) + 1, idx, k=k)
        return [where(replaced != 0, zeros_like_physical(cotangent), cotangent), du, None]


def _last_writes(idx: Tensor, rows: int) -> Tensor:
    """For each entry of ``idx``, whether it is the last to name its row (the write that stays)."""
    n = math.prod(idx._impl.cached_shape)
    order = reshape_op(arange(n, dtype=idx.dtype, device=idx.device), shape=idx._impl.cached_shape)
    writer = scatter_op(full((rows,), -1, dtype=idx.dtype, device=idx.device), order, idx, k=1)
    return gather_op(writer, idx, axis=0) == order


class NonzeroOp(Operation):
    """The coordinates of the true elements of a bool tensor, one int64 vector per axis. The
    count, realized first, arrives as the length of ``size`` (a zero-filled carrier whose data is
    never read), so one compiled model, with symbolic dims, serves every shape and count: the
    columns come out of the op itself, since slicing them afterwards would name the count."""

    name = "nonzero"
    shape_polymorphic = True

    def abstract_eval(self, x, size):
        return [((size.cached_shape[0],), _dt.int64, 0) for _ in x.cached_shape]

    def maxpr(self, x, size):
        # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
        from max.graph import StaticDim

        count = size.shape[0]
        if isinstance(count, StaticDim) and int(count) == 0:  # MAX's nonzero wants a positive static size
            return [L.broadcast_to(ops.constant(0, DType.int64, x.device), [0]) for _ in x.shape]
        coords = ops.nonzero(x, count)
        return [ops.squeeze(L.slice_tensor(coords, [slice(None), slice(k, k + 1)]), 1) for k in range(len(x.shape))]


slice_op = SliceOp()
set_slice_op = SetSliceOp()
gather_op = GatherOp()
scatter_add_op = ScatterAddOp()
scatter_op = ScatterOp()
nonzero_op = NonzeroOp()
