"""The series classes of ``numpy.polynomial``: one base over a table of basis functions."""

from __future__ import annotations

import numbers

import numpy as _np

from ... import array_api as _xp
from ...core import dtypes as _dt
from .. import _dtypes as D
from . import polynomial
from ._orthogonal import FAMILIES, POWER, clenshaw, functions, is_series
from .polynomial import mapparms


def _interval(v, default, name, cls):
    a = _np.asarray(default if v is None else v, dtype=float)
    if a.shape != (2,):
        raise ValueError(f"nabla.numpy.polynomial.{cls}: {name} must have two elements, got {v!r}")
    return a


class ABCPolyBase:
    """A series in one basis: ``Kind(coef, domain=None, window=None, symbol="x")``, coefficients
    lowest degree first; ``domain`` is mapped onto ``window`` before the basis is evaluated."""

    __hash__ = None
    __array_ufunc__ = None  # NumPy's ufuncs defer to the series' own arithmetic
    _family = POWER
    _fn: dict = {}  # add, sub, mul, div, pow, val, der, int, roots, fit, fromroots, line
    basis_name = None
    domain = window = _np.array([-1.0, 1.0])

    def __init__(self, coef, domain=None, window=None, symbol="x"):
        cls = type(self)
        self.coef = polynomial.as_series(coef, cls.__name__)
        self.domain = _interval(domain, cls.domain, "domain", cls.__name__)
        self.window = _interval(window, cls.window, "window", cls.__name__)
        if not isinstance(symbol, str) or not symbol.isidentifier():
            raise ValueError(f"nabla.numpy.polynomial.{cls.__name__}: symbol must be a valid Python identifier")
        self.symbol = symbol

    # --- construction -------------------------------------------------------------------------
    @classmethod
    def fit(cls, x, y, deg, domain=None, rcond=None, full=False, w=None, window=None, symbol="x"):
        xv = D.asarray(x, op="Polynomial.fit")
        if domain is None:  # the data's range: two numbers read back, as NumPy computes them
            domain = [float(_xp.min(xv)), float(_xp.max(xv))]
        elif isinstance(domain, (list, tuple)) and len(domain) == 0:
            domain = cls.domain
        window = cls.window if window is None else window
        off, scl = mapparms(domain, window)
        out = cls._fn["fit"](off + scl * xv, y, deg, rcond=rcond, full=full, w=w)
        coef, extra = (out[0], out[1]) if full else (out, None)
        poly = cls(coef, domain, window, symbol)
        return (poly, extra) if full else poly

    @classmethod
    def fromroots(cls, roots, domain=(), window=None, symbol="x"):
        domain = cls.domain if domain is None or len(domain) == 0 else domain
        window = cls.window if window is None else window
        off, scl = mapparms(domain, window)  # roots r map to off + scl r in the window
        r = D.asarray(roots, op=f"{cls.__name__}.fromroots")
        return cls(cls._fn["fromroots"](off + scl * r if r.shape[0] else r), domain, window, symbol)

    @classmethod
    def identity(cls, domain=None, window=None, symbol="x"):
        domain = _interval(domain, cls.domain, "domain", cls.__name__)
        window = _interval(window, cls.window, "window", cls.__name__)
        off, scl = mapparms(window, domain)
        return cls(cls._fn["line"](off, scl), domain, window, symbol)

    @classmethod
    def basis(cls, deg, domain=None, window=None, symbol="x"):
        if int(deg) != deg or deg < 0:
            raise ValueError(f"nabla.numpy.polynomial.{cls.__name__}.basis: deg must be a non-negative integer")
        return cls(_xp.concat([_xp.zeros((int(deg),), dtype=_dt.float64), _xp.ones((1,), dtype=_dt.float64)]),
                   domain, window, symbol)

    @classmethod
    def cast(cls, series, domain=None, window=None):
        return series.convert(domain, cls, window)

    def copy(self):
        return type(self)(self.coef, self.domain, self.window, self.symbol)

    # --- what it is -----------------------------------------------------------------------------
    def degree(self) -> int:
        return self.coef.shape[0] - 1

    def __len__(self):
        return self.coef.shape[0]

    def __iter__(self):
        return iter(self.coef)

    def trim(self, tol=0):
        return self._like(polynomial.trimcoef(self.coef, tol))

    def truncate(self, size):
        if int(size) != size or size < 1:
            raise ValueError(f"nabla.numpy.polynomial.{type(self).__name__}.truncate: size must be a positive integer")
        return self._like(self.coef[:int(size)])

    def cutdeg(self, deg):
        return self.truncate(int(deg) + 1)

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
        return str(getattr(_np.polynomial, type(self).__name__)(self.coef.numpy(), self.domain, self.window, self.symbol))

    # --- evaluation and calculus ---------------------------------------------------------------
    def __call__(self, x):
        off, scl = self.mapparms()
        if is_series(x):  # a series of another kind (``convert``): Clenshaw on series arithmetic
            return clenshaw(self._family, self.coef, x * scl + off)
        return self._fn["val"](off + scl * D.asarray(x, op=type(self).__name__), self.coef)

    def deriv(self, m=1):
        return self._like(self._fn["der"](self.coef, m, self.mapparms()[1]))

    def integ(self, m=1, k=(), lbnd=None):
        off, scl = self.mapparms()
        lbnd = 0 if lbnd is None else off + scl * lbnd
        return self._like(self._fn["int"](self.coef, m, k, lbnd, 1.0 / scl))

    def roots(self):
        off, scl = self.mapparms()
        return (self._fn["roots"](self.coef) - off) / scl

    def linspace(self, n=100, domain=None):
        lo, hi = self.domain if domain is None else domain
        x = _xp.linspace(float(lo), float(hi), int(n), dtype=self.coef.dtype if self.coef.dtype.is_floating else None)
        return D.asarray(x), self(x)

    def convert(self, domain=None, kind=None, window=None):
        """The same function as a series of ``kind`` (default: this one's) over ``domain`` and
        ``window`` (default: the kind's): this series evaluated at that kind's identity."""
        kind = type(self) if kind is None else kind
        domain = kind.domain if domain is None else domain
        window = kind.window if window is None else window
        return self(kind.identity(domain, window, self.symbol))

    # --- arithmetic -------------------------------------------------------------------------------
    def _like(self, coef):
        return type(self)(coef, self.domain, self.window, self.symbol)

    def _other(self, other):
        name = type(self).__name__
        if isinstance(other, ABCPolyBase):
            if type(other) is not type(self):
                raise TypeError(f"nabla.numpy.polynomial.{name}: Polynomial types differ")
            if not (self.has_samedomain(other) and self.has_samewindow(other)):
                raise TypeError(f"nabla.numpy.polynomial.{name}: Domains differ" if not self.has_samedomain(other)
                                else f"nabla.numpy.polynomial.{name}: Windows differ")
            if self.symbol != other.symbol:
                raise ValueError(f"nabla.numpy.polynomial.{name}: Polynomial symbols differ")
            return other.coef
        return other

    def __neg__(self):
        return self._like(-self.coef)

    def __pos__(self):
        return self

    def __add__(self, other):
        return self._like(self._fn["add"](self.coef, self._other(other)))

    def __radd__(self, other):
        return self._like(self._fn["add"](other, self.coef))

    def __sub__(self, other):
        return self._like(self._fn["sub"](self.coef, self._other(other)))

    def __rsub__(self, other):
        return self._like(self._fn["sub"](other, self.coef))

    def __mul__(self, other):
        return self._like(self._fn["mul"](self.coef, self._other(other)))

    def __rmul__(self, other):
        return self._like(self._fn["mul"](other, self.coef))

    def __truediv__(self, other):
        if not isinstance(other, (numbers.Number, _np.generic)):
            raise TypeError(f"nabla.numpy.polynomial.{type(self).__name__}: cannot divide by {type(other).__name__} "
                            "(use // and % for polynomial division)")
        return self._like(self.coef / other)

    def __divmod__(self, other):
        q, r = self._fn["div"](self.coef, self._other(other))
        return self._like(q), self._like(r)

    def __rdivmod__(self, other):
        q, r = self._fn["div"](other, self.coef)
        return self._like(q), self._like(r)

    def __floordiv__(self, other):
        return divmod(self, other)[0]

    def __mod__(self, other):
        return divmod(self, other)[1]

    def __pow__(self, n):
        return self._like(self._fn["pow"](self.coef, n))


def _power_functions() -> dict:
    p = polynomial
    return {"add": p.polyadd, "sub": p.polysub, "mul": p.polymul, "div": p.polydiv, "pow": p.polypow,
            "val": p.polyval, "der": p.polyder, "int": p.polyint, "roots": p.polyroots,
            "fit": p.polyfit, "fromroots": p.polyfromroots, "line": p.polyline}


class Polynomial(ABCPolyBase):
    _fn = _power_functions()


def _kind(fam):
    fns = functions(fam)
    table = {name: fns[fam.prefix + name] for name in
             ("add", "sub", "mul", "div", "pow", "val", "der", "int", "roots", "fit", "fromroots", "line")}
    domain = _np.array(fam.domain)
    return type(fam.name, (ABCPolyBase,), {"_family": fam, "_fn": table, "basis_name": fam.basis_name,
                                           "domain": domain, "window": domain.copy(), "__module__": __name__})


Chebyshev, Legendre, Laguerre, Hermite, HermiteE = (_kind(FAMILIES[p]) for p in ("cheb", "leg", "lag", "herm", "herme"))

