"""A small op's program over realized host data (``SmallProgram``): what ``SmallOps.small``
(``host_small.py``) keeps per structure and writes at each run, the slices' starts and the
constants' values being data."""

from __future__ import annotations

import numpy as np

from .program_kernel import module as _kernel_module


class SmallProgram:
    """One op's quick plan over realized host data, slices of it and scalar constants
    (``SmallOps.small``), run without the plan's general runner: where each source's address
    goes in the call array, moved by its slice's starts (``places``: (position, operand whose
    source it is, byte offset, ((operand whose starts move it, axis, coefficient), ...))), which
    operand's starts each slice node of the trace takes (``starts``: (trace position, operand)),
    where the result's address goes, and its dtype and bytes."""

    __slots__ = ("plan", "quick", "places", "starts", "sources", "offsets", "constants", "lifted", "result_at",
                 "result_also", "dtype", "nbytes", "fills", "run", "uses", "lengths", "shape", "result_dtype", "holds")

    def __init__(self, plan, source_of, operand_at, constants, shape, dtype):
        quick = plan.quick
        # (scalar constant operands: (trace position, operand) and (place in the constants, integer
        # family, operand): a run writes their values, data as a read's are)
        self.constants = tuple(constants.items())
        self.lifted = tuple((j, ints, constants[pos]) for pos, j, ints in plan.lifted if pos in constants)
        self.plan, self.quick, self.dtype = plan, quick, _numpy_dtype(dtype)
        self.shape, self.result_dtype = shape, dtype  # (its result's: at one length, for a program of any)
        self.holds = None  # (a complex result's dtype, its storage's being ``result_dtype``)
        self.places = [(at, source_of[index], int(offset), ()) for at, _, index, offset in quick.leaves]
        for at, _, index, offset in quick.moving:
            terms = tuple((operand_at[pos], axis, c) for (pos, axis), c in offset.terms.items())
            self.places.append((at, source_of[index], offset.const, terms))
        self.starts = tuple(operand_at.items())
        self.sources = source_of  # (per leaf of the trace, the operand whose source it is)
        # (its result's address, at offset 0: ``_plan_small`` takes no other; a program of stages
        # that each write it, a scatter's copy and its writes, takes it at each place)
        self.result_at = quick.places[0][0]
        self.result_also = tuple(at for at, _, _ in quick.places[1:])
        self.nbytes = plan.result_specs[0][2]
        # (starts into layouts: per constant, its base and terms (operand whose starts, axis,
        # coefficient), written by a run, as the constants' values are; one-element leaves read
        # into the constants, or a long table of offsets: the plan's own fill)
        offsets = plan.offsets
        self.offsets = () if offsets is None or offsets.entries is None else _offset_groups(
            (j, base, tuple((operand_at[pos], axis, c) for pos, axis, c in terms))
            for j, base, terms in offsets.entries)
        self.fills = bool(plan.read) or (offsets is not None and offsets.entries is None)
        self.run = _kernel_module().run
        self.uses = 0
        self.lengths = None  # (``host_lengths.LengthPatches``: a program of any length, patched per run)


def _offset_groups(entries) -> tuple:
    """A program's start offsets (constant, base, ((operand, axis, coefficient), ...)) as groups of one
    sum of starts: ``(((operand, axes, coefficients), ...), ((constant, base), ...))``, axes None for
    every axis in order. A complex operand's real and imaginary loads, and each load of one slice,
    move by one sum: ``G[k, E - w, n] @ dH[a, b, i]`` wrote 8 constants of 6 terms each, 2 sums now."""
    groups: dict = {}
    for j, base, terms in entries:
        groups.setdefault(terms, []).append((j, base))
    out = []
    for terms, pairs in groups.items():
        parts: dict = {}
        for k, axis, c in terms:
            if c:
                parts.setdefault(k, []).append((axis, c))
        out.append((tuple((k, None if [a for a, _ in found] == list(range(len(found))) else tuple(a for a, _ in found),
                           tuple(c for _, c in found)) for k, found in parts.items()), tuple(pairs)))
    return tuple(out)


def _numpy_dtype(dtype):
    return np.dtype(np.bool_) if dtype.numpy_dtype == np.bool_ else dtype.numpy_dtype
