"""Corners that programs written as NumPy users write them met, each against NumPy itself: values,
dtypes and shapes, and the exception class NumPy raises for bad input."""

from __future__ import annotations

import numpy
import pytest

import nabla.numpy as fnp
from .test_additions import _same, _written, raises_as_numpy


def _stacked_into(m):
    out = m.zeros((3, 2))
    r = m.stack([m.arange(3.0), m.arange(3.0) * 2], axis=1, out=out)
    return out, r


def _covariance_masked_pairs(m):
    x = m.ma.masked_array([1.0, 2.0, 3.0, 4.0, 6.0], mask=[0, 0, 1, 0, 0])
    y = m.asarray([2.0, 1.0, 0.0, 3.0, 5.0])
    return m.ma.cov(x, y).filled(-1.0), m.ma.corrcoef(x, y).filled(-1.0)


def _pad_with(vector, widths, axis, kwargs):
    vector[:widths[0]] = kwargs.get("padder", 10)
    if widths[1]:
        vector[-widths[1]:] = kwargs.get("padder", 10) + axis


def _into_numpy(m):
    """NumPy arrays as a ufunc's outputs of ``m``'s operands: ``a += x``, ``out=``, ``where=``."""
    a = numpy.ones((2, 3))
    a += m.arange(3.0)
    b = numpy.zeros(3)
    m.multiply(m.arange(3.0), 2.0, out=b, where=numpy.asarray([True, False, True]))
    c = numpy.zeros(2)
    m.add.reduce(m.ones((3, 2)), axis=0, out=c)
    return a, b, c


CASES = {
    "stack_out": _stacked_into,
    "linspace_int_floors": lambda m: (m.linspace(-1, 1, 4, dtype=m.int64), m.linspace(-5, 0, 4, dtype=m.int32)),
    "quantile_2d_q": lambda m: (m.quantile(m.arange(10.0), m.asarray([[0.1, 0.2], [0.3, 0.4]])),
                                m.percentile(m.arange(12.0).reshape(3, 4), m.asarray([[10.0, 20.0], [30.0, 40.0]]),
                                             axis=1, keepdims=True),
                                m.nanquantile(m.arange(10.0), m.asarray([[0.1], [0.9]]))),
    "histogram_auto_bins": lambda m: (m.histogram_bin_edges(m.asarray([1.0, 2, 2, 3, 10]), bins="auto"),
                                      m.histogram(m.asarray(list(range(100)) + [1000.0]), bins="auto")[0]),
    "ma_cov_masked_pairs": _covariance_masked_pairs,
    "equal_text": lambda m: (m.asarray([1, 2]) == "a", m.asarray([1.5]) != "a", m.asarray([1, 2]) == None),  # noqa: E711
    "unique_empty_rows": lambda m: m.unique(m.zeros((0, 2), dtype=m.int64), axis=0),
    "roll_shifts_of_one_axis": lambda m: (m.roll(m.arange(6).reshape(2, 3), (1, 2), axis=1),
                                          m.roll(m.arange(6).reshape(2, 3), 1, axis=(0, 1, 1)),
                                          m.roll(m.arange(6).reshape(2, 3), (1, -1), axis=(0, 1))),
    "setitem_unit_axes": lambda m: _written(m, lambda m, a: a.__setitem__(m.asarray([1, 3]), m.ones((1, 4), "int32"))),
    "setitem_nested_lists": lambda m: (_written(m, lambda m, a: a.__setitem__(slice(1, 3), [[7, 8, 9, 1]])),
                                       _written(m, lambda m, a: a.__setitem__(([0, 2],), [[1, 2, 3, 4], [5, 6, 7, 8]]))),
    "full_of_an_array": lambda m: (m.full((2, 3), m.asarray([1.5, 2.5, 3.5]), dtype=m.int64), m.full((2, 2), [1, 2])),
    "concatenate_unsafe": lambda m: m.concatenate([m.ones(2), m.ones(2) * 2.5], dtype=m.int32, casting="unsafe"),
    "pad_by_a_function": lambda m: (m.pad(m.arange(6).reshape(2, 3), 2, _pad_with),
                                    m.pad(m.arange(6.0).reshape(2, 3), ((1, 0), (0, 2)), _pad_with, padder=-1.5)),
    "numpy_out_of_nabla": _into_numpy,
}


