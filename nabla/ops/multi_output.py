"""Ops with several outputs; all outputs of one call share one OutputRefs."""

from __future__ import annotations

from ..core.tensor import Tensor
from .base import Operation, as_index, broadcast_shapes, describe, normalize_axis
from ..core.trace_lowering import symbolic_dims
from .broadcasting import broadcast_physical
from .elementwise import dense_tangents, zeros_like_physical
from .operands import coerce_operands
from ..core.lazy_module import graph_ops as ops


class SplitOp(Operation):
    sharding_rule = "split"
    name = "split"
    supports_complex = True

    def abstract_eval(self, x, *, sizes, axis):
        s = x.cached_shape
        return [(s[:axis] + (n,) + s[axis + 1:], x.dtype, x.batch_dims) for n in sizes]

    def maxpr(self, x, *, sizes, axis):
        return ops.split(x, list(sizes), axis)

    def jvp_rule(self, primals, tangents, outputs, *, sizes, axis):
        t = tangents[0]
        return split_op(t, sizes=sizes, axis=axis + t.batch_dims - primals[0].batch_dims)

    def vjp_rule(self, primals, cotangents, outputs, *, sizes, axis):
        if any(c is None for c in cotangents):  # unused pieces, possibly collected: zeros by shape
            zeros = split_op(zeros_like_physical(primals[0]), sizes=sizes, axis=axis)
            cotangents = [z if c is None else c for c, z in zip(cotangents, zeros)]
        return [concat(list(cotangents), axis=axis - primals[0].batch_dims)]  # batch-aware join


class ConcatOp(Operation):
    """Join tensors of one dtype along a physical ``axis``; the others must match."""
    sharding_rule = "concat"

    name = "concat"
    supports_complex = True

    def single_op_form(self, kwargs, shapes):
        """Alone on a single-op model, one concat serves every size (equal sizes share a name). Not
        in whole traces: after a concat of ``d1``, ``d3`` and 1 rows, MAX cannot tell that sum from a
        ``d0`` of the same value (``pad`` of a 2-d array is two such concats)."""
        sizes: dict = {}
        return kwargs, [symbolic_dims(s, sizes) for s in shapes], None

    def abstract_eval(self, xs, *, axis):
        first = xs[0]
        for x in xs[1:]:
            if x.dtype is not first.dtype or x.batch_dims != first.batch_dims:
                raise TypeError(f"nabla.concat: tensors must share dtype and batch dims, got {describe(*xs)}")
            a, b = x.cached_shape, first.cached_shape
            if len(a) != len(b) or a[:axis] + a[axis + 1:] != b[:axis] + b[axis + 1:]:
                raise ValueError(f"nabla.concat: shapes differ off axis {axis - first.batch_dims}: {describe(*xs)}")
        s = first.cached_shape
        return s[:axis] + (sum(x.cached_shape[axis] for x in xs),) + s[axis + 1:], first.dtype, first.batch_dims

    def maxpr(self, xs, *, axis):
        return ops.concat(list(xs), axis)

    def jvp_rule(self, primals, tangents, output, *, axis):
        return concat(dense_tangents(primals, tangents), axis=axis - primals[0].batch_dims)

    def vjp_rule(self, primals, cotangent, output, *, axis):
        sizes = tuple(p._impl.cached_shape[axis] for p in primals)
        return split_op(cotangent, sizes=sizes, axis=axis + cotangent.batch_dims - output.batch_dims)


split_op = SplitOp()
concat_op = ConcatOp()


def concat(tensors, axis: int = 0) -> Tensor:
    """Join a sequence of tensors along an existing ``axis``."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("nabla.concat: need at least one tensor")
    ts = [t if isinstance(t, Tensor) else coerce_operands(t, tensors[0], "concat")[0] for t in tensors]
    impl = ts[0]._impl
    a = normalize_axis(axis, impl.ndim, "concat") if impl.ndim else 0
    if len(ts) == 1:
        return ts[0]
    batch_shapes = {t._impl.batch_shape for t in ts}
    if len(batch_shapes) > 1:  # under vmap, unbatched pieces are repeated along the batch

        batch = broadcast_shapes(*batch_shapes, op="concat")
        ts = [broadcast_physical(t, batch + t.shape, len(batch)) for t in ts]
    return concat_op(ts, axis=ts[0].batch_dims + a)


def split(x: Tensor, indices_or_sections, axis: int = 0) -> list[Tensor]:
    """NumPy's ``split``: an int gives equal sections, a sequence gives split points."""
    impl = x._impl
    a = normalize_axis(axis, impl.ndim, "split")
    n = impl.shape[a]
    k = as_index(indices_or_sections)
    if k is not None:
        if k <= 0 or n % k:
            raise ValueError(f"nabla.split: axis {a} of size {n} cannot be split into {k} equal sections "
                             f"({describe(impl)})")
        sizes = (n // k,) * k
    else:
        points = [min(max(int(p) if p >= 0 else n + int(p), 0), n) for p in indices_or_sections]
        bounds = [0, *points, n]
        sizes = tuple(max(hi - lo, 0) for lo, hi in zip(bounds, bounds[1:]))
        if sum(sizes) != n:
            raise ValueError(f"nabla.split: split points {list(indices_or_sections)} must be non-decreasing")
    return split_op(x, sizes=sizes, axis=impl.batch_dims + a)
