"""0-d elementwise ops on host scalars, computed at once.

A loop over elements (``crc = (crc >> 1) ^ poly`` on a picked byte, nussinov's ``max(table[i, j],
table[i, k] + table[k + 1, j])``, go_fast's ``trace += tanh(a[i, i])``) works on 0-d values that
are already on the host: picks of host data, scalars read back, earlier results of this path. Each
such op, recorded, would wait for a read (a ``max`` or an ``if`` reads at once), and a read of a
structure costs ~40 us of tracing, planning and binding around a ~2 us kernel call. Here the op
runs as soon as it is made, on the program kernel: its operands are the program's constants (or,
for an op the scheduler plans only over data, a lone cast, its leaves), its result a 0-d host
array of its own. The program is planned once per (op, kwargs, operand dtypes) by the scheduler
every read uses, so every value is the one a recorded op gives.
"""

from __future__ import annotations

import threading

import numpy as np

from ..core import dtypes as _dt
from ..core.graph import GRAPH, HostValue, Node, Value, host_value
from ..core.values import CarvedMemory
from ..core.operation import PLAIN_CLASSES, plain_array
from ..core.tensor_impl import TensorImpl
from ..core.trace_lowering import node_memo
from ..ops.creation import constant_op
from .fused_codes import constant_bits
from .library_kernels import RANDOM_KINDS
from .program import ProgramPath
from .program_kernel import OP_KERNELS, module as _kernel_module, ready as _kernel_built
from .result_memory import _BLOCK_RESULT, HostBlocks


class _ScalarProgram:
    """One op's program over its operands: where each operand's value goes in the constants
    (``slots``: (index, integer family) per operand), or, where the scheduler plans the op only
    over data (a lone cast), where each operand's address goes in the call array (``places``:
    ((position, byte offset), ...) per operand); where the result's address goes, and its dtype
    (``result``), and the memory it is computed into (``out``: a run reads it back as NumPy's
    scalar, where ``scalar``; a uint64 as a 0-d array, whose unsafe cast into a constant wraps it).
    (It holds the plan: the call array holds addresses of the plan's memory.)"""

    __slots__ = ("plan", "consts", "ints", "call", "address", "slots", "places", "result_at", "result", "out",
                 "out_at", "scalar", "run")

    def __init__(self, plan, slots, places, result):
        dtype = _numpy_dtype(result)
        quick = plan.quick
        self.plan, self.consts, self.call, self.address = plan, quick.consts, quick.call, quick.address
        self.ints = quick.consts.view(np.int64)  # (the integer family's constants: their int64 bits)
        self.slots, self.places, self.result_at = slots, places, quick.places[0][0]
        self.result, self.out, self.scalar = result, np.empty((), dtype), dtype != np.uint64
        self.out_at = self.out.ctypes.data
        self.run = _kernel_module().run


class _SmallProgram:
    """One op's quick plan over realized host data, slices of it and scalar constants
    (``HostScalars.small``), run without the plan's general runner: where each source's address
    goes in the call array, moved by its slice's starts (``places``: (position, operand whose
    source it is, byte offset, ((operand whose starts move it, axis, coefficient), ...))), which
    operand's starts each slice node of the trace takes (``starts``: (trace position, operand)),
    where the result's address goes, and its dtype and bytes."""

    __slots__ = ("plan", "quick", "places", "starts", "sources", "offsets", "constants", "lifted", "result_at",
                 "dtype", "nbytes", "fills", "run", "uses")

    def __init__(self, plan, source_of, operand_at, constants, dtype):
        quick = plan.quick
        # (scalar constant operands: (trace position, operand) and (place in the constants, integer
        # family, operand): a run writes their values, data as a read's are)
        self.constants = tuple(constants.items())
        self.lifted = tuple((j, ints, constants[pos]) for pos, j, ints in plan.lifted if pos in constants)
        self.plan, self.quick, self.dtype = plan, quick, _numpy_dtype(dtype)
        self.places = [(at, source_of[index], int(offset), ()) for at, _, index, offset in quick.leaves]
        for at, _, index, offset in quick.moving:
            terms = tuple((operand_at[pos], axis, c) for (pos, axis), c in offset.terms.items())
            self.places.append((at, source_of[index], offset.const, terms))
        self.starts = tuple(operand_at.items())
        self.sources = source_of  # (per leaf of the trace, the operand whose source it is)
        (self.result_at, _, _), = quick.places  # (at offset 0: ``_plan_small`` takes no other)
        self.nbytes = plan.result_specs[0][2]
        # (starts into layouts: per constant, its base and terms (operand whose starts, axis,
        # coefficient), written by a run, as the constants' values are; one-element leaves read
        # into the constants, or a long table of offsets: the plan's own fill)
        offsets = plan.offsets
        self.offsets = () if offsets is None or offsets.entries is None else tuple(
            (j, base, tuple((operand_at[pos], axis, c) for pos, axis, c in terms))
            for j, base, terms in offsets.entries)
        self.fills = bool(plan.read) or (offsets is not None and offsets.entries is None)
        self.run = _kernel_module().run
        self.uses = 0


