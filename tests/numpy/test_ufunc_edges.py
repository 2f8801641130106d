"""The face's ufuncs at the edges of each dtype against NumPy, down each first-sight path: of floats
zeros, the largest and smallest normals, infinities, NaN, quotients past 2^53, results next to
overflow (subnormal results are left out: MAX's kernels flush them, docs/numpy.md); of integers the
extremes and their neighbours, where arithmetic wraps and division traps."""

import itertools
import warnings

import numpy as np
import pytest

import nabla.numpy as fnp


def _edges(dtype) -> np.ndarray:
    fi = np.finfo(dtype)
    big = float(fi.max)
    values = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -3.0, 1e-3, 0.1, float(fi.tiny), big, -big, big / 3,
              float(fi.eps), np.sqrt(big), np.inf, -np.inf, np.nan, 10.0, -10.5, 100.0, 1 + float(fi.eps),
              1 - float(fi.eps) / 2, 88.0, 700.0, -700.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.array(values, dtype=dtype)


def _pairs(dtype):
    a, b = np.array(list(itertools.product(_edges(dtype), _edges(dtype)))).T.astype(dtype)
    return a, b


#: the ufuncs whose zero of either sign NumPy's own loops pick by implementation: maximum(-0.0, 0.0)
#: is 0.0 and maximum(0.0, -0.0) is -0.0 on NumPy 2.4's x86 loops, where its documented
#: ``where(x1 >= x2, x1, x2)`` gives -0.0 and 0.0; their other results are exact
ZERO_SIGN_FREE = {"maximum", "minimum", "fmax", "fmin"}


def _assert_numpys(got, want, dtype, ulp=0, zero_sign_free=False):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    if zero_sign_free:  # (a zero of either sign where NumPy's is a zero)
        got = np.where((got == 0) & (want == 0), want, got)
    subnormal = (np.abs(want) < np.finfo(want.dtype).tiny) & (want != 0)
    # (exact: the sign of a zero too, which a distance of 0 would not see)
    close = (np.abs(got.astype(np.float64) - want.astype(np.float64)) <= ulp * np.spacing(np.abs(want)).astype(np.float64)) \
        if ulp else np.zeros(want.shape, bool)
    same = (got == want) & (np.signbit(got) == np.signbit(want))
    ok = same | (np.isnan(got) & np.isnan(want)) | close | subnormal
    assert ok.all(), (np.flatnonzero(~ok)[:5], got[~ok][:5], want[~ok][:5])


