"""The realization engine: structure-keyed models, the first-sight interpreter, background compiles.

Threads: any thread may realize. MAX's MLIR context is thread-local, so every entry point
enters MAX's default context for the calling thread. One lock guards the engine's state (the
model cache and its byte budget, counters, compile bookkeeping) and everything that walks or
rewrites the trace (keying, lowering, the interpreter, writing results back). A compiled
model runs outside the lock, so independent realizations from several threads overlap
inside MAX; outputs being computed are marked in flight, and a thread that needs one of them
waits for it instead of computing it again. See docs/realization.md.
"""

from __future__ import annotations

import collections
import os
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, fields
from pathlib import Path

from max import driver

from . import memory_check, progress
from .compiler import BackgroundCompiler
from .context import SEVERAL_DEVICES, cpu, driver_device
from .disk_cache import ModelDiskCache, kernel_cache_dir, model_cache_dir
from .models import ModelStore, RealizationError, _bytes_budget, _Entry, execute, mlir_context  # noqa: F401 (re-exported)
from .paths import FINISHED, ExecutionPath, Realization, RealizeFirst
from .trace_facts import describe_outputs, on_accelerators, on_virtual_devices, shares_inner_values
from .trace_lowering import TraceLowering
from .interpreter import new_interpreter
from .values import as_host_value

_MAX_CACHE_ENTRIES = 4096
#: an entry used again moves to the cache's end once this many uses of the cache after its last
#: move: one in use is never further than that from the end, far from the 4,096 where entries leave
_TOUCH_EVERY = 64
#: a repeated structure is compiled (in the background) only once the process has run this long:
#: a compile costs seconds of a core, and its pool about half a second to start and stop at
#: exit, which a short script (a second of work or less) never earns back
_COMPILE_AFTER_S = float(os.environ.get("NABLA_COMPILE_AFTER", "2.0"))
#: a read that would run alone, apart from the other pending work, is tried only while its trace
#: has at most this many nodes (see ``_start``)
_PROBE_NODES = 128
_STARTED = time.monotonic()
_POLICIES = ("auto", "compile", "interpret")


@dataclass
class EngineStats:
    """Counters of the realization engine (``nabla.engine_stats()``)."""

    evaluations: int = 0  # evaluate() calls that ran a graph
    cache_hits: int = 0  # runs served by an already compiled model
    interpreted: int = 0  # runs served by MAX's eager interpreter
    interpreter_rejections: int = 0  # graphs MAX's interpreter failed on, then compiled instead
    fused: int = 0  # runs served by the fused first-sight kernel
    scalar_ops: int = 0  # 0-d ops over host scalars computed as they were made (``Engine.scalars``)
    small_ops: int = 0  # ops of small results over realized host data computed as they were made (the same)
    compiles: int = 0  # models compiled (foreground or background)
    compile_seconds: float = 0.0  # wall time spent waiting for foreground compiles
    trace_waits: int = 0  # reads that waited on their trace's compile (first sight served none of it)
    graph_builds: int = 0  # MAX graphs built from a trace (cache misses)
    symbolic_graphs: int = 0  # of those, built with symbolic dims
    disk_loads: int = 0  # compiled models read from the on-disk cache instead of compiled
    evictions: int = 0  # models dropped from memory to keep within the byte budget
    execute_seconds: float = 0.0  # time inside compiled models' execute (the kernels)
    cache_entries: int = 0  # filled in by engine_stats() from the cache itself
    model_bytes: int = 0  # filled in: what the loaded models are charged against the budget

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


_UNSET = object()


class _Done:
    """Set once, when a run's outputs are written back; other threads wait for it. A lock held
    from the start: one is made on every realization, and a lock costs a small fraction of a
    ``threading.Event`` (a condition and a lock) to make."""

    __slots__ = ("_lock",)

    def __init__(self):
        self._lock = threading.Lock()
        self._lock.acquire()

    def set(self) -> None:
        self._lock.release()

    def wait(self) -> None:
        with self._lock:  # each waiter passes the lock on
            pass

    def pending(self) -> bool:
        """Whether the run is still going (a mark of a finished one is stale: see ``Engine.run``)."""
        return self._lock.locked()


