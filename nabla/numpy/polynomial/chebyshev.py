"""``numpy.polynomial.chebyshev``: ``chebval``, ``chebfit``, ... on MAX, built from the
Chebyshev recurrence (see ``_orthogonal``)."""

from ._orthogonal import FAMILIES as _FAMILIES
from ._orthogonal import functions as _functions
from ._series import Chebyshev

globals().update(_functions(_FAMILIES["cheb"]))

__all__ = ["Chebyshev"] + [n for n in _functions(_FAMILIES["cheb"]) if not n.startswith("_")]
