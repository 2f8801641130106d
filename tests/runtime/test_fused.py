"""The fused first-sight kernel: which traces it takes, its values against NumPy (special values,
every opcode, both float dtypes, sizes across its blocks and tasks), and agreement with the
interpreter, bit for bit where the ops are exact."""

import numpy as np
import pytest

import nabla as nb
import nabla.array_api as xp
from nabla.core.graph import GRAPH
from nabla.runtime.fused_codes import ARG_REDUCE, BINARY_CODES, REDUCE_CODES, UNARY_CODES

from ..op_db import REFERENCE
from .fused_paths import on_the_kernel, run

SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.75, 1e-30, -1e30, np.inf, -np.inf, np.nan, 2.0, 1e3],
                   np.float64)


pytestmark = pytest.mark.usefixtures("fused_on", "recorded_small_ops")


# the float and boolean opcodes (the integer-only ones: tests/runtime/test_fused_integers.py)
_INT_ONLY = {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert", "bitwise_left_shift", "bitwise_right_shift"}
FLOAT_UNARY = sorted(set(UNARY_CODES) - _INT_ONLY - {"logical_not"})
FLOAT_BINARY = sorted(set(BINARY_CODES) - _INT_ONLY - {"logical_and", "logical_or", "logical_xor"})
# exactly rounded in IEEE arithmetic: both paths must give the same bits
EXACT = {"negative", "abs", "square", "reciprocal", "sqrt", "floor", "ceil", "trunc", "sign", "positive",
         "round", "add", "subtract", "multiply", "divide", "maximum", "minimum", "floor_divide", "remainder"}


#: binary opcodes that are not exactly rounded (a transcendental's error)
_ROUNDED_BINARY = {"pow", "atan2", "hypot", "logaddexp"}


def test_every_opcode_has_a_reference():
    assert set(UNARY_CODES) | set(BINARY_CODES) <= set(REFERENCE)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", FLOAT_UNARY)
def test_unary_special_values(name, dtype):
    a = SPECIAL.astype(dtype)
    op = getattr(nb, name)
    # a float result: keep the op's own value (comparisons feed a where, since a bool result is
    # not the kernel's); adding 0.5 makes the trace more than a single op
    if name in ("isnan", "isinf", "isfinite", "signbit"):
        fn, want = (lambda x: nb.astype(op(x), x.dtype) + 0.5), REFERENCE[name](a) + 0.5
    else:
        fn, want = (lambda x: op(x) + 0.5), REFERENCE[name](a) + dtype(0.5)
    with np.errstate(all="ignore"):
        want = want.astype(dtype)
        fused, ran_fused = run(fn, a)
        interp, _ = run(fn, a, fused=False)
    assert ran_fused
    # MAX's own float64 exp is good to ~1e-12 (the interpreter's too), sin/cos/tanh/log to ~1 ulp
    rtol = 2e-6 if dtype == np.float32 else 5e-12
    np.testing.assert_allclose(fused, want, rtol=rtol, atol=0, equal_nan=True)
    if name in EXACT:
        np.testing.assert_array_equal(fused.view(np.uint8), interp.view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", FLOAT_BINARY)
def test_binary_special_values(name, dtype):
    a = np.repeat(SPECIAL, SPECIAL.size).astype(dtype)
    b = np.tile(SPECIAL, SPECIAL.size).astype(dtype)
    op = getattr(nb, name)
    comparison = REFERENCE[name](a[:1], b[:1]).dtype == bool
    if comparison:
        fn = lambda x, y: nb.where(op(x, y), x, y)  # noqa: E731
        want = np.where(REFERENCE[name](a, b), a, b)
    else:
        fn = lambda x, y: op(x, y) * 1.0  # noqa: E731
        with np.errstate(all="ignore"):
            want = REFERENCE[name](a, b)
    with np.errstate(all="ignore"):
        fused, ran_fused = run(fn, a, b)
        interp, _ = run(fn, a, b, fused=False)
    assert ran_fused
    if name in _ROUNDED_BINARY:  # within an ulp or so of NumPy's (libm's) value, NaNs and limits exact
        rtol = 2e-6 if dtype == np.float32 else 5e-12
        np.testing.assert_allclose(fused, want.astype(dtype), rtol=rtol, atol=0, equal_nan=True)
        np.testing.assert_allclose(interp, want.astype(dtype), rtol=rtol, atol=0, equal_nan=True)
        return
    # (floor_divide of an infinity by a finite value or the reverse: the standard's, not NumPy's; tests/array_api)
    keep = np.isinf(a) == np.isinf(b) if name == "floor_divide" else np.ones(a.shape, bool)
    np.testing.assert_array_equal(fused[keep], want.astype(dtype)[keep])  # exact ops and comparisons
    if name == "nextafter":  # (MAX's kernels flush subnormal results, nextafter(0, y)'s)
        keep &= ~((want != 0) & (np.abs(want) < np.finfo(dtype).smallest_normal))
    np.testing.assert_array_equal(interp[keep], want.astype(dtype)[keep])  # (MAX's not_equal said NaN != x is False)
    if name in EXACT or comparison:
        np.testing.assert_array_equal(fused.view(np.uint8), interp.view(np.uint8))


def test_logical_ops_and_casts_of_comparisons():
    a = SPECIAL
    fn = lambda x: nb.astype(nb.logical_xor(x > 0, nb.logical_not(nb.isnan(x))), x.dtype) * 2.0 + nb.astype(nb.logical_or(x < -1.0, x > 2.0), x.dtype)  # noqa: E731
    want = np.logical_xor(a > 0, ~np.isnan(a)) * 2.0 + ((a < -1) | (a > 2))
    got, ran_fused = run(fn, a)
    assert ran_fused
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(set(REDUCE_CODES) - ARG_REDUCE))  # (positions: test_fused_reductions.py)
@pytest.mark.parametrize("n", [1, 7, 1024, 1025, 16 * 1024 + 3, 300_001])
def test_full_reductions_across_block_and_task_edges(name, n, dtype):
    a = np.random.default_rng(n).uniform(0.9, 1.1, n).astype(dtype)
    fn = lambda x: getattr(nb, name)(nb.sqrt(x) * 1.0001)  # noqa: E731
    got, ran_fused = run(fn, a)
    assert ran_fused and got.shape == ()
    # NumPy's, to the bit: a float sum is its pairwise one, a product one factor after another,
    # each step rounded to the data's dtype
    want = getattr(np, name)(np.sqrt(a) * dtype(1.0001))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["max", "min", "sum", "prod", "mean"])
def test_reductions_propagate_nan(name):
    a = np.arange(5000, dtype=np.float64)
    a[3333] = np.nan
    got, ran_fused = run(lambda x: getattr(nb, name)(x + 1.0), a)
    assert ran_fused and np.isnan(got)


@pytest.mark.parametrize("shape", [(1,), (1023,), (3, 700), (2, 3, 5000)])
def test_maps_across_block_and_task_edges_keep_shape(shape):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(shape), rng.standard_normal(shape)
    c = np.float64(0.25)
    fn = lambda x, y, z: nb.where(x > y, nb.exp(-x * x / 2) * nb.cos(y), nb.tanh(x - y)) + z  # noqa: E731
    got, ran_fused = run(fn, a, b, c)
    want = np.where(a > b, np.exp(-a * a / 2) * np.cos(b), np.tanh(a - b)) + c
    assert ran_fused and got.shape == shape
    np.testing.assert_allclose(got, want, rtol=5e-12, atol=1e-12)


