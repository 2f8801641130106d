"""An eighth newcomer script, held out of the first-run manifest: prices, ledgers and tables
(log returns, rolling windows, drawdowns, ranks, bucketing, a portfolio's solve, Monte Carlo
paths, int32 volumes and uint16 codes, bool flags, a per-day loop with a scalar read); 20
sections, each ending in a checksum. ``python bench/ledger_script.py [numpy|nabla]``, as the
first script.
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    rng = __import__("numpy").random.default_rng(29)
    prices = np.asarray(100 * __import__("numpy").exp(rng.normal(0, 0.01, size=(250, 8)).cumsum(axis=0)))
    volumes = np.asarray(rng.integers(100, 5000, size=(250, 8)).astype("int32"))
    codes = np.asarray(rng.integers(0, 40, size=3000).astype("uint16"))
    amounts = np.asarray(rng.normal(50, 20, size=3000).astype("float32"))
    flags = np.asarray(rng.random(3000) < 0.1)

    def log_returns():
        r = np.diff(np.log(prices), axis=0)
        return round(float(r.std(axis=0).sum() * 1e4), 6)

    def rolling_mean():
        c = np.cumsum(prices, axis=0)
        m = (c[20:] - c[:-20]) / 20.0
        return round(float(m[-1].sum()), 6)

    def drawdown():
        peak = np.maximum.accumulate(prices, axis=0)
        return round(float((prices / peak - 1).min(axis=0).sum()), 9)

    def vwap():
        v = volumes.astype(np.float64)
        return round(float(((prices * v).sum(axis=0) / v.sum(axis=0)).sum()), 6)

    def volume_ranks():  # (stable: NumPy's default sort leaves ties in an order of its own)
        ranks = np.argsort(np.argsort(volumes, axis=0, kind="stable"), axis=0)
        return int((ranks[-1] * np.arange(1, 9)).sum())

    def code_totals():
        t = np.bincount(codes, weights=amounts, minlength=40)
        return round(float(t.max() - t.min()), 2)

    def flagged_share():
        return round(float(amounts[flags].sum() / amounts.sum()), 6) + int(flags.sum())

    def buckets():
        edges = np.linspace(0.0, 100.0, 11)
        b = np.digitize(amounts, edges)
        counts = np.bincount(b, minlength=12)
        return int((counts * np.arange(12)).sum())

    def percentiles():
        q = np.percentile(amounts, [5, 25, 50, 75, 95])
        return round(float(q.sum()), 3)

    def covariance():
        r = np.diff(np.log(prices), axis=0)
        c = np.cov(r, rowvar=False)
        return round(float(np.trace(c) * 1e4 + c.sum() * 1e4), 6)

    def min_variance():
        r = np.diff(np.log(prices), axis=0)
        c = np.cov(r, rowvar=False)
        w = np.linalg.solve(c, np.ones(8))
        w = w / w.sum()
        return round(float(w @ np.arange(8.0)), 6)

    def monte_carlo():
        z = np.asarray(rng.normal(size=(500, 60)))
        paths = 100 * np.exp(np.cumsum(0.0002 + 0.01 * z, axis=1))
        return round(float(np.mean(np.maximum(paths[:, -1] - 100, 0))), 6)

    def daily_loop():
        cash = 1000.0
        held = 0
        for day in range(1, 120):
            change = prices[day, 0] - prices[day - 1, 0]
            if change < 0 and cash > prices[day, 0]:
                cash -= float(prices[day, 0])
                held += 1
            elif change > 0 and held:
                cash += float(prices[day, 0])
                held -= 1
        return round(cash + held * float(prices[119, 0]), 6)

    def code_pairs():
        pairs = codes[:-1].astype(np.uint32) * 40 + codes[1:]
        u, counts = np.unique(pairs, return_counts=True)
        return int(u.size) * 1000 + int(counts.max())

    def zscores():
        z = (amounts - amounts.mean()) / amounts.std()
        return int((np.abs(z) > 2).sum()) + round(float(z.max()), 3)

    def clipped_totals():
        a = np.clip(amounts, 0, 80)
        return round(float(np.round(a, 1).sum()), 1)

    def sorted_search():
        s = np.sort(amounts)
        i = np.searchsorted(s, [10.0, 50.0, 90.0])
        return int(i.sum())

    def table_where():
        fee = np.where(volumes > 2500, volumes // 100, volumes % 7)
        return int(fee.sum())

    def running_max_codes():
        m = np.maximum.accumulate(codes)
        return int(m.sum()) + int(np.argmax(m))

    def correlation():
        r = np.diff(np.log(prices), axis=0)
        cc = np.corrcoef(r.T)
        return round(float(np.abs(cc[np.triu_indices(8, 1)]).sum()), 6)

    return [log_returns, rolling_mean, drawdown, vwap, volume_ranks, code_totals, flagged_share,
            buckets, percentiles, covariance, min_variance, monte_carlo, daily_loop, code_pairs,
            zscores, clipped_totals, sorted_search, table_where, running_max_codes, correlation]


def main(which: str = "nabla") -> list:
    return run(sections, which)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "nabla")
