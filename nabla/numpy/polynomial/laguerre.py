"""``numpy.polynomial.laguerre``: ``lagval``, ``lagfit``, ... on MAX, built from the
Laguerre recurrence (see ``_orthogonal``)."""

from ._orthogonal import FAMILIES as _FAMILIES
from ._orthogonal import functions as _functions
from ._series import Laguerre

globals().update(_functions(_FAMILIES["lag"]))

__all__ = ["Laguerre"] + [n for n in _functions(_FAMILIES["lag"]) if not n.startswith("_")]
