"""The face's functions on structured arrays (``StructuredArray``, ``_records.py``): creation, sorting,
unique, equality, joining, reshaping and picking (``np.rec`` is in ``_rec.py``).

Every function runs field by field on MAX: joining joins each field, reshaping functions reshape each
field (keeping a subarray field's trailing axes), and the picking functions (``take``, ``flip``,
``roll``, ``repeat``, ...) run on the record positions (an integer array) and gather every field at the
result. Sorting builds one key per field element, most significant first: the named fields, then the
rest in the dtype's order, as NumPy; numbers and booleans are keys as they are, complex numbers give
their real then imaginary parts, dates their ticks minus one (NaT last, as NumPy), and host strings
their ranks (NumPy ranks them on the host, where they live). ``lexsort`` (stable argsorts on MAX) orders
by the keys, so ties keep their index order. Equality compares the fields and ANDs the results.
"""

from __future__ import annotations

import builtins
import math

import numpy as _np

from . import _arrays as A
from . import _datetime as _dates
from . import _dtypes as D
from ._datetime import DatetimeArray
from ._records import (StructuredArray, _axis, _host, blank, expand, from_host, is_records, layout, recarray,
                       records_dtype)
from . import _records as R



class NoFieldsError(ValueError, TypeError):
    """``order=`` given for an array without fields: NumPy's ValueError, and a TypeError too (the
    argument's type is what is wrong, so code catching either one catches it)."""


def _no_fields():
    return NoFieldsError("Cannot specify order when the array has no fields (order= sorts structured arrays "
                         "by their fields).")


def _fnp():
    import nabla.numpy as fnp  # lazy: nabla.numpy imports this module

    return fnp


