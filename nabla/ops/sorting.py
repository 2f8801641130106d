"""Sorting, searching and scans on MAX: argsort, argmax/argmin, cumulative sum.

MAX's ``argsort`` is 1-D and refused by its eager interpreter, and ``top_k`` is not
stable, so ``ArgsortOp`` ranks by pairwise comparison along the axis (stable, NaN
last): O(n^2) work per row, which MAX vectorizes well for the row lengths arrays
usually sort; rows longer than ``PAIRWISE_LIMIT`` use ``top_k`` (ties unordered).
"""

from __future__ import annotations

from ..core import dtypes as _dt
from ..core.operation import Operation
from ..core.tensor import Tensor
from .base import describe, normalize_axis
from . import lowerings as L

PAIRWISE_LIMIT = 4096


def _to_last(x, axis):
    rank = len(x.shape)
    if axis == rank - 1:
        return x, None
    perm = [a for a in range(rank) if a != axis] + [axis]
    inverse = [0] * rank
    for i, p in enumerate(perm):
        inverse[p] = i
    return L.permute(x, perm), inverse


def _nan_aware_less(a, b, lowering):
    """a < b with NaN greater than everything (and NaNs equal to each other)."""
    from max.graph import ops

    lt = ops.greater(b, a)
    if lowering.is_float(a):
        lt = ops.logical_or(lt, ops.logical_and(ops.logical_not(ops.is_nan(a)), ops.is_nan(b)))
    return lt


def _nan_aware_equal(a, b, lowering):
    from max.graph import ops

    eq = ops.equal(a, b)
    if lowering.is_float(a):
        eq = ops.logical_or(eq, ops.logical_and(ops.is_nan(a), ops.is_nan(b)))
    return eq


class ArgsortOp(Operation):
    name = "argsort"

    def abstract_eval(self, x, *, axis, descending, stable):
        if x.dtype.is_complex:
            raise TypeError(f"nabla.argsort: complex tensors have no order ({describe(x)})")
        return x.cached_shape, _dt.int64, x.batch_dims

    def maxpr(self, x, *, axis, descending, stable):
        import numpy as np
        from max.dtype import DType
        from max.graph import ops


        if len(x.shape) > L.MOVE_RANK and L.static_shape(x) is not None:
            rows, restore = L.fold_rows(x, axis)
            return restore(self.maxpr(rows, axis=1, descending=descending, stable=stable))
        n = int(x.shape[axis])
        if n <= 1:
            return L.broadcast_to(ops.constant(0, DType.int64, x.device), [int(d) for d in x.shape])
        if x.dtype == DType.bool:
            x = ops.cast(x, DType.int8)
        y, inverse = _to_last(x, axis)
        if n > PAIRWISE_LIMIT:
            _, idx = ops.top_k(ops.negate(y) if not descending else y, n, axis=-1)
            out = ops.cast(idx, DType.int64)
        else:
            a = ops.unsqueeze(y, -1)  # element i
            b = ops.unsqueeze(y, -2)  # element j
            before = _nan_aware_less(a, b, L) if descending else _nan_aware_less(b, a, L)
            # rank_i = #{j before i} + #{j < i equal to i}: a stable order
            tri = ops.constant(np.tril(np.ones((n, n), dtype=bool), -1), DType.bool, y.device)
            ties = ops.logical_and(_nan_aware_equal(a, b, L), tri)
            count = ops.add(ops.cast(before, DType.int64), ops.cast(ties, DType.int64))
            rank = ops.sum(count, axis=-1)  # (..., n, 1)
            positions = ops.constant(np.arange(n, dtype=np.int64), DType.int64, y.device)
            # out[r] = the i whose rank is r
            hit = ops.cast(ops.equal(rank, ops.reshape(positions, [1] * (len(y.shape) - 1) + [n])), DType.int64)
            out = ops.sum(ops.mul(hit, ops.reshape(positions, [n, 1])), axis=-2)
            out = ops.squeeze(out, -2)
        if inverse is not None:
            out = L.permute(out, inverse)
        return out


class ArgReduceOp(Operation):
    """argmax / argmin along one physical axis (first occurrence wins)."""

    def __init__(self, name, max_fn):
        self.name, self.max_fn = name, max_fn

    def abstract_eval(self, x, *, axis, keepdims):
        if x.cached_shape[axis] == 0:
            raise ValueError(f"nabla.{self.name}: zero-size axis {axis - x.batch_dims} ({describe(x)})")
        s = list(x.cached_shape)
        if keepdims:
            s[axis] = 1
        else:
            del s[axis]
        return tuple(s), _dt.int64, x.batch_dims

    def maxpr(self, x, *, axis, keepdims):
        from max.dtype import DType
        from max.graph import ops


        if int(x.shape[axis]) == 1:  # MAX's verifier rejects arg_max over an axis of one
            shape = [int(d) for d in x.shape]
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


