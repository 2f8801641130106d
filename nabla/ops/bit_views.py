"""Bit views: an array's bytes read as another dtype (NumPy's ``ndarray.view(dtype)``), on MAX.

An array's values outside any transform are its buffer viewed as the other dtype: the same bytes,
nothing computed. Inside ``grad``, ``vmap``, ``compile`` or a mesh the view is an op of the trace, and
MAX has no bit-cast op, so the bits are computed exactly by arithmetic: every source becomes the
unsigned integer of its width holding its bit pattern (a float's sign, exponent and mantissa fields
found by exact scaling by powers of two), the unsigned words are split or joined little-endian when
the itemsizes differ, and the words are read as the target dtype by the inverse arithmetic. NaN
keeps its sign (read by Nabla's sign-bit kernel) but not its payload: a float NaN gives the quiet
NaN pattern, and an integer pattern of a NaN gives the quiet NaN.

A bit view is not differentiable (as JAX's ``lax.bitcast_convert_type``): its derivative is zero.
"""

from __future__ import annotations

import math

from ..core import dtypes as _dt
from ..core.operation import Operation
from ..core.tensor import Tensor
from .base import describe, lift_same
from ..core.graph import Value, give_up
from ..core.tensor_impl import TensorImpl
from .creation import zeros
from .elementwise import UNARY_FUNCTIONS, complex_from_parts, not_equal, where
from .indexing import getitem
from .multi_output import concat
from .view import reshape, unsqueeze
from ..core.lazy_module import graph_ops as ops

_UNSIGNED = {1: _dt.uint8, 2: _dt.uint16, 4: _dt.uint32, 8: _dt.uint64}
#: IEEE formats: (exponent bias, mantissa bits)
_FORMATS = {2: (15, 10), 4: (127, 23), 8: (1023, 52)}


