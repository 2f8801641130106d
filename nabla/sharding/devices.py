"""Meshes over distinct devices: each shard's value lives on its device, data moves between
devices by MAX's ``transfer_to``, and pending reductions and gathers use MAX's collectives
(``allreduce.sum``, ``allgather``), one node per group of devices, with each device's signal
buffer as a graph input.

On this project's machines the devices are ``virtual_cpus(n)`` (``cpu:0 .. cpu:n-1`` on one
CPU), whose graphs MAX's interpreter runs; over accelerators the graphs are compiled. The nodes
here are recorded directly (they are never differentiated: the global-view ops around them carry
the derivative rules), and each output ``Value`` names its own device.
"""

from __future__ import annotations

import threading
import time

import numpy as np
from max import driver
from max.dtype import DType

from ..core import trace_lowering
from ..core.graph import GRAPH, Node, Value
from ..ops.base import Operation
from ..core.lazy_module import graph_ops as ops

#: bytes of a CPU's signal buffer: MAX's interpreter ignores them (a GPU's is
#: ``max.nn.comm.Signals.NUM_BYTES``, ~281 MiB, allocated once per process for all accelerators)
SIGNAL_BYTES = 64


class _Signals:
    """The signal buffer of each device for MAX's collectives (``trace_lowering.SIGNALS``): one
    graph input per device a trace's collectives touch, the same buffer for every run."""

    used = False  # set once a collective is recorded

    def __init__(self):
        self._buffers: dict = {}
        self._lock = threading.Lock()

    def input_type(self, device):
        # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
        from max.graph import BufferType, DeviceRef

        return BufferType(DType.uint8, (self._bytes(device),), device=DeviceRef.from_device(device))

    @staticmethod
    def _bytes(device) -> int:
        if device.is_host:
            return SIGNAL_BYTES
        # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
        from max.nn.comm import Signals

        return Signals.NUM_BYTES

    def buffer(self, device):
        key = (device.label, device.id)
        buf = self._buffers.get(key)
        if buf is None:
            with self._lock:
                if key not in self._buffers:
                    self._allocate(device)
                buf = self._buffers.get(key)
        return buf

    def _allocate(self, device) -> None:
        if device.is_host:
            self._buffers[(device.label, device.id)] = driver.Buffer.from_numpy(np.zeros(SIGNAL_BYTES, np.uint8))
            return
        # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
        from max.nn.comm import Signals

        # every accelerator at once: allocating enables peer access among them and initializes the
        # buffers as MAX's kernels expect (zeros, then the Lamport region's sentinel); MAX's
        # compile-only (virtual device) mode allocates none
        gpus = [driver.Accelerator(i) for i in range(driver.accelerator_count())]
        for gpu, buf in zip(gpus, Signals.allocate(gpus)):
            self._buffers[(gpu.label, gpu.id)] = buf


SIGNALS = _Signals()
trace_lowering.SIGNALS = SIGNALS


class TransferOp(Operation):
    """A value copied to the device ``to`` names (``(label, id)``)."""

    name = "transfer"
    multi_device = True
    shape_polymorphic = True

    def maxpr(self, x, *, to):
        # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
        from max.graph import DeviceKind, DeviceRef

        return ops.transfer_to(x, DeviceRef(DeviceKind(to[0]), to[1]))


class DeviceAllReduceOp(Operation):
    """Per device of a group, the ``kind`` reduction of every device's value (one input each)."""

    name = "device_all_reduce"
    multi_device = signal_buffers = True
    shape_polymorphic = True

    def maxpr(self, *xs, signals, kind):
        xs = list(xs)
        if kind == "sum" and xs[0].device.is_cpu():
            return ops.allreduce.sum(xs, signals)
        # MAX's allreduce sums only: gather the values on a new leading axis, reduce it locally.
        # Sums on accelerators take this way too: MAX 26.7's allreduce.sum fails its verifier for
        # sm_90 ("all of {inputs, outputs} have same type") once a tensor feeds both a summed value
        # and that sum's consumer (a weight in a training step), while the gather compiles.
        stacked = ops.allgather([ops.unsqueeze(x, 0) for x in xs], signals, axis=0)
        reduce = {"sum": ops.sum, "max": ops.max, "min": ops.min}[kind]
        return [ops.squeeze(reduce(s, axis=0), 0) for s in stacked]


class DeviceAllGatherOp(Operation):
    """Per device of a group, every device's value joined along ``axis``."""

    name = "device_all_gather"
    multi_device = signal_buffers = True
    shape_polymorphic = True

    def maxpr(self, *xs, signals, axis):
        return ops.allgather(list(xs), signals, axis=axis)


transfer_op = TransferOp()
device_all_reduce_op = DeviceAllReduceOp()
device_all_gather_op = DeviceAllGatherOp()


def to_device(v: Value, device) -> Value:
    """``v`` on ``device`` (itself when it is there already)."""
    if v.device == device:
        return v
    node = Node(transfer_op, {"to": (device.label, device.id)}, (v,), None)
    return Value(node, 0, v.shape, v.dtype, device)


def moved_from(v: Value):
    """The value ``v`` is a pending copy of (on another device), or None."""
    node = v.node
    return node.inputs[0] if node is not None and node.op is transfer_op else None


def spread(v: Value, mesh) -> list:
    """One value per device of ``mesh`` holding ``v`` (on a simulated mesh, ``v`` itself)."""
    if mesh.simulated:
        return [v] * mesh.size
    return [to_device(v, d) for d in mesh.devices]


def all_reduce(vals: list, kind: str) -> list:
    """Per device, the reduction of the group's ``vals`` (one per device, in group order)."""
    SIGNALS.used = True
    node = Node(device_all_reduce_op, {"kind": kind}, tuple(vals), None)
    return [Value(node, k, v.shape, v.dtype, v.device) for k, v in enumerate(vals)]


def all_gather(vals: list, axis: int) -> list:
    """Per device, the group's ``vals`` joined along ``axis``."""
    shape = list(vals[0].shape)
    shape[axis] = sum(v.shape[axis] for v in vals)
    SIGNALS.used = True
    node = Node(device_all_gather_op, {"axis": axis}, tuple(vals), None)
    return [Value(node, k, tuple(shape), v.dtype, v.device) for k, v in enumerate(vals)]


def compile_only(tensors) -> float:
    """Build the graph computing ``tensors`` and compile it for their devices without running it
    (MAX's virtual device mode: ``max.driver.set_virtual_device_*``); return the seconds taken.
    Raises what MAX's compiler raises."""
    # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
    from max.engine import InferenceSession

    values = [v for t in tensors for v in t._impl._values]
    engine = GRAPH.engine
    with engine.tracing():
        traced = engine.trace(values)
        graph = engine.graph_of(traced, values, [leaf.shape for leaf in traced.leaves])
    accelerators = sorted({v.device.id for v in values if not v.device.is_host})
    start = time.perf_counter()
    InferenceSession(devices=[driver.CPU()] + [driver.Accelerator(i) for i in accelerators]).load(graph)
    return time.perf_counter() - start
