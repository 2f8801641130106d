"""``nabla.numpy.ma`` against ``numpy.ma``: one table of expressions written once against a module ``m``
and run with ``m = numpy`` (the oracle) and ``m = nabla.numpy``; masks, unmasked values, dtypes and
shapes must agree (the data under a mask is NumPy's business, as its docs say). Then writes, views,
dispatch from NumPy's own functions, printing and errors."""

from __future__ import annotations

import numpy
import pytest

import nabla.numpy as fnp
from .test_face import _compare as _compare_plain

R = numpy.random.default_rng(3)
X = R.standard_normal((4, 5))
MASK = R.random((4, 5)) < 0.3
MASK[2] = True  # a row with nothing unmasked: reductions along it are masked
I = R.integers(-4, 9, (4, 5))
F32 = X.astype(numpy.float32)
W = R.random(5) + 0.1
BAD = numpy.where(R.random((4, 5)) < 0.25, numpy.nan, X)
BAD[0, 0] = numpy.inf


def _a(m, data=X, mask=MASK, **kw):
    return m.ma.array(m.asarray(data), mask=mask, **kw)


CASES = {
    # --- construction and masking ---
    "array": lambda m: _a(m),
    "array_nomask_mask": lambda m: m.ma.array(m.asarray(X)).mask,
    "array_scalar_mask": lambda m: m.ma.array(m.asarray(I), mask=True),
    "array_keep_mask": lambda m: m.ma.array(_a(m), mask=numpy.eye(4, 5, dtype=bool)),
    "array_fill_value": lambda m: _a(m, fill_value=-1.5).fill_value,
    "fill_value_int": lambda m: _a(m, I).fill_value,
    "masked_where": lambda m: m.ma.masked_where(m.asarray(X) > 0.5, m.asarray(X)),
    "masked_where_keeps": lambda m: m.ma.masked_where(m.asarray(X) > 0.5, _a(m)),
    "masked_equal": lambda m: m.ma.masked_equal(m.asarray(I), 3),
    "masked_equal_fill": lambda m: m.ma.masked_equal(m.asarray(I), 3).fill_value,
    "masked_not_equal": lambda m: m.ma.masked_not_equal(m.asarray(I), 3),
    "masked_greater": lambda m: m.ma.masked_greater(m.asarray(X), 0.2),
    "masked_greater_equal": lambda m: m.ma.masked_greater_equal(m.asarray(I), 2),
    "masked_less": lambda m: m.ma.masked_less(m.asarray(X), -0.1),
    "masked_less_equal": lambda m: m.ma.masked_less_equal(m.asarray(I), 0),
    "masked_inside": lambda m: m.ma.masked_inside(m.asarray(X), 0.5, -0.5),
    "masked_outside": lambda m: m.ma.masked_outside(m.asarray(X), -0.5, 0.5),
    "masked_invalid": lambda m: m.ma.masked_invalid(m.asarray(BAD)),
    "masked_values": lambda m: m.ma.masked_values(m.asarray([1.0, 1.1, 1.000001, 2.0]), 1.0),
    "fix_invalid": lambda m: m.ma.fix_invalid(m.asarray(BAD)).filled(),
    "masked_all": lambda m: m.ma.masked_all((2, 3)),
    "filled": lambda m: _a(m).filled(0.5),
    "filled_default": lambda m: _a(m, I).filled(),
    "filled_int8": lambda m: _a(m, I.astype(numpy.int8)).filled(),
    "getmaskarray": lambda m: m.ma.getmaskarray(m.ma.array(m.asarray(I))),
    "compressed": lambda m: _a(m).compressed(),
    "count": lambda m: _a(m).count(),
    "count_axis": lambda m: _a(m).count(axis=0),
    "count_nomask": lambda m: m.ma.array(m.asarray(X)).count(axis=1),
    "count_masked": lambda m: m.ma.count_masked(_a(m), axis=1),
    "zeros": lambda m: m.ma.zeros((2, 3)),
    "arange": lambda m: m.ma.arange(5),
    # --- elementwise, NumPy's domains ---
    "add": lambda m: _a(m) + _a(m, I, MASK.T.copy().reshape(4, 5)),
    "radd_scalar": lambda m: 2.5 + _a(m),
    "sub_array": lambda m: _a(m) - m.asarray(W),
    "mul_int": lambda m: _a(m, I) * 3,
    "divide_domain": lambda m: _a(m) / m.asarray(numpy.where(I > 5, 0.0, I)),
    "floor_divide_int": lambda m: _a(m, I) // m.asarray(numpy.where(I > 5, 0, I)),
    "remainder_int": lambda m: _a(m, I) % m.asarray(numpy.where(I > 5, 0, I)),
    "power": lambda m: _a(m) ** 0.5,
    "power_int": lambda m: _a(m, I) ** 2,
    "neg_abs": lambda m: abs(-_a(m)),
    "sqrt_domain": lambda m: m.ma.sqrt(_a(m)),
    "log_domain": lambda m: m.ma.log(m.ma.array(m.asarray(X))),
    "log10_domain": lambda m: m.ma.log10(_a(m)),
    "arcsin_domain": lambda m: m.ma.arcsin(_a(m)),
    "arccosh_domain": lambda m: m.ma.arccosh(_a(m) + 1.5),
    "exp": lambda m: m.ma.exp(_a(m)),
    "face_ufunc_dispatch": lambda m: m.sqrt(_a(m)),
    "face_binary_dispatch": lambda m: m.arctan2(_a(m), m.asarray(X.T.copy().reshape(4, 5))),
    "maximum": lambda m: m.ma.maximum(_a(m), 0.0),
    "equal": lambda m: _a(m, I) == _a(m, I.T.copy().reshape(4, 5), MASK[::-1].copy()),
    "not_equal_scalar": lambda m: _a(m, I) != 2,
    "less": lambda m: _a(m) < 0,
    "logical_and": lambda m: m.ma.logical_and(_a(m) > 0, _a(m) < 1),
    "float32_stays": lambda m: _a(m, F32) * m.float32(2) + _a(m, F32),
    "scalars_are_strong": lambda m: (_a(m, F32) * 2, _a(m, I.astype(m.int8)) * 2, _a(m, F32) / 2),
    # --- reductions and statistics ---
    "sum_all": lambda m: _a(m).sum(),
    "sum_axis0": lambda m: _a(m).sum(axis=0),
    "sum_axis1": lambda m: _a(m).sum(axis=1),
    "sum_keepdims": lambda m: _a(m).sum(axis=1, keepdims=True),
    "sum_int": lambda m: _a(m, I).sum(axis=1),
    "prod_axis": lambda m: _a(m).prod(axis=1),
    "mean_all": lambda m: _a(m).mean(),
    "mean_axis": lambda m: _a(m).mean(axis=1),
    "mean_int": lambda m: _a(m, I).mean(axis=0),
    "mean_f32": lambda m: _a(m, F32).mean(axis=1),
    "mean_nomask": lambda m: m.ma.array(m.asarray(X)).mean(axis=0),
    "var_axis": lambda m: _a(m).var(axis=1),
    "var_ddof": lambda m: _a(m).var(axis=0, ddof=1),
    "std_all": lambda m: _a(m).std(),
    "std_axis": lambda m: m.ma.std(_a(m), axis=0),
    "min_axis": lambda m: _a(m).min(axis=1),
    "max_axis": lambda m: _a(m, I).max(axis=0),
    "min_all": lambda m: _a(m).min(),
    "ptp": lambda m: _a(m).ptp(axis=1),
    "argmin": lambda m: _a(m).argmin(axis=1),
    "argmax_all": lambda m: _a(m).argmax(),
    "all_any": lambda m: ((_a(m) > -1).all(axis=1), (_a(m) > 1).any(axis=0)),
    "cumsum": lambda m: _a(m).cumsum(axis=1),
    "cumsum_flat": lambda m: _a(m).cumsum(),
    "median_axis": lambda m: m.ma.median(_a(m), axis=1),
    "median_all": lambda m: m.ma.median(_a(m)),
    "median_int": lambda m: m.ma.median(_a(m, I), axis=0),
    "average": lambda m: m.ma.average(_a(m), axis=1),
    "average_weights": lambda m: m.ma.average(_a(m), axis=1, weights=m.asarray(W)),
    "average_returned": lambda m: m.ma.average(_a(m), axis=0, weights=m.asarray(numpy.tile(W, (4, 1))),
                                               returned=True),
    "anom": lambda m: _a(m).anom(axis=0),
    "add_reduce": lambda m: m.ma.add.reduce(_a(m), axis=1),
    "face_mean_function": lambda m: m.mean(_a(m), axis=0),
    # --- shapes, joins, sorting, products ---
    "reshape": lambda m: _a(m).reshape(2, 10),
    "transpose": lambda m: _a(m).T,
    "ravel": lambda m: m.ma.ravel(_a(m)),
    "getitem_slice": lambda m: _a(m)[1:3, ::2],
    "getitem_bool": lambda m: _a(m)[m.asarray(X[:, 0] > 0)],
    "getitem_element": lambda m: (_a(m)[0, 1], _a(m)[2, 2]),
    "concatenate": lambda m: m.ma.concatenate([_a(m), m.ma.array(m.asarray(X))], axis=1),
    "stack": lambda m: m.ma.stack([_a(m), _a(m, I)]),
    "vstack": lambda m: m.ma.vstack([_a(m), m.asarray(X)]),
    "where": lambda m: m.ma.where(m.asarray(X) > 0, _a(m), m.ma.masked),
    "where_arrays": lambda m: m.ma.where(_a(m) > 0, m.asarray(X), _a(m, I)),
    "sort": lambda m: m.ma.sort(_a(m), axis=1),
    "sort_first": lambda m: m.ma.sort(_a(m, I), axis=0, endwith=False),
    "argsort": lambda m: _a(m).argsort(axis=1),
    "dot": lambda m: m.ma.dot(_a(m), _a(m).T),
    "dot_vector": lambda m: m.ma.dot(_a(m), m.asarray(W)),
    "clip_round": lambda m: (_a(m).clip(-0.5, 0.5), m.ma.round(_a(m), 2)),
    "diff": lambda m: m.ma.diff(_a(m), axis=1),
    "mask_rowcols": lambda m: m.ma.mask_rowcols(m.ma.array(m.asarray(X), mask=numpy.eye(4, 5, dtype=bool))),
    "mask_rows": lambda m: m.ma.mask_rows(m.ma.array(m.asarray(X), mask=numpy.eye(4, 5, dtype=bool))),
    "compress_rowcols": lambda m: m.ma.compress_rowcols(m.ma.array(m.asarray(X), mask=numpy.eye(4, 5, k=3,
                                                                                                dtype=bool))),
    "compress_cols": lambda m: m.ma.compress_cols(m.ma.array(m.asarray(X), mask=numpy.eye(4, 5, k=3, dtype=bool))),
    "allclose": lambda m: (m.ma.allclose(_a(m), _a(m) + 1e-9), m.ma.allclose(_a(m), _a(m) + 1.0)),
    "allequal": lambda m: (m.ma.allequal(_a(m, I), m.asarray(I)), m.ma.allequal(_a(m, I), m.asarray(I), False)),
    "tolist": lambda m: _a(m)[:2].tolist(),
    "astype": lambda m: _a(m).astype(m.float32),
    "nonzero": lambda m: m.ma.nonzero(_a(m, I)),
    "cov": lambda m: m.ma.cov(_a(m)),
    "cov_cols": lambda m: m.ma.cov(_a(m), rowvar=False),
    "corrcoef": lambda m: m.ma.corrcoef(_a(m), rowvar=False),
    "compress": lambda m: m.ma.compress(m.asarray([True, False, True, True, False]), _a(m), axis=1),
    "angle": lambda m: m.ma.angle(m.ma.array(m.asarray(X + 1j * I), mask=MASK)),
    "put_fill": lambda m: _put_fill(m),
}


