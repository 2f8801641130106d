"""Dates and durations: ``datetime64`` and ``timedelta64`` arrays of the face.

A ``DatetimeArray`` is an int64 array on MAX (``ticks``: counts of the unit since 1970-01-01, or of the
duration) and NumPy's dtype, which carries the unit (``datetime64[D]``, ``timedelta64[ms]``, ...). NaT is
int64's minimum, as in NumPy. NumPy parses strings and reads the values at the host boundary; every
operation (unit conversions, arithmetic, calendars, sorting) is an integer op on the ticks. The ufuncs and
functions on these arrays, and the methods and operators that are those functions, are in ``_datetime_ops.py``
(which binds them); the creation functions are here.
"""

from __future__ import annotations

import builtins
import datetime as _pydt
from fractions import Fraction

import numpy as _np

from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops import aliasing
from . import _arrays as A
from . import _dtypes as D
from ._items import FaceItems
from ._items import face as _fnp
from ._ndarray import wrap

NAT = int(_np.iinfo(_np.int64).min)
_I64 = _np.dtype(_np.int64)

# length of each unit in seconds: years and months are NumPy's average ones (400 Gregorian years are
# 146097 days), which NumPy uses to cast timedeltas; dates in years and months go through the calendar
_SECONDS = {"Y": Fraction(146097 * 86400, 400), "M": Fraction(146097 * 86400, 4800), "W": Fraction(604800),
            "D": Fraction(86400), "h": Fraction(3600), "m": Fraction(60), "s": Fraction(1),
            "ms": Fraction(1, 10**3), "us": Fraction(1, 10**6), "ns": Fraction(1, 10**9),
            "ps": Fraction(1, 10**12), "fs": Fraction(1, 10**15), "as": Fraction(1, 10**18)}


def dates_dtype(dtype_like):
    """NumPy's datetime64/timedelta64 dtype that ``dtype_like`` names, else None."""
    if dtype_like is None or isinstance(dtype_like, _dt.DType):
        return None
    if isinstance(dtype_like, str) and not dtype_like.lstrip("<>=").startswith(("M", "m", "datetime", "timedelta")):
        return None  # the common spellings ('float32', 'i8') skip NumPy's parser
    try:
        d = _np.dtype(dtype_like)
    except TypeError:
        return None
    return d if d.kind in "Mm" else None


def is_dates(v) -> bool:
    """Whether ``v`` holds dates or durations: a DatetimeArray, NumPy's datetime arrays and scalars,
    Python's ``date``/``datetime``/``timedelta``, or a list whose first element is one."""
    while isinstance(v, (list, tuple)) and v:
        v = v[0]
    if isinstance(v, DatetimeArray):
        return True
    if isinstance(v, (_np.ndarray, _np.generic)):
        return v.dtype.kind in "Mm"
    return isinstance(v, (_pydt.date, _pydt.timedelta))


# --- units ---------------------------------------------------------------------------------------------
def _ratio(src: _np.dtype, dst: _np.dtype) -> Fraction:
    (su, sc), (du, dc) = _np.datetime_data(src), _np.datetime_data(dst)
    return _SECONDS[su] * sc / (_SECONDS[du] * dc)


def _scale(ticks, r: Fraction):
    """``floor(ticks * r)`` in integers (NumPy's casts between units floor, as for dates before 1970)."""
    if r.numerator != 1:
        ticks = ticks * r.numerator
    return ticks // r.denominator if r.denominator != 1 else ticks


