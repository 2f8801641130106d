"""The ufuncs and functions of the face on dates and durations (``DatetimeArray``, ``_datetime.py``).

NumPy resolves each ufunc's dtypes (``ufunc.resolve_dtypes``: the units, the result, the errors), the
operands' ticks are converted to the loop's units and the op runs on the int64 ticks on MAX; NaT in gives
NaT out (False from comparisons, except ``!=``). Sorting keys shift the ticks by one so that NaT (int64's
minimum) wraps round to the top: NumPy sorts NaT last.
"""

from __future__ import annotations

import builtins
import math

import numpy as _np

from ..core.tensor import Tensor
from . import _dtypes as D
from ._busday import busday_count, busday_offset, busdaycalendar, is_busday  # noqa: F401  (the face's names)
from ._datetime import NAT, DatetimeArray, as_dates, convert, dates_dtype
from . import _datetime as _dates

_MAX = int(_np.iinfo(_np.int64).max)


def _fnp():
    import nabla.numpy as fnp  # lazy: nabla.numpy imports this module

    return fnp


def _describe(operands) -> str:
    return " and ".join(f"{v.dtype} of shape {v.shape}" if isinstance(v, (DatetimeArray, Tensor)) else
                        f"{type(v).__name__} {v!r}" for v in operands)


# --- ufuncs --------------------------------------------------------------------------------------------
def _operand(v):
    """Dates become DatetimeArrays, other arrays face arrays; Python numbers stay weak (NEP 50); strings
    stay host strings (NumPy compares dates with strings as unequal, and refuses the rest)."""
    if isinstance(v, (DatetimeArray, Tensor)) or D.is_scalar(v):
        return v
    if isinstance(v, str):
        return _np.asarray(v)
    return as_dates(v) if _dates.is_dates(v) else D.operand(v, "ufunc")


def _dtype_of(v):
    if isinstance(v, DatetimeArray) or isinstance(v, _np.ndarray):
        return v.dtype
    return D.weak_type(v)


def _trunc_divide(a, b):
    """Integer division toward zero (NumPy's duration / integer), NaT where ``b`` is 0."""
    fnp = _fnp()
    zero = b == 0
    safe = fnp.where(zero, 1, b) if isinstance(b, Tensor) else (b or 1)
    q = a // safe
    q = fnp.where((a % safe != 0) & ((a < 0) != (safe < 0)), q + 1, q)
    return q, zero


def _from_float(f):
    """A float result of a duration (``td * 1.5``) as ticks, truncated; NaN and infinities are NaT."""
    fnp = _fnp()
    finite = fnp.isfinite(f)
    return fnp.where(finite, f, 0.0).astype(_np.int64), ~finite


