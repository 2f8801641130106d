"""Concurrency: the same work from several threads at once against one thread doing it all.

    python -m bench.bench_threads

The figures: 4 threads x 200 independent small expressions, and 2 threads x a 10M-element
reduction, each against the same work done serially in one thread; plus resident memory as a
process compiles many distinct structures (``--memory N``), and where that growth comes from:
MAX alone loading N distinct compiled models from Nabla's disk cache and dropping each, then the
same models again, with and without ``malloc_trim`` (``--retention N``). Prints Markdown rows.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import resource
import threading
import time

import numpy as np

import nabla as nb


def small_work(seed: int, n: int = 200) -> float:
    rng = np.random.default_rng(seed)
    total = 0.0
    for _ in range(n):
        x = nb.asarray(rng.standard_normal(64).astype(np.float32))
        total += float(nb.sum(nb.tanh(x * 1.5) + x))
    return total


def big_work(x) -> float:
    return float(nb.sum(nb.exp(-x * x / 2) * nb.cos(x)))


def timed(fn, *args):
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def concurrent_time(fn, arg_sets):
    barrier = threading.Barrier(len(arg_sets))

    def go(args):
        barrier.wait()
        return fn(*args)

    with cf.ThreadPoolExecutor(len(arg_sets)) as pool:
        t0 = time.perf_counter()
        list(pool.map(go, arg_sets))
        return time.perf_counter() - t0


def best(fn, *args, repeat=3):
    return min(fn(*args) for _ in range(repeat))


def bench_concurrency(rows):
    small_work(0, 20)  # warm the structure: compiled in the background, then served by the model
    small_work(1, 20)
    nb.wait_for_compiles()
    serial = best(lambda: sum(timed(small_work, s) for s in range(4)))
    threaded = best(concurrent_time, small_work, [(s,) for s in range(4)])
    rows.append(("4 threads x 200 small expressions (served by the fused kernel)", serial, threaded))

    data = [nb.asarray(np.random.default_rng(s).standard_normal(10_000_000).astype(np.float32))
            for s in range(2)]
    for x in data:
        big_work(x)
        big_work(x)
    nb.wait_for_compiles()
    serial = best(lambda: sum(timed(big_work, x) for x in data))
    threaded = best(concurrent_time, big_work, [(x,) for x in data])
    rows.append(("2 threads x sum(exp(-x*x/2)*cos(x)) on 10M float32", serial, threaded))


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_memory(n: int, budget_mb: int):
    """RSS while ``n`` distinct structures are compiled (in the worker) and loaded here."""
    nb.set_realization_policy("compile")
    nb.core.graph.GRAPH.engine.max_model_bytes = budget_mb << 20
    x = nb.asarray(np.linspace(0, 1, 8, dtype=np.float32))
    samples = [(0, rss_mb())]
    for k in range(n):  # structure k: its ops spell k in binary (constants would be data, not structure)
        y = x
        for bit in format(k, "b"):
            y = nb.sin(y) if bit == "1" else nb.cos(y)
        (y * 1.5 + 0.25).numpy()
        if (k + 1) % max(1, n // 10) == 0:
            s = nb.engine_stats()
            samples.append((k + 1, rss_mb(), s["model_bytes"] / 2**20, s["evictions"]))
    print(f"\nRSS while compiling {n} distinct structures (byte budget {budget_mb} MiB):")
    print("| structures | RSS MiB | charged model MiB | evictions |\n|---|---|---|---|")
    for row in samples[1:]:
        print(f"| {row[0]} | {row[1]:.0f} | {row[2]:.0f} | {row[3]} |")
    print(f"start RSS {samples[0][1]:.0f} MiB")


def bench_retention(n: int):
    """MAX alone (no Nabla engine): RSS as ``n`` distinct models from the disk cache are loaded into
    one session and dropped at once; then the same models again; then ``malloc_trim``."""
    import ctypes
    import glob
    import io
    import os

    from max import engine
    from max.driver import CPU

    from nabla.core.disk_cache import default_root

    files = sorted(glob.glob(str(default_root() / "v*-*" / "*.mef")), key=os.path.getsize)[:n]  # structures
    if len(files) < n:
        print(f"\nonly {len(files)} models on disk; run more code first")
        return
    session = engine.InferenceSession(devices=[CPU()])
    blobs = [open(f, "rb").read() for f in files]
    start = rss_mb()
    rows = []
    for label in ("first load of each", "the same models again"):
        t0 = rss_mb()
        for b in blobs:
            model = session.init(engine.read(io.BytesIO(b)))
            del model
        rows.append((label, t0, rss_mb()))
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
        rows.append(("after malloc_trim(0)", rows[-1][2], rss_mb()))
    except OSError:
        pass
    print(f"\nMAX alone: {n} distinct models ({sum(map(len, blobs)) / n / 1024:.0f} KiB each on disk), "
          f"each loaded then dropped (start RSS {start:.0f} MiB):")
    print("| pass | RSS before MiB | RSS after MiB | per model KiB |\n|---|---|---|---|")
    for label, a, b in rows:
        print(f"| {label} | {a:.0f} | {b:.0f} | {(b - a) * 1024 / n:.0f} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--memory", type=int, default=0, help="also compile N distinct structures, sampling RSS")
    ap.add_argument("--budget-mb", type=int, default=64)
    ap.add_argument("--retention", type=int, default=0, help="only: MAX loading N distinct models, sampling RSS")
    args = ap.parse_args()
    if args.retention:
        return bench_retention(args.retention)
    rows = []
    bench_concurrency(rows)
    print("| figure | serial, one thread | concurrent | concurrent / serial |\n|---|---|---|---|")
    for name, s, c in rows:
        print(f"| {name} | {s * 1e3:.0f} ms | {c * 1e3:.0f} ms | {c / s:.2f}x |")
    if args.memory:
        bench_memory(args.memory, args.budget_mb)


if __name__ == "__main__":
    main()
