"""The face's index tricks, manipulation, functional, window, histogram and numeric functions, and
the ufuncs composed of several ops (``gcd``, ``lcm``, ``modf``, ``frexp``, ``ldexp``, ``spacing``,
``bitwise_count``), against NumPy itself: each case is written once against a module ``m`` and run
with ``m = numpy`` (the oracle) and ``m = nabla.numpy``; values, dtypes and shapes must agree, and
error cases must raise the same class."""

from __future__ import annotations

import io
import contextlib

import numpy
import pytest

import nabla.numpy as fnp

# the oracle's own warnings: np.r_['r', ...] makes a np.matrix, ldexp overflows on purpose
pytestmark = pytest.mark.filterwarnings("ignore::PendingDeprecationWarning", "ignore::RuntimeWarning")

R = numpy.random.default_rng(11)
SIZES = (1, 7, 1000)
A34 = numpy.arange(12).reshape(3, 4)
X = R.standard_normal((4, 5))
I = R.integers(-9, 9, (4, 5))
S3 = R.standard_normal((100, 3))
PHASE = numpy.cumsum(R.uniform(-3, 3, 50))
# exponents inside the normal range (MAX flushes subnormals to zero)
FLOATS = numpy.concatenate([R.standard_normal(200) * 10.0 ** R.integers(-250, 250, 200),
                            [0.0, -0.0, numpy.inf, -numpy.inf, numpy.nan, 1.0, 0.5, -3.0, 2.0 ** -1022, 2.0 ** 1023]])


def _sized(n, dtype=numpy.float64):
    v = numpy.random.default_rng(n).standard_normal(n) * 10
    return v.astype(dtype)


def _ints(n, lo=-10 ** 9, hi=10 ** 9, dtype=numpy.int64):
    return numpy.random.default_rng(n + 1).integers(lo, hi, n).astype(dtype)


def _written(m, fn, shape=(4, 4), dtype="int32"):
    """``fn`` applied in place to a fresh array; the array afterwards."""
    a = m.zeros(shape, dtype=dtype)
    fn(m, a)
    return a


