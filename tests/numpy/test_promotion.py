"""Operators and ufuncs over operands of different dtypes (NEP 50): an array with an array of
another dtype, or with a Python scalar its dtype does not take. Those whose NumPy loop is one float
dtype are recorded as casts and the op (``nabla/numpy/_ufuncs.py``, ``promoted_operands``); the
rest take the general path. Values and dtypes against NumPy, both orders, every pair."""

import operator
import warnings

import numpy as np
import pytest

import nabla.numpy as nnp

DTYPES = ["bool", "int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64"]
SCALARS = [0.5, -3, True, 2.0]
BINARY = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul, "true_divide": operator.truediv,
          "maximum": np.maximum, "minimum": np.minimum, "arctan2": np.arctan2, "hypot": np.hypot,
          "power": operator.pow, "floor_divide": operator.floordiv, "less": operator.lt}


def data(dtype, seed):
    r = np.random.default_rng(seed)
    if dtype == "bool":
        return r.random(7) < 0.5
    if dtype.startswith(("int", "uint")):
        return r.integers(0 if dtype.startswith("u") else -9, 10, 7).astype(dtype)
    return r.uniform(-4, 4, 7).astype(dtype)


def check(fn, a, b, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = np.asarray(fn(*(x if not isinstance(x, np.ndarray) else x for x in (a, b))))
        except (TypeError, OverflowError) as e:
            with pytest.raises(type(e)):
                fn(*(nnp.asarray(x) if isinstance(x, np.ndarray) else x for x in (a, b)))
            return
        got = np.asarray(fn(*(nnp.asarray(x) if isinstance(x, np.ndarray) else x for x in (a, b))))
    assert got.dtype == want.dtype, (name, a.dtype if hasattr(a, "dtype") else a, b, got.dtype, want.dtype)
    if name in ("arctan2", "hypot", "power", "true_divide") and want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=4 * np.finfo(want.dtype).eps, atol=0, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("left", DTYPES)
def test_arrays_of_two_dtypes_are_numpys(name, left):
    fn = BINARY[name]
    for right in DTYPES:
        if name == "power" and not (left.startswith("float") or right.startswith("float")):
            continue  # (integer powers with negative exponents: docs/numpy.md)
        check(fn, data(left, 1), data(right, 2), name)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", DTYPES)
def test_an_array_and_a_python_scalar_are_numpys(name, dtype):
    fn = BINARY[name]
    for s in SCALARS:
        if name == "power" and not dtype.startswith("float") and type(s) is int and s < 0:
            continue
        check(fn, data(dtype, 3), s, name)
        check(fn, s, data(dtype, 4), name)


@pytest.mark.usefixtures("recorded_small_ops")
def test_promoted_ops_record_casts_and_one_op():
    """``int_array * 0.5``: a cast of the array and the product, no more (the loop's dtype resolved once)."""
    b = nnp.asarray(np.arange(5, dtype=np.int32))
    r = b * 0.5
    node = r._impl._values[0].node
    assert node.op.name == "multiply"
    assert sorted(v.node.op.name for v in node.inputs if v.node is not None) == ["astype", "constant"]
    np.testing.assert_array_equal(np.asarray(r), np.arange(5, dtype=np.int32) * 0.5)


def test_in_place_ops_of_another_loop_raise_as_numpy():
    b = nnp.asarray(np.arange(5, dtype=np.int32))
    with pytest.raises(TypeError):
        b *= 0.5
    np.testing.assert_array_equal(np.asarray(b), np.arange(5))
    f = nnp.asarray(np.arange(5, dtype=np.float32))
    f += np.arange(5, dtype=np.int32)[0:5] * 0 + 1  # (NumPy's same_kind: float32 takes int64's sum)
    np.testing.assert_array_equal(np.asarray(f), np.arange(5, dtype=np.float32) + 1)


COMPLEX_OPS = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
               "true_divide": operator.truediv, "power": operator.pow, "equal": operator.eq}


@pytest.mark.parametrize("name", sorted(COMPLEX_OPS))
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_arrays_with_scalars_and_arrays_are_numpys(name, dtype):
    """Complex operands take the ufuncs' fast path (no dtype resolution where the dtypes agree or a
    scalar is weak): the dtypes and values are still NumPy's, strong NumPy scalars and other dtypes
    included."""
    fn = COMPLEX_OPS[name]
    r = np.random.default_rng(5)
    z = (r.uniform(-2, 2, 7) + 1j * r.uniform(-2, 2, 7)).astype(dtype)
    others = [1.5 - 2j, 0.5, 3, True, np.complex64(1 + 1j), np.complex128(2 - 1j), np.float64(1.25),
              np.float32(0.5), z[::-1].copy(), z.astype("complex128"), data("float32", 6), data("int64", 7)]
    for other in others:
        for a, b in ((z, other), (other, z)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = np.asarray(fn(a, b))
                got = np.asarray(fn(*(nnp.asarray(x) if isinstance(x, np.ndarray) else x for x in (a, b))))
            assert got.dtype == want.dtype, (name, dtype, type(other), got.dtype, want.dtype)
            tol = 1e-5 if want.dtype == np.complex64 else 1e-12
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "int32", "int8", "uint8", "bool",
                                   "complex128"])
@pytest.mark.parametrize("n", [0, 1, 6])
def test_dots_of_vectors_are_numpys(dtype, n):
    """``a @ b`` and ``dot(a, b)`` of two vectors (a product and a sum where the dtype allows:
    ``linalg.vector_dot``): NumPy's dtype and value, small integers wrapping as NumPy's do."""
    r = np.random.default_rng(n)
    a, b = (r.random(n) * 20).astype(dtype), (r.random(n) * 20).astype(dtype)
    for want, got in ((a @ b, nnp.asarray(a) @ nnp.asarray(b)), (np.dot(a, b), nnp.dot(nnp.asarray(a), nnp.asarray(b)))):
        want, got = np.asarray(want), np.asarray(got)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=2e-3 if dtype == "float16" else 1e-6)
