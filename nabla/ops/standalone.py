"""First sight of a lone kernel op (a linalg decomposition on realized operands): one compiled
model per (op, kwargs, operand dtypes, pattern of dims), with symbolic dims, kept in the kernel
cache. A fresh process runs ``linalg.solve(a, b)`` by loading that model from disk (milliseconds),
where MAX's interpreter would load the kernel package twice and bind the kernel (about 2.4 s per
process, measured; later first sights of that kernel in the process then cost milliseconds).

The models are compiled after the process that first needed them exits, by a detached nice-19
process (``python -m nabla.ops.standalone LOCK CACHE_DIR``), so no foreground work ever waits for
them and a test session's many structures do not queue ahead of its own compiles. Each exiting
process queues what it wanted (a spec file in the kernel cache); the one compiler drains the queue.
"""

from __future__ import annotations

import atexit
import collections
import functools
import hashlib
import json
import os
import sys
import tempfile
import time

from ..core.disk_cache import ModelDiskCache
from ..core.engine import hashable_params, symbolic_dims
from ..core.interpreter import families_loaded


class KernelPlan:
    """How one kernel node runs on its standalone model: which leaves feed it, which of its
    outputs were asked for, and (for ops with a canonical form) the shapes its operands are viewed
    as and its results viewed back from."""

    def __init__(self, name: str, node, arguments: tuple, picks: tuple, dims: list, kwargs: dict,
                 views=None, out_shapes=None):
        self.name, self.node, self.arguments, self.picks, self.dims = name, node, arguments, picks, dims
        self.kwargs, self.views, self.out_shapes = kwargs, views, out_shapes

    def spec(self) -> dict:
        return _spec(self.node, self.name, self.kwargs, self.dims, self.picks)

    def run(self, model, leaf_buffers, out_shape, values=None):
        from ..core.engine import scalar_buffer

        # an argument >= 0 is a leaf; -1 - k is the scalar constant at trace position k (its value
        # is this run's: traces that differ only in it share the plan)
        buffers = [leaf_buffers[i] if i >= 0 else scalar_buffer(values[-1 - i]) for i in self.arguments]
        if self.views is not None:
            buffers = [b.view(b.dtype, shape) for b, shape in zip(buffers, self.views)]
        out = list(model.execute(*buffers))  # the picked outputs, in order
        if self.out_shapes is not None:
            out = [o.view(o.dtype, shape) for o, shape in zip(out, self.out_shapes)]
        return out

    def graph(self):
        n = self.node
        return _graph(n.op, self.kwargs, [v.dtype for v in n.inputs], self.dims, self.picks, _layout(n))


def _spec(node, name: str, kwargs: dict, dims: list, picks) -> dict:
    """What a detached process needs to build a node's model again, and how much its model is
    worth (``reuse``: see ``_priority``)."""
    symbolic = any(isinstance(d, str) for ds in dims for d in ds)
    reuse = KERNEL if node.op.standalone else EVERY_SIZE if symbolic else ONE_SHAPE
    return {"name": name, "op": node.op.name, "kwargs": kwargs, "dtypes": [v.dtype.name for v in node.inputs],
            "dims": dims, "picks": list(picks), "layout": _layout(node), "reuse": reuse}


#: what a model saves, best first: a kernel op's (MAX's interpreter binds a Nabla kernel in 1.6-2.8 s
#: per kernel and process), one that serves every size of its op, one that serves a single shape
KERNEL, EVERY_SIZE, ONE_SHAPE = 0, 1, 2


def _layout(node):
    """How an op taking nested arguments (concat's list) receives its operands: their positions in
    that structure, or None for flat operands."""
    return None if node.treedef is None else node.treedef.unflatten(list(range(len(node.inputs))))


def _fill(layout, values):
    if isinstance(layout, int):
        return values[layout]
    filled = [_fill(x, values) for x in layout]
    return tuple(filled) if isinstance(layout, tuple) else filled


