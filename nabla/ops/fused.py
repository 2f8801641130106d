"""First sight without a compile: whole elementwise traces as programs for one fused Mojo kernel.

A trace of elementwise float ops (over values of one size, single values, or inputs broadcast over
one run of axes), order-keeping views, constants and at most one full reduction at its end is
written as a small program for ``kernels/core/fused.mojo`` and run by a compiled model that serves every
such trace: fused, in cache-sized blocks, on all CPU cores, with no per-structure compile. The
models (map and reduce, per float dtype) are compiled once per machine, in the background at low
priority, into the machine-wide kernel cache; until they land, the interpreter serves first sight.
"""

from __future__ import annotations

import atexit
import math
import os
import sys
from concurrent.futures import Future

import numpy as np

from ..core import dtypes as _dt

#: op name -> opcode of kernels/core/fused.mojo
UNARY_CODES = {
    "negative": 10, "abs": 11, "square": 12, "reciprocal": 13, "exp": 14, "expm1": 15, "log": 16,
    "log1p": 17, "sqrt": 18, "sin": 19, "cos": 20, "tanh": 21, "floor": 22, "ceil": 23, "trunc": 24,
    "sign": 25, "isnan": 26, "isinf": 27, "isfinite": 28, "logical_not": 29, "positive": 30,
}
BINARY_CODES = {
    "add": 40, "subtract": 41, "multiply": 42, "divide": 43, "maximum": 44, "minimum": 45,
    "equal": 46, "not_equal": 47, "greater": 48, "greater_equal": 49, "less": 50, "less_equal": 51,
    "logical_and": 52, "logical_or": 53, "logical_xor": 54,
}
_LOAD, _CONST, _WHERE = 0, 1, 60
#: views that keep the elements' order: an alias in the program
_ORDER_KEEPING = frozenset({"reshape", "expand_dims", "squeeze", "identity"})
REDUCE_CODES = {"sum": 1, "mean": 2, "max": 3, "min": 4, "prod": 5}
_SLOTS = 4
_REGISTERS = 24
_HEADER = 5


class Plan:
    """A trace written as a program: what to feed the fused kernel and how to read its result."""

    __slots__ = ("dtype", "reduce", "program", "consts", "slots", "kept", "_buffers")

    def __init__(self, dtype, reduce, program, consts, slots, kept):
        self.dtype, self.reduce, self.program, self.consts, self.slots = dtype, reduce, program, consts, slots
        self.kept = kept  # a reduction's output size
        self._buffers = None

    def arguments(self, leaf_buffers):
        """The kernel's operands: program, constants, four data slots (unused ones get a one-element
        stand-in), and for a reduction an operand whose size is the output's."""
        if self._buffers is None:
            from max import driver

            stand_in = driver.Buffer.from_numpy(np.zeros(1, self.dtype.numpy_dtype))
            extra = (driver.Buffer.from_numpy(np.zeros(self.kept, np.uint8)),) if self.reduce else ()
            self._buffers = (driver.Buffer.from_numpy(self.program), driver.Buffer.from_numpy(self.consts),
                             stand_in, extra)
        prog, consts, stand_in, extra = self._buffers
        data = [_flat(leaf_buffers[k]) for k in self.slots]
        data += [stand_in] * (_SLOTS - len(data))
        return [prog, consts, *data, *extra]

    def run(self, model, leaf_buffers, out_shape):
        (buf,) = model.execute(*self.arguments(leaf_buffers))
        return [buf.view(buf.dtype, out_shape)]


def _flat(buf):
    n = math.prod(buf.shape)
    return buf if len(buf.shape) == 1 else buf.view(buf.dtype, (n,))


