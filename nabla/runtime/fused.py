"""First sight without a compile: whole elementwise traces as programs for one fused Mojo kernel.

A trace of elementwise float ops, views of its inputs (basic slices, transposes, broadcasts,
reshapes), constants and at most one reduction over one run of axes at its end is written as a
small program (``fused_program.py``; tables in ``fused_codes.py``) for ``kernels/core/fused.mojo`` and run by a compiled model that
serves every such trace: fused, in cache-sized blocks, on all CPU cores, with no per-structure
compile. Traces whose reductions feed more work run in stages. The models (map and reduce, per
float dtype) are compiled once per machine, in the background at low priority, into the
machine-wide kernel cache; until they land, the interpreter serves first sight.
"""

from __future__ import annotations

import atexit
import math
import os
import sys
from concurrent.futures import Future

import numpy as np

from ..core import dtypes as _dt
from ..core.models import execute
from .fused_complex import complex_work, real_trace, relift
from .fused_codes import BYTES, SLOTS, UNARY_CODES, constant_bits
from .fused_program import contiguous_view, write
from .fused_stages import deferrable, fits_alone, stages
from .paths import FirstSightPath


class Plan:
    """A trace written as a program: what to feed the fused kernel and how to read its result."""

    __slots__ = ("dtype", "program", "_buffers", "model")

    def __init__(self, dtype, program):
        self.dtype, self.program = dtype, program  # (dtype: of the data slots; BYTES: coded)
        self._buffers = self.model = None  # (model: the kernel's, once it has landed)

    @property
    def reduce(self) -> int:
        return self.program.reduce

    @property
    def kind(self) -> str:
        """Which of the kernel's models runs it: map, reduce, count (a sum of 1 / 0 to int64) or scan
        (a running sum; apart from map, so that the model a cold machine waits for stays small)."""
        p = self.program
        return "count" if p.count else ("reduce" if p.reduce else ("scan" if p.scan else "map"))

    def arguments(self, leaf_buffers, values=None):
        """The kernel's operands: program, constants, four data slots (unused ones get a one-element
        stand-in), and an operand whose size is the output's (its only use). ``values``: this run's
        scalar constants by trace position (traces that differ only in them share the plan)."""
        from max import driver

        p = self.program
        coded = self.dtype is BYTES
        if self._buffers is None:
            stand_in = driver.Buffer.from_numpy(np.zeros(1, self.dtype.numpy_dtype))
            out_bytes = p.size * (p.out_dtype.itemsize if coded else 1)
            self._buffers = (driver.Buffer.from_numpy(p.program), driver.Buffer.from_numpy(p.consts),
                             stand_in, driver.Buffer.from_numpy(np.zeros(out_bytes, np.uint8)))
        prog, consts, stand_in, size = self._buffers
        # this run's constants and one-element inputs, where their bits differ (-0.0, NaN)
        changed = self._changed(leaf_buffers, values, p.registers is _dt.int64) \
            if p.lifted_leaves or (values and p.lifted) else ()
        if changed:
            fresh = p.consts.copy()  # not written in place: other threads may run this plan
            for at, v in changed:
                fresh[at] = v
            consts = driver.Buffer.from_numpy(fresh)
        data = [(_bytes if coded else _flat)(leaf_buffers[k]) for k in p.slots]
        data += [stand_in] * (SLOTS - len(data))
        return [prog, consts, *data, size]

    def _changed(self, leaf_buffers, values, ints: bool) -> list:
        """(index in consts, bits) of this run's scalar constants and one-element inputs whose bits
        differ from the program's table (-0.0 and NaN included)."""
        p = self.program
        found = [(at, values[i]) for i, at in p.lifted if values and i in values]
        found += [(at, leaf_buffers[k].to_numpy().reshape(()).item()) for k, at in p.lifted_leaves]
        return [(at, v) for at, x in found for v in (constant_bits(x, ints),) if _bits(v) != _bits(p.consts[at])]

    def run(self, model, leaf_buffers, out_shape, values=None):
        (buf,) = execute(model, self.arguments(leaf_buffers, values))
        if self.program.test and self.dtype is not BYTES:  # a tested count: one int64 1 / 0, read as a bool
            from max.dtype import DType

            return [buf.view(DType.uint8, (8,))[0:1].view(DType.bool, out_shape)]
        dtype = self.program.out_dtype.max_dtype if self.dtype is BYTES else buf.dtype
        return [buf.view(dtype, out_shape)]


