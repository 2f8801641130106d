"""The ndarray's methods that are the face's functions (``x.sum()`` is ``sum(x)``, ``x + y`` is
``add(x, y)``, ``x.view(dtype)``, ``x.astype``, NumPy's dispatch protocols), bound onto the class by
``bind()`` once the face has loaded: ``_ndarray.py`` sits below the face's other modules, this
module above them."""

from __future__ import annotations

import numbers
import operator
from builtins import type as builtins_type

import numpy as _np

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core.tensor import Tensor
from ..core.tensor_impl import TensorImpl
from ..ops import aliasing
from ..ops.bit_views import bit_view, put_back_bits
from ..ops.elementwise import astype as _astype
from ..ops.view_layout import same, same_back
from . import _arrays as A, _datetime, _dtypes as D, _indexing as I, _math as M, _reductions as R, _sorting as S
from . import _manipulation as MN, _reduceat, _strings
from ._ndarray import BYTE_VIEWS, _made, _of_type, flatiter, made_as_array, ndarray
from ._ufunc_table import UFUNCS
from ._ufuncs import ufunc


def bind() -> None:
    """Give ``ndarray`` its methods and operators, ``flatiter`` its writes and ``ufunc`` its ``reduceat``."""
    methods = {"__init__": _init, "__round__": _round, "astype": astype, "reshape": reshape,
               "transpose": transpose, "flatten": flatten, "sort": sort, "partition": partition, "compress": compress,
               "nonzero": nonzero, "view": view, "byteswap": byteswap,
               "__array_ufunc__": __array_ufunc__, "__array_function__": __array_function__}
    for name, fn in {**methods, **_methods(), **_operators()}.items():
        setattr(ndarray, name, fn)
    flatiter.__setitem__ = _flat_setitem
    ufunc.reduceat = _reduceat.reduceat  # (a method: the ufunc is its first argument)


def _init(self, impl, dtype=float, *args, **kwargs):
    if not isinstance(impl, TensorImpl):
        if _made(self):  # a subclass's own __new__ made it (``np.asarray(a).view(cls)``): as NumPy, no more
            return
        impl = A.zeros(impl, dtype)._impl  # numpy.ndarray(shape, dtype): an (uninitialized) array
    Tensor.__init__(self, impl)


def _round(self, ndigits=None):
    if self.shape:  # NumPy's arrays have no __round__; its scalars (our 0-d results) do
        raise TypeError(f"type {builtins_type(self).__name__} doesn't define __round__ method")
    if ndigits is None:
        return round(self.item())
    return M.around(self, ndigits)


def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    dates = _datetime.dates_dtype(dtype)
    if dates is not None:  # numbers as ticks of a date unit
        if not _np.can_cast(self.dtype.numpy_dtype, dates, casting):
            raise TypeError(f"nabla.numpy.astype: cannot cast {self.dtype.name} to {dates} under "
                            f"casting={casting!r}")
        return _datetime.from_numbers(self, dates)
    if _strings.text_dtype(dtype):  # (strings stay on the host: the values read back, NumPy's cast)
        _strings.warn(f"astype to {_np.dtype(dtype)} is NumPy's cast of the values read back")
        return self.numpy().astype(dtype, casting=casting)
    target = D.to_nabla(dtype, "astype")
    if not _np.can_cast(self.dtype.numpy_dtype, target.numpy_dtype, casting):
        raise TypeError(f"nabla.numpy.astype: cannot cast {self.dtype.name} to {target.name} under "
                        f"casting={casting!r}")
    if target is self.dtype:
        return ndarray(self._impl) if copy else self
    return _astype(self, target)


def reshape(self, *shape, order="C", copy=None):
    return A.reshape(self, shape[0] if len(shape) == 1 else shape, order)


def transpose(self, *axes):
    axes = axes[0] if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))) else axes
    return A.transpose(self, axes or None)


def flatten(self, order="C"):
    return ndarray(A.ravel(self, order)._impl)  # a new array, not a view: a copy, as NumPy's flatten


def sort(self, axis=-1, kind=None, order=None, *, stable=None):
    aliasing.setitem(self, ..., S.sort(self, axis, kind, order))


def partition(self, kth, axis=-1, kind="introselect", order=None):
    """NumPy's ``ndarray.partition``: in place, as ``sort``."""
    aliasing.setitem(self, ..., S.partition(self, kth, axis, kind, order))


def compress(self, condition, axis=None):
    return I.compress(condition, self, axis)


def nonzero(self):
    return I.nonzero(self)


