"""A sixteenth newcomer script, held out of the first-run manifest: sweeps and field updates as
NumPy users write them (a tridiagonal solve swept column by column through a 3-D array, an FDTD
step's three fields updated in place from each other, a heat plate iterated to convergence with a
residual read each step, an escape-time count over a complex grid with masked writes, a running
recurrence down the columns of a matrix, a wave equation's leapfrog with its borders fixed each
step); 6 sections, each ending in a checksum. ``python bench/sweeps_script.py [numpy|nabla]``.
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    rng = __import__("numpy").random.default_rng(16)

    def tridiagonal(i=48, j=40, k=30):
        a = np.asarray(rng.random((i, j, k))) * 0.1
        b = 2.0 + np.asarray(rng.random((i, j, k)))
        c = np.asarray(rng.random((i, j, k))) * 0.1
        d = np.asarray(rng.random((i, j, k)))
        cp = np.zeros((i, j, k))
        dp = np.zeros((i, j, k))
        cp[:, :, 0] = c[:, :, 0] / b[:, :, 0]
        dp[:, :, 0] = d[:, :, 0] / b[:, :, 0]
        for m in range(1, k):  # (the forward sweep reads the column before and writes its own)
            den = b[:, :, m] - a[:, :, m] * cp[:, :, m - 1]
            cp[:, :, m] = c[:, :, m] / den
            dp[:, :, m] = (d[:, :, m] - a[:, :, m] * dp[:, :, m - 1]) / den
        x = np.zeros((i, j, k))
        x[:, :, -1] = dp[:, :, -1]
        for m in range(k - 2, -1, -1):
            x[:, :, m] = dp[:, :, m] - cp[:, :, m] * x[:, :, m + 1]
        return round(float(x.sum()), 6)

    def fdtd(n=160, steps=40):
        ex = np.zeros((n, n + 10))
        ey = np.zeros((n, n + 10))
        hz = np.asarray(rng.random((n, n + 10)))
        for t in range(steps):
            ey[0, :] = 0.01 * t
            ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
            ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
            hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])
        return round(float(hz.sum() + ex.sum() - ey.sum()), 6)

    def heat_plate(n=60, tol=1e-3):
        u = np.zeros((n, n))
        u[0, :] = 100.0
        u[:, 0] = 50.0
        steps = 0
        while True:  # (a residual read each step steers the loop)
            new = u.copy()
            new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
            change = float(np.abs(new - u).max())
            u = new
            steps += 1
            if change < tol or steps >= 400:
                break
        return round(float(u.sum()), 6) + steps

    def escape_time(n=160, iters=30):
        x = np.linspace(-2.0, 0.6, n)
        y = np.linspace(-1.2, 1.2, n)
        c = x[None, :] + 1j * y[:, None]
        z = np.zeros((n, n), dtype=complex)
        count = np.zeros((n, n), dtype=np.int64)
        for it in range(iters):
            inside = np.abs(z) <= 2.0
            count[inside] = it
            z[inside] = z[inside] ** 2 + c[inside]
        return int(count.sum()) + int((np.abs(z) <= 2.0).sum())

    def column_recurrence(rows=3000, cols=25):
        a = np.asarray(rng.random((rows, cols)))
        w = np.asarray(rng.random(rows)) * 0.5
        for k in range(1, cols):  # (each column from the one before, in place)
            a[:, k] = a[:, k] * w + a[:, k - 1] * (1.0 - w)
            a[:, k] = np.sqrt(a[:, k])
        return round(float(a.sum()), 6)

    def wave(n=400, steps=300, r=0.25):
        u_prev = np.zeros(n)
        u = np.exp(-0.01 * (np.arange(n) - n / 2) ** 2)
        for _ in range(steps):
            u_next = np.empty(n)
            u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])
            u_next[0] = 0.0
            u_next[-1] = 0.0
            u_prev, u = u, u_next
        return round(float(np.abs(u).sum()), 6)

    return [tridiagonal, fdtd, heat_plate, escape_time, column_recurrence, wave]


def main(which: str = "nabla") -> list:
    return run(sections, which)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "nabla")
