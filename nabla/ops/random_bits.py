"""Counter-based random bits on MAX: Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random
numbers: as easy as 1, 2, 3", SC 2011).

Element ``i`` of a draw is the Philox block of counter ``(start + i, stream)`` under a 64-bit key, so a
value depends only on (key, counter): never on how the work is split or on the device. The rounds are
whole-array uint64 ops (32 x 32 -> 64-bit products, shifts, xors), so MAX fuses them when it compiles and
the interpreter runs them on first sight. The key schedule is computed on the host (Python ints).
"""

from __future__ import annotations

import math

import numpy as np

from ..core import dtypes as _dt
from ..core.tensor import Tensor
from .base import tensor_from_host
from .creation import arange
from .elementwise import BINARY_FUNCTIONS as _B, astype
from .view import reshape

_M0, _M1 = 0xD2511F53, 0xCD9E8D57  # round multipliers
_W0, _W1 = 0x9E3779B9, 0xBB67AE85  # Weyl key increments
_MASK32 = 0xFFFFFFFF
_ROUNDS = 10


def philox_blocks(key: tuple[int, int], start: int, n: int, stream: int = 0, device=None) -> list[Tensor]:
    """Four uint64 tensors of length ``n`` holding 32-bit words: Philox4x32-10 of counters start..start+n-1."""
    u64 = _dt.uint64
    idx = arange(n, dtype=u64, device=device)
    # the start counter is data, not a constant: repeated draws of one shape are one structure, which
    # the engine compiles on its second sight like any repeated work
    idx = idx + tensor_from_host(np.array([start], dtype=np.uint64), device)
    c0 = _B["bitwise_and"](idx, _MASK32)
    c1 = 0 if start + n <= _MASK32 else _B["bitwise_right_shift"](idx, 32)
    c2, c3 = stream & _MASK32, (stream >> 32) & _MASK32
    k0, k1 = key[0] & _MASK32, key[1] & _MASK32
    for _ in range(_ROUNDS):
        hi0, lo0 = _mulhilo(c0, _M0)
        hi1, lo1 = _mulhilo(c2, _M1)
        c0, c1, c2, c3 = _xor(hi1, c1, k0), lo1, _xor(hi0, c3, k1), lo0
        k0, k1 = (k0 + _W0) & _MASK32, (k1 + _W1) & _MASK32
    return [w if isinstance(w, Tensor) else _B["multiply"](idx, 0) + w for w in (c0, c1, c2, c3)]


def _mulhilo(c, m: int):
    """The high and low 32-bit halves of the 64-bit product ``c * m`` (constants stay on the host)."""
    if isinstance(c, int):
        p = c * m
        return p >> 32, p & _MASK32
    p = _B["multiply"](c, m)
    return _B["bitwise_right_shift"](p, 32), _B["bitwise_and"](p, _MASK32)


def _xor(*words):
    const = 0
    out = None
    for w in words:
        if isinstance(w, int):
            const ^= w
        else:
            out = w if out is None else _B["bitwise_xor"](out, w)
    if out is None:
        return const
    return _B["bitwise_xor"](out, const) if const else out


def values_per_counter(dtype, kind: str = "uniform") -> int:
    """How many values one Philox block (four 32-bit words) gives: 4 float32 uniforms, else 2."""
    return 4 if kind == "uniform" and dtype is _dt.float32 else 2


def counters_for(n: int, dtype, kind: str = "uniform") -> int:
    k = values_per_counter(dtype, kind)
    return -(-n // k)


def _interleave(parts: list[Tensor], n: int, shape) -> Tensor:
    """Value j of a draw comes from counter j // k, word group j % k (k = len(parts))."""
    from .multi_output import concat

    cols = [reshape(p, (-1, 1)) for p in parts]
    flat = reshape(concat(cols, axis=1), (-1,))
    if flat.shape[0] != n:
        from . import indexing

        flat = indexing.getitem(flat, slice(0, n))
    return reshape(flat, tuple(shape))


def uniform_bits(key, start: int, shape, dtype, device=None) -> Tensor:
    """Uniform floats in [0, 1) of ``dtype`` (float32: 24 random bits per word; float64: 53 per word pair)."""
    n = math.prod(shape)
    w = philox_blocks(key, start, counters_for(n, dtype), device=device)
    if dtype is _dt.float32:
        parts = [_to_unit(word, None, dtype) for word in w]
    else:
        parts = [_to_unit(w[0], w[1], dtype), _to_unit(w[2], w[3], dtype)]
    return _interleave(parts, n, shape)


def _to_unit(hi: Tensor, lo, dtype) -> Tensor:
    shr, bor, shl = _B["bitwise_right_shift"], _B["bitwise_or"], _B["bitwise_left_shift"]
    if dtype is _dt.float32:
        return astype(astype(shr(hi, 8), _dt.int64), _dt.float32) * (1.0 / (1 << 24))
    bits53 = bor(shl(shr(hi, 11), 32), lo)  # 21 high bits of one word above 32 of the other
    return astype(astype(bits53, _dt.int64), _dt.float64) * (1.0 / (1 << 53))


def normal_bits(key, start: int, shape, dtype, device=None) -> Tensor:
    """Standard normals by Box and Muller (1958): two per counter (r cos t, r sin t)."""
    from .elementwise import UNARY_FUNCTIONS as _U

    n = math.prod(shape)
    w = philox_blocks(key, start, counters_for(n, dtype, "normal"), device=device)
    u1 = _to_unit(w[0], w[1], _dt.float64)
    u2 = _to_unit(w[2], w[3], _dt.float64)
    radius = _U["sqrt"](-2.0 * _U["log1p"](-u1))  # log(1 - u1): u1 in [0, 1) never reaches log(0)
    angle = u2 * (2.0 * math.pi)
    z = _interleave([radius * _U["cos"](angle), radius * _U["sin"](angle)], n, shape)
    return z if dtype is _dt.float64 else astype(z, dtype)
