"""Business days in ``nabla.numpy`` (``busday_count``, ``busday_offset``, ``is_busday``, ``busdaycalendar``),
against NumPy: values and dtypes exactly NumPy's, errors NumPy's classes."""

from __future__ import annotations

import datetime

import numpy
import pytest

import nabla.numpy as fnp
from nabla.numpy import DatetimeArray

NAT = numpy.iinfo(numpy.int64).min
ROLLS = ["raise", "nat", "forward", "following", "backward", "preceding", "modifiedfollowing",
         "modifiedpreceding"]
WEEKMASKS = ["1111100", "1010100", "Sat Sun", "1111111", "Mon Wed\tFri", [1, 1, 0, 1, 1, 0, 1],
             numpy.array([0, 0, 0, 0, 0, 0, 1], bool)]
HOLIDAYS = [
    [],
    ["2011-01-17", "2011-01-17", "NaT", "2011-01-15", "2011-07-04", "2010-12-25", "2011-12-26"],  # dups, NaT, Sat
    numpy.array(["2012-01-02", "2011-05-30", "2011-12-25", "2012-05-28", "2011-11-24"], "M8[D]"),
    [datetime.date(2011, 3, 7), datetime.date(2011, 3, 8)],
]


def same(got, want):
    """Equal dtype, shape and values (NaT included, compared as ticks)."""
    want = numpy.asarray(want)
    if isinstance(got, DatetimeArray):
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        assert got.shape == want.shape, (got.shape, want.shape)
        numpy.testing.assert_array_equal(got.numpy().view(numpy.int64), want.view(numpy.int64))
        return
    got = numpy.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    numpy.testing.assert_array_equal(got, want)


def days(n, seed, start="2010-06-01", span=900, nat=0.0):
    """``n`` random datetime64[D] dates from ``start`` over ``span`` days, NaT at rate ``nat``."""
    rng = numpy.random.default_rng(seed)
    d = numpy.datetime64(start, "D") + rng.integers(0, span, n).astype("m8[D]")
    d[rng.random(n) < nat] = numpy.datetime64("NaT")
    return d


def raises_like(fn_ours, fn_numpy):
    """Both raise, ours NumPy's exact class; the two messages, NumPy's first."""
    with pytest.raises(Exception) as want:
        fn_numpy()
    with pytest.raises(Exception) as got:
        fn_ours()
    assert type(got.value) is type(want.value), (got.value, want.value)
    return str(want.value), str(got.value)


# --- busday_count ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("weekmask", WEEKMASKS, ids=str)
@pytest.mark.parametrize("h", range(len(HOLIDAYS)))
def test_count_random_ranges(weekmask, h):
    begin, end = days(400, 1 + h, span=1200), days(400, 11 + h, span=1200)
    end[:20] = begin[:20]  # equal dates: no days
    end[20:40] = begin[20:40] + numpy.timedelta64(1, "D")
    want = numpy.busday_count(begin, end, weekmask=weekmask, holidays=HOLIDAYS[h])
    assert (want < 0).any() and (want > 0).any()
    same(fnp.busday_count(begin, end, weekmask=weekmask, holidays=HOLIDAYS[h]), want)
    same(fnp.busday_count(fnp.asarray(begin), fnp.asarray(end), weekmask, HOLIDAYS[h]), want)


def test_count_over_many_years_and_before_1970():
    begin = days(300, 3, start="1890-01-01", span=80000)
    end = days(300, 4, start="1890-01-01", span=80000)
    hol = days(200, 5, start="1890-01-01", span=80000)
    for weekmask in ("1111100", "0000011", "1000000"):
        same(fnp.busday_count(begin, end, weekmask, hol), numpy.busday_count(begin, end, weekmask, hol))
    same(fnp.busday_count("1969-12-01", "1970-02-01"), numpy.busday_count("1969-12-01", "1970-02-01"))


