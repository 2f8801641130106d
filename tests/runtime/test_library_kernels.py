"""The kernel ops on the op kernels' library (runtime/library_kernels.py): linalg, FFT, sort
and random kernels called with no model. Each test checks NumPy's values (or residuals, or
published vectors), that the library's export ran, and that no model was wanted, compiled or
interpreted."""

import collections
import contextlib

import numpy
import pytest

import nabla as nb
import nabla.numpy as np

pytestmark = pytest.mark.usefixtures("fused_on")

RNG = numpy.random.default_rng(11)


@contextlib.contextmanager
def on_the_library(monkeypatch, *exports):
    """Counts the calls of the library's ``exports`` within; on leaving, asserts each ran and that
    no single-op model was wanted, compiled or interpreted meanwhile."""
    from nabla.runtime import program_kernel, single_op

    kernel = program_kernel.OP_KERNELS.module()
    calls = collections.Counter()
    for name in exports:
        def counted(*args, _name=name, _call=getattr(kernel, name)):
            calls[_name] += 1
            return _call(*args)
        monkeypatch.setattr(kernel, name, counted)
    wanted, before = set(single_op._WANTED), nb.engine_stats()
    yield calls
    after = nb.engine_stats()
    assert all(calls[name] for name in exports), calls
    assert set(single_op._WANTED) == wanted
    assert (after["compiles"], after["interpreted"]) == (before["compiles"], before["interpreted"])


def _random(shape, dtype):
    a = RNG.standard_normal(shape)
    if numpy.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def _read(tensors) -> list:
    """NumPy copies (a read realizes each: inside ``on_the_library``, where it is counted)."""
    return [numpy.asarray(t) for t in tensors]


def _close(got, want, rtol, atol=0.0):
    got = numpy.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    numpy.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def _orthonormal(q, cols: bool, tol):
    """Q's columns (``cols``) or rows orthonormal."""
    g = _adjoint(q) @ q if cols else q @ _adjoint(q)
    numpy.testing.assert_allclose(g, numpy.broadcast_to(numpy.eye(g.shape[-1]), g.shape), atol=tol)


def _adjoint(a):
    return numpy.swapaxes(a.conj(), -1, -2)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_det_and_slogdet(dtype, monkeypatch):
    """``det`` and ``slogdet`` of stacks, alone or after other work, on the linalg kernels' LU."""
    a = _random((3, 2, 5, 5), dtype)
    with on_the_library(monkeypatch, "lu_det"):
        x = np.array(a)
        got = _read([np.linalg.det(x), *np.linalg.slogdet(x), np.linalg.det(x * 2.0 - 1.0), np.linalg.det(x[0, 1])])
    want = [numpy.linalg.det(a), *numpy.linalg.slogdet(a), numpy.linalg.det(a * 2.0 - 1.0), numpy.linalg.det(a[0, 1])]
    for w, g in zip(want, got):
        _close(g, w, 1e-12)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_solve_and_inv(dtype, monkeypatch):
    """``solve`` (a stack of right-hand sides, or one vector) and ``inv`` on the linalg kernels' LU."""
    a = _random((2, 3, 4, 4), dtype) + 4 * numpy.eye(4)
    b = _random((2, 3, 4, 2), dtype)
    with on_the_library(monkeypatch, "lu_solve"):
        x, y = np.array(a), np.array(b)
        got = _read([np.linalg.solve(x, y), np.linalg.inv(x), np.linalg.solve(x[0, 0], y[0, 0, :, 1]),
                     np.linalg.inv(x * 2.0)])
    want = [numpy.linalg.solve(a, b), numpy.linalg.inv(a), numpy.linalg.solve(a[0, 0], b[0, 0, :, 1]),
            numpy.linalg.inv(a * 2.0)]
    for w, g in zip(want, got):
        _close(g, w, 1e-10, 1e-14)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int8", "uint64", "bool"])
