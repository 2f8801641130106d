"""Matrix products."""

from __future__ import annotations

import math

from max.dtype import DType

from ..core import dtypes as _dt
from ..core.at_once import kept_pair, small_at_once
from ..core.context import as_device
from ..core.graph import GRAPH
from ..core.operation import PLAIN_CLASSES, plain_array
from ..core.tensor import Tensor
from .base import Operation, broadcast_shapes, describe, lift_same
from .elementwise import BINARY_FUNCTIONS, BINARY_OPS, UNARY_FUNCTIONS, astype, where, zeros_like_physical
from .operands import align_batched, coerce_operands
from .reduction import REDUCE_OPS, sum
from .view import permute_op, reshape, squeeze, swap_axes, unsqueeze
from .broadcasting import sum_to_like
from .complex_lowerings import im, pack, re
from .creation import kept_constant
from .ranges import arange
from ..core.lazy_module import graph_ops as ops


class MatmulOp(Operation):
    """``(..., M, K) @ (..., K, N)``; the leading axes broadcast."""
    sharding_rule = "matmul"

    name = "matmul"
    shape_polymorphic = True
    supports_complex = True
    lift_kwargs = lift_same
    lift_broadcasts = True

    def complex_storage_kwargs(self, kwargs):
        return {"complex_storage": True}

    def abstract_eval(self, x, y):
        if x.dtype.is_bool or x.dtype is not y.dtype:
            raise TypeError(f"nabla.matmul: expected numeric operands of one dtype, got {describe(x, y)}")
        sx, sy = x.cached_shape, y.cached_shape
        if sx[-1] != sy[-2]:
            raise ValueError(f"nabla.matmul: contraction sizes differ: {describe(x, y)} ({sx[-1]} vs {sy[-2]})")
        lead = broadcast_shapes(sx[:-2], sy[:-2], op="matmul")
        return lead + (sx[-2], sy[-1]), x.dtype, max(x.batch_dims, y.batch_dims)

    def single_op_form(self, kwargs, shapes):
        """``(b, m, k) @ (b, k, n)``, every size named, when the leading axes match: one model per
        dtype serves every product (array-api-tests' tensordot checks meet a thousand products of
        small shapes per test). An empty sum keeps its concrete 0 (see ``maxpr``)."""
        tail = 3 if kwargs.get("complex_storage") else 2
        (sx, sy), pair = shapes, [2] * (tail - 2)
        if sx[:-tail] != sy[:-tail] or sx[len(sx) - tail + 1] == 0:
            return None
        b = math.prod(sx[:-tail])
        (m, k), n = sx[len(sx) - tail:][:2], sy[len(sy) - tail + 1]
        return kwargs, [["b", "m", "k", *pair], ["b", "k", "n", *pair]], [(b, m, k, *pair), (b, k, n, *pair)]

    def maxpr(self, x, y, complex_storage=False):
        # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
        from max.graph import StaticDim

        out = self._product(x, y, complex_storage)
        k = x.shape[-2 if complex_storage else -1]
        if isinstance(k, StaticDim) and int(k) == 0:  # an empty sum: MAX's kernel leaves the output unwritten
            return ops.broadcast_to(ops.constant(0, out.dtype, out.device), out.shape)
        return out

    @staticmethod
    def _product(x, y, complex_storage):
        if not complex_storage:
            signed = {DType.uint8: DType.int8, DType.uint16: DType.int16, DType.uint32: DType.int32,
                      DType.uint64: DType.int64}.get(x.dtype)
            if signed is not None:
                # MAX's interpreter has no unsigned matmul (such a graph would be compiled, 10-40 s):
                # the same-width signed product wraps to the same bits, as NumPy's unsigned one does
                return ops.cast(ops.matmul(ops.cast(x, signed), ops.cast(y, signed)), x.dtype)
            return ops.matmul(x, y)

        a, b, c, d = re(x), im(x), re(y), im(y)
        return pack(ops.sub(ops.matmul(a, c), ops.matmul(b, d)), ops.add(ops.matmul(a, d), ops.matmul(b, c)))

    def jvp_rule(self, primals, tangents, output):
        (x, y), (tx, ty) = primals, tangents
        out = None if tx is None else matmul_op(tx, y)
        if ty is not None:
            term = matmul_op(x, ty)
            out = term if out is None else out + term
        return out

    def vjp_rule(self, primals, cotangent, output):
        x, y = primals
        return [sum_to_like(matmul_op(cotangent, _swap_last(y)), x),
                sum_to_like(matmul_op(_swap_last(x), cotangent), y)]


