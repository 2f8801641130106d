"""NumPy corners of ``nabla.numpy`` against NumPy itself: bit views (``x.view(dtype)``), ``strides``,
``lib.stride_tricks`` (``as_strided``, ``sliding_window_view``), ``fromiter``, ``np.emath``,
``ufunc.reduceat``, ``packbits``/``unpackbits``, float16 refused by ``linalg``, and string data kept on the host."""

from __future__ import annotations

import warnings

import numpy
import pytest

import nabla
import nabla.numpy as fnp

R = numpy.random.default_rng(11)
SIZES = (5, 48, 1500)


# --- bit views -----------------------------------------------------------------------------------------

def _sample(dtype, n):
    """Random bit patterns of ``dtype``, with its special values first."""
    dt = numpy.dtype(dtype)
    if dt.kind == "b":
        return R.random(n) > 0.5
    if dt.kind in "iu":
        info = numpy.iinfo(dt)
        a = R.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        a[:2] = [info.min, info.max]
        return a
    raw = R.integers(0, 256, n * dt.itemsize, dtype=numpy.uint8).view(dt).copy()
    part = numpy.dtype(dt.char.lower()) if dt.kind == "c" else dt
    special = numpy.array([0.0, -0.0, numpy.inf, -numpy.inf, numpy.nan, -numpy.nan, 1.0, -2.5], part)
    k = min(n, special.size)
    if dt.kind == "c":
        raw.real[:k] = special[:k]
    else:
        raw[:k] = special[:k]
    return raw


def _as_max_sees(a):
    """What MAX holds of float data: a NaN as the quiet NaN of its sign, a subnormal as a zero of its sign
    (MAX's kernels flush subnormals, but for float16's, which are normal float64 numbers). Other dtypes
    unchanged."""
    if a.dtype.kind == "c":
        return _as_max_sees(a.view(a.real.dtype)).view(a.dtype)
    if a.dtype.kind != "f":
        return a
    u = numpy.dtype(f"u{a.itemsize}")
    width, mant = 8 * a.itemsize, {2: 10, 4: 23, 8: 52}[a.itemsize]
    bits = a.view(u)
    sign = bits & u.type(1 << (width - 1))
    exponent = (bits >> u.type(mant)) & u.type((1 << (width - 1 - mant)) - 1)
    quiet = u.type((((1 << (width - 1 - mant)) - 1) << mant) | (1 << (mant - 1)))
    bits = numpy.where(numpy.isnan(a), quiet | sign, bits)
    if a.itemsize > 2:
        bits = numpy.where(exponent == 0, sign, bits)
    return bits.astype(u).view(a.dtype)


def _bits(a):
    return a.view(f"u{a.itemsize}" if a.dtype.kind != "c" else f"u{a.itemsize // 2}")


def _bits_equal(got, ref, exact=None):
    """``got`` has ``ref``'s bits; where ``exact`` is given, each element may have its bits instead
    (paths that move float parts without arithmetic keep NaN payloads and subnormals)."""
    assert got.dtype == ref.dtype and got.shape == ref.shape, (got.dtype, got.shape, ref.dtype, ref.shape)
    if ref.dtype.kind == "b":
        numpy.testing.assert_array_equal(got, ref)
        return
    same = _bits(got) == _bits(ref)
    if exact is not None:
        same |= _bits(got) == _bits(exact)
    assert same.all(), (got[~same][:5], ref[~same][:5])


PAIRS = [("float32", "int32"), ("float32", "uint32"), ("float64", "int64"), ("float64", "uint64"),
         ("int32", "float32"), ("uint64", "float64"), ("int64", "float64"), ("int16", "uint16"),
         ("int8", "uint8"), ("uint8", "int8"), ("uint32", "int32")]


@pytest.mark.parametrize("src,dst", PAIRS)
@pytest.mark.parametrize("n", SIZES)
def test_view_same_itemsize_matches_numpy(src, dst, n):
    a = _sample(src, n)
    got = fnp.asarray(a).view(dst)
    assert isinstance(got, fnp.ndarray)
    _bits_equal(got.numpy(), a.view(dst))  # the same bytes: NaN payloads and subnormals kept


