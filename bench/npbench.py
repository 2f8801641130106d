"""npbench's kernels, unchanged, on NumPy, Nabla and JAX side by side.

    python -m bench.npbench NPBENCH_DIR [--preset S] [--kernels lu,adi] [--frameworks numpy,nabla,jax]

``NPBENCH_DIR`` is a checkout of github.com/spcl/npbench (Ziogas et al., "NPBench: A Benchmarking
Suite for High-Performance NumPy", ICS 2021), fetched by the user, never copied here. Each kernel's
``<name>_numpy.py`` runs as it is for NumPy and, with ``import numpy as np`` read as ``import
nabla.numpy as np`` and nothing else changed, for Nabla; JAX runs npbench's own ``<name>_jax.py``
rewrites (jitted, float64, ``block_until_ready``), as npbench runs them.

Each (kernel, framework) runs in a fresh process: the data from npbench's ``initialize``, the first
call timed, then repeated calls (median: the steady state). Array arguments are copied to the
framework before each call, outside the timed region, as npbench's harness does; Nabla's and JAX's
outputs (return values, then the arrays named ``output_args``) are read back to NumPy inside it.
Outputs are validated against NumPy's with npbench's rule: ``allclose(rtol, atol)`` or a relative
norm error below ``norm_error`` (1e-5, 1e-8, 1e-5 unless the kernel's json says otherwise).

Prints a Markdown table (ratios to NumPy; the geometric mean over the kernels where both ran) and
writes the raw figures as JSON (``--json``).
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FRAMEWORKS = ("numpy", "nabla", "jax")


# --- in the child process --------------------------------------------------------------------

def _kernel_info(root: Path, name: str) -> dict:
    return json.loads((root / "bench_info" / f"{name}.json").read_text())["benchmark"]


def _data(root: Path, info: dict, preset: str) -> dict:
    """npbench's ``Benchmark.get_data``: the preset's parameters and the outputs of ``initialize``."""
    data = dict(info["parameters"][preset])
    init = info.get("init")
    if init:
        module = importlib.import_module(_module_path(info))
        outputs = getattr(module, init["func_name"])(*(data[a] for a in init["input_args"]))
        names = init["output_args"]
        data.update(zip(names, outputs if len(names) > 1 else (outputs,)))
    return data


def _module_path(info: dict) -> str:
    return "npbench.benchmarks.{}.{}".format(info["relative_path"].replace("/", "."), info["module_name"])


def _kernel(root: Path, info: dict, framework: str):
    """The kernel function: NumPy's source as it is (for Nabla with its import read as Nabla's), or
    npbench's JAX rewrite."""
    module = _module_path(info)
    if framework == "jax":
        return getattr(importlib.import_module(module + "_jax"), info["func_name"])
    path = root / "npbench" / "benchmarks" / info["relative_path"] / f"{info['module_name']}_numpy.py"
    source = path.read_text()
    if framework == "nabla":
        source = source.replace("import numpy as np", "import nabla.numpy as np")
    namespace = {"__name__": module + "_numpy", "__file__": str(path)}
    exec(compile(source, str(path), "exec"), namespace)
    return namespace[info["func_name"]]


def _framework(framework: str):
    """(copy an array in, read one back, wait for a result) for the framework."""
    import numpy

    if framework == "nabla":
        import nabla.numpy as nnp

        def back(x):
            return numpy.asarray(x) if isinstance(x, nnp.ndarray) else x

        def wait(out, args):
            # a kernel that only writes into its arguments (doitgen's ``A[:] = ...``) has its
            # writes realized in the timed region, as NumPy's are done when the call returns
            for a in args:
                if isinstance(a, nnp.ndarray):
                    a.realize()
            return out

        return nnp.array, back, wait
    if framework == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp

        return jnp.array, lambda x: numpy.asarray(x), lambda out, args: jax.block_until_ready(out)
    return numpy.copy, lambda x: x, lambda out, args: out