CASES = {
    # --- index tricks ---
    "mgrid_2d": lambda m: m.mgrid[0:5, 0:3],
    "mgrid_steps": lambda m: m.mgrid[1:10:3, -2:2:0.5],
    "mgrid_complex": lambda m: m.mgrid[-1:1:5j, 0:3],
    "mgrid_1d": lambda m: m.mgrid[0:4],
    "mgrid_1d_complex": lambda m: m.mgrid[-1:1:5j],
    "mgrid_1point": lambda m: m.mgrid[2:3:1j],
    "ogrid": lambda m: m.ogrid[0:5, 0:3],
    "ogrid_complex": lambda m: m.ogrid[0:1:7j, 0:4],
    "ogrid_1d": lambda m: m.ogrid[-1:1:5j],
    "s_": lambda m: m.arange(10)[m.s_[2::3]],
    "s_tuple": lambda m: (m.s_[1:3, ::2], m.s_[::-1]),
    "index_exp": lambda m: (m.index_exp[2:5], m.index_exp[1, :]),
    "r_slices": lambda m: m.r_[1:4, 0, 4],
    "r_complex": lambda m: m.r_[-1:1:6j, [0] * 3, 5, 6],
    "r_axis_-1": lambda m: m.r_["-1", m.asarray(A34), m.asarray(A34)],
    "r_axis_1": lambda m: m.r_["1", m.asarray(A34), m.asarray(A34)],
    "r_0,2": lambda m: m.r_["0,2", [1, 2, 3], [4, 5, 6]],
    "r_0,2,0": lambda m: m.r_["0,2,0", [1, 2, 3], [4, 5, 6]],
    "r_1,2,0": lambda m: m.r_["1,2,0", [1, 2, 3], [4, 5, 6]],
    "r_0,3,1": lambda m: m.r_["0,3,1", [[1, 2]], [[3, 4]]],
    "r_0,2_slice": lambda m: m.r_["0,2", 1:4],
    "r_0,2,0_slice": lambda m: m.r_["0,2,0", 1:4],
    "r_row": lambda m: m.r_["r", [1, 2, 3], [4, 5, 6]],
    "r_col": lambda m: m.r_["c", [1, 2, 3], [4, 5, 6]],
    "r_row_2d": lambda m: m.r_["r", m.asarray(A34)],
    "r_row_3d": lambda m: (m.r_["r", m.zeros((1, 1, 2))], m.r_["c", m.zeros((1, 3, 1))]),
    "r_weak_scalar": lambda m: m.r_[1.5, m.asarray([1, 2], dtype=m.int8)],
    "r_strong_scalar": lambda m: m.r_[m.float32(1.5), m.asarray([1, 2], dtype=m.int8)],
    "r_int8_weak": lambda m: m.r_[3, m.asarray([1, 2], dtype=m.int8)],
    "c_": lambda m: m.c_[m.asarray([1, 2, 3]), m.asarray([4, 5, 6])],
    "c_slice": lambda m: m.c_[[1, 2, 3], [4, 5, 6], 1:4],
    "c_2d": lambda m: m.c_[m.asarray(A34[:2]), 1:3:2j],
    "c_scalars": lambda m: m.c_[1, 2],
    "triu_indices": lambda m: m.triu_indices(4),
    "triu_indices_k": lambda m: m.triu_indices(4, k=1, m=6),
    "triu_indices_1": lambda m: m.triu_indices(1),
    "tril_indices": lambda m: m.tril_indices(5, -1),
    "tril_indices_m": lambda m: m.tril_indices(3, k=2, m=7),
    "triu_indices_from": lambda m: m.triu_indices_from(m.asarray(A34), 1),
    "tril_indices_from": lambda m: m.tril_indices_from(m.asarray(A34)),
    "tril_gather": lambda m: m.asarray(A34)[m.tril_indices(3, 0, 4)],
    "diag_indices": lambda m: m.diag_indices(4),
    "diag_indices_3d": lambda m: m.diag_indices(3, 3),
    "diag_indices_from": lambda m: m.diag_indices_from(m.zeros((3, 3, 3))),
    "mask_indices": lambda m: m.mask_indices(4, m.triu, 1),
    "fill_diagonal": lambda m: _written(m, lambda m, a: m.fill_diagonal(a, 5)),
    "fill_diagonal_seq": lambda m: _written(m, lambda m, a: m.fill_diagonal(a, [1, 2])),
    "fill_diagonal_tall": lambda m: _written(m, lambda m, a: m.fill_diagonal(a, 3.5), (7, 3), "float64"),
    "fill_diagonal_wrap": lambda m: _written(m, lambda m, a: m.fill_diagonal(a, [1, 2], wrap=True), (7, 3)),
    "fill_diagonal_wide": lambda m: _written(m, lambda m, a: m.fill_diagonal(a, 9, wrap=True), (2, 5)),
    "fill_diagonal_float_into_int": lambda m: _written(m, lambda m, a: m.fill_diagonal(a, 2.9)),
    "fill_diagonal_3d": lambda m: (lambda a: (m.fill_diagonal(a, 7), a)[1])(m.zeros((3, 3, 3), dtype=m.int16)),
    # --- manipulation ---
    "delete_int": lambda m: m.delete(m.asarray(A34), 1, axis=0),
    "delete_neg": lambda m: m.delete(m.asarray(A34), -1, axis=1),
    "delete_slice": lambda m: m.delete(m.arange(10), m.s_[1:8:3]),
    "delete_slice_neg": lambda m: m.delete(m.arange(10), m.s_[::-2]),
    "delete_list": lambda m: m.delete(m.asarray(A34), [0, 2, 2], axis=1),
    "delete_flat": lambda m: m.delete(m.asarray(A34), [1, 5, 11]),
    "delete_bool": lambda m: m.delete(m.arange(5.0), [True, False, True, False, False]),
    "delete_empty": lambda m: m.delete(m.arange(5), []),
    "delete_sizes": lambda m: [m.delete(m.asarray(_sized(n)), [0]) for n in SIZES],
    "insert_scalar": lambda m: m.insert(m.arange(5), 2, 99),
    "insert_float_into_int": lambda m: m.insert(m.arange(5), 1, 2.7),
    "insert_seq_values": lambda m: m.insert(m.arange(5), 3, [7, 8]),
    "insert_axis": lambda m: m.insert(m.asarray(A34), 1, 5, axis=1),
    "insert_axis_vec": lambda m: m.insert(m.asarray(A34), 1, [1, 2, 3], axis=1),
    "insert_list_index": lambda m: m.insert(m.asarray(A34), [1], [[1], [2], [3]], axis=1),
    "insert_many": lambda m: m.insert(m.arange(6), [1, 1, 4, -1], [10, 20, 30, 40]),
    "insert_end": lambda m: m.insert(m.arange(3), 3, 9),
    "insert_slice": lambda m: m.insert(m.arange(6), m.s_[::2], -1),
    "insert_flat": lambda m: m.insert(m.asarray(A34), 4, -5),
    "insert_sizes": lambda m: [m.insert(m.asarray(_sized(n, numpy.float32)), 0, 1.0) for n in SIZES],
    "block_2x2": lambda m: m.block([[m.ones((2, 2)), m.zeros((2, 3))], [m.zeros((1, 2)), m.ones((1, 3))]]),
    "block_1d": lambda m: m.block([m.arange(3), m.asarray([9, 8])]),
    "block_scalars": lambda m: m.block([[1, 2], [3, 4]]),
    "block_promote": lambda m: m.block([m.arange(3, dtype=m.int8), m.asarray([0.5])]),
    "block_3d": lambda m: m.block([[[m.ones((1, 1, 2))], [m.zeros((1, 1, 2))]]]),
    "block_single": lambda m: m.block(m.asarray(A34)),
    "trim_zeros": lambda m: m.trim_zeros(m.asarray([0, 0, 1, 2, 0, 3, 0])),
    "trim_zeros_f": lambda m: m.trim_zeros(m.asarray([0, 0, 1, 2, 0]), "f"),
    "trim_zeros_b": lambda m: m.trim_zeros(m.asarray([0.0, 1.5, 0.0]), "B"),
    "trim_zeros_all_zero": lambda m: m.trim_zeros(m.zeros(4)),
    "trim_zeros_list": lambda m: m.trim_zeros([0, 4, 0, 5, 0]),
    "trim_zeros_2d": lambda m: m.trim_zeros(m.asarray([[0, 0, 0, 0], [0, 1, 2, 0], [0, 0, 3, 0]])),
    "trim_zeros_axis": lambda m: m.trim_zeros(m.asarray([[0, 0, 0, 0], [0, 1, 2, 0], [0, 0, 3, 0]]), axis=1),
    "trim_zeros_bool": lambda m: m.trim_zeros(m.asarray([False, True, False, True, False])),
    "choose": lambda m: m.choose(m.asarray([2, 0, 1, 1]), [m.arange(4), m.arange(4) * 10, m.arange(4) * 100]),
    "choose_broadcast": lambda m: m.choose(m.asarray([[0, 1], [1, 0]]), [-5, m.asarray([[1.5], [2.5]])]),
    "choose_wrap": lambda m: m.choose(m.asarray([3, -1, 5]), [m.zeros(3), m.ones(3)], mode="wrap"),
    "choose_clip": lambda m: m.choose(m.asarray([3, -1, 0]), [m.zeros(3), m.ones(3)], mode="clip"),
    "choose_dtypes": lambda m: m.choose(m.asarray([0, 1]), [m.asarray([1, 2], m.int8), m.asarray([3, 4], m.int16)]),
    "unstack": lambda m: m.unstack(m.asarray(A34), axis=1),
    "permute_dims": lambda m: m.permute_dims(m.zeros((2, 3, 4)), (2, 0, 1)).shape,
    "matrix_transpose": lambda m: m.matrix_transpose(m.reshape(m.arange(24), (2, 3, 4))),
    "asarray_chkfinite": lambda m: m.asarray_chkfinite([1.0, 2.0]),
    "real_if_close": lambda m: (m.real_if_close(m.asarray([1 + 1e-15j, 2 - 1e-15j])),
                                m.real_if_close(m.asarray([1 + 1e-3j]))),
    "require": lambda m: m.require([1, 2], m.float32, ["C", "A"]),
    "iterable": lambda m: (m.iterable(m.arange(3)), m.iterable(m.asarray(3)), m.iterable(5), m.iterable([1])),
    "isfortran": lambda m: m.isfortran(m.zeros((2, 3))),
    # --- functional ---
    "apply_along_axis_0": lambda m: m.apply_along_axis(lambda v: v.sum(), 0, m.asarray(X)),
    "apply_along_axis_1": lambda m: m.apply_along_axis(lambda v: v[::-1] * 2, 1, m.asarray(X)),
    "apply_along_axis_grow": lambda m: m.apply_along_axis(lambda v: m.outer(v, v), 0, m.asarray(A34[:2])),
    "apply_along_axis_args": lambda m: m.apply_along_axis(lambda v, k: v[:k], -1, m.asarray(I), 2),
    "apply_along_axis_3d": lambda m: m.apply_along_axis(lambda v: v.max(), 1, m.reshape(m.arange(24), (2, 3, 4))),
    "apply_along_axis_sizes": lambda m: [m.apply_along_axis(m.sort, 0, m.asarray(_sized(n))) for n in SIZES],
    "apply_over_axes": lambda m: m.apply_over_axes(m.sum, m.reshape(m.arange(24), (2, 3, 4)), [0, 2]),
    "apply_over_axes_keep": lambda m: m.apply_over_axes(lambda a, ax: m.cumsum(a, axis=ax), m.asarray(A34), 1),
    "apply_over_axes_neg": lambda m: m.apply_over_axes(m.mean, m.asarray(X), -1),
    "piecewise": lambda m: m.piecewise(m.linspace(-2.5, 2.5, 6), [m.linspace(-2.5, 2.5, 6) < 0,
                                                                   m.linspace(-2.5, 2.5, 6) >= 0],
                                       [lambda x: -x, lambda x: x]),
    "piecewise_otherwise": lambda m: m.piecewise(m.arange(-3.0, 4.0), [m.arange(-3.0, 4.0) < -1],
                                                 [0.5, lambda x: x ** 2]),
    "piecewise_int_truncates": lambda m: m.piecewise(m.arange(5), [m.arange(5) > 2], [lambda x: x * 1.5, 7]),
    "piecewise_scalar_cond": lambda m: m.piecewise(m.asarray(3.0), [True], [lambda x: x + 1]),
    "piecewise_args": lambda m: m.piecewise(m.arange(4.0), [m.arange(4.0) > 1], [lambda x, k: x * k, -1.0], 10.0),
    "piecewise_sizes": lambda m: [m.piecewise(m.asarray(_sized(n)), [m.asarray(_sized(n)) > 0],
                                              [m.sin, m.cos]) for n in SIZES],
    # --- numeric ---
    "trapezoid": lambda m: m.trapezoid(m.asarray([1, 2, 3])),
    "trapezoid_x": lambda m: m.trapezoid(m.asarray([1.0, 2.0, 3.0]), x=m.asarray([4.0, 6.0, 8.0])),
    "trapezoid_dx": lambda m: m.trapezoid(m.asarray(X), dx=0.5, axis=0),
    "trapezoid_x2d": lambda m: m.trapezoid(m.asarray(X), x=m.asarray(numpy.cumsum(numpy.abs(X), axis=1))),
    "trapezoid_f32": lambda m: m.trapezoid(m.asarray(_sized(7, numpy.float32))),
    "trapezoid_sizes": lambda m: [m.trapezoid(m.asarray(_sized(n))) for n in SIZES],
    "unwrap": lambda m: m.unwrap(m.asarray(PHASE)),
    "unwrap_period": lambda m: m.unwrap(m.asarray([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2]), period=10),
    "unwrap_period_odd": lambda m: m.unwrap(m.asarray([2, 3, 4, 5, 2, 3, 4, 5]), period=4),
    "unwrap_discont": lambda m: m.unwrap(m.asarray(PHASE), discont=4.0),
    "unwrap_2d": lambda m: m.unwrap(m.asarray(PHASE.reshape(5, 10)), axis=0),
    "unwrap_1": lambda m: m.unwrap(m.asarray([1.0])),
    "fix": lambda m: m.fix(m.asarray([-2.5, -0.5, 0.5, 2.5, numpy.inf])),
    "fix_int": lambda m: m.fix(m.asarray([1, -2])),
    "fix_f32": lambda m: m.fix(m.asarray([1.7, -2.7], dtype=m.float32)),
    "cumulative_sum": lambda m: m.cumulative_sum(m.arange(5)),
    "cumulative_sum_initial": lambda m: m.cumulative_sum(m.asarray(A34), axis=1, include_initial=True),
    "cumulative_sum_int8": lambda m: m.cumulative_sum(m.asarray([100, 100, 100], dtype=m.int8)),
    "cumulative_sum_dtype": lambda m: m.cumulative_sum(m.asarray([1, 2, 3]), dtype=m.float32),
    "cumulative_sum_bool": lambda m: m.cumulative_sum(m.asarray([True, False, True])),
    "cumulative_prod": lambda m: m.cumulative_prod(m.asarray(X), axis=0),
    "cumulative_prod_initial": lambda m: m.cumulative_prod(m.arange(1, 6), include_initial=True),
    "cumulative_sizes": lambda m: [m.cumulative_sum(m.asarray(_ints(n, -100, 100))) for n in SIZES],
    "vecdot": lambda m: m.vecdot(m.asarray(X), m.asarray(X[0])),
    "vecdot_axis": lambda m: m.vecdot(m.asarray(X), m.asarray(X), axis=0),
    "vecdot_complex": lambda m: m.vecdot(m.asarray([1 + 2j, 3j]), m.asarray([2 - 1j, 1 + 1j])),
    "vecdot_int8": lambda m: m.vecdot(m.asarray([1, 2], m.int8), m.asarray([3, 4], m.int8)),
    "vecdot_bool": lambda m: m.vecdot(m.asarray([True, False]), m.asarray([True, True])),
    "vecdot_mixed": lambda m: m.vecdot(m.asarray([1, 2], m.int32), m.asarray([0.5, 0.25], m.float32)),
    "matvec": lambda m: m.matvec(m.asarray(X), m.asarray(X[1])),
    "matvec_batch": lambda m: m.matvec(m.reshape(m.arange(24.0), (2, 3, 4)), m.arange(4.0)),
    "vecmat": lambda m: m.vecmat(m.asarray(X[:, 0]), m.asarray(X)),
    "vecmat_complex": lambda m: m.vecmat(m.asarray([1j, 2.0]), m.asarray([[1.0, 2j], [3.0, 4.0]])),
    # --- histograms ---
    "histogram2d": lambda m: m.histogram2d(m.asarray(X[0]), m.asarray(X[1]), bins=3),
    "histogram2d_bins_list": lambda m: m.histogram2d(m.asarray(X.ravel()), m.asarray(I.ravel()), bins=[4, 3]),
    "histogram2d_edges": lambda m: m.histogram2d(m.asarray(X.ravel()), m.asarray(I.ravel()),
                                                 bins=[[-3, -1, 0, 1, 3], [-9, 0, 9]]),
    "histogram2d_same_edges": lambda m: m.histogram2d(m.asarray(X.ravel()), m.asarray(X.ravel() * 2),
                                                      bins=[-2.0, -1.0, 0.0, 1.0, 2.0]),
    "histogram2d_range": lambda m: m.histogram2d(m.asarray(X.ravel()), m.asarray(X.ravel()), bins=4,
                                                 range=[[-1, 1], [0, 2]]),
    "histogram2d_density": lambda m: m.histogram2d(m.asarray(X.ravel()), m.asarray(I.ravel()), bins=5,
                                                   density=True),
    "histogram2d_weights": lambda m: m.histogram2d(m.asarray(X.ravel()), m.asarray(I.ravel()), bins=3,
                                                   weights=m.asarray(numpy.abs(X.ravel()))),
    "histogram2d_sizes": lambda m: [m.histogram2d(m.asarray(_sized(n)), m.asarray(_sized(n + 1)[:n]), bins=6)
                                    for n in SIZES],
    "histogramdd": lambda m: m.histogramdd(m.asarray(S3), bins=(2, 3, 4)),
    "histogramdd_1d": lambda m: m.histogramdd(m.asarray(X.ravel()), bins=5),
    "histogram_bin_edges": lambda m: m.histogram_bin_edges(m.asarray(X), bins=6),
    "histogram_bin_edges_range": lambda m: m.histogram_bin_edges(m.asarray(X), bins=4, range=(0, 2)),
    # --- windows and i0 ---
    **{f"{w}_{n}": (lambda w, n: lambda m: getattr(m, w)(n))(w, n)
       for w in ("hanning", "hamming", "blackman", "bartlett") for n in (0, 1, 2, 7, 1000)},
    "hanning_odd": lambda m: m.hanning(6),
    "kaiser": lambda m: m.kaiser(12, 14),
    "kaiser_sizes": lambda m: [m.kaiser(n, 5.0) for n in (0, 1, 7, 1000)],
    "kaiser_beta0": lambda m: m.kaiser(5, 0),
    "i0": lambda m: m.i0(m.asarray([0.0, 1.0, 7.9, 8.0, 8.1, 30.0, -5.0, 700.0])),
    "i0_int": lambda m: m.i0(m.arange(12)),
    "i0_f32": lambda m: m.i0(m.asarray([0.5, 12.0], dtype=m.float32)),
    "i0_sizes": lambda m: [m.i0(m.asarray(_sized(n))) for n in SIZES],
    # --- ufuncs composed of several ops ---
    "gcd": lambda m: m.gcd(m.asarray([12, -18, 7, 0, 0, 2 ** 40 * 3]), m.asarray([18, 12, 0, 0, 5, 2 ** 41])),
    "gcd_scalar": lambda m: m.gcd(m.asarray([0, 5, -7, 12], m.int8), 4),
    "gcd_fibonacci": lambda m: m.gcd(m.asarray([7540113804746346429, 2 ** 62]), m.asarray([4660046610375530309, 6])),
    "gcd_uint64": lambda m: m.gcd(m.asarray([89 * 2 ** 40, 2 ** 64 - 1], m.uint64),
                                  m.asarray([55 * 2 ** 40, 2 ** 63 + 1], m.uint64)),
    "gcd_int16": lambda m: m.gcd(m.asarray([28657, -32768, 300], m.int16), m.asarray([17711, 1024, -45], m.int16)),
    "gcd_python": lambda m: m.gcd(12, 20),
    "gcd_sizes": lambda m: [m.gcd(m.asarray(_ints(n)), m.asarray(_ints(n + 5)[:n] * 6)) for n in SIZES],
    "gcd_reduce": lambda m: m.gcd.reduce(m.asarray([12, 18, 30, 42])),
    "gcd_outer": lambda m: m.gcd.outer(m.arange(6), m.arange(4)),
    "lcm": lambda m: m.lcm(m.asarray([4, -6, 0, 7]), m.asarray([6, 4, 5, -3])),
    "lcm_uint8": lambda m: m.lcm(m.asarray([4, 6, 15], m.uint8), m.asarray([10, 4, 6], m.uint8)),
    "lcm_reduce": lambda m: m.lcm.reduce(m.asarray([2, 3, 4, 5])),
    "lcm_sizes": lambda m: [m.lcm(m.asarray(_ints(n, -1000, 1000)), m.asarray(_ints(n + 3, 1, 1000)[:n]))
                            for n in SIZES],
    "modf": lambda m: m.modf(m.asarray(FLOATS)),
    "modf_f32": lambda m: m.modf(m.asarray([-3.5, 2.25, -0.0], dtype=m.float32)),
    "modf_int": lambda m: m.modf(m.asarray([3, -4])),
    "frexp": lambda m: m.frexp(m.asarray(FLOATS)),
    "frexp_f32": lambda m: m.frexp(m.asarray([1.5, 3e38, 2.0 ** -126, 7.0, -0.0, 1e-30], dtype=m.float32)),
    "frexp_f16": lambda m: m.frexp(m.asarray([1.5, 3.0, 65504, 6.1e-5], dtype=m.float16)),
    "frexp_int": lambda m: m.frexp(m.asarray([1, 2, 3, -4, 0])),
    "frexp_sizes": lambda m: [m.frexp(m.asarray(_sized(n))) for n in SIZES],
    "ldexp_roundtrip": lambda m: m.ldexp(*m.frexp(m.asarray(FLOATS))),
    "ldexp": lambda m: m.ldexp(m.asarray([1.0, -2.0, 3.0, 0.0, numpy.inf, numpy.nan]),
                               m.asarray([1030, -1000, 5, 7, 1, 2])),
    "ldexp_overflow": lambda m: m.ldexp(m.asarray([1.0, -1.0, 1e-300]), m.asarray([2000, 5000, 1200])),
    "ldexp_scalar_exp": lambda m: m.ldexp(m.asarray([1.5, 2.0], dtype=m.float32), 3),
    "ldexp_f32": lambda m: m.ldexp(m.float32(3.0), m.arange(-120, 130, 7)),
    "ldexp_f16": lambda m: m.ldexp(m.ones(3, dtype=m.float16), m.asarray([-14, 3, 15], m.int16)),
    "ldexp_int_mantissa": lambda m: m.ldexp(m.asarray([3, -5]), m.asarray([2, 10])),
    "spacing": lambda m: m.spacing(m.asarray([1.0, -2.5, 1e10, numpy.inf, numpy.nan, 1e300])),
    "spacing_f32": lambda m: m.spacing(m.asarray([1.0, -100.0], dtype=m.float32)),
    "spacing_int16": lambda m: m.spacing(m.asarray([1, 3], m.int16)),
    "bitwise_count": lambda m: m.bitwise_count(m.asarray([0, 1, -1, 255, -128, 2 ** 62 + 5, -2 ** 63])),
    "bitwise_count_uint8": lambda m: m.bitwise_count(m.asarray([0, 7, 255], m.uint8)),
    "bitwise_count_bool": lambda m: m.bitwise_count(m.asarray([True, False])),
    "modf_out": lambda m: (lambda o1, o2: (m.modf(m.asarray([1.5, -2.25]), out=(o1, o2)), o1, o2)[1:])(
        m.zeros(2), m.zeros(2)),
    "frexp_where": lambda m: m.frexp(m.asarray([8.0, 3.0]), where=m.asarray([True, False]),
                                     out=(m.ones(2), m.ones(2, dtype=m.int32))),
    # --- host helpers ---
    "binary_repr": lambda m: (m.binary_repr(10), m.binary_repr(-3, width=8), m.binary_repr(m.int64(5))),
    "base_repr": lambda m: (m.base_repr(255, 16), m.base_repr(7, 2, 3)),
    "isdtype": lambda m: (m.isdtype(m.float32, "real floating"), m.isdtype(m.asarray([1]).dtype, "integral"),
                          m.isdtype(m.int8, ("bool", m.int8)), m.isdtype(m.complex64, "numeric")),
    "common_type": lambda m: (m.common_type(m.arange(3)), m.common_type(m.asarray([1.0], m.float32),
                                                                        m.asarray([1], m.int8))),
    "mintypecode": lambda m: (m.mintypecode(["d", "f", "S"]), m.mintypecode([m.asarray([1.0], m.float32)])),
    "min_scalar_type": lambda m: (m.min_scalar_type(10), m.min_scalar_type(m.asarray([1, 2])),
                                  m.min_scalar_type(-300)),
    "typename": lambda m: m.typename("d"),
    "einsum_path": lambda m: m.einsum_path("ij,jk,kl->il", m.ones((2, 30)), m.ones((30, 4)), m.ones((4, 50)))[0],
    "format_float": lambda m: (m.format_float_positional(m.float64(0.1) * 3), m.format_float_scientific(1234.5,
                                                                                                         precision=2)),
    "fromstring": lambda m: m.fromstring("1 2 3.5", sep=" "),
    "type_names": lambda m: (m.str_, m.bytes_, m.object_, m.uint, m.typecodes["AllFloat"], m.exceptions.AxisError,
                             m.True_, m.long, m.ulong),
    "version": lambda m: m.__version__,
}


