"""vmap and compile figures, side by side with JAX (where installed) in one process.

    python -m bench.bench_transforms
"""

from __future__ import annotations


import numpy as np

import nabla as nb
from bench.peers import jax, jnp, median_time
from bench.bench_mlp import nabla_step_time
from examples.mlp import init_params, loss_fn, synthetic_task



def call_overhead():
    """Three figures: a hit's total minus MAX's execute called back to back; Nabla's own time on a hit
    (execute answered from memory); MAX's execute after a gap of Python work like the hit's own."""
    import time

    f = nb.compile(lambda x, y: x * y + 1.0)
    x, y = nb.asarray(np.ones(4, np.float32)), nb.asarray(np.ones(4, np.float32))
    f(x, y)
    before = nb.engine_stats()
    entry = next(iter(f._cache.values()))
    model = entry.model
    bufs = [x._impl._values[0].buffer, y._impl._values[0].buffer]
    kernel = median_time(lambda: model.execute(*bufs), number=200)
    total = median_time(lambda: f(x, y), number=200)

    class Answered:  # the model's outputs from memory: what remains is Nabla's Python
        results = model.execute(*bufs)

        def execute(self, *buffers):
            return self.results

    entry.model = Answered()
    own = median_time(lambda: f(x, y), number=200)
    entry.model = model

    def execute_after_gap():
        end = time.perf_counter() + own
        while time.perf_counter() < end:
            pass
        t0 = time.perf_counter()
        model.execute(*bufs)
        return time.perf_counter() - t0

    after_gap = float(np.median([execute_after_gap() for _ in range(400)]))
    peers = {}
    if jax is not None:
        jf = jax.jit(lambda x, y: x * y + 1.0)
        jx = jnp.ones(4)
        peers["jax.jit dispatch"] = median_time(lambda: jf(jx, jx).block_until_ready(), number=200)
    assert nb.engine_stats()["compiles"] == before["compiles"]
    return total - kernel, own, kernel, after_gap, peers


def per_example_grads():
    rng = np.random.default_rng(0)
    params = init_params(rng, sizes=(784, 128, 10))
    xs, ys = synthetic_task(rng)

    def example_loss(params, x, y):
        return loss_fn(params, nb.unsqueeze(x, 0), nb.unsqueeze(y, 0))

    pe = nb.compile(nb.vmap(nb.grad(example_loss), in_axes=(None, 0, 0)))
    x, y = nb.asarray(xs), nb.asarray(ys)

    def run():
        g = pe(params, x, y)
        g[0]["w"].realize()

    t = median_time(run, repeat=10)
    peers = {}
    if jax is not None:
        def jloss(p, x, y):
            h = x[None]
            for w, b in p[:-1]:
                h = jax.nn.relu(h @ w + b)
            logits = h @ p[-1][0] + p[-1][1]
            return jnp.mean(jnp.sum((jax.nn.logsumexp(logits, 1, keepdims=True) - logits) * y[None], 1))

        jp = [(jnp.asarray(l["w"].numpy()), jnp.asarray(l["b"].numpy())) for l in params]
        jpe = jax.jit(jax.vmap(jax.grad(jloss), in_axes=(None, 0, 0)))
        jx, jy = jnp.asarray(xs), jnp.asarray(ys)
        peers["JAX jit(vmap(grad))"] = median_time(lambda: jax.block_until_ready(jpe(jp, jx, jy)), repeat=10)
    return t, peers


def main():
    overhead, own, kernel, after_gap, peers = call_overhead()
    rows = [("compiled call on a hit: total minus MAX execute run back to back (shape (4,))", overhead * 1e6, "us",
             "<= 50 us", {"MAX execute back to back": kernel, "MAX execute after a gap": after_gap, **peers}, 1e6),
            ("compiled call on a hit: Nabla's own time (execute answered from memory)", own * 1e6, "us",
             "<= 50 us", dict(peers), 1e6)]
    t, peers = per_example_grads()
    rows.append(("per-example grads, vmap(grad) MLP 784-128-10, 256 examples (compiled)", t * 1e3, "ms",
                 "<= 1.0x JAX", peers, 1e3))
    t = nabla_step_time(compiled=True)
    rows.append(("compiled MLP 784-512-512-10 SGD step, batch 256", t * 1e3, "ms", "<= 1.0x JAX jit (4.9 ms here)",
                 {}, 1e3))
    print("| figure | Nabla | target | peers (same run) | ratio |")
    print("|---|---|---|---|---|")
    for name, value, unit, target, peers, scale in rows:
        peer_txt = ", ".join(f"{k} {v * scale:.3g} {unit}" for k, v in peers.items()) or "-"
        ratio = ", ".join(f"{value / (v * scale):.2f}x {k}" for k, v in peers.items()) or "-"
        print(f"| {name} | {value:.3g} {unit} | {target} | {peer_txt} | {ratio} |")


if __name__ == "__main__":
    main()
