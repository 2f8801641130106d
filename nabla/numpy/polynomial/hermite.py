"""``numpy.polynomial.hermite``: ``hermval``, ``hermfit``, ... on MAX, built from the
Hermite recurrence (see ``_orthogonal``)."""

from ._orthogonal import FAMILIES as _FAMILIES
from ._orthogonal import functions as _functions
from ._series import Hermite

globals().update(_functions(_FAMILIES["herm"]))

__all__ = ["Hermite"] + [n for n in _functions(_FAMILIES["herm"]) if not n.startswith("_")]
