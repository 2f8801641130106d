"""What a trace's views are to a fused program: views that keep the order and casts that change no
value are aliases of their input, strided views of an input are loads of it (``_viewer``); a trace
whose result is a contiguous run of one input's elements is a view of its buffer, which no kernel
copies (``contiguous_view``)."""

from __future__ import annotations

import math

from ..core import dtypes as _dt
from . import op_kinds as K
from .fused_codes import BYTES, CODES, INT_CODES, view_kind
from .fused_layouts import Unfit as _Unfit
from .fused_layouts import _contiguous, _restride, _through


def contiguous_view(order, leaves, outputs, node_ids, leaf_ids):
    """(leaf, offset) when the trace's one result is a contiguous run of one input's elements
    (reshapes and basic slices of it, ``res[i]`` of a C-ordered array): a view of that input's
    buffer, which no kernel needs to copy; None otherwise."""
    if len(outputs) != 1 or not outputs[0].device.is_host:
        return None
    if any((view_kind(n.op) != "alias" and n.op is not K.GETITEM) or "complex_storage" in n.kwargs
           for n in order):
        return None
    try:
        found = _viewer(order, leaves, None, node_ids, leaf_ids)[3](outputs[0])
    except _Unfit:
        return None
    if found is None:
        return None
    leaf, offset, sizes, strides = found
    step = 1
    for n, s in zip(reversed(sizes), reversed(strides)):
        if n != 1 and s != step:
            return None
        step *= n
    return leaf, offset


def _viewer(body, leaves, dtype, node_ids, leaf_ids, count=False, result=None, registers=None, stored=True):
    """What the trace's views are: value ids (leaves -(k+1), node outputs by node index), with
    order-keeping views and free casts as aliases of their input and strided views of an input as
    loads of it. ``stored``: ``result``'s values are written as they are (a map's), so its cast
    is made by the store; a reduction or running sum must see each value cast (a float16 running
    sum adds float16 values). Returns (alias, views, ref, view_of)."""
    alias: dict[int, int] = {}
    views: dict[int, tuple] = {}  # node -> (leaf, offset, sizes, strides)

    def ref(v):
        r = -1 - leaf_ids[id(v)] if v.node is None else node_ids[id(v.node)]
        return alias.get(r, r)

    def view_of(v, shape=None):
        """The strided view (leaf, offset, sizes, strides) that ``v``, seen as ``shape``, is of a
        leaf; None for a computed value."""
        r = ref(v)
        if r < 0:
            leaf = leaves[-1 - r]
            found = (-1 - r, 0, tuple(leaf.shape), _contiguous(leaf.shape))
        elif r in views:
            found = views[r]
        else:
            return None
        shape = tuple(v.shape if shape is None else shape)
        strides = _restride(found[2], found[3], shape)
        if strides is None:
            if math.prod(found[2]) != 1:
                raise _Unfit
            strides = (0,) * len(shape)  # one element seen in a larger shape (its broadcast, an alias): every stride 0
        return found[0], found[1], shape, strides

    for i, n in enumerate(body):
        if "complex_storage" in n.kwargs or "src_complex" in n.kwargs:
            raise _Unfit
        if _is_alias(n, dtype, registers, stored and result is not None and v_is(n, result)) \
                or (count and (v_is(n, result) or counted_cast(n))):
            alias[i] = ref(n.inputs[0])
        elif view_kind(n.op) == "strided":
            found = view_of(n.inputs[0])
            if found is not None:
                views[i] = _through(n, found)
            elif n.op not in K.BROADCASTS:
                raise _Unfit  # a slice or transpose of a computed value: ``stages`` realizes it first
    return alias, views, ref, view_of


def counted_cast(n) -> bool:
    """Whether node ``n`` casts booleans to int64: a count's program keeps their 1 / 0 as they are."""
    return n.op is K.ASTYPE and n.inputs[0].dtype is _dt.bool_ and n.kwargs.get("dtype") is _dt.int64


def v_is(node, value) -> bool:
    return value.node is node


def _is_alias(node, dtype, registers=None, final=False) -> bool:
    """A node whose value is its input's, element for element, in the program's registers: views
    that keep the order, a single value broadcast, casts to this dtype from itself or from bool
    (stored as 1 / 0); in a coded float program, casts to the registers' dtype (made as an input
    is read) and the result's cast to its dtype (made as it is written)."""
    op = node.op
    kind = view_kind(node.op)
    if kind == "alias" or (kind == "real" and not node.inputs[0].dtype.is_complex):
        return True
    if op is K.BROADCAST_TO:
        return math.prod(node.inputs[0].shape) == 1
    if op is K.ASTYPE:
        src, target = node.inputs[0].dtype, node.kwargs.get("dtype")
        if dtype is BYTES and registers is not None and registers.is_floating:
            return target is registers or (final and target in CODES and target is not _dt.bool_)
        if dtype is BYTES:  # integers: the same values (uint64: the same bits) in int64 registers
            return src is target or (target in INT_CODES and (src is _dt.bool_ or target in (_dt.int64, _dt.uint64)))
        # (an integer source in a float program: positions, ``arange``'s, exact in its registers)
        return target is dtype and (src is dtype or src is _dt.bool_ or src in INT_CODES)
    return False
