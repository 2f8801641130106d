"""Indexing: ``x[key]`` and ``x[key] = v`` with NumPy's rules, lazily on MAX.

Basic keys (ints, slices of any step, ``...``, ``None``) become one ``SliceOp``;
integer arrays become a ``GatherOp`` on the flattened indexed axes; boolean masks
become integer arrays through ``nonzero`` (a data-dependent shape: the mask's
count is realized). ``__setitem__`` is functional underneath: the facade is
rebound to a new lazy value made by ``SetSliceOp``, ``ScatterOp`` or ``where``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..core import dtypes as _dt
from ..core.at_once import small_at_once
from ..core.operation import plain_array, plain_values
from ..core.tensor import Tensor
from ..core.tensor_impl import plain_host
from .casts import cast_op
from .index_primitives import gather_op, scatter_op, set_slice_op, slice_op
from .masks import nonzero, whole_mask
from .picks import element_from_host
from ..core.graph import host_view
from ._physical import batch_dims_to_logical, common_batch_shape, logical_to_batch_dims, with_batch_dims_as_logical
from .base import broadcast_shapes, normalize_axis
from .broadcasting import broadcast_physical, broadcast_to
from .creation import asarray, zeros
from .elementwise import BINARY_FUNCTIONS as B, astype, where
from .ranges import arange
from .view import inverse_perm, permute_dims, reshape, reshape_op


# --- parsing keys -------------------------------------------------------------

def _is_int(k) -> bool:
    return isinstance(k, (numbers.Integral, np.integer)) and not isinstance(k, (bool, np.bool_))


def _as_index_tensor(k, device):
    if isinstance(k, Tensor):
        return k
    arr = np.asarray(k)
    if arr.dtype.kind not in "biu" and arr.size:
        raise IndexError(f"nabla.getitem: only integers, slices, ..., None and integer or boolean arrays are "
                         f"valid indices, got {k!r:.60}")
    if arr.size == 0 and arr.dtype.kind == "f":
        arr = arr.astype(np.int64)
    return asarray(arr, device=device)


def _parse(x: Tensor, key, op: str):
    """Split a key into entries: ('int', i) ('slice', sl) ('none',) ('array', Tensor) ('bool', Tensor)."""
    if not isinstance(key, tuple):
        key = (key,)
    entries = []
    for k in key:
        if k is None:
            entries.append(("none",))
        elif k is Ellipsis:
            entries.append(("ellipsis",))
        elif isinstance(k, slice):
            for part in (k.start, k.stop, k.step):
                # (Python's bool is an int there, as its ``__index__`` says: ``a[True:]``; NumPy's is not)
                if part is not None and not _is_int(part) and type(part) is not bool \
                        and not (isinstance(part, Tensor) and part.ndim == 0):
                    raise TypeError(f"nabla.{op}: slice bounds must be integers or None, got {k!r}")
            entries.append(("slice", slice(*(None if p is None else int(p) for p in (k.start, k.stop, k.step)))))
        elif isinstance(k, (bool, np.bool_)):
            entries.append(("bool", k))
        elif _is_int(k):
            entries.append(("int", int(k)))
        elif isinstance(k, Tensor) and k.ndim == 0 and k.dtype.is_integer and not k.batch_dims:
            entries.append(("int", int(k)))
        else:
            t = _as_index_tensor(k, x.device)
            if t.dtype.is_bool:
                entries.append(("bool", t))
            elif t.dtype.is_integer:
                entries.append(("array", t))
            else:
                raise IndexError(f"nabla.{op}: arrays used as indices must be integer or boolean, got {t.dtype}")
    if sum(1 for e in entries if e[0] == "ellipsis") > 1:
        raise IndexError(f"nabla.{op}: an index can only have a single ellipsis ('...')")
    consumed = sum(1 if e[0] in ("int", "slice", "array") else
                   (e[1].ndim if e[0] == "bool" and isinstance(e[1], Tensor) else 0) for e in entries)
    if consumed > x.ndim:
        raise IndexError(f"nabla.{op}: too many indices for a tensor of rank {x.ndim} (shape {x.shape}): {key!r:.80}")
    out, filled = [], False
    for e in entries:
        if e[0] == "ellipsis":
            out.extend([("slice", slice(None))] * (x.ndim - consumed))
            filled = True
        else:
            out.append(e)
    if not filled:
        out.extend([("slice", slice(None))] * (x.ndim - consumed))
    return out


def _expand_bools(x: Tensor, entries, op: str):
    """Boolean masks become integer arrays (one per masked axis); scalar bools add an axis."""
    out, axis = [], 0
    for e in entries:
        if e[0] == "bool" and (not isinstance(e[1], Tensor) or e[1].ndim == 0):
            # x[True] adds an axis of 1; x[False] an axis of 0
            out.append(("none",) if bool(e[1]) else ("empty",))
            continue
        if e[0] == "bool":
            mask = e[1]
            if mask.batch_dims:
                raise ValueError(f"nabla.{op}: a boolean mask that varies under vmap selects a data-dependent "
                                 f"number of elements per example; use where(mask, ...) instead")
            shape = x.shape[axis:axis + mask.ndim]
            # an empty mask axis selects nothing whatever the size it stands for (array-api-tests agrees)
            if len(shape) != mask.ndim or any(m not in (n, 0) for m, n in zip(mask.shape, shape)):
                raise IndexError(f"nabla.{op}: boolean index of shape {mask.shape} does not match the indexed "
                                 f"axes {shape} of shape {x.shape}")
            coords = nonzero(mask)
            out.extend(("array", c) for c in coords)
            axis += mask.ndim
            continue
        out.append(e)
        if e[0] in ("int", "slice", "array"):
            axis += 1
    return out


def _basic(x: Tensor, entries, op: str):
    """Apply the basic entries; returns the view and, per remaining axis, what it came from."""
    impl = x._impl
    b = impl.batch_dims
    index = [(0, n, 1) for n in impl.batch_shape]
    shape_after = list(impl.batch_shape)
    axis = 0
    for e in entries:
        kind = e[0]
        if kind == "none":
            shape_after.append(1)
        elif kind == "empty":
            shape_after.append(0)
        elif kind == "int":
            n = impl.shape[axis]
            i = e[1]
            if not -n <= i < n:
                raise IndexError(f"nabla.{op}: index {i} is out of bounds for axis {axis} with size {n} "
                                 f"(shape {impl.shape})")
            i %= n
            index.append((i, i + 1, 1))
            axis += 1
        elif kind == "slice":
            n = impl.shape[axis]
            if e[1].step == 0:
                raise ValueError(f"nabla.{op}: slice step cannot be zero")
            start, stop, step = e[1].indices(n)
            index.append((start, stop, step))
            shape_after.append(len(range(start, stop, step)))
            axis += 1
        else:  # arrays are applied after the basic part; keep their axis whole
            n = impl.shape[axis]
            index.append((0, n, 1))
            shape_after.append(n)
            axis += 1
    index = tuple(index)
    if all(sl == (0, n, 1) for sl, n in zip(index, impl.cached_shape)):
        y = x
    else:
        y = slice_op(x, index=index)
    if tuple(shape_after) != y._impl.cached_shape:
        if 0 in shape_after and math.prod(y._impl.cached_shape) != 0:
            y = _empty_like(y, shape_after, b)
        else:
            y = reshape_op(y, shape=tuple(shape_after))
    return y, index


def _empty_like(y, shape, b):
    z = zeros(tuple(shape[b:]), dtype=y.dtype, device=y.device)
    if b:
        z = broadcast_physical(z, tuple(shape), b)
    return z


def _array_positions(entries):
    """Logical output axes the array entries occupy after the basic step."""
    pos, axis = [], 0
    for e in entries:
        if e[0] in ("none", "empty", "slice"):
            axis += 1
        elif e[0] == "array":
            pos.append(axis)
            axis += 1
    return pos


def _linear_index(y: Tensor, positions, arrays, op: str):
    """Broadcast the integer arrays, wrap negatives, check bounds (now, where the indices are host
    memory already, as NumPy does), and ravel them."""
    shape = broadcast_shapes(*(a.shape for a in arrays), op=op)
    flat = None
    for p, a in zip(positions, arrays):
        n = y.shape[p]
        a = _index_column(a, n, p, op)
        if a.shape != shape:
            a = broadcast_to(a, shape)
        flat = a if flat is None else flat * n + a
    return flat, shape


def check_bounds(a: Tensor, n: int, axis: int, op: str, negative: bool = True):
    """NumPy's IndexError where integer indices ``a`` leave an axis of size ``n`` (from ``-n`` on,
    where ``negative``), checked now where they are host memory already, as NumPy checks them at
    the call; their least value where they are (None where they are not, or there are none)."""
    host = _host_values(a)
    if host is None or not host.size:
        return None
    low, high = host.min(), host.max()
    if high >= n or low < (-n if negative else 0):
        raise IndexError(f"nabla.{op}: index out of bounds for axis {axis} with size {n}: index "
                         f"{high if high >= n else low} (indices range {low}..{high})")
    return low


def _index_column(a: Tensor, n: int, axis: int, op: str, any_dtype: bool = False) -> Tensor:
    """Integer indices ``a`` into an axis of size ``n`` as int64 indices in range: checked now where
    they are host memory already (as NumPy does), negatives wrapped. ``any_dtype``: such checked
    host indices, none negative, keep their dtype (the caller gathers at once, or casts)."""
    wrap = a.dtype.kind == "i"
    low = check_bounds(a, n, axis, op)
    if low is not None:
        wrap = low < 0  # (indices known to be in range: two ops fewer, ``x[cols]`` in a loop)
        if any_dtype and not wrap:
            return a
    elif a.size and n == 0:
        raise IndexError(f"nabla.{op}: cannot index into axis {axis} of size 0")
    if a.dtype is not _dt.int64:
        a = cast_op.apply_unary(a, {"dtype": _dt.int64})
    if wrap:
        a = where(B["less"](a, 0), a + n, a)
    return a


def gather_rows(x: Tensor, idx: Tensor):
    """``x[idx]`` for an integer array ``idx`` (``x[cols]`` in a CSR loop): one gather along the
    first axis, without the general parse; None where the general path decides."""
    ix, ii = x._impl, idx._impl
    if not ii.dtype.is_integer or ii.dtype.is_bool or not ix.cached_shape or ix.batch_dims or ii.batch_dims \
            or ix.sharding is not None or ii.sharding is not None or not ii.cached_shape:
        return None
    column = _index_column(idx, ix.cached_shape[0], 0, "getitem", any_dtype=True)
    if column.dtype is not _dt.int64:  # (host indices in range, of another dtype: CSR's int32 columns)
        out = _rows_at_once(x, column)
        if out is not None:
            return out
        column = cast_op.apply_unary(column, {"dtype": _dt.int64})
    return gather_op.apply_binary(x, column, {"axis": 0})


def _rows_at_once(x: Tensor, idx: Tensor):
    """``x[idx]`` of host data at once, the indices (checked host memory) read in their own dtype:
    one program where a cast to int64 first would be two. None where it is recorded."""
    ix, ii = x._impl, idx._impl
    values = None if ix.dtype.is_complex else plain_values(x, idx)
    if values is None:
        return None
    out = small_at_once(gather_op, {"axis": 0}, values, (ix, ii), ii.cached_shape + ix.cached_shape[1:],
                        ix.dtype, values[0].device)
    return None if out is None else plain_array(type(x), out)


def _host_values(a: Tensor):
    """An index array's values where they are host memory already (realized, or a slice of realized
    host data: ``A_col[lo:hi]``), read without computing anything; None elsewhere."""
    impl = a._impl
    if len(impl._values) != 1 or not plain_host(impl):
        return None
    value = impl._values[0]
    node = value.node
    if node is None:
        return host_view(value)
    source = node.inputs[0] if node.op is slice_op else None
    if source is None or source.node is not None or any(c < 1 for _, _, c in node.kwargs["index"]):
        return None
    return host_view(source)[tuple(slice(*t) for t in node.kwargs["index"])].reshape(value.shape)


def getitem(x: Tensor, key) -> Tensor:
    op = "getitem"
    raw = _parse(x, key, op)
    flat = whole_mask(x, raw)
    if flat is not None:  # ``x[x > 0]``: the raveled x at the mask's flat positions
        return gather_op(reshape(x, (math.prod(x.shape),)), flat, axis=0)
    entries = _expand_bools(x, raw, op)
    if not any(e[0] == "array" for e in entries):
        element = element_from_host(x, entries)
        return _basic(x, entries, op)[0] if element is None else element
    # beside integer arrays an integer is one more (0-d) array: NumPy places the result's axes by that
    entries = [("array", _int_tensor(e[1], x.device)) if e[0] == "int" else e for e in entries]
    return _index_arrays(x, entries, op)


def _index_arrays(x: Tensor, entries, op: str) -> Tensor:
    """``x`` indexed by parsed entries of slices, ``None``s and integer arrays (batched or not)."""
    arrays = [e[1] for e in entries if e[0] == "array"]
    if any(a.batch_dims for a in arrays):
        return _getitem_batched_arrays(x, entries, op)
    y, _ = _basic(x, entries, op)
    return _gather_axes(y, _array_positions(entries), arrays, op)


def _batch_axes_as_arrays(x: Tensor, entries, others=()):
    """vmap of advanced indexing: the batch axes of ``x`` and of the index arrays become
    leading logical axes, indexed by broadcast ``arange``s, so the batch rides along as
    one more integer array. Returns ``(x, entries, batch_shape)`` in logical form."""
    arrays = [e[1] for e in entries if e[0] == "array"]
    batch = common_batch_shape(x, *arrays, *others, op="vmap of indexing")
    depth = len(batch)
    rank = max((a.ndim for a in arrays), default=0)

    def logical_array(a):
        al = batch_dims_to_logical(a, batch)
        return reshape(al, batch + (1,) * (rank - a.ndim) + a.shape)

    grids = [("array", reshape(arange(n, device=x.device), (1,) * k + (n,) + (1,) * (depth - k - 1 + rank)))
             for k, n in enumerate(batch)]
    entries = grids + [("array", logical_array(e[1])) if e[0] == "array" else e for e in entries]
    return batch_dims_to_logical(x, batch), entries, batch


def _array_block(entries):
    """Where NumPy puts the broadcast array axes: after ``first`` other axes when the arrays
    are adjacent in the key, else in front (``first`` = 0)."""
    positions = _array_positions(entries)
    adjacent = positions == list(range(positions[0], positions[0] + len(positions)))
    return positions[0] if adjacent else 0


def _getitem_batched_arrays(x: Tensor, entries, op: str) -> Tensor:
    xl, entries_l, batch = _batch_axes_as_arrays(x, entries)
    depth = len(batch)
    y, _ = _basic(xl, entries_l, op)
    positions = _array_positions(entries_l)
    out = _gather_axes(y, positions, [e[1] for e in entries_l if e[0] == "array"], op)
    # the batch grids put every array axis in front; NumPy keeps adjacent ones in place
    first = _array_block(entries)
    if first:
        k = out.ndim - depth - (y.ndim - len(positions))  # the arrays' broadcast rank
        a = list(range(depth, depth + k))
        rest = list(range(depth + k, out.ndim))
        out = permute_dims(out, list(range(depth)) + rest[:first] + a + rest[first:])
    return logical_to_batch_dims(out, depth)


def _gather_axes(y: Tensor, positions, arrays, op: str) -> Tensor:
    flat, bshape = _linear_index(y, positions, arrays, op)
    nd = y.ndim
    rest = [a for a in range(nd) if a not in positions]
    if len(positions) == 1 and positions[0] == 0:  # (``x[idx]``: no axes to move or merge)
        merged = y
    else:
        moved = permute_dims(y, list(positions) + rest)
        lead = math.prod(y.shape[p] for p in positions)
        merged = reshape(moved, (lead,) + tuple(y.shape[a] for a in rest))
    b = merged._impl.batch_dims
    out = gather_op(merged, flat, axis=b)
    # NumPy: adjacent array axes keep their place; separated ones go first
    adjacent = positions == list(range(positions[0], positions[0] + len(positions)))
    if adjacent and positions[0] > 0:
        k = len(bshape)
        first = positions[0]
        order = list(range(k, k + first)) + list(range(k)) + list(range(k + first, out.ndim))
        out = permute_dims(out, order)
    return out


def setitem(x: Tensor, key, value) -> None:
    """``x[key] = value``: rebinds ``x`` to a new lazy value (the old one is untouched)."""
    op = "setitem"
    if not isinstance(value, Tensor):
        scalar = isinstance(value, (bool, int, float, complex))
        value = asarray(value, dtype=x.dtype if scalar else None, device=x.device)
    if value.dtype is not x.dtype:
        value = astype(value, x.dtype)
    raw = _parse(x, key, op)
    # a single boolean mask over leading axes: a select, no data-dependent shape (and it batches)
    if len([e for e in raw if e[0] != "slice" or e[1] != slice(None)]) == 1 and raw[0][0] == "bool" \
            and isinstance(raw[0][1], Tensor) and raw[0][1].ndim > 0:
        mask = raw[0][1]
        if mask.size == 0 and mask.ndim <= x.ndim and all(m in (n, 0) for m, n in zip(mask.shape, x.shape)):
            return  # selects nothing
        if mask.shape != x.shape[:mask.ndim]:
            raise IndexError(f"nabla.{op}: boolean index of shape {mask.shape} does not match shape {x.shape}")
        per_element = value.ndim > 1 or (value.ndim == 1 and value.shape[0] != 1 and mask.ndim == x.ndim)
        if not per_element:  # values per selected element take the scatter path below
            m = reshape(mask, mask.shape + (1,) * (x.ndim - mask.ndim))
            x._impl = where(m, value, x)._impl
            return
    flat = whole_mask(x, raw)
    if flat is not None:  # ``x[x > 0] = v``: v's values scattered to the mask's flat positions
        v = _broadcast_value(value, flat.shape, op)
        if flat.shape[0]:  # (none selected: nothing written, x as it is)
            # (the rows of all x's axes, flattened: x itself the scatter's operand, which a program
            # may then write in place, where a reshape of it would be another value over its memory)
            x._impl = scatter_op(x, v, flat, k=x.ndim)._impl
        return
    entries = _expand_bools(x, raw, op)
    arrays = [e[1] for e in entries if e[0] == "array"]
    if x.batch_dims or value.batch_dims or any(a.batch_dims for a in arrays):
        out = _assign_batched(x, entries, value, op)
    else:
        out = _assign(x, entries, value, op)
    if out is not None:
        x._impl = out._impl


def _broadcast_value(value: Tensor, shape, op: str) -> Tensor:
    extra = value.ndim - len(shape)
    if extra > 0 and all(n == 1 for n in value.shape[:extra]):  # (NumPy drops a value's leading unit axes)
        value = reshape(value, value.shape[extra:])
    try:
        return broadcast_to(value, tuple(shape))
    except ValueError:
        raise ValueError(f"nabla.{op}: cannot assign a value of shape {value.shape} to a selection of shape "
                         f"{tuple(shape)}") from None


def _assign(x: Tensor, entries, value: Tensor, op: str):
    """``x`` with ``value`` written at the parsed ``entries`` (None when nothing is selected)."""
    if any(e[0] == "array" for e in entries):
        return _assign_arrays(x, entries, value, op)
    target, index = _basic(x, entries, op)
    v = _broadcast_value(value, target.shape, op)
    sliced_shape = tuple(len(range(*sl)) for sl in index)
    if 0 in sliced_shape or 0 in target.shape:
        return None
    v = reshape(v, sliced_shape)
    if all(tuple(sl) == (0, n, 1) for sl, n in zip(index, x.shape)):  # the whole tensor (0-d too)
        return reshape(v, x.shape)
    return set_slice_op(x, v, index=index)


def _array_entries(x: Tensor, entries, op: str, partial_slices: bool = True):
    """Entries for an assignment through integer arrays: ints become 0-d arrays."""
    entries = [e for e in entries if e[0] not in ("none", "empty")]
    entries = [("array", _int_tensor(e[1], x.device)) if e[0] == "int" else e for e in entries]
    if not partial_slices and any(_partial(e) for e in entries):
        raise NotImplementedError(f"nabla.{op}: assignment mixing integer arrays with partial slices under vmap")
    return entries


def _partial(entry) -> bool:
    return entry[0] == "slice" and entry[1] != slice(None)


def _assign_arrays(x: Tensor, entries, value: Tensor, op: str) -> Tensor:
    entries = _array_entries(x, entries, op)
    if any(_partial(e) for e in entries):
        # x[1:3, [0, 2]] = v: the slices pick a block, the arrays index into it (the array axes'
        # selections and NumPy's layout of the value are the same in the block), the block goes back
        whole = ("slice", slice(None))
        block, index = _basic(x, [e if e[0] == "slice" else whole for e in entries], op)
        if 0 in block.shape:
            return None
        updated = _assign_arrays(block, [whole if e[0] == "slice" else e for e in entries], value, op)
        return set_slice_op(x, updated, index=index)
    positions = [k for k, e in enumerate(entries) if e[0] == "array"]
    arrays = [e[1] for e in entries if e[0] == "array"]
    flat, bshape = _linear_index(x, positions, arrays, op)
    rest = [a for a in range(x.ndim) if a not in positions]
    rest_shape = tuple(x.shape[a] for a in rest)
    first = _array_block(entries)
    # NumPy's selection: the array axes after ``first`` other axes; the scatter wants them in front
    v = _broadcast_value(value, rest_shape[:first] + tuple(bshape) + rest_shape[first:], op)
    if first:
        k = len(bshape)
        v = permute_dims(v, list(range(first, first + k)) + list(range(first)) + list(range(first + k, v.ndim)))
    perm = positions + rest
    if positions == list(range(len(positions))):  # (the array axes lead: x itself is scattered into)
        return scatter_op(x, v, flat, k=len(positions))
    merged = reshape(permute_dims(x, perm), (math.prod(x.shape[p] for p in positions),) + rest_shape)
    out = scatter_op(merged, v, flat, k=1)
    out = reshape(out, tuple(x.shape[p] for p in perm))
    return permute_dims(out, inverse_perm(perm))


def _assign_batched(x: Tensor, entries, value: Tensor, op: str):
    """vmap of ``x[key] = value``: the batch axes become leading logical axes of every operand."""
    first = 0
    if any(e[0] == "array" for e in entries):
        entries = _array_entries(x, entries, op, partial_slices=False)
        xl, entries_l, batch = _batch_axes_as_arrays(x, entries, others=(value,))
        arrays = [e[1] for e in entries if e[0] == "array"]
        bshape = broadcast_shapes(*(a.shape for a in arrays), op=op)
        rest = tuple(n for e, n in zip(entries, x.shape) if e[0] != "array")
        first = _array_block(entries)
        selection = rest[:first] + tuple(bshape) + rest[first:]
    else:
        batch = common_batch_shape(x, value, op=op)
        xl = batch_dims_to_logical(x, batch)
        entries_l = [("slice", slice(None))] * len(batch) + list(entries)
        selection = _basic(x, entries, op)[0].shape
    depth = len(batch)
    if value.ndim > len(selection):
        raise ValueError(f"nabla.{op}: cannot assign a value of shape {value.shape} to a selection of shape "
                         f"{tuple(selection)}")
    vl = batch_dims_to_logical(value, batch)
    vl = reshape(vl, batch + (1,) * (len(selection) - value.ndim) + value.shape)
    vl = _broadcast_value(vl, batch + tuple(selection), op)
    if first:  # the batch grids put the array axes in front of the selection
        k = len(selection) - len(rest)
        order = list(range(depth + first, depth + first + k)) + list(range(depth, depth + first))
        vl = permute_dims(vl, list(range(depth)) + order + list(range(depth + first + k, vl.ndim)))
    out = _assign(xl, entries_l, vl, op)
    return None if out is None else logical_to_batch_dims(out, depth)


def _int_tensor(i, device):
    return asarray(np.asarray(i, dtype=np.int64), device=device)


def take(x: Tensor, indices, axis=None) -> Tensor:
    """Elements of ``x`` at ``indices`` along ``axis`` (negative indices count from the end)."""
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"nabla.take: axis is required for a tensor of rank {x.ndim}")
        axis = 0

    a = normalize_axis(axis, max(x.ndim, 1), "take")
    idx = _as_index_tensor(indices, x.device)
    if not idx.dtype.is_integer:
        raise TypeError(f"nabla.take: indices must be integers, got {idx.dtype}")
    whole = ("slice", slice(None))
    return _index_arrays(x, [whole] * a + [("array", idx)] + [whole] * (x.ndim - a - 1), "take")


def take_along_axis(x: Tensor, indices: Tensor, axis: int = -1) -> Tensor:
    """``x`` picked along ``axis`` by ``indices`` of the same rank (broadcast elsewhere)."""
    if indices.ndim != x.ndim:
        raise ValueError(f"nabla.take_along_axis: indices of rank {indices.ndim} for a tensor of rank {x.ndim}")
    a = normalize_axis(axis, x.ndim, "take_along_axis")
    if x.batch_dims or indices.batch_dims:
        return with_batch_dims_as_logical(lambda xl, il, depth: take_along_axis(xl, il, depth + a), x, indices)
    n = x.shape[a]
    shape_x = list(x.shape)
    shape_i = list(indices.shape)
    shape_x[a] = shape_i[a] = 1
    common = list(broadcast_shapes(tuple(shape_x), tuple(shape_i), op="take_along_axis"))
    xs = common.copy()
    xs[a] = n
    ishape = common.copy()
    ishape[a] = indices.shape[a]
    xb = broadcast_to(x, tuple(xs))
    idx = astype(indices, _dt.int64)
    idx = broadcast_to(where(B["less"](idx, 0), idx + n, idx), tuple(ishape))
    # flat positions into xb
    strides = [math.prod(xs[k + 1:]) for k in range(len(xs))]
    flat = idx * strides[a]
    for k in range(len(xs)):
        if k != a and ishape[k] > 1:
            coord = reshape(arange(ishape[k], device=x.device), [ishape[k] if j == k else 1 for j in range(len(xs))])
            flat = flat + coord * strides[k]
    return gather_op(reshape(xb, (math.prod(xs),)), flat, axis=0)
