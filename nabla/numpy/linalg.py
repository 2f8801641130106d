"""``nabla.numpy.linalg``: NumPy's ``linalg`` over the standard's extension (``nabla.array_api.linalg``,
Nabla's Mojo kernels), with NumPy's signatures and extras (``norm`` with ``ord``/``axis``, ``lstsq``,
``cond``, ``multi_dot``, ``matrix_rank(tol=)``, ``eigh(UPLO=)``, ``svd(compute_uv=)``)."""

from __future__ import annotations


import numpy as _np

from .. import array_api as _xp
from ..ops.base import as_index
from ..ops.view import reshape as _reshape
from ..array_api import linalg as _la
from ..core import dtypes as _dt
from ..ops.elementwise import astype as _astype
from . import _dtypes as D
from ._math import _counted

LinAlgError = _np.linalg.LinAlgError
EighResult, EigResult, QRResult, SlogdetResult, SVDResult = (_la.EighResult, _la.EigResult, _la.QRResult,
                                                             _la.SlogdetResult, _la.SVDResult)


def _float(a, op, lapack=True, matrices=None):
    """``a`` as an array of a float (or complex) dtype; float16 refused where NumPy's LAPACK
    routines would take it (``lapack``): they have no float16 form. ``matrices``: "any" or
    "square", where a stack of such matrices is asked (NumPy's LinAlgError for anything else)."""
    x = D.asarray(a, op=f"linalg.{op}")
    if matrices is not None:
        if x.ndim < 2:
            raise LinAlgError(f"nabla.numpy.linalg.{op}: {x.ndim}-dimensional array given. Array must be at "
                              f"least two-dimensional")
        if matrices == "square" and x.shape[-1] != x.shape[-2]:
            raise LinAlgError(f"nabla.numpy.linalg.{op}: Last 2 dimensions of the array must be square "
                              f"(got shape {x.shape})")
    if lapack and x.dtype is _dt.float16:
        raise TypeError(f"nabla.numpy.linalg.{op}: array type float16 is unsupported in linalg (shape {x.shape})")
    return _astype(x, _dt.float64) if x.dtype.kind in "biu" else x


def cholesky(a, /, *, upper=False):
    return _la.cholesky(_float(a, "cholesky", matrices="square"), upper=upper)


def qr(a, mode="reduced"):
    x = _float(a, "qr", matrices="any")
    if mode == "r":
        return _la.qr(x, mode="reduced").R
    if mode not in ("reduced", "complete"):
        raise ValueError(f"nabla.numpy.linalg.qr: mode {mode!r} is not supported ('reduced', 'complete', 'r')")
    return _la.qr(x, mode=mode)


def _hermitian_from(x, UPLO):
    if UPLO not in ("L", "U"):
        raise ValueError(f"nabla.numpy.linalg: UPLO must be 'L' or 'U', got {UPLO!r}")
    tri = _xp.tril(x) if UPLO == "L" else _xp.triu(x)
    strict = _xp.tril(x, k=-1) if UPLO == "L" else _xp.triu(x, k=1)
    other = _xp.matrix_transpose(strict)
    return tri + (_xp.conj(other) if x.dtype.is_complex else other)


def eigh(a, UPLO="L"):
    return _la.eigh(_hermitian_from(_float(a, "eigh", matrices="square"), UPLO))


def eigvalsh(a, UPLO="L"):
    return _la.eigvalsh(_hermitian_from(_float(a, "eigvalsh", matrices="square"), UPLO))


def eig(a):
    x = _float(a, "eig", matrices="square")
    w, v = _la.eig(x)
    if _real_spectrum(x, w):
        return EigResult(_xp.real(w), _xp.real(v))
    return EigResult(w, v)


def eigvals(a):
    x = _float(a, "eigvals", matrices="square")
    w = _la.eigvals(x)
    return _xp.real(w) if _real_spectrum(x, w) else w


def _real_spectrum(x, w) -> bool:
    """NumPy's eig of a real matrix is real when every eigenvalue is (LAPACK's geev returns no
    imaginary parts then): the dtype depends on the values, so this reads one bool."""
    return not x.dtype.is_complex and not bool(_xp.any(_xp.imag(w) != 0))


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    x = _float(a, "svd", matrices="any")
    if not compute_uv:
        return _la.svdvals(x)
    return _la.svd(x, full_matrices=full_matrices)


def svdvals(x, /):
    # NumPy casts integers and bools to float64 here, as in svd; the standard's face does not
    return _la.svdvals(_float(x, "svdvals", matrices="any"))


def solve(a, b):
    x, y = D.promote_all([_float(a, "solve", matrices="square"), _float(b, "solve")], "solve")
    return _la.solve(x, y)


def inv(a):
    return _la.inv(_float(a, "inv", matrices="square"))


