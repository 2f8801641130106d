"""The linalg extension against NumPy's LAPACK and against the definitions: reconstruction and
orthogonality residuals within a small multiple of n * eps * ||A||, on random, ill-conditioned,
rank-deficient, Hermitian, near-singular and huge/tiny inputs, stacks of any rank, empty stacks
and 0 x 0 matrices; NaN/inf terminate; vmap against a Python loop; gradients of small models
against finite differences (the per-op rules are in test_autodiff's registry)."""

import math

import numpy as np
import pytest

import nabla as nb

xp = nb.array_api
la = xp.linalg
R = np.random.default_rng(11)
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
EPS = {np.float32: 2.0 ** -23, np.float64: 2.0 ** -52, np.complex64: 2.0 ** -23, np.complex128: 2.0 ** -52}


def rand(shape, dtype=np.float64, scale=1.0):
    a = R.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * R.standard_normal(shape)
    return (a * scale).astype(dtype)


def H(a):
    return np.conj(np.swapaxes(a, -1, -2))


def with_condition(n, cond, dtype=np.float64, shape=()):
    """Random matrices U diag(s) V^H with singular values from 1 down to 1/cond."""
    u, _ = np.linalg.qr(rand(shape + (n, n), np.complex128 if np.iscomplexobj(np.zeros(1, dtype)) else np.float64))
    v, _ = np.linalg.qr(rand(shape + (n, n), u.dtype))
    s = np.logspace(0, -math.log10(cond), n)
    return ((u * s[..., None, :]) @ H(v)).astype(dtype)


def hermitian(shape, dtype):
    a = rand(shape, dtype)
    return ((a + H(a)) / 2).astype(dtype)


def pos_def(shape, dtype):
    a = rand(shape, dtype)
    n = shape[-1]
    return (a @ H(a) + n * np.eye(n)).astype(dtype)


def tol(dtype, n, norm=1.0, k=30):
    return k * max(n, 1) * EPS[np.dtype(dtype).type] * norm


def fro(a):
    return np.linalg.norm(a, axis=(-2, -1)).max() if a.size else 0.0


def arr(a):
    return xp.asarray(a)


# --- decompositions: residuals, stacks, dtypes -----------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 5), (2, 3, 4, 4), (1, 1)])
def test_cholesky(dtype, shape):
    a = pos_def(shape, dtype)
    low = la.cholesky(arr(a)).numpy()
    assert low.dtype == dtype and low.shape == shape
    assert np.all(np.triu(low, 1) == 0)
    assert fro(low @ H(low) - a) <= tol(dtype, shape[-1], fro(a))
    up = la.cholesky(arr(a), upper=True).numpy()
    assert np.all(np.tril(up, -1) == 0)
    np.testing.assert_allclose(up, H(low), rtol=0, atol=tol(dtype, shape[-1], fro(a)))


def test_cholesky_not_positive_definite_is_nan():
    a = np.array([[1.0, 2.0], [2.0, 1.0]])
    assert np.isnan(la.cholesky(arr(a)).numpy()[1, 1])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["reduced", "complete"])
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (3, 5, 5), (2, 1, 7, 3)])
def test_qr(dtype, mode, shape):
    a = rand(shape, dtype)
    q, r = la.qr(arr(a), mode=mode)
    q, r = q.numpy(), r.numpy()
    m, n = shape[-2:]
    k = min(m, n) if mode == "reduced" else m
    assert q.shape == shape[:-2] + (m, k) and r.shape == shape[:-2] + (k, n) and q.dtype == dtype
    assert np.all(np.tril(r, -1) == 0)
    assert fro(q @ r - a) <= tol(dtype, max(m, n), fro(a))
    assert fro(H(q) @ q - np.eye(k)) <= tol(dtype, m)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 6), (2, 3, 4, 4), (3, 20, 20)])  # Jacobi below 6 and for complex; tridiagonal QR
