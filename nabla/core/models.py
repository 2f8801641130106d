"""Compiled models: background compiles and where they land, the byte budget of the loaded ones
(least recently used evicted to disk), the on-disk cache, and single-op models (kept by name).

``ModelStore`` is the engine's half that owns models; the engine (``engine.py``) decides what to run.
Both work under the engine's one lock (see engine.py's docstring).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import time
import uuid
from concurrent import futures

# (MAX enters its default MLIR context on the thread that imports this module and leaves it at exit
# on the main thread: imported at a worker thread's first read, as it was, every program that read
# first from a thread ended with "RuntimeError: Unbalanced Context enter/exit". Imported with
# nabla, on the thread that imports it, ~8 ms.)
from max._mlir_context import ensure_default_mlir_context as _ensure_mlir_context
from max.mlir import Context as _MLIR_CONTEXT

from .compiler import ON_DISK
from .disk_cache import ModelDiskCache

#: resident memory one loaded model costs beyond its MEF file (see docs/realization.md)
_MODEL_OVERHEAD_BYTES = 4 << 20
#: the first item of a single-op model's key (a structure's key starts with a tuple); part of the
#: model's disk digest, so a new spelling renames every single-op model on disk
_SINGLE_OP = "single_op"



class RealizationError(RuntimeError):
    """Nabla failed to lower or run a trace that passed eager checks: a bug in Nabla."""


class _Entry:
    __slots__ = ("key", "model", "nbytes", "sightings", "compiling", "compile_failed", "error",
                 "interpreter_refused", "static_graphs", "digest", "fused", "saved_bytes", "program",
                 "touched")

    def __init__(self, key):
        self.key = key
        self.model = None
        self.nbytes = 0  # charged against the engine's byte budget while ``model`` is loaded
        self.sightings = 0
        self.compiling = None  # Future of a background compile
        self.compile_failed = False  # a compile failed: keep interpreting
        self.error = None  # why it failed
        self.interpreter_refused = False  # the interpreter cannot run it: it must be compiled
        self.static_graphs = None  # leaf shapes -> MAX graph with static dims, for the interpreter
        self.digest = None  # the key's disk-cache name, once computed
        self.fused = None  # leaf shapes -> the fused kernel's plan for them, False where it does not fit
        self.saved_bytes = 0  # the size of its compiled model's file, once published to disk
        self.program = None  # leaf shapes -> the program kernel's plan for them, False where it has none
        self.touched = 0  # the engine's count of cache uses when it last moved to the cache's end

    @property
    def op_names(self) -> list:
        return sorted({sig[0].name for sig in self.key[0]})


def _bytes_budget() -> int:
    text = os.environ.get("NABLA_MODEL_CACHE_BYTES", "")
    return int(float(text)) if text else 2 << 30


def mlir_context():
    """Enter MAX's default MLIR context on this thread (MLIR's current context is thread-local);
    a thread that has one (the main thread always does) enters nothing."""
    return _ENTERED if _MLIR_CONTEXT.current is not None else _ensure_mlir_context()


_ENTERED = contextlib.nullcontext()


def execute(model, buffers) -> list:
    """``model.execute(*buffers)`` for buffers Nabla made (contiguous ``Buffer``s, as MAX needs):
    MAX's Python wrapper converts and checks each argument and opens a profiling span, ~10 us of a
    ~50 us run with the fused kernel's ten operands; its native call is what runs."""
    native = getattr(model, "_execute_device_tensors", None)
    return native(list(buffers)) if native is not None else model.execute(*buffers)


