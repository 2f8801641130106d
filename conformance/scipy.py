"""``python -m conformance.scipy [--modules stats,signal] [--sample 0.1] [--timeout 300]``.

SciPy's own array-API tests (those taking its ``xp`` fixture, in the installed SciPy's test
files), run as SciPy runs them, with ``nabla.array_api`` beside array-api-strict as backends
(``conformance/scipy_plugin.py`` adds Nabla to SciPy's ``xp`` fixture; SciPy's skip and xfail
markers apply unchanged). A hashed sample of each module's tests (``--sample``: the same tests for
both backends) runs in a pytest process per module; a test stuck past ``--timeout`` is recorded as
a timeout and the module's run goes on past it in a new process.

Per module: tests collected, and per backend passed, failed (errors and timeouts included),
skipped, xfailed; a regression is a test that passes on array-api-strict and not on Nabla. The
table and the regressions go to ``conformance/RESULTS.md`` (its own section; ``--results FILE``
writes elsewhere) with the date, machine, commit and versions.

Needs SciPy with its tests (the wheels ship them), ``array-api-strict`` and pytest; SciPy's
array-API support is on where ``SCIPY_ARRAY_API=1`` (set here).
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ._report import nabla_commit, write_section

HERE = Path(__file__).resolve().parent
STRICT, NABLA = "array_api_strict", "nabla.array_api"
SECTION = "## SciPy's own array-API tests"
FAILING = ("failed", "error", "timeout")


def scipy_root() -> Path:
    import scipy

    return Path(scipy.__file__).resolve().parent


def modules(root: Path) -> dict:
    """SciPy submodule (``stats``, ``spatial.transform``) -> its test files that use ``xp``."""
    found = collections.defaultdict(list)
    for path in sorted(root.rglob("test_*.py")):
        if "tests" not in path.parts[len(root.parts):] and path.parent.name != "tests":
            continue
        text = path.read_text(errors="replace")
        if not re.search(r"\bxp\b", text):
            continue
        rel = path.relative_to(root).parts
        name = ".".join(p for p in rel[:rel.index("tests")] if p) if "tests" in rel else rel[0]
        found[name or "scipy"].append(path)
    return dict(found)


def _short(nodeid: str) -> str:
    i = nodeid.find("scipy/")
    return nodeid[i + len("scipy/"):] if i >= 0 else nodeid


def _backend(nodeid: str) -> str | None:
    for b in (NABLA, STRICT):
        if re.search(r"[\[-]" + re.escape(b) + r"[\]-]", nodeid):
            return b
    return None


def run_module(name: str, files: list, root: Path, sample: float, timeout: float, backends: list,
               log) -> list:
    """Every outcome of one module's sampled tests: dicts (id, outcome, seconds, message)."""
    work = Path(tempfile.mkdtemp(prefix=f"nabla-scipy-{name}-"))
    out, done = work / "outcomes.jsonl", work / "done.txt"
    env = {**os.environ, "SCIPY_ARRAY_API": "1", "NABLA_SCIPY_BACKENDS": ",".join(backends),
           "NABLA_SCIPY_SAMPLE": str(sample), "NABLA_SCIPY_OUT": str(out), "NABLA_SCIPY_DONE": str(done),
           "NABLA_SCIPY_TIMEOUT": str(timeout),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE.parent), os.environ.get("PYTHONPATH")]))}
    cmd = [sys.executable, "-m", "pytest", "-p", "conformance.scipy_plugin", "-p", "no:cacheprovider", "-q",
           "-o", "addopts=", f"--rootdir={root}", *map(str, files)]
    for attempt in range(200):  # a new process after each test that timed out
        proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
        records = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
        done.write_text("\n".join(r["id"] for r in records))
        if proc.returncode != 3:  # (3: the watchdog ended a test past the timeout)
            if proc.returncode not in (0, 1, 5):  # not a run that passed, failed or selected nothing
                log(f"  {name}: pytest exited {proc.returncode}: {proc.stdout[-800:]}{proc.stderr[-800:]}")
            break
        log(f"  {name}: {records[-1]['id'].split('::', 1)[-1]} timed out; going on")
    return records


def tally(records: list) -> tuple[dict, list]:
    """Per backend counts, and the regressions (ids passing on strict, not on Nabla)."""
    counts = {b: collections.Counter() for b in (STRICT, NABLA)}
    by_base: dict = collections.defaultdict(dict)
    for r in records:
        b = _backend(r["id"])
        if b is None:
            continue
        outcome = "failed" if r["outcome"] == "error" else r["outcome"]
        counts[b][outcome] += 1
        base = _short(r["id"]).replace(f"[{b}]", "[{xp}]").replace(f"[{b}-", "[{xp}-") \
            .replace(f"-{b}]", "-{xp}]").replace(f"-{b}-", "-{xp}-")
        by_base[base][b] = r
    regressions = [(base, pair[NABLA]) for base, pair in sorted(by_base.items())
                   if STRICT in pair and NABLA in pair and pair[STRICT]["outcome"] == "passed"
                   and pair[NABLA]["outcome"] in FAILING]
    return counts, regressions


