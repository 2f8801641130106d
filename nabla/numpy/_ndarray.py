"""``nabla.numpy.ndarray``: the NumPy face's array, a thin subclass of Tensor (same values, same ops, same
views) whose operators follow NumPy's promotion (NEP 50, through the face's ufuncs), whose methods take
NumPy's keywords, whose repr is NumPy's, and which real NumPy functions and ufuncs dispatch to
(``__array_ufunc__``, ``__array_function__``), so ``numpy.mean(x)`` and ``numpy.exp(x)`` stay lazy.

Ops give results of their inputs' subclass (``core/operation.py``), so ndarrays stay ndarrays through
every computation; the face wraps what it creates from host data."""

from __future__ import annotations

import numbers
from builtins import type as builtins_type

import numpy as _np

from .. import array_api as _xp
from ..core.tensor import Tensor
from ..core.tensor_impl import TensorImpl
from ..ops import aliasing
from ..ops.elementwise import astype as _astype, complex_from_parts


#: ``x.view(dtype)`` for dtypes of bytes the face's layers above keep (``_void.py`` adds its own on
#: import): each gives the view, or None for a dtype it does not know
BYTE_VIEWS: list = []


class ndarray(Tensor):
    """A lazy n-dimensional array on a MAX device, with NumPy's interface."""

    __slots__ = ()

    def __init__(self, impl, dtype=float, *args, **kwargs):
        if not isinstance(impl, TensorImpl):
            if _made(self):  # a subclass's own __new__ made it (``np.asarray(a).view(cls)``): as NumPy, no more
                return
            from ._arrays import zeros  # numpy.ndarray(shape, dtype): an (uninitialized) array

            impl = zeros(impl, dtype)._impl
        super().__init__(impl)

    def __init_subclass__(cls, **kwargs):
        """A user's subclass (NumPy's ``class Named(np.ndarray)`` with its own ``__new__``): results of
        ops and views are made from storage, bypassing that ``__new__``, then get NumPy's
        ``__array_finalize__(new, source)``."""
        super().__init_subclass__(**kwargs)
        own_new = cls.__dict__.get("__new__")
        if own_new is not None:
            own = own_new.__func__ if isinstance(own_new, staticmethod) else own_new

            def __new__(klass, *args, **kw):
                if len(args) == 1 and not kw and isinstance(args[0], TensorImpl):
                    return Tensor.__new__(klass)
                return own(klass, *args, **kw)

            cls.__new__ = staticmethod(__new__)
        finalize = getattr(cls, "__array_finalize__", None)
        cls._inherits = finalize if callable(finalize) else None

    def __repr__(self):
        if self._impl.batch_dims:
            return f"array(<batched>, shape={self.shape}, dtype={self.dtype.name}, batch_dims={self.batch_dims})"
        value = self.numpy()  # a 0-d result stands for NumPy's scalar (``x.sum()``): its repr, np.int64(45)
        return repr(value[()] if value.ndim == 0 else value)

    def __hash__(self):
        """A 0-d array hashes by its value, as NumPy's scalars (``set(a)``, ``Counter(a)``, ``a[0] in {3}``);
        other arrays (NumPy's are unhashable) and traced values by identity."""
        if not self.shape and not self._impl.batch_dims and not self._impl.traced:
            try:
                return hash(self.item())
            except Exception:  # a value that cannot be read (a tracer, a failed realization)
                pass
        return id(self)

    def __format__(self, spec):
        if not self.shape:
            return format(self.item(), spec)
        if not spec:
            return str(self)
        raise TypeError(f"unsupported format string passed to {builtins_type(self).__name__}.__format__")

    def __round__(self, ndigits=None):
        from ._math import around

        if self.shape:  # NumPy's arrays have no __round__; its scalars (our 0-d results) do
            raise TypeError(f"type {builtins_type(self).__name__} doesn't define __round__ method")
        if ndigits is None:
            return round(self.item())
        return around(self, ndigits)

    def is_integer(self):
        """NumPy's scalar method for 0-d results (``x.mean().is_integer()``): a finite whole number."""
        kind = self.dtype.kind
        if self.shape or kind not in "iuf":  # as NumPy: arrays, bools and complex numbers have none
            raise AttributeError(f"'{builtins_type(self).__name__}' object has no attribute 'is_integer'")
        return kind != "f" or bool(_xp.logical_and(_xp.isfinite(self), _xp.floor(self) == self))

    @property
    def flags(self):
        return _Flags(self)

    def __contains__(self, value):
        return bool(_xp.any(self == value))

    # --- attributes ---------------------------------------------------------------------------------
    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def strides(self):
        """NumPy's strides of a C-contiguous array of this shape and dtype (bytes per step on each axis;
        all zero for an empty array, as NumPy's new arrays)."""
        if self.size == 0:
            return (0,) * self.ndim
        out, step = [], self.dtype.itemsize
        for d in reversed(self.shape):
            out.append(step)
            step *= int(d)
        return tuple(reversed(out))

    # real/imag are views, as NumPy's: writes through them reach the complex array
    @property
    def real(self):
        if not self.dtype.is_complex:
            return self
        return aliasing.make_view(self, _xp.real(self), _xp.real,
                                  lambda p, c: complex_from_parts(c, _xp.imag(p)))

    @real.setter
    def real(self, value):
        aliasing.setitem(self.real, ..., value)

    @property
    def imag(self):
        if not self.dtype.is_complex:  # NumPy: read-only zeros
            return aliasing.read_only_view(self, _xp.zeros_like(self), _xp.zeros_like)
        return aliasing.make_view(self, _xp.imag(self), _xp.imag,
                                  lambda p, c: complex_from_parts(_xp.real(p), c))

    @imag.setter
    def imag(self, value):
        if not self.dtype.is_complex:
            raise TypeError(f"array does not have imaginary part to set ({self.dtype})")
        aliasing.setitem(self.imag, ..., value)

    @property
    def base(self):
        return None if self._view is None else self._view[0]

    @property
    def flat(self):
        return flatiter(self)

    @flat.setter
    def flat(self, value):
        flatiter(self)[...] = value

    # --- methods ------------------------------------------------------------------------------------
    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        from . import _datetime, _dtypes as D

        dates = _datetime.dates_dtype(dtype)
        if dates is not None:  # numbers as ticks of a date unit
            if not _np.can_cast(self.dtype.numpy_dtype, dates, casting):
                raise TypeError(f"nabla.numpy.astype: cannot cast {self.dtype.name} to {dates} under "
                                f"casting={casting!r}")
            return _datetime.from_numbers(self, dates)
        target = D.to_nabla(dtype, "astype")
        if not _np.can_cast(self.dtype.numpy_dtype, target.numpy_dtype, casting):
            raise TypeError(f"nabla.numpy.astype: cannot cast {self.dtype.name} to {target.name} under "
                            f"casting={casting!r}")
        if target is self.dtype:
            return ndarray(self._impl) if copy else self
        return _astype(self, target)

    def item(self, *args):
        """``x.item()``, ``x.item(flat_index)`` or ``x.item(i, j, ...)``."""
        if not args:
            return Tensor.item(self)
        if len(args) == 1 and isinstance(args[0], int):
            return Tensor.item(_xp.reshape(self, (-1,))[args[0]])
        return Tensor.item(self[args[0] if len(args) == 1 else args])

    def reshape(self, *shape, order="C", copy=None):
        from ._arrays import reshape

        return reshape(self, shape[0] if len(shape) == 1 else shape, order)

    def transpose(self, *axes):
        from ._arrays import transpose

        axes = axes[0] if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))) else axes
        return transpose(self, axes or None)

    def flatten(self, order="C"):
        from ._arrays import ravel

        return ndarray(ravel(self, order)._impl)  # a new array, not a view: a copy, as NumPy's flatten

    def copy(self, order="C"):
        return ndarray(self._impl)  # values are immutable underneath: a new name is a copy

    def fill(self, value):
        aliasing.setitem(self, ..., value)

    def sort(self, axis=-1, kind=None, order=None, *, stable=None):
        from ._sorting import sort

        aliasing.setitem(self, ..., sort(self, axis, kind, order))

    def nonzero(self):
        from ._indexing import nonzero

        return nonzero(self)

    def tobytes(self, order="C"):
        return self.numpy().tobytes(order)

    def view(self, dtype=None, type=None):  # noqa: A002
        """A view of the same elements, or of their bytes read as ``dtype`` (``ops/bit_views.py``: C
        order, little-endian; NaN payloads and subnormals are not kept). Writes reach both ways."""
        from . import _dtypes as D

        if isinstance(dtype, builtins_type) and issubclass(dtype, (_np.ndarray, Tensor)):
            dtype, type = None, dtype  # ``x.view(np.ndarray)``, ``x.view(Named)``: an array type
        if type is not None and not (isinstance(type, builtins_type) and issubclass(type, ndarray)):
            type = None  # NumPy's own ndarray (or Tensor): the one array type here
        if type is not None and type is not ndarray:  # a user's subclass: the same elements, its type
            base = self if dtype is None else self.view(dtype)
            out = aliasing.make_view(base, _of_type(type, base._impl), lambda p: p, lambda p, c: c)
            if type._inherits is not None:
                type._inherits(out, self)
            return out
        from ._datetime import DatetimeArray, dates_dtype

        if dates_dtype(dtype) is not None:  # the bytes as int64 ticks of a date unit
            return DatetimeArray(self.view(_np.int64), dates_dtype(dtype))
        for byte_view in BYTE_VIEWS:  # records or raw void items over these bytes
            out = byte_view(self, dtype)
            if out is not None:
                return out
        target = None if dtype is None else D.to_nabla(dtype, "view")
        if target is None or target is self.dtype:
            return aliasing.make_view(self, ndarray(self._impl), lambda p: p, lambda p, c: c)
        from ..ops.bit_views import bit_view, put_back_bits

        src = self.dtype
        return aliasing.make_view(self, ndarray(bit_view(self, target)._impl), lambda p: bit_view(p, target),
                                  lambda p, c: put_back_bits(p, c, src, target))

    # --- NumPy's protocols --------------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from ._ufunc_table import UFUNCS

        ours = UFUNCS.get(ufunc.__name__)
        if ours is None and ufunc.signature is not None and method == "__call__":  # a gufunc: ``np.matmul``
            import nabla.numpy as fnp

            ours = getattr(fnp, ufunc.__name__, None)
        if ours is None:
            return NotImplemented
        if "out" in kwargs:
            out = kwargs["out"]
            if any(not isinstance(o, Tensor) for o in out):
                return NotImplemented  # NumPy writes into its own arrays itself
            kwargs["out"] = out if len(out) > 1 else out[0]
        fn = ours if method == "__call__" else getattr(ours, method, None)
        return NotImplemented if fn is None else fn(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        import nabla.numpy as fnp

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
    from . import _arrays as A, _indexing as I, _math as M, _reductions as R, _sorting as S

    return {
        "sum": R.sum, "prod": R.prod, "mean": R.mean, "std": R.std, "var": R.var, "min": R.min, "max": R.max,
        "argmin": R.argmin, "argmax": R.argmax, "all": R.all, "any": R.any, "cumsum": R.cumsum,
        "cumprod": R.cumprod, "ptp": R.ptp, "clip": M.clip, "round": M.around, "dot": M.dot, "repeat": A.repeat,
        "squeeze": A.squeeze, "swapaxes": A.swapaxes, "ravel": A.ravel, "argsort": S.argsort,
        "searchsorted": I.searchsorted, "take": A.take, "trace": A.trace, "diagonal": A.diagonal,
        "conj": _xp.conj, "conjugate": _xp.conj,
    }


def _operators():
    from ._math import matmul
    from ._ufunc_table import UFUNCS

    def binary(u):
        def op(self, other):
            if not isinstance(other, (Tensor, numbers.Number, list, tuple, _np.ndarray, _np.generic)):
                return NotImplemented
            return u(self, other)
        return op

    def reflected(u):
        return lambda self, other: u(other, self)

    def inplace(u):
        def op(self, other):
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
    for py, np_name in {"neg": "negative", "pos": "positive", "abs": "absolute", "invert": "invert"}.items():
        out[f"__{py}__"] = (lambda u: lambda self: u(self))(UFUNCS[np_name])  # ufuncs are no descriptors
    general_power = out["__pow__"]

    def power(self, other):  # NumPy's array ``** 2`` is ``square`` (bool ** 2 is int8, not power's int64)
        if type(other) is int and other == 2:
            return UFUNCS["square"](self)
        return general_power(self, other)

    out["__pow__"] = power
    out["__divmod__"] = binary(UFUNCS["divmod"])
    out["__matmul__"] = lambda self, other: matmul(self, other)
    out["__rmatmul__"] = lambda self, other: matmul(other, self)

    def imatmul(self, other):
        aliasing.setitem(self, ..., matmul(self, other))
        return self

    out["__imatmul__"] = imatmul
    return out


def bind() -> None:
    for name, fn in {**_methods(), **_operators()}.items():
        setattr(ndarray, name, fn)


def _made(x) -> bool:
    try:
        x._impl
    except AttributeError:
        return False
    return True


def _of_type(cls, impl) -> ndarray:
    out = Tensor.__new__(cls)
    Tensor.__init__(out, impl)
    return out


class _Flags:
    """``a.flags``: NumPy's memory-layout flags as this array's layout gives them (C order, aligned);
    ``a.flags.writeable = False`` makes ``a`` read-only (writes raise NumPy's ValueError)."""

    __slots__ = ("_a",)
    _NAMES = {"C": "c_contiguous", "F": "f_contiguous", "O": "owndata", "W": "writeable", "A": "aligned",
              "X": "writebackifcopy"}

    def __init__(self, a):
        self._a = a

    c_contiguous = contiguous = aligned = property(lambda self: True)
    f_contiguous = property(lambda self: self._a.ndim <= 1 or sum(d > 1 for d in self._a.shape) <= 1)
    fortran = property(lambda self: self.f_contiguous and not (self._a.ndim > 1))
    owndata = property(lambda self: self._a._view is None)
    writebackifcopy = property(lambda self: False)

    @property
    def writeable(self):
        try:
            aliasing.check_writeable(self._a)
        except ValueError:
            return False
        return True

    @writeable.setter
    def writeable(self, value):
        a = self._a
        if value:
            if not self.writeable:
                raise ValueError("cannot set WRITEABLE flag to True of this array")
            return
        if a._view is None:  # a read-only view of its own storage
            a._view = (Tensor(a._impl), lambda p: p, None)
        else:
            a._view = (a._view[0], a._view[1], None)

    def __getitem__(self, key):
        name = self._NAMES.get(key, str(key).lower())
        if not hasattr(_Flags, name):
            raise KeyError(f"Unknown flag {key}")
        return getattr(self, name)

    def __setitem__(self, key, value):
        if self._NAMES.get(key, str(key).lower()) != "writeable":
            raise ValueError(f"setting flag {key} is not supported")
        self.writeable = value

    def __repr__(self):
        return "\n".join(f"  {n.upper()} : {getattr(self, n)}" for n in
                         ("c_contiguous", "f_contiguous", "owndata", "writeable", "aligned", "writebackifcopy"))


def wrap(x: Tensor) -> ndarray:
    """A Tensor seen as an ndarray: the same value; a write through either reaches the other."""
    if isinstance(x, ndarray):
        return x
    return aliasing.make_view(x, ndarray(x._impl), lambda p: p, lambda p, c: c)


class flatiter:
    """``a.flat``: ``a`` read and written as one dimension in C order (NumPy's ``flatiter``); indexing
    gives a new array, writes reach ``a``."""

    __slots__ = ("base",)

    def __init__(self, base: ndarray):
        self.base = base

    def _flat(self) -> Tensor:
        return aliasing.reshape(self.base, (-1,))  # a view: writes through it reach the base

    def __len__(self) -> int:
        return self.base.size

    def __iter__(self):
        return iter(self.copy())

    def __getitem__(self, key):
        out = self._flat()[key]
        return ndarray(out._impl) if isinstance(out, Tensor) else out

    def __setitem__(self, key, value):
        from ._indexing import cycled

        flat = self._flat()
        if not isinstance(value, Tensor) and _np.ndim(value) == 0:
            aliasing.setitem(flat, key, value)
            return
        selected = flat[key]
        shape = selected.shape if isinstance(selected, Tensor) else ()
        aliasing.setitem(flat, key, _xp.reshape(cycled(value, int(_np.prod(shape))), shape))

    def __array__(self, dtype=None, copy=None):
        flat = self.base.numpy().reshape(-1)
        return flat if dtype is None else flat.astype(dtype)

    def copy(self) -> ndarray:
        return ndarray(_xp.reshape(self.base, (-1,))._impl)

