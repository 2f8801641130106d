"""The detached compiler of single-op models (``python -m nabla.runtime.single_op_compiler LOCK
CACHE_DIR``): a nice-19 process that drains the specs exiting processes queued in the kernel cache
(``single_op._compile_elsewhere``), most useful first, compiling them in bundles. What a model
computes is decided in ``single_op.py``; this file only schedules and builds, so neither is part
of the digests that name the models.
"""

from __future__ import annotations

import collections
import hashlib
import json
import os
import sys
import time
from pathlib import Path

from ..core.disk_cache import ModelDiskCache
from .single_op import KERNEL, ONE_SHAPE, QUEUED, _decode, queue, _digest_of, _graph, _ops_digest
from ..core import dtypes as _dt
from ..core.graph import GRAPH
from ..core.models import bundle_symbol, mlir_context, single_op_digest, write_bundle_names
from ..ops import registry
from ..ops.custom_kernels import PACKAGES, kernel_digest


def _sources_changed() -> bool:
    """Whether the lowerings or a kernel package changed since this process computed their digests
    (the detached compiler outlives edits)."""
    return _ops_digest.__wrapped__() != _ops_digest() or any(
        kernel_digest.__wrapped__(p) != kernel_digest(p) for p in PACKAGES)


def _priority(spec: dict, misses: int, arrival: int) -> tuple:
    """The detached compiler's order, first first: kernels' models (each miss binds a kernel in
    MAX's interpreter, seconds), then the models processes missed most often, then those serving
    every size, then the oldest. Misses count each time a trace needed the model, not once per
    process: the per-element checks of array-api-tests run a 0-d ``equal`` or ``isnan`` hundreds of
    times per example (milliseconds each interpreted, complex the slowest), and ordered by class
    and process count alone those models would wait behind a thousand models needed once."""
    reuse = spec.get("reuse", ONE_SHAPE)
    return bool(spec.get("regroup")), reuse != KERNEL, -misses, reuse, arrival


def _batch(order: list, pending: dict, origin: dict, first: dict) -> list:
    """The next bundle: the first spec in ``order`` and, of its class (kernels bundle apart), the
    specs the same process queued that it met nearest to it. A process loads a bundle whole
    (see ``_BUNDLE``), so its members should be models one workload uses together: bundled in
    the machine-wide order, a script's models would share files with whatever other processes
    missed as often."""
    top = order[0]
    kernel = pending[top].get("reuse", ONE_SHAPE) == KERNEL
    mates = [n for n in order[1:] if origin[n] == origin[top]
             and (pending[n].get("reuse", ONE_SHAPE) == KERNEL) == kernel]
    mates.sort(key=lambda n: abs(first[n] - first[top]))  # stable: in ``order`` among equals
    return [top] + mates[:(_BUNDLE_KERNELS if kernel else _BUNDLE) - 1]


def _drain(root, lock) -> None:
    """Compile the queued specs in ``_priority`` order until none is left (the detached compiler's
    loop); files queued meanwhile join the order. Its lock's mtime is refreshed per spec, so a long
    queue is never taken for a dead process."""
    root, lock = Path(root), Path(lock)
    pending: dict[str, dict] = {}
    misses: collections.Counter = collections.Counter()
    arrival: dict[str, int] = {}
    origin: dict[str, str] = {}  # the spec file that first asked for it (one process's wants)
    first: dict[str, int] = {}  # where that process met it among its wants
    while True:
        if _sources_changed():  # this process would build the old lowerings: a fresh compiler takes the queue
            if pending:
                queue(root, [{**spec, "misses": misses[n]} for n, spec in pending.items()])
            return
        for path in sorted(root.glob(QUEUED), key=lambda p: p.stat().st_mtime if p.exists() else 0):
            try:
                with open(path) as f:
                    specs = json.load(f)
            except (OSError, ValueError):
                specs = []
            path.unlink(missing_ok=True)
            for i, spec in enumerate(specs):
                name = spec.get("name")
                misses[name] += spec.get("misses", 1)
                arrival.setdefault(name, len(arrival))
                origin.setdefault(name, path.name)
                first.setdefault(name, spec.get("first", i))
                pending[name] = spec
        if not pending:
            return
        order = sorted(pending, key=lambda n: _priority(pending[n], misses[n], arrival[n]))
        batch = _batch(order, pending, origin, first)
        compile_specs([{**pending.pop(n), "misses": misses[n]} for n in batch], lock.touch)


