"""Binds operators and methods onto Tensor; the core itself names no op."""

from __future__ import annotations

from ..core.tensor import Tensor
from . import elementwise as ew, indexing, linalg, multi_output, reduction, view

_B = ew.BINARY_FUNCTIONS
_U = ew.UNARY_FUNCTIONS


def _reflected(fn):
    return lambda self, other: fn(other, self)


def _bool_or_int(name):
    fn = _B[name]

    def method(self, other):
        if not (self.dtype.is_bool and (not isinstance(other, Tensor) or other.dtype.is_bool)):
            raise TypeError(f"nabla: operator for {name} supports boolean tensors here, got {self.dtype}")
        return fn(self, other)

    return method


_OPERATORS = {
    "__add__": _B["add"], "__radd__": _reflected(_B["add"]),
    "__sub__": _B["subtract"], "__rsub__": _reflected(_B["subtract"]),
    "__mul__": _B["multiply"], "__rmul__": _reflected(_B["multiply"]),
    "__truediv__": _B["divide"], "__rtruediv__": _reflected(_B["divide"]),
    "__pow__": _B["pow"], "__rpow__": _reflected(_B["pow"]),
    "__matmul__": linalg.matmul, "__rmatmul__": _reflected(linalg.matmul),
    "__eq__": _B["equal"], "__ne__": _B["not_equal"],
    "__lt__": _B["less"], "__le__": _B["less_equal"],
    "__gt__": _B["greater"], "__ge__": _B["greater_equal"],
    "__and__": _bool_or_int("logical_and"), "__or__": _bool_or_int("logical_or"),
    "__xor__": _bool_or_int("logical_xor"),
    "__neg__": _U["negative"], "__pos__": lambda self: self, "__abs__": _U["abs"],
    "__invert__": _U["bitwise_invert"],
    "__getitem__": indexing.getitem, "__setitem__": indexing.setitem,
}

_METHODS = {
    "sum": reduction.sum, "mean": reduction.mean, "prod": reduction.prod,
    "max": reduction.max, "min": reduction.min,
    "reshape": lambda self, *shape: view.reshape(self, shape[0] if len(shape) == 1 else shape),
    "transpose": lambda self, *axes: view.transpose(self, (axes[0] if len(axes) == 1 else axes) or None),
    "permute": lambda self, *axes: view.permute_dims(self, axes[0] if len(axes) == 1 else axes),
    "unsqueeze": view.unsqueeze, "squeeze": view.squeeze, "broadcast_to": view.broadcast_to,
    "swapaxes": view.swap_axes, "astype": ew.astype, "split": multi_output.split,
    "exp": _U["exp"], "log": _U["log"], "tanh": _U["tanh"], "sqrt": _U["sqrt"], "abs": _U["abs"],
}


def _T(self):
    return view.transpose(self)


def bind() -> None:
    for name, fn in {**_OPERATORS, **_METHODS}.items():
        setattr(Tensor, name, fn)
    Tensor.T = property(_T)
    Tensor.__hash__ = lambda self: id(self)


bind()
