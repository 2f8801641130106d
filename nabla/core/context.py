"""Context-local defaults: the device and dtypes that new tensors get."""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from contextvars import ContextVar

from max import driver

from . import dtypes as _dt


@functools.cache
def cpu() -> driver.Device:
    before = _thread_ids()
    device = driver.CPU()  # the first one starts MAX's CPU runtime and its worker threads
    _yield_to_callers(_thread_ids() - before)
    return device


#: how much lower than the caller's the priority of MAX's CPU workers is (``NABLA_WORKER_NICE``)
WORKER_NICE = int(os.environ.get("NABLA_WORKER_NICE", "5"))


def _thread_ids() -> set[int]:
    try:
        return {int(t) for t in os.listdir("/proc/self/task")}
    except OSError:  # not Linux
        return set()


def _yield_to_callers(workers: set[int]) -> None:
    """Lower the scheduling priority of MAX's CPU worker threads below the Python threads'.

    After each kernel a worker spins ~200 us waiting for the next (MAX's
    ``MODULAR_THREAD_BUSY_WAIT_US``, which this release cannot change: its CPU device then refuses
    the session's options). With one worker per core, the spinning workers take the cores from the
    Python thread that is preparing the next small run; code that reads small results one by one
    (an element-by-element check) then spends most of its time descheduled. Measured here (2 cores,
    an element check of 72 picks and compares, runs alternated): median ~380 -> ~300 us per element
    at +5. A Python thread waiting on a run is blocked, so the workers still get every core for the
    work itself.
    """
    if WORKER_NICE <= 0:
        return
    for tid in workers - {threading.get_native_id()}:
        try:
            os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + WORKER_NICE)
        except OSError:  # gone, or not ours to change
            pass


@functools.cache
def accelerator(index: int = 0) -> driver.Device:
    if index >= driver.accelerator_count():
        raise ValueError(f"nabla: no accelerator {index}; this machine has {driver.accelerator_count()}")
    return driver.Accelerator(index)


def _initial_device() -> driver.Device:
    return accelerator(0) if driver.accelerator_count() > 0 else cpu()


_device: ContextVar[driver.Device | None] = ContextVar("nabla_default_device", default=None)
_float_dtype: ContextVar[_dt.DType] = ContextVar("nabla_default_float", default=_dt.float32)
_int_dtype: ContextVar[_dt.DType] = ContextVar("nabla_default_int", default=_dt.int64)


def get_default_device() -> driver.Device:
    dev = _device.get()
    return dev if dev is not None else _initial_device()


def get_default_dtype() -> _dt.DType:
    return _float_dtype.get()


def get_default_int_dtype() -> _dt.DType:
    return _int_dtype.get()


def _as_device(device) -> driver.Device:
    if isinstance(device, driver.Device):
        return device
    if isinstance(device, str):
        kind, _, idx = device.partition(":")
        if kind == "cpu":
            return cpu()
        if kind in ("gpu", "cuda", "accelerator"):
            return accelerator(int(idx or 0))
    raise ValueError(f"nabla: unknown device {device!r}; use 'cpu', 'gpu:N' or a max.driver.Device")


@contextlib.contextmanager
def default_device(device):
    """``with nabla.default_device(dev):`` new tensors are placed on ``dev``."""
    token = _device.set(_as_device(device))
    try:
        yield
    finally:
        _device.reset(token)


@contextlib.contextmanager
def default_dtype(dtype):
    """``with nabla.default_dtype(float64):`` sets the default float (or int) dtype for new tensors."""
    dtype = _dt.as_dtype(dtype)
    if dtype.kind == "f":
        var = _float_dtype
    elif dtype.kind == "i":
        var = _int_dtype
    else:
        raise ValueError(f"nabla.default_dtype: {dtype} is neither a real float nor a signed int dtype")
    token = var.set(dtype)
    try:
        yield
    finally:
        var.reset(token)


def as_device(device) -> driver.Device:
    return get_default_device() if device is None else _as_device(device)


class _VmapDepth(threading.local):
    """How many vmaps are running in this thread. Their batch dims are the outermost (rightmost) of a tensor's
    batch prefix; the backward pass keeps those and sums the inner ones away."""

    value = 0


VMAP_DEPTH = _VmapDepth()
