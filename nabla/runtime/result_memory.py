"""Host memory for a run's results and its arena: NumPy's for small ones, kept blocks from
``_LARGE`` on (``LargeBlocks``: given again once no result holds one), small results carved as views
of blocks (``HostBlocks``), their addresses known without asking; driver buffers of MAX's allocator
for the library kernels' outputs (``host_buffer``)."""

from __future__ import annotations

import math
import threading
from sys import getrefcount

import numpy as np
from max import driver
from max.dtype import DType

from ..core.context import cpu


def host_memory(nbytes: int) -> np.ndarray:
    """``nbytes`` of host memory for a run: numpy's, or past ``_LARGE`` a kept block
    (``LargeBlocks``) where fresh numpy memory of that size is often mapped anew and pays its first
    touch every time (a 64 MB block: 3-7 ms a run against 0.2 ms)."""
    if nbytes < _LARGE:
        return np.empty(nbytes, np.uint8)
    return LARGE_BLOCKS.take(nbytes)


#: the size from which a run's memory is a kept block: glibc maps a block from 128 KB on anew while
#: the last run's result is alive (a loop's step, ``np.asarray(x * 2)``), and each of its pages
#: faults at first touch: `x * 2` of 400,000 float64 read back took 4.3 ms, 1,530 page faults a
#: call, against 0.67 ms and none from reused memory
_LARGE = 128 << 10


class LargeBlocks:
    """Host memory of ``_LARGE`` bytes or more for runs (a results' block, an arena, a result of its
    own), kept for the next runs of its size: a block is given again once nothing but this holds
    it (no result's view of it alive: numpy's views of it, and MAX's buffers over them, hold it), so
    a loop's read neither allocates nor touches fresh pages at each step. Memory of MAX's
    allocator, the alternative that also keeps freed memory, costs ~15 us a block to make and view
    on a quiet machine, and waits on MAX's device threads on a loaded one (~0.2 ms). Up to
    ``_KEPT_PER_SIZE`` blocks of one size, ``_KEPT_BYTES`` in all; past that, memory of its own."""

    def __init__(self):
        self._lock = threading.Lock()
        self._kept: dict[int, list] = {}
        self._bytes = 0

    def take(self, nbytes: int) -> np.ndarray:
        with self._lock:  # (a second thread must not see a block free once it is given)
            kept = self._kept.get(nbytes)
            if kept is None:
                kept = self._kept[nbytes] = []
            for block in kept:
                if getrefcount(block) == _UNHELD:
                    return block
            block = np.empty(nbytes, np.uint8)
            if len(kept) < _KEPT_PER_SIZE and self._bytes + nbytes <= _KEPT_BYTES:
                kept.append(block)
                self._bytes += nbytes
            return block

    def view(self, shape: tuple, dtype: np.dtype, nbytes: int):
        """(a result of its own of ``shape`` and ``dtype``, ``nbytes`` of a block, its address)."""
        block = self.take(nbytes)
        return block.view(dtype).reshape(shape), block.ctypes.data

    def kept_bytes(self) -> int:
        return self._bytes


#: a kept block's reference count while nothing else holds it: its list's, the loop's name's, the
#: count's argument
_UNHELD = 3
_KEPT_PER_SIZE, _KEPT_BYTES = 4, 512 << 20
LARGE_BLOCKS = LargeBlocks()


def host_buffer(dtype: DType, shape: tuple) -> driver.Buffer:
    """A buffer for a result a run writes: numpy's memory, or past ``_LARGE`` MAX's allocator's. (A
    buffer of MAX's allocator makes its first read wait on MAX's CPU device: 25 us a read alone,
    0.5 ms in an element loop, where a pick reads each new result.)"""
    nbytes = math.prod(shape) * dtype.size_in_bytes
    if nbytes >= _LARGE or nbytes == 0:
        return driver.Buffer(dtype, shape, cpu())
    typed = _TYPED.get(dtype)
    if typed is None:  # (MAX's from_numpy takes no bool array: bytes, viewed)
        return driver.Buffer.from_numpy(np.empty(nbytes, np.uint8)).view(dtype, shape)
    return driver.Buffer.from_numpy(np.empty(shape, typed))  # (of its dtype and shape: no view to make)


#: MAX dtypes -> the numpy dtypes a result's memory is made as (bool is made as bytes)
_TYPED = {d: d.to_numpy() for d in (DType.float16, DType.float32, DType.float64, DType.int8, DType.int16,
                                    DType.int32, DType.int64, DType.uint8, DType.uint16, DType.uint32,
                                    DType.uint64)}
#: MAX dtypes -> the numpy dtypes of a small result's view of a block (``HostBlocks``)
_HOST_DTYPES = {**_TYPED, DType.bool: np.dtype(np.bool_)}


class HostBlocks:
    """Host memory for small results, carved from blocks of ``_BLOCK`` bytes: a result is a NumPy
    view of a block (0.24 us) at an address known without asking (an array of its own and its
    address, or a driver buffer over it, cost ~2 us, and reading a buffer's NumPy view 1.3 us
    more: a loop's read of a scalar paid both). A block is freed once no result holds a view of it."""

    def __init__(self):
        self._lock = threading.Lock()
        self._block, self._base, self._used = None, 0, _BLOCK

    def take(self, shape, dtype: np.dtype, nbytes: int):
        """(a view of ``shape`` and ``dtype`` of fresh memory, its address)."""
        with self._lock:
            block, used, address = self.place(nbytes)
        return np.ndarray(shape, dtype, block, used), address

    def place(self, nbytes: int):
        """Fresh memory of ``nbytes`` as (the block, the byte offset in it, the address), 64-byte
        aligned, but a scalar's 16, for a caller that holds this instance's lock or one of its own
        over it (the host scalar hook: a second lock costs each of its ops 0.3 us)."""
        size = _SCALAR if nbytes <= _SCALAR else (nbytes + _ALIGN - 1) & -_ALIGN
        used = self._used
        if size > _SCALAR:
            used += -(self._base + used) % _ALIGN
        if used + size > _BLOCK:
            self._block = np.empty(_BLOCK, np.uint8)
            self._base = self._block.ctypes.data
            used = -self._base % _ALIGN  # (numpy's allocator may align blocks less)
        self._used = used + size
        return self._block, used, self._base + used


#: a block's bytes, the most bytes of a result taken from one, the alignment of each, and a
#: scalar's bytes (and alignment)
_BLOCK, _BLOCK_RESULT, _ALIGN, _SCALAR = 1 << 16, 1 << 14, 64, 16
HOST_BLOCKS = HostBlocks()
