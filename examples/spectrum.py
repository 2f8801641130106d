"""A noisy signal's spectrum with ``import nabla.numpy as np``: the FFT, its peaks, a low-pass filter
through the inverse transform, and complex arithmetic on an analytic signal."""

import nabla.numpy as np

rate, n = 1000.0, 1024
t = np.arange(n) / rate
clean = np.sin(2 * np.pi * 50 * t) + 0.5 * np.sin(2 * np.pi * 120 * t)
noisy = clean + 0.3 * np.random.default_rng(0).standard_normal(n)

spectrum = np.fft.fft(noisy)
freqs = np.fft.fftfreq(n, d=1 / rate)
half = np.abs(spectrum[: n // 2])
peaks = np.sort(freqs[np.argsort(half)[::-1][:2]])
print("strongest frequencies (Hz):", peaks)

filtered = np.fft.ifft(np.where(np.abs(freqs) < 80, spectrum, 0)).real
print("error of the low-passed signal against the 50 Hz tone:",
      float(np.sqrt(np.mean((filtered - np.sin(2 * np.pi * 50 * t)) ** 2))))

power = np.fft.irfft(np.abs(np.fft.rfft(noisy)) ** 2)  # the autocorrelation, through the power spectrum
print("autocorrelation at lags 0..3:", power[:4] / power[0])

z = noisy[:512] + 1j * noisy[512:]
rotated = z * np.exp(1j * np.pi / 4)
print("mean magnitude and phase:", float(np.abs(rotated).mean()), float(np.angle(rotated.conj()).mean()))
