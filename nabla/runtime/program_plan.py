"""A scheduled program, bound and run: the stages ``program.py`` cut a trace into (``_Stage``, with the
``_Buffer``s they read and write), laid out once per structure (``ProgramPlan``: the arena of
intermediates, the results' block, the constants, one kernel call per run of stages between foreign
ops), then per run only bound: the leaves' addresses, this run's scalar constants and the layout
offsets its slice starts give, into a copy of the call array (``_RunState``); a small program keeps
its state between runs (``_QuickRun``)."""

from __future__ import annotations

import math
import threading
from collections import Counter
from itertools import chain
from operator import itemgetter

import numpy as np
from max import driver

from ..core.graph import GRAPH, Node, Value, host_view
from ..core.values import known_address
from .fused_codes import constant_bits
from .fused_layouts import Offset
from .program_kernel import COPY, GATHER, MAP, NONZERO, REDUCE, SCAN, SCATTER, SCATTER_ADD, STAGE
from .program_kernel import module as _kernel_module
from .result_memory import _BLOCK_RESULT, _HOST_DTYPES, _LARGE, HOST_BLOCKS, LARGE_BLOCKS, host_memory

_MAP, _REDUCE, _SCAN, _COPY, _SCATTER, _SCATTER_ADD, _NONZERO, _GATHER = MAP, REDUCE, SCAN, COPY, SCATTER, \
    SCATTER_ADD, NONZERO, GATHER
_FOREIGN = -1  # an op the kernel lacks (a large matmul, a linalg or sort kernel): run on its own between calls



class _Buffer:
    """A buffer of the program: a leaf's, a result's, or an intermediate's place in the arena."""

    __slots__ = ("index", "value", "nbytes", "result", "arena_at", "leaf", "same", "shared")

    def __init__(self, index, value, result=False, leaf=None):
        self.index, self.value, self.result, self.leaf = index, value, result, leaf
        self.nbytes = math.prod(value.shape) * value.dtype.itemsize
        self.arena_at = None
        self.same = None  # the buffer whose memory this one is (a write in place, a view)
        self.shared = False  # its memory holds another value too (a view's): no write stores into it

    def memory(self) -> "_Buffer":
        b = self
        while b.same is not None:
            b = b.same
        return b


class _Stage:
    __slots__ = ("kind", "family", "program", "consts", "out", "n", "layout", "count", "slots", "lifted", "ints",
                 "offsets", "read", "out_at")

    def __init__(self, kind, family, program, consts, out, n, layout=None, count=0, slots=(), lifted=(), ints=False,
                 offsets=()):
        self.kind, self.family, self.program, self.consts, self.out, self.n = kind, family, program, consts, out, n
        self.layout, self.count, self.slots, self.lifted, self.ints = layout, count, slots, lifted, ints
        self.offsets = offsets  # (index in consts, Offset)
        self.read = ()  # (trace leaf, index in consts): a one-element leaf's value, read per run
        self.out_at = 0  # byte offset of the output in ``out`` (an ``Offset`` where slice starts move it)



def _aligned(nbytes: int) -> int:
    """A place's size: ``nbytes`` rounded up to 64 bytes (a cache line; the kernel's loads align)."""
    return (nbytes + 63) // 64 * 64


