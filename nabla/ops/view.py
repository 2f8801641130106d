"""View and shape ops on logical shapes; kwargs hold physical terms (batch dims first)."""

from __future__ import annotations

import math

from ..core.operation import Fused
from ..core.tensor import Tensor
from .base import LogicalShapeOperation, _check_shape, as_index, describe, normalize_axis
from . import lowerings as L
from ..core.lazy_module import graph_ops as ops


class ReshapeOp(LogicalShapeOperation):
    sharding_rule = "reshape"
    fused = Fused(view="alias")
    name = "reshape"
    supports_complex = True

    def complex_storage_kwargs(self, kwargs):
        return {"shape": tuple(kwargs["shape"]) + (2,)}

    def out_shape(self, s, *, shape):
        return shape

    def lift_kwargs(self, kwargs, n):
        return {"shape": (n, *kwargs["shape"])}

    def single_op_form(self, kwargs, shapes):
        """Any reshape is the identity on the flat data: one model per dtype serves them all
        (array-api-tests' linalg checks meet a thousand reshapes of a few small shapes per test)."""
        return {"shape": ("n",)}, [["n"]], [(math.prod(shapes[0]),)]

    def maxpr(self, x, *, shape):
        return ops.reshape(x, shape)

    # Under vmap a tangent or cotangent can carry more batch dims than its primal (a per-example
    # derivative of an unbatched tensor), so rules rebase physical kwargs on the tensor they act on.
    def jvp_rule(self, primals, tangents, output, *, shape):
        t = tangents[0]
        return reshape_op(t, shape=t._impl.batch_shape + output.shape)

    def vjp_rule(self, primals, cotangent, output, *, shape):
        return [reshape_op(cotangent, shape=cotangent._impl.batch_shape + primals[0].shape)]


class PermuteOp(LogicalShapeOperation):
    sharding_rule = "permute"
    fused = Fused(view="strided")
    name = "permute_dims"
    shape_polymorphic = True
    supports_complex = True

    def complex_storage_kwargs(self, kwargs):
        perm = tuple(kwargs["perm"])
        return {**kwargs, "perm": perm + (len(perm),)}

    def out_shape(self, s, *, perm):
        return tuple(s[p] for p in perm)

    def lift_kwargs(self, kwargs, n):
        return {**kwargs, "perm": (0, *(p + 1 for p in kwargs["perm"]))}

    def maxpr(self, x, *, perm):
        return L.permute(x, list(perm))

    def jvp_rule(self, primals, tangents, output, *, perm):
        return permute_op(tangents[0], perm=_rebase_perm(perm, primals[0].batch_dims, tangents[0].batch_dims))

    def vjp_rule(self, primals, cotangent, output, *, perm):
        perm = _rebase_perm(perm, primals[0].batch_dims, cotangent.batch_dims)
        return [permute_op(cotangent, perm=inverse_perm(perm))]


def _rebase_perm(perm, from_batch: int, to_batch: int) -> tuple[int, ...]:
    """``perm`` over a tensor with ``from_batch`` batch dims, for one with ``to_batch``."""
    if from_batch == to_batch:
        return tuple(perm)
    logical = [p - from_batch for p in perm[from_batch:]]
    return tuple(range(to_batch)) + tuple(to_batch + q for q in logical)


def inverse_perm(perm) -> tuple[int, ...]:
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return tuple(inverse)


def _lift_axis(self, kwargs, n):
    axis = kwargs["axis"]
    return {"axis": axis + 1} if axis >= 0 else kwargs


class _UnitAxisOp(LogicalShapeOperation):
    """A unit axis put in (``expand_dims``) or taken out (``squeeze``) at ``axis``: each op's
    derivatives are its own (tangents) and its inverse's (cotangents)."""
    fused = Fused(view="alias")
    shape_polymorphic = True
    supports_complex = True
    lift_kwargs = _lift_axis
    max_fn: str
    inverse: "_UnitAxisOp"

    def maxpr(self, x, *, axis):
        return getattr(ops, self.max_fn)(x, axis)

    def jvp_rule(self, primals, tangents, output, *, axis):
        t = tangents[0]
        return self(t, axis=axis + t.batch_dims - primals[0].batch_dims)

    def vjp_rule(self, primals, cotangent, output, *, axis):
        return [self.inverse(cotangent, axis=axis + cotangent.batch_dims - output.batch_dims)]


class UnsqueezeOp(_UnitAxisOp):
    sharding_rule = "unsqueeze"
    name, max_fn = "expand_dims", "unsqueeze"

    def out_shape(self, s, *, axis):
        return s[:axis] + (1,) + s[axis:]


class SqueezeOp(_UnitAxisOp):
    sharding_rule = "squeeze"
    name, max_fn = "squeeze", "squeeze"

    def out_shape(self, s, *, axis):
        return s[:axis] + s[axis + 1:]


