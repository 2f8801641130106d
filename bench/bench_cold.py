"""A fresh machine, measured as a newcomer meets it: ``python bench/bench_cold.py [--keep DIR]``.

1. A clean clone of this repository (its committed HEAD) in a temporary folder, a new virtual
   environment, ``pip install -e .``: the install's time.
2. ``bench/newcomer_script.py`` (22 sections of ordinary NumPy code; ``--script`` names another,
   such as ``bench/second_script.py``) with ``$HOME`` an empty folder, so no MAX or Nabla cache exists: the first run's time per section and in all, and
   whether its checksums equal NumPy's.
   The peak memory of every process of the run (the script, each build worker, the program
   kernel's build), sampled as it runs.
3. What keeps computing after that process exits: the CPU seconds of processes started from the
   clone's environment, sampled for ``--after`` seconds.
4. The same script in a second process (the machine now knows it).

``--tests`` measures the README's test command instead: verbatim, in a clean clone with an empty
``$HOME``, each of its parts timed (the install, the bytecode, MAX's interpreter warm-up, the tests)
and the tests' summary line.

Prints a table; ``--json FILE`` writes the figures. The clone and its ``$HOME`` are removed at the
end unless ``--keep DIR`` names where to keep them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(cmd, env=None, cwd=None) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - t0, done


def _sections(stderr: str) -> dict:
    out = {}
    for line in stderr.splitlines():
        m = re.match(r"(\w+)\s+(\S+)\s+([\d.]+) s$", line.strip())
        if m:
            out[m.group(1)] = (m.group(2), float(m.group(3)))
    return out


def _cpu_after(marker: str, seconds: float) -> float:
    """CPU seconds used during ``seconds`` by processes whose command line mentions ``marker``."""
    def total():
        used = 0.0
        tick = os.sysconf("SC_CLK_TCK")
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
                if marker not in cmd:
                    continue
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                used += (int(fields[11]) + int(fields[12])) / tick
            except OSError:
                continue
        return used

    before = total()
    time.sleep(seconds)
    return max(0.0, total() - before)


class _PeakMemory:
    """The peak resident memory (``VmHWM``) of each process whose command line mentions ``marker``,
    sampled every 0.2 s while it runs, by kind: the script, the first-run build workers, the
    program kernel's Mojo build, others."""

    def __init__(self, marker: str, script: str):
        self.marker, self.script, self.peaks, self._stop = marker, script, {}, threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _kind(self, cmd: str) -> str:
        if "nabla.runtime.first_run" in cmd:
            return "first-run worker"
        if "mojo" in cmd and " build" in cmd:
            return "program kernel build (mojo)"
        if "single_op_compiler" in cmd:
            return "detached compiler"
        return "the script" if self.script in cmd else "other"

    def _watch(self):
        while not self._stop.wait(0.2):
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                    if self.marker not in cmd:
                        continue
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue
                m = re.search(r"VmHWM:\s+(\d+) kB", status)
                if m:
                    key = (self._kind(cmd), pid)
                    self.peaks[key] = max(self.peaks.get(key, 0), int(m.group(1)) / 1024 ** 2)

    def by_kind(self) -> dict:
        """kind -> [peak GB of each process of that kind]"""
        out: dict = {}
        for (kind, _), gb in sorted(self.peaks.items()):
            out.setdefault(kind, []).append(round(gb, 2))
        return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", help="keep the clone and its HOME in this folder")
    ap.add_argument("--after", type=float, default=60.0, help="seconds to watch for work left running")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--script", default="bench/newcomer_script.py",
                    help="the script to run (bench/second_script.py: 21 sections of other op families; "
                         "examples/demo.py: the README's demo)")
    ap.add_argument("--tests", action="store_true", help="measure the README's test command instead")
    args = ap.parse_args(argv)
    if args.tests:
        return _tests(args)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="nabla-cold-"))
    base.mkdir(parents=True, exist_ok=True)
    clone, home = base / "nabla", base / "home"
    home.mkdir(exist_ok=True)
    figures: dict = {}
    try:
        t, done = _run(["git", "clone", "-q", str(ROOT), str(clone)])
        assert done.returncode == 0, done.stderr
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NABLA_", "MODULAR_"))}
        env["HOME"] = str(home)
        t, done = _run([sys.executable, "-m", "venv", ".venv"], env=env, cwd=clone)
        py = str(clone / ".venv" / "bin" / "python")
        t_install, done = _run([py, "-m", "pip", "install", "-q", "-e", "."], env=env, cwd=clone)
        assert done.returncode == 0, done.stderr[-2000:]
        figures["install_s"] = round(t + t_install, 1)
        _run([py, "-m", "compileall", "-q", "nabla"], env=env, cwd=clone)

        # (a sections script takes ``numpy`` to run on NumPy; the demo is Nabla only: no reference)
        t_numpy, numpy_run = _run([py, args.script, "numpy"], env=env, cwd=clone) \
            if args.script.startswith("bench/") else (None, subprocess.CompletedProcess([], 0, "", ""))
        with _PeakMemory(str(clone), args.script) as peaks:
            t_first, first = _run([py, args.script, "nabla"], env=env, cwd=clone)
        figures["peak_memory_gb"] = peaks.by_kind()
        assert first.returncode == 0, first.stderr[-3000:]
        figures["first_run_s"] = round(t_first, 1)
        figures["install_and_first_run_s"] = round(figures["install_s"] + t_first, 1)
        figures["after_exit_cpu_s"] = round(_cpu_after(str(clone), args.after), 1)
        t_second, second = _run([py, args.script, "nabla"], env=env, cwd=clone)
        figures["second_run_s"] = round(t_second, 2)
        figures["numpy_run_s"] = None if t_numpy is None else round(t_numpy, 2)
        want, got, again = _sections(numpy_run.stderr), _sections(first.stderr), _sections(second.stderr)
        figures["sections"] = {name: {"first_s": got[name][1], "second_s": again.get(name, ("", None))[1],
                                      "checksum_equal": _close(got[name][0], want[name][0])}
                               for name in want if name in got}
        figures["progress_lines"] = [ln for ln in first.stderr.splitlines() if ln.startswith("nabla:")][:40]
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    print(f"{args.script}: install {figures.get('install_s')} s; first run {figures.get('first_run_s')} s "
          f"({figures.get('install_and_first_run_s')} s in all); work left after "
          f"exit {figures.get('after_exit_cpu_s')} CPU-s in {args.after:.0f} s; second run "
          f"{figures.get('second_run_s')} s; NumPy {figures.get('numpy_run_s')} s")
    for kind, gbs in figures.get("peak_memory_gb", {}).items():
        print(f"  peak memory, {kind}: {', '.join(f'{g:.2f}' for g in gbs)} GB")
    for name, row in figures.get("sections", {}).items():
        print(f"  {name:20s} first {row['first_s']:7.2f} s  second {row['second_s'] or 0:6.2f} s  "
              f"{'same checksum' if row['checksum_equal'] else 'CHECKSUM DIFFERS'}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))
    return 0 if all(r["checksum_equal"] for r in figures.get("sections", {}).values()) else 1


def readme_test_command() -> str:
    """The README's second command (the one that installs and runs the tests)."""
    return re.findall(r"```bash\n(.*?)\n```", (ROOT / "README.md").read_text(), re.S)[1].strip()


def _tests(args) -> int:
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="nabla-cold-tests-"))
    base.mkdir(parents=True, exist_ok=True)
    clone, home = base / "nabla", base / "home"
    home.mkdir(exist_ok=True)
    parts = readme_test_command().split(" && ")
    script = "set -e\nTIMEFORMAT='nabla-part %R'\n" + "\n".join(f"time {{ {part}; }}" for part in parts)
    try:
        _, done = _run(["git", "clone", "-q", str(ROOT), str(clone)])
        assert done.returncode == 0, done.stderr
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NABLA_", "MODULAR_", "VIRTUAL_ENV"))}
        env["HOME"] = str(home)
        total, done = _run(["bash", "-c", script], env=env, cwd=clone)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    seconds = [float(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("nabla-part ")]
    summary = [line for line in done.stdout.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    lines = done.stdout.splitlines()
    figures = {"total_s": round(total, 1), "exit_code": done.returncode,
               "failed": [line for line in lines if line.startswith(("FAILED", "ERROR"))],
               "slowest": [line for line in lines if re.match(r"\d+\.\d+s (call|setup|teardown) ", line)],
               "parts": [{"command": p, "seconds": s} for p, s in zip(parts, seconds)],
               "summary": summary[-1] if summary else done.stdout[-2000:] + done.stderr[-2000:]}
    print(f"the README's test command, cold: {figures['total_s']} s in all (exit code {done.returncode})")
    for row in figures["parts"]:
        print(f"  {row['seconds']:8.1f} s  {row['command']}")
    print(f"  {figures['summary']}")
    for line in figures["failed"] + figures["slowest"]:
        print(f"  {line}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))
    return done.returncode


def _close(a: str, b: str) -> bool:
    try:
        x, y = float(a), float(b)
    except ValueError:
        return a == b
    return x == y or abs(x - y) <= 1e-9 * max(1.0, abs(y))


if __name__ == "__main__":
    sys.exit(main())