RESIZE = [("int64", "int32"), ("float64", "uint8"), ("float32", "int16"), ("uint8", "float64"),
          ("int16", "float32"), ("int32", "int64"), ("uint8", "uint32"), ("float64", "float32"),
          ("float32", "float64"), ("complex64", "float32"), ("float64", "complex128"),
          ("complex128", "int64"), ("int32", "complex64"), ("bool", "uint8"), ("uint8", "bool")]


@pytest.mark.parametrize("src,dst", RESIZE)
@pytest.mark.parametrize("shape", [(16,), (3, 8), (40, 64)])
def test_view_other_itemsize_rescales_the_last_axis(src, dst, shape):
    a = _sample(src, int(numpy.prod(shape))).reshape(shape)
    got = fnp.asarray(a).view(dst).numpy()
    if "complex" not in src + dst and dst != "bool":  # the same bytes, every bit kept
        _bits_equal(got, a.view(dst))
        return
    ref = _as_max_sees(a).view(dst)  # complex parts and bools are computed: NaNs quiet, subnormals flushed
    if dst == "bool":  # NumPy's bool view keeps the byte; MAX's bools are 0 or 1
        ref = ref.view(numpy.uint8) != 0
    _bits_equal(got, _as_max_sees(ref), a.view(dst) if dst != "bool" else None)


@pytest.mark.parametrize("src,dst", [("float16", "uint16"), ("int16", "float16")])
def test_view_float16(src, dst):
    a = _sample(src, 300)
    a[8:12] = numpy.array([1, 0x8001, 0x3ff, 0x83ff], numpy.uint16).view(a.dtype)  # subnormals
    _bits_equal(fnp.asarray(a).view(dst).numpy(), a.view(dst))


def test_view_of_computed_values_and_inside_transforms():
    """A computed array's view is NumPy's view of what was computed; inside ``vmap`` (and ``grad``,
    ``compile``) the view is computed by arithmetic: NaNs quiet, subnormals flushed."""
    a = _sample("float32", 64)
    finite = numpy.where(numpy.isfinite(a) & (numpy.abs(a) > 1e-30) & (numpy.abs(a) < 1e30), a, 1.0)
    got = (fnp.asarray(finite) * 2).view(fnp.int32)
    _bits_equal(got.numpy(), (finite * 2).view(numpy.int32))
    mapped = nabla.vmap(lambda r: r.view(fnp.uint32))(fnp.asarray(a.reshape(8, 8)))
    _bits_equal(mapped.numpy(), _as_max_sees(a).view(numpy.uint32).reshape(8, 8))


def test_view_round_trip_keeps_every_non_nan_value():
    a = R.standard_normal(2000) * numpy.exp(R.uniform(-300, 300, 2000))
    x = fnp.asarray(a)
    numpy.testing.assert_array_equal(x.view(fnp.int64).view(fnp.float64).numpy(), a)
    numpy.testing.assert_array_equal(x.view(fnp.uint8).view(fnp.float64).numpy(), a)
    b = R.standard_normal((7, 300)).astype(numpy.float32)
    numpy.testing.assert_array_equal(fnp.asarray(b).view(numpy.uint16).view(numpy.float32).numpy(), b)


def test_view_sees_writes_and_writes_reach_the_base():
    a = numpy.array([1.5, -2.0, numpy.nan, 3.25], numpy.float32)
    x = fnp.asarray(a)
    v = x.view(fnp.int32)
    x[0] = 7.0
    a[0] = 7.0
    numpy.testing.assert_array_equal(v.numpy(), a.view(numpy.int32))
    v[1] = 1065353216  # the bits of 1.0
    assert x.numpy()[1] == 1.0
    i = fnp.arange(6, dtype=fnp.int32)  # its floats are subnormals, which MAX flushes: untouched ones keep
    f = i.view(fnp.float32)            # their exact bits all the same
    f[0] = 1.0
    numpy.testing.assert_array_equal(i.numpy(), [1065353216, 1, 2, 3, 4, 5])
    b = fnp.arange(12, dtype=fnp.int64).reshape(3, 4)
    w = b.view(fnp.int32)
    assert w.shape == (3, 8)
    w[1, 3] = 5
    ref = numpy.arange(12, dtype=numpy.int64).reshape(3, 4)
    ref.view(numpy.int32)[1, 3] = 5
    numpy.testing.assert_array_equal(b.numpy(), ref)