@pytest.mark.parametrize("shapes", [
    [(1000, 200), (200,)],            # a row of statistics: (X - mu) / sd
    [(1000, 200), (1000, 1)],         # a column
    [(1000, 200), (1, 200), (1000, 1)],
    [(5, 4, 3), (4, 1)],              # the kept axes in the middle
    [(7, 2, 3, 11), (1, 3, 11)],
])
def test_inputs_broadcast_over_one_run_of_axes_fuse(shapes):
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal(sh) for sh in shapes]
    args = arrays + [np.ones(1)] * (3 - len(arrays))
    fn = lambda x, y, z: (x - y) / (x + y + 10.0) * z  # noqa: E731
    want = (args[0] - args[1]) / (args[0] + args[1] + 10.0) * args[2]
    got, ran_fused = run(fn, *args)
    assert ran_fused and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-15)
    got, ran_fused = run(lambda x, y, z: nb.sum(fn(x, y, z)), *args)
    assert ran_fused
    np.testing.assert_allclose(got, want.sum(), rtol=1e-12)


def test_reshapes_and_scalar_leaves_fuse():
    a = np.linspace(-1, 1, 24)
    got, ran_fused = run(lambda x, s: nb.reshape(nb.sin(x), (4, 6)) * s + 1.0, a, np.float64(3.0))
    assert ran_fused
    np.testing.assert_allclose(got, np.sin(a).reshape(4, 6) * 3.0 + 1.0, rtol=1e-14)


_LARGE_MATMULS = {  # (past MATMUL_PRODUCTS, rows: a structure of each test's own; the engine keeps a structure's route)
    "matmul": lambda rows: (lambda x: nb.exp(x @ nb.permute_dims(x, (1, 0))),
                            [np.random.default_rng(2).standard_normal((rows, 60))]),
    "int": lambda rows: (lambda x: nb.max(x @ nb.permute_dims(x, (1, 0)), axis=0),
                         [np.arange(rows * 60, dtype=np.int64).reshape(rows, 60) % 7]),
}


@pytest.mark.parametrize("case", sorted(_LARGE_MATMULS))
def test_a_large_matmul_leaves_the_program_where_its_model_is_on_the_machine(case, matmul_models):
    fn, arrays = _LARGE_MATMULS[case](80)
    interp, _ = run(fn, *arrays, fused=False)
    before = nb.engine_stats()["interpreted"]
    got, ran_fused = run(fn, *arrays)
    # (the kernel's part of the trace runs in a program, around the op it leaves; no model is
    # built here, so the interpreter runs it)
    assert nb.engine_stats()["interpreted"] > before
    np.testing.assert_allclose(got, interp, rtol=1e-15)


@pytest.mark.parametrize("case", sorted(_LARGE_MATMULS))
def test_a_large_matmul_runs_in_the_program_until_its_model_is_on_the_machine(case, monkeypatch):
    from nabla.runtime.first_sight import FirstSightPaths

    fn, arrays = _LARGE_MATMULS[case](81)
    interp, _ = run(fn, *arrays, fused=False)
    # (a machine without its model: an earlier test of this process may have compiled one)
    monkeypatch.setattr(FirstSightPaths, "model_ready", lambda self, engine, node: False)
    before = nb.engine_stats()["interpreted"]
    for _ in range(2):
        got, ran_fused = run(fn, *arrays)
        assert nb.engine_stats()["interpreted"] == before  # (a first run never waits on a model's compile)
        np.testing.assert_allclose(got, interp, rtol=1e-12)
    # its model built (in a first run's workers): the same structure is planned again, around it
    monkeypatch.setattr(FirstSightPaths, "model_ready", lambda self, engine, node: True)
    monkeypatch.setattr(type(GRAPH.engine), "single_op_model_known", lambda self, name: True)
    got, _ = run(fn, *arrays)
    assert nb.engine_stats()["interpreted"] > before
    np.testing.assert_allclose(got, interp, rtol=1e-15)


@pytest.mark.parametrize("kind", ["max", "min", "argmax", "argmin"])
@pytest.mark.parametrize("shape,axis", [((7,), None), ((40, 33), 0), ((40, 33), 1), ((5, 300, 4), 1)])
def test_uint64_order_reductions_fuse(kind, shape, axis):
    """max, min, argmax and argmin of uint64 in the integer family's int64 registers: each value's
    sign bit flipped first (unsigned order is signed order of ``x ^ 2**63``), a max or min flipped back."""
    x = np.random.default_rng(4).integers(0, 2 ** 64 - 1, shape, dtype=np.uint64, endpoint=True)
    x.flat[:4] = (2 ** 64 - 1, 0, 2 ** 63, 2 ** 63 - 1)
    got, want = on_the_kernel(
        lambda xp, v: getattr(xp, kind)(xp.maximum(v, v[..., ::-1]) // xp.uint64(3) * xp.uint64(2), axis=axis), [x])
    np.testing.assert_array_equal(got, want)


def test_float64_to_float16_cast_rounds_once():
    """A result cast from float64 to float16 is the store's, straight from float64 registers: one
    rounding, as NumPy's (through float32 a value just past a float16 midpoint would round twice
    and land on the midpoint's even neighbour); a sort's float16 result (sorted in float64) takes it."""
    rng = np.random.default_rng(15)
    h = rng.standard_normal(5000).astype(np.float16).astype(np.float64)
    half_ulp = np.spacing(h.astype(np.float16)).astype(np.float64) / 2
    x = np.concatenate([h + half_ulp * (1 + 1e-9), h + half_ulp * (1 - 1e-9), h + half_ulp,
                        [65519.0, 65520.0, -65520.0, 6e-8, 2.9e-8, np.nan, -np.inf]])
    with np.errstate(over="ignore"):
        got, want = on_the_kernel(lambda xp, v: v.astype(xp.float16), [x])
        np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))
        got, want = on_the_kernel(lambda xp, v: xp.sort(v.astype(xp.float16)), [x[:-2]])
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("axes", [(0, 2), (0, 2, 3), (1, 3), (0, 1, 3)])
@pytest.mark.parametrize("name", ["sum", "mean", "max", "var"])
def test_reductions_over_axes_apart_run_on_the_kernel(name, axes):
    """A reduction over axes apart (per-channel statistics of NCHW data) reduces the kept axes'
    permutation over one run of axes: on the kernel, with NumPy's shapes for either keepdims."""
    x = np.random.default_rng(14).standard_normal((4, 5, 6, 7))
    for keepdims in (False, True):
        got, want = on_the_kernel(lambda xp, v: getattr(xp, name)(xp.sin(v) * 2, axis=axes, keepdims=keepdims), [x])
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("case", ["leaf_in_two_layouts", "two_float_dtypes", "too_many_inputs", "gather_broadcast",
                                  "index_arithmetic", "count_through_casts", "scan_of_cast_work"])
