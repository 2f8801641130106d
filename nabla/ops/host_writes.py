"""Element and slice writes into realized host data: ``x[i, j] = v`` and ``x[i, :k] = r`` at once,
as NumPy's.

An element loop that reads between its writes (``table[i, j] = max(table[i, j], table[i, k] +
table[k + 1, j])``: ``max`` reads a comparison) keeps its array realized when each write goes
into the array's memory: the next picks read that memory (``picks.quick_pick``), where a
recorded write made the array pending again and every later pick a run of its own. Nothing is
computed here: the value is a Python scalar that the array's dtype holds exactly (the host
boundary's conversion, as ``asarray`` makes) or an element of the array's dtype already on the
host; anything else is recorded as an op (``aliasing._plain_setitem``). A slice write copies
realized host data of the array's dtype (an op at once's result, ``host_slice_write``) the same way.

The first such write copies the array into memory of Nabla's own (a ``HostValue``); later ones
write into it while nothing else can see it: no recorded op reads the value (its reference
count), no run has read it since (``TraceLowering.trace`` gives it up), no NumPy view or export
holds its buffer, and no other tensor shares its state but the array's own live views whose values
nothing else holds (``y = ys[i]; ys[i + 1] = f(y)``, its ops at once): those are derived again after
the write, and see it, as NumPy's views do. A write that finds any of these copies
again, so every array read before the write keeps the values it had, as with a recorded write.

An element loop over pending data (a stencil's row update, then ``A[i, j] += A[i, j - 1]`` along
the row, as seidel's is) records every pick and write, and its trace grows by a handful of nodes per
element. An array that has taken ``_LOOP_WRITES`` recorded element writes is in such a loop: its next
pick or host-scalar write realizes it (one read), and its picks, the 0-d ops on them
(``runtime/host_scalars.py``) and its writes then run at once. A realization that is not followed by
``_LOOP_WRITES`` writes in place (the loop's values stay lazy: ``A[i, j] -= A[i, :j] @ A[:j, j]``)
turns this off for the array, so a loop that gains nothing pays one read for it.
"""

from __future__ import annotations

import sys

import numpy as np

from ..core.at_once import CountsPerValue
from ..core.graph import GRAPH, HostValue, host_value, host_view
from ..core.values import memory_unshared, written_in_place
from ..core.operation import PLAIN_CLASSES
from ..core.tensor import Tensor
from ..core.tensor_impl import TensorImpl, plain_host
from .index_primitives import element_layout, one_run, slice_op, sliced_shape
from .picks import element_key, element_value

_getrefcount = sys.getrefcount

#: per dtype name, the largest integer magnitude its values hold exactly
_EXACT_INTS = {"float16": 1 << 11, "float32": 1 << 24, "float64": 1 << 53}


#: per integer dtype, the (least, greatest) Python ints it holds (filled as dtypes are met)
_INT_RANGES: dict = {}


def exact_scalar(value, dtype):
    """``value`` as the array's dtype holds it, where that is exact (or a float into a float
    array, rounded as ``asarray`` rounds a constant; a number into a bool array, whether it is
    nonzero, as NumPy's cast); None otherwise."""
    tv = type(value)
    if tv is float or tv is np.float64:
        return value if dtype.is_floating else bool(value) if dtype.name == "bool" else None
    if tv is int or tv is bool:
        if dtype.is_integer:
            bounds = _INT_RANGES.get(dtype)
            if bounds is None:
                info = np.iinfo(dtype.numpy_dtype)
                bounds = _INT_RANGES[dtype] = (int(info.min), int(info.max))
            return value if bounds[0] <= value <= bounds[1] else None
        if dtype.is_floating:
            limit = _EXACT_INTS.get(dtype.name)
            return value if limit is not None and -limit <= value <= limit else None
        if dtype.name == "bool":
            return bool(value)
        return None
    if isinstance(value, Tensor):  # a realized element of the same dtype on the host: its bits
        v = element_value(value) if value._impl.dtype is dtype else None
        if v is None:
            return None
        host = v.host if type(v) is HostValue else None
        # (NumPy's scalar as it is: its 0-d array, made by ``host_view`` and kept, costs 0.3 us a write)
        return host if isinstance(host, np.generic) else host_view(v)
    return None


#: per complex dtype name, the largest integer magnitude each of its parts holds exactly
_EXACT_PART_INTS = {"complex64": 1 << 24, "complex128": 1 << 53}


