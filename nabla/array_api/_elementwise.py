"""The standard's elementwise functions, built from the ops' rows (``ops/elementwise.py``).

Nabla's op tables already carry each function's dtype category and lowering; this
layer adds the standard's positional-only signatures and its Python-scalar rules.
"""

from __future__ import annotations

from ..core.tensor import Tensor
from ..ops.elementwise import BINARY_FUNCTIONS, BINARY_TABLE, UNARY_FUNCTIONS, UNARY_TABLE
from ._dtypes import scalar_result

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


def build() -> dict:
    """The standard's elementwise functions: each op whose row says the standard has it."""
    return {**{name: _unary(name, UNARY_FUNCTIONS[name]) for name, row in UNARY_TABLE.items() if row.array_api},
            **{name: _binary(name, BINARY_FUNCTIONS[name]) for name, row in BINARY_TABLE.items() if row.array_api}}


ELEMENTWISE_FUNCTIONS = build()
