"""Compiling MAX graphs out of process, at low priority.

A compile takes tens of seconds of both cores and up to about a GB for the compiler itself.
Done in the user's process it stalls the foreground (work that repeats meanwhile runs many times
slower) and the compiler's memory stays for good. So graphs
go, as MLIR bytecode, to worker processes of MAX's ``ProcessCompilePool`` (``NABLA_COMPILE_WORKERS``,
default one) started from a thread whose nice value is 19: the forkserver and the workers inherit
it, so the kernel scheduler gives the foreground the cores first. The workers are shut down once no compile has
come for ``idle_seconds``, which hands the compiler's memory back.

``NABLA_COMPILE_PROCESS=0`` compiles in-process instead (for hosts without subprocesses).
"""

from __future__ import annotations

import collections
import ctypes
import os
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from types import SimpleNamespace

from .disk_cache import kernel_cache_dir


def _lower_this_threads_priority() -> None:
    # Linux nice values are per thread; processes this thread starts inherit it.
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except (AttributeError, OSError):
        pass


#: seconds between looks at models other processes are compiling for this one
_CLAIM_POLL_S = 0.25

#: what a compile gives where another process compiled the same model meanwhile: its file is on disk
ON_DISK = object()


def _broke(error) -> bool:
    return type(error).__name__ == "BrokenProcessPool"


def _resolve(ours: Future, theirs: Future) -> None:
    try:
        ours.set_result(theirs.result())
    except BaseException as e:  # noqa: BLE001 - delivered to the waiting thread
        ours.set_exception(e)


