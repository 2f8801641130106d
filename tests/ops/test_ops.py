"""Every op against NumPy, with cases from the op database; the database must cover every op table."""

import numpy as np
import pytest

import nabla as nb
from nabla.ops.elementwise import BINARY_TABLE, UNARY_TABLE
from nabla.ops.reduction import REDUCE_OPS

from ..marks import SLOW
from ..op_db import BINARY_CASES, REDUCE_CASES, UNARY_CASES, f32

R = np.random.default_rng(7)


def check(got, want, rtol=1e-5, atol=1e-6):
    got_np = got.numpy()
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got_np.dtype == want.dtype or (want.dtype == np.float64 and got_np.dtype == np.float32), \
        (got_np.dtype, want.dtype)
    np.testing.assert_allclose(got_np, want, rtol=rtol, atol=atol)


def test_registry_covers_every_op_table():
    assert set(UNARY_CASES) == set(UNARY_TABLE)
    assert set(BINARY_CASES) == set(BINARY_TABLE)
    assert set(REDUCE_CASES) == set(REDUCE_OPS)


@pytest.mark.parametrize("name", sorted(UNARY_CASES))
def test_unary_vs_numpy(name, first_sight):
    fn, ref, inputs = UNARY_CASES[name]
    for a in inputs:
        check(fn(nb.asarray(a)), ref(a))


@pytest.mark.parametrize("name", sorted(BINARY_CASES))
def test_binary_vs_numpy(name, first_sight):
    fn, ref, inputs = BINARY_CASES[name]
    for a, b in inputs:
        check(fn(nb.asarray(a), nb.asarray(b)), ref(a, b), rtol=1e-5)


@pytest.mark.parametrize("name", sorted(REDUCE_CASES))
def test_reductions_vs_numpy(name, first_sight):
    fn, ref, inputs = REDUCE_CASES[name]
    for a in inputs:
        x = nb.asarray(a)
        for axis in (None, 0, -1, (0, a.ndim - 1)):
            for keepdims in (False, True):
                want = ref(a, axis=axis, keepdims=keepdims)
                check(fn(x, axis=axis, keepdims=keepdims), np.asarray(want), rtol=1e-4)


def test_python_scalars_follow_the_tensor_dtype():
    x = nb.asarray(np.array([1, 2, 3], dtype=np.int32))
    assert (x + 1).dtype is nb.int32 and (2 * x).dtype is nb.int32
    assert (x + 1.5).dtype is nb.float32  # ints meet a float scalar in the default float
    y = nb.asarray(np.array([1.0, 2.0], dtype=np.float64))
    assert (y * 2).dtype is nb.float64
    check(1.0 - y, 1.0 - np.array([1.0, 2.0]))
    check(x / 2, np.array([0.5, 1.0, 1.5], dtype=np.float32))
    assert (x < 2).dtype is nb.bool_


def test_a_scalar_operand_sits_on_its_tensors_device_as_devices_come_and_go():
    # Device objects that are equal but not the same, freed and made again (as a mesh's shards'
    # are): a Python scalar operand must land on the device of the tensor it meets, every time.
    from nabla.core.context import VirtualCPU

    for i in range(200):
        dev = VirtualCPU(1 + i % 4)
        x = nb.asarray(np.array([2.0, 4.0], dtype=np.float32)).to_device(dev)
        y = x * 0.5
        assert y.device == dev
        check(y, np.array([1.0, 2.0], dtype=np.float32))
        del dev, x, y


def test_promotion_between_tensors():
    a = nb.asarray(np.array([1, 2], dtype=np.int8))
    b = nb.asarray(np.array([300, 400], dtype=np.int16))
    assert (a + b).dtype is nb.int16
    u = nb.asarray(np.array([200], dtype=np.uint8))
    assert (u + a).dtype is nb.int16
    check(u + a, np.array([201, 202], dtype=np.int16))
    f = nb.asarray(np.array([0.5], dtype=np.float32))
    assert (f + nb.asarray(np.array([1.0], dtype=np.float64))).dtype is nb.float64


