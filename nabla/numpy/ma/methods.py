"""``MaskedArray``'s methods and operators, bound in one place (``bind``, run once as the package loads):
the class is defined in ``core``, below the ufuncs, reductions and functions its methods are."""

from __future__ import annotations

from ...ops import aliasing
from . import core, functions, reductions
from . import ufuncs as U
from .core import MaskedArray, getdata


def bind() -> None:
    _bind_operators()
    _bind_methods()


def _bind_operators() -> None:
    """Python's operators: the masked ufuncs (``@`` is ``functions.dot``)."""
    u = U.MASKED_UFUNCS
    names = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
             "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "and": "bitwise_and",
             "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "left_shift", "rshift": "right_shift"}
    for py, name in names.items():
        setattr(MaskedArray, f"__{py}__", U._binary(u[name]))
        setattr(MaskedArray, f"__r{py}__", U._reflected(u[name]))
        setattr(MaskedArray, f"__i{py}__", U._inplace(u[name], name))
    for py, name in {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
                     "ge": "greater_equal"}.items():
        setattr(MaskedArray, f"__{py}__", U._binary(U.COMPARISONS[name]))
    for py, name in {"neg": "negative", "pos": "positive", "abs": "absolute", "invert": "invert"}.items():
        setattr(MaskedArray, f"__{py}__", (lambda f: lambda self: f(self))(u[name]))
    MaskedArray.__matmul__ = U._binary(functions.dot)
    MaskedArray.__rmatmul__ = U._reflected(functions.dot)
    MaskedArray._masked_ufuncs = u  # (``__array_ufunc__``: NumPy's ufuncs on masked arrays stay ours)


def _bind_methods() -> None:
    """NumPy's methods: the package's functions and reductions."""
    R, F = reductions, functions

    def method(fn):
        return lambda self, *args, **kwargs: fn(self, *args, **kwargs)

    table = {name: getattr(F, name) for name in F._SHAPE_FUNCTIONS if name not in ("expand_dims", "broadcast_to",
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
    MaskedArray.conj = MaskedArray.conjugate = lambda self: U.MASKED_UFUNCS["conjugate"](self)
    MaskedArray.get_real, MaskedArray.get_imag = MaskedArray.real.fget, MaskedArray.imag.fget
    MaskedArray.mT = property(lambda self: F.swapaxes(self, -1, -2))
    MaskedArray.flat = property(lambda self: iter(F.ravel(self)))
    MaskedArray.base = property(lambda self: None)