def plan(order, leaves, outputs, node_ids, leaf_ids) -> Plan | None:
    """The program for a trace, or None when the fused kernel cannot run it."""
    if len(outputs) != 1 or not order:
        return None
    out = outputs[0]
    dtype = out.dtype
    if dtype not in (_dt.float32, _dt.float64) or not out.device.is_host:
        return None
    reduce, rows, inner = 0, 1, 1
    last = order[-1]
    if last.op.name in REDUCE_CODES and out.node is last:
        x = last.inputs[0]
        split = _reduced_run(x.shape, last.kwargs.get("axes", ()))
        if split is None:
            return None
        rows, inner = split
        reduce = REDUCE_CODES[last.op.name]
        full = math.prod(x.shape)
        body = order[:-1]
    else:
        full = math.prod(out.shape)
        body = order
    if full == 0 or len(leaves) > _SLOTS or any(leaf.dtype is not dtype for leaf in leaves):
        return None
    # the kernel takes the element count from slot 0: a full-size leaf goes there; leaves of other
    # sizes are single values or are spread over the elements (broadcast), described where used
    slots = sorted(range(len(leaves)), key=lambda k: math.prod(leaves[k].shape) != full)
    if full > 1 and (not slots or math.prod(leaves[slots[0]].shape) != full):
        return None
    slot_of = {k: s for s, k in enumerate(slots)}

    # value ids: leaves -(k+1), node outputs by node index; views and free casts are aliases of
    # their input (no instruction); every other value gets a register while it is live
    alias: dict[int, int] = {}

    def ref(v):
        r = -1 - leaf_ids[id(v)] if v.node is None else node_ids[id(v.node)]
        return alias.get(r, r)

    for i, n in enumerate(body):
        if _is_alias(n, dtype):
            alias[i] = ref(n.inputs[0])
    uses: dict[int, int] = {}
    for i, n in enumerate(body):
        for v in n.inputs:
            uses[ref(v)] = i
    final = ref(last.inputs[0]) if reduce else ref(out)
    uses[final] = len(body)
    instructions: list[tuple] = []
    consts: list[float] = []
    reg_of: dict[int, int] = {}
    free = list(range(_REGISTERS - 1, -1, -1))

    spread: dict[int, tuple] = {}  # leaf -> (div, mod): element j reads the leaf at (j // div) % mod

    def register(vid):
        if vid in reg_of:
            return reg_of[vid]
        if vid >= 0 or not free:
            raise _Unfit
        r = reg_of[vid] = free.pop()
        instructions.append((_LOAD, r, slot_of[-1 - vid], *spread.get(-1 - vid, (0, 0))))
        return r

    try:
        _layouts(body, last.inputs[0] if reduce else out, full, ref, alias, node_ids, spread)
    except _Unfit:
        return None

    try:
        for i, n in enumerate(body):
            name = n.op.name
            if "complex_storage" in n.kwargs or "src_complex" in n.kwargs:
                raise _Unfit
            if i in alias:
                continue
            if name == "constant":
                value = n.kwargs["value"]
                if isinstance(value, complex):
                    raise _Unfit
                args, code = (), (_CONST, len(consts))
                consts.append(float(value))
            elif name in UNARY_CODES:
                args, code = n.inputs, (UNARY_CODES[name],)
            elif name in BINARY_CODES:
                args, code = n.inputs, (BINARY_CODES[name],)
            elif name == "where":
                args, code = n.inputs, (_WHERE,)
            elif name == "broadcast_to":  # the input is already spread over the elements
                args, code = n.inputs, (UNARY_CODES["positive"],)
            else:
                raise _Unfit
            regs_in = [register(ref(v)) for v in args]
            for v in set(map(ref, args)):  # last use: the register is free for this result
                if uses.get(v) == i and v in reg_of:
                    free.append(reg_of.pop(v))
            if not free:
                raise _Unfit
            dst = reg_of[i] = free.pop()
            if code[0] == _CONST:
                instructions.append((_CONST, dst, code[1], 0, 0))
            else:
                instructions.append((code[0], dst, *(regs_in + [0, 0, 0])[:3]))
        result = register(final)
    except _Unfit:
        return None
    program = np.zeros(_HEADER + 5 * len(instructions), np.int32)
    program[:_HEADER] = (len(instructions), result, reduce, rows, inner)
    program[_HEADER:] = np.asarray(instructions, np.int32).reshape(-1)
    kept = full // rows if reduce else 0
    return Plan(dtype, reduce, program, np.asarray(consts or [0.0], np.float64), slots, kept)


class _Unfit(Exception):
    pass


_STAGEABLE = frozenset(UNARY_CODES) | frozenset(BINARY_CODES) | frozenset(REDUCE_CODES) | _ORDER_KEEPING \
    | {"where", "constant", "broadcast_to", "astype"}