def _same(got, want, name):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), (name, got, want)
        for g, w in zip(got, want):
            _same(g, w, name)
        return
    if isinstance(want, (str, type, bool, int, float, slice)) or want is None or not hasattr(want, "dtype"):
        if isinstance(want, (float, numpy.floating)) and not isinstance(want, str):
            assert got == pytest.approx(want, nan_ok=True), (name, got, want)
        else:
            assert got == want, (name, got, want)
        return
    g = numpy.asarray(got)
    w = numpy.asarray(want)
    assert g.dtype == w.dtype, (name, g.dtype, w.dtype)
    assert g.shape == w.shape, (name, g.shape, w.shape)
    if w.dtype.kind in "fc":
        tol = 2e-6 if w.dtype.itemsize <= 8 and w.dtype in (numpy.float32, numpy.complex64) else 1e-12
        tol = 2e-3 if w.dtype == numpy.float16 else tol
        numpy.testing.assert_allclose(g, w, rtol=tol, atol=tol * 1e-3, equal_nan=True, err_msg=name)
    else:
        numpy.testing.assert_array_equal(g, w, err_msg=name)


EXACT = {"frexp", "frexp_f32", "frexp_f16", "frexp_int", "frexp_sizes", "ldexp", "ldexp_roundtrip", "ldexp_f32",
         "ldexp_f16", "modf", "modf_f32", "spacing", "spacing_f32"}


