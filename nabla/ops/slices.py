"""Basic slices of a tensor, recorded: a key of ints, slices of ints, ``None`` and ``...`` parsed
once per key and shape (``basic_keys.plain_key``), its slice one node whose keying memo is made once
per parse; a loop's ``x[i, :j]`` and a stencil's ``u[1:-1, 2:]`` (``aliasing.getitem`` makes
them views)."""

from __future__ import annotations

import weakref

import numpy as np

from ..core.operation import PLAIN_CLASSES, plain_array, recorded
from ..core.tensor import Tensor
from ..core.tensor_impl import TensorImpl
from ..core.trace_lowering import index_memo
from ..core.values import HostValue
from .basic_keys import plain_key
from .index_primitives import slice_op
from .picks import held_int
from .view import reshape_op


def is_basic(x: Tensor, key) -> bool:
    """Slices, integers, None and Ellipsis only; an integer per axis gives a copy (NumPy gives a scalar)."""
    parts = key if isinstance(key, tuple) else (key,)
    all_ints = True
    for k in parts:
        if isinstance(k, bool):
            return False
        if isinstance(k, int):
            continue
        all_ints = False
        if not (k is None or k is Ellipsis or isinstance(k, slice)):
            return False
        if isinstance(k, slice) and any(isinstance(v, Tensor) for v in (k.start, k.stop, k.step)):
            return False
    return not all_ints or len(parts) < x.ndim


def plain_slice(x: Tensor, key):
    """``x[key]`` for a key of ints, slices, ``None`` and ``...`` that is not one element (the common
    ``x[1:-1, j]``: one slice, parsed at once); None where the general path decides."""
    return parsed_slice(x, key)[0]


def parsed_slice(x: Tensor, key):
    """``(x[key], its parse, the key parsed)`` as ``plain_slice`` makes it (bounds of 0-d integer
    arrays read as their ints); ``(None, None, key)`` where it does not."""
    impl = x._impl
    if impl.batch_dims:
        return None, None, key
    plain = plain_key(impl.cached_shape, key)
    if plain is None:
        ints = int_bounds(key)
        if ints is None:
            return None, None, key
        plain = plain_key(impl.cached_shape, ints)
        if plain is None:
            return None, None, key
        key = ints
    return slice_of(x, plain), plain, key


def slice_of(x: Tensor, plain):
    """The slice of ``x`` a parse (``basic_keys.plain_key``) names, recorded: once per value, while
    it is pending (a stencil's ``un[1:-1, 1:-1]``, five times in one update, is one node)."""
    impl = x._impl
    index, after, same, whole, sizes, starts = plain
    if whole and (after == impl.cached_shape or impl._values[0].node is not None):  # the whole of x
        return x if after == impl.cached_shape else reshape_op.apply_unary(x, {"shape": after})
    # (the whole of realized x with axes added, ``w[np.newaxis, :, :]``: a slice node, which an op at
    # once reads where a reshape node is recorded)
    if impl.sharding is not None:
        out = slice_op.apply_unary(x, {"index": index})
        return out if after == out._impl.cached_shape else reshape_op(out, shape=after)
    key = index if same else (index, after)
    kept = impl.slices
    cls = type(x)
    plain_x = not impl.traced and impl.tangents is None and cls in PLAIN_CLASSES
    if kept is not None and plain_x:
        ref = kept.get(key)
        v = None if ref is None else ref()
        if v is not None and v.node is not None:
            return plain_array(cls, TensorImpl([v], impl.dtype))
    values = impl._values
    if plain_x and after and len(values) == 1 and not impl.dtype.is_complex and not impl.batch_dims:
        # (``apply_shaped``'s node, made here: a loop takes a slice per step, ``x[i, :j]``)
        source = values[0]
        node = source.node
        if node is not None and node.op is slice_op and node.inputs[0].node is None:
            found = _composed(node, index, impl.cached_shape)
            if found is not None:  # (a slice of a slice of realized data: one slice of that data)
                return recorded(cls, slice_op, {"index": found[0], "shape": after}, node.inputs, after, impl.dtype,
                                source.device, 0, index_memo(found[1], found[2], after))
        out = recorded(cls, slice_op, {"index": index} if same else {"index": index, "shape": after},
                       (source,), after, impl.dtype, source.device, 0, slice_memo(plain))
        if kept is None or len(kept) >= _SLICES_KEPT:
            kept = impl.slices = {}
        kept[key] = weakref.ref(out._impl._values[0])
        return out
    if same:
        out = slice_op.apply_shaped((x,), {"index": index}, after, index_memo(sizes, starts))
    else:  # ints' axes dropped, None's added: one op
        out = slice_op.apply_shaped((x,), {"index": index, "shape": after}, after, index_memo(sizes, starts, after))
    o = out._impl
    v = o._values[0]
    if v.node is not None and v.node.inputs[0] is impl._values[0] and not o.traced and o.tangents is None \
            and type(x) in PLAIN_CLASSES:
        if kept is None or len(kept) >= _SLICES_KEPT:
            kept = impl.slices = {}
        kept[key] = weakref.ref(v)  # (weak: a reference would count as a use of the slice at its read)
    return out