def test_count_broadcasting_and_inputs():
    begin = numpy.array(["2011-01-03", "2011-01-04", "2011-01-08"], "M8[D]")
    end = numpy.array([["2011-02-01"], ["2010-03-05"]], "M8[D]")
    same(fnp.busday_count(begin, end), numpy.busday_count(begin, end))
    same(fnp.busday_count("2011-01-03", "2011-01-10"), numpy.busday_count("2011-01-03", "2011-01-10"))
    same(fnp.busday_count(["2011-01-03", "2011"], "2012"), numpy.busday_count(["2011-01-03", "2011"], "2012"))
    for unit in ("W", "M", "Y"):  # coarser dates convert safely to days
        b = numpy.array(["2011-01-03", "2012-08-01"], f"M8[{unit}]")
        same(fnp.busday_count(fnp.asarray(b), "2013-01-01"), numpy.busday_count(b, "2013-01-01"))
    d = datetime.date(2011, 1, 3)
    same(fnp.busday_count(d, [datetime.date(2011, 3, 1)]), numpy.busday_count(d, [datetime.date(2011, 3, 1)]))
    same(fnp.busday_count([], []), numpy.busday_count([], []))


def test_count_numpy_function_hands_over():
    x = fnp.asarray(days(10, 7))
    got = numpy.busday_count(x, fnp.asarray(days(10, 8)))
    assert not isinstance(got, numpy.ndarray)
    same(got, numpy.busday_count(days(10, 7), days(10, 8)))


def test_count_nat_raises():
    raises_like(lambda: fnp.busday_count(["2011-01-03", "NaT"], "2011-02-01"),
                lambda: numpy.busday_count(["2011-01-03", "NaT"], "2011-02-01"))
    msgs = raises_like(lambda: fnp.busday_count("2011-01-03", "NaT"),
                       lambda: numpy.busday_count("2011-01-03", "NaT"))
    assert msgs[0] == msgs[1]


# --- is_busday -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("weekmask", WEEKMASKS, ids=str)
@pytest.mark.parametrize("h", range(len(HOLIDAYS)))
def test_is_busday(weekmask, h):
    d = numpy.concatenate([days(300, 20 + h, nat=0.05), numpy.array(HOLIDAYS[h], "M8[D]")])
    want = numpy.is_busday(d, weekmask=weekmask, holidays=HOLIDAYS[h])
    same(fnp.is_busday(d, weekmask=weekmask, holidays=HOLIDAYS[h]), want)
    same(fnp.is_busday(fnp.asarray(d).reshape(-1, 1 if d.size % 2 else 2), weekmask, HOLIDAYS[h]),
         want.reshape(-1, 1 if d.size % 2 else 2))


def test_is_busday_scalars():
    for d in ("2011-01-03", "2011-01-01", "NaT", numpy.datetime64("2011-07-04"), datetime.date(2011, 7, 4)):
        same(fnp.is_busday(d, holidays=["2011-07-04"]), numpy.is_busday(d, holidays=["2011-07-04"]))
    same(fnp.is_busday([]), numpy.is_busday([]))


# --- busday_offset -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("roll", ROLLS)
@pytest.mark.parametrize("weekmask", WEEKMASKS[:5], ids=str)
@pytest.mark.parametrize("h", [0, 1, 2])
def test_offset_rolls(roll, weekmask, h):
    hol = HOLIDAYS[h]
    d = days(300, 30 + h, span=800)
    if roll == "raise":
        d = d[numpy.is_busday(d, weekmask=weekmask, holidays=hol)]
    else:  # month ends and starts: the modified rolls turn round there
        d = numpy.concatenate([d, numpy.arange("2011-04-24", "2011-05-08", dtype="M8[D]"),
                               numpy.arange("2011-12-25", "2012-01-09", dtype="M8[D]")])
    offsets = numpy.random.default_rng(h).integers(-40, 40, d.size)
    offsets[:10] = 0
    for off in (offsets, 0, 1, -1, 1000, -1000):
        want = numpy.busday_offset(d, off, roll=roll, weekmask=weekmask, holidays=hol)
        same(fnp.busday_offset(d, off, roll, weekmask, hol), want)
    same(fnp.busday_offset(fnp.asarray(d), fnp.asarray(offsets), roll=roll, weekmask=weekmask, holidays=hol),
         numpy.busday_offset(d, offsets, roll=roll, weekmask=weekmask, holidays=hol))


