"""NumPy's classic polynomial functions (coefficients highest power first), on MAX.

``polyfit`` is a least-squares solve on a column-scaled Vandermonde matrix (as NumPy does it, so
that high degrees stay well conditioned), through the face's SVD ``lstsq``; ``roots`` are the
eigenvalues of the companion matrix (our Hessenberg-QR ``eig`` kernel), complex always, as the
face's ``eigvals`` (NumPy returns reals when every imaginary part is zero). Coefficient counts shape
the work, so they are read where NumPy's result depends on them (``roots`` strips zero
coefficients, as NumPy does).
"""

from __future__ import annotations

import numpy as _np

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops.elementwise import astype as _astype
from . import _dtypes as D
from ._math import convolve
from .linalg import eigvals, inv, lstsq


def _coefficients(p, op: str, inexact: bool = False):
    c = D.asarray(p, op=op)
    if c.ndim != 1:
        raise ValueError(f"nabla.numpy.{op}: coefficients must be a 1-D sequence, got shape {c.shape}")
    return c if not inexact or c.dtype.is_floating or c.dtype.is_complex else _astype(c, _dt.float64)


def vander(x, N=None, increasing=False):
    """NumPy's Vandermonde matrix: a running product of ``x`` (as NumPy's ``multiply.accumulate``,
    so integer powers are exact), in ``x``'s dtype promoted with int64."""
    v = D.asarray(x, op="vander")
    if v.ndim != 1:
        raise ValueError("nabla.numpy.vander: x must be a one-dimensional array or sequence")
    n = v.shape[0] if N is None else int(N)
    v = D.cast(v, _np.promote_types(v.dtype.numpy_dtype, _np.int64))
    if n <= 0:
        return _xp.zeros((v.shape[0], 0), dtype=v.dtype)
    column = _reshape(v, (-1, 1))
    powers = _xp.concat([_xp.ones_like(column), _xp.cumulative_prod(_xp.broadcast_to(column, (v.shape[0], n - 1)),
                                                                    axis=1)], axis=1)
    return powers if increasing else _xp.flip(powers, axis=1)


def polyval(p, x):
    """Horner's rule, one multiply-add per coefficient."""
    c = D.asarray(p, op="polyval")
    xv = D.asarray(x, op="polyval")
    c, xv = D.promote_all([c, xv], "polyval")
    y = _xp.zeros_like(xv)
    for k in range(c.shape[0]):
        y = y * xv + c[k]
    return y


def least_squares(lhs, y, x, rcond, w, op: str, cov=False):
    """NumPy's fits: ``lhs`` (a Vandermonde-like matrix of ``x``) against ``y``, weighted rows,
    columns scaled to unit norm before the SVD ``lstsq`` (so that high degrees stay well
    conditioned). ``(coef, resids, rank, singular values, rcond)``, and the coefficients'
    covariance (``cov``: NumPy's ``polyfit(cov=True)``, ``"unscaled"`` without the residual factor)."""
    yv = D.asarray(y, op=op)
    yv = yv if yv.dtype.is_complex else _astype(yv, _dt.float64)
    if x.ndim != 1 or x.shape[0] == 0:
        raise TypeError(f"nabla.numpy.{op}: expected a non-empty 1-D vector for x")
    if yv.ndim not in (1, 2):
        raise TypeError(f"nabla.numpy.{op}: expected a 1-D or 2-D array for y")
    if yv.shape[0] != x.shape[0]:
        raise TypeError(f"nabla.numpy.{op}: expected x and y to have the same length")
    n, order = x.shape[0], lhs.shape[1]
    rhs = yv
    if w is not None:
        wv = _astype(D.asarray(w, op=op), _dt.float64)
        if wv.ndim != 1 or wv.shape[0] != n:
            raise TypeError(f"nabla.numpy.{op}: expected a 1-D w of the length of x")
        lhs = lhs * _reshape(wv, (-1, 1))
        rhs = rhs * (wv if rhs.ndim == 1 else _reshape(wv, (-1, 1)))
    rcond = n * _np.finfo(_np.float64).eps if rcond is None else rcond
    scale = _xp.sqrt(_xp.sum(_xp.real(lhs * _xp.conj(lhs)) if lhs.dtype.is_complex else lhs * lhs, axis=0))
    scale = _xp.where(scale == 0, 1.0, scale)
    scaled = lhs / scale
    c, resids, rank, s = lstsq(scaled, rhs, rcond)
    c = c / (scale if c.ndim == 1 else _reshape(scale, (-1, 1)))
    if not cov:
        return c, resids, rank, s, rcond
    # NumPy: inv(L^T L) of the scaled matrix, unscaled, times the residual variance per column of y
    base = inv(_xp.matrix_transpose(scaled) @ scaled) / (_reshape(scale, (-1, 1)) * _reshape(scale, (1, -1)))
    if cov == "unscaled":
        fac = 1.0
    else:
        if n <= order:
            raise ValueError(f"nabla.numpy.{op}: the number of data points must exceed order to scale the covariance matrix")
        fac = resids / (n - order)
    if yv.ndim == 1:
        return c, resids, rank, s, rcond, base * fac
    return c, resids, rank, s, rcond, _reshape(base, base.shape + (1,)) * fac


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    deg = int(deg)
    if deg < 0:
        raise ValueError("nabla.numpy.polyfit: expected deg >= 0")
    xv = _astype(D.asarray(x, op="polyfit"), _dt.float64)
    if xv.ndim != 1 or xv.shape[0] == 0:
        raise TypeError("nabla.numpy.polyfit: expected a non-empty 1-D vector for x")
    out = least_squares(vander(xv, deg + 1), y, xv, rcond, w, "polyfit", cov=False if full else cov)
    if full:
        return out
    return (out[0], out[5]) if cov else out[0]


