"""Boolean masks as positions: ``nonzero`` (its count read, its columns computed with it) and the
flat positions of a mask of an array's whole shape, which ``x[x > 0]`` and ``x[m] = v`` gather and
scatter at."""

from __future__ import annotations

import math
import weakref

import numpy as np

from ..core import dtypes as _dt
from ..core.at_once import small_at_once
from ..core.graph import GRAPH
from ..core.operation import plain_array, plain_values
from ..core.tensor import Tensor
from ..core.values import watch
from .base import tensor_from_host
from .casts import astype
from .index_primitives import nonzero_op, slice_op
from .reduction import sum as reduce_sum
from .view import reshape


#: a mask's value (its TensorImpl, which a write replaces) -> its realized columns: ``x[m] = x[m] *
#: 2`` and mandelbrot's ``N[I] = n; Z[I] = Z[I] ** 2 + C[I]`` index with one mask several times, and
#: each nonzero reads its count and runs its columns
_NONZERO: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


#: a mask's value -> its raveled nonzero column (``whole_mask``), as ``_NONZERO`` keeps its columns
_FLAT_NONZERO: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def nonzero(x: Tensor) -> tuple[Tensor, ...]:
    """Indices of the nonzero elements, one int64 tensor per axis (realizes the count)."""
    impl = x._impl
    known = _NONZERO.get(impl)
    if known is not None:  # (new tensors of the same values: a caller may write into its own)
        return tuple(Tensor(c) if cls is Tensor else cls(c) for cls, c in known)
    if x.ndim == 0:
        raise ValueError("nabla.nonzero: 0-d tensors are not supported; use atleast_1d first")
    cols = _nonzero(x)
    if not (impl.traced or impl.batch_dims or impl.tangents is not None or impl.sharding is not None) \
            and all(c._impl.is_realized for c in cols) and _kept_while_unwritten(impl, _NONZERO):
        _NONZERO[impl] = tuple((type(c), c._impl) for c in cols)
    return cols


def _kept_while_unwritten(impl, cache) -> bool:
    """Whether mask ``impl``'s positions may be kept in ``cache``: its data is realized memory (or a
    slice of it) whose in-place writes (``m[5] = True``, a write into the array it views) drop the
    entry (``values.watch``), or pending work, which a write replaces rather than changes."""
    values = impl._values
    if type(values) is not list or len(values) != 1:
        return False
    v = values[0]
    node = v.node
    if node is not None:
        if node.op is not slice_op or len(node.inputs) != 1:
            return True  # (computed from values a write into their memory would copy first)
        v = node.inputs[0]
        if v.node is not None:
            return True
    ref = weakref.ref(impl)
    watch(v, lambda: cache.pop(ref(), None) if ref() is not None else None)
    return True


def _nonzero(x: Tensor) -> tuple[Tensor, ...]:
    mask = x if x.dtype.is_bool else (x != 0)
    count = int(reduce_sum(astype(mask, _dt.int64)).item())
    size = tensor_from_host(np.zeros(count, np.uint8), mask.device)
    if mask.ndim == 1:
        positions = _positions_at_once(mask, size)
        if positions is not None:
            return (positions,)
    cols = nonzero_op(mask, size)
    if not any(c._impl.traced or c._impl.batch_dims for c in cols):
        # computed now, all columns in one run: the count was just read anyway, and columns realized
        # one by one would each ask for a model of their own (and run the op again)
        GRAPH.evaluate([c._impl for c in cols])
    return tuple(cols)


def _positions_at_once(mask: Tensor, size: Tensor):
    """The true positions of a 1-D mask of realized host data (or a small slice of it), computed at
    once (one kernel call, where a read of the recorded op ran the engine: a loop's ``x[m] = x[m] -
    4`` each step, azimint's ``data[(lo <= r) & (r < hi)]``, one program for every count); None
    where they are recorded."""
    values = plain_values(mask, size)
    if values is None:
        return None
    out = small_at_once(nonzero_op, {}, values, (mask._impl, size._impl), values[1].shape, _dt.int64,
                        values[0].device, any_first=True)
    return None if out is None else plain_array(type(mask), out)


def whole_mask(x: Tensor, entries):
    """The flat positions of a key that is one boolean mask of ``x``'s shape (``x[x > 0]``, ``x[m] =
    v``), one column of the raveled mask's nonzero (indices in range by construction: no bounds to
    check, no per-axis columns to ravel); None for any other key."""
    if len(entries) != 1 or entries[0][0] != "bool":
        return None
    mask = entries[0][1]
    if not isinstance(mask, Tensor) or mask.ndim == 0 or mask.shape != x.shape or mask.batch_dims \
            or x.batch_dims or x._impl.sharding is not None or mask._impl.sharding is not None:
        return None
    known = _FLAT_NONZERO.get(mask._impl)
    if known is not None:
        return Tensor(known)
    (flat,) = _nonzero(reshape(mask, (math.prod(mask.shape),)))
    if not mask._impl.traced and flat._impl.is_realized and _kept_while_unwritten(mask._impl, _FLAT_NONZERO):
        _FLAT_NONZERO[mask._impl] = flat._impl
    return flat
