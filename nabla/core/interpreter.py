"""MAX's eager interpreter, as the engine's last first-sight resort.

The interpreter loads its kernels by op family, a whole precompiled sweep per family (every dtype
and rank variant), the first time a process dispatches an op of that family: up to a second
each, paid by whichever trace meets the family first. A process that needs the interpreter once
usually needs it again, for other families (a test run, a notebook, a script whose structures
the machine has not compiled), so the first use starts a daemon thread that, if the process
still runs ``DELAY`` seconds later (a long-lived process, not a short script), loads the families
Nabla lowers to, one at a time, under MAX's own compile lock. Most of a load runs in MAX's C++
(the foreground keeps most of its Python speed meanwhile), and a family the foreground asks for
while the thread loads another waits at most that one load. At exit the process waits for the
family being loaded (under a second), not for the rest. ``NABLA_WARM_INTERPRETER=0`` turns the
thread off.
"""

from __future__ import annotations

import atexit
import importlib
import os
import sys
import threading

#: MAX's interpreter families that Nabla's first sight dispatches to, most used first: the twelve the
#: whole test suite loaded, every first-sight path included
FAMILIES = ("binary", "unary", "cast", "shape_rearrange", "select", "reduce_axis", "gather",
            "data_movement", "nonzero", "matmul", "scatter_nd", "scatter_nd_add")

#: the families never loaded ahead, and why (the second group is a large share of what warming
#: every non-neural-network family costs); a process that meets one compiles its sweep then
LEFT_COLD = {
    **dict.fromkeys(("conv", "group_norm", "layer_norm", "nms", "pooling", "resize", "rms_norm", "roi_align"),
                    "a neural-network family: Nabla lowers to none of them"),
    "range": "arange runs on the fused kernel; only compiled graphs lower to MAX's range",
    "random": "Nabla draws its own random bits",
    **dict.fromkeys(("scatter", "topk", "band_part", "scatter_nd_max", "scatter_nd_min", "scatter_nd_mul"),
                    "no lowering of Nabla's emits it"),
}

_started = threading.Event()
_stop = threading.Event()


def new_interpreter():
    """MAX's interpreter, and (once per process) the thread that loads its families ahead."""
    # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
    from max.experimental.executor import InterpreterExecutor

    executor = InterpreterExecutor(max_ops=None)
    if not _started.is_set() and os.environ.get("NABLA_WARM_INTERPRETER", "1") != "0":
        _started.set()
        thread = threading.Thread(target=_load_families, name="nabla-interpreter-families", daemon=True)
        thread.start()
        atexit.register(_finish, thread)
    return executor


def _finish(thread) -> None:
    """At exit: let the family being loaded finish (a thread left inside MAX's loader while the
    process tears MAX down aborts it: "terminate called without an active exception")."""
    _stop.set()
    thread.join()


#: seconds after the first use before loading: a script done by then pays nothing for the thread
#: (loading at once slows a 2-s script by ~0.6 s, its own families waiting behind others)
DELAY = 2.0


def families_loaded() -> bool:
    """Whether this process's interpreter has every family Nabla uses loaded (a trace then runs
    whole at once on it; until then, each new family costs its load)."""
    if _loaded.is_set():
        return True
    # (not imported: no family is loaded in this process yet, and importing MAX's interpreter
    # modules only to ask costs a process 0.3-0.5 s: a script's second run, 0.9 s against 0.4)
    gc_compile = sys.modules.get("max._interpreter_ops.gc_compile")
    if gc_compile is None:
        return False
    swept = {f.name for f in gc_compile.registered_families() if f.swept}
    if swept.issuperset(FAMILIES):
        _loaded.set()
    return _loaded.is_set()


_loaded = threading.Event()


def _load_families() -> None:
    if _stop.wait(DELAY):
        return
    try:
        from max._interpreter_ops import gc_compile, handlers  # noqa: F401 (registers the families)

        if not gc_compile.warm_stamp_matches():
            return  # a cold machine would compile each family here (minutes): leave that to need
        families = {f.name: f for f in gc_compile.registered_families()}
        for name in FAMILIES:
            if _stop.is_set():
                return
            family = families.get(name)
            if family is None or family.swept:
                continue
            with gc_compile.COMPILE_LOCK:
                family.ensure_swept()
    except Exception:  # MAX's internals moved: the interpreter loads each family on need
        return


def warm_families(jobs: int | None = None, report=None) -> int:
    """Compile MAX's interpreter kernels for the families Nabla dispatches to (``FAMILIES``), on
    ``jobs`` processes (default: the cores), and stamp the machine warmed, as ``max
    warm-interpreter-cache`` does for every family. The neural-network families (conv, pooling,
    resize, norms, nms, roi_align) are left out: Nabla lowers to none of them, and they are ~30% of
    that command's compile time (resize alone a sixth); a process that meets one compiles its sweep
    then. ``report(name, ops)`` hears each family as it lands. Returns the number of kernels."""
    importlib.import_module("max._interpreter_ops")  # registers the families
    # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
    from max._interpreter_ops import gc_compile, warm

    families = [f for f in gc_compile.registered_families() if f.name in FAMILIES]
    missing = set(FAMILIES) - {f.name for f in families}
    if missing:
        raise RuntimeError(f"MAX's interpreter has no families {sorted(missing)}: use `max warm-interpreter-cache`")
    jobs = jobs or min(len(families), os.cpu_count() or 1)
    total = 0
    events = warm._warm_serial(families) if jobs == 1 else warm._warm_parallel(families, jobs)
    for name, ops in events:
        total += ops
        if report is not None:
            report(name, ops)
    if not gc_compile.write_warm_stamp():
        raise RuntimeError("MAX's model cache directory cannot be found: nothing would adopt the warm")
    return total


def warmed() -> bool:
    """Whether this machine's interpreter kernels are compiled (Nabla's warm or MAX's own)."""
    try:  # (MAX's internal module, imported where asked: another MAX may not have it)
        from max._interpreter_ops import gc_compile
    except Exception:
        return False
    return bool(gc_compile.provisioned())
