"""Broadcasting and its adjoint: ``broadcast_to`` (logical shapes), and the physical pair
``broadcast_physical``/``sum_to`` that autodiff and vmap use (batch and logical parts of a shape
each right-aligned); each is the other's derivative."""

from __future__ import annotations

from ..core.operation import Fused
from ..core.tensor import Tensor
from . import lowerings as L
from .base import LogicalShapeOperation, Operation, _check_shape, broadcast_shapes, describe
from .view import reshape, reshape_op
from ..core.context import VMAP_DEPTH
from ..core.lazy_module import graph_ops as ops


class BroadcastToOp(LogicalShapeOperation):
    sharding_rule = "broadcast_to"
    fused = Fused(view="strided")
    name = "broadcast_to"
    supports_complex = True

    def complex_storage_kwargs(self, kwargs):
        return {"shape": tuple(kwargs["shape"]) + (2,)}

    def out_shape(self, s, *, shape):
        return shape

    def maxpr(self, x, *, shape):
        return L.broadcast_to(x, shape)

    def jvp_rule(self, primals, tangents, output, *, shape):
        return broadcast_like(tangents[0], output)

    def vjp_rule(self, primals, cotangent, output, *, shape):
        return [sum_to_like(cotangent, primals[0])]


broadcast_to_op = BroadcastToOp()


def broadcast_to(x: Tensor, shape) -> Tensor:
    impl = x._impl
    shape = _check_shape(shape, "broadcast_to")
    if len(shape) < impl.ndim or broadcast_shapes(impl.shape, shape, op="broadcast_to") != shape:
        raise ValueError(f"nabla.broadcast_to: cannot broadcast {describe(impl)} to {shape}")
    if shape == impl.shape:
        return x
    b = impl.batch_dims
    if b:
        x = pad_logical_rank(x, len(shape))
    return broadcast_to_op.apply_unary(x, {"shape": impl.batch_shape + shape})


def pad_logical_rank(x: Tensor, ndim: int) -> Tensor:
    """Insert size-1 axes between the batch dims and the logical shape up to logical rank ``ndim``."""
    impl = x._impl
    k = ndim - impl.ndim
    if k <= 0:
        return x
    return reshape_op.apply_unary(x, {"shape": impl.batch_shape + (1,) * k + impl.shape})


def _lift_batch_shape(self, kwargs, n):
    """A stack axis is one more batch axis, kept in place only where the batch parts align (else
    the right-aligned rule would sum or broadcast it)."""
    b, ib = kwargs["batch_dims"], kwargs["in_batch_dims"]
    return None if b != ib else {"shape": (n, *kwargs["shape"]), "batch_dims": b + 1, "in_batch_dims": ib + 1}


class _PhysicalShapeOp(Operation):
    """An op to a physical ``shape`` with ``batch_dims`` (from ``in_batch_dims``)."""

    supports_complex = True

    def complex_storage_kwargs(self, kwargs):
        return {**kwargs, "shape": tuple(kwargs["shape"]) + (2,)}  # the (re, im) axis ends the logical part

    def abstract_eval(self, x, *, shape, batch_dims, in_batch_dims):
        return shape, x.dtype, batch_dims

    lift_kwargs = _lift_batch_shape


class SumToOp(_PhysicalShapeOp):
    """Sum a cotangent down to a physical ``shape`` with ``batch_dims``: the adjoint of broadcasting.

    Batch parts and logical parts are each right-aligned; leading axes the target lacks, and
    axes where the target has size 1, are summed.
    """
    sharding_rule = "sum_to"

    name = "sum_to"

    def maxpr(self, x, *, shape, batch_dims, in_batch_dims):
        dims = [int(d) for d in x.shape]
        axes = []
        for lo, hi, tlo, thi in ((0, in_batch_dims, 0, batch_dims), (in_batch_dims, len(dims), batch_dims, len(shape))):
            extra = (hi - lo) - (thi - tlo)
            axes += range(lo, lo + extra)
            axes += [lo + extra + i for i, d in enumerate(shape[tlo:thi]) if d == 1 and dims[lo + extra + i] != 1]
        for a in sorted(axes, reverse=True):
            x = ops.sum(x, axis=a)
        return ops.reshape(x, shape)

    def vjp_rule(self, primals, cotangent, output, **kwargs):
        return [broadcast_like(cotangent, primals[0])]

    def jvp_rule(self, primals, tangents, output, **kwargs):
        return sum_to_op(tangents[0], **kwargs)