def test_traces_no_one_program_takes_run_in_stages_on_the_kernel(case):
    """A trace of the kernel's ops that no one program takes (a leaf read in two layouts, two float
    dtypes, more inputs than data slots, integer index work feeding a float gather) runs as a
    program of several stages, each one program: nothing interpreted, NumPy's values."""
    rng = np.random.default_rng(2)
    m = rng.standard_normal((4, 3))
    v = rng.standard_normal(5)
    cases = {
        "leaf_in_two_layouts": (lambda x, y: x + y + nb.reshape(y, (4, 1)), [np.ones((4, 4)), m[:, 0]],
                                lambda x, y: x + y + y.reshape(4, 1)),
        "two_float_dtypes": (lambda x, y: nb.astype(x * 2.0, nb.float32) + y, [m, m.astype(np.float32)],
                             lambda x, y: (x * 2.0).astype(np.float32) + y),
        "too_many_inputs": (lambda *xs: sum(xs[1:], xs[0]), [m + k for k in range(9)], lambda *xs: sum(xs[1:], xs[0])),
        "gather_broadcast": (lambda x, i, w: xp.where(w > 0, 1.0 - xp.take(x, i, axis=0) / 2.0, x),
                             [v, np.array([3]), v], lambda x, i, w: np.where(w > 0, 1.0 - x[i] / 2.0, x)),
        "index_arithmetic": (lambda x, i: xp.take(x, xp.where(i < 0, i + 5, i), axis=0) * 2.0,
                             [v, np.array([-1, 2, -5, 0])], lambda x, i: x[np.where(i < 0, i + 5, i)] * 2.0),
        "count_through_casts": (lambda x: xp.sum(xp.astype(xp.astype(x > 0.1, xp.int32), xp.int64)) + 1, [v],
                                lambda x: (x > 0.1).astype(np.int32).astype(np.int64).sum() + 1),
        "scan_of_cast_work": (lambda y, w: xp.cumulative_sum(xp.astype(y, xp.float64) * w) - 1.0,
                              [np.array([1, 0, 1, 1, 0], np.int32), v],
                              lambda y, w: np.cumsum(y.astype(np.float64) * w) - 1.0),
    }
    fn, arrays, reference = cases[case]
    before = nb.engine_stats()
    got, _ = run(fn, *arrays)
    after = nb.engine_stats()
    assert after["interpreted"] == before["interpreted"] and after["compiles"] == before["compiles"]
    want = reference(*arrays)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-15)


def test_only_the_ops_the_kernel_lacks_are_interpreted(matmul_models):
    """In a trace with a matmul, the kernel computes its operands and what follows it: the
    interpreter sees the matmul (and the transpose of a realized operand) alone."""
    import nabla.array_api as xp

    rng = np.random.default_rng(11)
    a, mu = rng.standard_normal((300, 40)), rng.standard_normal(40)
    engine = GRAPH.engine
    seen = []
    interpret = engine._interpret

    def spy(entry, *args):
        seen.append(entry.op_names)
        return interpret(entry, *args)

    engine._interpret = spy
    try:
        x, m = nb.asarray(a), nb.asarray(mu)
        z = (x - m) * 0.5
        c = (z.T @ z) / 299.0
        got = float(c[3, 5]) + float(xp.sum(xp.exp(-c * c)))
    finally:
        engine._interpret = interpret
    zz = (a - mu) * 0.5
    cc = zz.T @ zz / 299.0
    np.testing.assert_allclose(got, cc[3, 5] + np.exp(-cc * cc).sum(), rtol=1e-12)
    assert seen and all(set(names) <= {"matmul", "permute_dims"} for names in seen)


def test_a_fused_structure_is_never_compiled(policy):
    policy("auto")
    before = nb.engine_stats()
    x = np.linspace(0, 1, 1000)
    for k in range(4):
        got, ran_fused = run(lambda t: nb.sum(nb.exp(-t * t / 2) * nb.cos(t)), x + k)
        assert ran_fused
        np.testing.assert_allclose(got, np.sum(np.exp(-(x + k) ** 2 / 2) * np.cos(x + k)), rtol=5e-12)
    nb.wait_for_compiles()
    after = nb.engine_stats()
    assert after["compiles"] == before["compiles"] and after["fused"] - before["fused"] == 4


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(set(REDUCE_CODES) - ARG_REDUCE))  # (positions: test_fused_reductions.py)
@pytest.mark.parametrize("shape,axes", [
    ((1000, 200), 0), ((1000, 200), 1), ((1000, 200), (0, 1)), ((7, 5, 3000), 1), ((7, 5, 3000), (1, 2)),
    ((3, 70000), 0), ((70000, 3), 1), ((5, 1, 4, 1), (1, 2)), ((40000, 13), 0), ((1, 1), 0), ((3, 1025), -1),
])
def test_axis_reductions_over_one_run_of_axes(name, shape, axes, dtype):
    a = np.random.default_rng(7).uniform(0.99, 1.01, shape).astype(dtype)
    for keepdims in (False, True):
        fn = lambda x: getattr(nb, name)(nb.sqrt(x) * 1.0001, axis=axes, keepdims=keepdims)  # noqa: E731
        got, ran_fused = run(fn, a)
        factors = (np.sqrt(a) * dtype(1.0001)).astype(np.float64)
        want = getattr(np, name)(factors, axis=axes, keepdims=keepdims).astype(dtype)
        assert ran_fused and got.shape == want.shape and got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=2e-5 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("name", ["max", "min", "sum", "mean", "prod"])
@pytest.mark.parametrize("fused", [True, False])
def test_axis_reductions_propagate_nan_down_both_paths(name, fused):
    a = np.arange(3000, dtype=np.float64).reshape(30, 100) / 3000
    a[7, 33] = np.nan
    for axis in (0, 1):
        got, _ = run(lambda x: getattr(nb, name)(x + 1.0, axis=axis), a, fused=fused)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(getattr(np, name)(a, axis=axis)))


def test_statistics_run_in_fused_stages():
    """Reductions that feed more work run as programs of their own, then the rest reads them."""
    import nabla.array_api as xp

    x = np.random.default_rng(3).standard_normal((1000, 200))
    y = x[:, 0] * 2.0
    cases = [
        (lambda X, y: (X - xp.mean(X, axis=0)) / xp.std(X, axis=0), (x - x.mean(0)) / x.std(0)),
        (lambda X, y: xp.max(xp.std(X, axis=0, correction=1)), x.std(0, ddof=1).max()),
        (lambda X, y: xp.sum(X * xp.reshape(y - xp.mean(y), (-1, 1)), axis=0),
         (x * (y - y.mean()).reshape(-1, 1)).sum(0)),
        (lambda X, y: xp.var(X, axis=1) + xp.mean(X, axis=1), x.var(1) + x.mean(1)),
        (lambda X, y: xp.sqrt(xp.sum(X * X, axis=1) / 200.0) * 2.0, np.sqrt((x * x).sum(1) / 200.0) * 2.0),
    ]
    for fn, want in cases:
        before = nb.engine_stats()
        got = fn(nb.asarray(x), nb.asarray(y)).numpy()
        after = nb.engine_stats()
        assert after["interpreted"] == before["interpreted"] and after["fused"] > before["fused"]
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-12)


def test_several_results_each_get_a_program():
    a = np.random.default_rng(5).standard_normal((300, 40))
    x = nb.asarray(a)
    before = nb.engine_stats()
    s = nb.sum(nb.exp(x), axis=0)
    m = nb.max(s)  # both s and m are pending and alive: one realization, two results
    np.testing.assert_allclose(m.numpy(), np.exp(a).sum(0).max(), rtol=1e-11)  # exp to ~1e-12
    np.testing.assert_allclose(s.numpy(), np.exp(a).sum(0), rtol=1e-11)
    assert nb.engine_stats()["interpreted"] == before["interpreted"]


