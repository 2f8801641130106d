"""``as_strided`` and ``sliding_window_view`` as gathers on MAX, and ``broadcast_to``.

MAX arrays have no user-visible memory: a strided window is computed, not aliased. ``as_strided``
reads ``strides`` in bytes of the memory the array views (``x.strides``: a C-ordered array's own, a
view's over its base's, as NumPy's), turns them into element offsets on the host (a table of the
result's size) and gathers that memory, flattened, at them. Both
results are read-only views: they see later writes to ``x``, and a write to them raises, since no
element of them owns a place in ``x``'s memory.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as _np

from ... import array_api as _xp
from ...ops.view import reshape as _reshape
from ...ops import aliasing
from ...ops.base import tensor_from_host
from ...ops.view_layout import memory_layout
from .._arrays import broadcast_arrays, broadcast_to  # noqa: F401
from .._indexing import sliding_window_view  # noqa: F401
from .. import _dtypes as D
from .._ndarray import ndarray

_DEFAULT = object()


def _ints(values, what: str, op: str) -> tuple:
    values = (values,) if isinstance(values, numbers.Integral) else tuple(values)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"nabla.numpy.{op}: {what} must be integers, got {values!r}")
    return tuple(int(v) for v in values)


def as_strided(x, shape=None, strides=None, subok=False, writeable=_DEFAULT):
    """NumPy's ``as_strided`` for the read-only windows it builds: element ``i`` of the result is
    ``x.ravel()[sum(i_k * strides_k) // itemsize]``. Strides must be multiples of the itemsize and
    every window must lie inside ``x`` (NumPy would read memory past it); the result is read-only
    (``writeable=True`` warns: writes cannot reach ``x``)."""
    op = "lib.stride_tricks.as_strided"
    a = D.asarray(x, op=op)
    shape = tuple(a.shape) if shape is None else _ints(shape, "shape", op)
    strides = a.strides if strides is None else _ints(strides, "strides", op)
    if len(shape) != len(strides):
        raise ValueError(f"nabla.numpy.{op}: shape {shape} and strides {strides} must have the same length")
    if any(n < 0 for n in shape):
        raise ValueError(f"nabla.numpy.{op}: negative dimensions are not allowed (shape {shape})")
    size = a.dtype.itemsize
    if any(s % size for s in strides):
        raise ValueError(f"nabla.numpy.{op}: strides {strides} must be multiples of the itemsize {size} of "
                         f"{a.dtype.name} (array of shape {a.shape})")
    if writeable is True:
        warnings.warn(f"nabla.numpy.{op}: the result is read-only on MAX (a gathered copy that sees writes to x; "
                      f"writes to it cannot reach x)", UserWarning, stacklevel=2)
    steps = [s // size for s in strides]
    # (a view's strides are over the memory it views, as NumPy's: the offsets are into that array's,
    # from the view's first element)
    found = memory_layout(a)
    base, first = (a, 0) if found is None else (found[0], found[2])
    offsets = _np.full(shape, first, dtype=_np.int64)
    for k, (n, step) in enumerate(zip(shape, steps)):  # the offset table, by broadcasting one axis at a time
        offsets = offsets + (_np.arange(n, dtype=_np.int64) * step).reshape((n,) + (1,) * (len(shape) - k - 1))
    total = math.prod(base.shape)
    if offsets.size and (offsets.min() < 0 or offsets.max() >= total):
        raise ValueError(f"nabla.numpy.{op}: shape {shape} with strides {strides} reaches element "
                         f"{int(offsets.min() if offsets.min() < 0 else offsets.max())}, outside the {total} "
                         f"elements of the memory of the array of shape {a.shape} {a.dtype.name}")
    a = base
    if offsets.size == 0:
        def empty(p):
            return ndarray(_xp.zeros(shape, dtype=p.dtype, device=p.device)._impl)

        return aliasing.read_only_view(a, empty(a), empty)
    index = tensor_from_host(offsets.reshape(-1), a.device)

    def derive(p):
        return ndarray(_reshape(_xp.take(_reshape(p, (-1,)), index, axis=0), shape)._impl)

    return aliasing.read_only_view(a, derive(a), derive)


__all__ = ["as_strided", "broadcast_arrays", "broadcast_to", "sliding_window_view"]
