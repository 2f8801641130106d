"""Structured (record) arrays of the face: NumPy's structured dtypes as a struct of arrays.

A ``StructuredArray`` is NumPy's structured dtype (names, offsets, itemsize: metadata only) and one array
per field. Number fields are face arrays on MAX, computed lazily; a field with a structured dtype is a
StructuredArray of its own; datetime64/timedelta64 fields are DatetimeArrays; string fields (``U``, ``S``)
stay NumPy arrays on the host (with ``HostStringWarning``), as string arrays do. A subarray field
(``('v', float, (3,))``) is an array of shape ``shape + (3,)``. Indexing, reshaping and writes apply the
same op to every field (views where NumPy gives views); NumPy parses and prints the values only at the
host boundary. The face's functions on these arrays (creation, sorting by fields, unique, joining,
equality), and the methods that are those functions, are in ``_records_ops.py`` (which binds them).
"""

from __future__ import annotations

import builtins
import functools
import math
import numbers

import numpy as _np

from ..core import dtypes as _dt
from ..core.tensor import Tensor
from . import _arrays as A
from . import _datetime as _dates
from . import _dtypes as D
from ._datetime import DatetimeArray
from ._items import FaceItems
from ._items import face as _fnp
from ._ndarray import ndarray
from ..core.graph import GRAPH
from ._strings import warn

_type = type  # ``view(dtype, type)`` takes NumPy's parameter name


# --- dtypes --------------------------------------------------------------------------------------------
def records_dtype(dtype_like):
    """NumPy's structured dtype that ``dtype_like`` names (``[('x', float)]``, ``'f8,i4'``, a dtype with
    fields), else None. The common spellings (None, types, ``'float32'``) skip NumPy's parser."""
    if dtype_like is None or isinstance(dtype_like, (_type, _dt.DType)):
        return None
    if isinstance(dtype_like, _np.dtype):
        return dtype_like if dtype_like.names is not None else None
    if isinstance(dtype_like, str):
        if "," not in dtype_like:
            return None
    elif not isinstance(dtype_like, (list, tuple, dict)):
        return None
    try:
        d = _np.dtype(dtype_like)
    except (TypeError, ValueError):
        return None
    return d if d.names is not None else None


@functools.lru_cache(maxsize=512)
def layout(dtype: _np.dtype) -> tuple:
    """``(name, base dtype, subarray shape)`` of each field, in the dtype's order."""
    out = []
    for name in dtype.names:
        fd = dtype.fields[name][0]
        base, sub = fd.subdtype if fd.subdtype is not None else (fd, ())
        out.append((name, base, tuple(sub)))
    return tuple(out)


def _number_dtype(name, base: _np.dtype, op: str) -> _np.dtype:
    """The dtype a number field has on MAX (native byte order; long double as float64)."""
    if base.kind in "OV":
        raise TypeError(f"nabla.numpy.{op}: field {name!r} has dtype {base}: object and raw void fields cannot "
                        "live on MAX (it computes on numbers only); keep such data in a list or in numpy")
    base = base.newbyteorder("=")
    return _np.dtype(_np.float64) if base == _np.longdouble else base


def _warn_strings(name, base, op: str) -> None:
    warn(f"{op}: field {name!r} of {base} data")


def _check_fields(dtype: _np.dtype, op: str) -> None:
    if not dtype.names:
        raise TypeError(f"nabla.numpy.{op}: a structured dtype without fields holds no data")


# --- fields: face arrays, DatetimeArrays, nested StructuredArrays, or host string arrays ------------------
def _host(v):
    """A value at the host: face arrays read back, others as they are."""
    return v.numpy() if isinstance(v, (Tensor, DatetimeArray, StructuredArray)) else v


def _host_key(key: tuple) -> tuple:
    return tuple(k.numpy() if isinstance(k, Tensor) else k for k in key)


def get(field, key: tuple):
    return field[_host_key(key)] if isinstance(field, _np.ndarray) else field[key]


def put(field, key: tuple, value) -> None:
    if isinstance(field, _np.ndarray):
        field[_host_key(key)] = _host(value)
        return
    if isinstance(value, _np.ndarray) and value.dtype.kind in "US" and not isinstance(field, StructuredArray):
        # host text into numbers or dates: NumPy parses it, as its assignment does ('2.5' -> 2.5)
        value = value.astype(field.dtype if isinstance(field, DatetimeArray) else field.dtype.numpy_dtype)
    field[key] = value


