"""Nabla arrays across process boundaries: pickling, and so ``copy.deepcopy``, ``multiprocessing``,
joblib and Dask, as NumPy's arrays cross them.

A pickled array is its values (pending work is run first), its dtype, its type (``nabla.Tensor``,
``nabla.numpy.ndarray``) and the name of its device kind: an array pickled on an accelerator comes
back on one where the loading process has one, on the CPU otherwise. A sharded array keeps its
mesh (axis sizes and names; its devices where the loading process has them, else simulated) and
its partition spec; a pending partial reduction comes back reduced. With pickle protocol 5 the data
travels as a ``PickleBuffer``, out of band where the pickler takes buffers (no copy of a large
array's bytes into the pickle), as NumPy's does (PEP 574).
"""

from __future__ import annotations

import pickle

import numpy as np

from . import dtypes as _dt
from .context import accelerator, check_process, cpu
from .tensor_impl import TensorImpl


def reduce_tensor(t, protocol: int):
    """``t.__reduce_ex__(protocol)``: a call that makes the array again in another process."""
    impl = t._impl
    if impl.batch_dims or impl.traced:
        raise TypeError(
            "nabla: cannot pickle a traced array (an argument or intermediate of a function under grad, "
            "vmap or compile): its values exist only when the function runs; return it from the function "
            "and pickle the result")
    values = t.numpy()  # (runs pending work; a sharded array's shards gathered)
    if not values.flags.c_contiguous:
        values = values.copy(order="C")
    if protocol >= 5 and not values.flags.writeable:
        # (the pickler only reads it; a writable buffer travels in band as a bytearray, which the
        # loading side then uses without a copy, as NumPy's arrays do)
        values = values.view()
        values.flags.writeable = True
    data = pickle.PickleBuffer(values) if protocol >= 5 else values
    layout = None if impl.sharding is None or LAYOUTS[0] is None else LAYOUTS[0][0](impl.sharding)
    return rebuild, (type(t), data, t.dtype.name, values.shape, _device_kind(t.device), layout)


#: (describe, restore), set by ``nabla.sharding`` (the core names no sharding code): a sharded
#: array's mesh and spec as plain data, and the array laid out so again
LAYOUTS: list = [None]


def rebuild(cls, data, dtype_name: str, shape: tuple, device_kind: str, layout=None):
    """The array ``reduce_tensor`` described, on a device of its kind where this process has one."""
    try:
        check_process()
    except RuntimeError as e:  # (a child forked after MAX started: the error where the array is used,
        return _Unusable(str(e))  # so a pool reports it, where a failed unpickling hangs the pool)
    dtype = _dt.from_name(dtype_name)
    if isinstance(data, np.ndarray):
        values = data
    else:  # (protocol 5: the bytes, in band or out of band)
        values = np.frombuffer(data, dtype=dtype.numpy_dtype).reshape(shape)
    # a read-only buffer (bytes in the pickle) is copied; a writable one (out of band) is ours
    tensor = cls(TensorImpl.from_host(values, _device(device_kind), copy=not values.flags.writeable))
    if layout is not None:
        tensor = LAYOUTS[0][1](tensor, layout)
    return tensor if cls is type(tensor) else cls(tensor._impl)


class _Unusable:
    """An array unpickled where Nabla cannot run: any use raises why."""

    def __init__(self, why: str):
        object.__setattr__(self, "_why", why)

    def __getattr__(self, name):
        raise RuntimeError(object.__getattribute__(self, "_why"))

    def __array__(self, *args, **kwargs):
        raise RuntimeError(self._why)

    def __repr__(self):
        return f"<a Nabla array that cannot be used here: {self._why}>"


def copy_tensor(t):
    """``copy.copy`` and ``copy.deepcopy``: a new array of the same values (values are immutable
    underneath and a write rebinds the array written, so the copy never sees the source's writes)."""
    return type(t)(t._impl)


def _device_kind(device) -> str:
    return "cpu" if getattr(device, "is_host", True) else "gpu"


def _device(kind: str):
    if kind == "gpu":
        try:
            return accelerator(0)
        except ValueError:  # no accelerator in this process: the CPU, as documented
            pass
    return cpu()
