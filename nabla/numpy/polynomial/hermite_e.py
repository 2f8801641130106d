"""``numpy.polynomial.hermite_e``: ``hermeval``, ``hermefit``, ... on MAX, built from the
HermiteE recurrence (see ``_orthogonal``)."""

from ._orthogonal import FAMILIES as _FAMILIES
from ._orthogonal import functions as _functions
from ._series import HermiteE

globals().update(_functions(_FAMILIES["herme"]))

__all__ = ["HermiteE"] + [n for n in _functions(_FAMILIES["herme"]) if not n.startswith("_")]