def test_offset_over_many_years():
    d = days(400, 40, start="1850-01-01", span=100000)
    hol = days(300, 41, start="1850-01-01", span=100000)
    off = numpy.random.default_rng(3).integers(-5000, 5000, d.size)
    for roll in ROLLS[1:]:
        same(fnp.busday_offset(d, off, roll, "0111110", hol), numpy.busday_offset(d, off, roll, "0111110", hol))


def test_offset_broadcasting():
    d = numpy.array(["2011-01-03", "2011-01-04", "2011-01-08"], "M8[D]")
    off = numpy.array([[1], [-2], [0], [7]])
    for roll in ("forward", "modifiedpreceding", "nat"):
        same(fnp.busday_offset(d, off, roll=roll), numpy.busday_offset(d, off, roll=roll))
    same(fnp.busday_offset("2011-01-03", [1, 2, -3]), numpy.busday_offset("2011-01-03", [1, 2, -3]))
    same(fnp.busday_offset(d[:2, None], [[1, 2, -3]]), numpy.busday_offset(d[:2, None], [[1, 2, -3]]))
    raises_like(lambda: fnp.busday_offset(d, [1, 2]), lambda: numpy.busday_offset(d, [1, 2]))


def test_offset_inputs():
    same(fnp.busday_offset("2011-01-03", 1), numpy.busday_offset("2011-01-03", 1))
    same(fnp.busday_offset(datetime.date(2011, 1, 3), 1), numpy.busday_offset(datetime.date(2011, 1, 3), 1))
    for off in (numpy.int32(2), True, "1", [1, 2.0], 1.5, numpy.array([3], numpy.int8)):
        same(fnp.busday_offset("2011-01-03", off), numpy.busday_offset("2011-01-03", off))
    same(fnp.busday_offset("2011-01-03", fnp.asarray(numpy.array([1, -1], numpy.int16))),
         numpy.busday_offset("2011-01-03", numpy.array([1, -1], numpy.int16)))
    w = numpy.array(["2011-01-06", "2011-03-03"], "M8[W]")
    same(fnp.busday_offset(fnp.asarray(w), 1, roll="forward"), numpy.busday_offset(w, 1, roll="forward"))
    same(fnp.busday_offset([], 1), numpy.busday_offset([], 1))


@pytest.mark.parametrize("roll", ROLLS[1:])
def test_offset_nat(roll):
    d = numpy.array(["NaT", "2011-01-01", "2011-01-03", "NaT"], "M8[D]")
    same(fnp.busday_offset(d, [[0], [2]], roll=roll), numpy.busday_offset(d, [[0], [2]], roll=roll))


def test_offset_raise_errors():
    for d in (["2011-01-01", "NaT"], ["NaT", "2011-01-01"], ["2011-01-03", "2011-01-01"], ["NaT"]):
        msgs = raises_like(lambda: fnp.busday_offset(d, 1), lambda: numpy.busday_offset(d, 1))
        assert msgs[0] == msgs[1]
    msgs = raises_like(lambda: fnp.busday_offset("2011-01-04", 1, holidays=["2011-01-04"]),
                       lambda: numpy.busday_offset("2011-01-04", 1, holidays=["2011-01-04"]))
    assert msgs[0] == msgs[1]


# --- busdaycalendar ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("weekmask", WEEKMASKS + ["MonTue  Wed", b"1111100", "Mon Mon", [2, 1.5, 0, 0, 0, 0, 1],
                                                  ["1"] * 7], ids=str)
