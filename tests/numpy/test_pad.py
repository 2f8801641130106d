"""``pad`` against NumPy, the oracle: each mode's values and dtypes, its keywords (``stat_length``,
``reflect_type``, ``end_values``) and NumPy's error for a keyword the mode does not take."""

import numpy
import pytest

import nabla.numpy as fnp


@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "uint8", "bool", "complex128", "complex64"])
def test_pad_linear_ramp_matches_numpy(dtype):
    """NumPy's ramps: one or two end values computed in float64, a per-axis table in the array's own
    float dtype, integers floored, complex ramps part by part as NumPy's complex division gives."""
    a = numpy.arange(12).reshape(3, 4) * 1.37 - 4
    x = numpy.abs(a).astype(dtype) if dtype == "uint8" else a.astype(dtype)
    if x.dtype.kind == "c":
        x = x + 1j * x[::-1]
    for ends in (None, 5, 2.7, (1.5, -2), ((1, 2), (3, -4)), [[1], [2]]):
        kw = {} if ends is None else {"end_values": ends}
        for width in (2, ((1, 3), (2, 0)), ((0, 5), (4, 1))):
            want = numpy.pad(x, width, mode="linear_ramp", **kw)
            got = fnp.pad(fnp.asarray(x), width, mode="linear_ramp", **kw).numpy()
            assert got.dtype == want.dtype and numpy.array_equal(got, want), (ends, width)


@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
@pytest.mark.parametrize("dtype", ["float64", "int32", "uint8"])
def test_pad_odd_reflections_match_numpy(mode, dtype):
    """``reflect_type="odd"``: the data mirrored about each edge value, pads of several periods
    built outward as NumPy's (every mirror point where NumPy's is)."""
    rng = numpy.random.default_rng(4)
    for x in (rng.integers(0, 90, 6).astype(dtype), rng.integers(0, 90, (3, 4)).astype(dtype), numpy.array([2, 7], dtype)):
        for width in (1, 2, 5, 9, (0, 7), (6, 1)):
            with numpy.errstate(all="ignore"):
                want = numpy.pad(x, width, mode=mode, reflect_type="odd")
            got = fnp.pad(fnp.asarray(x), width, mode=mode, reflect_type="odd").numpy()
            assert got.dtype == want.dtype and numpy.array_equal(got, want), (x.shape, width)


@pytest.mark.parametrize("mode", ["mean", "maximum", "minimum", "median"])
def test_pad_statistics_of_stat_length_values_match_numpy(mode):
    """``stat_length``: each pad the statistic of that many values at its edge (the whole axis where
    it is longer), per axis and side as NumPy reads it; integers' means rounded as NumPy's."""
    rng = numpy.random.default_rng(5)
    for x in (rng.standard_normal(7), rng.integers(-20, 20, (4, 5))):
        for length in (None, 1, 2, (1, 3), ((1, 2),) * x.ndim, 50):
            want = numpy.pad(x, 2, mode=mode, stat_length=length)
            got = fnp.pad(fnp.asarray(x), 2, mode=mode, stat_length=length).numpy()
            assert got.dtype == want.dtype and numpy.allclose(got, want), length


def test_pad_refuses_a_keyword_its_mode_does_not_take():
    for mode, kw in (("edge", {"stat_length": 2}), ("constant", {"reflect_type": "odd"}), ("wrap", {"end_values": 1})):
        with pytest.raises(ValueError, match="unsupported keyword"):
            fnp.pad(fnp.arange(5), 2, mode=mode, **kw)
        with pytest.raises(ValueError):
            numpy.pad(numpy.arange(5), 2, mode=mode, **kw)
    assert fnp.pad(fnp.arange(3), 2, mode="empty").shape == numpy.pad(numpy.arange(3), 2, mode="empty").shape
