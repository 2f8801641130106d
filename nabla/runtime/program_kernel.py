"""Nabla's program kernel (``kernels/nabla_vm.mojo``) and op kernels (``kernels/nabla_op_kernels.mojo``):
shared libraries built once per machine, called directly.

The program kernel runs a whole program of stages in one call (see ``program.py``); the op kernels
are the kernel ops' kernels (linalg, FFT, sort, Philox) called one by one (``library_kernels.py``).
Each is a shared library that Mojo builds (``mojo build --emit shared-lib``) from its entry module
(and the fused evaluator's sources, ``kernels/evaluator/``, or the graph ops' kernel packages),
once per digest of those sources, into the kernel cache (``~/.cache/nabla/max-<version>/kernels/
vm/<digest>/``, ``.../op_kernels/<digest>/``), and loads through ctypes; later processes load them
in milliseconds. Two libraries, not one: each build takes ~14-15 s of the 2-core machine, and a
script's first reads wait for the program kernel alone (the demo's first run: ~15 s, not ~24 s). A
build under way in another process is waited for (a lock file); a build is published by an atomic
rename, and its compiler dies with the process that started it, so a process killed mid-build
leaves nothing half-made and nothing computing (the next one builds that library again; one
finished before stays).

Why a direct call and not a MAX graph: on the 2-core machine MAX's ``model.execute`` of a custom
op costs ~30-40 us, a ctypes call of the library ~1 us, and a loop that reads a scalar per step
pays that floor once per step.
"""

from __future__ import annotations

import ctypes
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
from ..core.compiler import die_with_parent
from ..core.disk_cache import kernel_cache_dir, source_digest
from .fused_codes import BYTES

#: the call array (kernels/nabla_vm.mojo): ints per stage, data slots per stage, stage kinds
STAGE = 24
SLOTS = 8
MAP, REDUCE, SCAN, COPY, SCATTER, SCATTER_ADD, NONZERO, GATHER = 0, 1, 2, 3, 4, 5, 6, 7

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "kernels"  # the entry modules and, in ``evaluator/``, the fused evaluator the program kernel runs
ENTRY = KERNELS / "nabla_vm.mojo"
OP_ENTRY = KERNELS / "nabla_op_kernels.mojo"
#: the graph ops' kernel packages (``ops/kernels``) whose kernels ``OP_ENTRY`` exports, each built
#: under a name of its own (MAX's own kernels hold a ``linalg``)
PACKAGES = {f"nabla_{name}": HERE.parent / "ops" / "kernels" / name for name in ("fft", "linalg", "random", "sort")}
_LOCK = threading.Lock()

#: the kernel ops' kernels ``OP_ENTRY`` exports, each taking ints (addresses and sizes) and giving 0
#: when done: how many ints each takes (``lu_det``: a, batch, n, complex, then the sign's, log|det|'s
#: and det's addresses, 0 for one not wanted; ``lu_solve``: a, b, x, batch, n, k, complex; ``eigh``:
#: a, w, v, batch, n, complex; ``sort``: x, values, order, batch, n, k, descending, the dtype's kind;
#: ``cholesky``: a, l, batch, n, complex; ``qr``: a, q, r, batch, m, n, k, complex; ``svd``: a, u, s,
#: vh, batch, m, n, full, wide, complex; ``eig``: a, w, v, batch, n; ``fft``: out, x, batch, rows,
#: cols, rows out, cols out, sign, scaling, dims; ``random``: out, n, state, the dtype's kind)
_EXPORTS = {"lu_det": 7, "lu_solve": 7, "eigh": 6, "sort": 8, "cholesky": 5, "qr": 8, "svd": 10, "eig": 5,
            "fft": 10, "random": 4}


def family(program) -> int:
    """A fused program's family as the kernel's call names it (``kernels/nabla_vm.mojo``)."""
    if program.dtype is BYTES:
        if program.byte_registers:
            return 5
        return 2 if program.registers is _dt.int64 else (3 if program.registers is _dt.float32 else 4)
    return 0 if program.dtype is _dt.float32 else 1


def enabled() -> bool:
    """Whether the program kernel may be used (``NABLA_PROGRAM=0`` says no)."""
    return os.environ.get("NABLA_PROGRAM", "1") != "0"


