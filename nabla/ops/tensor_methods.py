"""Tensor's operators and op methods (``TENSOR_METHODS``, bound by ``nabla/tensor_api.py``); the core
itself names no op."""

from __future__ import annotations

import numpy as np

from . import aliasing, bit_views, broadcasting, elementwise as ew, linalg, multi_output, reduction
from ..core.context import NO_SIDE_EFFECTS
from ..core.graph import HostValue, host_view
from .picks import host_element

_B = ew.BINARY_FUNCTIONS
_U = ew.UNARY_FUNCTIONS


def _reflected(fn):
    return lambda self, other: fn(other, self)


def _inplace(fn, name):
    """``x op= y`` rebinds ``x`` to the result; the shape and the dtype kind must stay."""

    def method(self, other):
        out = fn(self, other)
        if out.shape != self.shape:
            raise ValueError(f"nabla: in-place {name} would change the shape {self.shape} to {out.shape}")
        if out.dtype is not self.dtype:
            if out.dtype.kind != self.dtype.kind and not (out.dtype.is_integer and self.dtype.is_integer):
                raise TypeError(f"nabla: in-place {name} cannot store a {out.dtype} result in a {self.dtype} array")
            out = ew.astype(out, self.dtype)
        if NO_SIDE_EFFECTS:
            aliasing.refuse_write(self)
        if self._view is not None:
            aliasing.check_writeable(self)
        self._impl = out._impl
        aliasing.wrote(self)
        return self

    return method


#: Python operator -> Nabla function; each gets its reflected and in-place forms
_ARITHMETIC = {
    "add": _B["add"], "sub": _B["subtract"], "mul": _B["multiply"], "truediv": _B["divide"],
    "floordiv": _B["floor_divide"], "mod": _B["remainder"], "pow": _B["pow"], "matmul": linalg.matmul,
    "and": _B["bitwise_and"], "or": _B["bitwise_or"], "xor": _B["bitwise_xor"],
    "lshift": _B["bitwise_left_shift"], "rshift": _B["bitwise_right_shift"],
}

_OPERATORS = {
    **{f"__{op}__": fn for op, fn in _ARITHMETIC.items()},
    **{f"__r{op}__": _reflected(fn) for op, fn in _ARITHMETIC.items()},
    **{f"__i{op}__": _inplace(fn, op) for op, fn in _ARITHMETIC.items()},
    "__eq__": _B["equal"], "__ne__": _B["not_equal"],
    "__lt__": _B["less"], "__le__": _B["less_equal"],
    "__gt__": _B["greater"], "__ge__": _B["greater_equal"],
    "__neg__": _U["negative"], "__pos__": _U["positive"], "__abs__": _U["abs"],
    "__invert__": _U["bitwise_invert"],
    "__getitem__": aliasing.getitem, "__setitem__": aliasing.setitem,
}


def _read_scalar(self):
    impl = self._impl
    values = impl._values
    plain = len(values) == 1 and not impl.batch_dims and impl.sharding is None and not impl.dtype.is_complex
    if plain and values[0].node is not None:
        value = host_element(self)
        if value is not None:
            return value
        impl.realize()
        values = impl._values
    if plain and values[0].node is None and values[0].device.is_host:  # realized host data: read as it is
        v = values[0]
        host = v.host if type(v) is HostValue else None  # (NumPy's scalar as it is; else its memory's view)
        return (host if isinstance(host, np.generic) else host_view(v)).item()
    value = host_element(self)
    return self.numpy().reshape(()).item() if value is None else value


def row_methods() -> dict:
    """The elementwise ops whose rows say ``Tensor`` has them as methods, from the rows registered
    when it is called (``TENSOR_METHODS`` takes them as this module loads)."""
    return {**{name: _U[name] for name, row in ew.UNARY_TABLE.items() if row.method},
            **{name: _B[name] for name, row in ew.BINARY_TABLE.items() if row.method}}


def _view(self, dtype=None):
    """JAX's ``Array.view(dtype)``: the elements' bytes read as ``dtype`` (``ops/bit_views.py``; a
    complex array's are its (real, imag) pairs), as a new array; no dtype: the array itself."""
    return self if dtype is None else bit_views.bit_view(self, dtype)


_METHODS = {
    "sum": reduction.sum, "mean": reduction.mean, "prod": reduction.prod,
    "max": reduction.max, "min": reduction.min,
    # views: writes through them reach their base (aliasing.py)
    "reshape": aliasing.reshape, "transpose": aliasing.transpose, "permute": aliasing.transpose,
    "unsqueeze": aliasing.unsqueeze, "squeeze": aliasing.squeeze, "swapaxes": aliasing.swapaxes,
    "broadcast_to": broadcasting.broadcast_to, "astype": ew.astype, "split": multi_output.split,
    "view": _view, **row_methods(),
}


#: what ``nabla/tensor_api.py`` binds onto ``Tensor`` from this layer (``real``/``imag``: JAX's and
#: PyTorch's properties, the standard's ``real()``/``imag()`` of the array)
TENSOR_METHODS = {**_OPERATORS, **_METHODS, "T": property(aliasing.T), "_read_scalar": _read_scalar,
                  "real": property(ew.UNARY_FUNCTIONS["real"]), "imag": property(ew.UNARY_FUNCTIONS["imag"]),
                  "__hash__": lambda self: id(self)}
