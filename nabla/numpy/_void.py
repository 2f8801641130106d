"""Views of a face array's bytes as records or raw ``void`` items (NumPy's ``x.view(dtype)`` with a
structured or ``V<n>`` dtype), as in the unique-rows idiom
``np.unique(np.ascontiguousarray(Z).view(np.dtype((np.void, Z.dtype.itemsize * Z.shape[1]))))``.

A structured view is a StructuredArray whose fields are views of ``x`` (strided picks of its last
axis, through a bit view where a field's dtype differs): writes reach ``x`` both ways. A raw void view
is a ``VoidArray``: ``x``'s bytes as a uint8 face array with one trailing axis of ``itemsize`` bytes
(``ops/bit_views.py`` computes them on MAX). Void items compare and sort as NumPy's do, byte by byte
(``memcmp`` order), so ``unique`` and ``sort`` run on those byte columns, on MAX.
"""

from __future__ import annotations

import builtins
import math

import numpy as _np

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core import dtypes as _dt
from . import _dtypes as D
from ._items import Items
from ._ndarray import BYTE_VIEWS
from ._records import StructuredArray, field_key, layout
from ._sorting import lexsort, unique


def void_dtype(dtype_like):
    """NumPy's ``V`` dtype (structured or raw) that ``dtype_like`` names, else None."""
    if dtype_like is None or isinstance(dtype_like, _dt.DType) or \
            (isinstance(dtype_like, type) and dtype_like is not _np.void):
        return None
    try:
        d = _np.dtype(dtype_like)
    except (TypeError, ValueError):
        return None
    return d if d.kind == "V" else None