def expand(v, k: int):
    """``v`` with ``k`` trailing axes of length 1 (a value for every element of a subarray field)."""
    if not k or _np.ndim(v) == 0:
        return v
    shape = tuple(v.shape) + (1,) * k
    return _np.reshape(v, shape) if isinstance(v, _np.ndarray) else v.reshape(shape)


def _consumed(p) -> int:
    """How many record axes an index part takes."""
    if p is None or isinstance(p, builtins.bool):
        return 0
    if isinstance(p, Tensor):
        return p.ndim if p.dtype.kind == "b" else 1
    if isinstance(p, (_np.ndarray, list)):
        a = _np.asarray(p)
        return a.ndim if a.dtype == _np.bool_ else 1
    return 1


def field_key(parts: tuple, ndim: int) -> tuple:
    """An index on the record axes as a key for every field: its Ellipsis made explicit and one
    appended, so that a subarray field's trailing axes are never indexed."""
    used = builtins.sum(_consumed(p) for p in parts if p is not Ellipsis)
    if used > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but {used} were indexed")
    for i, p in enumerate(parts):
        if p is Ellipsis:
            return parts[:i] + (slice(None),) * (ndim - used) + parts[i + 1:] + (Ellipsis,)
    return parts + (Ellipsis,)


def _is_names(key) -> bool:
    return isinstance(key, list) and builtins.bool(key) and builtins.all(isinstance(k, str) for k in key)


def _field_name(dtype: _np.dtype, key: str) -> str:
    if key in dtype.names:
        return key
    entry = (dtype.fields or {}).get(key)  # a title names its field too
    if entry is not None:
        for name in dtype.names:
            if dtype.fields[name][1:] == entry[1:]:
                return name
    raise ValueError(f"no field of name {key}")


