"""First sight of a kernel op alone (a linalg decomposition on realized operands): one compiled
model per (op, kwargs, operand dtypes, pattern of dims), with symbolic dims, kept in the kernel
cache. A fresh process runs ``linalg.solve(a, b)`` by loading that model from disk (milliseconds),
where MAX's interpreter would load the kernel package twice and bind the kernel (seconds per
process; later first sights of that kernel in the process then cost milliseconds).

Where they come from: on a cold machine, the first-run build (``first_run.py``) makes the ones
first runs need; the others a process wants are queued at its exit (a spec file in the kernel
cache) for ``python -m nabla.build``, or for a detached nice-19 compiler
(``single_op_compiler.py``) that starts at exit where ``NABLA_COMPILE_AT_EXIT=1`` asks for it.
No foreground work waits for them.
"""

from __future__ import annotations

import atexit
import collections
import functools
import hashlib
import itertools
import json
import os
import tempfile
from pathlib import Path

from ..core.trace_lowering import hashable_params, symbolic_dims
from ..core.values import buffer_of
from ..core.models import execute, single_op_digest
from ..core.interpreter import families_loaded
from .first_sight import FirstSightPath
from .op_kinds import CONSTANT
from ..core import dtypes as _dt
from ..core.compiler import start_detached
from ..core.context import cpu
from ..core.disk_cache import ModelDiskCache, kernel_cache_dir, source_digest
from ..core.graph import GRAPH
from ..ops import registry
from ..ops.custom_kernels import KernelOperation, kernel_digest


class SingleOpPlan:
    """How one single-op node runs on its single-op model: which leaves feed it, which of its
    outputs were asked for, and (for ops with a canonical form) the shapes its operands are viewed
    as and its results viewed back from."""

    def __init__(self, name: str, node, arguments: tuple, picks, dims: list, kwargs: dict,
                 views=None, out_shapes=None, select=None):
        self.name, self.node, self.arguments, self.picks, self.dims = name, node, arguments, picks, dims
        self.kwargs, self.views, self.out_shapes, self.select = kwargs, views, out_shapes, select

    def spec(self) -> dict:
        return _spec(self.node, self.name, self.kwargs, self.dims, self.picks)

    def run(self, model, leaf_buffers, out_shape, values=None):
        # an argument >= 0 is a leaf; -1 - k is the scalar constant at trace position k (its value
        # is this run's: traces that differ only in it share the plan)
        buffers = [leaf_buffers[i] if i >= 0 else buffer_of(values[-1 - i]) for i in self.arguments]
        if self.views is not None:
            buffers = [b.view(b.dtype, shape) for b, shape in zip(buffers, self.views)]
        out = list(execute(model, buffers))  # the picked outputs, in order (all: see ``_model_picks``)
        if self.select is not None:
            out = [out[i] for i in self.select]
        if self.out_shapes is not None:
            out = [o.view(o.dtype, shape) for o, shape in zip(out, self.out_shapes)]
        return out

    def graph(self):
        n = self.node
        return _graph(n.op, self.kwargs, [v.dtype for v in n.inputs], self.dims, self.picks, _layout(n))


def _spec(node, name: str, kwargs: dict, dims: list, picks) -> dict:
    """What a detached process needs to build a node's model again, and how much its model is
    worth (``reuse``: see ``_priority``)."""
    return _spec_of(node.op, name, kwargs, [v.dtype.name for v in node.inputs], dims, picks, _layout(node))


def _spec_of(op, name: str, kwargs: dict, dtypes: list, dims: list, picks, layout) -> dict:
    symbolic = any(isinstance(d, str) for ds in dims for d in ds)
    reuse = KERNEL if op.single_op else EVERY_SIZE if symbolic else ONE_SHAPE
    return {"name": name, "op": op.name, "kwargs": kwargs, "dtypes": dtypes, "dims": dims,
            "picks": None if picks is None else list(picks), "layout": layout, "reuse": reuse}


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
    # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
    from max.graph import DeviceRef, Graph, TensorType

    types = [TensorType(dt.max_dtype, d, device=DeviceRef.CPU()) for dt, d in zip(dtypes, dims)]
    with Graph(name or f"nabla_{op.name}", input_types=types, module=module) as g:
        operands = [inp.tensor for inp in g.inputs]
        out = op.maxpr(*(operands if layout is None else _fill(layout, operands)), **kwargs)
        out = list(out) if isinstance(out, (list, tuple)) else [out]
        g.output(*(out if picks is None else [out[i] for i in picks]))
    return g


