"""``argmax`` and ``argmin`` on the fused kernel: the first position of the largest (smallest) value,
a NaN's before any (NumPy's), over any axis, of every dtype family, with no model and no compile
(first sight on a cold machine waited for a single-op model's bundle). Values against NumPy."""

import numpy as np
import pytest

import nabla as nb
from nabla.core.at_once import SMALL_AT_ONCE
from nabla.core.graph import GRAPH

from .fused_paths import on_the_kernel, run

pytestmark = pytest.mark.usefixtures("fused_on")

SHAPES = [((7,), 0), ((3, 1025), 1), ((3, 1025), 0), ((70001,), 0), ((40, 3, 50), 1), ((2, 5, 1), 2)]
DTYPES = ["float64", "float32", "float16", "int64", "int8", "uint8", "bool"]


def _data(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) > 0.7
    if dtype.startswith("float"):
        return (rng.normal(size=shape) * 4).round(1).astype(dtype)  # (rounded: ties)
    return rng.integers(0, 9, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axis", SHAPES)
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions_run_fused_like_numpy(name, shape, axis, dtype):
    x = _data(shape, dtype, len(name) + len(shape))
    got, want = on_the_kernel(lambda m, x: getattr(m, name)(x, axis=axis), (x,))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_nans_come_first_and_ties_go_to_the_first(name):
    x = np.array([[1.0, 3.0, 3.0, np.nan, 5.0, np.nan], [2.0, 2.0, -1.0, -1.0, 7.0, 7.0],
                  [np.nan] * 6, [0.0, -0.0, 0.0, 1.0, -5.0, -5.0]])
    for axis in (0, 1):
        got, want = on_the_kernel(lambda m, x: getattr(m, name)(x, axis=axis), (x,))
        np.testing.assert_array_equal(got, want)
    got, want = on_the_kernel(lambda m, x: getattr(m, name)(x), (x,))  # (flattened)
    assert got == want


def test_kmeans_assignment_runs_in_fused_stages():
    """``argmin`` of squared distances to centers (a sum feeding it): the kernel's stages."""
    rng = np.random.default_rng(3)
    x, c = rng.normal(size=(500, 20)), rng.normal(size=(5, 20))
    got, want = on_the_kernel(lambda m, x, c: m.argmin(((x[:, None, :] - c[None, :, :]) ** 2).sum(-1), axis=1),
                              (x, c))
    np.testing.assert_array_equal(got, want)


def test_keepdims_and_a_computed_operand():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(30, 40))
    got, want = on_the_kernel(lambda m, x: m.argmax(m.sin(x) * x, axis=0, keepdims=True), (x,))
    np.testing.assert_array_equal(got, want)


def test_zeros_like_and_a_float_to_int_cast_run_alone_on_the_kernel():
    """Nodes a trace run node by node takes on the kernel alone (no single-op model asked for)."""
    from nabla.ops.elementwise import zeros_like_physical
    from nabla.runtime.fused_stages import fits_alone

    x = nb.asarray(np.linspace(-2, 2, 10_099))  # (more than a result at once: recorded)
    for t in (zeros_like_physical(x), nb.astype(x * 3, nb.int64)):
        v = t._impl._values[0]
        assert fits_alone(v.node, [v])
    engine = GRAPH.engine
    before = nb.engine_stats()
    np.testing.assert_array_equal(nb.astype(x * 3, nb.int64).numpy(), (np.linspace(-2, 2, 10_099) * 3).astype(np.int64))
    after = nb.engine_stats()
    assert after["fused"] > before["fused"] and after["interpreted"] == before["interpreted"]
    assert engine.fused_enabled


