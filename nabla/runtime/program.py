"""A trace as one program of stages, run by the program kernel in one call (``program_kernel.py``).

The scheduler cuts a trace into stages, each a program of the fused evaluator (``fused_program.py``:
registers over blocks of the stage's elements, inputs read through strided layouts) whose result
gets a buffer: a reduction whose result feeds more work, a computed value that is sliced or
transposed, each of the trace's results (``fused_stages.stages`` names such values), and slice
writes, which are a copy of the written array and a program of the written values stored through
the slice's layout (``x[1:-1, 1:-1] = ...`` writes only the slice; where nothing else reads the
written array, no copy: the write goes to its buffer), and row writes (``x[mask] = v``, ``x[idx] =
v``: a scatter of ``v``'s rows to the rows ``idx`` names, in order, so the last write wins). The
stages' buffers are the trace's leaves, its results (fresh buffers, one per result) and an arena
of intermediates; the kernel gets all of them by address, so a read pays one call however many
stages its trace has.

A plan (``program_plan.ProgramPlan``) is made once per structure (and set of leaf shapes) and kept
by the engine. Scalar constants and slice starts are data, not structure (``x[i] = x[i - 1] + c`` is
one structure for every ``i`` and ``c``): a later run binds its buffers' addresses, its constants and
the layout offsets its starts give into a copy of the plan's call array and constants, and calls the
kernel. tinygrad's
schedule per realize, with numexpr's idea that the program is data: nothing compiles per
structure.
"""

from __future__ import annotations

import math

import numpy as np

from ..core import dtypes as _dt
from ..ops.index_primitives import gather_op, nonzero_op, one_run, scatter_add_op, scatter_op, set_slice_op
from ..ops.linalg import matmul_op
from ..ops.multi_output import concat_op
from .fused import Plan, ViewPlan, plan as plan_stage
from .fused_complex import real_products
from .fused_codes import _LOAD, BYTES, CODES, INT_CODES, constant_bits, reduce_kind
from .fused_layouts import slice_layout
from .fused_format import pack_program
from .fused_matmul import taking_large_matmuls
from .program_kernel import COPY, GATHER, MAP, NONZERO, REDUCE, SCAN, SCATTER, SCATTER_ADD, family
from .program_kernel import loaded as _kernel_loaded, module as _kernel_module
from .program_cut import Cut, ends_below, ends_program
from .program_plan import _FOREIGN, ProgramPlan, _Buffer, _Stage
from .program_stops import empty_sum, foreign, forget_foreign, is_free, stop_ids
from .program_splits import Splits, Unplanned
from .program_writes import InPlace

_MAP, _REDUCE, _SCAN, _COPY, _SCATTER, _SCATTER_ADD, _NONZERO, _GATHER = MAP, REDUCE, SCAN, COPY, SCATTER, \
    SCATTER_ADD, NONZERO, GATHER


#: dtype -> the program that loads a buffer of it, stored through a slice's layout (its element
#: count is the stage's; read-only once made, shared by the stages of every plan)
_LOADS: dict = {}

#: a cut's plan where it is to be walked again, its deeper operands first (``Cut.deepen``)
_DEEPER = "deeper"



