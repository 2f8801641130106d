"""Scans: running sums, products, maxima and minima along an axis (``ScanOp``), and the functions over
them (``cumulative_sum``, ``cumulative_prod``, ``cumulative_max``, ``cumulative_min``)."""

from __future__ import annotations

import numpy as np

from ..core import dtypes as _dt
from ..core.operation import Fused, Operation
from ..core.tensor import Tensor
from .base import accumulation_dtype, normalize_axis
from .casts import astype
from .elementwise import BINARY_FUNCTIONS
from .broadcasting import broadcast_physical
from .creation import full, ones
from .index_primitives import slice_op
from .multi_output import concat
from . import lowerings as L
from ..core.lazy_module import graph_ops as ops


class ScanOp(Operation):
    """A running combine along physical ``axis`` (``reverse``: from its end), element after element as
    NumPy's ``accumulate`` takes them (a float product rounded at each step): the program kernel's
    scan stage, of the kind its ``Fused.scan`` names. In MAX's graphs (``maxpr``) a product, maximum
    or minimum is log2(n) doubling steps (Hillis and Steele, 1986): a product's rounding is then
    theirs."""
    sharding_rule = "along_axis"

    def __init__(self, name: str, kind: int, combine, identity):
        self.name, self.fused = name, Fused(scan=kind, signed=kind in (3, 4))
        self._combine, self._identity = combine, identity  # (MAX ops of two tensors; the head's fill)

    def abstract_eval(self, x, *, axis, reverse):
        if x.dtype.is_bool or x.dtype.is_complex:
            raise TypeError(f"nabla.{self.name}: unsupported dtype {x.dtype}")
        return x.cached_shape, x.dtype, x.batch_dims

    def maxpr(self, x, *, axis, reverse):
        n = int(x.shape[axis])
        if reverse:
            raise NotImplementedError(f"nabla.{self.name}: reverse")
        k = 1
        while k < n:
            head = list(x.shape)
            head[axis] = k
            cut = [slice(None)] * len(x.shape)
            cut[axis] = slice(0, n - k)
            fill = L.broadcast_to(L.const(self._identity(x.dtype), x), head)
            x = self._combine(x, ops.concat([fill, L.slice_tensor(x, cut)], axis))
            k *= 2
        return x


def _lowest(dtype):
    return -float("inf") if dtype.is_float() else int(np.iinfo(dtype.to_numpy()).min)


def _highest(dtype):
    return float("inf") if dtype.is_float() else int(np.iinfo(dtype.to_numpy()).max)


cumprod_op = ScanOp("cumulative_prod", 5, lambda x, y: ops.mul(x, y), lambda dtype: 1)
cummax_op = ScanOp("cumulative_max", 3, L.maximum, _lowest)
cummin_op = ScanOp("cumulative_min", 4, L.minimum, _highest)


class CumsumOp(ScanOp):
    name = "cumulative_sum"
    shape_polymorphic = True
    supports_complex = True  # the (re, im) axis is last: the scan runs on both parts at once
    fused = Fused(scan=1)

    def __init__(self):
        pass

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
    if _plain(x) and not x.dtype.is_complex:  # (NumPy's order: one factor after another)
        out = cumprod_op(x, axis=a, reverse=False)
        return _with_initial(out, a, 1) if include_initial else out
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


def cumulative_max(x: Tensor, axis: int) -> Tensor:
    """``maximum.accumulate`` along ``axis`` (NaN propagating, as NumPy's maximum)."""
    return _extremes(x, axis, cummax_op, "maximum")


def cumulative_min(x: Tensor, axis: int) -> Tensor:
    """``minimum.accumulate`` along ``axis``."""
    return _extremes(x, axis, cummin_op, "minimum")


def _extremes(x: Tensor, axis: int, op: ScanOp, name: str) -> Tensor:
    a = normalize_axis(axis, x.ndim, op.name)
    if x.dtype.is_complex or x.dtype.is_bool:
        raise TypeError(f"nabla.{op.name}: unsupported dtype {x.dtype}")
    if _plain(x) and x.shape[a] > 1:
        return op(x, axis=a, reverse=False)
    # (composed of ops with their rules: a gradient, a batch)
    combine, n = BINARY_FUNCTIONS[name], x.shape[a]
    k = 1
    while k < n:
        index = [(0, d, 1) for d in x._impl.cached_shape]
        head, tail = list(index), list(index)
        b = x._impl.batch_dims
        head[b + a], tail[b + a] = (0, k, 1), (0, n - k, 1)
        rest = list(index)
        rest[b + a] = (k, n, 1)
        x = concat([slice_op(x, index=tuple(head)),
                    combine(slice_op(x, index=tuple(rest)), slice_op(x, index=tuple(tail)))], axis=a)
        k *= 2
    return x


def _plain(x: Tensor) -> bool:
    """Whether ``x`` takes a scan op: no gradient, batch axes or sharding (those compose it of ops
    that have their rules)."""
    impl = x._impl
    return not (impl.traced or impl.tangents is not None or impl.batch_dims or impl.sharding is not None)


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
