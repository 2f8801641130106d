"""fft against NumPy (pocketfft), JAX (jit, ducc) and PyTorch (multi-threaded; pocketfft or oneMKL,
by build), side by side in one process.

    python -m bench.bench_fft

Nabla is timed in its steady state (the structure compiled, as on any repeated call) and on its
first call in this process. Every timing reads the result back to the host. Prints Markdown rows;
ratios are Nabla / the faster peer.
"""

from __future__ import annotations

import numpy as np

from bench.peers import first_and_steady, in_fresh_process, jax, jnp, median_time, print_table, torch


def _cases(rng):
    def cplx(shape, dtype):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)

    return [
        ("complex64 fft, n = 2^20", "fft", cplx(2 ** 20, np.complex64)),
        ("float32 rfft, 4096 rows of 1024", "rfft", rng.standard_normal((4096, 1024)).astype(np.float32)),
        ("float32 rfft, one row of 2^20", "rfft", rng.standard_normal(2 ** 20).astype(np.float32)),
        ("complex64 fft2, 1024x1024", "fft2", cplx((1024, 1024), np.complex64)),
        ("complex128 fft, prime n = 10007", "fft", cplx(10007, np.complex128)),
        ("complex128 fft, 1000 rows of 64", "fft", cplx((1000, 64), np.complex128)),
    ]


def _numpy(name):
    return {"fft": np.fft.fft, "rfft": np.fft.rfft, "fft2": np.fft.fft2}[name]


def _nabla(name):
    import nabla as nb

    return {"fft": nb.fft.fft, "rfft": nb.fft.rfft, "fft2": lambda x: nb.fft.fftn(x, axes=(-2, -1))}[name]


def time_nabla(name, x):
    import nabla as nb

    fn = _nabla(name)
    t = nb.asarray(x)

    return first_and_steady(lambda: fn(t).numpy())


def time_peers(name, x):
    out = {"numpy": median_time(lambda: _numpy(name)(x), repeat=7)}
    if jax is not None:
        jfn = jax.jit({"fft": jnp.fft.fft, "rfft": jnp.fft.rfft, "fft2": jnp.fft.fft2}[name])
        jx = jnp.asarray(x)
        out["jax"] = median_time(lambda: np.asarray(jax.block_until_ready(jfn(jx))), repeat=7)
    if torch is not None:
        tfn = {"fft": torch.fft.fft, "rfft": torch.fft.rfft, "fft2": torch.fft.fft2}[name]
        tx = torch.from_numpy(x)
        out["torch"] = median_time(lambda: tfn(tx).numpy(), repeat=7)
    return out


FIRST_FFT = """
import time, json
t0 = time.perf_counter()
import numpy as np
import nabla as nb
t1 = time.perf_counter()
x = np.random.default_rng(0).standard_normal(1000)
y = nb.fft.rfft(nb.asarray(x)).numpy()
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "fft": t2 - t1}))
"""


def main():
    print_table(_cases(np.random.default_rng(0)), time_nabla, time_peers)
    runs = [in_fresh_process(FIRST_FFT) for _ in range(3)]
    ffts = ", ".join(f"{r['fft'] * 1e3:.0f} ms" for r in runs)
    print(f"\nfirst rfft in a fresh process (import excluded): {ffts}; import {runs[-1]['import'] * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