def _lay_out_arena(stages, buffers) -> int:
    """Place each intermediate in the arena (``arena_at``, 64-byte aligned); its size in bytes.

    Stages run one after another, so memory whose last reader is stage ``k`` may hold a value
    first written by a stage after ``k``: a loop's program reuses a few buffers' worth of memory
    instead of one per step (a stencil of 60 steps over 180,000 elements: 341 MB of fresh memory,
    whose first touch cost 2.4 s, against a few MB that stay in cache). Free memory is kept by
    size and taken only at the same size: a loop's buffers repeat their sizes, and memory never
    splits, so the arena is never larger than one place per intermediate."""
    first: dict = {}  # memory -> the stage that first writes or reads it
    last: dict = {}  # memory -> the stage that last reads or writes it
    # a foreign op's output may be a view of its operands' memory (a reshape returns its input):
    # a use of it is a use of the intermediates it may alias
    aliases: dict = {}  # foreign output buffer -> the intermediates' memories it may alias
    for k, s in enumerate(stages):
        foreign = type(s.out) is not _Buffer
        outs = s.out if foreign else (s.out,)
        reads = [slot if type(slot) is _Buffer else slot[0] for slot in s.slots]
        held = [] if foreign else None
        for b in (*outs, *reads):
            if type(b) is not _Buffer:
                continue
            m = b.memory()
            for a in aliases.get(m, ()):
                last[a] = k
                if held is not None:
                    held.append(a)
            if m.leaf is not None or m.result or m.arena_at is not None:
                continue
            first.setdefault(m, k)
            last[m] = k
            if held is not None:
                held.append(m)
        if held:
            for b in outs:
                aliases[b.memory()] = held
    ending: dict = {}  # stage -> the memories it reads last
    for m, k in last.items():
        ending.setdefault(k, []).append(m)
    free: dict = {}  # aligned size -> places free
    top = 0
    done = -1  # memories last read at stages up to this one are free
    for m, k in first.items():  # (in stage order: the stages were walked in order)
        for j in range(done + 1, k):
            for e in ending.get(j, ()):
                free.setdefault(_aligned(e.nbytes), []).append(e.arena_at)
        done = k - 1
        size = _aligned(m.nbytes)
        places = free.get(size)
        if places:
            m.arena_at = places.pop()
        else:
            m.arena_at = top
            top += size
    for b in buffers:  # (an intermediate no stage names: a place of its own)
        if b.leaf is None and not b.result and b.same is None and b.arena_at is None:
            b.arena_at = top
            top += _aligned(b.nbytes)
    return top