def test_eigh(dtype, shape):
    a = hermitian(shape, dtype)
    w, v = la.eigh(arr(a))
    w, v = w.numpy(), v.numpy()
    real = np.float32 if dtype in (np.float32, np.complex64) else np.float64
    assert w.dtype == real and v.dtype == dtype
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), rtol=0, atol=tol(dtype, shape[-1], fro(a)))
    assert np.all(np.diff(w, axis=-1) >= 0)
    assert fro(a @ v - v * w[..., None, :]) <= tol(dtype, shape[-1], fro(a))
    assert fro(H(v) @ v - np.eye(shape[-1])) <= tol(dtype, shape[-1])
    np.testing.assert_array_equal(la.eigvalsh(arr(a)).numpy(), w)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("shape", [(7, 4), (4, 7), (5, 5), (2, 2, 3, 6), (3, 9, 7), (33, 40)])
def test_svd(dtype, full, shape):
    a = rand(shape, dtype)
    u, s, vh = la.svd(arr(a), full_matrices=full)
    u, s, vh = u.numpy(), s.numpy(), vh.numpy()
    m, n = shape[-2:]
    k = min(m, n)
    assert u.shape[-2:] == ((m, m) if full else (m, k)) and vh.shape[-2:] == ((n, n) if full else (k, n))
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=0, atol=tol(dtype, max(m, n), fro(a)))
    assert np.all(np.diff(s, axis=-1) <= 0)
    assert fro((u[..., :k] * s[..., None, :]) @ vh[..., :k, :] - a) <= tol(dtype, max(m, n), fro(a))
    assert fro(H(u) @ u - np.eye(u.shape[-1])) <= tol(dtype, m)
    assert fro(vh @ H(vh) - np.eye(vh.shape[-2])) <= tol(dtype, n)
    np.testing.assert_array_equal(la.svdvals(arr(a)).numpy(), s)


@pytest.mark.parametrize("dtype", DTYPES)
def test_eig(dtype):
    a = rand((3, 6, 6), dtype)
    w, v = la.eig(arr(a))
    w, v = w.numpy(), v.numpy()
    cdtype = np.complex64 if dtype in (np.float32, np.complex64) else np.complex128
    assert w.dtype == cdtype and v.dtype == cdtype
    want = np.linalg.eigvals(a)
    gap = np.abs(w[..., :, None] - want[..., None, :])  # each eigenvalue has a match, both ways
    assert gap.min(axis=-1).max() <= tol(dtype, 6, fro(a), 100) and gap.min(axis=-2).max() <= tol(dtype, 6, fro(a), 100)
    assert fro(a @ v - v * w[..., None, :]) <= tol(dtype, 6, fro(a), 100)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, rtol=tol(dtype, 6))
    np.testing.assert_array_equal(la.eigvals(arr(a)).numpy(), w)


@pytest.mark.parametrize("dtype", DTYPES)
def test_solve_inv_det_slogdet(dtype):
    a = rand((2, 3, 5, 5), dtype) + 3 * np.eye(5, dtype=dtype)
    b = rand((3, 5, 2), dtype)
    x = la.solve(arr(a), arr(b)).numpy()
    assert x.shape == (2, 3, 5, 2) and x.dtype == dtype
    assert fro(a @ x - b) <= tol(dtype, 5, fro(a) * fro(x))
    vec = rand((5,), dtype)
    np.testing.assert_allclose(la.solve(arr(a), arr(vec)).numpy(), np.linalg.solve(a, vec[:, None])[..., 0],
                               rtol=tol(dtype, 5, 10), atol=tol(dtype, 5, 10))
    ainv = la.inv(arr(a)).numpy()
    assert fro(a @ ainv - np.eye(5)) <= tol(dtype, 5, fro(a) * fro(ainv))
    np.testing.assert_allclose(la.det(arr(a)).numpy(), np.linalg.det(a), rtol=tol(dtype, 5, 10))
    sign, logabs = la.slogdet(arr(a))
    ws, wl = np.linalg.slogdet(a)
    np.testing.assert_allclose(sign.numpy(), ws, rtol=tol(dtype, 5, 10), atol=tol(dtype, 5, 10))
    np.testing.assert_allclose(logabs.numpy(), wl, rtol=tol(dtype, 5, 10), atol=tol(dtype, 5, 10))
    assert logabs.dtype == (xp.float32 if dtype in (np.float32, np.complex64) else xp.float64)