def _graph(op, kwargs, dtypes, dims, picks, layout=None, name=None, module=None):
    from max.graph import DeviceRef, Graph, TensorType

    types = [TensorType(dt.max_dtype, d, device=DeviceRef.CPU()) for dt, d in zip(dtypes, dims)]
    with Graph(name or f"nabla_{op.name}", input_types=types, module=module) as g:
        operands = [inp.tensor for inp in g.inputs]
        out = op.maxpr(*(operands if layout is None else _fill(layout, operands)), **kwargs)
        out = list(out) if isinstance(out, (list, tuple)) else [out]
        g.output(*[out[i] for i in picks])
    return g


def _served(node) -> bool:
    """Whether a node can run alone on a model of its own, with tensor operands on the host: a kernel
    op, or any other op but a scalar constant (a library of single ops
    compiled once per machine: one model serves every size of a shape-polymorphic op, others get
    one per shape)."""
    op = node.op
    if any(not v.device.is_host for v in node.inputs):
        return False
    return op.standalone or op.name not in _NOT_SERVED


#: ops left to the interpreter (a scalar constant is host data to the others)
_NOT_SERVED = frozenset({"constant"})


#: the version of how ``_graph`` builds a model from a spec: part of every model's name (this
#: file's other code does not change what a model computes, so it is not part of the digests)
MODEL_FORMAT = 1


@functools.cache
def _ops_digest() -> str:
    """Models of ops without a kernel package are keyed by the lowerings' sources."""
    from pathlib import Path

    from ..core.disk_cache import source_digest

    here = Path(__file__).parent
    return source_digest(here, (".py",), exclude=(here / "standalone.py",))


def _digest_of(op) -> str:
    """The digest a model name of ``op`` carries: its kernel package's and, for an op lowered in
    ``lowerings.py`` (signbit's kernel), the lowerings' too; else the lowerings'."""
    from .custom_kernels import KernelOperation, kernel_digest

    package = getattr(op, "kernel_package", None)
    if package is None:
        return _ops_digest()
    if isinstance(op, KernelOperation):
        return kernel_digest(package)
    return hashlib.sha256((kernel_digest(package) + _ops_digest()).encode()).hexdigest()[:12]


def _sources_changed() -> bool:
    """Whether the lowerings or a kernel package changed since this process computed their digests
    (the detached compiler outlives edits)."""
    from .custom_kernels import PACKAGES, kernel_digest

    return _ops_digest.__wrapped__() != _ops_digest() or any(
        kernel_digest.__wrapped__(p) != kernel_digest(p) for p in PACKAGES)


def _signature(node, picks: tuple):
    """(name, kwargs, dims, views) of the model that runs ``node`` alone, giving outputs ``picks``."""
    shapes = [tuple(int(d) for d in v.shape) for v in node.inputs]
    canonical = getattr(node.op, "standalone_form", None)
    form = canonical(node.kwargs, shapes) if canonical is not None else None
    if form is None:
        sizes: dict[int, str] = {}
        kwargs, views = node.kwargs, None
        # an op whose lowering uses concrete sizes gets a model per shape
        dims = [list(symbolic_dims(s, sizes) if node.op.shape_polymorphic else s) for s in shapes]
    else:
        kwargs, dims, views = form
    layout = _layout(node)
    signature = repr((node.op.name, hashable_params(kwargs) if kwargs else (),
                      [(v.dtype.name, d) for v, d in zip(node.inputs, dims)], picks) + ((layout,) if layout else ()))
    name = f"op{MODEL_FORMAT}-{node.op.name}-{hashlib.sha256(signature.encode()).hexdigest()[:16]}-{_digest_of(node.op)}"
    return name, kwargs, [list(d) for d in dims], views