def _days_from_months(months):
    """Day number (since 1970-01-01) of the first day of each month counted from 1970-01.
    The civil-calendar algorithm of H. Hinnant (``days_from_civil``), in floor-dividing integer ops."""
    y = months // 12 + 1970
    m = months % 12 + 1
    y = y - (m <= 2)  # the year starts in March: February's leap day comes last
    era = y // 400
    yoe = y - era * 400
    doy = (153 * ((m + 9) % 12) + 2) // 5
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _months_from_days(days):
    """Months since 1970-01 of each day number: Hinnant's ``civil_from_days``, year and month only."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153  # months since March
    return (yoe + era * 400 - 1970) * 12 + mp + 2


def convert(ticks, src: _np.dtype, dst: _np.dtype):
    """``ticks`` of ``src``'s unit as ticks of ``dst``'s, NaT kept: an integer scale between linear
    units (and between years and months); dates in years or months and finer units meet in days."""
    su, du = _np.datetime_data(src)[0], _np.datetime_data(dst)[0]
    if su == "generic" or _np.datetime_data(src) == _np.datetime_data(dst):
        return ticks
    if du == "generic":
        raise TypeError(f"nabla.numpy: cannot convert {src} to {dst}: the target has no unit")
    fnp = _fnp()
    calendar = src.kind == "M" and (su in ("Y", "M")) != (du in ("Y", "M"))
    if not calendar:
        out = _scale(ticks, _ratio(src, dst))
    elif su in ("Y", "M"):
        days = _days_from_months(_scale(ticks, _ratio(src, _np.dtype("m8[M]"))))
        out = _scale(days, _ratio(_np.dtype("m8[D]"), dst))
    else:
        months = _months_from_days(_scale(ticks, _ratio(src, _np.dtype("m8[D]"))))
        out = _scale(months, _ratio(_np.dtype("m8[M]"), dst))
    return fnp.where(ticks == NAT, NAT, out)


# --- the array -----------------------------------------------------------------------------------------
class DatetimeArray(FaceItems):
    """An array of dates (``datetime64``) or durations (``timedelta64``): int64 ticks on MAX and NumPy's
    dtype. Indexing, views and writes are the ticks'; arithmetic follows NumPy's unit rules (its
    operators and the methods that are face functions are bound in ``_datetime_ops._bind``)."""

    __slots__ = ("ticks", "dtype", "__weakref__")
    __array_priority__ = 200  # NumPy's arrays and scalars defer their operators to ours
    __nabla_dates__ = True  # the face's functions hand calls with one of these to ``_datetime_ops``

    def __init__(self, ticks, dtype):
        self.ticks = wrap(ticks)
        self.dtype = _np.dtype(dtype)

    # --- metadata ----------------------------------------------------------------------------------
    shape = property(lambda self: self.ticks.shape)
    ndim = property(lambda self: self.ticks.ndim)
    size = property(lambda self: self.ticks.size)
    itemsize = property(lambda self: 8)
    nbytes = property(lambda self: 8 * self.ticks.size)
    T = property(lambda self: DatetimeArray(self.ticks.T, self.dtype))

    def __len__(self):
        return len(self.ticks)

    # --- host boundary -----------------------------------------------------------------------------
    def numpy(self) -> _np.ndarray:
        """NumPy's datetime64/timedelta64 array of these values (read-only, as ``Tensor.numpy``)."""
        return self.ticks.numpy().view(self.dtype)

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy() if copy is False else _np.array(self.numpy())
        return arr if dtype is None else arr.astype(dtype)

    def __bool__(self):
        return bool(self.ticks)

    # --- indexing: the ticks' (views and writes included) -------------------------------------------
    def __getitem__(self, index):
        return DatetimeArray(self.ticks[index], self.dtype)

    def __setitem__(self, index, value):
        aliasing.setitem(self.ticks, index, as_dates(value, self.dtype, "setitem").ticks)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self)))

    def fill(self, value):
        self[...] = value

    def copy(self, order="C"):
        return DatetimeArray(self.ticks.copy(), self.dtype)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        """NumPy's casts: to another unit (converted on MAX), to numbers (the ticks; NaT is int64's
        minimum), to bool (nonzero), to strings (on the host, where strings live)."""
        target = _np.dtype(dtype)
        if not _np.can_cast(self.dtype, target, casting):
            raise TypeError(f"nabla.numpy.astype: cannot cast {self.dtype} to {target} under casting={casting!r}")
        if target.kind in "Mm":
            if target == self.dtype:
                return self.copy() if copy else self
            if target.kind != self.dtype.kind:  # dates <-> durations: NumPy relabels the ticks as they are
                return DatetimeArray(self.ticks.copy(), target)
            return DatetimeArray(convert(self.ticks, self.dtype, target), target)
        if target.kind in "USO":
            return self.numpy().astype(target)
        return self.ticks.astype(target)

    def view(self, dtype=None, type=None):  # noqa: A002
        """The same ticks seen as another date unit, or as numbers (``view('int64')``); writes reach both."""
        target = self.dtype if dtype is None or isinstance(dtype, builtins.type) and \
            issubclass(dtype, (_np.ndarray, Tensor)) else _np.dtype(dtype)
        ticks = self.ticks.view()
        return DatetimeArray(ticks, target) if target.kind in "Mm" else ticks.view(target)

    def reshape(self, *shape, order="C"):
        return DatetimeArray(self.ticks.reshape(*shape, order=order), self.dtype)

    def transpose(self, *axes):
        return DatetimeArray(self.ticks.transpose(*axes), self.dtype)

    __hash__ = object.__hash__  # by identity, as the face's ndarray


