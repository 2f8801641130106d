"""Discrete Fourier transforms along one axis on Nabla's FFT kernel (``kernels/fft/``).

One op, three kinds: ``c2c`` (complex in and out), ``r2c`` (real in, the n // 2 + 1 non-negative
frequencies out) and ``c2r`` (those frequencies in, n reals out, Hermitian symmetry implied).
``sign`` is the exponent's sign (-1 forward, +1 inverse) and ``scaling`` what divides the result
(0: nothing, 1: sqrt(n), 2: n, with n the transform's length, so one lowering serves every
length), so the standard's norms, ``hfft`` and ``ihfft`` are the same op with other constants. ``axis`` counts
from the end (so vmap's leading batch axes leave it be); the kernel transforms an inner axis in
place, viewing the data as (outer, n, inner), so no axis is ever moved. ``dims=2`` (c2c on the
last axis only) transforms the axis before it too, in one kernel call (a 2-D transform sweeps the
data twice, two 1-D calls four times). Zero-padding and truncation are the callers'
(``array_api/fft.py``). On an accelerator the kernel runs its GPU path where the data is, one axis
per call (a 2-D transform is two calls).

The transforms are linear, so the JVP is the op itself and the VJP its transpose (JAX's
convention: the cotangent pairs as Re(sum(ct * dy))): the DFT matrix is symmetric, so c2c's
transpose is c2c with the same sign; r2c's is c2r of the cotangent with the frequencies that stand
for two (k and n - k) halved, and c2r's is r2c with those doubled.
"""

from __future__ import annotations

import functools
import math
import operator

import numpy as np
from max.dtype import DType

from ..core import dtypes as _dt
from .base import describe
from .custom_kernels import KernelOperation, WIDER, fft_kernel
from .creation import full
from .elementwise import where
from .ranges import arange
from .view import reshape
from ..core.lazy_module import graph_ops as ops

