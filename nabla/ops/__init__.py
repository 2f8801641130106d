"""Nabla's operations: singletons holding each op's shape rule, lowering and derivative rules."""

from ..core.operation import OPS
from .base import BinaryOperation, CreationOperation, LogicalShapeOperation, UnaryOperation
from .creation import asarray, full, full_like, ones, ones_like, tensor, zeros, zeros_like
from .elementwise import *  # noqa: F401,F403
from .elementwise import BINARY_OPS, UNARY_OPS, astype
from .ranges import arange
from .linalg import matmul
from .multi_output import concat, split
from .reduction import ReduceOperation, max, mean, min, prod, sum
from .broadcasting import broadcast_to
from .view import expand_dims, moveaxis, permute_dims, reshape, squeeze, swap_axes, transpose, unsqueeze


def registry() -> dict:
    """Every primitive op, by name: each registers itself when its module loads (``core.operation.OPS``)."""
    # (every op module, loaded where the registry is asked: importing the ones the package's names
    # do not need costs ``import nabla`` time)
    from . import (_physical, bit_views, casts, creation, elementwise, factorizations, fourier,  # noqa: F401
                   index_primitives, linalg, multi_output, random_bits, reduction, scans, sorting, spectral,
                   view)

    return {name: op for name, op in OPS.items() if op.__module__.startswith(__name__ + ".")}