# --- the host boundary: values -> DatetimeArray ----------------------------------------------------------
def from_host(arr: _np.ndarray) -> DatetimeArray:
    """NumPy's datetime64/timedelta64 array as a DatetimeArray (its ticks copied to the device)."""
    arr = _np.array(arr, copy=None, order="C")  # 0-d stays 0-d (``ascontiguousarray`` gives 1-d)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return DatetimeArray(D.asarray(arr.view(_np.int64)), arr.dtype)


def from_numbers(x, dtype: _np.dtype) -> DatetimeArray:
    """Numbers as ticks of ``dtype`` (``arange(3).astype('datetime64[D]')``): floats are truncated and
    NaN becomes NaT, as NumPy's casts do."""
    x = D.asarray(x)
    if x.dtype.is_floating:
        return DatetimeArray(_fnp().where(_fnp().isnan(x), NAT, x.astype(_np.int64)), dtype)
    if x.dtype.is_complex:
        raise TypeError(f"nabla.numpy.astype: cannot cast {x.dtype} to {dtype}")
    return DatetimeArray(x.astype(_np.int64), dtype)


def as_dates(v, dtype=None, op: str = "asarray") -> DatetimeArray:
    """``v`` as a DatetimeArray (converted to ``dtype`` when given): date arrays pass, face arrays of
    numbers are ticks, host values (strings, NumPy's and Python's dates, lists) are parsed by NumPy."""
    if isinstance(v, DatetimeArray):
        return v if dtype is None or v.dtype == dtype else v.astype(dtype)
    if isinstance(v, Tensor):
        if dtype is None:
            raise TypeError(f"nabla.numpy.{op}: expected dates or durations, got an array of {v.dtype}")
        return from_numbers(v, dtype)
    if isinstance(v, (list, tuple)) and any(isinstance(e, (DatetimeArray, Tensor)) for e in v):
        return _fnp().stack([as_dates(e, dtype, op) for e in v])
    try:
        arr = _np.asarray(v) if dtype is None else _np.asarray(v).astype(dtype)
        if arr.dtype == object and is_dates(v):  # Python's dates: NumPy keeps them as objects unless asked
            arr = arr.astype("m8" if isinstance(arr.flat[0], _pydt.timedelta) else "M8")
    except (TypeError, ValueError) as e:
        raise type(e)(f"nabla.numpy.{op}: cannot read {v!r} as {dtype or 'dates'}: {e}") from None
    if arr.dtype.kind not in "Mm":
        raise TypeError(f"nabla.numpy.{op}: expected dates or durations, got {arr.dtype} data")
    return from_host(arr)


# --- creation: the face's functions, taking datetime dtypes and values -------------------------------------
array, asarray = D.kind_creation(dates_dtype, is_dates, as_dates, A)
asanyarray = ascontiguousarray = asarray


def _filled(name, value):
    def create(shape, dtype=None, *args, **kwargs):
        dd = dates_dtype(dtype)
        if dd is None:
            return getattr(A, name)(shape, dtype, *args, **kwargs)
        return DatetimeArray(A.full(shape, value, _np.int64), dd)
    create.__name__ = create.__qualname__ = name
    create.__doc__ = f"NumPy's ``{name}``; with a datetime64/timedelta64 dtype, ticks of {value}"
    return create


zeros, ones, empty = _filled("zeros", 0), _filled("ones", 1), _filled("empty", 0)


def full(shape, fill_value, dtype=None, *args, **kwargs):
    dd = dates_dtype(dtype)
    if dd is None and not is_dates(fill_value):
        return A.full(shape, fill_value, dtype, *args, **kwargs)
    fill = as_dates(fill_value, dd, "full")
    if dd is not None and _np.datetime_data(dd)[0] == "generic":
        dd = None  # NumPy keeps the fill's unit
    fnp = _fnp()
    ticks = fnp.broadcast_to(fill.ticks, A._shape(shape)).copy()
    return DatetimeArray(ticks, fill.dtype if dd is None else dd)