@pytest.mark.parametrize("n", [97, 150])  # the blocked LU and Cholesky (order 96 and up), ragged panels
def test_blocked_factorizations(n):
    a = rand((2, n, n)) + 2 * math.sqrt(n) * np.eye(n)
    b = rand((2, n, 3))
    x = la.solve(arr(a), arr(b)).numpy()
    assert fro(a @ x - b) <= tol(np.float64, n, fro(a) * fro(x))
    ainv = la.inv(arr(a)).numpy()
    assert fro(a @ ainv - np.eye(n)) <= tol(np.float64, n, fro(a) * fro(ainv))
    sign, logabs = la.slogdet(arr(a))
    ws, wl = np.linalg.slogdet(a)
    np.testing.assert_array_equal(sign.numpy(), ws)
    np.testing.assert_allclose(logabs.numpy(), wl, rtol=tol(np.float64, n))
    singular = a[0].copy()
    singular[:, 40] = 0.0
    assert la.det(arr(singular)).numpy() == 0
    spd = pos_def((2, n, n), np.float64)
    low = la.cholesky(arr(spd)).numpy()
    assert np.all(np.triu(low, 1) == 0) and np.all(np.diagonal(low, axis1=-2, axis2=-1) > 0)
    assert fro(low @ H(low) - spd) <= tol(np.float64, n, fro(spd))
    spd[1, 60, 60] = -1e6  # not positive definite from row 60 on
    bad = la.cholesky(arr(spd)).numpy()
    assert np.isfinite(bad[0]).all() and np.isfinite(bad[1, :60, :60]).all() and np.isnan(bad[1, 60:, 60]).all()


@pytest.mark.parametrize("n", [1, 2, 5, 8, 16])
def test_small_stacks_in_simd_lanes(n):
    """37 matrices: whole groups of SIMD-width lanes (lanes.mojo) and a tail one at a time, with a
    zero leading entry (a row swap in one lane only), a NaN matrix and a not-positive-definite
    one inside a group: their lanes go bad, their neighbours do not."""
    a = rand((37, n, n)) + 2 * np.eye(n)
    if n > 1:
        a[3, 0, 0] = 0.0  # lane 3 must pivot at once
    b = rand((37, n, 3))
    a[10, n - 1, 0] = np.nan
    x = la.solve(arr(a), arr(b)).numpy()
    good = [i for i in range(37) if i != 10]
    np.testing.assert_allclose(x[good], np.linalg.solve(a[good], b[good]), rtol=1e-9, atol=1e-9)
    assert np.isnan(x[10]).all()
    x1 = la.solve(arr(a[good]), arr(b[good, :, :1])).numpy()
    np.testing.assert_allclose(x1, np.linalg.solve(a[good], b[good, :, :1]), rtol=1e-9, atol=1e-9)
    spd = pos_def((37, n, n), np.float64)
    spd[5, n - 1, n - 1] = -1.0  # not positive definite at its last pivot
    low = la.cholesky(arr(spd)).numpy()
    ok = [i for i in range(37) if i != 5]
    np.testing.assert_allclose(low[ok], np.linalg.cholesky(spd[ok]), rtol=1e-10, atol=1e-12)
    assert np.all(np.triu(low, 1) == 0)
    assert np.isnan(low[5, n - 1, n - 1]) and np.isfinite(low[5, : n - 1, : n - 1]).all()


def test_singular_determinants():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert la.det(arr(a)).numpy() == 0
    sign, logabs = la.slogdet(arr(a))
    assert sign.numpy() == 0 and logabs.numpy() == -np.inf


# --- hard inputs ----------------------------------------------------------------------------