@pytest.mark.parametrize("h", range(len(HOLIDAYS)))
def test_calendar_normalizes(weekmask, h):
    ours, want = fnp.busdaycalendar(weekmask, HOLIDAYS[h]), numpy.busdaycalendar(weekmask, HOLIDAYS[h])
    same(ours.weekmask, want.weekmask)
    same(ours.holidays, want.holidays)
    assert isinstance(ours.holidays, DatetimeArray)
    d = days(300, 50 + h, nat=0.05)
    same(fnp.is_busday(d, busdaycal=ours), numpy.is_busday(d, busdaycal=want))
    valid = d[~numpy.isnat(d)]
    same(fnp.busday_count(valid, valid[::-1], busdaycal=ours),
         numpy.busday_count(valid, valid[::-1], busdaycal=want))
    ok = d[numpy.is_busday(d, busdaycal=want)]  # roll='raise' takes valid days only
    same(fnp.busday_offset(ok, [[3], [-3]], busdaycal=ours), numpy.busday_offset(ok, [[3], [-3]], busdaycal=want))


def test_calendar_defaults_and_numpy_calendars():
    ours, want = fnp.busdaycalendar(), numpy.busdaycalendar()
    same(ours.weekmask, want.weekmask)
    same(ours.holidays, want.holidays)
    cal = numpy.busdaycalendar("1111110", ["2011-01-03", "2011-01-10", "NaT"])
    d = days(100, 60)
    same(fnp.busday_offset(d, 2, "backward", busdaycal=cal), numpy.busday_offset(d, 2, "backward", busdaycal=cal))
    same(fnp.busdaycalendar("1111110", fnp.asarray(cal.holidays)).holidays, cal.holidays)  # from a date array
    months = numpy.array(["2011-02", "2011-05", "NaT"], "M8[M]")  # months convert to their first days
    same(fnp.busdaycalendar(holidays=fnp.asarray(months)).holidays, numpy.busdaycalendar(holidays=months).holidays)
    mask = fnp.asarray(numpy.array([0, 1, 1, 1, 1, 1, 1], bool))
    same(fnp.is_busday(d, weekmask=mask), numpy.is_busday(d, weekmask=[0, 1, 1, 1, 1, 1, 1]))
    with pytest.raises(AttributeError):
        ours.weekmask = [1] * 7
    with pytest.raises(TypeError):
        fnp.busdaycalendar("1111100", [], 3)


# --- out= -----------------------------------------------------------------------------------------------
def test_out():
    d = numpy.array(["2011-01-03", "2011-01-04"], "M8[D]")
    out = fnp.zeros(2, numpy.int64)
    r = fnp.busday_count(d, "2011-02-01", out=out)
    assert r is out
    same(out, numpy.busday_count(d, "2011-02-01"))
    out = fnp.zeros(2, numpy.float64)
    same(fnp.busday_count(d, "2011-02-01", out=out), numpy.busday_count(d, "2011-02-01", out=numpy.zeros(2)))
    out = fnp.zeros((3, 2), bool)
    same(fnp.is_busday(["2011-01-03", "2011-01-01"], out=out),
         numpy.is_busday(["2011-01-03", "2011-01-01"], out=numpy.zeros((3, 2), bool)))
    out = fnp.zeros(2, "M8[s]")
    r = fnp.busday_offset(d, 1, out=out)
    assert r is out
    same(out, numpy.busday_offset(d, 1, out=numpy.zeros(2, "M8[s]")))
    out = fnp.zeros(2, "M8[D]")
    fnp.busday_offset(d, [1, -1], out=out[::-1])
    same(out, numpy.busday_offset(d, [1, -1])[::-1])
    raises_like(lambda: fnp.busday_count(d, "2011-02-01", out=fnp.zeros(2, numpy.int32)),
                lambda: numpy.busday_count(d, "2011-02-01", out=numpy.zeros(2, numpy.int32)))
    raises_like(lambda: fnp.busday_count(d, "2011-02-01", out=fnp.zeros(3, numpy.int64)),
                lambda: numpy.busday_count(d, "2011-02-01", out=numpy.zeros(3, numpy.int64)))
    raises_like(lambda: fnp.busday_offset(d, 1, out=fnp.zeros(2, "M8[Y]")),
                lambda: numpy.busday_offset(d, 1, out=numpy.zeros(2, "M8[Y]")))