def exact_pair(value, dtype):
    """``value`` as complex ``dtype``'s memory holds it, its (re, im) pair (a part rounded as
    ``asarray`` rounds a constant's), where that is exact for an int; None otherwise (a real
    array's element, which the recorded write casts)."""
    tv = type(value)
    if tv is complex or tv is np.complex128 or tv is np.complex64:
        return value.real, value.imag
    if tv is float or tv is np.float64:
        return value, 0.0
    if tv is int:
        limit = _EXACT_PART_INTS.get(dtype.name)
        return (value, 0) if limit is not None and -limit <= value <= limit else None
    if isinstance(value, Tensor):  # a realized element of the same dtype on the host: its pair
        v = element_value(value) if value._impl.dtype is dtype else None
        return None if v is None else host_view(v)
    return None


def alone(x: Tensor, own=None) -> bool:
    """Whether ``x`` has no live view (but ``own``, where given: a slice of x a write reads) and views
    nothing anyone can reach: the array a NumPy face function returns is an alias of a result that
    nothing else holds (its link is dropped here)."""
    views = x._views
    if views is not None:
        if any(r() is not None and r() is not own for r in views):
            return False
        if own is None:
            x._views = None
    return _unlinked(x)


def _unlinked(x: Tensor) -> bool:
    """Whether ``x`` views nothing anyone can reach (the array a face function returns is an alias of
    a result nothing else holds: its link is dropped here)."""
    view = x._view
    if view is None:
        return True
    parent = view[0]
    # (parent's references: the link, ``parent`` and the call's argument)
    if view[2] is None or parent._view is not None or _getrefcount(parent) != 3:
        return False
    if any(r() is not None and r() is not x for r in parent._views or ()):
        return False
    x._view = None
    return True


#: the recorded element writes that mark an array as in an element loop, and the writes in place a
#: realization for it must be followed by to stay on (``ElementLoop``)
_LOOP_WRITES = 8


class ElementLoop:
    """An array's element loop (``Tensor._element_loop``): its recorded element writes, and since the
    last realization for it, its writes in place; ``off`` once a realization did not pay."""

    __slots__ = ("recorded", "in_place", "realized", "off")

    def __init__(self):
        self.recorded = self.in_place = 0
        self.realized = self.off = False


def realized_for_picks(x: Tensor) -> bool:
    """At a pick of pending ``x``: count it, and at the ``_LOOP_PICKS``-th pick of one pending value
    (a loop reading its elements, ``t = t + a[i]``) realize it with the rest of the pending work
    (the loop's ``t``), so that this pick and the loop's next read its memory and their 0-d ops
    run at once, where each pick and op was a node of one long trace planned at its end (8,000
    steps: 0.4 s of a first call); True where it did."""
    impl = x._impl
    value = impl._values[0]
    if _PICKED.add(value) < _LOOP_PICKS:
        return False
    _PICKED.forget(value)
    engine = GRAPH.engine
    if GRAPH.captures or engine.scalars is None or not engine.scalars.serves(engine) or not plain_host(impl) \
            or impl.dtype.is_complex:
        return False
    GRAPH.evaluate()  # (every live pending array: the loop's others, with it)
    if impl.values_pending():
        impl.realize()
    return True


#: per pending value, its picks; the count at which a loop is reading its elements
_PICKED = CountsPerValue()
_LOOP_PICKS = 16


def may_be_element(key) -> bool:
    """Whether ``key`` may pick one element (its first part an int): a cheap refusal of slices."""
    return type(key[0] if type(key) is tuple and key else key) is int


def recorded_element_write(x: Tensor, loop) -> None:
    """Count a recorded ``x[i, j] = v`` (an element write the host could not take); ``loop`` is
    x's ``_element_loop`` or None."""
    if loop is None:
        loop = x._element_loop = ElementLoop()
    loop.recorded += 1


def realize_for_loop(x: Tensor, loop) -> bool:
    """At a pick of pending ``x`` or a host-scalar write into it (``loop``: x's ``_element_loop``,
    not None and not off): realize ``x`` where it is in an element loop (see the module's text), so
    that the pick or write runs at once. False where it stays pending."""
    if loop.recorded < _LOOP_WRITES and not loop.realized:
        return False
    impl = x._impl
    engine = GRAPH.engine
    # (only where the loop's 0-d ops would run at once: otherwise its values stay lazy anyway)
    if engine.scalars is None or not engine.scalars.serves(engine) or type(impl._values) is not list \
            or len(impl._values) != 1 or not plain_host(impl) or impl.dtype.is_complex:
        return False
    if loop.realized and loop.in_place < _LOOP_WRITES:  # the last one did not pay: the loop's values stay lazy
        loop.off = True
        return False
    loop.realized, loop.in_place = True, 0
    impl.realize()
    return True


