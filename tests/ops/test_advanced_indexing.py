"""Advanced indexing's fast paths: a boolean mask of x's whole shape (``nabla/ops/masks.py``: ``x[m]``
and ``x[m] = v`` gather and scatter at the raveled mask's positions) and an integer array (``x[idx]``,
one gather); values, dtypes and errors NumPy's."""

import numpy as onp
import pytest

import nabla as nb
import nabla.numpy as np


def steps(m, x, y):
    """nbody's masked power, a masked copy from another array, writes selecting nothing and all."""
    x = x * 1.0
    x[x > 0] = x[x > 0] ** -1.5
    x[y > 0.5] = y[y > 0.5]
    x[x > 100] = x[x > 100] * 0  # (selects nothing)
    x[x == x] = x[x == x] + 1  # (selects everything)
    return x, x[y < 0.3], y[y < -10]


@pytest.mark.parametrize("shape", [(7,), (5, 6), (2, 3, 4)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_whole_shape_masks_read_and_write_as_numpy(shape, dtype):
    rng = onp.random.default_rng(11)
    x, y = (rng.random(shape) * 4 - 2).astype(dtype), rng.random(shape).astype(dtype)
    if dtype == "int64":  # (no negative powers of integers)
        x, y = onp.abs(x) + 1, (y * 3).astype(dtype)
    want = steps(onp, x.copy(), y)
    got = steps(np, np.asarray(x), np.asarray(y))
    for w, g in zip(want, got):
        g = onp.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape
        onp.testing.assert_allclose(g, w, rtol=1e-6)


def test_whole_shape_mask_errors_are_numpys():
    x = np.asarray(onp.arange(6.0).reshape(2, 3))
    with pytest.raises(ValueError):  # 3 values for 2 selected places
        x[x > 3] = np.asarray([1.0, 2.0, 3.0])
    with pytest.raises(IndexError):
        x[np.asarray(onp.ones((3, 2), bool))]
    onp.testing.assert_array_equal(onp.asarray(x), onp.arange(6.0).reshape(2, 3))  # untouched


def test_a_mask_read_twice_reuses_its_positions():
    """A mask of x's shape is one column of flat positions (a gather of the raveled x, where a
    column per axis was raveled by arithmetic), found once per mask."""
    from nabla.ops.index_primitives import gather_op

    # (a selection of up to 16,384 elements of realized data is computed as it is made)
    x = np.asarray(onp.arange(20000.0).reshape(200, 100))
    m = x > 999.5
    picked = x[m]
    node = picked._impl._values[0].node
    assert node.op is gather_op and [len(v.shape) for v in node.inputs] == [1, 1]
    before = nb.engine_stats()["evaluations"]
    onp.testing.assert_array_equal(onp.asarray(x[m] * 2), onp.arange(1000.0, 20000.0) * 2)
    assert nb.engine_stats()["evaluations"] - before == 1  # (the product's read only)


@pytest.mark.parametrize("n", [10, 5000])
def test_a_mask_written_in_place_finds_its_positions_again(n):
    """A mask's positions are kept per mask; an element or slice write into its memory at once (or
    into the array it is a row of) makes them stale, so the next selection finds them again."""
    x = np.arange(float(n))
    m = np.zeros(n, dtype=bool)
    m[2] = True
    want = onp.zeros(n, dtype=bool)
    want[2] = True
    for write in (lambda a: a.__setitem__(5, True), lambda a: a.__setitem__(slice(1, 3), [True, False]),
                  lambda a: a.__setitem__(slice(6, 8), onp.asarray([True, True]))):
        onp.testing.assert_array_equal(onp.asarray(x[m]), onp.arange(float(n))[want])
        onp.testing.assert_array_equal(onp.asarray(np.nonzero(m)[0]), onp.nonzero(want)[0])
        write(m)
        write(want)
    onp.testing.assert_array_equal(onp.asarray(x[m]), onp.arange(float(n))[want])
    onp.testing.assert_array_equal(onp.asarray(np.nonzero(m)[0]), onp.nonzero(want)[0])
    rows = np.zeros((3, n), dtype=bool)
    rows[0, 4] = True
    row = rows[0]
    onp.testing.assert_array_equal(onp.asarray(x[row]), [4.0])
    rows[0, 7] = True
    onp.testing.assert_array_equal(onp.asarray(x[row]), [4.0, 7.0])


@pytest.mark.parametrize("index_dtype", ["int64", "int32", "uint8", "int16"])
def test_integer_array_gathers_are_numpys(index_dtype):
    """``x[idx]`` with an integer array is one gather along the first axis (``indexing.gather_rows``):
    host indices checked at the call, negative ones wrapped, computed ones too."""
    rng = onp.random.default_rng(4)
    x, m = rng.random(9), rng.random((6, 3))
    cols = rng.integers(0, 6, 12).astype(index_dtype)
    X, M, C = np.asarray(x), np.asarray(m), np.asarray(cols)
    cases = [(X[C], x[cols]), (M[C], m[cols]), (X[C[2:7]], x[cols[2:7]]), (M[C.reshape(3, 4)], m[cols.reshape(3, 4)]),
             (X[C[:0]], x[cols[:0]]), (X[C * 1 + 1], x[cols * 1 + 1])]
    if index_dtype != "uint8":
        neg = cols.astype("int64") - 6
        cases += [(X[np.asarray(neg)], x[neg]), (M[np.asarray(neg) * 1], m[neg])]
    for got, want in cases:
        got = onp.asarray(got)
        assert got.dtype == want.dtype and got.shape == want.shape
        onp.testing.assert_array_equal(got, want)
    with pytest.raises(IndexError):
        M[np.asarray(onp.array([0, 6], index_dtype))]
