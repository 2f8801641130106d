"""Meshes over distinct devices: each shard's value lives on its device, data moves between
devices by MAX's ``transfer_to``, and pending reductions and gathers use MAX's collectives
(``allreduce.sum``, ``allgather``), one node per group of devices.

On this project's machines the devices are ``virtual_cpus(n)`` (``cpu:0 .. cpu:n-1`` on one
CPU), whose graphs MAX's interpreter runs. The nodes here are recorded directly (they are never
differentiated: the global-view ops around them carry the derivative rules), and each output
``Value`` names its own device.
"""

from __future__ import annotations

from ..core.graph import Node, Value
from ..ops.base import Operation

#: bytes of each device's signal buffer. MAX's collectives take one per device; its interpreter
#: ignores them (on GPUs they would be ``max.nn.comm.Signals``, allocated once per device set)
SIGNAL_BYTES = 64


def _ref(device):
    from max.graph import DeviceRef

    return DeviceRef.from_device(device)


def _signals(xs) -> list:
    from max.dtype import DType
    from max.graph import BufferType, ops

    return [ops.buffer_create(BufferType(DType.uint8, (SIGNAL_BYTES,), device=x.device)) for x in xs]


class TransferOp(Operation):
    """A value copied to the device ``to`` names (``(label, id)``)."""

    name = "transfer"
    multi_device = True
    shape_polymorphic = True

    def maxpr(self, x, *, to):
        from max.graph import DeviceRef, ops

        return ops.transfer_to(x, DeviceRef(to[0], to[1]) if to[0] != "cpu" else DeviceRef.CPU(to[1]))


class DeviceAllReduceOp(Operation):
    """Per device of a group, the ``kind`` reduction of every device's value (one input each)."""

    name = "device_all_reduce"
    multi_device = True
    shape_polymorphic = True

    def maxpr(self, *xs, kind):
        from max.graph import ops

        xs = list(xs)
        if kind == "sum":
            return ops.allreduce.sum(xs, _signals(xs))
        # MAX's allreduce sums only: gather the values on a new leading axis, reduce it locally
        stacked = ops.allgather([ops.unsqueeze(x, 0) for x in xs], _signals(xs), axis=0)
        reduce = ops.max if kind == "max" else ops.min
        return [ops.squeeze(reduce(s, axis=0), 0) for s in stacked]


class DeviceAllGatherOp(Operation):
    """Per device of a group, every device's value joined along ``axis``."""

    name = "device_all_gather"
    multi_device = True
    shape_polymorphic = True

    def maxpr(self, *xs, axis):
        from max.graph import ops

        xs = list(xs)
        return ops.allgather(xs, _signals(xs), axis=axis)


transfer_op = TransferOp()
device_all_reduce_op = DeviceAllReduceOp()
device_all_gather_op = DeviceAllGatherOp()


def to_device(v: Value, device) -> Value:
    """``v`` on ``device`` (itself when it is there already)."""
    if v.device == device:
        return v
    node = Node(transfer_op, {"to": (device.label, device.id)}, (v,), None)
    return Value(node, 0, v.shape, v.dtype, device)


def spread(v: Value, mesh) -> list:
    """One value per device of ``mesh`` holding ``v`` (on a simulated mesh, ``v`` itself)."""
    if mesh.simulated:
        return [v] * mesh.size
    return [to_device(v, d) for d in mesh.devices]


def all_reduce(vals: list, kind: str) -> list:
    """Per device, the reduction of the group's ``vals`` (one per device, in group order)."""
    node = Node(device_all_reduce_op, {"kind": kind}, tuple(vals), None)
    return [Value(node, k, v.shape, v.dtype, v.device) for k, v in enumerate(vals)]


def all_gather(vals: list, axis: int) -> list:
    """Per device, the group's ``vals`` joined along ``axis``."""
    shape = list(vals[0].shape)
    shape[axis] = sum(v.shape[axis] for v in vals)
    node = Node(device_all_gather_op, {"axis": axis}, tuple(vals), None)
    return [Value(node, k, tuple(shape), v.dtype, v.device) for k, v in enumerate(vals)]