# --- the array -----------------------------------------------------------------------------------------
class StructuredArray(FaceItems):
    """An array of records: NumPy's structured dtype and one array per field (face arrays on MAX).
    Field access, indexing, reshaping and writes are the fields'; views see writes, as in NumPy (its
    ufunc protocol, comparisons and the methods that are face functions are bound in
    ``_records_ops._bind``)."""

    __slots__ = ("_fields", "dtype", "shape", "_scalar", "__weakref__")
    __array_priority__ = 200  # NumPy's arrays and scalars defer their operators to ours
    __nabla_records__ = True  # the face's functions hand calls with one of these to ``_records_ops``

    def __init__(self, shape, dtype):
        """A zero-filled structured array (``np.StructuredArray(3, [('x', float)])``)."""
        z = blank(_np.dtype(dtype), A._shape(shape), "StructuredArray")
        self._fields, self.dtype, self.shape, self._scalar = z._fields, z.dtype, z.shape, False

    @classmethod
    def _make(cls, fields: dict, dtype, shape, scalar=False):
        self = object.__new__(cls)
        object.__setattr__(self, "_fields", fields)
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "shape", tuple(shape))
        object.__setattr__(self, "_scalar", scalar)  # an element (NumPy's np.void): shown as a tuple
        return self

    def _apply(self, fn, shape):
        """The same op on every field: ``fn(field, subarray shape)``, giving records of ``shape``."""
        fields = {name: fn(self._fields[name], sub) for name, _, sub in layout(self.dtype)}
        return self._make(fields, self.dtype, shape)

    # --- metadata ----------------------------------------------------------------------------------
    T = property(lambda self: self.transpose())

    # --- host boundary -----------------------------------------------------------------------------
    def numpy(self) -> _np.ndarray:
        """NumPy's structured array of these values (all fields computed in one run)."""
        pending = [t._impl for t in _device_fields(self) if not t._impl.is_realized]
        if len(pending) > 1:
            GRAPH.evaluate(pending)
        out = _np.zeros(self.shape, self.dtype)
        _fill(out, self)
        return out

    def _shown(self):
        host = self.numpy()
        return host[()] if self._scalar else host

    def __bool__(self):
        if self.size != 1:
            raise ValueError("The truth value of an array with more than one element is ambiguous. Use a.any() "
                             "or a.all()")
        return builtins.bool(self.numpy().reshape(())[()])

    # --- fields and indexing -----------------------------------------------------------------------
    def _field(self, key: str):
        field = self._fields[_field_name(self.dtype, key)]
        if isinstance(field, StructuredArray):
            scalar = self._scalar and not field.shape
            if type(field) is not type(self) or scalar != field._scalar:
                field = self._make(field._fields, field.dtype, field.shape, scalar)  # same fields: a view
        return field

    def __getitem__(self, key):
        if isinstance(key, str):
            return self._field(key)
        if _is_names(key):
            dtype = _np.zeros(0, self.dtype)[key].dtype  # NumPy's view dtype (offsets kept) and errors
            fields = {name: self._fields[name] for name in dtype.names}
            return self._make(fields, dtype, self.shape, self._scalar)
        parts = key if type(key) is tuple else (key,)
        fkey = field_key(parts, self.ndim)
        fields = {name: get(field, fkey) for name, field in self._fields.items()}
        name, _, sub = layout(self.dtype)[0]
        first = fields[name].shape
        shape = tuple(first[:len(first) - len(sub)])
        scalar = not shape and not builtins.any(p is Ellipsis for p in parts)
        return self._make(fields, self.dtype, shape, scalar)

    def __setitem__(self, key, value):
        if isinstance(key, str) or _is_names(key):
            target = self[key]
            if isinstance(target, StructuredArray):
                target[...] = value
            else:
                put(target, (Ellipsis,), value)
            return
        fkey = field_key(key if type(key) is tuple else (key,), self.ndim)
        for (name, _, _), part in zip(layout(self.dtype), self._parts(value)):
            put(self._fields[name], fkey, part)

    def _parts(self, value) -> list:
        """``value`` split into one value per field (NumPy's assignment to records: by position)."""
        fields = layout(self.dtype)
        if isinstance(value, (_np.ndarray, _np.void)) and value.dtype.names is not None:
            value = from_host(value)
        if isinstance(value, StructuredArray):
            if not _np.can_cast(value.dtype, self.dtype, "unsafe"):
                raise TypeError(f"Cannot cast array data from {value.dtype!r} to {self.dtype!r} according to "
                                "the rule 'unsafe'")
            return [value._fields[name] for name in value.dtype.names]
        if isinstance(value, tuple):
            if len(value) != len(fields):
                raise ValueError(f"could not assign tuple of length {len(value)} to structure with "
                                 f"{len(fields)} fields.")
            return list(value)
        if isinstance(value, (Tensor, DatetimeArray)) or D.is_scalar(value) or \
                isinstance(value, (_np.generic, str, bytes)):
            return [expand(value, len(sub)) for _, _, sub in fields]  # NumPy gives every field the value
        try:
            host = _np.array(value, dtype=self.dtype)  # lists of records, at the host boundary
        except (TypeError, ValueError) as e:
            raise type(e)(f"nabla.numpy: cannot assign {value!r} to records of {self.dtype}: {e}") from None
        return self._parts(from_host(host))

    def fill(self, value):
        self[...] = value

    # --- copies, casts, views, shapes --------------------------------------------------------------
    def copy(self, order="C"):
        return self._apply(lambda f, sub: f.copy(), self.shape)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        """NumPy's casts: to another structured dtype by position (each field cast on MAX); to a plain
        dtype only from a single field, as NumPy."""
        target = _np.dtype(dtype)
        if not _np.can_cast(self.dtype, target, casting):
            raise TypeError(f"Cannot cast array data from {self.dtype!r} to {target!r} according to the rule "
                            f"{casting!r}")
        if target == self.dtype:
            return self.copy() if copy else self
        sources = [self._fields[name] for name in self.dtype.names]
        if target.names is None:  # one field (NumPy refuses the rest, above)
            return cast_field(sources[0], "", target, self.shape, "astype")
        fields = {name: cast_field(src, name, base, self.shape + sub, "astype")
                  for src, (name, base, sub) in zip(sources, layout(target))}
        return self._make(fields, target, self.shape)

    def view(self, dtype=None, type=None):  # noqa: A002  (NumPy's names)
        """The same fields seen as a record array (``view(np.recarray)``) or as a StructuredArray; views
        that reinterpret the bytes as another dtype have no counterpart (fields are separate arrays)."""
        if isinstance(dtype, _type) and issubclass(dtype, (StructuredArray, _np.ndarray, Tensor)):
            dtype, type = None, dtype
        if dtype is not None and _np.dtype(dtype) != self.dtype:
            raise NotImplementedError(f"nabla.numpy.view: {self.dtype} seen as {_np.dtype(dtype)} reinterprets "
                                      "the record bytes; structured arrays hold one array per field here: use "
                                      "astype, or take the fields (x['name'])")
        cls = recarray if type is not None and issubclass(type, (recarray, _np.recarray)) else \
            StructuredArray if type is not None else _type(self)
        return cls._make(self._fields, self.dtype, self.shape, self._scalar)

    def reshape(self, *shape, order="C"):
        if order not in ("C", "A", "K"):
            raise NotImplementedError("nabla.numpy.reshape: structured arrays reshape in C order only")
        new = resolve_shape(shape[0] if len(shape) == 1 else shape, self.size)
        return self._apply(lambda f, sub: f.reshape(new + sub), new)

    def ravel(self, order="C"):
        return self.reshape(-1, order=order)

    def flatten(self, order="C"):
        return self.reshape(-1, order=order).copy()

    def transpose(self, *axes):
        axes = axes[0] if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))) else axes
        n = self.ndim
        axes = tuple(reversed(range(n))) if not axes else tuple(_axis(a, n) for a in axes)
        if sorted(axes) != list(range(n)):
            raise ValueError("axes don't match array")
        shape = tuple(self.shape[a] for a in axes)
        return self._apply(lambda f, sub: f.transpose(axes + tuple(range(n, n + len(sub)))), shape)

    def swapaxes(self, axis1, axis2):
        axes = list(range(self.ndim))
        a, b = _axis(axis1, self.ndim), _axis(axis2, self.ndim)
        axes[a], axes[b] = axes[b], axes[a]
        return self.transpose(axes)

    def squeeze(self, axis=None):
        n = self.ndim
        drop = [i for i, d in enumerate(self.shape) if d == 1] if axis is None else \
            [_axis(a, n) for a in (axis if isinstance(axis, (tuple, list)) else (axis,))]
        if builtins.any(self.shape[a] != 1 for a in drop):
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
        return self.reshape(tuple(d for i, d in enumerate(self.shape) if i not in drop))

    __hash__ = object.__hash__  # by identity, as the face's ndarray