class ProgramPlan:
    """A trace's stages, ready to bind: kernel calls (one per run of stages between foreign ops)
    and foreign ops, with the places each run fills in."""

    kind = "program"
    #: names of the single-op models of the large matmuls it takes because they were not on the
    #: machine when it was planned (``paths.FirstSight.program_run`` plans again once one is)
    awaited: tuple = ()

    def __init__(self, stages, buffers, outputs, buffer_of):
        self.stages = len(stages)
        foreign_outputs = 0
        for s in stages:
            if s.kind == _FOREIGN:
                for b in s.out:
                    b.arena_at = ("foreign", foreign_outputs)
                    foreign_outputs += 1
        self.arena_bytes = _lay_out_arena(stages, buffers)
        self.foreign_outputs = foreign_outputs
        results = [buffer_of[id(v)] for v in outputs]
        # per result: dtype, shape, bytes, where it starts in the results' block, or which foreign
        # output it is; each result the kernel writes has its place in the block, 64-byte aligned
        self.result_specs, result_at, at = [], {}, 0
        memories = [b.memory() for b in results]
        holders = Counter(m.index for m in memories)  # (results per memory)
        # per result: the leaf whose memory it is (a write stored into a leaf given to it:
        # ``Trace.given``), else None; and whether its memory is its own alone (no other result's,
        # no view's, no foreign op's), which its value then owns (``HostValue.owned``)
        self.leaf_results, self.own_results = [], []
        for b, m in zip(results, memories):
            foreign = m.arena_at[1] if type(m.arena_at) is tuple else None
            if foreign is None and m.leaf is None and m.index not in result_at:
                result_at[m.index] = at
                at += _aligned(max(m.nbytes, 1))
            used = math.prod(b.value.shape) * b.value.dtype.itemsize  # (a tested count of floats: the first of 8 bytes)
            self.result_specs.append((b.value.dtype, tuple(b.value.shape), used, result_at.get(m.index), foreign))
            self.leaf_results.append(m.leaf)
            self.own_results.append(foreign is None and not m.shared and holders[m.index] == 1)
        self.results_bytes = max(at, 1)

        # every constant array, concatenated: one copy per run takes its scalar constants and offsets
        chunks, const_at, layout_at, total = [], {}, {}, 0
        self.lifted = []  # (trace position, index into consts, integer family)
        offsets = []  # (index into consts, Offset)
        self.read = []  # (trace leaf, index into consts, integer family): one-element leaves read per run
        for k, s in enumerate(stages):
            if s.consts is not None:
                const_at[k] = total
                chunks.append(np.asarray(s.consts, np.float64))
                self.lifted += [(pos, total + j, s.ints) for pos, j in s.lifted]
                offsets += [(total + j, off) for j, off in s.offsets]
                self.read += [(leaf, total + j, s.ints) for leaf, j in s.read]
                total += len(s.consts)
            if s.layout is not None:
                layout_at[k] = total
                chunks.append(np.asarray(s.layout, np.float64))
                offsets += [(total + j, x) for j, x in enumerate(s.layout) if type(x) is Offset]
                total += len(s.layout)
        self.consts = np.concatenate(chunks) if chunks else np.zeros(1)
        self.offsets = _OffsetTable(offsets) if offsets else None
        self.programs = [s.program for s in stages if s.kind != _FOREIGN]  # (kept alive: calls hold their addresses)

        def where(b):
            b = b.memory()
            if b.leaf is not None:
                return _LEAF, b.leaf, 0
            if type(b.arena_at) is tuple:
                return _FOREIGN_OUT, b.arena_at[1], 0
            if b.result:
                return _RESULT, 0, result_at[b.index]
            return _ARENA, 0, b.arena_at

        self.segments = []
        run: list = []
        for k, s in enumerate(stages + [None]):
            if s is not None and s.kind != _FOREIGN:
                run.append((k, s))
                continue
            if run:
                self.segments.append(_Call(run, where, const_at, layout_at))
                run = []
            if s is not None:
                self.segments.append(_Foreign(s.program, [b if type(b) is tuple else where(b) for b in s.slots],
                                              [(where(b)[1], b.value) for b in s.out]))
        # the leaves whose memory a run may leave seen from elsewhere: a result's (a write stored
        # into it), or any where a foreign op runs (a MAX graph's output may be its input)
        self.seen_leaves = None if foreign_outputs else frozenset(k for k in self.leaf_results if k is not None)
        self.quick = None
        if len(self.segments) == 1 and not self.seen_leaves and type(self.segments[0]) is _Call and self.foreign_outputs == 0 \
                and self.arena_bytes + self.consts.nbytes <= _QUICK_BYTES \
                and len({m.index for m in memories}) == len(memories) \
                and all(m.nbytes == spec[2] for m, spec in zip(memories, self.result_specs)) \
                and all(source == _LEAF for _, source, _, _ in self.segments[0].leaves + self.segments[0].moving):
            # (each result a memory of its own, which the kernel fills exactly)
            self.quick = _QuickRun(self, self.segments[0])

    def run(self, leaf_buffers, values=None, starts=None, leaves=None) -> list:
        """Run the program on these leaves (``values``: this run's scalar constants by trace
        position; ``starts``: its slice starts; ``leaves``: the trace's leaf values, whose host
        memory, where they keep it, gives one-element leaves' values); the results' buffers, in
        the order of the trace's outputs."""
        quick = self.quick
        if quick is not None and quick.lock.acquire(False):
            try:
                return quick.run(self, leaf_buffers, values, starts, leaves)
            finally:
                quick.lock.release()
        consts = self.consts
        block = host_memory(self.results_bytes)
        arena = host_memory(self.arena_bytes) if self.arena_bytes else block
        if (self.lifted and values) or (self.offsets and starts) or self.read:
            consts = consts.copy()
        self.fill(consts, leaf_buffers, values, starts, leaves)
        state = _RunState(leaf_buffers, block, arena, consts, [None] * self.foreign_outputs if self.foreign_outputs
                          else None, starts, values, leaves)
        kernel = _kernel_module()
        for segment in self.segments:
            segment.run(state, kernel)
        # (each a NumPy view of the block and its address, as ``_QuickRun``'s small ones: a driver
        # buffer over it costs ~3.5 us a result, tens of them a loop step's read, and is made where
        # a later run asks)
        results = []
        base = state.bases[0]
        for (dtype, shape, used, at, foreign), leaf, own in zip(self.result_specs, self.leaf_results, self.own_results):
            if foreign is not None:
                results.append(state.foreign[foreign])
            elif leaf is not None:  # (its leaf's memory, which nothing else held: the value's own)
                results.append((host_view(leaves[leaf]).reshape(shape), _leaf_address(leaves, leaf_buffers, leaf), True))
            else:
                results.append((block[at:at + used].view(dtype.numpy_dtype).reshape(shape), base + at, own))
        return results

    def fill(self, consts, leaf_buffers, values, starts, leaves=None) -> None:
        """Write this run's scalars into ``consts``: one-element leaves, scalar constants, offsets."""
        for leaf, j, ints in self.read:
            # (a pick of host data keeps its NumPy view: read there, ~1.5 us less than a view made anew)
            host = host_view(leaves[leaf]) if leaves is not None else leaf_buffers[leaf].to_numpy()
            consts[j] = constant_bits(host.reshape(()).item(), ints)
        for pos, j, ints in self.lifted:
            consts[j] = constant_bits(values[pos].reshape(()).item(), ints) if values and pos in values \
                else self.consts[j]
        if starts and self.offsets is not None:
            self.offsets.fill(consts, starts)