class BroadcastPhysicalOp(_PhysicalShapeOp):
    """Broadcast to a physical ``shape``: batch parts right-aligned, logical parts right-aligned."""
    sharding_rule = "broadcast_physical"
    fused = Fused(view="strided")

    name = "broadcast_physical"

    def maxpr(self, x, *, shape, batch_dims, in_batch_dims):
        dims = [int(d) for d in x.shape]
        batch, logical = dims[:in_batch_dims], dims[in_batch_dims:]
        padded = [1] * (batch_dims - len(batch)) + batch + [1] * (len(shape) - batch_dims - len(logical)) + logical
        if padded != dims:
            x = ops.reshape(x, padded)
        return L.broadcast_to(x, shape)

    def vjp_rule(self, primals, cotangent, output, *, shape, batch_dims, in_batch_dims):
        return [sum_to_like(cotangent, primals[0])]

    def jvp_rule(self, primals, tangents, output, *, shape, batch_dims, in_batch_dims):
        return broadcast_physical_op(tangents[0], shape=shape, batch_dims=batch_dims, in_batch_dims=in_batch_dims)


sum_to_op = SumToOp()
broadcast_physical_op = BroadcastPhysicalOp()


def sum_to(x: Tensor, shape: tuple, batch_dims: int) -> Tensor:
    """``x`` summed down to physical ``shape`` with ``batch_dims``."""
    if x._impl.cached_shape == tuple(shape) and x.batch_dims == batch_dims:
        return x
    return sum_to_op(x, shape=tuple(shape), batch_dims=batch_dims, in_batch_dims=x.batch_dims)


def sum_to_like(g: Tensor, like: Tensor) -> Tensor:
    """The cotangent ``g`` of a broadcast use of ``like``, reduced to ``like``'s shape.

    Batch dims of the vmaps running now are kept (a gradient taken inside vmap is per example,
    even for an unbatched primal); those of vmaps inside the differentiated function are summed
    where ``like`` lacks them.
    """
    gb, lb = g._impl.batch_shape, like._impl.batch_shape
    active = VMAP_DEPTH.value
    batch = []
    for j in range(len(gb)):  # from the right: the outermost level first
        if j < active:
            batch.append(gb[-1 - j])
        elif j < len(lb):
            batch.append(lb[-1 - j])
    batch = tuple(reversed(batch))
    return sum_to(g, batch + like.shape, len(batch))


def broadcast_physical(x: Tensor, shape: tuple, batch_dims: int) -> Tensor:
    if x._impl.cached_shape == tuple(shape) and x.batch_dims == batch_dims:
        return x
    return broadcast_physical_op(x, shape=tuple(shape), batch_dims=batch_dims, in_batch_dims=x.batch_dims)


def broadcast_like(x: Tensor, like: Tensor) -> Tensor:
    """Broadcast ``x`` to ``like``'s logical shape; batch dims broadcast right-aligned."""
    batch = broadcast_shapes(x._impl.batch_shape, like._impl.batch_shape, op="broadcast")
    return broadcast_physical(x, batch + like.shape, len(batch))


def grids(arrays, indexing="xy") -> tuple[Tensor, ...]:
    """``meshgrid`` of 1-D ``arrays`` of any dtypes, each grid in its array's (NumPy's rule)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"nabla.meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    n = len(arrays)
    if n == 0:
        return ()
    shape = [a.size for a in arrays]
    if indexing == "xy" and n > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for k, a in enumerate(arrays):
        s = [1] * n
        pos = k
        if indexing == "xy" and n > 1 and k < 2:
            pos = 1 - k
        s[pos] = a.size
        out.append(broadcast_to(reshape(a, tuple(s)), tuple(shape)))
    return tuple(out)