@pytest.mark.parametrize("name", list(CASES))
def test_against_numpy(name):
    want = CASES[name](numpy)
    got = CASES[name](fnp)
    _same(got, want, name)
    if name in EXACT:  # the parts of a float are exact: bit for bit, signed zeros included
        for g, w in zip(_leaves(got), _leaves(want)):
            g, w = numpy.asarray(g), numpy.asarray(w)
            signs = numpy.where(numpy.isnan(w), False, numpy.signbit(w))  # (a NaN's sign means nothing)
            assert numpy.array_equal(g, w, equal_nan=True), name
            assert numpy.array_equal(numpy.where(numpy.isnan(g), False, numpy.signbit(g)), signs), name


def _leaves(r):
    return [v for x in r for v in _leaves(x)] if isinstance(r, (tuple, list)) else [r]


def _results_are_arrays(r):
    return all(isinstance(v, fnp.ndarray) for v in (r if isinstance(r, (tuple, list)) else (r,)))


@pytest.mark.parametrize("expr", [
    lambda: fnp.mgrid[0:3, 0:2], lambda: fnp.ogrid[0:3, 0:2], lambda: fnp.r_["0,2", 1:3],
    lambda: fnp.c_[[1], [2]], lambda: fnp.triu_indices(3), lambda: fnp.delete(fnp.arange(3), 0),
    lambda: fnp.hanning(4), lambda: fnp.gcd(fnp.arange(3), 2), lambda: fnp.frexp(fnp.ones(2)),
    lambda: fnp.histogram2d([1.0], [2.0])])
