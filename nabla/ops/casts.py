"""The cast: ``astype`` (below the elementwise tables and creation, which both convert dtypes)."""

from __future__ import annotations

from ..core import dtypes as _dt
from ..core.tensor import Tensor
from . import complex_lowerings as C
from . import lowerings as L
from .base import UnaryOperation, flat_form, lift_same
from ..core.lazy_module import graph_ops as ops


class CastOp(UnaryOperation):
    name = "astype"
    supports_complex = True
    lift_kwargs = lift_same
    lift_broadcasts = True

    def complex_storage_kwargs(self, kwargs):
        return {**kwargs, "src_complex": True}

    def single_op_form(self, kwargs, shapes):
        return flat_form(kwargs, shapes, (bool(kwargs.get("src_complex")),))

    def abstract_eval(self, x, *, dtype):
        return x.cached_shape, dtype, x.batch_dims

    def maxpr(self, x, *, dtype, src_complex=False):
        return L.elementwise(lambda v: self._cast(v, dtype, src_complex), x, trailing=int(src_complex))

    @staticmethod
    def _cast(x, dtype, src_complex):
        if dtype.is_complex:
            real = _dt.real_dtype(dtype).max_dtype
            if src_complex:
                return ops.cast(x, real)
            x = ops.cast(x, real)
            return C.pack(x, L.broadcast_to(L.const(0, x), x.shape))
        if src_complex:  # complex -> real keeps the real part, as NumPy does
            x = C.re(x)
        if L.is_float(x) and dtype in _UNSIGNED:
            return L.float_to_unsigned(x, dtype.max_dtype)
        return ops.cast(x, dtype.max_dtype)

    def jvp_rule(self, primals, tangents, output, *, dtype):
        return cast_op(tangents[0], dtype=dtype) if _differentiable(primals[0].dtype, dtype) else None

    def vjp_rule(self, primals, cotangent, output, *, dtype):
        src = primals[0].dtype
        return [cast_op(cotangent, dtype=src) if _differentiable(src, dtype) else None]


_UNSIGNED = (_dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64)


def _differentiable(*dtypes) -> bool:
    return all(d.is_floating or d.is_complex for d in dtypes)



cast_op = CastOp()


def astype(x: Tensor, dtype, copy: bool = True) -> Tensor:
    dtype = _dt.as_dtype(dtype)
    if dtype is x.dtype and not copy:
        return x
    return cast_op.apply_unary(x, {"dtype": dtype})  # (small realized data: cast at once)
