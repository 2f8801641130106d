"""The standard's elementwise functions: one table, ``name -> Nabla op function``.

Nabla's op tables already carry each function's dtype category and lowering; this
layer adds the standard's positional-only signatures and its Python-scalar rules.
"""

from __future__ import annotations

from ..core.tensor import Tensor
from ..ops.elementwise import BINARY_FUNCTIONS, UNARY_FUNCTIONS
from ._dtypes import scalar_result

#: standard name -> Nabla op name (the same unless the standard renamed it)
_UNARY = {n: n for n in (
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_invert", "ceil", "cos", "cosh", "exp",
    "expm1", "floor", "isfinite", "isinf", "isnan", "log", "log1p", "log2", "log10", "logical_not", "negative",
    "positive", "reciprocal", "round", "sign", "signbit", "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc")}
_BINARY = {n: n for n in (
    "add", "atan2", "bitwise_and", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "copysign", "divide", "equal", "floor_divide", "greater", "greater_equal", "hypot", "less", "less_equal",
    "logaddexp", "logical_and", "logical_or", "logical_xor", "maximum", "minimum", "multiply", "nextafter",
    "not_equal", "pow", "remainder", "subtract")}


def _unary(name, fn):
    def f(x, /):
        if not isinstance(x, Tensor):
            raise TypeError(f"nabla.{name}: expected an array, got {type(x).__name__}")
        return fn(x)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = fn.__doc__
    return f


def _binary(name, fn):
    def f(x1, x2, /):
        if not isinstance(x1, Tensor) and not isinstance(x2, Tensor):
            raise TypeError(f"nabla.{name}: at least one argument must be an array")
        for a, b in ((x1, x2), (x2, x1)):
            if isinstance(a, Tensor) and not isinstance(b, Tensor):
                scalar_result(a.dtype, b, name)  # raises for a scalar of the wrong kind
        return fn(x1, x2)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = fn.__doc__
    return f


ELEMENTWISE_FUNCTIONS = {
    **{std: _unary(std, UNARY_FUNCTIONS[op]) for std, op in _UNARY.items()},
    **{std: _binary(std, BINARY_FUNCTIONS[op]) for std, op in _BINARY.items()},
}
