"""TensorImpl: the state behind a Tensor facade."""

from __future__ import annotations

import numpy as np

from .graph import GRAPH, Value
from .values import buffer_of, host_value
from .context import as_device, check_process
from . import dtypes as _dt

#: Set by ``nabla.sharding`` (the core names no sharding code): runs ops on sharded operands
#: (``SPMD.call``) and gathers a sharded tensor for host access (``SPMD.gather``).
SPMD = None


class TensorImpl:
    """Unrealized (symbolic ``Value``s from the trace) or realized (driver buffers).

    ``_values`` is one entry per shard: a list, or a sequence that makes its values on first
    use and answers ``device`` and ``is_realized`` without them (a simulated mesh's stacked
    shards). Realization turns each value into a leaf that holds its buffer and forgets the
    node that computed it, so the recorded graph behind a realized tensor is freed.
    """

    # (the fields every tensor sets are slots; the rest are class defaults an instance overrides in
    # its ``__dict__``, made on its first such write: most of a loop's tensors never make one, and
    # each field set at creation cost recording ~40 ns an op)
    __slots__ = ("_values", "cached_shape", "dtype", "batch_dims", "__dict__", "__weakref__")

    traced = False  # recorded for reverse-mode autodiff
    output_refs = None  # the OutputRefs of the call that made it, where it is traced or one of several outputs
    output_index = 0
    tangents = None  # {jvp level: tangent TensorImpl}, None when it has none
    cotangent = None
    sharding = None
    grad = None
    requires_grad = False
    slices = None  # {a slice's index (and shape): weakref to that slice's pending value} (ops/aliasing.py)

    def __init__(self, values: list[Value], dtype, batch_dims: int = 0, traced: bool = False,
                 pending: bool = True, shape: tuple | None = None):
        self._values = values
        # physical shape, batch dims included; complex values keep their (re, im) axis hidden
        if shape is None:
            shape = values[0].shape[:-1] if dtype.is_complex else values[0].shape
        self.cached_shape = shape
        self.dtype = dtype
        self.batch_dims = batch_dims
        if traced:
            self.traced = True
        if pending and (type(values) is not list or values[0].node is not None):
            GRAPH.add_pending(self)

    def detached(self) -> "TensorImpl":
        """The same values (and layout) as a fresh impl with no links or tangents."""
        out = TensorImpl(list(self._values), self.dtype, self.batch_dims)
        out.cached_shape = self.cached_shape
        out.sharding = self.sharding
        return out

    # --- state -----------------------------------------------------------------
    @property
    def is_realized(self) -> bool:
        vals = self._values
        if type(vals) is not list:
            return vals.is_realized
        if len(vals) == 1:  # (one value, nearly always: a read asks this of every pending tensor)
            return vals[0].node is None
        return all(v.node is None for v in vals)

    def values_pending(self) -> bool:
        """Whether this is one unsharded value still to be computed (an op's pending result)."""
        vals = self._values
        return type(vals) is list and len(vals) == 1 and vals[0].node is not None and self.sharding is None

    @property
    def _storages(self) -> list | None:
        """Driver buffers per shard, or ``None`` while unrealized."""
        if not self.is_realized:
            return None
        return [v.buffer for v in self._values]

    def realize(self) -> None:
        if not self.is_realized:
            check_process()
            GRAPH.evaluate(self)

    @classmethod
    def from_host(cls, arr, device=None, copy: bool | None = True) -> "TensorImpl":
        """Host data (a NumPy array) as a realized impl on ``device`` (the host boundary)."""
        device = as_device(device)
        dtype = _dt.as_dtype(arr.dtype)
        owned = copy is not False or not arr.flags.c_contiguous or not arr.dtype.isnative
        if owned:  # (bytes of the other order, a file's big-endian data: swapped into this machine's)
            arr = np.array(arr, dtype=arr.dtype.newbyteorder("="), copy=True, order="C")
        storage, storage_dtype = arr, dtype
        if dtype.is_complex:  # MAX has no complex dtype: paired reals on a hidden trailing axis
            storage_dtype = _dt.real_dtype(dtype)
            storage = arr.reshape(arr.shape or (1,)).view(storage_dtype.numpy_dtype).reshape(arr.shape + (2,))
        if not device.is_host:
            return cls([Value.leaf(buffer_of(storage).to(device), tuple(storage.shape), storage_dtype, device)], dtype)
        # (a host leaf over its NumPy memory: picks, element writes and ops at once read it as it is,
        # its driver buffer made where a run asks for one, ~2 us; the copy is Nabla's own, an element
        # write goes into it)
        return cls([host_value(None, tuple(storage.shape), storage_dtype, device, storage, owned=owned)], dtype)

    @property
    def num_shards(self) -> int:
        return len(self._values)

    @property
    def device(self):
        vals = self._values
        return vals[0].device if type(vals) is list else vals.device

    # --- shapes ----------------------------------------------------------------
    @property
    def physical_shape(self) -> tuple[int, ...]:
        return self.cached_shape

    @property
    def shape(self) -> tuple[int, ...]:
        """Logical (user-visible) shape."""
        return self.cached_shape[self.batch_dims:]

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.cached_shape[: self.batch_dims]

    @property
    def ndim(self) -> int:
        return len(self.cached_shape) - self.batch_dims

    def physical_local_shape(self, shard_idx: int = 0) -> tuple[int, ...]:
        return self._values[shard_idx].shape

    def logical_local_shape(self, shard_idx: int = 0) -> tuple[int, ...]:
        return self._values[shard_idx].shape[self.batch_dims:]

    @property
    def global_shape(self) -> tuple[int, ...]:
        return self.shape

    # --- graph navigation ------------------------------------------------------
    @property
    def op(self):
        """The op that made this tensor (None for data, or a realized result of an untraced op)."""
        if self.output_refs is not None:
            return self.output_refs.op
        node = self._values[0].node if type(self._values) is list else None
        return None if node is None else node.op

    @property
    def op_kwargs(self) -> dict:
        if self.output_refs is not None:
            return self.output_refs.op_kwargs
        node = self._values[0].node if type(self._values) is list else None
        return {} if node is None else node.kwargs

    @property
    def parents(self) -> list["TensorImpl"]:
        if self.output_refs is None:
            return []
        return [a for a in self.output_refs.op_args if isinstance(a, TensorImpl)]

    @property
    def is_leaf(self) -> bool:
        return not self.parents

    def __repr__(self) -> str:
        state = "realized" if self.is_realized else "unrealized"
        return (f"TensorImpl({state}, shape={self.shape}, dtype={self.dtype}, "
                f"batch_dims={self.batch_dims}, traced={self.traced})")


def plain_host(impl) -> bool:
    """Data on the host that no transform, gradient or sharding sees: a pick may read it, a loop
    over it may realize it."""
    return not (impl.batch_dims or impl.tangents is not None or impl.sharding is not None
                or impl.traced or impl.requires_grad) and impl.device.is_host
