"""Sorting, searching and scans on MAX: sort/argsort, argmax/argmin, cumulative sum.

Sorting runs on Nabla's sort kernel (``kernels/sort/``): a stable radix sort of every row that
gives the sorted values and the permutation in one pass, NaN last (first when descending), for
every real dtype. MAX's own ``argsort`` is 1-D and refused by its eager interpreter and its
``top_k`` is not stable, so neither serves.
"""

from __future__ import annotations

import functools
import math
import operator

import numpy as np
from max.dtype import DType

from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..core.operation import Fused, Operation
from .base import describe, normalize_axis
from .custom_kernels import KernelOperation, sort_kernel
from . import lowerings as L
from .casts import astype
from .creation import full, scalar_tensor
from .elementwise import BINARY_FUNCTIONS as B, UNARY_FUNCTIONS as U, where
from .indexing import take, take_along_axis
from .operands import coerce_operands
from .reduction import sum as reduce_sum
from .view import reshape
from ..core.lazy_module import graph_ops as ops


class SortOp(KernelOperation):
    """``[values, permutation]`` of ``x`` sorted along the physical ``axis``, stably."""
    sharding_rule = "along_axis"

    name = "sort"
    kernel_package = "sort"
    supports_complex = False
    #: a script that sorts one way sorts the other (``argsort(-x)``, ``sort(...)[::-1]`` aside): the
    #: first-run list takes both orders
    first_run_family = True

    def abstract_eval(self, x, *, axis, descending):
        if x.dtype.is_complex:
            raise TypeError(f"nabla.sort: complex tensors have no order ({describe(x)})")
        return [(x.cached_shape, x.dtype, x.batch_dims), (x.cached_shape, _dt.int64, x.batch_dims)]

    def maxpr(self, x, *, axis, descending):
        # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
        from max.graph import DeviceRef, Dim

        device, dtype, cpu = x.device, x.dtype, DeviceRef.CPU()
        if device != cpu:  # the kernel is CPU code: accelerator data makes the round trip
            x = ops.transfer_to(x, cpu)
        staged = {DType.bool: DType.uint8, DType.bfloat16: DType.float32}.get(dtype)
        if staged is not None:  # exact both ways
            x = ops.cast(x, staged)
        shape = list(x.shape)
        outer = functools.reduce(operator.mul, shape[:axis], Dim(1))
        inner = functools.reduce(operator.mul, shape[axis + 1:], Dim(1))
        spec = ops.constant(np.array([int(descending)], np.int64), DType.int64, cpu)
        values, order = sort_kernel()(ops.reshape(x, [outer, shape[axis], inner]), spec)
        values, order = ops.reshape(values, shape), ops.reshape(order, shape)
        if staged is not None:
            values = ops.cast(values, dtype)
        if device != cpu:
            values, order = ops.transfer_to(values, device), ops.transfer_to(order, device)
        return [values, order]

    def single_op_form(self, kwargs, shapes):
        (s,), a = shapes, kwargs["axis"]
        return {**kwargs, "axis": 1}, [["b", "n", "k"]], [(math.prod(s[:a]), s[a], math.prod(s[a + 1:]))]

    def single_op_variants(self):
        """A node of each model the op's family has (see ``single_op.family``): each dtype sorted
        as itself, either order."""
        for dtype in (_dt.int64, _dt.uint64, _dt.float64):  # (the others are sorted as these: _SORTED_AS)
            for descending in (False, True):
                yield {"axis": 1, "descending": descending}, [dtype.name], [(2, 3, 4)]

    def jvp_rule(self, primals, tangents, outputs, *, axis, descending):
        return [take_along_axis(tangents[0], outputs[1], axis - len(primals[0].shape) - primals[0].batch_dims), None]

    def vjp_rule(self, primals, cotangents, outputs, *, axis, descending):
        x = primals[0]
        logical = axis - x.batch_dims
        order = outputs[1] if outputs[1] is not None else self(x, axis=axis, descending=descending)[1]
        inverse = argsort(order, logical)  # where each input element went
        return [take_along_axis(cotangents[0], inverse, logical - x.ndim)]