def _served(node) -> bool:
    """Whether a node can run alone on a model of its own, with tensor operands on the host: a kernel
    op, or any other op but a scalar constant (single-op models, compiled once per machine: one model serves every size of a shape-polymorphic op, others get
    one per shape)."""
    op = node.op
    if len(node.inputs) > _MAX_OPERANDS or any(not v.device.is_host for v in node.inputs):
        return False
    return op.single_op or op is not CONSTANT


#: the most operands a single-op model takes: a model holds one per operand, and MAX's compile of a
#: ``concat`` of 128 rows (``apply_along_axis``'s stack) took minutes and over 9 GB on a cold machine
_MAX_OPERANDS = 16


#: the version of how ``_graph`` builds a model from a spec: part of every model's name (this
#: file's other code does not change what a model computes, so it is not part of the digests)
MODEL_FORMAT = 1


@functools.cache
def _ops_digest() -> str:
    """Models of ops without a kernel package are keyed by the lowerings' sources."""
    ops = Path(__file__).resolve().parent.parent / "ops"
    return source_digest(ops, (".py",), exclude=tuple(ops / f for f in _NOT_LOWERINGS))


#: files of nabla/ops that lower no single op (element picks at the host boundary): editing them
#: leaves the single-op models valid
_NOT_LOWERINGS = ("picks.py",)


def _digest_of(op) -> str:
    """The digest a model name of ``op`` carries: its kernel package's and, for an op lowered in
    ``lowerings.py`` (signbit's kernel), the lowerings' too; else the lowerings'."""
    package = getattr(op, "kernel_package", None)
    if package is None:
        return _ops_digest()
    if isinstance(op, KernelOperation):
        return kernel_digest(package)
    return hashlib.sha256((kernel_digest(package) + _ops_digest()).encode()).hexdigest()[:12]


def _signature(node, picks: tuple):
    """(name, kwargs, dims, views) of the model that runs ``node`` alone, giving outputs ``picks``."""
    shapes = [tuple(int(d) for d in v.shape) for v in node.inputs]
    canonical = getattr(node.op, "single_op_form", None)
    form = canonical(node.kwargs, shapes) if canonical is not None else None
    if form is None:
        sizes: dict[int, str] = {}
        kwargs, views = node.kwargs, None
        # an op whose lowering uses concrete sizes gets a model per shape
        dims = [list(symbolic_dims(s, sizes) if node.op.shape_polymorphic else s) for s in shapes]
    else:
        kwargs, dims, views = form
    dims = [list(d) for d in dims]  # (named as a spec writes them: ``first_run.spec_name`` names them again)
    name = _name(node.op, kwargs, [v.dtype.name for v in node.inputs], dims, picks, _layout(node))
    return name, kwargs, dims, views


def _name(op, kwargs: dict, dtypes: list, dims: list, picks, layout) -> str:
    signature = repr((op.name, hashable_params(kwargs) if kwargs else (),
                      list(zip(dtypes, dims)), picks) + ((layout,) if layout else ()))
    return f"op{MODEL_FORMAT}-{op.name}-{hashlib.sha256(signature.encode()).hexdigest()[:16]}-{_digest_of(op)}"


def family(op) -> list:
    """The specs of every model of a kernel op's family (``op.single_op_variants``: each dtype,
    complex form and pattern of kwargs and shapes its calls can take), so that one miss asks for
    them all. Asked for one by one as met, the machine's models would converge only over many runs, and
    again after each edit renames the models: a test suite that draws its cases meets variants no
    earlier run met (complex64 ``qr`` of a square stack, descending ``argsort`` of uint32, ...),
    and each binds its kernel in MAX's interpreter, seconds, past a test's deadline."""
    specs = {}
    for kwargs, dtypes, shapes in getattr(op, "single_op_variants", lambda: ())():
        kwargs, dims, _ = op.single_op_form(kwargs, shapes)
        dims = [list(d) for d in dims]
        name = _name(op, kwargs, dtypes, dims, None, None)
        specs[name] = _spec_of(op, name, kwargs, dtypes, dims, None, None)
    return list(specs.values())