def _put_fill(m):
    a = _a(m)
    m.ma.put(a, [0, 7, 19], m.ma.array(m.asarray([5.0, 6.0, 7.0]), mask=[0, 1, 0]))
    b = _a(m, I)
    b.fill(4)
    return a, b


def _masked_leaf(got, want, name) -> bool:
    """The pairs only masked arrays have; True when checked here."""
    if want is numpy.ma.masked:
        assert got is fnp.ma.masked or (isinstance(got, fnp.ma.MaskedArray) and got.ndim == 0 and
                                        bool(got.mask)), f"{name}: {got!r} should be masked"
        return True
    if isinstance(want, numpy.ma.MaskedArray):
        assert isinstance(got, fnp.ma.MaskedArray), f"{name}: {type(got).__name__} is not a masked array"
        g = got.numpy()
        assert g.shape == want.shape and g.dtype == want.dtype, \
            f"{name}: {g.shape} {g.dtype} vs {want.shape} {want.dtype}"
        gm, wm = numpy.ma.getmaskarray(g), numpy.ma.getmaskarray(want)
        numpy.testing.assert_array_equal(gm, wm, err_msg=f"{name}: masks")
        _values(numpy.asarray(g.data)[~wm], numpy.asarray(want.data)[~wm], name)
        return True
    if isinstance(got, fnp.ma.MaskedArray) and isinstance(want, (numpy.ndarray, numpy.generic)):
        # a reduction of a masked array: a 0-d masked array here, NumPy's scalar there
        assert not bool(got.mask), f"{name}: {got!r} is masked, NumPy gives {want!r}"
        _compare_plain(got.data, want, name)
        return True
    return False


