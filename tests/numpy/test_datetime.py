"""Dates and durations in ``nabla.numpy`` (datetime64/timedelta64 arrays on int64 ticks), against NumPy."""

from __future__ import annotations

import datetime

import numpy
import pytest

import nabla
import nabla.numpy as fnp
from nabla.numpy import DatetimeArray

NAT = numpy.iinfo(numpy.int64).min


def same(got, want):
    """Equal dtype and values (NaT included, compared as ticks)."""
    want = numpy.asarray(want)
    if isinstance(got, DatetimeArray):
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        assert got.shape == want.shape
        numpy.testing.assert_array_equal(got.numpy().view(numpy.int64), want.view(numpy.int64))
        return
    got = numpy.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    numpy.testing.assert_array_equal(got, want)


def dates(n, unit="D", nat=0.1, seed=0, span=60000):
    """``n`` dates of ``unit`` spread over about ``span`` days either side of 1970, NaT at rate ``nat``."""
    rng = numpy.random.default_rng(seed)
    per_day = numpy.timedelta64(1, "D") // numpy.timedelta64(1, unit) if unit not in "YM" else 1
    ticks = rng.integers(-span, span, n) * per_day + rng.integers(0, max(per_day, 1), n)
    if unit == "M":
        ticks = ticks // 30
    if unit == "Y":
        ticks = ticks // 365
    ticks[rng.random(n) < nat] = NAT
    return ticks.view(f"M8[{unit}]")


def durations(n, unit="s", nat=0.1, seed=1, span=10**6):
    rng = numpy.random.default_rng(seed)
    ticks = rng.integers(-span, span, n)
    ticks[rng.random(n) < nat] = NAT
    return ticks.view(f"m8[{unit}]")


# --- creation ---------------------------------------------------------------------------------------------
def test_the_brief_examples():
    got = fnp.arange("2016-07", "2016-08", dtype="datetime64[D]")
    same(got, numpy.arange("2016-07", "2016-08", dtype="datetime64[D]"))
    assert repr(got) == repr(numpy.arange("2016-07", "2016-08", dtype="datetime64[D]"))
    assert fnp.datetime64("today") - fnp.timedelta64(1, "D") == numpy.datetime64("today") - numpy.timedelta64(1, "D")


