"""First sight: code seen once, in fresh processes, side by side with NumPy in the same run.

    python -m bench.bench_first_sight [--skip-background]

Each figure runs in its own new Python process with an empty Nabla disk cache (the MAX
interpreter's cache stays as the machine has it), so every structure is new to Nabla.
Prints Markdown rows.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time

SMALL = """
import time, random
t0 = time.perf_counter()
import numpy as np
import nabla as nb
t1 = time.perf_counter()
c = random.random()  # a constant never seen: a new structure
x = nb.asarray(np.linspace(0, 1, 64, dtype=np.float32))
v = float(nb.sum(nb.sqrt(nb.abs(x * c - 0.5)) + 1.0))
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first": t2 - t1}))
"""

# A NumPy-style analysis: 24 distinct expressions, each result read at once. ``xp`` is NumPy or
# nabla.array_api; the same text runs on both.
SCRIPT = """
import time
t0 = time.perf_counter()
import numpy as np
{imp}
rng = np.random.default_rng(0)
A = rng.standard_normal((1000, 200))
y_host = A[:, 0] * 2.0 + rng.standard_normal(1000) * 0.1
X = xp.asarray(A); y = xp.asarray(y_host)
out = []
mu = xp.mean(X, axis=0); out.append(float(xp.sum(mu)))
sd = xp.std(X, axis=0); out.append(float(xp.max(sd)))
Z = (X - mu) / sd; out.append(float(xp.sum(Z * Z)))
C = (Z.T @ Z) / (X.shape[0] - 1); out.append(float(C[0, 1]))
out.append(float(xp.sum(xp.abs(C) > 0.1)))
w = xp.sum(Z * xp.reshape(y - xp.mean(y), (-1, 1)), axis=0) / X.shape[0]; out.append(float(w[0]))
r = y - Z[:, 0] * w[0]; out.append(float(xp.sqrt(xp.mean(r * r))))
out.append(float(xp.sum(xp.clip(X, -1.0, 1.0))))
out.append(float(xp.sum(xp.cumulative_sum(X[:, 0]))))
s = xp.sort(X[:, 1]); out.append(float(s[500]))
out.append(int(xp.argmax(X[:, 2])))
u = xp.unique_values(xp.round(X[:, 3])); out.append(int(u.shape[0]))
out.append(float(xp.sum(xp.where(X > 0, X, 0.0 * X))))
out.append(float(xp.max(xp.exp(-X * X / 2))))
out.append(float(xp.sum(xp.log1p(xp.abs(X)))))
out.append(float(xp.sum(xp.tanh(X[:100]) @ xp.tanh(X[:100]).T)))
out.append(float(xp.mean(xp.sin(X) ** 2 + xp.cos(X) ** 2)))
out.append(float(xp.var(X[:, 4])))
out.append(float(xp.sum(X[::7, ::3])))
out.append(int(xp.sum(xp.isnan(X))))
out.append(float(xp.min(xp.hypot(X[:, 5], X[:, 6]))))
out.append(float(xp.sum(xp.floor(X * 3) / 3)))
out.append(float(xp.prod(1.0 + X[:10, 7] / 100)))
out.append(float(xp.sum(xp.concat([X[:5], X[-5:]], axis=0))))
print(json.dumps({{"wall": time.perf_counter() - t0, "n": len(out)}}))
"""

BIG = """
import time
import numpy as np
import nabla as nb
x_host = np.random.default_rng(0).standard_normal(10_000_000).astype(np.float32)
x = nb.asarray(x_host)
rows = []
for call in range(1, 11):
    t0 = time.perf_counter(); float(nb.sum(nb.exp(-x * x / 2) * nb.cos(x))); t1 = time.perf_counter()
    float(np.sum(np.exp(-x_host * x_host / 2) * np.cos(x_host))); t2 = time.perf_counter()
    rows.append((call, t1 - t0, t2 - t1))
print(json.dumps(rows))
"""

# the same reduction on the fused kernel and on its compiled model, one process (the engine's
# reason not to compile what the fused kernel serves)
VERSUS = """
import time, statistics
import numpy as np
import nabla as nb
from nabla.core.graph import GRAPH
x_host = np.random.default_rng(0).standard_normal(10_000_000).astype(np.float32)
x = nb.asarray(x_host)
f = lambda: float(nb.sum(nb.exp(-x * x / 2) * nb.cos(x)))
def best(fn):
    fn(); fn()
    ts = []
    for _ in range(7):
        t0 = time.perf_counter(); fn(); ts.append(time.perf_counter() - t0)
    return statistics.median(ts)
fused = best(f)
GRAPH.engine.fused_enabled = False
nb.set_realization_policy("compile")
compiled = best(f)
numpy = best(lambda: float(np.sum(np.exp(-x_host * x_host / 2) * np.cos(x_host))))
print(json.dumps({"fused": fused, "compiled": compiled, "numpy": numpy}))
"""

BUSY = """
import numpy as np, random
import nabla as nb
nb.set_realization_policy("compile")
x = nb.asarray(np.ones(16, np.float32))
for k in range(3):  # new structures, compiled one after another
    y = x
    for j in range(12):
        y = nb.sin(y * random.random()) + nb.cos(y)
    y.numpy()
