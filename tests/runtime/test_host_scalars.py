"""0-d ops over host scalars computed as they are made (``nabla/runtime/host_scalars.py``): each
op of the database on picked elements of every dtype, against NumPy's 0-d arrays; the result is
realized at once (the test fails if the op was recorded instead); loops that mix them with writes
and reads; ``compile`` and gradients still record."""

import operator
import warnings

import numpy as np
import pytest

import nabla as nb
import nabla.numpy as nnp
from nabla.core.graph import GRAPH

from ..op_db import BINARY_CASES, UNARY_CASES
from ..runtime.test_fused_integers import INT_BINARY, INT_DTYPES, edges
from ..threads import join_all, start

pytestmark = pytest.mark.usefixtures("fused_on")


def elements(a, n=6):
    """The first ``n`` elements of ``a`` as (Nabla's 0-d pick of host data, NumPy's 0-d array)."""
    flat = np.ascontiguousarray(a).reshape(-1)
    x = nb.asarray(flat)
    x.numpy()  # (realized: its picks are host data)
    return [(x[i], np.asarray(flat[i])) for i in range(min(n, flat.size))]


def same_scalar(got, want, recorded=None):
    """``got`` realized at once, of NumPy's dtype, bit for bit the value of the same op recorded
    over whole arrays (``recorded``, where given), and NumPy's value (within the few ulp the
    recorded op's transcendental functions differ by: ``tests/ops/test_accuracy.py``)."""
    assert got._impl.is_realized, "the op was recorded, not computed at once"
    g = got.numpy()
    assert g.shape == () and g.dtype == want.dtype, (g.dtype, want.dtype)
    if recorded is not None:
        np.testing.assert_array_equal(g, recorded)
    if np.issubdtype(g.dtype, np.inexact):
        np.testing.assert_allclose(g, want, rtol=4 * np.finfo(g.dtype).eps, atol=0)
    else:
        np.testing.assert_array_equal(g, want)


def _unary(name):
    return [(name, k, a) for k, a in enumerate(UNARY_CASES[name][2])]