class CumsumOp(Operation):
    name = "cumulative_sum"
    shape_polymorphic = True
    supports_complex = True  # the (re, im) axis is last: the scan runs on both parts at once

    def abstract_eval(self, x, *, axis, reverse):
        return x.cached_shape, x.dtype, x.batch_dims

    def maxpr(self, x, *, axis, reverse):
        from max.graph import ops

        if x.shape[axis] == 0:  # symbolic dims stand for sizes of 2 and more
            return x
        return ops.cumsum(x, axis=axis, reverse=reverse)

    def jvp_rule(self, primals, tangents, output, *, axis, reverse):
        t = tangents[0]
        return cumsum_op(t, axis=axis + t.batch_dims - primals[0].batch_dims, reverse=reverse)

    def vjp_rule(self, primals, cotangent, output, *, axis, reverse):
        return [cumsum_op(cotangent, axis=axis + cotangent.batch_dims - primals[0].batch_dims, reverse=not reverse)]


argsort_op = ArgsortOp()
argmax_op = ArgReduceOp("argmax", "argmax")
argmin_op = ArgReduceOp("argmin", "argmin")
cumsum_op = CumsumOp()


def argsort(x: Tensor, axis: int = -1, descending: bool = False, stable: bool = True) -> Tensor:
    impl = x._impl
    if impl.ndim == 0:
        raise ValueError("nabla.argsort: 0-d tensors cannot be sorted")
    a = normalize_axis(axis, impl.ndim, "argsort")
    return argsort_op(x, axis=impl.batch_dims + a, descending=bool(descending), stable=bool(stable))


def sort(x: Tensor, axis: int = -1, descending: bool = False, stable: bool = True) -> Tensor:
    from .indexing import take_along_axis

    idx = argsort(x, axis, descending, stable)
    return take_along_axis(x, idx, axis)


def _arg_reduce(op, x: Tensor, axis, keepdims: bool) -> Tensor:
    from .view import reshape

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


def cumulative_sum(x: Tensor, axis=None, dtype=None, include_initial: bool = False) -> Tensor:
    x, a = _scan_input(x, axis, dtype, "cumulative_sum")
    out = cumsum_op(x, axis=x._impl.batch_dims + a, reverse=False)
    return _with_initial(out, a, 0) if include_initial else out


def cumulative_prod(x: Tensor, axis=None, dtype=None, include_initial: bool = False) -> Tensor:
    """Hillis-Steele scan of shifted products: log2(n) steps of MAX ops, differentiable as composed."""
    from .creation import ones
    from .indexing import slice_op
    from .multi_output import concat

    x, a = _scan_input(x, axis, dtype, "cumulative_prod")
    n = x.shape[a]
    b = x._impl.batch_dims
    k = 1
    while k < n:
        index = tuple((0, d, 1) for d in x._impl.cached_shape)
        head = list(index)
        head[b + a] = (0, n - k, 1)
        shifted_shape = list(x.shape)
        shifted_shape[a] = k
        pad = ones(tuple(shifted_shape), dtype=x.dtype, device=x.device)
        if b:
            from ._physical import broadcast_physical

            pad = broadcast_physical(pad, x._impl.batch_shape + tuple(shifted_shape), b)
        x = x * concat([pad, slice_op(x, index=tuple(head))], axis=a)
        k *= 2
    return _with_initial(x, a, 1) if include_initial else x


def _scan_input(x: Tensor, axis, dtype, op: str):
    from .elementwise import astype
    from .reduction import _accumulation_dtype

    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"nabla.{op}: axis is required for a tensor of rank {x.ndim}")
        axis = 0
    if x.ndim == 0:
        raise ValueError(f"nabla.{op}: 0-d tensors are not supported")
    a = normalize_axis(axis, x.ndim, op)
    target = _accumulation_dtype(x.dtype) if dtype is None else _dt.as_dtype(dtype)
    if target is not x.dtype:
        x = astype(x, target)
    return x, a


def _with_initial(x: Tensor, axis: int, value) -> Tensor:
    from .creation import full
    from .multi_output import concat

    shape = list(x.shape)
    shape[axis] = 1
    init = full(tuple(shape), value, dtype=x.dtype, device=x.device)
    if x.batch_dims:
        from ._physical import broadcast_physical

        init = broadcast_physical(init, x._impl.batch_shape + tuple(shape), x.batch_dims)
    return concat([init, x], axis=axis)


def searchsorted(x1: Tensor, x2: Tensor, side: str = "left", sorter=None) -> Tensor:
    """Insertion points of ``x2`` in the sorted 1-D ``x1``, by counting (NaN sorts last)."""
    from .elementwise import BINARY_FUNCTIONS as B, UNARY_FUNCTIONS as U, coerce_operands
    from .reduction import sum as reduce_sum
    from .view import reshape

    if side not in ("left", "right"):
        raise ValueError(f"nabla.searchsorted: side must be 'left' or 'right', got {side!r}")
    if x1.ndim != 1:
        raise ValueError(f"nabla.searchsorted: x1 must be 1-D, got shape {x1.shape}")
    if sorter is not None:
        from .indexing import take

        x1 = take(x1, sorter, axis=0)
    x1, x2 = coerce_operands(x1, x2, "searchsorted")
    v = reshape(x2, x2.shape + (1,))
    if side == "left":
        before = B["less"](x1, v)
        if x1.dtype.is_floating:
            before = B["logical_or"](before, B["logical_and"](U["logical_not"](U["isnan"](x1)), U["isnan"](v)))
    else:
        before = B["less_equal"](x1, v)
        if x1.dtype.is_floating:
            before = B["logical_or"](before, U["isnan"](v))
    from .elementwise import astype

    return reduce_sum(astype(before, _dt.int64), axis=-1)
