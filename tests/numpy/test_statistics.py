"""Order statistics, histograms, covariances and correlations of ``nabla.numpy`` against NumPy: the
result dtypes NumPy's rules give (weak Python numbers, float64 covariances, edges of the data's
dtype), empty axes, and the cases the statistics fuzz family found."""

from __future__ import annotations

import warnings

import numpy
import pytest

import nabla.numpy as fnp


def _same(ours, theirs, exact=False):
    got = numpy.asarray(ours)
    assert got.dtype == numpy.asarray(theirs).dtype and got.shape == numpy.shape(theirs), (got.dtype, got.shape)
    if exact:
        numpy.testing.assert_array_equal(got, theirs)
    else:
        numpy.testing.assert_allclose(got, theirs, rtol=1e-6, equal_nan=True)


DATA = numpy.array([5, 1, 3, 2, 9, 4, 4, 7, 6, 8, 2, 3, 1])


@pytest.mark.parametrize("fn", ["percentile", "nanquantile"])
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint"])
@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32", "float64"])
@pytest.mark.parametrize("q", [33.3, [10, 50, 90], "float32"])
def test_quantile_dtypes_and_values(fn, method, dtype, q):
    """Interpolating methods give the data's and q's dtypes (a Python number is weak; integers
    give float64); picking methods keep the data's dtype; 'nearest' rounds half to even."""
    a = DATA.astype(dtype)
    q = numpy.array([10, 50], numpy.float32) if q == "float32" else q
    if "quantile" in fn:
        q = q / 100 if type(q) in (int, float) else numpy.true_divide(q, 100)
    # bit for bit: NumPy's lerp (the difference in the data's dtype, then ``lo + d * t``, or
    # ``hi - d * (1 - t)`` from t = 0.5 on), in the result's dtype
    _same(getattr(fnp, fn)(fnp.asarray(a), q, method=method), getattr(numpy, fn)(a, q, method=method), exact=True)


def test_quantiles_of_empty_axes():
    """An empty reduced axis is NumPy's IndexError (median: NaN); empty kept axes give empty results."""
    with pytest.raises(IndexError):
        fnp.quantile(fnp.zeros((0, 0)), [0.1, 0.5], axis=0)
    with pytest.raises(IndexError):
        fnp.percentile(fnp.zeros((0,), dtype="uint8"), 5)
    _same(fnp.quantile(fnp.zeros((0, 7)), [0.1, 0.5], axis=-1), numpy.quantile(numpy.zeros((0, 7)), [0.1, 0.5], axis=-1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for shape, axis, keep in (((0,), None, False), ((3, 0), 1, False), ((3, 0), 1, True), ((3, 0), 0, False)):
            _same(fnp.median(fnp.zeros(shape), axis=axis, keepdims=keep),
                  numpy.median(numpy.zeros(shape), axis=axis, keepdims=keep))


@pytest.mark.parametrize("fn", ["cov", "corrcoef"])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "complex64"])
def test_covariances_compute_in_float64_at_least(fn, dtype):
    x = (numpy.random.default_rng(0).standard_normal((3, 9)) * 5).astype(dtype)
    _same(getattr(fnp, fn)(fnp.asarray(x)), getattr(numpy, fn)(x))


@pytest.mark.parametrize("la,lv", [(2, 3), (4, 6), (5, 5), (7, 2), (1, 4)])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_correlate_with_the_second_operand_longer(la, lv, mode, dtype):
    """NumPy correlates the longer with the shorter, reversed and conjugated: 'same' is centred on it."""
    rng = numpy.random.default_rng(la * 10 + lv)
    a, v = (rng.standard_normal(n) + (1j * rng.standard_normal(n) if dtype == "complex128" else 0) for n in (la, lv))
    _same(fnp.correlate(fnp.asarray(a), fnp.asarray(v), mode=mode), numpy.correlate(a, v, mode=mode))