def test_the_dtype_lattice_is_numpys_where_numpy_has_one():
    """Mixed integer and float kinds (left open by the standard) meet as in NumPy: int64 with
    float32 is float64 (SciPy's special functions compare against NumPy's dtype); only a signed
    integer with uint64 has no dtype (NumPy's float64 would lose integers)."""
    from nabla.core import dtypes as dt

    for a in dt.ALL_DTYPES:
        for b in dt.ALL_DTYPES:
            want = np.result_type(a.numpy_dtype, b.numpy_dtype)
            if {a.kind, b.kind} == {"i", "u"} and 8 in (a.itemsize, b.itemsize) and want.kind == "f":
                with pytest.raises(TypeError, match="holds both"):
                    dt.result_type(a, b)
            else:
                assert dt.result_type(a, b).numpy_dtype == want, (a, b)
    i, f = nb.asarray(np.array([3], dtype=np.int64)), nb.asarray(np.array([0.5], dtype=np.float32))
    check(i * f, np.array([3], dtype=np.int64) * np.array([0.5], dtype=np.float32))


def test_creation_vs_numpy():
    check(nb.zeros((2, 3)), np.zeros((2, 3), np.float32))
    check(nb.ones(4, dtype=nb.int32), np.ones(4, np.int32))
    check(nb.full((2, 2), 7, dtype=nb.int64), np.full((2, 2), 7, np.int64))
    check(nb.full((3,), True), np.full((3,), True))
    for args in [(5,), (2, 11, 3), (10, 0, -2), (0.5, 2.0, 0.25), (3, 3)]:
        want = np.arange(*args)
        want = want.astype(np.float32) if want.dtype == np.float64 else want
        check(nb.arange(*args), want)
    x = nb.asarray(f32(2, 3))
    check(nb.zeros_like(x), np.zeros((2, 3), np.float32))
    check(nb.full_like(x, 2.5), np.full((2, 3), 2.5, np.float32))
    check(nb.asarray([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]]))
    check(nb.asarray(np.float64(2.5)), np.array(2.5))


def test_asarray_copies_host_data():
    a = np.ones(3, dtype=np.float32)
    x = nb.asarray(a)
    a[0] = 5.0
    np.testing.assert_array_equal(x.numpy(), np.ones(3))
    assert not x.numpy().flags.writeable


def test_views_vs_numpy():
    a = f32(2, 3, 4)
    x = nb.asarray(a)
    check(x.reshape(4, -1), a.reshape(4, -1))
    check(nb.transpose(x), a.T)
    check(nb.permute_dims(x, (1, 0, 2)), a.transpose(1, 0, 2))
    check(x.T, a.T)
    check(nb.swap_axes(x, 0, 2), a.swapaxes(0, 2))
    check(nb.moveaxis(x, 0, -1), np.moveaxis(a, 0, -1))
    check(nb.unsqueeze(x, 1), np.expand_dims(a, 1))
    check(nb.squeeze(nb.unsqueeze(x, -1), -1), a)
    check(nb.broadcast_to(nb.asarray(a[:1]), (5, 3, 4)), np.broadcast_to(a[:1], (5, 3, 4)))
    check(x.astype(nb.int32), a.astype(np.int32))


def test_matmul_vs_numpy():
    a, b, v = f32(3, 4), f32(4, 5), f32(4)
    bat = f32(2, 3, 4)
    check(nb.asarray(a) @ nb.asarray(b), a @ b, rtol=1e-4)
    check(nb.asarray(a) @ nb.asarray(v), a @ v, rtol=1e-4)
    check(nb.asarray(v) @ nb.asarray(b), v @ b, rtol=1e-4)
    check(nb.asarray(v) @ nb.asarray(v), np.asarray(v @ v), rtol=1e-4)
    check(nb.asarray(bat) @ nb.asarray(b), bat @ b, rtol=1e-4)
    check(nb.matmul(a, nb.asarray(b)), a @ b, rtol=1e-4)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int64])