def plan(order, leaves, outputs, node_ids, leaf_ids):
    """A plan when the trace is one node that can run alone on host operands and scalar constants
    (given as data); else None."""
    node = order[-1]
    if not _served(node) or any(v.node is not node for v in outputs):
        return None
    if any(n.op is not CONSTANT or n.inputs or n.op.data(n.kwargs) is None
           or not n.kwargs["device"].is_host for n in order[:-1]):
        return None
    picks = tuple(v.index for v in outputs)
    model_picks = _model_picks(node, picks)
    name, kwargs, dims, views = _signature(node, model_picks)
    out_shapes = None if views is None else [tuple(int(d) for d in v.shape) for v in outputs]
    arguments = tuple(leaf_ids[id(v)] if v.node is None else -1 - node_ids[id(v.node)] for v in node.inputs)
    return SingleOpPlan(name, node, arguments, model_picks, dims, kwargs, views, out_shapes,
                        None if model_picks is not None else picks)


def _model_picks(node, picks: tuple):
    """The outputs a node's model gives: a kernel op's give all (its kernel computes them all
    anyway), so one model serves ``sort`` and ``argsort``, ``eigh`` and ``eigvalsh``, where a model
    per subset the trace reads would multiply the models, and a kernel op's model missed costs a
    kernel bind in MAX's interpreter (seconds). Others give what the trace reads (None: all)."""
    return None if node.op.single_op else picks


def split(engine, order, outputs, runs_elsewhere=lambda node, results: False, builds=None):
    """The stages that run a trace node by node on single-op models, when this machine has them
    (each then costs milliseconds where MAX's interpreter would load its kernel families, about a
    second per process); None when it has none of them, or lacks some and the interpreter's
    families are loaded (it then runs the trace whole at once, and asks for the missing models).
    A node ``runs_elsewhere`` (the fused kernel takes it alone) needs no model. Each unit runs
    with its scalar constants as data (see ``plan``). Under the engine's lock."""
    units = [n for n in order if n.op is not CONSTANT]
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
    if any(n.op is CONSTANT and (n.op.data(n.kwargs) is None or not n.kwargs["device"].is_host)
           for n in order):
        return None  # (each unit runs with its scalar constants as data: see ``plan``)
    missing = []
    for n in units:
        if runs_elsewhere(n, used[id(n)]):
            continue  # the fused kernel takes it alone: no model to ask for
        picks = _model_picks(n, tuple(v.index for v in used[id(n)]))
        name, kwargs, dims, _ = _signature(n, picks)
        if not engine.single_op_model_known(name) and (builds is None or builds.pending(engine, name) is None):
            missing.append((name, n, kwargs, dims, picks))  # (a known one loads when its stage runs)
    if missing and (len(missing) == len(units) or families_loaded()):
        for name, n, kwargs, dims, picks in missing:  # the whole trace is interpreted: its nodes' models
            _want(name, _spec(n, name, kwargs, dims, picks))
        return None
    # Some models missing while MAX's interpreter still lacks families: every node runs alone all
    # the same, the ones with models on them and each other alone (on the fused kernel, or the
    # interpreter, which then loads only its families: interpreted whole, a trace would load the
    # families of every op it holds, a second or more, for ops that have models).
    # The last runs when the trace is taken again (alone). A node the fused kernel does not take
    # asks for its model when it runs (``model``); the others never need one.
    return [used[id(n)][0] if len(used[id(n)]) == 1 else used[id(n)] for n in units[:-1]]


#: models asked for by this process, compiled after it exits; at most ``_MAX_WANTED`` per class
#: are queued, as each costs a compile: the ones this process missed most often (a test run asks
#: for thousands of one-shape and every-size models, and the first met are not the most needed:
#: models a late test misses a thousand times each must not lose to ones met once early). Kernels
#: have room of their own, so that other models filling a shared cap early cannot leave a kernel
#: op binding its kernel in every run.
#: ``_KEPT`` times as many are remembered until the process exits.
_WANTED: dict[str, dict] = {}
_MAX_WANTED = {KERNEL: 256, EVERY_SIZE: 2048, ONE_SHAPE: 512}
_KEPT = 8
_WANTED_PER_CLASS: collections.Counter = collections.Counter()
#: how many times this process missed each wanted model (the compiler's order: see ``_priority``)
_MISSES: collections.Counter = collections.Counter()


