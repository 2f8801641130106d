"""``numpy.polynomial``: the series classes (``Polynomial``, ``Chebyshev``, ``Legendre``,
``Laguerre``, ``Hermite``, ``HermiteE``) and their function modules, on MAX.

A series maps its ``domain`` onto its ``window`` before evaluating (``fit`` takes the data's range
as the domain, so high degrees stay well conditioned). Domain and window are two host numbers
each, as NumPy's; the coefficients live on MAX."""

from . import polynomial
from . import chebyshev, hermite, hermite_e, laguerre, legendre  # noqa: I001
from ._series import ABCPolyBase, Chebyshev, Hermite, HermiteE, Laguerre, Legendre, Polynomial

__all__ = ["ABCPolyBase", "Polynomial", "Chebyshev", "Legendre", "Laguerre", "Hermite", "HermiteE", "polynomial",
           "chebyshev", "legendre", "laguerre", "hermite", "hermite_e"]
