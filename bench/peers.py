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


def median_time(fn, repeat: int = 7, number: int = 1) -> float:
    """Median seconds per call of ``fn`` over ``repeat`` rounds of ``number`` calls, after one warm-up."""
    import statistics
    import time

    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)