class KernelLibrary:
    """One shared library Mojo builds from an entry module (``mojo build --emit shared-lib``), once
    per digest of its sources into the kernel cache, and this process loads through ctypes: each of
    ``exports`` (name -> how many int arguments) is an attribute of its loaded module."""

    def __init__(self, name: str, entry: Path, sources, exports: dict, what: str):
        self.name, self.entry, self.exports, self.what = name, entry, exports, what
        self._sources = sources  # () -> the digest of what the library is built from
        self._module = None
        self._building: dict = {}  # target -> Future of the build under way in this process

    @functools.cached_property
    def digest(self) -> str:
        return self._sources()

    def target(self) -> Path:
        root = kernel_cache_dir()
        if root is None:
            root = Path(os.environ.get("TMPDIR", "/tmp")) / f"nabla-vm-{os.getuid()}"
        return root / self.name / self.digest / f"{self.name}.so"

    def loaded(self) -> bool:
        """Whether the library is loaded in this process (a read asks each time: nothing else to look at)."""
        return self._module is not None

    def ready(self) -> bool:
        """Whether the library is built on this machine (loading it then costs milliseconds)."""
        return self._module is not None or (enabled() and self.target().exists())

    def module(self):
        """The loaded library, building it first if this machine has not (blocking, with progress
        on stderr); None when it cannot be built here (``NABLA_PROGRAM=0`` also says None)."""
        if self._module is not None:
            return self._module
        if not enabled():
            return None
        target = self.target()
        if not target.exists():
            fut = self.build_async(target)
            progress.wait(fut, self.what)
            if fut.exception() is not None:
                return None
        with _LOCK:
            if self._module is None:
                self._module = _Loaded(target, self.exports)
        return self._module

    def module_or_build(self):
        """The loaded library; else the Future of its build while it is under way (never a finished
        one: whoever waits on it asks again); None where it cannot be had here."""
        if self.ready():
            return self.module()
        if not enabled():
            return None
        fut = self.build_async()
        if not fut.done():
            fut.nabla_what = self.what  # (what a wait for it says on stderr)
            return fut
        return self.module() if fut.exception() is None and self.ready() else None  # (built where this process no longer looks)

    def build_async(self, target: Path | None = None) -> Future:
        """The Future of building the library (in a thread of this process; once per machine)."""
        target = target or self.target()
        with _LOCK:
            fut = self._building.get(str(target))
            if fut is None:
                fut = self._building[str(target)] = Future()
                threading.Thread(target=self._build, args=(target, fut), daemon=True,
                                 name=f"nabla-{self.name}-build").start()
        return fut

    def _build(self, target: Path, fut: Future) -> None:
        try:
            self.build(target)
            fut.set_result(target)
        except BaseException as e:  # (a failed build: the caller falls back to other paths)
            fut.set_exception(e)

    def build(self, target: Path | None = None) -> Path:
        """Build the library into ``target`` unless it is there; another process building it is
        waited for through a lock file."""
        target = target or self.target()
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            return target
        with open(target.parent / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if target.exists():  # another process built it while this one waited
                return target
            for stale in target.parent.glob(".staging.*"):  # (killed builds': none runs without the lock)
                shutil.rmtree(stale, ignore_errors=True)
            staging = target.parent / f".staging.{os.getpid()}.{threading.get_ident()}"
            staging.mkdir()
            try:
                mojo = Path(sys.executable).with_name("mojo")
                (staging / "packages").mkdir(exist_ok=True)
                for name, source in PACKAGES.items():
                    (staging / "packages" / name).symlink_to(source, target_is_directory=True)
                cmd = [str(mojo) if mojo.exists() else "mojo", "build", "-I", str(KERNELS), "-I",
                       str(staging / "packages"), str(self.entry), "--emit", "shared-lib", "-o", str(staging / target.name)]
                t0 = time.perf_counter()
                # (the compiler dies with this thread: a process killed or ending mid-build leaves
                # nothing computing, and the next one starts the build again)
                done = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=die_with_parent)
                if done.returncode != 0:
                    raise RuntimeError(f"nabla: building {self.what} failed ({time.perf_counter() - t0:.0f} s):\n"
                                       + done.stderr[-4000:])
                os.replace(staging / target.name, target)  # atomic: other processes see all or nothing
            finally:
                shutil.rmtree(staging, ignore_errors=True)
        return target


class _Loaded:
    """A built library, loaded: each export an attribute taking ints (ctypes releases the GIL for
    the call)."""

    def __init__(self, path: Path, exports: dict):
        self.library = ctypes.CDLL(str(path))
        for name, ints in exports.items():
            export = getattr(self.library, f"nabla_{name}")
            export.argtypes = [ctypes.c_int64] * ints
            export.restype = ctypes.c_int64
            setattr(self, name, export)

    def run(self, call: int) -> None:
        """Run the program of stages whose call array is at address ``call`` (the program kernel)."""
        if self.vm_run(call):
            raise RuntimeError("nabla: the program kernel failed on a stage")


def _vm_sources() -> str:
    return source_digest(KERNELS / "evaluator", (".mojo",), extra=(ENTRY,))


def _op_sources() -> str:
    linalg, *others = PACKAGES.values()
    return source_digest(linalg, (".mojo",), extra=(OP_ENTRY, *[f for d in others for f in sorted(d.glob("*.mojo"))]))


#: the program kernel (``ENTRY``), built at the first read; the kernel ops' kernels (linalg, FFT,
#: sort, Philox: ``OP_ENTRY``), built at the first call of one (not after the program kernel, in
#: the background: a short script would leave that build running after it exits)
PROGRAM = KernelLibrary("vm", ENTRY, _vm_sources, {"vm_run": 1}, "Nabla's program kernel")
OP_KERNELS = KernelLibrary("op_kernels", OP_ENTRY, _op_sources, _EXPORTS, "Nabla's op kernels")

module, module_or_build, build_async, build = PROGRAM.module, PROGRAM.module_or_build, PROGRAM.build_async, PROGRAM.build
loaded, ready = PROGRAM.loaded, PROGRAM.ready