def _like_target(a, dtype):
    """The dtype of a ``*_like`` result when dates are involved (in ``a`` or ``dtype``), else None."""
    dd = dates_dtype(dtype)
    if dd is not None or dtype is not None or not is_dates(a):
        return dd
    return a.dtype if isinstance(a, DatetimeArray) else _np.asarray(a).dtype


def _numbers(a):
    return a.ticks if isinstance(a, DatetimeArray) else _np.asarray(a).view(_np.int64) if is_dates(a) else a


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    target = _like_target(a, dtype)
    if target is None:
        return A.zeros_like(_numbers(a), dtype, order, subok, shape, device=device)
    return zeros(_np.shape(a) if shape is None else shape, target)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    target = _like_target(a, dtype)
    if target is None:
        return A.ones_like(_numbers(a), dtype, order, subok, shape, device=device)
    return ones(_np.shape(a) if shape is None else shape, target)


def empty_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    target = _like_target(a, dtype)
    if target is None:
        return A.empty_like(_numbers(a), dtype, order, subok, shape, device=device)
    return empty(_np.shape(a) if shape is None else shape, target)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    target = _like_target(a, dtype)
    if target is None:
        return A.full_like(_numbers(a), fill_value, dtype, order, subok, shape, device=device)
    return full(_np.shape(a) if shape is None else shape, fill_value, target)


def arange(start, stop=None, step=None, dtype=None, *args, **kwargs):
    """NumPy's ``arange``; with dates (``arange('2016-07', '2016-08', dtype='datetime64[D]')``) the
    endpoints are read on the host and the positions are an integer ``arange`` on MAX."""
    dd = dates_dtype(dtype)
    if dd is None and not builtins.any(is_dates(v) for v in (start, stop, step)):
        return A.arange(start, stop, step, dtype, *args, **kwargs)
    ends = [v for v in (start, stop) if v is not None]
    parsed = [_host_scalar(v, dd) for v in ends + ([step] if step is not None else [])]
    kinds = [p.dtype for p in parsed if p.dtype.kind in "Mm"]
    target = dd if dd is not None and _np.datetime_data(dd)[0] != "generic" else \
        _np.result_type(*kinds, *([dd] if dd is not None else []))
    if target.kind == "M" and stop is None:
        raise ValueError("nabla.numpy.arange: dates need both start and stop")
    delta = _np.dtype(f"m8[{_np.datetime_data(target)[0]}]")
    n_ends = len(ends)
    ticks = [_tick(p, target if i < n_ends and target.kind == "M" else delta, "arange")
             for i, p in enumerate(parsed)]
    if NAT in ticks:
        raise ValueError("nabla.numpy.arange: cannot use NaT (not-a-time) as an endpoint or step")
    if step is None:
        ticks.append(1)
    if stop is None:
        ticks = [0] + ticks
    positions = A.arange(ticks[0], ticks[1], ticks[2], _np.int64, *args, **kwargs)
    return DatetimeArray(positions, target)


def _host_scalar(v, dd):
    """An endpoint of ``arange`` as a NumPy scalar: strings parsed, numbers kept as numbers."""
    if isinstance(v, DatetimeArray):
        return v.numpy()[()]
    if isinstance(v, str):
        return _np.datetime64(v) if dd is None or dd.kind == "M" else _np.timedelta64(int(v))
    if isinstance(v, _pydt.datetime) or isinstance(v, _pydt.date):
        return _np.datetime64(v)
    if isinstance(v, _pydt.timedelta):
        return _np.timedelta64(v)
    return _np.asarray(v)[()]


def _tick(p, dtype: _np.dtype, op: str) -> int:
    """A host scalar as a tick count of ``dtype`` (numbers are ticks already)."""
    if p.dtype.kind not in "Mm":
        return int(p)
    if p.dtype.kind == "M" and dtype.kind == "m":
        raise TypeError(f"nabla.numpy.{op}: a step must be a duration, got {p.dtype}")
    return int(_np.asarray(p).astype(dtype).view(_np.int64))


