"""NumPy's ``poly1d``: a one-variable polynomial (coefficients highest power first) whose arithmetic
runs through the face's polynomial functions on MAX. As in NumPy, leading zero coefficients are
dropped when one is made (its order depends on their values, so they are read then), and the
classic functions (``polyadd``, ``polyder``, ...) give a poly1d when handed one."""

from __future__ import annotations

import numbers

import numpy as _np

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from . import _dtypes as D
from . import _polynomial as P


def _is_scalar(v) -> bool:
    return isinstance(v, (numbers.Number, _np.generic)) or (hasattr(v, "ndim") and v.ndim == 0
                                                             and not isinstance(v, poly1d))


class poly1d:
    """``poly1d(c_or_r, r=False, variable=None)``: coefficients, or roots when ``r``."""

    __hash__ = None

    def __init__(self, c_or_r, r=False, variable=None):
        if isinstance(c_or_r, poly1d):
            self._variable, self._coeffs = c_or_r._variable, c_or_r._coeffs
            if variable is not None:
                self._variable = variable
            return
        if r:
            c_or_r = P.poly(c_or_r)
        c = D.asarray(c_or_r, op="poly1d")
        if c.ndim > 1:
            raise ValueError(f"nabla.numpy.poly1d: Polynomial must be 1d only, got shape {c.shape}")
        c = _reshape(c, (-1,))
        nonzero = _np.flatnonzero(c.numpy())  # NumPy trims leading zeros by value
        c = c[int(nonzero[0]):] if nonzero.size else _xp.zeros((1,), dtype=c.dtype)
        self._coeffs, self._variable = D.asarray(c), variable or "x"

    # --- attributes, as NumPy spells them ----------------------------------------------------
    @property
    def coeffs(self):
        return self._coeffs

    c = coef = coefficients = coeffs

    @property
    def order(self) -> int:
        return self._coeffs.shape[0] - 1

    o = order

    @property
    def roots(self):
        return P.roots(self._coeffs)

    r = roots

    @property
    def variable(self) -> str:
        return self._variable

    def __len__(self):
        return self.order

    def __iter__(self):
        return iter(self._coeffs)

    def __array__(self, dtype=None, copy=None):
        out = self._coeffs.numpy()
        return out if dtype is None else out.astype(dtype)

    def __repr__(self):
        return f"poly1d({repr(self._coeffs)[6:-1]})"

    def __str__(self):  # NumPy's two-line layout, for printing only
        return str(_np.poly1d(self._coeffs.numpy(), variable=self._variable))

    # --- evaluation and calculus -------------------------------------------------------------
    def __call__(self, val):
        if isinstance(val, poly1d):  # composition, by Horner's rule on polynomials
            out = poly1d([0])
            for k in range(self._coeffs.shape[0]):
                out = out * val + self._coeffs[k]
            return out
        return P.polyval(self._coeffs, val)

    def deriv(self, m=1):
        return poly1d(P.polyder(self._coeffs, m=m))

    def integ(self, m=1, k=0):
        return poly1d(P.polyint(self._coeffs, m=m, k=k))

    # --- arithmetic ---------------------------------------------------------------------------
    def __neg__(self):
        return poly1d(-self._coeffs)

    def __pos__(self):
        return self

    def __add__(self, other):
        return poly1d(P.polyadd(self._coeffs, poly1d(other)._coeffs))

    __radd__ = __add__

    def __sub__(self, other):
        return poly1d(P.polysub(self._coeffs, poly1d(other)._coeffs))

    def __rsub__(self, other):
        return poly1d(P.polysub(poly1d(other)._coeffs, self._coeffs))

    def __mul__(self, other):
        if _is_scalar(other):
            return poly1d(self._coeffs * other)
        return poly1d(P.polymul(self._coeffs, poly1d(other)._coeffs))

    __rmul__ = __mul__

    def __truediv__(self, other):
        if _is_scalar(other):
            return poly1d(self._coeffs / other)
        return polydiv(self, poly1d(other))

    def __rtruediv__(self, other):
        if _is_scalar(other):  # NumPy divides the scalar by each coefficient
            return poly1d(other / self._coeffs)
        return polydiv(poly1d(other), self)

    def __pow__(self, val):
        if not _is_scalar(val) or int(val) != val or val < 0:
            raise ValueError(f"nabla.numpy.poly1d: Power to non-negative integers only, got {val!r}")
        out = _xp.ones((1,), dtype=self._coeffs.dtype)
        for _ in range(int(val)):
            out = P.polymul(self._coeffs, out)
        return poly1d(out)

    def __eq__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        if self._coeffs.shape != other._coeffs.shape:
            return False
        return bool(_xp.all(self._coeffs == other._coeffs))

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    # --- coefficients by power -----------------------------------------------------------------
    def __getitem__(self, power):
        if power > self.order or power < 0:
            return self._coeffs.dtype.numpy_dtype.type(0)
        return self._coeffs[self.order - power]

    def __setitem__(self, power, value):
        if power < 0:
            raise ValueError("nabla.numpy.poly1d: Does not support negative powers.")
        c = self._coeffs
        if power > self.order:
            c = _xp.concat([_xp.zeros((power - self.order,), dtype=c.dtype), c])
        c = c * 1  # a new array: other holders of the old coefficients keep them
        c[c.shape[0] - 1 - power] = value
        self._coeffs = c


def _wrapping(fn):
    """The classic function, giving a poly1d when any argument is one (as NumPy's)."""

    def wrapped(*args, **kwargs):
        poly = any(isinstance(a, poly1d) for a in args)
        out = fn(*(a._coeffs if isinstance(a, poly1d) else a for a in args), **kwargs)
        if not poly:
            return out
        return tuple(poly1d(o) for o in out) if isinstance(out, tuple) else poly1d(out)

    wrapped.__name__ = wrapped.__qualname__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


polyadd, polysub, polymul, polydiv, polyder, polyint = (
    _wrapping(f) for f in (P.polyadd, P.polysub, P.polymul, P.polydiv, P.polyder, P.polyint))


def polyval(p, x):
    """``p(x)``: values for array ``x``, the composition for a poly1d ``x``."""
    if isinstance(x, poly1d):
        return poly1d(p)(x)
    return P.polyval(p._coeffs if isinstance(p, poly1d) else p, x)


def roots(p):
    return P.roots(p._coeffs if isinstance(p, poly1d) else p)


__all__ = ["poly1d", "polyadd", "polysub", "polymul", "polydiv", "polyder", "polyint", "polyval", "roots"]
