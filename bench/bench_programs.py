"""Programs, not expressions: what a loop costs per step, Nabla beside NumPy (and JAX where it is
installed, jitted per step as a user would write it without rewriting the loop).

    python -m bench.bench_programs

Rows (Markdown), steady state (the median of repeated runs in one process, results read back):
- per op of NumPy-style code, microseconds: ``a + b`` and ``0.2 * a`` at 58 x 58 (run as they are
  made) and at 100 x 100 (recorded, nothing run), ``A[1:-1, :-2]``, ``B[1:-1, 1:-1] = a``;
- a step that reads one scalar of a small expression, the same structure each time, at 16 and
  4,096 elements (computed as it is made) and at 16,384 (recorded, then read): the whole step, and
  the read's microseconds beyond its kernel's time;
- a stencil loop that reads nothing until its end (jacobi_2d, 150 x 150, 50 steps);
- a convergence loop reading one scalar per step (a 40 x 40 Laplace relaxation);
- an element loop ``x[i] = f(x[i - 1], y[i])``, 10,000 steps;
- a mask loop: the mean of the values in each of 100 bins, ``data[(lo <= r) & (r < hi)].mean()``
  over 400,000 elements a step (a mask's count, its coordinates and a gather every step).
"""

from __future__ import annotations

import statistics
import time

import numpy

import nabla as nb
import nabla.numpy as nnp


def timed(fn, repeat=7) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def per_op(fn, n=3000) -> float:
    fn()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def recording_rows():
    rows = []
    # (58 x 58 slices: their ops run at once; 100 x 100, above ``at_once.SMALL_AT_ONCE``: recorded)
    for side, how in ((60, "at once"), (102, "recorded")):
        A = nnp.array(numpy.random.default_rng(0).random((side, side)))
        B = nnp.array(numpy.random.default_rng(1).random((side, side)))
        a, b = A[1:-1, 1:-1], A[1:-1, :-2]
        An = numpy.random.default_rng(0).random((side, side))
        an, bn = An[1:-1, 1:-1], An[1:-1, :-2]

        def write():
            B[1:-1, 1:-1] = a

        def write_n():
            An[1:-1, 1:-1] = an

        cases = [(f"`a + b`, {how}", lambda: a + b, lambda: an + bn),
                 (f"`0.2 * a`, {how}", lambda: 0.2 * a, lambda: 0.2 * an)]
        if side == 60:
            cases += [("recording `A[1:-1, :-2]`", lambda: A[1:-1, :-2], lambda: An[1:-1, :-2]),
                      ("`B[1:-1, 1:-1] = a`, both realized (into B's memory at once)", write, write_n)]
        for label, f, fn in cases:
            t = per_op(f)
            nb.core.graph.GRAPH.evaluate()  # (what was recorded: not carried into the next case)
            rows.append((f"{label} ({side - 2} x {side - 2} float64)", t * 1e6, per_op(fn) * 1e6, "us"))
    return rows


def read_rows():
    """A step that reads one scalar of a small expression whose structure repeats: at 16 and 4,096
    elements its ops run as they are made (no trace, no read: ``at_once.SMALL_AT_ONCE``); at 16,384
    they are recorded and the read runs the trace, whose cost beyond its kernel's time (the run
    ``execute_seconds`` counts), its recording apart, is the last figure."""
    rows = []
    for size in (16, 4096, 16384):
        x = nnp.array(numpy.arange(float(size)))
        xn = numpy.arange(float(size))
        t = per_op(lambda: float((x * 1.5 + 2.0).sum()), 2000)
        tn = per_op(lambda: float((xn * 1.5 + 2.0).sum()), 2000)
        rows.append((f"a step that reads one scalar, `float((x * 1.5 + 2.0).sum())`, {size:,} elements",
                     t * 1e6, tn * 1e6, "us"))
    clock = time.perf_counter
    beyond = float("inf")
    for _ in range(5):
        read, n = 0.0, 2000
        k0 = nb.engine_stats()["execute_seconds"]
        for _ in range(n):
            s = (x * 1.5 + 2.0).sum()
            t0 = clock()
            float(s)
            read += clock() - t0
        beyond = min(beyond, (read - (nb.engine_stats()["execute_seconds"] - k0)) / n)
    rows.append(("of which the read of its trace (16,384 elements), beyond its kernel's time", beyond * 1e6,
                 tn * 1e6, "us"))
    return rows


