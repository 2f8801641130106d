"""Tensor: the stateless user-facing facade over a TensorImpl.

Arithmetic methods and operators are bound by ``nabla.ops`` (the core names no
concrete op); this class holds what needs no op: metadata and host access.
"""

from __future__ import annotations

import numpy as np

from . import pickling, tensor_impl
from .graph import GRAPH
from .tensor_impl import TensorImpl, plain_host
from .values import give_up, host_view


class Tensor:
    """A lazy n-dimensional array on a MAX device. Its operators and op methods come from the layers
    above core and are bound in one place, ``nabla/tensor_api.py``."""

    # _view: (parent, derive, put_back) when this tensor is a view of another; _views: weak references
    # to this tensor's live views. nabla.ops' aliasing module keeps writes and views consistent.
    # _element_loop (None until its first recorded element write): how an element loop over this
    # array runs (nabla.ops' host_writes module).
    __slots__ = ("_impl", "_view", "_views", "_element_loop", "__weakref__")
    __array_priority__ = 100  # NumPy defers binary operators to us
    #: ``fn(result, source)`` for an op's result of this class (a face's user subclass: NumPy's
    #: ``__array_finalize__``); None for Nabla's own classes
    _inherits = None

    def __init__(self, impl: TensorImpl):
        self._impl = impl
        self._view = None
        self._views = None
        self._element_loop = None  # (set, not left unset: a write asks it, and a missing slot costs 0.15 us)

    # --- metadata (never realizes) ---------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        impl = self._impl
        return impl.cached_shape[impl.batch_dims:]

    @property
    def dtype(self):
        return self._impl.dtype

    @property
    def device(self):
        return self._impl.device

    @property
    def ndim(self) -> int:
        return self._impl.ndim

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def batch_dims(self) -> int:
        return self._impl.batch_dims

    @property
    def traced(self) -> bool:
        return self._impl.traced

    @property
    def is_realized(self) -> bool:
        return self._impl.is_realized

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    # --- host boundary (realizes) ----------------------------------------------
    def realize(self) -> "Tensor":
        """Evaluate pending work now; returns ``self``."""
        self._impl.realize()
        return self

    def numpy(self) -> np.ndarray:
        """The data as a read-only NumPy array (a view where the buffer is on the host)."""
        arr = self._host_data()
        give_up(self._impl._values[0])  # (a view of its memory handed out: no write goes into it in place)
        return arr

    def _host_data(self) -> np.ndarray:
        """``numpy``'s read-only array, for a caller that hands no view of it out (a copy's source)."""
        impl = self._impl
        if impl.batch_dims:
            raise ValueError(
                f"nabla: cannot read the data of a tensor with {impl.batch_dims} hidden vmap batch dim(s) "
                "inside the transformed function; return it from the function instead"
            )
        if impl.sharding is not None or impl.num_shards != 1:
            impl = tensor_impl.SPMD.gather(impl)
        impl.realize()
        arr = host_view(impl._values[0])  # (host memory of Nabla's own: no buffer asked of it)
        if impl.dtype.is_complex:
            arr = np.ascontiguousarray(arr).view(impl.dtype.numpy_dtype).reshape(impl.cached_shape)
        if arr.flags.writeable and impl._values[0].device.is_host:
            arr = arr.view()
            arr.flags.writeable = False
        return arr

    def __array__(self, dtype=None, copy=None):
        """``np.asarray(x)`` gives a writable array of its own, as NumPy code expects (it may write
        into it, as scikit-learn's chi2 kernels do); ``copy=False`` gives the read-only view."""
        if copy is False:
            arr = self.numpy()
            return arr if dtype is None else arr.astype(dtype, copy=False)
        return np.array(self._host_data(), dtype=dtype, copy=True)

    # --- across processes (pickle, copy; see core/pickling.py) -----------------
    def __reduce_ex__(self, protocol):
        return pickling.reduce_tensor(self, protocol)

    def __copy__(self):
        return pickling.copy_tensor(self)

    def __deepcopy__(self, memo):
        return pickling.copy_tensor(self)

    def item(self):
        if self.size != 1:
            raise ValueError(f"nabla: item() needs a tensor of one element, got shape {self.shape}")
        return self._host_data().reshape(()).item()

    def tolist(self):
        return self._host_data().tolist()

    def _read_scalar(self):
        """The one element as a Python scalar (nabla.ops binds a faster read for picked elements)."""
        return self._host_data().reshape(()).item()

    def _scalar(self, kind: type, name: str):
        if self.shape != ():
            raise TypeError(f"nabla: {name}() needs a 0-d tensor, got shape {self.shape}")
        return kind(self._read_scalar())

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError(
                f"nabla: the truth value of a tensor with {self.size} elements is ambiguous; use any() or all()"
            )
        return bool(self._read_scalar())

    def __float__(self) -> float:
        return self._scalar(float, "float")

    def __int__(self) -> int:
        return self._scalar(int, "int")

    def __complex__(self) -> complex:
        return self._scalar(complex, "complex")

    def __index__(self) -> int:
        if not self.dtype.is_integer:
            raise TypeError(f"nabla: only integer tensors can be used as an index, got {self.dtype}")
        return self._scalar(int, "__index__")

    def __repr__(self) -> str:
        if self._impl.batch_dims:
            return f"Tensor(<batched>, shape={self.shape}, dtype={self.dtype.name}, batch_dims={self.batch_dims})"
        if hasattr(self._impl.sharding, "block_repr"):  # a shard_map body's block: one value per device
            return f"Tensor(<{self._impl.sharding.block_repr(self.shape, self.dtype)}>)"
        body = np.array2string(self._host_data(), separator=", ", prefix="Tensor(")
        return f"Tensor({body}, dtype={self.dtype.name})"

    def __str__(self) -> str:
        return repr(self) if hasattr(self._impl.sharding, "block_repr") else str(self._host_data())

    def __format__(self, spec):
        """NumPy's: a 0-d array formats its value (``f"{x:.3f}"``); others only with an empty spec."""
        if not self.shape:
            return format(self.item(), spec)
        if not spec:
            return str(self)
        raise TypeError(f"unsupported format string passed to {type(self).__name__}.__format__")

    def __hash__(self) -> int:
        return id(self)

    # Iteration over a lazy tensor would realize per element; iterate the first axis instead.
    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        impl = self._impl
        if impl.values_pending() and not GRAPH.captures and plain_host(impl) \
                and not _view_of_data(impl._values[0].node):
            # (a loop over its rows or elements reads each, as ``sum(x)`` does: computed once, its
            # picks then read memory, where each was a node of one long trace planned at the end:
            # ``sum(x)`` over 10,000 pending elements took 1 s on its first call; a view of
            # realized data is read through)
            impl.realize()
        for i in range(self.shape[0]):
            yield self[i]


def _view_of_data(node) -> bool:
    """Whether ``node`` is a view (a slice, a reshape) of realized data."""
    fused = node.op.fused
    return fused is not None and fused.view is not None and all(v.node is None for v in node.inputs)


def traced(x: Tensor) -> Tensor:
    """Mark ``x`` traced: ops on it keep their parents (``op_args``) for autodiff and sharding."""
    x._impl.traced = True
    return x
