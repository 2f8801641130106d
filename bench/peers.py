"""The optional peers the benchmarks run beside Nabla (``pip install -e ".[bench]"``)."""

try:
    import jax
    import jax.numpy as jnp
except ImportError:  # optional peer
    jax = jnp = None
try:
    import torch
except ImportError:  # optional peer
    torch = None


def median_time(fn, repeat: int = 7, number: int | None = None) -> float:
    """Median seconds per call of ``fn`` over ``repeat`` rounds of ``number`` calls, after one warm-up.
    ``number`` by default makes a round last >= 20 ms (as timeit's autorange): single sub-millisecond
    calls are dominated by thread wake-ups and timer noise (a 0.2 ms call read 0.3-1.0 ms)."""
    import statistics
    import time

    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    if number is None:
        fn()  # the first call may have paid a one-time cost: time a second
        t0 = time.perf_counter()
        fn()
        once = min(once, time.perf_counter() - t0)
        number = max(1, min(1000, int(0.02 / max(once, 1e-7))))
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def in_fresh_process(script: str) -> dict:
    """Run ``script`` (it prints one JSON line last) in a new process whose Nabla model cache is
    empty; the machine's kernel cache stays warm."""
    import json
    import os
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NABLA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def print_table(cases, time_nabla, time_peers) -> None:
    """One Markdown row per (label, name, operands) case: Nabla steady and first call beside the
    peers, and the ratio to the faster peer."""
    print("| figure | Nabla steady | Nabla first call | NumPy | JAX jit | PyTorch | ratio vs faster peer |")
    print("|---|---|---|---|---|---|---|")
    for label, name, operands in cases:
        first, steady = time_nabla(name, operands)
        peers = time_peers(name, operands)
        best = min(peers.values())
        cells = [f"{peers[k] * 1e3:.2f} ms" if k in peers else "-" for k in ("numpy", "jax", "torch")]
        print(f"| {label} | {steady * 1e3:.2f} ms | {first * 1e3:.0f} ms | {' | '.join(cells)} | "
              f"{steady / best:.2f}x |", flush=True)


def first_and_steady(run) -> tuple[float, float]:
    """Seconds of Nabla's first call of ``run`` in this process, and its steady state (the second
    sight queues the structure's compile; timed once that is done)."""
    import time

    import nabla as nb

    t0 = time.perf_counter()
    run()
    first = time.perf_counter() - t0
    run()
    nb.wait_for_compiles()
    return first, median_time(run, repeat=7)
