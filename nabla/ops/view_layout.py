"""Where a view's elements lie in the memory of the array it views, as NumPy lays them out: strides
in elements per axis, followed from the array along the chain of views (slices, transposes,
reshapes, the NumPy face's own names of an array). What a reshape of a view is (NumPy's view where
its memory allows, else a copy), and what ``strides`` and ``flags`` report, follow from it."""

from __future__ import annotations


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


def element_strides(x) -> tuple | None:
    """``x``'s strides in elements over the memory of the array at the root of its views; None where a
    view on the way is of a kind not followed here (a dtype's bit view, ``real``): then unknown."""
    view = x._view
    if view is None:
        return c_strides(x.shape)
    parent, derive, put_back = view
    layout = getattr(derive, "layout", None)
    if derive is same:
        return element_strides(parent)
    if layout is not None:  # (a reshape's or a transpose's: kept on its derive)
        kind, data = layout
        if kind == "strides":
            return data
        above = element_strides(parent)
        return None if above is None else tuple(above[a] for a in data)
    index = getattr(put_back, "index", None)
    if index is None or getattr(put_back, "shape", None) != parent.shape:
        return None
    above = element_strides(parent)
    if above is None:
        return None
    # (a basic slice: each parent axis of more than one element taken is one of x's axes of more
    # than one, in order; ints and new axes are axes of one, whose strides NumPy's reshape ignores)
    long = [s * c for (a, b, c), s in zip(index, above) if len(range(a, b, c)) > 1]
    out, k = [], 0
    for d in x.shape:
        if d > 1 and k < len(long):
            out.append(long[k])
            k += 1
        else:
            out.append(0)
    return tuple(out) if k == len(long) else None


def reshaped_strides(shape, strides, new_shape) -> tuple | None:
    """The strides of ``new_shape`` over the same memory as an array of ``shape`` and ``strides``,
    where the reshape needs no copy (axes merged only where they are one run of each other's
    steps, axes split at will); None where it does (NumPy then copies)."""
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
    if strides is None:
        return True
    want = c_strides(x.shape)
    return all(d <= 1 or s == w for d, s, w in zip(x.shape, strides, want))
