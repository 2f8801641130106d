"""Data type functions of the standard: the lattice lives in nabla.core.dtypes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import dtypes as _dt
from ..core.dtypes import (bool_, complex64, complex128, float32, float64, int8, int16, int32, int64, uint8,
                           uint16, uint32, uint64)
from ..core.tensor import Tensor

#: the dtypes the namespace exposes (float16 is Nabla-only)
DTYPES = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, complex64, complex128)

_KINDS = {
    "bool": lambda d: d.is_bool,
    "signed integer": lambda d: d.kind == "i",
    "unsigned integer": lambda d: d.kind == "u",
    "integral": lambda d: d.is_integer,
    "real floating": lambda d: d.is_floating,
    "complex floating": lambda d: d.is_complex,
    "numeric": lambda d: not d.is_bool,
}


def isdtype(dtype, kind) -> bool:
    if isinstance(dtype, np.dtype):  # (a NumPy dtype: a Nabla dtype's ``.dtype``, as NumPy's protocol reads it)
        dtype = _dt.as_dtype(dtype)
    if not isinstance(dtype, _dt.DType):
        raise TypeError(f"nabla.isdtype: expected a dtype, got {dtype!r}")
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, _dt.DType):
        return dtype is kind
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"nabla.isdtype: unknown kind {kind!r}; expected one of {sorted(_KINDS)}")
        return _KINDS[kind](dtype)
    raise TypeError(f"nabla.isdtype: kind must be a dtype, a string or a tuple, got {kind!r}")


def result_type(*arrays_and_dtypes):
    """Promotion of arrays, dtypes and (since 2024.12) Python scalars."""
    dtypes, scalars = [], []
    for a in arrays_and_dtypes:
        if isinstance(a, Tensor):
            dtypes.append(a.dtype)
        elif isinstance(a, _dt.DType):
            dtypes.append(a)
        elif isinstance(a, (bool, int, float, complex)):
            scalars.append(a)
        else:
            raise TypeError(f"nabla.result_type: expected arrays, dtypes or Python scalars, got {a!r}")
    if not dtypes:  # ValueError for scalars alone too, as NumPy's and array-api-strict's (no
        # regex characters: SciPy matches a second call's message against the first's)
        raise ValueError("nabla.result_type: at least one array or dtype is required"
                         + ("; Python scalars alone have no array dtype" if scalars else ""))
    out = _dt.result_type(*dtypes)
    for s in scalars:
        out = scalar_result(out, s, "result_type")
    return out


def scalar_result(dtype, scalar, op: str):
    """The dtype of ``dtype`` combined with a Python scalar, by the standard's rules."""
    if isinstance(scalar, bool):
        return dtype
    if isinstance(scalar, int):
        if dtype.is_bool:
            raise TypeError(f"nabla.{op}: an int scalar does not combine with a bool array")
        return dtype
    if isinstance(scalar, float):
        if dtype.is_bool or dtype.is_integer:
            raise TypeError(f"nabla.{op}: a float scalar does not combine with an {dtype} array")
        return dtype
    if isinstance(scalar, complex):
        if not (dtype.is_floating or dtype.is_complex):
            raise TypeError(f"nabla.{op}: a complex scalar does not combine with an {dtype} array")
        return dtype if dtype.is_complex else _dt.complex_dtype(dtype)
    raise TypeError(f"nabla.{op}: unsupported scalar {scalar!r}")


def can_cast(from_, to) -> bool:
    if isinstance(from_, Tensor):
        from_ = from_.dtype
    if not isinstance(from_, _dt.DType) or not isinstance(to, _dt.DType):
        raise TypeError(f"nabla.can_cast: expected dtypes or arrays, got {from_!r}, {to!r}")
    if from_ is to:
        return True
    try:
        return _dt.result_type(from_, to) is to and not (from_.kind in "fc" and to.kind in "iub") \
            and not (from_.kind == "c" and to.kind == "f")
    except TypeError:
        return False


@dataclass(frozen=True)
class finfo_object:
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: _dt.DType


@dataclass(frozen=True)
class iinfo_object:
    bits: int
    max: int
    min: int
    dtype: _dt.DType


def _dtype_of(type_, op):
    if isinstance(type_, Tensor):
        return type_.dtype
    if isinstance(type_, _dt.DType):
        return type_
    raise TypeError(f"nabla.{op}: expected a dtype or an array, got {type_!r}")


def finfo(type_) -> finfo_object:
    d = _dtype_of(type_, "finfo")
    if not (d.is_floating or d.is_complex):
        raise ValueError(f"nabla.finfo: {d} is not a floating-point dtype")
    real = _dt.real_dtype(d)
    f = np.finfo(real.numpy_dtype)
    return finfo_object(int(f.bits), float(f.eps), float(f.max), float(f.min), float(f.smallest_normal), real)


def iinfo(type_) -> iinfo_object:
    d = _dtype_of(type_, "iinfo")
    if not d.is_integer:
        raise ValueError(f"nabla.iinfo: {d} is not an integer dtype")
    i = np.iinfo(d.numpy_dtype)
    return iinfo_object(int(i.bits), int(i.max), int(i.min), d)


def as_dtype(dtype, op: str):
    if dtype is None:
        return None
    if isinstance(dtype, _dt.DType):
        return dtype
    try:
        return _dt.as_dtype(dtype)
    except TypeError:
        raise TypeError(f"nabla.{op}: unsupported dtype {dtype!r}") from None


