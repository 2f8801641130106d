"""The NumPy face on a script seen once: the same text run with ``import numpy as np`` and with
``import nabla.numpy as np``, each in a fresh process (empty Nabla disk cache), in the same run.

    python -m bench.bench_numpy             # the script, fresh processes
    python -m bench.bench_numpy --kernels   # the sort and random kernels' steady state

The figure: wall time including import, target <= 2x NumPy. Prints Markdown rows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap

# 50 distinct small expressions as a NumPy user writes them; every result is read at once.
SCRIPT = """
import time
t0 = time.perf_counter()
{imp}
import numpy
host = numpy.random.default_rng(0).standard_normal((500, 40))
X = np.array(host)
out = []
rd = lambda v: out.append(float(v))
rd(X.mean()); rd(X.std(ddof=1)); rd(np.median(X[:, 0])); rd(np.percentile(X[:, 1], 90))
mu = X.mean(axis=0); sd = X.std(axis=0); Z = (X - mu) / sd; rd((Z ** 2).sum())
rd(np.abs(Z).max()); rd(np.argmax(Z[:, 2])); rd(np.cumsum(X[:, 3])[-1]); rd(np.diff(X[:, 4]).sum())
C = np.cov(X, rowvar=False); rd(C[0, 1]); rd(np.corrcoef(X[:, 0], X[:, 1])[0, 1])
rd(np.trace(C)); rd(np.linalg.norm(X)); rd(np.linalg.det(C[:5, :5]))
w = np.linalg.solve(C[:8, :8] + np.eye(8), np.ones(8)); rd(w.sum())
rd(np.linalg.eigvalsh(C[:6, :6]).max()); rd(np.linalg.svd(X[:50, :6], compute_uv=False)[0])
rd(np.dot(X[:, 0], X[:, 1])); rd((X[:20] @ X[:20].T).sum()); rd(np.einsum("ij,ij->", X[:10], X[:10]))
Y = X.copy(); Y[Y < 0] = 0.0; rd(Y.sum())
Y[:, 0] += 1.0; rd(Y[:, 0].mean())
V = Y[10:20]; V *= 2; rd(Y.sum())
rd(np.where(X > 1, 1, 0).sum()); rd(np.clip(X, -1, 1).sum()); rd(np.round(X[:5], 2).sum())
s = np.sort(X[:, 5]); rd(s[250]); rd(np.argsort(X[:, 6])[0])
u, c = np.unique(np.floor(X[:, 7]), return_counts=True); rd(c.max())
rd(np.isin(np.arange(10), [2, 3, 5]).sum()); rd(np.searchsorted(s, 0.0))
h, e = np.histogram(X[:, 8], bins=10); rd(h.max())
rd(np.bincount(np.abs(np.floor(X[:, 9])).astype(int)).max())
rd(np.exp(-X ** 2 / 2).sum()); rd(np.log1p(np.abs(X)).mean()); rd(np.hypot(X[:, 0], X[:, 1]).max())
rd(np.sqrt(np.abs(X)).sum()); rd(np.tanh(X).var()); rd(np.sin(X).sum() + np.cos(X).sum())
rd(np.concatenate([X[:3], X[-3:]]).sum()); rd(np.vstack([X[0], X[1]]).sum()); rd(X.reshape(-1, 20).shape[0])
rd(np.linspace(0, 1, 11).sum()); rd(np.arange(100).sum()); rd(np.zeros((3, 3)).sum() + np.ones(4).sum())
rng = np.random.default_rng(1); rd(rng.standard_normal(1000).mean()); rd(rng.random(100).max())
rd(np.fft.rfft(X[:, 10]).real.sum()); rd(np.nanmean(np.where(X > 2, np.nan, X))); rd(np.maximum.reduce(X[:, 11]))
print(json.dumps({{"wall": time.perf_counter() - t0, "n": len(out)}}))
"""


def fresh(code: str, cache_dir: str) -> dict:
    env = dict(os.environ, NABLA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", "import json\n" + textwrap.dedent(code)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


KERNELS = """
import time
import numpy
import nabla.numpy as np

def best(f, reps=5):
    f()
    times = []
    for _ in range(reps):
        t = time.perf_counter(); f(); times.append(time.perf_counter() - t)
    return min(times)

rows = []
for n in (100_000, 1_000_000):
    host = numpy.random.default_rng(0).standard_normal(n)
    x = np.asarray(host)
    rows.append((f"argsort float64, n = {n:,}", best(lambda: np.argsort(x).numpy()),
                 best(lambda: numpy.argsort(host, kind="stable"))))
    rng, ref = np.random.default_rng(0), numpy.random.default_rng(0)
    rows.append((f"random() float64, n = {n:,}", best(lambda: rng.random(n).numpy()), best(lambda: ref.random(n))))
    rows.append((f"standard_normal() float64, n = {n:,}", best(lambda: rng.standard_normal(n).numpy()),
                 best(lambda: ref.standard_normal(n))))
rows.append(("sort float64 rows, 1000 x 200, axis=1", best(lambda: np.sort(np.asarray(host[:200_000].reshape(1000, 200)),
                                                                              axis=1).numpy()),
             best(lambda: numpy.sort(host[:200_000].reshape(1000, 200), axis=1, kind="stable"))))
print(json.dumps(rows))
"""


def kernels() -> None:
    """Steady state of the sort and Philox kernels against NumPy, one process."""
    with tempfile.TemporaryDirectory() as tmp:
        rows = fresh(KERNELS, os.path.join(tmp, "nabla"))
    print("| figure | Nabla | NumPy | ratio |\n|---|---|---|---|")
    for name, ours, theirs in rows:
        print(f"| {name} | {ours * 1e3:.2f} ms | {theirs * 1e3:.2f} ms | {ours / theirs:.2f}x |")


def main():
    if "--kernels" in sys.argv:
        return kernels()
    with tempfile.TemporaryDirectory() as tmp:
        nab = fresh(SCRIPT.format(imp="import nabla.numpy as np"), os.path.join(tmp, "nabla"))
        ref = fresh(SCRIPT.format(imp="import numpy as np"), os.path.join(tmp, "numpy"))
    assert nab["n"] == ref["n"], (nab, ref)
    print("| figure | Nabla | target | NumPy, same run |\n|---|---|---|---|")
    print(f"| {nab['n']}-expression NumPy script, 500x40, fresh process, wall incl. import | {nab['wall']:.2f} s "
          f"| <= 2x NumPy | NumPy {ref['wall']:.2f} s: **{nab['wall'] / ref['wall']:.1f}x** |")


if __name__ == "__main__":
    main()
