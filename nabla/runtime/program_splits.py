"""Where a cut the fused evaluator takes as no one program is split (``program.Scheduler``'s half
that decides it): the values to compute first, each a stage of its own, so that the rest runs as
one. The stage rules' values (a reduction that feeds more work, a computed value that is sliced),
a concatenation's parts, the last value computed in one kind of data and read by another, or the
root's computed operand; a long cut is halved, and so is one asked for parts of parts, so that a
loop's chain is never planned again one step shorter each time (its planning quadratic in the
loop's length).
"""

from __future__ import annotations

from ..core import dtypes as _dt
from ..ops.creation import constant_op
from ..ops.index_primitives import gather_op
from ..ops.multi_output import concat_op
from .fused_stages import stages as first_values

#: a cut of more nodes than this that no rule splits is halved (``_across_kinds``), not peeled
_HALVED_FROM = 64
#: how many parts deep (a part of a cut's part, ...) a long cut is halved at (``Splits._parts``)
_PEELS = 8


class Unplanned(Exception):
    """The trace holds work no stage of the program kernel runs."""


class Splits:
    """The scheduler's splits of refused cuts; it reads the scheduler's ``buffer_of``, ``values_of``,
    ``firsts`` and ``part_depth``."""

    def _parts(self, v, sub, first: list) -> list:
        """``first``, the values to compute before ``v``'s cut ``sub``, after a long cut's middle
        where they are parts of parts ``_PEELS`` deep: in a loop's chain each cut may find only its
        top step's part (the rest read inside the cut, or the evaluator refusing its top), and the
        chain was walked again one step shorter each time, its planning quadratic in the loop's
        length; the middle halves it."""
        depth = self.part_depth.get(id(v), 0) + 1
        if depth > _PEELS and len(sub.origins) > _HALVED_FROM:
            first = self._middle(v, sub) + first
        for u in first:
            self.part_depth[id(u)] = depth
        return first

    def _middle(self, v, sub) -> list:
        """A value of the middle node of cut ``sub`` (of ``v``) that it computes and no buffer holds
        yet, as a list ([] where there is none): computed first, it halves the cut."""
        middle = sub.origins[len(sub.origins) // 2]
        buffer_of = self.buffer_of
        return [u for u in self.values_of.get(id(middle), {}).values()
                if u is not v and id(u) not in buffer_of and middle.op is not constant_op][:1]

    def _first(self, v, sub) -> list:
        """The values to compute first so that more of ``v``'s work runs as one stage (a reduction
        that feeds more work, a computed value that is sliced, ...)."""
        found = self._first_in_cut(sub)
        found = [u for u in found if u is not v and id(u) not in self.buffer_of]
        if not found:  # a concatenation inside: a stage of its own (``_concat``) where the evaluator's fails
            found = [u for n in sub.origins if n.op is concat_op and n is not v.node
                     for u in self.values_of.get(id(n), {}).values()][:1]
        if not found:
            found = self._across_kinds(v, sub)
        if not found:
            raise Unplanned(f"a stage of {[n.op.name for n in sub.origins][:8]}")
        return found

    def _first_in_cut(self, sub) -> list:
        """The values of ``sub`` the fused evaluator's stage rules would compute first, found once per
        structure of cut (an element loop's refused cut recurs thousands of times) and kept as
        places in the cut: a source's number, or a node's position and output."""
        places = self.firsts.get(sub.key)
        if places is None:
            sub.clone()
            found = first_values(sub.order, [sub.result]) if sub.order else []
            found = [sub.original[id(u)] for u in found if id(u) in sub.original]
            source_at = {id(u): k for k, u in enumerate(sub.sources)}
            node_at = {id(n): j for j, n in enumerate(sub.origins)}
            places = self.firsts[sub.key] = [(-1, source_at[id(u)]) if id(u) in source_at else
                                             (node_at[id(u.node)], u.index) for u in found]
        return [sub.sources[k] if j < 0 else self.values_of[id(sub.origins[j])][k] for j, k in places]

    def _across_kinds(self, v, sub) -> list:
        """Values to compute first in a cut the evaluator takes as no one program, where the other
        rules find none. Where it mixes kinds of data (integer index arithmetic feeding a float
        gather, a count of a float test cast through int32): the last value computed in one kind
        and read by work of another (or as a gather's index), so that each stage left reads fewer
        kinds (in a long cut, each such value); else the root's first computed operand, or in a
        long cut its middle. [] where there is none."""
        inside = {id(n) for n in sub.origins}

        def computed_here(u):  # a value this cut computes, not yet in a buffer
            return u is not v and u.node is not None and id(u.node) in inside and id(u) not in self.buffer_of \
                and u.node.op is not constant_op

        kind = {id(u.node): _kind(u.dtype) for n in sub.origins for u in n.inputs if u.node is not None}
        kind[id(v.node)] = _kind(v.dtype)
        # (in a long cut, every such value at once: a loop's ``count += x.any(axis=1)`` crosses kinds
        # at every step, and taking the last one each time planned the chain again one step shorter,
        # its planning quadratic in the loop's length: 300 steps 3.6 s)
        crossing: dict = {}
        for n in reversed(sub.origins):
            for k, u in enumerate(n.inputs):
                if computed_here(u) and (_kind(u.dtype) != kind.get(id(n)) or (n.op is gather_op and k > 0)):
                    if len(sub.origins) <= _HALVED_FROM:
                        return [u]
                    crossing[id(u)] = u
        if crossing:
            return list(crossing.values())
        # none: the root's computed operands first (a gather broadcast into wider work, a running sum
        # of cast work, ...): each is a smaller cut, and the root then reads buffers. A long cut is
        # halved instead: one refused for its size (more inputs than data slots, a loop's chain of
        # distinct constants) would otherwise be planned again one node shorter each time, its
        # planning quadratic in its length
        if len(sub.origins) > _HALVED_FROM:
            found = self._middle(v, sub)
            if found:
                return found
        return [u for u in v.node.inputs if computed_here(u)][:1]


def _kind(dtype) -> str:
    """The kind of data a value is for the scheduler's cuts: bool, integer, float or complex."""
    return "bool" if dtype is _dt.bool_ else "int" if dtype.is_integer else "complex" if dtype.is_complex else "float"