# (float16 traces compile in the suite's interpreter-first policy, 30-60 s each on a fresh machine:
# one float16 case, below, stands for the rest)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8"])
@pytest.mark.parametrize("n", [0, 7, 65537])
@pytest.mark.parametrize("bins,range_", [(10, None), (1, None), (7, (-2, 2)), (64, (0, 1)), ([-1.0, 0.0, 0.5, 2.0], None),
                                         ([-100, 0, 100], None), ("float32", None)])
def test_histogram_counts_and_edges_bit_for_bit(dtype, n, bins, range_):
    """Equal bins' edges are NumPy's linspace in the data's dtype (its min and max are the ends),
    so the counts near every edge agree; given edges come back of their own dtype."""
    if isinstance(bins, str):
        bins = numpy.linspace(-3, 3, 13).astype(bins)
    x = (numpy.random.default_rng(n).standard_normal(n) * 3).astype(dtype)
    ours, theirs = fnp.histogram(fnp.asarray(x), bins=bins, range=range_), numpy.histogram(x, bins=bins, range=range_)
    for got, want in zip(ours, theirs, strict=True):
        _same(got, want, exact=True)


def test_float16_histogram_edges_are_numpys_float16_linspace():
    """float16 edges by NumPy's linspace in float16: off by an ulp, thousands of counts moved."""
    x = (numpy.random.default_rng(5).standard_normal(65537) * 3).astype("float16")
    for got, want in zip(fnp.histogram(fnp.asarray(x), bins=10), numpy.histogram(x, bins=10), strict=True):
        _same(got, want, exact=True)


def test_histogram_refuses_no_bins():
    with pytest.raises(ValueError, match="must be positive"):
        fnp.histogram(fnp.asarray([1.0, 2.0]), bins=0)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "float16", "float32", "float64"])
def test_median_is_the_mean_of_the_middle_elements_as_numpys(dtype):
    """NumPy's median is the mean of the middle one or two sorted elements (in float64 for
    integers): not a quantile's interpolation, whose int8 difference of -100 and 73 wraps."""
    rng = numpy.random.default_rng(9)
    a = (rng.standard_normal((7, 6)) * 60).astype(dtype) if dtype.startswith("float") else \
        rng.integers(0 if dtype == "uint8" else -128, 128, (7, 6)).astype(dtype)
    a[0, :2] = [-100, 73] if dtype != "uint8" else [200, 73]
    for axis in (None, 0, 1, (0, 1)):
        for fn in ("median", "nanmedian") if not dtype.startswith("float") else ("median",):
            want = getattr(numpy, fn)(a, axis=axis)
            got = numpy.asarray(getattr(fnp, fn)(fnp.asarray(a), axis=axis))
            assert got.dtype == numpy.asarray(want).dtype, (fn, axis)
            numpy.testing.assert_array_equal(got, want, err_msg=f"{fn} axis={axis}")
    numpy.testing.assert_array_equal(numpy.asarray(fnp.median(fnp.asarray(a[0, :2]))), numpy.median(a[0, :2]))


# --- complex and boolean data in the variance, median and nan-extreme families -------------------

AXES = {(6, 7): (None, 0, 1, -1, (0, 1)), (40,): (None, 0, -1)}


def _data(dtype, shape, nans=True):
    """Data of ``shape``; with ``nans``: NaNs in real parts, imaginary parts and both, an all-NaN
    row and (2-D) an all-NaN column."""
    rng = numpy.random.default_rng(len(shape) * 31 + len(dtype))
    a = rng.standard_normal(shape) * 3
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    a = (a > 0) if dtype == "bool" else a.astype(dtype)
    if nans and dtype[0] in "fc":
        nan = numpy.nan
        kinds = (complex(1.5, nan), complex(nan, -2), complex(nan, nan)) if dtype.startswith("complex") else (nan,)
        flat = a.reshape(-1)
        for k, i in enumerate((3, 9, 11, 20, 27)):
            flat[i] = kinds[k % len(kinds)]
        if a.ndim == 2:
            a[0] = [kinds[k % len(kinds)] for k in range(a.shape[1])]
            a[:, 4] = kinds[-1]
    return a