def jacobi(np, A, B, steps=50):
    for _ in range(1, steps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


def relax(np, u, tol=1e-4, limit=400):
    """Laplace relaxation until the largest change is below ``tol``: one scalar read per step."""
    steps = 0
    while steps < limit:
        un = u.copy()
        u[1:-1, 1:-1] = 0.25 * (un[1:-1, 2:] + un[1:-1, :-2] + un[2:, 1:-1] + un[:-2, 1:-1])
        steps += 1
        if float(np.abs(u - un).max()) < tol:
            break
    return steps


def element_loop(np, x, y):
    for i in range(1, x.shape[0]):
        x[i] = np.maximum(x[i - 1] * 0.5, y[i])


def dynamic_table(np, n=30):
    """npbench's nussinov inner loop: element writes, each after a comparison read (Python's max)."""
    table = np.zeros((n, n), np.int32)
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            table[i, j] = max(table[i, j], table[i, j - 1] + (i + j) % 3)
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j])
    return table


def binned_means(np, data, radius, bins=100):
    rmax = float(radius.max())
    res = np.zeros(bins)
    for i in range(bins):
        mask = np.logical_and(rmax * i / bins <= radius, radius < rmax * (i + 1) / bins)
        res[i] = data[mask].mean()
    return res


def loop_rows():
    rng = numpy.random.default_rng(3)
    A0, B0 = rng.random((150, 150)), rng.random((150, 150))
    rows = []

    def run_jacobi(np):
        A, B = np.array(A0), np.array(B0)
        jacobi(np, A, B)
        return numpy.asarray(A), numpy.asarray(B)

    rows.append(("stencil loop, jacobi_2d 150 x 150, 50 steps, nothing read until the end",
                 timed(lambda: run_jacobi(nnp)) * 1e3, timed(lambda: run_jacobi(numpy)) * 1e3, "ms"))
    u0 = numpy.zeros((40, 40))
    u0[0, :] = 1.0

    def run_relax(np):
        u = np.array(u0)
        return relax(np, u)

    assert run_relax(nnp) == run_relax(numpy)
    rows.append((f"convergence loop, 40 x 40, a scalar read per step ({run_relax(numpy)} steps)",
                 timed(lambda: run_relax(nnp), 5) * 1e3, timed(lambda: run_relax(numpy), 5) * 1e3, "ms"))
    x0, y0 = rng.random(10_000), rng.random(10_000)

    def run_elements(np):
        x, y = np.array(x0), np.array(y0)
        element_loop(np, x, y)
        return numpy.asarray(x)

    numpy.testing.assert_array_equal(run_elements(nnp), run_elements(numpy))
    rows.append(("element loop `x[i] = maximum(x[i - 1] * 0.5, y[i])`, 10,000 steps",
                 timed(lambda: run_elements(nnp), 3) * 1e3, timed(lambda: run_elements(numpy), 3) * 1e3, "ms"))

    def run_table(np):
        return numpy.asarray(dynamic_table(np))

    numpy.testing.assert_array_equal(run_table(nnp), run_table(numpy))
    rows.append(("element writes with a comparison read between them (nussinov's loop, 30 x 30, 4,495 reads)",
                 timed(lambda: run_table(nnp), 3) * 1e3, timed(lambda: run_table(numpy), 3) * 1e3, "ms"))
    d0, r0 = rng.random(400_000), rng.random(400_000)
    d, r = nnp.array(d0), nnp.array(r0)

    def run_bins(np, data, radius):
        return numpy.asarray(binned_means(np, data, radius))

    numpy.testing.assert_allclose(run_bins(nnp, d, r), run_bins(numpy, d0, r0), rtol=1e-12)
    rows.append(("mask loop `data[(lo <= r) & (r < hi)].mean()`, 400,000 elements, 100 bins",
                 timed(lambda: run_bins(nnp, d, r), 3) * 1e3, timed(lambda: run_bins(numpy, d0, r0), 3) * 1e3, "ms"))
    return rows


def main():
    print("| figure | Nabla | NumPy | Nabla / NumPy |")
    print("|---|---|---|---|")
    for label, ours, theirs, unit in recording_rows() + read_rows() + loop_rows():
        print(f"| {label} | {ours:.2f} {unit} | {theirs:.2f} {unit} | {ours / theirs:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
