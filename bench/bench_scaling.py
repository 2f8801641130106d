"""Beyond one process: pickling a large array, and Dask's distributed scheduler with Nabla chunks.

    python -m bench.bench_scaling [--skip-dask]

The figures: pickling a 100 MB float64 array with protocol 5 in band (``dumps`` then ``loads``),
time and the peak resident memory the pickling adds (sampled), Nabla against NumPy, each in a fresh
process; then a 20M-element reduction and ``X.T @ X`` of a 4000 x 4000 array, in one process on
Nabla, and on a two-worker ``LocalCluster`` with Nabla chunks and with NumPy chunks (each after
one warm-up run). Prints Markdown rows.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

_PICKLE = """
import json, os, pickle, sys, threading, time
import numpy as np

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20

peak, sampling = [0.0], [True]

def sample():  # (the high-water mark of the pickling itself, not of making the array)
    while sampling[0]:
        peak[0] = max(peak[0], rss_mb())
        time.sleep(0.0005)

lib = sys.argv[1]
host = np.random.default_rng(0).normal(size=100 * 2 ** 20 // 8)
if lib == "nabla":
    import nabla.numpy as nnp
    x = nnp.asarray(host)
    x = (x + 0.0).realize()  # (an array of Nabla's own, computed)
else:
    x = host + 0.0
del host
base = rss_mb()
watcher = threading.Thread(target=sample)
watcher.start()
t0 = time.perf_counter()
payload = pickle.dumps(x, protocol=5)
t1 = time.perf_counter()
y = pickle.loads(payload)
float(y[0])
t2 = time.perf_counter()
sampling[0] = False
watcher.join()
print(json.dumps({"dumps_s": t1 - t0, "loads_s": t2 - t1, "peak_mb": peak[0] - base}))
"""


def pickling() -> None:
    rows = {}
    for lib in ("numpy", "nabla"):
        out = subprocess.run([sys.executable, "-c", _PICKLE, lib], capture_output=True, text=True, check=True)
        rows[lib] = json.loads(out.stdout.strip().splitlines()[-1])
    print("| pickle 100 MB (protocol 5, in band) | dumps | loads | peak memory above start |")
    print("|---|---|---|---|")
    for lib, r in rows.items():
        print(f"| {lib} | {r['dumps_s'] * 1e3:.0f} ms | {r['loads_s'] * 1e3:.0f} ms | {r['peak_mb']:.0f} MB |")
    n, p = rows["numpy"], rows["nabla"]
    print(f"| Nabla / NumPy | {p['dumps_s'] / n['dumps_s']:.2f}x | {p['loads_s'] / n['loads_s']:.2f}x | "
          f"{p['peak_mb'] / max(n['peak_mb'], 1):.2f}x |")


def _timed(fn, repeat: int = 3) -> float:
    fn()  # (warm-up: first sight, compiles, workers' imports)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def dask_cluster() -> None:
    import dask.array as da
    import numpy as np
    from distributed import Client, LocalCluster

    import nabla.numpy as nnp

    rng = np.random.default_rng(0)
    vec = rng.normal(size=20_000_000)
    mat = rng.normal(size=(4000, 4000))
    single = {"reduction": lambda: float((nnp.asarray(vec) ** 2).sum()),
              "gram": lambda: float((nnp.asarray(mat).T @ nnp.asarray(mat))[0, 0])}
    rows = {name: [_timed(fn)] for name, fn in single.items()}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster):
        for chunks_of in (nnp.asarray, np.asarray):
            v = da.from_array(chunks_of(vec), chunks=5_000_000, asarray=False).persist()
            m = da.from_array(chunks_of(mat), chunks=(1000, 4000), asarray=False).persist()
            rows["reduction"].append(_timed(lambda: float((v ** 2).sum().compute())))
            rows["gram"].append(_timed(lambda: float((m.T @ m).compute()[0, 0])))
    print("| work | Nabla, one process | LocalCluster(2), Nabla chunks | LocalCluster(2), NumPy chunks |")
    print("|---|---|---|---|")
    for name, label in (("reduction", "sum(x ** 2), 20M float64"), ("gram", "X.T @ X, 4000 x 4000 float64")):
        print(f"| {label} | " + " | ".join(f"{t * 1e3:.0f} ms" for t in rows[name]) + " |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-dask", action="store_true")
    args = parser.parse_args()
    pickling()
    if not args.skip_dask:
        print()
        dask_cluster()


if __name__ == "__main__":
    main()
