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

from . import memory_check, progress
from .compiler import BackgroundCompiler
from .context import SEVERAL_DEVICES, driver_device
from .disk_cache import ModelDiskCache, kernel_cache_dir, model_cache_dir
from .models import ModelStore, RealizationError, _bytes_budget, _Entry, execute, mlir_context  # noqa: F401 (re-exported)
from .trace_facts import (describe_outputs, element_count, fused_whole, on_accelerators, on_virtual_devices,
                          shares_inner_values)
from .trace_lowering import TraceLowering

_MAX_CACHE_ENTRIES = 4096
#: a trace of at most this many elements (inputs and results) is looked up on disk at its second sight
_SMALL_TRACE_ELEMENTS = 4096
#: a trace that runs at first sight in stages or node by node is queued for a compile at its
#: ``_STAGED_SIGHTS``-th sight, not its second: its graph costs 5-25 ms of the caller's time to build
#: and a compile seconds of a core, where a staged run costs ~0.1-1 ms; and loops meet many such
#: structures a few times each (a mask's count is in the shapes: mandelbrot's loop has one per step)
_STAGED_SIGHTS = 16
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
    compiles: int = 0  # models compiled (foreground or background)
    compile_seconds: float = 0.0  # wall time spent waiting for foreground compiles
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
_SPLIT = object()  # _start's answer for a trace whose kernel nodes must run apart


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


class _Stages(tuple):
    """_start's answer for a trace the first-sight path runs in stages: these values (or lists of
    values realized together) first; their traces are realized as stages, never compiled alone."""


