"""``python -m conformance.sklearn [--timeout 60]``.

scikit-learn's own array-API checks (``check_array_api_input`` in float64 and float32 and
``check_array_api_same_namespace`` for every estimator scikit-learn tags array-API capable, and
``array_api_metric_checkers`` for every metric), run with ``nabla.array_api`` in one process, as
``tests/interop/test_sklearn.py`` lists them, with Nabla's settings as a user's process has them
(not the test suite's); scikit-learn's own list of expected failures applies.
Records cases, passed, failed, skipped, the wall time, and the slowest case against the per-test
timeout (``--timeout``, seconds) in ``conformance/RESULTS.md`` (its own section).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from ._report import nabla_commit, write_section

HERE = Path(__file__).resolve().parent
SECTION = "## scikit-learn's own array-API checks"


def _versions() -> str:
    import importlib.metadata as md

    return ", ".join(f"{d} {md.version(d)}" for d in ("scikit-learn", "scipy", "numpy", "max"))


def run(timeout: float) -> tuple[list, float]:
    """(per case: (id, outcome, seconds)), wall seconds."""
    xml = Path(tempfile.mkdtemp(prefix="nabla-sklearn-")) / "report.xml"
    cmd = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q", "-o", "addopts=",
           f"--junitxml={xml}", str(HERE.parent / "tests" / "interop" / "test_sklearn.py"),
           "-k", "estimator_checks or metric_checks"]
    t0 = time.perf_counter()
    # (as a user's process runs: the tests' own settings, a private model cache and MAX's interpreter
    # for every structure, measure one path, not what a user meets)
    subprocess.run(cmd, cwd=HERE.parent, env={**os.environ, "SCIPY_ARRAY_API": "1", "NABLA_TESTS_AS_USER": "1"})
    wall = time.perf_counter() - t0
    cases = []
    for case in ET.parse(xml).getroot().iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
            elif child.tag == "skipped":
                outcome = "skipped"
        cases.append((case.get("name"), outcome, float(case.get("time", 0.0))))
    return cases, wall


def report(cases: list, wall: float, timeout: float) -> str:
    count = {k: sum(1 for _, o, _ in cases if o == k) for k in ("passed", "failed", "skipped")}
    slow = sorted(cases, key=lambda c: -c[2])[:5]
    over = [c for c in cases if c[2] > timeout]
    lines = [f"{SECTION}, {datetime.date.today().isoformat()}, {platform.machine()} ({os.cpu_count()} cores), "
             f"commit {nabla_commit()}", "",
             f"- versions: {_versions()}",
             f"- `python -m conformance.sklearn --timeout {timeout:g}`: one process, wall time {wall:.0f} s", "",
             "| cases | passed | failed | skipped | slowest case | cases past the timeout |",
             "|---|---|---|---|---|---|",
             f"| {len(cases)} | {count['passed']} | {count['failed']} | {count['skipped']} | {slow[0][2]:.1f} s "
             f"| {len(over)} |" if cases else "| 0 | 0 | 0 | 0 | - | - |", "",
             "Slowest: " + ", ".join(f"`{n}` {t:.1f} s" for n, _, t in slow)]
    failed = [n for n, o, _ in cases if o == "failed"]
    if failed:
        lines += ["", "Failed:"] + [f"- `{n}`" for n in failed]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m conformance.sklearn", description=__doc__.split("\n\n")[1])
    p.add_argument("--timeout", type=float, default=60.0, help="seconds a case may take")
    p.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    args = p.parse_args(argv)
    cases, wall = run(args.timeout)
    text = report(cases, wall, args.timeout)
    print(text)
    write_section(args.results, SECTION, text)
    failed = any(o == "failed" for _, o, _ in cases) or any(t > args.timeout for _, _, t in cases)
    return 1 if failed or not cases else 0


if __name__ == "__main__":
    sys.exit(main())