def host_write(x: Tensor, key, value) -> bool:
    """``x[key] = value`` into x's memory at once where this applies (see the module's text);
    False where a recorded write must do it. The checks of a realized plain host ``x`` written out
    here: an element loop writes every step (its calls were a third of a write's ~1.8 us)."""
    # (the cheap refusals first: every slice write, and every write into pending data, asks here)
    impl = x._impl
    values = impl._values
    if type(values) is not list or len(values) != 1:
        return False
    v = values[0]
    if v.node is not None:  # written here only once realized for an element loop
        if not may_be_element(key) or element_key(impl, key) is None:  # (a slice write: the common case)
            return False
        loop = getattr(x, "_element_loop", None)
        if loop is None or loop.off or exact_scalar(value, impl.dtype) is None or not realize_for_loop(x, loop):
            return False
        impl = x._impl
        values = impl._values
        v = values[0]
    shape = impl.cached_shape
    if type(key) is tuple:
        if len(key) != len(shape) or not shape:
            return False
    elif type(key) is int and len(shape) == 1:
        key = (key,)
    else:
        return False
    dtype = impl.dtype
    if impl.batch_dims or impl.tangents is not None or impl.sharding is not None \
            or impl.traced or impl.requires_grad or not v.device.is_host or type(x) not in PLAIN_CLASSES:
        return False
    holding = -1  # (x's live views' slices of v, where it has live views: a DP loop's ``row = t[i]``)
    if (x._views is not None or x._view is not None) and not alone(x):
        holding = _views_holding(x, v)
        if holding < 0:
            return False
    for i, n in zip(key, shape):
        if type(i) is not int or not -n <= i < n:
            return False  # (the recorded path raises NumPy's IndexError)
    scalar = exact_pair(value, dtype) if dtype.is_complex else exact_scalar(value, dtype)
    if scalar is None:
        return False
    _memory(x, impl, v, max(holding, 0))[key] = scalar  # (a complex one: its (re, im) slot of the pairs)
    if holding >= 0:  # each live view sees the write, as NumPy's do: a slice of v's memory reads it
        copied = x._impl is not impl  # (else a slice of x's new memory again)
        del v
        for ref in x._views:
            w = ref()
            if w is not None and (copied or w._impl._values[0].node is None):
                w._impl = w._view[1](x)._impl
    loop = getattr(x, "_element_loop", None)
    if loop is not None:
        loop.in_place += 1
    return True


def host_scatter(x: Tensor, key, value) -> bool:
    """``x[i, j] = v`` with integer index arrays (a dynamic program's anti-diagonal, ``S[i, j] =
    np.maximum(S[i - 1, j - 1] + 1, ...)``) into x's memory at once, as ``host_write`` writes an
    element: every index array and the value realized host data (the value of x's dtype, or a Python
    scalar it holds exactly), the key integers and such arrays alone; a copy of data to the positions
    they name, NumPy's assignment (broadcast, last of repeated positions wins, its IndexError). x then
    stays realized, so the next step's gathers from it run at once, where each recorded scatter left
    the loop's data pending and every later read planned a new length. False where a recorded write
    must do it."""
    impl = x._impl
    values = impl._values
    if type(values) is not list or len(values) != 1 or values[0].node is not None or type(x) not in PLAIN_CLASSES \
            or not plain_host(impl) or impl.dtype.is_complex or not GRAPH.engine.small_at_once:
        return False
    parts = key if type(key) is tuple else (key,)
    if not parts or len(parts) > len(impl.cached_shape):
        return False
    where, arrays = [], 0
    for p in parts:
        if type(p) is int:
            where.append(p)
            continue
        held = _host_data(p)
        if held is None or held.dtype.kind not in "iu":
            return False
        where.append(held)
        arrays += 1
    if not arrays:
        return False
    tv = type(value)
    if tv is float or tv is int or tv is bool:
        src = exact_scalar(value, impl.dtype)
    else:
        src = _host_data(value)
        if src is not None and getattr(value, "_impl", None) is not None and value._impl.dtype is not impl.dtype:
            src = None
    if src is None or not alone(x):
        return False
    v = values[0]  # (``_memory`` counts this name)
    memory = _memory(x, impl, v)
    del v
    try:
        memory[tuple(where)] = src
    except IndexError as e:
        raise IndexError(f"nabla.setitem: index out of bounds: {e} (shape {impl.cached_shape})") from None
    except ValueError as e:
        raise ValueError(f"nabla.setitem: {e} (shape {impl.cached_shape}, value of shape {np.shape(src)})") from None
    return True


