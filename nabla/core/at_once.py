"""Ops computed as they are made: over realized host scalars (the engine's ``scalars`` hook), small
results over realized host data and slices of it (``small_at_once``), shape-only views of realized
data (``_alias_at_once``), and a loop over the rows of pending data realized once for its ops
(``_realized_for_a_loop``). ``Operation``'s recording paths ask these before they make a node."""

from __future__ import annotations

import weakref
from math import prod as _prod

from .graph import GRAPH
from .tensor_impl import TensorImpl
from .trace_lowering import index_memo, node_memo
from .dtypes import real_dtype


def _at_once(op, kwargs, values, impls, dtype, device):
    """A 0-d result over realized (or constant) 0-d operands computed as it is made, by the
    engine's ``scalars`` hook (``runtime/host_scalars.py``), as a realized TensorImpl; None where it
    is recorded (an operand pending, or wanting a gradient, or no hook that takes it). ``dtype``
    None: the hook's, where it has computed the op on operands of these dtypes before (an element
    loop's ops skip their shape rule; the caller asks again with it where this answers None)."""
    for v in values:
        if v.node is not None and v.node.inputs:
            return None
    scalars = _scalars_hook(impls)
    out = None if scalars is None else scalars.apply(GRAPH.engine, op, kwargs, values, dtype, device)
    return None if out is None else TensorImpl([out], out.dtype)


def _scalars_hook(impls):
    """The engine's ``scalars`` hook, where none of ``impls`` wants a gradient (None otherwise)."""
    for i in impls:
        if i.requires_grad:
            return None
    return GRAPH.engine.scalars


def small_at_once(op, kwargs, values, impls, shape, dtype, device, holds=None, inner=None, into=0,
                  any_first=False):
    """A result of at most ``SMALL_AT_ONCE`` elements (a selection, a gather or a mask's positions, of
    at most ``OPERAND_AT_ONCE``) over operands that are realized host data of
    at most ``OPERAND_AT_ONCE`` elements each (a product of a matrix and a vector, a sum), slices of realized host data (a slice's node over its source, the source any
    size) or scalar constants (their values data of the program) computed as it is made, by the
    engine's ``scalars`` hook (``HostScalars.small``), as a realized TensorImpl (of ``holds``, where
    given: a complex result's dtype over its storage's real pairs; ``inner``: an op of ``values``
    whose result ``op`` takes, as ``vector_dot``'s sum of a product); None where it is
    recorded (an operand pending or wanting a gradient, larger work, no program of one kernel
    call). Small arrays in a loop then cost what NumPy's ops cost, where a recorded op costs its
    recording, its keying at the read and, the first time, its planning; larger work is recorded,
    to be fused with what reads it (a mean over a matrix's rows with the subtraction after it) or
    run by the path a read picks for it (a matmul's model). A slice alone is recorded: its data is
    read by the op that takes it, at once here or fused into a read with the ops over it. ``into``:
    the address the result is written at instead (``HostScalars.small``), True for it done.
    ``any_first``: the first operand, realized data, may be of any size (a mask's true positions:
    nothing of it is left to fuse)."""
    # (its first operand any size: ``x[cols]`` reads len(cols) rows)
    positions = any_first and values[0].node is None
    whole = op.reads_what_it_returns or positions
    # (a selection or a gather up to an operand's size, a realized mask's positions any size: the
    # work is its result's few passes over memory, nothing of it left to fuse but what reads it)
    if (not positions and _prod(shape) > (OPERAND_AT_ONCE if whole else SMALL_AT_ONCE)) or op.index_kwarg is not None:
        return None
    pending = None  # (the pending source of an operand's slice)
    for v in values:
        node = v.node
        if node is not None:
            if not node.inputs:
                if node.op.data_kwarg is None:
                    return None
                continue  # (a scalar constant: its value is data of the program)
            if node.op.index_kwarg is None or len(node.inputs) != 1:
                return None  # (pending: recorded)
            if node.inputs[0].node is not None:
                pending = node.inputs[0]
        if whole:
            whole = positions  # (a mask's positions: its count's carrier, too, any size)
            continue
        if _prod(v.shape) > OPERAND_AT_ONCE:
            return None
    if pending is not None:  # (recorded, or, in a loop over its rows, run at once once it is realized)
        if not _realized_for_a_loop(op, pending):
            return None
        out = small_at_once(op, kwargs, values, impls, shape, dtype, device, holds, inner, into)
        # (refused again, twice in a row: the op is recorded anyway, its loops' data stays lazy)
        _NO_LOOP[op] = 0 if out is not None else _NO_LOOP.get(op, 0) + 1
        return out
    scalars = _scalars_hook(impls)
    out = None if scalars is None else scalars.small(GRAPH.engine, op, kwargs, values, shape, dtype, device, inner,
                                                     into, holds)
    if into or out is None:
        return out
    return TensorImpl([out], dtype if holds is None else holds)


