"""A fifth newcomer script, held out of the first-run manifest: integer data (counts, ids, codes,
bit fields) of several widths, grouped and ranked, with loops over rows; 20 sections, each ending
in a checksum. ``python bench/integer_script.py [numpy|nabla]``, as the first script.
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    rng = __import__("numpy").random.default_rng(11)
    ids = np.asarray(rng.integers(0, 50, size=3000))
    counts = np.asarray(rng.integers(0, 1000, size=(300, 10)).astype("int32"))
    codes = np.asarray(rng.integers(0, 2 ** 16, size=4096, dtype="uint16"))

    def group_totals():
        totals = np.bincount(ids, weights=np.arange(3000) % 7, minlength=50)
        return float(totals.max() + totals.argmax())

    def unique_counts():
        u, c = np.unique(ids, return_counts=True)
        return int((u * c).sum())

    def rank_rows():
        order = np.argsort(counts[:, 0], kind="stable")
        ranks = np.empty_like(order)
        ranks[order] = np.arange(order.size)
        return int((ranks * counts[:, 1]).sum())

    def int32_sums():
        return int(counts.sum() + counts.sum(axis=0).max() + counts.cumsum(axis=1)[:, -1].min())

    def divmod_codes():
        q, r = np.divmod(codes, 97)
        return int(q.sum() + r.max() + (codes % 7 == 3).sum())

    def bit_fields():
        hi = (codes >> 8) & 0xFF
        lo = codes & 0xFF
        return int((hi ^ lo).sum() + np.bitwise_count(codes).sum() + (codes | 1).min())

    def gcd_lcm():
        a = counts[:, 2].astype(np.int64) + 1
        b = counts[:, 3].astype(np.int64) + 1
        return int(np.gcd(a, b).sum() + np.lcm(a[:20], b[:20]).max())

    def searchsorted_bins():
        edges = np.array([0, 100, 250, 500, 750, 1000])
        return int(np.searchsorted(edges, counts[:, 4], side="right").sum() + np.digitize(counts[:, 5], edges).sum())

    def diff_and_sign():
        d = np.diff(counts[:, 6])
        return int(np.sign(d).sum() + np.abs(d).max() + (d == 0).sum())

    def lexsort_pairs():
        order = np.lexsort((counts[:, 7], counts[:, 8] // 100))
        return int(order[:10].sum() + counts[order[0], 7])

    def running_max_loop():
        best = np.zeros(300, dtype=np.int64)
        col = counts[:, 9].astype(np.int64)
        best[0] = col[0]
        for i in range(1, 300):
            best[i] = max(best[i - 1], col[i])
        return int(best.sum())

    def rows_above_mean():
        kept = 0
        for r in range(0, 300, 10):
            row = counts[r]
            kept += int((row > row.mean()).sum())
        return kept

    def clip_and_scale():
        scaled = np.clip(counts, 100, 900) * 3 // 2
        return int(scaled.sum() + scaled.dtype.itemsize)

    def int_matmul():
        a = counts[:20, :10].astype(np.int64)
        return int((a @ a.T).trace())

    def histogram_ints():
        h, e = np.histogram(codes, bins=16, range=(0, 65536))
        return int(h.max() + h.argmin() + e[3])

    def power_mod():
        base = (codes[:100] % 13).astype(np.int64)
        return int((base ** 3 % 1000).sum() + np.power(2, np.arange(20)).sum())

    def where_select():
        c = counts[:, :3]
        out = np.where(c > 500, c - 500, np.where(c < 100, 0, c))
        return int(out.sum() + np.select([c < 10, c > 990], [c, -c], 1).sum())

    def nonzero_positions():
        rows, cols = np.nonzero(counts > 990)
        return int(rows.sum() + cols.sum() + np.flatnonzero(ids == 3).size)

    def uint16_wrap():
        w = codes + np.uint16(60000)
        return int(w.sum() + (codes * np.uint16(3)).max() + (codes - np.uint16(1)).min())

    def count_runs():
        flags = (counts[:, 0] > 500).astype(np.int8)
        changes = np.flatnonzero(np.diff(flags) != 0)
        return int(changes.size + changes[:5].sum() + np.cumsum(flags).max())

    return [group_totals, unique_counts, rank_rows, int32_sums, divmod_codes, bit_fields, gcd_lcm,
            searchsorted_bins, diff_and_sign, lexsort_pairs, running_max_loop, rows_above_mean, clip_and_scale,
            int_matmul, histogram_ints, power_mod, where_select, nonzero_positions, uint16_wrap, count_runs]


if __name__ == "__main__":
    run(sections, sys.argv[1] if len(sys.argv) > 1 else "nabla")