def test_one_structure_at_several_shapes_gets_a_plan_per_shape():
    """A key with symbolic dims serves many shapes; a plan holds sizes (broadcast layouts,
    reduction extents), so each shape gets its own."""
    rng = np.random.default_rng(6)
    for shape in [(6, 4), (3, 5), (10, 7), (6, 4)]:
        a, r = rng.standard_normal(shape), rng.standard_normal(shape[1])
        got, ran_fused = run(lambda x, y: (x - y) * 2.0, a, r)
        assert ran_fused
        np.testing.assert_allclose(got, (a - r) * 2.0, rtol=1e-15)
        got, ran_fused = run(lambda x: nb.sum(x * 2.0, axis=0), a)
        assert ran_fused
        np.testing.assert_allclose(got, (a * 2.0).sum(0), rtol=1e-14)


def test_smaller_intermediates_spread_like_their_results():
    rng = np.random.default_rng(8)
    a, row, col = rng.standard_normal((50, 30)), rng.standard_normal(30), rng.standard_normal(50)
    fn = lambda x, r, c: x * nb.exp(r) + nb.reshape(nb.sin(c) * 2.0, (50, 1)) - nb.sqrt(nb.abs(r))  # noqa: E731
    got, ran_fused = run(fn, a, row, col)
    want = a * np.exp(row) + (np.sin(col) * 2.0).reshape(50, 1) - np.sqrt(np.abs(row))
    assert ran_fused
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-10)  # exp and sin good to ~1e-12


@pytest.mark.parametrize("case", ["column", "steps", "reversed", "transpose", "broadcast_two_runs", "element",
                                  "view_of_view", "reduce_a_view", "transpose_of_computed", "rows_and_columns"])
def test_views_of_inputs_are_strided_loads(case):
    """Basic slices, transposes and broadcasts of an input are read through strided layouts."""
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal((40, 30)), rng.standard_normal((5, 1, 3))
    c = rng.standard_normal((5, 4, 3))
    cases = {
        "column": (lambda x: nb.sin(x[:, 3]) * 2.0, [a], lambda x: np.sin(x[:, 3]) * 2.0),
        "steps": (lambda x: x[1::7, ::3] * x[1::7, 2::3], [a], lambda x: x[1::7, ::3] * x[1::7, 2::3]),
        "reversed": (lambda x: x[::-1, ::-2] + 1.0, [a], lambda x: x[::-1, ::-2] + 1.0),
        "transpose": (lambda x: nb.permute_dims(x, (1, 0)) * 3.0 + x[0], [a[:30]],
                      lambda x: x.T * 3.0 + x[0]),
        "broadcast_two_runs": (lambda x, y: x + y, [c, b], lambda x, y: x + y),
        "element": (lambda x: x * x[3, 4], [a], lambda x: x * x[3, 4]),
        "view_of_view": (lambda x: nb.reshape(x[2:6], (-1,))[5::4] - x[::2][:30, 5::4].T[0, 1], [a],
                         lambda x: x[2:6].reshape(-1)[5::4] - x[::2][:30, 5::4].T[0, 1]),
        "reduce_a_view": (lambda x: nb.sum(nb.permute_dims(x[:, ::2], (1, 0)) ** 2, axis=1), [a],
                          lambda x: (x[:, ::2].T ** 2).sum(1)),
        "transpose_of_computed": (lambda x: nb.permute_dims(nb.sin(x), (1, 0)) + 1.0, [a],
                                  lambda x: np.sin(x).T + 1.0),
        "rows_and_columns": (lambda x: nb.max(x[:10] - nb.reshape(x[:10, 0], (10, 1)), axis=0), [a],
                             lambda x: (x[:10] - x[:10, :1]).max(0)),
    }
    fn, arrays, ref = cases[case]
    before = nb.engine_stats()
    got, ran_fused = run(fn, *arrays)
    assert ran_fused and nb.engine_stats()["interpreted"] == before["interpreted"]
    want = ref(*arrays)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_counts_of_true_values_fuse_to_int64(dtype):
    import nabla.array_api as xp

    a = np.random.default_rng(10).standard_normal((300, 70)).astype(dtype)
    a[3, 4] = np.nan
    cases = [
        (lambda x: xp.sum(xp.abs(x) > 0.5), lambda a: (np.abs(a) > 0.5).sum()),
        (lambda x: xp.sum(xp.isnan(x)), lambda a: np.isnan(a).sum()),
        (lambda x: xp.sum(x[:, ::3] > 0, axis=0), lambda a: (a[:, ::3] > 0).sum(0)),
        (lambda x: xp.sum(xp.logical_and(x > -1, x < 1), axis=1, keepdims=True),
         lambda a: ((a > -1) & (a < 1)).sum(1, keepdims=True)),
    ]
    for fn, ref in cases:
        got, ran_fused = run(fn, a)
        want = ref(a)
        assert ran_fused and got.dtype == np.int64 and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape,axis", [((5000,), 0), ((40, 3000), 1), ((3000, 40), 0), ((4, 700, 5), 1),
                                        ((6, 2000), 0), ((1, 1), 0)])
def test_running_sums_fuse(shape, axis, dtype):
    """Running sums on the fused kernel, bit for bit NumPy's: each partial sum rounded to the
    result's dtype (float16's added in float32 and rounded, as NumPy's float16 loop)."""
    a = np.random.default_rng(12).uniform(-1, 1, shape).astype(dtype)
    for reverse in (False, True):
        def fn(x):
            from nabla.ops.scans import cumsum_op

            return cumsum_op(x * 2.0, axis=axis, reverse=reverse) + 1.0
        got, ran_fused = run(fn, a)
        v = a * dtype(2.0)
        want = (np.flip(np.cumsum(np.flip(v, axis), axis), axis) if reverse else np.cumsum(v, axis)) + dtype(1.0)
        assert ran_fused and got.shape == shape and got.dtype == dtype
        np.testing.assert_array_equal(got, want)
    if dtype is not np.float16:  # (a float16 sum of the running sums passes its range)
        got, ran_fused = run(lambda x: nb.sum(xp.cumulative_sum(xp.reshape(x, (-1,)))), a)
        assert ran_fused
        np.testing.assert_allclose(got, np.cumsum(a.reshape(-1)).astype(np.float64).sum(),
                                   rtol=1e-4 if dtype == np.float32 else 1e-11)


@pytest.mark.parametrize("axis", [0, 1])
def test_running_sum_of_a_cast_sums_the_cast_values(axis):
    """A running sum's input cast (float32 to float16) is made element by element before the sum,
    not by the store after it: NumPy adds the float16 values."""
    x = np.random.default_rng(13).standard_normal((40, 30)).astype(np.float32)
    got, want = on_the_kernel(lambda xp, v: xp.cumsum(v.astype(xp.float16), axis=axis), [x])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", ["plain", "vector_matrix", "transposed", "batched_broadcast", "same_input",
                                  "column_slice", "one_column"])
