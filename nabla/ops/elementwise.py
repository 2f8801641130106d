"""Elementwise ops, built from tables: ``name -> (MAX function, dtype category)``."""

from __future__ import annotations

import numbers

import numpy as np

from ..core import dtypes as _dt
from ..core.context import get_default_dtype
from ..core.tensor import Tensor
from .base import BinaryOperation, UnaryOperation, describe

# dtype categories: which input dtypes an op accepts
_CATEGORIES = {
    "any": lambda d: True,
    "numeric": lambda d: not d.is_bool,
    "real": lambda d: not d.is_bool and not d.is_complex,
    "float": lambda d: d.is_floating or d.is_complex,
    "bool": lambda d: d.is_bool,
}
_CATEGORY_TEXT = {
    "any": "any dtype", "numeric": "numeric dtypes", "real": "real numeric dtypes",
    "float": "floating-point dtypes", "bool": "boolean dtypes",
}


class ElementwiseUnary(UnaryOperation):
    def __init__(self, name: str, max_fn: str, category: str):
        self.name, self.max_fn, self.category = name, max_fn, category

    def check_dtype(self, x):
        if not _CATEGORIES[self.category](x.dtype):
            raise TypeError(f"nabla.{self.name}: expected {_CATEGORY_TEXT[self.category]}, got {describe(x)}")

    def maxpr(self, x):
        from max.graph import ops

        return getattr(ops, self.max_fn)(x)


class ElementwiseBinary(BinaryOperation):
    def __init__(self, name: str, max_fn: str, category: str, out_bool: bool = False, swap: bool = False):
        self.name, self.max_fn, self.category = name, max_fn, category
        self.out_bool, self.swap = out_bool, swap

    def out_dtype(self, dtype):
        return _dt.bool_ if self.out_bool else dtype

    def check_dtype(self, dtype):
        if not _CATEGORIES[self.category](dtype):
            raise TypeError(f"nabla.{self.name}: expected {_CATEGORY_TEXT[self.category]}, got {dtype.name}")

    def maxpr(self, x, y):
        from max.graph import ops

        fn = getattr(ops, self.max_fn)
        return fn(y, x) if self.swap else fn(x, y)


class CastOp(UnaryOperation):
    name = "astype"

    def abstract_eval(self, x, *, dtype):
        return x.cached_shape, dtype, x.batch_dims

    def maxpr(self, x, *, dtype):
        from max.graph import ops

        return ops.cast(x, dtype.max_dtype)


cast_op = CastOp()

#: name -> (MAX function, accepted dtypes)
UNARY_TABLE = {
    "negative": ("negate", "numeric"),
    "abs": ("abs", "numeric"),
    "exp": ("exp", "float"),
    "log": ("log", "float"),
    "sqrt": ("sqrt", "float"),
    "sin": ("sin", "float"),
    "cos": ("cos", "float"),
    "tanh": ("tanh", "float"),
    "floor": ("floor", "real"),
    "ceil": ("ceil", "real"),
    "logical_not": ("logical_not", "bool"),
}

#: name -> (MAX function, accepted dtypes, result is bool, operands swapped)
BINARY_TABLE = {
    "add": ("add", "numeric", False, False),
    "subtract": ("sub", "numeric", False, False),
    "multiply": ("mul", "numeric", False, False),
    "divide": ("div", "float", False, False),
    "pow": ("pow", "numeric", False, False),
    "maximum": ("max", "real", False, False),
    "minimum": ("min", "real", False, False),
    "equal": ("equal", "any", True, False),
    "not_equal": ("not_equal", "any", True, False),
    "greater": ("greater", "real", True, False),
    "greater_equal": ("greater_equal", "real", True, False),
    "less": ("greater", "real", True, True),
    "less_equal": ("greater_equal", "real", True, True),
    "logical_and": ("logical_and", "bool", False, False),
    "logical_or": ("logical_or", "bool", False, False),
    "logical_xor": ("logical_xor", "bool", False, False),
}

UNARY_OPS = {name: ElementwiseUnary(name, fn, cat) for name, (fn, cat) in UNARY_TABLE.items()}
BINARY_OPS = {name: ElementwiseBinary(name, *spec) for name, spec in BINARY_TABLE.items()}


def astype(x: Tensor, dtype, copy: bool = True) -> Tensor:
    dtype = _dt.as_dtype(dtype)
    if dtype.is_complex:
        raise TypeError("nabla.astype: complex dtypes arrive with the Array API namespace")
    if dtype is x.dtype and not copy:
        return x
    return cast_op(x, dtype=dtype)