@pytest.mark.parametrize("cond", [1e4, 1e8])
def test_ill_conditioned(cond):
    a = with_condition(8, cond, shape=(3,))
    b = rand((3, 8, 2))
    x = la.solve(arr(a), arr(b)).numpy()
    # backward stable: the residual is small relative to ||A|| ||x||
    assert fro(a @ x - b) <= tol(np.float64, 8, fro(a) * fro(x))
    s = la.svdvals(arr(a)).numpy()
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=0, atol=tol(np.float64, 8))
    spd = a @ H(a)
    w = la.eigvalsh(arr(spd)).numpy()
    np.testing.assert_allclose(w, np.linalg.eigvalsh(spd), rtol=0, atol=tol(np.float64, 8))
    q, r = la.qr(arr(a))
    assert fro(q.numpy() @ r.numpy() - a) <= tol(np.float64, 8, fro(a))


@pytest.mark.parametrize("m, rank, n", [(6, 2, 5), (40, 3, 30)])  # Jacobi; Golub-Kahan (zeros on B's diagonal)
def test_rank_deficient(m, rank, n):
    a = rand((m, rank)) @ rand((rank, n))
    u, s, vh = la.svd(arr(a))
    u, s, vh = u.numpy(), s.numpy(), vh.numpy()
    assert fro(H(u) @ u - np.eye(m)) <= tol(np.float64, m) and fro(vh @ H(vh) - np.eye(n)) <= tol(np.float64, m)
    assert fro((u[:, :n] * s) @ vh - a) <= tol(np.float64, m, fro(a))
    assert int(la.matrix_rank(arr(a)).numpy()) == rank
    pinv = la.pinv(arr(a)).numpy()
    np.testing.assert_allclose(pinv, np.linalg.pinv(a), atol=tol(np.float64, m, fro(pinv), 100))
    zero = np.zeros((m - 2, n - 2))
    u, s, vh = la.svd(arr(zero))
    assert np.all(s.numpy() == 0) and fro(H(u.numpy()) @ u.numpy() - np.eye(m - 2)) <= tol(np.float64, m)


def test_near_singular_and_hermitian_complex():
    a = np.diag([1.0, 1e-14, 1.0]) + 1e-16 * rand((3, 3))
    np.testing.assert_allclose(la.det(arr(a)).numpy(), np.linalg.det(a), rtol=1e-9)
    h = hermitian((5, 5), np.complex128)
    w, v = la.eigh(arr(h))
    assert fro(h @ v.numpy() - v.numpy() * w.numpy()) <= tol(np.complex128, 5, fro(h))


@pytest.mark.parametrize("shape", [(4, 3), (12, 9)])
@pytest.mark.parametrize("scale", [1e300, 1e-300, 3e38])
def test_huge_and_tiny_magnitudes(scale, shape):
    a = rand(shape) * scale
    s = la.svdvals(arr(a)).numpy()
    assert np.all(np.isfinite(s)) and np.all(np.diff(s) <= 0)
    np.testing.assert_allclose(s / scale, np.linalg.svd(a / scale, compute_uv=False), rtol=1e-13)
    h = a.T @ a / scale if scale < 1 else (a / scale).T @ (a / scale) * scale
    w = la.eigvalsh(arr(h)).numpy()
    np.testing.assert_allclose(w, np.linalg.eigvalsh(h), rtol=1e-12, atol=1e-12 * np.abs(w).max())
    f32 = (rand((4, 3)) * 3e37).astype(np.float32)
    s32 = la.svdvals(arr(f32)).numpy()
    assert np.all(np.isfinite(s32)) and np.all(np.diff(s32) <= 0)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_and_inf_terminate(bad):
    a = rand((2, 4, 4))
    a[0, 1, 2] = bad
    for out in (la.svdvals(arr(a)), la.eigvalsh(arr(a)), la.eigvals(arr(a)), la.det(arr(a)),
                la.solve(arr(a), arr(rand((2, 4, 1)))), la.cholesky(arr(a @ H(a)))):
        got = out.numpy()
        assert np.isnan(got[0]).all() or not np.isfinite(got[0]).all()
    assert np.isfinite(la.svdvals(arr(a)).numpy()[1]).all()  # the other matrix of the stack is untouched