def as_records(v, dtype=None, op: str = "asarray") -> StructuredArray:
    """``v`` as a StructuredArray (cast to ``dtype`` when given): records pass, a list of them is
    stacked on MAX, host values (tuples, NumPy's structured arrays) are read by NumPy."""
    if isinstance(v, StructuredArray):
        return v if dtype is None or v.dtype == dtype else v.astype(dtype)
    if isinstance(v, list) and v and builtins.all(isinstance(e, StructuredArray) for e in v):
        out = stack(v)
        return out if dtype is None or out.dtype == dtype else out.astype(dtype)
    try:
        host = _np.array(v, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise type(e)(f"nabla.numpy.{op}: cannot read {v!r} as records of {dtype}: {e}") from None
    if host.dtype.names is None:
        raise TypeError(f"nabla.numpy.{op}: expected records (a structured dtype), got {host.dtype} data")
    return from_host(host, op=op)


def _records(a, op: str) -> StructuredArray:
    if isinstance(a, StructuredArray):
        return a
    if is_records(a):
        return as_records(a, op=op)
    raise TypeError(f"nabla.numpy.{op}: expected records (a structured array), got {type(a).__name__}")


# --- creation: the face's functions, taking structured dtypes and records ---------------------------------
array, asarray = D.kind_creation(records_dtype, is_records, as_records, _dates)
asanyarray = asarray


def ascontiguousarray(a, dtype=None, *, like=None):
    """``a`` as an array whose elements are one run of memory in C order: itself where they are,
    else a copy (a transpose, a strided slice), as NumPy's."""
    return asarray(a, dtype, order="C")


def _filled(name, value):
    def create(shape, dtype=None, *args, **kwargs):
        rd = records_dtype(dtype)
        if rd is None:
            return getattr(_dates, name)(shape, dtype, *args, **kwargs)
        out = blank(rd, A._shape(shape), name)
        if value:
            out[...] = value  # NumPy gives every field the value
        return out
    create.__name__ = create.__qualname__ = name
    create.__doc__ = f"NumPy's ``{name}``; with a structured dtype, records whose fields are all {value}"
    return create


zeros, ones, empty = _filled("zeros", 0), _filled("ones", 1), _filled("empty", 0)


def full(shape, fill_value, dtype=None, *args, **kwargs):
    rd = records_dtype(dtype)
    if rd is None and dtype is None and is_records(fill_value):
        rd = _np.asarray(fill_value).dtype if not isinstance(fill_value, StructuredArray) else fill_value.dtype
    if rd is None:
        return _dates.full(shape, fill_value, dtype, *args, **kwargs)
    out = blank(rd, A._shape(shape), "full")
    # NumPy copies the fill in: a tuple or list is a plain array (its values broadcast over the
    # records, each value to every field), np.void and records are records
    out[...] = _np.asarray(fill_value) if isinstance(fill_value, (tuple, list)) else fill_value
    return out


def _like_dtype(a, dtype):
    """The structured dtype of a ``*_like`` result, else None."""
    rd = records_dtype(dtype)
    if rd is not None or dtype is not None or not is_records(a):
        return rd
    return a.dtype if isinstance(a, StructuredArray) else _np.asarray(a).dtype


def _like(name, a, dtype, shape, subok, fill=None):
    target = _like_dtype(a, dtype)
    shape = _np.shape(a) if shape is None else A._shape(shape)
    if target is None:  # a plain dtype asked of records: the plain function of the shape
        return getattr(_dates, name)(shape, dtype) if fill is None else _dates.full(shape, fill, dtype)
    out = full(shape, fill, target) if fill is not None else getattr(_fnp(), name)(shape, target)
    return out.view(recarray) if subok and isinstance(a, recarray) else out


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    if _like_dtype(a, dtype) is None and not isinstance(a, StructuredArray):
        return _dates.zeros_like(a, dtype, order, subok, shape, device=device)
    return _like("zeros", a, dtype, shape, subok)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    if _like_dtype(a, dtype) is None and not isinstance(a, StructuredArray):
        return _dates.ones_like(a, dtype, order, subok, shape, device=device)
    return _like("ones", a, dtype, shape, subok)


def empty_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    if _like_dtype(a, dtype) is None and not isinstance(a, StructuredArray):
        return _dates.empty_like(a, dtype, order, subok, shape, device=device)
    return _like("empty", a, dtype, shape, subok)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    if _like_dtype(a, dtype) is None and not isinstance(a, StructuredArray):
        return _dates.full_like(a, fill_value, dtype, order, subok, shape, device=device)
    return _like("full", a, dtype, shape, subok, fill_value)


# --- sorting, unique, equality ------------------------------------------------------------------------
def _order(dtype: _np.dtype, order) -> list:
    names = list(dtype.names)
    if order is None:
        return names
    first = []
    for name in [order] if isinstance(order, str) else list(order):
        if name not in names:
            raise ValueError(f"unknown field name: {name}")
        if name in first:
            raise ValueError(f"duplicate field name: {name}")
        first.append(name)
    return first + [n for n in names if n not in first]


def _field_keys(field) -> list:
    """Sort keys of one field, most significant first, each of the field's shape."""
    if isinstance(field, StructuredArray):
        return _keys(field, field.dtype.names)
    if isinstance(field, DatetimeArray):
        return [field.ticks - 1]  # NaT (int64's minimum) wraps round to the top: NumPy sorts it last
    if isinstance(field, _np.ndarray):  # host strings (MAX holds no strings): their ranks, in NumPy's order
        ranks = _np.unique(field, return_inverse=True)[1].reshape(field.shape)
        return [D.asarray(ranks, op="sort")]
    if field.dtype.is_complex:
        fnp = _fnp()
        return [fnp.real(field), fnp.imag(field)]
    return [field]


def _keys(z: StructuredArray, names) -> list:
    """Sort keys of records ``z`` by the fields ``names``, most significant first, each of z's shape:
    a subarray field gives its elements in order, each compared whole before the next."""
    keys = []
    subs = {name: sub for name, _, sub in layout(z.dtype)}
    for name in names:
        field_keys, sub = _field_keys(z._fields[name]), subs[name]
        if not sub:
            keys += field_keys
            continue
        m = math.prod(sub)
        flat = [k.reshape(tuple(z.shape) + (m,)) for k in field_keys]
        keys += [k[..., j] for j in range(m) for k in flat]
    return keys


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    if not is_records(a):
        raise _no_fields()
    z = _records(a, "argsort")
    if axis is None:
        z, axis = z.reshape(-1), 0
    if not z.ndim:
        z = z.reshape(1)
    axis = _axis(axis, z.ndim)
    keys = _keys(z, _order(z.dtype, order))
    return _fnp().lexsort(keys[::-1], axis=axis)


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    if not is_records(a):
        raise _no_fields()
    z = _records(a, "sort")
    if axis is None:
        z, axis = z.reshape(-1), 0
    if not z.ndim:
        raise _np.exceptions.AxisError(axis, 0)
    axis = _axis(axis, z.ndim)
    return take_along(z, argsort(z, axis, order=order), axis)


def take_along(z: StructuredArray, index, axis: int) -> StructuredArray:
    """``take_along_axis`` on every field (``index`` has z's shape; a subarray field's elements move
    together)."""
    fnp = _fnp()

    def each(field, sub):
        i = index if not sub else fnp.broadcast_to(expand(index, len(sub)), tuple(index.shape) + sub)
        if isinstance(field, StructuredArray):
            return take_along(field, i, axis)
        if isinstance(field, DatetimeArray):
            return DatetimeArray(fnp.take_along_axis(field.ticks, i, axis), field.dtype)
        if isinstance(field, _np.ndarray):
            return _np.take_along_axis(field, _np.asarray(i.numpy()), axis)
        return fnp.take_along_axis(field, i, axis)

    return z._apply(each, z.shape)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           sorted=True):  # noqa: A002  (NumPy's name)
    """Unique records, sorted: a lexicographic sort over every field, then the starts of runs of equal
    records (NaN fields never equal, as NumPy compares records)."""
    if axis is not None:
        raise NotImplementedError("nabla.numpy.unique: axis= on structured arrays is not supported; records "
                                  "are compared whole with axis=None")
    fnp = _fnp()
    z = _records(ar, "unique")
    flat = z.reshape(-1)
    n = flat.size
    if n == 0:
        empty = fnp.zeros(0, _np.int64)
        values, index, inverse, counts = flat, empty, empty, empty
    else:
        keys = _keys(flat, flat.dtype.names)
        perm = fnp.lexsort(keys[::-1])
        differ = None
        for k in keys:
            s = fnp.take(k, perm)
            d = s[1:] != s[:-1]
            differ = d if differ is None else differ | d
        starts_mask = fnp.concatenate([fnp.ones(1, _np.bool_), differ])
        starts = fnp.nonzero(starts_mask)[0]
        index = fnp.take(perm, starts)
        values = flat[index]
        group = fnp.cumsum(starts_mask.astype(_np.int64)) - 1
        inverse = fnp.take(group, fnp.argsort(perm)).reshape(z.shape)  # NumPy 2: the input's shape
        counts = fnp.concatenate([starts[1:], fnp.full(1, n, _np.int64)]) - starts
    out = [values] + [v for v, asked in ((index, return_index), (inverse, return_inverse),
                                         (counts, return_counts)) if asked]
    return out[0] if len(out) == 1 else tuple(out)


