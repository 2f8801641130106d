"""Nabla's program kernel (``kernels/nabla_vm.mojo``): built once per machine, called directly.

The kernel runs a whole program of stages in one call (see ``program.py``). It is a shared library
that Mojo builds (``mojo build --emit shared-lib``) from the fused evaluator's sources
(``kernels/evaluator/``) and the entry module beside them, called through ctypes, once per digest of those
sources, into
the kernel cache (``~/.cache/nabla/max-<version>/kernels/vm/<digest>/``); later processes load
it in milliseconds. A build under way in another process is waited for (a lock file), and a build
that ends by being killed leaves nothing behind (it is published by an atomic rename).

Why a direct call and not a MAX graph: on the 2-core machine MAX's ``model.execute`` of a custom
op costs ~30-40 us, a ctypes call of the library ~1 us, and a loop that reads a scalar per step
pays that floor once per step.
"""

from __future__ import annotations

import fcntl
import functools
import os
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path

from ..core import dtypes as _dt, progress
from ..core.disk_cache import kernel_cache_dir, source_digest
from .fused_codes import BYTES

#: the call array (kernels/nabla_vm.mojo): ints per stage, data slots per stage, stage kinds
STAGE = 24
SLOTS = 8
MAP, REDUCE, SCAN, COPY, SCATTER, SCATTER_ADD, NONZERO = 0, 1, 2, 3, 4, 5, 6

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "kernels"  # the entry module and, in ``evaluator/``, the fused evaluator it runs
ENTRY = KERNELS / "nabla_vm.mojo"
#: the graph ops' kernel packages (``ops/kernels``) whose kernels the entry module also exports,
#: each built under a name of its own (MAX's own kernels hold a ``linalg``)
PACKAGES = {f"nabla_{name}": HERE.parent / "ops" / "kernels" / name for name in ("fft", "linalg", "random", "sort")}
MODULE = "nabla_vm"
_LOCK = threading.Lock()
_BUILDING: dict = {}  # digest -> Future of the build under way in this process


@functools.cache
def digest() -> str:
    """A digest of the kernel's Mojo sources (the fused evaluator's, the entry module, the kernel
    packages it exports from)."""
    packaged = [f for d in PACKAGES.values() for f in sorted(d.glob("*.mojo"))]
    return source_digest(KERNELS / "evaluator", (".mojo",), extra=(ENTRY, *packaged))


def _target() -> Path | None:
    root = kernel_cache_dir()
    if root is None:
        root = Path(os.environ.get("TMPDIR", "/tmp")) / f"nabla-vm-{os.getuid()}"
    return root / "vm" / digest() / f"{MODULE}.so"


def family(program) -> int:
    """A fused program's family as the kernel's call names it (``kernels/nabla_vm.mojo``)."""
    if program.dtype is BYTES:
        return 2 if program.registers is _dt.int64 else (3 if program.registers is _dt.float32 else 4)
    return 0 if program.dtype is _dt.float32 else 1


_MODULE = None


def module():
    """The loaded kernel module, building it first if this machine has not (blocking, with progress
    on stderr); None when it cannot be built here (``NABLA_PROGRAM=0`` also says None)."""
    global _MODULE
    if _MODULE is not None:
        return _MODULE
    if not enabled():
        return None
    target = _target()
    if not target.exists():
        fut = build_async(target)

        progress.wait(fut, "Nabla's program kernel")
        if fut.exception() is not None:
            return None
    with _LOCK:
        if _MODULE is None:
            _MODULE = _Kernel(target)
    return _MODULE


def module_or_build():
    """The loaded kernel module; else the Future of its build while it is under way (never a
    finished one: whoever waits on it asks again); None where it cannot be had here."""
    if ready():
        return module()
    if not enabled():
        return None
    fut = build_async()
    if not fut.done():
        fut.nabla_what = "Nabla's program kernel"  # (what a wait for it says on stderr)
        return fut
    return module() if fut.exception() is None and ready() else None  # (built where this process no longer looks: None)