sort_op = SortOp()


class ArgReduceOp(Operation):
    """argmax / argmin along one physical axis (first occurrence wins)."""
    sharding_rule = "along_axis"

    shape_polymorphic = True

    def __init__(self, name, max_fn, fused):
        self.name, self.max_fn, self.fused = name, max_fn, fused

    def abstract_eval(self, x, *, axis, keepdims):
        if x.cached_shape[axis] == 0:
            raise ValueError(f"nabla.{self.name}: zero-size axis {axis - x.batch_dims} ({describe(x)})")
        s = list(x.cached_shape)
        if keepdims:
            s[axis] = 1
        else:
            del s[axis]
        return tuple(s), _dt.int64, x.batch_dims

    def single_op_form(self, kwargs, shapes):
        """One model per op and dtype: the input seen as (outer, n, inner), reduced over n; its
        (outer, inner) result is the node's, dims kept or not, in the same order."""
        (s,), a = shapes, kwargs["axis"]
        return {"axis": 1, "keepdims": False}, [["b", "n", "k"]], [(math.prod(s[:a]), s[a], math.prod(s[a + 1:]))]

    def maxpr(self, x, *, axis, keepdims):

        if _is_one(x.shape[axis]):  # MAX's verifier rejects arg_max over an axis of one
            shape = list(x.shape)
            if not keepdims:
                del shape[axis]
            return L.broadcast_to(ops.constant(0, DType.int64, x.device), shape)
        if len(x.shape) > L.MOVE_RANK and L.static_shape(x) is not None:
            rows, restore = L.fold_rows(x, axis)
            out = restore(self.maxpr(rows, axis=1, keepdims=True))
            return out if keepdims else ops.squeeze(out, axis)
        if x.dtype == DType.bool:
            x = ops.cast(x, DType.int8)
        if L.is_float(x):
            # NaN wins, like NumPy: map it to +-inf-beyond by selecting on a mask
            nan = ops.is_nan(x)
            any_nan = ops.max(ops.cast(nan, DType.int8), axis=axis)
            first_nan = ops.argmax(ops.cast(nan, DType.int8), axis=axis)
            out = getattr(ops, self.max_fn)(x, axis=axis)
            out = ops.where(ops.greater(any_nan, ops.constant(0, DType.int8, x.device)), first_nan, out)
        else:
            out = getattr(ops, self.max_fn)(x, axis=axis)
        out = ops.cast(out, DType.int64)
        return out if keepdims else ops.squeeze(out, axis)


def _is_one(dim) -> bool:
    """Whether a MAX dim is the static size 1 (symbolic dims stand for sizes of 3 and more)."""
    # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
    from max.graph.dim import StaticDim

    return isinstance(dim, StaticDim) and int(dim) == 1


argmax_op = ArgReduceOp("argmax", "argmax", Fused(reduce=6, signed=True))
argmin_op = ArgReduceOp("argmin", "argmin", Fused(reduce=7, signed=True))


def _sorted(x: Tensor, axis: int, descending: bool, op: str) -> list:
    impl = x._impl
    if impl.ndim == 0:
        raise ValueError(f"nabla.{op}: 0-d tensors cannot be sorted")
    a = normalize_axis(axis, impl.ndim, op)
    dtype = impl.dtype
    wide = _SORTED_AS.get(dtype)
    if wide is None:
        return sort_op(x, axis=impl.batch_dims + a, descending=bool(descending))

    values, order = sort_op(astype(x, wide), axis=impl.batch_dims + a, descending=bool(descending))
    return [astype(values, dtype), order]


#: dtypes sorted as a wider one holding each value exactly, in the same order (ties stay in input
#: order): the sort kernel's models are then three (int64, uint64, float64), not one per dtype, and a
#: script's first uint8 or float32 sort on a fresh machine needs no model built for it
_SORTED_AS = {**{d: _dt.int64 for d in (_dt.bool_, _dt.int8, _dt.int16, _dt.int32, _dt.uint8, _dt.uint16,
                                        _dt.uint32)},
              _dt.float16: _dt.float64, _dt.float32: _dt.float64}


