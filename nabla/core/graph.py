"""The recorded trace and the realization engine.

Ops record a light trace of ``Node``s and ``Value``s (about a microsecond each)
instead of MAX graph nodes (about 130 us each). When data is needed, the
``ComputeGraph`` gathers every pending value, keys the trace by its structure,
and runs it through a cached compiled model, or builds a MAX graph on a miss.
See docs/realization.md for the policy.
"""

from __future__ import annotations

import collections
import hashlib
import os
import struct
import threading
import time
import weakref
from dataclasses import dataclass, fields
from pathlib import Path

_MAX_CACHE_ENTRIES = 4096


class Node:
    """One recorded operation call: the op singleton, its static kwargs, its input values."""

    __slots__ = ("op", "kwargs", "inputs", "treedef", "__weakref__")

    def __init__(self, op, kwargs: dict, inputs: tuple, treedef=None):
        self.op = op
        self.kwargs = kwargs
        self.inputs = inputs
        self.treedef = treedef  # structure of the op's tensor args, when not flat


class Value:
    """A symbolic value: output ``index`` of ``node``; a leaf holding ``buffer`` once realized."""

    __slots__ = ("node", "index", "shape", "dtype", "device", "buffer", "__weakref__")

    def __init__(self, node, index, shape, dtype, device, buffer=None):
        self.node = node
        self.index = index
        self.shape = shape  # physical, concrete ints
        self.dtype = dtype  # nabla DType of the stored data
        self.device = device
        self.buffer = buffer

    @classmethod
    def leaf(cls, buffer, shape, dtype, device) -> "Value":
        return cls(None, 0, shape, dtype, device, buffer)


class RealizationError(RuntimeError):
    """Nabla failed to lower or run a trace that passed eager checks: a bug in Nabla."""


@dataclass
class EngineStats:
    """Counters of the realization engine (``nabla.engine_stats()``)."""

    evaluations: int = 0  # evaluate() calls that ran a graph
    cache_hits: int = 0  # runs served by an already compiled model
    interpreted: int = 0  # runs served by MAX's eager interpreter
    compiles: int = 0  # models compiled (foreground or background)
    compile_seconds: float = 0.0  # wall time of foreground compiles
    graph_builds: int = 0  # MAX graphs built from a trace (cache misses)
    symbolic_graphs: int = 0  # of those, built with symbolic dims
    disk_loads: int = 0  # compiled models read from the on-disk cache instead of compiled
    execute_seconds: float = 0.0  # time inside compiled models' execute (the kernels)
    cache_entries: int = 0  # filled in by engine_stats() from the cache itself

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


class _Entry:
    __slots__ = ("model", "sightings", "compiling", "compile_failed", "interpreter_refused", "key", "static_graphs")

    def __init__(self, key):
        self.key = key
        self.model = None
        self.sightings = 0
        self.compiling = False
        self.compile_failed = False  # a background compile failed: keep interpreting
        self.interpreter_refused = False  # the interpreter cannot run it: it must be compiled
        self.static_graphs = None  # leaf shapes -> MAX graph with static dims, for the interpreter


_POLICIES = ("auto", "compile", "interpret")


def _float_key(v):
    # -0.0 == 0.0, NaN != NaN, and float.hex() drops a NaN's sign: key floats by their bits.
    return ("f", struct.pack("<d", v).hex()) if isinstance(v, float) else v


def hashable_params(kwargs: dict) -> tuple:
    return tuple((k, _float_key(v)) for k, v in kwargs.items())


