"""Run a program with NumPy and with ``nabla.numpy``, compare every value it names, shrink a failure.

Agreement means: the same exception class where NumPy raises; otherwise, for every name the program
binds, the same type of result, dtype and shape, integers and booleans equal bit for bit, floats
within a tolerance of their dtype. Nabla raising ``NotImplementedError`` where NumPy computes is
counted as unsupported, apart from mismatches.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import warnings

import numpy as onp

from ..threads import call_in_thread
from .programs import SIZES, Program

#: relative tolerance per float dtype (of the larger of 1 and the expected value's magnitude)
RTOL = {"float16": 2e-2, "float32": 2e-4, "float64": 1e-12, "complex64": 2e-4, "complex128": 1e-12}
#: where Nabla's arithmetic is allowed to differ from NumPy's more: accumulations over many elements
#: and factorizations (another order of operations, MAX's own libm)
LOOSE = {"float16": 5e-2, "float32": 2e-3, "float64": 1e-7, "complex64": 2e-3, "complex128": 1e-7}
_LOOSE_CALLS = re.compile(r"linalg|fft|std|var|mean|prod|sum|cumsum|cumprod|matmul|dot|einsum|@|average|cov|"
                          r"corrcoef|convolve|correlate|interp|gradient|polyfit|polyval|trapezoid|unwrap")

#: the realization paths a program can be run down (see ``path``)
PATHS = ("default", "interpreter", "compiled", "disk", "single_op", "thread")


@dataclasses.dataclass
class Outcome:
    """What one run left: its names' values (host arrays), or the exception it raised."""

    values: dict
    error: BaseException | None = None


@dataclasses.dataclass
class Verdict:
    program: Program
    status: str  # "ok", "unsupported" or "mismatch"
    detail: str = ""
    path: str = "default"

    def report(self) -> str:
        return (f"{self.program.family} seed {self.program.seed} ({self.path} path): {self.detail}\n"
                f"--- reproducer ---\n{self.program.reproducer()}")


def _host(v):
    """A value the program bound, as NumPy data (arrays, scalars, tuples of them, dtypes, shapes)."""
    if isinstance(v, (list, tuple)):
        return type(v)(_host(x) for x in v) if not hasattr(v, "_fields") else tuple(_host(x) for x in v)
    if hasattr(v, "numpy") and callable(v.numpy) and not isinstance(v, onp.ndarray):
        return onp.asarray(v.numpy())
    if hasattr(v, "numpy_dtype"):  # a Nabla dtype
        return onp.dtype(v.numpy_dtype)
    return v


def _names(env: dict) -> dict:
    skip = ("xp", "onp")
    return {k: _host(v) for k, v in env.items() if not k.startswith("_") and k not in skip
            and not callable(v) and not isinstance(v, type(onp))}


def execute(program: Program, namespace) -> Outcome:
    env = {"xp": namespace, "onp": onp}
    with warnings.catch_warnings(), onp.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            exec(compile(program.source, f"<fuzz {program.family} {program.seed}>", "exec"), env)  # noqa: S102
        except Exception as e:  # noqa: BLE001 (the oracle's exception is part of the answer)
            return Outcome({}, e)
        try:
            return Outcome(_names(env))
        except Exception as e:  # noqa: BLE001 (reading a value back raised: Nabla's deferred error)
            return Outcome({}, e)


def _tolerance(dtype: onp.dtype, source: str) -> float:
    table = LOOSE if _LOOSE_CALLS.search(source) else RTOL
    return table.get(dtype.name, 0.0)