def view(self, dtype=None, type=None):  # noqa: A002
    """A view of the same elements, or of their bytes read as ``dtype`` (``ops/bit_views.py``: C
    order, little-endian; NaN payloads and subnormals are not kept). Writes reach both ways."""
    if isinstance(dtype, builtins_type) and issubclass(dtype, (_np.ndarray, Tensor)):
        dtype, type = None, dtype  # ``x.view(np.ndarray)``, ``x.view(Named)``: an array type
    if type is not None and not (isinstance(type, builtins_type) and issubclass(type, ndarray)):
        type = None  # NumPy's own ndarray (or Tensor): the one array type here
    if type is not None and type is not ndarray:  # a user's subclass: the same elements, its type
        base = self if dtype is None else self.view(dtype)
        out = aliasing.make_view(base, _of_type(type, base._impl), same, same_back)
        if type._inherits is not None:
            type._inherits(out, self)
        return out
    if _datetime.dates_dtype(dtype) is not None:  # the bytes as int64 ticks of a date unit
        return _datetime.DatetimeArray(self.view(_np.int64), _datetime.dates_dtype(dtype))
    for byte_view in BYTE_VIEWS:  # records or raw void items over these bytes
        out = byte_view(self, dtype)
        if out is not None:
            return out
    target = None if dtype is None else D.to_nabla(dtype, "view")
    if target is None or target is self.dtype:
        return aliasing.make_view(self, ndarray(self._impl), same, same_back)
    src = self.dtype
    return aliasing.make_view(self, ndarray(bit_view(self, target)._impl), lambda p: bit_view(p, target),
                              lambda p, c: put_back_bits(p, c, src, target))


def byteswap(self, inplace=False):
    """Each element's bytes reversed (a complex element's two parts each), through a byte view; in
    place: written into ``self``, which is returned, as NumPy's."""
    size = self.dtype.numpy_dtype.itemsize // (2 if self.dtype.is_complex else 1)
    if size == 1:
        out = self.copy()
    else:
        part = _np.dtype(f"<f{size}") if self.dtype.is_complex else self.dtype.numpy_dtype
        raw = self.reshape(-1).view(part).view(_np.uint8).reshape(-1, size)[:, ::-1]
        out = raw.reshape(-1).view(part).view(self.dtype.numpy_dtype).reshape(self.shape)
    if not inplace:
        return out
    self[...] = out
    return self


def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
    ours = UFUNCS.get(ufunc.__name__)
    if ours is None and ufunc.signature is not None and method == "__call__":  # a gufunc: ``np.matmul``
        import nabla.numpy as fnp  # lazy: nabla.numpy imports this module

        ours = getattr(fnp, ufunc.__name__, None)
    if ours is None:
        return NotImplemented
    fn = ours if method == "__call__" else getattr(ours, method, None)
    if fn is None:
        return NotImplemented
    if "out" in kwargs:  # (NumPy arrays among them too: ``a += x``, ``a`` NumPy's, written at the host boundary)
        out = kwargs["out"]
        kwargs["out"] = out if len(out) > 1 else out[0]
    return fn(*inputs, **kwargs)

def __array_function__(self, func, types, args, kwargs):
    import nabla.numpy as fnp  # lazy: nabla.numpy imports this module

    module = func.__module__ or ""
    space = fnp.linalg if module.startswith("numpy.linalg") else fnp.fft if module.startswith("numpy.fft") \
        else fnp
    ours = getattr(space, func.__name__, None)
    if ours is None or not callable(ours):
        return NotImplemented
    if ours is func:  # the face uses NumPy's own (printing, dtype rules): it works on host arrays
        return func(*_host(args), **dict(zip(kwargs, _host(tuple(kwargs.values())))))
    return ours(*args, **kwargs)


def _host(values: tuple) -> list:
    return [v.numpy() if isinstance(v, Tensor) else builtins_type(v)(_host(v)) if builtins_type(v) in (list, tuple) else v
            for v in values]


def _methods():
    """The NumPy-signature methods that are the face's functions of the same name."""
    return {
        "sum": R.sum, "prod": R.prod, "mean": R.mean, "std": R.std, "var": R.var, "min": R.min, "max": R.max,
        "argmin": R.argmin, "argmax": R.argmax, "all": R.all, "any": R.any, "cumsum": R.cumsum,
        "cumprod": R.cumprod, "ptp": R.ptp, "clip": M.clip, "round": M.around, "dot": M.dot, "repeat": A.repeat,
        "squeeze": A.squeeze, "swapaxes": A.swapaxes, "ravel": A.ravel, "argsort": S.argsort,
        "searchsorted": I.searchsorted, "take": A.take, "trace": A.trace, "diagonal": A.diagonal,
        "conj": _conj, "conjugate": _conj, "put": I.put, "argpartition": S.argpartition, "choose": MN.choose,
    }


def _conj(self):
    """NumPy's ``ndarray.conj``: the array itself where it is not complex (bool included)."""
    return _xp.conj(self) if self.dtype.is_complex else self