class Engine:
    """Structure-keyed cache of compiled MAX models, with an interpreter for first sight."""

    def __init__(self):
        self.stats = EngineStats()
        self._cache: collections.OrderedDict[tuple, _Entry] = collections.OrderedDict()
        self._queue: collections.deque = collections.deque()
        self._inflight = None  # (entry, CompiledModel)
        self._session = None
        self._interpreter = None
        self.policy = os.environ.get("NABLA_REALIZE", "auto")
        if self.policy not in _POLICIES:
            raise ValueError(f"NABLA_REALIZE={self.policy!r}: expected one of {_POLICIES}")
        self.symbolic_dims = os.environ.get("NABLA_SYMBOLIC_DIMS", "1") != "0"
        self.disk_cache = _default_disk_cache()
        self._lock = threading.RLock()

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
            from max.experimental.executor import InterpreterExecutor

            self._interpreter = InterpreterExecutor(max_ops=None)
        return self._interpreter

    # --- the trace ---------------------------------------------------------------
    def _trace(self, outputs):
        """Post-order the nodes behind ``outputs`` and key them by structure, in one pass.

        Leaves (realized values) are numbered by first use; a reference to a value is
        ``-1 - leaf`` or ``node << 16 | output_index``.
        """
        node_ids: dict[int, int] = {}
        leaf_ids: dict[int, int] = {}
        order: list = []
        leaves: list = []
        sigs: list = []
        polymorphic = self.symbolic_dims
        for out in outputs:
            if id(out.node) in node_ids:
                continue
            stack = [out.node]
            while stack:
                n = stack[-1]
                if id(n) in node_ids:
                    stack.pop()
                    continue
                refs = []
                waiting = False
                for v in n.inputs:
                    m = v.node
                    if m is None:
                        k = leaf_ids.get(id(v))
                        if k is None:
                            k = leaf_ids[id(v)] = len(leaves)
                            leaves.append(v)
                        refs.append(-1 - k)
                    else:
                        j = node_ids.get(id(m))
                        if j is None:
                            stack.append(m)
                            waiting = True
                        else:
                            refs.append((j << 16) | v.index)
                if waiting:
                    continue
                stack.pop()
                node_ids[id(n)] = len(order)
                order.append(n)
                op = n.op
                polymorphic = polymorphic and op.shape_polymorphic
                kw = n.kwargs
                sigs.append((op, hashable_params(kw) if kw else (), tuple(refs), n.treedef))

        sizes: dict[int, str] = {}
        leaf_sigs = []
        for leaf in leaves:
            dims = leaf.shape
            if polymorphic:
                dims = tuple(d if d <= 1 else sizes.setdefault(d, f"d{len(sizes)}") for d in dims)
            leaf_sigs.append((leaf.dtype, dims, leaf.device.label, leaf.device.id))
        out_refs = tuple(
            -1 - leaf_ids[id(v)] if v.node is None else (node_ids[id(v.node)] << 16) | v.index for v in outputs
        )
        key = (tuple(sigs), tuple(leaf_sigs), out_refs)
        return key, order, leaves, node_ids, leaf_ids, polymorphic, leaf_sigs

    # --- running -----------------------------------------------------------------
    def run(self, outputs: list) -> None:
        with self._lock:
            traced = self._trace(outputs)
            key, leaves = traced[0], traced[2]
            entry = self._cache.get(key)
            if entry is None:
                entry = self._cache[key] = _Entry(key)
                self._load_from_disk(entry)
                if len(self._cache) > _MAX_CACHE_ENTRIES:
                    self._cache.popitem(last=False)
            else:
                self._cache.move_to_end(key)
            entry.sightings += 1
            self._poll_compiles()
            buffers = [leaf.buffer for leaf in leaves]
            self.stats.evaluations += 1

            if entry.model is not None:
                self.stats.cache_hits += 1
                t0 = time.perf_counter()
                results = entry.model.execute(*buffers)
                self.stats.execute_seconds += time.perf_counter() - t0
            else:
                def build(symbolic: bool):
                    return self._lower(traced, outputs, symbolic)

                results = self._run_uncompiled(entry, build, buffers, tuple(leaf.shape for leaf in leaves))

        for v, buf in zip(outputs, results):
            v.buffer = buf
            v.node = None

    def _run_uncompiled(self, entry, build, buffers, shapes):
        policy = self.policy
        if (policy == "compile" and not entry.compile_failed) or entry.interpreter_refused:
            return self._compile_now(entry, build)(*buffers)
        if policy == "auto" and entry.sightings >= 2 and not (entry.compiling or entry.compile_failed):
            entry.compiling = True
            self._queue.append((entry, build(True)))
            self._poll_compiles()
        from max.experimental.executor import UnsupportedGraphError

        try:
            # the interpreter runs concrete buffers, and some of its kernels want static shapes
            graphs = entry.static_graphs
            if graphs is None:
                graphs = entry.static_graphs = {}
            graph = graphs.get(shapes)
            if graph is None:  # building a MAX graph costs more than interpreting a small one: keep it
                graph = graphs[shapes] = build(False)
                if len(graphs) > 8:
                    graphs.pop(next(iter(graphs)))
            results = self.interpreter.execute(graph, buffers)
            self.stats.interpreted += 1
            return results
        except UnsupportedGraphError:
            entry.interpreter_refused = True
        except RealizationError:
            raise
        except Exception as e:  # MAX's verifier or a kernel rejected what Nabla's checks let through
            raise RealizationError(
                "nabla: MAX rejected a trace that passed Nabla's checks; this is a bug in Nabla "
                f"(ops: {sorted({sig[0].name for sig in entry.key[0]})})") from e
        return self._compile_now(entry, build)(*buffers)

    def _compile_now(self, entry, build):
        if entry.model is None and entry.compiling:
            self.wait_for_compiles()
        if entry.model is None:
            t0 = time.perf_counter()
            try:
                compiled = self.session.compile(build(True))
                entry.model = self.session.init(compiled)
            except RealizationError:
                raise
            except Exception as e:
                entry.compile_failed = True
                raise RealizationError(
                    "nabla: MAX could not compile a trace that passed Nabla's checks; this is a bug in "
                    f"Nabla (ops: {sorted({sig[0].name for sig in entry.key[0]})})"
                ) from e
            self.stats.compile_seconds += time.perf_counter() - t0
            self.stats.compiles += 1
            self._save_to_disk(entry, compiled)
        return entry.model.execute

    def _poll_compiles(self, block: bool = False) -> None:
        while True:
            if self._inflight is not None:
                entry, compiled = self._inflight
                handle = compiled._compiled
                if not block and hasattr(handle, "done") and not handle.done():
                    return
                try:
                    entry.model = self.session.init(compiled)
                    self.stats.compiles += 1
                except Exception:  # a failed background compile falls back to the interpreter
                    entry.compile_failed = True
                else:
                    self._save_to_disk(entry, compiled)
                entry.compiling = False
                self._inflight = None
            if not self._queue:
                return
            entry, graph = self._queue.popleft()
            self._inflight = (entry, self.session.compile_async(graph))

    # --- compiled models on disk, shared by every process on this machine ------
    def _disk_path(self, entry) -> Path | None:
        if self.disk_cache is None:
            return None
        digest = hashlib.sha256(_stable_text(entry.key).encode()).hexdigest()[:40]
        return self.disk_cache / f"{digest}.mef"

    def _load_from_disk(self, entry) -> None:
        path = self._disk_path(entry)
        if path is not None and path.exists():
            try:
                entry.model = self.session.load(path)
                self.stats.disk_loads += 1
            except Exception:  # a stale or torn file is recompiled, not fatal
                path.unlink(missing_ok=True)

    def _save_to_disk(self, entry, compiled) -> None:
        path = self._disk_path(entry)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            compiled.export_mef(tmp)
            os.replace(tmp, path)  # atomic: readers never see half a file
        except OSError:
            pass

    def wait_for_compiles(self) -> None:
        """Block until every background compile has landed."""
        with self._lock:
            self._poll_compiles(block=True)

    # --- lowering to MAX -------------------------------------------------------
    def lower(self, outputs: list, symbolic: bool = True):
        """The MAX graph ``run`` would compile for ``outputs`` (symbolic dims where every op allows)."""
        with self._lock:
            return self._lower(self._trace(outputs), outputs, symbolic)

    def _lower(self, traced, outputs, symbolic):
        _, order, leaves, node_ids, leaf_ids, polymorphic, leaf_sigs = traced
        dims = [sig[1] for sig in leaf_sigs] if symbolic else [leaf.shape for leaf in leaves]
        return self._build(order, leaves, outputs, node_ids, leaf_ids, dims, symbolic and polymorphic)

    def _build(self, order, leaves, outputs, node_ids, leaf_ids, dims, symbolic):
        from max.graph import DeviceRef, Graph, TensorType

        self.stats.graph_builds += 1
        self.stats.symbolic_graphs += symbolic
        input_types = [
            TensorType(leaf.dtype.max_dtype, d, device=DeviceRef.from_device(leaf.device))
            for leaf, d in zip(leaves, dims)
        ]
        with Graph(f"nabla_{self.stats.graph_builds}", input_types=input_types) as g:
            leaf_vals = [inp.tensor for inp in g.inputs]
            env: list[list] = []

            def get(v):
                return leaf_vals[leaf_ids[id(v)]] if v.node is None else env[node_ids[id(v.node)]][v.index]

            for n in order:
                args = [get(v) for v in n.inputs]
                if n.treedef is not None:
                    args = n.treedef.unflatten(args)
                try:
                    out = n.op.maxpr(*args, **n.kwargs)
                except Exception as e:
                    raise RealizationError(
                        f"nabla: lowering {n.op.name} to MAX failed (inputs "
                        f"{[tuple(v.shape) for v in n.inputs]}, kwargs {n.kwargs}); this is a bug in Nabla"
                    ) from e
                env.append(list(out) if isinstance(out, (list, tuple)) else [out])
            g.output(*[get(v) for v in outputs])
        return g