def test_sort_and_argsort(dtype, monkeypatch):
    """``sort`` and ``argsort`` along every axis (NaN and -0.0 among floats), alone and after other
    work: NumPy's stable order."""
    a = (RNG.standard_normal((4, 6, 3)) * 40).astype(dtype)
    if a.dtype.kind == "f":
        a[0, 0, 0], a[1, 2, 1], a[2, 3, 2] = numpy.nan, -0.0, 0.0
    with on_the_library(monkeypatch, "sort"):
        x = np.array(a)
        for axis in (0, 1, -1):
            for got, want in ((np.sort(x, axis=axis), numpy.sort(a, axis=axis)),
                              (np.argsort(x, axis=axis), numpy.argsort(a, axis=axis, kind="stable")),
                              (np.argsort(x[:, ::-1] + x[:, ::-1], axis=axis),
                               numpy.argsort(a[:, ::-1] + a[:, ::-1], axis=axis, kind="stable"))):
                got = numpy.asarray(got)
                assert got.dtype == want.dtype
                numpy.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eigh_and_eigvalsh(dtype, monkeypatch):
    """NumPy's eigenvalues, and eigenvectors that rebuild the Hermitian matrix."""
    g = _random((3, 5, 5), dtype)
    a = g + _adjoint(g)
    with on_the_library(monkeypatch, "eigh"):
        x = np.array(a)
        w, v = (numpy.asarray(t) for t in np.linalg.eigh(x))
        values = numpy.asarray(np.linalg.eigvalsh(x * 2.0))
    assert w.dtype == values.dtype == numpy.float64 and v.dtype == a.dtype
    numpy.testing.assert_allclose(w, numpy.linalg.eigvalsh(a), rtol=1e-10, atol=1e-12)
    numpy.testing.assert_allclose(values, numpy.linalg.eigvalsh(a * 2.0), rtol=1e-10, atol=1e-12)
    numpy.testing.assert_allclose(v @ (w[..., None] * _adjoint(v)), a, atol=1e-10)


@pytest.mark.parametrize("dtype", ["float64", "complex128", "float32", "complex64"])
def test_cholesky(dtype, monkeypatch):
    g = _random((2, 3, 6, 6), dtype)
    a = g @ _adjoint(g) + 6 * numpy.eye(6, dtype=dtype)
    with on_the_library(monkeypatch, "cholesky"):
        got = numpy.asarray(np.linalg.cholesky(np.array(a)))
    _close(got, numpy.linalg.cholesky(a), 1e-10 if dtype in ("float64", "complex128") else 1e-4, 1e-12)