def _realized_for_a_loop(op, source) -> bool:
    """Count an op at once refused for a small slice of pending ``source``; at the
    ``_LOOP_REFUSALS``-th for one source, a loop is taking its rows one by one (deriche's
    ``a5 * imgOut[i, :]``, row after row, after ``imgOut = y1 + y2``): realize it, with the rest of
    the pending work, so that its slices' ops run at once and its writes go into its memory, where
    each was recorded, keyed at the read and planned; an array the loop writes row by row (deriche's
    ``y1``, each write a new value) counts at the value its writes began from. A stencil takes a few
    slices of each step's value (never this many of one); a slice of more than ``SMALL_AT_ONCE``
    elements, or one whose op's result is larger, is recorded, fused with its ops. True where
    ``source`` is realized."""
    engine = GRAPH.engine
    if op.fused is not None and op.fused.view is not None:
        return False  # (a view of the slice, ``expand_dims`` of a vector before its product: no work)
    if GRAPH.captures or source.dtype.is_complex or not engine.small_at_once \
            or engine.scalars is None or not engine.scalars.serves(engine):
        return False
    refused = _NO_LOOP.get(op, 0)
    if refused >= 2:  # (turned off for this op; tried again after ``_NO_LOOP_PAUSE`` asks, so one
        # loop whose programs were refused does not turn it off for the rest of the process)
        _NO_LOOP[op] = 0 if refused >= _NO_LOOP_PAUSE else refused + 1
        return False
    root = source  # (an array the loop writes row by row: its writes' chain, counted at its first value)
    while root.node is not None and root.node.op.index_kwarg is not None and len(root.node.inputs) == 2:
        root = root.node.inputs[0]
    if _REFUSED.add(root) < _LOOP_REFUSALS:
        return False
    _REFUSED.forget(root)
    GRAPH.evaluate()  # (every live pending array: the loop's others, written row by row, with it)
    if source.node is not None:  # (held only by its slices' nodes)
        GRAPH.evaluate([TensorImpl([source], source.dtype)])
    return source.node is None


class CountsPerValue:
    """A count per value (by id, checked by a weak reference: a new value at a freed id counts from
    one), for at most ``kept`` values at a time: how often a loop has asked something of one."""

    def __init__(self, kept: int = 256):
        self._counts: dict = {}
        self._kept = kept

    def add(self, value) -> int:
        """One more for ``value``; its count."""
        found = self._counts.get(id(value))
        count = 1 if found is None or found[0]() is not value else found[1] + 1
        if count == 1 and len(self._counts) >= self._kept:
            self._counts.clear()
        self._counts[id(value)] = (weakref.ref(value), count)
        return count

    def forget(self, value) -> None:
        self._counts.pop(id(value), None)


#: per pending value, the ops at once refused for its slices; the count at which a loop is taking
#: them; per op, the times in a row its program was refused once its operands were realized for a
#: loop (twice: recorded anyway, no realization for it again)
_REFUSED = CountsPerValue()
_LOOP_REFUSALS = 16
_NO_LOOP: dict = {}
_NO_LOOP_PAUSE = 256


def kept_at_once(op, kwargs, values, impls, device):
    """``small_at_once`` of an op whose program over operands of these shapes, dtypes and slices
    the engine keeps already, before the op's shape rule (which it passed then): a loop's ops at
    once skip it. None where no program is kept (the caller goes on as ``small_at_once``'s does)."""
    if op.index_kwarg is not None:
        return None
    for v in values:  # (each at most ``SMALL_AT_ONCE`` elements: the caller asked)
        node = v.node
        if node is not None and (node.op.index_kwarg is None or len(node.inputs) != 1
                                 or node.inputs[0].node is not None) and (node.inputs or node.op.data_kwarg is None):
            return None
    scalars = _scalars_hook(impls)
    out = None if scalars is None else scalars.small(GRAPH.engine, op, kwargs, values, None, None, device)
    return None if out is None else TensorImpl([out], out.dtype)


#: the engine hook's answer where it keeps no program for an op's operands (``HostScalars.small_binary``):
#: the op's recording then skips ``kept_at_once``, which would look for it again
NOT_KEPT = object()


def kept_pair(named, items: tuple, a, b):
    """``small_at_once``'s op ``named`` (an op, or (op, inner)) with kwargs ``items`` over plain
    arrays ``a`` and ``b``, by a program the engine keeps for them (``HostScalars.small_pair``);
    None where none is kept (the caller asks ``small_at_once``)."""
    scalars = GRAPH.engine.scalars
    out = None if scalars is None else scalars.small_pair(named, items, a, b)
    return None if out is NOT_KEPT else out


