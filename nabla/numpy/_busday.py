"""Business days: ``busdaycalendar``, ``is_busday``, ``busday_count`` and ``busday_offset``, as NumPy's.

A calendar is a weekmask (seven bools, Monday first) and a sorted list of holidays that fall on weekmask
days. The host parses both into small tables; the dates are int64 day numbers on MAX (``_datetime.py``)
and every per-date step is an integer op there. 1970-01-01 was a Thursday, so ``x = day + 3`` counts days
from the Monday 1969-12-29: ``x // 7`` is the week and ``x % 7`` the weekday (Monday is 0).

The rank of a day is the number of business days before it (from that Monday; negative before it):
whole weeks times the weekmask's count, plus a gather from the weekmask's cumulative counts (8 entries),
minus the holidays before the day (``searchsorted``). A count is a difference of ranks; an offset moves
the rank and maps it back to a day, skipping the holidays by a ``searchsorted`` on their own ranks.
"""

from __future__ import annotations

import numpy as _np

from ..core.tensor import Tensor
from ._datetime import NAT, DatetimeArray, convert, from_host
from . import _datetime as _dates

_D = _np.dtype("M8[D]")
_I64 = _np.dtype(_np.int64)
_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_FORWARD, _BACKWARD = ("forward", "following"), ("backward", "preceding")
_ROLLS = ("raise", "nat", *_FORWARD, *_BACKWARD, "modifiedfollowing", "modifiedpreceding")


def _fnp():
    import nabla.numpy as fnp  # lazy: nabla.numpy imports this module

    return fnp


class _Unset:
    """The default of an argument that NumPy tells apart from any value passed (``holidays=None`` is an
    error, and ``busdaycal`` refuses an explicit ``weekmask='1111100'``)."""
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self):
        return self.text


_WEEKMASK, _HOLIDAYS, _NO_CAL = _Unset("'1111100'"), _Unset("None"), _Unset("None")


# --- the host boundary: weekmasks, holidays, dates and offsets -----------------------------------------
def _weekmask(mask) -> _np.ndarray:
    """Seven host bools from ``"1111100"``, ``"Mon Tue Wed"`` (names in any order, whitespace optional)
    or a sequence of seven truth values. An all-False mask is checked by the caller (its message differs)."""
    if isinstance(mask, bytes):
        mask = mask.decode("ascii", "replace")
    if isinstance(mask, str):
        out = _np.zeros(7, bool)
        if len(mask) == 7 and mask[0] in "01":
            if set(mask) - set("01"):
                raise ValueError(f'Invalid business day weekmask string "{mask}"')
            return _np.array([c == "1" for c in mask])
        i = 0
        while i < len(mask):
            if mask[i].isspace():
                i += 1
                continue
            if mask[i:i + 3] not in _NAMES:
                raise ValueError(f'Invalid business day weekmask string "{mask}"')
            out[_NAMES.index(mask[i:i + 3])] = True
            i += 3
        return out
    try:
        out = _np.array(mask, dtype=bool)
    except (TypeError, ValueError):
        out = None
    if out is None or out.ndim == 0:
        raise ValueError("Couldn't convert object into a business day weekmask")
    if out.shape != (7,):
        raise ValueError("A business day weekmask array must have length 7")
    return out


def _holidays(holidays) -> Tensor:
    """The holidays as a 1-d int64 array of day numbers on MAX (unsorted, NaT kept)."""
    if isinstance(holidays, DatetimeArray):
        dtype, ticks, ndim = holidays.dtype, holidays.ticks, holidays.ndim
    elif isinstance(holidays, Tensor):
        dtype, ticks, ndim = holidays.dtype.numpy_dtype, None, holidays.ndim
    else:
        arr = holidays if isinstance(holidays, _np.ndarray) else _np.asarray(holidays, dtype="M8")
        dtype, ticks, ndim = arr.dtype, arr, arr.ndim
    if ndim != 1:
        raise ValueError("holidays must be a provided as a one-dimensional array")
    if dtype.kind != "M" or not _np.can_cast(dtype, _D, "safe"):
        raise ValueError("Cannot safely convert provided holidays input into an array of dates")
    if isinstance(ticks, _np.ndarray):
        return from_host(ticks.astype(_D)).ticks
    return convert(ticks, dtype, _D)


