"""``nabla.numpy`` against NumPy itself: one table of expressions, each written once against a module
``m`` and run with ``m = numpy`` (the oracle) and ``m = nabla.numpy``; values, dtypes and shapes must
agree. Then views and in-place writes, ufunc objects, random (distribution tests), interop, errors,
and whole NumPy-style scripts."""

from __future__ import annotations

import warnings

import numpy
import pytest

import nabla
import nabla.numpy as fnp

R = numpy.random.default_rng(7)
X = R.standard_normal((4, 5))
P = numpy.abs(X) + 0.5
I = R.integers(-5, 9, (4, 5))
B = X > 0
V = R.standard_normal(7)
NANS = numpy.where(R.random((4, 5)) < 0.3, numpy.nan, X)


def _resized(a, shape):
    """``a.resize(shape)`` in place, on a fresh result (NumPy's own array: nothing else refers to it)."""
    a.resize(shape)
    return (a,)


def _x(m):
    return m.asarray(X)


def _i(m):
    return m.asarray(I)


CASES = {
    # --- creation ---
    "array_ints": lambda m: m.array([[1, 2], [3, 4]]),
    "array_floats": lambda m: m.array([1.0, 2.5]),
    "array_bools": lambda m: m.array([True, False]),
    "array_dtype": lambda m: m.array([1, 2], dtype=m.float32),
    "array_ndmin": lambda m: m.array(3.0, ndmin=2),
    "asarray_range": lambda m: m.asarray(range(5)),
    "zeros": lambda m: m.zeros(3),
    "ones_int": lambda m: m.ones((2, 3), int),
    "empty_shape": lambda m: m.empty((2, 0)).shape,
    "full_int": lambda m: m.full((2, 2), 7),
    "full_float": lambda m: m.full(3, 1.5),
    "zeros_like": lambda m: m.zeros_like(_i(m)),
    "full_like": lambda m: m.full_like(_x(m), 2),
    "arange": lambda m: m.arange(5),
    "arange_float": lambda m: m.arange(1, 2, 0.25),
    "arange_neg": lambda m: m.arange(5, -3, -2),
    "linspace": lambda m: m.linspace(0, 1, 7),
    "linspace_noend": lambda m: m.linspace(-1, 1, 4, endpoint=False),
    "logspace": lambda m: m.logspace(0, 2, 5),
    "geomspace": lambda m: m.geomspace(1, 1000, 4),
    "eye": lambda m: m.eye(3, 4, k=1),
    "identity": lambda m: m.identity(2),
    "tri": lambda m: m.tri(3, k=-1),
    "diag_1d": lambda m: m.diag(m.array([1, 2, 3]), k=1),
    "diag_2d": lambda m: m.diag(_x(m), k=-1),
    "resize": lambda m: (m.resize(m.asarray(I), (3, 7)), m.resize(m.arange(3), 2), m.resize(m.zeros(0), (2, 2))),
    "meshgrid": lambda m: m.meshgrid(m.arange(3), m.arange(2)),
    "meshgrid_ij": lambda m: m.meshgrid(m.arange(3), m.arange(2), indexing="ij"),
    "meshgrid_mixed_dtypes": lambda m: m.meshgrid(m.arange(3), m.arange(2.0), m.arange(2, dtype=m.int32)),
    "indices": lambda m: m.indices((2, 3)),
    "fromfunction": lambda m: m.fromfunction(lambda i, j: i * 10 + j, (2, 3)),
    "tril_triu": lambda m: m.tril(_x(m), -1) + m.triu(_x(m), 2),
    # --- manipulation ---
    "reshape": lambda m: m.reshape(_x(m), (5, 4)),
    "reshape_method": lambda m: _x(m).reshape(2, -1),
    "ravel": lambda m: m.ravel(_x(m)),
    "transpose": lambda m: m.transpose(m.reshape(m.arange(24), (2, 3, 4)), (1, 2, 0)),
    "T": lambda m: _x(m).T,
    "swapaxes": lambda m: m.swapaxes(m.reshape(m.arange(24), (2, 3, 4)), 0, 2),
    "moveaxis": lambda m: m.moveaxis(m.reshape(m.arange(24), (2, 3, 4)), 0, -1),
    "squeeze": lambda m: m.squeeze(m.zeros((1, 3, 1))),
    "expand_dims": lambda m: m.expand_dims(_x(m), (0, 2)),
    "concatenate": lambda m: m.concatenate([_x(m), _i(m)], axis=1),
    "concatenate_none": lambda m: m.concatenate([_x(m), _i(m)], axis=None),
    "stack": lambda m: m.stack([_x(m), _x(m) * 2], axis=1),
    "vstack": lambda m: m.vstack([m.arange(3), m.arange(3)]),
    "hstack": lambda m: m.hstack([m.arange(3), m.arange(2)]),
    "dstack": lambda m: m.dstack([m.arange(3), m.arange(3)]),
    "column_stack": lambda m: m.column_stack([m.arange(3), m.arange(3) * 2]),
    "split": lambda m: m.split(m.arange(6), 3),
    "split_points": lambda m: m.split(m.arange(7), [2, 5]),
    "array_split": lambda m: m.array_split(m.arange(7), 3),
    "hsplit": lambda m: m.hsplit(m.reshape(m.arange(8), (2, 4)), 2),
    "pad_constant": lambda m: m.pad(m.arange(6).reshape(2, 3), ((1, 0), (2, 1)), constant_values=9),
    "pad_edge": lambda m: m.pad(m.arange(4), 2, mode="edge"),
    "pad_reflect": lambda m: m.pad(m.arange(5), (3, 2), mode="reflect"),
    "pad_symmetric": lambda m: m.pad(m.arange(5), 2, mode="symmetric"),
    "pad_wrap": lambda m: m.pad(m.arange(5), (2, 3), mode="wrap"),
    "pad_mean": lambda m: m.pad(_x(m), 1, mode="mean"),
    "rot90": lambda m: m.rot90(_x(m)),
    "rot90_3": lambda m: m.rot90(_x(m), 3),
    "flip": lambda m: m.flip(_x(m), 0),
    "fliplr": lambda m: m.fliplr(_x(m)),
    "roll": lambda m: m.roll(_x(m), 2, axis=1),
    "roll_flat": lambda m: m.roll(_x(m), -3),
    "tile": lambda m: m.tile(m.arange(3), (2, 2)),
    "repeat": lambda m: m.repeat(m.arange(3), 2),
    "repeat_axis": lambda m: m.repeat(_x(m), [1, 0, 2, 1], axis=0),
    "atleast_2d": lambda m: m.atleast_2d(m.arange(3)),
    "atleast_3d": lambda m: m.atleast_3d(_x(m)),
    "r_": lambda m: m.r_[m.array([1, 2]), 0, 4:7],
    "c_": lambda m: m.c_[m.array([1, 2, 3]), m.array([4, 5, 6])],
    "ix_": lambda m: _x(m)[m.ix_([0, 2], [1, 3, 4])],
    "unravel_index": lambda m: m.unravel_index(m.array([5, 7, 19]), (4, 5)),
    "ravel_multi_index": lambda m: m.ravel_multi_index((m.array([1, 3]), m.array([2, 4])), (4, 5)),
    "sliding_window": lambda m: m.lib.stride_tricks.sliding_window_view(m.arange(6), 3),
    "sliding_window_2d": lambda m: m.lib.stride_tricks.sliding_window_view(_x(m), (2, 3)),
    "take": lambda m: m.take(_x(m), [0, 7, 19]),
    "take_axis": lambda m: m.take(_x(m), [[0, 2], [1, 1]], axis=1),
    "take_along_axis": lambda m: m.take_along_axis(_x(m), m.argsort(_x(m), axis=1), axis=1),
    "append": lambda m: m.append(m.arange(3), [[7, 8]]),
    "where3": lambda m: m.where(_x(m) > 0, _x(m), 0),
    "where1": lambda m: m.where(_x(m) > 0.5),
    "nonzero": lambda m: m.nonzero(_i(m) > 2),
    "argwhere": lambda m: m.argwhere(_i(m) > 4),
    "argwhere_0d": lambda m: (m.argwhere(m.asarray(5)), m.argwhere(m.asarray(0.0))),
    "resize_method_of_new_arrays": lambda m: _resized(m.zeros(5), 7) + _resized(m.arange(6), (2, 3)),
    "flatnonzero": lambda m: m.flatnonzero(_i(m) > 4),
    "select": lambda m: m.select([_x(m) < -0.5, _x(m) > 0.5], [_x(m) * 10, _x(m) * 100], -1.0),
    "compress": lambda m: m.compress([True, False, True, True], _x(m), axis=0),
    # --- reductions and statistics ---
    "sum": lambda m: m.sum(_x(m)),
    "sum_axis_keep": lambda m: m.sum(_x(m), axis=0, keepdims=True),
    "sum_int32": lambda m: m.sum(m.asarray(I, dtype=m.int32), axis=1),
    "sum_where": lambda m: m.sum(_x(m), where=_x(m) > 0),
    "sum_initial": lambda m: m.sum(_i(m), initial=100),
    "prod": lambda m: m.prod(m.asarray(P), axis=1),
    "mean_int": lambda m: m.mean(_i(m), axis=0),
    "mean_where": lambda m: m.mean(_x(m), axis=1, where=_x(m) > -0.5),
    "std": lambda m: m.std(_x(m), ddof=1),
    "var_axis": lambda m: m.var(_x(m), axis=(0, 1)),
    "max_min": lambda m: (m.max(_x(m), axis=1), m.min(_i(m))),
    "amax_initial": lambda m: m.amax(_x(m), axis=0, initial=0.5),
    "argmax": lambda m: (m.argmax(_x(m)), m.argmin(_x(m), axis=1)),
    "all_any": lambda m: (m.all(_x(m) > -5), m.any(_x(m) > 2, axis=0)),
    "cumsum": lambda m: m.cumsum(_x(m)),
    "cumsum_int_axis": lambda m: m.cumsum(m.asarray(I, dtype=m.int8), axis=1),
    "cumprod": lambda m: m.cumprod(m.asarray(P), axis=0),
    "ptp": lambda m: m.ptp(_x(m), axis=1),
    "count_nonzero": lambda m: m.count_nonzero(_i(m), axis=0),
    "average_w": lambda m: m.average(_x(m), axis=1, weights=[1, 2, 3, 4, 5]),
    "average": lambda m: m.average(_i(m)),
    "median": lambda m: m.median(_x(m)),
    "median_axis": lambda m: m.median(_x(m), axis=0),
    "percentile": lambda m: m.percentile(_x(m), [10, 50, 90], axis=1),
    "quantile_methods": lambda m: tuple(m.quantile(m.asarray(V), 0.3, method=k)
                                        for k in ("linear", "lower", "higher", "nearest", "midpoint")),
    "quantile_keepdims": lambda m: m.quantile(_x(m), 0.25, axis=1, keepdims=True),
    "quantile_weights": lambda m: tuple(m.quantile(_x(m), q, axis=a, method="inverted_cdf",
                                                   weights=numpy.abs(X) * (numpy.arange(X.size).reshape(X.shape) % 3))
                                        for q in (0.0, 0.35, [0.5, 1.0]) for a in (None, 0, 1)),
    "percentile_weights_1d": lambda m: m.percentile(_x(m), [10, 60], axis=1, method="inverted_cdf",
                                                     weights=[0.0, 1.0, 2.0, 0.5, 3.0][:X.shape[1]]),
    "nansum": lambda m: m.nansum(m.asarray(NANS), axis=0),
    "nanmean": lambda m: m.nanmean(m.asarray(NANS), axis=1),
    "nanstd": lambda m: m.nanstd(m.asarray(NANS)),
    "nanmax": lambda m: (m.nanmax(m.asarray(NANS), axis=0), m.nanmin(m.asarray(NANS))),
    "nanargmax": lambda m: m.nanargmax(m.asarray(NANS), axis=1),
    "nanmedian": lambda m: m.nanmedian(m.asarray(NANS), axis=1),
    "nanpercentile": lambda m: m.nanpercentile(m.asarray(NANS), 30),
    "nancumsum": lambda m: m.nancumsum(m.asarray(NANS), axis=1),
    "median_nan": lambda m: m.median(m.asarray(NANS), axis=1),
    "cov": lambda m: m.cov(_x(m)),
    "cov_cols": lambda m: m.cov(_x(m), rowvar=False, ddof=0),
    "cov_fweights": lambda m: m.cov(_x(m), fweights=[1, 2, 0, 3, 1]),
    "cov_aweights": lambda m: m.cov(_x(m), aweights=[0.5, 1.0, 2.0, 0.25, 1.0], ddof=0),
    "cov_both": lambda m: m.cov(_x(m).T, rowvar=False, fweights=[2, 1, 1, 3, 1], aweights=[1.0, 0.5, 2.0, 1.0, 3.0]),
    "corrcoef": lambda m: m.corrcoef(_x(m)),
    "histogram": lambda m: m.histogram(m.asarray(V), bins=4),
    "histogram_edges": lambda m: m.histogram(m.asarray(V), bins=[-2.0, -0.5, 0.0, 0.7, 3.0]),
    "histogram_density": lambda m: m.histogram(_x(m), bins=3, range=(-1, 1), density=True),
    "bincount": lambda m: m.bincount(m.array([0, 1, 1, 3, 2, 1, 7])),
    "bincount_w": lambda m: m.bincount(m.array([0, 1, 1, 3]), weights=[0.5, 1.0, 2.0, 1.5], minlength=6),
    "digitize": lambda m: m.digitize(m.asarray(V), [-1.0, 0.0, 1.0]),
    "digitize_right": lambda m: m.digitize(m.array([0.0, 1.0, 2.5]), [0.0, 1.0, 2.0], right=True),
    "digitize_decreasing": lambda m: m.digitize(m.array([0.5, 1.5, 3.0]), [3.0, 2.0, 1.0]),
    # --- products and signals ---
    "dot": lambda m: m.dot(_x(m), m.ones(5)),
    "dot_2d": lambda m: m.dot(_x(m), _x(m).T),
    "dot_scalar": lambda m: m.dot(3, _x(m)),
    "vdot": lambda m: m.vdot(_x(m), _x(m)),
    "inner": lambda m: m.inner(_x(m), _x(m)),
    "outer": lambda m: m.outer(m.arange(3), m.arange(4)),
    "matmul_op": lambda m: _x(m) @ _x(m).T,
    "tensordot": lambda m: m.tensordot(m.reshape(m.arange(24.0), (2, 3, 4)), m.ones((3, 4)), axes=2),
    "kron": lambda m: m.kron(m.eye(2), m.array([[1, 2], [3, 4]])),
    "cross": lambda m: m.cross(m.array([1.0, 2, 3]), m.array([4.0, 5, 6])),
    "einsum_matmul": lambda m: m.einsum("ij,kj->ik", _x(m), _x(m)),
    "einsum_trace": lambda m: m.einsum("ii", m.reshape(m.arange(9.0), (3, 3))),
    "einsum_diag": lambda m: m.einsum("ii->i", m.reshape(m.arange(9.0), (3, 3))),
    "einsum_sum": lambda m: m.einsum("ij->j", _x(m)),
    "einsum_batch": lambda m: m.einsum("bij,bjk->bik", m.reshape(m.arange(24.0), (2, 3, 4)),
                                       m.reshape(m.arange(16.0), (2, 4, 2))),
    "einsum_ellipsis": lambda m: m.einsum("...j,j->...", _x(m), m.arange(5.0)),
    "einsum_three": lambda m: m.einsum("ij,jk,kl->il", _x(m), _x(m).T, _x(m)),
    "einsum_outer": lambda m: m.einsum("i,j", m.arange(3.0), m.arange(2.0)),
    "einsum_sublist": lambda m: m.einsum(_x(m), [0, 1], _x(m), [2, 1], [0, 2]),
    "einsum_sublist_ellipsis": lambda m: m.einsum(_x(m), [Ellipsis, 1], m.arange(5.0), [1]),
    "einsum_sublist_implicit": lambda m: m.einsum(m.reshape(m.arange(9.0), (3, 3)), [27, 27]),
    "trace": lambda m: m.trace(_x(m), offset=1),
    "diagonal": lambda m: m.diagonal(m.reshape(m.arange(24), (2, 3, 4)), 0, 1, 2),
    "diff": lambda m: m.diff(_x(m), axis=0),
    "diff_n2": lambda m: m.diff(m.asarray(V), n=2),
    "diff_prepend": lambda m: m.diff(m.arange(5), prepend=0, append=[9, 9]),
    "diff_bool": lambda m: m.diff(_x(m) > 0),
    "ediff1d": lambda m: m.ediff1d(m.array([1, 2, 4, 7]), to_begin=0),
    "gradient": lambda m: m.gradient(m.asarray(V)),
    "gradient_2d": lambda m: m.gradient(_x(m), 0.5),
    "gradient_order2": lambda m: m.gradient(m.asarray(V), edge_order=2),
    "gradient_coords": lambda m: m.gradient(m.asarray(V), m.cumsum(m.abs(m.asarray(V)) + 0.1)),
    "convolve_full": lambda m: m.convolve(m.asarray(V), m.array([1.0, 2.0, -1.0])),
    "convolve_same": lambda m: m.convolve(m.asarray(V), m.array([0.25, 0.5, 0.25, 0.1]), mode="same"),
    "convolve_valid": lambda m: m.convolve(m.asarray(V), m.array([1.0, -1.0]), mode="valid"),
    "correlate": lambda m: m.correlate(m.asarray(V), m.array([1.0, 0.5]), mode="full"),
    "polyfit": lambda m: m.polyfit(m.linspace(-2.0, 3.0, 30), m.linspace(-2.0, 3.0, 30) ** 3 - 2.0, 3),
    "polyfit_weighted_2d": lambda m: m.polyfit(m.arange(6.0), m.stack([m.arange(6.0) ** 2, m.cos(m.arange(6.0))], 1),
                                               2, w=m.arange(1.0, 7.0)),
    "polyval": lambda m: (m.polyval([3.0, -1.0, 2.0], _x(m)), m.polyval([1, 2, 3], 2)),
    "poly_roots": lambda m: (m.poly([1.0, 2.0, -3.0]), m.sort(m.real(m.roots([1.0, -6.0, 11.0, -6.0, 0.0])))),
    "polyder_polyint": lambda m: (m.polyder([1, 2, 3, 4]), m.polyder([1.0, 2, 3, 4], 2), m.polyint([3.0, 2, 1], 2, k=[1, 2])),
    "polyarith": lambda m: (m.polyadd([1, 2], [1, 2, 3]), m.polysub([1.0, 2], [1, 2, 3]), m.polymul([1, 2], [1, 2, 3]),
                            *m.polydiv([1.0, 5, 6, 9], [1.0, 2])),
    "poly1d_arith": lambda m: _poly1d_parts(m, m.poly1d([0, 2.0, -3, 1, 5]), m.poly1d([1.0, -2])),
    "poly1d_int": lambda m: _poly1d_parts(m, m.poly1d([1, 2, 0, -1]), m.poly1d([3, 1])),
    "poly1d_classic": lambda m: tuple(r.coeffs for r in (
        m.polyadd(m.poly1d([1, 2]), [1, 2, 3]), m.polymul([1.0, 2], m.poly1d([1, -1])), *m.polydiv(m.poly1d([1.0, 5, 6]), [1.0, 2]),
        m.polyder(m.poly1d([1, 2, 3, 4]), 2), m.polyint(m.poly1d([3.0, 2]), k=1), m.polyval(m.poly1d([1.0, 1]), m.poly1d([2.0, 0])),
        m.poly1d([1.0, -2, 4], r=True))),
    "polynomial_module": lambda m: (lambda pp: (
        pp.polyadd([1, -1], [0, 1]), pp.polysub([1.0, 2, 3], [1, 2, 3]), pp.polymul([1, 2], [1, 0, -1]),
        *pp.polydiv([1.0, 2, 3], [1, 1]), pp.polypow([1.0, 1], 3), pp.polyval(m.linspace(-1, 2, 5), [1.0, -2, 3]),
        pp.polyder([1, 2, 3, 4], 2, scl=2), pp.polyint([1, 2, 3], m=2, k=[1, 2], lbnd=1), pp.polyvander([1.0, 2.0], 2),
        pp.polyfromroots([1.0, 2, -3]), pp.polyroots([1.0, 0, 1]), m.real(pp.polyroots([6.0, -5, 1])),
        pp.polyfit(m.linspace(0, 1, 9), m.linspace(0, 1, 9) ** 2 - 1, 2), pp.polymulx([1.0, 2, 3]), pp.polyline(3, 2),
        pp.polyval2d(m.linspace(0, 1, 4), m.linspace(1, 2, 4), m.ones((2, 3))),
        pp.polygrid2d(m.linspace(0, 1, 4), m.linspace(1, 2, 3), m.ones((2, 3))),
        pp.polyvander2d(m.linspace(0, 1, 4), m.linspace(1, 2, 4), [2, 1])))(m.polynomial.polynomial),
    "polyfit_cov": lambda m: (lambda x: (*m.polyfit(x, m.sin(3 * x), 3, cov=True),
                                         *m.polyfit(x, m.stack([m.sin(x), m.cos(x)], 1), 2, cov="unscaled"),
                                         *m.polyfit(x, m.exp(x), 2, w=x + 1, cov=True)))(m.linspace(0, 2, 11)),
    "polynomial_class": lambda m: (lambda P: _polynomial_parts(m, P.fit(m.linspace(-1, 3, 20), m.linspace(-1, 3, 20) ** 3 - 1, 3),
                                                               P([1.0, 2, 3], domain=[0, 2]), P))(m.polynomial.Polynomial),
    "vander": lambda m: (m.vander([1, 2, 3]), m.vander(m.array([1.0, 2.0]), 3, increasing=True)),
    "interp": lambda m: m.interp(m.linspace(-1, 5, 13), m.array([0.0, 1.0, 3.0]), m.array([1.0, 3.0, 0.0])),
    "interp_period": lambda m: m.interp(m.linspace(-400, 400, 17), m.array([-180.0, -170.0, -10.0, 170.0, 5.0]),
                                        m.array([4.0, 1.0, 3.0, 2.0, 0.5]), period=360),
    "interp_lr": lambda m: m.interp(m.array([-1.0, 4.0]), m.array([0.0, 1.0]), m.array([1.0, 3.0]), left=-9,
                                    right=9),
    "clip": lambda m: m.clip(_x(m), -0.5, 0.5),
    "clip_int": lambda m: m.clip(_i(m), 0, 4),
    "around": lambda m: m.around(_x(m) * 100, -1),
    "round_dec": lambda m: m.round(_x(m), 2),
    "nan_to_num": lambda m: m.nan_to_num(m.array([numpy.nan, numpy.inf, -numpy.inf, 1.0])),
    "isclose": lambda m: m.isclose(m.array([1.0, numpy.nan, numpy.inf, 1e-9]), m.array([1.0 + 1e-9, numpy.nan,
                                                                                      numpy.inf, 0.0])),
    "allclose": lambda m: (m.allclose(_x(m), _x(m) + 1e-9), m.allclose(_x(m), _x(m) + 1.0)),
    "array_equal": lambda m: (m.array_equal(_i(m), _i(m)), m.array_equal(_i(m), _i(m).T),
                              m.array_equiv(m.arange(3), m.tile(m.arange(3), (2, 1)))),
    "sinc": lambda m: m.sinc(m.linspace(-2, 2, 9)),
    "angle": lambda m: m.angle(m.array([1 + 1j, -1.0 + 0j, -2j])),
    "isneginf": lambda m: m.isneginf(m.array([-numpy.inf, 0.0, numpy.inf])),
    # --- sorting and sets ---
    "sort": lambda m: m.sort(_x(m)),
    "sort_axis0": lambda m: m.sort(_x(m), axis=0),
    "sort_none": lambda m: m.sort(_x(m), axis=None),
    "argsort": lambda m: m.argsort(m.asarray(V)),
    "partition_kth": lambda m: m.partition(m.asarray(V), 3)[3],
    "lexsort": lambda m: m.lexsort((m.array([1, 5, 1, 4, 3]), m.array([9, 4, 0, 4, 0]))),
    "unique": lambda m: m.unique(_i(m)),
    "unique_all": lambda m: m.unique(m.array([3, 1, 2, 3, 1, 7]), return_index=True, return_inverse=True,
                                     return_counts=True),
    "unique_axis": lambda m: m.unique(m.array([[1, 0], [0, 1], [1, 0], [0, 0]]), axis=0, return_counts=True),
    "unique_2d_inverse": lambda m: m.unique(m.array([[2, 1], [1, 2]]), return_inverse=True),
    "intersect1d": lambda m: m.intersect1d(m.array([1, 3, 4, 3]), m.array([3, 1, 2, 1])),
    "intersect1d_idx": lambda m: m.intersect1d(m.array([1, 3, 4, 3]), m.array([3, 1, 2, 1]), return_indices=True),
    "union1d": lambda m: m.union1d(m.array([-1, 0, 1]), m.array([-2, 0, 2])),
    "setdiff1d": lambda m: m.setdiff1d(m.array([1, 2, 3, 2, 4, 1]), m.array([3, 4, 5, 6])),
    "setxor1d": lambda m: m.setxor1d(m.array([1, 2, 3, 2, 4]), m.array([2, 3, 5, 7, 5])),
    "isin": lambda m: m.isin(_i(m), [1, 2, 3]),
    "isin_invert": lambda m: m.isin(_i(m), m.array([[1, 2], [3, 4]]), invert=True),
    "searchsorted": lambda m: m.searchsorted(m.array([1, 2, 3, 5]), m.array([0, 3, 4, 6]), side="right"),
    # --- promotion (NEP 50) ---
    "int_times_float": lambda m: m.arange(3) * 2.5,
    "int_true_divide": lambda m: m.arange(4) / 2,
    "int32_plus_int64": lambda m: m.asarray([1, 2], dtype=m.int32) + m.asarray([1, 2], dtype=m.int64),
    "uint8_plus_pyint": lambda m: m.asarray([1, 2], dtype=m.uint8) + 3,
    "f32_times_pyfloat": lambda m: m.asarray([1, 2], dtype=m.float32) * 2.0,
    "f32_plus_int64": lambda m: m.asarray([1, 2], dtype=m.float32) + m.asarray([1, 2]),
    "uint64_plus_int64": lambda m: m.asarray([1, 2], dtype=m.uint64) + m.asarray([1, 2]),
    "bool_sum": lambda m: (_x(m) > 0).sum(),
    "int_pow": lambda m: m.arange(4) ** 2,
    "reflected": lambda m: 1 - _x(m),
    "floordiv_mod": lambda m: (_i(m) // 3, _i(m) % 3, divmod(_i(m), 4)),
    # --- methods ---
    "m_sum": lambda m: _x(m).sum(axis=0, keepdims=True),
    "m_mean_std": lambda m: (_x(m).mean(1), _x(m).std(ddof=1), _i(m).var()),
    "m_minmax": lambda m: (_x(m).max(axis=0), _x(m).min(), _x(m).argmax(), _x(m).argmin(axis=1)),
    "m_cumsum": lambda m: _x(m).cumsum(axis=1),
    "m_astype": lambda m: _x(m).astype(m.float32),
    "m_astype_int": lambda m: (_x(m) * 10).astype(int),
    "m_flatten_ravel": lambda m: (_x(m).flatten(), _x(m).ravel()),
    "m_transpose_args": lambda m: m.reshape(m.arange(24), (2, 3, 4)).transpose(2, 0, 1),
    "m_clip_round": lambda m: (_x(m).clip(-0.2, 0.2), _x(m).round(1)),
    "m_all_any": lambda m: (_x(m).all(), (_x(m) > 1).any(axis=1)),
    "m_item": lambda m: (_x(m).item(3), _x(m).item(1, 2), m.sum(_x(m)).item()),
    "m_tolist": lambda m: m.arange(4).reshape(2, 2).tolist(),
    "m_nonzero": lambda m: (_i(m) > 3).nonzero(),
    "m_repeat_squeeze": lambda m: (m.arange(3).repeat(2), m.zeros((1, 3)).squeeze()),
    "m_swapaxes_dot": lambda m: (_x(m).swapaxes(0, 1), _x(m).dot(m.ones(5))),
    "m_attrs": lambda m: (_x(m).nbytes, _x(m).itemsize, _x(m).ndim, _x(m).size, len(_x(m))),
    "m_contains": lambda m: (3 in m.arange(5), 7 in m.arange(5)),
    "m_iter": lambda m: [row.sum() for row in _x(m)],
    "m_real_imag": lambda m: (m.array([1 + 2j, 3 - 1j]).real, m.array([1 + 2j, 3 - 1j]).imag, _x(m).imag),
    "m_conj": lambda m: m.array([1 + 2j]).conj(),
    # --- indexing ---
    "getitem_mask": lambda m: _x(m)[_x(m) > 0],
    "getitem_fancy": lambda m: _x(m)[[0, 2, 3]][:, [4, 0]],
    "getitem_mixed": lambda m: _x(m)[1:, [0, 2]],
    "getitem_newaxis": lambda m: _x(m)[:, m.newaxis, 2],
    # --- dtype objects ---
    "dtype_eq": lambda m: (_x(m).dtype == m.float64, _i(m).dtype == m.int64, _x(m).dtype == "float64",
                           m.dtype("float32") == m.float32, m.float32(2.5) * 2),
    "finfo": lambda m: (m.finfo(m.float32).eps, m.iinfo(m.int16).max),
    "result_type": lambda m: m.result_type(m.arange(3), 1.5),
}


_FAMILIES = {"cheb": ("chebyshev", "Chebyshev"), "leg": ("legendre", "Legendre"), "lag": ("laguerre", "Laguerre"),
             "herm": ("hermite", "Hermite"), "herme": ("hermite_e", "HermiteE")}


def _family_module_parts(m, p):
    """Every function of one orthogonal-series module, as NumPy's module computes it."""
    f = lambda name: getattr(getattr(m.polynomial, _FAMILIES[p][0]), p + name)  # noqa: E731
    c1, c2, x = [1.0, -2, 3, 0.5], [0.5, 2.0, -1.0], m.linspace(-0.9, 0.9, 7)
    q, r = f("div")(c1, c2)
    return (f("add")(c1, c2), f("sub")(c1, c2), f("mul")(c1, c2), f("mulx")(c1), f("pow")(c2, 3), q, r,
            f("val")(x, c1), f("val")(x, m.ones((4, 2))), f("der")(c1), f("der")(c1, 2, 3), f("int")(c1),
            f("int")(c1, 2, [1, 2], 0.5, 2), f("int")([0.0]), f("vander")(x, 3), f("fromroots")([0.3, -0.2, 0.7]),
            f("2poly")(c1), getattr(getattr(m.polynomial, _FAMILIES[p][0]), "poly2" + p)([1.0, 2, 0, 4]),
            f("companion")(c1), *f("gauss")(5), f("fit")(x, m.sin(x), 3), f("fit")(x, m.sin(x), [0, 1, 3]),
            f("trim")([1, 2, 0, 1e-9], 1e-6), f("weight")(x), f("val2d")(x, x, m.ones((3, 2))),
            f("grid2d")(x, x[:3], m.ones((3, 2))), m.sort(m.real(f("roots")(c1))),
            f("vander2d")(x, x[::-1], [2, 3]), f("vander3d")(x[:4], x[1:5], x[2:6], [1, 2, 1]), f("line")(3, 2),
            f("line")(0.5, -1.5), f("line")(3, 0),
            *((f("pts1")(5), f("pts2")(6), f("interpolate")(m.exp, 6)) if p == "cheb" else ()))


def _family_class_parts(m, p):
    """One series class: fit, calculus, conversion between kinds, arithmetic, roots, construction."""
    K = getattr(m.polynomial, _FAMILIES[p][1])
    xs = m.linspace(0, 3, 20)
    a, q = K.fit(xs, m.exp(-xs), 4), K([1.0, 2, 3], domain=[0, 2])
    return (a.coef, a(xs), a.deriv().coef, a.integ(lbnd=1).coef, a.convert(kind=m.polynomial.Polynomial).coef,
            a.convert().coef, (q * q).coef, (q ** 2).coef, (q - 1).coef, (q // K([1.0, 1], domain=[0, 2])).coef,
            (q % K([1.0, 1], domain=[0, 2])).coef, m.sort(m.real(q.roots())), K.fromroots([1, 2, 3]).coef,
            K.identity([0, 2]).coef, K.cast(m.polynomial.Polynomial([1.0, 2, 3])).coef, K.basis(3).coef,
            m.polynomial.Chebyshev.cast(q).coef, q.trim(2.5).coef, q.cutdeg(1).coef)


CASES.update({f"polynomial_{p}_module": (lambda p: lambda m: _family_module_parts(m, p))(p) for p in _FAMILIES})
CASES.update({f"polynomial_{p}_class": (lambda p: lambda m: _family_class_parts(m, p))(p) for p in _FAMILIES})


def _poly1d_parts(m, p, q):
    """What poly1d arithmetic gives, as arrays: coefficients, values, orders."""
    quotient, remainder = p / q
    return (p.coeffs, (p + q).coeffs, (p - q).coeffs, (2 - p).coeffs, (p * q).coeffs, (p * 3).coeffs, (p ** 3).coeffs,
            (-p).coeffs, quotient.coeffs, remainder.coeffs, p.deriv(2).coeffs, p.integ(2, k=[1, 2]).coeffs,
            p(q).coeffs, p(m.arange(4.0)), p(2), m.asarray([p.order, len(q)]), m.asarray([p[1], p[0], p[9]]))


def _polynomial_parts(m, fitted, q, P):
    quotient, remainder = divmod(q, P([1.0, 1], domain=[0, 2]))
    return (fitted.coef, m.asarray(fitted.domain), fitted.convert().coef, fitted(m.asarray([0.5, 2.0])), q.coef,
            (q + 1).coef, (2 - q).coef, (q * q).coef, (q ** 2).coef, (q / 2).coef, quotient.coef, remainder.coef,
            q.deriv().coef, q.integ(lbnd=1).coef, q.convert().coef, q.convert(domain=[1, 4]).coef, q.linspace(4)[1],
            m.sort_complex(q.roots()), m.asarray([q.degree(), len(q)]))


def _compare(got, want, name, leaf=None):
    """``got`` against NumPy's ``want``, through tuples and lists; ``leaf(got, want, name)`` may
    take a pair first (returning True when it has checked it)."""
    if leaf is not None and leaf(got, want, name):
        return
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), f"{name}: {got!r} vs {want!r}"
        for g, w in zip(got, want):
            _compare(g, w, name, leaf)
        return
    if isinstance(want, (numpy.ndarray, numpy.generic)):
        g = numpy.asarray(got)
        w = numpy.asarray(want)
        assert g.shape == w.shape, f"{name}: shape {g.shape} vs {w.shape}"
        assert g.dtype == w.dtype, f"{name}: dtype {g.dtype} vs {w.dtype}"
        if w.dtype.kind in "fc":
            numpy.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=name)
        else:
            numpy.testing.assert_array_equal(g, w, err_msg=name)
        return
    assert got == want or (isinstance(want, float) and abs(got - want) <= 1e-12 * max(1, abs(want))), \
        f"{name}: {got!r} vs {want!r}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_numpy(name):
    want = CASES[name](numpy)
    got = CASES[name](fnp)
    _compare(got, want, name)