def _want(name: str, spec: dict) -> None:
    if name in _WANTED:
        _MISSES[name] += 1
        return
    reuse = spec.get("reuse", ONE_SHAPE)
    if _WANTED_PER_CLASS[reuse] >= _MAX_WANTED[reuse] * _KEPT:
        return
    spec = _encoded(spec)
    if spec is None:  # kwargs the detached process could not rebuild
        return
    _WANTED[name] = {**spec, "first": next(_MET_ORDER)}
    _WANTED_PER_CLASS[reuse] += 1
    _MISSES[name] += 1


def _encoded(spec: dict) -> dict | None:
    """A spec as another process reads it (JSON), or None when its kwargs cannot be written."""
    try:
        return {**spec, "kwargs": _encode(spec["kwargs"]), "layout": _encode(spec["layout"])}
    except TypeError:
        return None


def _encode(value):
    """kwargs as JSON: dtypes and tuples tagged so that ``_decode`` gives them back as they were."""
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
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if "dtype" in value:
            return _dt.from_name(value["dtype"])
        if "device" in value:
            return cpu()
        if "tuple" in value:
            return tuple(_decode(v) for v in value["tuple"])
        return {k: _decode(v) for k, v in value["dict"].items()}
    return value


def model(engine, plan_: SingleOpPlan, builds=None):
    """The single-op model if this machine has compiled it, else None (the interpreter serves this
    sight, and the model is compiled after this process exits)."""
    if not plan_.node.op.single_op and not engine.single_op_models:
        return None
    found = engine.single_op_model(plan_.name, plan_.graph, compile=False)
    if found is None:
        building = None if builds is None else builds.pending(engine, plan_.name)  # a cold machine's
        # first-run build makes it, or a worker of it, now (a cold interpreter is slower)
        if building is None and builds is not None and (spec := _encoded(plan_.spec())) is not None:
            building = builds.ask(engine, spec)
        # wanted all the same: a worker's build is stopped when this process exits, and the model
        # must then be queued for ``python -m nabla.build`` (which skips it if the worker finished)
        _want(plan_.name, plan_.spec())
        if building is not None:
            return building
    elif plan_.name not in _MET and len(_MET) < _MAX_MET:
        _MET[plan_.name] = {**plan_.spec(), "first": next(_MET_ORDER)}
    return found


def _alone_picks(node):
    return _model_picks(node, (0,))  # (asked of single-output ops: a matmul)


def model_name(node) -> str | None:
    """The name of the model that runs ``node`` alone (its first output), or None where none can."""
    return _signature(node, _alone_picks(node))[0] if _served(node) else None


def model_ready(engine, node, builds=None) -> bool:
    """Whether the model that runs ``node`` alone (its first output) is on this machine now. Where it
    is not, a cold machine's first-run build (``builds``) is asked for it, and not waited for, and
    it is wanted all the same: a process that exits before that build is done (a script of a few
    seconds, each run of it) queues it for ``python -m nabla.build``, where it was built by none."""
    if not _served(node):
        return False
    picks = _alone_picks(node)
    name, kwargs, dims, _ = _signature(node, picks)
    if engine.single_op_model_known(name):
        return True
    spec = _spec(node, name, kwargs, dims, picks)
    if builds is not None and builds.pending(engine, name) is None:
        encoded = _encoded(spec)
        if encoded is not None:
            builds.ask(engine, encoded)
    _want(name, spec)
    return False


#: the specs of the models this process found, by name (first met first), for ``_regroup``
_MET: dict[str, dict] = {}
#: the order this process met models in, wanted or found: the detached compiler bundles neighbours
_MET_ORDER = itertools.count()
_MAX_MET = 4096
#: a bundle is regrouped when the members a process did not use made this much of it (MAX loads a
#: bundle whole, ~2.3 ms per MB), at most ``_MAX_REGROUPED`` models per process
_REGROUP_BYTES, _MAX_REGROUPED = 1 << 20, 64