def _close(got, want, dtype):
    """NumPy's dtype and shape; its values, NaNs where its real and imaginary parts have them."""
    got, want = numpy.asarray(got), numpy.asarray(want)
    assert (got.dtype, got.shape) == (want.dtype, want.shape), (got.dtype, got.shape, want.dtype, want.shape)
    rtol = 1e-5 if dtype in ("float32", "complex64") else 1e-12
    for part in (numpy.real, numpy.imag):
        numpy.testing.assert_allclose(part(got), part(want), rtol=rtol, atol=rtol, equal_nan=True)


def _each(fn, a, dtype, **kw):
    for axis in AXES.get(a.shape, AXES[(6, 7)]):
        for keepdims in (False, True):
            with warnings.catch_warnings():  # (NumPy warns of all-NaN slices and no degrees of freedom)
                warnings.simplefilter("ignore", RuntimeWarning)
                want = getattr(numpy, fn)(a, axis=axis, keepdims=keepdims, **kw)
            got = getattr(fnp, fn)(fnp.asarray(a), axis=axis, keepdims=keepdims, **kw)
            try:
                _close(got, want, dtype)
            except AssertionError as e:
                raise AssertionError(f"{fn}{kw} {dtype}{a.shape} axis={axis} keepdims={keepdims}: {e}") from None


