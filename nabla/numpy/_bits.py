"""``packbits`` and ``unpackbits`` on MAX: bits as multiples of powers of two (MAX has no bitwise ops),
eight to a uint8, padded with zeros to a whole byte."""

from __future__ import annotations

import numpy as _np

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core import dtypes as _dt
from ..ops.elementwise import astype as _astype
from . import _dtypes as D


def _weights(bitorder: str, op: str):
    if bitorder not in ("big", "little"):
        raise ValueError(f"nabla.numpy.{op}: 'order' must be either 'little' or 'big', got {bitorder!r}")
    w = [1 << k for k in range(8)]
    return _np.array(w[::-1] if bitorder == "big" else w, dtype=_np.uint8)


def _axis(a, axis, op: str):
    """``a`` with the packed axis last (flattened when ``axis`` is None), and the map back."""
    if axis is None:
        return _reshape(a, (-1,)), lambda r: r
    if not -a.ndim <= axis < max(a.ndim, 1):
        raise _np.exceptions.AxisError(f"nabla.numpy.{op}: axis {axis} is out of bounds for array of dimension "
                                       f"{a.ndim} (shape {a.shape})")
    axis %= a.ndim
    return _xp.moveaxis(a, axis, -1), lambda r: _xp.moveaxis(r, -1, axis)


def packbits(a, /, axis=None, bitorder="big"):
    """Elements' truth values, eight to a uint8 (the first in the high bit for ``bitorder='big'``)."""
    x = D.asarray(a, op="packbits")
    if not (x.dtype.is_integer or x.dtype.is_bool):
        raise TypeError(f"nabla.numpy.packbits: expected an input array of integer or boolean data type, got "
                        f"{x.dtype.name} (shape {x.shape})")
    weights = _weights(bitorder, "packbits")
    x, back = _axis(x, axis, "packbits")
    n = x.shape[-1]
    m = -(-n // 8)
    bits = _astype(x != 0, _dt.uint8)
    if 8 * m != n:
        bits = _xp.concat([bits, _xp.zeros(x.shape[:-1] + (8 * m - n,), dtype=_dt.uint8)], axis=-1)
    groups = _reshape(bits, x.shape[:-1] + (m, 8))
    packed = _xp.sum(groups * D.asarray(weights, op="packbits"), axis=-1)  # disjoint bits: a sum is an or
    return back(_astype(packed, _dt.uint8))


def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """Each uint8 as its eight bits (the high bit first for ``bitorder='big'``); ``count`` keeps that many
    along the axis (negative: drops from the end; more than there are: pads with zeros)."""
    x = D.asarray(a, op="unpackbits")
    if x.dtype is not _dt.uint8:
        raise TypeError(f"nabla.numpy.unpackbits: expected an input array of unsigned byte data type, got "
                        f"{x.dtype.name} (shape {x.shape})")
    weights = _weights(bitorder, "unpackbits")
    x, back = _axis(x, axis, "unpackbits")
    n = 8 * x.shape[-1]
    shifted = _xp.floor_divide(_reshape(x, x.shape + (1,)), D.asarray(weights, op="unpackbits"))
    bits = _reshape(shifted % _np.uint8(2), x.shape[:-1] + (n,))
    if count is not None:
        count = int(count)
        keep = count if count >= 0 else n + count
        if keep < 0:
            raise ValueError(f"nabla.numpy.unpackbits: -count larger than number of elements ({count} of {n})")
        if keep < n:
            bits = D.axis_range(bits, -1, 0, keep)
        elif keep > n:
            bits = _xp.concat([bits, _xp.zeros(x.shape[:-1] + (keep - n,), dtype=_dt.uint8)], axis=-1)
    return back(bits)


__all__ = ["packbits", "unpackbits"]
