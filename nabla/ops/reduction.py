"""Reductions over logical axes: sum, mean, prod, max, min."""

from __future__ import annotations

import math

from ..core import dtypes as _dt
from ..core.context import get_default_dtype
from ..core.operation import Fused
from ..core.tensor import Tensor
from ..core.tensor_impl import TensorImpl
from .base import Operation, accumulation_dtype, describe, normalize_axes
from .elementwise import cast_op
from .view import permute_dims, reshape, reshape_op, unsqueeze_op
from .broadcasting import broadcast_like
from .creation import ones
from .lowerings import const
from .multi_output import concat
from .scans import FOLD_FACTORS, cumulative_prod
from ..core.lazy_module import graph_ops as ops


class ReduceOperation(Operation):
    """Reduce axes given in logical terms; kwargs record physical ``axes`` (sorted)."""
    sharding_rule = "reduce"

    shape_polymorphic = True

    def out_dtype(self, dtype):
        return dtype

    def check_dtype(self, x: TensorImpl) -> None:
        pass

    #: A full reduction of at least this many elements is split into rows, because MAX
    #: runs a reduction over one long axis on one core (10M floats: 86 ms vs 52 ms split).
    split_threshold = 1 << 18

    def lift_kwargs(self, kwargs, n):
        return {**kwargs, "axes": tuple(a + 1 for a in kwargs["axes"])}

    def apply(self, x: Tensor, axis=None, keepdims: bool = False) -> Tensor:
        impl = x._impl
        axes = normalize_axes(axis, impl.ndim, self.name)
        b = impl.batch_dims
        if b == 0 and len(axes) == impl.ndim and impl.ndim and x.size >= self.split_threshold:
            rows = next((k for k in (16, 8, 4, 2) if x.size % k == 0), None)
            if rows is not None and math.prod(impl.shape[:-1]) < rows:
                split = reshape_op(x, shape=(rows, x.size // rows))
                out = self(split, axes=(0, 1), keepdims=False)
                return reshape_op(out, shape=(1,) * impl.ndim) if keepdims else out
        if len(axes) > 1 and axes[-1] - axes[0] != len(axes) - 1:
            # axes apart (``mean(x, axis=(0, 2, 3))`` of NCHW data): the kept axes first, the reduced
            # ones after them, so that one run of axes is reduced (the program kernel's reductions
            # take one run; over axes apart a reduction went to MAX's interpreter or a compile)
            kept = tuple(a for a in range(impl.ndim) if a not in axes)
            out = self.apply(permute_dims(x, kept + axes), tuple(range(len(kept), impl.ndim)))
            return reshape(out, tuple(1 if a in axes else d for a, d in enumerate(x.shape))) if keepdims else out
        return self.apply_unary(x, {"axes": tuple(b + a for a in axes) if b else axes, "keepdims": bool(keepdims)})

    def abstract_eval(self, x: TensorImpl, *, axes: tuple, keepdims: bool):
        self.check_dtype(x)
        shape = list(x.cached_shape)
        for a in axes:
            if shape[a] == 0 and self.requires_nonempty:
                raise ValueError(
                    f"nabla.{self.name}: zero-size axis {a - x.batch_dims} has no identity ({describe(x)})")
            shape[a] = 1 if keepdims else None
        return tuple(d for d in shape if d is not None), self.out_dtype(x.dtype), x.batch_dims

    requires_nonempty = False

    def reduce_one(self, x, axis: int):
        """MAX reduction of one physical axis, keeping it as size 1."""
        raise NotImplementedError

    def maxpr(self, x, *, axes, keepdims):
        for a in reversed(axes):  # innermost first: later passes see smaller tensors
            x = self.reduce_one(x, a)
        if not keepdims:
            for a in reversed(axes):
                x = ops.squeeze(x, a)
        return x


class _MaxReduce(ReduceOperation):
    def __init__(self, name: str, max_fn: str, fused: Fused, requires_nonempty: bool = False,
                 category: str = "numeric"):
        self.name, self.max_fn, self.fused = name, max_fn, fused
        self.requires_nonempty = requires_nonempty
        self.category = category
        self.supports_complex = name in ("sum", "mean")  # both act on (re, im) pairs separately

    def check_dtype(self, x):
        if x.dtype.is_bool or (self.category == "float" and not (x.dtype.is_floating or x.dtype.is_complex)):
            raise TypeError(f"nabla.{self.name}: unsupported dtype, got {describe(x)}")

    def reduce_one(self, x, axis):
        out = getattr(ops, self.max_fn)(x, axis=axis)
        if self.name in ("max", "min") and x.dtype.is_float():
            # MAX's max/min skip NaN; NumPy's (and the standard's) propagate it
            seen = ops.max(ops.cast(ops.is_nan(x), x.dtype), axis=axis)
            out = ops.where(ops.greater(seen, const(0, seen)), const(float("nan"), out), out)
        return out

    # --- derivatives: every rule is made of Nabla ops, so higher orders follow ---
    @staticmethod
    def _expand(r, x, axes, keepdims):
        """Bring a reduced tensor back to ``x``'s physical shape."""
        if not keepdims:
            shift = r.batch_dims - x.batch_dims  # r may carry more batch dims than x (vmap of grad)
            for a in axes:
                r = unsqueeze_op(r, axis=a + shift)
        return broadcast_like(r, x)

    def _weights(self, x, out, axes, keepdims):
        """d out / d x as a tensor of x's shape (None where it is 1)."""
        name = self.name
        if name == "sum":
            return None
        if name == "mean":
            count = 1
            for a in axes:
                count *= x._impl.cached_shape[a]
            return 1.0 / count if count else 1.0
        if name == "prod":
            return _product_of_others(x, [a - x.batch_dims for a in axes])
        hit = (x == self._expand(out, x, axes, keepdims)).astype(x.dtype)  # max/min: ties share
        return hit / self._expand(REDUCE_OPS["sum"](hit, axes=axes, keepdims=keepdims), x, axes, keepdims)

    def vjp_rule(self, primals, cotangent, output, *, axes, keepdims):
        x = primals[0]
        if not (x.dtype.is_floating or x.dtype.is_complex):
            return [None]
        g = self._expand(cotangent, x, axes, keepdims)
        w = self._weights(x, output, axes, keepdims)
        return [g if w is None else g * w]

    def jvp_rule(self, primals, tangents, output, *, axes, keepdims):
        x, t = primals[0], tangents[0]
        w = self._weights(x, output, axes, keepdims)
        return REDUCE_OPS["sum"](t if w is None else t * w, axes=axes, keepdims=keepdims)


def _product_of_others(x: Tensor, axes: list[int]) -> Tensor:
    """d prod / d x over logical ``axes``: for each element, the product of the others in its group.

    Exclusive scans from both ends (as JAX does), not ``prod / x``: exact where ``x`` has zeros,
    and made of multiplications, so it differentiates again (the Hessian of a product at a zero).
    """
    kept = [a for a in range(x.ndim) if a not in axes]
    kept_shape = tuple(x.shape[a] for a in kept)
    order = kept + list(axes)
    n = 1
    for a in axes:
        n *= x.shape[a]
    y = reshape(permute_dims(x, order), kept_shape + (n,))
    left = cumulative_prod(y, axis=-1, include_initial=True)[..., :-1]
    right = cumulative_prod(y[..., ::-1], axis=-1, include_initial=True)[..., -2::-1]
    others = reshape(left * right, tuple(x.shape[a] for a in order))
    inverse = [0] * len(order)
    for i, a in enumerate(order):
        inverse[a] = i
    return permute_dims(others, inverse)


REDUCE_OPS = {
    "sum": _MaxReduce("sum", "sum", Fused(reduce=1)),
    "prod": _MaxReduce("prod", "prod", Fused(reduce=5)),
    "mean": _MaxReduce("mean", "mean", Fused(reduce=2), category="float"),
    "max": _MaxReduce("max", "max", Fused(reduce=3, signed=True), requires_nonempty=True),
    "min": _MaxReduce("min", "min", Fused(reduce=4, signed=True), requires_nonempty=True),
}


def _check(x, op):
    if not isinstance(x, Tensor):
        raise TypeError(f"nabla.{op}: expected a Tensor, got {type(x).__name__}")


def _accumulating_reduce(name: str, x: Tensor, axis, keepdims, dtype) -> Tensor:
    _check(x, name)
    target = accumulation_dtype(x.dtype) if dtype is None else _dt.as_dtype(dtype)
    if target is not x.dtype:
        x = cast_op(x, dtype=target)
    return REDUCE_OPS[name].apply(x, axis, keepdims)


def sum(x: Tensor, axis=None, keepdims: bool = False, dtype=None) -> Tensor:
    return _accumulating_reduce("sum", x, axis, keepdims, dtype)


def prod(x: Tensor, axis=None, keepdims: bool = False, dtype=None) -> Tensor:
    _check(x, "prod")
    if x.dtype.is_complex or (dtype is not None and _dt.as_dtype(dtype).is_complex):
        return _complex_prod(x if dtype is None else cast_op(x, dtype=_dt.as_dtype(dtype)), axis, keepdims)
    return _accumulating_reduce("prod", x, axis, keepdims, dtype)


def _complex_prod(x: Tensor, axis, keepdims: bool) -> Tensor:
    """MAX's product reduction has no complex form: the reduced axes, flattened last, are
    multiplied in complex multiplications (differentiable as composed): in order, from NumPy's
    initial value 1, up to ``scans.FOLD_FACTORS``, pairwise beyond."""
    axes = normalize_axes(axis, x.ndim, "prod")
    kept = [a for a in range(x.ndim) if a not in axes]
    out_shape = tuple(x.shape[a] for a in kept)
    n = 1
    for a in axes:
        n *= x.shape[a]
    y = reshape(permute_dims(x, kept + list(axes)), out_shape + (n,))
    if n == 0:
        y = ones(out_shape + (1,), dtype=x.dtype, device=x.device)
    if 0 < n <= FOLD_FACTORS:  # (from NumPy's initial value, its identity 1: 1 * (inf + 0j) is inf + nan j)
        acc = ones(out_shape, dtype=x.dtype, device=x.device)
        for k in range(n):
            acc = acc * y[..., k]
        y = reshape(acc, out_shape + (1,))
    while y.shape[-1] > 1:
        if y.shape[-1] % 2:
            y = concat([y, ones(out_shape + (1,), dtype=x.dtype, device=x.device)], axis=-1)
        half = y.shape[-1] // 2
        y = y[..., :half] * y[..., half:]
    y = reshape(y, out_shape)
    if keepdims:
        y = reshape(y, tuple(1 if a in axes else d for a, d in enumerate(x.shape)))
    return y


def mean(x: Tensor, axis=None, keepdims: bool = False) -> Tensor:
    _check(x, "mean")
    if not (x.dtype.is_floating or x.dtype.is_complex):
        x = cast_op(x, dtype=get_default_dtype())
    if x.dtype.is_complex:
        # NumPy divides the sum by the count as a complex number: an infinite part makes the other
        # NaN (Smith's ``inf * 0``), where dividing each part would keep it
        axes = normalize_axes(axis, x.ndim, "mean")
        count = 1
        for a in axes:
            count *= x.shape[a]
        return sum(x, axis, keepdims) / count
    return REDUCE_OPS["mean"].apply(x, axis, keepdims)


def max(x: Tensor, axis=None, keepdims: bool = False) -> Tensor:
    _check(x, "max")
    return REDUCE_OPS["max"].apply(x, axis, keepdims)


def min(x: Tensor, axis=None, keepdims: bool = False) -> Tensor:
    _check(x, "min")
    return REDUCE_OPS["min"].apply(x, axis, keepdims)