def roots(p):
    host = _np.asarray(p.numpy() if isinstance(p, Tensor) else p)  # NumPy strips zeros by value
    if host.ndim != 1:
        raise ValueError("nabla.numpy.roots: input must be a rank-1 array")
    nonzero = _np.flatnonzero(host)
    if nonzero.size == 0:
        return _xp.zeros((0,), dtype=_dt.float64)
    trailing = host.size - nonzero[-1] - 1
    c = _coefficients(host[nonzero[0]:nonzero[-1] + 1], "roots", inexact=True)
    n = c.shape[0]
    if n > 1:  # companion matrix: -c[1:]/c[0] on the first row, ones below the diagonal
        first = _reshape(-c[1:] / c[0], (1, -1))
        below = _xp.eye(n - 2, n - 1, dtype=c.dtype) if n > 2 else _xp.zeros((0, n - 1), dtype=c.dtype)
        r = eigvals(_xp.concat([first, below], axis=0))  # (real where every root is, as NumPy's)
    else:
        r = _xp.zeros((0,), dtype=_dt.float64)
    return _xp.concat([r, _xp.zeros((trailing,), dtype=r.dtype)]) if trailing else r


def poly(seq_of_zeros):
    z = D.asarray(seq_of_zeros, op="poly")
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] > 0:
        z = _xp.linalg.eigvals(z)
    elif z.ndim != 1:
        raise ValueError("nabla.numpy.poly: input must be 1-D or a square 2-D array")
    a = _xp.ones((1,), dtype=z.dtype if z.dtype.is_floating or z.dtype.is_complex else _dt.float64)
    for k in range(z.shape[0]):
        a = convolve(a, _xp.concat([_xp.ones((1,), dtype=a.dtype), _reshape(-z[k], (1,))]), mode="full")
    return a


def polyder(p, m=1):
    c = _coefficients(p, "polyder")
    for _ in range(int(m)):
        n = c.shape[0] - 1
        if n <= 0:
            return _xp.zeros((1,), dtype=c.dtype)
        c = c[:-1] * _astype(_xp.arange(n, 0, -1), c.dtype)
    return c


def polyint(p, m=1, k=None):
    c = _coefficients(p, "polyint", inexact=True)
    m = int(m)
    ks = [0.0] * m if k is None else list(_np.atleast_1d(k)) * (m if _np.ndim(k) == 0 else 1)
    if len(ks) != m:
        raise ValueError("nabla.numpy.polyint: k must be a scalar or a sequence of length m")
    for j in range(m):
        n = c.shape[0]
        c = _xp.concat([c / _astype(_xp.arange(n, 0, -1), c.dtype), _xp.full((1,), ks[j], dtype=c.dtype)])
    return c


def _aligned(a, b, op):
    x, y = D.promote_all([_coefficients(a, op), _coefficients(b, op)], op)
    n = max(x.shape[0], y.shape[0])
    pad = lambda t: _xp.concat([_xp.zeros((n - t.shape[0],), dtype=t.dtype), t]) if t.shape[0] < n else t  # noqa: E731
    return pad(x), pad(y)


def polyadd(a1, a2):
    x, y = _aligned(a1, a2, "polyadd")
    return x + y


def polysub(a1, a2):
    x, y = _aligned(a1, a2, "polysub")
    return x - y


def polymul(a1, a2):
    x, y = D.promote_all([_coefficients(a1, "polymul"), _coefficients(a2, "polymul")], "polymul")
    return convolve(x, y, mode="full")


def polydiv(u, v):
    """Long division: ``(quotient, remainder)``, one elimination step per quotient coefficient."""
    x, y = D.promote_all([_coefficients(u, "polydiv", True), _coefficients(v, "polydiv", True)], "polydiv")
    m, n = x.shape[0] - 1, y.shape[0] - 1
    scale = 1.0 / y[0]
    if m < n:
        return _xp.zeros((1,), dtype=x.dtype), x
    r, q = x, []
    for k in range(m - n + 1):
        d = scale * r[k]
        q.append(_reshape(d, (1,)))
        r = _xp.concat([r[:k], r[k:k + n + 1] - d * y, r[k + n + 1:]])
    rem = r[m - n + 1:]
    return _xp.concat(q), rem


__all__ = [n for n, v in list(globals().items()) if not n.startswith("_") and callable(v)
           and getattr(v, "__module__", None) == __name__]