def _operand(v) -> StructuredArray:
    if isinstance(v, StructuredArray):
        return v
    if isinstance(v, (_np.ndarray, _np.void)) and v.dtype.names is not None:
        return R.from_host(v, op="equal")
    raise TypeError("Cannot compare structured or void to non-void arrays.")


def _fields_equal(x: StructuredArray, y: StructuredArray):
    fnp = _fnp()
    out = None
    for (name, _, sub), other in zip(layout(x.dtype), y.dtype.names):
        fx, fy = x._fields[name], y._fields[other]
        if isinstance(fx, StructuredArray):
            e = _fields_equal(fx, _operand(fy))
        elif isinstance(fx, _np.ndarray) or isinstance(fy, _np.ndarray):
            e = D.asarray(_np.equal(_host(fx), _host(fy)), op="equal")
        else:
            e = fx == fy
        if sub:
            e = fnp.all(e, axis=tuple(range(-len(sub), 0)))
        out = e if out is None else out & e
    return out


def equal(a, b):
    """NumPy's ``==`` of records: True where every field is equal (the dtypes must promote)."""
    x, y = _operand(a), _operand(b)
    try:
        _np.result_type(x.dtype, y.dtype)
    except TypeError:
        raise TypeError("Cannot compare structured arrays unless they have a common dtype.  I.e. "
                        "`np.result_type(arr1, arr2)` must be defined.") from None
    return _fields_equal(x, y)


