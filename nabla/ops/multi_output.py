"""Ops with several outputs; all outputs of one call share one OutputRefs."""

from __future__ import annotations

import numbers

from ..core.tensor import Tensor
from .base import Operation, describe, normalize_axis


class SplitOp(Operation):
    name = "split"

    def abstract_eval(self, x, *, sizes, axis):
        s = x.cached_shape
        return [(s[:axis] + (n,) + s[axis + 1:], x.dtype, x.batch_dims) for n in sizes]

    def maxpr(self, x, *, sizes, axis):
        from max.graph import ops

        return ops.split(x, list(sizes), axis)


split_op = SplitOp()


def split(x: Tensor, indices_or_sections, axis: int = 0) -> list[Tensor]:
    """NumPy's ``split``: an int gives equal sections, a sequence gives split points."""
    impl = x._impl
    a = normalize_axis(axis, impl.ndim, "split")
    n = impl.shape[a]
    if isinstance(indices_or_sections, numbers.Integral):
        k = int(indices_or_sections)
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