@pytest.mark.parametrize("name", ["argmax", "argmin", "max", "min", "nanargmax", "nanargmin"])
def test_complex_extremes_in_numpys_order(name):
    """NumPy orders complex values by real part, then imaginary part, and picks the first value with
    a NaN part; ties, infinities and NaNs in either part, every axis, keepdims, axis tuples."""
    rng = numpy.random.default_rng(11)
    parts = numpy.array([0.0, 1.0, -1.0, numpy.inf, -numpy.inf, numpy.nan])
    for shape, dtype, kinds in (((9,), numpy.complex128, 3), ((4, 5), numpy.complex64, 3), ((2, 3, 4), numpy.complex128, 6)):
        z = (rng.choice(parts[:kinds], shape) + 1j * rng.choice(parts[:kinds], shape)).astype(dtype)
        axes = [None, *range(z.ndim)] + ([(0, z.ndim - 1)] if z.ndim > 1 and name in ("max", "min") else [])
        for axis in axes:
            for keep in ((False,) if name.startswith("nan") else (False, True)):
                kw = {"axis": axis} if name.startswith("nan") else {"axis": axis, "keepdims": keep}
                try:
                    with numpy.errstate(invalid="ignore"):
                        want = getattr(numpy, name)(z, **kw)
                except ValueError:  # an all-NaN slice
                    with pytest.raises(ValueError, match="All-NaN slice"):
                        getattr(fnp, name)(fnp.asarray(z), **kw)
                    continue
                got = numpy.asarray(getattr(fnp, name)(fnp.asarray(z), **kw))
                assert got.dtype == numpy.asarray(want).dtype and got.shape == numpy.shape(want), (axis, keep)
                numpy.testing.assert_array_equal(got, want, err_msg=f"{shape} axis={axis} keepdims={keep}")