#: specs compiled together, as one module (kernels' apart from the rest): MAX's cost per compile
#: is nearly all fixed (a module of thirteen elementwise models compiles in little more than the
#: time of one), so a bundle lands many models for the price of one; but a process that needs one
#: member loads the whole bundle (one model reads and initializes in 2-10 ms, 32 in 10-77 ms).
#: Eight balances the two.
#: Kernels go a few at a time: each is a large compile of its own, and the first should land early.
_BUNDLE, _BUNDLE_KERNELS = 8, 4


def compile_specs(specs: list, alive=lambda: None) -> None:
    """Compile single-op models from their specs (the detached process's work), together in one
    module where there are several (see ``_BUNDLE``). A model whose graph is the same text as one
    compiled alone before (an edit elsewhere in ``nabla/ops`` renames every model: the names carry
    a digest of the lowerings' sources) is linked, not compiled: the kernel cache keeps
    ``ir/<digest of the graph's text>`` beside the models."""
    ops = registry()
    engine = GRAPH.engine
    disk = engine.single_op_disk
    index = None if disk is None else ModelDiskCache(disk.directory / "ir")
    todo = []  # (spec, name, build, text digest): the ones to compile
    for spec in specs:
        alive()
        op = ops.get(spec["op"])
        if op is None:
            continue
        name = spec["name"]
        if not name.endswith("-" + _digest_of(op)):
            continue  # asked for by an older version of the sources: nothing will look it up
        t0 = time.perf_counter()
        outcome, build, same = _link_or_build(spec, op, name, engine, disk, index)
        if outcome is None:
            todo.append((spec, name, build, same))
        elif disk is not None:
            _log(disk.directory, spec, outcome, time.perf_counter() - t0)
    _compile_todo(todo, engine, disk, index, alive)


def _compile_todo(todo, engine, disk, index, alive) -> None:
    """Compile ``todo`` as one bundle; if MAX refuses it, each half on its own (down to single
    models), so one graph that does not compile costs a few compiles, not one per member."""
    alive()
    if disk is None or (len(todo) == 1 and not todo[0][0].get("regroup")):
        for spec, name, build, same in todo:
            t0 = time.perf_counter()
            outcome = _compile_alone(name, build, same, engine, disk, index)
            if disk is not None:
                _log(disk.directory, spec, outcome, time.perf_counter() - t0)
        return
    t0 = time.perf_counter()
    try:
        made = _compile_bundle(engine, disk, [(name, build) for _, name, build, _ in todo])
        if any(spec.get("regroup") for spec, *_ in todo):
            (disk.directory / f"{made.name.split('.')[1]}.regrouped").touch()  # (see ``single_op._regroup``)
    except Exception as e:
        _log(disk.directory, todo[0][0], f"bundle of {len(todo)} refused: {type(e).__name__}: "
             f"{str(e).splitlines()[0][:200] if str(e) else ''}", time.perf_counter() - t0)
        if len(todo) == 1:
            return
        half = len(todo) // 2
        _compile_todo(todo[:half], engine, disk, index, alive)
        _compile_todo(todo[half:], engine, disk, index, alive)
        return
    for spec, *_ in todo:
        _log(disk.directory, spec, f"bundled{len(todo)}", (time.perf_counter() - t0) / len(todo))