def _regroup(root) -> list:
    """Specs that move the models this process used out of bundles it mostly did not use, into
    bundles of their own. Bundles are made of the models one process missed (see
    ``single_op_compiler._batch``), but a machine's single-op models mix workloads, and an edit in
    ``nabla/ops`` relinks every model into the bundle it was in: a script's few models can then
    come from files that mostly hold other workloads' models, each loaded whole, most of the
    script's loading spent on models it never runs. A regrouped bundle is never
    regrouped again (the ``.regrouped`` mark beside it), so two workloads sharing a model cannot
    take it back and forth."""
    out = []
    for content, used in GRAPH.engine.wasteful_bundles(_REGROUP_BYTES):
        if (root / f"{content}.regrouped").exists():
            continue
        for name in (n for n in used if n in _MET):
            try:
                out.append({**_MET[name], "kwargs": _encode(_MET[name]["kwargs"]),
                            "layout": _encode(_MET[name]["layout"]), "misses": 0, "regroup": 1})
            except TypeError:  # kwargs the detached process could not rebuild
                pass
    return out[:_MAX_REGROUPED]


def _selected() -> list:
    """The wanted specs to queue: per class, the ``_MAX_WANTED`` this process missed most often
    (first met first among equals), each with its count of misses."""
    ranked = sorted(_WANTED, key=lambda n: -_MISSES[n])  # stable: first met first among equals
    taken: collections.Counter = collections.Counter()
    out = []
    for name in ranked:
        reuse = _WANTED[name].get("reuse", ONE_SHAPE)
        if taken[reuse] < _MAX_WANTED[reuse]:
            taken[reuse] += 1
            out.append({**_WANTED[name], "misses": _MISSES[name]})
    return out


def queue(root, specs: list) -> None:
    """One spec file for the detached compiler."""
    fd, _ = tempfile.mkstemp(prefix=QUEUED[:-6], suffix=".json", dir=root)
    with os.fdopen(fd, "w") as f:
        json.dump(specs, f)


#: spec files waiting for the detached compiler, and how many may wait
QUEUED = "nabla-single_op-*.json"
MAX_QUEUED = 16


def _compile_elsewhere() -> None:
    """At exit: queue the specs of the models this process wanted in the kernel cache, for
    ``python -m nabla.build``. With ``NABLA_COMPILE_AT_EXIT=1`` (asked for: it computes after the
    program exits), also start the detached, nice-19 compiler unless one is running (one per
    machine: a lock file); a running compiler takes every queued file before it stops, so no
    process's wants are dropped. ``NABLA_COMPILE_AT_EXIT=0`` queues nothing."""
    root = kernel_cache_dir()
    at_exit = os.environ.get("NABLA_COMPILE_AT_EXIT", "")
    if root is None or not (_WANTED or _MET) or at_exit == "0":
        return

    specs = (_selected() + _families_missing(root) if _WANTED else []) + _regroup(root)
    if not specs:
        return
    root.mkdir(parents=True, exist_ok=True)
    if len(list(root.glob(QUEUED))) >= MAX_QUEUED:
        return  # the compiler is that far behind: later processes ask again
    queue(root, specs)
    if at_exit == "1":
        start_detached("single_op.lock", "nabla.runtime.single_op_compiler", [root], stale_after=3600)


atexit.register(_compile_elsewhere)


def _families_missing(root) -> list:
    """The family members (see ``family``) of the kernel ops this process missed that the machine
    lacks, each as missed 0 times: the detached compiler takes them after the kernel ops' models
    that were missed and before other models (a kernel op's model saves seconds of kernel binding in
    MAX's interpreter, another one milliseconds)."""
    ops = registry()
    disk = ModelDiskCache(root)
    wanted = {spec["op"] for spec in _WANTED.values() if spec.get("reuse") == KERNEL}
    return [{**spec, "kwargs": _encode(spec["kwargs"]), "misses": 0}
            for name in sorted(wanted) if name in ops for spec in family(ops[name])
            if spec["name"] not in _WANTED and disk.path_of(single_op_digest(spec["name"])) is None]


class SingleOpPath(FirstSightPath):
    """Single-op models: a kernel op (or any op of a trace run node by node) on a model of its own.
    ``builds``: what builds models for this process on a cold machine (``first_run``: its
    ``pending(engine, name)`` and ``ask(engine, spec)``), or None."""

    plan = staticmethod(plan)

    def __init__(self, builds=None):
        self.builds = builds

    def model(self, engine, plan_):
        return model(engine, plan_, self.builds)

    def split(self, engine, order, outputs, runs_elsewhere):
        return split(engine, order, outputs, runs_elsewhere, self.builds)

    def model_ready(self, engine, node):
        return model_ready(engine, node, self.builds)

    model_name = staticmethod(model_name)