"""


# a training loop whose Python scalar (the learning rate) changes every step: one structure, since
# scalar constants are data (``--lr-loop``; with ``NABLA_REALIZE=compile`` in the environment, one
# compile in all)
LR_LOOP = """
import time
import numpy as np
import nabla as nb
rng = np.random.default_rng(0)
X = nb.asarray(rng.standard_normal((256, 32)).astype(np.float32))
y = nb.asarray(rng.standard_normal((256, 1)).astype(np.float32))
W1 = nb.asarray(rng.standard_normal((32, 64)).astype(np.float32) * 0.1)
W2 = nb.asarray(rng.standard_normal((64, 1)).astype(np.float32) * 0.1)
loss = lambda W1, W2: nb.mean((nb.tanh(X @ W1) @ W2 - y) ** 2)
g = nb.grad(loss, argnums=(0, 1))
times = []
for step in range(300):
    t = time.perf_counter()
    lr = 0.1 / (1 + 0.01 * step)
    g1, g2 = g(W1, W2)
    W1 = W1 - lr * g1
    W2 = W2 - lr * g2
    float(loss(W1, W2))
    times.append(time.perf_counter() - t)
s = nb.engine_stats()
print(json.dumps({"median_last_100": sorted(times[-100:])[50], "entries": s["cache_entries"],
                  "compiles": s["compiles"]}))
"""


def fresh(code: str, cache_dir: str) -> dict | list:
    env = dict(os.environ, NABLA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", "import json\n" + textwrap.dedent(code)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-background", action="store_true")
    ap.add_argument("--lr-loop", action="store_true", help="only: the decaying-learning-rate loop")
    args = ap.parse_args()
    if args.lr_loop:
        with tempfile.TemporaryDirectory() as tmp:
            r = fresh(LR_LOOP, tmp)
        print(f"SGD loop, 300 steps, new learning rate each step: median step {r['median_last_100'] * 1e3:.2f} ms, "
              f"{r['entries']} cache entries, {r['compiles']} compiles")
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        small = [fresh(SMALL, os.path.join(tmp, f"s{i}")) for i in range(3)]
        first = sorted(s["first"] for s in small)[1]
        imp = sorted(s["import"] for s in small)[1]
        rows.append(("first result of a new small 4-op expression, fresh process (after import)",
                     f"{first * 1e3:.0f} ms", "<= 100 ms", f"import nabla {imp * 1e3:.0f} ms"))

        nab = fresh(SCRIPT.format(imp="import nabla.array_api as xp"), os.path.join(tmp, "script"))
        ref = fresh(SCRIPT.format(imp="xp = np"), os.path.join(tmp, "script-np"))
        assert nab["n"] == ref["n"] == 24
        rows.append(("24-expression analysis script, 1000x200 float64, wall incl. import",
                     f"{nab['wall']:.2f} s", "<= 2x NumPy",
                     f"NumPy {ref['wall']:.2f} s: **{nab['wall'] / ref['wall']:.1f}x**"))

        calls = fresh(BIG, os.path.join(tmp, "big"))
        for call, t, t_np in calls:
            if call in (1, 2, 10):
                rows.append((f"sum(exp(-x*x/2)*cos(x)) 10M float32, call {call}, fresh process",
                             f"{t * 1e3:.0f} ms", "<= 1.5x NumPy", f"NumPy {t_np * 1e3:.0f} ms: **{t / t_np:.1f}x**"))

        v = fresh(VERSUS, os.path.join(tmp, "versus"))
        rows.append(("same reduction, steady state: fused kernel vs its compiled model (one process)",
                     f"fused {v['fused'] * 1e3:.0f} ms, compiled {v['compiled'] * 1e3:.0f} ms",
                     "fused <= 1.5x compiled", f"NumPy {v['numpy'] * 1e3:.0f} ms: fused/compiled "
                     f"**{v['fused'] / v['compiled']:.2f}x**"))

        if not args.skip_background:
            busy = subprocess.Popen([sys.executable, "-c", textwrap.dedent(BUSY)],
                                    env=dict(os.environ, NABLA_CACHE_DIR=os.path.join(tmp, "busy")))
            time.sleep(3)  # let it reach its compiles
            calls = fresh(BIG, os.path.join(tmp, "big2"))
            still = busy.poll() is None
            busy.kill()
            worst = max(t / t_np for _, t, t_np in calls)
            rows.append(("same 10 calls while another process compiles" + ("" if still else " (it finished early)"),
                         f"worst call {worst:.1f}x NumPy", "<= 2x NumPy",
                         ", ".join(f"{t / t_np:.1f}x" for _, t, t_np in calls)))

    print("| figure | Nabla | target | NumPy, same run |\n|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
