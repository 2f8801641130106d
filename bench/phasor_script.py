"""A seventeenth newcomer script, held out of the first-run manifest: complex arrays and selections
as NumPy users write them (a radix-2 FFT by hand, its butterflies gathered by index arrays; a Julia
set whose active points shrink by a mask each step; Newton's method for z^3 = 1 over a grid until
it settles, a scalar read per step; an antenna array's beam pattern, phasors summed over the
elements; a split-step wave packet through ``np.fft``; a small convolution summed over its window's
axes); 6 sections, each ending in a checksum. ``python bench/phasor_script.py [numpy|nabla]``.
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    rng = __import__("numpy").random.default_rng(17)

    def fft_by_hand(bits=12):
        n = 1 << bits
        x = np.asarray(rng.standard_normal(n)) + 1j * np.asarray(rng.standard_normal(n))
        j = np.arange(n)
        reversed_bits = np.zeros(n, dtype=np.int64)
        for b in range(bits):  # (the bit-reversed order, one bit at a time)
            reversed_bits |= ((j >> b) & 1) << (bits - 1 - b)
        a = x[reversed_bits]
        size = 2
        while size <= n:
            half = size // 2
            w = np.exp(-2j * np.pi * np.arange(half) / size)
            a = a.reshape(-1, size)
            top, bottom = a[:, :half], a[:, half:] * w
            a = np.concatenate([top + bottom, top - bottom], axis=1).ravel()
            size *= 2
        error = np.abs(a - np.fft.fft(x)).max()
        return round(float(np.abs(a).sum()), 3) + int(error < 1e-8)

    def julia(n=200, iters=40, c=-0.8 + 0.156j):
        y, x = np.mgrid[-1.2:1.2:n * 1j, -1.6:1.6:n * 1j]
        z = (x + 1j * y).ravel()
        where = np.arange(z.shape[0])
        escaped = np.zeros(z.shape[0], dtype=np.int64)
        for it in range(iters):
            z = z * z + c
            out = np.abs(z) > 2.0
            escaped[where[out]] = it + 1
            keep = ~out
            z, where = z[keep], where[keep]
            if z.shape[0] == 0:
                break
        return int(escaped.sum()) + int(z.shape[0])

    def newton_roots(n=120, tol=1e-10):
        y, x = np.mgrid[-1.5:1.5:n * 1j, -1.5:1.5:n * 1j]
        z = x + 1j * y + 1e-3
        steps = 0
        while True:
            step = (z ** 3 - 1) / (3 * z ** 2)
            z = z - step
            steps += 1
            if float(np.abs(step).max()) < tol or steps >= 60:
                break
        roots = np.exp(2j * np.pi * np.arange(3) / 3)
        nearest = np.argmin(np.abs(z[..., None] - roots), axis=-1)
        return int(np.bincount(nearest.ravel(), minlength=3)[0]) + steps

    def beam_pattern(elements=32, angles=720):
        positions = np.arange(elements) * 0.5
        theta = np.linspace(-np.pi / 2, np.pi / 2, angles)
        weights = np.hanning(elements) * np.exp(-1j * np.pi * positions * np.sin(0.3))
        phase = np.exp(2j * np.pi * positions[None, :] * np.sin(theta)[:, None])
        pattern = np.abs((phase * weights).sum(axis=1)) ** 2
        pattern /= pattern.max()
        peak = float(theta[np.argmax(pattern)])
        return round(float(10 * np.log10(pattern + 1e-12).mean()), 4) + round(peak, 4)

    def split_step(n=1024, steps=200, dt=0.01):
        x = np.linspace(-40, 40, n, endpoint=False)
        k = 2 * np.pi * np.fft.fftfreq(n, d=x[1] - x[0])
        psi = np.exp(-(x + 10) ** 2 / 4 + 2j * x)
        potential = 0.5 * np.exp(-x ** 2)
        half_v = np.exp(-0.5j * potential * dt)
        kinetic = np.exp(-0.5j * k ** 2 * dt)
        for _ in range(steps):
            psi = half_v * np.fft.ifft(kinetic * np.fft.fft(half_v * psi))
        norm = float((np.abs(psi) ** 2).sum() * (x[1] - x[0]))
        return round(norm, 6) + round(float((x * np.abs(psi) ** 2).sum() * (x[1] - x[0])), 3)

    def window_sums(n=6, h=28, channels=3, kernel=3, out_channels=4):
        image = np.asarray(rng.standard_normal((n, h, h, channels)))
        w = np.asarray(rng.standard_normal((kernel, kernel, channels, out_channels)))
        out = np.empty((n, h - kernel + 1, h - kernel + 1, out_channels))
        for i in range(h - kernel + 1):
            for j in range(h - kernel + 1):
                out[:, i, j, :] = np.sum(image[:, i:i + kernel, j:j + kernel, :, None] * w[None], axis=(1, 2, 3))
        return round(float(np.maximum(out, 0).sum()), 4)

    return [fft_by_hand, julia, newton_roots, beam_pattern, split_step, window_sums]


def main(which: str = "nabla") -> list:
    return run(sections, which)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "nabla")