class FftOp(KernelOperation):
    """The DFT along ``axis`` (negative); complex data is interleaved (re, im) storage."""
    sharding_rule = "transform_axis"

    name = "fft"
    widened = WIDER
    kernel_package = "fft"
    #: a script that meets one transform meets its inverse: the first-run list takes the family
    first_run_family = True

    def abstract_eval(self, x, *, kind, sign, scaling, n, axis, dims=1):
        shape = list(x.cached_shape)
        if dims == 2 and (kind != "c2c" or axis != -1 or len(shape) < 2):
            raise ValueError(f"nabla.fft: a 2-D transform is c2c over the last two axes, got {kind} along "
                             f"axis {axis} of {describe(x)}")
        if kind == "r2c":
            if x.dtype.is_complex or not x.dtype.is_floating:
                raise TypeError(f"nabla.fft: a real transform needs real floating input, got {describe(x)}")
            shape[axis] = shape[axis] // 2 + 1
            return tuple(shape), _dt.complex_dtype(x.dtype), x.batch_dims
        if not x.dtype.is_complex:
            raise TypeError(f"nabla.fft: expected complex input, got {describe(x)}")
        if kind == "c2r":
            shape[axis] = n
            return tuple(shape), _dt.real_dtype(x.dtype), x.batch_dims
        return tuple(shape), x.dtype, x.batch_dims

    def single_op_form(self, kwargs, shapes):
        """One model per kind, sign, scaling and dtype: the input seen as (outer, n, inner) around
        the transformed axis (a 2-D transform: (outer, rows, n)), its result viewed back; a c2r
        transform of NumPy's default length (2 (m - 1), or 2 m - 1) keeps that length symbolic."""
        (s,), pair = shapes, [2] if kwargs.get("cplx") else []
        logical = s[:len(s) - len(pair)]
        if kwargs.get("dims", 1) == 2:
            view, axis = (math.prod(logical[:-2]), logical[-2], logical[-1]), -1
        else:
            a = len(logical) + kwargs["axis"]
            view, axis = (math.prod(logical[:a]), logical[a], math.prod(logical[a + 1:])), -2
        form = {**kwargs, "axis": axis}
        if kwargs["kind"] == "c2r" and kwargs["n"] in (2 * (view[1] - 1), 2 * view[1] - 1):
            form["n"] = _EVEN if kwargs["n"] == 2 * (view[1] - 1) else _ODD
        return form, [["b", "n", "k"] + pair], [view + tuple(pair)]

    def single_op_variants(self):
        """A node of each model the family has: NumPy's default norm, forward and inverse, each kind,
        float64 (float32 work is done in float64; see ``single_op.family``)."""
        for dtype in ("float64",):
            yield {"kind": "r2c", "sign": -1, "scaling": 0, "n": 0, "axis": -1}, [dtype], [(2, 4)]
            yield {"kind": "c2r", "sign": 1, "scaling": 2, "n": 6, "axis": -1, "cplx": True}, [dtype], [(2, 4, 2)]
            for sign, scaling in ((-1, 0), (1, 2)):
                c2c = {"kind": "c2c", "sign": sign, "scaling": scaling, "n": 0, "axis": -1}
                yield {**c2c, "cplx": True}, [dtype], [(2, 4, 2)]
                yield {**c2c, "dims": 2, "cplx": True}, [dtype], [(2, 4, 2)]  # (the order a node's kwargs take)

    def maxpr(self, x, *, kind, sign, scaling, n, axis, dims=1, cplx=False):
        # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
        from max.graph import DeviceRef, Dim

        device, cpu = x.device, DeviceRef.CPU()
        gpu = not device.is_cpu()
        if gpu and dims == 2:  # the GPU path transforms one axis per call: the last, then the one before
            y = self.maxpr(x, kind=kind, sign=sign, scaling=scaling, n=n, axis=-1, cplx=cplx)
            return self.maxpr(y, kind=kind, sign=sign, scaling=scaling, n=n, axis=-2, cplx=cplx)
        if not gpu and device != cpu:  # a virtual CPU's data: the kernel runs on the CPU itself
            x = ops.transfer_to(x, cpu)
        here = device if gpu else cpu
        shape = list(x.shape)  # complex: the (re, im) pair is a last axis, part of the inner block
        at = len(shape) - (1 if cplx else 0) + axis - (dims - 1)  # the 2-D kernel: rows are the first axis
        outer = functools.reduce(operator.mul, shape[:at], Dim(1))
        inner = functools.reduce(operator.mul, shape[at + 1:], Dim(1))
        rows = shape[at]
        flat = ops.reshape(x, [outer, rows, inner])
        rows_out = (rows // 2 + 1) if kind == "r2c" else (_length(n, rows) if kind == "c2r" else rows)
        cols_out = inner * 2 if kind == "r2c" else (inner // 2 if kind == "c2r" else inner)
        spec = ops.constant(np.array([sign, scaling, dims], dtype=np.float64), DType.float64, here)
        zero = ops.constant(np.zeros(1, np.uint8), DType.uint8, here)
        y = fft_kernel()(flat, spec, ops.broadcast_to(zero, [rows_out]), ops.broadcast_to(zero, [cols_out]))
        y = y[0] if isinstance(y, (list, tuple)) else y
        out_shape = list(x.shape)
        out_shape[at] = rows_out
        if kind == "r2c":
            out_shape.append(2)
        elif kind == "c2r":
            out_shape.pop()
        y = ops.reshape(y, out_shape)
        return ops.transfer_to(y, device) if device != here else y

    def jvp_rule(self, primals, tangents, output, *, kind, sign, scaling, n, axis, dims=1):
        return self(tangents[0], kind=kind, sign=sign, scaling=scaling, n=n, axis=axis, dims=dims)

    def vjp_rule(self, primals, cotangent, output, *, kind, sign, scaling, n, axis, dims=1):
        (x,) = primals
        if kind == "c2c":  # the 2-D DFT matrix, a Kronecker product of symmetric ones, is symmetric too
            return [self(cotangent, kind="c2c", sign=sign, scaling=scaling, n=n, axis=axis, dims=dims)]
        if kind == "r2c":  # Re(F^T pad(ct)): c2r counts k and n - k once each, so halve those
            size = x.shape[axis]
            ct = cotangent * _pair_weights(size, 0.5, cotangent, axis)
            return [self(ct, kind="c2r", sign=sign, scaling=scaling, n=size, axis=axis)]
        g = self(cotangent, kind="r2c", sign=sign, scaling=scaling, n=0, axis=axis)  # c2r: a pair's value counts twice
        return [g * _pair_weights(n, 2.0, g, axis)]


def host_view(shape, *, kind, n, axis, dims=1, cplx=False) -> tuple:
    """(outer, rows, inner, rows out, cols out) of a transform of physical ``shape`` as the kernel
    sees it: the data viewed as (outer, rows, inner) around the transformed axis (the 2-D
    transform's rows: the first of its axes; complex: the pair is part of the inner block), the
    result as (outer, rows out, cols out)."""
    at = len(shape) - (1 if cplx else 0) + axis - (dims - 1)
    outer, rows, inner = math.prod(shape[:at]), shape[at], math.prod(shape[at + 1:])
    rows_out = rows // 2 + 1 if kind == "r2c" else (n if kind == "c2r" else rows)
    cols_out = inner * 2 if kind == "r2c" else (inner // 2 if kind == "c2r" else inner)
    return outer, rows, inner, rows_out, cols_out


#: a c2r model's length ``n`` when it is NumPy's default for m frequencies: 2 (m - 1), or 2 m - 1
_EVEN, _ODD = -2, -1


def _length(n, rows):
    """A c2r transform's length: ``n``, or (a model's) NumPy's default for ``rows`` frequencies."""
    return (rows - 1) * 2 if n == _EVEN else rows * 2 - 1 if n == _ODD else n


def _pair_weights(n: int, w: float, like, axis: int):
    """(n // 2 + 1, 1, ...) (broadcasting along ``axis``): 1 at frequency 0 (and n / 2 when n is
    even), ``w`` at the others."""
    m, dtype = n // 2 + 1, _dt.real_dtype(like.dtype)
    k = arange(m, device=like.device)
    weights = where((k == 0) | (k * 2 == n), full((m,), 1.0, dtype, like.device), full((m,), w, dtype, like.device))
    return reshape(weights, (m,) + (1,) * (-axis - 1))


fft_op = FftOp()


def fft_along(x, axis: int, kind: str, sign: int, scaling: int, n: int):
    """The transform along ``axis`` of ``x`` (already of the length the kind expects there; ``n``,
    the real side's length, matters to c2r only)."""
    axis = axis - x.ndim if axis >= 0 else axis
    return fft_op(x, kind=kind, sign=int(sign), scaling=int(scaling), n=int(n) if kind == "c2r" else 0, axis=axis)


def fft2_last(x, sign: int, scaling: int):
    """The c2c transform over the last two axes of ``x`` in one kernel call."""
    return fft_op(x, kind="c2c", sign=int(sign), scaling=int(scaling), n=0, axis=-1, dims=2)