def _swap_last(x: Tensor) -> Tensor:
    n = len(x._impl.cached_shape)
    return permute_op(x, perm=tuple(range(n - 2)) + (n - 1, n - 2))


matmul_op = MatmulOp()


def vector_dot(x: Tensor, y: Tensor) -> Tensor | None:
    """``x @ y`` of two real vectors of one dtype and length: a product and a sum (two ops a program
    fuses into one stage), where the matrix form records four (NumPy's ``x[i + 1:, i] @ y[i + 1:, j]``
    in an element loop); None for any other operands."""
    ix, iy = x._impl, y._impl
    if len(ix.cached_shape) != 1 or ix.cached_shape != iy.cached_shape or ix.dtype is not iy.dtype \
            or ix.dtype.is_bool or ix.dtype.is_complex or ix.dtype is _dt.float16 or ix.batch_dims or iy.batch_dims:
        return None
    out = _dot_at_once(x, y)
    if out is not None:
        return out
    product = BINARY_OPS["multiply"].apply_binary(x, y)
    out = REDUCE_OPS["sum"].apply_unary(product, dict(_SUM_ALL))
    node = out._impl._values[0].node
    if node is not None:
        node.memo = _SUM_ALL_MEMO  # (what keying would make of it: one object for every such sum)
    return out


def _dot_at_once(x: Tensor, y: Tensor) -> Tensor | None:
    """``vector_dot`` of two plain float vectors of host data (or slices of it) computed at once as
    one program, the product and its sum (``small_at_once``); None where it is recorded."""
    ix, iy = x._impl, y._impl
    cls = type(x) if type(x) is not Tensor else type(y)
    va, vb = ix._values, iy._values
    if cls not in PLAIN_CLASSES or len(va) != 1 or len(vb) != 1 or ix.traced or iy.traced \
            or ix.tangents is not None or iy.tangents is not None or ix.sharding is not None \
            or iy.sharding is not None or (ix.dtype is not _dt.float64 and ix.dtype is not _dt.float32) \
            or va[0].device is not vb[0].device:
        return None
    out = kept_pair(_SUM_OF_PRODUCT, _SUM_ALL, x, y)
    if out is not None:
        return out
    out = small_at_once(_SUM, _SUM_ALL_KWARGS, (va[0], vb[0]), (ix, iy), (), ix.dtype, va[0].device,
                        inner=_MULTIPLY)
    return None if out is None else plain_array(cls, out)


#: the sum of a vector product (``vector_dot``): its kwargs, and its keying memo (``trace_lowering.node_memo``)
_SUM_ALL = (("axes", (0,)), ("keepdims", False))
_SUM_ALL_MEMO = (_SUM_ALL, None, None)
_SUM_ALL_KWARGS = dict(_SUM_ALL)
_SUM, _MULTIPLY = REDUCE_OPS["sum"], BINARY_OPS["multiply"]
_SUM_OF_PRODUCT = (_SUM, _MULTIPLY)  # (``small_at_once``'s op with its inner op, as its programs are kept)