class _QuickRun:
    """A small program of one kernel call (a loop's step and its read): its call array,
    intermediates and constants made once and kept, the arena's and constants' addresses written
    in; a run writes its scalars and addresses into them and allocates only its results, each a
    buffer of its own. A run of the plan takes them under ``lock`` (another thread's run of the
    same plan allocates its own)."""

    __slots__ = ("lock", "scratch", "consts", "call", "address", "places", "leaves", "moving", "results", "shifts",
                 "shifted")

    def __init__(self, plan, segment):
        self.lock = threading.Lock()
        at = _aligned(plan.arena_bytes)
        self.scratch = np.empty(at + plan.consts.nbytes, np.uint8)
        self.consts = self.scratch[at:].view(np.float64)
        self.consts[:] = plan.consts
        base = self.scratch.ctypes.data
        call = segment.call.copy()
        starts = [spec[3] for spec in plan.result_specs]
        self.places = []  # (place in the call array, which result, byte offset in it)
        self.shifted = []  # the same, the offset an ``Offset`` of the run's starts
        moved = {p: offset for p, source, offset in segment.shifted if source == _RESULT}
        for places, source in segment.based:
            if source == _RESULT - 1:
                for p in places:
                    offset = int(call[p])
                    k = max(j for j, s in enumerate(starts) if s <= offset)
                    p = int(p)
                    if p in moved:
                        self.shifted.append((p, k, moved[p] - starts[k]))
                    else:
                        self.places.append((p, k, offset - starts[k]))
            else:
                call[places] += base if source == _ARENA - 1 else base + at
        # (places in the arena or the constants that starts move: their addresses whole in the table)
        shifts = [(p, offset + (base if source == _ARENA else base + at))
                  for p, source, offset in segment.shifted if source != _RESULT]
        self.shifts = _OffsetTable(shifts) if shifts else None
        self.call = call
        self.address = call.ctypes.data
        self.leaves, self.moving = segment.leaves, segment.moving
        # (small results in a block of host memory, each a NumPy view the engine makes a HostValue
        # of; larger ones in NumPy memory of their own, known by address as well (a driver buffer
        # over it cost ~5 us a result); large ones in a kept block (``LargeBlocks``), given again
        # once no result holds it, where fresh numpy memory pays its first touch at every run:
        # compute at preset M, 75 ms a call against 460)
        self.results = [(dtype.max_dtype, shape, _HOST_DTYPES.get(dtype.max_dtype),
                         used, _IN_BLOCK if used <= _BLOCK_RESULT else _OWN if used < _LARGE else _KEPT_BLOCK)
                        for dtype, shape, used, _, _ in plan.result_specs]

    def run(self, plan, leaf_buffers, values, starts, leaves) -> list:
        """The results: (NumPy view of host memory, its address) for small ones, else buffers."""
        plan.fill(self.consts, leaf_buffers, values, starts, leaves)
        out, addresses = [], []
        for dtype, shape, host_dtype, nbytes, where in self.results:
            # (each result's memory its own alone: its value owns it, ``HostValue.owned``)
            if where is _IN_BLOCK:
                memory, address = HOST_BLOCKS.take(shape, host_dtype, nbytes)
            elif where is _OWN:
                memory = np.empty(shape, host_dtype)
                address = memory.ctypes.data
            else:
                memory, address = LARGE_BLOCKS.view(shape, host_dtype, nbytes)
            out.append((memory, address, True))
            addresses.append(address)
        call = self.call
        if self.shifts is not None and starts:
            self.shifts.fill(call, starts)
        for at, k, offset in self.places:
            call[at] = addresses[k] + offset
        for at, k, offset in self.shifted:
            call[at] = addresses[k] + (offset.at(starts) if starts else int(offset))
        for at, _, index, offset in self.leaves:  # (every address here is a leaf's)
            call[at] = _leaf_address(leaves, leaf_buffers, index) + offset
        for at, _, index, offset in self.moving:
            call[at] = _leaf_address(leaves, leaf_buffers, index) + (offset.at(starts) if starts else int(offset))
        _kernel_module().run(self.address)
        return out