#: the kernel ops' kernels the library exports beside its entry (``kernels/nabla_vm.mojo``), each
#: taking ints (addresses and sizes) and giving 0 when done: how many ints each takes
#: (``lu_det``: a, batch, n, complex, then the sign's, log|det|'s and det's addresses, 0 for one not
#: wanted; ``lu_solve``: a, b, x, batch, n, k, complex; ``eigh``: a, w, v, batch, n, complex;
#: ``sort``: x, values, order, batch, n, k, descending, the dtype's kind; ``cholesky``: a, l, batch,
#: n, complex; ``qr``: a, q, r, batch, m, n, k, complex; ``svd``: a, u, s, vh, batch, m, n, full,
#: wide, complex; ``eig``: a, w, v, batch, n; ``fft``: out, x, batch, rows, cols, rows out, cols
#: out, sign, scaling, dims; ``random``: out, n, state, the dtype's kind)
_EXPORTS = {"lu_det": 7, "lu_solve": 7, "eigh": 6, "sort": 8, "cholesky": 5, "qr": 8, "svd": 10, "eig": 5,
            "fft": 10, "random": 4}


class _Kernel:
    """The built library: ``run(address of a call array)`` runs a program (ctypes releases the GIL
    for the call)."""

    def __init__(self, path: Path):
        import ctypes

        self.library = ctypes.CDLL(str(path))
        entry = self.library.nabla_vm_run
        entry.argtypes = [ctypes.c_int64]
        entry.restype = ctypes.c_int64
        self._entry = entry
        for name, ints in _EXPORTS.items():  # (the kernel ops' kernels: ``lu_det(...)``, ...)
            export = getattr(self.library, f"nabla_{name}")
            export.argtypes = [ctypes.c_int64] * ints
            export.restype = ctypes.c_int64
            setattr(self, name, export)

    def run(self, call: int) -> None:
        if self._entry(call):
            raise RuntimeError("nabla: the program kernel failed on a stage")


def loaded() -> bool:
    """Whether the kernel is loaded in this process (a read asks each time: nothing else to look at)."""
    return _MODULE is not None


def ready() -> bool:
    """Whether the kernel is built on this machine (loading it then costs milliseconds)."""
    return _MODULE is not None or (enabled() and _target().exists())


def enabled() -> bool:
    """Whether the program kernel may be used (``NABLA_PROGRAM=0`` says no)."""
    return os.environ.get("NABLA_PROGRAM", "1") != "0"


def build_async(target: Path | None = None) -> Future:
    """The Future of building the kernel (in a thread of this process; once per machine)."""
    target = target or _target()
    key = str(target)
    with _LOCK:
        fut = _BUILDING.get(key)
        if fut is None:
            fut = _BUILDING[key] = Future()
            threading.Thread(target=_build, args=(target, fut), daemon=True, name="nabla-vm-build").start()
    return fut


def _build(target: Path, fut: Future) -> None:
    try:
        build(target)
        fut.set_result(target)
    except BaseException as e:  # (a failed build: the caller falls back to other paths)
        fut.set_exception(e)


def build(target: Path | None = None) -> Path:
    """Build the kernel into ``target`` unless it is there; another process building it is waited
    for through a lock file."""
    target = target or _target()
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        return target
    with open(target.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.exists():  # another process built it while this one waited
            return target
        staging = target.parent / f".staging.{os.getpid()}.{threading.get_ident()}"
        shutil.rmtree(staging, ignore_errors=True)  # (a killed build's, under a pid used again)
        staging.mkdir()
        try:
            mojo = Path(sys.executable).with_name("mojo")
            (staging / "packages").mkdir(exist_ok=True)
            for name, source in PACKAGES.items():
                (staging / "packages" / name).symlink_to(source, target_is_directory=True)
            cmd = [str(mojo) if mojo.exists() else "mojo", "build", "-I", str(KERNELS), "-I", str(staging / "packages"),
                   str(ENTRY), "--emit", "shared-lib", "-o", str(staging / target.name)]
            t0 = time.perf_counter()
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"nabla: building the program kernel failed ({time.perf_counter() - t0:.0f} s):\n"
                                   + done.stderr[-4000:])
            os.replace(staging / target.name, target)  # atomic: other processes see all or nothing
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return target