def differ(got, want, source: str, where: str = "") -> str | None:
    """Why ``got`` (Nabla's, on the host) is not ``want`` (NumPy's), or None when they agree."""
    if isinstance(want, (list, tuple)):
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            return f"{where}: {type(got).__name__} of {len(got) if isinstance(got, (list, tuple)) else '-'} " \
                   f"items, expected {type(want).__name__} of {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            why = differ(g, w, source, f"{where}[{i}]")
            if why:
                return why
        return None
    if isinstance(want, onp.dtype) or (isinstance(want, type) and issubclass(want, onp.generic)):
        return None if onp.dtype(got) == onp.dtype(want) else f"{where}: dtype {got}, expected {want}"
    if isinstance(want, (str, bytes)) or want is None:
        return None if got == want else f"{where}: {got!r}, expected {want!r}"
    w, g = onp.asarray(want), onp.asarray(got)
    if g.dtype != w.dtype:
        return f"{where}: dtype {g.dtype}, expected {w.dtype}"
    if g.shape != w.shape:
        return f"{where}: shape {g.shape}, expected {w.shape}"
    if w.dtype.kind in "biuMm" or w.size == 0:
        if onp.array_equal(g, w):
            return None
        bad = onp.argwhere(g != w)
        at = tuple(int(i) for i in bad[0]) if bad.size else ()
        return f"{where}: {len(bad)} of {w.size} elements differ, first at {at}: {g[at]!r}, expected {w[at]!r}"
    if w.dtype.kind not in "fc":
        return None if onp.array_equal(g, w) else f"{where}: values differ"
    nan_g, nan_w = onp.isnan(g), onp.isnan(w)
    if not onp.array_equal(nan_g, nan_w):
        return f"{where}: NaN at other places ({int(nan_g.sum())} vs {int(nan_w.sum())} expected)"
    finite = onp.isfinite(w)
    gi, wi = g[~finite & ~nan_w], w[~finite & ~nan_w]
    if w.dtype.kind == "c":
        # an infinite complex value's finite part is a sum like any other: compared within tolerance
        if not all(onp.array_equal(onp.isinf(p(gi)), onp.isinf(p(wi))) for p in (onp.real, onp.imag)):
            return f"{where}: infinities differ"
        keep = lambda z: onp.where(onp.isinf(z.real), 0, z.real) + 1j * onp.where(onp.isinf(z.imag), 0, z.imag)
        if not onp.array_equal(gi - keep(gi), wi - keep(wi)):
            return f"{where}: infinities differ"
        g, w, finite = onp.concatenate([g[finite], keep(gi)]), onp.concatenate([w[finite], keep(wi)]), Ellipsis
    elif not onp.array_equal(gi, wi):
        return f"{where}: infinities differ"
    rtol = _tolerance(w.dtype, source)
    gf, wf = g[finite].astype(onp.complex128 if w.dtype.kind == "c" else onp.float64), \
        w[finite].astype(onp.complex128 if w.dtype.kind == "c" else onp.float64)
    if not gf.size:
        return None
    scale = max(1.0, float(onp.max(onp.abs(wf))))
    err = onp.abs(gf - wf)
    worst = int(onp.argmax(err))
    if err[worst] > rtol * scale:
        return (f"{where}: off by {err[worst]:.3g} (tolerance {rtol * scale:.3g}) at flat {worst}: "
                f"{gf[worst]!r}, expected {wf[worst]!r}")
    return None


def compare(program: Program, ours: Outcome, oracle: Outcome, path: str = "default") -> Verdict:
    if oracle.error is not None:
        if ours.error is None:
            return Verdict(program, "mismatch", f"NumPy raised {type(oracle.error).__name__}: {oracle.error}; "
                                                f"Nabla did not", path)
        if isinstance(ours.error, NotImplementedError) or _same_class(ours.error, oracle.error):
            return Verdict(program, "ok", "", path)
        return Verdict(program, "mismatch", f"NumPy raised {type(oracle.error).__name__}, Nabla "
                                            f"{type(ours.error).__name__}: {ours.error}", path)
    if ours.error is not None:
        if isinstance(ours.error, NotImplementedError):
            return Verdict(program, "unsupported", f"{ours.error}", path)
        return Verdict(program, "mismatch", f"Nabla raised {type(ours.error).__name__}: {ours.error}", path)
    for name, want in oracle.values.items():
        if name not in ours.values:
            return Verdict(program, "mismatch", f"{name}: not bound", path)
        why = differ(ours.values[name], want, program.source, name)
        if why:
            return Verdict(program, "mismatch", why, path)
    return Verdict(program, "ok", "", path)


def _same_class(ours: BaseException, theirs: BaseException) -> bool:
    """NumPy's exception class, or one of its bases NumPy's classes derive from (an AxisError is
    a ValueError and an IndexError; a numpy.exceptions.DTypePromotionError a TypeError)."""
    kinds = (type(theirs),) + tuple(k for k in (ValueError, IndexError, TypeError) if isinstance(theirs, k))
    return isinstance(ours, kinds)


@contextlib.contextmanager
def path(name: str):
    """Realization down one path: ``default`` (the engine as a user meets it), ``interpreter``
    (MAX's eager interpreter, no fused kernel), ``compiled`` (every trace compiled to a model),
    ``disk`` (compiled models dropped from memory first, so they are read back from disk),
    ``single_op`` (the machine's single-op models where they exist), ``thread`` (the
    default, from a thread that is not the main one: see ``run``)."""
    import nabla as nb

    engine = nb.core.graph.GRAPH.engine
    saved = engine.policy, engine.fused_enabled, engine.single_op_models
    try:
        if name == "interpreter":
            engine.policy, engine.fused_enabled = "interpret", False
        elif name == "compiled":
            engine.policy = "compile"
        elif name == "single_op":
            engine.single_op_models = True
        elif name == "disk":  # compiled models read back from the disk cache, not kept in memory
            engine.policy = "compile"
            engine.drop_models()
        yield
    finally:
        engine.policy, engine.fused_enabled, engine.single_op_models = saved


def subject(program: Program):
    """The Nabla face the program runs on."""
    import importlib

    return importlib.import_module(f"nabla.{program.namespace}")