def test_view_errors_and_trivial_forms():
    x = fnp.arange(6, dtype=fnp.int64).reshape(2, 3)
    with pytest.raises(ValueError, match="larger dtype.*shape \\(2, 3\\) int8"):
        fnp.arange(6, dtype=fnp.int8).reshape(2, 3).view(fnp.int16)
    with pytest.raises(ValueError, match="0d array"):
        fnp.asarray(1.0).view(fnp.float32)
    with pytest.raises(TypeError, match="string"):
        x.view("U3")
    assert fnp.asarray(1.0).view(fnp.int64).item() == numpy.array(1.0).view(numpy.int64).item()
    assert x.view().dtype == x.dtype and x.view(fnp.ndarray).shape == (2, 3)
    assert fnp.zeros((2, 0)).view(fnp.int32).shape == (2, 0)


def test_view_has_zero_derivative_and_maps_under_vmap():
    def f(x):
        return (x.view(fnp.int32).astype(fnp.float32) * x).sum()

    a = numpy.array([1.0, 2.0, -3.0], numpy.float32)
    numpy.testing.assert_array_equal(nabla.grad(f)(fnp.asarray(a)).numpy(), a.view(numpy.int32).astype(numpy.float32))
    b = R.standard_normal((3, 4)).astype(numpy.float32)
    numpy.testing.assert_array_equal(nabla.vmap(lambda r: r.view(fnp.uint32))(fnp.asarray(b)).numpy(),
                                     b.view(numpy.uint32))
    c = numpy.arange(6, dtype=numpy.int32).reshape(3, 2)
    numpy.testing.assert_array_equal(nabla.vmap(lambda r: r.view(fnp.int16))(fnp.asarray(c)).numpy(),
                                     c.view(numpy.int16))


# --- strides and stride tricks ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (3,), (2, 3, 4), (1, 1), (7, 1, 5), (0,), (0, 3), (2, 0, 3)])
@pytest.mark.parametrize("dtype", ["float64", "int32", "uint8", "complex64", "bool"])
def test_strides(shape, dtype):
    assert fnp.zeros(shape, dtype).strides == numpy.zeros(shape, dtype).strides


