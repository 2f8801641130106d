"""The engine's execution paths: the interface ``Engine._start`` asks in order, and its answers.

A path is one way to run a trace (a compiled model, a program of the program kernel, MAX's
interpreter, ...). The engine is built with its list (``Engine(paths=[...])``;
``nabla.runtime.default_paths()`` gives Nabla's) and names none of them: for each read it traces
the pending work into a ``Realization`` and asks each path's ``plan`` in turn; the first answer
that is not None is what the engine does:

- ``(run, buffers)``: ``run(buffers)`` outside the engine's lock gives the outputs' buffers;
- a ``Future``: a compile to wait for, after which the trace is asked again;
- ``RealizeFirst(values)``: realize these first (each a value, or a list read together), then
  the trace is asked again, smaller;
- ``FINISHED``: done under the lock (the outputs already hold buffers), or, for a probe
  (``fast_only``), declined: nothing ran.
"""

from __future__ import annotations

#: a path's answer: the outputs were computed under the lock, or a probe declined
FINISHED = object()


class RealizeFirst(tuple):
    """A path's answer: these values (or lists of values read together) first, in order; the
    trace is then asked again. ``staged``: each is one of the asking path's stages (never
    compiled alone, as a probe's stage may be refused), else an ordinary read. ``parts``, where
    given, is a function of the outputs that names them when they run (after the lock is left)."""

    staged = True
    parts = None

    def __new__(cls, values=(), staged: bool = True, parts=None):
        out = super().__new__(cls, values)
        out.staged, out.parts = staged, parts
        return out


class Realization:
    """One read's trace and what the engine knows of it, as the paths see it. A path may fill in
    what later paths reuse (``entry``: the structure's cache entry; ``stages``; ``apart``)."""

    __slots__ = ("engine", "outputs", "traced", "program_key", "fast_only", "staged", "compiled_here",
                 "accelerated", "compiling", "entry", "stages", "apart", "_key", "_starts")

    def __init__(self, engine, outputs, traced, fast_only, staged, compiled_here, accelerated):
        # slice starts are data of a program, not its structure: not in ``program_key``
        self.engine, self.outputs, self.traced, self.program_key = engine, outputs, traced, traced.key
        self._key, self._starts = None, traced.starts
        self.fast_only, self.staged, self.compiled_here = fast_only, staged, compiled_here
        self.accelerated = accelerated  # MAX's interpreter and Nabla's kernels run on the CPU only
        self.compiling = engine.policy == "compile" or accelerated  # every path but a compiled model declines
        self.entry = None
        self.stages = None  # the stages a first-sight path would realize first, once asked
        self.apart = False

    @property
    def key(self) -> tuple:
        """The structure key of every path but the program kernel's: ``program_key`` with the slice
        starts (a compiled model or a graph holds them). Made when first asked: a loop's read that
        the program kernel serves never needs it (sorting a long loop's starts costs ~1 ms)."""
        key = self._key
        if key is None:
            starts = self._starts
            key = self._key = self.program_key + (("starts", tuple(sorted(starts.items()))),) if starts \
                else self.program_key
        return key

    def buffers(self) -> list:
        return [leaf.buffer for leaf in self.traced.leaves]

    def leaf_buffers(self) -> "LeafBuffers":
        """The leaves' buffers as a run indexes them, each asked of its leaf then (the program
        kernel reads a picked element's value from its host memory and never asks its buffer)."""
        return LeafBuffers(self.traced.leaves)

    def graph_inputs(self) -> list:
        """A MAX graph's inputs for this trace: the leaves' buffers, the constants', the signals'."""
        traced = self.traced
        return self.buffers() + self.engine.param_buffers(traced.params) + self.engine.signal_buffers(traced.order)

    def build(self, symbolic: bool):
        """The trace's MAX graph."""
        return self.engine.lower_traced(self.traced, self.outputs, symbolic)


class LeafBuffers:
    """``[leaf.buffer for leaf in leaves]``, each made where it is indexed (``Realization.leaf_buffers``)."""

    __slots__ = ("leaves",)

    def __init__(self, leaves):
        self.leaves = leaves

    def __getitem__(self, k):
        return self.leaves[k].buffer

    def __len__(self) -> int:
        return len(self.leaves)

    def __iter__(self):
        return (leaf.buffer for leaf in self.leaves)


class ExecutionPath:
    """One way to run a trace. ``plan`` is what a path must give; the rest are questions a path
    may answer (the defaults: it does not apply)."""

    def plan(self, r: Realization):
        """The answer for this trace (see the module's docstring), or None where this path does
        not serve it."""
        raise NotImplementedError

    def deferrable(self, impl) -> bool:
        """Whether a joint run may leave this pending tensor pending (the path computes it for
        free inside whatever reads it)."""
        return False

    def prepare(self, engine) -> list:
        """What this path compiles on a cold machine before first use (the Futures)."""
        return []