def test_empty_stacks_and_zero_size_matrices():
    assert la.det(arr(np.zeros((0, 0)))).numpy() == 1
    sign, logabs = la.slogdet(arr(np.zeros((3, 0, 0))))
    np.testing.assert_array_equal(sign.numpy(), 1)
    np.testing.assert_array_equal(logabs.numpy(), 0)
    for f, want in [(la.cholesky, (0, 3, 3)), (la.inv, (0, 3, 3)), (la.det, (0,)), (la.eigvalsh, (0, 3)),
                    (la.svdvals, (0, 3)), (la.eigvals, (0, 3))]:
        assert f(arr(np.zeros((0, 3, 3)))).shape == want
    q, r = la.qr(arr(np.zeros((2, 4, 0))))
    assert q.shape == (2, 4, 0) and r.shape == (2, 0, 0)
    u, s, vh = la.svd(arr(np.zeros((3, 0))))
    np.testing.assert_array_equal(u.numpy(), np.eye(3))
    assert s.shape == (0,) and vh.shape == (0, 0)
    assert la.solve(arr(np.zeros((0, 2, 2))), arr(np.zeros((0, 2, 1)))).shape == (0, 2, 1)


# --- compositions ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_norms(dtype):
    a = rand((2, 3, 4), dtype)
    for ord in ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]:
        got = la.matrix_norm(arr(a), ord=ord).numpy()
        np.testing.assert_allclose(got, np.linalg.norm(a, ord=ord, axis=(-2, -1)), rtol=tol(dtype, 4, 10))
    assert la.matrix_norm(arr(a), keepdims=True).shape == (2, 1, 1)
    for ord in [2, 1, np.inf, -np.inf, 0, 3, -1, 0.5]:
        got = la.vector_norm(arr(a), axis=-1, ord=ord).numpy()
        # general p goes through pow, whose float64 error MAX keeps near 1e-13
        rtol = tol(dtype, 4, 10) if ord in (2, 1, np.inf, -np.inf, 0) else max(tol(dtype, 4, 10), 1e-12)
        np.testing.assert_allclose(got, np.linalg.norm(a, ord=ord, axis=-1), rtol=rtol)
    np.testing.assert_allclose(la.vector_norm(arr(a)).numpy(), np.linalg.norm(a.ravel()), rtol=tol(dtype, 24))
    big = np.array([3e300, 4e300])
    np.testing.assert_allclose(la.vector_norm(arr(big)).numpy(), 5e300, rtol=1e-15)


def test_small_compositions():
    a = rand((3, 4, 4))
    np.testing.assert_allclose(la.matrix_power(arr(a), 5).numpy(), np.linalg.matrix_power(a, 5), rtol=1e-10)
    np.testing.assert_allclose(la.matrix_power(arr(a), -3).numpy(), np.linalg.matrix_power(a, -3), rtol=1e-8)
    np.testing.assert_array_equal(la.matrix_power(arr(a), 0).numpy(), np.broadcast_to(np.eye(4), a.shape))
    for off in (0, 1, -2, 5):
        np.testing.assert_array_equal(la.diagonal(arr(a), offset=off).numpy(), np.diagonal(a, off, -2, -1))
        np.testing.assert_allclose(la.trace(arr(a), offset=off).numpy(), np.trace(a, off, axis1=-2, axis2=-1))
    i = np.arange(12).reshape(4, 3)
    np.testing.assert_array_equal(la.cross(arr(i), arr(i[::-1].copy())).numpy(), np.cross(i, i[::-1]))
    np.testing.assert_array_equal(la.cross(arr(i[:1]), arr(i[None])).numpy(), np.cross(i[:1], i[None]))
    with pytest.raises(ValueError, match="size 3"):
        la.cross(arr(np.ones((2, 4))), arr(np.ones((2, 4))))
    x, y = np.arange(3), np.arange(4.0)
    np.testing.assert_array_equal(la.outer(arr(x), arr(y)).numpy(), np.outer(x, y))
    assert la.matrix_rank(arr(np.stack([np.eye(3), np.diag([1.0, 0, 0])]))).numpy().tolist() == [3, 1]