def test_complex_maximum_and_minimum_in_numpys_order():
    """The ufuncs and their reductions pick as NumPy does: a NaN part propagates (the first one),
    fmax/fmin skip it; the parts of every result equal NumPy's, NaN payloads' positions included."""
    rng = numpy.random.default_rng(12)
    parts = numpy.array([0.0, 1.0, -1.0, numpy.inf, numpy.nan])
    for dtype in (numpy.complex128, numpy.complex64):
        z, w = ((rng.choice(parts, (5, 8)) + 1j * rng.choice(parts, (5, 8))).astype(dtype) for _ in range(2))
        cases = {f: (lambda m, f=f: getattr(m, f)(m.asarray(z), m.asarray(w))) for f in ("maximum", "minimum", "fmax", "fmin")}
        cases.update({f"{f}.reduce axis={axis}": (lambda m, f=f, axis=axis: getattr(m, f).reduce(m.asarray(z), axis=axis))
                      for f in ("maximum", "minimum") for axis in (0, 1, None)})
        for name, case in cases.items():
            with numpy.errstate(invalid="ignore"):
                want = case(numpy)
            got = numpy.asarray(case(fnp))
            assert got.dtype == want.dtype and got.shape == want.shape, name
            for part in (numpy.real, numpy.imag):
                numpy.testing.assert_array_equal(part(got), part(want), err_msg=name)


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
def test_nan_positions_of_an_all_nan_slice_raise_as_numpys(name):
    """A slice with no number has no position: NumPy's ValueError, whatever the axis; the others'
    positions where none is all NaN."""
    rows = numpy.array([[1.0, numpy.nan, 3.0], [numpy.nan, numpy.nan, numpy.nan]], numpy.float32)
    for m in (numpy, fnp):
        for a, axis in ((rows, 1), (rows[1], None), (rows[1:], 0)):
            with pytest.raises(ValueError, match="All-NaN slice"):
                getattr(m, name)(m.asarray(a), axis=axis)
    for a, axis in ((rows[:, ::2], 0), (rows, None), (rows[:1], 1), (rows[:1], None)):
        want = getattr(numpy, name)(a, axis=axis)
        numpy.testing.assert_array_equal(numpy.asarray(getattr(fnp, name)(fnp.asarray(a), axis=axis)), want)


