"""Train an MLP (784-512-512-10) with SGD on a small synthetic task, with nabla.value_and_grad."""

from __future__ import annotations

import time

import numpy as np

import nabla as nb


def init_params(rng, sizes=(784, 512, 512, 10)):
    params = []
    for fan_in, fan_out in zip(sizes, sizes[1:]):
        w = (rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        params.append({"w": nb.asarray(w), "b": nb.zeros(fan_out)})
    return params


def forward(params, x):
    for layer in params[:-1]:
        x = nb.relu(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss_fn(params, x, y_onehot):
    logits = forward(params, x)
    m = nb.max(logits, axis=1, keepdims=True)
    lse = nb.log(nb.sum(nb.exp(logits - m), axis=1, keepdims=True)) + m
    return nb.mean(nb.sum((lse - logits) * y_onehot, axis=1))


def synthetic_task(rng, n=256, classes=10):
    """Inputs and the labels a fixed random teacher gives them (host data, made once)."""
    x = rng.standard_normal((n, 784)).astype(np.float32)
    teacher = rng.standard_normal((784, classes)).astype(np.float32)
    labels = np.argmax(x @ teacher, axis=1)
    return x, np.eye(classes, dtype=np.float32)[labels]


def sgd_step(params, x, y, lr):
    loss, grads = nb.value_and_grad(loss_fn)(params, x, y)
    return loss, nb.tree_map(lambda p, g: p - lr * g, params, grads)


def train(steps=50, lr=0.05, seed=0, log=print):
    rng = np.random.default_rng(seed)
    params = init_params(rng)
    xs, ys = synthetic_task(rng)
    x, y = nb.asarray(xs), nb.asarray(ys)
    losses = []
    t0 = time.perf_counter()
    for step in range(steps):
        loss, params = sgd_step(params, x, y, lr)
        losses.append(loss.item())
        if log and (step % 10 == 0 or step == steps - 1):
            log(f"step {step:3d}  loss {losses[-1]:.4f}  ({time.perf_counter() - t0:.1f} s)")
    return losses


if __name__ == "__main__":
    losses = train()
    print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f} ({losses[0] / losses[-1]:.0f}x lower)")