def test_errors_name_the_op_and_shapes():
    with pytest.raises(ValueError, match=r"linalg.inv.*square"):
        la.inv(arr(np.ones((2, 3))))
    with pytest.raises(TypeError, match=r"linalg.cholesky.*int64"):
        la.cholesky(arr(np.ones((2, 2), np.int64)))
    with pytest.raises(ValueError, match=r"linalg.solve"):
        la.solve(arr(np.eye(3)), arr(np.ones((2, 1))))
    with pytest.raises(ValueError, match="mode"):
        la.qr(arr(np.eye(2)), mode="r")


def test_namespace_and_top_level():
    assert nb.linalg is la and xp.linalg is la
    assert sorted(la.__all__) == sorted(
        ["cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matmul", "matrix_norm",
         "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd",
         "svdvals", "tensordot", "trace", "vecdot", "vector_norm"])
    assert la.qr(arr(np.eye(2)))._fields == ("Q", "R")
    assert la.svd(arr(np.eye(2)))._fields == ("U", "S", "Vh")
    assert la.slogdet(arr(np.eye(2)))._fields == ("sign", "logabsdet")
    assert la.eigh(arr(np.eye(2)))._fields == ("eigenvalues", "eigenvectors")


# --- transforms ----------------------------------------------------------------------------

VMAP_CASES = {
    "cholesky": (la.cholesky, lambda: pos_def((3, 4, 4), np.float64)),
    "inv": (la.inv, lambda: rand((3, 4, 4)) + 3 * np.eye(4)),
    "det": (la.det, lambda: rand((3, 4, 4))),
    "eigvalsh": (la.eigvalsh, lambda: hermitian((3, 4, 4), np.float64)),
    "svdvals": (la.svdvals, lambda: rand((3, 5, 3))),
    "qr_r_abs": (lambda x: xp.abs(la.qr(x).R), lambda: rand((3, 5, 3))),
    "matrix_norm": (lambda x: la.matrix_norm(x, ord=2), lambda: rand((3, 3, 4))),
}


@pytest.mark.parametrize("name", sorted(VMAP_CASES))
def test_vmap_against_loop(name):
    fn, make = VMAP_CASES[name]
    a = make()
    got = nb.vmap(fn)(arr(a)).numpy()
    want = np.stack([fn(arr(a[i])).numpy() for i in range(a.shape[0])])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _fd_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        g[idx] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def test_gaussian_log_likelihood_and_least_squares_gradients():
    n = 4
    y = rand((n,))

    def nll(s, lib):
        cov = s @ s.T + np.eye(n) if lib is np else nb.matmul(s, xp.matrix_transpose(s)) + xp.eye(n)
        if lib is np:
            sign, logdet = np.linalg.slogdet(cov)
            return 0.5 * (logdet + y @ np.linalg.solve(cov, y))
        low = la.cholesky(cov)
        z = la.solve(low, arr(y))
        return 0.5 * (2 * xp.sum(xp.log(la.diagonal(low))) + xp.sum(z * z))

    s0 = rand((n, n))
    got = nb.grad(lambda s: nll(s, xp))(arr(s0)).numpy()
    np.testing.assert_allclose(got, _fd_grad(lambda s: nll(s, np), s0), rtol=1e-6, atol=1e-8)

    a, b = rand((6, 3)), rand((6,))

    def lstsq_loss(w, lib):
        if lib is np:
            x = np.linalg.solve(w.T @ w, w.T @ b)
            return np.sum((w @ x - b) ** 2) + np.linalg.slogdet(w.T @ w)[1] + np.linalg.norm(np.linalg.inv(w.T @ w))
        gram = nb.matmul(xp.matrix_transpose(w), w)
        x = la.solve(gram, nb.matmul(xp.matrix_transpose(w), arr(b)))
        r = nb.matmul(w, x) - arr(b)
        return xp.sum(r * r) + la.slogdet(gram).logabsdet + la.vector_norm(la.inv(gram))

    got = nb.grad(lambda w: lstsq_loss(w, xp))(arr(a)).numpy()
    np.testing.assert_allclose(got, _fd_grad(lambda w: lstsq_loss(w, np), a), rtol=1e-6, atol=1e-8)



