"""Python scalars as arguments, against NumPy: each function's own conversion rule (``where`` and
``full`` cast as C does, ``clip`` clamps a bound that changes nothing, ``putmask`` converts as
``dtype.type(value)``, NEP 50's OverflowError elsewhere), and the limits of ``power``."""

from __future__ import annotations

import warnings

import numpy
import pytest

import nabla.numpy as fnp

_DTYPES = ("bool", "int8", "uint8", "int32", "uint64", "int64", "float32", "float64", "complex64")
_SCALARS = (-1, 300, -129, 2 ** 63, 2 ** 64, -2 ** 63 - 1, 1.5, float("nan"), float("inf"), 1 + 2j, True)

_CALLS = {
    "where_y": lambda xp, a, s: xp.where(a > 1, a, s),
    "where_x": lambda xp, a, s: xp.where(a > 1, s, a),
    "where_both": lambda xp, a, s: xp.where(a > 1, s, 1),
    "full": lambda xp, a, s: xp.full(3, s, dtype=a.dtype),
    "full_like": lambda xp, a, s: xp.full_like(a, s),
    "clip_lo": lambda xp, a, s: xp.clip(a, s, None),
    "clip_hi": lambda xp, a, s: xp.clip(a, None, s),
    "putmask": lambda xp, a, s: (xp.putmask(a, a > 1, s), a)[1],
    "setitem": lambda xp, a, s: (a.__setitem__(0, s), a)[1],
    "setitem_slice": lambda xp, a, s: (a.__setitem__(slice(1, None, 2), s), a)[1],
    "setitem_rows": lambda xp, a, s: (a.reshape(2, 2).__setitem__((slice(None), 0), s), a)[1],
}


def _outcome(xp, call, dtype, s):
    a = xp.asarray(numpy.array([0, 1, 2, 3], dtype=dtype))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = numpy.asarray(call(xp, a, s))
    except (TypeError, ValueError, OverflowError) as e:
        return type(e)
    return r.dtype, r.tolist()


@pytest.mark.parametrize("name", sorted(_CALLS))
@pytest.mark.parametrize("dtype", _DTYPES)
def test_a_python_scalar_argument_as_numpy_converts_it(name, dtype):
    call = _CALLS[name]
    for s in _SCALARS:
        if name.startswith("clip") and (dtype.startswith("complex") or isinstance(s, complex)):
            continue  # (complex ordering: Nabla refuses it)
        if name.startswith("setitem") and dtype.startswith("complex") and s in (2 ** 64, -2 ** 63 - 1):
            continue  # (an int past 64 bits into a complex array: Nabla refuses it)
        expected, got = _outcome(numpy, call, dtype, s), _outcome(fnp, call, dtype, s)
        if isinstance(expected, tuple) and isinstance(got, tuple):
            assert got[0] == expected[0], (name, dtype, s)
            numpy.testing.assert_array_equal(numpy.array(got[1]), numpy.array(expected[1]), err_msg=str((name, s)))
        else:
            assert got == expected, (name, dtype, s)


def test_where_of_a_uint8_array_and_minus_one_is_uint8_as_numpy():
    a = numpy.arange(6, dtype=numpy.uint8)
    r = fnp.where(fnp.asarray(a) > 1, fnp.asarray(a), -1)
    assert r.dtype == numpy.uint8
    numpy.testing.assert_array_equal(numpy.asarray(r), numpy.where(a > 1, a, -1))


@pytest.mark.parametrize("y", [2 ** 31, 2 ** 31 + 1, 2.0 ** 40, -2.0 ** 31])
def test_float_power_past_int32_exponents(y):
    a = numpy.array([0.0, 1.0, 2.0, 0.5, -2.0, 3.0])
    with numpy.errstate(all="ignore"):
        expected = a ** y
    numpy.testing.assert_array_equal(numpy.asarray(fnp.asarray(a) ** y), expected)


@pytest.mark.parametrize("dtype", ["int64", "uint64", "uint32", "int32", "uint8"])
@pytest.mark.parametrize("y", [2 ** 31, 2 ** 32, 2 ** 63 - 1])
def test_integer_power_past_int32_exponents_wraps_as_numpy(dtype, y):
    a = numpy.array([0, 1, 2, 3, 5, 7], dtype=dtype)
    try:
        expected = a ** y
    except OverflowError:  # (NEP 50: an exponent the dtype cannot hold)
        with pytest.raises(OverflowError):
            fnp.asarray(a) ** y
        return
    numpy.testing.assert_array_equal(numpy.asarray(fnp.asarray(a) ** y), expected)


def test_integer_to_a_negative_integer_power_is_numpys_value_error():
    with pytest.raises(ValueError, match="negative integer powers"):
        fnp.asarray(numpy.arange(3)) ** -1


def test_complex_power_at_zero_takes_numpys_limits():
    z = numpy.array([0j, 0j, 0j, 0j, 1 + 1j, 2 - 1j])
    b = numpy.array([0j, 2 + 0j, -1 + 0j, 1 + 1j, 0j, 0.5 + 0.25j])
    with numpy.errstate(all="ignore"):
        expected = z ** b
    numpy.testing.assert_allclose(numpy.asarray(fnp.asarray(z) ** fnp.asarray(b)), expected, rtol=1e-12)
    numpy.testing.assert_array_equal(numpy.asarray(fnp.asarray(z.astype(numpy.complex64)) ** 0), numpy.ones(6))


def test_searchsorted_orders_bools_as_numpy():
    a, v = numpy.array([False, False, True, True]), numpy.array([True, False])
    for side in ("left", "right"):
        numpy.testing.assert_array_equal(numpy.asarray(fnp.searchsorted(fnp.asarray(a), fnp.asarray(v), side=side)),
                                         numpy.searchsorted(a, v, side=side))
