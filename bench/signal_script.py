"""A fifth newcomer script, held out of the first-run manifest: signals and time series (int16 audio
samples, float32 and complex64 spectra, frames, filters, autocorrelation, peak picking, a small
autoregressive fit); 20 sections, each ending in a checksum.
``python bench/signal_script.py [numpy|nabla]``, as the first script.
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    rng = __import__("numpy").random.default_rng(11)
    t = np.linspace(0.0, 1.0, 4000, endpoint=False)
    noise = np.asarray(rng.standard_normal(4000))
    clean = np.sin(2 * np.pi * 50 * t) + 0.5 * np.sin(2 * np.pi * 120 * t)
    signal = clean + 0.3 * noise

    def int16_samples():
        pcm = np.clip(np.round(signal * 8000), -32768, 32767).astype(np.int16)
        return int(pcm.sum()) + int(np.abs(pcm.astype(np.int32)).max()) + int((pcm > 0).sum())

    def float32_rms_db():
        x = signal.astype(np.float32)
        rms = np.sqrt(np.mean(x * x))
        return round(float(20 * np.log10(rms)), 3)

    def frames_and_energy():
        frames = signal[: 3968].reshape(31, 128)
        energy = (frames ** 2).sum(axis=1)
        return float(energy.max() / energy.min() + energy.argmax())

    def hann_spectrum():
        frames = signal[: 3968].reshape(31, 128) * np.hanning(128)
        spec = np.abs(np.fft.rfft(frames, axis=1))
        return float(spec.mean(axis=0).argmax() + spec.max())

    def fft_lowpass():
        f = np.fft.rfft(signal)
        freqs = np.fft.rfftfreq(signal.size, d=1 / 4000)
        f[freqs > 80] = 0
        out = np.fft.irfft(f, n=signal.size)
        return float(np.abs(out - np.sin(2 * np.pi * 50 * t)).max())

    def complex64_mix():
        z = (signal[:1024] * np.exp(-2j * np.pi * 50 * t[:1024])).astype(np.complex64)
        return round(float(np.abs(z.mean()) + np.angle(z[:8]).sum()), 3)

    def moving_average():
        c = np.cumsum(np.concatenate([[0.0], signal]))
        ma = (c[25:] - c[:-25]) / 25
        return float(ma.std() + ma[::500].sum())

    def convolve_fir():
        taps = np.ones(15) / 15
        out = np.convolve(signal, taps, mode="valid")
        return float(out.sum() + out.max())

    def autocorrelation():
        x = signal[:512] - signal[:512].mean()
        ac = np.correlate(x, x, mode="full")[511:]
        ac = ac / ac[0]
        return float(ac[1:60].argmax() + ac[:10].sum())

    def zero_crossings():
        s = np.sign(clean)
        crossings = np.nonzero(np.diff(s) != 0)[0]
        return int(crossings.size + crossings[:5].sum())

    def peak_picking():
        x = np.abs(np.fft.rfft(signal))
        inner = (x[1:-1] > x[:-2]) & (x[1:-1] > x[2:]) & (x[1:-1] > 10 * np.median(x))
        peaks = np.flatnonzero(inner) + 1
        return int(peaks.sum() + peaks.size)

    def resample_interp():
        new_t = np.linspace(0.0, 1.0, 1000, endpoint=False)
        y = np.interp(new_t, t, signal)
        return float(y.sum() + y[::100].max())

    def envelope():
        f = np.fft.fft(clean)
        h = np.zeros(clean.size)
        h[0] = 1
        h[1:clean.size // 2] = 2
        h[clean.size // 2] = 1
        env = np.abs(np.fft.ifft(f * h))
        return round(float(env.mean() + env.max()), 6)

    def unwrap_phase():
        phase = np.angle(np.exp(1j * 2 * np.pi * 3 * t[:400]))
        return round(float(np.unwrap(phase)[-1]), 6)

    def quantile_clipping():
        lo, hi = np.percentile(signal, [1, 99])
        clipped = np.clip(signal, lo, hi)
        return float(clipped.sum() + (signal != clipped).sum())

    def event_search():
        times = np.sort(np.asarray(rng.uniform(0, 1, 300)))
        idx = np.searchsorted(times, np.array([0.1, 0.25, 0.5, 0.75, 0.9]))
        return int(idx.sum() + np.histogram(times, bins=10)[0].max())

    def ar_fit():
        x = signal[:800] - signal[:800].mean()
        order = 4
        r = np.array([x[: x.size - k] @ x[k:] for k in range(order + 1)]) / x.size
        toeplitz = r[np.abs(np.arange(order)[:, None] - np.arange(order)[None, :])]
        coeffs = np.linalg.solve(toeplitz, r[1:])
        return round(float(coeffs.sum() + np.abs(coeffs).max()), 6)

    def exponential_smoothing():
        s = np.empty(300)
        s[0] = signal[0]
        for i in range(1, 300):
            s[i] = 0.2 * signal[i] + 0.8 * s[i - 1]
        return round(float(s.sum()), 6)

    def trapezoid_energy():
        return round(float(np.trapezoid(signal ** 2, t) + np.trapezoid(np.abs(clean), dx=1 / 4000)), 6)

    def stereo_einsum():
        left, right = signal[:2000].reshape(20, 100), clean[:2000].reshape(20, 100)
        gains = np.array([[0.9, 0.1], [0.2, 0.8]])
        mixed = np.einsum("ij,jkl->ikl", gains, np.stack([left, right]))
        return float(mixed.sum() + np.outer(mixed[0, 0, :3], mixed[1, 0, :3]).trace())

    return [int16_samples, float32_rms_db, frames_and_energy, hann_spectrum, fft_lowpass, complex64_mix,
            moving_average, convolve_fir, autocorrelation, zero_crossings, peak_picking, resample_interp,
            envelope, unwrap_phase, quantile_clipping, event_search, ar_fit, exponential_smoothing,
            trapezoid_energy, stereo_einsum]


if __name__ == "__main__":
    run(sections, sys.argv[1] if len(sys.argv) > 1 else "nabla")
