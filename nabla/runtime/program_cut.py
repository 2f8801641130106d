"""A cut of a trace: the part that computes one value from values that have buffers, which the
scheduler (``program.py``) makes a stage of; keyed by structure, slice starts as data."""

from __future__ import annotations

import math

from ..core.graph import Node, Value
from ..core.trace_lowering import hashable_params
from .fused_codes import COSTLY, COSTLY_OPS, reduce_kind, scan_kind, view_kind
from .fused_layouts import Offset
from .op_kinds import GREATER, LOGICAL_NOT, MATMUL, TAKE

#: a value of at least this much work (its ops, a costly one counted ``COSTLY``), used where the
#: stage's elements outnumber its own this many times, gets a stage of its own (``Cut.first_parts``)
_SMALL_PART_WORK, _SMALL_PART_RATIO = 4, 16


def _hashable(kwargs, op) -> tuple:
    """An op's kwargs as a structure key holds them (a scalar constant's value is data)."""
    if op.data_kwarg is not None:
        kwargs = {k: v for k, v in kwargs.items() if k != op.data_kwarg}
    return hashable_params(kwargs) if kwargs else ()


def _deep_first(stack, count, buffer_of, stop_ids, heights) -> None:
    """Reorder the top ``count`` nodes of ``stack`` (a node's operands, the first on top) so that
    the operand of the deepest work is taken first (Sethi & Ullman 1970 order operands by the
    registers they need; depth, counted to ``_DEPTH``, stands for that), the first among equals."""
    top = stack[-count:]
    cap = 2  # (deepened while the operands look alike: most differ at once, a step's term from a chain)
    while True:
        depth = [_height(m, cap, buffer_of, stop_ids, heights) for m in top]
        if min(depth) != max(depth) or depth[0] < cap or cap >= _DEPTH:
            break
        cap += 1
    if min(depth) != max(depth):  # (a stable sort: the first operand stays on top among equals)
        stack[-count:] = [top[i] for i in sorted(range(count), key=depth.__getitem__)]


#: how deep ``_deep_first`` looks into an operand's work (a loop's chain is deeper than any step)
_DEPTH = 6
#: the most nodes of a cut that cannot hold more values at a time than the evaluator's 24
#: registers, whatever their order (``Cut.deepen``)
_SHALLOW = 16


def _height(node, cap, buffer_of, stop_ids, heights) -> int:
    """The longest path of work behind ``node`` that the cut computes, counted to ``cap``."""
    key = (id(node), cap)
    found = heights.get(key)
    if found is None:
        found = 1
        if cap > 1:
            for u in node.inputs:
                m = u.node
                if m is not None and id(u) not in buffer_of and id(m) not in stop_ids:
                    found = max(found, 1 + _height(m, cap - 1, buffer_of, stop_ids, heights))
                    if found >= cap:
                        break
        heights[key] = found
    return found


#: op -> whether its value ends a program (a reduction, a running sum, a matmul), asked once per op
_ENDS: dict = {}


def ends_program(op) -> bool:
    """Whether ``op``'s value ends a program (a reduction, a running sum, a matmul): no program
    computes more from it, so a cut computes it first (kept in ``_ENDS``)."""
    found = _ENDS.get(op)
    if found is not None:
        return found
    found = _ENDS[op] = op is MATMUL or scan_kind(op) is not None or reduce_kind(op) is not None
    return found


def ends_below(root_op) -> bool:
    """Whether a cut rooted at ``root_op`` computes the values that end a program first: all but a
    count's test (``any``, ``all``), whose program ends with the count."""
    return root_op is not GREATER and root_op is not LOGICAL_NOT


def starts(index, position):
    """A basic index with its starts as ``Offset``s of the trace node at ``position``."""
    return tuple((Offset.start(sl[0], (position, axis)), sl[1], sl[2]) for axis, sl in enumerate(index))