@pytest.mark.parametrize("r", [10, 1000, 1025, 40_000])
@pytest.mark.parametrize("axis", [-1, 0])
def test_a_reduced_line_is_the_same_whatever_lines_lie_beside_it(r, axis):
    """A row's (or column's) sum and mean do not depend on how many others are reduced with it or
    where it lies: SciPy's bootstrap compares a batched run with an unbatched one bit for bit."""
    rng = np.random.default_rng(r)
    lines = 300 if r < 5000 else 5
    a = rng.standard_normal((lines, r) if axis == -1 else (r, lines)) * 1e3
    few = a[:7] if axis == -1 else a[:, :7]
    for name in ("sum", "mean"):
        def f(x, name=name):
            return getattr(nb.array_api, name)(x * 1.0, axis=axis)
        (all_lines, ran), (some, _) = run(f, a), run(f, np.ascontiguousarray(few))
        assert ran
        np.testing.assert_array_equal(all_lines[:7], some)
        np.testing.assert_allclose(all_lines, getattr(np, name)(a, axis=axis), rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("dtype", ["float32", "float16", "complex64"])
def test_a_single_precision_mean_is_its_rounded_sum_over_the_count(dtype):
    """NumPy's float32 mean (float16's sums in float32): the sum in float32, inf past its range,
    over the count; SciPy's ``_xp_mean`` test asks for that inf."""
    big = np.finfo(np.float32).max
    cases = [np.array([big, big], dtype="float32"), np.full((3, 1000), big / 600, dtype="float32"),
             np.random.default_rng(5).normal(size=(4, 777)).astype("float32") * 1e3]
    if dtype == "complex64":  # (NumPy divides an overflowed complex sum as a complex: inf+nanj)
        cases = cases[2:]
    for x in cases:
        x = x.astype(dtype) if dtype != "float16" else np.clip(x, -6e4, 6e4).astype(dtype)
        for axis in (None, -1):
            got, want = on_the_kernel(lambda m, x: m.mean(x, axis=axis), (x,))
            np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
            np.testing.assert_allclose(got, want, rtol=2e-3 if dtype == "float16" else 2e-6)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("form", ["sum", "count_nonzero", "sum rows", "two tests"])
def test_a_count_of_a_float_test_is_one_stage(form, dtype, monkeypatch):
    """``(r < 0.5).sum()``: a whole array's sum of 2^18 elements or more reshapes it into rows first
    (``reduction.split_threshold``), and the count is seen through the reshape: one stage of 1 / 0
    counted in the data's registers, where the mask was a stage of its own and its bytes a second
    one. Values against NumPy."""
    from nabla.runtime import program

    stages = []
    schedule = program.schedule

    def counted(*args, **kwargs):
        plan = schedule(*args, **kwargs)
        if plan is not None:
            stages.append(plan.stages)
        return plan

    monkeypatch.setattr(program, "schedule", counted)
    forms = {"sum": lambda m, r: (r < 0.5).sum(), "count_nonzero": lambda m, r: m.count_nonzero(r >= 0.25),
             "sum rows": lambda m, r: (r.reshape(16, -1) > 0.5).sum(axis=1),
             "two tests": lambda m, r: m.count_nonzero(m.logical_and(0.3 <= r, r < 0.6))}
    r = np.random.default_rng(3).random((1 << 18) + (1 << 14)).astype(dtype)
    got, want = on_the_kernel(forms[form], (r,))
    np.testing.assert_array_equal(got, want)
    assert stages == [1]


SUM_SHAPES = [((5,), None), ((1000,), None), ((1_000_003,), None), ((300, 200), None), ((7, 40001), 1),
              ((2001, 3), 0), ((64, 64), 0), ((6, 3000, 7), 1), ((6, 300, 7), (0, 1)), ((6, 300, 7), (1, 2))]


@pytest.mark.parametrize("shape,axis", SUM_SHAPES)
@pytest.mark.parametrize("name,dtype", [(n, d) for n in ("sum", "mean", "sum_of_products", "prod")
                                        for d in ("float64", "float32", "float16") if (n, d) != ("prod", "float16")])
def test_float_sums_and_products_are_numpys_to_the_bit(name, dtype, shape, axis):
    """A float sum is NumPy's pairwise one over a row (its leaves of at most 128 in eight running sums,
    every addition in the data's dtype), one row after another over a middle axis; a product one
    factor after another: the same bits as NumPy's, a sum of products (its fast path) too."""
    rng = np.random.default_rng(len(shape) + len(name))
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    if name == "prod":
        x = (1 + x / 300).astype(dtype)
    y = (rng.standard_normal(shape)).astype(dtype)
    fns = {"sum": lambda m, x, y: m.sum(x, axis=axis), "mean": lambda m, x, y: m.mean(x, axis=axis),
           "sum_of_products": lambda m, x, y: m.sum(x * y, axis=axis), "prod": lambda m, x, y: m.prod(x, axis=axis)}
    got, want = on_the_kernel(fns[name], (x, y))
    np.testing.assert_array_equal(got, want)


def test_a_sum_of_negative_zeros_is_numpys_zero():
    got, want = on_the_kernel(lambda m, x: m.sum(x), (np.array([-0.0] * 3),))
    assert np.signbit(got) == np.signbit(want) and got == want


SCAN_SHAPES = [((7,), 0), ((10_000,), 0), ((1000, 10), 0), ((1000, 10), 1), ((4, 300, 3), 1)]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int16", "uint8"])
@pytest.mark.parametrize("shape,axis", SCAN_SHAPES)
@pytest.mark.parametrize("name", ["cumprod", "maximum", "minimum"])
def test_running_products_maxima_and_minima_are_numpys_scans(name, shape, axis, dtype):
    """``cumprod`` and ``multiply``/``maximum``/``minimum.accumulate`` are one scan stage each, taking
    element after element as NumPy's accumulate does: a float product rounded at each step (the same
    bits), NaN carried on, ints wrapping."""
    rng = np.random.default_rng(len(shape) + len(name))
    if dtype.startswith("float"):
        x = (1 + rng.standard_normal(shape) * 0.01 if name == "cumprod" else rng.standard_normal(shape)).astype(dtype)
        if name != "cumprod" and x.size > 20:
            x.flat[17] = np.nan
    else:
        x = rng.integers(1 if name == "cumprod" else 0, 4 if name == "cumprod" else 200, shape).astype(dtype)
    fn = (lambda m, v: m.cumprod(v, axis=axis)) if name == "cumprod" else \
        (lambda m, v: getattr(m, name).accumulate(v, axis=axis))
    got, want = on_the_kernel(fn, (x,))
    np.testing.assert_array_equal(got, want)
    if name != "cumprod" and x.size > SMALL_AT_ONCE:  # (recorded: smaller data is computed as it is made)
        import nabla.numpy as nnp
        from nabla.ops.scans import ScanOp
        assert isinstance(fn(nnp, nnp.asarray(x) * 1)._impl._values[0].node.op, ScanOp)  # (one op, not log2(n))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape,axis", [((1025,), None), ((100_003,), None), ((4_500_017,), None),
                                        ((3, 50_001), 1), ((40, 3001), -1), ((2, 2_500_001), 1), ((600, 1400), None)])
@pytest.mark.parametrize("name", ["sum", "mean", "sum_of_values", "std"])
def test_long_rows_sum_as_numpys_pairwise_split_bit_for_bit(name, shape, axis, dtype):
    """A sum of rows longer than a block: of the data itself (summed straight from memory) or of
    values a program computes (the split walked down to parts of a block, each computed there), a
    row's first parts over cores past the parallel threshold, rows over cores: NumPy's pairwise sum,
    bit for bit, in float32 too."""
    x = (np.random.default_rng(shape[-1]).standard_normal(shape) * 1e3).astype(dtype)
    if name == "sum_of_values":
        fn = lambda m, x: (m.sqrt(m.abs(x)) * 2.5 + x).sum(axis=axis)  # noqa: E731
    else:
        fn = lambda m, x: getattr(m, name)(x, axis=axis)  # noqa: E731
    got, want = on_the_kernel(fn, (x,))
    np.testing.assert_array_equal(got, want)
