"""``nabla.numpy.ndarray``: the NumPy face's array, a thin subclass of Tensor (same values, same ops, same
views) whose operators follow NumPy's promotion (NEP 50, through the face's ufuncs), whose methods take
NumPy's keywords, whose repr is NumPy's, and which real NumPy functions and ufuncs dispatch to
(``__array_ufunc__``, ``__array_function__``), so ``numpy.mean(x)`` and ``numpy.exp(x)`` stay lazy.

Ops give results of their inputs' subclass (``core/operation.py``), so ndarrays stay ndarrays through
every computation; the face wraps what it creates from host data. The methods that are the face's
functions (``sum``, ``astype``, ``view``, the operators, NumPy's protocols) are bound by
``_methods.py``, at the face's top, so this module sits below every other of the face."""

from __future__ import annotations

import functools
import os
import pickle
import weakref
from builtins import type as builtins_type

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core.operation import PLAIN_CLASSES
from ..core.tensor import Tensor
from ..core.tensor_impl import TensorImpl
from ..ops import aliasing
from ..ops.elementwise import complex_from_parts
from ..ops.host_writes import alone
from ..ops.view_layout import c_strides, element_strides, is_c_contiguous, is_f_contiguous, same, same_back


#: ``x.view(dtype)`` for dtypes of bytes the face's layers above keep (``_void.py`` adds its own on
#: import): each gives the view, or None for a dtype it does not know
BYTE_VIEWS: list = []


class ndarray(Tensor):
    """A lazy n-dimensional array on a MAX device, with NumPy's interface. Its methods that are the
    face's functions (``x.sum()``, ``x + y``) are bound by ``_methods.bind`` once the face has loaded."""

    __slots__ = ()

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
        value = self._host_data()  # a 0-d result stands for NumPy's scalar (``x.sum()``): its repr, np.int64(45)
        return repr(value[()] if value.ndim == 0 and not made_as_array(self) else value)

    def __hash__(self):
        """A 0-d array hashes by its value, as NumPy's scalars (``set(a)``, ``Counter(a)``, ``a[0] in {3}``);
        other arrays are unhashable, as NumPy's (``{a: 1}`` raises its TypeError); traced values hash
        by identity."""
        if not self._impl.batch_dims and not self._impl.traced:
            if self.shape:
                raise TypeError(f"unhashable type: '{type(self).__name__}' (an array of shape {self.shape})")
            try:
                return hash(self.item())
            except Exception:  # a value that cannot be read (a tracer, a failed realization)
                pass
        return id(self)

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
    def shape(self) -> tuple[int, ...]:
        impl = self._impl
        return impl.cached_shape[impl.batch_dims:]

    @shape.setter
    def shape(self, value):
        """NumPy's ``a.shape = (m, n)``: the same elements, in order, seen with another shape (in place:
        ``a`` stays the array it was, a view of its base where it was one; a view of ``a`` made
        before would no longer see it, so an array with live views keeps its shape)."""
        if self._views and any(ref() is not None for ref in self._views):
            raise AttributeError("nabla.numpy: cannot set the shape of an array with live views (NumPy's views "
                                 "of it would no longer match); use .reshape() for a new array")
        old = self.shape
        out = _reshape(self, (value,) if isinstance(value, int) else tuple(value))
        new = out.shape
        if self._view is not None:  # still a view of its base: derived and written back through the reshape
            parent, derive, put_back = self._view
            self._view = (parent, lambda p: _reshape(derive(p), new),
                          None if put_back is None else lambda p, c: put_back(p, _reshape(c, old)))
        self._impl = out._impl

    def resize(self, *new_shape, refcheck=True):
        """NumPy's in-place ``a.resize(shape)``: the elements in order, cut or followed by zeros; an
        array that is a view, or has live views, keeps its size (NumPy's refusal)."""
        shape = new_shape[0] if len(new_shape) == 1 and not isinstance(new_shape[0], int) else new_shape
        shape = tuple(int(d) for d in shape)
        if any(d < 0 for d in shape):
            raise ValueError(f"nabla.numpy.ndarray.resize: negative dimensions are not allowed ({shape})")
        if not alone(self) and (refcheck or self._view is not None):  # (a fresh result's own name is alone)
            raise ValueError("nabla.numpy.ndarray.resize: cannot resize an array that references or is referenced "
                             "by another array in this way; use the np.resize function")
        count = 1
        for d in shape:
            count *= d
        flat = _reshape(self, (-1,))
        if count > flat.shape[0]:
            flat = _xp.concat([flat, _xp.zeros((count - flat.shape[0],), dtype=self.dtype, device=self.device)])
        self._impl = _reshape(flat[:count], shape)._impl

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def strides(self):
        """NumPy's strides (bytes per step on each axis): a view's over the memory it views (a
        transpose's permuted, a strided slice's stepped), else a C-ordered array's; all zero for an
        empty array, as NumPy's new arrays."""
        if self.size == 0:
            return (0,) * self.ndim
        steps = element_strides(self) or c_strides(self.shape)
        return tuple(int(s) * self.dtype.itemsize for s in steps)

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
        if not self.dtype.is_complex:  # NumPy: read-only zeros, an array of the face's class
            return aliasing.read_only_view(self, _zeros_of(self), _zeros_of)
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
    def item(self, *args):
        """``x.item()``, ``x.item(flat_index)`` or ``x.item(i, j, ...)``."""
        if not args:
            return Tensor.item(self)
        if len(args) == 1 and isinstance(args[0], int):
            return Tensor.item(_reshape(self, (-1,))[args[0]])
        return Tensor.item(self[args[0] if len(args) == 1 else args])

    def copy(self, order="C"):
        return ndarray(self._impl)  # values are immutable underneath: a new name is a copy

    def fill(self, value):
        aliasing.setitem(self, ..., value)

    def tobytes(self, order="C"):
        return self.numpy().tobytes(order)

    def tofile(self, fid, sep="", format="%s"):
        """Its values written to a file, as NumPy's (raw bytes, or text with ``sep``): the host boundary."""
        self.numpy().tofile(fid, sep=sep, format=format)

    def dumps(self) -> bytes:
        return pickle.dumps(self, protocol=pickle.HIGHEST_PROTOCOL)

    def dump(self, file) -> None:
        if isinstance(file, (str, bytes, os.PathLike)):
            with open(file, "wb") as f:
                pickle.dump(self, f, protocol=pickle.HIGHEST_PROTOCOL)
        else:
            pickle.dump(self, file, protocol=pickle.HIGHEST_PROTOCOL)

    def setflags(self, write=None, align=None, uic=None):
        """NumPy's ``setflags``: ``write=False`` makes the array read-only (``flags.writeable``);
        ``align`` and ``uic`` (this layout is always aligned, never a write-back copy) as NumPy takes
        them where they change nothing."""
        if align is not None and not align:
            raise ValueError("cannot unset ALIGNED flag of this array (its memory is always aligned)")
        if uic:
            raise ValueError("cannot set WRITEBACKIFCOPY flag to True")
        if write is not None:
            self.flags.writeable = bool(write)