@pytest.mark.parametrize("name,k,a", [c for name in sorted(UNARY_CASES) for c in _unary(name)])
def test_unary_ops_on_picked_elements_are_numpys(name, k, a):
    fn, ref, _ = UNARY_CASES[name]
    recorded = fn(nb.asarray(a)).numpy().reshape(-1)
    for i, (x, xn) in enumerate(elements(a)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = np.asarray(ref(xn))
        got = fn(x)
        if name == "imag":  # (of real data: zeros, made from nothing)
            got.numpy()
        same_scalar(got, want, recorded[i])


@pytest.mark.parametrize("name,k", [(name, k) for name in sorted(BINARY_CASES)
                                    for k in range(len(BINARY_CASES[name][2]))])
def test_binary_ops_on_picked_elements_are_numpys(name, k):
    fn, ref, cases = BINARY_CASES[name]
    a, b = np.broadcast_arrays(*cases[k])
    recorded = fn(nb.asarray(np.ascontiguousarray(a)), nb.asarray(np.ascontiguousarray(b))).numpy().reshape(-1)
    for i, ((x, xn), (y, yn)) in enumerate(zip(elements(a), elements(b))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = np.asarray(ref(xn, yn))
        same_scalar(fn(x, y), want, recorded[i])


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("name", sorted(INT_BINARY))
def test_integer_ops_wrap_like_numpy_on_scalars(name, dtype):
    """The dtype's extremes against each other: wrapping, division by zero, shifts past the width."""
    fn, ref = getattr(nb, name), getattr(np, {"bitwise_left_shift": "left_shift",
                                               "bitwise_right_shift": "right_shift"}.get(name, name))
    if name.startswith("logical"):  # (of booleans: the integers' nonzero)
        fn, ref = (lambda x, y, f=fn: f(x != 0, y != 0)), (lambda x, y, f=ref: f(x != 0, y != 0))
    vals = edges(dtype, n=12)
    for x, xn in elements(vals, 12)[::3]:
        for y, yn in elements(vals[::-1], 12)[::2]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = np.asarray(ref(xn, yn))
            same_scalar(fn(x, y), want)


def test_python_scalars_and_mixed_dtypes_promote_as_numpy():
    f32, i32, u8 = (nnp.asarray(np.array([1.5, 2.5], np.float32)), nnp.asarray(np.array([7, -3], np.int32)),
                    nnp.asarray(np.array([200, 3], np.uint8)))
    for t in (f32, i32, u8):
        t.numpy()
    cases = [(lambda m, a, b, c: a[0] * 0.5), (lambda m, a, b, c: 1 - b[1]), (lambda m, a, b, c: a[1] + b[0]),
             (lambda m, a, b, c: c[0] + c[0]), (lambda m, a, b, c: c[0] >> 1), (lambda m, a, b, c: b[1] / 2),
             (lambda m, a, b, c: m.float64(2.0) * b[0]), (lambda m, a, b, c: m.where(a[0] > a[1], a[0], b[1])),
             (lambda m, a, b, c: m.tanh(a[1]) + a[0] ** 2)]
    data = [np.array([1.5, 2.5], np.float32), np.array([7, -3], np.int32), np.array([200, 3], np.uint8)]
    for k, case in enumerate(cases):
        got = case(nnp, f32, i32, u8)
        want = np.asarray(case(np, *data))
        assert got._impl.is_realized
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


_FACE_BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "maximum", "greater", "equal",
                "bitwise_and", "bitwise_xor", "right_shift", "power"]
_WEAK = [0, 1, -1, 7, 127, 255, 300, -129, 2 ** 31, 2 ** 53, 2 ** 53 + 1, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1, 0.5, -2.25,
         1e300, float("inf"), np.float64(0.1), np.float64(-3.5), np.float32(0.1), np.int64(7), np.uint8(200),
         np.int8(3)]


def _outcome(fn):
    """``fn()`` as a NumPy array, or the class of what it raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return np.asarray(fn())
        except (TypeError, ValueError, OverflowError, ZeroDivisionError) as e:
            return type(e)


def _same(got, want, ulps=0) -> bool:
    """Both raised one class, or gave one dtype and value (NaN as NaN, -0.0 apart from 0.0; within
    ``ulps`` for a transcendental function, as ``tests/ops/test_accuracy.py`` allows)."""
    if isinstance(got, type) or isinstance(want, type):
        return got is want
    if got.dtype != want.dtype:
        return False
    if ulps and got.dtype.kind == "f":
        if ulps == "pow":  # (e^(y log x): within |y log x| ulp, tests/ops/test_accuracy.py)
            with np.errstate(all="ignore"):
                scale = np.abs(np.log(np.abs(want.astype(np.float64))))
            ulps = 4 + (float(scale) if np.isfinite(scale) else 0)
        return np.allclose(got, want, rtol=ulps * np.finfo(got.dtype).eps, atol=0, equal_nan=True)
    return repr(got.tolist()) == repr(want.tolist())


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "int8", "uint8", "uint64", "bool"])
def test_face_ufuncs_on_picks_and_python_scalars_twice_are_numpys(dtype):
    """The face's ufuncs over picked elements and over a pick and a weak Python scalar at the edges of
    the dtype, each called twice: the second call computes at once without recording anything
    (``HostScalars.binary``), and both give NumPy's dtype and value, or raise NumPy's class."""
    data = (edges(dtype, n=8) if dtype in INT_DTYPES else np.array([1.5, -2.0, 0.0, 3e38, -0.25, 7.0, 1e-3, 2.0], dtype)
            if dtype != "bool" else np.array([True, False, True, True]))
    x = nnp.asarray(data)
    x.numpy()

    def pick(i):
        return data[i:i + 1].reshape(())

    # (an integer power's negative exponent read from data gives 1, NumPy's ValueError: docs/numpy.md)
    for name in _FACE_BINARY if dtype not in INT_DTYPES else [n for n in _FACE_BINARY if n != "power"]:
        f, g = getattr(nnp, name), getattr(np, name)
        u = "pow" if name == "power" else 0
        for i in range(0, len(data), 3):
            for j in range(1, len(data), 3):
                for _ in range(2):
                    assert _same(_outcome(lambda: f(x[i], x[j])), _outcome(lambda: g(pick(i), pick(j))), u), (name, i, j)
            for w in _WEAK:
                for _ in range(2):
                    assert _same(_outcome(lambda: f(x[i], w)), _outcome(lambda: g(pick(i), w)), u), (name, i, w)
                    assert _same(_outcome(lambda: f(w, x[i])), _outcome(lambda: g(w, pick(i))), u), (name, w, i)
    for name in ("negative", "absolute", "sqrt", "tanh", "invert", "logical_not"):
        f, g = getattr(nnp, name), getattr(np, name)
        for i in range(len(data)):
            for _ in range(2):
                assert _same(_outcome(lambda: f(x[i])), _outcome(lambda: g(pick(i))), 4), (name, i)


def test_ops_over_arrays_to_a_scalar_are_numpys():
    """A 0-d result of a non-0-d operand (a sum, a dot) is no host scalar op: computed as before."""
    a = nnp.asarray(np.arange(6.0))
    a.numpy()
    assert float(a.sum()) == 15.0 and float(a @ a) == 55.0 and float(a[2:3].sum() * 2) == 4.0


@pytest.mark.parametrize("src", ["float16", "float32", "float64", "int8", "uint8", "int32", "uint32", "int64", "uint64",
                                 "bool"])
def test_casts_of_scalars_are_numpys(src):
    data = np.array([0, 1, -1.5, 200.75, 3e9, -7, 65504], np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = data.astype(src)
        x = nnp.asarray(a)
        x.numpy()
        for target in ("float16", "float32", "float64", "int16", "int32", "int64", "uint8", "bool"):
            recorded = x.astype(target).numpy()
            for i in range(len(a)):
                if a[i] < 0 and target.startswith("uint") and np.issubdtype(a.dtype, np.floating):
                    continue  # (a negative float as unsigned is the platform's; docs/numpy.md)
                same_scalar(x[i].astype(target), np.asarray(a[i]).astype(target), recorded[i])


def test_a_scalar_loop_is_numpys():
    """crc16's loop: shifts and xors of a picked byte, an ``if`` on each bit."""
    def crc16(m, data, poly=0x8408):
        crc = 0xFFFF
        for b in data:
            cur_byte = 0xFF & b
            for _ in range(8):
                if (crc & 0x0001) ^ (cur_byte & 0x0001):
                    crc = (crc >> 1) ^ poly
                else:
                    crc >>= 1
                cur_byte >>= 1
        crc = (~crc & 0xFFFF)
        return (crc << 8) | ((crc >> 8) & 0xFF)
    data = np.random.default_rng(3).integers(0, 256, 40, dtype=np.uint8)
    before = nb.engine_stats()
    assert int(crc16(nnp, nnp.asarray(data))) == int(crc16(np, data))
    after = nb.engine_stats()
    assert after["scalar_ops"] - before["scalar_ops"] >= 40 * 8 * 3 and after["evaluations"] == before["evaluations"]


def test_element_writes_between_scalar_ops_are_numpys():
    """nussinov's loop: picks, a sum, Python's ``max`` (a comparison read), an element write."""
    def fill(m, n):
        t = m.zeros((n, n), m.int32)
        for i in range(n - 1, -1, -1):
            for j in range(i + 1, n):
                t[i, j] = max(t[i, j], t[i, j - 1])
                t[i, j] = max(t[i, j], t[i + 1, j - 1] + (1 if (i + j) % 3 == 0 else 0))
                for k in range(i + 1, j):
                    t[i, j] = max(t[i, j], t[i, k] + t[k + 1, j])
        return t
    np.testing.assert_array_equal(np.asarray(fill(nnp, 9)), fill(np, 9))


@pytest.mark.parametrize("kind,dtype", [("uniform", "float64"), ("uniform", "float32"), ("normal", "float64"),
                                        ("normal", "float32"), ("bits", None)])
def test_a_small_draw_is_host_data_with_the_recorded_draws_values(kind, dtype):
    """A draw of a few values on the host (``rng.random()`` in a loop) is computed as it is made,
    host data, with the values the same counters give in a recorded draw; a Metropolis step then
    reads no trace (its test's ops run at once)."""
    from nabla.core import dtypes
    from nabla.ops.random_bits import _DRAWN_AT_ONCE, draw

    dt = None if dtype is None else dtypes.from_name(dtype)
    small = draw(7, 3, (2, 3), dt, kind)
    large = draw(7, 3, (_DRAWN_AT_ONCE + 6,), dt, kind)
    assert draw(7, 3, (), dt, kind)._impl.is_realized and not large._impl.is_realized
    assert small._impl.is_realized or (kind, dtype) == ("normal", "float32")  # (float64's, then a cast: an op)
    want = large.numpy()[:6].reshape(2, 3)
    assert small.numpy().dtype == want.dtype
    np.testing.assert_array_equal(small.numpy(), want)

    rng = nnp.random.default_rng(0)
    x, before = 0.0, nb.engine_stats()
    for _ in range(50):
        prop = x + rng.uniform(-1.0, 1.0)
        if rng.random() < nnp.exp(-0.5 * (prop ** 2 - x ** 2)):
            x = prop
    assert nb.engine_stats()["evaluations"] == before["evaluations"]


def test_compile_records_scalar_ops():
    """A compiled function traced on a picked element still computes from its input."""
    f = nb.compile(lambda x: x * 2.0 + 1.0)
    a = nb.asarray(np.arange(5.0))
    a.numpy()
    assert [float(f(a[i])) for i in range(1, 4)] == [3.0, 5.0, 7.0]
    assert f.cache_info().hits >= 1


def test_gradients_and_vmap_still_record():
    x = nb.asarray(np.float64(1.5))
    g = nb.grad(lambda t: nb.sin(t) * t)(x)
    np.testing.assert_allclose(float(g), np.cos(1.5) * 1.5 + np.sin(1.5))
    v = nb.vmap(lambda t: t * 2.0 + 1.0)(nb.asarray(np.arange(3.0)))
    np.testing.assert_array_equal(v.numpy(), np.arange(3.0) * 2 + 1)


def test_threads_compute_their_own_scalars():
    data = np.random.default_rng(5).uniform(-1, 1, 200)
    x = nnp.asarray(data)
    x.numpy()
    out = [None] * 4

    def work(k):
        acc = 0.0
        for i in range(k, 200, 4):
            acc = acc * 0.5 + nnp.tanh(x[i])
        out[k] = float(acc)

    join_all([start(work, k) for k in range(4)])
    for k in range(4):
        acc = 0.0
        for i in range(k, 200, 4):
            acc = acc * 0.5 + np.tanh(data[i])
        np.testing.assert_allclose(out[k], acc, rtol=1e-12)


def test_interpreter_path_records(monkeypatch):
    """Without the kernel (``NABLA_FUSED=0``'s engine) ops are recorded and run as before."""
    monkeypatch.setattr(GRAPH.engine, "fused_enabled", False)
    x = nb.asarray(np.arange(3.0))
    x.numpy()
    r = x[1] + x[2]
    assert not r._impl.is_realized
    assert float(r) == 3.0


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint64", "bool"])
def test_a_scalar_result_is_a_0d_array_wherever_it_is_read(dtype):
    """An op over host scalars reads its result back as NumPy's scalar (a uint64 as a 0-d array):
    exported, read, picked, and used by a recorded op over its buffer, it is NumPy's 0-d value."""
    a0 = np.array([3, 2 ** 64 - 2 if dtype == "uint64" else 250, 7], dtype)  # (a uint64 sum that wraps)
    x = nb.asarray(a0)
    x.numpy()
    op = operator.and_ if dtype == "bool" else operator.add
    got, want = op(x[1], x[2]), op(a0[1], a0[2])
    assert got._impl.is_realized, "the op was recorded, not computed at once"
    exported = got.numpy()
    assert type(exported) is np.ndarray and exported.shape == () and exported.dtype == want.dtype
    assert exported == want and got.item() == want.item() and bool(got) == bool(want)
    assert got[()].numpy() == want
    big = nb.asarray(np.arange(4096).astype(dtype))
    np.testing.assert_array_equal(op(big, got).numpy()[:5], op(np.arange(5).astype(dtype), want))
    picked = x[1]
    assert type(picked.numpy()) is np.ndarray and picked.numpy() == a0[1]


def test_a_unary_op_seen_before_is_answered_by_its_kept_program(monkeypatch):
    """``np.tanh(a[i, i])`` in a loop: after its first call, each is answered by the program kept for
    it (``HostScalars.unary``, ~2.3 us) without the general ``apply`` (its key and its operands'
    checks, ~3.7): the key ``unary`` asks is the one ``apply`` kept."""
    from nabla.runtime.host_scalars import HostScalars

    a = nnp.asarray(np.linspace(0.1, 2.0, 16).reshape(4, 4))
    for name in ("tanh", "sqrt", "negative", "exp"):
        f = getattr(nnp, name)
        f(a[0, 0])  # (planned and kept by ``apply``)
        calls = []
        applied = HostScalars.apply
        monkeypatch.setattr(HostScalars, "apply", lambda *args, **kw: calls.append(1) or applied(*args, **kw))
        got = [float(f(a[i, i])) for i in range(4)]
        monkeypatch.setattr(HostScalars, "apply", applied)
        assert calls == [], name
        np.testing.assert_allclose(got, [getattr(np, name)(a.numpy()[i, i]) for i in range(4)], rtol=1e-15)


def test_numpys_float64_scalar_with_a_pick_runs_at_once_with_numpys_bits(monkeypatch):
    """``alpha * A[i, k]`` with ``alpha`` NumPy's float64 scalar (npbench's scalars), on either side:
    a float64 pick takes it as an operand of its own dtype and, after the first call, computes at
    once by the kept program (no general ``apply``), to NumPy's bits; a float32 pick's result is
    float64, as NumPy promotes it."""
    from nabla.runtime.host_scalars import HostScalars

    data = np.random.default_rng(3).standard_normal((4, 4))
    a = nnp.asarray(data)
    alpha = np.float64(0.1)
    alpha * a[0, 0], a[0, 0] * alpha, a[0, 0] / alpha  # (planned and kept)
    calls = []
    applied = HostScalars.apply
    monkeypatch.setattr(HostScalars, "apply", lambda *args, **kw: calls.append(1) or applied(*args, **kw))
    for i in range(4):
        for got, want in ((alpha * a[i, 1], alpha * data[i, 1]), (a[1, i] * alpha, data[1, i] * alpha),
                          (a[i, i] / alpha, data[i, i] / alpha)):
            assert np.asarray(got).dtype == np.float64 and np.asarray(got).tobytes() == np.asarray(want).tobytes()
    assert calls == []
    monkeypatch.setattr(HostScalars, "apply", applied)
    f32 = nnp.asarray(data.astype(np.float32))
    for _ in range(2):
        got, want = alpha * f32[2, 3], alpha * data.astype(np.float32)[2, 3]
        assert np.asarray(got).dtype == want.dtype and np.asarray(got).tobytes() == np.asarray(want).tobytes()
