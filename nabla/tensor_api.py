"""``Tensor``'s methods and properties, bound in one place: each layer lists its own
(``TENSOR_METHODS``: the operators and op methods, autodiff's, the Array API's) and this module,
above them all, binds them, with the sharding accessors."""

from __future__ import annotations

from .array_api import _array_object
from .core.tensor import Tensor
from .ops import tensor_methods
from .transforms import autodiff


def _shard(self, mesh, spec=None):
    """``self`` laid out on ``mesh`` as ``spec`` (see ``nabla.sharding.shard``)."""
    from .sharding import shard  # (lazy: nabla.sharding loads at its first use, see nabla.__getattr__)

    return shard(self, mesh, spec)


def _addressable_shards(self):
    """JAX's ``addressable_shards``: each device's block (see ``nabla.sharding.addressable_shards``)."""
    from .sharding import addressable_shards  # (lazy: as above)

    return addressable_shards(self)


#: the sharding accessors (``nabla.sharding`` loads on first use)
SHARDING_METHODS = {
    "shard": _shard,
    "sharding": property(lambda self: self._impl.sharding, doc="The ShardingSpec, or None off a mesh."),
    "addressable_shards": property(_addressable_shards),
}

for _table in (tensor_methods.TENSOR_METHODS, autodiff.TENSOR_METHODS, _array_object.TENSOR_METHODS,
               SHARDING_METHODS):
    for _name, _method in _table.items():
        setattr(Tensor, _name, _method)
