"""How a binary op's operands meet: Python scalars take the array's dtype where they fit (the
standard's "weak" scalars), other values become arrays, and arrays promote by the dtype lattice."""

from __future__ import annotations

import numbers

import numpy as np

from ..core import dtypes as _dt
from ..core.context import get_default_dtype
from ..core.tensor import Tensor
from .casts import cast_op
from .broadcasting import pad_logical_rank
from .creation import asarray as to_tensor, operand_constant


def scalar_dtype(scalar, other: _dt.DType, op: str) -> _dt.DType:
    if isinstance(scalar, (bool, np.bool_)):
        return other if other.kind != "b" else _dt.bool_
    if isinstance(scalar, numbers.Integral):
        if other.kind in "iufc":
            return other
        return _dt.int64
    if isinstance(scalar, numbers.Real):
        return other if other.is_floating or other.is_complex else get_default_dtype()
    if isinstance(scalar, numbers.Complex):
        return other if other.is_complex else _dt.complex_dtype(other if other.is_floating else get_default_dtype())
    raise TypeError(f"nabla.{op}: unsupported operand {scalar!r} of type {type(scalar).__name__}")


def coerce_operands(x, y, op: str) -> tuple[Tensor, Tensor]:
    """Python scalars take the tensor's dtype where they fit; tensors promote by the lattice."""
    def asarray(v, device=None):
        try:
            return to_tensor(v, device=device)
        except (TypeError, ValueError) as e:
            raise type(e)(f"nabla.{op}: unsupported operand {type(v).__name__} {v!r:.40}: {e}") from None

    xt, yt = isinstance(x, Tensor), isinstance(y, Tensor)
    common = None  # a weak scalar's dtype is the result's (an integer array meets a float scalar
    # in the default float, not in the lattice's join of the two)
    if xt and not yt:
        if isinstance(y, (numbers.Number, np.bool_)) and not isinstance(y, np.ndarray):
            y = operand_constant(y, common := scalar_dtype(y, x.dtype, op), x.device)
        else:
            y = asarray(y, device=x.device)
    elif yt and not xt:
        if isinstance(x, (numbers.Number, np.bool_)) and not isinstance(x, np.ndarray):
            x = operand_constant(x, common := scalar_dtype(x, y.dtype, op), y.device)
        else:
            x = asarray(x, device=y.device)
    elif not xt and not yt:
        x, y = asarray(x), asarray(y)
    if x.dtype is not y.dtype:
        try:
            common = common or _dt.result_type(x.dtype, y.dtype)
        except TypeError as e:
            raise TypeError(f"nabla.{op}: {e} (shapes {x.shape}, {y.shape})") from None
        if x.dtype is not common:
            x = cast_op(x, dtype=common)
        if y.dtype is not common:
            y = cast_op(y, dtype=common)
    return x, y


def align_batched(x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """Pad the logical rank of a batched operand so physical right-aligned broadcasting is right."""
    nx, ny = x.ndim, y.ndim
    if nx < ny and x.batch_dims:
        x = pad_logical_rank(x, ny)
    elif ny < nx and y.batch_dims:
        y = pad_logical_rank(y, nx)
    return x, y
