"""First sight of a lone kernel op (a linalg decomposition on realized operands): one compiled
model per (op, kwargs, operand dtypes, pattern of dims), with symbolic dims, kept in the kernel
cache. A fresh process runs ``linalg.solve(a, b)`` by loading that model from disk (milliseconds),
where MAX's interpreter would load the kernel package twice and bind the kernel (about 2.4 s per
process, measured; later first sights of that kernel in the process then cost milliseconds).

The models are compiled after the process that first needed them exits, by a detached nice-19
process (``python -m nabla.ops.standalone SPECS``), so no foreground work ever waits for them
and a test session's many structures do not queue ahead of its own compiles.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import sys
import tempfile

from ..core.engine import hashable_params, symbolic_dims


class KernelPlan:
    """How one kernel node runs on its standalone model: which leaves feed it, which of its
    outputs were asked for."""

    def __init__(self, name: str, node, arguments: tuple, picks: tuple, dims: list):
        self.name, self.node, self.arguments, self.picks, self.dims = name, node, arguments, picks, dims

    def spec(self) -> dict:
        """What a detached process needs to build this model again."""
        n = self.node
        return {"name": self.name, "op": n.op.name, "kwargs": n.kwargs, "dtypes": [v.dtype.name for v in n.inputs],
                "dims": self.dims, "picks": list(self.picks)}

    def run(self, model, leaf_buffers, out_shape):
        return list(model.execute(*[leaf_buffers[i] for i in self.arguments]))  # the picked outputs, in order

    def graph(self):
        n = self.node
        return _graph(n.op, n.kwargs, [v.dtype for v in n.inputs], self.dims, self.picks)


def _graph(op, kwargs, dtypes, dims, picks):
    from max.graph import DeviceRef, Graph, TensorType

    types = [TensorType(dt.max_dtype, d, device=DeviceRef.CPU()) for dt, d in zip(dtypes, dims)]
    with Graph(f"nabla_{op.name}", input_types=types) as g:
        out = op.maxpr(*[inp.tensor for inp in g.inputs], **kwargs)
        out = list(out) if isinstance(out, (list, tuple)) else [out]
        g.output(*[out[i] for i in picks])
    return g


def plan(order, leaves, outputs, node_ids, leaf_ids):
    """A plan when the trace is one standalone-capable node on host operands, else None."""
    if len(order) != 1:
        return None
    node = order[0]
    if not node.op.standalone or node.treedef is not None \
            or any(not v.device.is_host for v in node.inputs):
        return None
    if any(v.node is not node for v in outputs):
        return None
    sizes: dict[int, str] = {}
    dims = [list(symbolic_dims(v.shape, sizes)) for v in node.inputs]
    picks = tuple(v.index for v in outputs)
    signature = repr((node.op.name, hashable_params(node.kwargs) if node.kwargs else (),
                      [(v.dtype.name, d) for v, d in zip(node.inputs, dims)], picks))
    from .custom_kernels import kernel_digest

    name = f"op-{node.op.name}-{hashlib.sha256(signature.encode()).hexdigest()[:16]}-" \
           f"{kernel_digest(node.op.kernel_package)}"
    return KernelPlan(name, node, tuple(leaf_ids[id(v)] for v in node.inputs), picks, dims)


_WANTED: dict[str, dict] = {}


def model(engine, plan_: KernelPlan):
    """The standalone model if this machine has compiled it, else None (the interpreter serves this
    sight, and the model is compiled after this process exits)."""
    found = engine.named_model(plan_.name, plan_.graph, compile=False)
    if found is None and plan_.name not in _WANTED:
        if not _WANTED:
            atexit.register(_compile_elsewhere)
        _WANTED[plan_.name] = plan_.spec()
    return found


def _compile_elsewhere() -> None:
    """At exit: compile the models this process wanted in a detached, nice-19 process (one such
    process at a time per machine: a lock file)."""
    from ..core.compiler import start_detached
    from ..core.disk_cache import kernel_cache_dir

    root = kernel_cache_dir()
    if root is None or not _WANTED or os.environ.get("NABLA_COMPILE_AT_EXIT", "1") == "0":
        return
    root.mkdir(parents=True, exist_ok=True)
    fd, specs = tempfile.mkstemp(prefix="nabla-standalone-", suffix=".json", dir=root)
    with os.fdopen(fd, "w") as f:
        json.dump(list(_WANTED.values()), f)
    if not start_detached("standalone.lock", "nabla.ops.standalone", [specs], stale_after=3600):
        os.unlink(specs)  # another process is compiling: the next process to exit asks again


def compile_specs(specs: list) -> None:
    """Compile standalone models from their specs (the detached process's work)."""
    from ..core import dtypes as _dt
    from ..core.graph import GRAPH
    from . import factorizations, fourier, sorting, spectral

    ops = {o.name: o for mod in (factorizations, fourier, sorting, spectral) for o in vars(mod).values()
           if getattr(o, "standalone", False) and not isinstance(o, type)}
    engine = GRAPH.engine
    for spec in specs:
        op = ops.get(spec["op"])
        if op is None:
            continue
        dtypes = [_dt.from_name(d) for d in spec["dtypes"]]
        engine.named_model(spec["name"], lambda: _graph(op, spec["kwargs"], dtypes, spec["dims"], spec["picks"]))
        engine.wait_for_compiles()  # one at a time: this process runs at nice 19 beside the user's work


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

    def stages(self, order, outputs) -> tuple:
        for path in self.paths:
            found = getattr(path, "stages", None)
            found = found(order, outputs) if found else None
            if found and found[0]:
                return found
        return [], True

    @staticmethod
    def model(engine, planned: "_Planned"):
        return planned.path.model(engine, planned.plan)

    def prepare(self, engine) -> list:
        return [m for path in self.paths if hasattr(path, "prepare") for m in path.prepare(engine)]


class _Planned:
    __slots__ = ("path", "plan")

    def __init__(self, path, plan_):
        self.path, self.plan = path, plan_

    def run(self, model, leaf_buffers, out_shape):
        return self.plan.run(model, leaf_buffers, out_shape)


class KernelPath:
    plan = staticmethod(plan)
    model = staticmethod(model)


if __name__ == "__main__":  # the detached compile: python -m nabla.ops.standalone LOCK SPECS
    try:
        with open(sys.argv[2]) as f:
            compile_specs(json.load(f))
    finally:
        os.unlink(sys.argv[2])
        os.unlink(sys.argv[1])