def test_results_are_face_arrays(expr):
    assert _results_are_arrays(expr())


def test_ufunc_objects():
    for name in ("gcd", "lcm", "modf", "frexp", "ldexp", "spacing", "bitwise_count"):
        u = getattr(fnp, name)
        assert isinstance(u, fnp.ufunc) and (u.nin, u.nout) == (getattr(numpy, name).nin, getattr(numpy, name).nout)
    assert fnp.gcd.identity == 0


def test_fill_diagonal_reaches_the_base():
    base = fnp.zeros((4, 6))
    view = base[:, :4]
    fnp.fill_diagonal(view, 2.0)
    want = numpy.zeros((4, 6))
    numpy.fill_diagonal(want[:, :4], 2.0)
    numpy.testing.assert_array_equal(numpy.asarray(base), want)


def test_show_config():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert fnp.show_config() is None
    text = out.getvalue()
    assert "nabla" in text and "max" in text and numpy.__version__ in text and "cpu" in text


def test_trapz_follows_numpy():
    assert hasattr(fnp, "trapz") == hasattr(numpy, "trapz")


ERRORS = {
    "r_bad_directive": lambda m: m.r_["0,x", [1]],
    "r_unknown_directive": lambda m: m.r_["foo", [1]],
    "r_directive_not_first": lambda m: m.r_[[1], "0"],
    "r_matrix_3d": lambda m: m.r_["r", m.zeros((2, 1, 2, 2))],
    "triu_indices_from_1d": lambda m: m.triu_indices_from(m.arange(3)),
    "diag_indices_from_1d": lambda m: m.diag_indices_from(m.arange(3)),
    "diag_indices_from_rect": lambda m: m.diag_indices_from(m.zeros((2, 3))),
    "fill_diagonal_1d": lambda m: m.fill_diagonal(m.zeros(3), 1),
    "fill_diagonal_3d_rect": lambda m: m.fill_diagonal(m.zeros((2, 2, 3)), 1),
    "fill_diagonal_read_only": lambda m: m.fill_diagonal(m.broadcast_to(m.zeros(3), (3, 3)), 1),
    "delete_out_of_bounds": lambda m: m.delete(m.arange(3), 3),
    "delete_list_out_of_bounds": lambda m: m.delete(m.arange(3), [0, -4]),
    "delete_bool_shape": lambda m: m.delete(m.arange(3), [True, False]),
    "delete_axis": lambda m: m.delete(m.zeros((2, 2)), 0, axis=2),
    "insert_out_of_bounds": lambda m: m.insert(m.arange(3), 5, 1),
    "insert_2d_index": lambda m: m.insert(m.arange(3), [[1]], 1),
    "block_empty": lambda m: m.block([]),
    "block_tuple": lambda m: m.block((m.zeros(2), m.zeros(2))),
    "block_depths": lambda m: m.block([[m.zeros(2)], m.zeros(2)]),
    "block_shapes": lambda m: m.block([[m.zeros((2, 2)), m.zeros((3, 1))]]),
    "trim_zeros_trim": lambda m: m.trim_zeros(m.asarray([0, 1]), "x"),
    "choose_out_of_range": lambda m: m.choose(m.asarray([0, 3]), [m.zeros(2), m.ones(2)]),
    "choose_mode": lambda m: m.choose(m.asarray([0]), [m.zeros(1)], mode="bad"),
    "unstack_0d": lambda m: m.unstack(m.asarray(1.0)),
    "matrix_transpose_1d": lambda m: m.matrix_transpose(m.arange(3)),
    "asarray_chkfinite": lambda m: m.asarray_chkfinite([1.0, numpy.nan]),
    "apply_along_axis_axis": lambda m: m.apply_along_axis(m.sum, 2, m.zeros((2, 2))),
    "apply_along_axis_empty": lambda m: m.apply_along_axis(m.sum, 0, m.zeros((2, 0))),
    "apply_over_axes_shape": lambda m: m.apply_over_axes(lambda a, ax: a.sum(), m.zeros((2, 3, 4)), 1),
    "piecewise_count": lambda m: m.piecewise(m.arange(3), [m.arange(3) > 0, m.arange(3) > 1], [1]),
    "cumulative_sum_axis": lambda m: m.cumulative_sum(m.zeros((2, 2))),
    "cumulative_sum_bad_axis": lambda m: m.cumulative_sum(m.zeros(2), axis=1),
    "vecdot_core": lambda m: m.vecdot(m.zeros(3), m.zeros(4)),
    "vecdot_0d": lambda m: m.vecdot(m.asarray(1.0), m.asarray(1.0)),
    "matvec_core": lambda m: m.matvec(m.zeros((2, 3)), m.zeros(2)),
    "trapezoid_axis": lambda m: m.trapezoid(m.zeros(3), axis=1),
    "histogram2d_lengths": lambda m: m.histogram2d([1.0, 2.0], [1.0]),
    "histogramdd_bins_dim": lambda m: m.histogramdd(m.zeros((4, 2)), bins=[2, 2, 2]),
    "histogramdd_bins_negative": lambda m: m.histogramdd(m.zeros((4, 2)), bins=0),
    "histogramdd_range": lambda m: m.histogramdd(m.zeros((4, 2)), range=[(1, 0), (0, 1)]),
    "histogramdd_edges_order": lambda m: m.histogramdd(m.zeros((4, 1)), bins=[[1.0, 0.0]]),
    "histogramdd_bins_float": lambda m: m.histogramdd(m.zeros((4, 1)), bins=2.5),
    "i0_complex": lambda m: m.i0(m.asarray([1j])),
    "gcd_float": lambda m: m.gcd(m.asarray([1.0]), m.asarray([2.0])),
    "gcd_bool": lambda m: m.gcd(m.asarray([True]), m.asarray([True])),
    "ldexp_float_exponent": lambda m: m.ldexp(m.asarray([1.0]), m.asarray([1.5])),
    "bitwise_count_float": lambda m: m.bitwise_count(m.asarray([1.0])),
    "frexp_complex": lambda m: m.frexp(m.asarray([1j])),
    "isdtype_kind": lambda m: m.isdtype(m.float32, "no such kind"),
    "isdtype_array": lambda m: m.isdtype(m.arange(3), "integral"),
    "binary_repr_float": lambda m: m.binary_repr(1.5),
}


