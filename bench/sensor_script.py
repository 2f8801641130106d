"""A ninth newcomer script, held out of the first-run manifest: sensors and geometry (float32 point
clouds, int16 raw readings, uint8 masks, complex128 signals; nearest neighbours, rotations, a
filter loop reading a scalar per step, FFT band filters, interpolation, fits, row functions); 20
sections, each ending in a checksum. ``python bench/sensor_script.py [numpy|nabla]``, as the
first script.
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    onp = __import__("numpy")
    rng = onp.random.default_rng(41)
    points = np.asarray(rng.normal(size=(400, 3)).astype("float32"))
    raw = np.asarray(rng.integers(-2000, 2000, size=(64, 48)).astype("int16"))
    mask = np.asarray((rng.random((64, 48)) < 0.3).astype("uint8"))
    t = onp.linspace(0, 1, 512, endpoint=False)
    signal = np.asarray(onp.sin(2 * onp.pi * 12 * t) + 0.3 * onp.cos(2 * onp.pi * 90 * t) + 0.1 * rng.normal(size=512))
    iq = np.asarray(onp.exp(2j * onp.pi * 5 * t) * (1 + 0.05 * rng.normal(size=512)))

    def centroid():
        c = points.mean(axis=0)
        return round(float(np.linalg.norm(points - c, axis=1).max()), 4)

    def nearest():
        d = ((points[:50, None, :] - points[None, :, :]) ** 2).sum(axis=-1)
        d[np.arange(50), np.arange(50)] = np.inf
        return int(np.argmin(d, axis=1).sum())

    def rotate():
        a = 0.3
        r = np.asarray([[onp.cos(a), -onp.sin(a), 0.0], [onp.sin(a), onp.cos(a), 0.0], [0.0, 0.0, 1.0]],
                       dtype=np.float32)
        q = points @ r.T
        return round(float(np.abs(q - points).sum()), 2)

    def cross_normals():
        n = np.cross(points[1:-1] - points[:-2], points[2:].take(np.arange(398), axis=0) - points[1:-1])
        return round(float(np.sqrt((n * n).sum(axis=1)).mean()), 4)

    def raw_scaled():
        v = raw.astype(np.float32) * 0.5 + 1.0
        return round(float(v[mask == 1].sum()), 1)

    def raw_saturate():
        s = np.clip(raw // 8 + 128, 0, 255).astype(np.uint8)
        return int(s.sum()) + int(s.max())

    def mask_counts():
        rows = mask.sum(axis=1, dtype=np.int32)
        return int(np.count_nonzero(rows > 14)) * 100 + int(rows.max())

    def band_filter():
        f = np.fft.rfft(signal)
        freqs = np.fft.rfftfreq(512, 1 / 512)
        f[freqs > 40] = 0
        back = np.fft.irfft(f, n=512)
        return round(float(np.abs(back).max()), 4)

    def iq_phase():
        ph = np.unwrap(np.angle(iq))
        return round(float(ph[-1] - ph[0]), 3)

    def iq_power():
        p = np.abs(iq) ** 2
        return round(float(10 * np.log10(p.mean())), 4)

    def smooth_loop():  # an exponential filter, one element at a time, a scalar read per step
        y = np.zeros(120)
        y[0] = signal[0]
        hits = 0
        for i in range(1, 120):
            y[i] = 0.8 * y[i - 1] + 0.2 * signal[i]
            if float(y[i]) > 0.5:
                hits += 1
        return round(float(y.sum()), 6) + hits

    def resample():
        x_new = onp.linspace(0, 1, 300)
        r = np.interp(np.asarray(x_new), np.asarray(t), signal)
        return round(float(r.sum()), 4)

    def trend_fit():
        c = np.polyfit(np.asarray(t), signal + np.asarray(3 * t), 1)
        return round(float(c[0]), 3)

    def row_peaks():
        m = raw.astype(np.float64)
        peaks = np.apply_along_axis(lambda r: r.argmax() - r.argmin(), 1, m)
        return int(peaks.sum())

    def unique_levels():
        levels, inverse = np.unique(raw // 500, return_inverse=True)
        return int(levels.size) * 10000 + int(inverse.sum())

    def sorted_merge():
        a = np.sort(points[:, 0])
        b = np.sort(points[:, 1])
        idx = np.searchsorted(a, b)
        return int(idx.sum())

    def grid_hist():
        h, _, _ = np.histogram2d(points[:, 0], points[:, 1], bins=8, range=[[-3, 3], [-3, 3]])
        return int(h.max()) * 1000 + int(h.sum())

    def outliers():
        z = np.abs(points - np.median(points, axis=0)) / points.std(axis=0)
        return int((z > 2.5).any(axis=1).sum())

    def gradient_energy():
        gy, gx = np.gradient(raw.astype(np.float32))
        return round(float(np.hypot(gx, gy).mean()), 3)

    def edge_mask():
        e = (mask[1:, :] != mask[:-1, :]) | False
        return int(e.sum()) + int(np.flatnonzero(e.ravel())[:10].sum())

    return [centroid, nearest, rotate, cross_normals, raw_scaled, raw_saturate, mask_counts, band_filter,
            iq_phase, iq_power, smooth_loop, resample, trend_fit, row_peaks, unique_levels, sorted_merge,
            grid_hist, outliers, gradient_energy, edge_mask]


def main(which: str = "nabla") -> list:
    return run(sections, which)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "nabla")
