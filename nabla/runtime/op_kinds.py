"""The ops the runtime's rules single out, as the op objects themselves: a rule tests
``n.op is TAKE`` or ``n.op in FILLS``, never a name (an op is equal only to itself)."""

from __future__ import annotations

from ..ops.broadcasting import broadcast_physical_op as BROADCAST_PHYSICAL, broadcast_to_op as BROADCAST_TO
from ..ops.casts import cast_op as ASTYPE
from ..ops.creation import constant_op as CONSTANT, full_op as FULL, iota_op as IOTA
from ..ops.elementwise import BINARY_OPS, UNARY_OPS, where_op as WHERE, zeros_like_op as ZEROS_LIKE
from ..ops.index_primitives import gather_op as TAKE, slice_op as GETITEM
from ..ops.linalg import matmul_op as MATMUL
from ..ops.multi_output import concat_op as CONCAT
from ..ops.reduction import REDUCE_OPS
from ..ops.view import permute_op as PERMUTE_DIMS, reshape_op as RESHAPE
from ..ops._physical import from_batch_op as MOVE_FROM_BATCH, to_batch_op as MOVE_TO_BATCH

SUM, PROD, MEAN = REDUCE_OPS["sum"], REDUCE_OPS["prod"], REDUCE_OPS["mean"]
GREATER, LOGICAL_NOT = BINARY_OPS["greater"], UNARY_OPS["logical_not"]
#: elementwise ops whose opcodes the fused program writer uses as its own steps: a register copy
#: (``positive``), an offset taken off an index, a part chosen by position, a sign bit flipped
POSITIVE, SUBTRACT, MULTIPLY = UNARY_OPS["positive"], BINARY_OPS["subtract"], BINARY_OPS["multiply"]
EQUAL, LESS, BITWISE_XOR = BINARY_OPS["equal"], BINARY_OPS["less"], BINARY_OPS["bitwise_xor"]
#: ops whose value is one number everywhere, whatever its shape
FILLS = frozenset((CONSTANT, FULL, ZEROS_LIKE))
#: a broadcast, logical or physical
BROADCASTS = frozenset((BROADCAST_TO, BROADCAST_PHYSICAL))
#: a transpose of the physical axes (``vmap``'s moves of an axis into or out of the batch: the same)
PERMUTES = frozenset((PERMUTE_DIMS, MOVE_TO_BATCH, MOVE_FROM_BATCH))

__all__ = ["ASTYPE", "BITWISE_XOR", "BROADCASTS", "BROADCAST_PHYSICAL", "BROADCAST_TO", "CONCAT", "CONSTANT",
           "EQUAL", "FILLS", "FULL", "GETITEM", "GREATER", "IOTA", "LESS", "LOGICAL_NOT", "MATMUL",
           "MEAN", "MULTIPLY", "PERMUTE_DIMS", "PERMUTES", "POSITIVE", "PROD", "RESHAPE", "SUBTRACT", "SUM", "TAKE", "WHERE",
           "ZEROS_LIKE"]