def _kernel(name, xs, loop):
    """The op on ticks (or numbers): its result and where it makes NaT beyond its operands' NaT."""
    fnp = _fnp()
    floats = builtins.any(t.kind == "f" for t in loop[:len(xs)])
    if name in ("add", "subtract", "maximum", "minimum") or name in _COMPARE:
        return getattr(fnp, name)(*xs), None
    if name == "multiply":
        return _from_float(xs[0] * xs[1]) if floats else (xs[0] * xs[1], None)
    if name in ("divide", "floor_divide"):
        a, b = xs
        if loop[-1].kind == "f":  # duration / duration: a float ratio
            return a / b, None
        if loop[-1].kind == "i":  # duration // duration: floored; 0 where b is 0
            zero = b == 0
            return fnp.where(zero, 0, a // fnp.where(zero, 1, b)), None
        return _from_float(a / b) if floats else _trunc_divide(a, b)
    if name == "remainder":
        a, b = xs
        zero = b == 0
        return a % fnp.where(zero, 1, b), zero
    if name in ("fmax", "fmin"):
        a, b = xs
        both = getattr(fnp, "maximum" if name == "fmax" else "minimum")(a, b)
        return fnp.where(a == NAT, b, fnp.where(b == NAT, a, both)), None
    if name == "negative":
        return -xs[0], None
    if name == "positive":
        return xs[0], None
    if name == "absolute":
        return fnp.abs(xs[0]), None
    nat = xs[0] == NAT
    return {"isnat": nat, "isnan": nat, "isfinite": ~nat, "isinf": fnp.zeros(nat.shape, bool)}[name], None


_COMPARE = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
_KEEP_NAT = ("fmax", "fmin", "isnat", "isnan", "isfinite", "isinf")  # these read NaT themselves
_UFUNCS = ("add", "subtract", "multiply", "divide", "floor_divide", "remainder", "maximum", "minimum",
           "negative", "positive", "absolute") + _COMPARE + _KEEP_NAT


def apply(name: str, operands, kwargs=None):
    """NumPy's ufunc ``name`` on operands of which one at least holds dates or durations."""
    u = getattr(_np, name, None)
    name = u.__name__ if isinstance(u, _np.ufunc) else name
    kwargs = dict(kwargs or {})
    out, into = kwargs.pop("out", None), kwargs.pop("into", None)
    casting = kwargs.pop("casting", "same_kind")
    if kwargs.pop("where", True) is not True or kwargs.pop("dtype", None) is not None or \
            {k for k in kwargs if k not in ("order", "subok")}:
        raise TypeError(f"nabla.numpy.{name}: where=, dtype= and {sorted(kwargs)} are not supported with dates")
    if name not in _UFUNCS:
        raise TypeError(f"nabla.numpy.{name}: not defined for dates and durations ({_describe(operands)})")
    ops = [_operand(v) for v in operands]
    shapes = [_np.shape(v) if not isinstance(v, (DatetimeArray, Tensor)) else v.shape for v in ops]
    try:
        shape = _np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"nabla.numpy.{name}: operands could not be broadcast together: "
                         f"{_describe(ops)}") from None
    try:
        loop = u.resolve_dtypes(tuple(_dtype_of(v) for v in ops) + (None,))
    except (TypeError, ValueError) as e:
        if name in ("equal", "not_equal"):  # NumPy 2: values of unrelated types are unequal
            return _fnp().full(shape, name == "not_equal", bool)
        raise TypeError(f"nabla.numpy.{name}: cannot apply to {_describe(ops)}: {e}") from None
    xs, nat = [], None
    for v, t in zip(ops, loop):
        if isinstance(v, DatetimeArray):
            xs.append(convert(v.ticks, v.dtype, t) if t.kind in "Mm" else v.ticks)
            nat = v.ticks == NAT if nat is None else nat | (v.ticks == NAT)
        else:  # numbers: weak Python scalars stay, arrays take the loop's dtype (ticks for a duration)
            xs.append(D.cast(v, _np.dtype(_np.int64) if t.kind in "Mm" else t))
    r, made = _kernel(name, xs, loop)
    if name not in _KEEP_NAT:
        nat = nat if made is None else made if nat is None else nat | made
    result = _finish(r, nat, loop[-1], name)
    target = into if into is not None else getattr(out, "dtype", None)
    if target is not None and not _np.can_cast(loop[-1], target, casting):
        raise TypeError(f"nabla.numpy.{name}: cannot cast the result from {loop[-1]} to {target} with "
                        f"casting rule {casting!r}")
    if out is not None:
        out = out[0] if isinstance(out, tuple) else out
        out[...] = result
        return out
    return result


def _finish(r, nat, dtype: _np.dtype, name: str):
    fnp = _fnp()
    if name in _KEEP_NAT or nat is None:
        return DatetimeArray(r, dtype) if dtype.kind in "Mm" else r
    if dtype.kind in "Mm":
        return DatetimeArray(fnp.where(nat, NAT, r), dtype)
    fill = {"b": name == "not_equal", "f": math.nan}.get(dtype.kind, 0)  # NumPy: NaT // td is 0
    return fnp.where(nat, fill, r)


