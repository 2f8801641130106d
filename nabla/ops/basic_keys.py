"""The plain parse of a basic index (Python ints, slices of ints, ``None`` and one ``...``): what a
slice and a slice write record, found in one pass over the key, every loop's ``x[i, 1:j]``."""

from __future__ import annotations


def plain_key(shape, key, element: bool = False):
    """``_parse``, kept per key of Python ints and slices of ints or None's over a shape: a loop parses
    the same ``x[1:-1, 2:]`` every step (a parse ~0.8 us of a slice's ~3, a lookup ~0.2)."""
    memo = _memo_key(shape, key, element)
    if memo is None:
        return _parse(shape, key, element)
    found = _PARSED.get(memo, _MISSING)
    if found is _MISSING:
        found = _parse(shape, key, element)
        if len(_PARSED) >= _PARSED_KEPT:
            _PARSED.clear()
        _PARSED[memo] = found
    return found


#: ``plain_key``'s parses, by ``_memo_key``; the most it keeps (a loop over ``x[i, :j]`` meets many)
_PARSED: dict = {}
_PARSED_KEPT = 4096
_MISSING = object()


def _memo_key(shape, key, element: bool):
    """A hashable key that says exactly which parse ``key`` has over ``shape``: its slices' bounds
    and its ints, each a Python int or None (a bool, NumPy's integer or a 0-d array, which hash as
    the int they hold, are parsed each time); None for any other key."""
    t = type(key)
    if t is slice:
        a, b, c = key.start, key.stop, key.step
        if (a is None or type(a) is int) and (b is None or type(b) is int) and (c is None or type(c) is int):
            return shape, element, a, b, c
        return None
    if t is int:
        return shape, element, key
    if t is not tuple:
        return None
    if len(key) != 2:
        return _long_memo_key(shape, key, element)
    first, second = key
    if type(first) is slice:
        a, b, c = first.start, first.stop, first.step
        if not ((a is None or type(a) is int) and (b is None or type(b) is int) and (c is None or type(c) is int)):
            return None
        if type(second) is slice:
            d, e, f = second.start, second.stop, second.step
            if (d is None or type(d) is int) and (e is None or type(e) is int) and (f is None or type(f) is int):
                return shape, element, a, b, c, d, e, f
            return None
        return (shape, element, a, b, c, second) if type(second) is int else None
    if type(first) is int and type(second) is slice:
        d, e, f = second.start, second.stop, second.step
        if (d is None or type(d) is int) and (e is None or type(e) is int) and (f is None or type(f) is int):
            return shape, element, first, _INT_FIRST, d, e, f
    return None


#: marks a key's leading int in ``_memo_key`` (``x[i, a:b]``), apart from a leading slice's bounds
_INT_FIRST = object()


def _long_memo_key(shape, key, element: bool):
    """``_memo_key`` of a tuple key of any other length made of whole axes, ``None`` and ``...``
    only (a convolution's ``w[np.newaxis, :, :, :]``, the same every step); None for any other:
    a key with an int or a bound (``x[:, i:i + k, j:j + k, :, None]``) is most often new each step,
    and parsed at once (keeping it cost more than its parse)."""
    for k in key:
        if type(k) is slice:
            if k.start is not None or k.stop is not None or k.step is not None:
                return None
        elif k is not None and k is not Ellipsis:
            return None
    return shape, element, tuple(_WHOLE if type(k) is slice else k for k in key)


#: a whole axis, ``:``, in ``_long_memo_key``
_WHOLE = object()


