"""float16 work in the fused kernel: float32 registers, each float16 result rounded to float16 (as
NumPy's float16 loops compute in float32 and round each result), data read and written as float16.
Values against NumPy, with no MAX compile and no interpreter kernel: a float16 graph costs MAX
tens of seconds to compile on first sight."""

import numpy as np
import pytest

from .fused_paths import on_the_kernel

pytestmark = pytest.mark.usefixtures("fused_on")

# (nnp, h: float16, b: bool, i: int8, y: float32) -> a result
HALF = {
    "arithmetic": lambda m, h, b, i, y: (h * h + 0.1) / 3 - h,
    "rounds_each_step": lambda m, h, b, i, y: (h * 1000 + 1) - h * 1000,
    "overflows": lambda m, h, b, i, y: h * 30000,
    "exp": lambda m, h, b, i, y: m.exp(h * 4),
    "tanh_of_bool": lambda m, h, b, i, y: m.tanh(b.astype(m.float16)),
    "sin_cos": lambda m, h, b, i, y: m.sin(h) * m.cos(h),
    "sqrt_log": lambda m, h, b, i, y: m.sqrt(m.abs(h)) + m.log1p(m.abs(h)),
    "compare": lambda m, h, b, i, y: h > 0.3,
    "where": lambda m, h, b, i, y: m.where(b, h, -h),
    "int8_to_half": lambda m, h, b, i, y: i.astype(m.float16) / 7,
    "half_to_float32": lambda m, h, b, i, y: h.astype(m.float32) + y,
    "float32_to_half": lambda m, h, b, i, y: (y * 3).astype(m.float16) + h,
    "half_to_int": lambda m, h, b, i, y: (h * 10).astype(m.int16),
    "isnan": lambda m, h, b, i, y: m.isnan(m.sqrt(h)),
    "arange": lambda m, h, b, i, y: m.arange(h.shape[-1], dtype=m.float16) * h,
    "any": lambda m, h, b, i, y: m.any(h > 4, axis=-1),
    "any_of_values": lambda m, h, b, i, y: m.any(h[::-1] * 0, axis=0),
    "all": lambda m, h, b, i, y: m.all(m.abs(h) < 9),
    "count": lambda m, h, b, i, y: m.count_nonzero(h > 0.5, axis=-1),
    "sum": lambda m, h, b, i, y: m.sum(h * 0.25, axis=-1),
    "max": lambda m, h, b, i, y: m.max(m.abs(h), axis=-1),
    "mean": lambda m, h, b, i, y: m.mean(h),
}
#: results that go through a transcendental function: float32's result may differ from the C
#: library's by an ulp of float32, rounding to a neighbouring float16 near a tie
_LIBM = {"exp", "tanh_of_bool", "sin_cos", "sqrt_log"}


@pytest.mark.parametrize("shape", [(7,), (3, 1025), (70001,)])
@pytest.mark.parametrize("name", sorted(HALF))
def test_float16_work_runs_fused_like_numpy(name, shape):
    rng = np.random.default_rng(len(name))
    h = (rng.normal(size=shape) * 3).astype(np.float16)
    data = (h, rng.normal(size=shape) > 0.3, rng.integers(-128, 128, size=shape).astype(np.int8),
            rng.normal(size=shape).astype(np.float32))
    got, want = on_the_kernel(HALF[name], data)
    if name in ("sum", "mean"):  # (accumulated in float64 where NumPy accumulates in float32: rounded alike
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2 ** -10)  # but for ties)
    elif name in _LIBM:
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2 ** -10, atol=2 ** -24)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("axes", [0, (0, 1), (0, 1, 2), 1])
@pytest.mark.parametrize("op", ["sum", "prod", "var"])
def test_float16_reductions_over_axes_before_the_last_add_row_by_row_like_numpy(op, axes):
    """NumPy adds each row into a float16 output in turn where the reduced axes come before the
    last, every partial rounded to float16 (a sum of 5,000 values near 1 stops at 4,096): sums and
    products bit for bit, on a strided view too (the fuzzer's seed 134663)."""
    rng = np.random.default_rng(7)
    scale = 0.05 if op == "prod" else 1.0
    h = (rng.normal(size=(32, 33, 9, 4)) * scale + (1.0 if op == "prod" else 0.5)).astype(np.float16)
    got, want = on_the_kernel(lambda m, a: getattr(m, op)(a[::2], axis=axes), (h,))
    if op == "var":  # (its mean and squares round apart from NumPy's steps: within a few ulps, where
        np.testing.assert_allclose(got, want, rtol=2 ** -8)  # a float64 sum was 10% off)
    else:
        np.testing.assert_array_equal(got, want)


def test_a_float64_value_cast_to_float16_is_rounded_once():
    """float64 -> float16 through float32 registers would round twice; NumPy rounds once."""
    import nabla.numpy as nnp

    # 1 + 2**-11 + 2**-40: above the float16 tie between 1 and 1 + 2**-10; float32 rounds it onto
    # the tie, which then rounds to even (1.0)
    x = np.array([1 + 2 ** -11 + 2 ** -40] * 5)
    got = np.asarray(nnp.asarray(x).astype(nnp.float16) * 1)
    want = x.astype(np.float16) * np.float16(1)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


#: float16's edges: zeros, ones, powers of two (where a step down is half a step up), the smallest
#: normal and subnormal, the largest finite value, infinities, NaN
_HALF_EDGES = np.array([0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 3.0, 0.1, -0.3, 1024.0, 6.1035e-05, -6.1035e-05,
                        5.96e-08, -5.96e-08, 65504.0, -65504.0, np.inf, -np.inf, np.nan], np.float16)


def test_nextafter_and_spacing_of_float16_step_float16s_bits():
    """float16's next value is float16's, bit for bit (not float32's rounded), on the kernel: a
    uint8 or bool operand's ``nextafter``/``spacing`` is float16 in NumPy, and compiled a float16
    model for a minute before."""
    x, y = (a.ravel() for a in np.meshgrid(_HALF_EDGES, _HALF_EDGES))
    got, want = on_the_kernel(lambda m, a, b: m.nextafter(a, b), (x, y))
    np.testing.assert_array_equal(got.view(np.uint16)[~np.isnan(want)], want.view(np.uint16)[~np.isnan(want)])
    assert np.isnan(got[np.isnan(want)]).all()
    u = np.arange(256, dtype=np.uint8)
    for fn, data in ((lambda m, a: m.spacing(a), (u,)), (lambda m, a: m.spacing(a), (np.array([True, False]),)),
                     (lambda m, a, b: m.nextafter(a, b), (u, u[::-1].copy())),
                     (lambda m, a: m.spacing(a), (_HALF_EDGES[np.isfinite(_HALF_EDGES)],))):
        got, want = on_the_kernel(fn, data)
        np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))
