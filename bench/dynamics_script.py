"""A fifteenth newcomer script, held out of the first-run manifest: dynamics as NumPy users write
them (an integrator's trajectory written row by row with an event test each step, an elementary
cellular automaton's history, an edit distance table filled row by row, a breadth-first search over
a dense graph's boolean frontier, k-means over points, a damped spring network stepped in place); 6
sections, each ending in a checksum. ``python bench/dynamics_script.py [numpy|nabla]``.
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    rng = __import__("numpy").random.default_rng(15)

    def trajectory(steps=300, d=2000):
        ys = np.zeros((steps, d))
        ys[0] = np.linspace(0.1, 2.0, d)
        h = 0.01
        for i in range(steps - 1):
            y = ys[i]
            k1 = np.cos(y) - 0.3 * y
            k2 = np.cos(y + 0.5 * h * k1) - 0.3 * (y + 0.5 * h * k1)
            ys[i + 1] = y + h * k2
            if ys[i + 1].max() > 1e6:  # (an event test each step)
                break
        return round(float(ys.sum()), 6)

    def automaton(width=1501, steps=300, rule=110):
        bits = np.array([(rule >> k) & 1 for k in range(8)], dtype=np.uint8)
        hist = np.zeros((steps, width), dtype=np.uint8)
        hist[0, width // 2] = 1
        for t in range(steps - 1):
            row = hist[t]
            code = (np.roll(row, 1) << 2) | (row << 1) | np.roll(row, -1)
            hist[t + 1] = bits[code]
        return int(hist.sum()) + int(hist[-1].argmax())

    def edit_distance(a="intention-and-execution" * 3, b="execution-of-intentions" * 3):
        s = np.array([ord(c) for c in a])
        t = np.array([ord(c) for c in b])
        d = np.zeros((len(s) + 1, len(t) + 1), dtype=np.int64)
        d[:, 0] = np.arange(len(s) + 1)
        d[0, :] = np.arange(len(t) + 1)
        for i in range(1, len(s) + 1):
            sub = d[i - 1, :-1] + (s[i - 1] != t)
            row = np.minimum(d[i - 1, 1:] + 1, sub)
            for j in range(1, len(t) + 1):  # (the insertions run along the row)
                row[j - 1] = min(row[j - 1], d[i, j - 1] + 1)
                d[i, j] = row[j - 1]
        return int(d[-1, -1]) + int(d.sum() % 1000)

    def graph_search(n=400, p=0.01):
        adj = np.asarray(rng.random((n, n)) < p)
        adj = adj | adj.T
        dist = np.full(n, -1)
        frontier = np.zeros(n, dtype=bool)
        frontier[0] = True
        dist[0] = 0
        level = 0
        while frontier.any():
            level += 1
            reached = adj[frontier].any(axis=0) & (dist < 0)
            dist[reached] = level
            frontier = reached
        return int((dist + 1).sum()) + level

    def kmeans(n=3000, k=6, rounds=15):
        pts = np.asarray(rng.standard_normal((n, 2))) + np.repeat(np.asarray(rng.standard_normal((k, 2)) * 4), n // k, axis=0)
        centres = pts[:k].copy()
        for _ in range(rounds):
            d2 = ((pts[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
            label = d2.argmin(axis=1)
            for c in range(k):
                members = pts[label == c]
                if len(members):
                    centres[c] = members.mean(axis=0)
        return round(float(np.sort(centres[:, 0]).sum()), 9) + int(np.bincount(label, minlength=k).max())

    def spring_network(n=500, steps=400, dt=0.01):
        x = np.linspace(0.0, 1.0, n)
        x[1:-1] += 0.01 * np.sin(np.arange(1, n - 1))
        v = np.zeros(n)
        rest = 1.0 / (n - 1)
        for _ in range(steps):
            stretch = np.diff(x) - rest
            force = np.zeros(n)
            force[:-1] += stretch
            force[1:] -= stretch
            force[[0, -1]] = 0.0
            v += dt * (2000.0 * force - 0.5 * v)
            x += dt * v
        return round(float(np.abs(v).sum() + x.sum()), 9)

    return [trajectory, automaton, edit_distance, graph_search, kmeans, spring_network]


def main(which: str = "nabla") -> list:
    return run(sections, which)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "nabla")