def test_polynomial_class_printing_equality_and_errors():
    for m in (numpy, fnp):
        P = m.polynomial.Polynomial
        p = P([1.0, 2, 3], domain=[0, 2], symbol="t")
        assert repr(p) == repr(numpy.polynomial.Polynomial([1.0, 2, 3], domain=[0, 2], symbol="t"))
        assert str(p) == str(numpy.polynomial.Polynomial([1.0, 2, 3], domain=[0, 2], symbol="t"))
        assert p == P([1.0, 2, 3], domain=[0, 2], symbol="t") and p != P([1.0, 2, 3], symbol="t")
        with pytest.raises(TypeError):
            p + P([1.0], symbol="t")  # domains differ
        with pytest.raises(ValueError):
            P([1.0], domain=[0, 1, 2])
        with pytest.raises(ZeroDivisionError):
            m.polynomial.polynomial.polydiv([1.0, 2], [0.0])
        for name in ("Chebyshev", "Legendre", "Laguerre", "Hermite", "HermiteE"):
            K, NK = getattr(m.polynomial, name), getattr(numpy.polynomial, name)
            assert repr(K([1.0, 2, 3], domain=[0, 2])) == repr(NK([1.0, 2, 3], domain=[0, 2]))
            assert str(K([1.0, 2, 3], symbol="t")) == str(NK([1.0, 2, 3], symbol="t"))
            with pytest.raises(TypeError):
                K([1.0, 2]) + P([1.0, 2])  # kinds differ


def test_poly1d_printing_equality_items_and_errors():
    for m in (numpy, fnp):
        p = m.poly1d([1.0, -3, 2], variable="z")
        assert repr(p) == "poly1d([ 1., -3.,  2.])" and str(p) == str(numpy.poly1d([1.0, -3, 2], variable="z"))
        assert p == m.poly1d([0, 1.0, -3, 2]) and p != m.poly1d([1.0, -3]) and p.variable == "z"
        p[4] = 7.0
        numpy.testing.assert_array_equal(numpy.asarray(p.coeffs), [7.0, 0, 1, -3, 2])
        numpy.testing.assert_allclose(numpy.sort_complex(numpy.asarray(m.poly1d([1.0, -3, 2]).roots)), [1, 2])
        assert numpy.asarray(p).tolist() == [7.0, 0, 1, -3, 2]
        with pytest.raises(ValueError):
            p ** -1
        with pytest.raises(ValueError):
            m.poly1d([[1.0, 2.0]])
        with pytest.raises(ValueError):
            p[-1] = 2.0


