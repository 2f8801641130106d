"""One stage of the fused evaluator: a trace of elementwise ops as a program, run without a compile.

A trace of elementwise ops, views of its inputs (basic slices, transposes, broadcasts, reshapes),
constants, gathers and concatenations, and at most one reduction over one run of axes at its end,
is written as a small program (``fused_program.py``; tables in ``fused_codes.py``) for the fused
evaluator (``runtime/kernels/evaluator/fused.mojo``): registers over cache-sized blocks, SIMD, on all CPU
cores, no per-structure compile. ``plan`` writes one such stage (``program.py`` cuts a whole trace
into them); ``Plan.run`` runs one alone on the program kernel (``program_kernel.py``), which is
built once per machine.
"""

from __future__ import annotations

import math

import numpy as np
from max import driver

from ..core import dtypes as _dt
from . import program_kernel
from .fused_complex import complex_work, real_trace, relift
from .fused_codes import BYTES, constant_bits, elementwise_facts
from .program_kernel import MAP, REDUCE, SCAN, STAGE, family
from .fused_program import write
from .fused_views import contiguous_view
from .fused_stages import deferrable, fits_alone, stages
from .first_sight import FirstSightPath
from .result_memory import host_memory


class Plan:
    """A trace written as a program: what to feed the fused evaluator and how to read its result."""

    __slots__ = ("dtype", "program")

    def __init__(self, dtype, program):
        self.dtype, self.program = dtype, program  # (dtype: of the data slots; BYTES: coded)

    @property
    def reduce(self) -> int:
        return self.program.reduce

    @property
    def kind(self) -> str:
        """What the program computes: map, reduce, count (a sum of 1 / 0 to int64) or scan (a running sum)."""
        p = self.program
        return "count" if p.count else ("reduce" if p.reduce else ("scan" if p.scan else "map"))

    def consts(self, leaf_buffers, values=None):
        """The program's constants for this run: its scalar constants (``values``, by trace
        position: traces that differ only in them share the plan) and one-element inputs, where
        their bits differ from the program's table (-0.0, NaN); not written in place (other threads
        may run this plan)."""
        p = self.program
        if not (p.lifted_leaves or (values and p.lifted)):
            return p.consts
        ints = p.registers is _dt.int64
        found = [(at, values[i]) for i, at in p.lifted if values and i in values]
        found += [(at, leaf_buffers[k].to_numpy().reshape(()).item()) for k, at in p.lifted_leaves]
        changed = [(at, v) for at, x in found for v in (constant_bits(x, ints),) if _bits(v) != _bits(p.consts[at])]
        if not changed:
            return p.consts
        fresh = p.consts.copy()
        for at, v in changed:
            fresh[at] = v
        return fresh

    def run(self, model, leaf_buffers, out_shape, values=None):
        """One call of the program kernel running this program alone (``model``: the kernel)."""
        p = self.program
        coded = self.dtype is BYTES
        out_dtype = _dt.int64 if p.count and not coded else p.out_dtype
        n = p.size
        out = host_memory(max(n * out_dtype.itemsize, 8))  # (a tested count: one int64 1 / 0)
        consts = self.consts(leaf_buffers, values)
        call = np.zeros(1 + STAGE, np.int64)
        call[0] = 1
        call[1:9] = (REDUCE if p.reduce else (SCAN if p.scan else MAP), family(p), p.program.ctypes.data,
                     consts.ctypes.data, out.ctypes.data, n, 0, int(bool(p.count)))
        for j, k in enumerate(p.slots):
            buf = leaf_buffers[k]
            count = math.prod(buf.shape)
            call[9 + 2 * j] = buf._data_ptr()
            call[10 + 2 * j] = count * buf.dtype.size_in_bytes if coded else count
        model.run(call.ctypes.data)
        if p.test and not coded:  # a tested count: one int64 1 / 0, read as a bool
            flat = driver.Buffer.from_numpy(out[:1].view(np.bool_))
        else:
            flat = driver.Buffer.from_numpy(out[:n * out_dtype.itemsize].view(out_dtype.numpy_dtype))
        dtype = _dt.bool_ if p.test and not coded else out_dtype
        return [flat if tuple(out_shape) == (n,) else flat.view(dtype.max_dtype, tuple(out_shape))]


def _bits(x) -> int:
    return int(np.float64(x).view(np.int64))


def _flat(buf):
    n = math.prod(buf.shape)
    return buf if len(buf.shape) == 1 else buf.view(buf.dtype, (n,))


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
    def computes_single_op_nodes(order) -> bool:
        return all(elementwise_facts(n.op) is not None and len(n.inputs) == 1 and all(v.dtype in (_dt.float32, _dt.float64) and v.device.is_host
                                                     for v in n.inputs)
                   for n in order if n.op.single_op)

    @staticmethod
    def model(engine, plan_):
        """The program kernel that runs ``plan_`` (built once per machine: the Future of its build
        while it is being built), or True for a view (no kernel)."""
        if plan_.kind == "view":
            return True
        return program_kernel.module_or_build()

    @staticmethod
    def prepare(engine) -> list:
        """Start building the program kernel on a machine that lacks it: its Future, or nothing."""
        return [] if program_kernel.ready() else [program_kernel.build_async()]


def warm_program_kernel(wait: bool = True) -> bool:
    """Build the program kernel now (once per machine: later processes load it in milliseconds).
    Returns whether it is ready."""
    if program_kernel.ready():
        return True
    fut = program_kernel.build_async()
    if wait:
        fut.exception()
    return program_kernel.ready()



