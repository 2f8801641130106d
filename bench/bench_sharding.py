"""SPMD sharding on a simulated mesh against the same work unsharded, in one process.

    python -m bench.bench_sharding

The figures: an MLP training step (forward, grad, SGD update; the step compiled by
``nabla.compile``) on data-parallel meshes of 2 and 4 simulated devices against the unsharded step,
and the cost of recording one op on a 4-device mesh against an unsharded op; for reference, the small
step on a mesh of 2 distinct (virtual CPU) devices, run by MAX's interpreter with MAX's collectives.
Prints Markdown rows.
"""

from __future__ import annotations

import gc
import time

import numpy as np

import nabla as nb
from nabla.sharding import DeviceMesh, P, virtual_cpus

from .peers import median_time


def _loss(params, x, y):
    w1, b1, w2 = params
    h = nb.maximum(x @ w1 + b1, 0.0)
    return nb.mean((h @ w2 - y) ** 2)


def _step(params, x, y):
    loss, grads = nb.value_and_grad(_loss)(params, x, y)
    return loss, tuple(p - 0.01 * g for p, g in zip(params, grads))


def training_step(mesh_size: int | None, batch: int = 512, width: int = 256, distinct: bool = False):
    rng = np.random.default_rng(0)
    host = [rng.standard_normal((64, width)).astype(np.float32) * 0.1, np.zeros(width, np.float32),
            rng.standard_normal((width, 8)).astype(np.float32) * 0.1]
    x = rng.standard_normal((batch, 64)).astype(np.float32)
    y = rng.standard_normal((batch, 8)).astype(np.float32)
    params = tuple(nb.asarray(h) for h in host)
    xs, ys = nb.asarray(x), nb.asarray(y)
    if mesh_size is not None:
        mesh = DeviceMesh((mesh_size,), ("dp",), devices=virtual_cpus(mesh_size) if distinct else None)
        params = tuple(p.shard(mesh, P()) for p in params)
        xs, ys = xs.shard(mesh, P("dp")), ys.shard(mesh, P("dp"))
    step = nb.compile(_step)
    state = {"params": params}

    def run():
        loss, state["params"] = step(state["params"], xs, ys)
        return float(loss)

    first = time.perf_counter()
    first_loss = run()  # (later losses depend on how many steps the timing took)
    first = time.perf_counter() - first
    for _ in range(3):
        run()
    return first, median_time(run, repeat=15), first_loss


def recording(mesh_size: int | None, ops: int = 400) -> float:
    gc.collect()  # the training steps above leave garbage that would be collected mid-measurement
    x = nb.asarray(np.ones((64, 64), np.float32))
    if mesh_size is not None:
        x = x.shard(DeviceMesh((mesh_size,), ("dp",)), P("dp"))

    def record():
        y = x
        for _ in range(ops // 2):
            y = nb.tanh(y) * 0.5
        return y

    record()
    t = median_time(record, repeat=7)
    return t / ops


def main() -> None:
    print("| figure | unsharded | simulated mesh | mesh / unsharded |")
    print("|---|---|---|---|")
    for batch, width in ((512, 256), (2048, 512)):
        base_first, base, base_loss = training_step(None, batch, width)
        for k in (2, 4):
            first, t, loss = training_step(k, batch, width)
            assert abs(loss - base_loss) < 1e-4 * max(1.0, abs(base_loss)), (loss, base_loss)
            print(f"| MLP step (batch {batch}, 64-{width}-8), data-parallel ({k},) mesh, compiled | "
                  f"{base * 1e3:.2f} ms | {t * 1e3:.2f} ms | **{t / base:.2f}x** (first call {base_first:.1f} s "
                  f"vs {first:.1f} s) |")
        if batch == 512:
            first, t, loss = training_step(2, batch, width, distinct=True)
            assert abs(loss - base_loss) < 1e-4 * max(1.0, abs(base_loss)), (loss, base_loss)
            print(f"| MLP step (batch {batch}, 64-{width}-8), data-parallel mesh of 2 virtual CPUs (interpreter) | "
                  f"{base * 1e3:.2f} ms | {t * 1e3:.2f} ms | {t / base:.2f}x (first call {first:.1f} s) |")
    r0, r4 = recording(None), recording(4)
    print(f"| recording one op (tanh or scale) on a (4,) mesh, per op | {r0 * 1e6:.1f} us | {r4 * 1e6:.1f} us "
          f"| **{r4 / r0:.2f}x** |")


if __name__ == "__main__":
    main()