def _float_input(x: Tensor, op) -> Tensor:
    # ints and bools go to the default float, as JAX and PyTorch do
    if op.category == "float" and (x.dtype.is_integer or x.dtype.is_bool):
        return cast_op(x, dtype=get_default_dtype())
    return x


def _make_unary(op):
    def fn(x):
        if not isinstance(x, Tensor):
            from .creation import asarray

            x = asarray(x)
        return op(_float_input(x, op))

    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = f"Elementwise ``{op.name}`` on MAX ({_CATEGORY_TEXT[op.category]})."
    return fn


def _scalar_dtype(scalar, other: _dt.DType, op: str) -> _dt.DType:
    if isinstance(scalar, (bool, np.bool_)):
        return other if other.kind != "b" else _dt.bool_
    if isinstance(scalar, numbers.Integral):
        if other.kind in "iuf":
            return other
        return _dt.int64
    if isinstance(scalar, numbers.Real):
        return other if other.is_floating else get_default_dtype()
    raise TypeError(f"nabla.{op}: unsupported operand {scalar!r} of type {type(scalar).__name__}")


def coerce_operands(x, y, op: str) -> tuple[Tensor, Tensor]:
    """Python scalars take the tensor's dtype where they fit; tensors promote by the lattice."""
    from .creation import operand_constant

    def asarray(v, device=None):
        from .creation import asarray as to_tensor

        try:
            return to_tensor(v, device=device)
        except (TypeError, ValueError) as e:
            raise type(e)(f"nabla.{op}: unsupported operand {type(v).__name__} {v!r:.40}: {e}") from None

    xt, yt = isinstance(x, Tensor), isinstance(y, Tensor)
    if xt and not yt:
        if isinstance(y, (numbers.Number, np.bool_)) and not isinstance(y, np.ndarray):
            y = operand_constant(y, _scalar_dtype(y, x.dtype, op), x.device)
        else:
            y = asarray(y, device=x.device)
    elif yt and not xt:
        if isinstance(x, (numbers.Number, np.bool_)) and not isinstance(x, np.ndarray):
            x = operand_constant(x, _scalar_dtype(x, y.dtype, op), y.device)
        else:
            x = asarray(x, device=y.device)
    elif not xt and not yt:
        x, y = asarray(x), asarray(y)
    if x.dtype is not y.dtype:
        try:
            common = _dt.result_type(x.dtype, y.dtype)
        except TypeError as e:
            raise TypeError(f"nabla.{op}: {e} (shapes {x.shape}, {y.shape})") from None
        if x.dtype is not common:
            x = cast_op(x, dtype=common)
        if y.dtype is not common:
            y = cast_op(y, dtype=common)
    return x, y


def _align_batched(x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """Pad the logical rank of a batched operand so physical right-aligned broadcasting is right."""
    from ._physical import pad_logical_rank

    nx, ny = x.ndim, y.ndim
    if nx < ny and x.batch_dims:
        x = pad_logical_rank(x, ny)
    elif ny < nx and y.batch_dims:
        y = pad_logical_rank(y, nx)
    return x, y


def _make_binary(op):
    from .creation import operand_constant

    name = op.name

    def fn(x, y):
        tx, ty = type(x), type(y)
        if tx is Tensor and (ty is float or ty is int) and _scalar_dtype(y, x._impl.dtype, name) is x._impl.dtype:
            y = operand_constant(y, x._impl.dtype, x._impl._values[0].device)  # the common `x * 0.5`
        elif tx is not Tensor or ty is not Tensor or x._impl.dtype is not y._impl.dtype:
            x, y = coerce_operands(x, y, name)
        if op.category == "float":
            x, y = _float_input(x, op), _float_input(y, op)
        if x._impl.batch_dims != y._impl.batch_dims:
            x, y = _align_batched(x, y)
        return op(x, y)

    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = f"Elementwise ``{op.name}`` with broadcasting, on MAX ({_CATEGORY_TEXT[op.category]})."
    return fn


UNARY_FUNCTIONS = {name: _make_unary(op) for name, op in UNARY_OPS.items()}
BINARY_FUNCTIONS = {name: _make_binary(op) for name, op in BINARY_OPS.items()}
globals().update(UNARY_FUNCTIONS)
globals().update(BINARY_FUNCTIONS)


def relu(x: Tensor) -> Tensor:
    return BINARY_FUNCTIONS["maximum"](x, 0)


__all__ = ["astype", "relu", "coerce_operands", *UNARY_FUNCTIONS, *BINARY_FUNCTIONS]