def plan(order, leaves, outputs, node_ids, leaf_ids):
    """A plan when the trace is one node that can run alone on host operands and scalar constants
    (given as data); else None."""
    node = order[-1]
    if not _served(node) or any(v.node is not node for v in outputs):
        return None
    if any(n.op.name != "constant" or n.inputs or n.op.data(n.kwargs) is None
           or not n.kwargs["device"].is_host for n in order[:-1]):
        return None
    picks = tuple(v.index for v in outputs)
    name, kwargs, dims, views = _signature(node, picks)
    out_shapes = None if views is None else [tuple(int(d) for d in v.shape) for v in outputs]
    arguments = tuple(leaf_ids[id(v)] if v.node is None else -1 - node_ids[id(v.node)] for v in node.inputs)
    return KernelPlan(name, node, arguments, picks, dims, kwargs, views, out_shapes)


def split(engine, order, outputs):
    """The stages that run a trace node by node on single-op models, when this machine has them
    (each then costs milliseconds where MAX's interpreter would load its kernel families, about a
    second per process); None when it has none of them, or lacks some and the interpreter's
    families are loaded (it then runs the trace whole at once). The missing models are asked for.
    Each unit runs with its scalar constants as data (see ``plan``). Under the engine's lock."""
    units = [n for n in order if n.op.name != "constant"]
    if len(order) < 2 or not units or not all(_served(n) for n in units):
        return None
    used: dict[int, list] = {}
    for v in [v for n in order for v in n.inputs] + list(outputs):
        if v.node is not None and all(u is not v for u in used.setdefault(id(v.node), [])):
            used[id(v.node)].append(v)
    for vals in used.values():  # a node read through several outputs runs once, giving them in order
        vals.sort(key=lambda v: v.index)
    last = [v.index for v in outputs if v.node is units[-1]]
    if last != sorted(last):
        return None  # the last node runs again as the trace asks: its outputs must come in index order
    if any(n.op.name == "constant" and (n.op.data(n.kwargs) is None or not n.kwargs["device"].is_host)
           for n in order):
        return None  # (each unit runs with its scalar constants as data: see ``plan``)
    missing = 0
    for n in units:
        picks = tuple(v.index for v in used[id(n)])
        name, kwargs, dims, _ = _signature(n, picks)
        if engine.named_model(name, None, compile=False) is None:
            missing += 1
            _want(name, _spec(n, name, kwargs, dims, picks))
    if missing and (missing == len(units) or families_loaded()):
        return None
    # Some models missing while MAX's interpreter still lacks families: every node runs alone all
    # the same, the ones with models on them and each other alone (on the fused kernel, or the
    # interpreter, which then loads only its families: a getitem of a new shape among six
    # elementwise ops and a sum, the first check of a test session, took 1.2-1.7 s interpreted
    # whole, nearly all of it loading the reduce, binary, unary and cast families).
    # The last runs when the trace is taken again (alone).
    return [used[id(n)][0] if len(used[id(n)]) == 1 else used[id(n)] for n in units[:-1]]


#: models asked for by this process, compiled after it exits; bounded per class, as each costs a
#: compile. A test session asks for thousands of one-shape and every-size models; kernels have room
#: of their own (before, a conformance run's every-size wants filled one shared cap by the time
#: its linalg tests ran, so float32 cholesky was never asked for and bound its kernel every run).
_WANTED: dict[str, dict] = {}
_MAX_WANTED = {KERNEL: 256, EVERY_SIZE: 2048, ONE_SHAPE: 512}
_WANTED_PER_CLASS: collections.Counter = collections.Counter()


def _want(name: str, spec: dict) -> None:
    reuse = spec.get("reuse", ONE_SHAPE)
    if name in _WANTED or _WANTED_PER_CLASS[reuse] >= _MAX_WANTED[reuse]:
        return
    try:
        spec = {**spec, "kwargs": _encode(spec["kwargs"]), "layout": _encode(spec["layout"])}
    except TypeError:  # kwargs the detached process could not rebuild
        return
    if not _WANTED:
        atexit.register(_compile_elsewhere)
    _WANTED[name] = spec
    _WANTED_PER_CLASS[reuse] += 1


