"""``fft``: the standard's Fourier transform extension (2025.12) on Nabla's FFT kernel.

Every transform is one or more 1-D transforms along an axis (``nabla/ops/fourier.py``), the axis
truncated or zero-padded to ``n`` first. An n-dimensional transform is the composition of 1-D
ones, the norm's factor split over the axes; a complex one over the last two axes runs them as
one 2-D kernel call. The frequency
helpers and the shifts are compositions on MAX ops.
"""

from __future__ import annotations

import numbers

from .. import ops as _ops
from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops.base import as_index, describe, normalize_axis
from ..ops.elementwise import astype as _astype
from ..ops.fourier import fft2_last, fft_along
from ..core.context import get_default_dtype
from ._functions import roll

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward")


def _scaling(norm: str, inverse: bool, op: str) -> int:
    """What divides a transform under ``norm`` (an inverse one mirrors it): 0 nothing, 1 sqrt(n), 2 n.
    ``None`` is "backward", as in NumPy."""
    if norm is None:
        norm = "backward"
    if norm not in _NORMS:
        raise ValueError(f"nabla.fft.{op}: norm must be one of {_NORMS}, got {norm!r}")
    if norm == "ortho":
        return 1
    return 2 if (norm == "backward") == inverse else 0


def _check_n(n, op: str) -> int:
    """``n`` as a length of a transform: an int of at least 1 (a NumPy integer, a 0-d integer array)."""
    index = as_index(n)
    if index is None:
        raise TypeError(f"nabla.fft.{op}: n must be an integer, got {type(n).__name__}")
    n = index
    if n < 1:
        raise ValueError(f"nabla.fft.{op}: invalid number of data points ({n}); it must be at least 1")
    return n


