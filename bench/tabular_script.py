"""An eleventh newcomer script, held out of the first-run manifest: tables and groups (int64 ids,
float64 amounts, float32 scores, uint8 categories, bool flags; group sums by sorting, ranks,
pivots, running products, interpolation, polynomial roots, a row loop, a scalar-read loop, small
matrix work); 20 sections, each ending in a checksum. ``python bench/tabular_script.py
[numpy|nabla]``, as the first script.
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    onp = __import__("numpy")
    rng = onp.random.default_rng(7)
    ids = np.asarray(rng.integers(0, 40, size=3000))
    amounts = np.asarray(rng.lognormal(3.0, 0.8, size=3000))
    scores = np.asarray(rng.normal(50, 12, size=3000).astype("float32"))
    cats = np.asarray(rng.integers(0, 6, size=3000).astype("uint8"))
    flags = np.asarray(rng.random(3000) < 0.2)
    table = np.asarray(rng.normal(size=(120, 8)))

    def group_sums():
        order = np.argsort(ids, kind="stable")
        keys = ids[order]
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        sums = np.add.reduceat(amounts[order], starts)
        return round(float(sums.max() - sums.min()), 6)

    def pivot():
        grid = np.zeros((40, 6))
        np.add.at(grid, (ids, cats), amounts)
        return round(float(grid.sum(axis=1).std() + grid[:, 3].max()), 6)

    def ranks():
        r = np.empty(3000, dtype=np.int64)
        r[np.argsort(scores)] = np.arange(3000)
        return int((r[flags] * (cats[flags].astype(np.int64) + 1)).sum())

    def lexsorted():
        o = np.lexsort((scores, cats))
        return int(o[:25].sum()) + int(cats[o][-1])

    def flagged_share():
        share = np.where(flags, amounts, 0.0).sum() / amounts.sum()
        return round(float(share), 10)

    def running_product():
        growth = 1.0 + np.diff(scores[:200].astype(np.float64)) / 1000.0
        return round(float(np.cumprod(growth)[-1]), 10)

    def interpolated():
        x = np.sort(amounts[:300])
        y = np.cumsum(np.ones(300)) / 300
        q = np.interp(np.asarray([10.0, 20.0, 40.0, 80.0]), x, y)
        return round(float(q.sum()), 10)

    def poly_roots():
        c = np.polyfit(np.arange(50, dtype=np.float64), table[:50, 0].cumsum(), 3)
        r = np.roots(c)
        return round(float(np.sort(np.abs(r)).sum()), 6)

    def pinv_fit():
        p = np.linalg.pinv(table)
        return round(float(np.abs(p @ table - np.eye(8)).max() < 1e-10) + float(np.abs(p).sum()), 8)

    def slogdet_gram():
        sign, logdet = np.linalg.slogdet(table.T @ table)
        return round(float(sign * logdet), 8)

    def triangle_pairs():
        c = np.corrcoef(table, rowvar=False)
        i, j = np.triu_indices(8, k=1)
        return round(float(np.abs(c[i, j]).max()), 10)

    def kron_block():
        k = np.kron(np.eye(3), table[:2, :2])
        return round(float(np.trace(k @ k.T)), 8)

    def selected_bands():
        band = np.select([scores < 40, scores < 60], [0, 1], default=2)
        return int(np.bincount(band.astype(np.int64), minlength=3) @ np.asarray([1, 100, 10000]))

    def row_loop():
        total = 0.0
        for row in table[:30]:
            total += float(np.max(row) - np.min(row))
        return round(total, 8)

    def payback_loop():
        balance, months = 1000.0, 0
        while balance > 0 and months < 200:
            balance = float(balance * 1.01 - amounts[months])
            months += 1
        return months

    def category_means():
        counts = np.bincount(cats, minlength=6)
        means = np.bincount(cats, weights=scores, minlength=6) / counts
        return round(float(means.max() - means.min()), 4)

    def z_clip():
        z = (scores - scores.mean()) / scores.std()
        return round(float(np.clip(z, -2, 2).astype(np.float32).sum()), 2)

    def nonzero_cells():
        big = np.argwhere(np.abs(table) > 2.0)
        return int(big.shape[0]) * 1000 + int(big[:, 1].sum())

    def masked_update():
        a = amounts.copy()
        a[flags & (cats == 2)] *= 0.5
        np.put(a, np.arange(10), 0.0)
        return round(float(a.sum()), 6)

    def area_under():
        x = np.linspace(0.0, 1.0, 101)
        y = np.sqrt(x) * np.exp(-x)
        return round(float(np.trapezoid(y, x)), 10)

    return [group_sums, pivot, ranks, lexsorted, flagged_share, running_product, interpolated,
            poly_roots, pinv_fit, slogdet_gram, triangle_pairs, kron_block, selected_bands, row_loop,
            payback_loop, category_means, z_clip, nonzero_cells, masked_update, area_under]


def main(which: str = "nabla") -> list:
    return run(sections, which)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "nabla")