class recarray(StructuredArray):
    """NumPy's record array: a StructuredArray whose fields are attributes too (``r.x``, ``r.x = v``)."""

    __slots__ = ()

    def __init__(self, shape, dtype=None, buf=None, offset=0, strides=None, formats=None, names=None,
                 titles=None, byteorder=None, aligned=False, order="C"):
        """NumPy's ``recarray(shape, dtype)`` or ``recarray(shape, formats=..., names=...)``, zero-filled."""
        if buf is not None:
            raise NotImplementedError("nabla.numpy.recarray: buf= views raw memory, which MAX arrays do not "
                                      "expose; use np.rec.fromarrays or np.rec.array")
        if dtype is None:
            dtype = _np.rec.format_parser(formats, names, titles, aligned, byteorder).dtype
        super().__init__(shape, dtype)

    def __getattr__(self, name):
        if name.startswith("__") or name in StructuredArray.__slots__:
            raise AttributeError(name)
        fields = object.__getattribute__(self, "dtype").fields
        if name not in fields:
            raise AttributeError(f"recarray has no attribute {name}")
        return self[name]

    def __setattr__(self, name, value):
        if name in StructuredArray.__slots__:
            object.__setattr__(self, name, value)
        elif name in (self.dtype.fields or {}):
            self[name] = value
        else:
            object.__setattr__(self, name, value)  # raises NumPy-like AttributeError: no such attribute

    def _shown(self):
        host = self.numpy().view(_np.recarray)
        return host[()] if self._scalar else host


def _device_fields(z: StructuredArray):
    for field in z._fields.values():
        if isinstance(field, StructuredArray):
            yield from _device_fields(field)
        elif isinstance(field, DatetimeArray):
            yield field.ticks
        elif isinstance(field, Tensor):
            yield field


