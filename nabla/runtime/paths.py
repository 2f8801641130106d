"""Nabla's execution paths, in the order the engine asks them (``default_paths``).

Each is an ``ExecutionPath`` (``core/paths.py``): ``plan(r)`` answers for the trace of one read
or passes. In order:

1. ``VirtualDevices``: a trace over a mesh of virtual CPUs runs on MAX's interpreter.
   ``LibraryKernels`` (``library_kernels.py``): a lone node of a kernel op (linalg, FFT, sort,
   random) runs on that kernel in Nabla's op kernels (``program_kernel.OP_KERNELS``).
2. ``KnownProgram``: a structure the program kernel has run before (a loop's read), or one with
   slice starts (one program serves every set of starts): its plan, bound to this read's data.
3. ``SingleOpNodesApart``: single-op nodes (sort, svd, fft) among other work run first, each alone.
4. ``CompiledModel``: the structure's cache entry (looked up on disk where it may be there) and
   its compiled model.
5. ``FirstSightKernels``: the whole trace as one program (or one fused stage) on the program
   kernel, or the kernel's build to wait for.
6. ``Staged``: parts first (a reduction that feeds more work, single-op nodes), each on the paths
   above, or the trace node by node on single-op models.
7. ``Interpreted``: MAX's interpreter, or a compile (in a worker process) the trace waits for.

A repeated structure is compiled in the background (``Engine.compile_due``); its model serves
it from then on. The first-sight kernels (the fused kernel, single-op models) are
``first_sight.FirstSightPath``s the paths consult through one ``FirstSight``.
"""

from __future__ import annotations

from concurrent.futures import Future

from ..core.models import RealizationError, execute
from ..core.paths import FINISHED, ExecutionPath, RealizeFirst
from ..core.trace_facts import element_count, fused_whole
from . import first_run
from .first_sight import FirstSightPaths
from .fused import FusedPath
from .library_kernels import LibraryKernels
from .program import ProgramPath
from .single_op import SingleOpPath

#: a trace of at most this many elements (inputs and results) is looked up on disk at its second sight
SMALL_TRACE_ELEMENTS = 4096
#: a trace that runs at first sight in stages or node by node is queued for a compile at its
#: ``STAGED_SIGHTS``-th sight, not its second: its graph costs 5-25 ms of the caller's time to build
#: and a compile seconds of a core, where a staged run costs ~0.1-1 ms; and loops meet many such
#: structures a few times each (a mask's count is in the shapes: mandelbrot's loop has one per step)
STAGED_SIGHTS = 16


class FirstSight:
    """What the paths ask of the first-sight kernels: the fused and single-op paths, and the
    program scheduler (None where whole traces do not run as programs)."""

    def __init__(self, kernels: FirstSightPaths, programs: ProgramPath | None):
        self.kernels, self.programs = kernels, programs

    def program_run(self, r, entry, planned_only: bool = False):
        """A function of the leaf buffers that runs the whole trace as one program of stages on
        the program kernel, one call; None where the kernel cannot (or, ``planned_only``, where
        this structure has no plan yet)."""
        programs = self.programs
        if programs is None or not r.engine.fused_enabled:
            return None
        traced = r.traced
        node_ids = traced.node_ids
        engine, kernels = r.engine, self.kernels

        def make():
            awaited = []

            def model_ready(node):
                if kernels.model_ready(engine, node):
                    return True
                awaited.append(kernels.model_name(node))
                return False

            made = programs.plan(traced.order, traced.leaves, r.outputs, node_ids, model_ready, traced.write_relations,
                                 traced.given)
            if made and awaited:
                made.awaited = tuple(name for name in awaited if name is not None)
            return made

        plan = _kept_plan(entry, "program", traced, planned_only, make)
        if plan and plan.awaited and any(engine.single_op_model_known(name) for name in plan.awaited):
            # (a model it waited for is built now, faster than the program kernel: planned again)
            entry.program.pop(_plan_key(traced, "program"), None)
            plan = _kept_plan(entry, "program", traced, planned_only, make)
        if not plan or not programs.ready():
            return None
        values = {node_ids[id(n)]: data[0] for n, data in traced.params} if traced.params else None
        starts, leaves = traced.starts, traced.leaves
        seen = plan.seen_leaves
        back = () if seen is None else [leaves[k] for k in traced.owned if k not in seen and k not in traced.given]
        if not back:
            return lambda buffers: plan.run(buffers, values, starts, leaves)

        def run(buffers):
            # (the kernel only read these leaves, and no result views them: their values own their
            # memory again, so a loop's next write into one stores into it, not into a copy)
            results = plan.run(buffers, values, starts, leaves)
            for v in back:
                v.owned = True
            return results
        return run

    def run(self, r, entry):
        """A function of the leaf buffers that runs this trace on the program kernel (as a whole
        program, or one fused stage), or the Future of the kernel's build, or None."""
        engine = r.engine
        if not engine.fused_enabled:
            return None
        traced = r.traced
        if traced.starts is not False:
            run = self.program_run(r, entry)
            if run is not None:
                return run
        node_ids = traced.node_ids
        plan = _kept_plan(entry, "fused", traced, False, lambda: self.kernels.plan(
            traced.order, traced.leaves, r.outputs, node_ids, traced.leaf_ids))
        if plan is False:
            return None
        model = self.kernels.model(engine, plan)
        if model is None or isinstance(model, Future):
            return model
        shape = r.outputs[0].shape
        values = {node_ids[id(n)]: data[0] for n, data in traced.params}
        return lambda buffers: plan.run(model, buffers, shape, values)

    def stages(self, r, entry) -> list:
        """The values the first-sight kernels would realize first so that more of the trace runs
        on them (a reduction that feeds more work, a matmul's elementwise operands); [] when none."""
        engine = r.engine
        if not engine.fused_enabled or engine.policy == "compile" or entry.interpreter_refused:
            return []
        return self.kernels.stages(r.traced.order, r.outputs)

    def probe_stages(self, r, entry):
        """A probe's answer for a trace the first-sight kernels run in stages (``all(isnan(a) ==
        isnan(b))``: a count, then its test): the stages, each probed in turn, so that the read
        runs as its own programs while the other pending work, which shares none of it (see
        ``shares_inner_values``), waits for its own read; declined where there are none."""
        stages = self.stages(r, entry)
        return RealizeFirst(stages) if stages else FINISHED


