"""NumPy's dtype conventions for the face: NumPy's own dtype objects and scalar types, float64/int64
defaults, NEP 50 promotion (resolved by NumPy on dtypes alone: metadata, never data), and the host
boundary that turns lists, ranges, NumPy arrays and scalars into tensors."""

from __future__ import annotations

import builtins
import functools
import numbers

import numpy as _np

from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..core.values import HostValue, host_view
from ..array_api import stack
from ..ops.base import accumulation_dtype, tensor_from_host
from ..ops.elementwise import astype as _astype
from ._ndarray import ndarray, wrap
from ..ops import indexing
from ._strings import TEXT_FUNCTIONS, holds_text, host_strings, on_host, warn

# NumPy's scalar types are the face's dtypes: ``np.float32(2.5)`` is a host scalar, ``x.dtype == np.float32``
bool_ = _np.bool_
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
intp, uintp, int_, double, single, half, longlong = _np.intp, _np.uintp, _np.int_, _np.double, _np.single, \
    _np.half, _np.longlong
cdouble, csingle, byte, ubyte, short, ushort, intc, uintc = _np.cdouble, _np.csingle, _np.byte, _np.ubyte, \
    _np.short, _np.ushort, _np.intc, _np.uintc
generic, number, integer, signedinteger, unsignedinteger, floating, complexfloating, inexact = \
    _np.generic, _np.number, _np.integer, _np.signedinteger, _np.unsignedinteger, _np.floating, \
    _np.complexfloating, _np.inexact
dtype = _np.dtype
finfo, iinfo = _np.finfo, _np.iinfo
can_cast, promote_types, issubdtype = _np.can_cast, _np.promote_types, _np.issubdtype

#: what cannot live on MAX, and what to use instead
_UNSUPPORTED_KINDS = {
    "O": "object arrays: keep Python objects in a list, or use numpy itself",
    "U": "string arrays stay NumPy arrays on the host (np.array(list_of_str) gives one); use np.char on them",
    "S": "byte-string arrays stay NumPy arrays on the host (np.array(list_of_bytes) gives one)",
    "V": "structured arrays are StructuredArrays (one array per field): make them with nabla.numpy.array, "
         "asarray or zeros(..., dtype=[(name, type), ...]) and compute on their fields; raw void data (V<n>) "
         "has no counterpart",
    "M": "datetime64 data: make a date array first (nabla.numpy.array(values, dtype='datetime64[D]'))",
    "m": "timedelta64 data: make a duration array first (nabla.numpy.array(values, dtype='timedelta64[s]'))",
}


def unsupported(kind: str, op: str):
    why = "" if kind in "Mm" else " (MAX computes on numbers only)"
    return TypeError(f"nabla.numpy.{op}: {_UNSUPPORTED_KINDS[kind]}{why}")


def to_nabla(dtype_like, op: str):
    """A NumPy dtype spelling (``float``, ``"f4"``, ``np.int32``, a Nabla dtype) -> Nabla dtype, or None."""
    if dtype_like is None:
        return None
    if isinstance(dtype_like, _dt.DType):
        return dtype_like
    try:
        d = _np.dtype(dtype_like)
    except TypeError as e:
        raise TypeError(f"nabla.numpy.{op}: data type {dtype_like!r} not understood") from e
    if d.kind in _UNSUPPORTED_KINDS:
        raise unsupported(d.kind, op)
    return _dt.as_dtype(d)


def _host_scalars(items):
    """The host values of ``items`` where each is a realized 0-d array on the host (a pick, an op at
    once over picks: NumPy scalars or 0-d memory already), to be packed as ``asarray`` packs Python
    numbers (a loop's list of 300 picks, ``np.array(vals)``: 1.5 ms stacked, 0.1 packed); None
    otherwise (stacked as tensors, lazily)."""
    out = []
    for t in items:
        impl = getattr(t, "_impl", None)
        if impl is None or impl.cached_shape or impl.traced or impl.tangents is not None or impl.batch_dims \
                or impl.sharding is not None or impl.dtype.is_complex:
            return None
        values = impl._values
        if type(values) is not list or len(values) != 1 or type(values[0]) is not HostValue \
                or values[0].node is not None:
            return None
        host = values[0].host
        out.append(host if isinstance(host, _np.generic) else host_view(values[0]))
    return out