#: Python's sequences, which a 0-d integer array repeats as NumPy's integers do (``[0] * n``, ``"-" * n``)
_SEQUENCES = frozenset((list, tuple, str))


def _operators():
    def binary(u):
        plain = u._plain

        def op(self, other):
            if plain is not None:  # (the ufunc's own first step, without its keyword handling)
                r = plain(self, other)
                if r is not None:
                    return r
            if not isinstance(other, (Tensor, numbers.Number, list, tuple, _np.ndarray, _np.generic)):
                return NotImplemented
            return u(self, other)
        return op

    def reflected(u):
        plain = u._plain
        if plain is None:
            return lambda self, other: u(other, self)

        def op(self, other):
            r = plain(other, self)
            return u(other, self) if r is None else r
        return op

    def unary(u):  # (a function: ufuncs are no descriptors)
        plain = u._plain
        if plain is None:
            return lambda self: u(self)

        def op(self):
            r = plain(self)
            return u(self) if r is None else r
        return op

    def inplace(u):
        plain = u._plain
        into = getattr(plain, "into", None)
        fresh = binary(u)

        def op(self, other):
            if not self._impl.cached_shape and self._view is None and not made_as_array(self):
                return fresh(self, other)  # (a 0-d result stands for NumPy's scalar: ``t += x`` is a new one)
            if into is not None and self._view is not None and into(self, other):
                return self  # (computed into its base's memory)
            r = plain(self, other) if plain is not None else None
            if r is not None and r._impl.cached_shape == self._impl.cached_shape and r._impl.dtype is self._impl.dtype:
                aliasing.rebind(self, r)  # (``x += y`` of one dtype and shape: the sum is x's new value)
            else:
                u(self, other, out=self)
            return self
        return op

    names = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide", "floordiv": "floor_divide",
             "mod": "remainder", "pow": "power", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
             "lshift": "left_shift", "rshift": "right_shift"}
    out = {}
    for py, np_name in names.items():
        u = UFUNCS[np_name]
        out[f"__{py}__"], out[f"__r{py}__"], out[f"__i{py}__"] = binary(u), reflected(u), inplace(u)
    for py, np_name in {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
                        "ge": "greater_equal"}.items():
        out[f"__{py}__"] = binary(UFUNCS[np_name])
    general_eq, general_ne = out["__eq__"], out["__ne__"]

    def none_test(general, value):
        # (``a == None``, ``a == "text"``: NumPy compares each element with it, none equal)
        def op(self, other):
            r = NotImplemented if other is None else general(self, other)
            if r is NotImplemented and (other is None or isinstance(other, (str, bytes))):
                return ndarray(A.full(self.shape, value, dtype=bool)._impl)
            return r
        return op

    out["__eq__"], out["__ne__"] = none_test(general_eq, False), none_test(general_ne, True)
    for py, np_name in {"neg": "negative", "pos": "positive", "abs": "absolute", "invert": "invert"}.items():
        out[f"__{py}__"] = unary(UFUNCS[np_name])
    general_power = out["__pow__"]

    def power(self, other):  # NumPy's array ``** 2`` is ``square`` (bool ** 2 is int8, not power's int64)
        if type(other) is int and other == 2:
            return UFUNCS["square"](self)
        return general_power(self, other)

    out["__pow__"] = power
    general_multiply, general_rmultiply = out["__mul__"], out["__rmul__"]

    def repeats(self, other) -> bool:  # (``[0] * y.max()``: a 0-d integer repeats a sequence, as NumPy's integer does)
        return builtins_type(other) in _SEQUENCES and not self._impl.cached_shape and self._impl.dtype.is_integer

    def multiply(self, other):
        return other * operator.index(self) if repeats(self, other) else general_multiply(self, other)

    def rmultiply(self, other):
        return other * operator.index(self) if repeats(self, other) else general_rmultiply(self, other)

    out["__mul__"], out["__rmul__"] = multiply, rmultiply
    out["__divmod__"] = binary(UFUNCS["divmod"])
    out["__matmul__"] = lambda self, other: M.matmul(self, other)  # (a dot of vectors at once: ``M._plain_dot``)
    out["__rmatmul__"] = lambda self, other: M.matmul(other, self)

    def imatmul(self, other):
        aliasing.setitem(self, ..., M.matmul(self, other))
        return self

    out["__imatmul__"] = imatmul
    return out




def _flat_setitem(self, key, value):
    flat = self._flat()
    if not isinstance(value, Tensor) and _np.ndim(value) == 0:
        aliasing.setitem(flat, key, value)
        return
    selected = flat[key]
    shape = selected.shape if isinstance(selected, Tensor) else ()
    aliasing.setitem(flat, key, _reshape(I.cycled(value, int(_np.prod(shape))), shape))
