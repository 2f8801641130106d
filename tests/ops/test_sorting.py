"""The sort kernel (kernels/sort/) against NumPy's stable sort: every real dtype, any axis, both
directions, NaN / signed zeros / infinities, ties, short rows (insertion sort) and long rows (radix
passes), empty and one-element axes."""

import numpy as np
import pytest

import nabla.array_api as xp

R = np.random.default_rng(11)


def _data(dtype, shape):
    if dtype == np.bool_:
        return R.integers(0, 2, shape).astype(bool)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        # few distinct values (ties) mixed with the extremes
        a = R.integers(-3, 4, shape).astype(np.int64)
        a = np.where(a >= 0, a, a + (0 if info.min < 0 else 3)).astype(dtype)
        flat = a.reshape(-1)
        if flat.size > 4:
            flat[:2] = [info.min, info.max]
        return a
    a = np.round(R.standard_normal(shape) * 3).astype(dtype)  # rounded: ties
    flat = a.reshape(-1)
    if flat.size > 8:
        flat[:6] = [np.nan, -0.0, 0.0, np.inf, -np.inf, -np.nan]
        R.shuffle(flat)
    return a


def _stable_descending(a, axis):
    """NumPy has no descending sort: the stable order of the negated keys (NaN first)."""
    if a.dtype == np.bool_:
        keys = ~a
    elif np.issubdtype(a.dtype, np.unsignedinteger):
        keys = np.iinfo(a.dtype).max - a
    elif np.issubdtype(a.dtype, np.integer):
        keys = -a.astype(np.float64)  # the extremes may round, but stay the extremes
        keys = np.where(a == np.iinfo(a.dtype).min, np.inf, keys)
    else:
        keys = np.where(np.isnan(a), -np.inf, -a.astype(np.float64))
        # NaN first: below -inf, keep them apart by ranking -inf's after
        order = np.argsort(np.where(np.isnan(a), 0, 1), axis=axis, kind="stable")
        rest = np.take_along_axis(keys, order, axis)
        inner = np.argsort(np.where(np.take_along_axis(np.isnan(a), order, axis), -np.inf, rest),
                           axis=axis, kind="stable")
        return np.take_along_axis(order, inner, axis)
    return np.argsort(keys, axis=axis, kind="stable")


CASES = [((9,), 0), ((40,), 0), ((3, 33), 1), ((70, 3), 0), ((2, 5, 4), 1), ((4, 1, 3), 1), ((0, 5), 1), ((5, 0), 0),
         ((2500,), 0)]
DTYPES = [np.float64, np.float32, np.float16, np.int64, np.int32, np.int8, np.uint8, np.uint64, np.bool_]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_sort_and_argsort_match_numpy_stable(dtype):
    for shape, axis in CASES:
        a = _data(dtype, shape)
        x = xp.asarray(a)
        order = xp.argsort(x, axis=axis).numpy()
        np.testing.assert_array_equal(order, np.argsort(a, axis=axis, kind="stable"), err_msg=f"{shape} {axis}")
        values = xp.sort(x, axis=axis).numpy()
        expected = np.sort(a, axis=axis, kind="stable")
        np.testing.assert_array_equal(values, expected, err_msg=f"{shape} {axis}")
        if np.issubdtype(dtype, np.floating):  # -0.0 and 0.0 keep their order and their signs
            np.testing.assert_array_equal(np.signbit(values), np.signbit(np.take_along_axis(a, order, axis)))
        down = xp.argsort(x, axis=axis, descending=True).numpy()
        np.testing.assert_array_equal(down, _stable_descending(a, axis), err_msg=f"descending {shape} {axis}")


def test_long_rows_use_every_radix_digit():
    """Keys that differ in every byte: float64 bit patterns spread over the whole range."""
    a = R.standard_normal(5000) * 10.0 ** R.integers(-300, 300, 5000)
    np.testing.assert_array_equal(xp.argsort(xp.asarray(a)).numpy(), np.argsort(a, kind="stable"))
    b = R.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, 5000, dtype=np.int64)
    np.testing.assert_array_equal(xp.sort(xp.asarray(b)).numpy(), np.sort(b))


def test_sort_rejects_complex_and_0d():
    with pytest.raises(TypeError, match="sort"):
        xp.sort(xp.asarray(np.array([1 + 1j, 2j])))
    with pytest.raises(ValueError, match="0-d"):
        xp.argsort(xp.asarray(np.float64(3.0)))
