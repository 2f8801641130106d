"""Sums of products of two inputs (``A @ x``, ``x @ A``, ``sum(a * b, axis)``) on the program kernel,
read straight from the inputs' data: NumPy's values in every layout and dtype, and the same bits as
the kernel's general path (which computes the products in registers first)."""

import numpy as np
import pytest

import nabla as nb
import nabla.numpy as nnp

from .fused_paths import on_the_kernel, run

pytestmark = pytest.mark.usefixtures("fused_on")

# rows of a block or less, several blocks, past one task's span (16 blocks), counts not a multiple
# of four or of a vector
LINES = [(7, 3), (9, 1023), (6, 1500), (5, 20_001), (301, 17)]


def _same_bits(f, g, *arrays):
    (got, ran), (general, _) = run(f, *arrays), run(g, *arrays)
    assert ran
    np.testing.assert_array_equal(got, general)
    return got


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("m,r", LINES)
def test_summed_products_are_the_general_paths_bits(m, r, dtype):
    """``sum(a * b, axis)`` read from the data against ``sum(a * b * 1, axis)`` (the same products,
    one more instruction: the general path), bit for bit, over rows and over columns."""
    rng = np.random.default_rng(m * r)
    a = (rng.standard_normal((m, r)) * 1e3).astype(dtype)
    v = rng.standard_normal(r).astype(dtype)
    one = np.asarray(1, dtype)
    rows = _same_bits(lambda x, y: nb.sum(x * y, axis=1), lambda x, y: nb.sum(x * y * one, axis=1), a, v)
    np.testing.assert_allclose(rows, (a * v).sum(axis=1), rtol=1e-4 if dtype == "float32" else 1e-11, atol=1e-2)
    at, w = np.ascontiguousarray(a.T), rng.standard_normal((r, 1)).astype(dtype)
    columns = _same_bits(lambda x, y: nb.sum(x * y, axis=0), lambda x, y: nb.sum(x * y * one, axis=0), at, w)
    np.testing.assert_allclose(columns, (at * w).sum(axis=0), rtol=1e-4 if dtype == "float32" else 1e-11, atol=1e-2)


LAYOUTS = {
    "A @ x": lambda m, A, x, y: A @ x,
    "y @ A": lambda m, A, x, y: y @ A,
    "A.T @ y": lambda m, A, x, y: A.T @ y,
    "x @ A.T": lambda m, A, x, y: x @ A.T,
    "strided": lambda m, A, x, y: A[::2, ::3] @ x[::3],
    "reversed": lambda m, A, x, y: A[::-1, ::-1] @ x,
    "a column": lambda m, A, x, y: A @ m.reshape(x, (-1, 1)),
    "batched": lambda m, A, x, y: m.stack([A, A * 2, A[::-1]]) @ x,
    "sum of products": lambda m, A, x, y: m.sum(A * x, axis=1),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("shape", [(6, 5), (37, 2049)])
def test_matrix_vector_products_in_every_layout_are_numpys(layout, shape, dtype):
    rng = np.random.default_rng(len(layout) * shape[1])
    A = rng.standard_normal(shape).astype(dtype)
    x, y = rng.standard_normal(shape[1]).astype(dtype), rng.standard_normal(shape[0]).astype(dtype)
    got, want = on_the_kernel(lambda m, A, x, y: LAYOUTS[layout](m, A, x, y), (A, x, y))
    np.testing.assert_allclose(got, want, rtol=1e-4 if dtype == "float32" else 1e-12, atol=1e-3)


def test_a_batched_products_rows_are_the_unbatched_ones():
    """Each product of a stack is the product of its matrix alone, bit for bit (SciPy compares a
    batched run with an unbatched one)."""
    rng = np.random.default_rng(3)
    A, x = rng.standard_normal((4, 33, 1500)), rng.standard_normal(1500)
    batched = np.asarray(nnp.asarray(A) @ nnp.asarray(x))
    for q in range(4):
        np.testing.assert_array_equal(batched[q], np.asarray(nnp.asarray(A[q]) @ nnp.asarray(x)))


WINDOWS = [  # (image shape, window, kept channels): rows that cross one, two and three axes of a load
    ((3, 9, 9, 3), 5, 8),
    ((2, 12, 10, 4), 3, 3),
    ((5, 8, 8, 2), 4, 17),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("image,k,kept", WINDOWS)
def test_windowed_products_summed_over_middle_axes_are_the_general_paths_bits(image, k, kept, dtype):
    """A convolution's ``sum(x[:, i:i + k, j:j + k, :, None] * w[None], axis=(1, 2, 3))``: rows of
    products over strided and broadcast loads, walked from one row to the next, against the general
    path bit for bit and NumPy's values; windows at several places."""
    rng = np.random.default_rng(image[1] * kept)
    x = rng.standard_normal(image).astype(dtype)
    w = rng.standard_normal((k, k, image[3], kept)).astype(dtype)
    one = np.asarray(1, dtype)
    for i, j in ((0, 0), (1, image[2] - k), (image[1] - k, 2)):
        def summed(a, b, scale=None):
            products = a[:, i:i + k, j:j + k, :, None] * b[None]
            return nb.sum(products if scale is None else products * scale, axis=(1, 2, 3))
        got = _same_bits(summed, lambda a, b: summed(a, b, one), x, w)
        want = (x[:, i:i + k, j:j + k, :, None] * w[None]).sum(axis=(1, 2, 3))
        np.testing.assert_allclose(got, want, rtol=1e-4 if dtype == "float32" else 1e-12, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("m,k,n", [(2, 7, 5), (9, 33, 300), (17, 1001, 70), (8, 130, 2500)])
def test_products_over_several_output_rows_are_the_general_paths_bits(m, k, n, dtype):
    """``x @ y`` as products summed over the contraction, read from the data over several output
    rows and column chunks, against the general path (the products in registers first): bit for
    bit, whatever the rows left over after the groups of four."""
    rng = np.random.default_rng(m * k + n)
    x = rng.standard_normal((m, k)).astype(dtype)
    y = rng.standard_normal((k, n)).astype(dtype)
    one = np.asarray(1, dtype)
    got = _same_bits(lambda a, b: nb.sum(nb.expand_dims(a, 2) * nb.expand_dims(b, 0), axis=1),
                     lambda a, b: nb.sum(nb.expand_dims(a, 2) * nb.expand_dims(b, 0) * one, axis=1), x, y)
    np.testing.assert_allclose(got, x @ y, rtol=1e-4 if dtype == "float32" else 1e-11, atol=1e-3)