def test_small_matmuls_are_products_reduced_over_the_contraction(case, dtype):
    """A small matmul of (views of) inputs runs on the fused reduce model: no compile, no interpreter
    (a cold machine's first sight otherwise compiles MAX's matmul kernels: 38 s measured)."""
    rng = np.random.default_rng(21)
    a, b = rng.standard_normal((6, 5)).astype(dtype), rng.standard_normal((5, 4)).astype(dtype)
    c, d = rng.standard_normal((3, 1, 6, 5)).astype(dtype), rng.standard_normal((2, 5, 4)).astype(dtype)
    cases = {
        "plain": (lambda x, y: x @ y, [a, b], lambda: a @ b),
        "vector_matrix": (lambda x, y: x[0] @ y, [a, b], lambda: a[0] @ b),
        "transposed": (lambda x, y: nb.permute_dims(x, (1, 0)) @ x, [a, b], lambda: a.T @ a),
        "batched_broadcast": (lambda x, y: x @ y, [c, d], lambda: c @ d),
        "same_input": (lambda x, y: x @ nb.permute_dims(x, (1, 0)), [a, b], lambda: a @ a.T),
        "column_slice": (lambda x, y: x[::2, 1:] @ y[1:, ::3], [a, b], lambda: a[::2, 1:] @ b[1:, ::3]),
        "one_column": (lambda x, y: x @ y[:, 2:3], [a, b], lambda: a @ b[:, 2:3]),
    }
    fn, arrays, ref = cases[case]
    before = nb.engine_stats()
    got, ran_fused = run(fn, *arrays)
    after = nb.engine_stats()
    assert ran_fused and after["interpreted"] == before["interpreted"] and after["compiles"] == before["compiles"]
    want = ref()
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-13, atol=1e-6)


def test_fills_and_physical_broadcasts_run_fused():
    """``full`` (``ones``, ``zeros``) and vmap's physical broadcasts are programs too: the demo's
    traces need no compile once the fused models exist."""
    before = nb.engine_stats()
    filled = nb.full((3, 7), 2.5).numpy()
    scaled = (nb.ones((7, 3)) * 0.5).numpy()
    after = nb.engine_stats()
    assert after["fused"] - before["fused"] == 2 and after["compiles"] == before["compiles"]
    np.testing.assert_array_equal(filled, np.full((3, 7), 2.5, np.float32))
    np.testing.assert_array_equal(scaled, np.full((7, 3), 0.5, np.float32))
    x = np.random.default_rng(4).standard_normal((4, 3)).astype(np.float32)
    w = nb.asarray(np.linspace(-1, 1, 3).astype(np.float32))
    per_example = nb.vmap(nb.grad(lambda w, xi: nb.tanh(xi @ w)), in_axes=(None, 0))(w, nb.asarray(x)).numpy()
    want = (1 - np.tanh(x @ np.linspace(-1, 1, 3).astype(np.float32)) ** 2)[:, None] * x
    np.testing.assert_allclose(per_example, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int32, np.int8])  # (unsigned sums are uint64)
def test_empty_results_and_reductions_over_nothing_run_no_interpreter(dtype):
    """An empty result is its shape (no kernel runs); a sum or product over an empty axis is a
    program of one constant: the identity, as NumPy gives (float16's in the coded float family)."""
    a = np.zeros((3, 0, 2), dtype)
    before, compiles = nb.engine_stats()["interpreted"], nb.engine_stats()["compiles"]
    x = nb.asarray(a)
    empty = (x * 2 + 1).numpy()
    assert empty.shape == (3, 0, 2) and empty.dtype == a.dtype
    for name in ("sum", "prod"):
        got = getattr(nb, name)(x + 1, axis=1).numpy()
        want = getattr(np, name)(a + 1, axis=1)
        np.testing.assert_array_equal(got, want.astype(got.dtype))
        assert got.shape == (3, 2)
    assert nb.engine_stats()["interpreted"] == before and nb.engine_stats()["compiles"] == compiles


@pytest.mark.parametrize("case", ["row", "rows", "row_reshaped", "element", "column", "stepped"])
def test_contiguous_views_of_realized_arrays_copy_nothing(case):
    """A result that is a contiguous run of one realized input (``res[i]``, ``X[2:4]``, reshapes of
    them) is that input's buffer viewed; other views (a column, a step) are kernel loads. Both give
    NumPy's values, and neither meets the interpreter."""
    a = np.arange(60, dtype=np.int32).reshape(5, 3, 4)
    index, want = {"row": ((2,), a[2]), "rows": ((slice(1, 3),), a[1:3]), "row_reshaped": ((3,), a[3].reshape(12)),
                   "element": ((4, 2, 1), a[4, 2, 1]), "column": ((slice(None), 1), a[:, 1]),
                   "stepped": ((slice(None, None, 2),), a[::2])}[case]
    x = nb.asarray(a)
    x.numpy()
    before = nb.engine_stats()["interpreted"]
    y = x[index]
    if case == "row_reshaped":
        y = nb.reshape(y, (12,))
    np.testing.assert_array_equal(y.numpy(), want)
    assert nb.engine_stats()["interpreted"] == before


@pytest.mark.parametrize("case", ["scalars", "columns", "rows_int", "too_many", "concat", "cross", "cross_int",
                                  "wide_inputs"])
def test_stacks_of_computed_parts_fuse(case):
    """``stack`` of full-size parts is one program: the index along the new axis picks each
    element's part; more parts than registers, or a concat of wider parts, run elsewhere."""
    rng = np.random.default_rng(9)
    f = rng.standard_normal((4, 5))
    i = rng.integers(-50, 50, (3, 4)).astype(np.int32)
    z = np.array([[1.5, -0.0, 2.0], [-0.0, np.nan, 3.0], [0.25, 4.0, -1.0]])
    fn, arrays, want, fuses = {
        # (element picks of a realized array are host reads: four inputs, the kernel's data slots)
        "scalars": (lambda x: xp.stack([x[0, 1] * x[1, 2], x[2, 0] + 1.0, -x[3, 4]]), [f],
                    np.stack([f[0, 1] * f[1, 2], f[2, 0] + 1.0, -f[3, 4]]), True),
        "columns": (lambda x: xp.stack([x[:, 0] * 2.0, x[:, 1], nb.exp(x[:, 2])], axis=1), [f],
                    np.stack([f[:, 0] * 2.0, f[:, 1], np.exp(f[:, 2])], axis=1), True),
        "rows_int": (lambda x: xp.stack([x[0] * x[1], x[2] - x[1]]), [i], np.stack([i[0] * i[1], i[2] - i[1]]), True),
        "too_many": (lambda x: xp.stack([x[:, k] + 1.0 for k in range(5)] * 2), [f],
                     np.stack([f[:, k] + 1.0 for k in range(5)] * 2), False),
        "concat": (lambda x: xp.concat([x[:2] * 2.0, x[2:] + 1.0]), [f], np.concatenate([f[:2] * 2.0, f[2:] + 1.0]),
                   False),
        # six picked elements, more than the data slots: read into the constants per run (a -0.0
        # and a NaN among them: their bits, not their values, decide what changes)
        "cross": (_cross, [z[1], z[::-1][1].copy()], _cross(z[1], z[::-1][1]), True),
        "cross_int": (_cross, [i[0, :3], i[2, 1:] + 7], _cross(i[0, :3], i[2, 1:] + 7), True),
        "wide_inputs": (lambda *t: sum(t[1:], t[0]), [f[k] for k in range(4)] + [f[0, :1]],
                        sum([f[k] for k in range(1, 4)] + [f[0, :1]], f[0]), True),
    }[case]
    got, whole = run(lambda *t: fn(*t) * 1, *arrays)
    np.testing.assert_allclose(got, want, rtol=1e-11)  # (the kernel's float64 exp: ~1e-12)
    assert got.dtype == want.dtype
    if fuses:
        engine = GRAPH.engine
        before = nb.engine_stats()
        fn(*[nb.asarray(a) for a in arrays]).numpy()
        after = nb.engine_stats()
        assert after["fused"] - before["fused"] == 1 and after["interpreted"] == before["interpreted"], engine
        if case == "cross":  # the same plan, other picked values: each run reads its own
            other = [np.where(np.isnan(a), -0.0, a[::-1]) for a in arrays]
            got = fn(*[nb.asarray(a) for a in other]).numpy()
            np.testing.assert_array_equal(np.signbit(got), np.signbit(_cross(*other)))
            np.testing.assert_allclose(got, _cross(*other), rtol=1e-15)