def test_integer_matmul_wraps_like_numpy_without_a_compile(dtype, stats):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(7)
    a = rng.integers(info.min, info.max, (3, 5), dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, (5, 2), dtype=dtype, endpoint=True)
    got = (nb.asarray(a) @ nb.asarray(b)).numpy()
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, a @ b)  # exact, wrapping around as NumPy's does
    assert stats()["compiles"] == 0  # MAX's interpreter has no unsigned matmul: lowered as signed


def test_physical_batch_ops():
    from nabla.ops import _physical as P

    a = f32(2, 5, 3)
    x = P.move_axis_to_batch_dims(nb.asarray(a), 1)
    assert x.batch_dims == 1 and x.shape == (2, 3) and x._impl.physical_shape == (5, 2, 3)
    y = x * 2 + nb.ones((4, 1, 1))  # unbatched operand of higher logical rank
    assert y.shape == (4, 2, 3) and y._impl.physical_shape == (5, 4, 2, 3)
    s = y.sum(axis=0)  # logical axis 0
    out = P.move_axis_from_batch_dims(s, 0, 2)
    assert out.batch_dims == 0 and out.shape == (2, 3, 5)
    check(out, np.moveaxis((a * 2 + 1)[None].repeat(4, 0).sum(0), 1, -1), rtol=1e-5)
    z = P.decr_batch_dims(P.incr_batch_dims(nb.asarray(a)))
    check(z, a)
    with pytest.raises(ValueError):
        P.decr_batch_dims(nb.asarray(a))


@pytest.mark.parametrize("n", [1 << 18, (1 << 18) + 1, 3 * (1 << 17)])
def test_long_full_reductions_vs_numpy(n):
    # long 1-D reductions are split into rows on MAX; odd sizes take the plain path
    a = R.uniform(-1, 1, n).astype(np.float32)
    x = nb.asarray(a)
    np.testing.assert_allclose(nb.sum(x).item(), a.astype(np.float64).sum(), rtol=1e-4, atol=1e-2)
    np.testing.assert_allclose(nb.mean(x, keepdims=True).numpy(), a.mean(keepdims=True), rtol=1e-3, atol=1e-6)
    assert nb.max(x).item() == a.max() and nb.min(x, axis=0).item() == a.min()
    assert nb.sum(x.reshape(-1, 1), keepdims=True).shape == (1, 1)


def _elementwise_cases():
    for table in (UNARY_CASES, BINARY_CASES):
        for fn, ref, inputs in table.values():
            for args in inputs:
                yield fn, ref, args if isinstance(args, tuple) else (args,)


@pytest.mark.parametrize("every", [False, pytest.param(True, marks=SLOW)])
def test_ops_lower_in_compiled_graphs(stats, policy, every):
    """The compiled path lowers differently from the interpreter's (symbolic dims): compile two
    graphs (one symbolic, one static) and check every result against NumPy. Every reduction and
    shape op is in them; of the elementwise ops, whose lowerings read no shape, every sixth case
    (each is a kernel of MAX's compile, seconds apiece: all of them, ``NABLA_SLOW_TESTS=1``, take
    minutes; the fuzzer's compiled-path test draws others)."""
    from nabla.ops import _physical as P, broadcasting as B

    policy("compile")
    cases = list(_elementwise_cases())
    checks = [(fn(*map(nb.asarray, args)), ref(*args)) for fn, ref, args in (cases if every else cases[::6])]
    for name, (fn, ref, inputs) in REDUCE_CASES.items():
        checks.append((fn(nb.asarray(inputs[0]), axis=0), ref(inputs[0], axis=0)))
    a, b = f32(3, 4), f32(4, 5)
    checks.append((nb.asarray(a) @ nb.asarray(b), a @ b))
    checks.append((nb.transpose(nb.asarray(a)), a.T))
    checks[0][0].numpy()  # one evaluation realizes them all, in one graph
    assert stats()["symbolic_graphs"] == 1

    n = len(checks)
    x = nb.asarray(a)
    parts = nb.split(x, [1], axis=1)
    checks += [
        (x.reshape(2, 6), a.reshape(2, 6)), (nb.broadcast_to(nb.asarray(a[:1]), (3, 4)), np.broadcast_to(a[:1], (3, 4))),
        (nb.concat([parts[1], parts[0]], axis=1), np.concatenate([a[:, 1:], a[:, :1]], 1)),
        (nb.where(x > 0, x, -x), np.abs(a)), (nb.arange(2, 9, 3), np.arange(2, 9, 3)),
        (nb.full((2, 2), 1.5), np.full((2, 2), 1.5, np.float32)), (x.astype(nb.int32), a.astype(np.int32)),
        (P.move_axis_from_batch_dims(P.move_axis_to_batch_dims(x, 1) * 2, 0, 0), (a * 2).T),
        (B.sum_to(x, (1, 4), 0), a.sum(0, keepdims=True)), (B.broadcast_physical(nb.asarray(a[:1]), (3, 4), 0),
                                                            np.broadcast_to(a[:1], (3, 4))),
    ]
    checks[n][0].numpy()
    assert stats()["compiles"] == 2 and stats()["interpreted"] == 0
    for got, want in checks:
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-5)


