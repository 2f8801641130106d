"""Strings at the host boundary (``nabla/numpy/_strings.py``): MAX holds numbers only, so a string
array stays NumPy's array on the host, with ``HostStringWarning``; ``np.char``, ``np.strings`` and
the face's functions of string arrays (``unique``, ``sort``, ``isin``) are NumPy's, their numeric
results Nabla's arrays."""

import warnings

import numpy
import pytest

import nabla.numpy as fnp


def test_string_arrays_stay_numpy_arrays_with_a_warning():
    for data in (["a", "bc"], [[b"x", b"yz"]], [1, "a"]):
        with pytest.warns(fnp.HostStringWarning, match="stay on the host as NumPy arrays"):
            got = fnp.array(data)
        assert type(got) is numpy.ndarray
        numpy.testing.assert_array_equal(got, numpy.array(data))
    with pytest.warns(fnp.HostStringWarning):
        assert fnp.asarray(numpy.array(["q"])).dtype == numpy.dtype("<U1")
    with pytest.warns(fnp.HostStringWarning):
        assert fnp.array(3.5, dtype="U5").item() == "3.5"
    with pytest.warns(fnp.HostStringWarning, match="np.char.upper is NumPy's numpy.char.upper"):
        upper = fnp.char.upper
    assert upper(numpy.array(["ab"])).tolist() == ["AB"]
    with pytest.warns(fnp.HostStringWarning):
        assert fnp.strings.str_len(numpy.array(["abc"])).tolist() == [3]
    assert issubclass(fnp.HostStringWarning, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert isinstance(fnp.array([1, 2]), fnp.ndarray)  # numbers: no warning
    with pytest.raises(TypeError, match="object arrays"):
        fnp.array([{}, 1], dtype=object)
    with pytest.raises(TypeError, match="string"):
        fnp.sin(["a"])


@pytest.mark.parametrize("case", [
    lambda np: np.unique(np.array(["b", "a", "b", "c"]), return_counts=True),
    lambda np: np.unique(["b", "a", "b"], return_inverse=True),
    lambda np: np.sort(np.array(["q", "c", "k"])),
    lambda np: np.argsort(np.array(["q", "c", "k"]), kind="stable"),
    lambda np: np.isin(np.array(["a", "b", "z"]), ["a", "z"]),
    lambda np: np.searchsorted(np.array(["a", "c", "e"]), ["b", "e"]),
    lambda np: np.concatenate([np.array(["x"]), np.array(["yy", "z"])]),
    lambda np: np.intersect1d(np.array(["a", "b", "c"]), np.array(["c", "a"])),
])
def test_functions_of_string_arrays_are_numpys_on_the_host(case):
    """Grouping by labels works as in NumPy: the strings stay NumPy's arrays, a numeric result
    (``argsort``'s order, ``unique``'s counts and inverse, ``isin``'s mask) is Nabla's, and indexes
    Nabla's numeric arrays."""
    with pytest.warns(fnp.HostStringWarning, match="is NumPy's numpy"):
        got = case(fnp)
    want = case(numpy)
    for g, w in zip(got if isinstance(want, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert (type(g) is numpy.ndarray) == (w.dtype.kind in "US"), (type(g), w.dtype)
        assert numpy.asarray(g).dtype == w.dtype
        numpy.testing.assert_array_equal(numpy.asarray(g), w)
    with pytest.warns(fnp.HostStringWarning):
        _, inverse = fnp.unique(numpy.array(["b", "a", "b"]), return_inverse=True)
    numpy.testing.assert_array_equal(numpy.asarray(fnp.bincount(inverse)), [1, 2])



def test_select_of_string_choices_is_numpys():
    """``np.select`` of string choices (labels by condition) is NumPy's on the host; numeric choices
    stay Nabla's."""
    a = numpy.array([-3.0, -1.0, 1.0, 3.0])
    x = fnp.asarray(a)
    with pytest.warns(fnp.HostStringWarning):
        got = fnp.select([x < -2, x < 0, x < 2], ["low", "mid-", "mid+"], default="high")
    numpy.testing.assert_array_equal(got, numpy.select([a < -2, a < 0, a < 2], ["low", "mid-", "mid+"], default="high"))
    got = fnp.select([x < -2, x < 0], [x, x * 2], default=0.5)
    assert type(got) is fnp.ndarray
    numpy.testing.assert_array_equal(numpy.asarray(got), numpy.select([a < -2, a < 0], [a, a * 2], default=0.5))


def test_where_with_string_choices_and_casts_to_strings_are_numpys():
    """``np.where(cond, "A", names)`` and ``x.astype(str)`` give NumPy's string arrays on the host
    (the condition and the numbers read back); numeric ``where`` and casts stay Nabla's."""
    a = numpy.array([-1.5, 0.0, 2.25, 7.0])
    x = fnp.asarray(a)
    names = numpy.array(["delta", "alpha", "echo", "kilo"])
    for choices in (("A", names), (names, "Z"), (names, names[::-1])):
        with pytest.warns(fnp.HostStringWarning):
            got = fnp.where(x > 0, *choices)
        assert type(got) is numpy.ndarray
        numpy.testing.assert_array_equal(got, numpy.where(a > 0, *choices))
    for data, dtype in ((a, str), (a, "U3"), (a > 0, str), (numpy.arange(4), numpy.bytes_), (numpy.float32(2.5), str)):
        with pytest.warns(fnp.HostStringWarning, match="astype"):
            got = fnp.asarray(data).astype(dtype)
        assert type(got) is numpy.ndarray
        numpy.testing.assert_array_equal(got, numpy.asarray(data).astype(dtype))
    assert type(fnp.where(x > 0, x, 0.0)) is fnp.ndarray and type(x.astype(int)) is fnp.ndarray