def test_results_are_ndarrays_and_lazy():
    y = fnp.exp(fnp.arange(3.0)) + fnp.sum(fnp.ones((2, 3)), axis=0)
    assert isinstance(y, fnp.ndarray) and isinstance(y, nabla.Tensor)
    big = fnp.exp(fnp.arange(300000.0)) + 1.0  # (small work over realized data is computed as it is made)
    assert isinstance(big, fnp.ndarray) and not big.is_realized
    assert isinstance(fnp.linalg.svd(fnp.eye(3)).S, fnp.ndarray)
    assert isinstance(fnp.unique(fnp.array([1, 1]), return_counts=True)[1], fnp.ndarray)


# --- ufunc objects ---------------------------------------------------------------------------------------

UNARY_DOMAIN = {"arccosh": P + 1, "log": P, "log10": P, "log2": P, "log1p": P, "sqrt": P, "reciprocal": P,
                "arccos": numpy.tanh(X), "arcsin": numpy.tanh(X), "arctanh": numpy.tanh(X) * 0.9,
                "acos": numpy.tanh(X), "asin": numpy.tanh(X), "atanh": numpy.tanh(X) * 0.9, "acosh": P + 1}


@pytest.mark.parametrize("name", sorted(n for n, u in fnp._UFUNCS.items() if u.nin == 1))
def test_unary_ufuncs(name):
    ours, theirs = getattr(fnp, name), getattr(numpy, name)
    data = I if name in ("invert", "bitwise_not", "bitwise_invert", "bitwise_count") else UNARY_DOMAIN.get(name, X)
    _compare(ours(fnp.asarray(data)), theirs(data), name)
    if name not in ("invert", "bitwise_not", "bitwise_invert", "logical_not"):
        ints = numpy.abs(I) + 1  # integer inputs take NumPy's loop (float64 for the float-only ufuncs)
        _compare(ours(fnp.asarray(ints)), theirs(ints), f"{name}(int)")


@pytest.mark.parametrize("name", sorted(n for n, u in fnp._UFUNCS.items() if u.nin == 2))
def test_binary_ufuncs(name):
    ours, theirs = getattr(fnp, name), getattr(numpy, name)
    if "shift" in name or name.startswith("bitwise") or name in ("gcd", "lcm"):
        a, b = numpy.abs(I), numpy.abs(I.T[:4, :4]).T[:, :1] % 5
    elif name in ("power", "pow", "float_power"):
        a, b = P, X
    elif name == "ldexp":  # integer exponents
        a, b = X, I
    elif name in ("floor_divide", "remainder", "mod", "fmod", "divmod"):
        a, b = I, numpy.where(I == 0, 3, I)[::-1]
    else:
        a, b = X, X[::-1] * 0.5
    _compare(ours(fnp.asarray(a), fnp.asarray(b)), theirs(a, b), name)
    _compare(ours(fnp.asarray(a), 2), theirs(a, 2), f"{name}(scalar)")


def test_ufunc_keywords_and_methods():
    x = fnp.asarray(X)
    out = fnp.zeros((4, 5))
    r = fnp.add(x, 1.0, out=out)
    assert r is out
    numpy.testing.assert_allclose(out.numpy(), X + 1)
    w = fnp.multiply(x, 2.0, where=x > 0, out=fnp.full((4, 5), -1.0))
    numpy.testing.assert_allclose(w.numpy(), numpy.multiply(X, 2.0, where=X > 0, out=numpy.full((4, 5), -1.0)))
    numpy.testing.assert_allclose(fnp.add(x, x, dtype=fnp.float32).numpy(), (X + X).astype(numpy.float32),
                                  rtol=1e-6)
    assert fnp.add(x, x, dtype=fnp.float32).dtype == numpy.float32
    for u in ("add", "multiply", "maximum", "minimum", "logical_or", "fmax", "hypot", "subtract"):
        data = P if u == "multiply" else X
        numpy.testing.assert_allclose(getattr(fnp, u).reduce(fnp.asarray(data), axis=1).numpy(),
                                      getattr(numpy, u).reduce(data, axis=1), rtol=1e-12, err_msg=u)
        numpy.testing.assert_allclose(getattr(fnp, u).accumulate(fnp.asarray(data), axis=1).numpy(),
                                      getattr(numpy, u).accumulate(data, axis=1), rtol=1e-12, err_msg=u)
    numpy.testing.assert_allclose(fnp.add.reduce(fnp.asarray(X), axis=None).numpy(), numpy.add.reduce(X, axis=None))
    numpy.testing.assert_allclose(fnp.subtract.outer(fnp.arange(3), fnp.arange(4)).numpy(),
                                  numpy.subtract.outer(numpy.arange(3), numpy.arange(4)))
    a, n = fnp.zeros(6), numpy.zeros(6)
    fnp.add.at(a, [0, 0, 3, 5, 0], [1.0, 2.0, 3.0, 4.0, 5.0])
    numpy.add.at(n, [0, 0, 3, 5, 0], [1.0, 2.0, 3.0, 4.0, 5.0])
    numpy.testing.assert_array_equal(a.numpy(), n)
    g, h = fnp.arange(12.0).reshape(3, 4), numpy.arange(12.0).reshape(3, 4)
    fnp.subtract.at(g, ([0, 2, 0], [1, 1, 1]), 1.0)
    numpy.subtract.at(h, ([0, 2, 0], [1, 1, 1]), 1.0)
    numpy.testing.assert_array_equal(g.numpy(), h)
    fnp.maximum.at(g, slice(1, 3), 100.0)
    numpy.maximum.at(h, slice(1, 3), 100.0)
    numpy.testing.assert_array_equal(g.numpy(), h)
    with pytest.raises(TypeError, match="add"):
        fnp.add(fnp.arange(3), 1.5, out=fnp.zeros(3, dtype=int))
    with pytest.raises(TypeError, match="bitwise_and"):
        fnp.bitwise_and(fnp.asarray(X), 1)


# --- views and in-place writes -------------------------------------------------------------------------

def _same_under_both(script):
    """``script(m)`` returns arrays; NumPy's are the oracle for Nabla's."""
    want = [numpy.asarray(v) for v in script(numpy)]
    got = [numpy.asarray(v) for v in script(fnp)]
    for g, w in zip(got, want, strict=True):
        numpy.testing.assert_array_equal(g, w)


def test_views_see_writes_both_ways():
    def script(m):
        a = m.arange(24.0).reshape(4, 6)
        row = a[1]
        block = a[1:3, ::2]
        col = a.T[:, 2]
        flat = a.reshape(-1)
        row[...] = -1.0            # through a view
        block += 100               # through a strided view
        a[3, 5] = 7.0              # to the base
        flat[0] = 42.0             # through a reshape
        inner = block[:, 1:]       # a view of a view
        inner *= 2
        col -= 0.5                 # through a transpose
        return a, row, block, col, flat, inner

    _same_under_both(script)


def test_an_augmented_slice_write_keeps_every_view_in_step():
    """``a[k] += v`` ends with ``a[k] = a[k]`` (Python's protocol), which changes nothing and is
    skipped; writes back to another key, or a view taken before a later write, still land."""
    def script(m):
        a = m.arange(30.0).reshape(5, 6)
        row, col = a[2], a[:, 1]
        for i in range(4):
            a[i, :i + 1] += a[i + 1, :i + 1] * 2.0
            a[i + 1, 1:] -= 1.0
        t = a[1, 1:4]
        a[2, 1:4] = t            # another key: a copy
        a[0] = a[0]              # its own key: nothing changes
        a[::2, 2] *= -1.0
        s = a[3, :3]
        a[3, :3] += s            # s is a[3, :3]: doubled
        return a, row, col, t, s

    _same_under_both(script)


def test_real_and_imag_are_views():
    def script(m):
        z = m.array([1 + 2j, 3 - 1j, m.inf + 1j, -0.0 - 4j])
        r, i = z.real, m.imag(z)
        r[0] = 10.0                # through the real view: the imaginary parts stay bit for bit
        z.imag = [5.0, 6.0, 7.0, m.nan]
        z.real[1:3] *= 2           # a view of a view
        z += 1j                    # to the base, seen by both views
        x = m.arange(3.0)
        x.real = 7.0               # a real array's real part is the array
        return z, r, i, x, x.imag

    _same_under_both(script)


def test_read_only_views_refuse_writes_and_see_their_base():
    def script(m):
        a = m.arange(9.0).reshape(3, 3)
        d, b, zeros = m.diagonal(a), m.broadcast_to(a[0], (2, 3)), a.imag
        a[1, 1] = 100.0            # seen by the read-only views
        errors = []
        for view in (d, b, zeros, d[1:]):
            for write in (lambda v: v.__setitem__(0, 1.0), lambda v: v.__iadd__(1.0)):
                try:
                    write(view)
                except ValueError as e:
                    errors.append("read-only" in str(e))
        try:
            a.imag = 1.0
        except TypeError:
            errors.append(True)
        return a, d, b, m.asarray(errors)

    _same_under_both(script)


def test_in_place_methods_and_aliases():
    def script(m):
        a = m.asarray(X).copy()
        b = a
        s = a[:2]
        a.sort(axis=1)
        s.fill(3.0)
        b[b > 1] = 0
        a += 1
        c = a.copy()
        c *= 0
        return a, b, s, c

    _same_under_both(script)


def test_writes_under_grad_and_vmap():
    def f(x):
        y = x * 1.0
        v = y[1:]
        v *= x[:-1]      # writes through a view into y
        y[0] = 0.0
        return fnp.sum(y ** 2)

    x0 = numpy.array([0.5, -1.0, 2.0, 1.5])

    def f_np(x):
        y = x.copy()
        y[1:] *= x[:-1]
        y[0] = 0.0
        return (y ** 2).sum()

    g = nabla.grad(f)(fnp.asarray(x0)).numpy()
    eps = 1e-6
    fd = numpy.array([(f_np(x0 + eps * e) - f_np(x0 - eps * e)) / (2 * eps) for e in numpy.eye(4)])
    numpy.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    xs = R.standard_normal((3, 4))
    got = nabla.vmap(f)(fnp.asarray(xs)).numpy()
    numpy.testing.assert_allclose(got, [f_np(r) for r in xs], rtol=1e-12)


# --- random ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("counter,key,block", [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
])
def test_philox_known_answer(counter, key, block):
    """Random123's published Philox4x32-10 vectors (counter words, key words) -> block; the next
    counters of a draw are the following blocks (checked: the first block again from a later start)."""
    from nabla.ops.random_bits import draw

    start, stream = counter[0] | counter[1] << 32, counter[2] | counter[3] << 32
    k = key[0] | key[1] << 32
    words = draw(k, start, (12,), None, "bits", stream=stream).numpy()
    assert words.dtype == numpy.uint32 and tuple(int(w) for w in words[:4]) == block
    later = draw(k, start - 2, (12,), None, "bits", stream=stream).numpy()
    assert (later[8:12] == words[:4]).all()


