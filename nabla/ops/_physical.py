"""Physical batch-dim plumbing for vmap: not exported to users."""

from __future__ import annotations

from ..core.tensor import Tensor
from .base import Operation, normalize_axis
from .view import reshape_op


class _BatchDimsOp(Operation):
    """Changes only the ``batch_dims`` counter; the data is untouched."""

    shape_polymorphic = True

    def __init__(self, name: str, delta: int):
        self.name, self.delta = name, delta

    def abstract_eval(self, x):
        b = x.batch_dims + self.delta
        if not 0 <= b <= len(x.cached_shape):
            raise ValueError(f"nabla.{self.name}: batch_dims would become {b} for physical shape {x.cached_shape}")
        return x.cached_shape, x.dtype, b

    def maxpr(self, x):
        return x


class _MoveAxisOp(Operation):
    """Permute physical axes and adjust ``batch_dims`` by ``delta`` in one step."""

    shape_polymorphic = True

    def __init__(self, name: str, delta: int):
        self.name, self.delta = name, delta

    def abstract_eval(self, x, *, perm):
        s = x.cached_shape
        return tuple(s[p] for p in perm), x.dtype, x.batch_dims + self.delta

    def maxpr(self, x, *, perm):
        from max.graph import ops

        return ops.permute(x, list(perm))


incr_batch_dims_op = _BatchDimsOp("incr_batch_dims", +1)
decr_batch_dims_op = _BatchDimsOp("decr_batch_dims", -1)
_to_batch_op = _MoveAxisOp("move_axis_to_batch_dims", +1)
_from_batch_op = _MoveAxisOp("move_axis_from_batch_dims", -1)


def incr_batch_dims(x: Tensor) -> Tensor:
    return incr_batch_dims_op(x)


def decr_batch_dims(x: Tensor) -> Tensor:
    return decr_batch_dims_op(x)


def move_axis_to_batch_dims(x: Tensor, axis: int) -> Tensor:
    """Move physical ``axis`` to the front and count it as a batch dim."""
    rank = len(x._impl.cached_shape)
    axis = normalize_axis(axis, rank, "move_axis_to_batch_dims")
    perm = (axis,) + tuple(a for a in range(rank) if a != axis)
    return _to_batch_op(x, perm=perm)


def move_axis_from_batch_dims(x: Tensor, batch_axis: int = 0, logical_destination: int = 0) -> Tensor:
    """Move batch axis ``batch_axis`` to ``logical_destination`` of the logical shape."""
    impl = x._impl
    b, rank = impl.batch_dims, len(impl.cached_shape)
    batch_axis = normalize_axis(batch_axis, b, "move_axis_from_batch_dims")
    dest = normalize_axis(logical_destination, impl.ndim + 1, "move_axis_from_batch_dims")
    rest = [a for a in range(rank) if a != batch_axis]
    # remaining batch axes stay in front; the moved axis lands at (b - 1) + dest
    rest.insert(b - 1 + dest, batch_axis)
    return _from_batch_op(x, perm=tuple(rest))


def pad_logical_rank(x: Tensor, ndim: int) -> Tensor:
    """Insert size-1 axes between the batch dims and the logical shape up to logical rank ``ndim``."""
    impl = x._impl
    k = ndim - impl.ndim
    if k <= 0:
        return x
    return reshape_op(x, shape=impl.batch_shape + (1,) * k + impl.shape)