def _kept_plan(entry, kind: str, traced, planned_only: bool, make):
    """The structure's plan of this ``kind`` for these leaf shapes (a plan holds sizes: a broadcast
    input's layout, a reduction's extent, where the key may hold symbolic dims), made by ``make``
    at first and kept on the entry (see ``_PLANS_PER_STRUCTURE``); False where ``make`` found none,
    None where ``planned_only`` and none was made."""
    plans = getattr(entry, kind)
    if plans is None:
        plans = {}
        setattr(entry, kind, plans)
    shapes = _plan_key(traced, kind)
    plan = plans.get(shapes)
    if plan is None:
        if planned_only:
            return None
        plan = plans[shapes] = make() or False
        if len(plans) > _PLANS_PER_STRUCTURE:
            if len(plans) > _PLANS_MOST or _more_kept[0] >= _MORE_PLANS:
                plans.pop(next(iter(plans)))
            else:
                _more_kept[0] += 1
    return plan


def _plan_key(traced, kind: str) -> tuple:
    """A structure's plans' key: its leaves' shapes, and for a program the leaves its writes store
    into (``Trace.given``: where they are copied, a plan that stores into them would be wrong)."""
    shapes = tuple(leaf.shape for leaf in traced.leaves)
    return (shapes, traced.given) if traced.given and kind == "program" else shapes


#: plans kept per structure: its last ``_PLANS_PER_STRUCTURE`` sets of leaf shapes, or up to
#: ``_PLANS_MOST`` until the process has kept ``_MORE_PLANS`` plans beyond those (~2-3 KB each;
#: counted as kept, never uncounted: past the budget every structure keeps its last eight). A loop
#: whose shapes change every step (mandelbrot's shrinking arrays, a mask's count of elements) then
#: meets its shapes again at its next call: planning them again was 60 of mandelbrot2's 155 ms a
#: call at S, 79 of azimint_naive's 930.
_PLANS_PER_STRUCTURE, _PLANS_MOST, _MORE_PLANS = 8, 256, 4096
_more_kept = [0]  # (under the engine's lock, as every plan is made)


def _hit(r, entry, run):
    """The answer for a trace a program runs: counted, with the leaves' buffers."""
    entry.sightings += 1
    r.engine.count(fused=True)
    return run, r.leaf_buffers()