EXACT = ["fmod", "remainder", "floor_divide", "copysign", "nextafter", "maximum", "minimum", "fmax", "fmin",
         "heaviside", "divide"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", EXACT)
def test_exact_binary_ufuncs_at_the_edges(name, dtype, first_sight):
    """fmod and remainder are exact (mod(1, 0.001) is 0.00099999999999997918, not -2e-17), x // inf
    and inf // y are NumPy's (-1.0 and NaN, where the standard says -0 and inf)."""
    a, b = _pairs(dtype)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(a, b)
    got = getattr(fnp, name)(fnp.asarray(a), fnp.asarray(b)).numpy()
    _assert_numpys(got, want, dtype, zero_sign_free=name in ZERO_SIGN_FREE)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logaddexp2_and_spacing_at_the_edges(dtype, first_sight):
    a, b = _pairs(dtype)
    with np.errstate(all="ignore"):
        want = np.logaddexp2(a, b)
        spacing = np.spacing(_edges(dtype))
    _assert_numpys(fnp.logaddexp2(fnp.asarray(a), fnp.asarray(b)).numpy(), want, dtype, ulp=2)
    _assert_numpys(fnp.spacing(fnp.asarray(_edges(dtype))).numpy(), spacing, dtype)
    # spacing of -0.0 is positive, as of 0.0 (NumPy tests x < 0, not the sign bit); a path that
    # flushes the subnormal gives +0.0 (arctan2 of it is then pi, NumPy's, not -pi)
    zeros = np.array([-0.0, 0.0], dtype)
    got = fnp.spacing(fnp.asarray(zeros)).numpy()
    assert not np.signbit(got).any() and (got >= 0).all(), got


def test_float16_ufuncs_at_the_edges(first_sight):
    """The exact ufuncs, ``logaddexp2`` and ``spacing`` of float16, pending together: one trace per
    path (MAX's interpreter has no float16 kernels, casts included, so each float16 structure is
    compiled: one model of them all, not one each). nextafter steps float16's own neighbours,
    spacing is NumPy's half spacing (positive, and below |x| for negative x), logaddexp2(-1, -1)
    is 0 (float16 arithmetic would give -3e-4)."""
    a, b = _pairs("float16")
    edges = _edges("float16")
    names = EXACT + ["logaddexp2"]
    minus_one = np.array([-1.0], "float16")
    with np.errstate(all="ignore"):
        want = [getattr(np, name)(a, b) for name in names] + [np.spacing(edges), np.logaddexp2(minus_one, minus_one)]
    x, y, e, m = fnp.asarray(a), fnp.asarray(b), fnp.asarray(edges), fnp.asarray(minus_one)
    got = [getattr(fnp, name)(x, y) for name in names] + [fnp.spacing(e), fnp.logaddexp2(m, m)]
    for name, ours, theirs in zip(names + ["spacing", "logaddexp2(-1, -1)"], got, want):
        if name != "logaddexp2(-1, -1)":  # (its zero's sign is MAX's interpreter's: below)
            _assert_numpys(ours.numpy(), theirs, "float16", ulp=2 if name == "logaddexp2" else 0,
                           zero_sign_free=name in ZERO_SIGN_FREE)
    assert got[-1].numpy()[0] == 0  # (-0.0 on MAX's interpreter, NumPy's 0.0 elsewhere)


def test_what_maxs_compiler_folds_is_still_ieee(monkeypatch):
    """MAX's graph compiler folds x - x to 0, x + -x to 0, x == x and x >= x to True, whatever x
    holds; NumPy's inf - inf is NaN and NaN == NaN is False. One compiled model of them all."""
    import nabla

    monkeypatch.setattr(nabla.core.graph.GRAPH.engine, "policy", "compile")
    x = np.array([np.inf, -np.inf, np.nan, -0.0, 1.5, -2.0])
    forms = {"x - x": lambda m, v: v - v, "x + -x": lambda m, v: v + -v, "x*x - x*x": lambda m, v: v * v - v * v,
             "x == x": lambda m, v: v == v, "x != x": lambda m, v: v != v, "x >= x": lambda m, v: v >= v,
             "x <= x": lambda m, v: v <= v, "exp(x) == exp(x)": lambda m, v: m.exp(v) == m.exp(v)}
    v = fnp.asarray(x)
    got = [f(fnp, v) for f in forms.values()]  # (pending together: one trace, one model)
    with np.errstate(all="ignore"):
        for name, f, ours in zip(forms, forms.values(), got):
            np.testing.assert_array_equal(ours.numpy(), f(np, x), err_msg=name)


def test_fmod_and_remainder_are_exact_for_wide_quotients():
    a = np.array([1e20, -1e20, 1e300, 1.0, -1.0, 3.0, 1e10, 5.0, 1.0], np.float64)
    b = np.array([3.0, 3.0, 7e-300, 0.001, 0.001, 0.1, 0.1, 0.3, -np.finfo(np.float64).max], np.float64)
    for name in ("fmod", "remainder", "floor_divide"):
        got = getattr(fnp, name)(fnp.asarray(a), fnp.asarray(b)).numpy()
        np.testing.assert_array_equal(got, getattr(np, name)(a, b), err_msg=name)


ULP32 = {
    "exp": np.concatenate([np.linspace(-87.3, 88.72, 40001), [88.7228, 80.5, -87.0]]),
    "expm1": np.linspace(-20, 88.72, 20001),
    "sinh": np.linspace(-89.4, 89.4, 40001),
    "cosh": np.linspace(-89.4, 89.4, 40001),
}


@pytest.mark.parametrize("name", sorted(ULP32))
def test_float32_exponentials_are_within_two_ulp_up_to_overflow(name, first_sight):
    """float32 exp near the top of its range (MAX's loses up to 6 ulp, and saturates at 2.4e38 from
    88.38 on; sinh and cosh overflowed from 88.7 where their values are finite up to 89.4): against
    float64's value rounded to float32, an oracle independent of both."""
    x = ULP32[name].astype(np.float32)
    want = getattr(np, name)(x.astype(np.float64)).astype(np.float32)
    _assert_numpys(getattr(fnp, name)(fnp.asarray(x)).numpy(), want, "float32", ulp=2)


def test_float64_hyperbolics_are_finite_up_to_overflow(first_sight):
    x = np.array([709.5, 709.9, 710.0, 710.4, 710.47, -710.4, 710.5, 711.0])
    for name in ("sinh", "cosh"):
        with np.errstate(over="ignore"):
            want = getattr(np, name)(x)
        _assert_numpys(getattr(fnp, name)(fnp.asarray(x)).numpy(), want, "float64", ulp=4)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", ["sin", "cos", "sinh", "cosh", "exp"])
def test_complex_exponentials_are_finite_where_numpys_are(name, dtype, first_sight):
    """e^a overflows before e^a cos b does: sin(0.5 + 709.5j) is 3.2e307 + 5.9e307j, not inf."""
    top = 89.0 if dtype == "complex64" else 709.5
    rng = np.random.default_rng(7)
    z = rng.uniform(-3, 3, 400) + 1j * rng.uniform(top - 2, top + 1.2, 400) * rng.choice([-1, 1], 400)
    z = z if name in ("sin", "cos") else z * 1j
    z = z.astype(dtype)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(z)
    got = getattr(fnp, name)(fnp.asarray(z)).numpy()
    np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))
    finite = np.isfinite(want) & (np.abs(want) > np.finfo(dtype).tiny * 1e10)
    np.testing.assert_allclose(got[finite], want[finite], rtol=8 * np.finfo(dtype).eps)