def _host_data(t):
    """The host memory of ``t``, realized host data of one value (a NumPy view of it), else None."""
    impl = getattr(t, "_impl", None)
    if impl is None or not plain_host(impl) or type(impl._values) is not list or len(impl._values) != 1:
        return None
    v = impl._values[0]
    return host_view(v) if v.node is None else None


def _memory(x: Tensor, impl, v, views: int = 0):
    """The NumPy view of x's memory (``impl``'s one value ``v``) to write into: its own where
    nothing else can see it (the counts: the list and ``v``, or ``x._impl`` and ``impl``, and the
    call's own argument; ``views``: x's live views' slices of v, ``_views_holding``), else a copy
    that becomes x's value (a loop's next writes go into it)."""
    if type(v) is HostValue and v.owned and _getrefcount(v) == 4 + views and _getrefcount(impl) == 4 \
            and memory_unshared(v):
        written_in_place(v)
        return v.host
    host = np.array(host_view(v), copy=True, order="C")
    # (its driver buffer made where a run asks: a loop's next writes and ops at once read ``host``)
    own = host_value(None, v.shape, v.dtype, v.device, host, owned=True)
    x._impl = TensorImpl([own], impl.dtype, pending=False)
    return host


def host_slice_write(x: Tensor, index, value, writer=None) -> bool:
    """``x[key] = value`` into x's memory at once (``index``: the key's (start, stop, step) per
    axis), where x is realized host data that nothing else can see (as ``host_write`` asks; a
    view's write carried back, x's live ``writer`` view may see it) and ``value`` realized host
    data of x's dtype and the slice's size: a loop that writes rows of a small realized array
    (``y[:k] += alpha * y[k - 1::-1]``, ``Q[:, k] = A[:, k] / R[k, k]``) keeps it realized, its
    next slices read by the ops at once that take them. A copy of data, as an element write's is;
    False where a recorded write must do it (and with small ops recorded: ``engine.small_at_once``)."""
    if not GRAPH.engine.small_at_once:
        return False
    impl = x._impl
    values = impl._values
    if type(values) is not list or len(values) != 1 or type(x) not in PLAIN_CLASSES or values[0].node is not None \
            or not plain_host(impl):
        return False
    pair = impl.dtype.is_complex  # (its memory: real pairs on a trailing axis)
    if pair:
        index = index + ((0, 2, 1),)
    region, count, where = _index_parts(index)
    tv = type(value)
    if tv is float or tv is int or tv is bool:  # (``C[i, :] = 0.0``: a fill)
        if pair:
            return False
        src = exact_scalar(value, impl.dtype)
        if src is None:
            return False
    else:
        vi = getattr(value, "_impl", None)
        if vi is None or vi.dtype is not impl.dtype or not plain_host(vi) or type(vi._values) is not list \
                or len(vi._values) != 1:
            return False
        held = vi._values[0]
        node = held.node
        if node is None:
            src = host_view(held)
        elif node.op is slice_op and not pair and node.inputs[0].node is None and node.inputs[0].device.is_host:
            # (a slice of realized host data, ``q[1:-1, 0] = v[0, 1:-1]``: its elements read where they
            # are, as NumPy's copy reads them, overlap with x's own included)
            src = host_view(node.inputs[0])[_index_parts(node.kwargs["index"])[2]]
        else:
            return False
        if src.shape != region:
            if src.size != count:
                return False  # (a value that broadcasts: recorded)
            src = src.reshape(region)
    if writer is None:
        # (x's own slice, ``T[i] = T[i - 1]``, ``a[1:] = a[:-1]``, is read as NumPy's copy reads it;
        # it is derived again where x's memory is replaced)
        own = value if getattr(value, "_view", None) is not None and value._view[0] is x else None
        if not alone(x, own):
            holding = _views_holding(x, values[0])
            if holding < 0:
                return False
            v = values[0]
            _memory(x, impl, v, holding)[where] = src
            del v
            for ref in x._views:  # (each a slice of x's memory again: it sees the write, as NumPy's)
                w = ref()
                if w is not None:
                    w._impl = w._view[1](x)._impl
            return True
    elif x._view is not None or any(r() is not None and r() is not writer for r in x._views or ()):
        return False
    v = values[0]
    _memory(x, impl, v)[where] = src
    return True