def det(a):
    return _la.det(_float(a, "det", matrices="square"))


def slogdet(a):
    return _la.slogdet(_float(a, "slogdet", matrices="square"))


def matrix_power(a, n):
    x = D.asarray(a, op="linalg.matrix_power")
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise LinAlgError(f"Last 2 dimensions of the array must be square (got shape {x.shape})")
    if x.dtype.is_floating or x.dtype.is_complex:
        return _la.matrix_power(x, n)
    # integers (and bools) multiply exactly, as NumPy's: binary powering with matmul
    index = as_index(n)
    if index is None:
        raise TypeError(f"nabla.numpy.linalg.matrix_power: exponent must be an integer, got {type(n).__name__}")
    n = index
    if n < 0:  # NumPy inverts in float64 and powers that: a float64 result
        return _la.matrix_power(_astype(x, _dt.float64), n)
    eye = _xp.broadcast_to(_xp.eye(x.shape[-1], dtype=x.dtype), x.shape)
    result, base = None, x
    while True:
        if n & 1:
            result = base if result is None else _counted(_xp.matmul, result, base)
        n >>= 1
        if not n:
            break
        base = _counted(_xp.matmul, base, base)
    return _xp.asarray(eye, copy=True) if result is None else result


def pinv(a, rcond=None, hermitian=False, *, rtol=None):
    tol = rtol if rtol is not None else rcond
    return _la.pinv(_float(a, "pinv", matrices="any"), rtol=tol)


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    x = _float(A, "matrix_rank")
    if x.ndim < 2:
        return _xp.astype(_xp.any(x != 0), _dt.int64)
    if tol is None:
        return _la.matrix_rank(x, rtol=rtol)
    s = _la.svdvals(x)
    return _xp.sum(_astype(s > tol, _dt.int64), axis=-1)


def lstsq(a, b, rcond=None):
    """Least squares by the SVD (as LAPACK's gelsd): solution, residuals, rank, singular values."""
    A = _float(a, "lstsq", matrices="any")
    B = _float(b, "lstsq")
    A, B = D.promote_all([A, B], "lstsq")
    vector = B.ndim == 1
    Bm = _reshape(B, (-1, 1)) if vector else B
    m, n = A.shape
    if Bm.ndim != 2 or Bm.shape[0] != m:
        raise LinAlgError(f"nabla.numpy.linalg.lstsq: incompatible dimensions: a of shape {A.shape}, "
                          f"b of shape {B.shape}")
    u, s, vh = _la.svd(A, full_matrices=False)
    eps = _np.finfo(_dt.real_dtype(A.dtype).numpy_dtype).eps
    cutoff = (eps * max(m, n) if rcond is None else rcond) * (_xp.max(s) if s.shape[0] else 0.0)
    keep = s > cutoff
    sinv = _xp.where(keep, 1.0 / _xp.where(keep, s, 1.0), 0.0)
    uh = _xp.conj(_xp.matrix_transpose(u)) if A.dtype.is_complex else _xp.matrix_transpose(u)
    vt = _xp.conj(_xp.matrix_transpose(vh)) if A.dtype.is_complex else _xp.matrix_transpose(vh)
    x = _xp.matmul(vt, _reshape(sinv, (-1, 1)) * _xp.matmul(uh, Bm))
    rank = _xp.sum(keep, dtype=_dt.int32)  # NumPy's rank is a C int
    r = Bm - _xp.matmul(A, x)
    residuals = _xp.sum(_xp.real(r * _xp.conj(r)) if r.dtype.is_complex else r * r, axis=0)
    if m <= n or int(rank) < n:
        residuals = _xp.zeros((0,), dtype=residuals.dtype)
    return (_reshape(x, (-1,)) if vector else x), residuals, rank, s


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    a = _float(x, "norm", lapack=False)
    if axis is None and (ord is None or (ord in ("fro", "f") and a.ndim == 2) or (ord == 2 and a.ndim == 1)):
        # NumPy's own: the square root of the flat data's dot with itself, unscaled (an entry past
        # the root of the dtype's largest overflows to inf, as NumPy's does); a vector dot is one
        # small program, where the scaled norm of the standard's was 14 ops and a read
        v = _reshape(a, (-1,))
        if v.dtype.is_complex:
            re, im = _xp.real(v), _xp.imag(v)
            r = _xp.sqrt(_xp.matmul(re, re) + _xp.matmul(im, im))
        else:
            r = _xp.sqrt(_xp.matmul(v, v))
        return _reshape(r, (1,) * a.ndim) if keepdims else r
    if ord in (2, -2, "nuc") and ((a.ndim == 2) if axis is None else (not isinstance(axis, int) and len(axis) == 2)):
        a = _float(a, "norm")  # (a matrix's 2-norm is its singular values': LAPACK's)
    if axis is None:
        if ord is None or (ord in ("fro", "f") and a.ndim == 2):
            r = _la.vector_norm(a, axis=None)
            return _reshape(r, (1,) * a.ndim) if keepdims else r
        axis = tuple(range(a.ndim))
        if len(axis) > 2:
            raise ValueError("nabla.numpy.linalg.norm: improper number of dimensions to norm")
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if (len(axes) == 1 and ord in (None, 2)) or (len(axes) == 2 and ord in (None, "fro", "f")):
        # NumPy's: the root of the sum of squared magnitudes, unscaled (see above)
        squares = a * a if not a.dtype.is_complex else _xp.real(a) ** 2 + _xp.imag(a) ** 2
        return _xp.sqrt(_xp.sum(squares, axis=axes, keepdims=keepdims))
    if len(axes) == 1:
        if isinstance(ord, str):  # (NumPy's ValueError: a matrix's order)
            raise ValueError(f"nabla.numpy.linalg.norm: invalid norm order {ord!r} for vectors")
        return _la.vector_norm(a, axis=axes[0], keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) != 2:
        raise ValueError("nabla.numpy.linalg.norm: improper number of dimensions to norm")
    r0, r1 = (k % a.ndim for k in axes)
    moved = _xp.moveaxis(a, (r0, r1), (-2, -1))
    r = _la.matrix_norm(moved, ord="fro" if ord is None else ord, keepdims=keepdims)
    if keepdims:
        r = _xp.moveaxis(r, (-2, -1), (r0, r1))
    return r


