"""The fused kernel's tables (``kernels/core/fused.mojo``): opcodes keyed by op name (from each op's
row), dtype codes, and which ops each family runs. The Mojo kernel's numbers come from here; a
test checks the kernel's against them."""

from __future__ import annotations

import numpy as np

from ..core import dtypes as _dt
from ..ops.elementwise import BINARY_OPS, UNARY_OPS

#: opcodes of the instructions that are not ops: load a data slot, a constant, ``where``, wrap to a
#: narrow integer dtype, an axis index, a gather at positions a register holds
_LOAD, _CONST, _WHERE, _WRAP, _AXIS_INDEX, _GATHER = 0, 1, 60, 61, 62, 63

#: op name -> opcode of kernels/core/fused.mojo: each op's own (its row's ``fused``, ops/elementwise.py)
UNARY_CODES = {name: op.fused_code for name, op in UNARY_OPS.items() if op.fused_code is not None}
BINARY_CODES = {name: op.fused_code for name, op in BINARY_OPS.items() if op.fused_code is not None}

#: on booleans the bitwise ops are the logical ones
_ON_BOOLS = {"bitwise_and": "logical_and", "bitwise_or": "logical_or", "bitwise_xor": "logical_xor",
             "bitwise_invert": "logical_not"}

#: codes only the integer family runs (the float family: signbit only)
_INT_ONLY = frozenset({"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert", "floor_divide", "remainder"})

REDUCE_CODES = {"sum": 1, "mean": 2, "max": 3, "min": 4, "prod": 5, "argmax": 6, "argmin": 7}

#: reductions to a position (int64, whatever the registers), over one ``axis``
ARG_REDUCE = frozenset({"argmax", "argmin"})

#: the integer family's dtypes -> their codes in kernels/core/fused.mojo
INT_CODES = {_dt.bool_: 0, _dt.int8: 1, _dt.int16: 2, _dt.int32: 3, _dt.int64: 4, _dt.uint8: 5, _dt.uint16: 6,
             _dt.uint32: 7, _dt.uint64: 4}

#: ops whose result on uint64 operands differs from their int64 bits' (order, magnitude): elsewhere
_SIGNED_ONLY = frozenset({"abs", "sign", "maximum", "minimum", "greater", "greater_equal", "less", "less_equal",
                          "max", "min", "argmax", "argmin", "floor_divide", "remainder"})

#: every dtype a coded program reads or writes -> its code (the integer family's, and the floats)
CODES = {**{d: c for d, c in INT_CODES.items() if d is not _dt.uint64}, _dt.float32: 8, _dt.float64: 9,
         _dt.float16: 10}

#: float16 work runs in float32 registers, each float16 result rounded (``_WRAP`` to this code), as
#: NumPy's float16 loops compute in float32 and round
HALF = CODES[_dt.float16]

#: what the integer family's programs take as data: bytes
BYTES = _dt.uint8

_INT_UNARY = frozenset({"negative", "abs", "square", "floor", "ceil", "trunc", "sign", "isnan", "isinf", "isfinite",
                        "logical_not", "positive", "bitwise_invert", "round"})

#: integer ops whose results wrap to a narrow dtype
_WRAPPING = frozenset({"negative", "abs", "square", "add", "subtract", "multiply", "bitwise_invert", "floor_divide"})

#: views that keep the elements' order: an alias in the program
_ORDER_KEEPING = frozenset({"reshape", "expand_dims", "squeeze", "identity"})

#: ops that are the identity on real values
_REAL_IDENTITIES = frozenset({"conj", "real"})

#: views an input's strided layout expresses
_STRIDED = frozenset({"getitem", "permute_dims", "broadcast_to", "broadcast_physical"})

SLOTS = 4

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
    """Whether ``n`` orders or measures uint64 values (int64 registers would see large ones as negative)."""
    return n.op.name in _SIGNED_ONLY and any(v.dtype is _dt.uint64 for v in n.inputs)