def single_op_nodes_first(outputs):
    """Single-op nodes (ops marked ``single_op``: kernels with single-op models of their own)
    realized apart from the rest of the trace, inputs first: each then runs alone on its model,
    where inside a joint graph MAX's interpreter would bind the kernel (seconds per process). They
    come upstream first (the trace's post-order), so the work before each is one run: taken from
    the last one back, each one's inputs held all the others, and realizing them walked the trace
    again per node (a loop of 400 FFTs: 160,000 runs)."""
    found: dict[int, list] = {}  # single-op node -> its values the trace uses
    order: list = []  # the nodes, each after its inputs'
    seen: set[int] = set()

    def use(v):
        n = v.node
        if n is not None and n.op.single_op:
            vals = found.setdefault(id(n), [])
            if all(u is not v for u in vals):
                vals.append(v)

    stack = []
    for v in outputs:
        if v.node is not None:
            use(v)
            stack.append((v.node, False))
    while stack:
        n, inputs_done = stack.pop()
        if inputs_done:
            order.append(n)
            continue
        if id(n) in seen:
            continue
        seen.add(id(n))
        stack.append((n, True))
        for v in n.inputs:
            if v.node is not None:
                use(v)
                if id(v.node) not in seen:
                    stack.append((v.node, False))
    for n in order:  # (each named as it comes: the runs before it realize values)
        if n.op.single_op:
            yield [v for v in n.inputs if v.node is not None]  # upstream work first
            yield found[id(n)]


class _AsksFirstSight(ExecutionPath):
    """A path that consults the first-sight kernels (the same ``FirstSight`` for every path)."""

    def __init__(self, first_sight: FirstSight):
        self.first_sight = first_sight


class VirtualDevices(ExecutionPath):
    """A trace over virtual CPU devices (a mesh of ``virtual_cpus``): MAX's compiled models refuse
    devices ``cpu:i`` (i >= 1) and the program kernel knows one device, so it runs on MAX's
    interpreter, which places each value on its device."""

    def plan(self, r):
        engine = r.engine
        if not engine.on_virtual_devices(r.traced):
            return None
        if r.fast_only:  # a probe declines: only the interpreter runs these
            return FINISHED
        entry = engine.keep(r.key)
        results = engine.interpret(entry, r)
        if results is None:
            raise RealizationError(f"nabla: MAX's interpreter cannot run this trace over virtual CPU devices "
                                   f"(ops: {entry.op_names}); such meshes run what the interpreter runs")
        engine.count(interpreted=True)
        engine.write_back(r.outputs, results)
        return FINISHED


class KnownProgram(_AsksFirstSight):
    def plan(self, r):
        engine, traced = r.engine, r.traced
        if not (r.compiling or traced.starts or traced.single_op_nodes):
            entry = engine.cached(r.program_key)  # (no starts: the key of every path)
            run = None if entry is None or entry.model is not None or entry.interpreter_refused \
                else self.first_sight.program_run(r, entry, planned_only=True)
            if run is not None:
                engine.touch(r.program_key, entry)
                return _hit(r, entry, run)
        if traced.starts:  # one program serves every set of starts: its entry is keyed without them
            by_shape = engine.cached(r.program_key)
            if by_shape is None and not r.fast_only and not r.compiling:
                by_shape = engine.keep(r.program_key)
            run = None if by_shape is None or r.compiling else self.first_sight.program_run(r, by_shape)
            if run is not None:
                return _hit(r, by_shape, run)
            r.traced = traced._replace(starts=False)  # (the program kernel was asked: not again)
        return None


class SingleOpNodesApart(_AsksFirstSight):
    def plan(self, r):
        traced = r.traced
        r.apart = bool(traced.single_op_nodes) and len(traced.order) > 1 and not r.fast_only \
            and r.engine.fused_enabled and not r.compiling
        if r.apart and not self.first_sight.kernels.computes_single_op_nodes(traced.order):
            return RealizeFirst(staged=False, parts=single_op_nodes_first)
        return None


class CompiledModel(_AsksFirstSight):
    """The structure's cache entry, made or found (and its model read from disk where one may be
    there), and its compiled model where it has one."""

    def plan(self, r):
        engine, traced = r.engine, r.traced
        key, leaves = r.key, traced.leaves
        entry = engine.cached(key)
        if entry is None and r.fast_only:
            if r.accelerated:
                return FINISHED  # a probe: only a compiled model would serve it at once
            entry = engine.new_entry(key)  # a probe: remembered only if the program kernel takes it
            if not callable(self.first_sight.run(r, entry)):
                return self.first_sight.probe_stages(r, entry)
        if entry is None or engine.cached(key) is not entry:
            entry = engine.keep(key, entry)
            # a structure the program kernel runs is never compiled, so never on disk: the lookup
            # (a digest of the key, a stat: ~0.5 ms for an element check's key) would cost more
            # than the run; element-by-element checks meet thousands of such keys. A small one it
            # runs in stages is looked up at its second sight: most are met once
            if r.compiling or not callable(self.first_sight.run(r, entry)):
                if r.compiling or element_count(leaves, r.outputs) > SMALL_TRACE_ELEMENTS:
                    engine.load_from_disk(entry)
                else:
                    r.stages = self.first_sight.stages(r, entry)  # (asked once: used below)
                    if not r.stages:
                        engine.load_from_disk(entry)
        else:
            engine.touch(key, entry)
            if entry.model is None and (entry.nbytes < 0  # evicted from memory: it is on disk
                                        or (entry.digest is None and not fused_whole(entry, leaves))):
                engine.load_from_disk(entry)
        entry.sightings += 1
        engine.poll_compiles()
        r.entry = entry
        if entry.model is None:
            return None
        engine.count(hit=not r.compiled_here)
        model = entry.model
        return (lambda b: execute(model, b)), r.graph_inputs()


