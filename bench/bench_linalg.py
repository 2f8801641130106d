"""linalg against NumPy (LAPACK), JAX (jit) and PyTorch, side by side in one process.

    python -m bench.bench_linalg [WORD]   (WORD: only the figures whose name holds it, e.g. svd)

Nabla is timed in its steady state (the structure compiled, as on any repeated call) and on its
first call in this process (the interpreter runs the kernel). Every timing reads the result back
to the host. Prints Markdown rows; ratios are Nabla / the faster peer.
"""

from __future__ import annotations

import numpy as np

from bench.peers import first_and_steady, in_fresh_process, jax, jnp, median_time, print_table, torch


def _cases(rng):
    def spd(b, n):
        a = rng.standard_normal((b, n, n))
        return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)

    small = rng.standard_normal((1000, 8, 8)) + 4 * np.eye(8)
    rhs_small = rng.standard_normal((1000, 8, 1))
    big = rng.standard_normal((512, 512)) + 32 * np.eye(512)
    rhs_big = rng.standard_normal((512, 1))
    sym256 = spd(1, 256)[0]
    mid = rng.standard_normal((256, 256))
    return [
        ("1000 x (8x8) solve", "solve", (small, rhs_small)),
        ("1000 x (8x8) cholesky", "cholesky", (spd(1000, 8),)),
        ("1000 x (8x8) eigh", "eigh", (spd(1000, 8),)),
        ("1000 x (8x8) svd", "svd", (small,)),
        ("512x512 cholesky", "cholesky", (spd(1, 512)[0],)),
        ("512x512 solve (1 rhs)", "solve", (big, rhs_big)),
        ("256x256 svd", "svd", (mid,)),
        ("256x256 eigh", "eigh", (sym256,)),
    ]


def _numpy(name):
    return {"solve": np.linalg.solve, "cholesky": np.linalg.cholesky, "eigh": np.linalg.eigh,
            "svd": lambda a: np.linalg.svd(a, full_matrices=False)}[name]


def _nabla(name):
    import nabla as nb

    la = nb.linalg
    return {"solve": la.solve, "cholesky": la.cholesky, "eigh": la.eigh,
            "svd": lambda a: la.svd(a, full_matrices=False)}[name]


def _leaves(out):
    return out if isinstance(out, tuple) else (out,)


def time_nabla(name, arrays):
    import nabla as nb

    fn = _nabla(name)
    xs = [nb.asarray(a) for a in arrays]

    def run():
        for o in _leaves(fn(*xs)):
            o.numpy()

    return first_and_steady(run)


def time_peers(name, arrays):
    out = {"numpy": median_time(lambda: _numpy(name)(*arrays), repeat=7)}
    if jax is not None:
        jfn = jax.jit({"solve": jnp.linalg.solve, "cholesky": jnp.linalg.cholesky, "eigh": jnp.linalg.eigh,
                       "svd": lambda a: jnp.linalg.svd(a, full_matrices=False)}[name])
        js = [jnp.asarray(a) for a in arrays]
        out["jax"] = median_time(lambda: jax.block_until_ready(jfn(*js)), repeat=7)
    if torch is not None:
        tfn = {"solve": torch.linalg.solve, "cholesky": torch.linalg.cholesky, "eigh": torch.linalg.eigh,
               "svd": lambda a: torch.linalg.svd(a, full_matrices=False)}[name]
        ts = [torch.from_numpy(a) for a in arrays]
        out["torch"] = median_time(lambda: tfn(*ts), repeat=7)
    return out


FIRST_SOLVE = """
import time, json
t0 = time.perf_counter()
import numpy as np
import nabla as nb
t1 = time.perf_counter()
a = np.random.default_rng(0).standard_normal((8, 8)) + 4 * np.eye(8)
x = nb.linalg.solve(nb.asarray(a), nb.asarray(np.ones(8))).numpy()
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "solve": t2 - t1}))
"""


def main():
    import sys

    word = sys.argv[1] if len(sys.argv) > 1 else ""
    print_table([c for c in _cases(np.random.default_rng(0)) if word in c[0]], time_nabla, time_peers)
    if word:
        return
    runs = [in_fresh_process(FIRST_SOLVE) for _ in range(3)]
    solves = ", ".join(f"{r['solve'] * 1e3:.0f} ms" for r in runs)
    print(f"\nfirst solve in a fresh process (import excluded): {solves}; import {runs[-1]['import'] * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