def _leaf_address(leaves, leaf_buffers, index) -> int:
    """A leaf's memory address: a run's small result knows it, a host array's memory tells it (a
    driver buffer made to ask costs ~3 us a leaf: a loop step's read of ops at once has tens)."""
    if leaves is not None:
        address = known_address(leaves[index])
        if address:
            return address
    p = leaf_buffers[index]._data_ptr()
    return p if p < 1 << 63 else 0  # (an empty buffer's is all ones: never read)


#: where a quick run's result lives (``_QuickRun``): a host block's slice, NumPy memory of its own, a
#: kept block (``LargeBlocks``)
_IN_BLOCK, _OWN, _KEPT_BLOCK = 0, 1, 2
#: the most bytes of intermediates and constants a small program keeps between its runs (``_QuickRun``)
_QUICK_BYTES = 1 << 16


class _OffsetTable:
    """The constants a run's slice starts move (``Offset``s), as arrays: entry ``k`` goes to
    ``consts[where[k]]`` and is ``base[k]`` plus the sum of ``coefs[t] * start(params[cols[t]])``
    over its terms (``rows[t] == k``). A loop's program holds tens of thousands of them: as objects
    they cost a Python call each per run, and the collector walks them for as long as the plan lives.
    A short table (a loop step's read: a few slices) is written entry by entry (``entries``), where
    the arrays' few NumPy calls cost ~5 us whatever their length."""

    __slots__ = ("where", "base", "params", "rows", "cols", "coefs", "entries", "gather")

    def __init__(self, offsets):
        param_at: dict = {}
        rows, cols, coefs = [], [], []
        column = param_at.get
        for k, (_, off) in enumerate(offsets):
            for param, c in off.terms.items():
                rows.append(k)
                at = column(param)
                if at is None:
                    at = param_at[param] = len(param_at)
                cols.append(at)
                coefs.append(c)
        self.where = np.fromiter((j for j, _ in offsets), np.int64, len(offsets))
        self.base = np.fromiter((off.const for _, off in offsets), np.float64, len(offsets))
        self.params = tuple(param_at)  # (trace position, axis)
        self.rows = np.asarray(rows, np.int64)
        self.cols = np.asarray(cols, np.int64)
        self.coefs = np.asarray(coefs, np.float64)
        # (per entry: where it goes, its base and its terms as (param's position, axis, coefficient))
        self.entries = tuple((int(j), float(off.const), tuple((pos, axis, c) for (pos, axis), c in off.terms.items()))
                             for j, off in offsets) if len(offsets) <= _SHORT_TABLE else None
        self.gather = None  # (found at the first run: how the params' starts are read, ``_gather``)

    def fill(self, consts, starts) -> None:
        """Write this run's offsets (``starts``: {trace position: slice starts}) into ``consts``."""
        entries = self.entries
        if entries is not None:
            for j, value, terms in entries:
                for pos, axis, c in terms:
                    value += c * starts[pos][axis]
                consts[j] = value
            return
        gather = self.gather
        if gather is None:
            gather = self.gather = self._gather(starts)
        get, count, at = gather
        terms = np.fromiter(chain.from_iterable(get(starts)), np.float64, count)[at]
        consts[self.where] = self.base + np.bincount(self.rows, self.coefs * terms, len(self.where))

    def _gather(self, starts):
        """How a run reads its params' starts: the starts of every position the params name, in one
        pass of C (``itemgetter``, chained), and where each term's param is among them (a position's
        starts are an index's, one per axis: structure, the same for every run of the plan). A
        loop's table names tens of thousands: read one by one, they cost ~6% of its read."""
        positions = tuple(dict.fromkeys(pos for pos, _ in self.params))
        first, count = {}, 0
        for pos in positions:
            first[pos] = count
            count += len(starts[pos])
        get = itemgetter(*positions) if len(positions) > 1 else (lambda d, pos=positions[0]: (d[pos],))
        return get, count, np.array([first[pos] + axis for pos, axis in self.params], np.int64)[self.cols]


