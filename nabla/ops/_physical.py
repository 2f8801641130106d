"""Physical batch-dim plumbing for vmap: not exported to users."""

from __future__ import annotations

from ..core.operation import Fused
from ..core.tensor import Tensor
from .base import Operation, broadcast_shapes, lift_same, normalize_axis
from .broadcasting import broadcast_physical
from .view import PermuteOp, inverse_perm, unsqueeze_op
from ..core.lazy_module import graph_ops as ops


class _BatchDimsOp(Operation):
    """Changes only the ``batch_dims`` counter; the data is untouched."""
    sharding_rule = "same_layout"
    fused = Fused(view="alias")

    shape_polymorphic = True
    supports_complex = True

    def __init__(self, name: str, delta: int):
        self.name, self.delta = name, delta

    def abstract_eval(self, x):
        b = x.batch_dims + self.delta
        if not 0 <= b <= len(x.cached_shape):
            raise ValueError(f"nabla.{self.name}: batch_dims would become {b} for physical shape {x.cached_shape}")
        return x.cached_shape, x.dtype, b

    def maxpr(self, x):
        return x

    def jvp_rule(self, primals, tangents, output):
        return self(tangents[0])

    def vjp_rule(self, primals, cotangent, output):
        return [(decr_batch_dims_op if self.delta > 0 else incr_batch_dims_op)(cotangent)]


class _MoveAxisOp(PermuteOp):
    """Permute physical axes and adjust ``batch_dims`` by ``delta`` in one step (to the fused kernel,
    which reads values at their physical shapes, a transpose: ``op_kinds.PERMUTES``)."""

    def __init__(self, name: str, delta: int):
        self.name, self.delta = name, delta

    def abstract_eval(self, x, *, perm):
        return self.out_shape(x.cached_shape, perm=perm), x.dtype, x.batch_dims + self.delta

    def jvp_rule(self, primals, tangents, output, *, perm):
        return self(tangents[0], perm=_shift_perm(perm, tangents[0].batch_dims - primals[0].batch_dims))

    def vjp_rule(self, primals, cotangent, output, *, perm):
        back = from_batch_op if self.delta > 0 else to_batch_op
        return [back(cotangent, perm=_shift_perm(inverse_perm(perm), cotangent.batch_dims - output.batch_dims))]


def _shift_perm(perm, extra: int) -> tuple[int, ...]:
    """``perm`` for a tensor with ``extra`` more leading batch axes (vmaps begun since), which stay put."""
    return tuple(range(extra)) + tuple(extra + p for p in perm)


incr_batch_dims_op = _BatchDimsOp("incr_batch_dims", +1)
decr_batch_dims_op = _BatchDimsOp("decr_batch_dims", -1)
to_batch_op = _MoveAxisOp("move_axis_to_batch_dims", +1)
from_batch_op = _MoveAxisOp("move_axis_from_batch_dims", -1)


def incr_batch_dims(x: Tensor) -> Tensor:
    return incr_batch_dims_op(x)


def decr_batch_dims(x: Tensor) -> Tensor:
    return decr_batch_dims_op(x)


def move_axis_to_batch_dims(x: Tensor, axis: int) -> Tensor:
    """Move physical ``axis`` to the front and count it as a batch dim."""
    rank = len(x._impl.cached_shape)
    axis = normalize_axis(axis, rank, "move_axis_to_batch_dims")
    perm = (axis,) + tuple(a for a in range(rank) if a != axis)
    return to_batch_op(x, perm=perm)


def move_axis_from_batch_dims(x: Tensor, batch_axis: int = 0, logical_destination: int = 0) -> Tensor:
    """Move batch axis ``batch_axis`` to ``logical_destination`` of the logical shape."""
    impl = x._impl
    b, rank = impl.batch_dims, len(impl.cached_shape)
    batch_axis = normalize_axis(batch_axis, b, "move_axis_from_batch_dims")
    dest = normalize_axis(logical_destination, impl.ndim + 1, "move_axis_from_batch_dims")
    rest = [a for a in range(rank) if a != batch_axis]
    # remaining batch axes stay in front; the moved axis lands at (b - 1) + dest
    rest.insert(b - 1 + dest, batch_axis)
    return from_batch_op(x, perm=tuple(rest))


def pad_batch_dims(x: Tensor, depth: int) -> Tensor:
    """Give ``x`` size-1 batch axes for the vmap levels it lacks, up to ``depth`` batch dims."""
    while x.batch_dims < depth:
        x = incr_batch_dims(unsqueeze_op(x, axis=0))
    return x


def common_batch_shape(*xs: Tensor, op: str = "vmap") -> tuple:
    """The batch shapes of ``xs`` broadcast together (right-aligned, as vmap levels are)."""
    return tuple(broadcast_shapes(*(x._impl.batch_shape for x in xs), op=op))


def broadcast_batch_dims(x: Tensor, batch: tuple) -> Tensor:
    """``x`` with the batch shape ``batch`` (physically broadcast; its logical shape is unchanged)."""
    if x._impl.batch_shape == tuple(batch):
        return x
    return broadcast_physical(x, tuple(batch) + x.shape, len(batch))


def batch_dims_to_logical(x: Tensor, batch: tuple) -> Tensor:
    """``x`` broadcast to the batch shape ``batch``, its batch dims then turned into leading logical axes.

    The broadcast is physical, so its adjoint keeps the batch of vmaps still running (a
    per-example gradient stays per example); a logical broadcast would sum it.
    """
    x = broadcast_batch_dims(x, batch)
    for _ in range(len(batch)):
        x = decr_batch_dims(x)
    return x


def logical_to_batch_dims(x: Tensor, depth: int) -> Tensor:
    """The inverse of ``batch_dims_to_logical``: the ``depth`` leading logical axes become batch dims."""
    for _ in range(depth):
        x = incr_batch_dims(x)
    return x


def with_batch_dims_as_logical(fn, *xs: Tensor) -> Tensor:
    """``fn(*xs_logical, depth)`` with the common batch as leading logical axes of every operand, batched back."""
    batch = common_batch_shape(*xs)
    out = fn(*(batch_dims_to_logical(x, batch) for x in xs), len(batch))
    return logical_to_batch_dims(out, len(batch))


class IdentityOp(Operation):
    """A new tensor for the same data: how transforms give their inputs a fresh identity."""
    sharding_rule = "elementwise"
    fused = Fused(view="alias")

    name = "identity"
    shape_polymorphic = True
    supports_complex = True

    def abstract_eval(self, x):
        return x.cached_shape, x.dtype, x.batch_dims

    lift_kwargs = lift_same

    def maxpr(self, x):
        return x

    def jvp_rule(self, primals, tangents, output):
        return tangents[0]

    def vjp_rule(self, primals, cotangent, output):
        return [cotangent]


identity_op = IdentityOp()


class StackOp(Operation):
    """Join same-shape values on a new leading axis (recorded as a node, not called on tensors:
    the one kernel that turns a simulated mesh's separate shards into a stack)."""

    name = "stack_values"
    shape_polymorphic = True

    def maxpr(self, *xs):
        return ops.stack(list(xs), axis=0)


class UnstackOp(Operation):
    """The ``n`` members of a stack along its leading axis, one output each (recorded as a node:
    a member nobody reads is never lowered)."""

    name = "unstack_values"
    shape_polymorphic = True  # (``n`` is the mesh's, part of the trace's structure)

    def maxpr(self, x, *, n):
        return [x[i] for i in range(n)]


stack_values_op = StackOp()
unstack_values_op = UnstackOp()
