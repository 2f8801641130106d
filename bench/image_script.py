"""A fourth newcomer script, held out of the first-run manifest: float32 images and uint8 data,
rows processed one by one, in-place edits, element and convergence loops, time series and a
Monte Carlo estimate; 20 sections, each ending in a checksum.
``python bench/image_script.py [numpy|nabla]``, as the first script.
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    rng = __import__("numpy").random.default_rng(7)
    raw = np.asarray(rng.integers(0, 256, size=(128, 96), dtype="uint8"))
    series = np.asarray(rng.standard_normal(2000))

    def uint8_histogram():
        counts = np.bincount(raw.ravel(), minlength=256)
        return int(counts.argmax() + (raw > 200).sum() + raw.max() - raw.min())

    def to_float32():
        img = raw.astype(np.float32) / 255
        return round(float(img.mean() + img.std()), 4)

    def rows_convolve():
        img = raw.astype(np.float32) / 255
        k = np.array([0.25, 0.5, 0.25], dtype=np.float32)
        out = np.apply_along_axis(lambda r: np.convolve(r, k, mode="same"), 1, img)
        return round(float(out.sum()), 1)

    def image_gradient():
        gy, gx = np.gradient(raw.astype(np.float64))
        return float(np.hypot(gx, gy).mean())

    def box_blur():
        img = raw.astype(np.float32)
        out = img.copy()
        out[1:-1, 1:-1] = (img[:-2, 1:-1] + img[2:, 1:-1] + img[1:-1, :-2] + img[1:-1, 2:] + img[1:-1, 1:-1]) / 5
        return round(float(out.sum()), 0)

    def threshold_in_place():
        img = raw.astype(np.int32)
        img[img < 64] = 0
        img[img > 192] = 255
        img -= 10
        np.clip(img, 0, 255, out=img)
        return int(img.sum())

    def uint8_arithmetic():
        a = raw[:, :48]
        b = raw[:, 48:]
        return int((a + b).sum() + (a // 3).sum() + (a ^ b).max() + (np.right_shift(a, 2) | 1).sum())

    def nan_statistics():
        x = np.where(raw > 240, np.nan, raw / 255.0)
        return float(np.nanmean(x) + np.nanstd(x) + np.nanmedian(x[:10]))

    def matrix_rank():
        a = raw[:24, :24].astype(np.float64)
        a[3] = a[1] + a[2]
        return int(np.linalg.matrix_rank(a))

    def moving_average():
        w = np.ones(25) / 25
        smooth = np.convolve(series, w, mode="valid")
        return float(smooth.std() + np.cumsum(series)[-1])

    def monte_carlo_pi():
        g = np.random.default_rng(3)
        p = g.random((20000, 2))
        inside = (p ** 2).sum(axis=1) <= 1.0
        return round(float(4 * inside.mean()), 1)  # (a random stream of its own: equal to 0.1)

    def element_loop():
        x = np.zeros(300)
        y = np.asarray(series[:300])
        for i in range(1, 300):
            x[i] = max(x[i - 1] * 0.9, y[i])
        return float(x.sum())

    def convergence_loop():
        u = np.zeros((40, 40))
        u[0, :] = 1.0
        steps = 0
        while True:
            new = u.copy()
            new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
            delta = float(np.abs(new - u).max())
            u = new
            steps += 1
            if delta < 1e-3 or steps >= 200:
                break
        return steps + round(float(u.sum()), 3)

    def row_normalize():
        img = raw.astype(np.float32)
        for r in range(0, 128, 8):
            row = img[r]
            img[r] = (row - row.min()) / (row.max() - row.min() + 1)
        return round(float(img[::8].sum()), 2)

    def bisection():
        lo = np.zeros(100)
        hi = np.full(100, 10.0)
        target = np.linspace(1, 90, 100)
        for _ in range(30):
            mid = (lo + hi) / 2
            low = mid ** 2 < target
            lo = np.where(low, mid, lo)
            hi = np.where(low, hi, mid)
        return round(float(lo.sum()), 6)

    def complex_signal():
        z = np.exp(1j * np.linspace(0, 6, 256)) * (1 + 0.1 * series[:256])
        return float(np.abs(np.fft.fft(z)).max() + np.angle(z).sum())

    def percentiles():
        return float(np.percentile(series, [5, 50, 95]).sum() + np.median(raw))

    def sort_unique():
        u, c = np.unique(raw[:16], return_counts=True)
        return int(u.sum() + c.max() + np.sort(raw[0])[10])

    def float32_matmul():
        a = raw[:32].astype(np.float32) / 255
        return round(float((a @ a.T).trace()), 2)

    def bool_logic():
        m = (raw % 3 == 0) & ~(raw > 128) | (raw == 7)
        return int(m.sum() + np.count_nonzero(np.logical_xor(m, raw < 50)) + m.any(axis=1).sum())

    return [uint8_histogram, to_float32, rows_convolve, image_gradient, box_blur, threshold_in_place,
            uint8_arithmetic, nan_statistics, matrix_rank, moving_average, monte_carlo_pi, element_loop,
            convergence_loop, row_normalize, bisection, complex_signal, percentiles, sort_unique,
            float32_matmul, bool_logic]


if __name__ == "__main__":
    run(sections, sys.argv[1] if len(sys.argv) > 1 else "nabla")