def test_float16_math_is_numpys_float32_rounded_once():
    """NumPy computes float16 ufuncs in float32 and rounds each result to float16; so does every
    elementwise op here (MAX's interpreter has no float16 kernels, and its compiler spent minutes
    on float16 ``exp2``). One structure, so one compile."""
    a = np.random.default_rng(5).standard_normal(513).astype(np.float16)
    x = nb.asarray(a)
    b = a[::-1]
    y = nb.asarray(np.ascontiguousarray(b))
    ours = nb.array_api.stack([nb.sin(x), nb.sqrt(nb.abs(x)), nb.floor(x * 3), nb.tanh(x), nb.log1p(nb.abs(x)),
                     nb.atan2(x, y), x * y + 3, x / 3, nb.exp(x), nb.maximum(x, y), nb.pow(nb.abs(x), y)])
    with np.errstate(all="ignore"):
        want = np.stack([np.sin(a), np.sqrt(np.abs(a)), np.floor(a * np.float16(3)), np.tanh(a), np.log1p(np.abs(a)),
                         np.arctan2(a, b), a * b + np.float16(3), a / np.float16(3), np.exp(a), np.maximum(a, b),
                         np.power(np.abs(a), b)])
    got = ours.numpy()
    assert got.dtype == np.float16
    exact = [1, 2, 6, 7, 9]  # sqrt, floor, + - * /, maximum: correctly rounded in float32, so bit for bit
    np.testing.assert_array_equal(got[exact], want[exact])
    # libm's float32 and MAX's may differ by an ulp of float32, which can move a float16 by one ulp
    np.testing.assert_array_max_ulp(got, want, maxulp=1)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 1 << 17)])
def test_complex_fills_are_numpys_bits(shape, dtype):
    """``full`` of a complex value spreads its (re, im) pair (at once up to a fill's size, recorded
    beyond): each part's bits are NumPy's (signed zeros, NaN, a complex64 rounding), and a write
    into the fill lands."""
    for value in (0j, 1 + 2j, complex(-0.0, 0.0), complex(0.0, -0.0), 1 / 3 + 0.1j, complex("nan+infj")):
        want = np.full(shape, value, dtype)
        got = nb.full(shape, value, dtype=dtype)
        if shape:
            got[..., 0] = 5 - 1j
            want[..., 0] = 5 - 1j
        got = got.numpy()
        assert got.dtype == want.dtype and got.shape == want.shape
        parts, want_parts = np.stack([got.real, got.imag]), np.stack([want.real, want.imag])
        np.testing.assert_array_equal(parts, want_parts)
        np.testing.assert_array_equal(np.signbit(parts), np.signbit(want_parts))