def _default_disk_cache() -> Path | None:
    """``$NABLA_CACHE_DIR`` (``off`` disables), else ``~/.cache/nabla``; versioned by MAX's version."""
    root = os.environ.get("NABLA_CACHE_DIR")
    if root == "off":
        return None
    try:
        from importlib.metadata import version

        tag = f"max-{version('max')}"
    except Exception:
        tag = "max-unknown"
    base = Path(root) if root else Path.home() / ".cache" / "nabla"
    return base / tag / f"{_FORMAT}-{_lowering_digest()}"


_FORMAT = "v1"  # bump when the meaning of a structure key changes


def _lowering_digest() -> str:
    """A digest of Nabla's own sources: a key names ops, not how they lower, so models compiled
    by another version of the lowerings must not be found."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".mojo"):
            h.update(path.relative_to(root).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:12]


def _stable_text(obj) -> str:
    """A process-independent spelling of a structure key (ops, dtypes and devices by name)."""
    if isinstance(obj, tuple):
        return "(" + ",".join(_stable_text(o) for o in obj) + ")"
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return repr(obj)
    name = getattr(obj, "name", None)
    kind = type(obj)
    if hasattr(obj, "maxpr"):
        return f"op:{kind.__module__}.{kind.__qualname__}:{name}"
    if hasattr(obj, "label") and hasattr(obj, "id"):
        return f"dev:{obj.label}:{obj.id}"
    if isinstance(name, str):
        return f"{kind.__qualname__}:{name}"
    return f"{kind.__qualname__}:{obj!r}"


def _session_devices(default):
    from max import driver

    devs = [default]
    devs += [driver.Accelerator(i) for i in range(driver.accelerator_count())]
    return devs


class ComputeGraph:
    """Process-wide record of pending work; ``epoch`` counts evaluations."""

    def __init__(self):
        self.epoch = 0
        # weakrefs without callbacks, in creation order: cheaper than a WeakSet on the recording
        # path, and the order (which fixes the structure key) does not depend on memory reuse
        self._pending: list[weakref.ref] = []
        self._purge_at = 4096
        # tensors whose realization raised: left out of later joint runs, so one bad
        # expression cannot block every other read (reading one again re-raises)
        self._failed = weakref.WeakSet()
        self.engine = Engine()

    def add_pending(self, impl) -> None:
        pending = self._pending
        pending.append(weakref.ref(impl))
        if len(pending) > self._purge_at:
            self._purge()

    def _purge(self) -> None:
        self._pending = [r for r in self._pending if (i := r()) is not None and not i.is_realized]
        self._purge_at = max(4096, 2 * len(self._pending))

    def _live_pending(self) -> list:
        failed = self._failed
        return [i for i in (r() for r in self._pending)
                if i is not None and not i.is_realized and i not in failed]

    @property
    def num_pending(self) -> int:
        return len(self._live_pending())

    def evaluate(self, requested=None) -> None:
        """Realize every live unrealized tensor in one MAX graph (``requested`` among them)."""
        impls = self._live_pending()
        if requested is not None and requested not in impls:
            impls.append(requested)
        try:
            self._run(impls)
        except Exception:
            if requested is None or len(impls) == 1:
                raise
            # something in the batch failed: the tensor being read gets a run of its own
            try:
                self._run([requested])
            except Exception:
                self._failed.add(requested)
                raise
            self.epoch += 1
            return
        self._pending = []
        self._purge_at = 4096
        self.epoch += 1

    def _run(self, impls) -> None:
        outputs, seen = [], set()
        for impl in impls:
            for v in impl._values:
                if v.node is not None and id(v) not in seen:
                    seen.add(id(v))
                    outputs.append(v)
        if outputs:
            self.engine.run(outputs)


GRAPH = ComputeGraph()


def engine_stats() -> dict:
    """Counters of the realization engine: evaluations, cache hits, interpreted runs, compiles."""
    GRAPH.engine.stats.cache_entries = len(GRAPH.engine._cache)
    return GRAPH.engine.stats.as_dict()


def reset_engine_stats() -> None:
    GRAPH.engine.stats = EngineStats(cache_entries=len(GRAPH.engine._cache))
