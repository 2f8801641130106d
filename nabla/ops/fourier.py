"""Discrete Fourier transforms along the last axis on Nabla's FFT kernel (``kernels/fft/``).

One op, three kinds: ``c2c`` (complex in and out), ``r2c`` (real in, the n // 2 + 1 non-negative
frequencies out) and ``c2r`` (those frequencies in, n reals out, Hermitian symmetry implied).
``sign`` is the exponent's sign (-1 forward, +1 inverse) and ``scaling`` what divides the result
(0: nothing, 1: sqrt(n), 2: n, with n the transform's length, so one lowering serves every
length), so the standard's norms, ``hfft`` and ``ihfft`` are the same op with other constants. Other axes,
zero-padding and truncation are the callers' (``array_api/fft.py``) moves around it.

The transforms are linear, so the JVP is the op itself and the VJP its transpose (JAX's
convention: the cotangent pairs as Re(sum(ct * dy))): the DFT matrix is symmetric, so c2c's
transpose is c2c with the same sign; r2c's is c2r of the cotangent with the frequencies that stand
for two (k and n - k) halved, and c2r's is r2c with those doubled.
"""

from __future__ import annotations

from ..core import dtypes as _dt
from ..core.operation import Operation
from .base import describe

KINDS = ("c2c", "r2c", "c2r")


class FftOp(Operation):
    """The DFT of each row (last axis); complex data is interleaved (re, im) storage."""

    name = "fft"
    supports_complex = True
    shape_polymorphic = True
    standalone = True
    kernel_package = "fft"

    def complex_storage_kwargs(self, kwargs):
        return {**kwargs, "cplx": True}

    def abstract_eval(self, x, *, kind, sign, scaling, n):
        shape = x.cached_shape
        if kind == "r2c":
            if x.dtype.is_complex or not x.dtype.is_floating:
                raise TypeError(f"nabla.fft: a real transform needs real floating input, got {describe(x)}")
            return shape[:-1] + (shape[-1] // 2 + 1,), _dt.complex_dtype(x.dtype), x.batch_dims
        if not x.dtype.is_complex:
            raise TypeError(f"nabla.fft: expected complex input, got {describe(x)}")
        if kind == "c2r":
            return shape[:-1] + (n,), _dt.real_dtype(x.dtype), x.batch_dims
        return shape, x.dtype, x.batch_dims

    def maxpr(self, x, *, kind, sign, scaling, n, cplx=False):
        import functools
        import operator

        import numpy as np
        from max.dtype import DType
        from max.graph import DeviceRef, Dim, ops

        from .custom_kernels import fft_kernel

        device, cpu = x.device, DeviceRef.CPU()
        if device != cpu:  # the kernel is CPU code: accelerator data makes the round trip
            x = ops.transfer_to(x, cpu)
        shape = list(x.shape)
        lead = shape[:-2] if cplx else shape[:-1]
        batch = functools.reduce(operator.mul, lead, Dim(1))
        cols = shape[-2] * 2 if cplx else shape[-1]
        flat = ops.reshape(x, [batch, cols])
        width = (cols // 2 + 1) * 2 if kind == "r2c" else (n if kind == "c2r" else cols)
        spec = ops.constant(np.array([sign, scaling], dtype=np.float64), DType.float64, cpu)
        like = ops.broadcast_to(ops.constant(np.zeros(1, np.uint8), DType.uint8, cpu), [width])
        y = fft_kernel()(flat, spec, like)
        y = y[0] if isinstance(y, (list, tuple)) else y
        tail = [n] if kind == "c2r" else ([cols // 2 + 1, 2] if kind == "r2c" else shape[-2:])
        y = ops.reshape(y, lead + tail)
        return ops.transfer_to(y, device) if device != cpu else y

    def jvp_rule(self, primals, tangents, output, *, kind, sign, scaling, n):
        return self(tangents[0], kind=kind, sign=sign, scaling=scaling, n=n)

    def vjp_rule(self, primals, cotangent, output, *, kind, sign, scaling, n):
        (x,) = primals
        if kind == "c2c":
            return [self(cotangent, kind="c2c", sign=sign, scaling=scaling, n=n)]
        if kind == "r2c":  # Re(F^T pad(ct)): c2r counts k and n - k once each, so halve those
            size = x.shape[-1]
            ct = cotangent * _pair_weights(size, 0.5, cotangent)
            return [self(ct, kind="c2r", sign=sign, scaling=scaling, n=size)]
        g = self(cotangent, kind="r2c", sign=sign, scaling=scaling, n=0)  # c2r: a pair's value counts twice
        return [g * _pair_weights(n, 2.0, g)]


def _pair_weights(n: int, w: float, like):
    """(n // 2 + 1,): 1 at frequency 0 (and n / 2 when n is even), ``w`` at the others."""
    from .creation import arange, full
    from .elementwise import where

    m, dtype = n // 2 + 1, _dt.real_dtype(like.dtype)
    k = arange(m, device=like.device)
    return where((k == 0) | (k * 2 == n), full((m,), 1.0, dtype, like.device), full((m,), w, dtype, like.device))


fft_op = FftOp()


def fft_rows(x, kind: str, sign: int, scaling: int, n: int):
    """The transform of each row of ``x`` (last axis, already of the length the kind expects; ``n``,
    the real side's length, matters to c2r only)."""
    return fft_op(x, kind=kind, sign=int(sign), scaling=int(scaling), n=int(n) if kind == "c2r" else 0)