def _views_holding(x: Tensor, v) -> int:
    """Where x is no view itself and each of its live views has a value nothing else holds (no recorded
    op reads it: ``y = ys[i]`` whose ops ran at once), a slice of x's one value ``v`` or realized:
    how many hold v (their slices' nodes), so that after a write into v's memory (or a copy of it)
    each view derived again sees it, as NumPy's views do; -1 where that does not hold."""
    if not _unlinked(x) or not x._views:
        return -1
    holding = 0
    for ref in x._views or ():
        w = ref()
        if w is None:
            continue
        if w._views is not None and any(r() is not None for r in w._views):
            return -1  # (views of a view: their values are slices of w's)
        values = w._impl._values
        if type(values) is not list or len(values) != 1:
            return -1
        s = values[0]
        node = s.node
        # (counts: the list, ``s`` here and the argument; the node's: ``s.node``, ``node`` and the argument)
        if _getrefcount(s) != 3:
            return -1
        if node is not None:
            if node.op is not slice_op or len(node.inputs) != 1 or node.inputs[0] is not v or _getrefcount(node) != 3:
                return -1
            holding += 1
    return holding


def slice_place(x: Tensor, index, sliced):
    """Where in x's memory an op's result may be written at once as the slice at ``index`` (its
    (start, stop, step) per axis) whose value is ``sliced`` (a slice node over x's one value):
    ``x[i, :k] += w``, ``A[:, j] -= w`` (``aliasing.op_in_place``). The address of its first
    element where the slice is one run of x's memory, else (x's address, the address of the
    slice's layout, which the kernel stores through, and that layout); 0 where x is not realized host data of
    Nabla's own that nothing else sees (as ``_memory`` asks, the slice's node its one other
    reader) or anything else reads the slice."""
    impl = x._impl
    values = impl._values
    if type(values) is not list or len(values) != 1 or type(x) not in PLAIN_CLASSES or not plain_host(impl) \
            or impl.dtype.is_complex:
        return 0
    v = values[0]
    node = sliced.node
    # (counts: v's list, the slice node's inputs, ``v`` here and the call's argument; the slice
    # value's: its view's list, the caller's and this call's names, the argument; its node's: the
    # value, the caller's and this call's names, the argument)
    if type(v) is not HostValue or not v.owned or node.inputs[0] is not v or _getrefcount(v) != 4 \
            or _getrefcount(sliced) != 4 or _getrefcount(node) != 4 or not memory_unshared(v):
        return 0
    host = v.host
    if type(host) is not np.ndarray:
        return 0
    found = _PLACES.get((index, v.shape))
    if found is None:
        found = _placement(index, v.shape)
    address = v.address
    if not address:
        address = v.address = host.ctypes.data
    written_in_place(v)  # (the caller's op writes there next)
    offset, layout = found
    return address + offset * host.itemsize if layout is None else (address, layout[1], layout[0])


def _placement(index, shape) -> tuple:
    """(the first element's offset, None) of a slice that is one run of a C-ordered array of
    ``shape``, else (0, (its ``element_layout`` as an array, that array's address)). Kept per
    (index, shape)."""
    layout = element_layout(shape, index)
    if one_run(shape, index):
        found = (int(layout[1]), None)
    else:
        held = np.array(layout, np.float64)
        found = (0, (held, held.ctypes.data))
    if len(_PLACES) >= 4096:
        _PLACES.clear()
    _PLACES[index, shape] = found
    return found


#: (basic index, shape) -> ``_placement`` of it
_PLACES: dict = {}


def _index_parts(index) -> tuple:
    """(the region's shape, its elements, NumPy's key) of a basic index's (start, stop, step) per axis,
    kept per index (a loop writes a few rows or columns again and again)."""
    parts = _PARTS.get(index)
    if parts is not None:
        return parts
    region = sliced_shape(index)
    count = 1
    for d in region:
        count *= d
    parts = (region, count, tuple(slice(a, b if b >= 0 else None, c) for a, b, c in index))
    if len(_PARTS) >= 4096:
        _PARTS.clear()
    _PARTS[index] = parts
    return parts


#: a basic index -> ``_index_parts`` of it
_PARTS: dict = {}