class HostScalars:
    """The engine's hook (``Engine.scalars``): ``apply`` computes a 0-d op over host operands at
    once, or answers None (the op is then recorded as any other)."""

    def __init__(self, programs: ProgramPath):
        self.programs = programs
        self._programs: dict = {}  # (op, kwargs items, operand dtypes, sharing) -> _ScalarProgram or None
        self._small: dict = {}  # (op, kwargs items, operand dtypes and shapes, sharing) -> _SmallProgram or None
        self._kinds: dict = {}  # (op, operands, dtype) -> its _SmallPrograms, latest last, or _CLOSED
        self._lock = threading.Lock()  # a run's (its program's constants and call array, its blocks)
        # (results' memory: 0-d views of blocks of its own, carved under its lock; a view over a block
        # costs a sixth of an allocation of its own and that one's address, 0.17 us against 1.2)
        self._blocks = HostBlocks()

    @staticmethod
    def serves(engine) -> bool:
        """Whether ops over host scalars run at once now (none while tracing for ``compile``, with
        the fused path off or memory debugging on, or until the program kernel is built)."""
        return not GRAPH.captures and engine.fused_enabled and not engine.debug_memory and _kernel_built()

    def apply(self, engine, op, kwargs: dict, operands: tuple, dtype, device) -> HostValue | None:
        """``op(*operands, **kwargs)`` as a realized 0-d host value of ``dtype``, where every operand
        is a 0-d value on the host (realized, or an interned scalar constant); None otherwise.
        ``dtype`` None: the result's as an earlier call of this op on operands of these dtypes found
        it (None where none has: the caller then asks the op's shape rule, and asks again with it).
        (This runs once per op of an element loop: each line here costs a share of ~3 us.)"""
        if GRAPH.captures or not engine.fused_enabled or engine.debug_memory or not device.is_host:
            return None
        hosts = []
        for v in operands:
            if v.shape:  # (a reduction's operand, say)
                return None
            if type(v) is HostValue:
                hosts.append(v.host)
                continue
            node = v.node
            if node is None:
                if not v.device.is_host:
                    return None
                hosts.append(v.buffer.to_numpy())
            elif node.op is constant_op:
                data = _memo(node)[1]  # (an operand constant is interned: its memo is made once)
                if data is None:  # (a complex constant: stored as a pair)
                    return None
                hosts.append(data[0])
            else:
                return None
        key = _op_key(op, tuple(kwargs.items()) if kwargs else (), operands, False)
        try:
            program = self._programs.get(key, False)
        except TypeError:  # (an unhashable kwarg: recorded)
            return None
        if program is False:
            if dtype is None:
                return None
            program = self._plan(engine, key, op, kwargs, operands, dtype, device)
        return None if program is None else self._run(engine, program, hosts, device)

    def binary(self, op, a, b, dtypes):
        """``op(a, b)`` as a plain array (a's class, or b's) computed at once, where each operand is
        a plain array of one realized 0-d host value or one of them a Python float or int that the
        other's dtype holds as NumPy's weak scalar does (NEP 50), both of one dtype of ``dtypes``
        (None: any), and an earlier call made this op's program over that dtype; None for anything
        else (the caller goes the general way, which plans the program). ``apply`` without its
        generality: an element loop's ``x[i - 1] * 0.5``, crc16's ``crc >> 1``."""
        engine = GRAPH.engine
        if GRAPH.captures or not engine.fused_enabled or engine.debug_memory:
            return None
        va = _host_scalar(a)
        if va is None:
            vb = _host_scalar(b)
            if vb is None:
                return None
            dtype, cls = vb.dtype, type(b)
            ha = _weak_scalar(a, dtype)
            if ha is None:
                return None
            hosts = (ha, vb.host)
        else:
            dtype, cls = va.dtype, type(a)
            vb = _host_scalar(b)
            if vb is None:
                hb = _weak_scalar(b, dtype)
                if hb is None:
                    return None
                hosts = (va.host, hb)
            elif vb.dtype is not dtype:
                return None
            else:
                hosts = (va.host, vb.host)
        if dtypes is not None and dtype not in dtypes:
            return None
        name = dtype.name
        program = self._programs.get((op, (), name, name, a is b))
        if program is None:
            return None
        out = self._run(engine, program, hosts, (va or vb).device)
        return None if out is None else plain_array(cls, TensorImpl([out], out.dtype))

    def unary(self, op, a, dtypes):
        """``op(a)`` computed at once as ``binary`` computes a binary op (``tanh(a[i, i])``)."""
        engine = GRAPH.engine
        if GRAPH.captures or not engine.fused_enabled or engine.debug_memory:
            return None
        va = _host_scalar(a)
        if va is None or (dtypes is not None and va.dtype not in dtypes):
            return None
        program = self._programs.get((op, (), (va.dtype.name,), (True,)))
        if program is None:
            return None
        out = self._run(engine, program, (va.host,), va.device)
        return None if out is None else plain_array(type(a), TensorImpl([out], out.dtype))

    def _run(self, engine, program, hosts, device) -> HostValue | None:
        """One run of ``program`` over the operands' values (0-d arrays, NumPy's or Python's
        scalars) as a new 0-d host value, NumPy's scalar read back (its memory made where asked:
        an element loop reads most results only as the next op's constants); None where another
        thread's run holds the program (the caller records)."""
        if not self._lock.acquire(False):
            return None
        try:
            slots = program.slots
            if slots is not None:
                consts, ints = program.consts, program.ints
                for (j, integer), host in zip(slots, hosts):
                    # (an integer constant's int64 bits, a float's value: NumPy's unsafe cast writes
                    # both exactly, a uint64 0-d array's wrapped, a bool as 0 or 1)
                    (ints if integer else consts)[j] = host
            else:
                call = program.call
                held = []  # (NumPy's scalars as 0-d arrays, alive until the run is done)
                for places, host in zip(program.places, hosts):
                    if type(host) is not np.ndarray:
                        if not isinstance(host, np.generic):  # (a Python scalar: planned over leaves, recorded)
                            return None
                        host = np.array(host)
                        held.append(host)
                    at = host.ctypes.data
                    for j, offset in places:
                        call[j] = at + offset
            out = program.out
            program.call[program.result_at] = program.out_at
            program.run(program.address)
            value = out[()] if program.scalar else out.copy()
            engine.stats.scalar_ops += 1
        finally:
            self._lock.release()
        return host_value(None, (), program.result, device, value, owned=False)

    def small(self, engine, op, kwargs: dict, values: tuple, shape: tuple, dtype, device):
        """``op(*values, **kwargs)`` as a realized host value of ``shape`` and ``dtype``, computed at
        once, where every operand is realized host data, a slice of it (a slice node over a leaf)
        or a scalar constant and this op's program over such operands is one quick kernel call
        (planned once per op, kwargs, operand shapes and dtypes, slices' structure and which
        operands share a source; the slices' starts and the constants' values are data); None
        otherwise (the op is recorded). A loop over small
        realized arrays then runs as NumPy's does, op by op with no trace to key, plan or read:
        lu's ``A[i, j] -= A[i, :j] @ A[:j, j]`` is a product and a sum, each reading its slices."""
        if GRAPH.captures or not engine.small_at_once or not engine.fused_enabled or engine.debug_memory \
                or not device.is_host or engine.policy == "compile" or op.single_op:
            return None  # (every read compiled, or a single-op model's path: recorded)
        if 0 in shape:  # (nothing to compute: ``A[i, :0] * B[i, :0]``, a loop's first step)
            return host_value(None, shape, dtype, device, np.empty(shape, _numpy_dtype(dtype)), owned=False)
        items = tuple(kwargs.items()) if kwargs else ()
        sources = values
        for v in values:
            if v.node is not None:  # (a slice: its source's address, moved by its starts; a constant)
                for u in values:
                    if u.node is not None and not u.node.inputs and _memo(u.node)[1] is None:
                        return None  # (a complex constant: its value is structure, its op recorded)
                sources = tuple(u if u.node is None or not u.node.inputs else u.node.inputs[0] for u in values)
                key = _sliced_key(op, items, values, sources)
                break
        else:
            key = _op_key(op, items, values, True)
        try:
            program = self._small.get(key, False)
        except TypeError:  # (an unhashable kwarg: recorded)
            return None
        if program is False:
            program = self._plan_small(engine, key, op, kwargs, values, shape, dtype, device)
        if program is None or not self._lock.acquire(False):  # (another thread's run: this one records)
            return None
        try:
            program.uses += 1
            quick = program.quick
            call = quick.call
            if program.fills:
                leaves = [sources[k] for k in program.sources]
                program.plan.fill(quick.consts, [v.buffer for v in leaves],
                                  {pos: _memo(values[k].node)[1][0] for pos, k in program.constants},
                                  {pos: values[k].node.memo[2] for pos, k in program.starts}, leaves)
            else:
                consts = quick.consts
                for j, ints, k in program.lifted:
                    # (its value in its dtype, as a read's fill writes it: a float32 constant rounded;
                    # kept per constant node, interned as operands' constants are)
                    node = values[k].node
                    bits = (_FLOAT_BITS, _INT_BITS)[ints].get(node)
                    if bits is None:
                        bits = _constant_bits(node, ints)
                    consts[j] = bits
                for j, base, terms in program.offsets:
                    for k, axis, c in terms:
                        base += c * values[k].node.memo[2][axis]
                    consts[j] = base
            for at, k, offset, terms in program.places:
                v = sources[k]
                address = v.address if type(v) is HostValue and v.address else v.buffer._data_ptr()
                for j, axis, c in terms:
                    offset += c * values[j].node.memo[2][axis]
                call[at] = address + offset
            block, start, address = self._blocks.place(program.nbytes)
            call[program.result_at] = address
            program.run(quick.address)
            engine.stats.small_ops += 1
            engine.stats.fused += 1  # (a run of the program kernel, as a read's)
        finally:
            self._lock.release()
        # (its view made where asked: most such results are read only by later ops at once, by address)
        held = program.dtype  # (NumPy's dtype of its memory)
        out = CarvedMemory(block, start, shape, held) if shape else np.ndarray((), held, block, start)
        return host_value(None, shape, dtype, device, out, owned=False, address=address)

    def _plan_small(self, engine, key, op, kwargs, values, shape, dtype, device):
        """``small``'s program of ``key``, kept (None where it is no quick kernel call of one
        result in a block's memory, or the kernel is not built)."""
        if not _kernel_built():
            return None
        # (a plan costs ~40 runs: an op of ever new shapes, a loop's slices of growing length each
        # taken once, ``L[i, :i] @ x[:i]`` in trisolv, is recorded once its kind's plans have not
        # paid back, from then on: a loop whose steps switched between computed and recorded ops
        # would be a new trace at every call, planned anew)
        kind = (op, len(values), dtype.name)
        made = self._kinds.get(kind)
        if made is None:
            made = self._kinds[kind] = []
        elif made is _CLOSED:
            return None
        elif len(made) >= _TRIED and sum(p.uses for p in made[-_TRIED:]) < _PAYS * _TRIED:
            self._kinds[kind] = _CLOSED
            return None
        program = None
        leaf_of: dict = {}  # id(source) -> its stand-in leaf

        def stand_in(v):
            node = v.node
            if node is not None and not node.inputs:  # (a constant: lifted by the plan, its value written by a run)
                return v
            source = v if node is None else node.inputs[0]
            leaf = leaf_of.get(id(source))
            if leaf is None:
                leaf = leaf_of[id(source)] = Value.leaf(None, source.shape, source.dtype, device)
            if node is None:
                return leaf
            sliced = Node(node.op, node.kwargs, (leaf,))
            sliced.memo = _memo(node)
            return Value(sliced, 0, v.shape, v.dtype, device)

        stand_ins = _stand_ins(values, stand_in)
        out = Value(Node(op, kwargs, tuple(stand_ins)), 0, shape, dtype, device)
        with engine.lock:
            traced = engine.trace([out])
            plan = self.programs.plan(traced.order, traced.leaves, [out], traced.node_ids, lambda n: False)
        quick = None if plan is None else plan.quick
        if quick is not None and len(quick.places) == 1 and quick.places[0][2] == 0 and not quick.shifted \
                and quick.shifts is None and plan.result_specs[0][2] <= _BLOCK_RESULT:
            source_of, operand_at, constants = {}, {}, {}
            for k, (v, s) in enumerate(zip(values, stand_ins)):
                if v.node is not None and not v.node.inputs:
                    constants[traced.node_ids[id(v.node)]] = k
                    continue
                source_of.setdefault(traced.leaf_ids[id(s if v.node is None else s.node.inputs[0])], k)
                if v.node is not None:
                    operand_at.setdefault(traced.node_ids[id(s.node)], k)
            program = _SmallProgram(plan, [source_of[j] for j in range(len(traced.leaves))], operand_at, constants,
                                    dtype)
            made.append(program)
            if len(made) > _KIND_KEEPS:
                del made[:len(made) // 2]
        with self._lock:
            if len(self._small) >= 4096:
                self._small.clear()
            self._small[key] = program
        return program

    def draw(self, state: np.ndarray, n: int, dtype: str) -> np.ndarray | None:
        """The ``n`` values of dtype ``dtype`` of the Philox draw that ``state`` (key, start, stream,
        kind) names, computed at once on the op kernels, as a read of the draw's node would compute
        them: a loop's scalar draw (``if rng.random() < p``) is then host data, its ops run at once
        and its test reads no trace. None while ops are captured or the kernels are not built (the
        draw is then recorded; its read waits for their build, never this call)."""
        if GRAPH.captures or not OP_KERNELS.ready():
            return None
        out = np.empty(n, np.dtype(dtype))
        if OP_KERNELS.module().random(out.ctypes.data, n, state.ctypes.data, RANDOM_KINDS[dtype]):
            return None
        return out

    def _plan(self, engine, key, op, kwargs, operands, dtype, device):
        """The program of ``key``'s op, kept (None where the scheduler plans it as no quick kernel
        call over either kind of stand-in, or the kernel is not built)."""
        if not _kernel_built():  # (not kept: asked again once the kernel is built; never waits for its build)
            return None
        program = None
        with engine.lock:
            for as_data in (False, True):  # (constants first: a run writes their values, not addresses)
                program = self._planned(engine, op, kwargs, operands, dtype, device, as_data)
                if program is not None:
                    break
        with self._lock:
            if len(self._programs) >= 4096:
                self._programs.clear()
            self._programs[key] = program
        return program


    def _planned(self, engine, op, kwargs, operands, dtype, device, as_data: bool):
        """The program of ``op`` over stand-ins for its operands: constants, or (``as_data``) 0-d
        leaves; None where the scheduler's plan is not one quick kernel call."""
        stand_ins = _stand_ins(operands, lambda v: Value.leaf(None, (), v.dtype, device) if as_data else Value(
            Node(constant_op, {"value": 0, "dtype": v.dtype, "device": device}, ()), 0, (), v.dtype, device))
        out = Value(Node(op, kwargs, tuple(stand_ins)), 0, (), dtype, device)
        traced = engine.trace([out])
        plan = self.programs.plan(traced.order, traced.leaves, [out], traced.node_ids, lambda node: False)
        quick = None if plan is None else plan.quick
        if quick is None or len(quick.places) != 1 or quick.places[0][2] != 0 or quick.moving:
            return None
        if as_data:
            if plan.read or {index for _, _, index, _ in quick.leaves} != set(range(len(traced.leaves))):
                return None
            at = {}
            for j, _, index, offset in quick.leaves:
                at.setdefault(index, []).append((j, offset))
            places = [tuple(at[traced.leaf_ids[id(s)]]) for s in stand_ins]
            return _ScalarProgram(plan, None, places, dtype)
        if traced.leaves:
            return None
        lifted = {pos: (j, ints) for pos, j, ints in plan.lifted}
        slots = [lifted.get(traced.node_ids[id(s.node)]) for s in stand_ins]
        return None if None in slots else _ScalarProgram(plan, slots, None, dtype)


def _op_key(op, items, operands, shapes: bool) -> tuple:
    """A kept program's key: the op, its kwargs' items, its operands' dtypes (by name: a name hashes
    at once, a dtype in Python) and, where ``shapes``, shapes, and which operands are one value
    (two operands, the common case, without a tuple per operand)."""
    if len(operands) == 2:
        a, b = operands
        if shapes:
            return op, items, a.dtype.name, a.shape, b.dtype.name, b.shape, a is b
        return op, items, a.dtype.name, b.dtype.name, a is b
    if len(operands) == 1 and shapes:
        a, = operands
        return op, items, a.dtype.name, a.shape
    return (op, items, tuple((v.dtype.name, v.shape) if shapes else v.dtype.name for v in operands),
            tuple(a is b for a in operands for b in operands))


def _sliced_key(op, items, values, sources) -> tuple:
    """``small``'s key of an op with slices or scalar constants among its operands: per operand its
    dtype, shape, slice structure (its starts are data, read at each run) or that it is a constant
    (its value data too; None for realized data) and source's shape, and which operands, and which
    sources, are one value."""
    if len(values) == 2:  # (the common case, flat)
        a, b = values
        sa, sb = sources
        na, nb = a.node, b.node
        return (op, items, a.dtype.name, a.shape, None if na is None else _memo(na)[0] if na.inputs
                else _CONSTANT, sa.shape, b.dtype.name, b.shape, None if nb is None else _memo(nb)[0]
                if nb.inputs else _CONSTANT, sb.shape, a is b, sa is sb)
    return (op, items, tuple((v.dtype.name, v.shape, None if v.node is None else _memo(v.node)[0]
                              if v.node.inputs else _CONSTANT, s.shape) for v, s in zip(values, sources)),
            tuple(a is b for a in values for b in values), tuple(a is b for a in sources for b in sources))


#: constant node -> its value as a program's constant reads it (float, and integer family's bits)
_FLOAT_BITS: dict = {}
_INT_BITS: dict = {}


def _constant_bits(node, ints: bool) -> float:
    kept = _INT_BITS if ints else _FLOAT_BITS
    if len(kept) >= 4096:
        kept.clear()
    bits = kept[node] = constant_bits(_memo(node)[1][0].item(), ints)
    return bits


def _memo(node) -> tuple:
    """``node``'s keying memo, made once (a slice recorded on the hot path has it already)."""
    memo = node.memo
    if memo is None:
        memo = node.memo = node_memo(node)
    return memo


def _stand_ins(operands, make) -> list:
    """A stand-in per operand for planning its op, ``make(operand)``: one for an operand used twice."""
    out = []
    for v in operands:
        for u, s in zip(operands, out):
            if u is v:
                out.append(s)
                break
        else:
            out.append(make(v))
    return out


def _host_scalar(x) -> HostValue | None:
    """The realized 0-d host value of a plain array ``x`` with nothing to record of it (no trace,
    tangent or gradient); None for anything else."""
    if type(x) not in PLAIN_CLASSES:
        return None
    impl = x._impl
    values = impl._values
    if type(values) is not list or len(values) != 1 or impl.traced or impl.tangents is not None \
            or impl.requires_grad:
        return None
    v = values[0]
    return v if type(v) is HostValue and not v.shape and v.device.is_host else None


#: ``small`` plans a new shape of an op of a kind (op, operands, dtype) that has ``_TRIED`` plans
#: only where its latest ``_TRIED`` have run ``_PAYS`` times each on average; a kind keeps its
#: latest plans' counts
_TRIED, _PAYS, _KIND_KEEPS = 16, 2, 256
_CLOSED = ()  # (a kind whose new shapes are recorded)
_CONSTANT = ("constant",)  # (a scalar constant operand, in ``small``'s key)

#: integer dtypes -> the Python ints a weak scalar of theirs may be here: in the dtype's range and
#: int64's (a program's integer constants are int64 bits)
_WEAK_INTS = {d: (max(int(np.iinfo(d.numpy_dtype).min), -(1 << 63)), min(int(np.iinfo(d.numpy_dtype).max), (1 << 63) - 1))
              for d in (_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64)}


def _weak_scalar(value, dtype):
    """A Python float or int as an operand of an array of ``dtype`` takes it (NEP 50's weak
    scalar, as ``operand_constant`` holds it), where that is exact here: a float or an int of at
    most 2^53 for float64, an int in range for an integer dtype; None otherwise."""
    t = type(value)
    if dtype is _dt.float64:
        if t is float:
            return value
        return float(value) if t is int and -(1 << 53) <= value <= 1 << 53 else None
    if t is int:
        bounds = _WEAK_INTS.get(dtype)
        if bounds is not None and bounds[0] <= value <= bounds[1]:
            return value
    return None


def _numpy_dtype(dtype):
    return np.dtype(np.bool_) if dtype.numpy_dtype == np.bool_ else dtype.numpy_dtype
