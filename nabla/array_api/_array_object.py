"""The standard's array object: the rest of its attributes and operators, bound onto Tensor."""

from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor
from ..ops.elementwise import BINARY_FUNCTIONS as _B, UNARY_FUNCTIONS as _U, astype as _astype
from ..ops.indexing import host_element
from ._dtypes import scalar_result

SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")


def __array_namespace__(self, /, *, api_version=None):
    if api_version is not None and api_version not in SUPPORTED_VERSIONS:
        raise ValueError(f"nabla: unsupported array API version {api_version!r}; supported: {SUPPORTED_VERSIONS}")
    from .. import array_api

    return array_api


def _mT(self):
    if self.ndim < 2:
        raise ValueError(f"nabla: mT needs at least 2-D, got shape {self.shape}")
    from ..ops.view import swap_axes

    return swap_axes(self, -1, -2)


def _T(self):
    if self.ndim != 2 and self.ndim != 0 and self.ndim != 1:
        # the standard defines T for 2-D arrays; NumPy reverses every axis, and so do we
        pass
    from ..ops.view import transpose

    return transpose(self)


def _check_scalar(name):
    # Operators promote like NumPy/JAX (an int array meets a float scalar in the default float); the
    # standard leaves that case undefined, and in-place forms still refuse to change the dtype kind.
    return lambda fn: fn


def _binary(name, reflected=False):
    fn = _B[name]
    if reflected:
        return _check_scalar(name)(lambda self, other: fn(other, self))
    return _check_scalar(name)(fn)


def _inplace(name):
    fn = _B[name]

    @_check_scalar(name)
    def method(self, other):
        out = fn(self, other)
        if out.shape != self.shape:
            raise ValueError(f"nabla: in-place {name} would change the shape {self.shape} to {out.shape}")
        if out.dtype is not self.dtype:
            if out.dtype.kind != self.dtype.kind and not (out.dtype.is_integer and self.dtype.is_integer):
                raise TypeError(f"nabla: in-place {name} cannot store a {out.dtype} result in a {self.dtype} array")
            out = _astype(out, self.dtype)
        self._impl = out._impl
        return self

    return method


def _bool_scalar(self):
    if self.size != 1:
        raise ValueError(f"nabla: the truth value of an array with {self.size} elements is ambiguous")
    return bool(_read_scalar(self))


def _read_scalar(self):
    value = host_element(self)
    return self.numpy().reshape(()).item() if value is None else value


def _int(self):
    if self.shape != ():
        raise TypeError(f"nabla: int() needs a 0-d array, got shape {self.shape}")
    return int(_read_scalar(self))


def _float(self):
    if self.shape != ():
        raise TypeError(f"nabla: float() needs a 0-d array, got shape {self.shape}")
    return float(_read_scalar(self))


def _complex(self):
    if self.shape != ():
        raise TypeError(f"nabla: complex() needs a 0-d array, got shape {self.shape}")
    return complex(_read_scalar(self))


def _index(self):
    if not self.dtype.is_integer or self.shape != ():
        raise TypeError(f"nabla: only 0-d integer arrays can be used as an index, got {self.dtype} {self.shape}")
    return int(_read_scalar(self))


def __dlpack__(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
    if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
        raise BufferError(f"nabla: cannot export to DLPack device {dl_device}; the data is on {self.device}")
    arr = self.numpy()
    if copy:
        arr = arr.copy()
    kwargs = {}
    if max_version is not None:
        kwargs["max_version"] = max_version
    if copy is not None:
        kwargs["copy"] = copy
    try:
        return arr.__dlpack__(stream=stream, **kwargs)
    except BufferError:
        # a read-only view cannot travel as a legacy capsule: hand over a private copy
        return np.array(arr).__dlpack__(stream=stream, **kwargs)


def __dlpack_device__(self):
    return (1, 0) if self.device.is_host else (2, self.device.id)


def _to_device(self, device, /, *, stream=None):
    from ._functions import to_device

    return to_device(self, device, stream=stream)


_OPS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide", "floordiv": "floor_divide",
    "mod": "remainder", "pow": "pow", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift",
}


def bind() -> None:
    for short, name in _OPS.items():
        setattr(Tensor, f"__{short}__", _binary(name))
        setattr(Tensor, f"__r{short}__", _binary(name, reflected=True))
        setattr(Tensor, f"__i{short}__", _inplace(name))
    for short, name in (("lt", "less"), ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal"),
                        ("eq", "equal"), ("ne", "not_equal")):
        setattr(Tensor, f"__{short}__", _binary(name))
    from ..ops.linalg import matmul

    Tensor.__matmul__ = lambda self, other: matmul(self, other)
    Tensor.__rmatmul__ = lambda self, other: matmul(other, self)

    def _imatmul(self, other):
        out = matmul(self, other)
        if out.shape != self.shape:
            raise ValueError(f"nabla: in-place matmul would change the shape {self.shape} to {out.shape}")
        self._impl = out._impl
        return self

    Tensor.__imatmul__ = _imatmul
    Tensor.__invert__ = _U["bitwise_invert"]
    Tensor.__abs__ = _U["abs"]
    Tensor.__neg__ = _U["negative"]
    Tensor.__pos__ = _U["positive"]
    Tensor.__array_namespace__ = __array_namespace__
    Tensor.mT = property(_mT)
    Tensor.T = property(_T)
    Tensor.to_device = _to_device
    Tensor.__bool__ = _bool_scalar
    Tensor.__int__ = _int
    Tensor.__float__ = _float
    Tensor.__complex__ = _complex
    Tensor.__index__ = _index
    Tensor.__dlpack__ = __dlpack__
    Tensor.__dlpack_device__ = __dlpack_device__
    Tensor.__hash__ = lambda self: id(self)


bind()