def _days(v, operand: int) -> Tensor:
    """Dates as int64 day numbers on MAX (NaT kept). Dates in coarser units (weeks, months, years) are
    converted; finer ones are NumPy's TypeError (no safe cast to days)."""
    if isinstance(v, DatetimeArray):
        dtype = v.dtype
    elif isinstance(v, Tensor):
        dtype = v.dtype.numpy_dtype
    else:
        # NumPy reads non-arrays as dates of their own unit: '2011-01-03T10:00' is minutes, 3 has none
        v = _np.asarray(v) if isinstance(v, (_np.ndarray, _np.generic)) else _np.asarray(v, dtype="M8")
        dtype = v.dtype
    if dtype.kind != "M" or not _np.can_cast(dtype, _D, "safe"):
        raise TypeError(f"Iterator operand {operand} dtype could not be cast from {dtype!r} to {_D!r} "
                        "according to the rule 'safe'")
    if isinstance(v, DatetimeArray):
        return convert(v.ticks, dtype, _D)
    return from_host(v.astype(_D)).ticks


def _offsets(v) -> Tensor:
    """Offsets as int64 on MAX: arrays must cast safely; other values convert as NumPy converts them."""
    fnp = _fnp()
    if isinstance(v, DatetimeArray):
        dtype = v.dtype
    elif isinstance(v, Tensor):
        dtype = v.dtype.numpy_dtype
    elif isinstance(v, (_np.ndarray, _np.generic)):
        v = _np.asarray(v)
        dtype = v.dtype
    else:
        return fnp.asarray(_np.asarray(v, dtype=_I64))
    if not _np.can_cast(dtype, _I64, "safe"):
        raise TypeError(f"Cannot cast array data from {dtype!r} to {_I64!r} according to the rule 'safe'")
    return fnp.asarray(v, dtype=_I64)


def _broadcast(op: str, *shapes) -> tuple:
    try:
        return _np.broadcast_shapes(*shapes)
    except ValueError:
        given = " ".join(str(s) for s in shapes)
        raise ValueError(f"nabla.numpy.{op}: operands could not be broadcast together with shapes {given}") \
            from None


def _write(result, out, op: str):
    """``out=``: NumPy's safe casting of the result into ``out``, broadcast to its shape."""
    if out is None:
        return result
    if isinstance(result, DatetimeArray):
        if not isinstance(out, DatetimeArray):
            raise TypeError(f"nabla.numpy.{op}: out must be a datetime64 array of nabla, got "
                            f"{getattr(out, 'dtype', type(out).__name__)}")
        if not _np.can_cast(result.dtype, out.dtype, "safe"):
            raise TypeError(f"nabla.numpy.{op}: cannot cast the result from {result.dtype} to the out array's "
                            f"{out.dtype} with casting rule 'safe'")
        if _broadcast(op, result.shape, out.shape) != out.shape:
            raise ValueError(f"nabla.numpy.{op}: result of shape {result.shape} does not fit out of shape "
                             f"{out.shape}")
        out[...] = DatetimeArray(_fnp().broadcast_to(result.ticks, out.shape), result.dtype)
        return out
    from ._ufuncs import write_out  # lazy: the ufuncs sit above this module

    if isinstance(out, DatetimeArray):
        raise TypeError(f"nabla.numpy.{op}: cannot write {result.dtype} results into {out.dtype} out")
    return write_out(out, result, op, casting="safe")