def raises_as_numpy(call) -> None:
    """``call(m)`` raises NumPy's exception class (its public base, for a private one) with the face."""
    with pytest.raises(Exception) as want:
        call(numpy)
    expected = want.type
    while expected.__module__.startswith("numpy._"):  # NumPy's private classes: their public base
        expected = expected.__mro__[1]
    with pytest.raises(expected):
        call(fnp)


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_as_numpy(name):
    raises_as_numpy(ERRORS[name])


# --- result dtypes and values over every dtype NumPy takes ---------------------------------------------

DTYPES = ("float64", "float32", "int64", "int32", "int16", "uint8", "bool", "complex128", "complex64")


def _sample(dtype, shape=(6, 7), seed=5, special=True):
    """A seeded array of ``dtype``; floats and complexes carry NaN and +-inf (in either part) where
    ``special``."""
    r = numpy.random.default_rng(seed)
    x = r.standard_normal(shape) * 40
    if dtype == "bool":
        return x > 0
    if dtype.startswith("complex"):
        x = x + 1j * r.standard_normal(shape) * 40
    out = numpy.abs(x).astype(dtype) if dtype == "uint8" else x.astype(dtype)
    if special and out.dtype.kind in "fc":
        flat = out.reshape(-1)
        flat[[0, 5]], flat[1], flat[2] = numpy.nan, numpy.inf, -numpy.inf
        if out.dtype.kind == "c":
            flat[3], flat[4] = complex(1.0, numpy.nan), complex(numpy.inf, -numpy.inf)
    return out