def _strided_cases(n, itemsize):
    rows = (n - 4) // 2 + 1
    return [((n - 3, 4), (itemsize, itemsize)),             # rolling windows
            ((rows, 4), (2 * itemsize, itemsize)),           # hopping windows
            ((3, n), (0, itemsize)),                          # a broadcast row
            ((n // 3, 3), (3 * itemsize, itemsize)),          # a reshape
            ((n // 2,), (2 * itemsize,))]                     # every other element


@pytest.mark.parametrize("n", [12, 1200])
@pytest.mark.parametrize("dtype", ["float64", "int32", "float32"])
def test_as_strided_matches_numpy(n, dtype):
    from numpy.lib.stride_tricks import as_strided

    a = (R.standard_normal(n) * 100).astype(dtype)
    x = fnp.asarray(a)
    for shape, strides in _strided_cases(n, a.itemsize):
        got = fnp.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)
        numpy.testing.assert_array_equal(got.numpy(), as_strided(a, shape, strides, writeable=False))
    m = a[: (n // 4) * 4].reshape(n // 4, 4)  # 2x2 blocks of a 2-D array
    s = m.strides
    shape, strides = (m.shape[0] - 1, 3, 2, 2), (s[0], s[1], s[0], s[1])
    numpy.testing.assert_array_equal(fnp.lib.stride_tricks.as_strided(fnp.asarray(m), shape, strides).numpy(),
                                     as_strided(m, shape, strides))


def test_as_strided_is_read_only_sees_writes_and_refuses_bad_strides():
    x = fnp.arange(20.0)
    r = fnp.lib.stride_tricks.as_strided(x, (5, 4), (16, 8))
    x[2] = 100.0
    assert r.numpy()[1, 0] == 100.0 and r.numpy()[0, 2] == 100.0
    with pytest.raises(ValueError, match="read-only"):
        r[0, 0] = 1.0
    with pytest.raises(ValueError, match="multiples of the itemsize 8 of float64"):
        fnp.lib.stride_tricks.as_strided(x, (5, 4), (12, 8))
    with pytest.raises(ValueError, match="outside the 20 elements"):
        fnp.lib.stride_tricks.as_strided(x, (5, 4), (40, 8))
    with pytest.raises(ValueError, match="outside"):
        fnp.lib.stride_tricks.as_strided(x, (3,), (-8,))
    with pytest.warns(UserWarning, match="read-only"):
        fnp.lib.stride_tricks.as_strided(x, (2,), (8,), writeable=True)
    assert fnp.lib.stride_tricks.as_strided(x, (3, 0), (8, 8)).shape == (3, 0)
    numpy.testing.assert_array_equal(fnp.lib.stride_tricks.as_strided(x).numpy(), x.numpy())


@pytest.mark.parametrize("shape,window,axis", [((1500,), 7, None), ((30, 40), (3, 5), None), ((30, 40), 4, 1),
                                               ((6, 7, 8), (2, 3), (0, 2)), ((9,), 9, 0)])
def test_sliding_window_view_matches_numpy(shape, window, axis):
    from numpy.lib.stride_tricks import sliding_window_view

    a = R.standard_normal(shape)
    got = fnp.lib.stride_tricks.sliding_window_view(fnp.asarray(a), window, axis)
    numpy.testing.assert_array_equal(got.numpy(), sliding_window_view(a, window, axis))


def test_sliding_window_view_errors_and_views():
    x = fnp.arange(6)
    w = fnp.lib.stride_tricks.sliding_window_view(x, 3)
    x[1] = 50
    assert w.numpy()[0, 1] == 50 and w.numpy()[1, 0] == 50
    with pytest.raises(ValueError, match="read-only"):
        w[0, 0] = 1
    with pytest.raises(ValueError, match="larger than input array shape"):
        fnp.lib.stride_tricks.sliding_window_view(x, 7)
    with pytest.raises(ValueError, match="negative"):
        fnp.lib.stride_tricks.sliding_window_view(x, -1)
    with pytest.raises(ValueError, match="matching length"):
        fnp.lib.stride_tricks.sliding_window_view(x, (2,), (0, 1))
    with pytest.raises(ValueError, match="for all dimensions"):
        fnp.lib.stride_tricks.sliding_window_view(fnp.zeros((3, 3)), 2)
    with pytest.raises(numpy.exceptions.AxisError):
        fnp.lib.stride_tricks.sliding_window_view(x, 2, 5)
    with pytest.warns(UserWarning, match="read-only"):
        fnp.lib.stride_tricks.sliding_window_view(x, 2, writeable=True)


# --- fromiter ---------------------------------------------------------------------------------------------

def test_fromiter():
    for n in (0, 7, 2000):
        for dtype in (float, numpy.int32, numpy.float32, bool):
            got = fnp.fromiter((i * i % 5 for i in range(n)), dtype)
            ref = numpy.fromiter((i * i % 5 for i in range(n)), dtype)
            assert isinstance(got, fnp.ndarray) and got.dtype == ref.dtype
            numpy.testing.assert_array_equal(got.numpy(), ref)
    numpy.testing.assert_array_equal(fnp.fromiter(range(10), fnp.int64, count=4).numpy(), [0, 1, 2, 3])
    with pytest.raises(ValueError, match="fromiter: iterator too short"):
        fnp.fromiter(range(3), float, 5)
    with pytest.raises(TypeError, match="object"):
        fnp.fromiter(range(3), object)


# --- np.emath ---------------------------------------------------------------------------------------------

def _emath_inputs():
    return [R.uniform(-3, 3, 2000), R.uniform(0.1, 0.9, 1500), R.uniform(-3, 3, 50).astype(numpy.float32),
            R.uniform(0.1, 0.9, 50).astype(numpy.float32), numpy.arange(-5, 6), numpy.arange(1, 9, dtype=numpy.int16),
            numpy.array([0.0, -0.0, 1.0, -1.0, 4.0])]


@pytest.mark.parametrize("name", ["sqrt", "log", "log2", "log10", "arccos", "arcsin", "arctanh"])
def test_emath_unary_matches_numpy(name):
    with numpy.errstate(all="ignore"):
        for a in _emath_inputs():
            ref = getattr(numpy.emath, name)(a)
            got = getattr(fnp.emath, name)(fnp.asarray(a)).numpy()
            assert got.dtype == ref.dtype, (a.dtype, got.dtype, ref.dtype)
            tol = 1e-5 if ref.dtype in (numpy.complex64, numpy.float32) else 1e-12
            numpy.testing.assert_allclose(got, ref, rtol=tol, atol=tol)


def test_emath_power_and_logn_match_numpy():
    x, p = R.uniform(-4, 4, 1200), R.uniform(-2, 2, 1200)
    numpy.testing.assert_allclose(fnp.emath.power(fnp.asarray(x), fnp.asarray(p)).numpy(), numpy.emath.power(x, p),
                                  rtol=1e-10)
    assert fnp.emath.power(fnp.asarray(x), 2).dtype == numpy.emath.power(x, 2).dtype
    got = fnp.emath.power(fnp.asarray([2, 3, -4]), fnp.asarray([-1, 2, 3])).numpy()
    ref = numpy.emath.power([2, 3, -4], [-1, 2, 3])
    assert got.dtype == ref.dtype  # (complex powers go through exp and log: a few ulps from NumPy's products)
    numpy.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-10)
    for n, v in ((2, x), (10, numpy.abs(x) + 0.1), (-3, x)):
        numpy.testing.assert_allclose(fnp.emath.logn(n, fnp.asarray(v)).numpy(), numpy.emath.logn(n, v), rtol=1e-10)
    assert complex(fnp.emath.sqrt(-1)) == 1j and float(fnp.lib.scimath.sqrt(4)) == 2.0


# --- ufunc.reduceat ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "logical_and", "logical_or",
                                  "logical_xor", "bitwise_or", "subtract"])
@pytest.mark.parametrize("shape,axis", [((20,), 0), ((1500,), 0), ((6, 40), 1), ((30, 5), 0), ((4, 50, 3), 1)])
def test_reduceat_matches_numpy(name, shape, axis):
    for dtype in (numpy.float64, numpy.float32, numpy.int32, numpy.int8, bool):
        if (name == "bitwise_or" and dtype in (numpy.float64, numpy.float32)) or (name == "subtract" and dtype is bool):
            continue
        if dtype is bool:
            a = R.random(shape) > 0.5
        elif name == "multiply":  # products that neither overflow nor vanish
            a = (R.uniform(0.9, 1.1, shape) if dtype in (numpy.float64, numpy.float32)
                 else R.integers(-1, 2, shape)).astype(dtype)
        else:
            a = R.uniform(-50, 50, shape).astype(dtype)
        n = shape[axis]
        idx = numpy.sort(R.integers(0, n, max(1, n // 7)))
        if name != "subtract":
            idx = numpy.concatenate([idx, [n - 1, 0, idx[0]]])  # slices that do not grow, and back to the start
        ref = getattr(numpy, name).reduceat(a, idx, axis=axis)
        got = getattr(fnp, name).reduceat(fnp.asarray(a), idx, axis=axis).numpy()
        assert got.dtype == ref.dtype and got.shape == ref.shape, (dtype, got.dtype, ref.dtype)
        # (a float32 sum's rounding scales with its terms, not its result: a slice whose terms
        # cancel may differ from NumPy's pairwise loop far beyond rtol in float32)
        atol = 1e-6 * float(numpy.abs(a.astype(numpy.float64)).sum(axis=axis).max()) if dtype == numpy.float32 else 0
        numpy.testing.assert_allclose(got, ref, rtol=1e-4 if dtype == numpy.float32 else 1e-10, atol=atol)


def test_reduceat_keywords_and_errors():
    a = numpy.arange(8)
    numpy.testing.assert_array_equal(fnp.add.reduceat(fnp.asarray(a), [0, 4, 1, 5]).numpy(),
                                     numpy.add.reduceat(a, [0, 4, 1, 5]))
    got = fnp.add.reduceat(fnp.asarray(a), fnp.asarray([0, 4]), dtype=float)
    assert got.dtype == numpy.float64 and got.tolist() == [6.0, 22.0]
    out = fnp.zeros(2, dtype=fnp.int64)
    fnp.maximum.reduceat(fnp.asarray(a), [0, 5], out=out)
    assert out.tolist() == [4, 7]
    assert fnp.add.reduceat(fnp.asarray(a), []).shape == numpy.add.reduceat(a, []).shape
    with pytest.raises(IndexError, match="index 8 out-of-bounds in add.reduceat \\[0, 8\\)"):
        fnp.add.reduceat(fnp.asarray(a), [0, 8])
    with pytest.raises(IndexError, match="index -1"):
        fnp.add.reduceat(fnp.asarray(a), [-1])
    with pytest.raises(TypeError, match="scalar"):
        fnp.add.reduceat(fnp.asarray(1.0), [0])
    with pytest.raises(numpy.exceptions.AxisError):
        fnp.add.reduceat(fnp.ones((2, 3)), [0], axis=2)
    with pytest.raises(ValueError, match="binary"):
        fnp.sin.reduceat(fnp.asarray(a), [0])
    with pytest.raises(NotImplementedError, match="not associative"):
        fnp.subtract.reduceat(fnp.arange(1000.0), [0])


# --- packbits / unpackbits --------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(3,), (13,), (2, 11), (5, 3, 17), (1001,), (40, 37)])
@pytest.mark.parametrize("dtype", [bool, numpy.int64, numpy.uint8, numpy.int8])
def test_packbits_unpackbits_match_numpy(shape, dtype):
    a = R.integers(-2, 3, shape).astype(dtype)
    for axis in [None, *range(-len(shape), len(shape))]:
        for order in ("big", "little"):
            ref = numpy.packbits(a, axis=axis, bitorder=order)
            got = fnp.packbits(fnp.asarray(a), axis=axis, bitorder=order).numpy()
            assert got.dtype == ref.dtype
            numpy.testing.assert_array_equal(got, ref)
            along = ref.size if axis is None else ref.shape[axis]
            for count in (None, 3, -2, 8 * along + 4):
                back = numpy.unpackbits(ref, axis=axis, count=count, bitorder=order)
                got = fnp.unpackbits(fnp.asarray(ref), axis=axis, count=count, bitorder=order).numpy()
                assert got.dtype == back.dtype
                numpy.testing.assert_array_equal(got, back)


def test_packbits_errors():
    with pytest.raises(TypeError, match="integer or boolean.*float64"):
        fnp.packbits(fnp.ones(3))
    with pytest.raises(TypeError, match="unsigned byte.*int64"):
        fnp.unpackbits(fnp.ones(3, dtype=int))
    with pytest.raises(ValueError, match="'little' or 'big'"):
        fnp.packbits(fnp.ones(3, dtype=bool), bitorder="middle")
    with pytest.raises(numpy.exceptions.AxisError):
        fnp.packbits(fnp.ones((2, 2), dtype=bool), axis=2)
    with pytest.raises(ValueError, match="-count larger"):
        fnp.unpackbits(fnp.ones(3, dtype=fnp.uint8), count=-30)
    numpy.testing.assert_array_equal(fnp.packbits(fnp.asarray(5)).numpy(), numpy.packbits(numpy.array(5)))



# --- strings stay on the host -----------------------------------------------------------------------------

# --- products of bools: NumPy's OR of ANDs ---------------------------------------------------------

def test_bool_products_match_numpy():
    rng = numpy.random.default_rng(7)
    a, b = rng.random((6, 7)) > 0.6, rng.random((7, 7)) > 0.7
    v, w = rng.random(7) > 0.5, numpy.zeros(7, bool)
    s = rng.random((3, 6, 7)) > 0.6
    cases = [(fnp.matmul, numpy.matmul, a, b), (lambda x, y: x @ y, lambda x, y: x @ y, a, b),
             (fnp.dot, numpy.dot, a, b), (fnp.dot, numpy.dot, v, v), (fnp.dot, numpy.dot, v, w),
             (fnp.matmul, numpy.matmul, a, v), (fnp.matmul, numpy.matmul, v, b),
             (fnp.matmul, numpy.matmul, s, b), (fnp.inner, numpy.inner, a, b),
             (lambda x, y: fnp.tensordot(x, y, 1), lambda x, y: numpy.tensordot(x, y, 1), s, b.T)]
    for f, g, x, y in cases:
        got, want = numpy.asarray(f(fnp.asarray(x), fnp.asarray(y))), g(x, y)
        assert got.dtype == want.dtype == numpy.bool_ and got.shape == want.shape
        numpy.testing.assert_array_equal(got, want)
    m = fnp.asarray(b)
    m @= fnp.asarray(b)
    numpy.testing.assert_array_equal(numpy.asarray(m), b @ b)


def test_digitize_refuses_complex_values_as_numpy():
    with pytest.raises(TypeError):
        numpy.digitize(numpy.array([1 + 1j]), numpy.array([0.0, 2.0]))
    with pytest.raises(TypeError, match="digitize"):
        fnp.digitize(fnp.asarray(numpy.array([1 + 1j])), fnp.asarray(numpy.array([0.0, 2.0])))


def test_bool_reductions_isclose_and_refusals_as_numpy():
    """Cases the face_calls fuzz family met: bool extremes by ufunc.reduce, sums and products in
    bool, isclose of complex values with NaN or infinite parts, linalg.matmul of bools, gradient of bools."""
    b = numpy.array([[True, False, True], [False, False, True]])
    z = numpy.array([complex(numpy.inf, 1), complex(1, numpy.nan), 1 + 1j, numpy.inf, -numpy.inf])
    w = numpy.array([complex(numpy.inf, 1), complex(1, numpy.nan), 1 + 1.000001j, numpy.inf, numpy.inf])
    cases = [lambda m: m.maximum.reduce(m.asarray(b), axis=1), lambda m: m.minimum.reduce(m.asarray(b), axis=None),
             lambda m: m.sum(m.asarray(b), axis=1, dtype="bool"), lambda m: m.prod(m.asarray(b), axis=0, dtype="bool"),
             lambda m: m.isclose(m.asarray(z), m.asarray(w), equal_nan=True), lambda m: m.isclose(m.asarray(z), m.asarray(w)),
             lambda m: m.linalg.matmul(m.asarray(b), m.asarray(b).T)]
    for case in cases:
        want, got = numpy.asarray(case(numpy)), numpy.asarray(case(fnp))
        assert got.dtype == want.dtype and numpy.array_equal(got, want)
    with pytest.raises(TypeError):
        numpy.gradient(b[0])
    with pytest.raises(TypeError, match="gradient"):
        fnp.gradient(fnp.asarray(b[0]))
    for m in (numpy, fnp):  # too short is NumPy's first complaint, before the subtraction
        with pytest.raises(ValueError):
            m.gradient(m.asarray(b[0, :1]))


@pytest.mark.parametrize("data", [[True, False, True, True], [True], [False, False], []])
def test_intersect1d_of_bools_with_indices(data):
    """The second array's indices come from a search, which runs on bools as 0 and 1."""
    a = numpy.array(data, dtype=bool)
    want = numpy.intersect1d(a, a[::2], return_indices=True)
    got = fnp.intersect1d(fnp.asarray(a), fnp.asarray(a[::2]), return_indices=True)
    for g, w in zip(got, want):
        g = numpy.asarray(g)
        assert g.dtype == w.dtype and numpy.array_equal(g, w)


@pytest.mark.parametrize("shape", [(5, 7), (1, 7), (7, 1), (7,)])
def test_cov_of_columns_follows_numpy_2(shape):
    """NumPy 2 turns any 2-D ``m`` for ``rowvar=False`` (a one-row matrix: variables with one
    observation each, NaN covariances)."""
    a = numpy.random.default_rng(0).standard_normal(shape)
    for rowvar in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = numpy.cov(a, rowvar=rowvar)
            got = fnp.cov(fnp.asarray(a), rowvar=rowvar).numpy()
        assert got.shape == want.shape and numpy.allclose(got, want, equal_nan=True)


@pytest.mark.parametrize("call", ["interp_x", "interp_xp", "bincount_weights"])
def test_complex_where_numpy_casts_safely_is_refused(call):
    """``interp``'s coordinates and ``bincount``'s weights are cast to float64 by NumPy's 'safe'
    rule: complex data raises its TypeError, not a silently dropped imaginary part."""
    calls = {
        "interp_x": lambda m: m.interp(m.asarray([0.5 + 1j]), m.asarray([0.0, 1.0]), m.asarray([1.0, 2.0])),
        "interp_xp": lambda m: m.interp(m.asarray([0.5]), m.asarray([0.0 + 0j, 1.0]), m.asarray([1.0, 2.0])),
        "bincount_weights": lambda m: m.bincount(m.asarray([0, 1]), weights=m.asarray([1j, 2.0])),
    }
    with pytest.raises(TypeError, match="rule 'safe'"):
        calls[call](numpy)
    with pytest.raises(TypeError, match="rule 'safe'"):
        calls[call](fnp)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "rfft2", "irfft2",
                                  "rfftn", "irfftn"])
def test_fft_of_float16_as_numpy(name):
    """float16 data is transformed in float32, as NumPy does: complex results are complex64, and a
    real result of a one-axis transform is float16 again (an n-D one, an ifft then an irfft, float32)."""
    h = R.standard_normal((6, 10)).astype(numpy.float16)
    for x in (h, h[0]):
        if x.ndim == 1 and name.endswith("2"):
            continue
        want = getattr(numpy.fft, name)(x)
        got = getattr(fnp.fft, name)(fnp.asarray(x)).numpy()
        assert got.dtype == want.dtype and got.shape == want.shape
        numpy.testing.assert_allclose(got, want, rtol=3e-3, atol=3e-2)


def test_place_repeats_its_values_as_numpy():
    """``place`` fills the mask's true places with ``vals`` in order, repeated as needed; an empty
    ``vals`` is an error only where something is to be placed."""
    for count_of, vals in ((7, [1, 2, 3]), (2, [5, 6, 7]), (0, [])):
        want = numpy.arange(9.0)
        mask = numpy.arange(9) < count_of
        numpy.place(want, mask, vals)
        got = fnp.asarray(numpy.arange(9.0))
        fnp.place(got, fnp.asarray(mask), vals)
        numpy.testing.assert_array_equal(got.numpy(), want)
    with pytest.raises(ValueError, match="empty"):
        numpy.place(numpy.zeros(3), numpy.ones(3, bool), [])
    with pytest.raises(ValueError, match="empty"):
        fnp.place(fnp.zeros(3), fnp.ones(3, dtype=bool), [])


@pytest.mark.parametrize("shape,ind", [((4, 6, 8, 3), 2), ((24, 8, 3), 1)])
def test_tensorinv_as_numpy(shape, ind):
    a = numpy.eye(24).reshape(shape) + 0.1 * R.standard_normal(shape)
    want = numpy.linalg.tensorinv(a, ind=ind)
    got = fnp.linalg.tensorinv(fnp.asarray(a), ind=ind).numpy()
    assert got.shape == want.shape
    numpy.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    numpy.testing.assert_allclose(numpy.tensordot(got, a, ind if ind == 1 else 2).reshape(-1),
                                  numpy.eye(numpy.prod(shape[ind:])).reshape(-1), atol=1e-10)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "uint8", "uint16", "int32", "int64", "float16",
                                   "float32", "float64"])
def test_sort_complex_dtype_and_conj_of_real_as_numpy(dtype):
    """``sort_complex`` widens as NumPy's (8- and 16-bit integers to complex64, the rest to
    complex128); ``ndarray.conj`` of real data (bool too) is the array itself."""
    a = (R.standard_normal(9) * 5).astype(dtype)
    want = numpy.sort_complex(a)
    got = fnp.sort_complex(fnp.asarray(a)).numpy()
    assert got.dtype == want.dtype
    numpy.testing.assert_array_equal(got, want)
    x = fnp.asarray(a)
    assert x.conj() is x and x.conjugate() is x


@pytest.mark.parametrize("args", [((2, 10),), (3, 3), ((30,),), (25,), ((2, 3, 5),), ((0,),)])
def test_ndarray_resize_in_place_as_numpy(args):
    """``a.resize(shape)``: the same array, its elements in order, cut or followed by zeros (where
    ``np.resize`` repeats them); refused where views are involved, as NumPy refuses."""
    want = numpy.arange(20.0).reshape(5, 4).copy()
    got = fnp.asarray(want)
    want.resize(*args, refcheck=False)
    assert got.resize(*args) is None
    numpy.testing.assert_array_equal(got.numpy(), want)
    base = fnp.arange(5.0)
    view = base[1:]
    with pytest.raises(ValueError, match="resize"):
        base.resize(3)
    with pytest.raises(ValueError, match="resize"):
        view.resize(2)