def cond(x, p=None):
    a = _float(x, "cond")
    if p is None or p in (2, -2):
        s = _la.svdvals(a)
        return (s[..., 0] / s[..., -1]) if p != -2 else (s[..., -1] / s[..., 0])
    return _la.matrix_norm(a, ord=p) * _la.matrix_norm(_la.inv(a), ord=p)


def multi_dot(arrays, *, out=None):
    """Chained products in the cheapest order (the classic matrix-chain dynamic program)."""
    mats = [D.asarray(a, op="linalg.multi_dot") for a in arrays]
    if len(mats) < 2:
        raise ValueError("nabla.numpy.linalg.multi_dot: expecting at least two arrays")
    first_vec, last_vec = mats[0].ndim == 1, mats[-1].ndim == 1
    if first_vec:
        mats[0] = _reshape(mats[0], (1, -1))
    if last_vec:
        mats[-1] = _reshape(mats[-1], (-1, 1))
    dims = [m.shape[0] for m in mats] + [mats[-1].shape[1]]
    n = len(mats)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = float("inf")
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def chain(i, j):
        if i == j:
            return mats[i]
        k = split[i][j]
        return _counted(_xp.matmul, chain(i, k), chain(k + 1, j))

    r = chain(0, n - 1)
    if first_vec:
        r = r[0]
    if last_vec:
        r = r[..., 0]
    return r


def tensorinv(a, ind=2):
    """The inverse of ``a`` as a tensor operator of its first ``ind`` axes onto the rest: ``inv`` of
    it flattened to a square matrix, in the shape ``a.shape[ind:] + a.shape[:ind]``."""
    A = _float(a, "tensorinv")
    if not isinstance(ind, int) or ind <= 0:
        raise ValueError(f"nabla.numpy.linalg.tensorinv: invalid ind argument {ind!r} (a positive integer)")
    rows = 1
    for d in A.shape[ind:]:
        rows *= d
    return _reshape(_la.inv(_reshape(A, (rows, -1))), A.shape[ind:] + A.shape[:ind])


def tensorsolve(a, b, axes=None):
    A, B = _float(a, "tensorsolve"), _float(b, "tensorsolve")
    if axes is not None:
        raise NotImplementedError("nabla.numpy.linalg.tensorsolve: axes= is not supported yet")
    rest = A.shape[B.ndim:]
    n = 1
    for d in rest:
        n *= d
    return _reshape(_la.solve(_reshape(A, (-1, n)), _reshape(B, (-1, 1))), rest)


outer, cross, diagonal, trace, vecdot, tensordot, matrix_transpose = (
    _la.outer, _la.cross, _la.diagonal, _la.trace, _la.vecdot, _la.tensordot, _la.matrix_transpose)


def matmul(x1, x2, /):
    return _counted(_xp.matmul, D.asarray(x1, op="linalg.matmul"), D.asarray(x2, op="linalg.matmul"))


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    # NumPy's norms of integers and bools are float64 (the standard's: the default float dtype)
    return _la.vector_norm(_float(x, "vector_norm", lapack=False), axis=axis, keepdims=keepdims, ord=ord)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002
    return _la.matrix_norm(_float(x, "matrix_norm", lapack=ord in (2, -2, "nuc")), keepdims=keepdims, ord=ord)