def _int_edges(dtype) -> np.ndarray:
    i = np.iinfo(dtype)
    values = {0, 1, 2, 3, 7, -1, -2, -7, i.max, i.max - 1, i.max // 2 + 1, i.min, i.min + 1, i.min // 2,
              2 ** 53 + 1, -2 ** 53 - 1, 2 ** 62 + 3}
    return np.array(sorted(v for v in values if i.min <= v <= i.max), dtype=dtype)


INTEGER = ["add", "subtract", "multiply", "floor_divide", "remainder", "fmod", "gcd", "lcm", "maximum", "less"]


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_integer_ufuncs_at_the_edges(dtype, first_sight):
    """Wrapping as NumPy's: MIN // -1 is MIN (x86's division traps there, killing the process), a zero
    divisor gives 0, gcd(MIN, x) takes MIN's magnitude (gcd(-128, -127) is 1, not -1)."""
    e = _int_edges(dtype)
    a, b = np.repeat(e, len(e)), np.tile(e, len(e))
    x, y = fnp.asarray(a), fnp.asarray(b)
    got = [getattr(fnp, name)(x, y) for name in INTEGER]  # (pending together: one trace)
    with np.errstate(all="ignore"):
        for name, ours in zip(INTEGER, got):
            want = getattr(np, name)(a, b)
            ours = ours.numpy()
            assert ours.dtype == want.dtype, name
            bad = np.flatnonzero(ours != want)
            assert not bad.size, (name, a[bad][:3], b[bad][:3], ours[bad][:3], want[bad][:3])
    if np.iinfo(dtype).min:  # every element MIN // -1 (a trace of one division: where a trap kills the process)
        lowest, minus_one = np.full(9, np.iinfo(dtype).min, dtype), np.full(9, -1, dtype)
        for name in ("floor_divide", "remainder", "fmod"):
            with np.errstate(all="ignore"):
                want = getattr(np, name)(lowest, minus_one)
            np.testing.assert_array_equal(getattr(fnp, name)(fnp.asarray(lowest), fnp.asarray(minus_one)).numpy(), want)



@pytest.mark.parametrize("dtype", ["int8", "int64", "uint8", "float64", "float32"])
def test_remainder_and_floor_divide_of_one_dtype_skip_dtype_resolution(dtype, monkeypatch):
    """``x % y`` (any real dtype) and ``x // y`` (integers) of one dtype, elements picked in a loop
    included, are their op as it is (no dtype resolution: a hash's ``(h * 31 + k) % p`` step costs
    what ``+`` costs), with NumPy's values at the edges; float ``//`` keeps its composed corners."""
    from nabla.numpy import _ufuncs
    if np.dtype(dtype).kind == "f":
        e = np.array([-np.inf, -7.5, -1.0, -0.0, 0.0, 0.5, 3.0, np.inf, np.nan], dtype)
    else:
        e = _int_edges(dtype)
    a, b = np.repeat(e, len(e)), np.tile(e, len(e))
    x, y = fnp.asarray(a), fnp.asarray(b)
    resolved = []
    real = _ufuncs.ufunc._compute
    monkeypatch.setattr(_ufuncs.ufunc, "_compute", lambda self, *args: resolved.append(self.__name__) or real(self, *args))
    names = ["remainder"] + (["floor_divide"] if np.dtype(dtype).kind != "f" else [])
    with np.errstate(all="ignore"):
        for name in names:
            want = getattr(np, name)(a, b)
            np.testing.assert_array_equal(getattr(fnp, name)(x, y).numpy(), want)
            picked = [getattr(fnp, name)(x[k], y[k]) for k in range(0, len(a), 7)]
            np.testing.assert_array_equal(np.array([p.numpy() for p in picked]), want[::7])
    assert resolved == []


