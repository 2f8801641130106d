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


def test_power_is_numpys_to_the_exponents_scale(first_sight):
    """NumPy's pow is correctly rounded; Nabla's non-integer powers are e^(y log x), within about
    |y log x| ulp (MAX's own pow was off by up to 4e4), and ``x ** 0.5`` is sqrt, exact."""
    x, y = _RNG.uniform(0.1, 10, 20000), _RNG.uniform(-5, 5, 20000)
    assert _ulp((nnp.asarray(x) ** nnp.asarray(y)).numpy(), x ** y) <= 32
    assert _ulp((nnp.asarray(x) ** 0.5).numpy(), x ** 0.5) == 0
