"""``numpy.polynomial``: the power-series ``Polynomial`` class and its function module
``polynomial``; the Chebyshev, Legendre, Laguerre and Hermite classes are not built (docs/numpy.md).

A ``Polynomial`` maps its ``domain`` onto its ``window`` before evaluating (``fit`` takes the data's
range as the domain, so high degrees stay well conditioned). Domain and window are two host numbers
each, as NumPy's; the coefficients live on MAX."""

from __future__ import annotations

import numbers

import numpy as _np

from ... import array_api as _xp
from .. import _dtypes as D
from . import polynomial
from .polynomial import mapparms


def _interval(v, name):
    a = _np.asarray([-1.0, 1.0] if v is None else v, dtype=float)
    if a.shape != (2,):
        raise ValueError(f"nabla.numpy.polynomial.Polynomial: {name} must have two elements, got {v!r}")
    return a


class Polynomial:
    """``Polynomial(coef, domain=None, window=None, symbol="x")``, coefficients lowest degree first."""

    __hash__ = None
    basis_name = None
    domain_default = window_default = _np.array([-1.0, 1.0])

    def __init__(self, coef, domain=None, window=None, symbol="x"):
        self.coef = polynomial.as_series(coef, "Polynomial")
        self.domain, self.window = _interval(domain, "domain"), _interval(window, "window")
        if not isinstance(symbol, str) or not symbol.isidentifier():
            raise ValueError("nabla.numpy.polynomial.Polynomial: symbol must be a valid Python identifier")
        self.symbol = symbol

    # --- construction -------------------------------------------------------------------------
    @classmethod
    def fit(cls, x, y, deg, domain=None, rcond=None, full=False, w=None, window=None, symbol="x"):
        xv = D.asarray(x, op="Polynomial.fit")
        if domain is None:  # the data's range: two numbers read back, as NumPy computes them
            domain = [float(_xp.min(xv)), float(_xp.max(xv))]
        elif isinstance(domain, (list, tuple)) and len(domain) == 0:
            domain = cls.domain_default
        window = cls.window_default if window is None else window
        off, scl = mapparms(domain, window)
        out = polynomial.polyfit(off + scl * xv, y, deg, rcond=rcond, full=full, w=w)
        coef, extra = (out[0], out[1]) if full else (out, None)
        poly = cls(coef, domain, window, symbol)
        return (poly, extra) if full else poly

    @classmethod
    def fromroots(cls, roots, domain=(), window=None, symbol="x"):
        return cls(polynomial.polyfromroots(roots), None if len(domain) == 0 else domain, window, symbol)

    @classmethod
    def identity(cls, domain=None, window=None, symbol="x"):
        off, scl = mapparms(_interval(window, "window"), _interval(domain, "domain"))
        return cls([off, scl], domain, window, symbol)

    def copy(self):
        return type(self)(self.coef, self.domain, self.window, self.symbol)

    # --- what it is -----------------------------------------------------------------------------
    def degree(self) -> int:
        return self.coef.shape[0] - 1

    def __len__(self):
        return self.coef.shape[0]

    def mapparms(self):
        return mapparms(self.domain, self.window)

    def has_samecoef(self, other) -> bool:
        return self.coef.shape == other.coef.shape and bool(_xp.all(self.coef == other.coef))

    def has_samedomain(self, other) -> bool:
        return bool(_np.all(self.domain == other.domain))

    def has_samewindow(self, other) -> bool:
        return bool(_np.all(self.window == other.window))

    def __eq__(self, other):
        return (isinstance(other, type(self)) and self.has_samedomain(other) and self.has_samewindow(other)
                and self.symbol == other.symbol and self.has_samecoef(other))

    def __ne__(self, other):
        return not self.__eq__(other)

    def __repr__(self):
        inner = lambda a: repr(a)[6:-1]  # noqa: E731  (NumPy's own spelling of the numbers)
        return (f"{type(self).__name__}({inner(self.coef)}, domain={inner(self.domain)}, "
                f"window={inner(self.window)}, symbol='{self.symbol}')")

    def __str__(self):  # NumPy's layout, for printing only
        return str(_np.polynomial.Polynomial(self.coef.numpy(), self.domain, self.window, self.symbol))

    # --- evaluation and calculus ---------------------------------------------------------------
    def __call__(self, x):
        off, scl = self.mapparms()
        return polynomial.polyval(off + scl * D.asarray(x, op="Polynomial"), self.coef)

    def deriv(self, m=1):
        return self._like(polynomial.polyder(self.coef, m, self.mapparms()[1]))

    def integ(self, m=1, k=(), lbnd=None):
        off, scl = self.mapparms()
        lbnd = 0 if lbnd is None else off + scl * lbnd
        return self._like(polynomial.polyint(self.coef, m, k, lbnd, 1.0 / scl))

    def roots(self):
        off, scl = self.mapparms()
        return (polynomial.polyroots(self.coef) - off) / scl

    def linspace(self, n=100, domain=None):
        lo, hi = self.domain if domain is None else domain
        x = _xp.linspace(float(lo), float(hi), int(n), dtype=self.coef.dtype if self.coef.dtype.is_floating else None)
        return D.asarray(x), self(x)

    def convert(self, domain=None, kind=None, window=None):
        """The same function with another domain and window (default: the class's): with
        p(x) = P(a_p + b_p x) and the new map u = a_q + b_q x, its series is P(a + b u) re-expanded
        by Horner's rule, b = b_p / b_q and a = a_p - b * a_q."""
        if kind is not None and kind is not type(self):
            raise NotImplementedError("nabla.numpy.polynomial: only Polynomial is built (no Chebyshev, ...)")
        domain, window = _interval(domain, "domain"), _interval(window, "window")
        (a_p, b_p), (a_q, b_q) = self.mapparms(), mapparms(domain, window)
        b = b_p / b_q
        a = a_p - b * a_q
        out = _xp.zeros((1,), dtype=self.coef.dtype)
        for k in range(self.coef.shape[0] - 1, -1, -1):
            out = polynomial.polyadd(polynomial.polymul(out, [a, b]), _xp.reshape(self.coef[k], (1,)))
        return type(self)(out, domain, window, self.symbol)

    # --- arithmetic -------------------------------------------------------------------------------
    def _like(self, coef):
        return type(self)(coef, self.domain, self.window, self.symbol)

    def _other(self, other):
        if isinstance(other, Polynomial):
            if not (self.has_samedomain(other) and self.has_samewindow(other)):
                raise TypeError("nabla.numpy.polynomial.Polynomial: Domains differ" if not self.has_samedomain(other)
                                else "nabla.numpy.polynomial.Polynomial: Windows differ")
            if self.symbol != other.symbol:
                raise ValueError("nabla.numpy.polynomial.Polynomial: Polynomial symbols differ")
            return other.coef
        return other

    def __neg__(self):
        return self._like(-self.coef)

    def __pos__(self):
        return self

    def __add__(self, other):
        return self._like(polynomial.polyadd(self.coef, self._other(other)))

    def __radd__(self, other):
        return self._like(polynomial.polyadd(other, self.coef))

    def __sub__(self, other):
        return self._like(polynomial.polysub(self.coef, self._other(other)))

    def __rsub__(self, other):
        return self._like(polynomial.polysub(other, self.coef))

    def __mul__(self, other):
        return self._like(polynomial.polymul(self.coef, self._other(other)))

    def __rmul__(self, other):
        return self._like(polynomial.polymul(other, self.coef))

    def __truediv__(self, other):
        if not isinstance(other, (numbers.Number, _np.generic)):
            raise TypeError(f"nabla.numpy.polynomial.Polynomial: cannot divide by {type(other).__name__} "
                            "(use // and % for polynomial division)")
        return self._like(self.coef / other)

    def __divmod__(self, other):
        q, r = polynomial.polydiv(self.coef, self._other(other))
        return self._like(q), self._like(r)

    def __rdivmod__(self, other):
        q, r = polynomial.polydiv(other, self.coef)
        return self._like(q), self._like(r)

    def __floordiv__(self, other):
        return divmod(self, other)[0]

    def __mod__(self, other):
        return divmod(self, other)[1]

    def __pow__(self, n):
        return self._like(polynomial.polypow(self.coef, n))


__all__ = ["Polynomial", "polynomial"]
