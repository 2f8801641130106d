"""One SGD step of an MLP 784-512-512-10, batch 256, float32: Nabla (value_and_grad, lazy) beside
``jax.jit(jax.value_and_grad)`` and PyTorch, in one process.

    python -m bench.bench_mlp
"""

from __future__ import annotations


import numpy as np

import nabla as nb
from examples.mlp import init_params, sgd_step, synthetic_task

from bench.peers import jax, jnp, median_time, torch

LR = 0.05


def nabla_step_time(compiled: bool = False):
    """Median step time, lazy (``value_and_grad`` per step) or with the whole step under ``nb.compile``."""
    rng = np.random.default_rng(0)
    state = {"params": init_params(rng)}
    xs, ys = synthetic_task(rng)
    x, y = nb.asarray(xs), nb.asarray(ys)
    update = nb.compile(lambda p, x, y: sgd_step(p, x, y, LR)) if compiled else \
        (lambda p, x, y: sgd_step(p, x, y, LR))

    def step():
        loss, state["params"] = update(state["params"], x, y)
        loss.item()  # realizes the loss and the new parameters in one graph

    for _ in range(3):
        step()
    nb.wait_for_compiles()
    step()
    return median_time(step, repeat=20)


def jax_step_time(xs, ys, params_np):
    def loss_fn(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = jax.nn.relu(h @ w + b)
        logits = h @ params[-1][0] + params[-1][1]
        return jnp.mean(jnp.sum((jax.nn.logsumexp(logits, axis=1, keepdims=True) - logits) * y, axis=1))

    @jax.jit
    def step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return loss, jax.tree_util.tree_map(lambda p, g: p - LR * g, params, grads)

    state = {"p": [(jnp.asarray(w), jnp.asarray(b)) for w, b in params_np]}
    x, y = jnp.asarray(xs), jnp.asarray(ys)

    def run():
        loss, state["p"] = step(state["p"], x, y)
        loss.block_until_ready()

    for _ in range(3):
        run()
    return median_time(run, repeat=20)


def torch_step_time(xs, ys, params_np):
    params = [(torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)) for w, b in params_np]
    x, y = torch.from_numpy(xs), torch.from_numpy(ys)

    def run():
        h = x
        for w, b in params[:-1]:
            h = torch.relu(h @ w + b)
        logits = h @ params[-1][0] + params[-1][1]
        loss = torch.mean(torch.sum((torch.logsumexp(logits, 1, keepdim=True) - logits) * y, 1))
        loss.backward()
        with torch.no_grad():
            for w, b in params:
                w -= LR * w.grad
                b -= LR * b.grad
                w.grad = None
                b.grad = None
        loss.item()

    for _ in range(3):
        run()
    return median_time(run, repeat=20)


def main():
    rng = np.random.default_rng(0)
    xs, ys = synthetic_task(rng)
    params_np = [((rng.standard_normal((i, o)) * np.sqrt(2 / i)).astype(np.float32), np.zeros(o, np.float32))
                 for i, o in ((784, 512), (512, 512), (512, 10))]
    t = nabla_step_time()
    peers = {}
    if jax is not None:
        peers["JAX jit"] = jax_step_time(xs, ys, params_np)
    if torch is not None:
        peers["PyTorch"] = torch_step_time(xs, ys, params_np)
    print("| figure | Nabla | target | peers (same run) | ratio |")
    print("|---|---|---|---|---|")
    peer_txt = ", ".join(f"{k} {v * 1e3:.3g} ms" for k, v in peers.items()) or "-"
    for label, value in (("value_and_grad, lazy", t), ("under nb.compile", nabla_step_time(compiled=True))):
        ratio = ", ".join(f"{value / v:.2f}x {k}" for k, v in peers.items()) or "-"
        print(f"| MLP 784-512-512-10 SGD step, batch 256 ({label}) | {value * 1e3:.3g} ms | "
              f"<= 1.0x JAX jit | {peer_txt} | {ratio} |")


if __name__ == "__main__":
    main()