# --- errors -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("weekmask", ["111110", "1111102", "Mon Tue Foo", "mon", "Monday", "Mon,Tue", "1 1 1 1",
                                      " 1111100", "0000000", "", "  ", [1, 1, 1, 1, 1, 0], [[1] * 7], 5, None,
                                      [0] * 7])
def test_weekmask_errors(weekmask):
    for ours, theirs in ((fnp.busdaycalendar, numpy.busdaycalendar),
                         (lambda m: fnp.is_busday("2011-01-03", weekmask=m),
                          lambda m: numpy.is_busday("2011-01-03", weekmask=m))):
        msgs = raises_like(lambda: ours(weekmask), lambda: theirs(weekmask))
        assert msgs[0] == msgs[1]


@pytest.mark.parametrize("holidays", [None, [["2011-01-03"]], "2011-01-03", ["2011-01-03T10:00"], [5],
                                      numpy.array(["2011-01-03T10"], "M8[h]"), numpy.array([15000]),
                                      numpy.array([], float), ["garbage"]], ids=str)
def test_holiday_errors(holidays):
    raises_like(lambda: fnp.busdaycalendar(holidays=holidays), lambda: numpy.busdaycalendar(holidays=holidays))
    raises_like(lambda: fnp.busday_count("2011-01-03", "2011-02-03", holidays=holidays),
                lambda: numpy.busday_count("2011-01-03", "2011-02-03", holidays=holidays))


def test_argument_errors():
    cal = fnp.busdaycalendar()
    cases = [
        (lambda m: m.busday_offset("2011-01-03", 1, roll="bogus"), ValueError),
        (lambda m: m.busday_offset("2011-01-03", 1, roll=None), TypeError),
        (lambda m: m.busday_offset(numpy.datetime64("2011-01-03T10:00"), 1), TypeError),
        (lambda m: m.busday_offset("2011-01-03T10:00", 1), TypeError),
        (lambda m: m.busday_offset(numpy.array([5]), 1), TypeError),
        (lambda m: m.busday_offset(numpy.array([5], "m8[D]"), 1), TypeError),
        (lambda m: m.busday_offset(3, 1), ValueError),
        (lambda m: m.busday_offset("2011-01-03", numpy.array([1.5])), TypeError),
        (lambda m: m.busday_offset("2011-01-03", numpy.array([1], numpy.uint64)), TypeError),
        (lambda m: m.busday_offset("2011-01-03", None), TypeError),
        (lambda m: m.busday_offset("2011-01-03", 2**63), OverflowError),
        (lambda m: m.is_busday(numpy.array(["NaT"], "M8[s]")), TypeError),
        (lambda m: m.busday_count("2011-01-03", numpy.datetime64("2011-01-03T10")), TypeError),
        (lambda m: m.busday_count("2011-01-03", "garbage"), ValueError),
        (lambda m: m.busday_count("2011-01-03", "2011-02-03", busdaycal=5), TypeError),
        (lambda m: m.busday_offset("2011-01-03", 1, busdaycal=None), TypeError),
        (lambda m: m.busday_count("2011-01-03", "2011-02-03", weekmask="0000000"), ValueError),
        (lambda m: m.busday_count("2011-01-03", ["2011-02-03"] * 3, begindates=1), TypeError),
    ]
    for call, kind in cases:
        with pytest.raises(kind):
            call(numpy)
        raises_like(lambda: call(fnp), lambda: call(numpy))
    for kwargs in ({"weekmask": "1111100"}, {"holidays": []}):  # a calendar excludes both, even as defaults
        ours = (lambda: fnp.busday_count("2011-01-03", "2011-02-03", busdaycal=cal, **kwargs))
        msgs = raises_like(ours, lambda: numpy.busday_count("2011-01-03", "2011-02-03",
                                                            busdaycal=numpy.busdaycalendar(), **kwargs))
        assert msgs[0] == msgs[1]
    msgs = raises_like(lambda: fnp.busday_offset("2011-01-03", 1, roll="bogus"),
                       lambda: numpy.busday_offset("2011-01-03", 1, roll="bogus"))
    assert msgs[0] == msgs[1]
