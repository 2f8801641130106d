"""A twelfth newcomer script, held out of the first-run manifest: solvers as NumPy users write
them, loops of small steps (an ODE whose right-hand side builds its vector from picks, conjugate
gradient and Newton's method reading a scalar every step, an image pyramid by reshapes, a greedy
selection by argmax and element writes, a relaxation until a norm settles); 6 sections, each ending
in a checksum. ``python bench/solver_script.py [numpy|nabla]``, as the first script.
"""

from __future__ import annotations

import math
import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    rng = __import__("numpy").random.default_rng(11)

    def lorenz_rk4(steps=300, h=0.005):
        def f(u):
            return np.asarray([10.0 * (u[1] - u[0]), u[0] * (28.0 - u[2]) - u[1], u[0] * u[1] - 8.0 / 3.0 * u[2]])

        u, path = np.asarray([1.0, 1.0, 1.0]), np.zeros((steps, 3))
        for s in range(steps):
            k1 = f(u)
            k2 = f(u + h / 2 * k1)
            k3 = f(u + h / 2 * k2)
            k4 = f(u + h * k3)
            u = u + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            path[s] = u
        return round(float(path.sum()), 6)

    def cg_poisson(n=80):
        A = 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
        b = np.asarray(rng.random(n))
        x = np.zeros(n)
        r = b - A @ x
        p, rs = r.copy(), float(r @ r)
        for _ in range(200):
            Ap = A @ p
            alpha = rs / float(p @ Ap)
            x, r = x + alpha * p, r - alpha * Ap
            rn = float(r @ r)
            if math.sqrt(rn) < 1e-10:
                break
            p, rs = r + rn / rs * p, rn
        return round(float(np.abs(A @ x - b).max() < 1e-8) + float(x[:3].sum()), 6)

    def newton_system(iters=40):
        v = np.asarray([1.0, 1.0])
        for _ in range(iters):
            x, y = v[0], v[1]
            F = np.asarray([x * x + y * y - 4.0, np.exp(x) + y - 1.0])
            J = np.asarray([[2 * x, 2 * y], [np.exp(x), 1.0 + 0 * y]])
            v = v - np.linalg.solve(J, F)
            if float(np.linalg.norm(F)) < 1e-12:
                break
        return round(float(v.sum()), 9)

    def pyramid(h=256, w=192, levels=5):
        img, total = np.asarray(rng.random((h, w))), 0.0
        for _ in range(levels):
            hh, ww = img.shape
            img = img.reshape(hh // 2, 2, ww // 2, 2).mean(axis=(1, 3))
            total += float(img.std())
        return round(total, 9)

    def greedy_pick(n=300, k=40):
        score, taken, order = np.asarray(rng.random(n)), np.zeros(n, dtype=bool), []
        for _ in range(k):
            i = int(np.argmax(np.where(taken, -1.0, score)))
            order.append(i)
            taken[i] = True
            lo, hi = max(i - 3, 0), min(i + 4, n)
            score[lo:hi] = score[lo:hi] * 0.5
        return round(float(sum(order)) + float(score.sum()), 9)

    def relax_norm(n=30, tol=1e-5):
        u = np.zeros((n, n))
        u[0, :] = 1.0
        steps = 0
        while steps < 500:
            un = u.copy()
            u[1:-1, 1:-1] = 0.25 * (un[1:-1, 2:] + un[1:-1, :-2] + un[2:, 1:-1] + un[:-2, 1:-1])
            steps += 1
            if float(np.linalg.norm(u - un)) < tol:
                break
        return round(float(u.sum()) + steps, 6)

    return [lorenz_rk4, cg_poisson, newton_system, pyramid, greedy_pick, relax_norm]


def main(which: str = "nabla") -> list:
    return run(sections, which)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "nabla")
