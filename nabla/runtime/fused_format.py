"""A fused program as the kernel takes it: ``Program`` (the instructions packed behind their
header, the constants, which leaf feeds each data slot) and ``pack_program``, which packs them."""

from __future__ import annotations

import numpy as np

from ..core import dtypes as _dt
from .fused_codes import BYTES, CODES, HEADER, INT_CODES
from .fused_layouts import Offset


class Program:
    """What ``write`` makes of a trace: the program, its constants (layouts included), which leaf
    feeds each data slot, the reduction kind and the output's size."""

    __slots__ = ("program", "consts", "slots", "reduce", "size", "dtype", "count", "scan", "lifted", "out_dtype",
                 "lifted_leaves", "test", "registers", "offsets", "byte_registers")

    def __init__(self, program, consts, slots, reduce, size, dtype, count, scan, lifted=(), out_dtype=None,
                 lifted_leaves=(), registers=None):
        self.program, self.consts, self.slots, self.reduce, self.size = program, consts, slots, reduce, size
        self.dtype = dtype  # of the data slots (BYTES: read through dtype codes)
        self.registers = registers or (_dt.int64 if dtype is BYTES else dtype)
        self.out_dtype = out_dtype or dtype  # a coded program's result dtype
        self.count = count  # a sum of 1 / 0 whose result is int64
        self.scan = scan  # a running sum: 1 forward, 2 reverse
        self.lifted = lifted  # (trace position of a scalar constant, its index in consts): data per run
        self.lifted_leaves = lifted_leaves  # (leaf of one element, its index in consts): read per run
        self.test = 0  # the reduced values' test (``any`` / ``all`` of a count), as in the header
        self.offsets = ()  # (index in consts, Offset): layout offsets that depend on slice starts
        self.byte_registers = False  # a map of bools alone, in registers of one byte (the byte family)


def pack_program(instructions, result_register, kind, rows, inner, consts, slot_of, reduce, size, dtype,
                 count=False, scan=0, lifted=(), out_dtype=None, lifted_leaves=(), registers=None,
                 pair_register=None) -> Program:
    """The instructions packed behind their header, the data slots in the order they were given.
    ``pair_register``: a map's second result, stored interleaved with the first as a complex
    result's (re, im) pairs (the header's seventh field: the register plus one)."""
    program = np.zeros(HEADER + 5 * len(instructions), np.int32)
    out_code = (INT_CODES if registers in (None, _dt.int64) else CODES)[out_dtype] if dtype is BYTES else 0
    pair = 0 if pair_register is None else pair_register + 1
    # (the eighth field: a float program's map whose result is bool, stored as bytes)
    bools = int(dtype is not BYTES and out_dtype is _dt.bool_ and not kind)
    program[:HEADER] = (len(instructions), result_register, kind, rows, inner, out_code, pair, bools)
    program[HEADER:] = np.asarray(instructions, np.int32).reshape(-1)
    slots = [leaf for leaf, _ in sorted(slot_of.items(), key=lambda kv: kv[1])]
    made = Program(program, np.asarray(consts or [0.0], np.float64), slots, reduce, size, dtype, count, scan, lifted,
                   out_dtype, lifted_leaves, registers)
    made.offsets = tuple((k, c) for k, c in enumerate(consts) if type(c) is Offset)
    return made
