"""What the standard's array object adds to Tensor beyond nabla.ops' operators: the namespace,
``mT``, ``to_device`` and DLPack."""

from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor
from ..ops.aliasing import swapaxes
from ._creation import to_device

SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")


def __array_namespace__(self, /, *, api_version=None):
    if api_version is not None and api_version not in SUPPORTED_VERSIONS:
        raise ValueError(f"nabla: unsupported array API version {api_version!r}; supported: {SUPPORTED_VERSIONS}")
    from .. import array_api  # lazy: nabla.array_api imports this module

    return array_api


def _mT(self):
    if self.ndim < 2:
        raise ValueError(f"nabla: mT needs at least 2-D, got shape {self.shape}")

    return swapaxes(self, -1, -2)  # a view, as ``.T``


def _exports_device_memory(t) -> bool:
    """Whether DLPack hands out the accelerator buffer itself: an unsharded real tensor on one.
    Complex data (stored as interleaved pairs) and sharded tensors leave through the host."""
    impl = t._impl
    return not t.device.is_host and not impl.dtype.is_complex and impl.sharding is None and impl.num_shards == 1


def __dlpack__(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
    if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
        raise BufferError(f"nabla: cannot export to DLPack device {dl_device}; the data is on {self.device}")
    if self._impl.batch_dims:
        raise BufferError("nabla: a tensor with hidden vmap batch dims cannot be exported; return it from the "
                          "function instead")
    if _exports_device_memory(self):  # MAX's buffer orders the consumer's ``stream`` after its writes
        buf = self.realize()._impl._values[0].buffer
        if copy:
            buf = buf.copy()
        return buf.__dlpack__(stream=stream)
    arr = self.numpy()
    if copy:
        arr = arr.copy()
    kwargs = {}
    if max_version is not None:
        kwargs["max_version"] = max_version
    if copy is not None:
        kwargs["copy"] = copy
    try:
        return arr.__dlpack__(stream=stream, **kwargs)
    except BufferError:
        # a read-only view cannot travel as a legacy capsule: hand over a private copy
        return np.array(arr).__dlpack__(stream=stream, **kwargs)


def __dlpack_device__(self):
    return (2, self.device.id) if _exports_device_memory(self) else (1, 0)


def _to_device(self, device, /, *, stream=None):
    return to_device(self, device, stream=stream)


#: what ``nabla/tensor_api.py`` binds onto ``Tensor`` from this layer: the standard's array object
TENSOR_METHODS = {"__array_namespace__": __array_namespace__, "mT": property(_mT), "to_device": _to_device,
                  "__dlpack__": __dlpack__, "__dlpack_device__": __dlpack_device__}
