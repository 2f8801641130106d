"""A thirteenth newcomer script, held out of the first-run manifest: tables and masks as NumPy users
fill them, loops of small steps (a knapsack's rows with bounds picked from an array, an edit
distance cell by cell, a sandpile's masked topplings through shifted views, a ring buffer shifted
by its own slices, a hash over integers with ``%`` and ``//``, a reshape of a transpose written
into as a copy); 6 sections, each ending in a checksum. ``python bench/tables_script.py
[numpy|nabla]``, as the first script.
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    rng = __import__("numpy").random.default_rng(13)

    def knapsack(items=40, capacity=200):
        w = np.asarray(rng.integers(1, 30, items).astype("int32"))
        v = np.asarray(rng.integers(1, 100, items).astype("int32"))
        T = np.zeros((items + 1, capacity + 1), dtype=np.int32)
        for i in range(1, items + 1):
            wi = w[i - 1]
            T[i] = T[i - 1]
            T[i, wi:] = np.maximum(T[i - 1, wi:], T[i - 1, :capacity + 1 - wi] + v[i - 1])
        return int(T[-1].max()) + int(T.sum() % 100003)

    def edit_distance(a="intention" * 3, b="execution" * 3):
        D = np.zeros((len(a) + 1, len(b) + 1), dtype=np.int64)
        D[:, 0] = np.arange(len(a) + 1)
        D[0, :] = np.arange(len(b) + 1)
        for i in range(1, len(a) + 1):
            for j in range(1, len(b) + 1):
                cost = 0 if a[i - 1] == b[j - 1] else 1
                D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
        return int(D[-1, -1]) * 1000 + int(D.sum() % 997)

    def sandpile(n=15, grains=120):
        g = np.zeros((n, n), dtype=np.int32)
        g[n // 2, n // 2] = grains
        steps = 0
        while (g >= 4).any():
            t = g >= 4
            g[t] -= 4
            g[1:][t[:-1]] += 1
            g[:-1][t[1:]] += 1
            g[:, 1:][t[:, :-1]] += 1
            g[:, :-1][t[:, 1:]] += 1
            steps += 1
        return steps * 10000 + int((g * np.arange(n * n).reshape(n, n)).sum() % 9973)

    def ring_buffer(length=64, steps=400):
        buf, out = np.zeros(length), np.zeros(steps)
        x = np.asarray(rng.random(steps))
        for s in range(steps):
            buf[1:] = buf[:-1]
            buf[0] = x[s]
            out[s] = buf[::4].mean()
        return round(float(out.sum()), 9)

    def integer_hash(n=600):
        keys = np.asarray(rng.integers(0, 1000, n))
        h, digits = np.zeros(n, dtype=np.int64), 0
        h[0] = keys[0]
        for i in range(1, n):
            h[i] = (h[i - 1] * 31 + keys[i]) % 1000003
        for i in range(0, n, 7):
            digits += int(h[i] // 1000 % 10)
        return int(h.sum() % 1000003) + digits

    def transposed_copy(n=24):
        A = np.asarray(rng.random((n, n)))
        flat = A.T.reshape(-1)  # (a copy, as NumPy's: the writes below leave A as it was)
        flat[::3] = 0.0
        total = float(A.sum()) + float(flat.sum())
        rows = A.reshape(n // 2, 2 * n)  # (a view: this write reaches A)
        rows[0, :] = 1.0
        return round(total + float(A[0].sum()), 9)

    return [knapsack, edit_distance, sandpile, ring_buffer, integer_hash, transposed_copy]


def main(which: str = "nabla") -> list:
    return run(sections, which)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "nabla")
