"""JAX's ``addressable_shards``: each device's block of a tensor on a mesh, and where it lies."""

from __future__ import annotations

from typing import NamedTuple

from ..core.tensor import Tensor
from .mesh import LocalView
from .spmd import values_of
from .stacking import local_tensor


class Shard(NamedTuple):
    """One device's block: ``data`` is ``x[index]`` (for a pending partial reduction, the device's
    unreduced term); ``replica_id`` counts the earlier devices holding the same block."""

    device: object
    index: tuple
    replica_id: int
    data: Tensor


def addressable_shards(x: Tensor) -> list[Shard]:
    """The blocks of ``x``, one per device of its mesh in row-major order (one for an unsharded
    tensor); each block's ``data`` is a lazy tensor: reading it realizes only what it needs."""
    if not isinstance(x, Tensor):
        raise TypeError(f"nabla.addressable_shards: expected a Tensor, got {type(x).__name__}")
    impl = x._impl
    if impl.batch_dims:
        raise ValueError("nabla.addressable_shards: the tensor has hidden vmap batch dims inside the "
                         "transformed function; return it from the function instead")
    spec = impl.sharding
    if isinstance(spec, LocalView):
        raise ValueError("nabla.addressable_shards: inside shard_map a tensor is already one device's block")
    shape = impl.cached_shape
    if spec is None:
        return [Shard(impl.device, (slice(None),) * len(shape), 0, x)]
    mesh = spec.mesh
    local = spec.local_shape(shape)
    partial_axes = [mesh.axis_index(a) for a, _ in spec.partial]
    seen: dict = {}
    out = []
    for dev, value in enumerate(values_of(impl, mesh)):
        index = tuple(slice(None) if not axes else slice(mesh.block(dev, axes) * n, (mesh.block(dev, axes) + 1) * n)
                      for axes, n in zip(spec.dims, local))
        coords = mesh.coords(dev)
        # devices along a partial axis hold different terms: not replicas of one another
        key = (tuple((s.start, s.stop) for s in index), tuple(coords[k] for k in partial_axes))
        replica = seen[key] = seen.get(key, -1) + 1
        out.append(Shard(mesh.devices[dev], index, replica, local_tensor(value, impl.dtype, 0)))
    return out