class Cut:
    """The part of a trace that computes ``value`` from values that have buffers (the trace's
    leaves, and values earlier stages compute): its nodes in post-order (``origins``), those values
    (``sources``) and its structure (``key``, slice starts as data). ``clone`` copies it as a trace
    of its own (the values with buffers as its leaves, slice starts as ``Offset``s), which is only
    needed for a structure not planned before in this trace."""

    __slots__ = ("value", "origins", "sources", "missing", "inputs", "sizes", "work", "key", "result_ref", "order",
                 "leaves", "node_ids", "leaf_ids", "result", "original", "deep")

    def __init__(self, value, buffer_of, stop_ids):
        self.value = value
        self.deep = False
        self._walk(value, buffer_of, stop_ids, False)

    def deepen(self, buffer_of, stop_ids) -> bool:
        """Walk the cut again, the operand of the deepest work first (``_deep_first``), where its
        program, written in the order walked, held more values at a time than the evaluator has
        registers; False where that changes nothing (a cut of at most ``_SHALLOW`` nodes, or one
        walked so already)."""
        if self.deep or len(self.origins) <= _SHALLOW:
            return False
        self.deep = True
        self._walk(self.value, buffer_of, stop_ids, True)
        return True

    def _walk(self, value, buffer_of, stop_ids, deep: bool) -> None:
        """The cut's nodes, sources and key, its operands taken in order, or (``deep``) the operand of
        the deepest work first (``_deep_first``). A cut of at most ``_SHALLOW`` nodes holds fewer
        values at a time than the evaluator has registers whatever its order: a loop's cuts, most of
        them, are walked once, in order (ordering their operands was an eighth of planning syr2k)."""
        self.origins: list = []  # the cut's nodes, each after its inputs
        self.sources: list = []  # the values it stops at: the leaves of its copy
        self.missing: list = []  # of those, the ones with no buffer yet (a foreign op's)
        self.inputs: list = []  # per node: its inputs' references (-1 - source, or node << 8 | output)
        self.sizes: list = []  # per node: elements of its (largest) output the cut reads
        self.work: list = []  # per node: its ops and, counted per read, those of the work it reads here
        self.order = None  # (the copy, once made)
        node_at: dict = {}
        leaf_at: dict = {}
        sigs: list = []
        origins, inputs, sizes, sources, work = self.origins, self.inputs, self.sizes, self.sources, self.work
        prod = math.prod

        missing = self.missing
        # post-order over the nodes behind ``value``, stopping at values with buffers: a value stops
        # the cut where it has a buffer or its node is in ``stop_ids`` (writes, row additions, nonzero
        # are stages of their own kinds, ``_OWN_KIND``; foreign work runs alone). ``node_at`` holds
        # -1 for a node whose operands are being placed. (One loop, nothing called per operand: a
        # loop's trace makes a cut per slice write, tens of thousands.)
        stack = [value.node]
        push, pop, node_get, leaf_get = stack.append, stack.pop, node_at.get, leaf_at.get
        # a reduction, running sum or matmul below the root ends a program of its own (a program
        # ends with one, whatever its sizes), so its value is computed first, its work not walked: a
        # loop's ``(b[i] - L[i, :i] @ x[:i]) / L[i, i]`` is a new structure at every length, and
        # writing each only to refuse it cost most of its planning. Not below a count's test
        # (``any``), whose program ends with the count
        ends_get = _ENDS.get if ends_below(value.node.op) else None
        heights = None  # (``_deep_first``'s depths of operands, once each)
        while stack:
            n = stack[-1]
            nid = id(n)
            at = node_get(nid)
            if at is None:
                node_at[nid] = -1
                # (the deeper operand's work first, then the first operand's: ``acc + f(x_i)`` and
                # ``f(x_i) + acc`` over a long chain then hold two values at a time, where taking
                # ``f(x_i)`` first at every step held each of them until the end and ran the
                # evaluator out of registers)
                waiting = 0
                for v in reversed(n.inputs):
                    m = v.node
                    if m is not None:
                        mid = id(m)
                        if mid not in node_at and mid not in stop_ids and id(v) not in buffer_of:
                            if ends_get is not None:
                                ends = ends_get(m.op)
                                if ends is None:
                                    ends = ends_program(m.op)
                                if ends:
                                    node_at[mid] = -2  # (computed first: a source, missing)
                                    continue
                            push(m)
                            waiting += 1
                if waiting > 1 and deep:
                    if heights is None:
                        heights = {}
                    _deep_first(stack, waiting, buffer_of, stop_ids, heights)
                if waiting:
                    continue
            elif at >= 0:
                pop()
                continue
            pop()
            refs = []
            total = COSTLY if n.op in COSTLY_OPS else 1  # (``x * exp(t)``'s exp of a scalar: computed once)
            for v in n.inputs:
                vid = id(v)
                k = leaf_get(vid)
                if k is None:
                    m = v.node
                    if m is None or vid in buffer_of or id(m) in stop_ids:
                        if m is not None and vid not in buffer_of:
                            missing.append(v)
                        k = leaf_at[vid] = len(sources)
                        sources.append(v)
                    else:
                        j = node_at[id(m)]
                        if j < 0:  # (a reduction's value: computed first)
                            missing.append(v)
                            k = leaf_at[vid] = len(sources)
                            sources.append(v)
                            refs.append(-1 - k)
                            continue
                        size = prod(v.shape)
                        if size > sizes[j]:
                            sizes[j] = size
                        refs.append((j << 8) | v.index)
                        total += work[j]
                        continue
                refs.append(-1 - k)
            memo = n.memo  # (keying the trace found its kwargs' structure once: the same as a cut's)
            if memo is not None:
                sig = memo[0]
            else:
                key = n.op.index_kwarg
                sig = tuple((k, tuple((len(range(*sl)), sl[2]) for sl in x) if k == key else x)
                            for k, x in n.kwargs.items()) if key is not None else _hashable(n.kwargs, n.op)
            refs = tuple(refs)
            node_at[nid] = len(origins)
            origins.append(n)
            inputs.append(refs)
            sizes.append(0)
            work.append(total)
            sigs.append((n.op, sig, refs, n.treedef))
        j = node_at[id(value.node)]
        size = prod(value.shape)
        if size > sizes[j]:
            sizes[j] = size
        self.result_ref = (j << 8) | value.index
        self.key = (tuple(sigs), tuple([(v.dtype, v.shape) for v in sources]), self.result_ref)

    def clone(self) -> None:
        """Make the copy: ``order``, ``leaves``, ``node_ids``, ``leaf_ids``, ``result`` and
        ``original`` (id(copied value) -> original value)."""
        if self.order is not None:
            return
        self.leaves = [Value(None, 0, v.shape, v.dtype, v.device) for v in self.sources]
        self.leaf_ids = {id(c): k for k, c in enumerate(self.leaves)}
        self.original = {id(c): v for c, v in zip(self.leaves, self.sources)}
        self.order, self.node_ids = [], {}
        made: dict = {}

        def val(r, orig):
            if r < 0:
                return self.leaves[-1 - r]
            c = made.get(r)
            if c is None:
                c = made[r] = Value(self.order[r >> 8], r & 255, orig.shape, orig.dtype, orig.device)
                self.original[id(c)] = orig
            return c

        for j, n in enumerate(self.origins):
            ins = tuple(val(r, v) for r, v in zip(self.inputs[j], n.inputs))
            kwargs = n.kwargs
            key = n.op.index_kwarg
            if key is not None:  # (starts as Offsets of this cut's node: data, mapped to the trace's later)
                kwargs = {**kwargs, key: starts(kwargs[key], j)}
            c = Node(n.op, kwargs, ins, n.treedef)
            self.node_ids[id(c)] = j
            self.order.append(c)
        self.result = val(self.result_ref, self.value)

    def first_parts(self, readers) -> list:
        """Values worth a stage of their own before this cut's (a few ops or more: a view or a
        constant is not), the original values, to compute first:
        - values it would compute once per element of something much larger (a stage's registers
          hold values spread to its whole shape): ``x + sum_i tanh(a[i, i])`` over a 2000 x 2000
          ``x`` would run the 4,000 scalar ops four million times;
        - values other stages read too (``readers``: id(value) -> the nodes reading it), which each
          of them would compute again: the scalars a recurrence carries (``beta *= 1 - alpha **
          2``, read by every later step) would be computed once per step, and the loop's cost would
          grow with the square of its length."""
        found: dict = {}  # id(value) -> value, in the order found
        for j, n in enumerate(self.origins):
            # a gather's rows computed here: the evaluator gathers from inputs (and views of them)
            # only, so they are a stage first, found before any plan is tried (a loop of interp
            # calls over a computed ``xp`` planned each halving step's gather apart, its planning
            # growing with the cube of the loop's length: 8 calls 5.6 s)
            if n.op is TAKE and self.inputs[j][0] >= 0:
                u = w = n.inputs[0]
                while w.node is not None and view_kind(w.node.op) in ("alias", "strided"):
                    w = w.node.inputs[0]
                if w.node is not None:
                    found[id(u)] = u
        if found:
            return list(found.values())
        if self.work[-1] <= _SMALL_PART_WORK:  # (the root's work, all of it: no operand's reaches a part's)
            return []
        work = self.work
        uses = None  # id(value) -> its reads inside this cut, once asked
        for j, refs in enumerate(self.inputs):
            size = self.sizes[j]
            for r, u in zip(refs, self.origins[j].inputs):
                if r < 0 or work[r >> 8] < _SMALL_PART_WORK or id(u) in found:
                    continue
                if math.prod(u.shape) * _SMALL_PART_RATIO <= size:
                    found[id(u)] = u
                    continue
                # read outside this cut: ``readers`` lists a node once per read, so more reads than
                # the cut's own (counted, where scanning each value's readers for one outside the
                # cut cost the length of a loop's trace per value: a value every step reads)
                if uses is None:
                    uses = {}
                    for n in self.origins:
                        for w in n.inputs:
                            uses[id(w)] = uses.get(id(w), 0) + 1
                if len(readers.get(id(u), ())) > uses.get(id(u), 0):
                    found[id(u)] = u
        return list(found.values())

    def position(self, i, node_ids) -> int:
        """The trace position of this cut's node ``i``."""
        return node_ids[id(self.origins[i])]

    def offset(self, off, node_ids):
        """``off`` (in terms of this cut's nodes' starts) in terms of the trace's."""
        if type(off) is not Offset:
            return off
        origins = self.origins  # (``position`` inlined: a loop's trace maps an offset per slice write)
        return Offset(int(off), off.const, {(node_ids[id(origins[i])], axis): c for (i, axis), c in off.terms.items()})