def argsort(x: Tensor, axis: int = -1, descending: bool = False, stable: bool = True) -> Tensor:
    """The stable order of ``x`` along ``axis`` (every sort here is stable)."""
    return _sorted(x, axis, descending, "argsort")[1]


def sort(x: Tensor, axis: int = -1, descending: bool = False, stable: bool = True) -> Tensor:
    return _sorted(x, axis, descending, "sort")[0]


def _arg_reduce(op, x: Tensor, axis, keepdims: bool) -> Tensor:
    impl = x._impl
    if axis is None:
        flat = reshape(x, (x.size,))
        out = op(flat, axis=impl.batch_dims, keepdims=False)
        return reshape(out, (1,) * impl.ndim) if keepdims else out
    a = normalize_axis(axis, impl.ndim, op.name)
    return op(x, axis=impl.batch_dims + a, keepdims=bool(keepdims))


def argmax(x: Tensor, axis=None, keepdims: bool = False) -> Tensor:
    return _arg_reduce(argmax_op, x, axis, keepdims)


def argmin(x: Tensor, axis=None, keepdims: bool = False) -> Tensor:
    return _arg_reduce(argmin_op, x, axis, keepdims)


def searchsorted(x1: Tensor, x2: Tensor, side: str = "left", sorter=None) -> Tensor:
    """Insertion points of ``x2`` in the sorted 1-D ``x1`` (NaN sorts last): by counting, or by
    binary search where counting would compare too many pairs."""
    if side not in ("left", "right"):
        raise ValueError(f"nabla.searchsorted: side must be 'left' or 'right', got {side!r}")
    if x1.ndim != 1:
        raise ValueError(f"nabla.searchsorted: x1 must be 1-D, got shape {x1.shape}")
    if sorter is not None:
        x1 = take(x1, sorter, axis=0)
    x1, x2 = coerce_operands(x1, x2, "searchsorted")
    n = x1.shape[0]
    if n * max(1, x2.size) > _COUNTING_LIMIT:
        return _binary_search(x1, x2, side)
    v = reshape(x2, x2.shape + (1,))
    before = _before(x1, v, side)

    return reduce_sum(astype(before, _dt.int64), axis=-1)


#: above this many comparisons, insertion points are found by binary search (log2(n) gathers of
#: x2's size) instead of by counting (one comparison per pair: n * m booleans in memory)
_COUNTING_LIMIT = 1 << 22


def _before(x, v, side: str) -> Tensor:
    """Whether sorted values ``x`` go before ``v``: ``x < v`` (left) or ``x <= v`` (right), with
    NaN after every number, as NumPy sorts it."""
    if side == "left":
        before = B["less"](x, v)
        if x.dtype.is_floating:
            before = B["logical_or"](before, B["logical_and"](U["logical_not"](U["isnan"](x)), U["isnan"](v)))
    else:
        before = B["less_equal"](x, v)
        if x.dtype.is_floating:
            before = B["logical_or"](before, U["isnan"](v))
    return before


def _binary_search(x1: Tensor, x2: Tensor, side: str) -> Tensor:
    """Insertion points by a branch-free binary search over the sorted ``x1`` (the "uniform" lower
    bound: every query takes the same halving steps, so all of them advance together as array
    ops). ``found`` counts the leading elements known to go before the query."""
    n = x1.shape[0]
    found = full(x2.shape, 0, _dt.int64, x2.device)
    step = 1 << (n.bit_length() - 1) if n else 0
    limit = scalar_tensor(n, _dt.int64, x2.device)
    while step:
        probe = B["add"](found, scalar_tensor(step, _dt.int64, x2.device))  # a candidate count
        at = B["subtract"](B["minimum"](probe, limit), scalar_tensor(1, _dt.int64, x2.device))
        ok = B["logical_and"](B["less_equal"](probe, limit), _before(take(x1, at, axis=0), x2, side))
        found = where(ok, probe, found)
        step >>= 1
    return found