@pytest.mark.parametrize("dtype", [np.int32, np.uint16, np.float64, np.complex64])
def test_matmul_over_an_empty_contraction_is_zeros(dtype):
    """An empty sum is 0 (MAX's matmul kernel leaves such an output unwritten: garbage before)."""
    for sa, sb in (((1, 0), (0,)), ((3, 0), (0, 2)), ((2, 1, 0), (0, 4)), ((0,), (0,))):
        a, b = np.ones(sa, dtype), np.ones(sb, dtype)
        got = (nb.asarray(a) @ nb.asarray(b)).numpy()
        assert got.dtype == (a @ b).dtype and got.shape == (a @ b).shape
        np.testing.assert_array_equal(got, a @ b)


@pytest.mark.usefixtures("recorded_small_ops")
def test_matching_dtypes_record_no_casts():
    """Promotion to a common dtype records nothing when the dtypes already match: a cast to the same
    dtype was one more graph per call on the single-op path (1000 x 8x8 solve: 0.82 -> 0.41 ms)."""
    a, b = arr(rand((4, 3, 3)) + 3 * np.eye(3)), arr(rand((4, 3, 2)))
    node = la.solve(a, b)._impl._values[0].node
    assert node.op.name == "solve" and all(v.node is None for v in node.inputs)
    node = la.outer(arr(rand((3,))), arr(rand((2,))))._impl._values[0].node  # multiply of two unsqueezes
    assert all(v.node.inputs[0].node is None for v in node.inputs)


_PRODUCT_SHAPES = [((3, 3), (3, 3)), ((2, 3, 3), (2, 3, 3)), ((3,), (3, 3)), ((3, 3), (3,)), ((3,), (3,)),
                   ((1, 3), (3, 4)), ((4, 2, 3), (3, 5)), ((5, 1, 3, 3), (2, 3, 1)), ((3, 3), (2, 3, 3)),
                   ((40, 40), (40, 40))]


@pytest.mark.parametrize("sa,sb", _PRODUCT_SHAPES)
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_small_complex_products_by_real_parts_match_numpy(sa, sb, dtype):
    rng = np.random.default_rng(len(sa) * 10 + len(sb))
    a = (rng.standard_normal(sa) + 1j * rng.standard_normal(sa)).astype(dtype)
    b = (rng.standard_normal(sb) + 1j * rng.standard_normal(sb)).astype(dtype)
    for x, y, ea, eb in ((nb.asarray(a), nb.asarray(b), a, b),
                         (nb.conj(nb.asarray(a)) * 2, nb.asarray(b) + 1, a.conj() * 2, b + 1)):
        got = (x @ y).numpy()
        assert got.dtype == dtype
        np.testing.assert_allclose(got, ea @ eb, rtol=1e-5 if dtype == "complex64" else 1e-12, atol=1e-5)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "float32", "float64"])
def test_a_dot_of_vectors_keeps_numpys_dtype_and_wraps(dtype):
    a = (np.arange(50) * 7 % 13).astype(dtype)
    b = (np.arange(50) * 5 % 11).astype(dtype)
    got = nb.matmul(nb.asarray(a), nb.asarray(b)).numpy()
    assert got.dtype == np.dtype(dtype) and got.shape == ()
    np.testing.assert_allclose(got, a @ b, rtol=1e-6)
    with pytest.raises(ValueError):
        nb.matmul(nb.asarray(a[:1]), nb.asarray(b))


# --- NumPy's face: integer and bool input where NumPy takes it ---------------------------------

_INT_DTYPES = ["int64", "int32", "int16", "uint8", "bool"]