def _fill(out: _np.ndarray, z: StructuredArray) -> None:
    for name, field in z._fields.items():
        if isinstance(field, StructuredArray):
            _fill(out[name], field)
        else:
            out[name] = _host(field)


def _axis(a, n: int) -> int:
    a = int(a)
    if not -n <= a < n:
        raise _np.exceptions.AxisError(a, n)
    return a % n


def resolve_shape(shape, size: int) -> tuple:
    """A reshape target with its -1 worked out, or NumPy's ValueError."""
    shape = (int(shape),) if isinstance(shape, numbers.Integral) else tuple(int(s) for s in shape)
    if shape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    known = math.prod(s for s in shape if s != -1)
    if -1 in shape and known and size % known == 0:
        shape = tuple(size // known if s == -1 else s for s in shape)
    if -1 in shape or math.prod(shape) != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {shape}")
    return shape


def cast_field(field, name: str, base: _np.dtype, shape: tuple, op: str):
    """A field's values as a field of dtype ``base`` and shape ``shape`` (records by position; strings on
    the host; numbers and dates on MAX; a scalar field spread over a subarray, as NumPy's casts)."""
    if base.names is not None:
        out = blank(base, shape, op)
        out[...] = field
        return out
    if isinstance(field, StructuredArray):
        field = field.astype(base)
    elif base.kind in "US":
        _warn_strings(name, base, op)
        return _np.array(_np.broadcast_to(_host(field), shape)).astype(base)
    elif isinstance(field, _np.ndarray):  # host strings as numbers or dates: NumPy parses them
        host = field.astype(base)
        field = _dates.from_host(host) if base.kind in "Mm" else D.asarray(host.astype(_number_dtype(name, base, op)))
    elif base.kind in "Mm" or isinstance(field, DatetimeArray):
        field = field.astype(base)
    else:
        field = field.astype(_number_dtype(name, base, op))
    if tuple(field.shape) != tuple(shape):
        extra = len(shape) - field.ndim
        field = _fnp().broadcast_to(expand(field, extra) if extra > 0 else field, shape).copy()
    return field


# --- the host boundary and blanks ------------------------------------------------------------------------
def from_host(arr, cls=None, op: str = "asarray") -> StructuredArray:
    """NumPy's structured array (or np.void) as a StructuredArray: each field copied to the device
    (strings stay on the host)."""
    arr = _np.asarray(arr)
    _check_fields(arr.dtype, op)
    fields = {}
    for name, base, _ in layout(arr.dtype):
        values = arr[name]  # the record shape + the subarray shape
        if base.names is not None:
            fields[name] = from_host(values, op=op)
        elif base.kind in "US":
            _warn_strings(name, base, op)
            fields[name] = _np.array(values)
        elif base.kind in "Mm":
            fields[name] = _dates.from_host(values)
        else:
            fields[name] = D.asarray(values.astype(_number_dtype(name, base, op), copy=False), op=op)
    return (cls or StructuredArray)._make(fields, arr.dtype, arr.shape)


def blank(dtype: _np.dtype, shape: tuple, op: str, cls=None) -> StructuredArray:
    """Zero-filled records of ``dtype`` (NumPy's ``zeros``; ``empty`` too: MAX has no uninitialized memory)."""
    _check_fields(dtype, op)
    fields = {}
    for name, base, sub in layout(dtype):
        full = tuple(shape) + sub
        if base.names is not None:
            fields[name] = blank(base, full, op)
        elif base.kind in "US":
            _warn_strings(name, base, op)
            fields[name] = _np.zeros(full, base)
        elif base.kind in "Mm":
            fields[name] = DatetimeArray(A.zeros(full, _np.int64), base)
        else:
            fields[name] = ndarray(A.zeros(full, _number_dtype(name, base, op))._impl)
    return (cls or StructuredArray)._make(fields, dtype, shape)


def is_records(v) -> bool:
    """Whether ``v`` holds records: a StructuredArray, NumPy's structured arrays and np.void scalars, or a
    list whose first element is one."""
    while isinstance(v, list) and v:
        v = v[0]
    if isinstance(v, StructuredArray):
        return True
    return isinstance(v, (_np.ndarray, _np.void)) and v.dtype.names is not None
