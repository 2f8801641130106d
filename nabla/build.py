"""Build what Nabla compiles once per machine, ahead of use: ``python -m nabla.build``.

Builds, on every core, the program kernel (``nabla/runtime/program_kernel.py``: every trace's
elementwise work, reductions, gathers and slice writes run on it), the op kernels (linalg, FFT, sort,
random) and the models first runs need
(``nabla/runtime/first_run.json``: single-op models; a cold machine otherwise builds them during its
first run), then the single-op models earlier processes asked for (queued in the kernel cache as
they exited). Says how far it is on stderr. ``--workers N`` sets how many compile at once (default:
the cores).

``python -m nabla.build --interpreter`` compiles MAX's interpreter kernels for the op families Nabla
uses (the part of ``max warm-interpreter-cache`` Nabla needs) and stops.

``python -m nabla.build --every-kernel`` also builds every dtype and form of each kernel op (the
linalg, sort, FFT and bit kernels' single-op models), where a script's first run needs the few it
meets: a conformance suite meets them all, each within a deadline.

``python -m nabla.build --record OUT SCRIPT [SCRIPT ...]`` runs each script in a process with empty
caches and writes to OUT the models they asked for, as the manifest's format (how
``first_run.json`` is made).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from .core import interpreter
from .core.disk_cache import kernel_cache_dir
from .core.graph import GRAPH
from .ops import registry
from .runtime import first_run, program_kernel, single_op, single_op_compiler
from .runtime.first_run import spec_name


def build(workers: int | None = None, quiet: bool = False, every_kernel: bool = False) -> int:
    engine = GRAPH.engine
    t0 = time.perf_counter()
    # (both libraries at once, ahead of use)
    kernels = [(lib.what, lib.build_async()) for lib in (program_kernel.PROGRAM, program_kernel.OP_KERNELS)
               if not lib.ready()]
    started = first_run.start(engine, workers, every_kernel, ahead=True)
    for what, kernel in kernels:
        failed = kernel.exception()
        if not quiet:
            print(f"nabla: {what} ({time.perf_counter() - t0:.0f} s"
                  f"{', FAILED: ' + str(failed)[:300] if failed else ''})", file=sys.stderr, flush=True)
    if started is not None:
        def report(build, part):
            if not quiet:
                what = ", ".join(sorted({s["op"] for s in part.task["models"]}))
                print(f"nabla: first-run models: {build.done()} of {len(build.parts)} parts "
                      f"({time.perf_counter() - t0:.0f} s; {what}: {part.seconds:.1f} s"
                      f"{'' if part.future.result() else ', FAILED'})", file=sys.stderr, flush=True)

        ok = started.wait(report)
        if not ok:
            failed = [p.index for p in started.parts if not p.future.result()]
            print(f"nabla: {len(failed)} parts failed to build: {failed}", file=sys.stderr)
    queued = _drain_queue(quiet)
    if not quiet:
        print(f"nabla: built in {time.perf_counter() - t0:.0f} s "
              f"({0 if started is None else len(started.parts)} first-run parts, {queued} queued models)",
              file=sys.stderr)
    return 0


def _drain_queue(quiet: bool) -> int:
    """Compile the single-op models earlier processes queued (see ``runtime/single_op.py``)."""
    root = kernel_cache_dir()
    if root is None:
        return 0
    files = list(root.glob(single_op.QUEUED))
    count = 0
    for path in files:
        try:
            count += len(json.loads(path.read_text()))
        except (OSError, ValueError):
            pass
    if count:
        if not quiet:
            print(f"nabla: compiling {count} queued single-op models ...", file=sys.stderr, flush=True)
        lock = root / "single_op.lock"
        lock.touch()
        try:
            single_op_compiler._drain(root, lock)
        finally:
            lock.unlink(missing_ok=True)
    return count


def record(out: str, scripts: list) -> int:
    """Run each script with empty caches; merge what they asked for into ``out``."""
    models: dict = {}
    dropped = 0
    one_shape: dict = {}  # op -> count of the models left out because they serve one shape only
    for script in scripts:
        with tempfile.TemporaryDirectory() as tmp:
            record_file = os.path.join(tmp, "record.json")
            env = {**os.environ, "NABLA_CACHE_DIR": os.path.join(tmp, "models"),
                   "NABLA_KERNEL_CACHE_DIR": os.path.join(tmp, "kernels"), "NABLA_FIRST_RUN": "0",
                   "NABLA_COMPILE_AT_EXIT": "0", "NABLA_FIRST_RUN_RECORD": record_file}
            subprocess.run([sys.executable, *script.split()], env=env, check=True, stdout=subprocess.DEVNULL)
            found = json.loads(open(record_file).read())
        base = 1 + max([s["first"] for s in models.values()], default=-1)
        for spec in found["models"]:
            if spec["reuse"] not in (0, 1) and not _tiny(spec):  # models tied to the script's sizes: left out
                one_shape[spec["op"]] = one_shape.get(spec["op"], 0) + 1
                continue
            if spec["name"] in models:
                continue
            spec["first"] = base + spec["first"]
            if spec_name(spec) != spec["name"]:
                dropped += 1  # (a spec whose name cannot be made again from it would never be found)
                continue
            models[spec["name"]] = spec
    _add_siblings(models)
    # the order met, renumbered from 0
    rank = {n: i for i, (n, _) in enumerate(sorted(models.items(), key=lambda item: item[1]["first"]))}
    listed = [{k: v for k, v in spec.items() if k != "name"} | {"first": rank[n]} for n, spec in models.items()]
    with open(out, "w") as f:  # one model per line: a diff of the manifest reads as what changed
        f.write('{"models": [\n')
        f.write(",\n".join(json.dumps(spec) for spec in listed) + "\n]}\n")
    print(f"nabla: recorded {len(listed)} single-op models ({dropped} dropped) into {out}; left out, serving "
          f"one shape: {one_shape}", file=sys.stderr)
    return 0


def _add_siblings(models: dict) -> None:
    """For each op met whose calls come in families (``first_run_family``: an inverse transform after
    a forward one, a descending sort after an ascending one), its other models of the dtypes met,
    listed beside the one met."""
    ops = registry()
    for spec in list(models.values()):
        op = ops.get(spec["op"])
        if op is None or not getattr(op, "first_run_family", False):
            continue
        for sibling in single_op.family(op):
            if sibling["name"] in models or sibling["dtypes"] != spec["dtypes"]:
                continue
            models[sibling["name"]] = {**single_op._encoded(sibling), "first": spec["first"]}


def _tiny(spec: dict) -> bool:
    """Whether a model that serves one shape serves one every script meets: every size in its
    operands and arguments at most 2 (scalars and pairs), none of a script's data sizes."""
    def small(value) -> bool:
        if isinstance(value, bool) or value is None or isinstance(value, (str, float)):
            return True
        if isinstance(value, int):
            return abs(value) <= 2
        if isinstance(value, dict):
            return all(small(v) for v in value.values())
        return all(small(v) for v in value)

    return small(spec["kwargs"]) and all(isinstance(d, str) or d <= 2 for dims in spec["dims"] for d in dims)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nabla.build", description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--record", nargs="+", metavar=("OUT", "SCRIPT"))
    parser.add_argument("--interpreter", action="store_true",
                        help="compile MAX's interpreter kernels for the op families Nabla uses, then stop")
    parser.add_argument("--every-kernel", action="store_true",
                        help="also build every dtype and form of each kernel op (linalg, sort, FFT, bits): what a "
                             "conformance suite meets")
    args = parser.parse_args(argv)
    if args.record:
        return record(args.record[0], args.record[1:])
    if args.interpreter:
        return warm_interpreter(args.workers, args.quiet)
    return build(args.workers, args.quiet, args.every_kernel)


def warm_interpreter(workers: int | None = None, quiet: bool = False) -> int:
    """MAX's interpreter kernels for Nabla's op families, once per machine (``core/interpreter.py``)."""
    if interpreter.warmed():
        if not quiet:
            print("nabla: MAX's interpreter kernels are already compiled on this machine", file=sys.stderr)
        return 0
    t0 = time.perf_counter()
    done = []

    def report(name, ops):
        done.append(name)
        if not quiet:
            print(f"nabla: MAX's interpreter kernels: {len(done)} of {len(interpreter.FAMILIES)} families "
                  f"({time.perf_counter() - t0:.0f} s; {name}: {ops} kernels)", file=sys.stderr, flush=True)

    if not quiet:
        print(f"nabla: compiling MAX's interpreter kernels for {len(interpreter.FAMILIES)} op families, once "
              "for this machine ...", file=sys.stderr, flush=True)
    total = interpreter.warm_families(workers, report)
    if not quiet:
        print(f"nabla: compiled {total} interpreter kernels in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