@pytest.mark.parametrize("unit", ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns"])
def test_array_from_strings_and_numpy(unit):
    text = ["2020-02-29", "NaT", "1969-12-31", "1600-03-01", "2400-12-31T23:59"]
    want = numpy.array(text, dtype=f"datetime64[{unit}]")
    same(fnp.array(text, dtype=f"datetime64[{unit}]"), want)
    same(fnp.asarray(want), want)
    host = numpy.asarray(fnp.asarray(want))
    assert type(host) is numpy.ndarray and host.dtype == want.dtype
    assert repr(fnp.asarray(want)) == repr(want)


def test_array_from_scalars_lists_and_numbers():
    vals = [numpy.datetime64("2020-01"), numpy.datetime64("2020-01-03"), numpy.datetime64("NaT")]
    same(fnp.array(vals), numpy.array(vals))
    same(fnp.array([numpy.timedelta64(3, "h"), numpy.timedelta64(5, "m")]),
         numpy.array([numpy.timedelta64(3, "h"), numpy.timedelta64(5, "m")]))
    same(fnp.array(["2020-01-01T10:00", "2020-01-02"], dtype="datetime64"),
         numpy.array(["2020-01-01T10:00", "2020-01-02"], dtype="datetime64"))
    same(fnp.arange(5).astype("datetime64[D]"), numpy.arange(5).astype("datetime64[D]"))
    same(fnp.array([1.5, numpy.nan, -2.5]).astype("timedelta64[s]"),
         numpy.array([1.5, numpy.nan, -2.5]).astype("timedelta64[s]"))
    same(fnp.arange(3).view("datetime64[s]"), numpy.arange(3).view("datetime64[s]"))
    same(fnp.asarray(numpy.datetime64("2021-03-04")), numpy.asarray(numpy.datetime64("2021-03-04")))
    # Python's dates are read as NumPy reads them with a datetime dtype
    when = [datetime.datetime(2020, 1, 1, 10), datetime.datetime(1969, 7, 20, 20, 17)]
    same(fnp.array(when), numpy.array(when, dtype="M8"))
    same(fnp.array(when, dtype="M8[m]") - datetime.date(1970, 1, 1),
         numpy.array(when, dtype="M8[m]") - numpy.datetime64(datetime.date(1970, 1, 1)))


@pytest.mark.parametrize("args, kwargs", [
    (("2016-07", "2016-08"), {"dtype": "datetime64[D]"}),
    (("2020-01", "2021-06"), {"dtype": "datetime64[M]"}),
    (("2020-01-01", "2020-01-05", 2), {"dtype": "datetime64[D]"}),
    (("2020-01-01", "2020-01-05"), {"dtype": "datetime64"}),
    ((numpy.datetime64("2020-01-01"), numpy.datetime64("2020-01-02"), numpy.timedelta64(6, "h")), {}),
    ((numpy.datetime64("2020-01-05"), numpy.datetime64("2019-12-01"), -3), {}),
    ((0, 10, 3), {"dtype": "timedelta64[s]"}),
    ((numpy.timedelta64(7, "D"),), {}),
    (("1999-12-31T22", "2000-01-02T01"), {"dtype": "datetime64[m]"}),
])
def test_arange(args, kwargs):
    same(fnp.arange(*args, **kwargs), numpy.arange(*args, **kwargs))


def test_arange_refuses_nat():
    with pytest.raises(ValueError, match="arange"):
        fnp.arange("NaT", "2020-01-01", dtype="datetime64[D]")


def test_filled_creation():
    for name in ("zeros", "ones"):
        same(getattr(fnp, name)((2, 3), "datetime64[s]"), getattr(numpy, name)((2, 3), "datetime64[s]"))
        same(getattr(fnp, name)(4, dtype="timedelta64[ms]"), getattr(numpy, name)(4, dtype="timedelta64[ms]"))
    assert fnp.empty(3, "datetime64[D]").dtype == numpy.dtype("datetime64[D]")
    same(fnp.full(3, "2020-01-01", dtype="datetime64[D]"), numpy.full(3, "2020-01-01", dtype="datetime64[D]"))
    same(fnp.full((2, 2), numpy.datetime64("2020-01-01T12")), numpy.full((2, 2), numpy.datetime64("2020-01-01T12")))
    d = numpy.array(["2020-01-01", "NaT"], "datetime64[D]")
    x = fnp.asarray(d)
    same(fnp.zeros_like(x), numpy.zeros_like(d))
    same(fnp.full_like(x, "1999-01-01"), numpy.full_like(d, "1999-01-01"))
    same(fnp.full_like(x, numpy.datetime64("NaT")), numpy.full_like(d, numpy.datetime64("NaT")))
    assert fnp.empty_like(x).dtype == d.dtype and fnp.ones_like(x, dtype="timedelta64[s]").dtype == "m8[s]"
    same(fnp.zeros_like(x, dtype=float), numpy.zeros_like(d, dtype=float))
    # numbers stay numbers
    same(fnp.zeros(3), numpy.zeros(3))
    same(fnp.arange(4), numpy.arange(4))


def test_bad_strings_raise_value_error():
    with pytest.raises(ValueError, match="2020-13-01"):
        fnp.array(["2020-01-01", "2020-13-01"], dtype="datetime64[D]")


# --- units -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("src", ["Y", "M", "W", "D", "h", "s", "ms"])
@pytest.mark.parametrize("dst", ["Y", "M", "W", "D", "h", "m", "s", "us"])
def test_date_unit_conversions(src, dst):
    d = dates(1500, src, span=40000)  # before and after 1970, leap years, centuries, NaT
    same(fnp.asarray(d).astype(f"datetime64[{dst}]"), d.astype(f"datetime64[{dst}]"))


def test_calendar_edges():
    """Every first and last day of month from 1599 to 2401 round-trips through months and years."""
    days = numpy.arange("1599-01-01", "2401-01-01", dtype="datetime64[D]")
    x = fnp.asarray(days)
    for unit in ("M", "Y"):
        same(x.astype(f"datetime64[{unit}]"), days.astype(f"datetime64[{unit}]"))
    months = numpy.arange("1599-01", "2401-01", dtype="datetime64[M]")
    same(fnp.asarray(months).astype("datetime64[D]"), months.astype("datetime64[D]"))
    same(fnp.asarray(months).astype("datetime64[h]"), months.astype("datetime64[h]"))


@pytest.mark.parametrize("src, dst", [("h", "D"), ("D", "h"), ("ms", "s"), ("W", "D"), ("Y", "M"), ("Y", "D"),
                                      ("M", "D"), ("D", "M"), ("s", "Y"), ("10s", "m")])
def test_duration_unit_conversions(src, dst):
    t = durations(1200, src, span=10**5)
    same(fnp.asarray(t).astype(f"timedelta64[{dst}]"), t.astype(f"timedelta64[{dst}]"))


def test_casts_to_numbers_and_back():
    d = dates(1100, "s")
    x = fnp.asarray(d)
    same(x.astype("int64"), d.astype("int64"))
    same(x.astype(numpy.int32), d.astype(numpy.int32))
    same(x.astype(float), d.astype(float))  # NumPy 2 allows it: the ticks, NaT as int64's minimum
    same(x.astype(bool), d.astype(bool))
    same(x.astype("timedelta64[s]"), d.astype("timedelta64[s]"))
    same(x.astype("timedelta64[D]"), d.astype("timedelta64[D]"))  # NumPy relabels the ticks across kinds
    same(fnp.array(x, dtype="int64"), numpy.array(d, dtype="int64"))
    same(fnp.asarray(x, dtype=float), numpy.asarray(d, dtype=float))
    same(x.astype(str), d.astype(str))  # strings live on the host
    t = durations(1100, "ms")
    same(fnp.asarray(t).astype("float32"), t.astype("float32"))
    with pytest.raises(TypeError, match="casting='safe'"):
        x.astype("datetime64[D]", casting="safe")  # NumPy: seconds do not fit days safely


def test_views_and_writes():
    d = dates(12, "D", nat=0.2)
    x = fnp.asarray(d)
    v = x.view("int64")
    v[0] = 0
    w = d.copy()
    w.view("int64")[0] = 0
    same(x, w)
    s = x[2:6]
    s[1] = "2000-02-29"
    w[3] = "2000-02-29"
    same(x, w)
    x[x.view("int64") < 0] = numpy.datetime64("NaT")
    w[w.view("int64") < 0] = numpy.datetime64("NaT")
    same(x, w)
    x[:2] = fnp.asarray(numpy.array(["2001-01-01T13", "1969-12-31T01"], "M8[h]"))
    w[:2] = numpy.array(["2001-01-01T13", "1969-12-31T01"], "M8[h]")
    same(x, w)
    same(x.reshape(3, 4).T, w.reshape(3, 4).T)
    assert len(x) == 12 and x.shape == (12,) and x.size == 12 and x.ndim == 1 and x.nbytes == 96
    assert x.tolist() == w.tolist() and x[1].item() == w[1].item()
    same(fnp.asarray(numpy.array([0], "M8[D]"))[0], numpy.array(0).view("M8[D]"))
    y = x.copy()
    y[...] = "2020-01-01"
    same(x, w)  # a copy is its own


# --- arithmetic --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 7, 1500])
def test_date_arithmetic(n):
    a, b = dates(n, "D", seed=2), dates(n, "h", seed=3, span=20000)
    t = durations(n, "m", seed=4)
    A, B, T = fnp.asarray(a), fnp.asarray(b), fnp.asarray(t)
    same(A - B, a - b)
    same(A + T, a + t)
    same(T + A, t + a)
    same(A - T, a - t)
    same(A - numpy.datetime64("2000-01-01T10:30"), a - numpy.datetime64("2000-01-01T10:30"))
    same(numpy.datetime64("2000-01-01") - A, numpy.datetime64("2000-01-01") - a)
    same(A + 3, a + 3)
    same(A - numpy.timedelta64(1, "W"), a - numpy.timedelta64(1, "W"))
    same(A + numpy.timedelta64("NaT", "s"), a + numpy.timedelta64("NaT", "s"))
    m = dates(n, "M", seed=5)
    same(fnp.asarray(m) + fnp.asarray(t.astype("m8[D]")), m + t.astype("m8[D]"))
    same(fnp.asarray(m) - A, m - a)


@pytest.mark.parametrize("n", [5, 1300])
def test_duration_arithmetic(n):
    t, u = durations(n, "s", seed=6), durations(n, "ms", seed=7, span=1000)
    u[::17] = 0  # division by zero
    T, U = fnp.asarray(t), fnp.asarray(u)
    with numpy.errstate(all="ignore"):
        same(T + U, t + u)
        same(T - U, t - u)
        same(T * 3, t * 3)
        same(-2 * T, -2 * t)
        same(T * 1.5, t * 1.5)
        same(T * fnp.asarray(numpy.linspace(-2, 2, n)), t * numpy.linspace(-2, 2, n))
        same(T * fnp.arange(n), t * numpy.arange(n))
        same(T / U, t / u)
        same(T // U, t // u)
        same(T % U, t % u)
        same(T / 7, t / 7)
        same(T / -7, t / -7)
        same(T // 7, t // 7)
        same(T / 0, t / 0)
        same(T / 2.5, t / 2.5)
        same(T / numpy.timedelta64(1, "h"), t / numpy.timedelta64(1, "h"))
        same(-T, -t)
        same(abs(T), abs(t))
        same(+T, +t)
        q, r = divmod(T, U)
        same(q, t // u)
        same(r, t % u)
        same(fnp.maximum(T, U), numpy.maximum(t, u))
        same(fnp.minimum(T, U), numpy.minimum(t, u))
        same(fnp.fmax(T, U), numpy.fmax(t, u))
        same(fnp.fmin(T, U), numpy.fmin(t, u))
        same(numpy.add(T, U), t + u)  # NumPy's own ufunc hands the call over


@pytest.mark.parametrize("n", [4, 1200])
def test_comparisons_with_nat(n):
    a, b = dates(n, "D", seed=8, span=50, nat=0.2), dates(n, "D", seed=9, span=50, nat=0.2)
    A, B = fnp.asarray(a), fnp.asarray(b)
    for op in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
        same(getattr(A, op)(B), getattr(a, op)(b))
        same(getattr(A, op)(numpy.datetime64("1970-01-10")), getattr(a, op)(numpy.datetime64("1970-01-10")))
        same(getattr(A, op)(numpy.datetime64("NaT")), getattr(a, op)(numpy.datetime64("NaT")))
    same(A == A, a == a)  # NaT is not equal to itself
    same(A.astype("M8[h]") == A, a.astype("M8[h]") == a)
    same(A == "1970-01-10", a == "1970-01-10")  # NumPy 2: unrelated types are unequal
    same(fnp.isnat(A), numpy.isnat(a))
    same(fnp.isnan(A), numpy.isnan(a))
    same(fnp.isfinite(A), numpy.isfinite(a))
    same(numpy.isnat(A), numpy.isnat(a))


def test_broadcasting_2d():
    a = dates(12, "D").reshape(3, 4)
    t = durations(4, "h")
    same(fnp.asarray(a) + fnp.asarray(t), a + t)
    same(fnp.asarray(a)[:, :1] - fnp.asarray(a), a[:, :1] - a)


def test_errors_name_op_and_dtypes():
    x = fnp.asarray(dates(3))
    with pytest.raises(TypeError, match=r"add.*datetime64\[D\] of shape \(3,\)"):
        x + x
    with pytest.raises(TypeError, match="multiply"):
        x * 2
    with pytest.raises(TypeError, match="add"):
        x + 1.5
    with pytest.raises(TypeError, match="exp"):
        fnp.exp(x)
    with pytest.raises(ValueError, match=r"subtract.*\(3,\).*\(2,\)"):
        x - fnp.asarray(dates(2))
    with pytest.raises(TypeError, match="dates cannot be added"):
        fnp.sum(x)
    with pytest.raises(TypeError, match="cumprod"):
        fnp.cumprod(x)
    with pytest.raises(TypeError, match="same_kind"):
        y = fnp.asarray(durations(3))
        y += numpy.datetime64("2020-01-01")  # a date does not go into durations
    with pytest.raises(TypeError, match="datetime64"):
        fnp.exp(numpy.array(["2020-01-01"], "M8[D]"))


def test_inplace_operators():
    x, d = fnp.asarray(dates(6)), dates(6)
    x += numpy.timedelta64(2, "D")
    d += numpy.timedelta64(2, "D")
    same(x, d)
    x -= numpy.timedelta64(-25, "h")  # NumPy writes M8[h] back into M8[D] (same_kind), flooring
    d -= numpy.timedelta64(-25, "h")
    same(x, d)
    t, u = fnp.asarray(durations(6)), durations(6)
    t *= 3
    u *= 3
    same(t, u)
    t //= 2
    u //= 2
    same(t, u)


# --- functions ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [6, 1500])
@pytest.mark.parametrize("nat", [0.0, 0.2])
def test_sorting_and_extremes(n, nat):
    d = dates(n, "s", seed=10, nat=nat, span=300)  # duplicates too
    x = fnp.asarray(d)
    same(fnp.sort(x), numpy.sort(d))
    same(fnp.argsort(x, kind="stable"), numpy.argsort(d, kind="stable"))
    same(fnp.min(x), numpy.min(d))
    same(fnp.max(x), numpy.max(d))
    same(x.min(), d.min())
    same(fnp.argmin(x), numpy.argmin(d))
    same(fnp.argmax(x), numpy.argmax(d))
    same(fnp.nanmin(x), numpy.nanmin(d))
    same(fnp.nanmax(x), numpy.nanmax(d))
    same(fnp.ptp(x), numpy.ptp(d))
    same(fnp.unique(x), numpy.unique(d))
    u, idx, inv, counts = fnp.unique(x, return_index=True, return_inverse=True, return_counts=True)
    wu, widx, winv, wcounts = numpy.unique(d, return_index=True, return_inverse=True, return_counts=True)
    same(u, wu), same(idx, widx), same(inv, winv), same(counts, wcounts)
    s = numpy.sort(d)
    probe = dates(50, "D", seed=11, nat=0.1, span=1)
    same(fnp.searchsorted(fnp.asarray(s), fnp.asarray(probe)), numpy.searchsorted(s, probe))
    same(fnp.searchsorted(fnp.asarray(s), fnp.asarray(probe), side="right"),
         numpy.searchsorted(s, probe, side="right"))
    same(fnp.diff(x), numpy.diff(d))
    same(fnp.diff(x, n=2), numpy.diff(d, n=2))
    y = x.copy()
    y.sort()
    same(y, numpy.sort(d))


def test_axes_2d():
    d = dates(60, "D", seed=12, nat=0.05).reshape(6, 10)
    x = fnp.asarray(d)
    for axis in (0, 1):
        same(fnp.sort(x, axis=axis), numpy.sort(d, axis=axis))
        same(fnp.min(x, axis=axis), numpy.min(d, axis=axis))
        same(fnp.max(x, axis=axis, keepdims=True), numpy.max(d, axis=axis, keepdims=True))
        same(fnp.argmax(x, axis=axis), numpy.argmax(d, axis=axis))
        same(fnp.argmin(x, axis=axis), numpy.argmin(d, axis=axis))
        same(fnp.diff(x, axis=axis), numpy.diff(d, axis=axis))
        same(fnp.concatenate([x, x[:2] if axis == 0 else x[:, :2]], axis=axis),
             numpy.concatenate([d, d[:2] if axis == 0 else d[:, :2]], axis=axis))


def test_where_concatenate_and_friends():
    a, b = dates(1100, "D", seed=13), dates(1100, "h", seed=14, span=30000)
    A, B = fnp.asarray(a), fnp.asarray(b)
    cond = numpy.random.default_rng(0).random(1100) < 0.5
    same(fnp.where(cond, A, B), numpy.where(cond, a, b))
    same(fnp.where(fnp.asarray(cond), A, numpy.datetime64("NaT")), numpy.where(cond, a, numpy.datetime64("NaT")))
    same(fnp.concatenate([A, B]), numpy.concatenate([a, b]))
    same(fnp.stack([A, A]), numpy.stack([a, a]))
    same(fnp.hstack([A[:3], B[:3]]), numpy.hstack([a[:3], b[:3]]))
    same(fnp.append(A[:4], numpy.datetime64("2000-01-01")), numpy.append(a[:4], numpy.datetime64("2000-01-01")))
    same(fnp.diff(A[:9], prepend=numpy.datetime64("1970-01-01")),
         numpy.diff(a[:9], prepend=numpy.datetime64("1970-01-01")))
    same(fnp.take(A, [3, 1, 4]), numpy.take(a, [3, 1, 4]))
    same(fnp.flip(fnp.reshape(A, (10, 110)), 1), numpy.flip(a.reshape(10, 110), 1))
    same(fnp.ravel(A.reshape(2, 550).T), a.reshape(2, 550).T.ravel())
    parts = fnp.split(A, 4)
    for p, w in zip(parts, numpy.split(a, 4)):
        same(p, w)
    probe = numpy.concatenate([b[:50], a[:50].astype("M8[h]") + numpy.timedelta64(1, "h")])
    same(fnp.isin(A.astype("M8[h]"), fnp.asarray(probe)), numpy.isin(a.astype("M8[h]"), probe))
    same(fnp.isin(B, fnp.asarray(probe), invert=True), numpy.isin(b, probe, invert=True))
    same(fnp.count_nonzero(A), numpy.count_nonzero(a))
    assert fnp.array_equal(A, fnp.asarray(a)) is False  # NaT != NaT
    assert fnp.array_equal(A, fnp.asarray(a), equal_nan=True) is True
    assert fnp.shape(A) == (1100,) and fnp.result_type(A, B) == numpy.result_type(a, b)
    same(numpy.sort(A), numpy.sort(a))  # NumPy's own functions hand the call over


def test_duration_reductions():
    t = durations(1500, "ms", seed=15, nat=0.0)
    T = fnp.asarray(t)
    same(fnp.sum(T), numpy.sum(t))
    same(fnp.mean(T), numpy.mean(t))
    same(T.sum(), t.sum())
    same(fnp.cumsum(T), numpy.cumsum(t))
    t2 = durations(40, "s", seed=16, nat=0.1).reshape(4, 10)
    T2 = fnp.asarray(t2)
    same(fnp.sum(T2, axis=1), numpy.sum(t2, axis=1))
    same(fnp.mean(T2, axis=0), numpy.mean(t2, axis=0))
    same(fnp.cumsum(T2, axis=1), numpy.cumsum(t2, axis=1))


def test_datetime_as_string_and_business_days_of_seconds():
    d = dates(5, "s")
    x = fnp.asarray(d)
    same(fnp.datetime_as_string(x), numpy.datetime_as_string(d))
    same(fnp.datetime_as_string(x, unit="D"), numpy.datetime_as_string(d, unit="D"))
    with pytest.raises(TypeError):  # (business days take days: NumPy's class for a finer unit)
        numpy.busday_count(d, d)
    with pytest.raises(TypeError):
        fnp.busday_count(x, x)


def test_not_differentiable_like_ints():
    t = fnp.asarray(numpy.array([1, 2, 36], "m8[h]"))

    def f(w):
        days = t / numpy.timedelta64(1, "D")  # float64, from integer data: no gradient flows to t
        return fnp.sum(w * days)

    w = fnp.asarray(numpy.array([1.0, 2.0, 3.0]))
    numpy.testing.assert_allclose(nabla.grad(f)(w).numpy(), numpy.array([1, 2, 36]) / 24)


# --- a script --------------------------------------------------------------------------------------------
def _log_processing(np):
    """Parse timestamps, group them by month, measure gaps in days and flag weekends."""
    rng = numpy.random.default_rng(42)
    seconds = numpy.sort(rng.integers(1_500_000_000, 1_700_000_000, 2000))
    text = [str(s) for s in seconds.astype("datetime64[s]")]
    text[17] = "NaT"
    stamps = np.array(text, dtype="datetime64[s]")
    month = stamps.astype("datetime64[M]")
    first, last = np.min(stamps[stamps == stamps]), np.max(stamps[~np.isnat(stamps)])
    months = np.arange(first.astype("datetime64[M]"), last.astype("datetime64[M]") + 1, dtype="datetime64[M]")
    per_month = np.searchsorted(np.sort(month), months, side="right") - np.searchsorted(np.sort(month), months)
    gaps = np.diff(stamps) / np.timedelta64(1, "D")
    day = stamps.astype("datetime64[D]")
    weekend = (day.view("int64") - 4) % 7 >= 5
    age = (np.datetime64("2024-01-01") - day).astype("timedelta64[W]")
    return [month, months, per_month, gaps, weekend, age, np.unique(month), last - first]


def test_log_processing_script():
    got, want = _log_processing(fnp), _log_processing(numpy)
    for g, w in zip(got, want):
        if isinstance(w, numpy.ndarray) and w.dtype.kind == "f":
            numpy.testing.assert_allclose(numpy.asarray(g), w, rtol=1e-15)
            assert numpy.isnan(w).sum() == 2
        else:
            same(g, w)
    assert int(numpy.asarray(got[4]).sum()) == int(want[4].sum()) > 400


@pytest.mark.parametrize("case", [
    lambda m: numpy.datetime64("2020-01-01") + m.arange(3),
    lambda m: m.arange(3) + numpy.datetime64("2020-01-01T06", "h"),
    lambda m: m.add(numpy.datetime64("2020-01-01"), m.arange(3)),
    lambda m: m.arange(3) * numpy.timedelta64(2, "h"),
    lambda m: numpy.datetime64("2020-03-01") - m.asarray(numpy.array(["2020-01-01", "NaT"], "M8[D]")),
    lambda m: m.maximum(numpy.array(["2020-01-05"], "M8[D]"), m.asarray(numpy.array(["2020-01-01", "2020-02-01"], "M8[D]"))),
    lambda m: m.arange(3) < numpy.timedelta64(2, "D"),
])
def test_numpy_date_scalars_meet_number_arrays(case):
    """NumPy's dates and durations as operands of the face's ufuncs and operators, beside arrays of
    numbers (ticks in the date's unit), as NumPy computes them."""
    same(case(fnp), case(numpy))
