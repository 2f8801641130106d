"""The fused kernel's tables (``kernels/core/fused.mojo``): opcodes keyed by op name, gathered from
each op's own ``fused`` (``core.operation.Fused``), dtype codes, and which ops each family runs. The Mojo kernel's numbers come from here; a
test checks the kernel's against them."""

from __future__ import annotations

import numpy as np

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

#: op name -> opcode of kernels/core/fused.mojo
UNARY_CODES = {name: f.code for name, f in _FUSED.items() if f.code is not None and name in UNARY_OPS}
BINARY_CODES = {name: f.code for name, f in _FUSED.items() if f.code is not None and name in BINARY_OPS}

#: on booleans the bitwise ops are the logical ones
_ON_BOOLS = {name: f.on_bools for name, f in _FUSED.items() if f.on_bools is not None}

#: codes only the integer family runs (the float family: signbit only)
_INT_ONLY = frozenset(name for name, f in _FUSED.items() if f.ints_only)

#: reductions -> their kind in the program's header
REDUCE_CODES = {name: f.reduce for name, f in _FUSED.items() if f.reduce is not None}

#: reductions to a position (int64, whatever the registers), over one ``axis``
ARG_REDUCE = frozenset(name for name in REDUCE_CODES if isinstance(registry()[name], ArgReduceOp))

#: the integer family's dtypes -> their codes in kernels/core/fused.mojo
INT_CODES = {_dt.bool_: 0, _dt.int8: 1, _dt.int16: 2, _dt.int32: 3, _dt.int64: 4, _dt.uint8: 5, _dt.uint16: 6,
             _dt.uint32: 7, _dt.uint64: 4}

#: ops whose result on uint64 operands differs from their int64 bits' (order, magnitude)
_SIGNED_ONLY = frozenset(name for name, f in _FUSED.items() if f.signed)

#: of those, the ones with an opcode of their uint64 form (the others run elsewhere on uint64)
UNSIGNED_CODES = {name: f.unsigned for name, f in _FUSED.items() if f.unsigned is not None}

#: every dtype a coded program reads or writes -> its code (the integer family's, and the floats)
CODES = {**{d: c for d, c in INT_CODES.items() if d is not _dt.uint64}, _dt.float32: 8, _dt.float64: 9,
         _dt.float16: 10, _dt.uint64: 11}

#: float16 work runs in float32 registers, each float16 result rounded (``_WRAP`` to this code), as
#: NumPy's float16 loops compute in float32 and round
HALF = CODES[_dt.float16]

#: what the integer family's programs take as data: bytes
BYTES = _dt.uint8

#: elementwise ops the integer family does not run (float results, or no integer opcode: ``pow``)
_FLOAT_ONLY = frozenset(name for name, f in _FUSED.items() if f.code is not None and not f.ints)

#: integer ops whose results wrap to a narrow dtype
_WRAPPING = frozenset(name for name, f in _FUSED.items() if f.wraps)

#: views that keep the elements' order: an alias in the program
_ORDER_KEEPING = frozenset(name for name, f in _FUSED.items() if f.view == "alias")

#: ops that are the identity on real values
_REAL_IDENTITIES = frozenset(name for name, f in _FUSED.items() if f.view == "real")

#: views an input's strided layout expresses
_STRIDED = frozenset(name for name, f in _FUSED.items() if f.view == "strided")

SLOTS = 8  # data slots of a program (the program kernel's call has room for eight per stage)

_REGISTERS = 24

#: n_instructions, result register, reduction (or scan) kind, reduced extent r, inner extent, output code,
#: the reduced values' test (0 none, 2 ``> c``, 1 not ``> c``) and c's index in the constants
HEADER = 8

def constant_bits(value, ints: bool) -> float:
    """A constant as the kernel reads it: its float value, or (integer family: a constant of an
    integer or bool dtype) its int64 bits."""
    if ints:
        return float(np.array([int(value) % 2 ** 64], np.uint64).view(np.float64)[0])
    return float(value)

def _unsigned_order(n) -> bool:
    """Whether ``n`` orders or measures uint64 values (int64 registers would see large ones as negative)
    with no opcode of its uint64 form."""
    return n.op.name in _SIGNED_ONLY and n.op.name not in UNSIGNED_CODES and any(v.dtype is _dt.uint64
                                                                                 for v in n.inputs)