def _encode(value):
    """kwargs as JSON: dtypes and tuples tagged so that ``_decode`` gives them back as they were."""
    from ..core import dtypes as _dt

    if isinstance(value, _dt.DType):
        return {"dtype": value.name}
    if getattr(value, "is_host", False) and hasattr(value, "label"):  # the host device (served ops run there)
        return {"device": "cpu"}
    if isinstance(value, tuple):
        return {"tuple": [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {"dict": {k: _encode(v) for k, v in value.items()}}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"cannot encode {type(value).__name__}")


def _decode(value):
    from ..core import dtypes as _dt

    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if "dtype" in value:
            return _dt.from_name(value["dtype"])
        if "device" in value:
            from ..core.context import cpu

            return cpu()
        if "tuple" in value:
            return tuple(_decode(v) for v in value["tuple"])
        return {k: _decode(v) for k, v in value["dict"].items()}
    return value


def model(engine, plan_: KernelPlan):
    """The standalone model if this machine has compiled it, else None (the interpreter serves this
    sight, and the model is compiled after this process exits)."""
    if not plan_.node.op.standalone and not engine.single_op_models:
        return None
    found = engine.named_model(plan_.name, plan_.graph, compile=False)
    if found is None:
        _want(plan_.name, plan_.spec())
    return found


def _compile_elsewhere() -> None:
    """At exit: queue the specs of the models this process wanted in the kernel cache and start the
    detached, nice-19 compiler unless one is running (one per machine: a lock file); a running
    compiler takes every queued file before it stops, so no process's wants are dropped."""
    from ..core.compiler import start_detached
    from ..core.disk_cache import kernel_cache_dir

    root = kernel_cache_dir()
    if root is None or not _WANTED or os.environ.get("NABLA_COMPILE_AT_EXIT", "1") == "0":
        return
    root.mkdir(parents=True, exist_ok=True)
    if len(list(root.glob(_QUEUED))) >= _MAX_QUEUED:
        return  # the compiler is that far behind: later processes ask again
    _queue(root, list(_WANTED.values()))
    start_detached("standalone.lock", "nabla.ops.standalone", [root], stale_after=3600)


def _queue(root, specs: list) -> None:
    """One spec file for the detached compiler."""
    fd, _ = tempfile.mkstemp(prefix=_QUEUED[:-6], suffix=".json", dir=root)
    with os.fdopen(fd, "w") as f:
        json.dump(specs, f)


#: spec files waiting for the detached compiler, and how many may wait
_QUEUED = "nabla-standalone-*.json"
_MAX_QUEUED = 16


def _priority(spec: dict, wanted_by: int, arrival: int) -> tuple:
    """The detached compiler's order, first first: the models that save most (a kernel's, then those
    serving every size: see ``_spec``), then the ones more processes asked for, then the oldest.
    Before, it took files oldest first: a test session's hundreds of one-shape models (a getitem
    per index and shape) queued ahead of the linalg kernels every later process needed."""
    return spec.get("reuse", ONE_SHAPE), -wanted_by, arrival


def _drain(root, lock) -> None:
    """Compile the queued specs in ``_priority`` order until none is left (the detached compiler's
    loop); files queued meanwhile join the order. Its lock's mtime is refreshed per spec, so a long
    queue is never taken for a dead process."""
    from pathlib import Path

    root, lock = Path(root), Path(lock)
    pending: dict[str, dict] = {}
    wanted_by: collections.Counter = collections.Counter()
    arrival: dict[str, int] = {}
    while True:
        if _sources_changed():  # this process would build the old lowerings: a fresh compiler takes the queue
            if pending:
                _queue(root, list(pending.values()))
            return
        for path in sorted(root.glob(_QUEUED), key=lambda p: p.stat().st_mtime if p.exists() else 0):
            try:
                with open(path) as f:
                    specs = json.load(f)
            except (OSError, ValueError):
                specs = []
            path.unlink(missing_ok=True)
            for spec in specs:
                name = spec.get("name")
                wanted_by[name] += 1
                arrival.setdefault(name, len(arrival))
                pending[name] = spec
        if not pending:
            return
        order = sorted(pending, key=lambda n: _priority(pending[n], wanted_by[n], arrival[n]))
        reuse = pending[order[0]].get("reuse", ONE_SHAPE)
        batch = [n for n in order if pending[n].get("reuse", ONE_SHAPE) == reuse][:_BUNDLE[reuse]]
        compile_specs([pending.pop(n) for n in batch], lock.touch)


#: specs compiled together, as one module, per priority class: MAX's cost per compile is nearly all
#: fixed (one elementwise model 13-21 s on the 2-core machine, thirteen in one module 16.5 s), so
#: a bundle lands many models for the price of one; but a process that needs one member loads the
#: whole bundle (measured: read and init of a single model 2-10 ms, of 32 models 10-77 ms; a
#: conformance run at 32 per bundle spent 0.64 s in 20 bundle loads). Eight balances the two.
#: Kernels go a few at a time: each is a large compile of its own, and the first should land early.
_BUNDLE = {KERNEL: 4, EVERY_SIZE: 8, ONE_SHAPE: 8}


def compile_specs(specs: list, alive=lambda: None) -> None:
    """Compile standalone models from their specs (the detached process's work), together in one
    module where there are several (see ``_BUNDLE``). A model whose graph is the same text as one
    compiled alone before (an edit elsewhere in ``nabla/ops`` renames every model: the names carry
    a digest of the lowerings' sources) is linked, not compiled: the kernel cache keeps
    ``ir/<digest of the graph's text>`` beside the models."""
    from ..core.graph import GRAPH

    ops = all_ops()
    engine = GRAPH.engine
    disk = engine.kernel_disk
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
    if len(todo) == 1 or disk is None:
        for spec, name, build, same in todo:
            t0 = time.perf_counter()
            outcome = _compile_alone(name, build, same, engine, disk, index)
            if disk is not None:
                _log(disk.directory, spec, outcome, time.perf_counter() - t0)
        return
    t0 = time.perf_counter()
    try:
        _compile_bundle(engine, disk, [(name, build) for _, name, build, _ in todo])
    except Exception as e:
        _log(disk.directory, todo[0][0], f"bundle of {len(todo)} refused: {type(e).__name__}: "
             f"{str(e).splitlines()[0][:200] if str(e) else ''}", time.perf_counter() - t0)
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
    from ..core import dtypes as _dt
    from ..core.models import mlir_context, named_digest

    try:
        dtypes = [_dt.from_name(d) for d in spec["dtypes"]]
        kwargs = _decode(spec["kwargs"])
        layout = _decode(spec.get("layout"))
        if engine.named_model(name, None, compile=False) is not None:
            return "present", None, None

        def build(graph_name=None, module=None):
            return _graph(op, kwargs, dtypes, spec["dims"], spec["picks"], layout, graph_name, module)

        with mlir_context():
            same = hashlib.sha256(str(build()._module).encode()).hexdigest()[:40]
        if index is not None:
            found = index.path_of(same)
            if found is not None and disk.alias(named_digest(name), found):
                return "linked", None, None
        return None, build, same
    except Exception as e:
        return f"failed: {type(e).__name__}", None, None


def _compile_alone(name, build, same, engine, disk, index) -> str:
    from ..core.models import named_digest

    try:
        engine.named_model(name, build)
        engine.wait_for_compiles()  # one at a time: this process runs at nice 19 beside the user's work
        made = None if disk is None else disk.path_of(named_digest(name))
        if made is not None:
            index.directory.mkdir(exist_ok=True)
            index.alias(same, made)
        return "compiled"
    except Exception as e:
        return f"failed: {type(e).__name__}"


def _compile_bundle(engine, disk, members: list) -> None:
    """Compile ``members`` (``(name, build)``) as one module and publish the file under each
    member's name; each graph is named for its member (``bundle_symbol``), which the engine's loader
    picks out. Bundled graphs get no ``ir`` entry: renamed members are bundled again (MAX's compile
    cache then answers at once: see below)."""
    from max.graph import Module

    from ..core.models import bundle_symbol, mlir_context, named_digest, write_bundle_names

    paths: list = []
    with mlir_context():
        module = Module()
        for name, build in members:
            graph = build(bundle_symbol(named_digest(name)), module)
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

    from max import engine as max_engine

    symbols = [bundle_symbol(named_digest(name)) for name, _ in members]
    found = list(engine.session.init_all(max_engine.read(BytesIO(made.read_bytes()))))
    if found != symbols:
        if len(found) != len(symbols):
            raise RuntimeError(f"a bundle of {len(symbols)} graphs came back with {len(found)}")
        write_bundle_names(made, dict(zip(symbols, found)))
    for name in names:
        disk.alias(named_digest(name), made)


def _log(directory, spec: dict, outcome: str, seconds: float) -> None:
    """One line per spec in ``standalone.log`` (what the detached compiler did, in its order),
    cut back to its last half when it passes 1 MB."""
    path = directory / "standalone.log"
    line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {outcome:8} {seconds:7.2f}s " \
           f"reuse={spec.get('reuse', ONE_SHAPE)} {spec['op']} {spec['name']}\n"
    try:
        if path.exists() and path.stat().st_size > 1 << 20:
            path.write_text(path.read_text()[-(1 << 19):])
        with open(path, "a") as f:
            f.write(line)
    except OSError:
        pass


def all_ops() -> dict:
    """Every op of ``nabla.ops`` by name."""
    from ..core.operation import Operation
    from . import (_physical, creation, elementwise, factorizations, fourier, indexing, linalg, multi_output,
                   random_bits, reduction, sorting, spectral, view)

    found = {}
    for mod in (creation, elementwise, factorizations, fourier, indexing, linalg, multi_output, random_bits, reduction,
                sorting, spectral, view, _physical):
        for obj in vars(mod).values():
            if isinstance(obj, Operation):
                found[obj.name] = obj
            elif isinstance(obj, dict):
                found.update({o.name: o for o in obj.values() if isinstance(o, Operation)})
    return found


class FirstSightPaths:
    """The engine's first-sight hook over several paths: the first that plans a trace serves it."""

    def __init__(self, *paths):
        self.paths = paths

    def plan(self, *traced):
        for path in self.paths:
            found = path.plan(*traced)
            if found:
                return _Planned(path, found)
        return None

    def stages(self, order, outputs) -> list:
        for path in self.paths:
            found = getattr(path, "stages", None)
            found = found(order, outputs) if found else None
            if found:
                return found
        return []

    @staticmethod
    def model(engine, planned: "_Planned"):
        return planned.path.model(engine, planned.plan)

    def split(self, engine, order, outputs):
        for path in self.paths:
            found = getattr(path, "split", None)
            found = found(engine, order, outputs) if found else None
            if found:
                return found
        return None

    def prepare(self, engine) -> list:
        return [m for path in self.paths if hasattr(path, "prepare") for m in path.prepare(engine)]


class _Planned:
    __slots__ = ("path", "plan")

    def __init__(self, path, plan_):
        self.path, self.plan = path, plan_

    def run(self, model, leaf_buffers, out_shape, values=None):
        return self.plan.run(model, leaf_buffers, out_shape, values)


class KernelPath:
    plan = staticmethod(plan)
    model = staticmethod(model)
    split = staticmethod(split)


if __name__ == "__main__":  # the detached compiler: python -m nabla.ops.standalone LOCK CACHE_DIR
    try:
        _drain(sys.argv[2], sys.argv[1])
    finally:
        os.unlink(sys.argv[1])
    from pathlib import Path

    if any(Path(sys.argv[2]).glob(_QUEUED)):  # queued after the last look, before the lock went
        from ..core.compiler import start_detached

        start_detached("standalone.lock", "nabla.ops.standalone", [sys.argv[2]], stale_after=3600)