def isnat(x, /):
    """``numpy.isnat``: True where ``x`` is NaT."""
    if isinstance(x, DatetimeArray):
        return x.ticks == NAT
    if isinstance(x, (_np.ndarray, _np.generic)) and x.dtype.kind in "Mm":
        return _np.isnat(x)
    raise TypeError(f"nabla.numpy.isnat: only defined for datetime64 and timedelta64, got {_describe([x])}")


def datetime_as_string(arr, unit=None, timezone="naive", casting="same_kind"):
    """NumPy's ``datetime_as_string``: strings are host data, so the dates are read back."""
    host = arr.numpy() if isinstance(arr, DatetimeArray) else arr
    return _np.datetime_as_string(host, unit, timezone, casting)


# --- functions -----------------------------------------------------------------------------------------
def _key(ticks):
    """Ticks ordered as NumPy sorts dates: ``t - 1`` wraps NaT (int64's minimum) round to int64's
    maximum and keeps the order of every other value; ``+ 1`` undoes it."""
    return ticks - 1


def _no_extras(op: str, **given):
    bad = [k for k, v in given.items() if v is not None and v is not True]
    if bad:
        raise TypeError(f"nabla.numpy.{op}: {', '.join(bad)} not supported with dates")


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    a = as_dates(a, op="sort")
    return DatetimeArray(_fnp().sort(_key(a.ticks), axis, kind, order, stable=stable) + 1, a.dtype)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    return _fnp().argsort(_key(as_dates(a, op="argsort").ticks), axis, kind, order, stable=stable)


def searchsorted(a, v, side="left", sorter=None):
    a, v = as_dates(a, op="searchsorted"), as_dates(v, op="searchsorted")
    common = _common(a, v, op="searchsorted")
    return _fnp().searchsorted(_key(convert(a.ticks, a.dtype, common)), _key(convert(v.ticks, v.dtype, common)),
                               side, sorter)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=True):  # noqa: A001
    _no_extras("min", out=out, initial=initial, where=where)
    a = as_dates(a, op="min")
    return DatetimeArray(_fnp().min(a.ticks, axis, keepdims=keepdims), a.dtype)  # NaT is the least: it wins


def max(a, axis=None, out=None, keepdims=False, initial=None, where=True):  # noqa: A001
    _no_extras("max", out=out, initial=initial, where=where)
    a = as_dates(a, op="max")
    fnp = _fnp()
    nat = fnp.any(a.ticks == NAT, axis, keepdims=keepdims)
    return DatetimeArray(fnp.where(nat, NAT, fnp.max(a.ticks, axis, keepdims=keepdims)), a.dtype)


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    _no_extras("nanmin", out=out, initial=initial, where=where)
    a, fnp = as_dates(a, op="nanmin"), _fnp()
    nat = a.ticks == NAT
    least = fnp.min(fnp.where(nat, _MAX, a.ticks), axis, keepdims=keepdims)
    return DatetimeArray(fnp.where(fnp.all(nat, axis, keepdims=keepdims), NAT, least), a.dtype)


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=True):
    _no_extras("nanmax", out=out, initial=initial, where=where)
    a = as_dates(a, op="nanmax")
    return DatetimeArray(_fnp().max(a.ticks, axis, keepdims=keepdims), a.dtype)  # NaT only when all are


def argmin(a, axis=None, out=None, *, keepdims=False):
    _no_extras("argmin", out=out)
    return _fnp().argmin(as_dates(a, op="argmin").ticks, axis, keepdims=keepdims)  # the first NaT, as NumPy


def argmax(a, axis=None, out=None, *, keepdims=False):
    _no_extras("argmax", out=out)
    fnp, ticks = _fnp(), as_dates(a, op="argmax").ticks
    nat = ticks == NAT
    return fnp.where(fnp.any(nat, axis, keepdims=keepdims), fnp.argmax(nat, axis, keepdims=keepdims),
                     fnp.argmax(ticks, axis, keepdims=keepdims))


