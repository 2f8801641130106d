"""The fused kernel's integer family: bool and integer traces (every integer dtype, mixed) in int64
registers, read and written through dtype codes. Values against NumPy, wrapping included (narrow
results wrap after every op, as NumPy's do), and against the interpreter. uint64 is int64's bits:
the ops that order or measure its values have opcodes of their uint64 form, or run elsewhere."""

import numpy as np
import pytest

import nabla as nb
import nabla.array_api as xp
from nabla.core.operation import OPS
from nabla.runtime.fused_codes import INT_CODES

from ..op_db import REFERENCE
from .fused_paths import run

pytestmark = pytest.mark.usefixtures("fused_on", "recorded_small_ops")

INT_DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


def in_family(name, dtype) -> bool:
    """Whether the kernel runs ``name`` on ``dtype`` (uint64 values above 2**63 are negative int64s)."""
    f = OPS[name].fused
    return not (dtype == "uint64" and f.signed and f.unsigned is None)

# the integer family's ops (references: tests/op_db.py)
INT_UNARY = ("negative", "abs", "square", "floor", "ceil", "trunc", "sign", "isnan", "isinf", "isfinite",
             "logical_not", "positive", "bitwise_invert")
INT_BINARY = ("add", "subtract", "multiply", "maximum", "minimum", "equal", "not_equal", "greater",
              "greater_equal", "less", "less_equal", "logical_and", "logical_or", "logical_xor", "bitwise_and",
              "bitwise_or", "bitwise_xor", "floor_divide", "remainder", "bitwise_left_shift",
              "bitwise_right_shift")


def edges(dtype, n=40, seed=0):
    """The dtype's extremes, 0 and +-1, then random values over its whole range."""
    info = np.iinfo(dtype)
    fixed = [info.min, info.max, 0, 1, info.max - 1, info.min + 1] + ([-1, -2] if info.min < 0 else [2, 3])
    rand = np.random.default_rng(seed).integers(info.min, info.max, n - len(fixed), dtype=dtype, endpoint=True)
    return np.concatenate([np.array(fixed, dtype), rand])


def same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    np.testing.assert_array_equal(got, want)


