"""``linalg``: the standard's linear algebra extension (2025.12) on Nabla's Mojo kernels.

Decompositions run on the kernels of ``nabla/ops/kernels/linalg/`` (LU, Cholesky, Householder QR,
Jacobi eigh, one-sided Jacobi SVD, Hessenberg QR for eig); norms, trace, cross, powers, pinv and
rank are compositions on MAX ops. Stacks of any rank, empty stacks and 0 x 0 matrices work.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import ops as _ops
from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops import factorizations as _f, indexing as _ix, linalg as _la, sorting as _sorting, spectral as _sp
from ..ops.base import as_index, broadcast_shapes as _broadcast_shapes, normalize_axes, normalize_axis
from ..ops.elementwise import BINARY_FUNCTIONS as _B, UNARY_FUNCTIONS as _U, astype as _astype, \
    complex_from_parts, where as _where
from ._functions import matmul, matrix_transpose, tensordot, vecdot  # noqa: F401  (also in this extension)
from ..core.context import get_default_dtype
from ._functions import sum as _sum

__all__ = ["cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matmul",
           "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet",
           "solve", "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm"]


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class EigResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


def _matrix(x, op: str, square: bool = True) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"nabla.linalg.{op}: expected an array, got {type(x).__name__}")
    _f.check_matrix(op, x._impl, square=square)
    return x


def _real_dtype(dtype):
    return _dt.real_dtype(dtype) if dtype.is_complex else dtype


def _filled(shape, value, dtype, like: Tensor) -> Tensor:
    return _ops.full(tuple(shape), value, dtype=dtype, device=like.device)


def _eye(m: int, n: int, lead: tuple, like: Tensor) -> Tensor:
    """Identity-like (m, n) stacked over ``lead``."""
    return _ops.broadcast_to(_la.identity(m, n, 0, like.dtype, like.device), lead + (m, n))


# --- decompositions -------------------------------------------------------------------------

def cholesky(x, /, *, upper=False) -> Tensor:
    x = _matrix(x, "cholesky")
    lower = _ops.zeros_like(x) if x.size == 0 else _f.cholesky_op(x)
    return _la.adjoint(lower) if upper else lower


def qr(x, /, *, mode="reduced") -> QRResult:
    x = _matrix(x, "qr", square=False)
    if mode not in ("reduced", "complete"):
        raise ValueError(f"nabla.linalg.qr: mode must be 'reduced' or 'complete', got {mode!r}")
    *lead, m, n = x.shape
    k = min(m, n) if mode == "reduced" else m
    if x.size == 0:
        return QRResult(_eye(m, k, tuple(lead), x), _filled((*lead, k, n), 0, x.dtype, x))
    return QRResult(*_f.qr(x, mode))


def eigh(x, /) -> EighResult:
    x = _matrix(x, "eigh")
    if x.size == 0:
        return EighResult(_filled(x.shape[:-1], 0, _real_dtype(x.dtype), x), _ops.zeros_like(x))
    return EighResult(*_sp.eigh_op(x))


def eigvalsh(x, /) -> Tensor:
    return eigh(x).eigenvalues


def svd(x, /, *, full_matrices=True) -> SVDResult:
    x = _matrix(x, "svd", square=False)
    *lead, m, n = x.shape
    lead, k = tuple(lead), min(m, n)
    if x.size == 0:
        return SVDResult(_eye(m, m if full_matrices else k, lead, x), _filled(lead + (k,), 0, _real_dtype(x.dtype), x),
                         _eye(n if full_matrices else k, n, lead, x))
    return SVDResult(*_sp.svd(x, full_matrices))


def svdvals(x, /) -> Tensor:
    # the standard takes floating-point input only (NumPy's face casts integers before this)
    return svd(_matrix(x, "svdvals", square=False), full_matrices=False).S


def eig(x, /) -> EigResult:
    x = _matrix(x, "eig")
    cdtype = x.dtype if x.dtype.is_complex else _dt.complex_dtype(x.dtype)
    if x.size == 0:
        return EigResult(_filled(x.shape[:-1], 0, cdtype, x), _filled(x.shape, 0, cdtype, x))
    w, v = _sp.eig_op(_astype(x, cdtype, copy=False))
    impl = x._impl
    if x.dtype.is_complex or impl.traced or impl.tangents is not None or impl.requires_grad:
        return EigResult(w, v)  # (differentiated: eig's own rules, over rounding the structure would snap)
    return EigResult(*_real_structure(x, w, v))


def _real_structure(x, w, v):
    """The spectrum of real ``x`` as LAPACK's geev gives it (NumPy's ``eig``): each real eigenvalue
    exactly real, with a real eigenvector; each complex one with its conjugate exactly, and the
    conjugate eigenvector. The complex Hessenberg QR leaves ~eps ||x|| of imaginary part on a real
    eigenvalue (a 50 x 50 matrix's real ones up to 1e-13) and a pair's parts ulps apart: an
    imaginary part within ``4 n eps ||x||_F`` is taken as rounding, and an eigenvalue's pair is
    the one nearest its conjugate on the other side of the real axis."""
    re, im = _U["real"](w), _U["imag"](w)
    eps = float(np.finfo(re.dtype.numpy_dtype).eps)
    tol = _U["sqrt"](_sum(x * x, axis=(-2, -1)))[..., None] * (4 * x.shape[-1] * eps)
    real, upper, lower = _U["abs"](im) <= tol, im > tol, im < -tol
    far = _filled((), math.inf, re.dtype, re)
    apart = _U["abs"](w[..., :, None] - _U["conj"](w)[..., None, :])  # |w_i - conj(w_j)|
    up_pair = _sorting.argmin(_where(lower[..., None, :], apart, far), axis=-1)  # (for those above)
    low_pair = _sorting.argmin(_where(upper[..., None, :], apart, far), axis=-1)  # (for those below)
    pair_re = (re + _ix.take_along_axis(re, up_pair, -1)) * 0.5
    pair_im = (im - _ix.take_along_axis(im, up_pair, -1)) * 0.5
    new_re = _where(upper, pair_re, _where(lower, _ix.take_along_axis(pair_re, low_pair, -1), re))
    new_im = _where(upper, pair_im, _where(lower, -_ix.take_along_axis(pair_im, low_pair, -1), _U["abs"](im) * 0.0))
    # (a real eigenvalue's vector has its largest part real already: its imaginary parts are rounding)
    vr, vi = _U["real"](v), _U["imag"](v)
    columns = _ops.broadcast_to(low_pair[..., None, :], v.shape)
    pair_v = complex_from_parts(_ix.take_along_axis(vr, columns, -1), -_ix.take_along_axis(vi, columns, -1))
    v = _where(real[..., None, :], complex_from_parts(vr, _U["abs"](vr) * 0.0), _where(lower[..., None, :], pair_v, v))
    return complex_from_parts(new_re, new_im), v


def eigvals(x, /) -> Tensor:
    return eig(x).eigenvalues


# --- LU: solve, inverse, determinants ----------------------------------------------------------

def solve(x1, x2, /) -> Tensor:
    x1 = _matrix(x1, "solve")
    if not isinstance(x2, Tensor):
        raise TypeError(f"nabla.linalg.solve: expected an array, got {type(x2).__name__}")
    dtype = _dt.result_type(x1.dtype, x2.dtype)
    x1, x2 = _astype(x1, dtype, copy=False), _astype(x2, dtype, copy=False)
    n = x1.shape[-1]
    vector = x2.ndim == 1
    if vector:
        x2 = _ops.unsqueeze(x2, -1)
    if x2.shape[-2] != n:
        raise ValueError(f"nabla.linalg.solve: x2 has {x2.shape[-2]} rows, the matrices are {n} x {n} "
                         f"(shapes {x1.shape} and {x2.shape if not vector else x2.shape[:-1]})")
    lead = _broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    if math.prod(lead) == 0 or n == 0 or x2.shape[-1] == 0:
        out = _filled(lead + x2.shape[-2:], 0, dtype, x1)
    else:
        out = _f.solve(x1, x2)
    return _ops.squeeze(out, -1) if vector else out


def inv(x, /) -> Tensor:
    x = _matrix(x, "inv")
    if x.size == 0:
        return _ops.zeros_like(x)
    return _f.solve(x, _eye(x.shape[-1], x.shape[-1], x.shape[:-2], x))


def slogdet(x, /) -> SlogdetResult:
    x = _matrix(x, "slogdet")
    if x.size == 0:
        lead = x.shape[:-2]
        return SlogdetResult(_filled(lead, 1, x.dtype, x), _filled(lead, 0, _real_dtype(x.dtype), x))
    sign, logabs, _ = _f.lu_det_op(x)
    return SlogdetResult(sign, logabs)


def det(x, /) -> Tensor:
    x = _matrix(x, "det")
    if x.size == 0:
        return _filled(x.shape[:-2], 1, x.dtype, x)
    return _f.lu_det_op(x)[2]


def matrix_power(x, n, /) -> Tensor:
    x = _matrix(x, "matrix_power")
    index = as_index(n)
    if index is None:
        raise TypeError(f"nabla.linalg.matrix_power: n must be an integer, got {type(n).__name__}")
    n = index
    if n == 0:
        return _eye(x.shape[-1], x.shape[-1], x.shape[:-2], x)
    if n < 0:
        x, n = inv(x), -n
    result, square = None, x
    while n:  # binary powering: O(log n) products
        if n & 1:
            result = square if result is None else _ops.matmul(result, square)
        n >>= 1
        if n:
            square = _ops.matmul(square, square)
    return result


# --- compositions on MAX ops --------------------------------------------------------------------

def _tolerance(s: Tensor, rtol, m: int, n: int) -> Tensor:
    """rtol * largest singular value, per matrix, shaped (..., 1) against s (..., k)."""
    if rtol is None:
        rtol = max(m, n) * _EPS[s.dtype.name]
    if isinstance(rtol, Tensor):
        rtol = _ops.unsqueeze(_astype(rtol, s.dtype, copy=False), -1)
    return _ops.max(s, axis=-1, keepdims=True) * rtol


_EPS = {"float32": 2.0 ** -23, "float64": 2.0 ** -52, "float16": 2.0 ** -10}


def matrix_rank(x, /, *, rtol=None) -> Tensor:
    x = _matrix(x, "matrix_rank", square=False)
    m, n = x.shape[-2:]
    if x.size == 0:
        return _filled(x.shape[:-2], 0, _dt.int64, x)
    s = svdvals(x)
    return _ops.sum(_astype(_B["greater"](s, _tolerance(s, rtol, m, n)), _dt.int64), axis=-1)


def pinv(x, /, *, rtol=None) -> Tensor:
    x = _matrix(x, "pinv", square=False)
    *lead, m, n = x.shape
    if x.size == 0:
        return _filled((*lead, n, m), 0, x.dtype, x)
    u, s, vh = svd(x, full_matrices=False)
    keep = _B["greater"](s, _tolerance(s, rtol, m, n))
    s_inv = _where(keep, 1.0 / _where(keep, s, 1.0), 0.0)
    return _ops.matmul(_la.adjoint(vh) * _ops.unsqueeze(_astype(s_inv, x.dtype, copy=False), -2), _la.adjoint(u))


def outer(x1, x2, /) -> Tensor:
    for x in (x1, x2):
        if not isinstance(x, Tensor) or x.ndim != 1:
            raise ValueError(f"nabla.linalg.outer: expected 1-D arrays, got {getattr(x, 'shape', type(x).__name__)}")
    dtype = _dt.result_type(x1.dtype, x2.dtype)
    return _B["multiply"](_ops.unsqueeze(_astype(x1, dtype, copy=False), 1), _ops.unsqueeze(_astype(x2, dtype, copy=False), 0))


def cross(x1, x2, /, *, axis=-1) -> Tensor:
    if not isinstance(x1, Tensor) or not isinstance(x2, Tensor):
        raise TypeError("nabla.linalg.cross: expected arrays")
    shape = _broadcast_shapes(x1.shape, x2.shape)  # the vectors broadcast like any operands
    a = normalize_axis(axis, len(shape), "linalg.cross")
    if shape[a] != 3 or x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(f"nabla.linalg.cross: axis {axis} must have size 3, got shapes {x1.shape} and {x2.shape}")
    dtype = _dt.result_type(x1.dtype, x2.dtype)
    p = _ops.moveaxis(_ops.broadcast_to(_astype(x1, dtype, copy=False), shape), a, -1)
    q = _ops.moveaxis(_ops.broadcast_to(_astype(x2, dtype, copy=False), shape), a, -1)
    p, q = [p[..., i] for i in range(3)], [q[..., i] for i in range(3)]
    parts = [p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]]
    return _ops.moveaxis(_ops.concat([_ops.unsqueeze(t, -1) for t in parts], axis=-1), -1, a)


def diagonal(x, /, *, offset=0) -> Tensor:
    if not isinstance(x, Tensor) or x.ndim < 2:
        raise ValueError(f"nabla.linalg.diagonal: expected a stack of matrices, got {getattr(x, 'shape', x)!r}")
    *lead, m, n = x.shape
    length = max(0, min(m, n - offset) if offset >= 0 else min(m + offset, n))
    if length == 0:
        return _filled((*lead, 0), 0, x.dtype, x)
    start = offset if offset >= 0 else -offset * n
    flat = _ops.reshape(x, (*lead, m * n))
    return flat[..., start:start + (length - 1) * (n + 1) + 1:n + 1]


def diag(x, /, *, k=0) -> Tensor:
    """Not the standard's (NumPy's, JAX's and PyTorch's ``diag``, which libraries call on their
    backends; ``nabla.array_api.diag``): a vector's square matrix with it on diagonal ``k``, or a
    matrix's diagonal ``k``."""
    if not isinstance(x, Tensor) or x.ndim not in (1, 2):
        raise ValueError(f"nabla.diag: expected a vector or a matrix, got {getattr(x, 'shape', x)!r}")
    if x.ndim == 2:
        return diagonal(x, offset=k)
    n = x.shape[0] + abs(k)
    rows = _ops.reshape(_ops.arange(n), (n, 1))
    cols = _ops.reshape(_ops.arange(n), (1, n))
    # entry (i, j) is x[min(i, j)] where j - i == k: each row (k >= 0) or column picks its element
    at = _ops.reshape(_B["minimum"](rows if k >= 0 else cols, max(x.shape[0] - 1, 0)), (-1,))
    picked = _ops.reshape(_ix.take(x, at, axis=0) if x.shape[0] else _filled((n,), 0, x.dtype, x),
                          (n, 1) if k >= 0 else (1, n))
    return _where(_B["equal"](rows + k, cols), picked, _filled((), 0, x.dtype, x))