def _bits(x) -> int:
    return int(np.float64(x).view(np.int64))


def _flat(buf):
    n = math.prod(buf.shape)
    return buf if len(buf.shape) == 1 else buf.view(buf.dtype, (n,))


def _bytes(buf):
    """A buffer as the coded families' kernels take it: its bytes."""
    return buf.view(BYTES.max_dtype, (math.prod(buf.shape) * buf.dtype.size_in_bytes,))


class ViewPlan:
    """A trace whose result is a contiguous run of one input's elements: that input's buffer,
    viewed (no kernel, no copy)."""

    __slots__ = ("leaf", "offset")
    kind = "view"

    def __init__(self, leaf, offset):
        self.leaf, self.offset = leaf, offset

    def run(self, model, leaf_buffers, out_shape, values=None):
        buf = _flat(leaf_buffers[self.leaf])
        n = math.prod(out_shape)
        if self.offset or n != buf.shape[0]:
            buf = buf[self.offset:self.offset + n]
        return [buf.view(buf.dtype, out_shape)]


def plan(order, leaves, outputs, node_ids, leaf_ids) -> Plan | ViewPlan | None:
    """The fused kernel's plan for a trace, or None when it cannot run it."""
    view = contiguous_view(order, leaves, outputs, node_ids, leaf_ids)
    if view is not None:
        return ViewPlan(*view)
    positions = None
    if complex_work(order):  # complex values as pairs of real ones
        real = real_trace(order, leaves, outputs, node_ids, leaf_ids)
        if real is None:
            return None
        order, outputs, node_ids, positions = real
    program = write(order, leaves, outputs, node_ids, leaf_ids)
    if program is not None and positions is not None:
        relift(program, positions)
    return None if program is None else Plan(program.dtype, program)


# --- the engine's hook --------------------------------------------------------------------------

class FusedPath(FirstSightPath):
    """The fused kernel: a program for this trace, and the kernel's model to run it."""

    plan = staticmethod(plan)
    stages = staticmethod(stages)
    deferrable = staticmethod(deferrable)
    fits_alone = staticmethod(fits_alone)

    @staticmethod
    def computes_kernel_nodes(order) -> bool:
        return all(n.op.name in UNARY_CODES and all(v.dtype in (_dt.float32, _dt.float64) and v.device.is_host
                                                     for v in n.inputs)
                   for n in order if n.op.single_op)

    @staticmethod
    def model(engine, plan_: Plan):
        """The compiled fused kernel for ``plan_``, or the Future of its compile (once per machine,
        in the background), or None if that failed."""
        if plan_.kind == "view":
            return True  # (no model: the input's buffer is the result)
        if plan_.model is not None:
            return plan_.model
        model = _request(engine, plan_.kind, family_name(plan_.dtype, plan_.program.registers))
        if isinstance(model, Future) and not _FINISH_AT_EXIT:
            _FINISH_AT_EXIT.append(atexit.register(_finish_elsewhere, engine))
        elif model is not None and not isinstance(model, Future):
            plan_.model = model  # named models stay loaded: asked once per plan, not per run
        return model

    @staticmethod
    def prepare(engine, families=("float32",), kinds=("map", "reduce")) -> list:
        """Ask for the models of ``kinds`` for ``families`` now (a cold machine's first realization
        asks for the default float's map and reduce); their models, or the Futures of their compiles."""
        return [_request(engine, kind, f) for kind in kinds for f in families]