def _ks(sample, cdf):
    s = numpy.sort(sample)
    n = len(s)
    c = cdf(s)
    return max(numpy.max(numpy.arange(1, n + 1) / n - c), numpy.max(c - numpy.arange(n) / n))


def test_random_distributions():
    from math import erf, sqrt

    rng = fnp.random.default_rng(123)
    n = 20000
    bound = 1.63 / sqrt(n)  # KS at the 1% level
    u = rng.random(n).numpy()
    assert u.dtype == numpy.float64 and u.min() >= 0 and u.max() < 1
    assert _ks(u, lambda t: t) < bound
    z = rng.standard_normal(n).numpy()
    assert _ks(z, lambda t: 0.5 * (1 + numpy.vectorize(erf)(t / sqrt(2)))) < bound
    e = rng.exponential(2.0, n).numpy()
    assert _ks(e, lambda t: 1 - numpy.exp(-t / 2.0)) < bound
    nrm = rng.normal(3.0, 0.5, size=(n,)).numpy()
    assert abs(nrm.mean() - 3.0) < 4 * 0.5 / sqrt(n) and abs(nrm.std() - 0.5) < 0.02
    k = rng.integers(2, 8, n).numpy()
    assert k.dtype == numpy.int64 and k.min() == 2 and k.max() == 7
    counts = numpy.bincount(k - 2) / n
    assert numpy.all(numpy.abs(counts - 1 / 6) < 0.02)
    f32 = rng.random((10, 10), dtype=fnp.float32)
    assert f32.dtype == numpy.float32 and f32.shape == (10, 10)
    c = rng.choice(5, size=n, p=[0.1, 0.2, 0.3, 0.4, 0.0]).numpy()
    assert numpy.all(numpy.abs(numpy.bincount(c, minlength=5) / n - [0.1, 0.2, 0.3, 0.4, 0.0]) < 0.02)
    perm = rng.permutation(50).numpy()
    assert sorted(perm.tolist()) == list(range(50))
    sample = rng.choice(numpy.arange(10) * 10, size=10, replace=False).numpy()
    assert sorted(sample.tolist()) == list(range(0, 100, 10))


def test_random_reproducible_and_global_api():
    a = fnp.random.default_rng(5).standard_normal((3, 4)).numpy()
    b = fnp.random.default_rng(5).standard_normal((3, 4)).numpy()
    numpy.testing.assert_array_equal(a, b)
    g = fnp.random.default_rng(5)
    first, second = g.random(6).numpy(), g.random(6).numpy()
    whole = fnp.random.default_rng(5).random(12).numpy()  # counters: two draws = one longer draw (even sizes)
    numpy.testing.assert_array_equal(numpy.concatenate([first, second]), whole)
    fnp.random.seed(0)
    r1 = fnp.random.rand(2, 3).numpy()
    fnp.random.seed(0)
    numpy.testing.assert_array_equal(fnp.random.rand(2, 3).numpy(), r1)
    assert fnp.random.randn(4).shape == (4,)
    ri = fnp.random.randint(0, 3, size=100).numpy()
    assert set(ri.tolist()) <= {0, 1, 2}
    x = fnp.arange(10)
    alias = x[:]
    fnp.random.shuffle(x)
    assert sorted(x.numpy().tolist()) == list(range(10))
    numpy.testing.assert_array_equal(alias.numpy(), x.numpy())  # shuffled in place, views see it


# --- interop and errors ----------------------------------------------------------------------------------

@pytest.mark.usefixtures("recorded_small_ops")
def test_numpy_dispatches_to_nabla():
    x = fnp.asarray(X)
    m = numpy.mean(x, axis=0)
    assert isinstance(m, fnp.ndarray) and not m.is_realized
    numpy.testing.assert_allclose(m.numpy(), X.mean(axis=0))
    e = numpy.exp(x)
    assert isinstance(e, fnp.ndarray)
    numpy.testing.assert_allclose(e.numpy(), numpy.exp(X))
    s = X + x  # a NumPy array on the left
    assert isinstance(s, fnp.ndarray)
    numpy.testing.assert_allclose(numpy.linalg.norm(x).numpy(), numpy.linalg.norm(X))
    numpy.testing.assert_allclose(numpy.fft.fft(x).numpy(), numpy.fft.fft(X))
    arr = numpy.asarray(x)
    assert type(arr) is numpy.ndarray and arr.dtype == numpy.float64
    g = numpy.matmul(x.T, x)  # a generalized ufunc (what dask.array's ``@`` of chunks calls)
    assert isinstance(g, fnp.ndarray)
    numpy.testing.assert_allclose(g.numpy(), X.T @ X, rtol=1e-12)


def test_errors_name_the_alternative():
    with pytest.raises(TypeError, match="string"):
        fnp.zeros(3, dtype="U5")
    with pytest.raises(TypeError, match="object"):
        fnp.array([{}, 1], dtype=object)
    with pytest.raises(TypeError, match="datetime64"):
        fnp.exp(numpy.array(["2020-01-01"], dtype="datetime64[s]"))
    with pytest.raises(NotImplementedError, match="object arrays"):
        fnp.frompyfunc(abs, 1, 1)
    with pytest.raises(ValueError, match="equal division"):
        fnp.split(fnp.arange(7), 3)
    with pytest.raises(TypeError, match="structured"):
        fnp.sort(fnp.arange(3), order="x")


def test_round_of_integers_and_bools_follows_numpy():
    ints = numpy.array([15, 25, 14, -15, 99], dtype=numpy.int16)
    for decimals in (-1, -2, 0, 2):
        got, want = fnp.round(fnp.asarray(ints), decimals).numpy(), numpy.round(ints, decimals)
        assert got.dtype == want.dtype
        numpy.testing.assert_array_equal(got, want)
    bools = numpy.array([True, False])
    got = fnp.round(fnp.asarray(bools)).numpy()
    assert got.dtype == numpy.round(bools).dtype  # (float16: NumPy's rint of bools)
    with pytest.raises(TypeError, match="bool"):
        fnp.round(fnp.asarray(bools), 2)


def test_file_io_round_trip(tmp_path):
    x = fnp.asarray(X)
    fnp.save(tmp_path / "x.npy", x)
    y = fnp.load(tmp_path / "x.npy")
    assert isinstance(y, fnp.ndarray)
    numpy.testing.assert_array_equal(y.numpy(), X)
    fnp.savetxt(tmp_path / "x.txt", x)
    numpy.testing.assert_allclose(fnp.loadtxt(tmp_path / "x.txt").numpy(), X)
    fnp.savez(tmp_path / "z.npz", a=x, b=fnp.arange(3))
    z = fnp.load(tmp_path / "z.npz")
    numpy.testing.assert_array_equal(z["b"].numpy(), numpy.arange(3))
    assert z.files == ["a", "b"] and type(z["a"]) is fnp.ndarray  # (NumPy's NpzFile: files, with)
    with fnp.load(tmp_path / "z.npz") as archive:
        numpy.testing.assert_array_equal(archive["a"].numpy(), X)


# --- whole NumPy-style scripts, run unchanged with either module -----------------------------------------

def _clean(m, data):
    x = m.array(data)
    col_mean = m.nanmean(x, axis=0)
    x = m.where(m.isnan(x), col_mean, x)
    mu, sd = x.mean(axis=0), x.std(axis=0)
    x = m.clip(x, mu - 2 * sd, mu + 2 * sd)
    x[:, 0] -= x[:, 0].min()
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    return z, m.percentile(z, [5, 50, 95], axis=0), m.corrcoef(z, rowvar=False)


def _kmeans(m, data, k=3, steps=8):
    x = m.asarray(data)
    centers = x[:k].copy()
    for _ in range(steps):
        d = ((x[:, None, :] - centers[None, :, :]) ** 2).sum(axis=-1)
        label = d.argmin(axis=1)
        for j in range(k):
            members = label == j
            centers[j] = (x * members[:, None]).sum(axis=0) / m.maximum(members.sum(), 1)
    return centers, label, m.bincount(label, minlength=k)


