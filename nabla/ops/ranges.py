"""``arange``: positions counted on MAX, then ``start + i * step`` (a composite over creation and
the elementwise ops)."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..core import dtypes as _dt
from ..core.context import as_device, get_default_dtype, get_default_int_dtype
from ..core.tensor import Tensor
from .casts import astype
from .creation import operand_constant, positions as _positions
from .elementwise import add, equal, multiply, where


def _number(v):
    if isinstance(v, Tensor) and not v.shape and (v.dtype.is_integer or v.dtype.is_floating):
        return int(v) if v.dtype.is_integer else float(v)
    return v


def arange(start, stop=None, step=1, dtype=None, device=None) -> Tensor:
    """Evenly spaced values in ``[start, stop)``, NumPy's fill rule kept exactly."""
    if stop is None:
        start, stop = 0, start
    # a 0-d real tensor bound is the number it holds (the length is a shape: it is read), as NumPy's
    start, stop, step = (_number(v) for v in (start, stop, step))
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"nabla.arange: {name} must be a real number, got {v!r}")
    if step == 0:
        raise ZeroDivisionError("nabla.arange: step must not be zero")  # (NumPy's class)
    all_int = all(isinstance(v, numbers.Integral) for v in (start, stop, step))
    if dtype is None:
        dtype = get_default_int_dtype() if all_int else get_default_dtype()
    dtype = _dt.as_dtype(dtype)
    if dtype.is_complex:  # real bounds: the real range, with zero imaginary parts (NumPy's)
        return astype(arange(start, stop, step, dtype=_dt.real_dtype(dtype), device=device), dtype)
    if dtype.is_bool:
        raise TypeError(f"nabla.arange: unsupported dtype {dtype}")
    length = max(0, math.ceil((stop - start) / step))
    device = as_device(device)
    positions = _positions(length, device)
    if dtype.is_integer:  # exact: start + i * step in int64, then wrapped to the dtype as NumPy's casts do
        start, step = int(start), int(step)
        # (a unit step multiplies nothing: ``arange(n)`` and ``arange(lo, hi)`` are one op, a loop's)
        scaled = positions if step == 1 else multiply(positions, operand_constant(step, _dt.int64, device))
        out = add(scaled, operand_constant(start, _dt.int64, device))
        return out if dtype is _dt.int64 else astype(out, dtype)
    # NumPy's fill for floats: the first two values rounded to the dtype, then from the third on
    # first + i * (second - first) in the dtype's arithmetic (float32 for float16), rounded to the
    # dtype. The second stays as rounded: first + (second - first) may round to another value
    work = _dt.float64 if dtype is _dt.float64 else _dt.float32
    first = work.numpy_dtype.type(np.asarray(start, dtype.numpy_dtype))
    second = work.numpy_dtype.type(np.asarray(start + step, dtype.numpy_dtype))
    at = astype(positions, work)  # (one float program: the fused kernel runs it whole)
    filled = add(multiply(at, operand_constant(float(second - first), work, device)),
                 operand_constant(float(first), work, device))
    out = where(equal(at, operand_constant(1.0, work, device)), operand_constant(float(second), work, device), filled) \
        if length > 1 else filled
    return out if dtype is work else astype(out, dtype)
