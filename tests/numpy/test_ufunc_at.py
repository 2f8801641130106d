"""``ufunc.at`` against NumPy's unbuffered in-place update: repeated indices all count, in order for
the ufuncs whose result depends on it; ``add`` and ``subtract`` as a scatter-add, the order-free ones
as one reduction per index."""

import numpy
import pytest

import nabla.numpy as fnp


@pytest.mark.parametrize("dtype", ["bool", "complex128", "complex64", "int16"])
def test_add_at_of_bool_and_complex_matches_numpy(dtype):
    """Repeated indices all count: bool accumulates as NumPy's OR, complex part by part."""
    idx = numpy.array([0, 2, 2, 5, 0, 0])
    scale = (1 + 0.5j) if dtype.startswith("complex") else 1
    a = (numpy.arange(8) % 3 == 0) if dtype == "bool" else (numpy.arange(8) * scale).astype(dtype)
    b = (numpy.arange(6) % 2 == 1) if dtype == "bool" else (numpy.arange(6) * scale * 2).astype(dtype)
    want = a.copy()
    numpy.add.at(want, idx, b)
    x = fnp.asarray(a)
    fnp.add.at(x, fnp.asarray(idx), fnp.asarray(b))
    got = x.numpy()
    assert got.dtype == want.dtype and numpy.array_equal(got, want)


def test_ufunc_at_applies_every_repeated_index_in_turn():
    """NumPy's ``at`` is unbuffered: each occurrence of a repeated index applies, in order."""
    cases = [("multiply", numpy.array([2.0, 3.0]), [0, 0, 1], numpy.array([5.0, 7.0, 11.0])),
             ("maximum", numpy.array([1, 1], numpy.int16), [1, 1], numpy.array([4, -43], numpy.int16)),
             ("minimum", numpy.arange(12.0).reshape(3, 4), ([0, 2, 0], [1, 1, 1]), numpy.array([-1.0, 5.0, -7.0])),
             ("multiply", numpy.arange(12.0).reshape(3, 4), [0, 2, 0], 2.0),
             ("subtract", numpy.arange(6.0), numpy.array([5, -1, 2, 5]), numpy.array([1.0, 2.0, 3.0, 4.0])),
             ("negative", numpy.arange(5.0), [1, 1, 3], None)]
    for name, a, idx, b in cases:
        want = a.copy()
        x = fnp.asarray(a)
        if b is None:
            getattr(numpy, name).at(want, idx)
            getattr(fnp, name).at(x, idx)
        else:
            getattr(numpy, name).at(want, idx, b)
            getattr(fnp, name).at(x, idx, b)
        got = x.numpy()
        assert got.dtype == want.dtype and numpy.array_equal(got, want), name


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin", "bitwise_or", "bitwise_xor", "logical_and"])
def test_order_free_ufunc_at_over_many_repeats_is_one_reduction_per_index(name):
    """A group-by ``maximum.at(m, labels, values)``: each label's values reduced together, then one
    op per label (a round per repeat cost ~23 us per element), NumPy's values: NaN kept, rows too."""
    import nabla as nb

    rng = numpy.random.default_rng(5)
    labels = rng.integers(0, 6, 3000)
    if name.startswith(("bitwise", "logical")):
        values, base = rng.integers(0, 16, 3000), rng.integers(0, 16, 6)
        if name.startswith("logical"):
            values, base = values > 7, base > 7
    else:
        values, base = rng.standard_normal((3000, 2)), rng.standard_normal((6, 2))
        values[::97] = numpy.nan
    want = base.copy()
    with numpy.errstate(invalid="ignore"):
        getattr(numpy, name).at(want, labels, values)
    x = fnp.asarray(base)
    before = nb.engine_stats()
    getattr(fnp, name).at(x, labels, values)
    got = x.numpy()
    after = nb.engine_stats()
    assert got.dtype == want.dtype and numpy.array_equal(got, want, equal_nan=want.dtype.kind == "f")
    assert sum(after[k] - before[k] for k in ("small_ops", "evaluations")) < 100  # (a round per repeat: ~500)