def kept_into(op, x, y, into) -> bool:
    """``x op= y`` into ``into`` (``small_at_once``'s ``into``) by a program the engine keeps for
    these operands (``HostScalars.small_into``): True where it ran; False where none is kept (the
    caller asks ``small_at_once``, which plans it)."""
    scalars = GRAPH.engine.scalars
    return scalars is not None and scalars.small_into(op, x, y, into)


def _alias_at_once(op, kwargs, value, impl):
    """An op that only gives realized host data another shape of its elements (``reshape``, an axis
    put in or taken out) as a realized TensorImpl over the same memory, nothing computed (a run of
    the kernel cost ~4 us, NumPy's view 0.2), by the engine's ``scalars`` hook; None where it is
    recorded. A complex array's too: recorded, its storage's reshape made a gather of its rows
    read element by element (mandelbrot's ``Z[I]`` over 62,500 elements 230 us, a real one's 40)."""
    scalars = _scalars_hook((impl,))
    if scalars is None:
        return None
    shape, dtype, batch_dims = op.abstract_eval(impl, **kwargs)
    if batch_dims:
        return None
    # (a complex value's storage: its real pairs, the pair axis last in memory)
    out = scalars.view(GRAPH.engine, value, shape + (2,) if dtype.is_complex else shape)
    return None if out is None else TensorImpl([out], dtype)


def slice_reshaped(op, kwargs, value, impl):
    """``(kwargs, shape, memo)`` of the slice node over realized data that ``op`` of slice ``value``
    of it is, where ``op`` only puts in, takes out or moves axes of length 1 (``x.T`` of a column
    ``pos[:, 0:1]``, ``c[:, None]`` of a row's slice): the slice's index under the op's shape, a
    slice that ops at once read as any other (each such view was a kernel run copying its
    elements, ~12 us; NumPy's view 0.2); None for any other op or value."""
    perm = kwargs.get("perm") if op.fused.view == "strided" else None
    node = value.node
    if (perm is None and op.fused.view != "alias") or _prod(node.inputs[0].shape) > OPERAND_AT_ONCE:
        return None  # (a slice of it; a view of a larger source's slice: copied at once, as a recorded read takes it)
    if perm is not None:  # (a transpose: the axes longer than 1 keep their order)
        kept = [a for a in perm if value.shape[a] != 1]
        if kept != sorted(kept):
            return None
    shape, dtype, batch_dims = op.abstract_eval(impl, **kwargs)
    if batch_dims or dtype.is_complex or (perm is None and [d for d in shape if d != 1] != [d for d in value.shape
                                                                                       if d != 1]):
        return None
    memo = node.memo if node.memo is not None else node_memo(node)
    index = node.kwargs["index"]
    return {"index": index, "shape": shape}, shape, index_memo(dict(memo[0])["index"], memo[2], shape)


def _complex_at_once(op, kwargs, values, impls, shape, dtype, device):
    """``small_at_once`` of an op over complex operands (their storage: real pairs, ``kwargs`` the
    storage's) or of a complex result: a loop over small complex matrices (``G[k, E - w, n] @
    dH[a, b, i]``) runs as its real loop does."""
    if dtype.is_complex:
        return small_at_once(op, kwargs, values, impls, shape + (2,), real_dtype(dtype), device, dtype)
    return small_at_once(op, kwargs, values, impls, shape, dtype, device)


#: the most elements a result computed at once over realized host data has (``small_at_once``): a
#: loop's rows and columns; and the most each of its operands has (a slice's, not its source's): a
#: product of a 100 x 100 matrix and a vector, or its sum, is a few microseconds of one kernel call,
#: where recorded it cost a read of its own at the next scalar a loop reads (~75 us). Up to ~8,000
#: elements an op at once (~5 us and a pass over L2-resident memory) costs about what recording it
#: does (~4.5 us, ~2 us of keying at the read, its share of the fused pass), and a loop whose every
#: step reads (durbin's ``y[:k] += alpha * np.flip(y[:k])`` before its next ``np.dot``) meets no new
#: structure per length: durbin at N = 6,000 runs its first call in 1.0 s (3.7 with a limit of
#: 2,048), `jacobi_1d` at N = 3,200 in 66 ms a call (78); above it, a statement of many ops over one
#: pass of fused memory wins (`heat_3d`'s 12,167-element slices: 11 ms a call recorded, 14.7 at once)
SMALL_AT_ONCE = 8192
OPERAND_AT_ONCE = 16384