def numpy_dtype(x) -> _np.dtype:
    return x.dtype.numpy_dtype if isinstance(x, Tensor) else _np.dtype(x)


def asarray(a, dtype=None, op: str = "asarray", device=None, strings: bool = False) -> Tensor:
    """The face's host boundary: tensors pass (cast if asked); anything NumPy reads becomes a tensor.
    ``strings``: string and bytes data come back as NumPy's array, with a warning (``_strings.py``)."""
    if strings and not isinstance(a, Tensor):
        text = host_strings(a, dtype, op)
        if text is not None:
            return text
    target = to_nabla(dtype, op)
    if isinstance(a, Tensor):
        a = wrap(a)
        return a if target is None or a.dtype is target else _astype(a, target)
    if isinstance(a, (list, tuple)) and a and builtins.any(isinstance(v, Tensor) for v in a):
        held = _host_scalars(a)
        if held is not None:  # (realized scalars on the host, ``np.array([dx, dy, dz])``: their values packed)
            arr = _np.array(held, dtype=None if target is None else target.numpy_dtype)
            return ndarray(tensor_from_host(arr, device)._impl)
        first = a[0]
        if isinstance(first, Tensor) and builtins.all(isinstance(v, Tensor) and v.dtype is first.dtype for v in a):
            parts = [wrap(v) for v in a]  # (one dtype: nothing to promote; a list of picks, ``[y[1], -sin(y[0])]``)
        else:
            parts = promote_all([asarray(v, None, op, device) for v in a], op)
        out = stack(parts, axis=0)  # (tensors in a list stay lazy: stacked, not read back)
        return out if target is None else _astype(out, target)
    arr = _np.asarray(a, dtype=None if target is None else target.numpy_dtype)
    if arr.dtype.kind in _UNSUPPORTED_KINDS:
        if strings and arr.dtype.kind in "US":
            warn(f"{op} of {arr.dtype} data")
            return arr
        raise unsupported(arr.dtype.kind, op)
    if arr.dtype == _np.longdouble and arr.dtype != _np.float64:
        arr = arr.astype(_np.float64)
    return ndarray(tensor_from_host(arr, device)._impl)


def as_face(r):
    """Results of the face's functions as ndarrays (tuples, named tuples and lists of them too)."""
    if type(r) is Tensor:
        return wrap(r)
    if isinstance(r, (tuple, list)) and builtins.any(type(v) is Tensor for v in r):
        items = [wrap(v) if type(v) is Tensor else v for v in r]
        return type(r)._make(items) if hasattr(type(r), "_make") else type(r)(items)
    return r


def face(fn):
    """``fn`` with its results as ndarrays (the face's functions; ops keep ndarrays by themselves)."""
    name = fn.__name__
    takes_text = name in TEXT_FUNCTIONS  # (asked once here: every face call passes this way)

    @functools.wraps(fn)
    def f(*args, **kwargs):
        owner = _owner(args) if args else None
        if owner is not None:
            return type(owner).__nabla_array_function__(owner, fn, args, kwargs)
        if takes_text and args and holds_text(args):  # (strings stay on the host: their functions are NumPy's)
            out = on_host(name, args, kwargs, lambda v: asarray(v, op=name))
            if out is not None:
                return out
        return as_face(fn(*args, **kwargs))

    return f


#: argument types that never take a face function over (asked by type first: every face call asks)
_NOT_OWNERS = frozenset((ndarray, Tensor, _np.ndarray, int, float, bool, complex, str, type(None)))


