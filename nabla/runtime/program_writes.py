"""Where a program's writes store (``program.Scheduler``'s half that decides it): into the written
array's own buffer, where nothing reads the array's old values after the write's stage, or into a
copy of it (a stage of its own).

A write may store into its array's buffer when that buffer is an intermediate of the program, or a
leaf that nothing outside the trace can see (``Trace.given``: a loop's field that the step before's
read gave, owned by its value; another leaf's memory is its caller's; a result's and a view's
memory hold other values), whose every other
reader is in a stage already added, and when its own stage reads the array only where that is safe:
whole within one block, which it loads before it stores; at slices apart from the written region;
at the written region itself, element by element (``Trace.write_relations`` says which slice is which,
the key holding it: slice starts are data). Readers of the array that come earlier in the trace's
order are computed first (``_readers_first``), so a loop's fields are copied once a program, not
once a step.
"""

from __future__ import annotations

from ..core.trace_lowering import SAME
from ..ops.index_primitives import set_slice_op
from .program_kernel import COPY
from .program_plan import _Buffer, _Stage

#: the most elements a stage that writes into the array it reads may have: one block, which it
#: loads whole before it stores (a larger one could overwrite what a later block reads)
_IN_PLACE_READS = 1024

#: the most nodes ``_readers_first`` walks from a write's array to the writes that read it
_FIRST_WALK = 64

_NONE: dict = {}


class InPlace:
    """The scheduler's in-place decisions; it reads the scheduler's ``readers``, ``values_of``,
    ``staged``, ``buffer_of``, ``result_ids``, ``node_ids``, ``write_relations`` and ``asked_first``,
    and adds stages with its ``_add`` and ``_new_buffer``."""

    def _readers_first(self, x, write, here, base) -> list:
        """The writes whose stages read ``x`` where its write ``write`` could otherwise store into its
        memory: computed first, x's memory may take the write (fdtd's ``ey[0, :] = f[t]`` after the
        step before read ``ey[1:, :-1]`` for ``hz``). A reader earlier in the trace's order does not
        depend on the write; one later, or a walk past ``_FIRST_WALK`` nodes, leaves x copied.
        Asked once per write."""
        if id(write) in self.asked_first or not self._takes(base, x):
            return []
        self.asked_first.add(id(write))
        limit = self.node_ids[id(write)]
        readers, values_of, staged, buffer_of = self.readers.get, self.values_of.get, self.staged, self.buffer_of
        stack = [n for n in readers(id(x), ()) if n is not write and id(n) not in here and id(n) not in staged]
        seen, first = set(), []
        while stack:
            n = stack.pop()
            if id(n) in seen:
                continue
            seen.add(id(n))
            if len(seen) > _FIRST_WALK or self.node_ids[id(n)] > limit:
                return []
            for v in (values_of(id(n)) or {}).values():
                if id(v) in buffer_of:
                    continue
                if n.op is set_slice_op or id(v) in self.result_ids:
                    first.append(v)
                    continue
                stack.extend(r for r in readers(id(v), ()) if id(r) not in staged)
        return first

    def _written(self, v, base, here, reads_x: bool, elements: int) -> _Buffer:
        """The buffer of ``v``, a write into ``x`` (its node's first operand, whose buffer is
        ``base``): x's own memory where ``_in_place`` allows, else a copy of it (a stage)."""
        x = v.node.inputs[0]
        out = self._new_buffer(v)
        if self._in_place(base, x, v.node, here, reads_x, elements):
            out.same = base.memory()  # (the root: chains of writes stay one step from their memory)
            if out.result:  # the result's buffer is the memory the chain of writes goes to
                base.memory().result = True
        else:
            self._add(_Stage(COPY, 0, None, None, out, out.nbytes, slots=((base, 0),)))
        return out

    def _reads_written(self, write, x, nodes, here) -> bool:
        """Whether ``nodes`` (a stage of ``write``'s value) read ``x``, the array it writes into, where
        the write may store: a slice of x apart from the written region (``Trace.write_relations``) is no
        such read, nor one of the region itself whose values only elementwise ops of the stage read,
        each at its own element (block by block, each element is loaded before it is stored, and by
        no other block). ``here``: the ids of ``nodes``."""
        relations = self.write_relations.get(id(write), _NONE)
        for n in nodes:
            for u in n.inputs:
                if u is x:
                    relation = relations.get(id(n))
                    if relation is None or (relation == SAME and not self._read_in_place(n, here)):
                        return True
        return False

    def _read_in_place(self, node, here) -> bool:
        """Whether every op of the stage (the node ids ``here``) that reads ``node``'s values, and
        what reads those in turn, is elementwise with a result of their shape (no view, gather,
        reduction or broadcast moves an element to another place)."""
        readers, values_of = self.readers.get, self.values_of.get
        stack = [node]
        while stack:
            n = stack.pop()
            for v in (values_of(id(n)) or {}).values():
                for r in readers(id(v), ()):
                    if id(r) not in here:
                        continue
                    fused = r.op.fused
                    if fused is None or fused.code is None or fused.view is not None \
                            or any(w.shape != v.shape for w in (values_of(id(r)) or {}).values()):
                        return False
                    stack.append(r)
        return True

    def _takes(self, base, x) -> bool:
        """Whether a write into ``x`` may store into its buffer ``base``'s memory, its readers aside:
        an intermediate of this program, or a leaf given to its writes (``Trace.given``: another
        leaf's memory is its holders'; not a result's, a view's, nor a foreign op's output), x
        itself no result."""
        memory = base.memory()
        return (memory.leaf is None or memory.leaf in self.given) and not memory.result and not memory.shared \
            and type(memory.arena_at) is not tuple and id(x) not in self.result_ids

    def _in_place(self, base, x, write, here, reads_x: bool, elements: int) -> bool:
        """Whether the write may go to x's own buffer: an intermediate of this program (``_takes``)
        whose every other read is done (each node reading
        it, and whatever reads those nodes' values without a buffer between, is in a stage already
        added), and whose own stage either does not read x or reads it whole before it stores (one
        block)."""
        if not self._takes(base, x):
            return False
        if reads_x and elements > _IN_PLACE_READS:
            return False
        stack = [x]
        push, pop = stack.append, stack.pop
        readers, staged, values_of, buffer_of = self.readers.get, self.staged, self.values_of.get, self.buffer_of
        while stack:
            for n in readers(id(pop()), ()):
                if n is write:
                    continue
                nid = id(n)
                if nid not in here and nid not in staged:
                    return False
                # (what reads n's values without a buffer between reads x too: it must be done, or here)
                of = values_of(nid)
                if of is not None:
                    for w in of.values():
                        if id(w) not in buffer_of:
                            push(w)
        return True