def _compare(got, want, name):
    _compare_plain(got, want, name, _masked_leaf)


def _values(g, w, name):
    if w.dtype.kind in "fc":
        numpy.testing.assert_allclose(g, w, rtol=1e-5 if w.dtype == numpy.float32 else 1e-10, atol=1e-12,
                                      err_msg=name)
    else:
        numpy.testing.assert_array_equal(g, w, err_msg=name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_numpy_ma(name):
    with numpy.errstate(all="ignore"):
        want = CASES[name](numpy)
    got = CASES[name](fnp)
    _compare(got, want, name)


def test_writes_views_and_in_place():
    for m in (numpy, fnp):
        a = m.ma.array(m.asarray([1.0, 2.0, 3.0, 4.0]), mask=[0, 1, 0, 0])
        v = a[1:]  # a view of data and mask
        v[1] = m.ma.masked
        a[3] = 10.0
        a += m.ma.array(m.asarray([1.0, 1.0, 1.0, 1.0]), mask=[0, 0, 0, 1])
        h = m.ma.array(m.asarray([1.0, 2.0]), mask=[1, 0], hard_mask=True)
        h[...] = 5.0
        r = a.reshape(2, 2)
        r[0, 0] = m.ma.masked
        results = (a, v, h)
        if m is numpy:
            want = results
        else:
            got = results
    _compare(got, want, "writes")


def test_printing_matches_numpy():
    for data, mask in (([1.0, 2.0, 3.0], [0, 1, 0]), ([[1, 2], [3, 4]], [[1, 0], [0, 0]]), ([True, False], False)):
        want = numpy.ma.array(numpy.asarray(data), mask=mask)
        got = fnp.ma.array(fnp.asarray(data), mask=mask)
        assert repr(got) == repr(want) and str(got) == str(want)
    assert repr(fnp.ma.masked) == "masked" and str(fnp.ma.masked) == "--"
    assert repr(fnp.ma.array([1.0, 2.0], mask=[0, 1]).sum()) == repr(numpy.float64(1.0))
    assert f"{fnp.ma.array([1.0, 2.0], mask=[1, 1]).sum():.2f}" == "--"


def test_numpy_functions_and_ufuncs_dispatch_to_us():
    a = fnp.ma.array(fnp.asarray(X), mask=MASK)
    for got, want in ((numpy.sqrt(a), numpy.ma.sqrt(numpy.ma.array(X, mask=MASK))),
                      (numpy.mean(a, axis=1), numpy.ma.array(X, mask=MASK).mean(axis=1)),
                      (fnp.exp(a), numpy.ma.exp(numpy.ma.array(X, mask=MASK)))):
        assert isinstance(got, fnp.ma.MaskedArray)
        with numpy.errstate(all="ignore"):
            _compare(got, want, "dispatch")


def test_lazy_until_read():
    bad = numpy.tile(BAD, (25, 20))  # (10,000 elements: a small array's ops are computed as they are made)
    a = fnp.ma.masked_invalid(fnp.asarray(bad))
    r = (a - a.mean(axis=0)) / a.std(axis=0)
    assert not r.data._impl.is_realized and not r.mask._impl.is_realized
    with numpy.errstate(all="ignore"):
        b = numpy.ma.masked_invalid(bad)
        _compare(r, (b - b.mean(axis=0)) / b.std(axis=0), "lazy")


def test_grad_and_vmap_through_masks():
    import nabla

    def f(x):
        return fnp.ma.masked_less(x, 0.0).mean(axis=0).filled(0.0).sum()

    g = numpy.asarray(nabla.grad(f)(fnp.asarray(X)))
    fd = numpy.zeros_like(X)
    for idx in numpy.ndindex(X.shape):
        e = numpy.zeros_like(X)
        e[idx] = 1e-6
        fd[idx] = (float(f(fnp.asarray(X + e))) - float(f(fnp.asarray(X - e)))) / 2e-6
    numpy.testing.assert_allclose(g, fd, atol=1e-7)
    rows = nabla.vmap(lambda r: fnp.ma.masked_less(r, 0.0).mean())(fnp.asarray(X))
    assert isinstance(rows, fnp.ma.MaskedArray)
    numpy.testing.assert_allclose(numpy.asarray(rows.data), [numpy.ma.masked_less(r, 0.0).mean() for r in X])


def test_errors_match_numpy():
    with pytest.raises(numpy.ma.MaskError, match="Mask and data not compatible"):
        fnp.ma.array([1.0, 2.0, 3.0], mask=[0, 1])
    with pytest.raises(IndexError, match="masked_where"):
        fnp.ma.masked_where(fnp.asarray([True, False]), fnp.asarray([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match="average"):
        fnp.ma.average(fnp.ma.array(X), weights=W)
    with pytest.raises(TypeError, match="object arrays"):
        fnp.ma.masked_object(fnp.asarray([1.0]), 1.0)
    with pytest.raises(numpy.ma.MaskError):
        int(fnp.ma.array([1.0], mask=[1])[0:1].sum())


@pytest.mark.parametrize("bounds", [(-1, 2), (-1.5, 2), (numpy.int64(-1), 2), (None, 2)])
def test_clip_takes_python_bounds_as_weak(bounds):
    """A Python number bound keeps an int32 masked array int32 (NumPy's weak scalars); a NumPy
    int64 or a float bound promotes, as NumPy's does."""
    a = numpy.arange(-3, 6, dtype=numpy.int32).reshape(3, 3)
    want = numpy.ma.clip(numpy.ma.masked_where(a > 1, a), *bounds)
    got = fnp.ma.clip(fnp.ma.masked_where(fnp.asarray(a) > 1, fnp.asarray(a)), *bounds)
    filled = numpy.asarray(fnp.ma.filled(got, 0))
    assert filled.dtype == want.dtype
    numpy.testing.assert_array_equal(filled, numpy.ma.filled(want, 0))
    numpy.testing.assert_array_equal(numpy.asarray(fnp.ma.getmaskarray(got)), numpy.ma.getmaskarray(want))


def test_genfromtxt_with_usemask_gives_a_masked_array():
    import io

    text = "1,,3\n4,5,\n"
    ours = fnp.genfromtxt(io.StringIO(text), delimiter=",", usemask=True)
    theirs = numpy.genfromtxt(io.StringIO(text), delimiter=",", usemask=True)
    assert isinstance(ours, fnp.ma.MaskedArray)
    numpy.testing.assert_array_equal(numpy.asarray(fnp.ma.getmaskarray(ours)), numpy.ma.getmaskarray(theirs))
    assert float(ours.sum()) == float(theirs.sum())
