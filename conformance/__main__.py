"""``python -m conformance [SUITE_DIR] [--max-examples N] [pytest args]``.

Runs the pinned array-api-tests suite against ``nabla.array_api``, writes the JSON
report next to this file and rewrites its own section of ``conformance/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from ._report import nabla_commit, write_section

HERE = Path(__file__).resolve().parent
PINNED_SUITE = "55fcc60"
PINNED_SPEC = "5f847a38"
HOW_TO_GET = f"""\
The array-api-tests suite is not on PyPI; bring it onto this machine as a Git repository:

    git clone https://github.com/data-apis/array-api-tests SUITE && cd SUITE && git checkout {PINNED_SUITE}
    git clone https://github.com/data-apis/array-api array-api && (cd array-api && git checkout {PINNED_SPEC})
    pip install pytest-json-report "hypothesis>=6.151" "ndindex>=1.8"

then run `python -m conformance SUITE` (or set ARRAY_API_TESTS_DIR=SUITE)."""


def _suite_commit(suite: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(suite), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _tally(report: dict) -> tuple[dict, list]:
    per_file = collections.defaultdict(collections.Counter)
    failures = []
    for test in report.get("tests", []):
        path = test["nodeid"].split("::")[0]
        outcome = test["outcome"]
        per_file[Path(path).name][outcome] += 1
        if outcome in ("failed", "error"):
            failures.append(test["nodeid"])
    return per_file, failures


def _xfail_ids() -> Path:
    """xfails.txt holds ``TEST_ID  # reason`` lines; the suite wants bare ids."""
    ids = []
    for line in (HERE / "xfails.txt").read_text().splitlines():
        test_id = line.split("  #", 1)[0].strip()
        if test_id and not test_id.startswith("#"):
            ids.append(test_id)
    path = HERE / "xfail_ids.txt"
    path.write_text("".join(f"{i}\n" for i in ids))
    return path


def _extension_name_skips(suite: Path, env: dict, missing: list) -> Path:
    """test_has_names checks extension names without the suite's extension marker, so
    --disable-extension leaves them failing; they are tests of the extension: skip them too."""
    collected = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                                "array_api_tests/test_has_names.py"], cwd=suite, env=env, capture_output=True,
                               text=True).stdout.splitlines()
    ids = [line for line in collected if any(f"[{ext}-" in line for ext in missing)]
    path = HERE / "extension_skips.txt"
    path.write_text("".join(f"{i}\n" for i in ids))
    return path


#: the heading that opens each run's section of RESULTS.md, by whether Hypothesis' deadline was kept
SECTION = {False: "## The suite at {n} examples, Hypothesis' deadline off",
           True: "## The suite as it ships (800 ms Hypothesis deadline kept), {n} examples"}

HEADER = """# array-api-tests against nabla.array_api

Current figures, each section dated with the machine and commit it was measured on (earlier runs
are in git history). Rerun with `python -m conformance SUITE`, which rewrites its own section of
this file (`--results FILE` writes elsewhere; `--keep-deadline` keeps Hypothesis' deadline: the
second section).
"""


def _section(per_file, failures, commit, max_examples, wall, keep_deadline, extra_args) -> str:
    total = collections.Counter()
    for c in per_file.values():
        total.update(c)
    machine = f"a {os.cpu_count()}-core {platform.machine()} machine"
    lines = [
        SECTION[keep_deadline].format(n=max_examples)
        + f", {datetime.date.today().isoformat()}, {machine}, commit {nabla_commit()}",
        "",
        f"- suite: data-apis/array-api-tests at `{commit}` (spec at `{PINNED_SPEC}`)",
        f"- `--max-examples={max_examples}`" + (f", extra args `{' '.join(extra_args)}`" if extra_args else ""),
        f"- wall time: {wall / 60:.1f} min",
        f"- total: {total['passed']} passed, {total['failed'] + total['error']} failed, {total['skipped']} skipped,"
        f" {total['xfailed']} xfailed (see xfails.txt)",
        "",
        "| test file | passed | failed | skipped | xfailed |",
        "|---|---|---|---|---|",
    ]
    for name in sorted(per_file):
        c = per_file[name]
        lines.append(f"| {name} | {c['passed']} | {c['failed'] + c['error']} | {c['skipped']} | {c['xfailed']} |")
    if failures:
        lines += ["", "### Failing tests", ""] + [f"- `{f}`" for f in failures]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance", description=__doc__)
    parser.add_argument("suite", nargs="?", default=os.environ.get("ARRAY_API_TESTS_DIR"),
                        help="the array-api-tests checkout (or ARRAY_API_TESTS_DIR)")
    parser.add_argument("--max-examples", type=int, default=100)
    parser.add_argument("--results", default=str(HERE / "RESULTS.md"), help="where to write the summary")
    parser.add_argument("--keep-deadline", action="store_true",
                        help="keep Hypothesis' 800 ms deadline per example, as the suite ships it")
    args, pytest_args = parser.parse_known_args(argv)  # the rest goes to pytest
    if not args.suite:
        print("python -m conformance: no suite given.\n\n" + HOW_TO_GET, file=sys.stderr)
        return 2
    suite = Path(args.suite).expanduser().resolve()
    if not (suite / "array_api_tests").is_dir():
        print(f"python -m conformance: {suite} is not an array-api-tests checkout.\n\n" + HOW_TO_GET, file=sys.stderr)
        return 2
    if not (suite / "array-api" / "src").is_dir():
        print(f"python -m conformance: {suite}/array-api (the spec submodule) is missing.\n\n" + HOW_TO_GET,
              file=sys.stderr)
        return 2
    extra = [a for a in pytest_args if a != "--"]
    import nabla.array_api as xp

    missing = [ext for ext in ("linalg", "fft") if not hasattr(xp, ext)]
    for ext in missing:  # extensions Nabla does not have yet: the suite skips their tests
        extra += ["--disable-extension", ext]
    report_file = HERE / "report.json"
    env = dict(os.environ, ARRAY_API_TESTS_MODULE="nabla.array_api",
               NABLA_REALIZE=os.environ.get("NABLA_REALIZE", "interpret"),
               PYTHONPATH=os.pathsep.join([str(HERE.parent), os.environ.get("PYTHONPATH", "")]))
    if missing:
        extra += ["--skips-file", str(_extension_name_skips(suite, env, missing))]
    paths = [] if any(a.startswith("array_api_tests") for a in extra) else ["array_api_tests/"]
    cmd = [sys.executable, "-m", "pytest", *paths, f"--max-examples={args.max_examples}",
           "--json-report", f"--json-report-file={report_file}", f"--xfails-file={_xfail_ids()}",
           "-p", "no:cacheprovider", "-p", "conformance.plugin", "-q",
           # Hypothesis' 800 ms deadline times a first sight as much as conformance; --keep-deadline
           # runs the suite as shipped (no example may take that long)
           *([] if args.keep_deadline else ["--hypothesis-disable-deadline"]), *extra]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=suite, env=env)
    wall = time.perf_counter() - start
    if not report_file.exists():
        print("python -m conformance: pytest wrote no report (is pytest-json-report installed?)", file=sys.stderr)
        return proc.returncode or 2
    per_file, failures = _tally(json.loads(report_file.read_text()))
    section = _section(per_file, failures, _suite_commit(suite), args.max_examples, wall, args.keep_deadline, extra)
    write_section(Path(args.results), SECTION[args.keep_deadline].split("{n}")[0], section, HEADER)
    print(f"python -m conformance: wrote {args.results}")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
