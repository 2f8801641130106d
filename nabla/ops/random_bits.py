"""Counter-based random numbers on Nabla's Philox kernel (``kernels/random/``): Philox4x32-10
(Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC 2011).

Counter ``c`` of a draw is the block of ``(start + c, stream)`` under a 64-bit key, so a value depends
only on (key, counter): never on how the work is split or on the device. Key, start counter and kind
reach the kernel as data, and the draw's length as the shape of an operand, so one compiled kernel
(and one single-op model per dtype) serves every seed, position and size.
"""

from __future__ import annotations

import math

import numpy as np

from ..core import dtypes as _dt
from ..core.context import as_device
from ..core.graph import GRAPH, host_value
from ..core.tensor import Tensor
from ..core.tensor_impl import TensorImpl
from .base import tensor_from_host
from .custom_kernels import KernelOperation, random_kernel
from .view import reshape
from .elementwise import astype

KINDS = {"bits": 0, "uniform": 1, "normal": 2}


class RandomOp(KernelOperation):
    """A draw of ``size``'s length: ``state`` = [key, start, stream, kind] (uint64); ``dtype`` by name
    (kwargs travel as JSON to the process that compiles single-op models)."""

    name = "random_bits"
    kernel_package = "random"
    supports_complex = False

    def abstract_eval(self, state, size, *, dtype):
        if dtype not in ("uint32", "float32", "float64"):
            raise TypeError(f"nabla.random: draws are uint32 words, float32 or float64, not {dtype}")
        return size.cached_shape, _dt.from_name(dtype), 0

    def single_op_form(self, kwargs, shapes):
        return kwargs, [[4], ["m"]], None

    def maxpr(self, state, size, *, dtype):
        out = random_kernel(_dt.from_name(dtype).max_dtype)(state, size)
        return out[0] if isinstance(out, (list, tuple)) else out


random_op = RandomOp()


def values_per_counter(dtype, kind: str = "uniform") -> int:
    """How many values one Philox block (four 32-bit words) gives: 4 words or float32 uniforms, else 2."""
    return 4 if kind == "bits" or (kind == "uniform" and dtype is _dt.float32) else 2


def counters_for(n: int, dtype, kind: str = "uniform") -> int:
    k = values_per_counter(dtype, kind)
    return -(-n // k)


def draw(key: int, start: int, shape, dtype, kind: str = "uniform", stream: int = 0, device=None) -> Tensor:
    """``shape`` values of ``kind`` (``bits``: uint32 words; ``uniform``: [0, 1); ``normal``: standard
    normals) from counters ``start, start + 1, ...``; float32 normals are float64 ones rounded."""
    if kind not in KINDS:
        raise ValueError(f"nabla.random: kind must be one of {sorted(KINDS)}, got {kind!r}")
    shape = tuple(int(d) for d in shape)
    n = math.prod(shape)
    kernel_dtype = _dt.uint32 if kind == "bits" else (_dt.float64 if kind == "normal" else dtype)
    state = np.array([key & (2**64 - 1), start & (2**64 - 1), stream & (2**64 - 1), KINDS[kind]], dtype=np.uint64)
    scalars = GRAPH.engine.scalars
    host = scalars.draw(state, n, kernel_dtype.name) if 0 < n <= _DRAWN_AT_ONCE and scalars is not None \
        and (device is None or device.is_host) else None
    if host is not None:  # (a small draw on the host: its values at once, in their shape, its driver
        host = host.reshape(shape)  # buffer made where a run asks for one)
        out = Tensor(TensorImpl([host_value(None, shape, kernel_dtype, as_device(None), host, owned=True)],
                                kernel_dtype))
    else:
        out = reshape(random_op(tensor_from_host(state, None), tensor_from_host(np.zeros(n, np.uint8), None),
                                dtype=kernel_dtype.name), shape)
    if kind == "normal" and dtype is not _dt.float64:
        out = astype(out, dtype)
    if device is not None and out.device != device:
        out = out.to(device)
    return out


#: the most values a draw on the host computes as it is made (``HostScalars.draw``): a loop's scalar
#: draws, read at once by the test they feed; a larger draw is recorded, its read runs it
_DRAWN_AT_ONCE = 64


def uniform_bits(key: int, start: int, shape, dtype, device=None) -> Tensor:
    """Uniform floats in [0, 1) of ``dtype`` (float32: 24 random bits per word; float64: 53 per word pair)."""
    if dtype not in (_dt.float32, _dt.float64):
        raise TypeError(f"nabla.random: uniform draws are float32 or float64, got {dtype.name}")
    return draw(key, start, shape, dtype, "uniform", device=device)


def normal_bits(key: int, start: int, shape, dtype, device=None) -> Tensor:
    """Standard normals by Box and Muller (1958): two per counter (r cos t, r sin t)."""
    return draw(key, start, shape, dtype, "normal", device=device)