def test_the_family_names_every_integer_dtype():
    assert {d.name for d in INT_CODES} == set(INT_DTYPES) | {"bool"}


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("name", sorted(INT_UNARY))
def test_unary_ops_wrap_like_numpy(name, dtype):
    a = edges(dtype)
    op = getattr(nb, name)
    if name == "logical_not":  # (of booleans: the integers' nonzero)
        op, ref_op = (lambda x: getattr(nb, name)(x != 0)), (lambda x: np.logical_not(x != 0))
    else:
        ref_op = REFERENCE[name]
    fn = (lambda x: op(x) == op(x)) if name.startswith("is") or name == "logical_not" else (lambda x: op(x) + 1)
    with np.errstate(all="ignore"):
        ref = ref_op(a)
        want = (ref == ref) if ref.dtype == bool else ref + np.array(1, ref.dtype)
        if name in ("floor", "ceil", "trunc"):  # NumPy < 2.1 gives floats; the standard keeps the dtype
            want = a + np.array(1, a.dtype)
    got, fused = run(fn, a)
    assert fused or not in_family(name, dtype)  # (+ 1 runs fused either way)
    same(got, want)
    same(run(fn, a, fused=False)[0], got)


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("name", sorted(INT_BINARY))
def test_binary_ops_wrap_like_numpy(name, dtype):
    a, b = edges(dtype, seed=1), edges(dtype, seed=2)[::-1].copy()
    op, ref_op = getattr(nb, name), REFERENCE[name]
    if name.startswith("logical"):  # (of booleans: the integers' nonzero)
        op, ref_op = (lambda x, y, f=op: f(x != 0, y != 0)), (lambda x, y, f=ref_op: f(x != 0, y != 0))
    with np.errstate(all="ignore"):
        want = ref_op(a, b)
    got, fused = run(op, a, b)
    assert fused == in_family(name, dtype)
    same(got, want)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_powers_wrap_like_numpy(dtype):
    """Square and multiply in int64 registers, wrapped to the dtype as NumPy's integer power wraps."""
    a = edges(dtype, seed=5)
    e = np.random.default_rng(6).integers(0, 70, a.size).astype(dtype)
    top = int(np.iinfo(dtype).max)  # (exponents past int32's and int64's: a uint64's top bit is no sign)
    e[:10] = [0, 1, 2, 63, top, top - 1, min(top, 2 ** 31), min(top, 2 ** 31 + 1), min(top, 2 ** 63), min(top, 2 ** 62 + 5)]
    with np.errstate(all="ignore"):
        want = a ** e
    got, fused = run(lambda x, y: x ** y, a, e)
    assert fused
    same(got, want)
    engine = nb.core.graph.GRAPH.engine
    engine.fused_enabled = False  # (MAX's interpreter over the op's lowering: its pow's int32 count, split)
    try:
        same(nb.pow(nb.asarray(a), nb.asarray(e)).numpy(), want)
    finally:
        engine.fused_enabled = True


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint32"])
def test_narrow_intermediates_wrap_before_comparisons(dtype):
    """``x * y - x`` overflows the dtype: NumPy compares the wrapped value, and so must the kernel
    (its registers are int64 and would otherwise hold the exact product)."""
    a, b = edges(dtype, seed=3), edges(dtype, seed=4)
    with np.errstate(all="ignore"):
        want = np.maximum(a * b - a, b) > (b // 2)
    got, fused = run(lambda x, y: nb.maximum(x * y - x, y) > nb.asarray(np.asarray(b // 2)), a, b)
    assert fused
    same(got, want)


@pytest.mark.parametrize("src", INT_DTYPES + ["bool"])
@pytest.mark.parametrize("dst", INT_DTYPES + ["bool"])
def test_casts_between_the_family_dtypes(src, dst):
    a = edges(src) if src != "bool" else np.array([True, False, True])
    got, fused = run(lambda x: xp.astype(x + x, getattr(xp, dst)) if src != "bool"
                     else xp.astype(xp.logical_not(x), getattr(xp, dst)), a)
    with np.errstate(all="ignore"):
        want = (a + a).astype(dst) if src != "bool" else np.logical_not(a).astype(dst)
    assert fused
    same(got, want)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "uint32", "int64", "uint64"])
@pytest.mark.parametrize("name", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("shape,axis", [((1025,), None), ((16 * 1024 + 3,), None), ((37, 29), 1), ((29, 37), 0),
                                        ((3, 40, 5), 1)])
def test_reductions_accumulate_in_int64(name, dtype, shape, axis):
    a = np.random.default_rng(5).integers(-3 if dtype[0] == "i" else 0, 4, shape).astype(dtype)
    if dtype == "uint64":  # values past 2**63, whose int64 bits are negative
        a = a * np.uint64(2 ** 62) + a
    got, fused = run(lambda x: getattr(nb, name)(x * 1, axis=axis), a)
    want = getattr(np, name)(a, axis=axis)
    if name in ("sum", "prod"):  # the standard's default: int64 for signed, uint64 for unsigned
        want = want.astype(got.dtype)
    assert fused == (got.dtype.name in INT_DTYPES)
    same(got, want)


def test_reduction_of_a_zero_d_value_fuses():
    # (a 0-d view of a 1-element array: recorded; ops on a realized 0-d host value run at once)
    got, fused = run(lambda x: xp.all(xp.equal(xp.reshape(x, ()), xp.reshape(x, ()))), np.array([7], np.int32))
    assert fused and got.dtype == bool and got.shape == () and bool(got)


@pytest.mark.parametrize("c", [3, -5, 2 ** 61 + 7, 2 ** 62 - 1, -2 ** 63])
def test_constants_are_exact_int64_bits_and_data(c):
    """Constants are the kernel's data (one plan serves every value), passed as int64 bits: values
    above 2**53 stay exact."""
    a = np.array([2 ** 62, -2 ** 62 + 3, 5, 0], np.int64)
    got, fused = run(lambda x: x + c, a)
    with np.errstate(all="ignore"):
        want = a + np.int64(c)
    assert fused
    same(got, want)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint64"])
def test_small_integer_matmuls_wrap_like_numpy(dtype):
    a, b = edges(dtype, 35, seed=6).reshape(5, 7), edges(dtype, 28, seed=7).reshape(7, 4)
    got, fused = run(lambda x, y: x @ y, a, b)
    assert fused
    with np.errstate(all="ignore"):
        same(got, a @ b)


def test_an_element_check_runs_fused_without_the_interpreter():
    """What array-api-tests does per element of a linalg result: slices of two inputs, a small
    contraction, an exact comparison, ``all``: every stage on the kernel."""
    rng = np.random.default_rng(8)
    a, b = rng.integers(-50, 50, (4, 3, 5)).astype(np.int32), rng.integers(-50, 50, (4, 3, 5)).astype(np.int32)
    x, y = nb.asarray(a), nb.asarray(b)
    res = xp.vecdot(x, y)
    res.numpy()
    before = nb.engine_stats()
    for i in range(4):
        for j in range(3):
            assert bool(xp.all(xp.equal(res[i, j], xp.sum(xp.multiply(xp.conj(x[i, j, :]), y[i, j, :])))))
    after = nb.engine_stats()
    assert after["interpreted"] == before["interpreted"]
    assert after["fused"] >= before["fused"] + 12


@pytest.mark.parametrize("case", ["uint64_order", "floor_divide", "to_float", "float_constant", "uint64_inside"])
def test_integer_traces_with_float_work_or_uint64_order(case):
    """Float work on integers runs on the coded float family, floor division on the integer
    family; uint64 values past 2**63 are ordered by the uint64 forms of the comparisons."""
    a = np.arange(1, 7)
    big = a.astype(np.uint64) * np.uint64(2 ** 62)  # past 2**63: negative as int64 bits
    fn, arrays = {
        "uint64_order": (lambda x: x > 2 ** 62, [big]),
        "floor_divide": (lambda x: x // 2 + 1, [a]),
        "to_float": (lambda x: x / 2 + 1, [a]),
        "float_constant": (lambda x: x > 2.5, [a]),  # a float constant is no int64 register's value
        "uint64_inside": (lambda x: xp.astype(x, xp.uint64) * 2 > 3, [a.astype(np.uint8)]),
    }[case]
    got, fused = run(fn, *arrays)
    if case in ("floor_divide", "to_float", "float_constant", "uint64_order"):
        assert fused
    want = {"uint64_order": big > 2 ** 62, "floor_divide": a // 2 + 1, "to_float": a / 2 + 1,
            "float_constant": a > 2.5, "uint64_inside": a * 2 > 3}[case]
    same(got, want.astype(got.dtype))  # (the default float dtype is Nabla's to choose)


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert"])
def test_bitwise_ops_on_booleans_are_the_logical_ones(name):
    a, b = np.array([True, False, True, False]), np.array([True, True, False, False])
    op = getattr(nb, name)
    fn = (lambda x, y: op(x)) if name == "bitwise_invert" else op
    want = np.invert(a) if name == "bitwise_invert" else getattr(np, name)(a, b)
    got, fused = run(fn, a, b)
    assert fused
    same(got, want)


@pytest.mark.parametrize("dtype", ["int8", "uint32", "uint64", "bool"])
@pytest.mark.parametrize("name", ["any", "all"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_any_and_all_test_their_count_in_one_program(name, dtype, axis):
    """``any``/``all`` count in int64 and test the count (``> 0``, negated for ``all``): the kernel
    tests it in the reduction's store, one program where there were two."""
    a = edges(dtype, 24).reshape(4, 6) if dtype != "bool" else np.arange(24).reshape(4, 6) % 5 != 0
    a[1] = a[0]  # rows where every element is nonzero, and where none is
    a[2] = 0
    before = nb.engine_stats()
    got = getattr(xp, name)(nb.asarray(a) != 0 if dtype != "bool" else nb.asarray(a), axis=axis).numpy()
    after = nb.engine_stats()
    same(got, getattr(np, name)(a != 0, axis=axis))
    assert after["evaluations"] - before["evaluations"] == 1 and after["fused"] - before["fused"] == 1


def test_a_tested_count_reads_its_bound_per_run():
    """The bound of ``count > c`` is data, as every constant is: two bounds share the plan and each
    run tests against its own."""
    a = np.array([3, 0, 5, 0, 7], np.int32)
    x = nb.asarray(a)
    for c in (0, 2, 3, 1, 5):
        assert bool(xp.sum(xp.astype(x != 0, xp.int64)) > c) == (np.count_nonzero(a) > c)
        assert bool(xp.logical_not(xp.sum(xp.astype(x != 0, xp.int64)) > c)) == (np.count_nonzero(a) <= c)


# maps of bools alone (bool data, constants 0 and 1, the ops whose row says ``Fused.bytes``): the
# byte family, registers of one byte
BOOL_MAPS = {
    "and": (lambda m, a, b, c: a & b, 5),
    "mixed": (lambda m, a, b, c: ~a | (b ^ c), 5),
    "logical": (lambda m, a, b, c: m.logical_and(a, m.logical_not(b)), 5),
    "compares": (lambda m, a, b, c: ((a == b) != c) | (a < b) | (b >= c), 5),
    "where": (lambda m, a, b, c: m.where(a, b, c), 5),
    "extrema": (lambda m, a, b, c: m.maximum(a, b) & m.minimum(b, c), 5),
    "constant": (lambda m, a, b, c: (a & True) | (b & False), 5),
    "to_int8": (lambda m, a, b, c: (a & b).astype(m.int8), 2),  # (not a bool result)
    "plus_int": (lambda m, a, b, c: (a.astype(m.int8) + 1) > 1, 2),  # (an int on the way)
}


@pytest.mark.parametrize("n", [1, 33, 1025, 70_001])
@pytest.mark.parametrize("name", sorted(BOOL_MAPS))
def test_maps_of_bools_alone_are_the_byte_family(name, n):
    import nabla.numpy as nnp
    from nabla.core.graph import GRAPH
    from nabla.runtime.fused import plan
    from nabla.runtime.program_kernel import family

    rng = np.random.default_rng(n)
    data = [rng.random(n) < 0.5 for _ in range(3)]
    fn, fam = BOOL_MAPS[name]
    got = fn(nnp, *map(nnp.asarray, data))
    traced = GRAPH.engine.trace([got._impl._values[0]])
    made = plan(traced.order, traced.leaves, [got._impl._values[0]], traced.node_ids, traced.leaf_ids)
    assert family(made.program) == fam
    want = fn(np, *data)
    out = got.numpy()
    assert out.dtype == want.dtype and np.array_equal(out, want)


@pytest.mark.parametrize("n", [0, 1, 31, 32, 33, 255 * 32, 255 * 32 + 1, 70_001])
def test_a_masks_count_is_its_bytes_summed(n):
    """A count of a mask (its sum, ``count_nonzero``, ``any``, ``all``) and a sum of uint8 run as a
    sum of bytes, 16-bit lanes taken out before they could wrap: NumPy's counts and sums."""
    import nabla.numpy as nnp

    rng = np.random.default_rng(n + 3)
    m = rng.random(n) < 0.5
    u = rng.integers(0, 256, n).astype(np.uint8)
    a, b = nnp.asarray(m), nnp.asarray(u)
    assert int(a.sum()) == int(m.sum()) and int(nnp.count_nonzero(a)) == np.count_nonzero(m)
    assert int(b.sum()) == int(u.sum()) and b.sum().dtype == u.sum().dtype
    assert bool(a.any()) == bool(m.any()) and bool(a.all()) == bool(m.all())
    full = np.ones(n, bool)
    assert int(nnp.asarray(full).sum()) == n and bool(nnp.asarray(full).all())