def _made(x) -> bool:
    try:
        x._impl
    except AttributeError:
        return False
    return True


def _zeros_of(x) -> ndarray:
    """Zeros of ``x``'s shape, dtype and class (the imaginary part of real data)."""
    return _of_type(type(x), _xp.zeros_like(x)._impl)


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

    c_contiguous = contiguous = property(lambda self: is_c_contiguous(self._a))
    aligned = property(lambda self: True)
    f_contiguous = property(lambda self: is_f_contiguous(self._a))
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


PLAIN_CLASSES.add(ndarray)  # (an op's ndarray result is made directly: no __init__ of its own to run)


def made_as_array(x) -> bool:
    """Whether 0-d ``x`` was made as an array (``np.array(3.0)``, ``np.zeros(())``: ``+=`` writes into
    it, its repr ``array(3.)``) rather than standing for NumPy's scalar as every other 0-d result
    does (a reduction, a pick, an element of an iteration: ``+=`` makes a new one, as NumPy's
    immutable scalars do, so a running total appended to a list each step keeps each step's value)."""
    found = _ARRAYS_0D.get(id(x))
    return found is not None and found() is x


def array_constructor(fn):
    """NumPy's constructor ``fn``, its 0-d results arrays (``made_as_array``); ``np.asarray`` of a 0-d
    result that stands for a scalar is a new array of its value, as NumPy's of a scalar is."""
    @functools.wraps(fn)
    def f(*args, **kwargs):
        out = fn(*args, **kwargs)
        if type(out) is Tensor and not out._impl.cached_shape:  # (a new result: the face's array of it)
            out = ndarray(out._impl)
        if isinstance(out, ndarray) and not out._impl.cached_shape and not made_as_array(out):
            if args and out is args[0]:
                out = builtins_type(out)(out._impl)
            key = id(out)
            _ARRAYS_0D[key] = weakref.ref(out, lambda _, key=key: _ARRAYS_0D.pop(key, None))
        return out

    return f


#: the live 0-d arrays made as arrays (``made_as_array``), by id, each checked by a weak reference
_ARRAYS_0D: dict = {}


def wrap(x: Tensor) -> ndarray:
    """A Tensor seen as an ndarray: the same value; a write through either reaches the other."""
    if isinstance(x, ndarray):
        return x
    return aliasing.make_view(x, ndarray(x._impl), same, same_back)


class flatiter:
    """``a.flat``: ``a`` read and written as one dimension in C order (NumPy's ``flatiter``); indexing
    gives a new array, writes reach ``a`` (``__setitem__``, bound by ``_methods.bind``)."""

    __slots__ = ("base",)

    def __init__(self, base: ndarray):
        self.base = base

    def _flat(self) -> Tensor:
        return aliasing.flat_view(self.base)  # a view whatever the base's layout: writes reach the base

    def __len__(self) -> int:
        return self.base.size

    def __iter__(self):
        return iter(self.copy())

    def __getitem__(self, key):
        out = self._flat()[key]
        return ndarray(out._impl) if isinstance(out, Tensor) else out

    def __array__(self, dtype=None, copy=None):
        flat = self.base.numpy().reshape(-1)
        return flat if dtype is None else flat.astype(dtype)

    def copy(self) -> ndarray:
        return ndarray(_reshape(self.base, (-1,))._impl)