#: the most entries an offset table writes one by one (``_OffsetTable.entries``)
_SHORT_TABLE = 32


#: where a buffer of a run is (``_RunState.address``)
_LEAF, _RESULT, _ARENA, _CONSTS, _FOREIGN_OUT = 0, 1, 2, 3, 4


class _RunState:
    """One run's memory: leaf buffers (and the trace's leaf values, whose addresses are known without
    them: ``_leaf_address``), the results' block, the arena, the constants, foreign outputs;
    ``bases``: the block's, the arena's and the constants' addresses (by source - 1)."""

    __slots__ = ("leaves", "block", "arena", "consts", "foreign", "starts", "values", "bases", "leaf_values")

    def __init__(self, leaves, block, arena, consts, foreign, starts, values, leaf_values=None):
        self.leaves, self.block, self.arena, self.consts = leaves, block, arena, consts
        self.foreign, self.starts, self.values, self.leaf_values = foreign, starts, values, leaf_values
        base = block.ctypes.data
        self.bases = (base, base if arena is block else arena.ctypes.data, consts.ctypes.data)

    def address(self, source, index, offset) -> int:
        if source == _LEAF:
            return _leaf_address(self.leaf_values, self.leaves, index) + offset
        if source == _FOREIGN_OUT:
            return self.foreign[index]._data_ptr() + offset
        return self.bases[source - 1] + offset

    def buffer(self, place, shape, dtype):
        """A driver buffer over a value's memory in this run (a foreign op's operand)."""
        source, index, offset = place
        if source == _LEAF:
            return self.leaves[index]
        if source == _FOREIGN_OUT:
            return self.foreign[index]
        memory = self.block if source == _RESULT else self.arena
        n = math.prod(shape) * dtype.itemsize
        flat = driver.Buffer.from_numpy(memory[offset:offset + n].view(dtype.numpy_dtype))
        return flat if len(shape) == 1 else flat.view(dtype.max_dtype, tuple(shape))