def _input(x, op: str, real: bool = False) -> Tensor:
    """x as the floating dtype the transform runs in: complex (or real for ``real``)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"nabla.fft.{op}: expected an array, got {type(x).__name__}")
    dt = x.dtype
    if real:
        if dt.is_complex:
            raise TypeError(f"nabla.fft.{op}: expected real input, got {describe(x._impl)}")
        return x if dt.is_floating and dt is not _dt.float16 else _astype(x, _dt.float32 if dt is _dt.float16 else _dt.float64)
    if dt.is_complex:
        return x
    return _astype(x, _dt.complex_dtype(dt) if dt.is_floating else _dt.complex128)


def _resize(x: Tensor, axis: int, n: int) -> Tensor:
    """Truncate or zero-pad ``axis`` to n."""
    size = x.shape[axis]
    if size == n:
        return x
    if size > n:
        return x[(slice(None),) * axis + (slice(0, n),)]
    shape = list(x.shape)
    shape[axis] = n - size
    return _ops.concat([x, _ops.zeros(tuple(shape), dtype=x.dtype, device=x.device)], axis=axis)


def _transform(x: Tensor, n, axis: int, norm: str, kind: str, inverse: bool, op: str) -> Tensor:
    """One 1-D transform along ``axis``; ``n`` is the real side's length (c2r: of the result)."""
    if x.ndim == 0:
        raise ValueError(f"nabla.fft.{op}: expected at least one axis, got {describe(x._impl)}")
    axis = normalize_axis(axis, x.ndim, f"fft.{op}")
    size = x.shape[axis]
    if n is None:
        n = 2 * (size - 1) if kind == "c2r" else size
    n = _check_n(n, op)
    x = _resize(x, axis, n // 2 + 1 if kind == "c2r" else n)
    return fft_along(x, axis, kind, 1 if inverse else -1, _scaling(norm, inverse, op), n)


def _c2c(x, n, axis, norm, inverse, op):
    return _transform(x, n, axis, norm, "c2c", inverse, op)


def _r2c(x, n, axis, norm, inverse, op):
    return _transform(x, n, axis, norm, "r2c", inverse, op)


def _c2r(x, n, axis, norm, inverse, op):
    return _transform(x, n, axis, norm, "c2r", inverse, op)


def fft(x, /, *, n=None, axis=-1, norm="backward") -> Tensor:
    return _c2c(_input(x, "fft"), n, axis, norm, False, "fft")


def ifft(x, /, *, n=None, axis=-1, norm="backward") -> Tensor:
    return _c2c(_input(x, "ifft"), n, axis, norm, True, "ifft")


def rfft(x, /, *, n=None, axis=-1, norm="backward") -> Tensor:
    return _r2c(_input(x, "rfft", real=True), n, axis, norm, False, "rfft")


def irfft(x, /, *, n=None, axis=-1, norm="backward") -> Tensor:
    return _c2r(_input(x, "irfft"), n, axis, norm, True, "irfft")


def hfft(x, /, *, n=None, axis=-1, norm="backward") -> Tensor:
    """The real spectrum of a signal with Hermitian symmetry, given its first half."""
    return _c2r(_input(x, "hfft"), n, axis, norm, False, "hfft")


def ihfft(x, /, *, n=None, axis=-1, norm="backward") -> Tensor:
    return _r2c(_input(x, "ihfft", real=True), n, axis, norm, True, "ihfft")


def _axes_and_sizes(x: Tensor, s, axes, op: str):
    """(axes, sizes or None per axis), NumPy's rules: ``s`` alone names the last len(s) axes."""
    if s is not None:
        s = tuple(s)
    if axes is None:
        axes = tuple(range(x.ndim - len(s), x.ndim)) if s is not None else tuple(range(x.ndim))
    else:
        axes = tuple(axes)
    if s is not None and len(s) != len(axes):
        raise ValueError(f"nabla.fft.{op}: s {s} and axes {axes} must have the same length")
    axes = tuple(normalize_axis(a, x.ndim, f"fft.{op}") for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"nabla.fft.{op}: repeated axis in {axes}")
    sizes = tuple(None if s is None or s[i] == -1 else s[i] for i in range(len(axes)))
    return axes, sizes


def _c2c_n(x: Tensor, s, axes, norm: str, inverse: bool, op: str) -> Tensor:
    axes, sizes = _axes_and_sizes(x, s, axes, op)
    last = (x.ndim - 2, x.ndim - 1)
    pair = x.ndim >= 2 and all(a in axes for a in last)
    for a, m in zip(axes, sizes):
        if not (pair and a in last):
            x = _c2c(x, m, a, norm, inverse, op)
    if pair:  # transforms along different axes commute: the last two go in one kernel call
        for a in last:
            m = sizes[axes.index(a)]
            m = x.shape[a] if m is None else m
            m = _check_n(m, op)
            x = _resize(x, a, m)
        x = fft2_last(x, 1 if inverse else -1, _scaling(norm, inverse, op))
    return x


def fftn(x, /, *, s=None, axes=None, norm="backward") -> Tensor:
    return _c2c_n(_input(x, "fftn"), s, axes, norm, False, "fftn")


def ifftn(x, /, *, s=None, axes=None, norm="backward") -> Tensor:
    return _c2c_n(_input(x, "ifftn"), s, axes, norm, True, "ifftn")


def rfftn(x, /, *, s=None, axes=None, norm="backward") -> Tensor:
    x = _input(x, "rfftn", real=True)
    axes, sizes = _axes_and_sizes(x, s, axes, "rfftn")
    if not axes:
        raise ValueError("nabla.fft.rfftn: at least one axis is needed")
    x = _r2c(x, sizes[-1], axes[-1], norm, False, "rfftn")
    for a, m in zip(axes[:-1], sizes[:-1]):
        x = _c2c(x, m, a, norm, False, "rfftn")
    return x


def irfftn(x, /, *, s=None, axes=None, norm="backward") -> Tensor:
    x = _input(x, "irfftn")
    axes, sizes = _axes_and_sizes(x, s, axes, "irfftn")
    if not axes:
        raise ValueError("nabla.fft.irfftn: at least one axis is needed")
    for a, m in zip(axes[:-1], sizes[:-1]):
        x = _c2c(x, m, a, norm, True, "irfftn")
    return _c2r(x, sizes[-1], axes[-1], norm, True, "irfftn")


def _frequency_dtype(dtype, op: str):
    dtype = get_default_dtype() if dtype is None else _dt.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError(f"nabla.fft.{op}: dtype must be a real floating dtype, got {dtype}")
    return dtype


def fftfreq(n, /, *, d=1.0, dtype=None, device=None) -> Tensor:
    """[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d n)."""
    n = _check_n(n, "fftfreq")
    dtype = _frequency_dtype(dtype, "fftfreq")
    k = _ops.arange(n, dtype=_dt.int64, device=device)
    k = _ops.where(k < (n + 1) // 2, k, k - n)
    return _astype(k, dtype) * (1.0 / (d * n))


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None) -> Tensor:
    """[0, 1, ..., n // 2] / (d n)."""
    n = _check_n(n, "rfftfreq")
    dtype = _frequency_dtype(dtype, "rfftfreq")
    return _astype(_ops.arange(n // 2 + 1, dtype=_dt.int64, device=device), dtype) * (1.0 / (d * n))


def _shift(x, axes, op: str, sign: int) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"nabla.fft.{op}: expected an array, got {type(x).__name__}")
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, numbers.Integral):
        axes = (axes,)
    axes = tuple(normalize_axis(a, x.ndim, f"fft.{op}") for a in axes)
    if not axes:
        return x
    return roll(x, tuple(sign * (x.shape[a] // 2) for a in axes), axis=axes)


def fftshift(x, /, *, axes=None) -> Tensor:
    """Move frequency 0 to the middle."""
    return _shift(x, axes, "fftshift", 1)


def ifftshift(x, /, *, axes=None) -> Tensor:
    return _shift(x, axes, "ifftshift", -1)
