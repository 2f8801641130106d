"""``nabla.numpy.ma``: NumPy's masked arrays, lazy and on MAX (``np.ma.masked_invalid(x).mean(axis=0)``).

A ``MaskedArray`` is a data array and a boolean mask, both Nabla arrays; every operation is the face's
operation on the data plus NumPy's mask rule (``core``, ``ufuncs``, ``reductions``, ``functions``); its
methods and operators are bound in ``methods``.
What differs from NumPy is listed in docs/numpy.md."""

from __future__ import annotations

from ...core.pytree import register_pytree_node
from . import methods, ufuncs
from .core import (MAError, MaskError, MaskType, MaskedArray, MaskedConstant, default_fill_value, filled,  # noqa: F401
                   get_data, get_mask, getdata, getmask, getmaskarray, is_mask, is_masked, isarray, isMA,
                   isMaskedArray, make_mask, make_mask_none, mask_or, masked, masked_singleton,
                   maximum_fill_value, minimum_fill_value, nomask)
from .functions import *  # noqa: F401,F403
from .reductions import (all, amax, amin, anom, anomalies, any, argmax, argmin, average, count,  # noqa: F401,A004
                         count_masked, cumprod, cumsum, max, mean, median, min, prod, product, ptp, std, sum, var)

globals().update({name: u for name, u in ufuncs.MASKED_UFUNCS.items()})
abs = ufuncs.MASKED_UFUNCS["absolute"]  # noqa: A001
alltrue, sometrue = all, any
bool_ = MaskType


def _register_pytree() -> None:
    """Masked arrays are containers of their data and mask, so ``vmap``/``grad`` map and return them."""
    def flatten(a):
        return ([a._data] if a._mask is nomask else [a._data, a._mask]), (a._fill_value, a._hardmask)

    def unflatten(aux, children):
        out = MaskedArray._from(children[0], children[1] if len(children) > 1 else nomask)
        out._fill_value, out._hardmask = aux
        return out

    register_pytree_node(MaskedArray, flatten, unflatten)


methods.bind()
_register_pytree()
