"""Power series with coefficients lowest degree first, on MAX (the classic highest-first functions of ``nabla.numpy`` do the work on flipped coefficients). As in
NumPy, sums, products and quotients drop trailing zero coefficients (read by value), and every
series is at least float64."""

from __future__ import annotations

import numpy as _np

from ... import array_api as _xp
from ...ops.view import reshape as _reshape
from ...core import dtypes as _dt
from ...ops.elementwise import astype as _astype
from .. import _dtypes as D
from .. import _polynomial as C


def as_series(c, op: str):
    s = D.asarray(c, op=f"polynomial.{op}")
    if s.ndim == 0:
        s = _reshape(s, (1,))
    if s.ndim != 1 or s.shape[0] == 0:
        raise ValueError(f"nabla.numpy.polynomial.{op}: coefficients must be a non-empty 1-D series, got shape {s.shape}")
    return s if s.dtype.is_complex or s.dtype in (_dt.float64,) else _astype(s, _dt.float64)


def trimseq(s):
    """``s`` less its trailing zeros (one coefficient at least)."""
    nonzero = _np.flatnonzero(s.numpy())
    return s[:int(nonzero[-1]) + 1] if nonzero.size else s[:1]


def trimcoef(c, tol=0):
    """``c`` less its trailing coefficients of magnitude <= tol (``[0]`` when all are)."""
    if tol < 0:
        raise ValueError("nabla.numpy.polynomial.trimcoef: tol must be non-negative")
    s = as_series(c, "trimcoef")
    keep = _np.flatnonzero(_np.abs(s.numpy()) > tol)
    return s[:int(keep[-1]) + 1] if keep.size else s[:1] * 0


polytrim = trimcoef


def _flip(s):
    return _xp.flip(s, axis=0)


def _pair(c1, c2, op):
    return D.promote_all([as_series(c1, op), as_series(c2, op)], op)


def polyadd(c1, c2):
    a, b = _pair(c1, c2, "polyadd")
    return trimseq(_flip(C.polyadd(_flip(a), _flip(b))))


def polysub(c1, c2):
    a, b = _pair(c1, c2, "polysub")
    return trimseq(_flip(C.polysub(_flip(a), _flip(b))))


def polymul(c1, c2):
    a, b = _pair(c1, c2, "polymul")
    return trimseq(_flip(C.polymul(_flip(a), _flip(b))))


def polydiv(c1, c2):
    a, b = _pair(c1, c2, "polydiv")
    b = trimseq(b)
    if not bool(_xp.any(b != 0)):
        raise ZeroDivisionError("nabla.numpy.polynomial.polydiv: division by a zero series")
    q, r = C.polydiv(_flip(trimseq(a)), _flip(b))
    return _flip(q), trimseq(_flip(r))


def polypow(c, pow, maxpower=None):  # noqa: A002 (NumPy's name)
    s = as_series(c, "polypow")
    if int(pow) != pow or pow < 0:
        raise ValueError("nabla.numpy.polynomial.polypow: power must be a non-negative integer")
    if maxpower is not None and pow > maxpower:
        raise ValueError("nabla.numpy.polynomial.polypow: power is too large")
    out = _xp.ones((1,), dtype=s.dtype)
    for _ in range(int(pow)):
        out = polymul(out, s)
    return out


def polyval(x, c, tensor=True):
    s = as_series(c, "polyval")
    return C.polyval(_flip(s), x)


def polyder(c, m=1, scl=1):
    s = as_series(c, "polyder")
    for _ in range(int(m)):
        n = s.shape[0]
        if n <= 1:
            return s[:1] * 0
        s = s[1:] * _astype(_xp.arange(1, n), s.dtype) * scl
    return s


def polyint(c, m=1, k=(), lbnd=0, scl=1):
    s = as_series(c, "polyint")
    m = int(m)
    ks = list(_np.atleast_1d(k)) if _np.ndim(k) else [k]
    if len(ks) > m:
        raise ValueError("nabla.numpy.polynomial.polyint: too many integration constants")
    ks += [0] * (m - len(ks))
    for j in range(m):
        n = s.shape[0]
        s = _xp.concat([_xp.zeros((1,), dtype=s.dtype), s * scl / _astype(_xp.arange(1, n + 1), s.dtype)])
        # the constant makes the integral ks[j] at lbnd
        s = _xp.concat([_reshape(ks[j] - polyval(lbnd, s), (1,)), s[1:]])
    return s


def polyvander(x, deg):
    return C.vander(_astype(D.asarray(x, op="polyvander"), _dt.float64), int(deg) + 1, increasing=True)


def polyfromroots(roots):
    return _flip(C.poly(D.asarray(roots, op="polyfromroots")))


def polyroots(c):
    """Eigenvalues of the companion matrix, sorted as NumPy sorts complex values (real part, then
    imaginary); complex always, as the face's eigvals."""
    s = trimseq(as_series(c, "polyroots"))
    r = C.roots(_flip(s))
    if r.shape[0] > 1:
        r = _xp.take(r, _xp.argsort(_xp.imag(r), stable=True))
        r = _xp.take(r, _xp.argsort(_xp.real(r), stable=True))
    return r


def polyfit(x, y, deg, rcond=None, full=False, w=None):
    out = C.polyfit(x, y, deg, rcond=rcond, full=full, w=w)
    if not full:
        return _flip(out)
    coef, resids, rank, sv, rc = out
    return _flip(coef), [resids, rank, sv, rc]


def mapparms(old, new):
    """(off, scl) with new = off + scl * old for the end points of two intervals (host numbers)."""
    (o0, o1), (n0, n1) = _np.asarray(old, float), _np.asarray(new, float)
    return (o1 * n0 - o0 * n1) / (o1 - o0), (n1 - n0) / (o1 - o0)
