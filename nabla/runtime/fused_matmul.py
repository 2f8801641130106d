"""``x @ y`` as one fused program (registers over (..., M, K, N) holding products of views of the
operands, reduced over K), and which matmuls the kernel takes (``matmul_fits``)."""

from __future__ import annotations

import contextlib
import math

import numpy as np

from ..core import dtypes as _dt
from . import op_kinds as K
from .fused_codes import _LOAD, BYTES, INT_CODES, opcode, reduce_kind
from .fused_format import Program, pack_program
from .fused_layouts import _layout
from .fused_views import _viewer


#: the largest matmul (batch * M * K * N products) the kernel takes: a product of views of the
#: inputs summed over the contraction, one multiply-add per element, where MAX's compiled matmul is
#: blocked and vectorized; small products (a first sight's) cost microseconds either way, where a
#: compile costs 10-40 s. A matrix-vector product (M or N of 1) reuses nothing a blocked kernel
#: could keep in cache: it is a sum of rows (or of columns) of the matrix, memory-bound either way,
#: taken up to the programs' sizes (``MATVEC_PRODUCTS``)
MATMUL_PRODUCTS = 1 << 18
MATVEC_PRODUCTS = (1 << 31) - 1


#: while a program is planned (``taking_large_matmuls``): whether the kernel takes a matmul past
#: ``MATMUL_PRODUCTS`` (``node -> bool``, asked once a node), else None: never
_LARGE: list = [None, {}]


@contextlib.contextmanager
def taking_large_matmuls(takes):
    """Within it, a matmul past ``MATMUL_PRODUCTS`` fits where ``takes(node)`` says so: where its
    model, faster there, is not on this machine yet (a first run on a fresh machine never waits
    for a model's compile: the model is built beside it for later reads)."""
    _LARGE[0] = takes
    try:
        yield
    finally:
        _LARGE[0] = None
        _LARGE[1].clear()


def _large_taken(node) -> bool:
    takes, asked = _LARGE
    if takes is None:
        return False
    found = asked.get(id(node))
    if found is None or found[0] is not node:
        found = asked[id(node)] = (node, takes(node))
    return found[1]


def matmul_fits(node) -> bool:
    """Whether the kernel takes ``x @ y`` alone (its operands realized): real operands of one float
    dtype, or integers, of at most ``MATMUL_PRODUCTS`` products (any number, ``taking_large_matmuls``)."""
    if node.kwargs.get("complex_storage") or len(node.inputs) != 2:
        return False
    x, y = node.inputs
    if len(x.shape) < 2 or len(y.shape) < 2 or not (x.dtype is y.dtype and x.dtype in (_dt.float32, _dt.float64)
                                                    or x.dtype in INT_CODES and y.dtype in INT_CODES):
        return False
    (*bx, m, k), (*by, _, n) = x.shape, y.shape
    full = math.prod(tuple(np.broadcast_shapes(tuple(bx), tuple(by))) + (m, k, n))
    return k > 0 and 0 < full and (full <= (MATVEC_PRODUCTS if m == 1 or n == 1 else MATMUL_PRODUCTS)
                                   or _large_taken(node))


def _matmul(order, leaves, node, dtype, node_ids, leaf_ids, out_dtype) -> Program | None:
    """``x @ y`` of (views of) inputs: registers over (..., M, K, N) holding x[..., m, k] *
    y[..., k, n], reduced over K."""
    if not matmul_fits(node):
        return None
    x, y = node.inputs
    (*bx, m, k), (*by, _, n) = x.shape, y.shape
    ctx = tuple(np.broadcast_shapes(tuple(bx), tuple(by))) + (m, k, n)
    full = math.prod(ctx)
    _, _, _, view_of = _viewer(order[:-1], leaves, dtype, node_ids, leaf_ids)
    vx, vy = view_of(x), view_of(y)
    if vx is None or vy is None:
        return None  # a computed operand: ``stages`` realizes it first
    (*sx, xm, xk), (*sy, yk, yn) = vx[3], vy[3]
    if n == 1 and xk != 1 and xm == 1 or m == 1 and yn != 1 and yk == 1:
        # a matrix-vector product whose matrix steps by one along the output's axis (``A.T @ y``,
        # ``y @ A.T``): summed over the contraction as columns, (..., K, M or N), so the matrix is
        # read in its memory's order (the output's order is the same: one of M, N is 1)
        ctx = ctx[:-3] + (k, m * n)
        if n == 1:
            seen_x = (vx[0], vx[1], vx[2][:-2] + (k, m), (*sx, xk, xm))
            seen_y = (vy[0], vy[1], vy[2][:-2] + (k, 1), (*sy, yk, 0))
        else:
            seen_x = (vx[0], vx[1], vx[2][:-2] + (k, 1), (*sx, xk, 0))
            seen_y = (vy[0], vy[1], vy[2][:-2] + (k, n), (*sy, yk, yn))
        inner = m * n
    else:
        seen_x = (vx[0], vx[1], vx[2] + (1,), vx[3] + (0,))  # (..., M, K, 1)
        seen_y = (vy[0], vy[1], vy[2][:-2] + (1,) + vy[2][-2:], vy[3][:-2] + (0,) + vy[3][-2:])  # (..., 1, K, N)
        inner = n
    consts: list[float] = []
    slot_of: dict[int, int] = {}
    instructions = []
    for register, view in enumerate((seen_x, seen_y)):
        layout = _layout(view, ctx, full)
        at = 0
        if layout is not None:
            at = len(consts) + 1
            consts.extend(layout)
        code = INT_CODES[leaves[view[0]].dtype] if dtype is BYTES else 0
        instructions.append((_LOAD, register, slot_of.setdefault(view[0], len(slot_of)), at, code))
    instructions.append((opcode(K.MULTIPLY), 2, 0, 1, 0))  # (narrow sums wrap at the store)
    total = reduce_kind(K.SUM)
    return pack_program(instructions, 2, total, k, inner, consts, slot_of, total, full // k, dtype, out_dtype=out_dtype)