def _subnormal(v, info):
    return (v != 0) & (np.abs(v) < info.smallest_normal)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_nextafter_and_spacing_are_numpys_bit_for_bit(dtype, first_sight):
    """``nextafter`` steps x's bits (the program kernel's opcodes; float16's own bits in its float16
    form, its next float not being float32's) and ``spacing`` is composed from it: zeros of both signs, subnormals,
    the largest finite value, infinities, NaN, and random values, toward every kind of neighbour.
    MAX's graphs (the interpreter's path) flush float32 and float64 subnormals: not asked there."""
    info = np.finfo(dtype)
    special = np.array([0.0, -0.0, info.smallest_subnormal, -info.smallest_subnormal, info.smallest_normal,
                        -info.smallest_normal, info.max, -info.max, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.0,
                        info.eps], dtype)
    rng = np.random.default_rng(5)
    x = np.concatenate([np.repeat(special, len(special)),
                        (rng.standard_normal(200) * 10.0 ** rng.integers(-30, 30, 200)).astype(dtype)])
    y = np.concatenate([np.tile(special, len(special)), rng.standard_normal(200).astype(dtype)])
    x[-50:] = y[-50:]  # (equal: y itself)
    if first_sight == "interpreter" and dtype is not np.float16:  # (MAX's kernels flush subnormals)
        with np.errstate(all="ignore"):
            keep = ~_subnormal(x, info) & ~_subnormal(np.nextafter(x, y), info) & ~_subnormal(np.spacing(x), info)
        x, y = x[keep], y[keep]
    xs = fnp.asarray(x)
    after, spacing = fnp.nextafter(xs, fnp.asarray(y)), fnp.spacing(xs)  # (pending together: one trace)
    got = after.numpy()
    want = np.nextafter(x, y)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got) & ~np.isnan(want), np.signbit(want) & ~np.isnan(want))  # (zeros' signs)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(spacing.numpy(), np.spacing(x))


def test_float32_power_near_overflow_is_numpys(first_sight):
    """float32 ``power`` up to float32's largest value (MAX's own float32 pow gave inf for
    3.4028235e38 ** 0.99999997, whose value is 3.4028055e38: found by the fuzzer's edges family)."""
    info = np.finfo(np.float32)
    x = np.array([info.max, info.max, info.max / 3, 1e38, 2.0, 10.0, 1.5, 0.5], np.float32)
    y = np.array([1 - info.eps / 2, 1.0, 1.0000001, 1.01, 127.99, 38.5, 218.0, -149.0], np.float32)
    with np.errstate(over="ignore"):
        want = np.power(x, y)
    got = fnp.power(fnp.asarray(x), fnp.asarray(y)).numpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=3e-7)  # (an infinity where NumPy's is one)


def _complex_edges(dtype) -> np.ndarray:
    # (a large part, but none whose reciprocal is subnormal: MAX flushes those, docs/numpy.md)
    parts = [0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, 1e300 if dtype == "complex128" else 1e30]
    return np.array([complex(r, i) for r in parts for i in parts], dtype=dtype)