def view_shape(shape: tuple, src: _dt.DType, dst: _dt.DType, op: str = "view") -> tuple:
    """NumPy's shape of ``x.view(dst)``: the last axis rescaled by the itemsize ratio."""
    a, b = src.itemsize, dst.itemsize
    if a == b:
        return tuple(shape)
    if not shape:
        raise ValueError(f"nabla.numpy.{op}: changing the dtype of a 0d array is only supported if the itemsize "
                         f"is unchanged (shape (), {src.name} -> {dst.name})")
    last = shape[-1] * a
    if b > a and (a == 0 or last % b):
        raise ValueError(f"nabla.numpy.{op}: when changing to a larger dtype, its size must be a divisor of the "
                         f"total size in bytes of the last axis of the array (shape {tuple(shape)} {src.name}, "
                         f"{last} bytes, -> {dst.name} of {b} bytes)")
    if b < a and a % b:
        raise ValueError(f"nabla.numpy.{op}: when changing to a smaller dtype, its size must be a divisor of the "
                         f"size of original dtype ({src.name} -> {dst.name})")
    return tuple(shape[:-1]) + (last // b,)


class BitViewOp(Operation):
    """``x``'s bits read as ``dtype`` (both real, non-complex); floats come with their sign bits
    (``neg``) as a second operand. Last axis rescaled when the itemsizes differ."""

    name = "bit_view"
    shape_polymorphic = True
    lift_kwargs = lift_same

    def abstract_eval(self, x, *neg, dtype):
        if x.dtype.is_complex or dtype.is_complex:
            raise TypeError(f"nabla.bit_view: complex dtypes go through their parts ({describe(x)} -> {dtype.name})")
        shape = view_shape(tuple(x.shape), x.dtype, dtype)
        return tuple(x.batch_shape) + shape, dtype, x.batch_dims

    def maxpr(self, x, *neg, dtype):
        src = _dt.as_dtype(x.dtype.to_numpy())
        shape = list(x.shape)
        rows = ops.reshape(x, [-1, shape[-1]] if shape else [1, 1])
        bits = _to_bits(rows, src, ops.reshape(neg[0], [-1, shape[-1]] if shape else [1, 1]) if neg else None)
        bits = _resize_words(bits, src.itemsize, dtype.itemsize)
        out = _from_bits(bits, dtype)
        return ops.reshape(out, shape[:-1] + [-1] if shape else [])

    def jvp_rule(self, primals, tangents, output, *, dtype):
        return None  # no derivative: bits are not a differentiable function of the value

    def vjp_rule(self, primals, cotangent, output, *, dtype):
        return [None] * len(primals)


bit_view_op = BitViewOp()


# --- MAX lowerings --------------------------------------------------------------------------------

def _c(value, dtype, like):
    return ops.constant(value, dtype.max_dtype, like.device)


def _to_bits(x, src: _dt.DType, neg):
    """The unsigned word of ``x``'s width holding each element's bit pattern."""
    u = _UNSIGNED[src.itemsize]
    width = 8 * src.itemsize
    if src.is_bool:
        return ops.cast(x, u.max_dtype)
    if src.kind == "u":
        return x
    if src.is_integer:  # two's complement: a negative x is x + 2**width
        low = _c(-(1 << (width - 1)), src, x)
        negative = ops.greater(_c(0, src, x), x)
        magnitude = ops.cast(ops.where(negative, ops.sub(x, low), x), u.max_dtype)
        return ops.add(magnitude, ops.where(negative, _c(1 << (width - 1), u, x), _c(0, u, x)))
    return _float_bits(x, src, neg, u)


def _float_bits(x, src, neg, u):
    bias, mant = _FORMATS[src.itemsize]
    width = 8 * src.itemsize
    f = _dt.float64
    v = ops.cast(x, f.max_dtype) if src is not f else x
    ax = ops.abs(v)
    nan, inf = ops.is_nan(v), ops.is_inf(v)
    special = ops.logical_or(nan, inf)
    tiny = 2.0 ** (1 - bias)  # the least normal number
    normal = ops.logical_and(ops.greater_equal(ax, _c(tiny, f, v)), ops.logical_not(special))
    y = ops.where(normal, ax, _c(1.0, f, v))
    y, e = _normalize(y, v)
    # normal: (y - 1) * 2**mant; subnormal: ax * 2**(bias - 1 + mant), in two exact steps (2**1074 overflows)
    s1 = (bias - 1 + mant) // 2
    sub = ops.mul(ops.mul(ax, _c(2.0 ** s1, f, v)), _c(2.0 ** (bias - 1 + mant - s1), f, v))
    field = ops.where(normal, ops.mul(ops.sub(y, _c(1.0, f, v)), _c(2.0 ** mant, f, v)), sub)
    top = (1 << (width - 1 - mant)) - 1
    field = ops.where(special, ops.where(nan, _c(float(1 << (mant - 1)), f, v), _c(0.0, f, v)), field)
    exponent = ops.where(normal, ops.add(e, _c(float(bias), f, v)), _c(0.0, f, v))
    exponent = ops.where(special, _c(float(top), f, v), exponent)
    word = ops.add(ops.mul(ops.cast(exponent, u.max_dtype), _c(1 << mant, u, v)), ops.cast(field, u.max_dtype))
    return ops.add(word, ops.where(neg, _c(1 << (width - 1), u, v), _c(0, u, v)))


def _steps(limit: int) -> list:
    """Powers of two, largest first, whose greedy sums reach every shift up to ``limit``; none past
    2**512 (float64's range), so a larger limit repeats 512."""
    out = []
    p = 1
    while sum(out) < limit:
        out.append(min(p, 512))
        p *= 2
    return sorted(out, reverse=True)


def _normalize(y, like):
    """``(y / 2**e, e)`` with ``y / 2**e`` in [1, 2) for positive normal float64 ``y``; every step an exact
    multiplication by a power of two."""
    f = _dt.float64
    e = _c(0.0, f, like)
    for p in [512, 256, 128, 64, 32, 16, 8, 4, 2, 1]:  # down from large values
        big = ops.greater_equal(y, _c(2.0 ** p, f, like))
        y = ops.where(big, ops.mul(y, _c(2.0 ** -p, f, like)), y)
        e = ops.where(big, ops.add(e, _c(float(p), f, like)), e)
    for p in _steps(1022):  # up from small ones: y * 2**p < 2 means the exponent is at most -p
        small = ops.greater(_c(2.0 ** (1 - p), f, like), y)
        y = ops.where(small, ops.mul(y, _c(2.0 ** p, f, like)), y)
        e = ops.where(small, ops.sub(e, _c(float(p), f, like)), e)
    return y, e


def _resize_words(bits, a: int, b: int):
    """Words of ``a`` bytes (rows on the last axis) as words of ``b`` bytes, little-endian."""
    if a == b:
        return bits
    ua, ub = _UNSIGNED[a], _UNSIGNED[b]
    if a > b:  # split each word into a // b words, low bytes first
        chunks = []
        for j in range(a // b):
            shifted = ops.floor_div(bits, _c(1 << (8 * b * j), ua, bits)) if j else bits
            part = ops.mod(shifted, _c(1 << (8 * b), ua, bits))
            chunks.append(ops.cast(part, ub.max_dtype))
        return ops.reshape(ops.stack(chunks, axis=-1), [bits.shape[0], -1])
    k = b // a
    rows, n = bits.shape
    bits = ops.rebind(bits, [rows, (n // k) * k])  # (the shape rule checked that k divides n)
    groups = ops.cast(ops.reshape(bits, [rows, n // k, k]), ub.max_dtype)
    word = None
    for j in range(k):
        part = ops.squeeze(ops.slice_tensor(groups, [slice(None), slice(None), slice(j, j + 1)]), -1)
        part = ops.mul(part, _c(1 << (8 * a * j), ub, part)) if j else part
        word = part if word is None else ops.add(word, part)
    return word


def _from_bits(bits, dst: _dt.DType):
    """Unsigned words read as ``dst``."""
    width = 8 * dst.itemsize
    u = _UNSIGNED[dst.itemsize]
    if dst.kind == "u":
        return bits
    if dst.is_bool:
        return ops.not_equal(bits, _c(0, u, bits))
    half = 1 << (width - 1)
    negative = ops.greater_equal(bits, _c(half, u, bits))
    magnitude = ops.sub(bits, ops.where(negative, _c(half, u, bits), _c(0, u, bits)))
    if dst.is_integer:
        low = ops.cast(magnitude, dst.max_dtype)
        return ops.add(low, ops.where(negative, _c(-half, dst, bits), _c(0, dst, bits)))
    return _float_from_bits(magnitude, negative, dst, u)


def _float_from_bits(magnitude, negative, dst, u):
    bias, mant = _FORMATS[dst.itemsize]
    width = 8 * dst.itemsize
    f = _dt.float64
    exponent = ops.floor_div(magnitude, _c(1 << mant, u, magnitude))
    field = ops.cast(ops.sub(magnitude, ops.mul(exponent, _c(1 << mant, u, magnitude))), f.max_dtype)
    exponent = ops.cast(exponent, f.max_dtype)
    top = float((1 << (width - 1 - mant)) - 1)
    like = field
    # normal: (2**mant + field) * 2**(exponent - bias - mant), scaled greedily; intermediate values lie
    # between the start and the result, so every step is exact
    value = ops.add(field, _c(2.0 ** mant, f, like))
    d = ops.sub(exponent, _c(float(bias + mant), f, like))
    for p in _steps(bias + mant):
        go = ops.greater_equal(ops.negate(d), _c(float(p), f, like))
        value = ops.where(go, ops.mul(value, _c(2.0 ** -p, f, like)), value)
        d = ops.where(go, ops.add(d, _c(float(p), f, like)), d)
    for p in _steps(int(top) - 1 - bias - mant):
        go = ops.greater_equal(d, _c(float(p), f, like))
        value = ops.where(go, ops.mul(value, _c(2.0 ** p, f, like)), value)
        d = ops.where(go, ops.sub(d, _c(float(p), f, like)), d)
    subnormal = ops.mul(field, _c(2.0 ** (1 - bias - mant), f, like))
    zero_exp = ops.equal(exponent, _c(0.0, f, like))
    value = ops.where(zero_exp, subnormal, value)
    all_ones = ops.equal(exponent, _c(top, f, like))
    value = ops.where(all_ones, ops.where(ops.equal(field, _c(0.0, f, like)), _c(math.inf, f, like),
                                          _c(math.nan, f, like)), value)
    value = ops.where(negative, ops.negate(value), value)
    return ops.cast(value, dst.max_dtype) if dst is not f else value


# --- the function --------------------------------------------------------------------------------

def bit_view(x: Tensor, dtype) -> Tensor:
    """``x``'s bytes read as ``dtype`` (C order, little-endian words), as NumPy's ``x.view(dtype)``;
    complex arrays are their (real, imag) pairs of the part dtype. Not differentiable (zero derivative)."""
    dtype = _dt.as_dtype(dtype)
    src = x.dtype
    out_shape = view_shape(tuple(x.shape), src, dtype)
    if 0 in out_shape:
        return type(x)(zeros(out_shape, dtype=dtype, device=x.device)._impl)
    if src.is_complex:  # the pairs (re, im) of the part dtype on the last axis
        pairs = concat([unsqueeze(UNARY_FUNCTIONS[part](x), -1) for part in ("real", "imag")], axis=-1)
        x = reshape(pairs, tuple(x.shape[:-1]) + (2 * x.shape[-1],) if x.ndim else (2,))
        src = x.dtype
    target = _dt.real_dtype(dtype) if dtype.is_complex else dtype
    if not src.is_complex and not dtype.is_complex and (src.is_bool or not target.is_bool):
        bytes_read = _reinterpreted(x, target, out_shape)
        if bytes_read is not None:
            return bytes_read
    if src is target:
        out = x
    elif src.is_floating:
        out = bit_view_op(x, UNARY_FUNCTIONS["signbit"](x), dtype=target)
    else:
        out = bit_view_op(x, dtype=target)
    if dtype.is_complex:
        pairs = reshape(out, out_shape + (2,))
        out = complex_from_parts(getitem(pairs, (..., 0)), getitem(pairs, (..., 1)))
    return reshape(out, out_shape) if tuple(out.shape) != out_shape else out


def _reinterpreted(x: Tensor, dtype, shape: tuple):
    """``x``'s buffer read as ``dtype``: a view of the same bytes, nothing computed, every bit kept
    (NaN payloads, subnormals), as NumPy's view. For one array of values outside any transform
    (traced, batched or sharded values take the arithmetic above); a pending ``x`` is realized
    first. The two arrays share the bytes, and neither takes writes in place after. None where
    this does not apply. (Not to bool from other dtypes: a byte other than 0 or 1 is no bool MAX's
    kernels know.)"""
    impl = x._impl
    if impl.traced or impl.batch_dims or impl.sharding is not None or impl.tangents or impl.requires_grad \
            or type(impl._values) is not list or len(impl._values) != 1:
        return None
    impl.realize()
    value = impl._values[0]
    if value.buffer is None:
        return None
    give_up(value)  # (the two arrays share the bytes: no write may go into them in place)
    buffer = value.buffer.view(dtype.max_dtype, shape)
    return type(x)(TensorImpl([Value.leaf(buffer, shape, dtype, value.device)], dtype))


def put_back_bits(parent: Tensor, child: Tensor, src, dst) -> Tensor:
    """``parent`` (of dtype ``src``) after a write to its bit view ``child`` (of dtype ``dst``): the bytes
    the write changed, merged into the parent's; elements whose bytes did not change keep their exact
    value (a NaN's payload, a subnormal)."""
    shape = tuple(parent.shape)
    flat = reshape(parent, shape or (1,))
    new = bit_view(reshape(child, tuple(child.shape) or (1,)), _dt.uint8)
    old = bit_view(bit_view(flat, dst), _dt.uint8)
    base = bit_view(flat, _dt.uint8)
    changed = not_equal(new, old)
    merged = bit_view(where(changed, new, base), src)
    word = _UNSIGNED[src.itemsize]
    touched = not_equal(bit_view(new, word), bit_view(old, word))  # any byte of an element
    return reshape(where(touched, merged, flat), shape)
