"""The recorded trace's types: a ``Node`` per op call, a ``Value`` per output (a leaf once it
holds a buffer), and ``HostValue``, a leaf over host memory of Nabla's own. The lowest module of
the core: the engine and the trace's keying name these types without the graph of pending work."""

from __future__ import annotations

import sys
import weakref

import numpy as np
from max import driver


#: the keying memo of a node without kwargs (``trace_lowering.node_memo``)
NO_KWARGS_MEMO = ((), None, None)


class Node:
    """One recorded operation call: the op singleton, its static kwargs, its input values."""

    __slots__ = ("op", "kwargs", "inputs", "treedef", "memo", "__weakref__")

    def __init__(self, op, kwargs: dict, inputs: tuple, treedef=None):
        self.op = op
        self.kwargs = kwargs
        self.inputs = inputs
        self.treedef = treedef  # structure of the op's tensor args, when not flat
        # what keying finds of it, once (``trace_lowering.node_memo``; a read traces a node again):
        # of a node without kwargs it is known now
        self.memo = None if kwargs else NO_KWARGS_MEMO


class Value:
    """A symbolic value: output ``index`` of ``node``; a leaf holding ``buffer`` once realized."""

    # (``host``, ``owned`` and ``address`` are a ``HostValue``'s: declared here, so that a run's small
    # result becomes one in place, ``as_host_value``, with no new object for the nodes that read it)
    __slots__ = ("node", "index", "shape", "dtype", "device", "buffer", "host", "owned", "address", "__weakref__")

    def __init__(self, node, index, shape, dtype, device, buffer=None):
        self.node = node
        self.index = index
        self.shape = shape  # physical, concrete ints
        self.dtype = dtype  # nabla DType of the stored data
        self.device = device
        self.buffer = buffer

    @classmethod
    def leaf(cls, buffer, shape, dtype, device) -> "Value":
        return cls(None, 0, shape, dtype, device, buffer)


def buffer_of(host: np.ndarray):
    """A driver buffer over ``host``'s memory (MAX's ``from_numpy`` refuses 0-d booleans: those go
    through one element)."""
    if host.ndim == 0 and host.dtype == np.bool_:
        buf = driver.Buffer.from_numpy(host.reshape(1))
        return buf.view(buf.dtype, ())
    return driver.Buffer.from_numpy(host)


_BUFFER = Value.buffer  # (the slot, beneath ``HostValue.buffer``)


class HostValue(Value):
    """A realized leaf whose buffer wraps ``host``, host memory of Nabla's own (a NumPy array).
    While ``owned``, nothing else can see that memory, and an element write of a realized host
    array (``x[i, j] = v`` in an element loop) goes into it at once, as NumPy's does
    (``nabla/ops/host_writes.py``). Anything that may keep a view of the memory gives it up
    (``give_up``): a run that reads the value, a bit view, an export. Its driver buffer is made
    at the first ask: a picked element is mostly read from ``host`` (a program's constant, a
    ``float()``), and a buffer costs more than the rest of the pick (~1.5 us). ``host`` may also be
    NumPy's scalar (a 0-d pick, an op over host scalars: a copy read back) or ``CarvedMemory`` (an
    op's small result at once), its array made at the first ask (``host_view``: ask through it).
    ``address``: its memory's, where known without asking (a run's result), else 0."""

    __slots__ = ()

    @property
    def buffer(self):
        b = _BUFFER.__get__(self, HostValue)
        if b is None:
            b = buffer_of(host_view(self))
            _BUFFER.__set__(self, b)
        return b

    @buffer.setter
    def buffer(self, b):
        _BUFFER.__set__(self, b)


def host_value(buffer, shape, dtype, device, host, owned: bool, address: int = 0) -> HostValue:
    """A realized leaf over ``buffer`` (None: made from ``host`` when first asked), whose memory
    is the NumPy array ``host`` (at ``address``, where known). (Its fields set here, not by ``Value.__init__``: half the cost, and
    a loop over elements makes one per pick and per scalar op.)"""
    v = _new(HostValue)
    v.node, v.index, v.shape, v.dtype, v.device, v.host, v.owned, v.address = \
        None, 0, shape, dtype, device, host, owned, address
    _BUFFER.__set__(v, buffer)
    return v


