"""SPMD sharding: device meshes, sharding specs, and ops that run once per shard.

Global view: ``x.shard(mesh, P("dp", None))`` (or ``nabla.device_put(x, NamedSharding(mesh, spec))``)
lays a tensor out on a mesh; every later op propagates the layout by its family's rule
(``rules.py``), inserting the collectives it needs. See docs/sharding.md.
"""

from __future__ import annotations

from ..core import pickling as _pickling
from ..core.context import VirtualCPU, accelerator, cpu, virtual_cpus
from ..core.tensor import Tensor
from ..ops.creation import asarray
from .collectives import (all_gather as all_gather_blocks, all_to_all, axis_index, pmax, pmean, pmin, ppermute,
                          psum, psum_scatter, pvary)
from .mesh import DeviceMesh, DimSpec, NamedSharding, P, PartitionSpec, ShardingSpec
from .shard_map import shard_map
from .shards import Shard, addressable_shards
from .spmd import collectives_recorded, reshard_op


def _target(x: Tensor, mesh, spec, op: str) -> ShardingSpec:
    if not isinstance(x, Tensor):
        raise TypeError(f"nabla.{op}: expected a Tensor, got {type(x).__name__}")
    if not isinstance(mesh, DeviceMesh):
        raise TypeError(f"nabla.{op}: expected a DeviceMesh, got {type(mesh).__name__}")
    impl = x._impl
    if isinstance(spec, ShardingSpec):
        return ShardingSpec.parse(mesh, spec, impl.cached_shape, op)
    # a user's spec names logical dims; vmap batch dims ahead of them stay whole
    spec = tuple(() if spec is None else spec)
    return ShardingSpec.parse(mesh, ((),) * impl.batch_dims + spec, impl.cached_shape, op)


def shard(x: Tensor, mesh: DeviceMesh, spec=None) -> Tensor:
    """``x`` laid out on ``mesh`` as ``spec`` (a ``P``: one entry per dim, mesh axis names or None)."""
    return reshard_op(x, spec=_target(x, mesh, spec, "shard"))


def reshard(x: Tensor, spec) -> Tensor:
    """``x`` on its own mesh, laid out as ``spec``."""
    if x._impl.sharding is None:
        raise ValueError("nabla.reshard: the tensor is not on a mesh; use x.shard(mesh, spec)")
    return shard(x, x._impl.sharding.mesh, spec)


def all_gather(x: Tensor, axis_name=None, *, axis: int = 0, tiled: bool = False) -> Tensor:
    """In a ``shard_map`` body, JAX's ``all_gather`` over ``axis_name``; on a global tensor (no
    axis name), ``x`` replicated whole on every device of its mesh (pending reductions done)."""
    if axis_name is not None:
        return all_gather_blocks(x, axis_name, axis=axis, tiled=tiled)
    return x if x._impl.sharding is None else reshard(x, ())


def all_reduce(x: Tensor) -> Tensor:
    """``x`` with its pending partial reductions done; its split dims stay split."""
    spec = x._impl.sharding
    if spec is None or not spec.partial:
        return x
    return reshard_op(x, spec=spec.without_partial())


def device_put(x, sharding=None) -> Tensor:
    """JAX's ``device_put``: a ``NamedSharding`` lays ``x`` out on a mesh; a device moves it."""
    if isinstance(sharding, NamedSharding):
        return shard(x if isinstance(x, Tensor) else asarray(x), sharding.mesh, sharding.spec)
    if isinstance(x, Tensor):
        return x if sharding is None else x.to_device(sharding)
    return asarray(x, device=sharding)


def _describe_layout(layout: ShardingSpec) -> dict:
    """A tensor's mesh and spec as plain data (``core/pickling.py``): devices by kind and index."""
    mesh = layout.mesh
    devices = None if mesh.simulated else [("virtual", d.id) if isinstance(d, VirtualCPU) else
                                            ("cpu", 0) if d.is_host else ("gpu", d.id) for d in mesh.devices]
    return {"shape": mesh.shape, "axes": mesh.axis_names, "name": mesh.name, "devices": devices,
            "spec": tuple(layout.spec)}


def _restore_layout(x: Tensor, described: dict) -> Tensor:
    """``x`` laid out as ``described``; on a simulated mesh where this process lacks the devices."""
    devices = None
    if described["devices"] is not None:
        try:
            devices = [VirtualCPU(i) if kind == "virtual" else accelerator(i) if kind == "gpu" else cpu()
                       for kind, i in described["devices"]]
        except ValueError:
            devices = None
    mesh = DeviceMesh(described["shape"], described["axes"], devices=devices, name=described["name"])
    return shard(x, mesh, P(*described["spec"]))


_pickling.LAYOUTS[0] = (_describe_layout, _restore_layout)


def sharding_of(x: Tensor):
    """``x``'s ``ShardingSpec``, or ``None`` when it is not on a mesh."""
    return x._impl.sharding


def typeof(x: Tensor) -> str:
    """JAX's notation for the type and layout: ``float32[8@dp,4]``."""
    impl = x._impl
    spec = impl.sharding or ShardingSpec.replicated(DeviceMesh(1, "_"), len(impl.cached_shape))
    return spec.describe(impl.cached_shape, impl.dtype)


__all__ = ["DeviceMesh", "DimSpec", "NamedSharding", "P", "PartitionSpec", "Shard", "ShardingSpec", "VirtualCPU",
           "addressable_shards", "all_gather", "all_reduce", "all_to_all", "axis_index", "collectives_recorded",
           "device_put", "pmax", "pmean", "pmin", "ppermute", "psum", "psum_scatter", "pvary", "reshard", "shard",
           "shard_map", "sharding_of", "typeof", "virtual_cpus"]