def stages(order, outputs) -> list:
    """The values to realize first when a trace of the kernel's ops has reductions that feed more
    work (``(x - mean(x, axis=0)) / std(x, axis=0)``): each reduction runs as a program of its own,
    then the rest reads it as an input; a trace with several results gives each its own program.
    [] when the trace is not made of the kernel's ops."""
    reductions = set()
    for n in order:
        if n.op.name not in _STAGEABLE or "complex_storage" in n.kwargs or "src_complex" in n.kwargs:
            return []
        if n.op.name in REDUCE_CODES:
            reductions.add(id(n))
    if not reductions and len(outputs) == 1:
        return []
    if any(v.dtype not in _STAGE_DTYPES or not v.device.is_host for n in order for v in n.inputs):
        return []
    first: list = []
    for n in order:
        for v in n.inputs:
            if v.node is not None and id(v.node) in reductions and all(v is not u for u in first):
                first.append(v)
    if not first and len(outputs) > 1:  # the kernel has one output: one program per result
        position = {id(n): i for i, n in enumerate(order)}
        first = sorted(outputs, key=lambda v: position[id(v.node)])
    return first


_STAGE_DTYPES = (_dt.float32, _dt.float64, _dt.bool_)


def _layouts(body, result, full, ref, alias, node_ids, spread) -> None:
    """How each value smaller than the trace is spread over its elements. Registers always hold
    values spread to full size, so only the leaves' layouts matter: a value smaller than the trace
    takes the shape of the full-size result it is broadcast into (its context), from its consumers
    back to the leaves it is computed from; a leaf's context gives its (div, mod). Raises _Unfit
    where a leaf would need two layouts, a context is not one run of axes, or a smaller value is
    reshaped on the way."""
    shape_of: dict[int, tuple] = {}  # node index -> its output's shape (from the values that use it)
    for v in [u for n in body for u in n.inputs] + [result]:
        if v.node is not None and id(v.node) in node_ids:
            shape_of[node_ids[id(v.node)]] = tuple(v.shape)
    # node -> (context, the shape in which the context sees its value: a reshape may stand between)
    context: dict[int, tuple] = {}
    for i in range(len(body) - 1, -1, -1):
        if i in alias or i not in shape_of:
            continue
        own = shape_of[i]
        ctx, view = (own, own) if math.prod(own) == full else context.get(i, (None, None))
        for v in body[i].inputs:
            size = math.prod(v.shape)
            if size in (1, full):
                continue
            if ctx is None:
                raise _Unfit
            rank = len(ctx)
            if _padded(view, rank) == _padded(own, rank):
                seen = tuple(v.shape)
            elif tuple(v.shape) == own:  # an elementwise input of a value seen reshaped
                seen = view
            else:
                raise _Unfit
            src = ref(v)
            if src < 0:
                how = _spread(seen, ctx, full)
                if how is None or spread.setdefault(-1 - src, how) != how:
                    raise _Unfit
                continue
            mine = (_padded(ctx, rank), _padded(seen, rank))
            known = context.setdefault(src, (ctx, seen))
            if (_padded(known[0], rank), _padded(known[1], rank)) != mine:
                raise _Unfit


def _padded(shape, rank):
    shape = tuple(shape)
    while len(shape) > rank and shape[0] == 1:
        shape = shape[1:]
    return (1,) * (rank - len(shape)) + shape


def _reduced_run(shape, axes):
    """(r, inner) when the reduced ``axes`` of ``shape`` (size-1 axes aside) are one contiguous run:
    the values are then an (outer, r, inner) block reduced over r. None otherwise."""
    if not shape or any(d >= 2 ** 31 for d in shape):
        return None
    axes = sorted(a % len(shape) for a in axes)
    if not axes:
        return None
    moving = [a for a in axes if shape[a] > 1]
    if moving and any(shape[a] > 1 and a not in axes for a in range(moving[0], moving[-1] + 1)):
        return None
    r = math.prod(shape[a] for a in axes)
    inner = math.prod(shape[moving[-1] + 1:]) if moving else 1
    if r * inner >= 2 ** 31:
        return None
    return r, inner