def trace(x, /, *, offset=0, dtype=None) -> Tensor:
    return _sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def _float(x: Tensor, op: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"nabla.linalg.{op}: expected an array, got {type(x).__name__}")
    if x.dtype.is_floating or x.dtype.is_complex:
        return x

    return _astype(x, get_default_dtype())


def _scaled_norm(a: Tensor, axes, keepdims: bool, p: float = 2.0) -> Tensor:
    """(sum |a|^p)^(1/p) over ``axes`` of |a| (real, >= 0), scaled by the largest entry so that
    neither the powers nor the sum overflow (LAPACK's nrm2 idea)."""
    big = _ops.max(a, axis=axes, keepdims=True)
    safe = _where(_B["greater"](big, 0), big, 1.0)
    safe = _where(_U["isfinite"](safe), safe, 1.0)
    r = a / safe
    total = _ops.sum(r * r if p == 2.0 else _B["pow"](r, p), axis=axes, keepdims=True)
    out = (_U["sqrt"](total) if p == 2.0 else _B["pow"](total, 1.0 / p)) * safe
    out = _where(_U["isinf"](big), big, out)  # an infinite entry: the norm is infinite
    return out if keepdims else _ops.squeeze(out, axes)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2) -> Tensor:
    x = _float(x, "vector_norm")
    axes = normalize_axes(axis, x.ndim, "linalg.vector_norm")
    a = _U["abs"](x)
    if ord == math.inf:
        return _ops.max(a, axis=axes, keepdims=keepdims) if x.size else _ops.sum(a, axis=axes, keepdims=keepdims)
    if ord == -math.inf:
        return _ops.min(a, axis=axes, keepdims=keepdims)
    if ord == 0:
        return _ops.sum(_astype(_B["not_equal"](a, 0), a.dtype), axis=axes, keepdims=keepdims)
    if ord == 1:
        return _ops.sum(a, axis=axes, keepdims=keepdims)
    if x.size == 0:
        return _ops.sum(a, axis=axes, keepdims=keepdims)
    if ord == 2:
        return _scaled_norm(a, axes, keepdims)
    if ord < 0:  # (sum |a|^p)^(1/p) with p < 0: zeros give 0, as NumPy's
        total = _ops.sum(_B["pow"](a, float(ord)), axis=axes, keepdims=keepdims)
        return _B["pow"](total, 1.0 / float(ord))
    return _scaled_norm(a, axes, keepdims, float(ord))


def matrix_norm(x, /, *, keepdims=False, ord="fro") -> Tensor:
    x = _matrix(_float(x, "matrix_norm"), "matrix_norm", square=False)
    a = _U["abs"](x)
    rows, cols = x.ndim - 2, x.ndim - 1
    if ord == "fro":
        return vector_norm(x, axis=(-2, -1), keepdims=keepdims)
    if ord in ("nuc", 2, -2):
        s = svdvals(x)
        out = _ops.sum(s, axis=-1) if ord == "nuc" else (_ops.max if ord == 2 else _ops.min)(s, axis=-1)
    elif ord in (1, -1):
        out = (_ops.max if ord == 1 else _ops.min)(_ops.sum(a, axis=rows), axis=-1)
    elif ord in (math.inf, -math.inf):
        out = (_ops.max if ord == math.inf else _ops.min)(_ops.sum(a, axis=cols), axis=-1)
    else:
        raise ValueError(f"nabla.linalg.matrix_norm: unsupported ord {ord!r} (use 'fro', 'nuc', 1, -1, 2, -2, inf, -inf)")
    return _ops.unsqueeze(_ops.unsqueeze(out, -1), -1) if keepdims else out
