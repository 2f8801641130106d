"""Small programs whose length is data: one plan of an op at once over vectors serves every length.

A loop whose slices grow by one each step (trisolv's ``L[i, :i] @ x[:i]``, durbin's ``y[:k]``)
takes each length once per call; a plan per length costs ~40 runs of it, so such a loop would plan
thousands of programs, or record them all. An op over 1-D operands of one length ``n`` (realized
host vectors and slices of host data, 0-d values beside them) with a result of that length or a 0-d
one is planned here at three lengths; where the three programs differ only in numbers that are one
linear function of ``n`` each (a stage's size, a layout's length, the header's reduced run, the
result's bytes), those numbers are patched into the first program before each run of another
length, and the program serves every length from 2 up."""

from __future__ import annotations

import math

import numpy as np

from ..ops.index_primitives import gather_op, nonzero_op, sliced_shape
from .program_kernel import STAGE


#: ops whose first operand's shape is no function of the length (a gather's source, read at the
#: positions; the mask whose true positions nonzero gives, as many as its result's length)
FIXED_FIRST = frozenset((gather_op, nonzero_op))


def length_key(named, items, values, sources, shape):
    """(a key of ``small``'s op over ``values`` without their length, the length n) where the result
    is of length n >= 2, 0-d or of one element (a mean kept 1-D, ``x[:t].std()``'s), and every
    operand is 1-D of length n (a slice of any source, realized host data, a constant) or, beside
    them, realized data of one element (that mean, broadcast) or of a fixed shape (``x[positions]``'s
    source, a mask's nonzero positions' mask: kept in the key whole); None otherwise."""
    if len(shape) > 1:
        return None
    n = shape[0] if shape and shape != (1,) else None
    for k, v in enumerate(values):
        s = v.shape
        if s:
            if s == (1,) and v.node is None:
                continue  # (one element: broadcast along any length, kept in the key whole below)
            if len(s) == 1 and n is None:
                n = s[0]
            elif s != (n,) and (k or v.node is not None or named not in FIXED_FIRST):
                return None  # (a fixed operand: realized data, an op's first that reads it any length)
    if n is None or n < 2 or not any(v.shape == (n,) for v in values):
        return None
    parts = []
    for v, source in zip(values, sources):
        node = v.node
        if node is None:
            parts.append((v.dtype.name, len(v.shape)) if v.shape == (n,) or not v.shape else
                         (v.dtype.name, "fixed", v.shape))
        elif not node.inputs:
            parts.append((v.dtype.name, None))  # (a scalar constant: its value data of the program)
        else:
            sizes = _sizes(node, n)
            if sizes is None:
                return None
            parts.append((v.dtype.name, sizes, source.shape))
    return (named, items, tuple(parts), len(shape), shape == (n,), sharing(values), sharing(sources)), n


def sharing(operands) -> tuple:
    """Which of ``operands`` are one value: per operand, the place of the first that is it (linear: a
    join of 300 picks, ``np.array(values)``, compared every pair, 90,000 a call)."""
    first: dict = {}
    return tuple(first.setdefault(id(v), k) for k, v in enumerate(operands))


def _sizes(node, n):
    """A 1-D slice's sizes and steps with its length ``n`` left out; None for another op."""
    kw = node.kwargs
    if node.op.index_kwarg != "index" or len(kw) != 1 + ("shape" in kw) or kw.get("shape", (n,)) != (n,):
        return None  # (a slice of a vector has no ``shape``: its index says it)
    index = kw["index"]
    return tuple((-1 if size == n else size, c) for size, (_, _, c) in zip(sliced_shape(index), index))


def at_length(kwargs: dict, n: int, m: int) -> dict:
    """A 1-D slice's kwargs (of length ``n``) for length ``m``: the same start and step."""
    index = kwargs["index"]
    index = tuple((a, a + m * c, c) if size == n else (a, b, c) for size, (a, b, c) in zip(sliced_shape(index), index))
    return {"index": index, "shape": (m,)} if "shape" in kwargs else {"index": index}


class LengthPatches:
    """Where a program's length enters its arrays, each (array, position, slope, intercept): the
    number there is ``slope * n + intercept``; ``nbytes`` its result's bytes, the same way."""

    __slots__ = ("patches", "nbytes", "length", "operand", "along")

    def __init__(self, patches, nbytes, length):
        self.patches, self.nbytes, self.length = patches, nbytes, length
        self.operand = 0  # (an operand of that length: a run reads its length there)
        self.along = True  # (whether the result is of that length: else 0-d or of one element)

    def set(self, program, n: int) -> None:
        """Patch ``program``'s arrays for length ``n`` (under the caller's lock)."""
        if n != self.length:
            for array, at, slope, intercept in self.patches:
                array[at] = slope * n + intercept
            slope, intercept = self.nbytes
            program.nbytes = slope * n + intercept
            self.length = n


_SAME = ("places", "starts", "sources", "offsets", "constants", "lifted", "result_at", "result_also", "dtype")


def length_patches(programs, lengths) -> LengthPatches | None:
    """The patches that make ``programs[0]`` (planned at ``lengths[0]``) any length, from the same op
    planned at the other lengths; None where they differ in more than linear numbers."""
    first = programs[0]
    if first.fills or any(p.fills or any(getattr(p, f) != getattr(first, f) for f in _SAME)
                          or p.plan.arena_bytes != first.plan.arena_bytes
                          or len(p.plan.programs) != len(first.plan.programs) for p in programs):
        return None
    arrays = [[p.plan.consts, _call(p), *p.plan.programs] for p in programs]
    live = [first.quick.consts, first.quick.call, *first.plan.programs]
    segment = first.plan.segments[0]
    addresses = {int(at) for places, _ in segment.based for at in places}  # (a base's address added)
    patches = []
    n0, n1, n2 = lengths
    for k, (a, b, c) in enumerate(zip(*arrays)):
        if a is None and b is None and c is None:
            continue  # (a stage of no program array: a mask's nonzero, its sizes in the call array)
        if a is None or b is None or c is None or a.shape != b.shape or a.shape != c.shape:
            return None  # (a stage of no program array of its own: planned per length)
        bits = [x.view(np.int64) if x.dtype == np.float64 else x for x in (a, b, c)]  # (NaN's bits equal)
        for at in np.flatnonzero((bits[0] != bits[1]) | (bits[0] != bits[2])).tolist():
            line = _line(a[at].item(), b[at].item(), c[at].item(), n0, n1, n2)
            if line is None or (k == 1 and at in addresses):
                return None
            patches.append((live[k], at, *line))
    nbytes = _line(*(p.nbytes for p in programs), n0, n1, n2)
    return None if nbytes is None else LengthPatches(tuple(patches), nbytes, n0)


def _call(program) -> np.ndarray:
    """A program's call array before its addresses are added, its stages' program addresses zero."""
    call = program.plan.segments[0].call.copy()
    for i in range(int(call[0])):
        call[1 + STAGE * i + 2] = 0
    return call


def _line(v0, v1, v2, n0, n1, n2):
    """(slope, intercept), integers, of the line through (n0, v0), (n1, v1), (n2, v2); None if none."""
    if not all(math.isfinite(v) and v == int(v) for v in (v0, v1, v2)):
        return None
    slope, rest = divmod(int(v0) - int(v1), n0 - n1)
    if rest or int(v1) - int(v2) != slope * (n1 - n2):
        return None
    return slope, int(v0) - slope * n0
