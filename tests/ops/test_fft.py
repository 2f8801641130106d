"""The fft extension against NumPy's pocketfft: every length from 1 to 300 and a sample of larger
ones up to 2^20 (powers of two, 3^k 5^j, primes, products of two large primes), on random data,
impulses and constants, relative L2 error <= 1e-13 in float64 and <= 5e-6 in float32; round trips,
n-dimensional transforms as compositions of 1-D ones, odd and even n for the real transforms,
NumPy's argument rules and errors. Gradients and vmap are in the registries of test_autodiff and
test_vmap; here, a spectral loss end to end."""

import numpy as np
import pytest

import nabla as nb

xp = nb.array_api
F = xp.fft
R = np.random.default_rng(5)
TOL = {np.complex128: 1e-13, np.complex64: 5e-6, np.float64: 1e-13, np.float32: 5e-6}
LARGE = [512, 1000, 1024, 2187, 3125, 4096, 6561 * 5, 10007, 65536, 65537, 101 * 103, 1009 * 1013, 2 ** 20,
         2 ** 22,  # 2^22: one row long enough to split its passes over the cores (PARALLEL_ROW)
         2 ** 8 * 3 ** 2 * 5 ** 2]  # complex rows of n = n1 n2 from 256 KB a plane run the four-step (240 x 240)


