"""A tenth held-out script, out of the first-run manifest (``nabla/runtime/first_run.json``): 22
sections that survey everyday NumPy calls over every dtype a script meets (float16 to complex128,
bool, uint8 to uint64): spectra of images, eigenvalues, fits, complex factorizations, per-channel
statistics of NCHW batches, float16 running sums and means, uint64 hashes, unique rows, bit packing,
each ending in a checksum, to measure a first run on code the manifest never saw.
``python bench/survey_script.py [numpy|nabla]``, as the first script.
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    rng = __import__("numpy").random.default_rng(10)
    f64 = np.asarray(rng.standard_normal((40, 30)))
    f32 = np.asarray(rng.standard_normal((40, 30)).astype("float32"))
    i32 = np.asarray(rng.integers(-50, 50, (40, 30)).astype("int32"))
    u8 = np.asarray(rng.integers(0, 255, (32, 24)).astype("uint8"))
    z = np.asarray(rng.standard_normal((40, 8)) + 1j * rng.standard_normal((40, 8)))
    img = np.asarray(rng.random((64, 48)).astype("float32"))
    batch = np.asarray(rng.standard_normal((6, 3, 10, 12)))
    hashes = np.asarray(rng.integers(0, 2 ** 63, 500, dtype="uint64") * 2 + 1)

    def image_spectrum():
        s = np.abs(np.fft.fftshift(np.fft.fft2(img)))
        back = np.fft.irfft2(np.fft.rfft2(img), s=img.shape)
        return round(float(s[30:34, 22:26].sum() + np.abs(back - img).max() * 1e3), 3)

    def eigenvalues():
        return float(np.sort(np.abs(np.linalg.eigvals(f64[:6, :6]))).sum())

    def symmetric_float32():
        a = f32[:8].T @ f32[:8] + np.eye(30, dtype=np.float32)
        return round(float(np.linalg.eigvalsh(a).max()), 3)

    def polynomial_fit():
        coef = np.polyfit(np.arange(40.0), f64[:, 0], 3)
        return float(np.polyval(coef, 2.5) + np.linalg.lstsq(np.vander(np.linspace(0, 1, 40), 4), f64[:, 1],
                                                             rcond=None)[0].sum())

    def complex_factors():
        r = np.linalg.qr(z)[1]
        return float(np.abs(np.diag(r)).sum() + np.linalg.svd(z, compute_uv=False).sum())

    def stacked_determinants():
        return float(np.linalg.det(f64[:36].reshape(4, 3, 3, 30)[..., :3]).sum())

    def correlate_signals():
        return float(np.correlate(f64[:, 0], f64[:5, 1], mode="full").sum()
                     + np.convolve(f64[:, 2], f64[:5, 3], mode="valid").sum())

    def integer_statistics():
        return float(np.median(u8, axis=0).sum() + np.percentile(i32, [5, 95], axis=1).sum())

    def unique_rows():
        rows = np.unique(u8 // 64, axis=0)
        return int(rows.shape[0] * 1000 + rows.sum())

    def sorted_lookup():
        keys = np.sort(u8.ravel())
        return int(np.searchsorted(keys, np.arange(0, 255, 17).astype(np.uint8)).sum())

    def joint_histogram():
        h = np.histogram2d(f64[:, 0], f64[:, 1], bins=4)[0]
        return int((h * np.arange(16.0).reshape(4, 4)).sum() + np.bincount(u8.ravel() // 16).max())

    def running_totals():
        return float(np.cumsum(u8, axis=1)[:, -1].sum() + np.cumprod(1 + f64[:, :5] * 0.01, axis=0)[-1].sum())

    def image_gradient():
        gy, gx = np.gradient(img)
        return round(float(np.hypot(gx, gy).mean()), 5)

    def missing_values():
        masked = np.where(f64 > 1, np.nan, f64)
        return float(np.nanmedian(masked, axis=1).sum() + np.nanmean(masked, axis=0).sum())

    def bit_packing():
        return int(np.packbits(f64 > 0, axis=1).astype(np.int64).sum() + np.count_nonzero((f64 > 0) ^ (f64 < 0.5)))

    def channel_statistics():
        mean = batch.mean(axis=(0, 2, 3))
        var = batch.var(axis=(0, 2, 3), keepdims=True)
        return float(mean.sum() + var.sum() + batch.max(axis=(0, 3)).sum())

    def half_precision():
        h = f32.astype(np.float16)
        return float(np.cumsum(h, axis=0)[-1].astype(np.float32).sum() + np.sort(h, axis=1)[:, 0].astype(np.float32).sum()
                     + (h * 3 + 1).astype(np.float32).sum())

    def hash_extremes():
        return int(np.max(hashes) % 1000003) + int(np.argmax(hashes)) + int(np.argmin(hashes)) + int(np.min(hashes) % 1009)

    def complex_mixing():
        w = np.exp(1j * np.linspace(0, np.pi, 8))
        return float(np.abs((z * w).astype(np.complex64).sum(axis=0)).sum().round(3) + np.angle(z).sum())

    def contraction():
        return float(np.einsum("bi,bj->ij", f64[:, :4], f64[:, 4:8]).sum() + np.tensordot(f64, f64, axes=([0], [0])).trace())

    def masked_updates():
        y = i32.copy()
        y[y > 10] = 10
        y[[0, 3, 5], 2:4] = -1
        y[:, ::-3] *= 2
        return int(y.sum() + np.abs(y).max())

    def recurrence():
        x = np.zeros(30)
        v = f64[:, 0]
        for i in range(1, 30):
            x[i] = 0.5 * x[i - 1] + v[i]
            if float(x[i]) > 2:
                x[i] = 2
        return float(x.sum())

    return [image_spectrum, eigenvalues, symmetric_float32, polynomial_fit, complex_factors, stacked_determinants,
            correlate_signals, integer_statistics, unique_rows, sorted_lookup, joint_histogram, running_totals,
            image_gradient, missing_values, bit_packing, channel_statistics, half_precision, hash_extremes,
            complex_mixing, contraction, masked_updates, recurrence]


if __name__ == "__main__":
    run(sections, sys.argv[1] if len(sys.argv) > 1 else "nabla")
