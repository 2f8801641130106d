"""MAX lowerings of the integer bitwise functions, built from arithmetic: MAX has no bitwise ops.

An integer's bits are taken along a new trailing axis (two's complement, by floor division),
combined as 0/1 arithmetic, and summed back with their weights."""

from __future__ import annotations

import numpy as np
from max.dtype import DType
from ..core.lazy_module import graph_ops as ops

from .lowerings import const, select

_BITS = {DType.int8: 8, DType.int16: 16, DType.int32: 32, DType.int64: 64,
         DType.uint8: 8, DType.uint16: 16, DType.uint32: 32, DType.uint64: 64}
_SIGNED = (DType.int8, DType.int16, DType.int32, DType.int64)


def _bits(x):
    """The bits of ``x`` along a new trailing axis (two's complement, floor division)."""
    n = _BITS[x.dtype]
    signed = x.dtype in _SIGNED
    low = n - 1 if signed else n
    powers = ops.constant(np.array([1 << k for k in range(low)], dtype=x.dtype.to_numpy()), x.dtype, x.device)
    xe = ops.unsqueeze(x, -1)
    bits = ops.mod(ops.floor_div(xe, powers), const(2, x))
    if signed:
        top = ops.cast(ops.greater(const(0, x), xe), x.dtype)
        bits = ops.concat([bits, top], axis=-1)
    return bits


def _from_bits(bits, like):
    n = _BITS[like.dtype]
    signed = like.dtype in _SIGNED
    weights = [1 << k for k in range(n)]
    if signed:
        weights[-1] = -(1 << (n - 1))
    w = ops.constant(np.array(weights, dtype=like.dtype.to_numpy()), like.dtype, like.device)
    return ops.sum(ops.mul(bits, w), axis=-1)


def _bitwise(combine):
    def fn(x, y):
        if x.dtype == DType.bool:
            return {"and": ops.logical_and, "or": ops.logical_or, "xor": ops.logical_xor}[combine](x, y)
        a, b = _bits(x), _bits(y)
        if combine == "and":
            c = ops.mul(a, b)
        elif combine == "or":
            c = ops.sub(ops.add(a, b), ops.mul(a, b))
        else:
            c = ops.mod(ops.add(a, b), const(2, a))
        return ops.squeeze(_from_bits(c, x), -1)
    return fn


bitwise_and, bitwise_or, bitwise_xor = _bitwise("and"), _bitwise("or"), _bitwise("xor")


def bitwise_invert(x):
    if x.dtype == DType.bool:
        return ops.logical_not(x)
    if x.dtype in _SIGNED:
        return ops.sub(ops.negate(x), const(1, x))
    return ops.sub(const((1 << _BITS[x.dtype]) - 1, x), x)


def _beyond(y, n):
    """Shift counts past the width ``n`` or negative: NumPy reads a count as unsigned, so a
    negative one is a huge one (``1 << -3`` is 0, ``-8 >> -3`` is -1)."""
    over = ops.greater_equal(y, const(n, y))
    return ops.logical_or(over, ops.greater(const(0, y), y)) if y.dtype in _SIGNED else over


def _pow2(y, like):
    n = _BITS[like.dtype]
    clipped = ops.min(ops.max(y, const(0, y)), const(n - 1, y))
    return ops.pow(const(2, like), ops.cast(clipped, like.dtype)), _beyond(y, n)


def left_shift(x, y):
    p, overflow = _pow2(y, x)
    return select(overflow, const(0, x), ops.mul(x, p))


def right_shift(x, y):
    p, overflow = _pow2(y, x)
    if x.dtype in _SIGNED:  # 2**(n-1) wraps negative for signed types: shift by n-1 is the sign fill too
        overflow = _beyond(y, _BITS[x.dtype] - 1)
    fill = select(ops.greater(const(0, x), x), const(-1, x), const(0, x)) if x.dtype in _SIGNED else const(0, x)
    return select(overflow, fill, ops.floor_div(x, p))