class Engine(TraceLowering, ModelStore):
    """Structure-keyed cache of compiled MAX models, and the loop that asks its execution paths
    (``core/paths.py``) how to run each trace."""

    def __init__(self, paths=(), scalars=None):
        #: the execution paths ``_start`` asks, in order (``nabla.runtime.default_paths()``)
        self.paths = list(paths)
        #: what computes a 0-d op over host scalars at once, where it can (``runtime/host_scalars.py``)
        self.scalars = scalars
        self._deferring = None  # (the paths list, its length, the deferrable questions of the paths that answer it)
        self.stats = EngineStats()
        self._cache: collections.OrderedDict[tuple, _Entry] = collections.OrderedDict()
        self._uses = 0  # lookups that kept or touched an entry (``touch``)
        self._session = None
        self._param_cache: dict = {}
        self._interpreter = None
        self.policy = os.environ.get("NABLA_REALIZE", "auto")
        if self.policy not in _POLICIES:
            raise ValueError(f"NABLA_REALIZE={self.policy!r}: expected one of {_POLICIES}")
        self.symbolic_dims = os.environ.get("NABLA_SYMBOLIC_DIMS", "1") != "0"
        self.fused_enabled = os.environ.get("NABLA_FUSED", "1") != "0"
        #: ops of small results over realized host data run as they are made (``HostScalars.small``)
        self.small_at_once = os.environ.get("NABLA_SMALL_AT_ONCE", "1") != "0"
        #: first sight may run ops alone on single-op models this machine compiled earlier
        self.single_op_models = os.environ.get("NABLA_SINGLE_OP_MODELS", "1") != "0"
        self.debug_memory = memory_check.enabled()  # every run twice over poisoned memory (a test mode)
        self._interpreter_warm = None
        self._single_op_entries: dict[str, _Entry] = {}
        self._bundled: dict = {}  # (directory, graph symbol) -> a bundle's member loaded with another
        self._bundle_use: dict = {}  # bundle content digest -> [bytes, members, names used]
        self._disk = _UNSET  # the structure cache's folder names a digest of Nabla's sources: found on first use
        kernels = kernel_cache_dir()
        self.single_op_disk = None if kernels is None else ModelDiskCache(kernels)  # for single-op models
        self.max_model_bytes = _bytes_budget()
        self._model_bytes = 0
        self._lock = threading.RLock()
        self._in_flight: dict[int, _Done] = {}  # id(Value) -> set when its run ends
        self._compiling: dict[int, _Entry] = {}  # id -> entry whose compile is under way
        self._landed: collections.deque = collections.deque()  # of those, the ones whose compile ended
        self.compiler = BackgroundCompiler(lambda: self.session)

    @property
    def disk(self) -> ModelDiskCache | None:
        if self._disk is _UNSET:
            directory = model_cache_dir(Path(__file__).resolve().parent.parent)
            self._disk = None if directory is None else ModelDiskCache(directory)
        return self._disk

    @disk.setter
    def disk(self, cache: ModelDiskCache | None) -> None:
        self._disk = cache

    @property
    def disk_cache(self) -> Path | None:
        return None if self.disk is None else self.disk.directory

    # --- MAX handles -----------------------------------------------------------
    @property
    def session(self):
        if self._session is None:
            # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
            from max import engine

            self._session = engine.InferenceSession(devices=_session_devices(cpu()))
        return self._session

    @property
    def interpreter(self):
        if self._interpreter is None:
            self._interpreter = new_interpreter()
        return self._interpreter

    @property
    def lock(self):
        """The engine's lock, held by whatever keys, plans or runs traces (the scheduler keeps
        state of its own while it plans): a read holds it, and so must a hook that plans apart."""
        return self._lock

    # --- running -----------------------------------------------------------------
    def run(self, outputs: list, fast_only: bool = False, staged: bool = False) -> bool:
        """Compute ``outputs`` (pending values) and turn them into leaves holding buffers.

        ``fast_only``: only if a compiled model or the fused kernel serves them at once, and no
        other pending work shares the trace's work (see ``shares_inner_values``); returns whether
        they were computed (otherwise nothing happened but keying)."""
        done = _Done()  # set when this call's in-flight outputs are written back
        claimed: list = []
        results = None
        compiled_here = False  # the model this call runs was compiled for it: not a cache hit
        try:
            with mlir_context():
                while True:
                    with self._lock:
                        outputs = [v for v in outputs if v.node is not None]
                        if not outputs:
                            return True
                        busy = [e for e in (self._in_flight.get(id(v)) for v in outputs)
                                if e is not None and e.pending()]
                        if busy and fast_only:
                            return False
                        job = None if busy else self._start(outputs, compiled_here, fast_only, staged)
                        first = isinstance(job, RealizeFirst)
                        if job is None and not busy:
                            return not fast_only  # computed under the lock by the interpreter
                        if not busy and not first and not isinstance(job, Future):
                            claimed = outputs  # (first: an interrupt among the marks still clears them)
                            for v in outputs:
                                self._in_flight[id(v)] = done
                            break
                    if first:  # other values first (a path's stages, single-op nodes), then the rest (traced again)
                        for part in (job.parts(outputs) if job.parts is not None else job):  # a value, or the values of one node read together
                            if not self.run(part if isinstance(part, list) else [part], fast_only and job.staged,
                                            staged=job.staged):
                                return False  # a probe's stage the fast paths do not serve
                    elif busy:  # another thread is computing some of them: wait for it, then look again
                        busy[0].wait()
                    else:  # a compile this structure must have: wait for it without the lock
                        t0 = time.perf_counter()
                        progress.wait(job, getattr(job, "nabla_what", "a model"))
                        compiled_here = True
                        with self._lock:
                            self.stats.compile_seconds += time.perf_counter() - t0
                            self.stats.trace_waits += 1
                run, buffers = job
                t0 = time.perf_counter()
                results = memory_check.checked_run(run, buffers, describe_outputs(claimed)) if self.debug_memory \
                    else run(buffers)
                elapsed = time.perf_counter() - t0
        finally:
            if claimed:  # also on an interrupt: nothing stays marked as being computed
                try:
                    with self._lock:
                        try:
                            if results is not None:
                                self.stats.execute_seconds += elapsed
                                _write_back(claimed, results)
                        finally:
                            for v in claimed:
                                self._in_flight.pop(id(v), None)
                finally:
                    # (an interrupt landing among the pops leaves marks of a finished run: a reader
                    # that meets one passes it, ``_Done.pending``)
                    done.set()
        return True

    def _start(self, outputs, compiled_here: bool = False, fast_only: bool = False, staged: bool = False):
        """Under the lock: trace ``outputs`` and ask each path in turn how to run the trace; the
        first answer (``core/paths.py``) is the job, None where it is finished (or a probe declined)."""
        if all(0 in v.shape for v in outputs):  # nothing to compute: an empty result is its shape
            return (lambda _: [_empty(v) for v in outputs]), []
        # a probe (a read that may run alone while other work is pending) gives up on a long trace:
        # that work is then nearly always shared with the rest, and tracing it twice costs more
        traced = self.trace(outputs, limit=_PROBE_NODES if fast_only else None)
        if traced is None:
            return None
        if fast_only and not staged and len(traced.order) > len(outputs) \
                and shares_inner_values(traced.order, outputs):
            return None  # a probe that would leave shared work pending
        r = Realization(self, outputs, traced, fast_only, staged, compiled_here, on_accelerators(traced.leaves, outputs))
        for path in self.paths:
            job = path.plan(r)
            if job is not None:
                return None if job is FINISHED else job
        raise RealizationError(f"nabla: no execution path runs a trace of {len(traced.order)} nodes "
                               f"(the engine's paths: {[type(p).__name__ for p in self.paths]})")

    def deferrable(self, impl) -> bool:
        """Whether a joint run may leave this pending tensor pending: a path computes it for free
        inside whatever reads it (a view of realized data)."""
        if not self.fused_enabled:
            return False
        asks = self._deferring  # (a loop that reads a scalar a step asks this of every pending tensor)
        if asks is None or asks[0] is not self.paths or asks[1] != len(self.paths):
            asks = self._deferring = (self.paths, len(self.paths), tuple(
                path.deferrable for path in self.paths if type(path).deferrable is not ExecutionPath.deferrable))
        for ask in asks[2]:
            if ask(impl):
                return True
        return False

    # --- what the paths ask of the engine's state (under its lock) ------------------------------
    def cached(self, key):
        """The cache entry of a structure, or None."""
        return self._cache.get(key)

    @staticmethod
    def new_entry(key):
        """A cache entry for a structure, not (yet) kept."""
        return _Entry(key)

    def keep(self, key, entry=None):
        """The cache entry of a structure, made (``entry``, or a new one) where there is none;
        the oldest entry goes past the cache's size."""
        found = self._cache.get(key)
        if found is not None:
            return found
        found = self._cache[key] = entry or _Entry(key)
        self._uses += 1
        found.touched = self._uses
        if len(self._cache) > _MAX_CACHE_ENTRIES:
            self._unload(self._cache.popitem(last=False)[1])
        return found

    def touch(self, key, entry) -> None:
        """A structure just used: among the last to leave the cache. (It moves to the cache's end
        once per ``_TOUCH_EVERY`` uses of the cache: a move hashes the key again, as long as its
        lookup took, and a loop's read uses the same structure every step.)"""
        self._uses += 1
        if self._uses - entry.touched >= _TOUCH_EVERY:
            entry.touched = self._uses
            self._cache.move_to_end(key)

    def count(self, *, fused: bool = False, interpreted: bool = False, hit: bool = False) -> None:
        """One evaluation, of the kind named."""
        stats = self.stats
        stats.evaluations += 1
        stats.fused += fused
        stats.interpreted += interpreted
        stats.cache_hits += hit

    def compile_due(self, entry, staged: bool) -> bool:
        """Whether a structure met again is worth a compile in the background now."""
        return self.policy == "auto" and entry.sightings >= 2 and not staged and entry.compiling is None \
            and not entry.compile_failed and time.monotonic() - _STARTED >= _COMPILE_AFTER_S

    def interpret(self, entry, r) -> list | None:
        """MAX's interpreter on the trace of ``r``: its results, or None where it refuses."""
        return self._interpret(entry, r.build, tuple(leaf.shape for leaf in r.traced.leaves), r.graph_inputs())

    def on_virtual_devices(self, traced) -> bool:
        return SEVERAL_DEVICES.in_use and on_virtual_devices(traced)

    def interpreted_model(self, graph):
        """A stand-in for a compiled model of ``graph`` (one over virtual CPU devices, which MAX's
        compiled sessions refuse): each ``execute`` runs it on MAX's interpreter."""
        return _Interpreted(self, graph)

    def must_compile(self, entry) -> bool:
        if entry.interpreter_refused:
            return True
        if entry.compile_failed:
            return False
        # on a machine whose interpreter cache is cold, each op family the interpreter meets would
        # compile in this process (~15 s each): one compile of the whole structure costs less
        return self.policy == "compile" or (self.policy == "auto" and not self.interpreter_warm)

    @property
    def interpreter_warm(self) -> bool:
        """Whether MAX's interpreter kernels are precompiled on this machine (`max warm-interpreter-cache`)."""
        if self._interpreter_warm is None:
            try:  # (MAX's internal module, imported where asked: another MAX may not have it)
                from max._interpreter_ops import gc_compile

                self._interpreter_warm = bool(gc_compile.warm_stamp_matches())
            except Exception:  # MAX's internals moved: assume warm (first sight interprets)
                self._interpreter_warm = True
        return self._interpreter_warm

    def _interpret(self, entry, build, shapes, buffers):
        """MAX's eager interpreter on concrete buffers; None when it cannot run this graph."""
        # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
        from max.experimental.executor import UnsupportedGraphError

        # some of the interpreter's kernels want static shapes
        graphs = entry.static_graphs
        if graphs is None:
            graphs = entry.static_graphs = {}
        graph = graphs.get(shapes)
        reused = graph is not None
        if graph is None:  # building a MAX graph costs more than interpreting a small one: keep it
            graph = graphs[shapes] = build(False)
            if len(graphs) > 8:
                graphs.pop(next(iter(graphs)))
        try:
            if self.debug_memory:
                return memory_check.checked_run(lambda b: self.interpreter.execute(graph, b), buffers,
                                                f"a trace of {entry.op_names} on MAX's interpreter")
            return self.interpreter.execute(graph, buffers)
        except UnsupportedGraphError:
            entry.interpreter_refused = True
            return None
        except RealizationError:
            raise
        except Exception as e:  # MAX's verifier or a kernel rejected what Nabla's checks let through
            graphs.pop(shapes, None)
            if reused:  # MAX's executor may rewrite a module it ran and asks for fresh ones: build it again
                return self._interpret(entry, build, shapes, buffers)
            # the interpreter's state is MAX's (its kernel families, their on-disk warm): a failure
            # there says nothing of the trace, which a compiled model then runs; if MAX cannot
            # compile it either, the compile's error names both
            entry.interpreter_refused = True
            entry.error = e
            self.stats.interpreter_rejections += 1
            return None

    def write_back(self, outputs, results) -> None:
        """Results computed outside the engine (``nabla.compile``'s models) become the outputs'
        buffers, under the lock that tracing holds."""
        with self._lock:
            _write_back(outputs, results)

    def snapshot_stats(self) -> dict:
        with self._lock:
            self.stats.cache_entries = len(self._cache)
            self.stats.model_bytes = self._model_bytes
            return self.stats.as_dict()


def _empty(v):
    return driver.Buffer(v.dtype.max_dtype, tuple(v.shape), device=driver_device(v.device))


class _Interpreted:
    def __init__(self, engine, graph):
        self.engine, self.graph = engine, graph

    def execute(self, *buffers):
        with mlir_context(), self.engine._lock:
            return self.engine.interpreter.execute(self.graph, list(buffers))


def _write_back(outputs, results) -> None:
    for v, buf in zip(outputs, results):
        if type(buf) is tuple:  # a result in host memory, its address, and whether its value owns it
            # (owned: no other result or view shares it; a NumPy view handed out of it has the block
            # as its base, not ``host``, so no reference count would tell: ``Tensor.numpy`` gives it
            # up, and an element write then copies it once, into memory of its own)
            as_host_value(v, buf[0], len(buf) > 2 and buf[2], buf[1])
            continue
        v.buffer = buf  # the buffer first: a value whose node is None always holds one
        v.node = None


def _session_devices(default):
    devs = [default]
    devs += [driver.Accelerator(i) for i in range(driver.accelerator_count())]
    return devs
