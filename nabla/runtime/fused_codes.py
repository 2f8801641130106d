"""The fused kernel's tables (``kernels/evaluator/fused.mojo``): opcodes keyed by op name, gathered from
each op's own ``fused`` (``core.operation.Fused``), dtype codes, and which ops each family runs. The Mojo kernel's numbers come from here; a
test checks the kernel's against them."""

from __future__ import annotations

import struct
from pathlib import Path

from ..core import dtypes as _dt
from ..ops import registry
from ..ops.elementwise import BINARY_OPS, UNARY_OPS
from ..ops.sorting import ArgReduceOp

#: opcodes of the instructions that are not ops: load a data slot, a constant, ``where``, wrap to a
#: narrow integer dtype, an axis index, a gather at positions a register holds
_LOAD, _CONST, _WHERE, _WRAP, _AXIS_INDEX, _GATHER = 0, 1, 60, 61, 62, 63

#: every op the fused kernel takes, by name, with how it takes it (each op's ``fused``: its row in
#: ops/elementwise.py, or its class)
_FUSED = {name: op.fused for name, op in registry().items() if op.fused is not None}

#: op name -> opcode of kernels/evaluator/fused.mojo
UNARY_CODES = {name: f.code for name, f in _FUSED.items() if f.code is not None and name in UNARY_OPS}
BINARY_CODES = {name: f.code for name, f in _FUSED.items() if f.code is not None and name in BINARY_OPS}

#: the opcodes the byte family runs (``Fused.bytes``: bools to a bool)
BYTE_CODES = frozenset(f.code for f in _FUSED.values() if f.bytes)

#: reductions -> their kind in the program's header
REDUCE_CODES = {name: f.reduce for name, f in _FUSED.items() if f.reduce is not None}

#: reductions to a position (int64, whatever the registers), over one ``axis``
ARG_REDUCE = frozenset(name for name in REDUCE_CODES if isinstance(registry()[name], ArgReduceOp))

#: the integer family's dtypes -> their codes in kernels/evaluator/fused.mojo
INT_CODES = {_dt.bool_: 0, _dt.int8: 1, _dt.int16: 2, _dt.int32: 3, _dt.int64: 4, _dt.uint8: 5, _dt.uint16: 6,
             _dt.uint32: 7, _dt.uint64: 4}

#: of those, the ones with an opcode of their uint64 form (the others run elsewhere on uint64)
UNSIGNED_CODES = {name: f.unsigned for name, f in _FUSED.items() if f.unsigned is not None}

#: of those, the ones with an opcode of their form on float16 data (``Fused.half``)
HALF_CODES = {name: f.half for name, f in _FUSED.items() if f.half is not None}

#: every dtype a coded program reads or writes -> its code (the integer family's, and the floats)
CODES = {**{d: c for d, c in INT_CODES.items() if d is not _dt.uint64}, _dt.float32: 8, _dt.float64: 9,
         _dt.float16: 10, _dt.uint64: 11}

#: float16 work runs in float32 registers, each float16 result rounded (``_WRAP`` to this code), as
#: NumPy's float16 loops compute in float32 and round
HALF = CODES[_dt.float16]

#: what the integer family's programs take as data: bytes
BYTES = _dt.uint8

SLOTS = 8  # data slots of a program (the program kernel's call has room for eight per stage)

_REGISTERS = 24

#: n_instructions, result register, reduction (or scan) kind, reduced extent r, inner extent, output code,
#: the reduced values' test (0 none, 2 ``> c``, 1 not ``> c``) and c's index in the constants
HEADER = 8

def constant_bits(value, ints: bool) -> float:
    """A constant as the kernel reads it: its float value, or (integer family: a constant of an
    integer or bool dtype) its int64 bits. (Every read of a loop's step writes its constants:
    struct's packing costs a quarter of a NumPy array's.)"""
    if ints:
        return _AS_FLOAT64.unpack(_AS_UINT64.pack(int(value) % 18446744073709551616))[0]
    return float(value)


_AS_UINT64, _AS_FLOAT64 = struct.Struct("<Q"), struct.Struct("<d")


def reduce_kind(op) -> int | None:
    """The reduction kind the program's header gives ``op`` (its ``Fused.reduce``), or None."""
    f = op.fused
    return None if f is None else f.reduce


def scan_kind(op) -> int | None:
    """The kind of running combine ``op`` is (its ``Fused.scan``: a reduction's kind), or None."""
    f = op.fused
    return None if f is None else f.scan


def arg_reduce(op) -> bool:
    """Whether ``op`` is a reduction to a position the kernel runs (int64, over one ``axis``)."""
    return isinstance(op, ArgReduceOp) and reduce_kind(op) is not None


def view_kind(op) -> str | None:
    """How the kernel reads through view ``op`` (its ``Fused.view``: alias, strided, real), or None."""
    f = op.fused
    return None if f is None else f.view


def opcode(op) -> int:
    """The opcode of elementwise op ``op`` (its row's ``Fused(code)``)."""
    return op.fused.code