def run(program: Program, on: str = "default", oracle: Outcome | None = None) -> Verdict:
    fnp = subject(program)
    oracle = oracle or execute(program, onp)
    with path(on):
        if on == "thread":
            ours = call_in_thread(lambda: execute(program, fnp))
        else:
            ours = execute(program, fnp)
    verdict = compare(program, ours, oracle, on)
    if verdict.status == "mismatch" and amplified(program, ours, oracle):
        return Verdict(program, "amplified", verdict.detail, on)
    return verdict


def amplified(program: Program, ours: Outcome, oracle: Outcome) -> bool:
    """Whether a run's float mismatches are the program's conditioning, not an op's error: each line
    a mismatched value comes from, run by NumPy on the values Nabla's run gave that line's operands,
    gives the value Nabla's run gave it, within tolerance. One ulp of float32 ``exp`` (NumPy's own
    is not correctly rounded: 39% of float32 arguments give another last bit than float64's, rounded)
    under ``fmod`` of the large result, or one ulp of a complex64 product (NumPy's takes a fused
    multiply-add) under ``sin`` of it times 1000, moves a last value past any tolerance while every
    op agrees. A line whose operands or result a later line writes cannot be checked so: no."""
    if ours.error is not None or oracle.error is not None:
        return False
    bad = []
    for name, want in oracle.values.items():
        why = differ(ours.values[name], want, program.source, name) if name in ours.values else "missing"
        if why:
            if not _OFF_BY.search(why):
                return False
            bad.append(name)
    lines = program.lines
    reads = [set(_NAME.findall(line.partition(" = ")[2] if _ASSIGNED.match(line) else line)) for line in lines]
    writes = [{m.group(1)} if (m := _ASSIGNED.match(line)) else set(_NAME.findall(line)) for line in lines]
    wanted, checked = set(bad), []
    for k in range(len(lines) - 1, -1, -1):  # (the lines the mismatched values come from)
        if writes[k] & wanted:
            if not _ASSIGNED.match(lines[k]) or any((writes[k] | reads[k]) & writes[j] for j in range(k + 1, len(lines))):
                return False
            wanted = (wanted - writes[k]) | reads[k]
            checked.append(k)
    with warnings.catch_warnings(), onp.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for k in checked:
            (target,) = writes[k]
            theirs = {"xp": onp, "onp": onp, **{n: _copied(ours.values[n]) for n in reads[k] if n in ours.values}}
            try:
                exec(compile(lines[k], f"<line {k}>", "exec"), theirs)  # noqa: S102
            except Exception:  # noqa: BLE001 (NumPy raising on Nabla's operands: not a clean answer)
                return False
            if target not in ours.values or differ(ours.values[target], theirs[target], lines[k], target):
                return False
    return True


#: a mismatch of float values (not of an exception, a dtype, a shape or integers); a program's names;
#: a line that binds one name and writes nothing else
_OFF_BY = re.compile(r": (off by |NaN at other places|infinities differ)")
_NAME = re.compile(r"(?<![\w.])a\d+\b")
_ASSIGNED = re.compile(r"^(a\d+) = ")


def _copied(v):
    if isinstance(v, onp.ndarray):
        return v.copy()
    if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
        return type(v)(_copied(x) for x in v)
    return v


def _well_formed(lines) -> bool:
    """Whether every name a line reads was assigned by a line before it."""
    defined: set = set()
    for line in lines:
        target, _, expr = line.partition(" = ")
        if any(name not in defined for name in re.findall(r"(?<![\w.])a\d+\b", expr)):
            return False
        defined.add(target.strip())
    return True


def shrink(program: Program, on: str = "default", budget: int = 60) -> Program:
    """A smaller program that still mismatches: lines dropped, then sizes made smaller."""
    tries = 0

    def fails(p: Program) -> bool:
        nonlocal tries
        tries += 1
        if not _well_formed(p.lines):  # a line it needs was dropped
            return False
        oracle = execute(p, onp)
        if isinstance(oracle.error, (NameError, SyntaxError)):
            return False
        return run(p, on, oracle).status == "mismatch"

    best = program
    i = len(best.lines) - 2
    while i >= 0 and tries < budget:  # (the last line is what the program computes)
        candidate = dataclasses.replace(best, lines=best.lines[:i] + best.lines[i + 1:])
        if fails(candidate):
            best = candidate
        i -= 1
    smaller = sorted(set(SIZES) | {0, 3, 4, 5, 6})
    for idx, line in enumerate(list(best.lines)):
        for m in reversed(list(re.finditer(r"(?<![\w.])(\d{2,})(?![\w.])", line))):
            if tries >= budget:
                return best
            n = int(m.group(1))
            for s in smaller:
                if s >= n:
                    break
                new = line[:m.start(1)] + str(s) + line[m.end(1):]
                candidate = dataclasses.replace(best, lines=best.lines[:idx] + [new] + best.lines[idx + 1:])
                if fails(candidate):
                    best, line = candidate, new
                    break
                if tries >= budget:
                    return best
    return best