@pytest.mark.parametrize("name", list(CASES))
def test_against_numpy(name):
    _same(CASES[name](fnp), CASES[name](numpy), name)


ERRORS = {
    "bincount_weights_length": lambda m: m.bincount(m.asarray([1, 2]), weights=m.asarray([1.0])),
    "add_at_out_of_range": lambda m: m.add.at(m.ones(3), [3], 1.0),
    "add_at_below_range": lambda m: m.add.at(m.ones(3), [-4], 1.0),
    "maximum_at_out_of_range": lambda m: m.maximum.at(m.zeros(4), m.asarray([0, 9]), m.asarray([1.0, 2.0])),
    "take_along_axis_out_of_range": lambda m: m.take_along_axis(m.arange(6).reshape(2, 3), m.asarray([[0, 5]]), axis=1),
    "ravel_multi_index_out_of_range": lambda m: m.ravel_multi_index((m.asarray([3]), m.asarray([0])), (3, 4)),
    "ravel_multi_index_negative": lambda m: m.ravel_multi_index((m.asarray([-1]), m.asarray([0])), (3, 4)),
    "stack_out_shape": lambda m: m.stack([m.arange(3.0), m.arange(3.0)], out=m.zeros((3, 3))),
    "unique_axis_of_vector": lambda m: m.unique(m.arange(3), axis=1),
    "sort_kind": lambda m: m.sort(m.arange(3), kind="bogus"),
    "argsort_kind": lambda m: m.argsort(m.arange(3), kind=3),
    "norm_vector_fro": lambda m: m.linalg.norm(m.arange(3.0), ord="fro", axis=0),
    "lstsq_dimensions": lambda m: m.linalg.lstsq(m.ones((2, 3)), m.ones((4, 1))),
    "pad_mode": lambda m: m.pad(m.arange(3), 1, mode="bogus"),
    "arange_zero_step": lambda m: m.arange(0, 5, 0),
    "choice_p_sum": lambda m: m.random.default_rng(0).choice(3, p=[0.5, 0.2, 0.2]),
    "choice_p_negative": lambda m: m.random.default_rng(0).choice(3, p=[1.5, -0.5, 0.0]),
    "hash_of_an_array": lambda m: hash(m.zeros(2)),
    "histogram_bins_order": lambda m: m.histogram(m.asarray([1.0, 2.0]), bins=m.asarray([3.0, 1.0, 2.0])),
    "histogram_range_order": lambda m: m.histogram(m.asarray([1.0, 2.0]), bins=2, range=(3, 1)),
    "histogram_nan_range": lambda m: m.histogram(m.asarray([1.0, numpy.nan]), bins=2),
    "repeat_negative": lambda m: m.repeat(m.asarray([1, 2]), -1),
    "repeat_negative_counts": lambda m: m.repeat(m.asarray([1, 2]), m.asarray([1, -1])),
    "setitem_list_too_deep": lambda m: m.arange(5.0).__setitem__(slice(1, 3), [[7, 8]]),
    "concatenate_casting_no": lambda m: m.concatenate([m.ones(2), m.ones(2, dtype=m.int32)], casting="no"),
    "concatenate_dtype_same_kind": lambda m: m.concatenate([m.ones(2), m.ones(2)], dtype=m.int32),
    "stack_casting_safe": lambda m: m.stack([m.ones(2), m.ones(2)], dtype=m.float32, casting="safe"),
    "concatenate_out_and_dtype": lambda m: m.concatenate([m.ones(2)], out=m.zeros(2), dtype=m.float64),
    "numpy_out_casting": lambda m: numpy.ones(3, dtype=numpy.int64).__iadd__(m.ones(3)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_numpy(name):
    raises_as_numpy(ERRORS[name])
