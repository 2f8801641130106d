"""A newcomer's first NumPy script: 22 short sections on a 500 x 20 data set, each ending in a
checksum. ``python bench/newcomer_script.py [numpy|nabla]`` runs it on NumPy or on
``nabla.numpy`` (unchanged but for the import) and prints each section's checksum and time, on
stderr, then the total; the checksums must agree between the two.
"""

from __future__ import annotations

import sys
import time


def sections(np):
    rng = __import__("numpy").random.default_rng(0)
    data = np.asarray(rng.standard_normal((500, 20)))
    target = np.asarray(rng.standard_normal(500))

    def normalize():
        z = (data - data.mean(axis=0)) / data.std(axis=0)
        return float(np.abs(z).sum())

    def lstsq():
        coef = np.linalg.lstsq(data, target, rcond=None)[0]
        return float(np.abs(coef).sum())

    def solve():
        a = data.T @ data + np.eye(20)
        return float(np.linalg.solve(a, data.T @ target).sum())

    def inv_det():
        a = data[:20] + 5 * np.eye(20)
        return float(np.linalg.inv(a).sum() + np.log(abs(np.linalg.det(a))))

    def eigh_cov():
        w, _ = np.linalg.eigh(np.cov(data, rowvar=False))
        return float(w.sum() + w.max())

    def svd():
        return float(np.linalg.svd(data, compute_uv=False).sum())

    def norm():
        return float(np.linalg.norm(data) + np.linalg.norm(data, axis=1).sum())

    def kmeans():
        centers = data[:4]
        for _ in range(5):
            d = ((data[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
            labels = np.argmin(d, axis=1)
            centers = np.stack([data[labels == k].mean(axis=0) if (labels == k).any() else centers[k]
                                for k in range(4)])
        return float(centers.sum() + labels.sum())

    def sort():
        return float(np.sort(data, axis=0)[::50].sum() + np.sort(data.ravel())[-10:].sum())

    def argsort():
        return int(np.argsort(target, kind="stable")[:50].sum())

    def unique():
        u, counts = np.unique(np.round(data * 2).astype(int), return_counts=True)
        return int(u.sum() + (counts * np.arange(len(counts))).sum())

    def percentile():
        return float(np.percentile(data, [5, 50, 95]).sum() + np.median(data, axis=0).sum())

    def histogram():
        h, edges = np.histogram(data.ravel(), bins=30)
        return float(h @ np.arange(30) + edges.sum())

    def cumsum_diff():
        c = np.cumsum(target)
        return float(np.diff(c).sum() + c[-1] + np.cumsum(data, axis=1)[:, -1].sum())

    def rfft():
        return float(np.abs(np.fft.rfft(target)).sum())

    def convolve():
        return float(np.convolve(target, np.ones(5) / 5, mode="valid").sum())

    def fancy_index():
        idx = np.asarray(rng.integers(0, 500, 100))
        return float(data[idx, 3].sum() + data[idx][:, [1, 4]].sum())

    def boolean_mask():
        return float(data[data > 1.0].sum() + (target > 0).sum())

    def einsum():
        return float(np.einsum("ij,ij->i", data, data).sum() + np.einsum("ij,kj->ik", data[:5], data[:5]).sum())

    def trig():
        return float(np.sin(data).sum() + np.arctan2(data[:, 0], data[:, 1]).sum() + np.cos(target).sum())

    def integer_ops():
        a = np.arange(1000) * 7
        return int((a % 13).sum() + (a // 3).sum() + (np.arange(1000) + np.arange(1000)).sum() + (-a).sum())

    def concatenate_reshape():
        c = np.concatenate([data, data[::-1]], axis=0).reshape(50, 20, 20)
        return float(c[::7].sum() + c.transpose(1, 0, 2)[3].sum())

    return [normalize, lstsq, solve, inv_det, eigh_cov, svd, norm, kmeans, sort, argsort, unique, percentile,
            histogram, cumsum_diff, rfft, convolve, fancy_index, boolean_mask, einsum, trig, integer_ops,
            concatenate_reshape]


def run(sections, which: str = "nabla") -> list:
    """Each of ``sections(np)`` in turn, its checksum and time on stderr; the checksums."""
    t0 = time.perf_counter()
    if which == "numpy":
        import numpy as np
    else:
        import nabla.numpy as np
    print(f"import: {time.perf_counter() - t0:.2f} s", file=sys.stderr)
    sums = []
    for section in sections(np):
        t = time.perf_counter()
        value = section()
        sums.append(value)
        print(f"{section.__name__:20s} {value!r:>26}  {time.perf_counter() - t:7.2f} s", file=sys.stderr)
    print(f"total: {time.perf_counter() - t0:.2f} s", file=sys.stderr)
    return sums


def main(which: str = "nabla") -> list:
    return run(sections, which)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "nabla")