def rel(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = np.linalg.norm(want.astype(np.complex128))
    return np.linalg.norm(got.astype(np.complex128) - want) / (scale if scale > 0 else 1.0)


def signals(n, dtype):
    """Rows of random data, an impulse (at a place that is not 0) and a constant."""
    complex_ = np.issubdtype(dtype, np.complexfloating)
    noise = R.standard_normal((2, n)) + (1j * R.standard_normal((2, n)) if complex_ else 0)
    impulse = np.zeros((1, n))
    impulse[0, (3 * n) // 7] = 1.0
    return np.concatenate([noise, impulse, np.full((1, n), 0.75)]).astype(dtype)


def reference(x):
    return np.asarray(x, np.complex128 if np.iscomplexobj(x) else np.float64)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_fft_and_ifft_every_length_to_300(dtype):
    worst = {}
    for n in range(1, 301):
        x = signals(n, dtype)
        got = F.fft(xp.asarray(x))
        assert got.dtype == xp.asarray(x).dtype
        worst[n] = rel(got.numpy(), np.fft.fft(reference(x)))
        worst[-n] = rel(F.ifft(xp.asarray(x)).numpy(), np.fft.ifft(reference(x)))
    bad = {n: e for n, e in worst.items() if not e <= TOL[dtype]}
    assert not bad, bad


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rfft_and_irfft_every_length_to_300(dtype):
    bad = {}
    for n in range(1, 301):
        x = signals(n, dtype)
        spectrum = F.rfft(xp.asarray(x))
        e = rel(spectrum.numpy(), np.fft.rfft(reference(x)))
        # irfft of NumPy's spectrum, odd and even n: the imaginary parts at 0 (and n / 2) are dropped
        X = np.fft.rfft(reference(x)).astype(np.complex64 if dtype == np.float32 else np.complex128) + 0.25j
        back = F.irfft(xp.asarray(X), n=n)
        assert back.dtype == xp.asarray(x).dtype
        e = max(e, rel(back.numpy(), np.fft.irfft(X.astype(np.complex128), n=n)))
        if not e <= TOL[dtype]:
            bad[n] = e
    assert not bad, bad


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_many_rows_take_the_row_group_paths(dtype):
    """37 rows: full groups of SIMD-width rows (4, 8 or 16 lanes, by the machine's vectors and the
    dtype) moved by in-register transposes, and a partial group left over."""
    tol = TOL[dtype]
    for n in (2, 6, 16, 30, 64, 97, 128, 1024):
        x = R.standard_normal((37, n)).astype(dtype)
        z = (x + 1j * R.standard_normal((37, n))).astype(np.complex64 if dtype == np.float32 else np.complex128)
        assert rel(F.rfft(xp.asarray(x)).numpy(), np.fft.rfft(reference(x))) <= tol, n
        assert rel(F.fft(xp.asarray(z)).numpy(), np.fft.fft(reference(z))) <= tol, n
        X = np.fft.rfft(reference(x)).astype(z.dtype) + 0.25j
        assert rel(F.irfft(xp.asarray(X), n=n).numpy(), np.fft.irfft(X.astype(np.complex128), n=n)) <= tol, n


@pytest.mark.parametrize("n", LARGE)
def test_large_lengths(n):
    x = R.standard_normal(n) + 1j * R.standard_normal(n)
    assert rel(F.fft(xp.asarray(x)).numpy(), np.fft.fft(x)) <= 1e-13
    x32 = x.astype(np.complex64)
    assert rel(F.fft(xp.asarray(x32)).numpy(), np.fft.fft(x32.astype(np.complex128))) <= 5e-6
    r = x.real.astype(np.float32)
    assert rel(F.rfft(xp.asarray(r)).numpy(), np.fft.rfft(r.astype(np.float64))) <= 5e-6
    # long even n: the packed half-length transform is a four-step (real rows, both ways)
    assert rel(F.rfft(xp.asarray(x.real)).numpy(), np.fft.rfft(x.real)) <= 1e-13
    X = np.fft.rfft(x.real) + 0.25j
    assert rel(F.irfft(xp.asarray(X), n=n).numpy(), np.fft.irfft(X, n=n)) <= 1e-13
    X32 = X.astype(np.complex64)
    assert rel(F.irfft(xp.asarray(X32), n=n).numpy(), np.fft.irfft(X32.astype(np.complex128), n=n)) <= 5e-6


@pytest.mark.parametrize("n", [2, 4, 6, 8, 10, 12, 64, 96, 1000, 4096])
def test_real_spectra_have_exactly_real_end_bins(n):
    """A real signal's DC and (even n) Nyquist bins are exactly real, +0 imaginary parts, as NumPy's
    are: their phase (``angle``) is NumPy's, 0 or pi, never -pi from a -1e-16 imaginary part."""
    x = np.vstack([R.standard_normal((3, n)), np.arange(1.0, n + 1), np.full(n, -2.0)])
    rows = [np.asarray(F.rfft(xp.asarray(x)))] + [np.asarray(F.rfft(xp.asarray(r))) for r in x]
    for got in (rows[0], np.stack(rows[1:])):
        ends = got[:, [0, -1]] if n % 2 == 0 else got[:, :1]
        assert np.all(ends.imag == 0) and not np.any(np.signbit(ends.imag)), ends
        np.testing.assert_array_equal(np.angle(ends), np.angle(np.fft.rfft(x)[:, [0, -1] if n % 2 == 0 else [0]]))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_real_transforms_of_one_row(dtype):
    """A lone row's Hermitian split (rfft) and pack (irfft) run on vectors along the row, the
    partner bins read reversed: even n around the vector widths, and long ones."""
    for n in (2, 4, 6, 8, 16, 18, 30, 32, 34, 36, 48, 66, 100, 1000, 4096):
        x = R.standard_normal(n).astype(dtype)
        assert rel(F.rfft(xp.asarray(x)).numpy(), np.fft.rfft(reference(x))) <= TOL[dtype], n
        X = np.fft.rfft(reference(x)) + 0.25j
        X = X.astype(np.complex64 if dtype == np.float32 else np.complex128)
        assert rel(F.irfft(xp.asarray(X), n=n).numpy(), np.fft.irfft(X.astype(np.complex128), n=n)) <= TOL[dtype], n


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_four_step_rows_and_norms(dtype):
    """Several long rows (each a four-step transform: columns, twiddles, rows), every norm, both
    directions; real rows twice as long (their packed half-length transforms)."""
    x = (R.standard_normal((3, 2 ** 16)) + 1j * R.standard_normal((3, 2 ** 16))).astype(dtype)
    for norm in ("backward", "ortho", "forward"):
        assert rel(F.fft(xp.asarray(x), norm=norm).numpy(), np.fft.fft(reference(x), norm=norm)) <= TOL[dtype]
        assert rel(F.ifft(xp.asarray(x), norm=norm).numpy(), np.fft.ifft(reference(x), norm=norm)) <= TOL[dtype]
    real = np.ascontiguousarray(np.concatenate([x.real, x.imag], axis=1))  # rows of 2^17: real four-steps
    assert rel(F.rfft(xp.asarray(real), norm="ortho").numpy(), np.fft.rfft(reference(real), norm="ortho")) <= TOL[dtype]
    X = np.fft.rfft(reference(real)).astype(dtype)
    assert rel(F.irfft(xp.asarray(X)).numpy(), np.fft.irfft(reference(X))) <= TOL[dtype]


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("shape", [(64, 48), (3, 32, 160), (2, 20, 50), (1000, 24), (5, 7), (1, 1)])
def test_2d_transforms_of_the_last_axes(dtype, shape):
    """fftn over the last two axes is one kernel call: whole groups of rows and chunks of columns
    (64 x 48, a stack of 32 x 160), or the rows then the columns (20 x 50, 1000 x 24 in float32,
    5 x 7); with s, its axes padded and truncated first."""
    x = (R.standard_normal(shape) + 1j * R.standard_normal(shape)).astype(dtype)
    for norm in ("backward", "ortho", "forward"):
        got = F.fftn(xp.asarray(x), axes=(-2, -1), norm=norm).numpy()
        assert rel(got, np.fft.fftn(reference(x), axes=(-2, -1), norm=norm)) <= TOL[dtype], norm
        got = F.ifftn(xp.asarray(x), axes=(-1, -2), norm=norm).numpy()
        assert rel(got, np.fft.ifftn(reference(x), axes=(-1, -2), norm=norm)) <= TOL[dtype], norm
    s = (shape[-2] + 3, max(1, shape[-1] - 2))
    got = F.fftn(xp.asarray(x), s=s, axes=(-2, -1)).numpy()
    assert rel(got, np.fft.fftn(reference(x), s=s, axes=(-2, -1))) <= TOL[dtype]


@pytest.mark.parametrize("n", [1, 2, 7, 64, 97, 1000])
def test_round_trips(n):
    x = R.standard_normal((3, n)) + 1j * R.standard_normal((3, n))
    for norm in ("backward", "ortho", "forward"):
        back = F.ifft(F.fft(xp.asarray(x), norm=norm), norm=norm).numpy()
        assert rel(back, x) <= 1e-14
        real = F.irfft(F.rfft(xp.asarray(x.real), norm=norm), n=n, norm=norm).numpy()
        assert rel(real, x.real) <= 1e-14
        herm = F.hfft(F.ihfft(xp.asarray(x.real), norm=norm), n=n, norm=norm).numpy()
        assert rel(herm, x.real) <= 1e-14


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward", None])  # None: NumPy's "backward"
def test_every_function_matches_numpy_with_n_axis_and_norm(norm):
    x = R.standard_normal((4, 5, 6)) + 1j * R.standard_normal((4, 5, 6))
    X = xp.asarray(x)
    real = xp.asarray(x.real)
    cases = [
        (F.fft(X, n=7, axis=1, norm=norm), np.fft.fft(x, n=7, axis=1, norm=norm)),
        (F.fft(X, n=3, axis=-3, norm=norm), np.fft.fft(x, n=3, axis=-3, norm=norm)),
        (F.ifft(X, n=11, axis=0, norm=norm), np.fft.ifft(x, n=11, axis=0, norm=norm)),
        (F.fftn(X, norm=norm), np.fft.fftn(x, norm=norm)),
        (F.fftn(X, s=(3, 8), axes=(2, 0), norm=norm), np.fft.fftn(x, s=(3, 8), axes=(2, 0), norm=norm)),
        (F.ifftn(X, axes=(-1, 1), norm=norm), np.fft.ifftn(x, axes=(-1, 1), norm=norm)),
        (F.rfft(real, n=9, axis=1, norm=norm), np.fft.rfft(x.real, n=9, axis=1, norm=norm)),
        (F.irfft(X, axis=0, norm=norm), np.fft.irfft(x, axis=0, norm=norm)),
        (F.irfft(X, n=9, norm=norm), np.fft.irfft(x, n=9, norm=norm)),
        (F.rfftn(real, norm=norm), np.fft.rfftn(x.real, norm=norm)),
        (F.rfftn(real, s=(5, 7), axes=(0, 1), norm=norm), np.fft.rfftn(x.real, s=(5, 7), axes=(0, 1), norm=norm)),
        (F.irfftn(X, norm=norm), np.fft.irfftn(x, norm=norm)),
        (F.irfftn(X, s=(4, 9), axes=(0, 2), norm=norm), np.fft.irfftn(x, s=(4, 9), axes=(0, 2), norm=norm)),
        (F.hfft(X, norm=norm), np.fft.hfft(x, norm=norm)),
        (F.hfft(X, n=7, axis=1, norm=norm), np.fft.hfft(x, n=7, axis=1, norm=norm)),
        (F.ihfft(real, norm=norm), np.fft.ihfft(x.real, norm=norm)),
        (F.ihfft(real, n=5, axis=0, norm=norm), np.fft.ihfft(x.real, n=5, axis=0, norm=norm)),
    ]
    for k, (got, want) in enumerate(cases):
        assert rel(got.numpy(), want) <= 1e-13, k


def test_nd_transforms_are_compositions_of_1d_ones():
    x = R.standard_normal((3, 4, 5)) + 1j * R.standard_normal((3, 4, 5))
    X = xp.asarray(x)
    composed = F.fft(F.fft(F.fft(X, axis=0), axis=1), axis=2)
    assert rel(F.fftn(X).numpy(), composed.numpy()) <= 1e-14
    real = xp.asarray(x.real)
    composed = F.fft(F.rfft(real, axis=2), axis=0)
    assert rel(F.rfftn(real, axes=(0, 2)).numpy(), composed.numpy()) <= 1e-14


def test_dtypes_and_integer_input():
    assert F.fft(xp.ones(4, dtype=xp.float32)).dtype == xp.complex64
    assert F.rfft(xp.ones(4, dtype=xp.float64)).dtype == xp.complex128
    assert F.irfft(xp.ones(3, dtype=xp.complex64)).dtype == xp.float32
    assert F.hfft(xp.ones(3, dtype=xp.complex128)).dtype == xp.float64
    assert F.ihfft(xp.ones(4, dtype=xp.float32)).dtype == xp.complex64
    got = F.fft(xp.asarray(np.arange(6)))
    assert got.dtype == xp.complex128
    assert rel(got.numpy(), np.fft.fft(np.arange(6))) <= 1e-14


def test_stacks_with_empty_batch():
    x = np.zeros((0, 3, 8), np.complex128)
    assert F.fft(xp.asarray(x)).shape == (0, 3, 8)
    assert F.rfft(xp.asarray(x.real), axis=1).shape == (0, 2, 8)


def test_frequencies_and_shifts():
    for n in (1, 2, 7, 10):
        for d in (1.0, 0.25):
            assert rel(F.fftfreq(n, d=d, dtype=xp.float64).numpy(), np.fft.fftfreq(n, d=d)) <= 1e-15
            assert rel(F.rfftfreq(n, d=d, dtype=xp.float64).numpy(), np.fft.rfftfreq(n, d=d)) <= 1e-15
    assert F.fftfreq(5).dtype == xp.__array_namespace_info__().default_dtypes()["real floating"]
    assert F.rfftfreq(5, dtype=xp.float32).dtype == xp.float32
    x = R.standard_normal((3, 4, 5))
    assert np.array_equal(F.fftshift(xp.asarray(x)).numpy(), np.fft.fftshift(x))
    assert np.array_equal(F.ifftshift(xp.asarray(x), axes=[0, 2]).numpy(), np.fft.ifftshift(x, axes=[0, 2]))
    assert np.array_equal(F.fftshift(xp.asarray(x), axes=1).numpy(), np.fft.fftshift(x, axes=1))


def test_bad_arguments_raise_like_numpy():
    x = xp.asarray(np.ones((2, 3), np.complex128))
    with pytest.raises(ValueError, match="fft.fft.*data points"):
        F.fft(x, n=0)
    with pytest.raises(ValueError, match="data points"):
        F.irfft(xp.asarray(np.ones(1, np.complex128)))  # n = 2 * (1 - 1) = 0
    with pytest.raises(IndexError, match="axis 2"):
        F.fft(x, axis=2)
    with pytest.raises(ValueError, match="norm"):
        F.ifft(x, norm="sideways")
    with pytest.raises(ValueError, match="same length"):
        F.fftn(x, s=(2, 2), axes=(0,))
    with pytest.raises(ValueError, match="repeated axis"):
        F.fftn(x, axes=(0, 0))
    with pytest.raises(TypeError, match="rfft.*real"):
        F.rfft(x)
    with pytest.raises(TypeError, match="integer"):
        F.fft(x, n=2.5)
    with pytest.raises(TypeError, match="real floating"):
        F.fftfreq(4, dtype=xp.int32)


def test_gradient_of_a_spectral_loss_matches_finite_differences():
    x = R.standard_normal(12)
    weights = np.linspace(0.0, 1.0, 7)

    def loss(t):
        return xp.sum(xp.abs(F.rfft(t)) ** 2 * xp.asarray(weights))

    got = nb.grad(loss)(xp.asarray(x)).numpy()
    h = 1e-6
    value = lambda p: float(np.sum(np.abs(np.fft.rfft(p)) ** 2 * weights))
    want = np.array([(value(x + h * e) - value(x - h * e)) / (2 * h) for e in np.eye(12)])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_lazy_and_composable_with_other_ops():
    x = R.standard_normal((2, 16))
    # a circular convolution through the spectrum, fused with elementwise work around it
    k = np.zeros(16)
    k[:3] = [0.25, 0.5, 0.25]
    got = F.irfft(F.rfft(xp.asarray(x) * 2.0) * F.rfft(xp.asarray(k)), n=16) + 1.0
    want = np.fft.irfft(np.fft.rfft(x * 2.0) * np.fft.rfft(k), n=16) + 1.0
    assert rel(got.numpy(), want) <= 1e-14


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_inner_axes_in_cache_sized_chunks(dtype):
    """An inner axis's sequences go in chunks (a partial one last); odd lengths and Bluestein too."""
    for shape, axis in [((512, 300), 0), ((2, 97, 333), 1), ((1024, 2, 40), 0)]:
        x = (R.standard_normal(shape) + 1j * R.standard_normal(shape)).astype(dtype)
        got = F.fft(xp.asarray(x), axis=axis).numpy()
        assert rel(got, np.fft.fft(x.astype(np.complex128), axis=axis)) <= TOL[dtype]
        real = x.real.copy()
        got = F.rfft(xp.asarray(real), axis=axis).numpy()
        assert rel(got, np.fft.rfft(real.astype(np.float64), axis=axis)) <= TOL[dtype]
        back = F.irfft(xp.asarray(np.fft.rfft(real, axis=axis).astype(dtype)), n=shape[axis], axis=axis).numpy()
        assert rel(back, real.astype(np.float64)) <= 10 * TOL[dtype]


def test_inside_compile_with_dynamic_batch():
    @nb.compile(dynamic_dims={0: {0: "batch"}})
    def power(x):
        return xp.abs(F.rfft(x, axis=-1)) ** 2

    for rows in (2, 5):
        x = R.standard_normal((rows, 12))
        np.testing.assert_allclose(power(xp.asarray(x)).numpy(), np.abs(np.fft.rfft(x)) ** 2, rtol=1e-12, atol=1e-12)