def child(root: Path, name: str, framework: str, preset: str, repeat: int, budget: float, out_path: Path) -> None:
    sys.path.insert(0, str(root))
    import numpy

    info = _kernel_info(root, name)
    data = _data(root, info, preset)
    copy_in, back, wait = _framework(framework)
    kernel = _kernel(root, info, framework)
    arrays = info.get("array_args", [])
    outputs = info.get("output_args", [])
    report = {"kernel": name, "framework": framework, "preset": preset}

    def call():
        args = dict(data)
        args.update({a: copy_in(data[a]) for a in arrays})  # outside the timed region, as npbench
        t0 = time.perf_counter()
        result = wait(kernel(*(args[a] for a in info["input_args"])), [args[a] for a in arrays])
        result = list(result) if isinstance(result, (tuple, list)) else ([] if result is None else [result])
        values = [back(r) for r in result] + [back(args[a]) for a in outputs]
        return time.perf_counter() - t0, values

    first, values = call()
    report["first"] = first
    numpy.savez(out_path.with_suffix(".npz"), *[numpy.asarray(v) for v in values])
    out_path.write_text(json.dumps(report))  # the first call's figure survives a later timeout
    times, spent = [], 0.0
    while len(times) < repeat and (len(times) < 3 or spent < budget):
        t, _ = call()
        times.append(t)
        spent += t
    report["times"] = times
    report["steady"] = statistics.median(times)
    out_path.write_text(json.dumps(report))


# --- in the parent -------------------------------------------------------------------------------

def validate(ref: list, val: list, info: dict, pairwise: bool = False) -> tuple[bool, str]:
    """npbench's rule (``npbench.infrastructure.utilities.validate``): each output allclose to
    NumPy's, or within a relative norm error. ``pairwise``: as npbench pairs them (``zip``), for
    JAX's rewrites, which return the arrays NumPy's kernels write into their arguments."""
    import numpy

    rtol, atol, norm_error = info.get("rtol", 1e-5), info.get("atol", 1e-8), info.get("norm_error", 1e-5)
    if len(ref) != len(val) and not pairwise:
        return False, f"{len(val)} outputs, NumPy has {len(ref)}"
    for k, (r, v) in enumerate(zip(ref, val)):
        if numpy.shape(r) != numpy.shape(v):
            return False, f"output {k}: shape {numpy.shape(v)}, NumPy's {numpy.shape(r)}"
        if numpy.allclose(r, v, rtol=rtol, atol=atol):
            continue
        with numpy.errstate(all="ignore"):
            err = numpy.linalg.norm(r - v) / numpy.linalg.norm(r)
        if not err < norm_error:
            return False, f"output {k}: relative error {err:.3g}"
    return True, ""


def run_one(root: Path, name: str, framework: str, preset: str, args, work: Path) -> dict:
    out = work / f"{name}-{framework}-{preset}.json"
    cmd = [sys.executable, "-m", "bench.npbench", str(root), "--child", name, "--frameworks", framework,
           "--preset", preset, "--repeat", str(args.repeat), "--budget", str(args.budget), "--out", str(out)]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                              cwd=Path(__file__).resolve().parent.parent)
        status = "ok" if proc.returncode == 0 else "error"
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] if proc.returncode else []
    except subprocess.TimeoutExpired:
        status, tail = "timeout", []
    report = json.loads(out.read_text()) if out.exists() else {}
    report.update(kernel=name, framework=framework, preset=preset, wall=time.perf_counter() - t0)
    if status == "timeout":
        status = "timeout in repeats" if "first" in report else "timeout in first call"
    report["status"] = status
    if tail:
        report["error"] = tail[0][:200]
    return report


def _values(work: Path, name: str, framework: str, preset: str):
    import numpy

    path = work / f"{name}-{framework}-{preset}.npz"
    if not path.exists():
        return None
    with numpy.load(path) as z:
        return [z[f"arr_{k}"] for k in range(len(z.files))]


