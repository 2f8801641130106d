"""The program kernel's registers: a load in order is its slot's own memory (never written), and the
last instruction stores into the output where no slot meets it. Values against NumPy, to the bit,
at sizes across blocks, partial vectors and tasks, with outputs that are an input's own memory."""

import numpy as np
import pytest

import nabla.numpy as nnp

from .fused_paths import on_the_kernel

pytestmark = pytest.mark.usefixtures("fused_on", "recorded_small_ops")

SIZES = [2049, 4096, 4099, 70_001]

MAPS = {
    "a + b": lambda m, a, b: a + b,
    "a * 2.0": lambda m, a, b: a * 2.0,
    "a - a": lambda m, a, b: a - a,  # (one slot read twice)
    "a * b + a": lambda m, a, b: a * b + a,
    "where": lambda m, a, b: m.where(a > b, a, b),
    "b[:1] broadcast": lambda m, a, b: a + b[:1],  # (a slot of one value: filled)
    "a[::2] * b[1::2]": lambda m, a, b: m.sqrt(m.abs(a[:a.shape[0] - 1:2])) * b[1::2],  # (strided loads)
    "a[::-1] - b": lambda m, a, b: a[::-1] - b,
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", sorted(MAPS))
def test_maps_read_their_inputs_in_place_and_leave_them_unchanged(name, n, dtype):
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
    kept = a.copy(), b.copy()
    got, want = on_the_kernel(MAPS[name], (a, b))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a, kept[0])
    np.testing.assert_array_equal(b, kept[1])


@pytest.mark.parametrize("n", SIZES)
def test_reductions_and_scans_over_a_leaf(n):
    a = np.random.default_rng(n + 1).uniform(0.5, 1.5, n)
    for fn in (lambda m, x: m.sum(x), lambda m, x: m.max(x), lambda m, x: m.cumsum(x),
               lambda m, x: m.cumprod(x[:300]), lambda m, x: m.sum(x.reshape(n, 1) * 2.0, axis=0)):
        got, want = on_the_kernel(fn, (a,))
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", SIZES)
def test_an_output_that_is_an_input_computes_from_its_old_values(n):
    rng = np.random.default_rng(n + 2)
    x0, y0 = rng.standard_normal(n), rng.standard_normal(n)
    for update in (lambda m, x, y: x.__setitem__(slice(None), x * 2.0 + y),
                   lambda m, x, y: x.__setitem__(slice(1, None), x[1:] + x[:-1]),
                   lambda m, x, y: x.__setitem__(slice(None, -1), x[1:] * y[:-1]),
                   lambda m, x, y: x.__setitem__(slice(None), x[::-1] - y)):
        want, got = x0.copy(), nnp.asarray(x0)
        update(np, want, y0)
        update(nnp, got, nnp.asarray(y0))
        np.testing.assert_array_equal(np.asarray(got), want)


def test_float16_work_rounds_after_each_op():
    rng = np.random.default_rng(5)
    a, b = (rng.standard_normal(5000).astype(np.float16) for _ in range(2))
    got, want = on_the_kernel(lambda m, x, y: x * y + x, (a, b))
    np.testing.assert_array_equal(got, want)