def _cross(a, b):
    """The cross product as array-api-tests' element check writes it (for either namespace)."""
    stack = xp.stack if isinstance(a, nb.Tensor) else np.stack
    return stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def test_float_checks_of_masks_run_fused():
    """What array-api-tests' ``assert_array_elements`` asks of float results: NaN masks compared,
    the signs of zeros (``signbit``, masks combined with ``&`` and ``~``), ``all`` of each: a count
    of float data tested in the reduction's store, one program. (A mask that stays alive as a tensor
    of its own is a bool result of float data, which the kernel does not write: it runs elsewhere.)"""
    out = np.array([0.0, -0.0, np.nan, 1.5, -2.0, np.inf])
    x, y = nb.asarray(out), nb.asarray(out.copy())
    before = nb.engine_stats()
    same_nans = bool(xp.all(xp.isnan(x) == xp.isnan(y)))
    same_positive_zeros = bool(xp.all(((x == 0) & ~xp.signbit(x)) == ((y == 0) & ~xp.signbit(y))))
    mixed = bool(xp.all(((x == 0) & xp.signbit(x)) == ((y == 0) & ~xp.signbit(y))))  # -0.0 against +0.0
    after = nb.engine_stats()
    assert same_nans and same_positive_zeros and not mixed
    assert after["interpreted"] == before["interpreted"]
    assert after["fused"] - before["fused"] == 3


@pytest.mark.parametrize("n", [3, 100_000])
def test_denormal_results_are_numpys(n):
    """NumPy keeps denormals; MAX's worker threads flush them to zero (FTZ and DAZ set), and the
    fused kernel's tasks run there (n = 100,000: several tasks) or on the calling thread (n = 3):
    every task keeps them, so the products are NumPy's bit for bit (SciPy's tanh-sinh abscissae
    reach 1e-310)."""
    a = np.full(n, -3.12953434e-288)
    b = np.full(n, -7.1591253e-26)
    fused, ran_fused = run(lambda x, y: x * y, a, b)
    assert ran_fused
    np.testing.assert_array_equal(fused.view(np.uint64), (a * b).view(np.uint64))
    tiny = np.full(n, 1e-310)
    halves, _ = run(lambda x, y: x * y, tiny, np.full(n, 0.5))
    np.testing.assert_array_equal(halves.view(np.uint64), (tiny * 0.5).view(np.uint64))


def test_a_staged_read_leaves_unrelated_pending_work_pending():
    """``sum(a - mean(a))`` is a reduction feeding more work (a program of two stages, run in one
    call): read while other pending work is alive, it runs alone and the other work stays pending;
    so does ``all(isnan(a) == isnan(b))``, a count tested in one stage."""
    a = nb.asarray(np.array([1.0, np.nan, 3.0]))
    b = nb.asarray(np.array([2.0, np.nan, 4.0]))
    c = nb.asarray(np.array([1.0, 2.5, 4.0]))
    other = nb.exp(nb.asarray(np.arange(4.0)))  # pending, shares nothing with the reads
    before = nb.engine_stats()
    same = bool(xp.all(xp.isnan(a) == xp.isnan(b)))  # (not inside an assert: pytest's rewriting would
    middle = nb.engine_stats()                        # keep the masks alive, and they share the read's work)
    centered = float(xp.sum(c - xp.mean(c)))
    after = nb.engine_stats()
    assert same and centered == 0.0 and not other._impl.is_realized
    assert middle["fused"] - before["fused"] == 1 and after["fused"] - middle["fused"] == 1
    assert after["interpreted"] == before["interpreted"]
    np.testing.assert_allclose(other.numpy(), np.exp(np.arange(4.0)))


@pytest.mark.parametrize("name", ["any", "all"])
def test_any_and_all_of_float_data_are_one_program(name):
    """A full ``any``/``all`` of a float mask is the count model's program tested in its store (one
    int64 1 / 0, read as a bool); along an axis it is a count and its test (float data's count
    is int64, several of them are not one bool each): two stages of one program, one call."""
    a = np.array([[0.5, np.nan, -0.0], [2.0, 3.0, 4.0]])
    x = nb.asarray(a)
    for axis, runs in ((None, 1), (1, 1)):
        before = nb.engine_stats()
        got = getattr(xp, name)(xp.isnan(x) | (x > 1.0), axis=axis).numpy()
        after = nb.engine_stats()
        np.testing.assert_array_equal(got, getattr(np, name)(np.isnan(a) | (a > 1.0), axis=axis))
        assert after["fused"] - before["fused"] == runs and after["interpreted"] == before["interpreted"]


def test_a_tested_count_among_several_results_is_one_program():
    """Realized with other results that share its work (``d`` and ``all(d == b)``, as an element
    check holds both), each result is a program of its own and the tested count is one of them."""
    from nabla.core.graph import GRAPH

    a, b = np.arange(6.0), np.arange(6.0) * 2 + 1
    x, y = nb.asarray(a), nb.asarray(b)
    d = x * 2.0 + 1.0
    e = xp.all(d == y)
    before = nb.engine_stats()
    GRAPH.evaluate()
    after = nb.engine_stats()
    assert d._impl.is_realized and e._impl.is_realized and bool(e)
    np.testing.assert_array_equal(d.numpy(), a * 2 + 1)
    assert after["fused"] - before["fused"] == 1 and after["interpreted"] == before["interpreted"]


def test_a_joint_run_leaves_views_of_realized_data_pending():
    """A read realizes the other live pending work with it, but not views of realized data (an
    element check's slices of the stacks it compares): whatever reads them computes them inside
    its own program, where realizing each was a run of its own."""
    a = np.arange(12.0).reshape(3, 4)
    x = nb.asarray(a)
    x.numpy()
    view = nb.permute_dims(x[1:, ::2], (1, 0))  # pending: a view of realized data
    d = view * 2.0 + 1.0  # pending: computed, and shared by the read below
    before = nb.engine_stats()
    same = bool(xp.all(d == view * 2.0 + 1.0))
    after = nb.engine_stats()
    assert same and d._impl.is_realized and not view._impl.is_realized
    assert after["fused"] - before["fused"] == 1  # d and the tested count: two stages of one program
    np.testing.assert_array_equal(view.numpy(), a[1:, ::2].T)


