"""Loops of many kinds at two lengths, Nabla beside NumPy on the same data: first call, second call,
and whether the values are NumPy's. A loop's cost should grow with its length, not its square.

    python -m bench.loop_patterns [name,name,...]

Each pattern is a function of the module (``m``: ``numpy`` or ``nabla.numpy``), a length ``n`` and a
vector ``x`` of 4,096 random float64 values.
"""

from __future__ import annotations

import sys
import time

import numpy

import nabla.numpy as nnp


def p_accumulate(m, n, x):
    """A running value fed a function of each element: ``acc = cos(x[k]) + acc * 0.5``."""
    acc = m.zeros(1)
    for k in range(n):
        acc = m.cos(x[k]) + acc * 0.5
    return acc


def p_complex_horner(m, n, x):
    """A complex Horner chain, as ``polyval`` at a point of the unit circle: ``acc = acc * z + x[k]``."""
    z = m.exp(-0.7j)
    acc = m.zeros(1, dtype=complex)
    for k in range(n):
        acc = acc * z + x[k]
    return acc


def p_recurrence_2d(m, n, x):
    """A 2-D recurrence over a sqrt(n) x sqrt(n) table: ``A[i, j] = 0.5 * (A[i - 1, j] + A[i, j - 1])``."""
    k = int(n ** 0.5)
    A = m.zeros((k, k))
    A[0, :] = 1.0
    A[:, 0] = 1.0
    for i in range(1, k):
        for j in range(1, k):
            A[i, j] = A[i - 1, j] * 0.5 + A[i, j - 1] * 0.5
    return A


def p_running_max(m, n, x):
    """``acc = maximum(acc, x[k] * 2.0)``."""
    acc = x[0]
    for k in range(1, n):
        acc = m.maximum(acc, x[k] * 2.0)
    return acc


def p_stack_rows(m, n, x):
    """Rows built in a list, stacked at the end."""
    rows = []
    for k in range(n):
        rows.append(x[k] * x[:8])
    return m.stack(rows)


def p_polyval(m, n, x):
    """``polyval`` of n coefficients at 50 points."""
    return m.polyval(x[:n], m.linspace(0, 1, 50))


def p_histogram_writes(m, n, x):
    """Element updates at computed places: ``h[idx[k]] += x[k]``."""
    h = m.zeros(16)
    idx = (m.arange(n) * 7) % 16
    for k in range(n):
        h[idx[k]] += x[k]
    return h


def p_convergence(m, n, x):
    """A relaxation that reads ``max(abs(u - un))`` each step (n / 8 steps)."""
    u = m.zeros(32)
    u[0] = 1.0
    steps = 0
    while steps < n // 8:
        un = u.copy()
        u[1:-1] = 0.5 * (un[2:] + un[:-2])
        if float(m.abs(u - un).max()) < 1e-12:
            break
        steps += 1
    return u


def p_along_axis(m, n, x):
    """``apply_along_axis(convolve)`` over the rows of an (n / 2) x 16 image."""
    img = m.reshape(m.concatenate([x[:n]] * 8), (8 * n // 16, 16))
    return m.apply_along_axis(lambda r: m.convolve(r, m.ones(3) / 3, mode="same"), 1, img)


def p_python_sum(m, n, x):
    """A Python float summed with elements: ``total = total + x[k] * x[k]``."""
    total = 0.0
    for k in range(n):
        total = total + x[k] * x[k]
    return total


def main(names=None) -> None:
    patterns = [f for name, f in sorted(globals().items()) if name.startswith("p_")]
    if names:
        patterns = [f for f in patterns if f.__name__[2:] in names]
    rng = numpy.random.default_rng(0)
    print("| loop | n | NumPy ms | Nabla first ms | Nabla second ms | values |")
    print("|---|---|---|---|---|---|")
    for f in patterns:
        for n in (200, 800):
            xn = rng.standard_normal(4096)
            xb = nnp.asarray(xn)
            t = time.perf_counter()
            want = numpy.asarray(f(numpy, n, xn))
            tn = time.perf_counter() - t
            times, same = [], True
            for _ in range(2):
                t = time.perf_counter()
                got = numpy.asarray(f(nnp, n, xb))
                times.append(time.perf_counter() - t)
                same = same and numpy.allclose(got, want, rtol=1e-12, atol=1e-12)
            print(f"| {f.__name__[2:]} | {n} | {tn * 1e3:.1f} | {times[0] * 1e3:.1f} | {times[1] * 1e3:.1f} | "
                  f"{'NumPy' if same else 'MISMATCH'} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1].split(",") if len(sys.argv) > 1 else None)