def _records_shape(x, dtype: _np.dtype) -> tuple:
    """NumPy's shape of ``x.view(dtype)``, and its errors."""
    s, r = x.dtype.itemsize, dtype.itemsize
    if not x.ndim:
        if s != r:
            raise ValueError("nabla.numpy.view: Changing the dtype of a 0d array is only supported if the itemsize "
                             "is unchanged")
        return ()
    last = x.shape[-1] * s
    if r > s and last % r:
        raise ValueError("nabla.numpy.view: When changing to a larger dtype, its size must be a divisor of the "
                         "total size in bytes of the last axis of the array.")
    if r < s and s % r:
        raise ValueError("nabla.numpy.view: When changing to a smaller dtype, its size must be a divisor of the "
                         "size of original dtype")
    return tuple(x.shape[:-1]) + (last // r,)


def byte_view(x, dtype: _np.dtype):
    """``x.view(dtype)`` for a structured or raw void ``dtype``: a view whose writes reach ``x``."""
    shape = _records_shape(x, dtype)
    if dtype.names is None:
        return VoidArray(_items(x, _np.dtype(_np.uint8), shape, dtype.itemsize), dtype)

    fields = {}
    for name, base, sub in layout(dtype):
        offset = dtype.fields[name][1]
        if base.kind not in "biufc" or not base.isnative:
            raise NotImplementedError(f"nabla.numpy.view: field {name!r} of {base}: byte views give number fields "
                                      "in native byte order only")
        b = base.itemsize
        if offset % b or dtype.itemsize % b:
            raise NotImplementedError(f"nabla.numpy.view: field {name!r} at offset {offset} is not aligned to its "
                                      f"{b}-byte items")
        items = _items(x, base, shape, dtype.itemsize)  # (..., records, itemsize // b)
        k, n = offset // b, math.prod(sub)
        fields[name] = items[..., k] if not sub else items[..., k:k + n].reshape(shape + sub)
    return StructuredArray._make(fields, dtype, shape)


def _items(x, base: _np.dtype, shape: tuple, itemsize: int):
    """``x``'s bytes read as ``base``, one row of ``itemsize`` bytes per record: a view of ``x``."""
    flat = x.reshape((1,)) if not x.ndim else x
    words = flat if flat.dtype.numpy_dtype == base else flat.view(base)
    return words.reshape(shape + (itemsize // base.itemsize,))


class VoidArray(Items):
    """Raw ``V<n>`` items: the bytes of a face array (a uint8 view with a trailing axis of ``n``)."""

    __slots__ = ("_bytes", "dtype", "__weakref__")
    __array_priority__ = 200

    def __init__(self, data, dtype):
        self._bytes, self.dtype = data, _np.dtype(dtype)

    shape = property(lambda self: tuple(self._bytes.shape[:-1]))

    # --- host boundary ------------------------------------------------------------------------------
    def numpy(self) -> _np.ndarray:
        host = _np.ascontiguousarray(self._bytes.numpy())
        return host.view(self.dtype).reshape(self.shape)

    def __repr__(self):
        host = self.numpy()
        return repr(host[()] if not self.shape else host)

    def tobytes(self, order="C"):
        return self.numpy().tobytes(order)

    # --- indexing, writes, views --------------------------------------------------------------------
    def __getitem__(self, key):
        return VoidArray(self._bytes[field_key(key if type(key) is tuple else (key,), self.ndim)], self.dtype)

    def __setitem__(self, key, value):
        self._bytes[field_key(key if type(key) is tuple else (key,), self.ndim)] = self._bytes_of(value)

    def _bytes_of(self, value):
        if isinstance(value, VoidArray) and value.dtype.itemsize == self.dtype.itemsize:
            return value._bytes
        host = _np.asarray(value)
        if host.dtype.kind != "V" or host.dtype.itemsize != self.dtype.itemsize:
            raise TypeError(f"nabla.numpy: cannot assign {host.dtype} data to {self.dtype} items")
        raw = _np.ascontiguousarray(host).view(_np.uint8).reshape(host.shape + (self.dtype.itemsize,))
        return D.asarray(raw, op="setitem")

    def view(self, dtype=None, type=None):  # noqa: A002  (NumPy's names)
        """The same bytes as another dtype (numbers, records, or raw items of another size)."""
        if dtype is None or _np.dtype(dtype) == self.dtype:
            return VoidArray(self._bytes.view(), self.dtype)
        flat = self._bytes.reshape(self.shape[:-1] + (-1,)) if self.ndim else self._bytes
        target = void_dtype(dtype)
        return byte_view(flat, target) if target is not None else flat.view(dtype)

    def copy(self, order="C"):
        return VoidArray(self._bytes.copy(), self.dtype)

    def reshape(self, *shape, order="C"):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return VoidArray(self._bytes.reshape(tuple(shape) + (self.dtype.itemsize,)), self.dtype)

    def ravel(self, order="C"):
        return self.reshape(-1)

    def flatten(self, order="C"):
        return self.reshape(-1).copy()

    # --- comparisons and ordering (byte by byte, as NumPy's memcmp) --------------------------------
    def __eq__(self, other):
        other = other._bytes if isinstance(other, VoidArray) else self._bytes_of(other)
        return _xp.all(self._bytes == other, axis=-1)

    def __ne__(self, other):
        return _xp.logical_not(self.__eq__(other))

    __hash__ = object.__hash__  # by identity, as the face's ndarray

    def _keyed(self, axis):
        """The bytes with the sorted axis second to last (``axis=None``: flattened), and that axis."""
        if axis is None:
            return self._bytes.reshape(-1, self.dtype.itemsize), 0
        if not -self.ndim <= axis < self.ndim:
            raise _np.exceptions.AxisError(axis, self.ndim)
        return self._bytes, axis % self.ndim

    def argsort(self, axis=-1, kind=None, order=None, *, stable=None):
        b, ax = self._keyed(axis)
        keys = _packed(_xp.moveaxis(b, ax, -2))
        perm = lexsort([keys[..., j] for j in range(keys.shape[-1] - 1, -1, -1)], axis=-1)
        return _xp.moveaxis(perm, -1, ax)

    def sort(self, axis=-1, kind=None, order=None, *, stable=None):
        self[...] = _sorted(self, axis)

    def __nabla_array_function__(self, face_fn, args, kwargs):
        fn = _FUNCTIONS.get(face_fn.__name__)
        if fn is None:
            raise TypeError(f"nabla.numpy.{face_fn.__name__}: not supported for raw {self.dtype} items; they take "
                            "indexing, writes, ==, sort, argsort, unique and view back to numbers")
        return fn(*args, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        fn = _FUNCTIONS.get(func.__name__)
        return NotImplemented if fn is None else fn(*args, **kwargs)


def _packed(b):
    """Byte rows (..., n) as int64 keys of 7 bytes each, big-endian: they order as the bytes do."""
    n = b.shape[-1]
    pad = -n % 7
    words = _xp.astype(b, _dt.int64)
    if pad:
        words = _xp.concat([words, _xp.zeros(tuple(b.shape[:-1]) + (pad,), dtype=_dt.int64)], axis=-1)
    words = _reshape(words, tuple(b.shape[:-1]) + ((n + pad) // 7, 7))
    weights = D.asarray(_np.array([256 ** k for k in range(6, -1, -1)], dtype=_np.int64), op="sort")
    return _xp.sum(words * weights, axis=-1)


def _sorted(v: VoidArray, axis) -> VoidArray:
    b, ax = v._keyed(axis)
    idx = _xp.broadcast_to(_xp.expand_dims(v.argsort(axis), axis=-1), b.shape)
    return VoidArray(_xp.take_along_axis(b, idx, axis=ax), v.dtype)


def _unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
            sorted=True):  # noqa: A002
    if axis is not None:
        raise NotImplementedError("nabla.numpy.unique: axis= of raw void items is not supported; view the bytes "
                                  "as numbers and use unique(x, axis=0)")
    rows = ar._bytes.reshape(-1, ar.dtype.itemsize)
    out = list(unique(_packed(rows), True, return_inverse, return_counts, axis=0))
    out[0] = VoidArray(_xp.take(rows, out[1], axis=0), ar.dtype)
    if not return_index:
        del out[1]
    if return_inverse:  # NumPy 2: the input's shape
        k = 1 + builtins.bool(return_index)
        out[k] = out[k].reshape(ar.shape)
    return out[0] if len(out) == 1 else tuple(out)


_FUNCTIONS = {
    "unique": _unique,
    "sort": lambda a, axis=-1, kind=None, order=None, *, stable=None: _sorted(a, axis),
    "argsort": lambda a, axis=-1, kind=None, order=None, *, stable=None: a.argsort(axis),
    "shape": lambda a: a.shape, "ndim": lambda a: a.ndim, "isscalar": lambda a: a.ndim == 0,
    "size": lambda a, axis=None: a.size if axis is None else a.shape[axis],
    "copy": lambda a, order="K", subok=False: a.copy(),
    "ravel": lambda a, order="C": a.ravel(),
    "reshape": lambda a, shape=None, order="C", **kw: a.reshape(shape),
    "array_equal": lambda a, b, equal_nan=False: _array_equal(a, b),
}


def _array_equal(a: VoidArray, b) -> bool:
    shape = b.shape if isinstance(b, VoidArray) else _np.shape(b)
    return tuple(shape) == a.shape and builtins.bool(_xp.all(a == b))


BYTE_VIEWS.append(lambda x, dtype: None if void_dtype(dtype) is None else byte_view(x, void_dtype(dtype)))