# float work whose inputs or result are of other dtypes (a comparison's bool result, casts, an
# integer or bool input): the coded float family, float registers reading and writing dtype codes;
# a map of float data to bools the float family's, its values stored as bytes
MIXED = {
    "band": lambda m, x, i, b, y: m.logical_and(0.25 <= x, x < 1.5),
    "not_of_compare": lambda m, x, i, b, y: ~(x != x[..., ::-1]),
    "broadcast_compare": lambda m, x, i, b, y: x[..., :5, None] < x[..., None, :5],
    "float32_band": lambda m, x, i, b, y: (y > -0.5) | (y == y[..., :1]),
    "greater": lambda m, x, i, b, y: x > 0.25,
    "isnan": lambda m, x, i, b, y: m.isnan(m.sqrt(x)),
    "isfinite": lambda m, x, i, b, y: m.isfinite(1.0 / x),
    "where_mask": lambda m, x, i, b, y: m.where(b, x, 2.0 * x),
    "where_compare": lambda m, x, i, b, y: m.where(x > 0, x, 0.0),
    "int_to_float": lambda m, x, i, b, y: i.astype(m.float64) * 0.5,
    "int_plus_float": lambda m, x, i, b, y: i + x,
    "int_against_float": lambda m, x, i, b, y: i > 2.5,
    "float_to_int": lambda m, x, i, b, y: (x * 10).astype(m.int64),
    "float_to_int8": lambda m, x, i, b, y: (x * 10).astype(m.int8),
    "float_to_bool": lambda m, x, i, b, y: m.floor(x).astype(bool),
    "bool_to_float": lambda m, x, i, b, y: b.astype(m.float64) - x,
    "float32_to_64": lambda m, x, i, b, y: y.astype(m.float64) + x,
    "float64_to_32": lambda m, x, i, b, y: (x * 3).astype(m.float32),
    "float32_compare": lambda m, x, i, b, y: y < 0.5,
    "sum_of_where": lambda m, x, i, b, y: m.where(x > 0, x, 0.0).sum(axis=-1),
    "mean_of_ints": lambda m, x, i, b, y: m.mean(i, axis=-1),
}


@pytest.mark.parametrize("shape", [(7,), (3, 1025), (70001,)])
@pytest.mark.parametrize("name", sorted(MIXED))
def test_mixed_dtypes_run_fused_like_numpy(name, shape):
    rng = np.random.default_rng(len(name))
    x = rng.normal(size=shape) * 3
    x.flat[::11] = np.nan
    data = (x, rng.integers(-50, 50, size=shape), rng.normal(size=shape) > 0.3, x.astype(np.float32))
    got, want = on_the_kernel(MIXED[name], data)
    if name.startswith(("mean", "sum")):  # (summed in another order)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    elif name in ("float_to_int", "float_to_int8"):  # (NaN's cast is undefined in C and NumPy)
        np.testing.assert_array_equal(got[~np.isnan(x)], want[~np.isnan(x)])
    else:
        np.testing.assert_array_equal(got, want)


def test_float_data_to_bools_is_the_float_family():
    """A comparison of float data is a float program whose map stores bytes (its header's eighth
    field); one with a bool input stays the coded family's. Stored through a slice's layout too."""
    from nabla.runtime.fused import plan
    from nabla.runtime.program_kernel import family

    x = np.linspace(-2, 2, 3001)
    x[::7] = np.nan
    for dtype, fam in ((np.float64, 1), (np.float32, 0)):
        a = nb.asarray(x.astype(dtype))
        t = (a > 0.5) | (a < -1.0)
        traced = GRAPH.engine.trace([t._impl._values[0]])
        p = plan(traced.order, traced.leaves, [t._impl._values[0]], traced.node_ids, traced.leaf_ids).program
        assert family(p) == fam and p.program[7] == 1 and p.out_dtype == nb.bool
        np.testing.assert_array_equal(t.numpy(), (x.astype(dtype) > 0.5) | (x.astype(dtype) < -1.0))
    b = nb.asarray(x > 0)
    t = b & (nb.asarray(x) < 1.0)
    traced = GRAPH.engine.trace([t._impl._values[0]])
    p = plan(traced.order, traced.leaves, [t._impl._values[0]], traced.node_ids, traced.leaf_ids).program
    assert family(p) == 4 and p.program[7] == 0
    import nabla.numpy as nnp

    m, mm = np.zeros((40, 75), bool), nnp.zeros((40, 75), bool)
    y = x[:3000].reshape(40, 75)
    m[::3, 1::2] = y[::3, 1::2] > 0
    mm[::3, 1::2] = nnp.asarray(y)[::3, 1::2] > 0
    np.testing.assert_array_equal(np.asarray(mm), m)


# ``take`` along a view's first axis (what fancy indexing lowers to: negatives wrapped, several
# arrays raveled into one position): a gather from the input's rows, in the same program
GATHERS = {
    "positions": (lambda m, x, i: x.ravel()[i], "float"),
    "rows": (lambda m, x, i: x[i % x.shape[0]] * 2.0 - 1.0, "float"),
    "two_arrays": (lambda m, x, i: x[i % x.shape[0], (i * 7) % x.shape[1]] + 1.0, "float"),
    "columns": (lambda m, x, i: x[:, i[:4] % x.shape[1]] - x.mean(), "float"),
    "along_axis": (lambda m, x, i: m.take_along_axis(x, (i % x.shape[1])[:, None], axis=1), "float"),
    "int_rows": (lambda m, x, i: (x * 100).astype(m.int32)[i % x.shape[0]] * 3, "int"),
    "distance_to_labels": (lambda m, x, i: ((x - x[i % x.shape[0]]) ** 2).sum(axis=1), "float"),
}


@pytest.mark.parametrize("rows", [5, 1500, 70001])
@pytest.mark.parametrize("name", sorted(GATHERS))
def test_gathers_run_fused_like_numpy(name, rows):
    import nabla.numpy as nnp

    rng = np.random.default_rng(rows)
    x = rng.normal(size=(rows, 6))
    i = rng.integers(-rows, rows, size=rows)  # (negatives count from the end, as in NumPy)
    fn, family = GATHERS[name]
    xs, ix = nnp.asarray(x), nnp.asarray(i)
    before = nb.engine_stats()
    got = np.asarray(fn(nnp, xs, ix))
    after = nb.engine_stats()
    want = fn(np, x, i)
    assert after["interpreted"] == before["interpreted"] and after["compiles"] == before["compiles"]
    assert after["fused"] + after["cache_hits"] > before["fused"] + before["cache_hits"]
    assert got.dtype == want.dtype and got.shape == want.shape
    if family == "int" or name in ("positions", "along_axis", "rows"):
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-13)


# concatenations at the trace's full shape (concatenate, pad, roll, append): each part gathered
# from its input (computed parts realized first) or a fill; ``arange`` seen along one axis
JOINS = {
    "rows": lambda m, x, i: m.concatenate([x, x[:3]], axis=0) + 1.0,
    "columns": lambda m, x, i: m.concatenate([x, x[:, :2] * 2.0], axis=1) - 1.0,
    "computed_part": lambda m, x, i: m.concatenate([m.exp(x), x[::-1]]),
    "pad": lambda m, x, i: m.pad(x, ((1, 2), (0, 3))),
    "roll": lambda m, x, i: m.roll(x, 3, axis=0) - x,
    "append": lambda m, x, i: m.append(x.ravel(), 7.0),
    "integers": lambda m, x, i: m.concatenate([i, i[::2] * 3]),
    "arange_along_rows": lambda m, x, i: m.arange(x.shape[1]) * x,
    "arange_along_columns": lambda m, x, i: m.arange(x.shape[0])[:, None] + x,
}