def not_equal(a, b):
    return ~equal(a, b)


def array_equal(a1, a2, equal_nan=False):
    x, y = _operand(a1), _operand(a2)
    return x.shape == y.shape and builtins.bool(_fnp().all(equal(x, y)))


def ufunc(name: str, method: str, inputs, kwargs):
    """NumPy's and the face's ufuncs on records: comparisons for equality only, as NumPy."""
    if method == "__call__" and name in ("equal", "not_equal") and len(inputs) == 2:
        return (equal if name == "equal" else not_equal)(*inputs)
    kinds = ", ".join(str(v.dtype) if hasattr(v, "dtype") else type(v).__name__ for v in inputs)
    raise TypeError(f"nabla.numpy.{name}: ufunc {name!r} has no loop for structured operands ({kinds}); "
                    "compute on the fields (x['name'])")


# --- joining ---------------------------------------------------------------------------------------------
def _common(zs, dtype, op: str):
    """The records cast to one dtype: ``dtype`` when given, else NumPy's result (its errors)."""
    target = _np.dtype(dtype) if dtype is not None else \
        _np.concatenate([_np.zeros(1, z.dtype) for z in zs]).dtype
    return [z if z.dtype == target else z.astype(target) for z in zs]


def _join(name: str, zs, axis: int, shape: tuple) -> StructuredArray:
    fnp = _fnp()
    fields = {}
    for fname, _, sub in layout(zs[0].dtype):
        parts = [z._fields[fname] for z in zs]
        if isinstance(parts[0], StructuredArray):
            fields[fname] = _join(name, parts, axis, shape + sub)
        elif builtins.any(isinstance(p, _np.ndarray) for p in parts):
            fields[fname] = getattr(_np, name)([_host(p) for p in parts], axis=axis)
        else:
            fields[fname] = getattr(fnp, name)(parts, axis=axis)
    return zs[0]._make(fields, zs[0].dtype, shape)


def concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    zs = [_records(a, "concatenate") for a in arrays]
    if not zs:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        zs, axis = [z.reshape(-1) for z in zs], 0
    zs = _common(zs, dtype, "concatenate")
    nd = zs[0].ndim
    if not nd:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    for i, z in enumerate(zs):
        if z.ndim != nd:
            raise ValueError(f"all the input arrays must have same number of dimensions, but the array at index 0 "
                             f"has {nd} dimension(s) and the array at index {i} has {z.ndim} dimension(s)")
    ax = _axis(axis, nd)
    for i, z in enumerate(zs):
        if z.shape[:ax] + z.shape[ax + 1:] != zs[0].shape[:ax] + zs[0].shape[ax + 1:]:
            raise ValueError("all the input array dimensions except for the concatenation axis must match "
                             f"exactly, but the array at index 0 has shape {zs[0].shape} and the array at "
                             f"index {i} has shape {z.shape}")
    shape = zs[0].shape[:ax] + (builtins.sum(z.shape[ax] for z in zs),) + zs[0].shape[ax + 1:]
    return _join("concatenate", zs, ax, shape)