def _spread(shape, out_shape, full):
    """(div, mod) such that element j of a row-major ``out_shape`` reads element (j // div) % mod of
    a value of ``shape`` broadcast to it; None unless the axes it keeps are one contiguous run."""
    if math.prod(out_shape) != full:
        return None
    padded = (1,) * (len(out_shape) - len(shape)) + tuple(shape)
    kept = [a for a, (d, o) in enumerate(zip(padded, out_shape)) if d == o and o > 1]
    if any(d != o and d != 1 for d, o in zip(padded, out_shape)) or not kept:
        return None
    first, last = kept[0], kept[-1] + 1
    if any(out_shape[a] > 1 and a not in kept for a in range(first, last)):
        return None
    return math.prod(out_shape[last:]), math.prod(out_shape[first:last])


def _is_alias(node, dtype) -> bool:
    """A node whose value is its input's, element for element, in the program's registers: views
    that keep the order, a single value broadcast, casts to this dtype from itself or from bool
    (stored as 1 / 0)."""
    name = node.op.name
    if name in _ORDER_KEEPING:
        return True
    if name == "broadcast_to":
        return math.prod(node.inputs[0].shape) == 1
    if name == "astype":
        src = node.inputs[0].dtype
        return node.kwargs.get("dtype") is dtype and (src is dtype or src is _dt.bool_)
    return False


# --- the engine's hook --------------------------------------------------------------------------

class FusedPath:
    """What the engine asks at first sight: a program for this trace, and the model to run it."""

    plan = staticmethod(plan)
    stages = staticmethod(stages)

    @staticmethod
    def model(engine, plan_: Plan):
        """The compiled fused kernel for ``plan_``, or the Future of its compile (once per machine,
        in the background), or None if that failed."""
        model = _request(engine, bool(plan_.reduce), plan_.dtype)
        if isinstance(model, Future) and not _FINISH_AT_EXIT:
            _FINISH_AT_EXIT.append(atexit.register(_finish_elsewhere, engine))
        return model

    @staticmethod
    def prepare(engine, dtypes=(_dt.float32,)) -> list:
        """Ask for the map and reduce models of ``dtypes`` now (a cold machine's first realization
        asks for the default float's); their models, or the Futures of their compiles."""
        return [_request(engine, reduce, d) for reduce in (False, True) for d in dtypes]


def _request(engine, reduce: bool, dtype):
    from .custom_kernels import kernel_digest

    name = f"fused-{'reduce' if reduce else 'map'}-{dtype.name}-{kernel_digest()}"
    return engine.named_model(name, lambda: _graph(dtype, reduce))


def warm_fused_kernels(wait: bool = True) -> bool:
    """Compile the fused kernel's four models now (once per machine; later processes read them from
    disk in milliseconds). Returns whether all four are ready."""
    from ..core.graph import GRAPH

    engine = GRAPH.engine
    both = (_dt.float32, _dt.float64)

    def ready(models):
        return all(m is not None and not isinstance(m, Future) for m in models)

    models = FusedPath.prepare(engine, both)
    if wait and not ready(models):
        engine.wait_for_compiles()
        models = FusedPath.prepare(engine, both)
    return ready(models)


def _graph(dtype, reduce: bool):
    from max.dtype import DType
    from max.graph import DeviceRef, Graph, TensorType

    from .custom_kernels import fused_kernel

    cpu = DeviceRef.CPU()
    types = [TensorType(DType.int32, ["p"], cpu), TensorType(DType.float64, ["c"], cpu)]
    types += [TensorType(dtype.max_dtype, [f"n{k}"], cpu) for k in range(_SLOTS)]
    if reduce:
        types.append(TensorType(DType.uint8, ["m"], cpu))
    with Graph(f"nabla_fused_{'reduce' if reduce else 'map'}", input_types=types) as g:
        g.output(fused_kernel(reduce)(*[v.tensor for v in g.inputs]))
    return g


_FINISH_AT_EXIT: list = []


def _finish_elsewhere(engine) -> None:
    """At exit, a kernel compile still under way would be lost (the worker goes with this process),
    and a short script would start it again next time: hand it to a detached, nice-19 process that
    compiles the four models into the kernel cache. One at a time per machine (a lock file)."""
    from ..core.compiler import start_detached

    if any(e.model is None and e.compiling is not None for e in engine._named.values()):
        start_detached("warming.lock", "nabla.ops.fused")


if __name__ == "__main__":  # the detached warm: python -m nabla.ops.fused LOCK
    try:
        warm_fused_kernels()
    finally:
        if len(sys.argv) > 1:
            os.unlink(sys.argv[1])
