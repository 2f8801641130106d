"""Scans: ``cumulative_sum`` (MAX's cumsum) and ``cumulative_prod`` (a scan of shifted products)."""

from __future__ import annotations

from ..core import dtypes as _dt
from ..core.operation import Operation
from ..core.tensor import Tensor
from .base import accumulation_dtype, normalize_axis
from .casts import astype
from .broadcasting import broadcast_physical
from .creation import full, ones
from .index_primitives import slice_op
from .multi_output import concat
from ..core.lazy_module import graph_ops as ops


class CumsumOp(Operation):
    sharding_rule = "along_axis"
    name = "cumulative_sum"
    shape_polymorphic = True
    supports_complex = True  # the (re, im) axis is last: the scan runs on both parts at once

    def abstract_eval(self, x, *, axis, reverse):
        return x.cached_shape, x.dtype, x.batch_dims

    def maxpr(self, x, *, axis, reverse):
        if x.shape[axis] == 0:  # symbolic dims stand for sizes of 2 and more
            return x
        return ops.cumsum(x, axis=axis, reverse=reverse)

    def jvp_rule(self, primals, tangents, output, *, axis, reverse):
        t = tangents[0]
        return cumsum_op(t, axis=axis + t.batch_dims - primals[0].batch_dims, reverse=reverse)

    def vjp_rule(self, primals, cotangent, output, *, axis, reverse):
        return [cumsum_op(cotangent, axis=axis + cotangent.batch_dims - primals[0].batch_dims, reverse=not reverse)]


cumsum_op = CumsumOp()


def cumulative_sum(x: Tensor, axis=None, dtype=None, include_initial: bool = False) -> Tensor:
    x, a = _scan_input(x, axis, dtype, "cumulative_sum")
    out = cumsum_op(x, axis=x._impl.batch_dims + a, reverse=False)
    return _with_initial(out, a, 0) if include_initial else out


#: a complex product (``cumulative_prod``, ``reduction.prod``) of at most this many factors is
#: NumPy's fold, in its order, so that an infinite part's NaNs (``inf * 0`` inside a complex multiply)
#: fall where NumPy's do; a longer one is a tree of log2(n) steps (a fold records n multiplications)
FOLD_FACTORS = 512


def cumulative_prod(x: Tensor, axis=None, dtype=None, include_initial: bool = False) -> Tensor:
    """Hillis-Steele scan of shifted products: log2(n) steps of MAX ops, differentiable as composed;
    a short complex one each product in turn, as NumPy multiplies (an infinite part's NaNs fall where
    NumPy's do)."""
    x, a = _scan_input(x, axis, dtype, "cumulative_prod")
    n = x.shape[a]
    b = x._impl.batch_dims
    if x.dtype.is_complex and 1 < n <= FOLD_FACTORS:
        index = [(0, d, 1) for d in x._impl.cached_shape]
        parts = []
        for k in range(n):
            index[b + a] = (k, k + 1, 1)
            part = slice_op(x, index=tuple(index))
            parts.append(part if not parts else parts[-1] * part)
        x = concat(parts, axis=a)
        return _with_initial(x, a, 1) if include_initial else x
    k = 1
    while k < n:
        index = tuple((0, d, 1) for d in x._impl.cached_shape)
        head = list(index)
        head[b + a] = (0, n - k, 1)
        shifted_shape = list(x.shape)
        shifted_shape[a] = k
        pad = ones(tuple(shifted_shape), dtype=x.dtype, device=x.device)
        if b:
            pad = broadcast_physical(pad, x._impl.batch_shape + tuple(shifted_shape), b)
        x = x * concat([pad, slice_op(x, index=tuple(head))], axis=a)
        k *= 2
    return _with_initial(x, a, 1) if include_initial else x


def _scan_input(x: Tensor, axis, dtype, op: str):
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"nabla.{op}: axis is required for a tensor of rank {x.ndim}")
        axis = 0
    if x.ndim == 0:
        raise ValueError(f"nabla.{op}: 0-d tensors are not supported")
    a = normalize_axis(axis, x.ndim, op)
    target = accumulation_dtype(x.dtype) if dtype is None else _dt.as_dtype(dtype)
    if target is not x.dtype:
        x = astype(x, target)
    return x, a


def _with_initial(x: Tensor, axis: int, value) -> Tensor:
    shape = list(x.shape)
    shape[axis] = 1
    init = full(tuple(shape), value, dtype=x.dtype, device=x.device)
    if x.batch_dims:
        init = broadcast_physical(init, x._impl.batch_shape + tuple(shape), x.batch_dims)
    return concat([init, x], axis=axis)
