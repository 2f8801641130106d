"""A debug mode for memory safety: ``NABLA_DEBUG_MEMORY=1``.

Every realization then runs twice, each run after MAX's allocator has handed out blocks filled
with a poison pattern and taken them back, so that memory no run has written (an output a kernel
never filled, a buffer already released and reused) holds poison. The two runs must agree bit for
bit, and no host result may hold the poison pattern. Kernels are pure functions of their inputs
(random draws take their keys as inputs), so a disagreement is a read of memory the run did not
own. It costs two runs and some megabytes of churn per realization: a mode for test runs.
"""

from __future__ import annotations

import os

import numpy as np
from max import driver
from max.dtype import DType

from .models import RealizationError

#: 16 bytes no computation is likely to write by chance (two copies of an 8-byte word)
POISON = np.frombuffer(bytes.fromhex("deadbeeffeedface") * 2, np.uint8)
#: block sizes handed out and taken back before each run: small to large, as outputs come
_CHURN = (64, 1 << 10, 1 << 12, 1 << 13, 1 << 16, 1 << 20, 1 << 22)


def enabled() -> bool:
    return os.environ.get("NABLA_DEBUG_MEMORY", "0") not in ("", "0")


def _churn() -> None:
    cpu = driver.CPU()
    blocks = []
    for n in _CHURN:
        b = driver.Buffer(DType.uint8, (n,), device=cpu)
        b.to_numpy()[:] = np.resize(POISON, n)
        blocks.append(b)
    del blocks


def _host_bytes(result):
    """A host result's bytes (None for results on an accelerator)."""
    if type(result) is tuple:  # (a small result in host memory, and its address: ``runtime/result_memory.HostBlocks``)
        return result[0].reshape(-1).view(np.uint8).copy()
    device = getattr(result, "device", None)
    if device is not None and not getattr(device, "is_host", True):
        return None
    to_numpy = getattr(result, "to_numpy", None)
    if to_numpy is None:
        return None
    return np.ascontiguousarray(to_numpy()).reshape(-1).view(np.uint8).copy()


def _holds_poison(data: np.ndarray) -> bool:
    if data.size < POISON.size:
        return False
    windows = np.lib.stride_tricks.sliding_window_view(data, POISON.size)[::8]  # 8-byte aligned starts
    return bool(np.any(np.all(windows == POISON, axis=1)))


def checked_run(run, buffers, what: str) -> list:
    """``run(buffers)``, twice over poisoned memory; the first run's results once both agree."""
    _churn()
    first = list(run(buffers))
    seen = [_host_bytes(r) for r in first]
    _churn()
    again = [_host_bytes(r) for r in run(buffers)]
    for i, (a, b) in enumerate(zip(seen, again)):
        if a is None or b is None:
            continue
        if _holds_poison(a) or _holds_poison(b):
            raise RealizationError(f"nabla (NABLA_DEBUG_MEMORY): result {i} of {what} holds bytes no run wrote "
                                   f"(the poison pattern); this is a bug in Nabla or MAX")
        if not np.array_equal(a, b):
            at = int(np.flatnonzero(a != b)[0])
            raise RealizationError(f"nabla (NABLA_DEBUG_MEMORY): two runs of {what} disagree in result {i} "
                                   f"from byte {at}: a read of memory the run did not own")
    return first