@pytest.mark.parametrize("rows", [5, 1500, 70001])
@pytest.mark.parametrize("name", sorted(JOINS))
def test_concatenations_and_positions_run_fused_like_numpy(name, rows):
    import nabla.numpy as nnp

    rng = np.random.default_rng(rows + 1)
    x, i = rng.normal(size=(rows, 6)), rng.integers(-1000, 1000, size=rows)
    before = nb.engine_stats()
    got = np.asarray(JOINS[name](nnp, nnp.asarray(x), nnp.asarray(i)))
    after = nb.engine_stats()
    want = JOINS[name](np, x, i)
    assert after["interpreted"] == before["interpreted"] and after["compiles"] == before["compiles"]
    assert after["fused"] + after["cache_hits"] > before["fused"] + before["cache_hits"]
    assert got.dtype == want.dtype and got.shape == want.shape
    if name == "computed_part":  # (the kernel's exp: within 2e-12 of NumPy's)
        np.testing.assert_allclose(got, want, rtol=1e-11)
    else:
        np.testing.assert_array_equal(got, want)


def test_a_chain_of_small_matmuls_runs_fused():
    """``a.T @ (a @ w)``: the inner product is a stage of its own, so each matmul is one of views
    of buffers, a product-and-sum on the kernel: one program (no model, no interpreter)."""
    rng = np.random.default_rng(12)
    a, w = rng.standard_normal((500, 20)), rng.standard_normal((20, 1))
    before = nb.engine_stats()
    x = nb.asarray(a)
    got = (nb.permute_dims(x, (1, 0)) @ (x @ nb.asarray(w))).numpy()
    after = nb.engine_stats()
    assert after["interpreted"] == before["interpreted"] and after["compiles"] == before["compiles"]
    assert after["fused"] - before["fused"] == 1
    np.testing.assert_allclose(got, a.T @ (a @ w), rtol=1e-12)


def test_a_small_matmul_alone_is_the_kernels_and_a_large_one_is_not():
    """A trace run node by node (a cold machine's, ``single_op.split``) asks for no matmul model
    where the kernel takes the product alone: whether it does must not hang on whether the
    kernel's models were built yet (the first-run list came out with or without ``matmul``)."""
    from nabla.runtime.fused_stages import fits_alone

    def node_of(t):
        (value,) = t._impl._values
        return value.node, [value]

    rng = np.random.default_rng(0)
    small = nb.asarray(rng.normal(size=(30, 20))) @ nb.asarray(rng.normal(size=(20, 10)))
    ints = nb.asarray(np.arange(12).reshape(3, 4)) @ nb.asarray(np.arange(8).reshape(4, 2))
    large = nb.asarray(rng.normal(size=(300, 200))) @ nb.asarray(rng.normal(size=(200, 100)))
    half = nb.asarray(rng.normal(size=(3, 4)).astype(np.float16)) @ nb.asarray(rng.normal(size=(4, 2)).astype(np.float16))
    assert fits_alone(*node_of(small)) and fits_alone(*node_of(ints))
    assert not fits_alone(*node_of(large))
    # (a float16 product is a float32 one, then its cast to float16: each the kernel's alone)
    cast = half._impl._values[0].node
    assert cast.op.name == "astype" and fits_alone(cast, list(half._impl._values))
    product = cast.inputs[0]
    assert product.node.op.name == "matmul" and fits_alone(product.node, [product])


def test_the_kernels_opcodes_are_the_tables():
    """The fused kernel's Mojo source dispatches on the named constants of ``opcodes.mojo``
    (``op == Op.EXP``, or a fallthrough's ``# Op.NAME:`` comment), never on bare numbers; that file
    is what the rows write (``fused_codes.mojo_opcodes``); every one of the table's opcodes is
    dispatched on and every reduction kind told apart: an opcode edited on one side only fails here."""
    import re

    from nabla.ops.elementwise import BINARY_OPS, UNARY_OPS
    from nabla.runtime import fused_codes as codes
    from nabla.runtime.program_kernel import KERNELS

    assert codes.OPCODES_MOJO.read_text() == codes.mojo_opcodes(), \
        "opcodes.mojo is stale: run nabla.runtime.fused_codes.write_opcodes()"
    source = "".join(p.read_text() for p in sorted((KERNELS / "evaluator").glob("fused*.mojo")))
    assert not re.findall(r"\b(?:op|kind|code) [=!<>]=? *\d|_map_\w+\[\w+, \d", source)  # no bare opcode, kind, code
    names = codes.opcode_names()
    used = set(re.findall(r"\bop == Op\.(\w+)", source)) | set(re.findall(r"# Op\.(\w+):", source))
    assert used <= set(names), sorted(used - set(names))
    in_kernel = {names[n] for n in used}
    table = set(UNARY_CODES.values()) | set(BINARY_CODES.values()) | set(codes.UNSIGNED_CODES.values()) | \
        set(codes.HALF_CODES.values()) | set(codes.INSTRUCTIONS.values())
    assert in_kernel == table, (sorted(in_kernel - table), sorted(table - in_kernel))
    assert len(set(UNARY_CODES.values()) | set(BINARY_CODES.values())) == len(UNARY_CODES) + len(BINARY_CODES)
    # each kind's codes lie in the groups the kernel's loop dispatches it in
    within = lambda code, *groups: any(codes.GROUPS[g][0] <= code < codes.GROUPS[g][1] for g in groups)
    assert all(within(c, "UNARY", "MORE_UNARY") for c in UNARY_CODES.values())
    assert all(within(c, "BINARY", "MORE_BINARY") for c in BINARY_CODES.values())
    assert all(within(c, "UNSIGNED_UNARY" if n in UNARY_CODES else "UNSIGNED_BINARY")
               for n, c in codes.UNSIGNED_CODES.items() if c != UNARY_CODES["positive"])  # (abs: the identity)
    assert all(within(c, "HALF_BINARY") and n in BINARY_CODES for n, c in codes.HALF_CODES.items())
    assert UNARY_CODES == {n: op.fused.code for n, op in UNARY_OPS.items() if op.fused and op.fused.code is not None}
    assert BINARY_CODES == {n: op.fused.code for n, op in BINARY_OPS.items() if op.fused and op.fused.code is not None}
    # the reductions' kinds: each one the kernel tells apart, and no other
    kinds = set(re.findall(r"\bkind == Reduce\.(\w+)", source))
    assert kinds == {n.upper() for n in REDUCE_CODES}, (kinds, REDUCE_CODES)
    assert ARG_REDUCE == {n for n, k in REDUCE_CODES.items() if k in (6, 7)}


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.int8])
def test_integer_powers_keep_numpys_wrapping_values(dtype):
    """``pow`` of integers: the integer family's square and multiply, wrapped to the dtype."""
    a = np.arange(-3, 9).astype(dtype) if np.dtype(dtype).kind == "i" else np.arange(12).astype(dtype)
    e = (np.arange(12) % 4).astype(dtype)
    for fn in (lambda x, y: x ** 3 + 1, lambda x, y: x ** y * 2, lambda x, y: nb.pow(x, y) - x):
        got = fn(nb.asarray(a), nb.asarray(e)).numpy()
        np.testing.assert_array_equal(got, fn(a, e).astype(got.dtype))


@pytest.mark.parametrize("value", [0, 1, -1, 0x8408, 2**63, -2**63, 2**64 - 1, True, np.int64(-5), np.uint64(2**64 - 1),
                                   np.uint8(200)])
def test_integer_constants_reach_the_kernel_as_their_int64_bits(value):
    """An integer constant's bits as NumPy's two's complement view gives them (the kernel reads
    integer families' constants as int64 bits held in float64 slots)."""
    from nabla.runtime.fused_codes import constant_bits

    want = np.array([int(value) % 2**64], np.uint64).view(np.float64)
    assert np.array([constant_bits(value, True)]).view(np.uint64)[0] == want.view(np.uint64)[0]
