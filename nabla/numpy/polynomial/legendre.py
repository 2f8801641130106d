"""``numpy.polynomial.legendre``: ``legval``, ``legfit``, ... on MAX, built from the
Legendre recurrence (see ``_orthogonal``)."""

from ._orthogonal import FAMILIES as _FAMILIES
from ._orthogonal import functions as _functions
from ._series import Legendre

globals().update(_functions(_FAMILIES["leg"]))

__all__ = ["Legendre"] + [n for n in _functions(_FAMILIES["leg"]) if not n.startswith("_")]