concat = concatenate


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    zs = _common([_records(a, "stack") for a in arrays], dtype, "stack")
    if builtins.any(z.shape != zs[0].shape for z in zs):
        raise ValueError("all input arrays must have the same shape")
    ax = _axis(axis, zs[0].ndim + 1)
    shape = zs[0].shape[:ax] + (len(zs),) + zs[0].shape[ax:]
    return _join("stack", zs, ax, shape)


def _at_least(n: int):
    def fn(*arys):
        out = []
        for a in arys:
            z = _records(a, f"atleast_{n}d")
            s = z.shape
            if z.ndim < n:
                s = (1,) * n if not s else (1,) + s if n == 2 else (1,) + s + (1,) if len(s) == 1 else s + (1,)
            out.append(z.reshape(s))
        return out[0] if len(out) == 1 else out
    fn.__name__ = f"atleast_{n}d"
    return fn


atleast_1d, atleast_2d, atleast_3d = _at_least(1), _at_least(2), _at_least(3)


def hstack(tup, *, dtype=None, casting="same_kind"):
    zs = [atleast_1d(z) for z in tup]
    return concatenate(zs, axis=0 if zs[0].ndim == 1 else 1, dtype=dtype)


def vstack(tup, *, dtype=None, casting="same_kind"):
    return concatenate([atleast_2d(z) for z in tup], axis=0, dtype=dtype)


def append(arr, values, axis=None):
    z = _records(arr, "append")
    v = as_records(values, z.dtype, "append")
    return concatenate([z, v], axis=axis)


def where(condition, x=None, y=None):
    """Records of ``x`` where ``condition``, else of ``y``: a ``where`` on every field."""
    if x is None or y is None:
        raise TypeError("nabla.numpy.where: structured arrays take where(condition, x, y); the indices of "
                        "records come from a condition on their fields")
    zx = x if isinstance(x, StructuredArray) else as_records(x, getattr(y, "dtype", None), "where")
    zy = y if isinstance(y, StructuredArray) else as_records(y, zx.dtype, "where")
    target = _np.result_type(zx.dtype, zy.dtype)
    zx, zy = (z if z.dtype == target else z.astype(target) for z in (zx, zy))
    c = D.asarray(condition, op="where")
    return _where(c, zx, zy, _np.broadcast_shapes(tuple(c.shape), zx.shape, zy.shape))


def _where(c, x: StructuredArray, y: StructuredArray, shape: tuple) -> StructuredArray:
    fnp = _fnp()
    fields = {}
    for name, _, sub in layout(x.dtype):
        cc, fx, fy = expand(c, len(sub)), x._fields[name], y._fields[name]
        if isinstance(fx, StructuredArray):
            fields[name] = _where(cc, fx, fy, shape + sub)
        elif isinstance(fx, _np.ndarray) or isinstance(fy, _np.ndarray):
            fields[name] = _np.where(_host(cc), _host(fx), _host(fy))
        else:
            fields[name] = fnp.where(cc, fx, fy)
    return x._make(fields, x.dtype, shape)


# --- reshaping and picking ---------------------------------------------------------------------------------
def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    return _records(a, "reshape").reshape(shape if shape is not None else newshape, order=order)


def ravel(a, order="C"):
    return _records(a, "ravel").ravel(order)


def transpose(a, axes=None):
    return _records(a, "transpose").transpose(axes)


def swapaxes(a, axis1, axis2):
    return _records(a, "swapaxes").swapaxes(axis1, axis2)


def squeeze(a, axis=None):
    return _records(a, "squeeze").squeeze(axis)