def _int_matrix(dtype, n=7, seed=5):
    """A well-conditioned (diagonally dominant) n x n matrix of ``dtype``."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return (np.eye(n) + np.triu(rng.random((n, n)) > 0.6, 1)).astype(bool)
    return (rng.integers(0, 3, (n, n)) + 9 * np.eye(n, dtype=np.int64)).astype(dtype)


@pytest.mark.parametrize("dtype", _INT_DTYPES)
def test_numpy_svdvals_casts_integers_and_bools_to_float64(dtype):
    import nabla.numpy as fnp

    a = _int_matrix(dtype)[:6]
    got, want = np.asarray(fnp.linalg.svdvals(fnp.asarray(a))), np.linalg.svdvals(a)
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    with pytest.raises(TypeError, match="svdvals.*floating"):  # the standard's face takes floats only
        la.svdvals(xp.asarray(a))


@pytest.mark.parametrize("dtype", _INT_DTYPES)
def test_numpy_matrix_power_of_integers_and_bools(dtype):
    import nabla.numpy as fnp

    a = _int_matrix(dtype)
    for n in (-1, -2, 0, 3):
        got, want = np.asarray(fnp.linalg.matrix_power(fnp.asarray(a), n)), np.linalg.matrix_power(a, n)
        assert got.dtype == want.dtype, (n, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_numpy_multi_dot_of_bools_is_or_of_ands():
    import nabla.numpy as fnp

    rng = np.random.default_rng(3)
    a, b, c, v = rng.random((6, 7)) > 0.6, rng.random((7, 7)) > 0.6, rng.random((7, 5)) > 0.6, rng.random(5) > 0.5
    for ops in ([a, b, c], [a[0], b, c], [a, b, c, v], [a[0], b, c, v]):
        got, want = np.asarray(fnp.linalg.multi_dot([fnp.asarray(o) for o in ops])), np.linalg.multi_dot(ops)
        assert got.dtype == want.dtype == np.bool_
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["int64", "int16", "uint8", "bool"])
def test_numpy_face_norms_of_integers_are_float64(dtype):
    import nabla.numpy as fnp

    a = (np.arange(12).reshape(3, 4) % 5).astype(dtype)
    for fn, kw in (("vector_norm", {}), ("vector_norm", {"axis": 1, "ord": 1}), ("matrix_norm", {}),
                   ("matrix_norm", {"ord": 1})):
        want = getattr(np.linalg, fn)(a, **kw)
        got = getattr(fnp.linalg, fn)(fnp.asarray(a), **kw).numpy()
        assert got.dtype == want.dtype and np.allclose(got, want), (fn, kw)


def test_float16_products_accumulate_in_float32_as_numpy():
    """NumPy's half matmul and dot accumulate in float32 and round once; products on float16
    operands do the same (and run where float32 work runs)."""
    import nabla.numpy as fnp

    rng = np.random.default_rng(3)
    a = rng.standard_normal((7, 33)).astype(np.float16)
    b = rng.standard_normal((33, 5)).astype(np.float16)
    v = rng.standard_normal(33).astype(np.float16)
    for got, want in ((fnp.asarray(a) @ fnp.asarray(b), a @ b), (fnp.dot(fnp.asarray(v), fnp.asarray(v)), np.dot(v, v)),
                      (fnp.asarray(a) @ fnp.asarray(v), a @ v)):
        got = got.numpy()
        assert got.dtype == want.dtype == np.float16
        # (one float16 step at most: float32 sums in another order may round the other way)
        assert np.all(np.abs(got.astype(np.float64) - want) <= np.spacing(np.abs(want).astype(np.float16)))


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("m,n", [(4, 3), (7, 3), (9, 2), (6, 5), (3, 8)])
def test_svd_of_equal_rows_keeps_its_rotations_orthogonal(cplx, m, n):
    """Rank one by equal rows (a broadcast row): Jacobi's sweeps shrink all but one column toward
    zero, where the squares of their inner products are subnormal; each rotation's phase is still
    of modulus one, so U, V stay orthonormal and the singular value is NumPy's (it was 4e-5 off)."""
    rng = np.random.default_rng(m * 10 + n)
    row = rng.standard_normal(n) + (1j * rng.standard_normal(n) if cplx else 0)
    a = np.broadcast_to(row, (m, n)).copy()
    u, s, vh = (x.numpy() for x in nb.linalg.svd(nb.asarray(a), full_matrices=False))
    want = np.linalg.svd(a, compute_uv=False)
    np.testing.assert_allclose(s, want, rtol=1e-14, atol=1e-14 * want[0])
    np.testing.assert_allclose((u * s) @ vh, a, atol=1e-14 * want[0])
    np.testing.assert_allclose(vh @ vh.conj().T, np.eye(vh.shape[0]), atol=1e-14)