class Scheduler(InPlace, Splits):
    """Cuts one trace into stages (see the module's docstring); where its writes store, ``InPlace``."""

    def __init__(self, order, leaves, outputs, node_ids, write_relations=None, given=()):
        self.order, self.leaves, self.outputs = order, leaves, outputs
        self.node_ids = node_ids
        self.write_relations = write_relations or {}  # (``Trace.write_relations``)
        self.given = frozenset(given)  # (the leaves a write may store into: ``Trace.given``)
        self.buffers: list[_Buffer] = [_Buffer(k, leaf, leaf=k) for k, leaf in enumerate(leaves)]
        self.buffer_of: dict[int, _Buffer] = {id(leaf): b for leaf, b in zip(leaves, self.buffers)}
        self.stages: list[_Stage] = []
        self.result_ids = {id(v) for v in outputs}
        self.readers: dict[int, list] = {}  # id(value) -> the nodes that read it
        self.values_of: dict[int, dict] = {}  # id(node) -> {output index: value} the trace uses
        self.staged: set = set()  # ids of the nodes whose work a stage added so far does
        self.asked_first: set = set()  # ids of the writes whose readers of their array were asked for (``_readers_first``)
        self.plans: dict = {}  # a cut's structure -> its plan
        self.waiting: dict = {}  # id(value) -> its cut, walked while some of its sources lacked buffers
        self.part_depth: dict = {}  # id(value) -> how many parts deep it was asked for (``_planned``)
        self.firsts: dict = {}  # a cut's structure -> where in it the values to compute first are
        # ids of the nodes a cut stops at: stages of their own kinds, and work no stage does
        self.stop_ids = stop_ids(order)
        readers, values_of = self.readers, self.values_of
        readers_get, values_get = readers.get, values_of.get
        for n in order:  # (methods bound once: a loop's trace has hundreds of thousands of nodes)
            for v in n.inputs:
                vid = id(v)
                found = readers_get(vid)
                if found is not None:
                    found.append(n)
                    continue
                readers[vid] = [n]
                m = v.node  # (a value's node and index are known from its first read)
                if m is not None:
                    of = values_get(id(m))
                    if of is None:
                        values_of[id(m)] = {v.index: v}
                    else:
                        of[v.index] = v
        for v in outputs:
            self.values_of.setdefault(id(v.node), {})[v.index] = v

    def schedule(self) -> None:
        if all(id(n) in self.stop_ids and foreign(n) or not n.inputs for n in self.order):
            raise Unplanned("no work of the kernel's")  # (the engine's other paths run it as it is)
        for v in self.outputs:
            if not v.device.is_host:
                raise Unplanned("device")
            self.compute(v)

    # --- buffers and stages ----------------------------------------------------------------------
    def _new_buffer(self, v) -> _Buffer:
        b = _Buffer(len(self.buffers), v, result=id(v) in self.result_ids)
        self.buffers.append(b)
        self.buffer_of[id(v)] = b
        return b

    def compute(self, v) -> _Buffer:
        """The buffer holding ``v`` once the stages so far have run, adding the stages it needs
        (iteratively: a loop's chain of slice writes is thousands of values deep)."""
        stack = [v]
        while stack:
            u = stack[-1]
            if id(u) in self.buffer_of:
                stack.pop()
                continue
            need = self._step(u)
            if need:  # (the deepest on top: each one's cut then stops at the buffers of those before it)
                stack.extend(reversed(need))
            else:
                stack.pop()
        return self.buffer_of[id(v)]

    def _step(self, v) -> list:
        """Add the stages computing ``v``, or name the values to compute first."""
        if v.node is None:
            raise Unplanned("a leaf the trace does not list")
        if 0 in v.shape:  # nothing to compute: a result's buffer is its shape
            self._new_buffer(v)
            return []
        if id(v.node) in self.stop_ids and foreign(v.node):
            return self._foreign(v)
        if v.node.op is set_slice_op:
            return self._setitem(v)
        if v.node.op is scatter_op or v.node.op is scatter_add_op:
            return self._rows(v)
        if v.node.op is nonzero_op:
            return self._nonzero(v)
        if v.node.op is gather_op and self._gathered_rows(v):
            return []
        if v.node.op is matmul_op and empty_sum(v.node):
            self._fill(v, 0)
            return []
        planned = self._planned(v)
        if type(planned) is list:
            return planned
        sub, plan = planned
        if not plan and v.node.op is concat_op:
            return self._concat(v)
        if not plan:
            return self._parts(v, sub, self._first(v, sub))
        if isinstance(plan, ViewPlan):  # a contiguous run of a buffer: copied (a result owns its buffer)
            src = self.buffer_of[id(sub.sources[plan.leaf])]
            out = self._new_buffer(v)
            offset = sub.offset(plan.offset * v.dtype.itemsize, self.node_ids)
            memory = src.memory()
            if type(offset) is int and offset == 0 and out.nbytes == memory.nbytes \
                    and memory.leaf is None and type(memory.arena_at) is not tuple:
                # (the whole of an intermediate or of a result in another shape, a view and its
                # base, a complex write's storage, a product's operand reshaped: the value is that
                # memory, which no later write of the program stores into; a result is a read-only
                # value, a host write into one copies it first, ``host_writes._memory``)
                out.same = memory
                if out.result:
                    memory.result = True
                memory.shared = True
                self.staged.update(map(id, sub.origins))
            else:
                self._add(_Stage(_COPY, 0, None, None, out, out.nbytes, slots=((src, offset),)), sub.origins)
        else:
            buffer_of = self.buffer_of
            if any(buffer_of[id(sub.sources[k])].memory().leaf is None for k, _ in plan.program.lifted_leaves):
                # (one-element inputs past the data slots are read into the constants before the
                # call, which only a trace's leaf can be: a loop's ``s = s + x @ y`` sums a computed
                # scalar a step. The cut is split as one the evaluator refuses, where the whole
                # trace went stage by stage, each stage tracing the loop's work again from its start)
                return self._parts(v, sub, self._first(v, sub))
            self._program_stage(plan.program, sub, self._new_buffer(v))
        return []

    def _cut(self, v) -> Cut:
        """``v``'s cut, walked; or the one walked before, where its sources then lacked buffers
        (``missing``: values of stages of their own kinds and of reductions, computed since), which
        the walk would find again as it was (a loop's slice write waits on the write before it)."""
        sub = self.waiting.pop(id(v), None)
        if sub is not None and sub.value is v and all(id(u) in self.buffer_of for u in sub.missing):
            sub.missing = []
            return sub
        sub = Cut(v, self.buffer_of, self.stop_ids)
        if sub.missing:
            self.waiting[id(v)] = sub
        return sub

    def _planned(self, v):
        """``(cut, plan)`` of ``v``'s work (the plan False where the fused evaluator takes the cut as
        no one program), or the values to compute first: those that end a program below its root,
        sources without buffers yet, parts worth a stage of their own."""
        first = self._ends_read(v.node)
        if first:
            return first
        sub = self._cut(v)
        if sub.missing:
            return sub.missing
        first = sub.first_parts(self.readers)
        if first:
            return self._parts(v, sub, first)
        return sub, self._plan(sub)

    def _ends_read(self, node) -> list:
        """``node``'s operands whose values end a program (``ends_program``) and have no buffer yet:
        computed first, as its cut would find them, without walking the cut (a loop's ``A[i, j] -=
        A[i, :j] @ A[:j, j]``); none below a count's test (``ends_below``)."""
        if not ends_below(node.op):
            return []
        buffer_of = self.buffer_of
        return [u for u in node.inputs if u.node is not None and id(u) not in buffer_of and ends_program(u.node.op)]

    def _foreign(self, v) -> list:
        """A stage that runs ``v``'s node alone on the engine's other paths, its operands computed
        first; every value of the node the trace uses gets its result."""
        node = v.node
        missing = [u for u in node.inputs if id(u) not in self.buffer_of and not is_free(u)]
        if missing:
            return missing
        made = [self._new_buffer(u) for u in self._used(v)]
        for b in made:
            b.arena_at = ("foreign", None)  # (its memory is the engine's result: never written in place)
        stage = _Stage(_FOREIGN, 0, None, None, made, 0,
                       slots=tuple(("free", u, self.node_ids[id(u.node)]) if is_free(u) else self.buffer_of[id(u)]
                                   for u in node.inputs))
        stage.program = node  # (the node to run, with its outputs' indices)
        self._add(stage, (node,))
        return []

    def _used(self, v) -> list:
        """The values of ``v``'s node that the trace uses, in output order (each gets a buffer)."""
        return sorted(self.values_of.get(id(v.node), {v.index: v}).values(), key=lambda u: u.index)

    def _fill(self, v, value) -> None:
        """A stage writing ``value`` everywhere in ``v``'s buffer."""
        float_data = v.dtype in (_dt.float32, _dt.float64)
        prog = pack_program([(1, 0, 0, 0, 0)], 0, 0, 1, 1, [constant_bits(value, not v.dtype.is_floating)], {}, 0,
                             math.prod(v.shape), v.dtype if float_data else BYTES, out_dtype=v.dtype,
                             registers=v.dtype if float_data else (_dt.float64 if v.dtype.is_floating else _dt.int64))
        self._add(_Stage(_MAP, family(prog), prog.program, prog.consts, self._new_buffer(v), prog.size), (v.node,))

    def _plan(self, sub):
        """The fused evaluator's plan for a cut, made once per structure of cut in this trace (an
        element loop's stages repeat it thousands of times, their slice starts data)."""
        plan = self.plans.get(sub.key)
        if plan is _DEEPER:  # (walked in order, this structure's program held too many values at once)
            plan = None if not sub.deepen(self.buffer_of, self.stop_ids) else self.plans.get(sub.key)
            if plan is _DEEPER:
                plan = None
        if plan is None:
            sub.clone()
            # (False where there is none: kept, so a structure the evaluator refuses is asked once)
            plan = plan_stage(sub.order, sub.leaves, [sub.result], sub.node_ids, sub.leaf_ids) or False
            key = sub.key
            if not plan and sub.deepen(self.buffer_of, self.stop_ids) and sub.key != key:
                self.plans[key] = _DEEPER
                return self._plan(sub)  # (once: the cut is walked deep now)
            self.plans[sub.key] = plan
        return plan

    def _program_stage(self, program, sub, out, layout=None) -> _Stage:
        # one-element inputs beyond the data slots are read into the constants per run: the trace's
        # leaves (``trace += tanh(a[i, i])`` over i holds a picked element per step)
        read = []
        for k, at in program.lifted_leaves:
            b = self.buffer_of[id(sub.sources[k])].memory()
            if b.leaf is None:
                raise Unplanned("a computed one-element input beyond the data slots")
            read.append((b.leaf, at))
        kind = _REDUCE if program.reduce else (_SCAN if program.scan else _MAP)
        slots = tuple((self.buffer_of[id(sub.sources[k])], 0) for k in program.slots)
        lifted = tuple((sub.position(i, self.node_ids), at) for i, at in program.lifted)
        if program.test and program.dtype is not BYTES and out.value.dtype is _dt.bool_:
            out.nbytes = 8  # (a tested count of floats: an int64 1 / 0, read as its first byte)
        offsets = tuple((j, sub.offset(off, self.node_ids)) for j, off in program.offsets)
        stage = _Stage(kind, family(program), program.program, program.consts, out, program.size, layout,
                       int(bool(program.count)), slots, lifted, program.registers is _dt.int64, offsets)
        stage.read = tuple(read)
        self._add(stage, sub.origins)
        return stage

    def _add(self, stage, nodes=()) -> None:
        self.stages.append(stage)
        self.staged.update(map(id, nodes))

    # --- slice writes ----------------------------------------------------------------------------
    def _setitem(self, v) -> list:
        """``x[index] = value``: x copied into the result's buffer (or, where nothing else reads x,
        x's buffer taken over), then the value's program stored through the slice's layout of it."""
        node = v.node
        x, value = node.inputs
        if "complex_storage" in node.kwargs or value.dtype is not x.dtype:
            raise Unplanned("setitem")
        if id(x) not in self.buffer_of:
            return [x]
        index = node.kwargs["index"]
        if value.node is not None and id(value) not in self.buffer_of and ends_program(value.node.op):
            into = self._reduce_into(v, x, value, index)
            if into is not None:
                return into
        store = self._store_plan(value)
        if isinstance(store, list):
            return store
        base = self.buffer_of[id(x)]
        here = frozenset(map(id, store[0].origins)) if store is not None else frozenset()
        first = self._readers_first(x, node, here, base)
        if first:
            return first
        # reads of x by this write's own stage (``p[:, -1] = p[:, -2]``)
        reads_x = (value is x) if store is None else self._reads_written(node, x, store[0].origins, here)
        out = self._written(v, base, here, reads_x, math.prod([len(range(*sl)) for sl in index]))
        self._store(value, store, out, slice_layout(x.shape, index, self.node_ids[id(node)]))
        self.staged.add(id(node))
        return []

    def _reduce_into(self, v, x, value, index):
        """``x[index] = r`` for a reduction ``r`` that only this write reads, into a slice that is one
        run of x's memory: r's stage stores its outputs there (gramschmidt's ``R[k, j] = dot(Q[:, k],
        A[:, j])`` one stage, where r's own buffer and a load of it into the slice were two). None where
        that does not hold (the write then loads r's buffer); else the values to compute first, or
        [] once done."""
        elements = math.prod(value.shape)
        if not elements or id(value) in self.result_ids or len(self.readers.get(id(value), ())) != 1 \
                or id(value.node) in self.stop_ids or (value.node.op is matmul_op and empty_sum(value.node)) \
                or not one_run(x.shape, index):
            return None
        planned = self._planned(value)
        if type(planned) is list:
            return planned
        sub, plan = planned
        if not isinstance(plan, Plan) or plan.program.scan or plan.program.test or plan.program.count \
                or plan.program.size != elements:
            return [value]  # (its stage of its own, then loaded, as ``_store_plan`` has it)
        here = frozenset(map(id, sub.origins))
        reads_x = self._reads_written(v.node, x, sub.origins, here)
        out = self._written(v, self.buffer_of[id(x)], here, reads_x, elements)
        stage = self._program_stage(plan.program, sub, out)
        stage.out_at = slice_layout(x.shape, index, self.node_ids[id(v.node)])[1] * x.dtype.itemsize
        self.staged.add(id(v.node))
        return []

    def _store(self, value, store, out, layout) -> None:
        """A stage storing ``value`` through ``layout`` (a slice of ``out``'s buffer): its program
        (``store``, from ``_store_plan``), or a program of one load where it has a buffer."""
        if store is not None:
            sub, program = store
            self._program_stage(program, sub, out, layout)
            return
        src = self.buffer_of[id(value)]
        size = math.prod(value.shape)
        prog = _LOADS.get(value.dtype)
        if prog is None:
            float_data = value.dtype in (_dt.float32, _dt.float64)
            # (integers through int64 registers, every bit kept; float16 through float64's)
            ints = value.dtype in INT_CODES
            code = INT_CODES[value.dtype] if ints else CODES.get(value.dtype)
            if code is None:
                raise Unplanned("dtype")
            prog = _LOADS[value.dtype] = pack_program(
                [(_LOAD, 0, 0, 0, 0 if float_data else code)], 0, 0, 1, 1, [0.0], {0: 0}, 0, 0,
                value.dtype if float_data else BYTES, out_dtype=value.dtype,
                registers=value.dtype if float_data else _dt.int64 if ints else _dt.float64)
        self._add(_Stage(_MAP, family(prog), prog.program, prog.consts, out, size, layout, slots=((src, 0),)))

    def _concat(self, v) -> list:
        """A concatenation the fused evaluator does not take whole (more parts than it holds
        registers for: ``stack`` of 128 rows): each part stored into its slice of the result."""
        node = v.node
        axis = node.kwargs["axis"]
        parts = [u for u in node.inputs if u.shape[axis]]
        stores, missing = [], []
        for u in parts:
            store = self._store_plan(u)
            if isinstance(store, list):
                missing += [w for w in store if all(w is not m for m in missing)]
            stores.append(store)
        if missing:
            return missing
        out = self._new_buffer(v)
        at = 0
        for u, store in zip(parts, stores):
            index = tuple((at, at + n, 1) if a == axis else (0, n, 1) for a, n in enumerate(u.shape))
            self._store(u, store, out, slice_layout(v.shape, index))
            at += u.shape[axis]
        self.staged.add(id(node))
        return []

    def _gathered_rows(self, v) -> bool:
        """``take`` along a leading axis of values held in buffers already (a mask's selection
        ``Z[I]``, a permutation's rows): each row of the result copied from the row its index names,
        a copy of bytes (where a program computed each element's place and gathered it, a complex
        one from its pair's two); False where a program takes it (work of the gathered values, a
        computed index, an axis past rows of other axes)."""
        node = v.node
        x, idx = node.inputs
        axis = node.kwargs["axis"]
        if id(x) not in self.buffer_of or id(idx) not in self.buffer_of or idx.dtype is not _dt.int64 \
                or math.prod(x.shape[:axis]) != 1 or not math.prod(x.shape):
            return False
        slots = ((self.buffer_of[id(x)], 0), (self.buffer_of[id(idx)], 0))
        row_bytes = math.prod(x.shape[axis + 1:]) * x.dtype.itemsize  # (complex storage: its pair too)
        self._add(_Stage(_GATHER, 0, None, None, self._new_buffer(v), math.prod(idx.shape), count=row_bytes,
                         slots=slots), (node,))
        return True

    def _rows(self, v) -> list:
        """Row writes and row additions: ``x`` copied into the result's buffer (or x's buffer taken
        over, as a slice write does), then each of ``u``'s rows, in order, copied (``scatter``: to
        the rows ``idx`` names of x's leading ``k`` axes, flattened; the last write wins) or added
        (``scatter_add``: bincount's, histogram's, ``add.at``'s, along ``axis``; repeats add up)."""
        node = v.node
        x, u, idx = node.inputs
        missing = [w for w in (x, u, idx) if id(w) not in self.buffer_of]
        if missing:
            return missing
        out = self._written(v, self.buffer_of[id(x)], frozenset(), u is x or idx is x, math.prod(x.shape))
        rows = math.prod(idx.shape)
        slots = ((self.buffer_of[id(u)], 0), (self.buffer_of[id(idx)], 0))
        if not rows or not math.prod(x.shape):
            self.staged.add(id(node))
        elif node.op is scatter_op:
            row_bytes = math.prod(x.shape[node.kwargs["k"]:]) * x.dtype.itemsize  # (complex storage: its pair too)
            self._add(_Stage(_SCATTER, 0, None, None, out, rows, count=row_bytes, slots=slots), (node,))
        else:
            axis = node.kwargs["axis"]
            sizes = (math.prod(x.shape[:axis]), x.shape[axis], math.prod(x.shape[axis + 1:]))
            self._add(_Stage(_SCATTER_ADD, CODES[x.dtype], None, np.array(sizes, np.float64), out, rows,
                             slots=slots), (node,))
        return []

    def _nonzero(self, v) -> list:
        """The coordinates of a bool array's true elements, one int64 vector per axis (their count,
        read before, is the outputs' length): a stage per axis the trace uses, each a pass over the
        array in order."""
        node = v.node
        mask = node.inputs[0]
        if id(mask) not in self.buffer_of:
            return [mask]
        source = self.buffer_of[id(mask)]
        shape = mask.shape
        for u in self._used(v):
            out = self._new_buffer(u)
            count = math.prod(u.shape)
            if count:
                axis = u.index
                extent = (math.prod(shape[axis + 1:]), shape[axis])  # coordinate: (i // stride) % size
                self._add(_Stage(_NONZERO, 0, None, np.array(extent, np.float64), out, math.prod(shape), count=count,
                                 slots=((source, 0),)))
        self.staged.add(id(node))
        return []

    def _store_plan(self, value):
        """How a slice write's value is computed: None when it has a buffer (loaded as it is),
        (cut, program) for a program whose values are stored through the slice's layout, or the
        values to compute first."""
        if value.node is None or id(value) in self.buffer_of:
            return None
        if id(value.node) in self.stop_ids:  # (foreign work, or a stage of its own kind: a write of
            return [value]  # a view's values into its parent, ``v[0] = i`` through ``v = v[1:]``)
        if reduce_kind(value.node.op) is not None:  # (computed into a buffer of its own, then loaded:
            return [value]  # a loop's ``t[j] = x[:i] @ y[:i]`` found so without walking its cut first)
        planned = self._planned(value)
        if type(planned) is list:
            return planned
        sub, plan = planned
        if isinstance(plan, Plan) and not plan.program.reduce and not plan.program.scan and not plan.program.test:
            return sub, plan.program
        if plan:  # (a reduction, or a view: computed into a buffer of its own, then loaded)
            return [value]
        return self._first(value, sub)

    # --- the plan --------------------------------------------------------------------------------
    def plan(self) -> "ProgramPlan":
        return ProgramPlan(self.stages, self.buffers, self.outputs, self.buffer_of)


def schedule(order, leaves, outputs, node_ids, model_ready=None, write_relations=None, given=()) -> ProgramPlan | None:
    """The program for a trace, or None when some of its work is not the program kernel's. A matmul
    past ``MATMUL_PRODUCTS`` is the kernel's where ``model_ready(node)`` is false (no model of it on
    this machine yet). ``given``: the leaves its writes may store into (``Trace.given``)."""
    with taking_large_matmuls(None if model_ready is None else lambda node: not model_ready(node)):
        try:
            order, outputs, node_ids = real_products(order, outputs, node_ids)
            s = Scheduler(order, leaves, outputs, node_ids, write_relations, given)
            s.schedule()
        except Unplanned:
            return None
        finally:
            forget_foreign()
        return s.plan()


class ProgramPath:
    """The engine's hook (``Engine.programs``): a trace's program, and whether the kernel is built."""

    @staticmethod
    def plan(order, leaves, outputs, node_ids, model_ready=None, write_relations=None, given=()):
        return schedule(order, leaves, outputs, node_ids, model_ready, write_relations, given)

    @staticmethod
    def ready() -> bool:
        return _kernel_loaded() or _kernel_module() is not None
