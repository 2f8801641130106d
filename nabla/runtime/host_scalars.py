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

import numpy as np

from ..core import dtypes as _dt
from ..core.graph import GRAPH, HostValue, Node, Value, host_value
from ..core.operation import PLAIN_CLASSES, plain_array
from ..core.tensor_impl import TensorImpl
from ..core.values import _BUFFER
from ..ops.creation import constant_op
from .host_small import SmallOps, _memo, _numpy_dtype, _op_key, _stand_ins
from .library_kernels import RANDOM_KINDS
from .program import ProgramPath
from .program_kernel import OP_KERNELS, module as _kernel_module, ready as _kernel_built


class _ScalarProgram:
    """One op's program over its operands: where each operand's value goes in the constants
    (``slots``: (index, integer family) per operand), or, where the scheduler plans the op only
    over data (a lone cast), where each operand's address goes in the call array (``places``:
    ((position, byte offset), ...) per operand); where the result's address goes, and its dtype
    (``result``), and the memory it is computed into (``out``: a run reads it back as NumPy's
    scalar, where ``scalar``; a uint64 as a 0-d array, whose unsafe cast into a constant wraps it).
    (It holds the plan: the call array holds addresses of the plan's memory.)"""

    __slots__ = ("plan", "consts", "ints", "call", "address", "slots", "places", "result_at", "result", "out",
                 "out_at", "scalar", "run", "vm_run")

    def __init__(self, plan, slots, places, result):
        dtype = _numpy_dtype(result)
        quick = plan.quick
        self.plan, self.consts, self.call, self.address = plan, quick.consts, quick.call, quick.address
        self.ints = quick.consts.view(np.int64)  # (the integer family's constants: their int64 bits)
        self.slots, self.places, self.result_at = slots, places, quick.places[0][0]
        self.result, self.out, self.scalar = result, np.empty((), dtype), dtype != np.uint64
        self.out_at = self.out.ctypes.data
        self.run = _kernel_module().run
        self.vm_run = _kernel_module().vm_run  # (``run`` without its own call: nonzero where a stage failed)


class HostScalars(SmallOps):
    """The engine's hook (``Engine.scalars``): ``apply`` computes a 0-d op over host operands at
    once, ``small`` an op of a small result over host data (``SmallOps``), or they answer None (the
    op is then recorded as any other)."""

    def __init__(self, programs: ProgramPath):
        super().__init__(programs)
        self._programs: dict = {}  # (op, kwargs items, operand dtypes, sharing) -> _ScalarProgram or None

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
        generality, written out in one function (an element loop's ``x[i - 1] * 0.5``, crc16's
        ``crc >> 1``: its calls were a third of such an op's ~2.3 us)."""
        engine = GRAPH.engine
        if GRAPH.captures or not engine.fused_enabled or engine.debug_memory:
            return None
        va = _host_scalar(a)
        if va is None:
            vb = _host_scalar(b)
            if vb is None:
                return None
            dtype, cls, device = vb.dtype, type(b), vb.device
            ha = _weak_scalar(a, dtype)
            if ha is None:
                return None
            hosts = (ha, vb.host)
        else:
            dtype, cls, device = va.dtype, type(a), va.device
            if type(b) in _NUMBERS:
                hb = _weak_scalar(b, dtype)
                if hb is None:
                    return None
                hosts = (va.host, hb)
            else:
                vb = _host_scalar(b)
                if vb is None or vb.dtype is not dtype:
                    return None
                hosts = (va.host, vb.host)
        if dtypes is not None and dtype not in dtypes:
            return None
        name = dtype.name
        program = self._programs.get((op, (), name, name, a is b))
        if program is None or program.slots is None or not self._lock.acquire(False):
            if program is None:
                return None
            out = self._run(engine, program, hosts, device)
            return None if out is None else plain_array(cls, TensorImpl([out], out.dtype))
        try:  # (``_run`` of a program over constants, written out)
            consts, ints = program.consts, program.ints
            (j, integer), (k, integer_b) = program.slots
            (ints if integer else consts)[j] = hosts[0]
            (ints if integer_b else consts)[k] = hosts[1]
            out = program.out
            program.call[program.result_at] = program.out_at
            if program.vm_run(program.address):
                raise RuntimeError("nabla: the program kernel failed on a stage")
            value = out[()] if program.scalar else out.copy()
            engine.stats.scalar_ops += 1
        finally:
            self._lock.release()
        # (its value, TensorImpl and array made with their fields set directly)
        v = _new(HostValue)
        result = program.result
        v.node, v.index, v.shape, v.dtype, v.device, v.host, v.owned, v.address = \
            None, 0, (), result, device, value, False, 0
        _BUFFER.__set__(v, None)
        impl = _new(TensorImpl)
        impl._values, impl.cached_shape, impl.dtype, impl.batch_dims = [v], (), result, 0
        r = _new(cls)
        r._impl = impl
        r._view = r._views = r._element_loop = None
        return r

    def unary(self, op, a, dtypes):
        """``op(a)`` computed at once as ``binary`` computes a binary op (``tanh(a[i, i])``)."""
        engine = GRAPH.engine
        if GRAPH.captures or not engine.fused_enabled or engine.debug_memory:
            return None
        va = _host_scalar(a)
        if va is None or (dtypes is not None and va.dtype not in dtypes):
            return None
        program = self._programs.get((op, (), (va.dtype.name,), (0,)))  # (``_op_key``'s of one operand)
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



#: integer dtypes -> the Python ints a weak scalar of theirs may be here: in the dtype's range and
#: int64's (a program's integer constants are int64 bits)
_WEAK_INTS = {d: (max(int(np.iinfo(d.numpy_dtype).min), -(1 << 63)), min(int(np.iinfo(d.numpy_dtype).max), (1 << 63) - 1))
              for d in (_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64)}


def _weak_scalar(value, dtype):
    """A Python float or int as an operand of an array of ``dtype`` takes it (NEP 50's weak
    scalar, as ``operand_constant`` holds it), where that is exact here: a float or an int of at
    most 2^53 for float64, an int in range for an integer dtype; NumPy's scalar of ``dtype``
    itself (npbench's ``alpha``), as its Python value; None otherwise."""
    t = type(value)
    own = _dt.NUMPY_SCALARS.get(t)
    if own is not None:
        if own is not dtype or dtype.is_complex:
            return None  # (another dtype's NumPy scalar is no weak one: NumPy's promotion decides)
        value = value.item()
        if dtype is _dt.float64 or dtype is _dt.float32:
            return value
        t = int
    if dtype is _dt.float64:
        if t is float:
            return value
        return float(value) if t is int and -(1 << 53) <= value <= 1 << 53 else None
    if t is int:
        bounds = _WEAK_INTS.get(dtype)
        if bounds is not None and bounds[0] <= value <= bounds[1]:
            return value
    return None


#: the types ``HostScalars.binary`` asks ``_weak_scalar`` of beside a pick
_NUMBERS = frozenset((float, int, *_dt.NUMPY_SCALARS))
_new = object.__new__