def ptp(a, axis=None, out=None, keepdims=False):
    _no_extras("ptp", out=out)
    return apply("subtract", (max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims)))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           sorted=True):  # noqa: A002
    a = as_dates(ar, op="unique")
    r = _fnp().unique(_key(a.ticks), return_index, return_inverse, return_counts, axis, equal_nan=equal_nan,
                      sorted=sorted)
    if isinstance(r, Tensor):
        return DatetimeArray(r + 1, a.dtype)
    items = [DatetimeArray(r[0] + 1, a.dtype), *r[1:]]
    return type(r)._make(items) if hasattr(type(r), "_make") else type(r)(items)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    a = as_dates(a, op="diff")
    axis = axis % builtins.max(a.ndim, 1)
    ends = []
    for side, v in (("prepend", prepend), ("append", append)):
        if v is not None:
            v = as_dates(v, op="diff")
            shape = a.shape[:axis] + (1,) + a.shape[axis + 1:]
            ends.append(v if v.ndim else DatetimeArray(_fnp().broadcast_to(v.ticks, shape), v.dtype))
        else:
            ends.append(None)
    if ends[0] is not None or ends[1] is not None:
        a = _joining("concatenate")([e for e in (ends[0], a, ends[1]) if e is not None], axis)
    lead = (slice(None),) * axis
    for _ in range(n):
        a = apply("subtract", (a[lead + (slice(1, None),)], a[lead + (slice(None, -1),)]))
    return a


def _common(*parts, op: str) -> _np.dtype:
    try:
        return _np.result_type(*(p.dtype for p in parts))
    except TypeError as e:
        raise TypeError(f"nabla.numpy.{op}: no common dtype for {_describe(parts)}: {e}") from None


def where(condition, x=None, y=None):
    if x is None or y is None:
        raise TypeError("nabla.numpy.where: dates need both x and y (the one-argument form is nonzero)")
    x, y = as_dates(x, op="where"), as_dates(y, op="where")
    common = _common(x, y, op="where")
    cond = D.asarray(condition, op="where")
    return DatetimeArray(_fnp().where(cond, convert(x.ticks, x.dtype, common), convert(y.ticks, y.dtype, common)),
                         common)


def _joining(name: str):
    """A function joining a sequence of arrays (``concatenate``, ``stack``, ...): in their common unit."""
    def join(arrays, *args, out=None, dtype=None, **kwargs):
        _no_extras(name, out=out)
        kwargs.pop("casting", None)
        parts = [as_dates(p, op=name) for p in arrays]
        common = dates_dtype(dtype) or _common(*parts, op=name)
        ticks = [convert(p.ticks, p.dtype, common) for p in parts]
        return DatetimeArray(getattr(_fnp(), name)(ticks, *args, **kwargs), common)
    join.__name__ = name
    return join


def append(arr, values, axis=None):
    arr, values = as_dates(arr, op="append"), as_dates(values, op="append")
    if axis is None:
        arr, values, axis = arr.reshape(-1), values.reshape(-1), 0
    return _joining("concatenate")([arr, values], axis)