class FirstSightKernels(_AsksFirstSight):
    """The program kernel: the whole trace as one program, or one fused stage."""

    def plan(self, r):
        engine, entry = r.engine, r.entry
        run = None if entry.interpreter_refused or r.compiling else self.first_sight.run(r, entry)
        if isinstance(run, Future):  # the program kernel is being built (once per machine)
            if not r.fast_only and not engine.interpreter_warm:
                return run  # cold interpreter: waiting for the kernel costs least
            run = None
        if run is not None:  # near compiled speed already: this structure is never compiled
            engine.count(fused=True)
            return run, r.leaf_buffers()
        if r.fast_only:
            entry.sightings -= 1  # only a probe
            return self.first_sight.probe_stages(r, entry)
        return None

    def deferrable(self, impl) -> bool:
        return self.first_sight.kernels.deferrable(impl)

    def prepare(self, engine) -> list:
        return self.first_sight.kernels.prepare(engine)


class Staged(_AsksFirstSight):
    """Parts first: the first-sight kernels' stages, or the trace node by node on single-op models
    this machine has compiled (no interpreter, no compile); each part then chooses its own path."""

    def plan(self, r):
        engine, entry, traced = r.engine, r.entry, r.traced
        if r.stages is None:
            r.stages = [] if r.compiling else self.first_sight.stages(r, entry)
        parts = None
        if not r.stages and len(traced.order) > 1 and engine.fused_enabled and engine.single_op_models \
                and not r.compiling:
            parts = self.first_sight.kernels.split(engine, traced.order, r.outputs)
        if parts or r.stages:
            if entry.sightings >= STAGED_SIGHTS and engine.compile_due(entry, r.staged):
                engine.compile_future(entry, r.build)  # in the background; until it lands, first sight serves
            return RealizeFirst(parts or r.stages)
        if r.apart:  # single-op nodes the fused kernel computes, in a trace it could not take: apart after all
            return RealizeFirst(staged=False, parts=single_op_nodes_first)
        return None


class Interpreted(ExecutionPath):
    """MAX's interpreter, or a compile where it cannot serve (or a cold machine's interpreter
    would compile more than the structure's model)."""

    def plan(self, r):
        engine, entry = r.engine, r.entry
        # (asked only now: finding out whether MAX's interpreter is warm imports it, ~0.7 s)
        if not r.compiling and engine.fused_enabled and not engine.interpreter_warm:
            for path in engine.paths:
                path.prepare(engine)  # a cold machine needs the kernels: build them now
        if r.compiling or engine.must_compile(entry):
            return engine.compile_future(entry, r.build)
        if engine.compile_due(entry, r.staged):
            engine.compile_future(entry, r.build)
        results = engine.interpret(entry, r)
        if results is None:  # refused: this structure must be compiled
            return engine.compile_future(entry, r.build)
        engine.count(interpreted=True)
        engine.write_back(r.outputs, results)
        return FINISHED


def default_paths(fused: bool = True, programs: bool = True) -> list:
    """Nabla's execution paths, in order; ``fused=False`` leaves the fused kernel out (whole
    traces then run on single-op models, the interpreter or compiled models), ``programs=False``
    whole traces as programs (one fused stage at most)."""
    kernels = FirstSightPaths(*([FusedPath()] if fused else []), SingleOpPath(builds=first_run))
    first_sight = FirstSight(kernels, ProgramPath() if fused and programs else None)
    return [VirtualDevices(), LibraryKernels(), KnownProgram(first_sight), SingleOpNodesApart(first_sight),
            CompiledModel(first_sight), FirstSightKernels(first_sight), Staged(first_sight), Interpreted()]
