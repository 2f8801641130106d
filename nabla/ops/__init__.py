"""Nabla's operations: singletons holding each op's shape rule, lowering and derivative rules."""

from . import tensor_methods  # noqa: F401  (binds operators onto Tensor)
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

from ..core.engine import Engine as _Engine  # noqa: E402
from .fused import FusedPath as _FusedPath  # noqa: E402
from .standalone import FirstSightPaths as _FirstSightPaths, KernelPath as _KernelPath  # noqa: E402
from .first_run import ask as _build_now, pending as _being_built  # noqa: E402

# first sight: elementwise traces on the fused kernel, lone linalg kernels on their own models
_Engine.first_sight = _FirstSightPaths(_FusedPath(), _KernelPath())
# a cold machine's first run waits for the models its first-run build makes (ops/first_run.py)
_Engine.being_built = _being_built
_Engine.build_now = _build_now


def registry() -> dict:
    """Every primitive op, by name: each registers itself when its module loads (``core.operation.OPS``)."""
    from ..core.operation import OPS
    from . import (_physical, bit_views, casts, creation, elementwise, factorizations, fourier,  # noqa: F401
                   index_primitives, linalg, multi_output, random_bits, reduction, scans, sorting, spectral,
                   view)

    return {name: op for name, op in OPS.items() if op.__module__.startswith(__name__ + ".")}
