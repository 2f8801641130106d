"""Context-local defaults: the device and dtypes that new tensors get; the vmap depth; calls run
without side effects."""

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
    _RUNTIME_PID[0] = os.getpid()
    _yield_to_callers(_thread_ids() - before)
    return device


#: the process that started MAX's runtime (a child forked after that has none of its threads)
_RUNTIME_PID: list = [None]
#: whether this process was forked after MAX's runtime started (set in the child: every run asks,
#: and asking a flag costs no system call)
_FORKED_AFTER_START: list = [False]


def _after_fork_in_child() -> None:
    _FORKED_AFTER_START[0] = _RUNTIME_PID[0] is not None


os.register_at_fork(after_in_child=_after_fork_in_child)


def check_process() -> None:
    """Raise in a process forked after MAX's runtime started: its worker threads are not in the
    child, and a run there would wait for them forever."""
    if _FORKED_AFTER_START[0]:
        raise RuntimeError(
            "nabla: this process was forked after Nabla (MAX's runtime) started in its parent; MAX cannot "
            "run in such a child. Start workers with the 'spawn' or 'forkserver' method "
            "(multiprocessing.get_context('spawn'), joblib's default loky backend), or fork before Nabla runs")


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
    (an element-by-element check) then spends most of its time descheduled; at +5 such a check
    takes about a fifth less time per element. A Python thread waiting on a run is blocked, so the
    workers still get every core for the work itself.
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


class VirtualCPU:
    """Logical CPU device ``cpu:i`` (i >= 1) on this machine's CPU. MAX's driver has one CPU device
    (``driver.CPU(i)`` is ``CPU(0)``), but its graphs can place values on ``DeviceRef.CPU(i)`` and
    its interpreter runs graphs over such devices, MAX's collectives included: a mesh over
    ``virtual_cpus(n)`` runs the multi-device lowering (values placed per device, MAX's
    ``allreduce``/``allgather``/``transfer_to`` between them) on one CPU. The data lives in host
    memory like any CPU buffer's."""

    label = "cpu"
    is_host = True

    def __init__(self, index: int):
        if index < 1:
            raise ValueError(f"nabla: virtual CPU devices are numbered from 1 (cpu:0 is the CPU), got {index}")
        self.id = int(index)
        SEVERAL_DEVICES.in_use = True

    @property
    def driver(self) -> driver.Device:
        return cpu()

    def __eq__(self, other) -> bool:
        return isinstance(other, VirtualCPU) and other.id == self.id

    def __hash__(self) -> int:
        return hash(("virtual cpu", self.id))

    def __repr__(self) -> str:
        return f"VirtualCPU({self.id})"


class _SeveralDevices:
    #: whether this process made a VirtualCPU or a mesh over distinct devices: the engine looks
    #: for traces over several devices only then
    in_use = False


SEVERAL_DEVICES = _SeveralDevices()


def virtual_cpus(n: int) -> list:
    """``n`` distinct CPU devices: the CPU, then ``VirtualCPU(1 .. n-1)`` (see ``VirtualCPU``)."""
    if n < 1:
        raise ValueError(f"nabla.virtual_cpus: n must be positive, got {n}")
    return [cpu()] + [VirtualCPU(i) for i in range(1, n)]


def driver_device(device) -> driver.Device:
    """The driver device holding ``device``'s memory (a virtual CPU's is the CPU's)."""
    return device.driver if isinstance(device, VirtualCPU) else device


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
    if isinstance(device, (driver.Device, VirtualCPU)):
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
    check_process()
    return get_default_device() if device is None else _as_device(device)


class _VmapDepth(threading.local):
    """How many vmaps are running in this thread. Their batch dims are the outermost (rightmost) of a tensor's
    batch prefix; the backward pass keeps those and sums the inner ones away."""

    value = 0


VMAP_DEPTH = _VmapDepth()


class SideEffect(Exception):
    """What a call under ``no_side_effects`` may not do: write into an array that is not being
    mapped, draw random numbers."""


#: thread id -> the vmap depth at the start of the call it runs under ``no_side_effects`` (asked at
#: every array write and random draw: an empty dict's test where none runs)
NO_SIDE_EFFECTS: dict = {}


@contextlib.contextmanager
def no_side_effects():
    """Within it, in this thread, a write into an array not mapped by a vmap begun inside it, and a
    random draw, raise ``SideEffect`` before they happen: ``apply_along_axis`` calls a function once
    over all slices at once only where the function has no such effect (called per slice, as NumPy
    calls it, it would have it once per slice)."""
    me = threading.get_ident()
    saved = NO_SIDE_EFFECTS.get(me)
    NO_SIDE_EFFECTS[me] = VMAP_DEPTH.value
    try:
        yield
    finally:
        if saved is None:
            del NO_SIDE_EFFECTS[me]
        else:
            NO_SIDE_EFFECTS[me] = saved


def refuse_side_effect(what: str, batch_dims: int | None = None) -> None:
    """Raise ``SideEffect`` where this thread runs under ``no_side_effects`` (a write into an array of
    ``batch_dims``: where they are no more than the vmap depth at its start, an array from outside)."""
    depth = NO_SIDE_EFFECTS.get(threading.get_ident())
    if depth is not None and (batch_dims is None or batch_dims <= depth):
        raise SideEffect(what)