def array_equal(a1, a2, equal_nan=False):
    a1, a2 = as_dates(a1, op="array_equal"), as_dates(a2, op="array_equal")
    if a1.shape != a2.shape:
        return False
    same = apply("equal", (a1, a2))
    if equal_nan:
        same = same | ((a1.ticks == NAT) & (a2.ticks == NAT))
    return builtins.bool(_fnp().all(same))


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Membership by value in the common unit; NaT is in nothing (it equals nothing)."""
    a, b = as_dates(element, op="isin"), as_dates(test_elements, op="isin")
    common = _common(a, b, op="isin")
    fnp = _fnp()
    found = fnp.isin(convert(a.ticks, a.dtype, common), convert(b.ticks, b.dtype, common), assume_unique) & \
        (a.ticks != NAT)
    return ~found if invert else found


def _durations(a, op: str) -> DatetimeArray:
    a = as_dates(a, op=op)
    if a.dtype.kind != "m":
        raise TypeError(f"nabla.numpy.{op}: dates cannot be added together (got {a.dtype} of shape {a.shape}); "
                        "subtract a date first to get durations")
    return a


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):  # noqa: A001
    _no_extras("sum", dtype=dtype, out=out, initial=initial, where=where)
    a, fnp = _durations(a, "sum"), _fnp()
    nat = fnp.any(a.ticks == NAT, axis, keepdims=keepdims)
    return DatetimeArray(fnp.where(nat, NAT, fnp.sum(a.ticks, axis, keepdims=keepdims)), a.dtype)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """The sum divided by the count as NumPy divides durations by integers (toward zero)."""
    _no_extras("mean", dtype=dtype, out=out, where=where)
    a = _durations(a, "mean")
    total = sum(a, axis, keepdims=keepdims)
    count = a.size // builtins.max(total.size, 1)
    return apply("divide", (total, count))


def cumsum(a, axis=None, dtype=None, out=None):
    _no_extras("cumsum", dtype=dtype, out=out)
    a, fnp = _durations(a, "cumsum"), _fnp()
    after_nat = fnp.cumsum(a.ticks == NAT, axis) > 0  # NaT from the first one on
    return DatetimeArray(fnp.where(after_nat, NAT, fnp.cumsum(a.ticks, axis)), a.dtype)


def _structural(name: str):
    """A function that moves, picks or copies elements (``reshape``, ``take``, ``split``, ...): the
    ticks', with the unit carried along."""
    def f(*args, **kwargs):
        owners = [v for v in args if isinstance(v, DatetimeArray)]
        if len({o.dtype for o in owners}) != 1:
            raise TypeError(f"nabla.numpy.{name}: one date array expected, got {_describe(owners)}")
        r = getattr(_fnp(), name)(*(v.ticks if isinstance(v, DatetimeArray) else v for v in args), **kwargs)
        dtype = owners[0].dtype
        if isinstance(r, Tensor):
            return DatetimeArray(r, dtype)
        return type(r)(DatetimeArray(t, dtype) for t in r)
    f.__name__ = name
    return f


_STRUCTURAL = ("reshape", "ravel", "transpose", "swapaxes", "moveaxis", "rollaxis", "squeeze", "expand_dims",
               "flip", "fliplr", "flipud", "rot90", "roll", "broadcast_to", "atleast_1d", "atleast_2d",
               "atleast_3d", "tile", "repeat", "take", "take_along_axis", "compress", "extract", "copy",
               "diagonal", "split", "array_split", "hsplit", "vsplit", "dsplit", "delete", "resize")