class _Call:
    """One kernel call: a run of stages, its call array, and the addresses each run fills in: the
    call array holds each address's offset, and a run adds its base (a block's, the constants', a
    leaf's)."""

    __slots__ = ("call", "based", "leaves", "moving", "shifted", "shifts")

    def __init__(self, run, where, const_at, layout_at):
        # (a list, made an array at the end: numpy's element and slice writes cost a microsecond
        # each, and a loop's program has tens of thousands of stages)
        call = [0] * (1 + STAGE * len(run))
        call[0] = len(run)
        # per source with addresses here: its places in the call array (each holding its offset)
        places: dict = {_RESULT: [], _ARENA: [], _CONSTS: []}
        consts_at = places[_CONSTS]
        leaves = []  # (place in the call array, source, index, byte offset): a leaf's or a foreign output's
        self.moving = []  # (place in the call array, source, index, byte Offset): moved by the starts
        # (place in the call array, source, byte Offset): a place in a block moved by the starts
        self.shifted = shifted = []
        addresses = {}  # id(program) -> its address (a loop's stages share a few programs; asking costs ~1 us)
        placed = {}  # id(buffer) -> where(buffer) (a loop's stages read and write a few buffers)

        def patch(at, b, offset):
            found = placed.get(id(b))
            if found is None:
                found = placed[id(b)] = where(b)
            source, index, base = found
            into = places.get(source)
            if type(offset) is Offset:
                if into is None:
                    self.moving.append((at, source, index, offset + base))
                    return
                shifted.append((at, source, offset + base))  # (its offset per run from the table, then the base)
            if into is not None:
                into.append(at)
                call[at] = base + offset
            else:
                leaves.append((at, source, int(index), int(base + offset)))

        for i, (k, s) in enumerate(run):
            at = 1 + STAGE * i
            program = s.program
            address = 0
            if program is not None:
                address = addresses.get(id(program))
                if address is None:
                    address = addresses[id(program)] = program.ctypes.data
            call[at:at + 8] = (s.kind, s.family, address, 0, 0, s.n, 0, s.count)
            c = const_at.get(k)
            if c is not None:
                consts_at.append(at + 3)
                call[at + 3] = c * 8
            c = layout_at.get(k)
            if c is not None:
                consts_at.append(at + 6)
                call[at + 6] = c * 8
            patch(at + 4, s.out, s.out_at)
            bytes_counted = s.family >= 2 or s.kind in (_COPY, _SCATTER, _GATHER)
            for j, (b, offset) in enumerate(s.slots):
                patch(at + 8 + 2 * j, b, offset)
                call[at + 9 + 2 * j] = b.nbytes if bytes_counted else b.nbytes // b.value.dtype.itemsize
        self.call = np.array(call, np.int64)
        # per source with addresses here: (its places in the call array, source - 1)
        self.based = [(np.array(found, np.int64), source - 1) for source, found in places.items() if found]
        self.leaves = leaves
        # (an output stored at a slice of a block, its start data: offsets as a table, as constants'
        # are, where one by one they cost a Python call per stage and run)
        self.shifts = _OffsetTable([(at, offset) for at, _, offset in shifted]) if shifted else None

    def run(self, state, kernel) -> None:
        call = self.call.copy()
        if self.shifts is not None and state.starts:
            self.shifts.fill(call, state.starts)
        bases = state.bases
        for places, source in self.based:
            call[places] += bases[source]
        address = state.address
        for at, source, index, offset in self.leaves:
            call[at] = address(source, index, offset)
        for at, source, index, offset in self.moving:
            call[at] = address(source, index, offset.at(state.starts) if state.starts else int(offset))
        kernel.run(call.ctypes.data)


class _Foreign:
    """An op the kernel lacks, run alone by the engine on buffers of this run. It keeps what the
    node was (op, kwargs, its values' shapes), never the node: a plan outlives its trace."""

    __slots__ = ("op", "kwargs", "treedef", "inputs", "outputs")

    def __init__(self, node, inputs, outputs):
        self.op, self.kwargs, self.treedef = node.op, node.kwargs, node.treedef
        # per operand: (where its buffer is, its shape, dtype, device), or a scalar constant's (op,
        # kwargs, trace position: its value is each run's)
        self.inputs = [(place[1].node.op, place[1].node.kwargs, place[2]) if place[0] == "free" else
                       (place, v.shape, v.dtype, v.device) for place, v in zip(inputs, node.inputs)]
        # (index among the run's foreign outputs, output index, shape, dtype, device)
        self.outputs = [(j, v.index, v.shape, v.dtype, v.device) for j, v in outputs]

    def run(self, state, kernel) -> None:
        leaves = []
        for spec in self.inputs:
            if len(spec) == 3:  # a scalar constant: its node again, with this run's value
                op, kwargs, position = spec
                if state.values and position in state.values:
                    kwargs = {**kwargs, op.data_kwarg: type(kwargs[op.data_kwarg])(
                        state.values[position].reshape(()).item())}
                leaves.append(Value(Node(op, kwargs, ()), 0, (), kwargs["dtype"], kwargs["device"]))
            else:
                place, shape, dtype, device = spec
                leaves.append(Value.leaf(state.buffer(place, shape, dtype), shape, dtype, device))
        alone = Node(self.op, self.kwargs, tuple(leaves), self.treedef)
        values = [Value(alone, index, shape, dtype, device) for _, index, shape, dtype, device in self.outputs]
        GRAPH.engine.run(values)
        for (j, *_), v in zip(self.outputs, values):
            state.foreign[j] = v.buffer
