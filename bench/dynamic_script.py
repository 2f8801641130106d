"""An eighteenth newcomer script, held out of the first-run manifest: loops over elements as NumPy users
write them (a travelling-salesman table filled through a row view of it; a longest increasing
subsequence, one comparison read per pair; a discrete Fourier transform by hand, a complex twiddle
new at every term; a pendulum stepped with ``np.sin`` of Python floats; an insertion sort by swaps;
a histogram counted at picked integers); 6 sections, each ending in a checksum.
``python bench/dynamic_script.py [numpy|nabla]``.
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    rng = __import__("numpy").random.default_rng(23)

    def held_karp(n=8):
        points = np.asarray(rng.random((n, 2)))
        d = np.sqrt(((points[:, None] - points[None]) ** 2).sum(-1))
        full = 1 << n
        best = np.full((full, n), np.inf)
        best[1, 0] = 0.0
        for mask in range(1, full, 2):
            row = best[mask]
            for j in range(n):
                if not (mask >> j) & 1 or row[j] == np.inf:
                    continue
                for k in range(n):
                    if (mask >> k) & 1:
                        continue
                    grown = mask | (1 << k)
                    cand = row[j] + d[j, k]
                    if cand < best[grown, k]:
                        best[grown, k] = cand
        return round(float((best[full - 1] + d[:, 0]).min()), 6)

    def longest_increasing(n=120):
        a = np.asarray(rng.integers(0, 400, n))
        length = np.ones(n, dtype=np.int64)
        for i in range(1, n):
            for j in range(i):
                if a[j] < a[i] and length[j] + 1 > length[i]:
                    length[i] = length[j] + 1
        return int(length.max()) * 1000 + int(length.sum())

    def dft_by_hand(n=24):
        x = np.asarray(rng.standard_normal(n)) + 1j * np.asarray(rng.standard_normal(n))
        spectrum = np.zeros(n, dtype=complex)
        for k in range(n):
            for t in range(n):
                spectrum[k] += x[t] * np.exp(-2j * np.pi * k * t / n)
        error = float(np.abs(spectrum - np.fft.fft(x)).max())
        return round(float(np.abs(spectrum).sum()), 6) + int(error < 1e-9)

    def pendulum(steps=400, dt=0.01):
        theta, omega, t = 1.0, 0.0, 0.0
        path = np.zeros(steps)
        for i in range(steps):
            omega = omega - dt * (9.81 * np.sin(theta) + 0.1 * omega) + dt * 0.2 * np.cos(t)
            theta = theta + dt * omega
            t += dt
            path[i] = theta
        return round(float(np.abs(path).sum()), 6)

    def insertion_sort(n=60):
        a = np.asarray(rng.standard_normal(n))
        for i in range(1, n):
            j = i
            while j > 0 and a[j - 1] > a[j]:
                a[j - 1], a[j] = a[j], a[j - 1]
                j -= 1
        return int(bool(np.all(np.diff(a) >= 0))) + round(float(a[0] + a[-1]), 6)

    def histogram_by_loop(n=2000, bins=16):
        values = np.asarray(rng.integers(0, bins, n))
        counts = np.zeros(bins, dtype=np.int64)
        for v in values:
            counts[v] += 1
        return int((counts * np.arange(bins)).sum()) + int(counts.max())

    return [held_karp, longest_increasing, dft_by_hand, pendulum, insertion_sort, histogram_by_loop]


def main(which: str = "nabla") -> list:
    return run(sections, which)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "nabla")