def _link_or_build(spec, op, name, engine, disk, index):
    """``(outcome, build, text digest)``: outcome "present" (another process compiled it
    meanwhile), "linked" (the same graph was compiled alone before) or a failure; None when it
    must be compiled, ``build(graph_name=None, module=None)`` giving its graph."""
    try:
        dtypes = [_dt.from_name(d) for d in spec["dtypes"]]
        kwargs = _decode(spec["kwargs"])
        layout = _decode(spec.get("layout"))
        if not spec.get("regroup") and engine.single_op_model(name, None, compile=False) is not None:
            return "present", None, None

        def build(graph_name=None, module=None):
            return _graph(op, kwargs, dtypes, spec["dims"], spec["picks"], layout, graph_name, module)

        with mlir_context():
            same = hashlib.sha256(str(build()._module).encode()).hexdigest()[:40]
        if index is not None:
            found = index.path_of(same)
            if found is not None and disk.alias(single_op_digest(name), found):
                return "linked", None, None
        return None, build, same
    except Exception as e:
        return f"failed: {type(e).__name__}", None, None


def _compile_alone(name, build, same, engine, disk, index) -> str:
    try:
        engine.single_op_model(name, build)
        engine.wait_for_compiles()  # one at a time: this process runs at nice 19 beside the user's work
        made = None if disk is None else disk.path_of(single_op_digest(name))
        if made is not None:
            index.directory.mkdir(exist_ok=True)
            index.alias(same, made)
        return "compiled"
    except Exception as e:
        return f"failed: {type(e).__name__}"


def _compile_bundle(engine, disk, members: list):
    """Compile ``members`` (``(name, build)``) as one module and publish the file under each
    member's name; each graph is named for its member (``bundle_symbol``), which the engine's loader
    picks out. Bundled graphs get no ``ir`` entry: renamed members are bundled again (MAX's compile
    cache then answers at once: see below)."""
    # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
    from max.graph import Module

    paths: list = []
    with mlir_context():
        module = Module()
        for name, build in members:
            graph = build(bundle_symbol(single_op_digest(name)), module)
            paths += [p for p in graph.kernel_libraries_paths if p not in paths]
        bytecode = module.mlir_module.bytecode
    compiled = engine.compiler.submit(bytecode, paths).result()
    names = sorted(name for name, _ in members)
    key = ModelDiskCache.key_digest("bundle:" + ",".join(names))
    if not disk.save(key, compiled.export_mef):
        raise OSError("the bundle could not be written")
    made = disk.path_of(key)
    # MAX's compile cache ignores graph names: a module equal to one compiled before but for its
    # names (members renamed by an edit elsewhere) comes back at once, with the old names, in the
    # same order. The file then gets a note of which name stands for which member.
    from io import BytesIO

    # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
    from max import engine as max_engine

    symbols = [bundle_symbol(single_op_digest(name)) for name, _ in members]
    found = list(engine.session.init_all(max_engine.read(BytesIO(made.read_bytes()))))
    if found != symbols:
        if len(found) != len(symbols):
            raise RuntimeError(f"a bundle of {len(symbols)} graphs came back with {len(found)}")
        write_bundle_names(made, dict(zip(symbols, found)))
    for name in names:
        disk.alias(single_op_digest(name), made)  # (a regrouped member leaves its old bundle)
    return made


def _log(directory, spec: dict, outcome: str, seconds: float) -> None:
    """One line per spec in ``single_op.log`` (what the detached compiler did, in its order),
    cut back to its last half when it passes 1 MB."""
    path = directory / "single_op.log"
    line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {outcome:8} {seconds:7.2f}s " \
           f"reuse={spec.get('reuse', ONE_SHAPE)} misses={spec.get('misses', 1)} {spec['op']} {spec['name']}\n"
    try:
        if path.exists() and path.stat().st_size > 1 << 20:
            path.write_text(path.read_text()[-(1 << 19):])
        with open(path, "a") as f:
            f.write(line)
    except OSError:
        pass


if __name__ == "__main__":  # the detached compiler: python -m nabla.runtime.single_op_compiler LOCK CACHE_DIR
    try:
        _drain(sys.argv[2], sys.argv[1])
    finally:
        os.unlink(sys.argv[1])
    if any(Path(sys.argv[2]).glob(QUEUED)):  # queued after the last look, before the lock went
        from ..core.compiler import start_detached

        start_detached("single_op.lock", "nabla.runtime.single_op_compiler", [sys.argv[2]], stale_after=3600)