def _functions() -> dict:
    table = {name: _structural(name) for name in _STRUCTURAL}
    table.update({name: _joining(name) for name in ("concatenate", "stack", "hstack", "vstack", "dstack",
                                                    "column_stack")})
    table.update({
        "sort": sort, "argsort": argsort, "searchsorted": searchsorted, "min": min, "amin": min, "max": max,
        "amax": max, "nanmin": nanmin, "nanmax": nanmax, "argmin": argmin, "argmax": argmax, "ptp": ptp,
        "unique": unique, "diff": diff, "where": where, "append": append, "array_equal": array_equal,
        "sum": sum, "mean": mean, "cumsum": cumsum, "isin": isin,
        "count_nonzero": lambda a, axis=None, *, keepdims=False: _fnp().count_nonzero(
            as_dates(a).ticks, axis, keepdims=keepdims),
        "array": _dates.array, "asarray": _dates.asarray, "asanyarray": _dates.asarray,
        "ascontiguousarray": _dates.asarray, "zeros_like": _dates.zeros_like, "ones_like": _dates.ones_like,
        "empty_like": _dates.empty_like, "full_like": _dates.full_like, "full": _dates.full,
        "arange": _dates.arange,
        "astype": lambda x, dtype, /, *, copy=True, device=None: as_dates(x).astype(dtype, copy=copy),
        "flatten": lambda a, order="C": DatetimeArray(a.ticks.flatten(order), a.dtype),
        "shape": lambda a: a.shape, "ndim": lambda a: a.ndim,
        "size": lambda a, axis=None: a.size if axis is None else a.shape[axis],
        "result_type": lambda *ts: _np.result_type(*(t.dtype if isinstance(t, DatetimeArray) else t for t in ts)),
        "isscalar": lambda a: a.ndim == 0, "iscomplexobj": lambda a: False, "isrealobj": lambda a: True,
        "isnat": isnat, "datetime_as_string": datetime_as_string, "busday_count": busday_count,
        "busday_offset": busday_offset, "is_busday": is_busday,
    })
    return table


_FUNCTIONS = _functions()


def function(name: str, owner: DatetimeArray):
    """The implementation of the face's function ``name`` for date arguments."""
    fn = _FUNCTIONS.get(name)
    if fn is None:
        raise TypeError(f"nabla.numpy.{name}: not supported for {owner.dtype} arrays (shape {owner.shape}); "
                        "dates and durations take arithmetic, comparisons, sorting, min/max, unique, diff, "
                        "where, joining and reshaping (see docs/numpy.md, Dates and times)")
    return fn


def _bind() -> None:
    """Give ``DatetimeArray`` its methods, operators and NumPy's ufunc protocol: this module's
    functions (``_datetime.py`` sits below this module)."""

    def sort_in_place(self, axis=-1, kind=None, order=None, *, stable=None):
        self[...] = sort(self, axis, kind, order, stable=stable)

    def array_ufunc(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__":
            return NotImplemented
        return apply(ufunc.__name__, inputs, kwargs)

    def nabla_array_function(self, face_fn, args, kwargs):
        """The face's functions (``nabla.numpy.sort(d)``) with a date argument: this module's."""
        return function(face_fn.__name__, self)(*args, **kwargs)

    DatetimeArray.sort = sort_in_place
    DatetimeArray.__array_ufunc__ = array_ufunc
    DatetimeArray.__nabla_array_function__ = nabla_array_function

    def binary(name):
        return lambda self, other: apply(name, (self, other))

    def reflected(name):
        return lambda self, other: apply(name, (other, self))

    def inplace(name):
        def op(self, other):
            self[...] = apply(name, (self, other), {"casting": "same_kind", "into": self.dtype})
            return self
        return op

    for py, name in {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
                     "floordiv": "floor_divide", "mod": "remainder"}.items():
        setattr(DatetimeArray, f"__{py}__", binary(name))
        setattr(DatetimeArray, f"__r{py}__", reflected(name))
        setattr(DatetimeArray, f"__i{py}__", inplace(name))
    for py, name in {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
                     "ge": "greater_equal"}.items():
        setattr(DatetimeArray, f"__{py}__", binary(name))
    for py, name in {"neg": "negative", "pos": "positive", "abs": "absolute"}.items():
        setattr(DatetimeArray, f"__{py}__", (lambda n: lambda self: apply(n, (self,)))(name))
    DatetimeArray.__divmod__ = lambda self, other: (self // other, self % other)

    def method(name):
        def m(self, *args, **kwargs):
            return function(name, self)(self, *args, **kwargs)
        m.__name__ = name
        return m

    for name in ("min", "max", "argmin", "argmax", "ptp", "argsort", "searchsorted", "ravel", "flatten",
                 "squeeze", "swapaxes", "repeat", "take", "diagonal", "sum", "mean", "cumsum"):
        setattr(DatetimeArray, name, method(name))


_bind()
