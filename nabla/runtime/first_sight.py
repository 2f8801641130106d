"""The interface of a first-sight kernel path, and a list of them asked in order.

A first-sight path runs a trace (or a node of it) the engine has no compiled model of, on kernels
built once per machine: the fused kernel (``fused.FusedPath``), single-op models
(``single_op.SingleOpPath``). The engine's execution paths (``paths.py``) ask a
``FirstSightPaths`` over them; the first that answers serves.
"""

from __future__ import annotations


class FirstSightPath:
    """One first-sight path. ``plan`` and ``model`` are what a path must give; the rest are
    questions a path may answer (the defaults: it does not apply)."""

    def plan(self, order, leaves, outputs, node_ids, leaf_ids):
        """How this path runs the trace (nodes ``order``, realized ``leaves``), or None."""
        raise NotImplementedError

    def model(self, engine, plan):
        """The compiled model that runs ``plan``, the Future of its compile, or None."""
        raise NotImplementedError

    def stages(self, order, outputs) -> list | None:
        """Parts of the trace to realize first, each of which this path then runs."""
        return None

    def split(self, engine, order, outputs, runs_elsewhere) -> list | None:
        """The trace run node by node, where this path serves each node."""
        return None

    def fits_alone(self, node, results) -> bool:
        """Whether this path runs ``node`` alone (another path's split need not cover it)."""
        return False

    def prepare(self, engine) -> list:
        """What this path compiles on a cold machine before first use (the Futures)."""
        return []

    def deferrable(self, impl) -> bool:
        """Whether a joint run may leave this pending tensor pending (the path computes it for
        free inside whatever reads it)."""
        return False

    def computes_single_op_nodes(self, order) -> bool:
        """Whether this path computes every single-op node of the trace, so they need not run apart."""
        return False

    def model_ready(self, engine, node) -> bool:
        """Whether this path's model of ``node`` alone is on this machine now (where it is not, the
        path may start building it, never waited for)."""
        return False

    def model_name(self, node) -> str | None:
        """The name the engine keeps this path's model of ``node`` alone by, or None."""
        return None


class FirstSightPaths:
    """The engine's first-sight hook over several paths: the first that answers serves."""

    def __init__(self, *paths: FirstSightPath):
        self.paths = paths
        # (only the paths that answer it: see ``FirstSightPath.deferrable``)
        self._deferring = tuple(p.deferrable for p in paths if type(p).deferrable is not FirstSightPath.deferrable)

    def plan(self, *traced):
        for path in self.paths:
            found = path.plan(*traced)
            if found:
                return Planned(path, found)
        return None

    def stages(self, order, outputs) -> list:
        for path in self.paths:
            found = path.stages(order, outputs)
            if found:
                return found
        return []

    @staticmethod
    def model(engine, planned: "Planned"):
        return planned.path.model(engine, planned.plan)

    def split(self, engine, order, outputs):
        def runs_elsewhere(node, results):
            return any(path.fits_alone(node, results) for path in self.paths)

        for path in self.paths:
            found = path.split(engine, order, outputs, runs_elsewhere)
            if found:
                return found
        return None

    def prepare(self, engine) -> list:
        return [m for path in self.paths for m in path.prepare(engine)]

    def deferrable(self, impl) -> bool:
        for ask in self._deferring:
            if ask(impl):
                return True
        return False

    def computes_single_op_nodes(self, order) -> bool:
        return any(path.computes_single_op_nodes(order) for path in self.paths)

    def model_ready(self, engine, node) -> bool:
        return any(path.model_ready(engine, node) for path in self.paths)

    def model_name(self, node) -> str | None:
        for path in self.paths:
            name = path.model_name(node)
            if name is not None:
                return name
        return None


class Planned:
    """A plan and the path that made it."""

    __slots__ = ("path", "plan")

    def __init__(self, path: FirstSightPath, plan):
        self.path, self.plan = path, plan

    def run(self, model, leaf_buffers, out_shape, values=None):
        return self.plan.run(model, leaf_buffers, out_shape, values)