def moveaxis(a, source, destination):
    z = _records(a, "moveaxis")
    src = [_axis(s, z.ndim) for s in (source if isinstance(source, (tuple, list)) else (source,))]
    dst = [_axis(d, z.ndim) for d in (destination if isinstance(destination, (tuple, list)) else (destination,))]
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(z.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return z.transpose(order)


def expand_dims(a, axis):
    z = _records(a, "expand_dims")
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    n = z.ndim + len(axes)
    axes = {_axis(x, n) for x in axes}
    it = iter(z.shape)
    return z.reshape(tuple(1 if i in axes else next(it) for i in range(n)))


def _by_position(name: str):
    """The face's ``name`` on the record positions (an integer array), every field gathered at the result:
    ``take``, ``flip``, ``roll``, ``repeat``, ``tile``, ``split``, ... need no per-field code."""
    def fn(a, *args, **kwargs):
        fnp = _fnp()
        z = _records(a, name)
        positions = fnp.arange(z.size).reshape(z.shape)
        picked = getattr(fnp, name)(positions, *args, **kwargs)
        flat = z.reshape(-1)
        return [flat[p] for p in picked] if isinstance(picked, (list, tuple)) else flat[picked]
    fn.__name__ = name
    return fn


def copy(a, order="K", subok=False):
    return _records(a, "copy").copy()


def shape(a):
    return _records(a, "shape").shape


def ndim(a):
    return _records(a, "ndim").ndim


def size(a, axis=None):
    z = _records(a, "size")
    return z.size if axis is None else z.shape[axis]


_FUNCTIONS = {f.__name__: f for f in (
    argsort, sort, unique, equal, not_equal, array_equal, concatenate, stack, hstack, vstack, append, where,
    reshape, ravel, transpose, swapaxes, squeeze, moveaxis, expand_dims, copy, shape, ndim, size,
    atleast_1d, atleast_2d, atleast_3d)}
_FUNCTIONS["concat"] = concatenate
_FUNCTIONS.update({name: _by_position(name) for name in (
    "take", "repeat", "flip", "fliplr", "flipud", "roll", "tile", "resize", "rot90", "broadcast_to",
    "split", "array_split", "hsplit", "vsplit", "dsplit", "diagonal")})


def _writer(name: str):
    """NumPy's file writer ``name`` on the host values (records are read back whole)."""
    def fn(*args, **kwargs):
        return getattr(_np, name)(*map(_host, args), **{k: _host(v) for k, v in kwargs.items()})
    fn.__name__ = name
    return fn


_FUNCTIONS.update({name: _writer(name) for name in ("save", "savez", "savez_compressed", "savetxt")})
_FUNCTIONS.update({f.__name__: f for f in (array, asarray, zeros_like, ones_like, empty_like, full_like)})
_FUNCTIONS.update(asanyarray=asarray, ascontiguousarray=ascontiguousarray, isscalar=lambda a: a.ndim == 0)


def function(name: str, owner: StructuredArray):
    """The implementation of the face's function ``name`` for structured arguments."""
    fn = _FUNCTIONS.get(name)
    if fn is None:
        raise TypeError(f"nabla.numpy.{name}: not supported for structured arrays ({owner.dtype}); they take field "
                        "access, indexing and writes, reshaping, joining, picking, sorting by fields, unique and "
                        "equality (see docs/numpy.md, Structured arrays); compute on the fields: x['name']")
    return fn


def _bind() -> None:
    """Give ``StructuredArray`` its methods, comparisons and NumPy's ufunc protocol: this module's
    functions (``_records.py`` sits below this module)."""

    def sort_in_place(self, axis=-1, kind=None, order=None, *, stable=None):
        self[...] = sort(self, axis, kind, order)

    def array_ufunc(self, uf, method, *inputs, **kwargs):
        return ufunc(uf.__name__, method, inputs, kwargs)

    def nabla_array_function(self, face_fn, args, kwargs):
        """The face's functions (``nabla.numpy.sort(z, order='x')``) with records: this module's."""
        return function(face_fn.__name__, self)(*args, **kwargs)

    def method(name):
        def m(self, *args, **kwargs):
            return function(name, self)(self, *args, **kwargs)
        m.__name__ = name
        return m

    StructuredArray.sort = sort_in_place
    StructuredArray.__array_ufunc__ = array_ufunc
    StructuredArray.__nabla_array_function__ = nabla_array_function
    StructuredArray.__eq__, StructuredArray.__ne__ = equal, not_equal
    for name in ("argsort", "take", "repeat"):
        setattr(StructuredArray, name, method(name))


_bind()