def _geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def table(rows: dict, kernels: list, preset: str, frameworks: list) -> str:
    lines = [f"| kernel ({preset}) | NumPy ms | Nabla first ms | Nabla steady ms | Nabla / NumPy | "
             f"JAX steady ms | JAX / NumPy | Nabla status |", "|---|---|---|---|---|---|---|---|"]
    ratios, jratios, firsts = [], [], []
    for name in kernels:
        r = rows.get(name, {})
        np_, nb, jx = r.get("numpy", {}), r.get("nabla", {}), r.get("jax", {})
        ref = np_.get("steady")

        def ms(x):
            return f"{x * 1e3:.1f}" if x is not None else "-"

        ratio = nb.get("steady") / ref if ref and nb.get("steady") and nb.get("valid") else None
        jratio = jx.get("steady") / ref if ref and jx.get("steady") and jx.get("valid") else None
        if ratio:
            ratios.append(ratio)
        if jratio:
            jratios.append(jratio)
        status = nb.get("status", "-") if "nabla" in frameworks else "-"
        if nb.get("status") == "ok" and not nb.get("valid"):
            status = "WRONG: " + nb.get("why", "")
        if nb.get("error"):
            status += ": " + nb["error"]
        lines.append(f"| {name} | {ms(ref)} | {ms(nb.get('first'))} | {ms(nb.get('steady'))} | "
                     f"{f'{ratio:.2f}x' if ratio else '-'} | {ms(jx.get('steady'))} | "
                     f"{f'{jratio:.2f}x' if jratio else '-'} | {status} |")
    valid = sum(1 for n in kernels if rows.get(n, {}).get("nabla", {}).get("valid"))
    lines.append("")
    lines.append(f"Nabla: {valid} of {len(kernels)} validate; steady/NumPy geometric mean {_geomean(ratios):.2f}x "
                 f"over {len(ratios)}, max {max(ratios, default=float('nan')):.2f}x. JAX: geometric mean "
                 f"{_geomean(jratios):.2f}x over {len(jratios)}.")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("npbench", type=Path, help="a checkout of github.com/spcl/npbench")
    p.add_argument("--preset", default="S")
    p.add_argument("--kernels", default="", help="comma-separated names (bench_info/*.json); default all")
    p.add_argument("--frameworks", default="numpy,nabla,jax")
    p.add_argument("--repeat", type=int, default=10, help="steady-state calls at most")
    p.add_argument("--budget", type=float, default=10.0, help="seconds of repeats after the third")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per (kernel, framework) process")
    p.add_argument("--json", type=Path, help="write every figure here")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    root = args.npbench.resolve()
    if args.child:
        child(root, args.child, args.frameworks, args.preset, args.repeat, args.budget, args.out)
        return 0
    if not (root / "bench_info").is_dir():
        print(f"{root}: not a checkout of github.com/spcl/npbench (no bench_info/)", file=sys.stderr)
        return 2
    kernels = [k for k in args.kernels.split(",") if k] or sorted(f.stem for f in (root / "bench_info").glob("*.json"))
    frameworks = [f for f in args.frameworks.split(",") if f]
    if "numpy" not in frameworks:
        frameworks.insert(0, "numpy")  # the reference for every ratio and every validation
    rows: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name in kernels:
            info = _kernel_info(root, name)
            for fw in frameworks:
                report = run_one(root, name, fw, args.preset, args, work)
                rows.setdefault(name, {})[fw] = report
                if fw != "numpy" and "first" in report:
                    ref, val = _values(work, name, "numpy", args.preset), _values(work, name, fw, args.preset)
                    ok, why = validate(ref, val, info, fw == "jax") if ref is not None and val is not None else (False, "no output")
                    report["valid"], report["why"] = ok, why
                print(f"{name:28s} {fw:6s} {report['status']:22s} first {report.get('first', float('nan')) * 1e3:9.1f} ms"
                      f"  steady {report.get('steady', float('nan')) * 1e3:9.1f} ms"
                      f"  {'' if fw == 'numpy' else ('valid' if report.get('valid') else 'INVALID ' + report.get('why', ''))}"
                      f"  {report.get('error', '')}", file=sys.stderr, flush=True)
    print(table(rows, kernels, args.preset, frameworks))
    if args.json:
        meta = {"date": datetime.date.today().isoformat(), "machine": f"{platform.machine()}, {os.cpu_count()} cores",
                "preset": args.preset, "commit": _commit()}
        args.json.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    return 0


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parent).stdout.strip()
    except OSError:
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
