"""Where a view's elements lie in the memory of the array it views, as NumPy lays them out: strides
in elements per axis, followed from the array along the chain of views (slices, transposes,
reshapes, the NumPy face's own names of an array). What a reshape of a view is (NumPy's view where
its memory allows, else a copy), and what ``strides`` and ``flags`` report, follow from it."""

from __future__ import annotations

import numpy as np


#: the layout of a reshape of a C-ordered array's own memory: C-ordered
C_ORDER = ("c", None)


def same(parent):
    """The derive of a view that is another name of its parent (same shape, same memory)."""
    return parent


def same_back(parent, child):
    return child


def c_strides(shape) -> tuple:
    """A C-ordered array's strides in elements."""
    out, step = [], 1
    for d in reversed(shape):
        out.append(step)
        step *= max(int(d), 1)
    return tuple(reversed(out))


def memory_layout(x) -> tuple | None:
    """``(root, strides, offset)``: the array at the root of ``x``'s views, whose memory holds x's
    elements, and x's strides and first element's offset in it, in elements; None where a view on
    the way is of a kind not followed here (a dtype's bit view, ``real``): then unknown."""
    chain = []
    while x._view is not None:
        chain.append(x)
        x = x._view[0]
    root = x
    strides, offset = c_strides(root.shape), 0
    for x in reversed(chain):
        parent, derive, put_back = x._view
        if derive is same:
            continue
        layout = getattr(derive, "layout", None)
        if layout is not None:  # (a reshape's or a transpose's: kept on its derive)
            kind, data = layout
            strides = tuple([strides[a] for a in data]) if kind == "axes" else data if kind == "strides" \
                else c_strides(x.shape)
            continue
        index = getattr(put_back, "index", None)
        if index is None or put_back.shape != parent.shape:
            return None
        shape = x.shape
        taken = [len(range(a, b, c)) for a, b, c in index]
        kept = len(taken) == len(shape) and all(t == d for t, d in zip(taken, shape))
        long = []  # (each parent axis of more than one element taken, stepped; every one where all are kept)
        for (a, b, c), t, st in zip(index, taken, strides):
            offset += a * st
            if kept or t > 1:
                long.append(st * c)
        if kept:  # (x's axes are its parent's, each stepped)
            strides = tuple(long)
            continue
        # (ints and new axes: each parent axis of more than one element taken is one of x's axes of
        # more than one, in order; x's axes of one, whose strides no layout question reads, get 0)
        out, k = [], 0
        for d in shape:
            if d > 1 and k < len(long):
                out.append(long[k])
                k += 1
            else:
                out.append(0)
        if k != len(long):
            return None
        strides = tuple(out)
    return root, strides, offset


def element_strides(x) -> tuple | None:
    """``x``'s strides in elements over its root's memory (``memory_layout``), None where unknown."""
    found = memory_layout(x)
    return None if found is None else found[1]


def reshaped_strides(shape, strides, new_shape) -> tuple | None:
    """The strides of ``new_shape`` over the same memory as an array of ``shape`` and ``strides``,
    where the reshape needs no copy (axes merged only where they are one run of each other's
    steps, axes split at will); None where it does (NumPy then copies). Kept per question (a loop
    reshapes the same kind of view at every step)."""
    key = (shape, strides, new_shape)
    found = _RESHAPED.get(key, False)
    if found is False:
        if len(_RESHAPED) >= 1024:
            _RESHAPED.clear()
        found = _RESHAPED[key] = _reshaped_strides(shape, strides, new_shape)
    return found


_RESHAPED: dict = {}


def _reshaped_strides(shape, strides, new_shape) -> tuple | None:
    old = [(d, s) for d, s in zip(shape, strides) if d != 1]
    new = list(new_shape)
    out = [0] * len(new)
    i = j = 0
    while i < len(old) and j < len(new):
        if new[j] == 1:
            j += 1
            continue
        i0, j0 = i, j
        np_, op_ = new[j], old[i][0]
        while np_ != op_:
            if np_ < op_:
                j += 1
                if j >= len(new):
                    return None
                np_ *= new[j]
            else:
                i += 1
                if i >= len(old):
                    return None
                op_ *= old[i][0]
        for k in range(i0, i):  # (the old axes of the group must be one run of each other)
            if old[k][1] != old[k + 1][1] * old[k + 1][0]:
                return None
        step = old[i][1]
        for k in range(j, j0 - 1, -1):
            out[k] = step
            step *= new[k]
        i += 1
        j += 1
    if any(d == 0 for d in new_shape):
        return c_strides(new_shape)
    return tuple(out)


def is_c_contiguous(x) -> bool:
    """Whether ``x``'s elements are one run of memory in C order (unknown layouts count as such)."""
    strides = element_strides(x)
    return strides is None or _runs(x.shape, strides, c_strides(x.shape))


def is_f_contiguous(x) -> bool:
    """Whether ``x``'s elements are one run of memory in Fortran order (unknown layouts: where at
    most one axis is longer than one, as a C-ordered array)."""
    strides = element_strides(x)
    if strides is None:
        return sum(d > 1 for d in x.shape) <= 1
    return _runs(x.shape, strides, c_strides(x.shape[::-1])[::-1])


def _runs(shape, strides, want) -> bool:
    return all(d <= 1 or s == w for d, s, w in zip(shape, strides, want))


def root_of(x):
    """The array at the root of ``x``'s views."""
    while x._view is not None:
        x = x._view[0]
    return x


def share_memory(a, b, exact: bool) -> bool:
    """Whether ``a`` and ``b`` have an element in the same place of one array's memory (``exact``:
    NumPy's ``shares_memory``, the offsets compared; else ``may_share_memory``'s bounds). Arrays of
    one root whose layout is not followed here count as sharing."""
    la, lb = memory_layout(a), memory_layout(b)
    if la is None or lb is None:
        return root_of(a) is root_of(b) and a.size > 0 and b.size > 0
    if la[0] is not lb[0] or a.size == 0 or b.size == 0:
        return False
    (lo_a, hi_a), (lo_b, hi_b) = _extent(a.shape, *la[1:]), _extent(b.shape, *lb[1:])
    if hi_a < lo_b or hi_b < lo_a:
        return False
    return not exact or bool(np.intersect1d(_offsets(a.shape, *la[1:]), _offsets(b.shape, *lb[1:])).size)


def _extent(shape, strides, offset) -> tuple:
    low = offset + sum((d - 1) * s for d, s in zip(shape, strides) if s < 0)
    high = offset + sum((d - 1) * s for d, s in zip(shape, strides) if s > 0)
    return low, high


def _offsets(shape, strides, offset):
    """Every element's offset (layout metadata on the host, no array data)."""
    out = np.full((), offset, np.int64)
    for d, s in zip(shape, strides):
        out = np.add.outer(out, np.arange(d, dtype=np.int64) * s)
    return out.ravel()