# --- the calendar --------------------------------------------------------------------------------------
class busdaycalendar:  # noqa: N801  (NumPy's name)
    """NumPy's ``busdaycalendar``: the valid days of the week and the holidays, kept normalized (sorted,
    unique, without NaT and without days the weekmask already excludes)."""

    __slots__ = ("_mask", "_holidays", "_tables")

    def __init__(self, weekmask="1111100", holidays=_HOLIDAYS):
        mask = _weekmask(weekmask)
        days = _holidays([] if holidays is _HOLIDAYS else holidays)
        if not mask.any():
            raise ValueError("Cannot construct a numpy.busdaycal with a weekmask of all zeros")
        self._set(mask, days)

    @classmethod
    def _make(cls, mask: _np.ndarray, days: Tensor) -> "busdaycalendar":
        cal = cls.__new__(cls)
        cal._set(mask, days)
        return cal

    def _set(self, mask: _np.ndarray, days: Tensor) -> None:
        fnp = _fnp()
        # (the host boundary: the weekmask is a parameter of seven truth values, parsed on the host
        # into the small tables the day arithmetic on MAX gathers from)
        cum = _np.concatenate([[0], _np.cumsum(mask)]).astype(_np.int64)  # business days before each weekday
        self._mask = mask.copy()
        self._tables = (int(cum[-1]), fnp.asarray(mask), fnp.asarray(cum),
                        fnp.asarray(_np.flatnonzero(mask).astype(_np.int64)))  # weekday of the k-th valid day
        self._holidays = None  # until the holidays are normalized, ranks count weekmask days only
        if days.size:
            safe = fnp.where(days == NAT, 0, days)
            valid = (days != NAT) & fnp.take(self._tables[1], (safe + 3) % 7)
            days = fnp.unique(days[valid])  # sorted; the device reads back only how many remain
        if days.size:  # a holiday's rank: its weekmask rank less the holidays before it (its index)
            self._holidays = (days, None)
            self._holidays = (days, self._rank(days))

    weekmask = property(lambda self: _fnp().asarray(self._mask.copy()),
                        doc="The valid days of the week, Monday first (7 bools).")
    holidays = property(lambda self: DatetimeArray(self._days().copy(), _D),
                        doc="The holidays on valid days, sorted and unique (datetime64[D]).")

    def _days(self) -> Tensor:
        return self._holidays[0] if self._holidays is not None else _fnp().asarray(_np.zeros(0, _np.int64))

    def __repr__(self):
        mask = "".join("1" if v else "0" for v in self._mask)
        return f"busdaycalendar(weekmask={mask!r}, holidays={self.holidays.numpy()})"

    # --- day arithmetic on MAX ------------------------------------------------------------------------
    def _rank(self, days: Tensor) -> Tensor:
        """Business days before each day, counted from Monday 1969-12-29."""
        fnp = _fnp()
        n, _, cum, _ = self._tables
        x = days + 3
        rank = (x // 7) * n + fnp.take(cum, x % 7)
        if self._holidays is not None:
            rank = rank - fnp.searchsorted(self._holidays[0], days, "left")
        return rank

    def _day(self, rank: Tensor) -> Tensor:
        """The business day with ``rank`` business days before it (the inverse of ``_rank`` on them)."""
        fnp = _fnp()
        n, _, _, weekday = self._tables
        if self._holidays is not None:  # each holiday whose rank is at most this one lies before the day
            rank = rank + fnp.searchsorted(self._holidays[1], rank, "right")
        return (rank // n) * 7 + fnp.take(weekday, rank % n) - 3

    def _is_busday(self, days: Tensor) -> Tensor:
        """Valid weekday and not a holiday (``days`` without NaT)."""
        fnp = _fnp()
        ok = fnp.take(self._tables[1], (days + 3) % 7)
        if self._holidays is not None:
            h = self._holidays[0]
            ok = ok & (fnp.searchsorted(h, days, "right") == fnp.searchsorted(h, days, "left"))
        return ok


def _calendar(op: str, position: int, weekmask, holidays, busdaycal) -> busdaycalendar:
    """The calendar of a call: ``busdaycal`` (NumPy's or ours), or the weekmask and holidays."""
    mask = None if weekmask is _WEEKMASK else _weekmask(weekmask)
    days = None if holidays is _HOLIDAYS else _holidays(holidays)
    if busdaycal is not _NO_CAL:
        if not isinstance(busdaycal, (busdaycalendar, _np.busdaycalendar)):
            raise TypeError(f"{op}() argument {position} must be numpy.busdaycalendar, not "
                            f"{type(busdaycal).__name__}")
        if mask is not None or days is not None:
            raise ValueError(f"Cannot supply both the weekmask/holidays and the busdaycal parameters to {op}()")
        if isinstance(busdaycal, busdaycalendar):
            return busdaycal
        return busdaycalendar._make(_np.array(busdaycal.weekmask), _holidays(busdaycal.holidays))
    mask = _weekmask("1111100") if mask is None else mask
    if not mask.any():
        raise ValueError("the business day weekmask must have at least one valid business day")
    return busdaycalendar._make(mask, _holidays([]) if days is None else days)


# --- the functions -------------------------------------------------------------------------------------
def is_busday(dates, weekmask=_WEEKMASK, holidays=_HOLIDAYS, busdaycal=_NO_CAL, out=None):
    """NumPy's ``is_busday``: whether each date is a valid day and not a holiday (NaT is not)."""
    cal = _calendar("is_busday", 4, weekmask, holidays, busdaycal)
    days = _days(dates, 0)
    nat = days == NAT
    result = cal._is_busday(_fnp().where(nat, 0, days)) & ~nat
    return _write(result, out, "is_busday")


def busday_count(begindates, enddates, weekmask=_WEEKMASK, holidays=_HOLIDAYS, busdaycal=_NO_CAL, out=None):
    """NumPy's ``busday_count``: the valid days in ``[begin, end)``; when ``end`` is before ``begin``,
    minus those in ``(end, begin]``."""
    cal = _calendar("busday_count", 5, weekmask, holidays, busdaycal)
    begin, end = _days(begindates, 0), _days(enddates, 1)
    _broadcast("busday_count", begin.shape, end.shape)
    fnp = _fnp()
    if bool(fnp.any(begin == NAT) | fnp.any(end == NAT)):  # one read back
        raise ValueError("Cannot compute a business day count with a NaT (not-a-time) date")
    # NumPy counts the days in (end, begin] when end is before begin: both ends one day later
    later = (end < begin).astype(_np.int64)
    return _write(cal._rank(end + later) - cal._rank(begin + later), out, "busday_count")


def busday_offset(dates, offsets, roll="raise", weekmask=_WEEKMASK, holidays=_HOLIDAYS, busdaycal=_NO_CAL,
                  out=None):
    """NumPy's ``busday_offset``: each date rolled to a valid day as ``roll`` says, then moved by
    ``offsets`` valid days (broadcast together)."""
    if not isinstance(roll, str):
        raise TypeError(f"busday_offset: roll must be a string, got {type(roll).__name__}")
    if roll not in _ROLLS:
        raise ValueError(f'Invalid business day roll parameter "{roll}"')
    cal = _calendar("busday_offset", 6, weekmask, holidays, busdaycal)
    days, steps = _days(dates, 0), _offsets(offsets)
    shape = _broadcast("busday_offset", days.shape, steps.shape)
    fnp = _fnp()
    nat = days == NAT
    safe = fnp.where(nat, 0, days)
    if roll in ("raise", "nat"):
        busy = cal._is_busday(safe)
        if roll == "raise":
            bad = nat | ~busy
            if bool(fnp.any(bad)):  # the first bad date decides the message, as NumPy's loop meets it
                first = int(fnp.argmax(bad.reshape(-1)))
                raise ValueError("NaT input in busday_offset" if bool(nat.reshape(-1)[first]) else
                                 "Non-business day date in busday_offset")
        else:
            nat = nat | ~busy
        rank = cal._rank(safe)
    else:
        # the first valid day on or after each date has its rank; the last one on or before it, one less
        # than the rank of the next day
        after, before = cal._rank(safe), cal._rank(safe + 1) - 1
        if roll in _FORWARD:
            rank = after
        elif roll in _BACKWARD:
            rank = before
        else:  # modified: the other way when the rolled day leaves the date's month
            near, far = (after, before) if roll == "modifiedfollowing" else (before, after)
            month = _dates._months_from_days(safe)
            rank = fnp.where(_dates._months_from_days(cal._day(near)) == month, near, far)
    result = fnp.where(nat, NAT, cal._day(rank + steps))
    if result.shape != shape:
        result = fnp.broadcast_to(result, shape)
    return _write(DatetimeArray(result, _D), out, "busday_offset")