def _heat(m, n=40, steps=30):
    u = m.zeros(n)
    u[n // 2 - 3:n // 2 + 3] = 1.0
    r = 0.4
    for _ in range(steps):
        u[1:-1] += r * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u, m.trapezoid(u) if hasattr(m, "trapezoid") and m is numpy else u.sum()


def _image(m, img):
    a = m.asarray(img)
    p = m.pad(a, 1, mode="edge")
    blur = sum(p[i:i + a.shape[0], j:j + a.shape[1]] for i in range(3) for j in range(3)) / 9.0
    gx = p[1:-1, 2:] - p[1:-1, :-2]
    gy = p[2:, 1:-1] - p[:-2, 1:-1]
    edges = m.hypot(gx, gy)
    mask = edges > m.percentile(edges, 80)
    out = blur.copy()
    out[mask] = 1.0
    return blur, edges, out, m.histogram(out, bins=5, range=(0, 1))[0]


def test_script_data_cleaning():
    data = R.standard_normal((60, 4)) * [1, 5, 0.1, 2] + [0, 10, -3, 1]
    data[R.random((60, 4)) < 0.1] = numpy.nan
    _compare(_clean(fnp, data), _clean(numpy, data), "cleaning")


def test_script_kmeans():
    pts = numpy.concatenate([R.standard_normal((20, 2)) + c for c in ([0, 0], [6, 6], [0, 8])])
    R.shuffle(pts)
    _compare(_kmeans(fnp, pts), _kmeans(numpy, pts), "kmeans")


def test_script_finite_differences():
    got_u, got_s = _heat(fnp)
    want_u, _ = _heat(numpy)
    _compare(got_u, want_u, "heat")
    numpy.testing.assert_allclose(float(got_s), want_u.sum(), rtol=1e-12)


def test_script_image_filter():
    img = numpy.clip(R.random((24, 32)) * 0.3 + (numpy.arange(32) > 15) * 0.6, 0, 1)
    _compare(_image(fnp, img), _image(numpy, img), "image")


def test_script_monte_carlo():
    """Same script, each module's own generator: the estimates agree with pi and with each other."""
    def estimate(m, n=50_000):
        rng = m.random.default_rng(11)
        xy = rng.random((n, 2))
        inside = (xy ** 2).sum(axis=1) <= 1.0
        return 4.0 * float(inside.mean()), float(m.std(4.0 * inside) / n ** 0.5)

    (ours, se), (theirs, _) = estimate(fnp), estimate(numpy)
    assert abs(ours - numpy.pi) < 4 * se and abs(ours - theirs) < 6 * se


def _particles(m, init, steps=12, dt=0.05):
    """Bouncing particles kept as records: nested position and velocity fields, masked writes
    through field views, a sort by a field."""
    point = [("x", float), ("y", float)]
    z = m.zeros(len(init), [("position", point), ("velocity", point), ("mass", float)])
    z["position"]["x"], z["position"]["y"] = init[:, 0], init[:, 1]
    z["velocity"]["x"], z["velocity"]["y"] = init[:, 2], init[:, 3]
    z["mass"] = init[:, 4]
    for _ in range(steps):
        z["position"]["x"] += dt * z["velocity"]["x"]
        z["position"]["y"] += dt * z["velocity"]["y"]
        z["velocity"]["y"] -= dt * 9.81
        below = z["position"]["y"] < 0
        z["velocity"]["y"][below] *= -0.8
        z["position"]["y"] = m.abs(z["position"]["y"])
    pos = z["position"]
    energy = 0.5 * z["mass"] * (z["velocity"]["x"] ** 2 + z["velocity"]["y"] ** 2) + z["mass"] * 9.81 * pos["y"]
    heavy_first = m.sort(z, order="mass")[::-1]
    center = (m.sum(z["mass"] * pos["x"]) / z["mass"].sum(), m.sum(z["mass"] * pos["y"]) / z["mass"].sum())
    return pos["x"], pos["y"], energy, heavy_first["mass"], heavy_first["position"]["y"], m.asarray(center)


def _windows(m, signal, image, w=5):
    """Moving statistics and a 3 x 3 box filter on windows made with ``as_strided``."""
    as_strided = m.lib.stride_tricks.as_strided
    x = m.asarray(signal)
    s = x.strides[0]
    win = as_strided(x, shape=(x.shape[0] - w + 1, w), strides=(s, s), writeable=False)
    mean, med, top = win.mean(axis=1), m.median(win, axis=1), win.max(axis=1)
    spikes = m.nonzero(m.abs(x[w // 2:x.shape[0] - w // 2] - med) > 1.0)[0] + w // 2
    img = m.asarray(image)
    (h, wd), (s0, s1) = img.shape, img.strides
    patches = as_strided(img, shape=(h - 2, wd - 2, 3, 3), strides=(s0, s1, s0, s1), writeable=False)
    return mean, med, top, spikes, patches.mean(axis=(2, 3)), patches.max(axis=(2, 3)) - patches.min(axis=(2, 3))


def _bit_tricks(m, values):
    """IEEE-754 fields read through integer views, the fast inverse square root, next floats."""
    f = m.asarray(values, dtype=m.float32)
    i = f.view(m.int32)
    sign, exponent, mantissa = (i >> 31) & 1, ((i >> 23) & 0xFF) - 127, i & 0x7FFFFF
    a = m.abs(f)
    y = (0x5F3759DF - (a.view(m.int32) >> 1)).view(m.float32)
    y = y * (1.5 - 0.5 * a * y * y)
    d = m.asarray(values, dtype=m.float64)
    after = (d.view(m.int64) + 1).view(m.float64)
    magnitude = (i & 0x7FFFFFFF).view(m.float32)
    halves = m.asarray(values[:-1], dtype=m.float16).view(m.uint16)  # (1e30 is past float16's range)
    return sign, exponent, mantissa, y, after, magnitude, halves


def test_script_particles_in_records():
    r = numpy.random.default_rng(31)
    init = numpy.column_stack([r.random(40) * 10, r.random(40) * 5, r.standard_normal(40),
                               r.standard_normal(40) * 2, r.random(40) + 0.5])
    _compare(_particles(fnp, init), _particles(numpy, init), "particles")


def test_script_sliding_windows_with_as_strided():
    r = numpy.random.default_rng(32)
    signal = numpy.sin(numpy.linspace(0, 6, 200)) + r.standard_normal(200) * 0.05
    signal[[37, 120, 171]] += [2.0, -3.0, 2.5]
    image = r.random((12, 15))
    got, want = _windows(fnp, signal, image), _windows(numpy, signal, image)
    _compare(got, want, "windows")
    numpy.testing.assert_array_equal(want[3], [37, 120, 171])  # (the oracle finds the spikes)


def test_script_bit_tricks_with_views():
    values = numpy.concatenate([numpy.random.default_rng(33).standard_normal(50) * 100, [1.0, -2.0, 0.5, 3.0e-3, 65504.0, 1e30]])
    got, want = _bit_tricks(fnp, values), _bit_tricks(numpy, values)
    _compare(got[:3] + got[4:], want[:3] + want[4:], "bits")
    numpy.testing.assert_allclose(numpy.asarray(got[3]), want[3], rtol=1e-6)  # float32 arithmetic on both sides
    numpy.testing.assert_allclose(want[3], 1 / numpy.sqrt(numpy.abs(values.astype(numpy.float32))), rtol=2e-3)


def test_cov_interp_einsum_argument_errors_match_numpy():
    import nabla.numpy as fnp

    for m in (numpy, fnp):
        with pytest.raises(ValueError, match="negative"):
            m.cov(m.ones((2, 3)), fweights=[1, -1, 2])
        with pytest.raises(TypeError, match="integer"):
            m.cov(m.ones((2, 3)), fweights=[1, 1.5, 2])
        with pytest.raises(ValueError, match="non-zero"):
            m.interp([1.0], [0.0, 2.0], [1.0, 2.0], period=0)
        with pytest.raises(ValueError):
            m.einsum(m.ones(3), [60])


# --- values at sizes and on paths the tables above never met (each failed before its fix) -------

@pytest.mark.parametrize("n", [512, 513, 999, 1000, 1025, 4097])
@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_integer_arange_past_512_elements(n, dtype):
    for m in (fnp, nabla.array_api):
        a = m.arange(n, dtype=getattr(m, dtype))
        want = numpy.arange(n, dtype=dtype)
        numpy.testing.assert_array_equal((a * 7).numpy(), want * 7)
        assert int(m.sum(a)) == int(want.sum())
    numpy.testing.assert_array_equal((fnp.arange(n, dtype=dtype) * 7 % 13).numpy(), numpy.arange(n, dtype=dtype) * 7 % 13)
    numpy.testing.assert_array_equal(fnp.arange(3, 3 + 5 * n, 5, dtype=dtype)[::-2].numpy(),
                                     numpy.arange(3, 3 + 5 * n, 5, dtype=dtype)[::-2])


def test_integer_arange_in_a_compiled_model(policy):
    """The compiled path is where MAX folded ``range + 0`` to unwritten memory."""
    policy("compile")
    numpy.testing.assert_array_equal((fnp.arange(4097) + 0).numpy(), numpy.arange(4097))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_arange_is_numpys_fill_bit_for_bit(dtype):
    # (0.5, -76.3, -0.3): the second value is start + step rounded, not start + (second - start)
    for start, stop, step in ((0.3, 700.0, 0.7), (-5.0, 8.0, 0.013), (1.0, 0.0, -0.1), (0.5, -76.3, -0.3)):
        got = fnp.arange(start, stop, step, dtype=dtype).numpy()
        numpy.testing.assert_array_equal(got, numpy.arange(start, stop, step, dtype=dtype))


def test_fortran_order_reshape_ravel_flatten():
    a = numpy.arange(24).reshape(2, 3, 4)
    x = fnp.asarray(a)
    for order in ("F", "C", "A", "K"):
        numpy.testing.assert_array_equal(fnp.ravel(x, order=order).numpy(), numpy.ravel(a, order=order))
        numpy.testing.assert_array_equal(x.flatten(order).numpy(), a.flatten(order))
    numpy.testing.assert_array_equal(x.reshape((4, 6), order="F").numpy(), a.reshape((4, 6), order="F"))
    numpy.testing.assert_array_equal(fnp.reshape(x, (-1, 2), order="F").numpy(), numpy.reshape(a, (-1, 2), order="F"))
    v = x.reshape((4, 6), order="F")  # a copy, as NumPy's Fortran reshape of a C-ordered array
    v[0, 1] = -1
    numpy.testing.assert_array_equal(x.numpy(), a)
    line, flat = numpy.arange(24), fnp.arange(24)
    w, fw = line.reshape((4, 6), order="F"), flat.reshape((4, 6), order="F")  # a view: one axis
    w[1, 2] = fw[1, 2] = -5
    numpy.testing.assert_array_equal(flat.numpy(), line)
    numpy.testing.assert_array_equal(fw.numpy(), w)
    with pytest.raises(ValueError):
        fnp.ravel(x, order="X")


@pytest.mark.parametrize("dtype,value", [("uint8", 1000), ("uint8", -1), ("int8", 200), ("int8", -200),
                                         ("uint64", -1), ("int16", 2 ** 70)])
def test_comparisons_with_out_of_range_python_ints(dtype, value):
    a = numpy.arange(10).astype(dtype)
    x = fnp.asarray(a)
    for op in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        got, want = getattr(x, op)(value), getattr(a, op)(value)
        assert got.dtype == fnp.bool_ and got.shape == want.shape, op
        numpy.testing.assert_array_equal(got.numpy(), want, err_msg=op)
    numpy.testing.assert_array_equal((value > x).numpy(), value > a)
    numpy.testing.assert_array_equal(fnp.less(x, value).numpy(), numpy.less(a, value))


def test_float_values_written_into_integer_arrays_truncate():
    a, x = numpy.zeros(6, numpy.int32), fnp.zeros(6, dtype=fnp.int32)
    for key, value in ((slice(0, 2), 2.7), (3, -2.5), (numpy.array([4, 5]), 9.99)):
        a[key] = value
        x[key] = value
    numpy.testing.assert_array_equal(x.numpy(), a)
    numpy.testing.assert_array_equal(fnp.full(3, 2.5, dtype=fnp.int32).numpy(), numpy.full(3, 2.5, dtype=numpy.int32))
    numpy.testing.assert_array_equal(fnp.full(2, -7.9, dtype=fnp.int64).numpy(), numpy.full(2, -7.9, dtype=numpy.int64))
    with numpy.errstate(invalid="ignore"), warnings.catch_warnings():  # NumPy's full C-casts NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        numpy.testing.assert_array_equal(fnp.full(2, float("nan"), dtype=fnp.int32).numpy(),
                                         numpy.full(2, float("nan"), dtype=numpy.int32))


def test_flat_reads_and_writes():
    a = numpy.arange(12).reshape(3, 4)
    x = fnp.asarray(a)
    for key in (5, slice(2, 9), slice(None, None, -3), [0, 11, 3], numpy.array([True, False] * 6)):
        got, want = x.flat[key], a.flat[key]
        numpy.testing.assert_array_equal(numpy.asarray(got.numpy() if hasattr(got, "numpy") else got), want)
    for key, value in ((5, 100), ([1, 2, 7], [-1, -2]), (slice(8, None), 0), (slice(0, 2), [7, 8])):
        a.flat[key] = value
        x.flat[key] = value
        numpy.testing.assert_array_equal(x.numpy(), a)
    assert len(x.flat) == 12 and [int(v) for v in x.flat][:3] == list(a.flat)[:3]
    x.flat = 3
    a.flat = 3
    numpy.testing.assert_array_equal(x.numpy(), a)


def test_numpys_boolean_loops():
    a, b = numpy.array([True, False, True, False]), numpy.array([True, True, False, False])
    x, y = fnp.asarray(a), fnp.asarray(b)
    for name in ("add", "multiply", "maximum", "minimum", "fmax", "fmin", "less", "less_equal", "greater",
                 "greater_equal"):
        got, want = getattr(fnp, name)(x, y), getattr(numpy, name)(a, b)
        assert got.dtype == fnp.bool_, name
        numpy.testing.assert_array_equal(got.numpy(), want, err_msg=name)
    for name in ("absolute", "ceil", "floor", "trunc", "isnan", "isinf", "isfinite"):
        got, want = getattr(fnp, name)(x), getattr(numpy, name)(a)
        assert got.dtype == fnp.bool_, name
        numpy.testing.assert_array_equal(got.numpy(), want, err_msg=name)
    numpy.testing.assert_array_equal((x + x).numpy(), a + a)
    with pytest.raises(TypeError):
        x - y  # NumPy refuses boolean subtraction


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_at_sizes_where_counting_would_not_fit(side):
    r = numpy.random.default_rng(3)
    a = numpy.sort(r.integers(0, 5000, 1_000_003).astype(numpy.float32))
    a[-7:] = numpy.nan
    v = numpy.concatenate([r.integers(-3, 5003, 100_000).astype(numpy.float32), [numpy.nan, -numpy.inf, numpy.inf]])
    got = fnp.searchsorted(fnp.asarray(a), fnp.asarray(v), side=side)
    numpy.testing.assert_array_equal(got.numpy(), numpy.searchsorted(a, v, side=side))
    ints = numpy.arange(0, 3_000_000, 3)
    q = numpy.array([-1, 0, 1, 5, 2_999_997, 2_999_998, 10 ** 8])
    numpy.testing.assert_array_equal(fnp.searchsorted(fnp.asarray(ints), fnp.asarray(q), side=side).numpy(),
                                     numpy.searchsorted(ints, q, side=side))


def test_int64_and_uint64_compare_exactly():
    """NumPy 2's qQ->? loops: no float64 rounding and no refusal (2**63 + 5 > 2**62, -5 < 0)."""
    i = numpy.array([-5, 0, 3, -1, 2 ** 62], dtype="int64")
    u = numpy.array([0, 1, 3, 2 ** 63 + 5, 7], dtype="uint64")
    x, y = fnp.asarray(i), fnp.asarray(u)
    for op in ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal"):
        numpy.testing.assert_array_equal(getattr(fnp, op)(x, y).numpy(), getattr(numpy, op)(i, u), err_msg=op)
        numpy.testing.assert_array_equal(getattr(fnp, op)(y, x).numpy(), getattr(numpy, op)(u, i), err_msg=op)
    small = fnp.asarray(numpy.array([-1, 2], dtype="int8"))  # NumPy's loop widens it to int64 first
    numpy.testing.assert_array_equal((small < y[:2]).numpy(), numpy.array([-1, 2], "int8") < u[:2])


def test_array_power_of_two_is_square():
    """NumPy's ``a ** 2`` on an array is ``square(a)``: a boolean array gives int8 (``power`` gives int64)."""
    b = numpy.array([True, False])
    for e in (2, 1, 3, 2.0):
        got, want = fnp.asarray(b) ** e, b ** e
        assert got.dtype == want.dtype, e
        numpy.testing.assert_array_equal(got.numpy(), want)


def test_boolean_max_and_min_are_any_and_all():
    a = numpy.random.default_rng(0).random((9, 7, 9)) < 0.5
    x = fnp.asarray(a)[::-1]
    for name in ("min", "max", "amin", "amax"):
        for axis in (None, 0, -3, (0, 2)):
            got, want = getattr(fnp, name)(x, axis=axis), getattr(numpy, name)(a[::-1], axis=axis)
            assert got.dtype == fnp.bool_, (name, axis)
            numpy.testing.assert_array_equal(got.numpy(), want, err_msg=f"{name} {axis}")


def test_assignment_mixing_integer_arrays_and_partial_slices():
    """``x[1:4, [0, 2]] = v`` and its kin (refused before): the slices pick a block, the arrays index it."""
    base = numpy.arange(5 * 6 * 7).reshape(5, 6, 7)
    cases = [((slice(1, 4), [0, 2]), -1), ((slice(None, None, -2), [1, 3], slice(2, 5)), 0),
             (([0, 4], slice(1, 5), [6, 2]), 7), ((1, slice(0, 6, 2), [3]), -5),
             ((slice(1, 3), numpy.array([[0], [5]])), 9), ((slice(1, 4), [0, 2]), numpy.arange(14).reshape(2, 7)),
             ((slice(4, 1, -1), 2, [0, 1, 6]), numpy.array([10, 20, 30])), ((slice(3, 3), [1]), 5)]
    for key, value in cases:
        a = base.copy()
        a[key] = value
        x = fnp.asarray(base.copy())
        view = x[::-1][::-1]  # a view of x sees the write
        x[key] = value
        numpy.testing.assert_array_equal(x.numpy(), a, err_msg=str(key))
        numpy.testing.assert_array_equal(view.numpy(), a, err_msg=str(key))


def test_clip_bounds_an_integer_dtype_cannot_hold():
    """NumPy 2 clamps such Python int bounds to the dtype's range (``maximum`` alone would refuse them)."""
    for a, lo, hi in [(numpy.array([0, 5, 7], "uint64"), -3, 0), (numpy.array([1, 200], "uint8"), 0, 1000),
                      (numpy.array([1, -100], "int8"), -1000, 50)]:
        got, want = fnp.clip(fnp.asarray(a), lo, hi), numpy.clip(a, lo, hi)
        assert got.dtype == want.dtype
        numpy.testing.assert_array_equal(got.numpy(), want)


def test_complex_values_order_as_numpys_do():
    """``<``, ``<=``, ``>``, ``>=`` on complex values: NumPy's lexicographic order (real parts, then
    imaginary parts on a tie; a NaN anywhere gives False), against arrays and Python scalars."""
    vals = numpy.array([1 + 2j, 2 - 1j, 2 + 0j, 2 + 3j, numpy.nan + 0j, 1 + numpy.nan * 1j, 3 + 0j,
                        -numpy.inf + 1j, numpy.inf - 1j, 2 + numpy.nan * 1j])
    for dt in ("complex128", "complex64"):
        a = vals.astype(dt)
        for other in (2, 2 + 1j, a[::-1]):
            for op in ("less", "less_equal", "greater", "greater_equal"):
                with numpy.errstate(invalid="ignore"):
                    want = getattr(numpy, op)(a, other)
                got = getattr(fnp, op)(fnp.asarray(a), fnp.asarray(other) if isinstance(other, numpy.ndarray) else other)
                assert got.dtype == bool
                numpy.testing.assert_array_equal(numpy.asarray(got), want)


def test_philox_bit_generator_in_numpys_interface():
    """``Philox``: seeded as NumPy's bit generators are (an int, ints, a ``SeedSequence``);
    ``spawn`` gives children whose draws differ from each other and repeat for the same seed."""
    seq = numpy.random.SeedSequence(42)
    a, b = fnp.random.Philox(seq), fnp.random.Philox(42)
    assert a == b and a.seed_seq.entropy == 42
    assert fnp.random.default_rng(a).bit_generator is a
    kids = fnp.random.Philox(42).spawn(3)
    draws = [fnp.random.default_rng(k).random(64).numpy() for k in kids]
    assert not numpy.array_equal(draws[0], draws[1]) and not numpy.array_equal(draws[1], draws[2])
    again = [fnp.random.default_rng(k).random(64).numpy() for k in fnp.random.Philox(42).spawn(3)]
    for d, e in zip(draws, again):
        numpy.testing.assert_array_equal(d, e)
    gens = fnp.random.default_rng(7).spawn(2)
    assert gens[0].bit_generator == fnp.random.Philox(numpy.random.SeedSequence(7).spawn(2)[0])
    import nabla

    assert nabla.random.default_rng is fnp.random.default_rng


@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "bool"])
def test_the_imaginary_part_of_real_data_is_an_array_of_the_face(dtype):
    """``x.imag`` of real data: NumPy's zeros, an array that takes NumPy's rules after it
    (``x.imag / 3`` is float64 for bools and integers, as NumPy's)."""
    def script(m):
        x = m.asarray(numpy.array([1, 0, 3], dtype=dtype))
        zeros = x.imag
        return zeros, zeros / 3, (zeros + 2).real, zeros == 0

    got = script(fnp)
    assert all(type(g) is fnp.ndarray for g in got)
    for g, w in zip(got, script(numpy)):
        assert g.dtype == w.dtype
        numpy.testing.assert_array_equal(numpy.asarray(g), w)


def test_files_pickles_and_flags_as_numpys(tmp_path):
    """``tofile`` (raw and text), ``dump``/``dumps`` and ``setflags(write=False)``, as NumPy's."""
    import pickle

    base = numpy.arange(6.0).reshape(2, 3) * 1.5
    for mod, a in ((numpy, base.copy()), (fnp, fnp.asarray(base))):
        a.tofile(tmp_path / f"{mod.__name__}.bin")
        a.tofile(tmp_path / f"{mod.__name__}.txt", sep=",")
        assert numpy.asarray(pickle.loads(a.dumps())).tolist() == base.tolist()
        a.dump(tmp_path / f"{mod.__name__}.pkl")
        a.setflags(write=False)
        with pytest.raises(ValueError):
            a[0, 0] = 3.0
        assert not a.flags.writeable
    for ext in ("bin", "txt", "pkl"):
        assert (tmp_path / f"nabla.numpy.{ext}").read_bytes() == (tmp_path / f"numpy.{ext}").read_bytes() \
            or ext == "pkl"
    assert numpy.fromfile(tmp_path / "nabla.numpy.bin").tolist() == base.ravel().tolist()