@pytest.mark.parametrize("fn", ["var", "std", "nanvar", "nanstd"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("ddof", [0, 1])
def test_variances_of_complex_data_are_real(fn, dtype, ddof):
    """var of complex values is the mean of |x - mean|**2, of the real dtype (float32 for
    complex64); the nan-variants skip values with a NaN part and give NaN for all-NaN slices."""
    for shape in AXES:
        _each(fn, _data(dtype, shape, nans=fn.startswith("nan")), dtype, ddof=ddof)


@pytest.mark.parametrize("fn", ["var", "nanvar"])
@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_variance_with_no_degree_of_freedom_left(fn, dtype):
    """NumPy's var divides by max(n - ddof, 0): inf (NaN for no spread); nanvar gives NaN."""
    a = _data(dtype, (6, 7), nans=False)
    a[1] = 0.5 if dtype.startswith("float") else 0.5 + 0.25j  # (no spread; its mean exact in any dtype)
    for ddof in (7, 9):
        _each(fn, a, dtype, ddof=ddof)


@pytest.mark.parametrize("fn", ["median", "nanmedian"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("nans", [False, True])
def test_medians_of_complex_data_in_numpys_order(fn, dtype, nans):
    """Complex values sort by real part, then imaginary part, values with a NaN part last (R+nanj,
    nan+Rj, nan+nanj): median gives that last value where a slice has one; nanmedian skips them."""
    for shape in AXES:
        _each(fn, _data(dtype, shape, nans), dtype)
    if dtype.startswith("complex"):  # equal real parts: the imaginary part decides
        _each(fn, numpy.array([[2 + 1j, 1 + 5j, 2 - 1j, 1 + 4j], [3 + 0j, 3 - 2j, 3 + 2j, 3 + 1j]], dtype), dtype)


def test_quantiles_of_complex_data_are_numpys_type_error():
    with pytest.raises(TypeError, match="real numbers"):
        fnp.quantile(fnp.asarray(numpy.ones(3, complex)), 0.5)


@pytest.mark.parametrize("fn", ["nanmin", "nanmax"])
@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "float64", "complex64", "complex128"])
def test_nan_extremes_of_bool_and_complex_data(fn, dtype):
    """bool's nanmin/nanmax are min/max (a bool); complex ones skip values with a NaN part, in
    NumPy's complex order; an all-NaN slice gives its first value, as NumPy's fmin/fmax reduce."""
    for shape in AXES:
        _each(fn, _data(dtype, shape), dtype)
    if dtype.startswith("complex"):
        _each(fn, numpy.array([[1 + 2j, 1 - 3j, 1 + 2.5j], [-1 + 0j, -1 + 4j, -1 - 1j]], dtype), dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_nan_variance_of_data_with_infinities_is_numpys(dtype):
    """Only NaNs are skipped: an infinity's deviation from an infinite mean is NaN, as NumPy's."""
    a = numpy.array([[1.0, numpy.inf, 2.0, numpy.nan], [1.0, 2.0, numpy.nan, 4.0], [-numpy.inf, 0.0, 1.0, 2.0]])
    x = a.astype(dtype)
    for fn in ("nanvar", "nanstd"):
        for axis in (None, 0, 1):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = getattr(numpy, fn)(x, axis=axis)
            got = getattr(fnp, fn)(fnp.asarray(x), axis=axis).numpy()
            assert got.dtype == want.dtype
            assert numpy.allclose(got, want, equal_nan=True), (fn, axis)


def test_quantiles_of_bool_data_pick_or_refuse_as_numpy():
    a = numpy.array([True, False, True, True, False])
    for method in ("lower", "higher", "nearest"):
        want = numpy.quantile(a, [0.2, 0.5], method=method)
        got = fnp.quantile(fnp.asarray(a), [0.2, 0.5], method=method).numpy()
        assert got.dtype == want.dtype and numpy.array_equal(got, want)
    for method in ("linear", "midpoint"):
        with pytest.raises(TypeError):
            numpy.quantile(a, 0.5, method=method)
        with pytest.raises(TypeError, match="quantile"):
            fnp.quantile(fnp.asarray(a), 0.5, method=method)
    assert fnp.median(fnp.asarray(a)).numpy() == numpy.median(a)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("fn", ["mean", "median", "nanmedian", "nanmean"])
def test_complex_means_divide_as_complex_numbers(fn, dtype):
    """NumPy divides a complex sum by its count as a complex number: mean(1 - inf j) is nan - inf j
    (Smith's ``-inf * 0`` in the real part), and a median of one middle value is such a mean."""
    inf, nan = numpy.inf, numpy.nan
    x = numpy.array([[1 + 1j, complex(nan, 0), 2], [complex(0, nan), 1, 3 + 3j], [complex(inf, 1), 1 + 2j, 0],
                     [complex(-inf, inf), 1j, 2 + 2j], [complex(1, -inf), 1 + 1j, 2j], [complex(1, -inf), 2, 3]],
                    dtype=dtype)
    for axis in (None, 0, 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(numpy, fn)(x, axis=axis)
        got = numpy.asarray(getattr(fnp, fn)(fnp.asarray(x), axis=axis))
        assert got.dtype == want.dtype
        for part in (numpy.real, numpy.imag):
            numpy.testing.assert_allclose(part(got), part(want), rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
@pytest.mark.parametrize("method", ["linear", "midpoint"])
def test_a_whole_position_next_to_an_infinity_is_numpys_nan(fn, method):
    """NumPy's lerp takes the next element even where the position is whole: ``3 + (inf - 3) * 0``
    is NaN (quantile([1, 2, 3, inf], 2/3)); only the last number is its own next."""
    x = numpy.array([[0.12573022, -0.13210486, numpy.nan, 1.0], [numpy.inf, -0.53566937, 0.36159505, 2.0],
                     [1.0, 2.0, 3.0, numpy.inf]])
    for axis in (None, 0, 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(numpy, fn)(x, [0.25, 2 / 3, 0.75, 1.0], axis=axis, method=method)
        _same(getattr(fnp, fn)(fnp.asarray(x), [0.25, 2 / 3, 0.75, 1.0], axis=axis, method=method), want)


METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
           "weibull", "median_unbiased", "normal_unbiased"]


@pytest.mark.parametrize("method", METHODS)
def test_quantile_methods_of_hyndman_and_fan_are_numpys(method):
    """Every method NumPy names beyond ``linear``'s five: picks keep the data's dtype, the others
    interpolate as NumPy's lerp (an infinite neighbour gives NaN where NumPy's does); quantile,
    percentile and nanquantile, along axes and over all of it."""
    rng = numpy.random.default_rng(8)
    nan_rows = rng.standard_normal((3, 8))
    nan_rows[0, [1, 4]] = numpy.nan
    nan_rows[2] = numpy.nan
    with numpy.errstate(all="ignore"):
        for x in (rng.standard_normal((4, 9)), rng.integers(-50, 50, 10).astype(numpy.int32),
                  numpy.array([1.0, 2.0, numpy.inf]), rng.standard_normal(1)):
            for q in (0.0, 0.25, 0.3, 2 / 3, 0.7, 1.0, [0.2, 0.8]):
                for axis in ([None, 1] if x.ndim == 2 else [None]):
                    want = numpy.quantile(x, q, method=method, axis=axis)
                    got = numpy.asarray(fnp.quantile(fnp.asarray(x), q, method=method, axis=axis))
                    assert got.dtype == want.dtype and got.shape == want.shape
                    numpy.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)
        for q, axis in ((0.3, 1), (0.9, None), (1.0, 1)):
            want = numpy.nanquantile(nan_rows, q, method=method, axis=axis)
            numpy.testing.assert_allclose(numpy.asarray(fnp.nanquantile(fnp.asarray(nan_rows), q, method=method, axis=axis)),
                                          want, rtol=1e-12, equal_nan=True)
        want = numpy.percentile(nan_rows[1], 37, method=method)
        numpy.testing.assert_allclose(numpy.asarray(fnp.percentile(fnp.asarray(nan_rows[1]), 37, method=method)), want,
                                      rtol=1e-12)


@pytest.mark.parametrize("rule", ["auto", "fd", "doane", "scott", "rice", "sturges", "sqrt"])
def test_histogram_bins_by_rule_are_numpys(rule):
    """``bins="auto"`` and the other rules by name: NumPy's number of bins from the data's spread
    (over the data in ``range`` where given), its counts and edges; weighted data refused as NumPy's."""
    rng = numpy.random.default_rng(3)
    for x in (rng.standard_normal(500), rng.exponential(size=200), rng.integers(0, 30, 300), numpy.full(10, 2.0),
              numpy.array([5.0])):
        for limits in (None, (-1.0, 1.0)):
            counts, edges = numpy.histogram(x, bins=rule, range=limits)
            got_counts, got_edges = fnp.histogram(fnp.asarray(x), bins=rule, range=limits)
            numpy.testing.assert_array_equal(numpy.asarray(got_counts), counts)
            numpy.testing.assert_allclose(numpy.asarray(got_edges), edges, rtol=1e-12)
        numpy.testing.assert_allclose(numpy.asarray(fnp.histogram_bin_edges(fnp.asarray(x), bins=rule)),
                                      numpy.histogram_bin_edges(x, bins=rule), rtol=1e-12)
    with pytest.raises(TypeError):
        fnp.histogram(fnp.arange(5.0), bins=rule, weights=fnp.ones(5))
    with pytest.raises(ValueError):
        fnp.histogram(fnp.arange(5.0), bins="no such rule")


@pytest.mark.parametrize("case", [
    lambda np: np.max(np.arange(5.0)[np.arange(5.0) > 10], initial=0.0),
    lambda np: np.min(np.zeros((2, 0)), axis=1, initial=1.0),
    lambda np: np.min(np.zeros((2, 0)), axis=1, initial=1.0, keepdims=True),
    lambda np: np.zeros((2, 0)).max(initial=-1),
    lambda np: np.amax(np.zeros((2, 0), np.float32), axis=1, initial=2),
    lambda np: np.max(np.zeros(0, np.int64), initial=0.5),
    lambda np: np.max(np.arange(3), initial=0.5),
    lambda np: np.arange(6).reshape(2, 3).max(axis=1, initial=4),
    lambda np: np.max(np.zeros((0, 3)), axis=1, initial=1.0),
    lambda np: np.maximum.reduce(np.zeros((2, 0)), axis=1, initial=3),
    lambda np: np.maximum.reduce(np.zeros(0, np.int64), initial=0.5),
    lambda np: np.maximum.reduce(np.zeros((2, 3), np.int64), axis=1, initial=0.5),
    lambda np: np.minimum.reduce(np.ones((2, 3)), axis=None, initial=0.25),
    lambda np: np.multiply.reduce(np.arange(1, 4), initial=2.5),
    lambda np: np.add.reduce(np.zeros((2, 0), np.int8), axis=1, initial=3),
])
def test_reductions_start_from_initial_in_their_dtype(case):
    """``initial=``: an empty reduction is ``initial`` alone (no error for max and min), and a
    reduction starts from ``initial`` cast to its own dtype (``max`` of ints with 0.5 is an int)."""
    want, got = case(numpy), case(fnp)
    assert numpy.asarray(got).dtype == numpy.asarray(want).dtype and numpy.shape(got) == numpy.shape(want)
    numpy.testing.assert_array_equal(numpy.asarray(got), want)
    assert type(got) is fnp.ndarray


BAD_CALLS = {
    "digitize_unordered_bins": lambda m: m.digitize(m.arange(3), m.array([3, 1, 2])),
    "average_zero_weights": lambda m: m.average(m.array([1.0, 2.0]), weights=m.zeros(2)),
    "average_weights_without_axis": lambda m: m.average(m.ones((2, 3)), weights=[1, 2]),
    "percentile_above_100": lambda m: m.percentile(m.arange(5), 101),
    "quantile_above_1": lambda m: m.quantile(m.arange(5), 1.5),
    "bincount_negative": lambda m: m.bincount(m.array([-1, 2])),
    "interp_short_fp": lambda m: m.interp(m.array([0.5]), m.array([0.0, 1.0]), m.array([1.0])),
    "interp_long_fp": lambda m: m.interp(m.array([0.5]), m.array([0.0, 1.0]), m.array([1.0, 2.0, 3.0])),
    "interp_no_points": lambda m: m.interp(m.array([0.5]), m.array([]), m.array([])),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_bad_statistics_calls_raise_numpys_error_and_message(name):
    with pytest.raises(Exception) as theirs:
        BAD_CALLS[name](numpy)
    with pytest.raises(type(theirs.value)) as ours:
        BAD_CALLS[name](fnp)
    assert str(theirs.value).rstrip(".").split(" (")[0] in str(ours.value)


def test_interp_is_numpys_formula_to_the_bit():
    """NumPy's ``slope * (x - x0) + f0`` (the NaN of an infinite slope taken from the right end, then
    the ends' value where they are equal), at sample points their value: the same bits, complex too."""
    rng = numpy.random.default_rng(3)
    xp = numpy.linspace(0, 10, 101)
    fp = numpy.sin(xp) * numpy.exp(-0.1 * xp)
    x = rng.uniform(-1, 11, 5000)
    _same(fnp.interp(fnp.asarray(x), fnp.asarray(xp), fnp.asarray(fp)), numpy.interp(x, xp, fp), exact=True)
    fc = fp + 1j * fp[::-1]
    _same(fnp.interp(fnp.asarray(x), fnp.asarray(xp), fnp.asarray(fc)), numpy.interp(x, xp, fc), exact=True)
    xd, fd = numpy.array([0.0, 1.0, 1.0, 2.0, 3.0]), numpy.array([0.0, 1.0, 5.0, 2.0, numpy.inf])
    xs = numpy.array([-1, 0, 0.5, 1, 1.5, 2, 2.5, 3, 4, numpy.nan])
    _same(fnp.interp(fnp.asarray(xs), fnp.asarray(xd), fnp.asarray(fd)), numpy.interp(xs, xd, fd), exact=True)


def test_unique_and_eig_results_are_numpys_named_tuples():
    a = numpy.array([5, 5, 6, 1, 5])
    for name, fields in (("unique_counts", ("values", "counts")), ("unique_inverse", ("values", "inverse_indices")),
                         ("unique_all", ("values", "indices", "inverse_indices", "counts"))):
        ours, theirs = getattr(fnp, name)(fnp.asarray(a)), getattr(numpy, name)(a)
        for field in fields:
            _same(getattr(ours, field), getattr(theirs, field), exact=True)
    m = numpy.array([[2.0, 1.0], [1.0, 3.0]])
    ours, theirs = fnp.linalg.eig(fnp.asarray(m)), numpy.linalg.eig(m)
    _same(numpy.sort(numpy.asarray(ours.eigenvalues)), numpy.sort(theirs.eigenvalues))
    assert numpy.asarray(ours.eigenvectors).shape == theirs.eigenvectors.shape