@pytest.mark.parametrize("kwargs", [{}, {"nan": -1.0}, {"nan": -1.0, "posinf": 7.0, "neginf": -7.0}])
@pytest.mark.parametrize("dtype", DTYPES)
def test_nan_to_num_every_part(dtype, kwargs):
    x = _sample(dtype)
    _same(fnp.nan_to_num(fnp.asarray(x), **kwargs), numpy.nan_to_num(x, **kwargs), "nan_to_num")


# (negative sequences into uint8 are left out: their values do not fit the dtype)
@pytest.mark.parametrize("dtype,args", [(d, a) for d in ("float64", "float32", "int64", "int32", "int16", "uint8")
                                        for a in [(1, 1000, 4), (-1, -1e5, 6), (1000, 1, 4), (2, 2 ** 10, 11),
                                                  (3, 300, 1)] if not (d == "uint8" and a[0] < 0)])
def test_geomspace_exact_ends_and_powers(dtype, args):
    _same(fnp.geomspace(*args, dtype=dtype), numpy.geomspace(*args, dtype=dtype), "geomspace")


@pytest.mark.parametrize("dtype", DTYPES)
def test_vdot_keeps_the_dtype(dtype):
    x, y = _sample(dtype, seed=1, special=False), _sample(dtype, seed=2, special=False)
    _same(fnp.vdot(fnp.asarray(x), fnp.asarray(y)), numpy.vdot(x, y), "vdot")


@pytest.mark.parametrize("subscripts", ["ij->j", "ij->i", "ij->", "ij,kj->ik", "ij,ij->i", "ij,ij->ij", "ii->i",
                                        "ij,jk->ik", "ij,jk"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_einsum_sums_in_the_operands_dtype(dtype, subscripts):
    x = _sample(dtype, seed=3, special=False)
    ops = {"ii->i": [x[:6, :6]], "ij,kj->ik": [x, x[:3]], "ij,jk->ik": [x, x.T], "ij,jk": [x, x.T]}.get(
        subscripts, [x] if "," not in subscripts else [x, x])
    _same(fnp.einsum(subscripts, *[fnp.asarray(o) for o in ops]), numpy.einsum(subscripts, *ops), subscripts)


@pytest.mark.parametrize("name", ["cbrt", "deg2rad", "rad2deg", "degrees", "radians", "exp2", "sqrt", "exp", "log",
                                  "sin", "arctan", "tanh"])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "bool", "float16"])
def test_float16_loops_round_once(name, dtype):
    x = numpy.random.default_rng(4).uniform(0, 200, 40) if dtype != "float16" else \
        numpy.random.default_rng(4).uniform(-15, 15, 40)
    x = x.astype(dtype)
    got, want = numpy.asarray(getattr(fnp, name)(fnp.asarray(x))), getattr(numpy, name)(x)
    assert got.dtype == want.dtype == numpy.float16, (got.dtype, want.dtype)
    numpy.testing.assert_array_equal(got, want, err_msg=name)  # bit for bit: one float16 step is the defect


@pytest.mark.parametrize("deg", [False, True])
@pytest.mark.parametrize("dtype", DTYPES + ("int8",))
def test_angle_dtype(dtype, deg):
    x = _sample(dtype)
    if x.dtype.kind == "f":
        x.reshape(-1)[3] = -0.0
    _same(fnp.angle(fnp.asarray(x), deg=deg), numpy.angle(x, deg=deg), "angle")


