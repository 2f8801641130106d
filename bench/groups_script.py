"""A fourteenth newcomer script, held out of the first-run manifest: grouping and smoothing as NumPy
users write them (a group-by maximum and count over string labels, bins of a large array selected
by masks, a smoothing loop that interpolates on a grid computed in it, a compound interest table of
powers, a nonuniform grid's derivative, a histogram of hashed keys); 6 sections, each ending in a
checksum. ``python bench/groups_script.py [numpy|nabla]``, as the first script.
"""

from __future__ import annotations

import sys
import warnings

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    rng = __import__("numpy").random.default_rng(14)

    def group_by_label(n=20000):
        names = ["north", "south", "east", "west", "centre"]
        labels = [names[k] for k in rng.integers(0, 5, n)]
        values = np.asarray(rng.standard_normal(n))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (Nabla: strings stay NumPy's arrays on the host)
            keys, inverse = np.unique(np.array(labels), return_inverse=True)
        best = np.full(len(keys), -np.inf)
        np.maximum.at(best, inverse, values)
        counts = np.bincount(inverse)
        return round(float((best * counts).sum()), 9) + len(keys)

    def binned_means(n=400000, bins=200):
        data, radius = np.asarray(rng.random(n)), np.asarray(rng.random(n))
        out = np.zeros(bins)
        for i in range(bins):
            out[i] = data[(i / bins <= radius) & (radius < (i + 1) / bins)].mean()
        return round(float(out.sum()), 9)

    def smoothing(n=20000, steps=12):
        x = np.asarray(__import__("numpy").sort(rng.random(n)))
        y = np.sin(6 * x)
        grid = x * 1.0  # (computed in the loop's setup, dropped once read)
        for _ in range(steps):
            y = 0.9 * y + 0.1 * np.interp(x + 0.0005, grid, y)
        return round(float(y.sum()), 9)

    def compound_interest(years=30):
        rates = np.linspace(0.01, 0.08, 8)
        periods = np.array([1, 4, 12, 365, 8760])
        table = (1 + rates[:, None] / periods[None, :]) ** (periods[None, :] * years)
        return round(float(table.sum()), 6)

    def nonuniform_derivative(n=300):
        x = np.cumsum(np.asarray(rng.random(n)) + 0.05)
        f = np.sin(x) * x ** 2
        d1 = np.gradient(f, x)
        d2 = np.gradient(f, x, edge_order=2)
        return round(float(d1.sum() + d2[0] + d2[-1]), 9)

    def hashed_histogram(n=50000, buckets=97):
        keys = np.asarray(rng.integers(0, 1 << 30, n))
        h = (keys * 2654435761) % (1 << 32) % buckets
        hist = np.bincount(h, minlength=buckets)
        return int((hist * np.arange(buckets)).sum()) + int(hist.max())

    return [group_by_label, binned_means, smoothing, compound_interest, nonuniform_derivative, hashed_histogram]


def main(which: str = "nabla") -> list:
    return run(sections, which)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "nabla")