class ModelStore:
    """Models by structure key (``self._cache``, an LRU) and single-op models by name, compiled in
    the background worker (``self.compiler``), charged against ``max_model_bytes``, saved to and
    read from disk."""

    def single_op_model(self, name: str, build, compile: bool = True):
        """The single-op model ``name``, built by ``build()`` and compiled once per machine in the
        background (then loaded from disk); until it has landed, the Future of its compile (None if
        that failed).
        ``compile=False``: only a model already compiled (in memory or on disk), else None."""
        with self._lock:
            entry = self._single_op_entries.get(name)
            if entry is None:
                entry = self._single_op_entries[name] = _Entry((_SINGLE_OP, name))
                self.load_from_disk(entry)
            elif entry.model is None and entry.compiling is None and not entry.compile_failed:
                self.load_from_disk(entry)  # published since (the detached compiler): a stat when not
            if not compile and entry.compiling is None:
                return entry.model
            if entry.model is None and entry.compiling is None and not entry.compile_failed:
                with mlir_context():
                    job = self._serialize(build())
                self._track(entry, self._compile_once_per_machine(entry, job))
            return entry.model if entry.model is not None else entry.compiling

    def _compile_once_per_machine(self, entry, job) -> futures.Future:
        """The compile of a model, published to disk as soon as it ends. Its claim in the disk cache
        makes it once per machine: where another process compiles the same model (test workers, or
        a pool's or Dask's workers warming the same kernels, meeting the same structures), this
        process compiles others meanwhile and then reads that one from disk; it compiles the model
        itself only if that process ends without publishing it."""
        disk = self._disk_of(entry)
        if disk is None:
            return self.compiler.submit(*job)
        digest = self._digest(entry)
        claim = disk.claim(digest)
        fut = self.compiler.submit(*job, claim=claim, published=lambda: disk.path_of(digest) is not None)

        def publish(done):  # (on the compiler's thread, before the landing queue hears of it)
            try:
                compiled = done.result()
                if compiled is not ON_DISK:
                    entry.saved_bytes = disk.save(digest, compiled.export_mef)
            except BaseException:  # noqa: BLE001 - the failure lands with the model
                pass
            finally:
                if claim is not None:
                    claim.release()

        fut.add_done_callback(publish)
        return fut

    def single_op_model_known(self, name: str) -> bool:
        """Whether the single-op model ``name`` is loaded or on disk, without loading it (a bundle
        costs ~2.3 ms per MB to load: a trace that only asks whether its nodes have models, and
        runs most of them on the fused kernel, must not pay for theirs)."""
        with self._lock:
            entry = self._single_op_entries.get(name)
            if entry is None:
                entry = self._single_op_entries[name] = _Entry((_SINGLE_OP, name))  # its first lookup loads it
            elif entry.model is not None:
                return True
            disk = self.single_op_disk
            if disk is None or entry.compile_failed:
                return False
            digest = self._digest(entry)
            return (disk.directory, bundle_symbol(digest)) in self._bundled or disk.path_of(digest) is not None

    def compile_future(self, entry, build):
        if entry.compiling is None:
            if entry.compile_failed:  # it must be compiled, and compiling it failed
                raise RealizationError(
                    "nabla: MAX could not compile a trace that passed Nabla's checks; this is a bug in "
                    f"Nabla (ops: {entry.op_names})") from entry.error
            with mlir_context():
                job = self._serialize(build(True))
            self._track(entry, self._compile_once_per_machine(entry, job))
        return entry.compiling

    def _track(self, entry, fut) -> None:
        """``entry``'s compile is ``fut``: it joins the landing queue when it ends (the compiler's
        thread tells), so a poll looks at what has ended, not at every compile under way."""
        entry.compiling = fut
        fut.nabla_what = (f"Nabla's single-op model {entry.key[1]}" if entry.key[0] == _SINGLE_OP
                          else f"a model of {', '.join(entry.op_names)}")  # (what a wait on it says)
        self._compiling[id(entry)] = entry
        fut.add_done_callback(lambda _, entry=entry: self._landed.append(entry))

    def _serialize(self, graph):
        return graph._module.bytecode, list(graph.kernel_libraries_paths)

    def compile_graph(self, graph):
        """Compile a MAX graph in the worker and load it here (for ``nabla.compile``)."""
        with mlir_context():
            fut = self.compiler.submit(*self._serialize(graph))
        self.compiler.urge(fut)  # (the caller waits for it)
        t0 = time.perf_counter()
        compiled = fut.result()
        with self._lock:
            self.stats.compile_seconds += time.perf_counter() - t0
            self.stats.compiles += 1
            return self.session.init(compiled)

    def _land(self, entry, compiled) -> None:
        try:
            model = self.session.init(compiled)
        except Exception as e:
            entry.compile_failed, entry.error = True, e
            return
        self.stats.compiles += 1
        nbytes = entry.saved_bytes  # (published when its compile ended)
        entry.saved_bytes = 0
        self._charge(entry, model, nbytes)

    def poll_compiles(self) -> None:
        """Land the background compiles that have finished (called on every realization: an
        element-by-element check queues hundreds of compiles, and asking each of them whether it
        has ended would cost more than many of the runs)."""
        while self._landed:
            entry = self._landed.popleft()
            fut = entry.compiling
            if self._compiling.pop(id(entry), None) is None or fut is None:
                continue
            entry.compiling = None
            try:
                compiled = fut.result()
            except Exception as e:  # a failed compile falls back to the interpreter where it can
                entry.compile_failed, entry.error = True, e
                continue
            if compiled is ON_DISK:  # another process compiled it
                self.load_from_disk(entry)
                if entry.model is None:
                    entry.compile_failed = True
                    what = entry.key[1] if entry.key[0] == _SINGLE_OP else ", ".join(entry.op_names)
                    entry.error = RuntimeError(f"nabla: the model ({what}) another process compiled was unreadable")
                continue
            self._land(entry, compiled)

    def compiles_under_way(self) -> bool:
        """Whether a single-op model is being compiled in this process now."""
        with self._lock:
            return any(e.model is None and e.compiling is not None for e in self._single_op_entries.values())

    def wait_for_compiles(self) -> None:
        """Block until every background compile has landed."""
        with self._lock:
            pending = list(self._compiling.values())
        futures.wait([e.compiling for e in pending if e.compiling is not None])
        while True:  # a Future wakes its waiters before its callbacks tell the landing queue
            with self._lock:
                self.poll_compiles()
                if not any(id(e) in self._compiling for e in pending):
                    return
            time.sleep(0.001)

    # --- memory: loaded models within a byte budget, the rest on disk --------------
    def _charge(self, entry, model, file_bytes: int) -> None:
        self._unload(entry)
        entry.model = model
        entry.nbytes = file_bytes + _MODEL_OVERHEAD_BYTES
        self._model_bytes += entry.nbytes
        if self._model_bytes > self.max_model_bytes:
            for other in list(self._cache.values()):  # least recently used first
                if self._model_bytes <= self.max_model_bytes:
                    break
                if other is not entry and other.model is not None:
                    self._unload(other)
                    self.stats.evictions += 1

    def drop_models(self) -> None:
        """Evict every structure's compiled model from memory (each is read back from disk at its
        next sight): what a new process meets, for tests of the disk path."""
        with self._lock:
            for entry in self._cache.values():
                self._unload(entry)

    def _unload(self, entry) -> None:
        if entry.model is not None:
            self._model_bytes -= entry.nbytes
            entry.model = None
            entry.nbytes = -1  # evicted: the next sight loads it from disk

    # --- compiled models on disk ---------------------------------------------------
    def _digest(self, entry) -> str:
        if entry.digest is None:
            entry.digest = ModelDiskCache.key_digest(_stable_text(entry.key))
        return entry.digest

    def _disk_of(self, entry):
        """Single-op models are machine-wide; structures go with Nabla's sources."""
        return self.single_op_disk if entry.key[0] == _SINGLE_OP else self.disk

    def load_from_disk(self, entry) -> None:
        disk = self._disk_of(entry)
        if disk is None:
            return
        if entry.key[0] == _SINGLE_OP:
            model, use = self._bundled.pop((disk.directory, bundle_symbol(self._digest(entry))), (None, None))
            if model is not None:  # loaded beside another member of its bundle
                if entry.key[1] not in use[2]:
                    use[2].append(entry.key[1])
                self._charge(entry, model, 0)
                return
        found = disk.load(self._digest(entry), lambda path, data: self._read(entry, disk, path, data))
        if found is not None:
            model, nbytes = found
            self._charge(entry, model, nbytes)
            self.stats.disk_loads += entry.key[0] != _SINGLE_OP  # structures only

    def _read(self, entry, disk, path, data):
        """The model in an MEF file; for a single-op model the file may be a bundle (several models
        compiled as one module: see ``nabla/runtime/single_op.py``), whose other members are kept
        for their own lookups."""
        # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
        from max import engine

        compiled = engine.read(io.BytesIO(data))
        if entry.key[0] != _SINGLE_OP:
            return self.session.init(compiled)
        models = self.session.init_all(compiled)
        if len(models) == 1:
            return next(iter(models.values()))
        renamed = _bundle_names(path)  # member's graph name -> its name in the file
        symbol = bundle_symbol(self._digest(entry))
        mine = models.pop(renamed.get(symbol, symbol))
        ours = {theirs: member for member, theirs in renamed.items()}
        use = self._bundle_use.setdefault(path.name.split(".")[1], [len(data), len(models) + 1, []])
        if entry.key[1] not in use[2]:  # (loaded again after an eviction)
            use[2].append(entry.key[1])
        for symbol, model in models.items():
            self._bundled.setdefault((disk.directory, ours.get(symbol, symbol)), (model, use))
        return mine

    def wasteful_bundles(self, min_bytes: int) -> list:
        """``(content digest, names used)`` of each bundle this process loaded whose unused
        members made at least ``min_bytes`` of it (a member's share taken as even): MAX loads a
        bundle whole, ~2.3 ms per MB here, so a bundle of heavy members met for one of them is
        paid for all of them in every process (see ``nabla/runtime/single_op.py``'s ``_regroup``)."""
        with self._lock:
            return [(content, list(used)) for content, (nbytes, members, used) in self._bundle_use.items()
                    if nbytes * (members - len(used)) >= min_bytes * members]


def _names_file(path):
    """Beside a bundle (``<key>.<content>.mef``): which graph name stands for which member, when
    the file holds other names (named by content, so every alias of the file finds it)."""
    return path.parent / f"{path.name.split('.')[1]}.names.json"


def write_bundle_names(path, names: dict) -> None:
    target = _names_file(path)
    staged = target.parent / f".{target.name}.{uuid.uuid4().hex[:8]}"
    staged.write_text(json.dumps({**_bundle_names(path), **names}))  # (renamed members of earlier bundles too)
    os.replace(staged, target)


def _bundle_names(path) -> dict:
    try:
        return json.loads(_names_file(path).read_text())
    except (OSError, ValueError):
        return {}


def bundle_symbol(digest: str) -> str:
    """The graph name of a single-op model (by its disk digest) inside a bundle."""
    return "k" + digest


def single_op_digest(name: str) -> str:
    """The disk-cache key of the single-op model ``name``."""
    return ModelDiskCache.key_digest(_stable_text((_SINGLE_OP, name)))


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