_new = object.__new__


def as_host_value(value, host, owned: bool, address: int = 0) -> None:
    """Make the computed ``value`` a realized ``HostValue`` over ``host`` (a run's result in host
    memory of Nabla's own, at ``address`` where known): the same object, so every node that reads
    it reads the leaf."""
    value.__class__ = HostValue
    value.host, value.owned, value.address = host, owned, address
    _BUFFER.__set__(value, None)
    value.node = None


class CarvedMemory:
    """A small result's memory, carved from a block of host memory (``runtime.result_memory``): its
    NumPy view is made at the first ask (``host_view``), so a result that only later ops at once
    read, by its address, never needs one (a view costs ~0.6 us, a fifth of such an op)."""

    __slots__ = ("block", "offset", "shape", "dtype")

    def __init__(self, block, offset: int, shape: tuple, dtype):
        self.block, self.offset, self.shape, self.dtype = block, offset, shape, dtype

    def view(self) -> np.ndarray:
        return np.ndarray(self.shape, self.dtype, self.block, self.offset)


def known_address(value) -> int:
    """The address of host leaf ``value``'s memory where it is known without a driver buffer (a run's
    result knows it; a C-ordered NumPy array of its own tells it, kept from then on: its memory for
    its life), else 0 (a buffer made to ask costs ~2-3.5 us)."""
    if type(value) is not HostValue:
        return 0
    if value.address:
        return value.address
    host = value.host
    if type(host) is np.ndarray and host.flags.c_contiguous:
        address = value.address = host.ctypes.data
        return address
    return 0


def host_view(value):
    """The NumPy view of a realized host leaf's memory (a ``HostValue`` keeps it; carved memory gets
    its view here, NumPy's scalar its 0-d array, once)."""
    if type(value) is HostValue:
        host = value.host
        if type(host) is not np.ndarray:
            host = value.host = host.view() if type(host) is CarvedMemory else np.array(host)
        return host
    return value.buffer.to_numpy()


def memory_unshared(value) -> bool:
    """Whether nothing but host ``value`` holds its memory: its driver buffer, where one is made
    (its slot, ``b`` and the call's argument), and its NumPy array (its slot, that buffer's hold on
    it and the argument; no buffer: its slot and the argument)."""
    b = _BUFFER.__get__(value, HostValue)
    if b is None:
        return _getrefcount(value.host) == 2
    return _getrefcount(b) == 3 and _getrefcount(value.host) == 3


_getrefcount = sys.getrefcount


def watch(value, forget) -> None:
    """Call ``forget()`` once ``value``'s memory is written in place (``written_in_place``): a cache
    of what its data gave (a mask's positions) is stale from then on."""
    found = _WATCHED.get(id(value))
    if found is None or found[0]() is not value:
        if len(_WATCHED) >= 1024:
            for k in [k for k, (r, _) in _WATCHED.items() if r() is None]:
                del _WATCHED[k]
        found = _WATCHED[id(value)] = (weakref.ref(value), [])
    found[1].append(forget)


def written_in_place(value) -> None:
    """``value``'s memory was just written in place (an element or slice write at once): what
    ``watch`` registered for it is forgotten."""
    if _WATCHED:
        found = _WATCHED.pop(id(value), None)
        if found is not None and found[0]() is value:
            for forget in found[1]:
                forget()


#: per value whose data a cache holds a result of (by id, checked by a weak reference): those
#: caches' ``forget`` calls (``watch``)
_WATCHED: dict = {}


def give_up(value) -> None:
    """``value``'s memory may be seen from elsewhere from now on: no write goes into it in place."""
    if type(value) is HostValue:
        value.owned = False