def matmul(x, y) -> Tensor:
    """NumPy's ``matmul``: 1-D operands are promoted to matrices and the added axis removed."""
    x, y = coerce_operands(x, y, "matmul")
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError(f"nabla.matmul: operands must be at least 1-D, got {describe(x._impl, y._impl)}")
    ix, iy = x._impl, y._impl
    if ix.dtype is _dt.float16 and iy.dtype is _dt.float16:
        # NumPy's half products accumulate in float32 and round once; so do these (on the kernels
        # that compute float32, where a float16 matmul would compile a model of its own)
        return astype(matmul(astype(x, _dt.float32), astype(y, _dt.float32)), _dt.float16)
    dot = vector_dot(x, y)
    if dot is not None:
        return dot
    vec_x, vec_y = len(ix.cached_shape) - ix.batch_dims == 1, len(iy.cached_shape) - iy.batch_dims == 1
    if vec_x:
        x = unsqueeze(x, 0)
    if vec_y:
        y = unsqueeze(y, 1)
    if (x.batch_dims or y.batch_dims) and x.ndim != y.ndim:
        x, y = align_batched(x, y)
    out = matmul_op.apply_binary(x, y)
    if vec_x and vec_y:
        return squeeze(out, (-2, -1))
    if vec_x:
        return squeeze(out, -2)
    if vec_y:
        return squeeze(out, -1)
    return out


# --- matrix helpers on the last two (logical) axes, for linalg rules and compositions ---------

def adjoint(x: Tensor) -> Tensor:
    """The conjugate transpose of the last two axes."""
    t = swap_axes(x, -1, -2)
    return UNARY_FUNCTIONS["conj"](t) if x.dtype.is_complex else t


def identity(m: int, n: int, k: int, dtype, device) -> Tensor:
    """The (m, n) matrix of ones on diagonal ``k`` (NumPy's ``eye``). A small one is computed once per
    shape, dtype and device and kept realized, each caller a new name of it (values are immutable
    underneath; its memory given up, so a write into one copies first), where its six ops recorded
    again cost a loop's step (a Kalman filter's ``np.eye(2) - K @ H``, ``inv``) ~0.2 ms."""
    device = as_device(device)
    key = (m, n, k, dtype, device.label, device.id)
    found = _IDENTITIES.get(key)
    if found is not None:
        return Tensor(found)
    rows, cols = arange(m, device=device), arange(n, device=device)
    out = astype(BINARY_FUNCTIONS["equal"](reshape(rows, (m, 1)) + k, reshape(cols, (1, n))), dtype)
    if m * n > _KEPT_IDENTITY or GRAPH.captures:
        return out
    kept_constant(out)
    if len(_IDENTITIES) >= 64:
        _IDENTITIES.clear()
    _IDENTITIES[key] = out._impl
    return Tensor(out._impl)


#: the small identities computed (``identity``), by shape, diagonal, dtype and device; the most
#: elements one kept has
_IDENTITIES: dict = {}
_KEPT_IDENTITY = 4096


def band_mask(m: int, n: int, k: int, lower: bool, device) -> Tensor:
    """Boolean (m, n): True on and below diagonal ``k`` (lower) or on and above it (upper)."""
    offset = reshape(arange(n, device=device), (1, n)) - reshape(arange(m, device=device), (m, 1))
    return BINARY_FUNCTIONS["less_equal" if lower else "greater_equal"](offset, k)


def tril(x: Tensor, k: int = 0) -> Tensor:
    return where(band_mask(*x.shape[-2:], k, True, x.device), x, zeros_like_physical(x))


def triu(x: Tensor, k: int = 0) -> Tensor:
    return where(band_mask(*x.shape[-2:], k, False, x.device), x, zeros_like_physical(x))


def eye_like(x: Tensor, n: int | None = None) -> Tensor:
    """The n x n identity (n: x's last size) in x's dtype and device."""
    n = x.shape[-1] if n is None else n
    return astype(band_mask(n, n, 0, True, x.device) & band_mask(n, n, 0, False, x.device), x.dtype)


def diag_part(x: Tensor) -> Tensor:
    """The main diagonal of the last two axes (square), as (..., n)."""
    return sum(x * eye_like(x), axis=-1)


def diag_embed(v: Tensor) -> Tensor:
    """(..., n) -> (..., n, n) with v on the diagonal."""
    return unsqueeze(v, -1) * eye_like(v, v.shape[-1])