def composed_axis(start: int, step: int, at: int, stop: int, by: int) -> tuple:
    """``(start, stop, step, count)`` in the parent's axis of the slice ``(at, stop, by)`` of an
    axis that the slice ``(start, _, step)`` of the parent's gives (NumPy's view of a view; bounds
    as ``range`` takes them)."""
    count = len(range(at, stop, by))
    begin, stride = start + at * step, step * by
    return begin, begin + count * stride, stride, count


def _composed(node, index, shape):
    """(index, sizes, starts) over the source of slice ``node`` of the slice ``index`` (per axis of
    its result, of ``shape``) of it (``x[:, 0][1:]``, a row's ``[::-1][1:4]``; an int or a ``None``
    in either key): ops at once read it as any slice of realized data, where a slice of a slice
    was a copy; None where a selection is empty (the general path's)."""
    picked = iter([(a, b, c) for (a, b, c), n in zip(index, shape) if n != 1])
    for (a, b, c), n in zip(index, shape):
        if n == 1 and len(range(a, b, c)) != 1:
            return None
    out, sizes, starts = [], [], []
    for a, b, c in node.kwargs["index"]:  # (the axes longer than 1, in order, are the result's)
        n = len(range(a, b, c))
        if n != 1:
            a, b, c, n = composed_axis(a, c, *next(picked))
            if not n:
                return None
        out.append((a, b, c))
        sizes.append((n, c))
        starts.append(a)
    return tuple(out), tuple(sizes), tuple(starts)


#: the most slices of one value ``slice_of`` keeps (a sliding window meets a new one every step)
_SLICES_KEPT = 64
#: id of a key's parse (``plain_key`` keeps it) -> [the parse, its slice's memo, its write's memo],
#: each made at its first ask; a few hundred parses (a key parsed anew at each step, a convolution's
#: ``x[:, i:i + k, j:j + k, :, None]``, passes through: kept longer, it cost such a loop a twentieth)
_NODE_MEMOS: dict = {}
_MEMOS_KEPT = 256


def slice_memo(plain, write: bool = False) -> tuple:
    """The keying memo of the node of a key's parse (``trace_lowering.index_memo``): its slice's,
    or (``write``) its slice write's; made once per parse kept by ``plain_key`` (a loop's
    ``x[i, :j]`` meets one parse per (i, j))."""
    found = _NODE_MEMOS.get(id(plain))
    if found is None or found[0] is not plain:
        if len(_NODE_MEMOS) >= _MEMOS_KEPT:
            _NODE_MEMOS.clear()
        found = _NODE_MEMOS[id(plain)] = [plain, None, None]
    memo = found[1 + write]
    if memo is None:
        _, after, same, _, sizes, starts = plain
        memo = found[1 + write] = index_memo(sizes, starts, None if write or same else after)
    return memo


def int_bounds(key):
    """``key`` with the 0-d integer arrays and NumPy integers among its slices' bounds as the ints
    they hold, as NumPy reads them (``A_col[A_row[i]:A_row[i + 1]]``); None where it has none."""
    parts = key if type(key) is tuple else (key,)
    found = False
    out = []
    for k in parts:
        if type(k) is slice and any(isinstance(b, (Tensor, np.integer)) for b in (k.start, k.stop, k.step)):
            bounds = []
            for b in (k.start, k.stop, k.step):
                if isinstance(b, Tensor):
                    held = _picked_int(b)
                    if held is not None:
                        bounds.append(held)
                        continue
                    if b.dtype.is_bool:  # (NumPy's bool has no ``__index__``)
                        raise TypeError(f"nabla.getitem: slice indices must be integers or None or have an "
                                        f"__index__ method (got a bool array of shape {b.shape})")
                    if b.ndim or not b.dtype.is_integer or b._impl.batch_dims:
                        return None
                    b = int(b)
                elif isinstance(b, np.integer):
                    b = int(b)
                bounds.append(b)
            k = slice(*bounds)
            found = True
        out.append(k)
    return (tuple(out) if type(key) is tuple else out[0]) if found else None


def _picked_int(b):
    """The int a picked 0-d integer element of host data holds (``A_row[i]``: NumPy's integer kept
    by the pick), read without the general scalar read; None for anything else."""
    impl = b._impl
    values = impl._values
    if len(values) != 1 or impl.batch_dims:
        return None
    v = values[0]
    host = v.host if type(v) is HostValue and not v.shape else None
    return int(host) if isinstance(host, np.integer) else None


def host_int_indices(key):
    """``key`` with its 0-d integer arrays of realized host data as the ints they hold (npbench's
    ``G[k, E - w, neigh_idx[a, b]]``), where the rest is ints, slices of ints, None and ``...``;
    None otherwise. Such an index is NumPy's integer, its result a copy (never a view)."""
    parts = key if type(key) is tuple else (key,)
    out = []
    found = False
    for k in parts:
        if isinstance(k, Tensor):
            k = held_int(k)
            if k is None:
                return None
            found = True
        elif not (type(k) is int or type(k) is slice or k is None or k is Ellipsis):
            return None
        out.append(k)
    return tuple(out) if found else None
