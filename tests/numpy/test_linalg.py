"""``numpy.linalg`` against NumPy, the oracle: NumPy's errors for what the shapes and dtypes decide
(float16, a vector or a non-square matrix where a stack of square ones is asked: LinAlgError, at the
call), and norms at the edges of the float range."""

import numpy
import pytest

import nabla.numpy as fnp


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "svd", "eigh", "eigvalsh", "eig", "eigvals", "qr",
                                  "cholesky", "pinv", "matrix_rank", "solve", "lstsq"])
def test_linalg_refuses_float16_as_numpy(name):
    """NumPy's LAPACK routines have no float16 form: the same TypeError, at the call."""
    a = numpy.eye(3, dtype=numpy.float16) * 2
    args = (a, a[:, 0]) if name in ("solve", "lstsq") else (a,)
    with pytest.raises(TypeError, match="float16 is unsupported") as ref:
        getattr(numpy.linalg, name)(*args)
    with pytest.raises(TypeError, match=f"linalg.{name}: array type float16 is unsupported"):
        getattr(fnp.linalg, name)(*[fnp.asarray(x) for x in args])
    assert ref.type is TypeError


def test_linalg_norm_of_float16_as_numpy():
    """``norm`` of float16 data is NumPy's (its own float16 arithmetic) except a matrix's 2-norm or
    nuclear norm, which asks LAPACK for singular values and is refused."""
    h = numpy.arange(12, dtype=numpy.float16).reshape(3, 4) / 3
    for kw in (dict(), dict(axis=1), dict(ord="fro"), dict(ord=1, axis=(0, 1)), dict(ord=2, axis=0)):
        ref = numpy.linalg.norm(h, **kw)
        got = fnp.linalg.norm(fnp.asarray(h), **kw)
        assert got.dtype == ref.dtype
        numpy.testing.assert_allclose(numpy.asarray(got), ref, rtol=2e-3)
    for kw in (dict(ord=2), dict(ord="nuc", axis=(1, 0))):
        with pytest.raises(TypeError):
            numpy.linalg.norm(h, **kw)
        with pytest.raises(TypeError, match="norm: array type float16"):
            fnp.linalg.norm(fnp.asarray(h), **kw)

@pytest.mark.parametrize("data", [[1e200, 1e200], [1e-200, 3e-200], [3e-160, 4e-160]], ids=["over", "under", "near"])
def test_linalg_norm_overflows_and_underflows_as_numpy(data):
    """NumPy's 2-norm and Frobenius norm square the data unscaled: past the root of the largest
    float the norm is inf, below the root of the smallest it is 0; Nabla's are NumPy's."""
    for x in (numpy.array(data), numpy.array([data, data]), numpy.array(data) * (1 + 1j)):
        forms = [dict(), dict(keepdims=True), dict(axis=-1), dict(axis=0, keepdims=True)]
        forms += [dict(ord="fro"), dict(axis=(0, 1))] if x.ndim == 2 else [dict(ord=2)]
        for kw in forms:
            with numpy.errstate(over="ignore", under="ignore"):
                ref = numpy.linalg.norm(x, **kw)
            got = numpy.asarray(fnp.linalg.norm(fnp.asarray(x), **kw))
            assert got.dtype == ref.dtype and got.shape == ref.shape
            numpy.testing.assert_array_equal(numpy.isinf(got), numpy.isinf(ref))
            numpy.testing.assert_allclose(got, ref, rtol=1e-14, atol=0)


SQUARE = ["inv", "det", "slogdet", "cholesky", "eig", "eigvals", "eigh", "eigvalsh", "solve", "matrix_power"]
ANY = ["qr", "svd", "pinv", "lstsq"]


@pytest.mark.parametrize("name", SQUARE + ANY)
def test_linalg_refuses_vectors_and_non_square_matrices_with_numpys_linalg_error(name):
    """A 1-D array where matrices are asked, and a non-square one where square ones are: NumPy's
    LinAlgError (a ValueError) at the call."""
    def call(m, a):
        args = {"solve": (a, m.ones(a.shape[-1] if a.ndim else 1)), "lstsq": (a, m.ones(a.shape[0] if a.ndim else 1)),
                "matrix_power": (a, 2)}.get(name, (a,))
        return getattr(m.linalg, name)(*args)

    shapes = [(3,), (2, 3)] if name in SQUARE else [(3,)]
    for shape in shapes:
        for m in (numpy, fnp):
            with pytest.raises(numpy.linalg.LinAlgError):
                call(m, m.zeros(shape))


def test_small_identities_are_kept_and_writes_into_one_leave_the_others():
    """``np.eye`` of a small shape is computed once and kept (a loop's ``np.eye(2) - K @ H``, ``inv``'s
    right-hand side); every caller gets NumPy's values, and a write into one (an element, a row op in
    place, an op rebinding it) changes no other."""
    for args, kw in (((3,), {}), ((2, 4), {"k": 1, "dtype": int}), ((3,), {"k": -5}), ((4, 3), {"k": -1})):
        numpy.testing.assert_array_equal(numpy.asarray(fnp.eye(*args, **kw)), numpy.eye(*args, **kw))
    a = fnp.eye(3)
    a[0, 1] = 5.0
    b = fnp.eye(3)
    b[1, :] += 7.0
    c = fnp.eye(3)
    c *= 2.0
    numpy.testing.assert_array_equal(numpy.asarray(fnp.eye(3)), numpy.eye(3))
    numpy.testing.assert_array_equal(numpy.asarray(b)[1], [7.0, 8.0, 7.0])
    m = numpy.array([[2.0, 1.0], [1.0, 3.0]])
    numpy.testing.assert_allclose(numpy.asarray(fnp.linalg.inv(fnp.asarray(m))), numpy.linalg.inv(m), rtol=1e-15)
