"""``nabla.numpy.ma``: NumPy's masked arrays, lazy and on MAX (``np.ma.masked_invalid(x).mean(axis=0)``).

A ``MaskedArray`` is a data array and a boolean mask, both Nabla arrays; every operation is the face's
operation on the data plus NumPy's mask rule (``core``, ``ufuncs``, ``reductions``, ``functions``).
What differs from NumPy is listed in docs/numpy.md."""

from __future__ import annotations

from ...ops import aliasing
from . import core, functions, reductions, ufuncs
from .core import (MAError, MaskError, MaskType, MaskedArray, MaskedConstant, default_fill_value, filled,  # noqa: F401
                   get_data, get_mask, getdata, getmask, getmaskarray, is_mask, is_masked, isarray, isMA,
                   isMaskedArray, make_mask, make_mask_none, mask_or, masked, masked_singleton,
                   maximum_fill_value, minimum_fill_value, nomask)
from .functions import *  # noqa: F401,F403
from .functions import _SHAPE_FUNCTIONS
from .reductions import (all, amax, amin, anom, anomalies, any, argmax, argmin, average, count,  # noqa: F401,A004
                         count_masked, cumprod, cumsum, max, mean, median, min, prod, product, ptp, std, sum, var)

globals().update({name: u for name, u in ufuncs.MASKED_UFUNCS.items()})
abs = ufuncs.MASKED_UFUNCS["absolute"]  # noqa: A001
alltrue, sometrue = all, any
bool_ = MaskType


def _bind_methods() -> None:
    R, F = reductions, functions

    def method(fn):
        return lambda self, *args, **kwargs: fn(self, *args, **kwargs)

    table = {name: getattr(F, name) for name in _SHAPE_FUNCTIONS if name not in ("expand_dims", "broadcast_to",
                                                                                 "tril", "triu", "diag")}
    table.update({name: getattr(R, name) for name in ("sum", "prod", "product", "mean", "var", "std", "min", "max",
                                                      "ptp", "argmin", "argmax", "all", "any", "cumsum",
                                                      "cumprod", "anom")})
    table.update({"clip": F.clip, "round": F.round, "dot": F.dot, "nonzero": F.nonzero, "copy": F.copy,
                  "argsort": F.argsort, "trace": F.trace})
    for name, fn in table.items():
        setattr(MaskedArray, name, method(fn))

    def reshape(self, *shape, order="C"):
        return F.reshape(self, shape[0] if len(shape) == 1 else shape)

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))) else axes
        return F.transpose(self, axes or None)

    def flatten(self, order="C"):
        return F.copy(F.ravel(self))

    def astype(self, dtype, *args, **kwargs):
        return MaskedArray._from(self._data.astype(dtype, *args, **kwargs), core._copy_mask(self._mask), self)

    def sort(self, axis=-1, kind=None, order=None, endwith=True, fill_value=None, stable=None):
        s = F.sort(self, axis, kind, order, endwith, fill_value)
        self[...] = s

    def view(self, dtype=None, type=None):  # noqa: A002
        return MaskedArray._from(self._data.view(), self._mask, self)

    def fill(self, value):
        aliasing.setitem(self._data, ..., getdata(value))

    def compress(self, condition, axis=None):
        return F.compress(condition, self, axis)

    def put(self, indices, values, mode="raise"):
        F.put(self, indices, values, mode)

    def searchsorted(self, v, side="left", sorter=None):
        return self.filled().searchsorted(getdata(v), side, sorter)

    def tobytes(self, fill_value=None, order="C"):
        return self.numpy().tobytes(fill_value, order)

    for fn in (reshape, transpose, flatten, astype, sort, view, fill, compress, put, searchsorted, tobytes):
        setattr(MaskedArray, fn.__name__, fn)
    MaskedArray.conj = MaskedArray.conjugate = lambda self: ufuncs.MASKED_UFUNCS["conjugate"](self)
    MaskedArray.get_real, MaskedArray.get_imag = MaskedArray.real.fget, MaskedArray.imag.fget
    MaskedArray.mT = property(lambda self: F.swapaxes(self, -1, -2))
    MaskedArray.flat = property(lambda self: iter(F.ravel(self)))
    MaskedArray.base = property(lambda self: None)


def _register_pytree() -> None:
    """Masked arrays are containers of their data and mask, so ``vmap``/``grad`` map and return them."""
    from ...core.pytree import register_pytree_node

    def flatten(a):
        return ([a._data] if a._mask is nomask else [a._data, a._mask]), (a._fill_value, a._hardmask)

    def unflatten(aux, children):
        out = MaskedArray._from(children[0], children[1] if len(children) > 1 else nomask)
        out._fill_value, out._hardmask = aux
        return out

    register_pytree_node(MaskedArray, flatten, unflatten)


ufuncs.bind()
_bind_methods()
_register_pytree()