def _owner(args):
    """The argument whose type takes a face function over: a masked array in first place (ma's
    function), or a date or structured array anywhere, in a list too (``where(c, d1, d2)``,
    ``concatenate([d1, d2])``)."""
    first = type(args[0])
    if first not in _NOT_OWNERS and hasattr(first, "__nabla_array_function__"):
        return args[0]
    for a in args:
        t = type(a)
        if t in _NOT_OWNERS:
            continue
        for v in (a if t is list or t is tuple else (a,)):
            tv = type(v)
            if tv not in _NOT_OWNERS and (hasattr(tv, "__nabla_dates__") or hasattr(tv, "__nabla_records__")):
                return v
    return None


def promote_all(tensors, op: str):
    target = _np.result_type(*(t.dtype.numpy_dtype for t in tensors))
    return [t if t.dtype.numpy_dtype == target else _astype(t, _dt.as_dtype(target)) for t in tensors]


def is_scalar(v) -> bool:
    return isinstance(v, (builtins.bool, numbers.Number)) and not isinstance(v, _np.generic)


def operand(v, op: str):
    """Arrays and array-likes become tensors; Python scalars stay weak (NEP 50); NumPy scalars are strong."""
    if isinstance(v, Tensor) or is_scalar(v):
        return v
    return asarray(v, op=op)


def weak_type(v):
    """What NumPy's type resolution takes for an operand: a dtype, or the Python type of a weak scalar."""
    if isinstance(v, Tensor):
        return v.dtype.numpy_dtype
    return type(v) if not isinstance(v, builtins.bool) else _np.dtype(_np.bool_)


def cast(x, target: _np.dtype):
    """A tensor operand cast to NumPy's loop dtype; Python scalars are left for the op's weak-scalar rule."""
    if not isinstance(x, Tensor) or x.dtype.numpy_dtype == target:
        return x
    return _astype(x, _dt.as_dtype(target))


def axis_range(x: Tensor, axis: int, start, stop) -> Tensor:
    """``x[..., start:stop, ...]`` along ``axis`` (a value, not a view)."""
    return indexing.getitem(x, (slice(None),) * (axis % x.ndim) + (slice(start, stop),))


def reduction_dtype(x: Tensor, kind: str) -> _np.dtype:
    """Result dtype of a NumPy reduction: ``sum``/``prod`` widen small integers, ``mean``/``var`` give floats."""
    d = x.dtype.numpy_dtype
    if kind == "sum":
        return accumulation_dtype(x.dtype).numpy_dtype  # NumPy's rule too: small ints widen to int64
    if kind == "mean":
        return d if d.kind in "fc" else _np.dtype(_np.float64)
    if kind == "var":
        return _np.dtype(_np.float64) if d.kind not in "fc" else (_np.finfo(d).dtype if d.kind == "c" else d)
    return d


def kind_creation(kind_dtype, is_kind, as_kind, below):
    """``array`` and ``asarray`` for a kind of data the face wraps (dates, records): ``kind_dtype(dtype)``
    names the kind's dtype or None, ``is_kind(obj)`` says whether ``obj`` holds such data, ``as_kind(obj,
    kind, op)`` makes the wrapper; anything else goes to ``below`` (the module of the next layer)."""
    def array(obj, dtype=None, *args, **kwargs):
        kd = kind_dtype(dtype)
        if kd is None and not is_kind(obj):
            return below.array(obj, dtype, *args, **kwargs)
        if kd is None and dtype is not None:  # the kind's data read as a plain dtype
            return as_kind(obj, None, "array").astype(dtype)
        x = as_kind(obj, kd, "array")
        x = x.copy() if x is obj and kwargs.get("copy", True) is not False else x
        ndmin = kwargs.get("ndmin", 0)
        return x if x.ndim >= ndmin else x.reshape((1,) * (ndmin - x.ndim) + x.shape)

    def asarray(a, dtype=None, *args, **kwargs):
        kd = kind_dtype(dtype)
        if kd is None and not is_kind(a):
            return below.asarray(a, dtype, *args, **kwargs)
        if kd is None and dtype is not None:
            return as_kind(a, None, "asarray").astype(dtype)
        x = as_kind(a, kd, "asarray")
        return x.copy() if x is a and kwargs.get("copy") else x

    return array, asarray