def _same_complex(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    for part in (np.real, np.imag):
        g, w = part(got), part(want)
        ok = (g == w) | (np.isnan(g) & np.isnan(w)) | np.isclose(g, w, rtol=4 * np.finfo(g.dtype).eps, atol=0)
        assert ok.all(), (np.flatnonzero(~ok)[:5], got[~ok][:5], want[~ok][:5])


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_division_reciprocal_and_sign_are_numpys(dtype, first_sight):
    """NumPy's own loops, not C99's limits: (1 + 1j) / (inf + inf j) and 1 / (-inf + inf j) are NaN
    (Smith's ratio inf / inf), sign(-inf + inf j) is NaN and sign(nan + inf j) is 1j."""
    z = _complex_edges(dtype)
    a, b = (p.ravel() for p in np.meshgrid(z, z))
    with np.errstate(all="ignore"):
        want = (a / b, np.reciprocal(z), np.sign(z))
    got = (fnp.asarray(a) / fnp.asarray(b), fnp.reciprocal(fnp.asarray(z)), fnp.sign(fnp.asarray(z)))
    for g, w in zip(got, want):
        _same_complex(g.numpy(), w)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_products_with_infinite_parts_are_numpys(dtype, first_sight):
    """NumPy's order: ``prod`` folds from its initial value 1 (``1 * (inf + 0j)`` is inf + nan j),
    ``cumprod`` from the first element, each factor in turn, so an infinite part's NaNs fall where
    NumPy's do (a pairwise tree put them elsewhere: ``cumprod([0.5-2j, inf+1j, 1+1j, -1-inf j])``)."""
    z = np.array([0j, 1 + 0j, -1j, 2 - 1j, complex(np.inf, 0), complex(0, np.inf), complex(-np.inf, np.inf),
                  complex(np.nan, 0), 0.5 - 2j], dtype=dtype)
    rng = np.random.default_rng(7)
    for shape in [(4,), (2, 3), (3, 1), (1, 5), (4, 4)]:
        x = rng.choice(z, size=shape)
        for axis in [None, *range(len(shape))]:
            names = ("prod", "nanprod") + (("cumprod", "nancumprod") if axis is not None else ())
            for name in names:
                with np.errstate(all="ignore"):
                    want = getattr(np, name)(x, axis=axis)
                _same_complex(getattr(fnp, name)(fnp.asarray(x), axis=axis).numpy(), want)


_OUT_OF_RANGE = [300.0, -1.0, -300.7, 1e10, -1e10, 1e20, -1e20, np.inf, -np.inf, np.nan, 255.9, 65536.5,
                 4294967301.0, 2.0 ** 31, 2.0 ** 31 - 0.5, -2.0 ** 31, -2.0 ** 31 - 1, 2.0 ** 32 - 1, 2.0 ** 32,
                 2.0 ** 32 + 2.0 ** 31, 2.0 ** 63, 2.0 ** 64 + 4096, -2.0 ** 63 - 4096, 2.0 ** 63 - 1024, 2.0 ** 64,
                 -0.7, 0.0, -0.0]


@pytest.mark.parametrize("src", ["float64", "float32", "float16"])
@pytest.mark.parametrize("dst", ["uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64"])
def test_float_to_integer_casts_out_of_range(src, dst, first_sight):
    """NumPy's x86 values where a float does not fit the integer type (C leaves them undefined):
    x86's truncating conversion, its integer minimum where the value does not fit, wrapped; uint32
    and uint64 from 2^31 and 2^63 on converted less that bit and given it back."""
    if first_sight == "interpreter" and src == "float16":
        pytest.skip("MAX's interpreter has no float16 kernels (each structure is a compile)")
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = np.array(_OUT_OF_RANGE, dtype=np.float64).astype(src)
        want = a.astype(dst)
    got = fnp.asarray(a).astype(dst).numpy()
    bad = np.flatnonzero(got != want)
    assert not bad.size, (a[bad], got[bad], want[bad])


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor", "logical_not", "invert"])
def test_logical_ufuncs_of_booleans_skip_dtype_resolution(name, monkeypatch):
    """A mask's ``~m``, ``logical_and(m, n)``, ...: their op on booleans as it is (no dtype
    resolution), NumPy's values; ``invert`` of integers too, and other dtypes as their truth."""
    from nabla.numpy import _ufuncs
    rng = np.random.default_rng(2)
    m, n, k = rng.random(40) > 0.5, rng.random(40) > 0.3, rng.integers(-50, 50, 40)
    resolved = []
    real = _ufuncs.ufunc._compute
    monkeypatch.setattr(_ufuncs.ufunc, "_compute", lambda self, *args: resolved.append(self.__name__) or real(self, *args))
    u, ref = getattr(fnp, name), getattr(np, name)
    args = (m,) if name in ("logical_not", "invert") else (m, n)
    np.testing.assert_array_equal(u(*map(fnp.asarray, args)).numpy(), ref(*args))
    np.testing.assert_array_equal(u(*(fnp.asarray(a)[3] for a in args)).numpy(), ref(*(a[3] for a in args)))
    if name == "invert":
        np.testing.assert_array_equal(u(fnp.asarray(k)).numpy(), ref(k))
    assert resolved == []
    other = (k,) if len(args) == 1 else (k, n)  # (integers as their truth: the general path)
    np.testing.assert_array_equal(u(*map(fnp.asarray, other)).numpy(), ref(*other))


def test_casting_applies_to_the_inputs_as_numpys():
    """``dtype=`` with ``casting="unsafe"`` casts the inputs to that loop (floats truncated to ints),
    where the default ``same_kind`` refuses them, as NumPy's."""
    for m in (np, fnp):
        a, f = m.asarray(np.array([1, 2, 3])), m.asarray(np.array([1.7, 2.2]))
        np.testing.assert_array_equal(np.asarray(m.add(a, 1.5, dtype=m.int64, casting="unsafe")), [2, 3, 4])
        got = m.multiply(f, 2, dtype=m.int32, casting="unsafe")
        assert np.asarray(got).dtype == np.int32 and np.asarray(got).tolist() == [2, 4]
        with pytest.raises(TypeError):
            m.add(a, 1.5, dtype=m.int64)


@pytest.mark.parametrize("dtype", ["float64", "int32", "complex128", "bool"])
def test_add_at_with_slices_among_its_indices_is_numpys(dtype):
    """``np.add.at(a, (slice(None), [0, 0]), b)`` and other keys mixing slices, Ellipsis and integer
    arrays: every selected element gets its value, repeats adding up, as NumPy's."""
    rng = np.random.default_rng(2)
    for idx in ((slice(None), [0, 0]), (1, slice(1, 3)), ([0, 2, 0], slice(None)), (Ellipsis, [1, 1, 0]),
                (slice(None, None, -1), [2])):
        a = (rng.random((3, 4)) * 5).astype(dtype)
        b = (rng.random(a[idx].shape) * 3).astype(dtype)
        want = a.copy()
        np.add.at(want, idx, b)
        ours = fnp.asarray(a.copy())
        fnp.add.at(ours, idx, fnp.asarray(b))
        np.testing.assert_allclose(ours.numpy(), want)


@pytest.mark.parametrize("method", ["reduce", "accumulate"])
@pytest.mark.parametrize("name", ["add", "multiply", "maximum"])
@pytest.mark.parametrize("dtype", [None, np.int8, np.int16, np.uint8, np.float32, np.int64, bool])
@pytest.mark.parametrize("data", [np.array([[100, 100, 27], [-5, 120, 3]], np.int8), np.array([True, True, False]),
                                  np.array([1e30, 1e30, 1.5], np.float32)], ids=["int8", "bool", "float32"])
def test_reduce_and_accumulate_compute_in_the_dtype_asked(data, dtype, name, method):
    """``np.add.reduce(a, dtype=np.int8)`` wraps in int8 (and of bools, told bool, is or): add and
    multiply widen small integers only when no dtype is given, as NumPy's do."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(getattr(np, name), method)(data, dtype=dtype)
        got = np.asarray(getattr(getattr(fnp, name), method)(fnp.asarray(data), dtype=dtype))
    assert got.dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


def test_an_out_that_cannot_take_the_result_raises_numpys_class():
    """``int_array += 1.5`` and ``out=`` of a narrower kind: NumPy's ``UFuncTypeError`` class (a
    TypeError), caught as NumPy's is, with Nabla's message."""
    for m in (np, fnp):
        a = m.arange(5)
        with pytest.raises(TypeError) as raised:
            a += 1.5
        assert isinstance(raised.value, np._core._exceptions.UFuncTypeError)
        with pytest.raises(np._core._exceptions.UFuncTypeError):
            m.multiply(m.arange(3.0), 2.0, out=m.zeros(3, dtype=m.int32))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "uint32", "int64", "float16", "float32", "float64", "complex64"])
def test_subtract_accumulate_is_numpys_to_the_bit(dtype):
    """``subtract.accumulate`` as one running sum of the negated tail: the same bits as NumPy's
    element-by-element differences, integers wrapping in their dtype, along each axis."""
    rng = np.random.default_rng(4)
    a = rng.integers(0, 200, (5, 300)).astype(dtype) if "int" in dtype else \
        (rng.standard_normal((5, 300)) * 100).astype(dtype)
    for axis in (0, 1):
        got = fnp.subtract.accumulate(fnp.asarray(a), axis=axis).numpy()
        want = np.subtract.accumulate(a, axis=axis)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