def non_buffer(regressions: list) -> tuple[list, list]:
    """(regressions, the tests among them SciPy skips on JAX and Dask for writes through a host
    buffer view: ``np.asarray`` of their arrays is a copy, as it is of Nabla's)."""
    return [r for r in regressions if "non_buffer" not in r[1]], [r for r in regressions if "non_buffer" in r[1]]


def _versions() -> str:
    import importlib.metadata as md

    parts = []
    for dist in ("scipy", "array-api-strict", "numpy", "max"):
        try:
            parts.append(f"{dist} {md.version(dist)}")
        except md.PackageNotFoundError:
            pass
    return ", ".join(parts)


def report(rows: list, regressions: list, sample: float, timeout: float, wall: float) -> str:
    regressions, views = non_buffer(regressions)
    date = datetime.date.today().isoformat()
    lines = [f"{SECTION}, {date}, {platform.machine()} ({os.cpu_count()} cores), commit {nabla_commit()}", "",
             f"- versions: {_versions()}",
             f"- `python -m conformance.scipy --sample {sample:g} --timeout {timeout:g}`: a hashed sample of "
             f"{sample:.0%} of each module's `xp` tests (the same tests for both backends); wall time "
             f"{wall / 60:.1f} min", "",
             "| module | tests (per backend) | strict passed | strict failed | strict skipped/xfailed "
             "| Nabla passed | Nabla failed | Nabla skipped/xfailed | regressions |",
             "|---|---|---|---|---|---|---|---|---|"]
    total = collections.Counter()
    for name, counts, regs in rows:
        s, n = counts[STRICT], counts[NABLA]
        tests = max(sum(s.values()), sum(n.values()))
        cells = [tests, s["passed"] + s["xpassed"], s["failed"] + s["timeout"], s["skipped"] + s["xfailed"],
                 n["passed"] + n["xpassed"], n["failed"] + n["timeout"], n["skipped"] + n["xfailed"],
                 len(non_buffer(regs)[0])]
        for k, v in zip(("tests", "sp", "sf", "ss", "np", "nf", "ns", "r"), cells):
            total[k] += v
        lines.append(f"| {name} | " + " | ".join(str(c) for c in cells) + " |")
    lines.append("| **all** | " + " | ".join(str(total[k]) for k in ("tests", "sp", "sf", "ss", "np", "nf", "ns", "r"))
                 + " |")
    lines += ["", f"Regressions (pass on array-api-strict, not on Nabla): {len(regressions)}", ""]
    lines += [f"- `{base}`: {r['outcome']}: {' '.join(r['message'].split())[:200]}" for base, r in regressions]
    lines += ["", "Not counted (SciPy skips them on JAX and Dask, whose `np.asarray` is a copy, as Nabla's is: "
              f"the test writes into an array through a host buffer view; docs/array_api.md): {len(views)}", ""]
    grouped = collections.Counter((base.split("[")[0], r["non_buffer"]) for base, r in views)
    lines += [f"- `{test}` ({reason}): {n}" for (test, reason), n in sorted(grouped.items())]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m conformance.scipy", description=__doc__.split("\n\n")[1])
    p.add_argument("--modules", default="", help="comma-separated SciPy submodules; default every one with xp tests")
    p.add_argument("--sample", type=float, default=0.1, help="fraction of each module's tests to run")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds a test may run")
    p.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    p.add_argument("--json", type=Path, help="write every outcome here")
    args = p.parse_args(argv)
    root = scipy_root()
    found = modules(root)
    names = [m for m in args.modules.split(",") if m] or sorted(found)
    t0 = time.perf_counter()
    rows, every, all_regs = [], [], []
    for name in names:
        t = time.perf_counter()
        records = run_module(name, found[name], root, args.sample, args.timeout, [STRICT, NABLA],
                             lambda msg: print(msg, file=sys.stderr, flush=True))
        counts, regs = tally(records)
        rows.append((name, counts, regs))
        every += records
        all_regs += regs
        print(f"{name}: {dict(counts[STRICT])} | nabla {dict(counts[NABLA])} | {len(regs)} regressions "
              f"({time.perf_counter() - t:.0f} s)", file=sys.stderr, flush=True)
    text = report(rows, all_regs, args.sample, args.timeout, time.perf_counter() - t0)
    print(text)
    write_section(args.results, SECTION, text)
    if args.json:
        args.json.write_text(json.dumps(every, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
