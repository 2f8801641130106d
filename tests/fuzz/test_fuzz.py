"""The differential fuzzer's fixed seed set: every family against NumPy, then a sample down each
realization path. A failure prints the program, shrunk, as a self-contained reproducer."""

from __future__ import annotations

import numpy as onp
import pytest

from .differential import compare, execute, run, shrink
from .programs import FAMILIES, Program, generate

#: programs per family in the suite (the long mode runs thousands: see README.md)
SEEDS = range(6)


def _check(program: Program, on: str = "default") -> None:
    verdict = run(program, on)
    if verdict.status == "mismatch":
        small = shrink(program, on, budget=30)
        again = run(small, on)
        pytest.fail((again if again.status == "mismatch" else verdict).report())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("family", list(FAMILIES))
def test_family_against_numpy(family, seed):
    _check(generate(family, seed))


#: one-axis sizes where blocks, tiles, thread splits and the 4 KiB constant limit change
BOUNDARY_SIZES = (7, 512, 513, 1000, 1025, 4097, 65537, 1_000_000)


@pytest.mark.parametrize("n", BOUNDARY_SIZES)
def test_every_family_at_boundary_sizes(n):
    """The same short program at each boundary size: creation, integer and float chains,
    reductions, scans, sorting, indexing and a write through a view."""
    program = Program("boundary", n, [
        f"a = xp.arange({n})",
        "b = a * 7 % 13",
        f"f = xp.asarray(onp.random.default_rng({n}).standard_normal({n}).astype('float32'))",
        "g = xp.exp(-f * f / 2) * xp.cos(f) + 0.5",
        "s = (g.sum(), b.sum(), f.max(), xp.argmin(f), (f > 0).sum(), g.mean())",
        "c = (xp.cumsum(b), xp.sort(f)[::97], xp.argsort(f, kind='stable')[:5])",
        "i = (f[::-3], b[a % 5 == 0][-3:], f[[0, -1, len(f) // 2]])",
        "w = xp.array(f)",
        "w[::2] = 1.5",
        "u = xp.unique(b)",
    ])
    _check(program)


#: (family, seed) sampled for the other paths: what MAX's interpreter computes alone, what a thread
#: other than the main one gets, what the single-op models serve
PATH_SAMPLE = [(f, s) for f in FAMILIES for s in (100, 101)]


@pytest.mark.parametrize("on", ["interpreter", "thread", "single_op"])
@pytest.mark.parametrize("family,seed", PATH_SAMPLE)
def test_paths_against_numpy(family, seed, on):
    _check(generate(family, seed, big=False), on)


@pytest.mark.parametrize("family,seed", [("creation", 200), ("elementwise", 201)])
def test_compiled_path_against_numpy(family, seed):
    """Compiled models, then the same models read back from the disk cache."""
    program = generate(family, seed, big=False)
    _check(program, "compiled")
    _check(program, "disk")


def test_the_harness_sees_a_wrong_value():
    """A program whose Nabla run differs from NumPy's is reported, with the program in the report."""
    program = Program("creation", 0, ["a0 = xp.arange(1000) * 7", "a1 = a0 if xp is onp else a0 + 1"])
    verdict = compare(program, execute(program, __import__("nabla.numpy").numpy), execute(program, onp))
    assert verdict.status == "mismatch" and "a1" in verdict.detail and "xp.arange(1000)" in verdict.report()


#: float32 ``exp`` of these gives another last bit than NumPy's in some elements (neither is correctly
#: rounded), and ``fmod`` of ~1e7 by ~1 turns that ulp into a different remainder
_CONDITIONED = ["a0 = xp.asarray(onp.random.default_rng(3).standard_normal((1, 64)).astype('float32'))",
                "a1 = xp.asarray(onp.random.default_rng(0).standard_normal((1, 64)).astype('float32'))",
                "a2 = xp.exp((xp.square(a0) + 63) / 4)"]


def test_a_mismatch_of_conditioning_is_told_from_a_wrong_op():
    """Where every op agrees with NumPy's on the operands Nabla's run gave it, a last value may still
    differ (``fmod`` of an ``exp`` one ulp apart): counted as amplified. A line that is wrong
    itself keeps its mismatch, whatever conditioning follows it."""
    program = Program("x", 0, _CONDITIONED + ["a3 = xp.fmod(a2, a1)"])
    ours, oracle = execute(program, __import__("nabla.numpy").numpy), execute(program, onp)
    if compare(program, ours, oracle).status == "mismatch":
        assert run(program).status == "amplified"
    wrong = Program("x", 0, _CONDITIONED[:2] + ["a2 = xp.exp(a0) if xp is onp else xp.exp(a0) * 1.001",
                                                 "a3 = xp.fmod(a2 * 1e7, a1)"])
    assert run(wrong).status == "mismatch"


def test_the_harness_sees_a_wrong_dtype_and_a_missing_error():
    program = Program("x", 0, ["a0 = xp.ones(3, dtype='float32') if xp is onp else xp.ones(3)"])
    assert "dtype" in compare(program, execute(program, __import__("nabla.numpy").numpy),
                              execute(program, onp)).detail
    program = Program("x", 0, ["a0 = xp.ones(3)", "a1 = a0.reshape(4) if xp is onp else a0"])
    assert compare(program, execute(program, __import__("nabla.numpy").numpy),
                   execute(program, onp)).status == "mismatch"


def test_shrinking_keeps_the_failure_and_drops_the_rest():
    program = Program("x", 0, ["a0 = xp.arange(3)", "a1 = xp.arange(1000)",
                               "a2 = a1 * 2 if xp is onp else a1 * 3"])
    small = shrink(program)
    assert small.lines[-1] == program.lines[-1] and "a0 = xp.arange(3)" not in small.lines
    assert run(small).status == "mismatch" and "xp.arange(0)" not in small.source


def test_a_shrunk_program_never_reads_a_line_it_dropped():
    """NumPy raising at an early line and Nabla not (``round`` of bools to 2 decimals, once) left
    a reproducer whose last line read a dropped name: each candidate must assign what it reads."""
    program = Program("x", 0, ["a0 = xp.ones(3) > 0", "a1 = xp.round(a0, 2) if xp is onp else a0 * 1.0",
                               "a2 = xp.exp2(a1 / 8)", "a3 = xp.minimum(a2, 2)", "a4 = a3.sum()"])
    small = shrink(program)
    assigned = set()
    for line in small.lines:
        target, expr = line.split(" = ", 1)
        assert all(f"a{i}" in assigned for i in range(5) if f"a{i}" in expr.replace(target, "")), small.lines
        assigned.add(target)