@pytest.mark.parametrize("dtype", ["float64", "complex128", "float32"])
@pytest.mark.parametrize("shape", [(2, 5, 3), (2, 3, 5), (4, 4)])
def test_qr_every_mode(dtype, shape, monkeypatch):
    """Q and R of NumPy's shapes, Q with orthonormal columns, R upper triangular, Q R = A."""
    a = _random(shape, dtype)
    tol = 1e-10 if dtype != "float32" else 1e-4
    with on_the_library(monkeypatch, "qr"):
        x = np.array(a)
        got = {mode: [numpy.asarray(t) for t in np.linalg.qr(x, mode=mode)] for mode in ("reduced", "complete")}
        r_only = numpy.asarray(np.linalg.qr(x, mode="r"))
    for mode, (q, r) in got.items():
        qq, rr = numpy.linalg.qr(a, mode=mode)
        assert (q.shape, r.shape, q.dtype, r.dtype) == (qq.shape, rr.shape, qq.dtype, rr.dtype)
        numpy.testing.assert_allclose(q @ r, a, atol=tol)
        _orthonormal(q, True, tol)
        assert numpy.all(numpy.tril(r, -1) == 0)
    numpy.testing.assert_allclose(numpy.abs(r_only), numpy.abs(numpy.linalg.qr(a, mode="r")), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float64", "complex128", "float32"])
@pytest.mark.parametrize("shape", [(2, 6, 4), (2, 4, 6), (5, 5)])
def test_svd_tall_wide_full_and_reduced(dtype, shape, monkeypatch):
    """NumPy's singular values and shapes; U S Vh rebuilds A; U and Vh have orthonormal rows or
    columns (tall input, and wide, which the kernel factors as A^H)."""
    a = _random(shape, dtype)
    tol = 1e-10 if dtype != "float32" else 1e-4
    with on_the_library(monkeypatch, "svd"):
        x = np.array(a)
        got = {full: [numpy.asarray(t) for t in np.linalg.svd(x, full_matrices=full)] for full in (False, True)}
        values = numpy.asarray(np.linalg.svd(x, compute_uv=False))
        rank = numpy.asarray(np.linalg.matrix_rank(x))
    for full, (u, s, vh) in got.items():
        uu, ss, vvh = numpy.linalg.svd(a, full_matrices=full)
        assert (u.shape, s.shape, vh.shape, u.dtype, s.dtype) == (uu.shape, ss.shape, vvh.shape, uu.dtype, ss.dtype)
        numpy.testing.assert_allclose(s, ss, rtol=tol)
        k = s.shape[-1]
        numpy.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, atol=tol)
        _orthonormal(u, True, tol)
        _orthonormal(vh, False, tol)
    numpy.testing.assert_allclose(values, numpy.linalg.svd(a, compute_uv=False), rtol=tol)
    numpy.testing.assert_array_equal(rank, numpy.linalg.matrix_rank(a))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eig_and_eigvals(dtype, monkeypatch):
    """A V = V diag(w), unit eigenvectors, NumPy's eigenvalues (as sets: the order is the Schur form's)."""
    a = _random((3, 5, 5), dtype)
    with on_the_library(monkeypatch, "eig"):
        x = np.array(a)
        w, v = (numpy.asarray(t) for t in np.linalg.eig(x))
        values = numpy.asarray(np.linalg.eigvals(x))
    numpy.testing.assert_allclose(a @ v, v * w[..., None, :], atol=1e-10)
    numpy.testing.assert_allclose(numpy.linalg.norm(v, axis=-2), 1.0, rtol=1e-12)
    want = numpy.linalg.eigvals(a)
    for got, ref in zip(values, want):  # (rounded: a conjugate pair's real parts tie)
        numpy.testing.assert_allclose(numpy.sort_complex(got.round(8)), numpy.sort_complex(ref.round(8)), atol=1e-7)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_fft_family(dtype, monkeypatch):
    """Forward and inverse, real and complex, 1-D along each axis, 2-D and n-D, odd and even
    lengths, NumPy's norms: NumPy's values."""
    a = _random((6, 7, 8), dtype)
    tol = 1e-10 if dtype != "float32" else 2e-4
    fns = [("fft", {}), ("ifft", {"axis": 0}), ("fft", {"n": 11, "axis": 1}), ("fft2", {}), ("ifft2", {"norm": "ortho"}),
           ("fftn", {}), ("ifftn", {"axes": (0, 2)})]
    if dtype != "complex128":
        fns += [("rfft", {}), ("rfft", {"axis": 1}), ("rfftn", {}), ("rfft", {"n": 9, "norm": "forward"})]
    with on_the_library(monkeypatch, "fft"):
        x = np.array(a)
        got = _read([getattr(np.fft, name)(x, **kw) for name, kw in fns])
        spectrum = np.fft.rfft(x.real)
        back = _read([np.fft.irfft(spectrum), np.fft.irfft(spectrum, n=15),
                      np.fft.hfft(x[..., :5].astype(np.complex128))])
    for (name, kw), g in zip(fns, got):
        _close(g, getattr(numpy.fft, name)(a, **kw), tol, tol)
    want_spectrum = numpy.fft.rfft(a.real)
    for g, w in zip(back, [numpy.fft.irfft(want_spectrum), numpy.fft.irfft(want_spectrum, n=15),
                           numpy.fft.hfft(a[..., :5].astype(numpy.complex128))]):
        numpy.testing.assert_allclose(numpy.asarray(g), w, rtol=tol, atol=tol)


def test_random_draws(monkeypatch):
    """Random123's published Philox4x32-10 block for counter and key 0, and uniform and normal
    draws of both float widths within a Kolmogorov-Smirnov bound."""
    from math import erf, sqrt

    from nabla.ops.random_bits import draw

    n = 4000
    bound = 1.63 / sqrt(n)  # KS at the 1% level
    with on_the_library(monkeypatch, "random"):
        words = numpy.asarray(draw(0, 0, (8,), None, "bits"))
        rng = np.random.default_rng(2024)
        samples = [numpy.asarray(rng.random(n)), numpy.asarray(rng.random(n, dtype=np.float32)),
                   numpy.asarray(rng.standard_normal(n)), numpy.asarray(rng.standard_normal(n, dtype=np.float32))]
    assert words.dtype == numpy.uint32 and tuple(int(w) for w in words[:4]) == (0x6627E8D5, 0xE169C58D, 0xBC57AC4C,
                                                                                 0x9B00DBD8)
    normal_cdf = numpy.vectorize(lambda t: 0.5 * (1 + erf(t / sqrt(2))))
    for sample, dtype, cdf in zip(samples, ("float64", "float32") * 2, [lambda t: t] * 2 + [normal_cdf] * 2):
        assert sample.dtype == dtype
        s = numpy.sort(sample.astype(numpy.float64))
        c = cdf(s)
        assert max(numpy.max(numpy.arange(1, n + 1) / n - c), numpy.max(c - numpy.arange(n) / n)) < bound
