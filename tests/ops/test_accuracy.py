"""Elementwise functions within a few ulp of NumPy's, over their whole ranges, down each first-sight
path (the fused kernel; MAX's graph, interpreted): a value printed in full is NumPy's value.

MAX's and Mojo's float64 ``exp`` were off by up to 2.5e6 ulp (``exp(20.0)``: 485165195.4137629
where NumPy gives 485165195.4097903), and every function built on it with them."""

import numpy as np
import pytest

import nabla.numpy as nnp

_RNG = np.random.default_rng(0)
#: name -> (inputs, the most ulp from NumPy's result allowed)
FLOAT64 = {
    # (from -708 on: MAX's CPU kernels flush subnormal results to zero)
    "exp": (np.concatenate([_RNG.uniform(-708, 709.7, 30000), _RNG.normal(size=30000) * 3,
                            _RNG.uniform(-1e-8, 1e-8, 1000)]), 1),
    "expm1": (np.concatenate([_RNG.normal(size=30000) * 3, _RNG.uniform(-1e-5, 1e-5, 5000),
                              _RNG.uniform(-700, 700, 5000)]), 3),
    "sinh": (_RNG.normal(size=30000) * 10, 4),
    "cosh": (_RNG.normal(size=30000) * 10, 3),
    "log": (np.exp(_RNG.uniform(-700, 700, 30000)), 1),
    "log1p": (np.exp(_RNG.uniform(-30, 5, 30000)), 1),
    "sin": (_RNG.uniform(-1e4, 1e4, 30000), 1),
    "cos": (_RNG.uniform(-1e4, 1e4, 30000), 1),
    "tanh": (_RNG.normal(size=30000) * 5, 4),
    "sqrt": (_RNG.uniform(0, 1e6, 30000), 0),
    "exp2": (np.concatenate([_RNG.uniform(-1020, 1023.9, 30000), _RNG.normal(size=1000)]), 1),
    "cbrt": (np.concatenate([_RNG.normal(size=20000) * 100, np.exp(_RNG.uniform(-700, 709, 10000))]), 1),
}


def _ulp(got, want):
    finite = np.isfinite(want) & (want != 0)
    assert (np.isfinite(got) == np.isfinite(want)).all()
    return (np.abs(got[finite] - want[finite]) / np.spacing(np.abs(want[finite]))).max()


@pytest.mark.parametrize("name", sorted(FLOAT64))
def test_float64_functions_are_numpys_to_a_few_ulp(name, first_sight):
    x, ulp = FLOAT64[name]
    got = getattr(nnp, name)(nnp.asarray(x)).numpy()
    assert _ulp(got, getattr(np, name)(x)) <= ulp


def test_exp_limits_and_a_printed_value():
    x = np.array([-np.inf, np.inf, np.nan, 709.78, 709.79, -708.3, -745.2, 0.0, -0.0, 20.0])
    got = nnp.exp(nnp.asarray(x)).numpy()
    np.testing.assert_array_equal(got[:3], [0, np.inf, np.nan])
    assert repr(float(got[-1])) == "485165195.4097903"
    assert _ulp(got, np.exp(x)) <= 1


def test_logaddexp_is_numpys_to_a_few_ulp(first_sight):
    a, b = _RNG.normal(size=(2, 20000)) * 20
    assert _ulp(nnp.logaddexp(nnp.asarray(a), nnp.asarray(b)).numpy(), np.logaddexp(a, b)) <= 8


def test_power_is_numpys_to_an_ulp(first_sight):
    """NumPy's pow is correctly rounded; Nabla's is e^(y log x) with the logarithm and its product in
    double-double, within an ulp at any exponent (in plain doubles it lost |y log x| ulp: a compound
    interest ``(1 + r / n) ** (n t)`` was off by 3.6e-9), ``x ** 2`` is ``x * x`` and ``x ** 0.5`` is
    sqrt, exactly, as NumPy's. (MAX's graph kernels flush subnormals, docs/array_api.md: on the
    interpreter's path subnormal operands and results are left out.)"""
    tiny = np.finfo(np.float64).tiny
    with np.errstate(over="ignore", under="ignore"):
        for x, y in [(_RNG.uniform(0.1, 10, 20000), _RNG.uniform(-5, 5, 20000)),
                     (_RNG.random(20000) * 3, _RNG.uniform(-1000, 1000, 20000)),
                     (_RNG.random(20000) * 3, np.round(_RNG.uniform(-300, 300, 20000))),
                     (np.exp(_RNG.uniform(-700, 700, 20000)), _RNG.uniform(-1, 1, 20000)),
                     (1 + _RNG.uniform(-1e-6, 1e-6, 20000), _RNG.uniform(-1e7, 1e7, 20000)),
                     (np.array([1.0000001, 1 + 0.05 / 31536000, 1.0000000001, 0.99999, 5e-324, 1e-310]),
                      np.array([1e8, 31536000.0 * 30, 2.0 ** 30, 2.0 ** 20 + 1, 0.5, -0.001]))]:
            want = x ** y
            got = (nnp.asarray(x) ** nnp.asarray(y)).numpy()
            kept = ~np.isnan(want) & ((np.abs(want) >= tiny) & (x >= tiny) | (first_sight == "fused"))
            assert (np.isnan(got) == np.isnan(want)).all()
            # (the graph's integral |y| <= 4 are MAX's pow, a few roundings)
            assert _ulp(got[kept], want[kept]) <= (1 if first_sight == "fused" else 2)
    x = _RNG.uniform(-10, 10, 20000)
    assert (nnp.asarray(x) ** nnp.asarray(np.full(20000, 2.0))).numpy().tolist() == (x * x).tolist()
    assert _ulp((nnp.asarray(x) ** 0.5).numpy(), x ** 0.5) == 0


def test_float32_hypot_is_numpys_to_the_bit(first_sight):
    """NumPy's float32 ``hypot`` is C's ``hypotf``, correctly rounded; Nabla's is computed in float64
    and rounded once more (its scaled float32 form was off by up to 2 ulp in a third of the values,
    and an ``exp`` of it by 10). Infinities win over NaNs, as C99's."""
    a, b = (_RNG.normal(size=(2, 50000)) * np.exp(_RNG.uniform(-20, 20, (2, 50000)))).astype(np.float32)
    a[:4], b[:4] = [np.inf, np.nan, 0.0, -3.0], [np.nan, -np.inf, 0.0, np.nan]
    got = nnp.hypot(nnp.asarray(a), nnp.asarray(b)).numpy()
    np.testing.assert_array_equal(got, np.hypot(a, b))


def test_float32_tanh_is_float64s_rounded_and_never_past_one(first_sight):
    """float32 ``tanh`` is computed in float64 and rounded once: Mojo's and MAX's float32 forms were
    off by up to 4 ulp near 1 and reached 1.0000002 at 8.99, where ``arctanh`` of it is NaN.
    |tanh| <= 1, as NumPy's (whose float32 tanh is itself a few ulp from the rounded value)."""
    x = np.linspace(-20, 20, 200001, dtype=np.float32)
    got = nnp.tanh(nnp.asarray(x)).numpy()
    assert got.dtype == np.float32 and np.abs(got).max() <= 1
    want = np.tanh(x.astype(np.float64)).astype(np.float32)
    assert np.count_nonzero(got != want) <= 20  # (float64's own last bits, rounded across a tie)
    assert _ulp(got, np.tanh(x)) <= 4