def family_name(dtype, registers) -> str:
    """A family's name: its float dtype, ``uint8`` (the integer family: bytes) or ``coded_<float>``."""
    return f"coded_{registers.name}" if dtype is BYTES and registers.is_floating else dtype.name


def family(name: str):
    """(data dtype, registers' dtype) of the family ``name``."""
    if name.startswith("coded_"):
        return BYTES, _dt.from_name(name[len("coded_"):])
    dtype = _dt.from_name(name)
    return dtype, (_dt.int64 if dtype is BYTES else dtype)


def model_name(kind: str, family_: str) -> str:
    from ..ops.custom_kernels import kernel_digest

    return f"fused-{kind}-{family_}-{kernel_digest()}"


def _request(engine, kind: str, family_: str):
    name = model_name(kind, family_)
    if (kind, family_) not in REQUESTED:
        from .single_op import _MET_ORDER

        REQUESTED[(kind, family_)] = next(_MET_ORDER)  # (one order with the single-op models met)
    building = engine.being_built(name)  # a cold machine's first-run build is making it
    return building if building is not None else engine.named_model(name, lambda: _graph(family_, kind))


#: (kind, family name) -> when this process first asked for that model (``nabla.build --record``)
REQUESTED: dict = {}

#: every model of the fused kernel, (kind, family name): map, reduce, count and scan for both float
#: dtypes; map and reduce for the integer family and for the coded floats
EVERY_MODEL = tuple((kind, f) for f in ("float64", "float32") for kind in ("map", "reduce", "count", "scan")) + \
    tuple((kind, f) for f in ("uint8", "coded_float64", "coded_float32") for kind in ("map", "reduce"))


def warm_fused_kernels(wait: bool = True) -> bool:
    """Compile the fused kernel's models now (``EVERY_MODEL``; once per machine, later processes read
    them from disk in milliseconds). Returns whether all are ready."""
    from ..core.graph import GRAPH

    engine = GRAPH.engine

    def prepare():
        return [_request(engine, kind, f) for kind, f in EVERY_MODEL]

    def ready(models):
        return all(m is not None and not isinstance(m, Future) for m in models)

    models = prepare()
    if wait and not ready(models):
        engine.wait_for_compiles()
        models = prepare()
    return ready(models)


def _graph(family_: str, kind: str, graph_name=None, module=None):
    from max.dtype import DType
    from max.graph import DeviceRef, Graph, TensorType

    from ..ops.custom_kernels import fused_kernel

    dtype, registers = family(family_)
    cpu = DeviceRef.CPU()
    types = [TensorType(DType.int32, ["p"], cpu), TensorType(DType.float64, ["c"], cpu)]
    types += [TensorType(dtype.max_dtype, [f"n{k}"], cpu) for k in range(SLOTS)]
    types.append(TensorType(DType.uint8, ["m"], cpu))
    with Graph(graph_name or f"nabla_fused_{kind}", input_types=types, module=module) as g:
        g.output(fused_kernel(kind, registers.max_dtype)(*[v.tensor for v in g.inputs]))
    return g


_FINISH_AT_EXIT: list = []


def _finish_elsewhere(engine) -> None:
    """At exit, a kernel compile still under way would be lost (the worker goes with this process),
    and a short script would start it again next time: hand it to a detached, nice-19 process that
    compiles the models into the kernel cache. One at a time per machine (a lock file)."""
    from ..core.compiler import start_detached

    if os.environ.get("NABLA_COMPILE_AT_EXIT", "") != "1":
        return  # asked for only: it would compute after the program exits
    if engine.compiles_under_way():
        start_detached("warming.lock", "nabla.runtime.fused")


if __name__ == "__main__":  # the detached warm: python -m nabla.runtime.fused LOCK
    try:
        warm_fused_kernels()
    finally:
        if len(sys.argv) > 1:
            os.unlink(sys.argv[1])
