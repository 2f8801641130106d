"""Programs as NumPy users write them (not npbench's): element loops, convergence loops, stencils
with masks and borders, pivoting, dynamic programming, small ODE and Krylov loops, run unchanged on
NumPy and on ``nabla.numpy`` side by side.

    python -m bench.user_programs [--programs tridiag,sieve] [--json F]

Each (program, framework) runs in a fresh process: the first call timed (for Nabla: its kernels
built, nothing else seen), then the median of repeated calls (the steady state); results are read
back to NumPy inside the timed region and compared with NumPy's (``allclose``, rtol 1e-7, atol
1e-9; integers and booleans exactly). Prints a Markdown table of ratios to NumPy.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time

import numpy


# --- the programs (``xp`` is numpy or nabla.numpy) -----------------------------------------------

def sieve(xp, n):
    """Sieve of Eratosthenes: a strided slice write per prime, an element read steering the loop."""
    is_prime = xp.ones(n + 1, dtype=bool)
    is_prime[:2] = False
    i = 2
    while i * i <= n:
        if is_prime[i]:
            is_prime[i * i::i] = False
        i += 1
    return xp.nonzero(is_prime)[0]


def life(xp, grid, steps=20):
    """Conway's game of life on a torus: rolls, comparisons and a cast per step."""
    g = grid.copy()
    for _ in range(steps):
        n = sum(xp.roll(xp.roll(g, dy, 0), dx, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)
        g = ((n == 3) | ((g == 1) & (n == 2))).astype(xp.int64)
    return g


def gauss_pivot(xp, A, b):
    """Gaussian elimination with partial pivoting (a row swap by fancy index), back substitution."""
    A, b = A.copy(), b.copy()
    n = A.shape[0]
    for k in range(n - 1):
        p = k + int(xp.argmax(xp.abs(A[k:, k])))
        if p != k:
            A[[k, p]] = A[[p, k]]
            b[[k, p]] = b[[p, k]]
        f = A[k + 1:, k] / A[k, k]
        A[k + 1:, k:] -= f[:, None] * A[k, k:]
        b[k + 1:] -= f * b[k]
    x = xp.zeros(n)
    for k in range(n - 1, -1, -1):
        x[k] = (b[k] - A[k, k + 1:] @ x[k + 1:]) / A[k, k]
    return x


def power_iteration(xp, A, tol=1e-12):
    """The dominant eigenvalue: a matrix-vector product and a norm read per step until it settles."""
    v = xp.ones(A.shape[0]) / math.sqrt(A.shape[0])
    lam = 0.0
    for _ in range(1000):
        w = A @ v
        new = float(xp.linalg.norm(w))
        v = w / new
        if abs(new - lam) < tol:
            break
        lam = new
    return xp.asarray([lam])


def edit_distance(xp, a, b):
    """Levenshtein distance: an element loop over a table, Python's ``min`` of three picks."""
    n, m = len(a), len(b)
    D = xp.zeros((n + 1, m + 1), dtype=xp.int64)
    D[:, 0] = xp.arange(n + 1)
    D[0, :] = xp.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D


def kmeans(xp, X, k=4, iters=15):
    """Lloyd's iterations: broadcast distances, argmin, a masked mean per cluster."""
    C = X[:k].copy()
    for _ in range(iters):
        labels = ((X[:, None, :] - C[None, :, :]) ** 2).sum(-1).argmin(1)
        for c in range(k):
            members = labels == c
            if members.any():
                C[c] = X[members].mean(0)
    return C


def rk4_pendulum(xp, y0, steps=200, h=0.01):
    """Runge-Kutta 4 on a pendulum: small arrays made from picks, a row written per step."""
    def f(y):
        return xp.asarray([y[1], -xp.sin(y[0])])

    y, out = y0.copy(), xp.empty((steps, 2))
    for s in range(steps):
        k1 = f(y)
        k2 = f(y + h / 2 * k1)
        k3 = f(y + h / 2 * k2)
        k4 = f(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        out[s] = y
    return out


def conjugate_gradient(xp, A, b, tol=1e-10):
    """CG on a symmetric positive definite system: dot products read every step."""
    x = xp.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    for _ in range(500):
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rn = r @ r
        if math.sqrt(float(rn)) < tol:
            break
        p = r + (rn / rs) * p
        rs = rn
    return x


def bisection(xp, c):
    """Vectorized bisection for square roots: ``where`` updates until the widest bracket is small."""
    lo, hi = xp.zeros_like(c), xp.full_like(c, 10.0)
    while float((hi - lo).max()) > 1e-9:
        mid = (lo + hi) / 2
        above = mid * mid - c > 0
        hi = xp.where(above, mid, hi)
        lo = xp.where(above, lo, mid)
    return lo


def running_sum(xp, x):
    """A running sum kept in a Python variable, written element by element into a fresh array."""
    y, s = xp.empty_like(x), 0.0
    for i in range(len(x)):
        s += x[i]
        y[i] = s
    return y


def bubble_sort(xp, x):
    """Bubble sort: comparisons of picks and swaps of elements."""
    x = x.copy()
    n = len(x)
    for i in range(n):
        for j in range(n - 1 - i):
            if x[j] > x[j + 1]:
                x[j], x[j + 1] = x[j + 1], x[j]
    return x


def heat_fixed_points(xp, T, steps=50):
    """A Jacobi heat stencil with fixed hot cells (a mask write) and copied borders."""
    T = T.copy()
    fixed = T > 0.9
    for _ in range(steps):
        Tn = T.copy()
        T[1:-1, 1:-1] = 0.25 * (Tn[2:, 1:-1] + Tn[:-2, 1:-1] + Tn[1:-1, 2:] + Tn[1:-1, :-2])
        T[fixed] = 1.0
        T[0, :] = T[1, :]
        T[-1, :] = T[-2, :]
    return T


def histogram_by_loop(xp, x, bins=20):
    """Bin counts one bin at a time: a comparison and a count per bin."""
    h = xp.zeros(bins, dtype=xp.int64)
    edges = xp.linspace(x.min(), x.max(), bins + 1)
    idx = xp.clip(xp.searchsorted(edges, x, side="right") - 1, 0, bins - 1)
    for b in range(bins):
        h[b] = (idx == b).sum()
    return h


def smooth_rows(xp, img):
    """``apply_along_axis`` of a short convolution over an image's rows."""
    k = xp.asarray([0.25, 0.5, 0.25])
    return xp.apply_along_axis(lambda r: xp.convolve(r, k, mode="same"), 1, img)


def random_walk(xp, steps):
    """A walk on a grid: each position from the last and a move picked by an index array."""
    moves = xp.asarray([[1, 0], [-1, 0], [0, 1], [0, -1]])
    pos = xp.zeros((len(steps) + 1, 2), dtype=xp.int64)
    for s in range(len(steps)):
        pos[s + 1] = pos[s] + moves[steps[s]]
    return pos


def newton_sqrt(xp, c):
    """Newton's iteration for square roots until ``allclose`` says it has settled."""
    x = c.copy()
    for _ in range(100):
        nx = 0.5 * (x + c / x)
        if xp.allclose(nx, x, rtol=0, atol=1e-12):
            return nx
        x = nx
    return x


def thomas(xp, a, b, c, d):
    """The Thomas algorithm for a tridiagonal system: two element loops over fresh arrays."""
    n = len(d)
    cp, dp, x = xp.zeros(n), xp.zeros(n), xp.zeros(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def column_running_max(xp, M):
    """A running maximum along rows, one column at a time from the one before."""
    out = M.copy()
    for j in range(1, M.shape[1]):
        out[:, j] = xp.maximum(out[:, j - 1], M[:, j])
    return out


def lcs_rows(xp, a, b):
    """Longest common subsequence, one table row at a time, an element loop inside each."""
    m = len(b)
    prev = xp.zeros(m + 1, dtype=xp.int64)
    for i in range(len(a)):
        equal = b == a[i]
        cur = xp.zeros(m + 1, dtype=xp.int64)
        for j in range(m):
            cur[j + 1] = prev[j] + 1 if equal[j] else max(prev[j + 1], cur[j])
        prev = cur
    return prev


def gauss_seidel_rows(xp, A, sweeps=3):
    """In-place Gauss-Seidel sweeps: a row update, then an element recurrence along the row."""
    A = A.copy()
    for _ in range(sweeps):
        for i in range(1, A.shape[0] - 1):
            A[i, 1:-1] = 0.5 * (A[i - 1, 1:-1] + A[i + 1, 1:-1])
            for j in range(1, A.shape[1] - 1):
                A[i, j] = 0.5 * A[i, j] + 0.25 * (A[i, j - 1] + A[i, j + 1])
    return A


def _inputs(name):
    r = numpy.random.default_rng(0)
    M = r.random((60, 60))
    spd = M @ M.T + 60 * numpy.eye(60)
    return {
        "sieve": (20000,), "life": ((r.random((64, 64)) < 0.3).astype(numpy.int64),),
        "gauss_pivot": (r.random((50, 50)), r.random(50)), "power_iteration": (spd,),
        "edit_distance": (r.integers(0, 4, 40), r.integers(0, 4, 40)), "kmeans": (r.random((500, 3)),),
        "rk4_pendulum": (numpy.array([1.0, 0.0]),), "conjugate_gradient": (spd, r.random(60)),
        "bisection": (r.random(1000) * 50,), "running_sum": (r.random(2000),), "bubble_sort": (r.random(40),),
        "heat_fixed_points": (r.random((60, 60)),), "histogram_by_loop": (r.random(5000),),
        "smooth_rows": (r.random((64, 48)),), "random_walk": (r.integers(0, 4, 1000),),
        "newton_sqrt": (r.random(1000) * 10 + 1,),
        "thomas": (r.random(500), r.random(500) + 4, r.random(500), r.random(500)),
        "column_running_max": (r.random((100, 100)),), "lcs_rows": (r.integers(0, 4, 30), r.integers(0, 4, 30)),
        "gauss_seidel_rows": (r.random((40, 40)),),
    }[name]


PROGRAMS = ("sieve", "life", "gauss_pivot", "power_iteration", "edit_distance", "kmeans", "rk4_pendulum",
            "conjugate_gradient", "bisection", "running_sum", "bubble_sort", "heat_fixed_points",
            "histogram_by_loop", "smooth_rows", "random_walk", "newton_sqrt", "thomas", "column_running_max",
            "lcs_rows", "gauss_seidel_rows")


def _one(name: str, framework: str, repeat: int) -> dict:
    """Run one program in this process: first call, steady state, the result (as a list)."""
    if framework == "numpy":
        xp = numpy
    else:
        import nabla.numpy as xp
    fn = globals()[name]
    host = _inputs(name)

    def call():
        args = [a if framework == "numpy" or not isinstance(a, numpy.ndarray) else xp.asarray(a) for a in host]
        t0 = time.perf_counter()
        out = numpy.asarray(fn(xp, *args))
        return time.perf_counter() - t0, out

    first, out = call()
    times = [call()[0] for _ in range(repeat)]
    return {"first": first, "steady": statistics.median(times), "result": out.tolist(), "dtype": str(out.dtype)}


def _run(name: str, framework: str, repeat: int, timeout: int) -> dict:
    cmd = [sys.executable, "-m", "bench.user_programs", "--one", name, "--framework", framework,
           "--repeat", str(repeat)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout {timeout}s"}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1][:200]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _same(a: dict, b: dict) -> bool:
    x, y = numpy.asarray(a["result"], a["dtype"]), numpy.asarray(b["result"], b["dtype"])
    if x.shape != y.shape or x.dtype != y.dtype:
        return False
    return bool(numpy.allclose(x, y, rtol=1e-7, atol=1e-9)) if x.dtype.kind in "fc" else bool(numpy.array_equal(x, y))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--json")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--framework", default="numpy", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(_one(args.one, args.framework, args.repeat)))
        return
    rows, ratios = [], []
    print("| program | NumPy ms | Nabla first ms | Nabla steady ms | Nabla / NumPy | values |")
    print("|---|---|---|---|---|---|")
    for name in args.programs.split(","):
        ref, ours = _run(name, "numpy", args.repeat, args.timeout), _run(name, "nabla", args.repeat, args.timeout)
        if "error" in ref or "error" in ours:
            status = ref.get("error") or ours.get("error")
            print(f"| {name} | - | - | - | - | {status} |", flush=True)
            rows.append({"program": name, "error": status})
            continue
        ratio = ours["steady"] / ref["steady"]
        status = "NumPy's" if _same(ref, ours) else "MISMATCH"
        ratios.append(ratio)
        print(f"| {name} | {ref['steady'] * 1e3:.2f} | {ours['first'] * 1e3:.1f} | {ours['steady'] * 1e3:.2f} | "
              f"{ratio:.1f}x | {status} |", flush=True)
        rows.append({"program": name, "numpy": ref["steady"], "first": ours["first"], "steady": ours["steady"],
                     "ratio": ratio, "values": status})
    if ratios:
        print(f"\nGeometric mean of steady Nabla / NumPy over {len(ratios)}: "
              f"{math.exp(sum(map(math.log, ratios)) / len(ratios)):.1f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
