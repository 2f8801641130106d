"""Functions NumPy builds from others (``select``, ``vander``, ``partition``/``argpartition``) against
NumPy: result dtypes by NumPy's rules and its checks of bad input, the cases the composites fuzz
family found."""

from __future__ import annotations

import numpy
import pytest

import nabla.numpy as fnp


@pytest.mark.parametrize("n", [0, 5])
@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8"])
@pytest.mark.parametrize("default", [7, 2.5, numpy.float64(1), numpy.int8(3)])
def test_select_takes_a_python_default_as_weak(n, dtype, default):
    a = numpy.arange(n).astype(dtype) + 1
    x = fnp.asarray(a)
    want = numpy.select([a < 2, a > 3], [a * 2, a - 1], default=default)
    got = numpy.asarray(fnp.select([x < 2, x > 3], [x * 2, x - 1], default=default))
    assert got.dtype == want.dtype
    numpy.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8", "float16", "complex64"])
def test_vander_promotes_with_int64_as_numpy(dtype):
    a = numpy.arange(1, 4).astype(dtype)
    want = numpy.vander(a, 3)
    got = numpy.asarray(fnp.vander(fnp.asarray(a), 3))
    assert got.dtype == want.dtype
    numpy.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn", ["partition", "argpartition"])
@pytest.mark.parametrize("kth,axis,shape", [(1, 1, (5, 1)), (3, 0, (2, 2)), (-3, -1, (2, 2)), ([0, 5], None, (2, 2))])
def test_partition_refuses_kth_out_of_bounds(fn, kth, axis, shape):
    with pytest.raises(ValueError):
        getattr(numpy, fn)(numpy.zeros(shape), kth, axis=axis)
    with pytest.raises(ValueError, match="out of bounds"):
        getattr(fnp, fn)(fnp.zeros(shape), kth, axis=axis)


def test_partition_puts_the_kth_element_in_place():
    a = numpy.random.default_rng(0).integers(-2, 3, (5, 255)).astype("int32")
    for axis, k in ((0, 4), (1, 100), (-1, -1)):
        part = numpy.asarray(fnp.partition(fnp.asarray(a), k, axis=axis))
        taken = numpy.take_along_axis(a, numpy.asarray(fnp.argpartition(fnp.asarray(a), k, axis=axis)), axis=axis)
        want = numpy.take(numpy.partition(a, k, axis=axis), k, axis=axis)
        numpy.testing.assert_array_equal(numpy.take(part, k, axis=axis), want)
        numpy.testing.assert_array_equal(numpy.take(taken, k, axis=axis), want)
