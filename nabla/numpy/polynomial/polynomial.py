"""``numpy.polynomial.polynomial``: power series with coefficients lowest degree first, on MAX: the
one-dimensional functions of ``_power``, and the multi-dimensional values, grids and Vandermonde
matrices, ``polymulx`` and ``polyline`` from the orthogonal-series table, with the power basis as
its recurrence (A = 1, B = C = 0)."""

from ._orthogonal import POWER as _POWER
from ._orthogonal import functions as _functions
from ._power import (as_series, mapparms, polyadd, polyder, polydiv, polyfit, polyfromroots, polyint,  # noqa: F401
                     polymul, polypow, polyroots, polysub, polytrim, polyval, polyvander, trimcoef, trimseq)

globals().update({n: f for n, f in _functions(_POWER).items()
                  if n in ("polyval2d", "polyval3d", "polygrid2d", "polygrid3d", "polyvander2d", "polyvander3d",
                           "polymulx", "polyline")})

__all__ = ["polyadd", "polysub", "polymul", "polydiv", "polypow", "polyval", "polyder", "polyint", "polyvander",
           "polyfromroots", "polyroots", "polyfit", "as_series", "trimseq", "trimcoef", "polytrim", "mapparms",
           "polyval2d", "polyval3d", "polygrid2d", "polygrid3d", "polyvander2d", "polyvander3d", "polymulx",
           "polyline"]