def _parse(shape, key, element: bool = False):
    """``(index, shape_after, same, whole, sizes, starts)`` of a key of Python ints, slices of ints, ``None`` and
    one ``...`` over ``shape``: the common ``x[1:-1, j]`` and ``x[:, i:i + k, None]``, parsed without
    the general path; None for anything else (the general path decides, and raises what NumPy
    raises), and for a key that picks one element unless ``element`` (a write of one element).
    ``same``: the key has no integer and no ``None``, so ``shape_after`` is the slice's own shape;
    ``whole``: every axis is taken whole, in order; ``sizes`` and ``starts``: per axis, (size, step)
    and start, what keying a node of the index asks (``trace_lowering.index_memo``). One pass over
    the key: this is asked of every basic index a loop records."""
    if type(key) is not tuple:
        key = (key,)
    elif len(key) == 2 and len(shape) == 2:  # (a matrix's ``x[i, :j]``, ``x[1:-1, 2:]``: unrolled)
        found = _two_axes(shape, key)
        if found is not _GENERAL:
            return found
    axes = len(shape)
    index = []
    after = []
    sizes = []
    starts = []
    sliced = False
    ellipsis = False
    same = whole = True
    n_axis = 0
    for at, k in enumerate(key):
        t = type(k)
        if t is slice:
            if n_axis == axes:
                return None
            start, stop, step = k.start, k.stop, k.step
            if (start is not None and type(start) is not int) or (stop is not None and type(stop) is not int) \
                    or (step is not None and type(step) is not int) or step == 0:
                return None
            n = shape[n_axis]
            start, stop, step = k.indices(n)
            index.append((start, stop, step))
            if step == 1:
                size = stop - start if stop > start else 0
                if whole and (start != 0 or stop != n):
                    whole = False
            else:
                size = len(range(start, stop, step))
                whole = False
            after.append(size)
            sizes.append((size, step))
            starts.append(start)
            sliced = True
            n_axis += 1
        elif t is int:
            if n_axis == axes:
                return None
            n = shape[n_axis]
            if not -n <= k < n:
                return None
            k %= n
            index.append((k, k + 1, 1))
            sizes.append(_ONE_STEP)
            starts.append(k)
            n_axis += 1
            same = False
            if whole and n != 1:
                whole = False
        elif k is None:
            after.append(1)
            sliced = True
            same = False
        elif k is Ellipsis and not ellipsis:
            ellipsis = True
            fill = axes - n_axis - sum(1 for r in key[at + 1:] if r is not None and r is not Ellipsis)
            if fill < 0:
                return None
            for n in shape[n_axis:n_axis + fill]:
                index.append((0, n, 1))
                after.append(n)
                sizes.append((n, 1))
                starts.append(0)
            n_axis += fill
            sliced = True
        else:
            return None
    if not sliced and n_axis == axes and not element:
        return None
    for n in shape[n_axis:]:
        index.append((0, n, 1))
        after.append(n)
        sizes.append((n, 1))
        starts.append(0)
    return tuple(index), tuple(after), same, whole, tuple(sizes), tuple(starts)


#: an integer's axis in ``plain_key``'s sizes: one element, step 1
_ONE_STEP = (1, 1)

#: ``_two_axes``' answer for a key the general pass parses
_GENERAL = object()


def _axis(k, n):
    """One axis of ``_two_axes``: ``(start, stop, step), size, start`` of a slice of ints or
    None's with a nonzero step, ``(k, k + 1, 1), None, k`` of an int in range; None otherwise."""
    t = type(k)
    if t is slice:
        start, stop, step = k.start, k.stop, k.step
        if (start is not None and type(start) is not int) or (stop is not None and type(stop) is not int) \
                or (step is not None and (type(step) is not int or step == 0)):
            return None
        bounds = k.indices(n)
        start, stop, step = bounds
        if step == 1:
            return bounds, stop - start if stop > start else 0, start
        return bounds, len(range(start, stop, step)), start
    if t is int and -n <= k < n:
        k %= n
        return (k, k + 1, 1), None, k
    return None


def _two_axes(shape, key):
    """``plain_key`` of a two-part key over a matrix, each part a slice or an int (not both
    ints); ``_GENERAL`` for any other, which the general pass parses (or refuses)."""
    m, n = shape
    first, second = key
    a = _axis(first, m)
    if a is None:
        return _GENERAL
    b = _axis(second, n)
    if b is None:
        return _GENERAL
    (ia, sa, ta), (ib, sb, tb) = a, b
    if sa is None:
        if sb is None:
            return _GENERAL  # (one element: asked with ``element``, or refused)
        return (ia, ib), (sb,), False, m == 1 and ib == (0, n, 1), (_ONE_STEP, (sb, ib[2])), (ta, tb)
    if sb is None:
        return (ia, ib), (sa,), False, n == 1 and ia == (0, m, 1), ((sa, ia[2]), _ONE_STEP), (ta, tb)
    whole = ia == (0, m, 1) and ib == (0, n, 1)
    return (ia, ib), (sa, sb), True, whole, ((sa, ia[2]), (sb, ib[2])), (ta, tb)


def element_parse(shape, key):
    """``plain_key(shape, key, element=True)`` of a key of one Python int per axis (``x[i, j]``, an
    element loop's pick or write), without the general pass for one or two axes; None where an
    index is out of range (the general path raises NumPy's IndexError)."""
    if len(key) == 2:  # (the common matrix element, unrolled)
        i, j = key
        m, n = shape
        if not (-m <= i < m and -n <= j < n):
            return None
        if i < 0:
            i += m
        if j < 0:
            j += n
        return ((i, i + 1, 1), (j, j + 1, 1)), (), False, m == 1 and n == 1, _TWO_STEPS, (i, j)
    if len(key) == 1:
        i, = key
        n, = shape
        if not -n <= i < n:
            return None
        if i < 0:
            i += n
        return ((i, i + 1, 1),), (), False, n == 1, _ONE_STEPS, (i,)
    return plain_key(shape, key, element=True)


_ONE_STEPS, _TWO_STEPS = (_ONE_STEP,), (_ONE_STEP, _ONE_STEP)