class Engine(TraceLowering, ModelStore):
    """Structure-keyed cache of compiled MAX models, with an interpreter for first sight."""

    #: the fused first-sight path (``nabla.runtime.fused.FusedPath``), installed by ``nabla.runtime``: the
    #: core names no op, so it asks this hook for a program and the model that runs it
    first_sight = None
    #: the program kernel's path (``nabla.runtime.program``): a whole trace as one program of stages
    programs = None

    def being_built(self, name: str):
        """The Future of the named model while other processes build it for this one (a cold
        machine's first-run build: ``nabla.runtime.first_run.pending``, installed by ``nabla.runtime``);
        None when none does."""
        return None

    def build_now(self, spec: dict):
        """The Future of the model of ``spec`` (a single-op model's, as ``nabla.runtime.single_op``
        writes specs) that other processes start building for this one now, on a cold machine
        (``nabla.runtime.first_run.ask``); None when none does."""
        return None

    def __init__(self):
        self.stats = EngineStats()
        self._cache: collections.OrderedDict[tuple, _Entry] = collections.OrderedDict()
        self._session = None
        self._param_cache: dict = {}
        self._interpreter = None
        self.policy = os.environ.get("NABLA_REALIZE", "auto")
        if self.policy not in _POLICIES:
            raise ValueError(f"NABLA_REALIZE={self.policy!r}: expected one of {_POLICIES}")
        self.symbolic_dims = os.environ.get("NABLA_SYMBOLIC_DIMS", "1") != "0"
        self.fused_enabled = os.environ.get("NABLA_FUSED", "1") != "0"
        #: first sight may run ops alone on single-op models this machine compiled earlier
        self.single_op_models = os.environ.get("NABLA_SINGLE_OP_MODELS", "1") != "0"
        self.debug_memory = memory_check.enabled()  # every run twice over poisoned memory (a test mode)
        self._interpreter_warm = None
        self._named: dict[str, _Entry] = {}
        self._bundled: dict = {}  # (directory, graph symbol) -> a bundle's member loaded with another
        self._bundle_use: dict = {}  # bundle content digest -> [bytes, members, names used]
        self._disk = _UNSET  # the structure cache's folder names a digest of Nabla's sources: found on first use
        kernels = kernel_cache_dir()
        self.kernel_disk = None if kernels is None else ModelDiskCache(kernels)  # for named models
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
            from max import engine

            from .context import cpu

            self._session = engine.InferenceSession(devices=_session_devices(cpu()))
        return self._session

    @property
    def interpreter(self):
        if self._interpreter is None:
            from .interpreter import new_interpreter

            self._interpreter = new_interpreter()
        return self._interpreter

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
                        busy = [e for e in (self._in_flight.get(id(v)) for v in outputs) if e is not None]
                        if busy and fast_only:
                            return False
                        job = None if busy else self._start(outputs, compiled_here, fast_only, staged)
                        split = job is _SPLIT or isinstance(job, _Stages)
                        if job is None and not busy:
                            return not fast_only  # computed under the lock by the interpreter
                        if not busy and not split and not isinstance(job, Future):
                            for v in outputs:
                                self._in_flight[id(v)] = done
                            claimed = outputs
                            break
                    if isinstance(job, _Stages):  # earlier stages first, then the rest (traced again)
                        for stage in job:  # a value, or the values of one node read together
                            if not self.run(stage if isinstance(stage, list) else [stage], fast_only,
                                            staged=True):
                                return False  # a probe's stage the fast paths do not serve
                    elif split:  # kernel nodes first, each alone, then the rest (traced again)
                        self._run_single_ops_first(outputs)
                    elif busy:  # another thread is computing some of them: wait for it, then look again
                        busy[0].wait()
                    else:  # a compile this structure must have: wait for it without the lock
                        t0 = time.perf_counter()
                        progress.wait(job, getattr(job, "nabla_what", "a model"))
                        compiled_here = True
                        with self._lock:
                            self.stats.compile_seconds += time.perf_counter() - t0
                run, buffers = job
                t0 = time.perf_counter()
                results = memory_check.checked_run(run, buffers, describe_outputs(claimed)) if self.debug_memory \
                    else run(buffers)
                elapsed = time.perf_counter() - t0
        finally:
            if claimed:  # also on an interrupt: nothing stays marked as being computed
                with self._lock:
                    if results is not None:
                        self.stats.execute_seconds += elapsed
                        _write_back(claimed, results)
                    for v in claimed:
                        self._in_flight.pop(id(v), None)
                done.set()
        return True

    def _run_single_ops_first(self, outputs) -> None:
        """Realize the nodes of ops marked ``single_op`` (kernels with first-sight models of their
        own) apart from the rest of the trace, inputs first: each then runs alone on its model,
        where inside a joint graph MAX's interpreter would bind the kernel (seconds per process)."""
        found: dict[int, list] = {}  # kernel node -> its values the trace uses
        nodes: dict[int, object] = {}
        seen: set[int] = set()
        stack = [v for v in outputs if v.node is not None]
        while stack:
            v = stack.pop()
            n = v.node
            if n is None:
                continue
            if n.op.single_op:
                vals = found.setdefault(id(n), [])
                if all(u is not v for u in vals):
                    vals.append(v)
                nodes[id(n)] = n
            if id(n) not in seen:
                seen.add(id(n))
                stack.extend(n.inputs)
        for key, n in nodes.items():
            pending = [v for v in n.inputs if v.node is not None]
            if pending:
                self.run(pending)  # upstream work (and upstream kernels) first
            self.run([v for v in found[key] if v.node is not None])

    def _start(self, outputs, compiled_here: bool = False, fast_only: bool = False, staged: bool = False):
        """Under the lock: key the trace and run it with the interpreter (None), or return
        ``(run, buffers)`` for ``run(buffers)`` outside the lock (a compiled model or the fused
        kernel), or a compile's Future to wait for."""
        if all(0 in v.shape for v in outputs):  # nothing to compute: an empty result is its shape
            return (lambda _: [_empty(v) for v in outputs]), []
        # a probe (a read that may run alone while other work is pending) gives up on a long trace:
        # that work is then nearly always shared with the rest, and tracing it twice costs more
        traced = self.trace(outputs, limit=_PROBE_NODES if fast_only else None)
        if traced is None:
            return None
        program_key = traced.key  # slice starts are data of a program, not its structure: not in this key
        if traced.starts:  # every other path keys them too (a compiled model or a graph holds them)
            traced = traced._replace(key=program_key + (("starts", tuple(sorted(traced.starts.items()))),))
        key, leaves = traced.key, traced.leaves
        if SEVERAL_DEVICES.in_use and on_virtual_devices(traced):
            return None if fast_only else self._interpret_over_devices(traced, outputs)
        # MAX's interpreter and Nabla's fused kernel run on the CPU: a trace that touches an
        # accelerator is compiled, as under the "compile" policy
        accelerated = on_accelerators(leaves, outputs)
        compiling = self.policy == "compile" or accelerated
        stages = None  # the first-sight path's stages, once asked
        if fast_only and not staged and len(traced.order) > len(outputs) \
                and shares_inner_values(traced.order, outputs):
            return None  # a probe that would leave shared work pending
        if not (compiling or traced.starts or traced.single_op_nodes) and self.first_sight is not None:
            # a structure the program kernel has run before (a loop's read): straight to its plan
            entry = self._cache.get(key)
            run = None if entry is None or entry.model is not None or entry.interpreter_refused \
                else self._program_run(entry, traced, outputs, planned_only=True)
            if run is not None:
                self._cache.move_to_end(key)
                return self._program_hit(entry, run, leaves)
        if traced.starts:  # one program serves every set of starts: its entry is keyed without them
            by_shape = self._cache.get(program_key)
            if by_shape is None and not fast_only and not compiling:
                by_shape = self._cache.setdefault(program_key, _Entry(program_key))
            run = None if by_shape is None or compiling else self._program_run(by_shape, traced, outputs)
            if run is not None:
                return self._program_hit(by_shape, run, leaves)
            traced = traced._replace(starts=False)  # (the program kernel was asked: not again below)
        apart = traced.single_op_nodes and len(traced.order) > 1 and not fast_only and self.fused_enabled \
            and self.first_sight is not None and not compiling
        if apart and not self.first_sight.computes_kernel_nodes(traced.order):
            return _SPLIT  # a kernel node among others: realize it apart, alone (see run)
        entry = self._cache.get(key)
        if entry is None and fast_only and accelerated:
            return None  # a probe: only a compiled model would serve it at once
        if entry is None and fast_only:  # a probe: remembered only if the fused kernel takes it
            entry = _Entry(key)
            if not callable(self._fused_run(entry, traced, outputs)):
                return self._probe_stages(entry, traced, outputs)
        if entry is None or key not in self._cache:
            entry = self._cache.setdefault(key, entry or _Entry(key))
            if len(self._cache) > _MAX_CACHE_ENTRIES:
                self._unload(self._cache.popitem(last=False)[1])
            # a structure the fused kernel runs is never compiled, so never on disk: the lookup
            # (a digest of the key, a stat: ~0.5 ms for an element check's key) would cost more
            # than the run; element-by-element checks meet thousands of such keys. A small one it
            # runs in stages is looked up at its second sight: most are met once
            if compiling or not callable(self._fused_run(entry, traced, outputs)):
                if compiling or element_count(leaves, outputs) > _SMALL_TRACE_ELEMENTS:
                    self._load_from_disk(entry)
                else:
                    stages = self._stages(entry, traced, outputs)  # (asked once: used below)
                    if not stages:
                        self._load_from_disk(entry)
        else:
            self._cache.move_to_end(key)
            if entry.model is None and (entry.nbytes < 0  # evicted from memory: it is on disk
                                        or (entry.digest is None and not fused_whole(entry, leaves))):
                self._load_from_disk(entry)
        entry.sightings += 1
        self._poll_compiles()
        buffers = [leaf.buffer for leaf in leaves]
        params = traced.params
        if entry.model is not None:
            self.stats.evaluations += 1
            self.stats.cache_hits += not compiled_here
            model = entry.model
            return (lambda b: execute(model, b)), buffers + self._param_buffers(params) + self.signal_buffers(traced.order)

        def build(symbolic):
            return self._lower(traced, outputs, symbolic)

        fused = None if entry.interpreter_refused or compiling else \
            self._fused_run(entry, traced, outputs)
        if isinstance(fused, Future):  # the fused kernel is being compiled (once per machine)
            if not fast_only and not self.interpreter_warm:
                return fused  # cold interpreter: waiting for the kernel costs least
            fused = None
        if fused is not None:  # near compiled speed already: this structure is never compiled
            self.stats.evaluations += 1
            self.stats.fused += 1
            return fused, buffers
        if fast_only:
            entry.sightings -= 1  # only a probe
            return self._probe_stages(entry, traced, outputs)
        if stages is None:
            stages = [] if compiling else self._stages(entry, traced, outputs)
        repeated = self.policy == "auto" and entry.sightings >= 2 and not staged and entry.compiling is None \
            and not entry.compile_failed and time.monotonic() - _STARTED >= _COMPILE_AFTER_S
        parts = None
        if not stages and len(traced.order) > 1 and self.first_sight is not None and self.fused_enabled \
                and self.single_op_models and not compiling:
            parts = self.first_sight.split(self, traced.order, outputs)
        if parts or stages:
            if repeated and entry.sightings >= _STAGED_SIGHTS:
                self._compile_future(entry, build)  # in the background; until it lands, first sight serves
            # node by node on single-op models this machine has compiled (no interpreter, no compile),
            # or the fused kernel's parts in stages (each stage, and the rest, choose their own path)
            return _Stages(parts or stages)
        if apart:  # kernel nodes the fused kernel computes, in a trace it could not take: apart after all
            return _SPLIT
        # (asked only now: finding out whether MAX's interpreter is warm imports it, ~0.7 s)
        if not compiling and self.first_sight is not None and self.fused_enabled and not self.interpreter_warm:
            self.first_sight.prepare(self)  # a cold machine needs the kernels: compile them now
        if compiling or self._must_compile(entry):
            return self._compile_future(entry, build)
        if repeated:
            self._compile_future(entry, build)
        results = self._interpret(entry, build, tuple(leaf.shape for leaf in leaves),
                                  buffers + self._param_buffers(params) + self.signal_buffers(traced.order))
        if results is None:  # refused: this structure must be compiled
            return self._compile_future(entry, build)
        self.stats.evaluations += 1
        self.stats.interpreted += 1
        _write_back(outputs, results)
        return None

    def _interpret_over_devices(self, traced, outputs):
        """A trace over virtual CPU devices (a mesh of ``virtual_cpus``): MAX's compiled models
        refuse devices ``cpu:i`` (i >= 1) and the fused kernel knows one device, so it runs on
        MAX's interpreter, which places each value on its device."""
        key, leaves = traced.key, traced.leaves
        entry = self._cache.get(key)
        if entry is None:
            entry = self._cache.setdefault(key, _Entry(key))
        results = self._interpret(entry, lambda symbolic: self._lower(traced, outputs, symbolic),
                                  tuple(leaf.shape for leaf in leaves),
                                  [leaf.buffer for leaf in leaves] + self._param_buffers(traced.params)
                                  + self.signal_buffers(traced.order))
        if results is None:
            raise RealizationError(f"nabla: MAX's interpreter cannot run this trace over virtual CPU devices "
                                   f"(ops: {entry.op_names}); such meshes run what the interpreter runs")
        self.stats.evaluations += 1
        self.stats.interpreted += 1
        _write_back(outputs, results)
        return None

    def on_virtual_devices(self, traced) -> bool:
        return SEVERAL_DEVICES.in_use and on_virtual_devices(traced)

    def interpreted_model(self, graph):
        """A stand-in for a compiled model of ``graph`` (one over virtual CPU devices, which MAX's
        compiled sessions refuse): each ``execute`` runs it on MAX's interpreter."""
        return _Interpreted(self, graph)

    def _fused_run(self, entry, traced, outputs):
        """A function of the leaf buffers that runs this trace on the fused kernel, or the Future
        of the kernel's compile, or None."""
        path = self.first_sight
        if path is None or not self.fused_enabled:
            return None
        leaves, node_ids = traced.leaves, traced.node_ids
        if traced.starts is not False:
            run = self._program_run(entry, traced, outputs)
            if run is not None:
                return run
        # a plan holds sizes (a broadcast input's layout, a reduction's extent) while the key may
        # hold symbolic dims: one plan per set of leaf shapes
        plans = entry.fused
        if plans is None:
            plans = entry.fused = {}
        shapes = tuple(leaf.shape for leaf in leaves)
        plan = plans.get(shapes)
        if plan is None:
            plan = plans[shapes] = path.plan(traced.order, leaves, outputs, node_ids, traced.leaf_ids) or False
            if len(plans) > 8:
                plans.pop(next(iter(plans)))
        if plan is False:
            return None
        model = path.model(self, plan)
        if model is None or isinstance(model, Future):
            return model
        shape = outputs[0].shape
        values = {node_ids[id(n)]: data[0] for n, data in traced.params}
        return lambda buffers: plan.run(model, buffers, shape, values)

    def _program_hit(self, entry, run, leaves):
        """``_start``'s answer for a trace its program runs: counted, with the leaves' buffers."""
        entry.sightings += 1
        self.stats.evaluations += 1
        self.stats.fused += 1
        return run, [leaf.buffer for leaf in leaves]

    def _program_run(self, entry, traced, outputs, planned_only: bool = False):
        """A function of the leaf buffers that runs the whole trace as one program of stages on the
        program kernel, one call (``nabla.runtime.program``); None where the kernel cannot."""
        programs = self.programs
        if programs is None or not self.fused_enabled:
            return None
        leaves, node_ids = traced.leaves, traced.node_ids
        plans = entry.program
        if plans is None:
            plans = entry.program = {}
        shapes = tuple(leaf.shape for leaf in leaves)
        plan = plans.get(shapes)
        if plan is None:
            if planned_only:
                return None
            plan = plans[shapes] = programs.plan(traced.order, leaves, outputs, node_ids) or False
            if len(plans) > 8:
                plans.pop(next(iter(plans)))
        if plan is False or not programs.ready():
            return None
        values = {node_ids[id(n)]: data[0] for n, data in traced.params} if traced.params else None
        starts = traced.starts
        return lambda buffers: plan.run(buffers, values, starts)

    def _probe_stages(self, entry, traced, outputs):
        """A probe's answer for a trace the first-sight path runs in stages (``all(isnan(a) ==
        isnan(b))``: a count, then its test): the stages, each probed in turn, so that the read
        runs as its own programs while the other pending work, which shares none of it (see
        ``shares_inner_values``), waits for its own read; None when there are none."""
        stages = self._stages(entry, traced, outputs)
        return _Stages(stages) if stages else None

    def _stages(self, entry, traced, outputs) -> list:
        """The values the first-sight path would realize first so that more of the trace runs on
        it (a reduction that feeds more work, a matmul's elementwise operands); [] when none."""
        path = self.first_sight
        if path is None or not self.fused_enabled or self.policy == "compile" or entry.interpreter_refused:
            return []
        return path.stages(traced.order, outputs)

    def _must_compile(self, entry) -> bool:
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
            try:
                from max._interpreter_ops import gc_compile

                self._interpreter_warm = bool(gc_compile.warm_stamp_matches())
            except Exception:  # MAX's internals moved: assume warm (first sight interprets)
                self._interpreter_warm = True
        return self._interpreter_warm

    def _interpret(self, entry, build, shapes, buffers):
        """MAX's eager interpreter on concrete buffers; None when it cannot run this graph."""
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
    from max import driver

    return driver.Buffer(v.dtype.max_dtype, tuple(v.shape), device=driver_device(v.device))


class _Interpreted:
    def __init__(self, engine, graph):
        self.engine, self.graph = engine, graph

    def execute(self, *buffers):
        with mlir_context(), self.engine._lock:
            return self.engine.interpreter.execute(self.graph, list(buffers))


def _write_back(outputs, results) -> None:
    for v, buf in zip(outputs, results):
        v.buffer = buf  # the buffer first: a value whose node is None always holds one
        v.node = None


def _session_devices(default):
    from max import driver

    devs = [default]
    devs += [driver.Accelerator(i) for i in range(driver.accelerator_count())]
    return devs