@pytest.mark.parametrize("name", ["isneginf", "isposinf"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_signed_infinities_every_dtype(name, dtype):
    x = _sample(dtype)
    if dtype.startswith("complex"):  # NumPy: the sign of a complex infinity is undefined
        with pytest.raises(TypeError):
            getattr(numpy, name)(x)
        with pytest.raises(TypeError):
            getattr(fnp, name)(fnp.asarray(x))
        return
    _same(getattr(fnp, name)(fnp.asarray(x)), getattr(numpy, name)(x), name)


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_exp2_of_complex_values_is_numpys(dtype):
    """NumPy's complex exp2 is e^(z ln 2): finite values within a few ulp, overflow to inf as NumPy's."""
    z = numpy.array([0, 1 + 1j, -2.5 + 3j, 10 - 0.5j, 1e-3j, -700 + 2j, 60 + 0.25j], complex).astype(dtype)
    want = numpy.exp2(z)
    got = fnp.exp2(fnp.asarray(z)).numpy()
    assert got.dtype == want.dtype
    tol = 8 * numpy.finfo(want.real.dtype).eps
    assert numpy.allclose(got, want, rtol=tol, atol=0)


def test_methods_that_are_the_faces_functions_are_numpys():
    """``a.put``, ``a.partition`` (in place), ``a.argpartition``, ``a.compress`` and ``a.choose``, as
    NumPy's methods (the module functions of the same names, the array first or in place)."""
    def run(m):
        a = m.asarray(numpy.array([5.0, 1, 4, 2, 3, 0, 7]))
        a.put([0, 2], [9.0, 8.0])
        b = a.copy()
        assert b.partition(3) is None
        k = m.asarray(numpy.array([0, 1, 0, 1]))
        return (a, b[3], a[a.argpartition(2)][2], a.compress([True, False, True]),
                a.reshape(7, 1).compress([False, True, True, False, True, False, False], axis=0),
                k.choose([m.arange(4), m.arange(4) * 10]))

    for got, want in zip(run(fnp), run(numpy)):
        numpy.testing.assert_array_equal(numpy.asarray(got), want)
        assert numpy.asarray(got).dtype == numpy.asarray(want).dtype


def test_axes_out_of_range_raise_numpys_axis_error_and_none_compares_elementwise():
    """An axis past the rank is NumPy's AxisError (an IndexError and a ValueError) for reductions,
    joins, swapaxes, moveaxis and expand_dims; ``a == None`` is an array of False, as NumPy's."""
    for f in (lambda m: m.zeros((2, 3)).sum(axis=2), lambda m: m.concatenate([m.zeros((2, 3))], axis=3),
              lambda m: m.swapaxes(m.zeros((2, 3)), 0, 5), lambda m: m.moveaxis(m.zeros((2, 3)), 0, 3),
              lambda m: m.expand_dims(m.zeros((2, 3)), 5), lambda m: m.argmax(m.zeros((2, 3)), axis=-3)):
        for m in (numpy, fnp):
            with pytest.raises(numpy.exceptions.AxisError):
                f(m)
    for m in (numpy, fnp):
        a = m.arange(3)
        assert numpy.asarray(a == None).tolist() == [False] * 3  # noqa: E711
        assert numpy.asarray(a != None).tolist() == [True] * 3  # noqa: E711


@pytest.mark.parametrize("dtype", ["int8", "bool", "uint16", "int32", "int64", "float32", "float64", "complex128"])
def test_byteswap_is_numpys_bytes(dtype):
    a = (numpy.arange(-3, 9).reshape(3, 4) * 1.75).astype(dtype)
    x = fnp.asarray(a)
    numpy.testing.assert_array_equal(numpy.asarray(x.byteswap()).view(numpy.uint8), a.byteswap().view(numpy.uint8))
    assert x.byteswap(inplace=True) is x
    numpy.testing.assert_array_equal(numpy.asarray(x).view(numpy.uint8), a.byteswap().view(numpy.uint8))


_X6 = numpy.array([0.0, 1.0, 1.5, 3.5, 4.0, 6.0])
_XN = numpy.cumsum(numpy.random.default_rng(4).random(30) + 0.1)
_YN = numpy.cumsum(numpy.random.default_rng(5).random(20) + 0.05)
_F = numpy.random.default_rng(6).standard_normal((30, 20))
_XU = numpy.linspace(0.0, 1.0, 11)


@pytest.mark.parametrize("case", [
    lambda m: m.gradient(m.asarray(_X6 ** 2), m.asarray(_X6), edge_order=2),
    lambda m: m.gradient(m.asarray(_X6 ** 2), m.asarray(_X6)),
    lambda m: m.gradient(m.asarray(_X6 ** 2), 0.5, edge_order=2),
    lambda m: m.gradient(m.asarray(numpy.sin(_XU)), m.asarray(_XU), edge_order=2),
    lambda m: m.gradient(m.asarray(_F), m.asarray(_XN), m.asarray(_YN), edge_order=2),
    lambda m: m.gradient(m.asarray(_F), m.asarray(_XN), 0.3),
    lambda m: m.gradient(m.asarray(_F), m.asarray(_XN), axis=0, edge_order=2),
])
def test_gradient_is_numpys_to_the_bit(case):
    """NumPy's formulas: coordinates with edge_order=2 take its second-order one-sided edges (the
    first-order ones were taken), nonuniform coefficients before the sum, evenly spaced coordinates
    as their step."""
    got, want = case(fnp), case(numpy)
    for g, w in zip(got if isinstance(want, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        numpy.testing.assert_array_equal(numpy.asarray(g), w)


def test_gcd_of_small_arrays_stops_once_settled():
    """Euclid's steps over realized small arrays (ops at once) stop once every remainder is 0, read
    every 8 steps, where the worst case's 92 steps for int64 ran every time (``gcd.reduce`` of 50
    values ~25 ms); a pair that needs them all (consecutive Fibonacci numbers) still takes them."""
    import nabla as nb

    values = numpy.random.default_rng(9).integers(1, 10 ** 6, 50)
    x = fnp.asarray(values)
    before = nb.engine_stats()["small_ops"]
    got = fnp.gcd.reduce(x)
    assert int(got) == numpy.gcd.reduce(values)
    assert nb.engine_stats()["small_ops"] - before < 1000  # (6 halvings of 92 steps of 5 ops: 2,760)
    fib = numpy.array([7540113804746346429, 12, 0]), numpy.array([4660046610375530309, 18, 0])
    numpy.testing.assert_array_equal(numpy.asarray(fnp.gcd(fnp.asarray(fib[0]), fnp.asarray(fib[1]))), numpy.gcd(*fib))