def elementwise_facts(op):
    """How the kernel runs elementwise op ``op`` (its row's ``Fused``), or None: no opcode of its own."""
    f = op.fused
    return f if f is not None and f.code is not None else None


def _unsigned_order(n) -> bool:
    """Whether ``n`` orders or measures uint64 values (int64 registers would see large ones as negative)
    with no opcode of its uint64 form."""
    f = n.op.fused
    return f is not None and f.signed and f.unsigned is None and any(v.dtype is _dt.uint64 for v in n.inputs)


# --- the kernel's named constants ----------------------------------------------------------------

#: the instructions that are not ops, by their names in ``kernels/evaluator/opcodes.mojo``
INSTRUCTIONS = {"LOAD": _LOAD, "CONST": _CONST, "WHERE": _WHERE, "WRAP": _WRAP, "AXIS_INDEX": _AXIS_INDEX,
                "GATHER": _GATHER}

OPCODES_MOJO = Path(__file__).with_name("kernels") / "evaluator" / "opcodes.mojo"


#: the kernel's dispatch groups, ``[first, end)`` of the opcodes each branch of its loop runs (a loop
#: compiled per opcode within a group): every op's code lies in its kind's groups
GROUPS = {"UNARY": (10, 40), "BINARY": (40, 60), "MORE_BINARY": (64, 72), "MORE_UNARY": (72, 77),
          "UNSIGNED_UNARY": (77, 78), "UNSIGNED_BINARY": (78, 88), "HALF_BINARY": (88, 89)}


def opcode_names() -> dict:
    """Every opcode's constant name in ``opcodes.mojo`` -> its number: each op's from its row
    (``EXP``), an op's uint64 form ``U_`` before it, its float16 form ``H_``, then the instructions."""
    names = {name.upper(): code for name, code in {**UNARY_CODES, **BINARY_CODES}.items()}
    names.update({f"U_{name.upper()}": code for name, code in UNSIGNED_CODES.items()})
    names.update({f"H_{name.upper()}": code for name, code in HALF_CODES.items()})
    names.update(INSTRUCTIONS)
    return names


def _group_bounds() -> dict:
    """``GROUPS`` as the constants the kernel's dispatch tests (``UNARY_FIRST``, ``UNARY_END``)."""
    return {f"{g}_{edge}": bound for g, (first, end) in GROUPS.items()
            for edge, bound in (("FIRST", first), ("END", end))}


def mojo_opcodes() -> str:
    """The source of ``kernels/evaluator/opcodes.mojo``, written from the ops' rows: the kernel
    dispatches on these names, never on bare numbers (``write_opcodes`` writes it; a test checks
    it is current)."""
    def block(struct, doc, items):
        rows = [f"struct {struct}:", f'    """{doc}"""', ""]
        rows += [f"    comptime {name} = {code}" for name, code in sorted(items.items(), key=lambda kv: (kv[1], kv[0]))]
        return rows + ["", ""]

    lines = ["# Written by nabla/runtime/fused_codes.py (write_opcodes) from the ops' rows, their Fused(code);",
             "# not edited by hand: a test checks it is current.", "", ""]
    lines += block("Op", "A program instruction's opcode: an op's (from its row), or an instruction's; the\n"
                   "    bounds of the groups the kernel's loop dispatches on (``UNARY_FIRST``, ``UNARY_END``).",
                   {**opcode_names(), **_group_bounds()})
    lines += block("Reduce", "A stage's reduction (or running) kind.", {n.upper(): k for n, k in REDUCE_CODES.items()})
    lines += block("Code", "The dtype code of a data slot read or written as bytes.",
                   {d.name.upper(): c for d, c in CODES.items()})
    return "\n".join(lines).rstrip() + "\n"


def _costly(code: int) -> bool:
    """Whether the kernel weighs opcode ``code`` as costly (``program_work`` in fused.mojo: a
    transcendental function), by the same bounds."""
    names = opcode_names()
    return any(names[first] <= code <= names[last] for first, last in _COSTLY_BOUNDS) \
        or GROUPS["MORE_UNARY"][0] <= code < GROUPS["MORE_UNARY"][1]


#: the inclusive opcode ranges ``program_work`` weighs as costly
_COSTLY_BOUNDS = (("EXP", "LOG1P"), ("SIN", "TANH"), ("TAN", "COSH"), ("POW", "LOGADDEXP"))

#: the ops whose instruction the kernel weighs as costly: an op of theirs is worth ``COSTLY`` cheap
#: ones where the scheduler counts a value's work (``program_cut.Cut.first_parts``)
COSTLY_OPS = frozenset(registry()[name] for name, code in {**UNARY_CODES, **BINARY_CODES}.items() if _costly(code))
COSTLY = 16


def write_opcodes() -> None:
    """Write ``kernels/evaluator/opcodes.mojo`` from the rows (after an op's ``Fused(code)`` changes)."""
    OPCODES_MOJO.write_text(mojo_opcodes())
