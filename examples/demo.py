"""Nabla's main demo: lazy-eager arrays on MAX."""

import time

import numpy as np

import nabla as nb

t0 = time.perf_counter()
x = nb.asarray(np.linspace(-3, 3, 7, dtype=np.float32))
w = nb.ones((7, 3)) * 0.5

# Ordinary imperative code: each line records; nothing runs yet.
h = nb.tanh(x @ w + 1.0)
y = (nb.exp(-x * x / 2) * nb.cos(x)).sum()
print("recorded, not run:", h.shape, h.dtype, "realized?", h.is_realized)

# Reading data runs all pending work as one MAX graph.
print("h =", h)
print("sum(exp(-x^2/2) cos x) =", y.item())
print(f"first results in {time.perf_counter() - t0:.2f} s")

# The same structure on new data (and a new size) reuses the cached graph.
for n in (7, 1000, 100_000):
    x = nb.asarray(np.linspace(-3, 3, n, dtype=np.float32))
    t = time.perf_counter()
    v = (nb.exp(-x * x / 2) * nb.cos(x)).sum().item()
    print(f"n={n:>7}: {v:10.4f}  ({(time.perf_counter() - t) * 1e3:.1f} ms)")

# Transformations compose: gradients on one line, per-example gradients with vmap.
x = nb.asarray(np.linspace(-1, 1, 5, dtype=np.float32))
print("grad of sum(tanh(x)^2):", nb.grad(lambda x: nb.sum(nb.tanh(x) ** 2))(x))
X = nb.asarray(np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32))
w = nb.ones((3,))
per_example = nb.vmap(nb.grad(lambda w, xi: nb.tanh(xi @ w)), in_axes=(None, 0))(w, X)
print("per-example gradients:", per_example.shape)

print("engine:", {k: v for k, v in nb.engine_stats().items() if k != "compile_seconds"})