reshape_op = ReshapeOp()
permute_op = PermuteOp()
unsqueeze_op = UnsqueezeOp()
squeeze_op = SqueezeOp()
unsqueeze_op.inverse, squeeze_op.inverse = squeeze_op, unsqueeze_op


def _resolve_shape(shape, size: int, src, op: str) -> tuple[int, ...]:
    single = shape if type(shape) is int else as_index(shape)
    shape = (single,) if single is not None else tuple(shape)
    if not all(type(d) is int for d in shape):  # (NumPy integers, 0-d integer arrays: their ints)
        sizes = tuple(as_index(d) for d in shape)
        if None in sizes:
            raise TypeError(f"nabla.{op}: shape entries must be ints, got {shape!r}")
        shape = sizes
    if all(d >= -1 for d in shape):  # (the common case: sizes, or one -1)
        known = math.prod(shape)
        if known < 0 and shape.count(-1) == 1:  # (one -1: the rest's count)
            known = -known
            if known and not size % known:
                return tuple(size // known if d == -1 else d for d in shape)
        elif known == size and -1 not in shape:
            return shape
    if sum(1 for d in shape if d == -1) > 1:
        raise ValueError(f"nabla.{op}: only one dimension can be -1, got {shape}")
    known = _check_shape(tuple(d for d in shape if d != -1), op)
    known_size = math.prod(known)
    if -1 in shape:
        if known_size == 0 or size % known_size:
            raise ValueError(f"nabla.{op}: cannot reshape {describe(src)} into {shape}")
        shape = tuple(size // known_size if d == -1 else d for d in shape)
    if math.prod(shape) != size:
        raise ValueError(f"nabla.{op}: cannot reshape {describe(src)} ({size} elements) into {shape}")
    return tuple(int(d) for d in shape)


def reshape(x: Tensor, shape, *, copy=None) -> Tensor:
    impl = x._impl
    shape = _resolve_shape(shape, x.size, impl, "reshape")
    if shape == x.shape:
        return x
    return reshape_op.apply_unary(x, {"shape": impl.batch_shape + shape})


def permute_dims(x: Tensor, axes) -> Tensor:
    impl = x._impl
    n = impl.ndim
    axes = tuple(axes)
    normal = [normalize_axis(a, n, "permute_dims") for a in axes]
    if len(axes) != n or sorted(normal) != list(range(n)):
        raise ValueError(f"nabla.permute_dims: axes {axes} are not a permutation of {n} axes ({describe(impl)})")
    b = impl.batch_dims
    perm = tuple(range(b)) + tuple(b + a for a in normal) if b else tuple(normal)
    if perm == tuple(range(len(perm))):
        return x
    return permute_op.apply_unary(x, {"perm": perm})


def transpose(x: Tensor, axes=None) -> Tensor:
    """Reverse the axes (NumPy), or permute them by ``axes``."""
    if axes is None:
        axes = tuple(range(x.ndim))[::-1]
    return permute_dims(x, axes)


def swap_axes(x: Tensor, axis1: int, axis2: int) -> Tensor:
    n = x.ndim
    a, b = normalize_axis(axis1, n, "swap_axes"), normalize_axis(axis2, n, "swap_axes")
    axes = list(range(n))
    axes[a], axes[b] = axes[b], axes[a]
    return permute_dims(x, axes)


def moveaxis(x: Tensor, source: int, destination: int) -> Tensor:
    n = x.ndim
    s, d = normalize_axis(source, n, "moveaxis"), normalize_axis(destination, n, "moveaxis")
    axes = [a for a in range(n) if a != s]
    axes.insert(d, s)
    return permute_dims(x, axes)


def unsqueeze(x: Tensor, axis: int) -> Tensor:
    impl = x._impl
    a = normalize_axis(axis, impl.ndim + 1, "unsqueeze")
    return unsqueeze_op.apply_unary(x, {"axis": impl.batch_dims + a})


expand_dims = unsqueeze


def squeeze(x: Tensor, axis=None) -> Tensor:
    impl = x._impl
    n = impl.ndim
    if axis is None:
        axes = [a for a, d in enumerate(impl.shape) if d == 1]
    elif as_index(axis) is not None:
        axes = [normalize_axis(axis, n, "squeeze")]
    else:
        axes = sorted(normalize_axis(a, n, "squeeze") for a in axis)
    for a in axes:
        if impl.shape[a] != 1:
            raise ValueError(f"nabla.squeeze: axis {a} has size {impl.shape[a]}, not 1 ({describe(impl)})")
    for a in reversed(axes):
        x = squeeze_op.apply_unary(x, {"axis": impl.batch_dims + a})
    return x