class BackgroundCompiler:
    """Compiles in low-priority worker processes (up to ``workers`` at once); ``submit`` returns
    a Future of a ``max.engine.CompiledModel``."""

    def __init__(self, in_process_session=None, idle_seconds: float = 60.0):
        # compiles not yet handed to the pool, in order; one a caller waits for goes first (``urge``):
        # handed over at once, a wait would queue behind every background compile asked for before
        # it, which in a long process of new structures can last many times the compile itself
        self._pending: collections.deque = collections.deque()
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._pool = None
        self._session = in_process_session  # a callable giving the session, for in-process compiles
        self.in_process = os.environ.get("NABLA_COMPILE_PROCESS", "1") == "0"
        self.idle_seconds = idle_seconds
        self._running = 0  # compiles submitted to the pool and not finished
        # held while the pool is made or given a compile (its workers start inside ``submit``): the
        # exit hook takes it, so no worker can start between the hook's kill and the pool's join
        self._submit_lock = threading.Lock()
        self._exiting = False
        self._broken = False  # the pool broke under a compile: made anew before the next
        # one compile at a time by default: each holds up to ~1.4 GB, and on a cold 2-core machine
        # two at once finish no sooner than one after the other
        self.workers = max(1, int(os.environ.get("NABLA_COMPILE_WORKERS", "1")))

    def submit(self, bytecode: bytes, extensions=(), claim=None, published=None) -> Future:
        """``claim``: the disk cache's claim on the model, taken when its compile starts; while
        another process holds it, other compiles go first, and once ``published()`` says that
        process's model is on disk, the Future gives ``ON_DISK`` instead of compiling it again."""
        fut: Future = Future()
        fut.nabla_urge = lambda: self.urge(fut)  # (``progress.wait`` calls it)
        with self._ready:
            self._pending.append((bytecode, list(extensions), fut, claim, published))
            self._ready.notify_all()
        with self._start_lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="nabla-compiler", daemon=True)
                self._thread.start()
        return fut

    def urge(self, fut: Future) -> None:
        """The compile of ``fut`` goes before the others not yet started: a caller waits for it."""
        with self._ready:
            for i, job in enumerate(self._pending):
                if job[2] is fut:
                    del self._pending[i]
                    self._pending.appendleft(job)
                    break

    # --- the compiler thread --------------------------------------------------------
    def _next(self):
        """The next compile to start, once the pool has room for it; None after an idle wait."""
        with self._ready:
            while True:
                room = self.in_process or self._running < self.workers
                job = self._startable() if room else None
                if job is not None:
                    return job
                others = room and bool(self._pending)  # each pending model claimed by another process
                if not self._ready.wait(timeout=_CLAIM_POLL_S if others else
                                        self.idle_seconds if self._pool is not None else None) and not others:
                    return None

    def _startable(self):
        """The first pending compile no other process has claimed (taking its claim), resolving
        those whose models other processes have published meanwhile."""
        i = 0
        while i < len(self._pending):
            job = self._pending[i]
            claim, published = job[3], job[4]
            if published is not None and published():
                del self._pending[i]
                if len(job) > 5 or job[2].set_running_or_notify_cancel():  # (a retry is running already)
                    job[2].set_result(ON_DISK)
                continue
            if claim is None or claim.try_take():
                del self._pending[i]
                return job
            i += 1
        return None

    def _loop(self) -> None:
        _lower_this_threads_priority()
        if not self.in_process and not _pool_can_start():
            self.in_process = True
        while True:
            job = self._next()
            if job is None:
                if not self._running and not self._pending:
                    self._close_pool()  # idle: give the compiler's memory back
                continue
            bytecode, extensions, fut = job[:3]
            retry = len(job) > 5  # (a compile the pool broke under, started again)
            if not retry and not fut.set_running_or_notify_cancel():
                continue
            if self._broken:
                self._broken = False
                self._close_pool()
            try:
                if self.in_process:
                    fut.set_result(self._compile_here(bytecode, extensions))
                else:  # the pool runs up to `workers` compiles at once; its future resolves ours
                    with self._ready:
                        self._running += 1
                    try:
                        started = self._submit_to_pool(bytecode, extensions)
                    except BaseException:
                        self._finished(job, None)
                        raise
                    started.add_done_callback(lambda done, job=job: self._finished(job, done))
            except BaseException as e:  # noqa: BLE001 - delivered to the waiting thread
                if _broke(e) and not retry:
                    self._close_pool()
                    self._again(job)
                    continue
                if not fut.done():
                    fut.set_exception(e)
                if _broke(e):
                    self._close_pool()

    def _again(self, job) -> None:
        """Start ``job`` again, first, on a new pool: the pool it ran on broke (a worker killed by a
        signal meant for another process, or out of memory), which says nothing of the compile."""
        with self._ready:
            self._pending.appendleft((*job[:5], True))
            self._ready.notify_all()

    def _finished(self, job, done: Future | None) -> None:
        with self._ready:  # (from the pool's thread)
            self._running -= 1
            if done is not None and len(job) <= 5 and not self._exiting and not done.cancelled() \
                    and _broke(done.exception()):
                self._broken = True  # (closed by the compiler's thread: not from the pool's own)
                self._pending.appendleft((*job[:5], True))
                self._ready.notify_all()
                return
            self._ready.notify_all()
        if done is not None:
            _resolve(job[2], done)

    def _submit_to_pool(self, bytecode: bytes, extensions):
        with self._submit_lock:
            if self._exiting:
                raise RuntimeError("nabla: the program is exiting; the compile was not started")
            if self._pool is None:
                # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
                from max.driver import DeviceSpec, accelerator_count
                from max.experimental.compile_pool import ProcessCompilePool

                specs = [DeviceSpec.cpu()] + [DeviceSpec.accelerator(i) for i in range(accelerator_count())]
                self._pool = ProcessCompilePool(device_specs=specs, max_workers=self.workers)
                # At exit the pool closes itself from a hook of ``threading``'s shutdown: it sends
                # its workers SIGTERM, which a worker inside MAX's compiler does not act on, then
                # joins them, so a script would wait out the compile in flight (tens of seconds).
                # Hooks run last registered first: this one kills them before that join.
                try:
                    threading._register_atexit(self._kill_workers)  # type: ignore[attr-defined]
                except RuntimeError:  # the program began exiting while the pool was made: start nothing
                    self._exiting = True
                    pool, self._pool = self._pool, None
                    pool.close()
                    raise RuntimeError("nabla: the program is exiting; the compile was not started") from None
            # compile_module reads only ``module.mlir_module.bytecode``: the graph was serialized
            # where it was built, so this thread never touches an MLIR context
            module = SimpleNamespace(mlir_module=SimpleNamespace(bytecode=bytecode))
            return self._pool.compile_module(module, custom_extensions=extensions)

    def _kill_workers(self) -> None:
        """At exit: start no more compiles and SIGKILL the pool's workers (nothing of Nabla's
        computes after the user's program; a later process compiles again if it needs to)."""
        with self._submit_lock:
            self._exiting = True
            executor = getattr(self._pool, "_executor", None)
            for process in list((getattr(executor, "_processes", None) or {}).values()):
                try:
                    process.kill()
                except Exception:  # noqa: BLE001 - already gone
                    pass

    def _compile_here(self, bytecode: bytes, extensions):
        # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
        from max import mlir
        from max._core import Operation
        from max._mlir_context import ensure_default_mlir_context
        from max.graph import Module

        with ensure_default_mlir_context():
            module = Module(mlir_module=Operation.from_bytecode(bytecode, mlir.Context()))
            return self._session().compile(module, custom_extensions=extensions)

    def _close_pool(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            try:
                pool.close()
            except Exception:
                pass


def _pool_can_start() -> bool:
    """Whether MAX's compile pool can start its workers here: its forkserver's children take this
    process's multiprocessing start method, and one the standard library does not know (joblib's
    loky workers set ``loky``) fails in each of them."""
    import multiprocessing  # (lazy: only a compile pool's start asks; nothing else of Nabla needs it)

    method = multiprocessing.get_start_method(allow_none=True)
    return method is None or method in multiprocessing.get_all_start_methods()


def start_detached(lock_name: str, module: str, args=(), stale_after: float = 900.0) -> bool:
    """Start ``python -m <module> LOCK *args`` detached from this process, at nice 19, unless another
    holds the lock file in the kernel cache (one such process per machine; it removes the lock when
    done, and a lock older than ``stale_after`` seconds is taken to be a process that died)."""
    root = kernel_cache_dir()
    if root is None:
        return False
    lock = root / lock_name
    try:
        root.mkdir(parents=True, exist_ok=True)
        if lock.exists():
            age = time.time() - lock.stat().st_mtime
            alive = _holder_alive(lock)
            # a killed holder (a machine shut down, a session's processes ended) leaves its lock
            # behind: a dead pid frees it at once, a lock naming no pid after a minute
            if alive is False or age > (stale_after if alive else min(stale_after, 60.0)):
                lock.unlink(missing_ok=True)
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except OSError:
        return False  # another process holds it
    argv = [sys.executable, "-m", module, str(lock), *map(str, args)]
    quiet = dict(start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                 stderr=subprocess.DEVNULL)
    try:
        try:
            child = subprocess.Popen(argv, preexec_fn=_background_priority, **quiet)
        except RuntimeError:  # Python >= 3.12 refuses preexec_fn while exiting (atexit starts these)
            nice = shutil.which("nice")
            child = subprocess.Popen(([nice, "-n", "19"] if nice else []) + argv, **quiet)
        os.write(fd, str(child.pid).encode())
    except OSError:
        lock.unlink(missing_ok=True)
        return False
    finally:
        os.close(fd)
    return True


def _background_priority() -> None:
    """Nice 19 for a detached process, and for its session's scheduling group: with Linux's
    autogroups (on by default) a new session competes with the user's session as an equal, so
    the process's own nice value alone left it a whole core of a 2-core machine."""
    os.nice(19)
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write("19")
    except OSError:
        pass


def die_with_parent() -> None:
    """In a child process, before it runs (``preexec_fn``): the kernel kills it when the thread
    that started it dies, however the process dies (a signal skips every exit hook). Nothing is
    imported here: a forked child of a threaded process may not take the import lock."""
    if _PRCTL is not None:
        _PRCTL(1, 9)  # PR_SET_PDEATHSIG, SIGKILL (Linux)


def _prctl():
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # (not Linux)
        return None


_PRCTL = _prctl()


def _holder_alive(lock) -> bool | None:
    """Whether the process a lock file names is alive; None when it names none (being written, or
    written by an older Nabla)."""
    try:
        text = lock.read_text().strip()
    except OSError:
        return None
    if not text.isdigit():
        return None
    try:
        os.kill(int(text), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
