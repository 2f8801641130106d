"""The ``face_calls`` family: a few calls per program from a table of NumPy-face call forms (reductions and
their nan-variants, statistics, ufuncs of every kind and their methods, rounding, selection, scans,
sorting and searching, set operations, gathers and scatters, rearrangements, ``pad`` in every mode,
triangles and diagonals, ranges with a dtype, products, small linear algebra, FFTs, ``astype``) over one
of nine dtypes (float64, float32, int64, int32, int16, uint8, bool, complex128, complex64), on inputs the
Writer draws (views, pending work) with NaN and infinities in float and complex inputs, in both parts.

Which (call, dtype) pairs NumPy itself refuses is not listed by hand: the generator runs each drawn call
once with NumPy while it writes the program, keeps those that compute, and sometimes ends the program
with one that NumPy refuses, so that the harness checks Nabla raises the same exception class.
``_GAPS`` names the (call, dtype) pairs left out, each with its reason.
"""

from __future__ import annotations

import re
import warnings

import numpy as onp

DTYPES = ("float64", "float32", "int64", "int32", "int16", "uint8", "bool", "complex128", "complex64")

#: per-call draws, as program text
_PARAMS = {
    "ax": ("None", "0", "1", "-1", "(0, 1)"),
    "ax1": ("None", "0", "1", "-1"),
    "axi": ("0", "1", "-1"),
    "kd": ("False", "True"),
    "ddof": ("0", "1"),
    "q": ("50", "[10, 90]", "0", "100", "33.3", "[5, 50, 95]"),
    "qf": ("0.5", "[0.25, 0.75]", "0.0", "1.0", "0.333"),
    "meth": ("'linear'", "'linear'", "'lower'", "'higher'", "'nearest'", "'midpoint'"),
    "mode": ("'constant'", "'edge'", "'reflect'", "'symmetric'", "'wrap'", "'linear_ramp'", "'maximum'",
             "'minimum'", "'mean'", "'median'"),
    "pw": ("1", "((1, 2), (2, 1))", "(0, 3)", "2"),
    "side": ("'left'", "'right'"),
    "dt2": tuple(f"'{d}'" for d in DTYPES),
    "shift": ("1", "-3", "7", "0"),
    "off": ("0", "1", "-1", "2"),
    "pow": ("-2", "-1", "0", "1", "2", "3"),
    "ordm": ("None", "'fro'", "'nuc'", "1", "-1", "2", "-2", "xp.inf", "-xp.inf"),
    "ordv": ("None", "0", "1", "2", "-1", "xp.inf", "-xp.inf", "3"),
    "dec": ("0", "1", "-1", "2"),
    "rep": ("2", "3", "1"),
    "tiles": ("2", "(2, 1)", "(1, 2, 2)"),
    "rot": ("1", "2", "3", "-1"),
    "bins": ("5", "1", "7"),
}

_UNARY = ("negative positive absolute fabs sign sqrt cbrt square reciprocal exp exp2 expm1 log log2 log10 log1p "
          "sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh deg2rad rad2deg degrees radians "
          "floor ceil trunc rint fix isnan isinf isfinite signbit logical_not invert conj real imag angle sinc i0 "
          "spacing frexp modf isreal iscomplex bitwise_count").split()
_BINARY = ("add subtract multiply maximum minimum fmax fmin equal not_equal less less_equal greater greater_equal "
           "logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor arctan2 hypot copysign nextafter "
           "logaddexp logaddexp2 heaviside gcd lcm").split()
_DIVIDING = "divide true_divide floor_divide remainder fmod divmod".split()

#: call forms over lazily made inputs: ``a``, ``b`` (r x c), ``an`` (``a`` with NaN/inf holes), ``bnz`` (``b``
#: without zeros), ``e`` (small exponents), ``ei`` (int32 exponents), ``v``, ``w`` (n), ``vn`` (``v`` holed),
#: ``vc`` (c), ``k`` (5), ``u`` (n small non-negative), ``sv`` (n sorted), ``vf`` (n float64), ``wc`` (c
#: positive float64 weights), ``m`` (square, well conditioned), ``mb`` (its right-hand side), ``ia`` (r x 3
#: distinct column indices), ``idx`` (5 indices into n, repeats), ``dt`` (the dtype); a tuple is a write:
#: (what is copied, the write into the copy ``{c}``)
FORMS = (
    # reductions
    *(f"xp.{f}({{a}}, axis={{ax}}, keepdims={{kd}})" for f in ("sum", "prod", "mean", "min", "max", "all", "any",
                                                                 "ptp", "count_nonzero")),
    "xp.std({a}, axis={ax}, ddof={ddof}, keepdims={kd})", "xp.var({a}, axis={ax}, ddof={ddof})",
    "xp.argmin({a}, axis={ax1})", "xp.argmax({a}, axis={ax1}, keepdims={kd})", "{a}.sum(axis={ax1}, dtype='float64')",
    "xp.sum({a}, axis={ax1}, dtype='{dt}')", "{a}.max(axis={axi})", "xp.mean({v})",
    *(f"xp.{f}({{an}}, axis={{ax1}})" for f in ("nansum", "nanprod", "nanmean", "nanmin", "nanmax", "nanargmin",
                                                 "nanargmax", "nancumsum", "nancumprod", "nanmedian")),
    "xp.nanstd({an}, axis={ax1}, ddof={ddof})", "xp.nanvar({an}, axis={ax1}, ddof={ddof})", "xp.nanmean({vn})",
    "xp.nanpercentile({an}, {q}, axis={ax1})", "xp.nanquantile({an}, {qf}, axis={ax1})",
    # statistics
    "xp.median({a}, axis={ax1})", "xp.median({v})", "xp.percentile({a}, {q}, axis={ax1}, method={meth})",
    "xp.quantile({a}, {qf}, axis={ax1}, method={meth})", "xp.quantile({v}, [0.25, 0.75])",
    "xp.average({a})", "xp.average({a}, axis=1, weights={wc}, returned=True)", "xp.ptp({v})",
    "xp.cov({a})", "xp.cov({a}, rowvar=False)", "xp.corrcoef({a})", "xp.cov({v}, {w})",
    "xp.median({an}, axis={ax1})", "xp.percentile({vn}, {q})",
    # elementwise
    *(f"xp.{f}({{a}})" for f in _UNARY),
    *(f"xp.{f}({{a}}, {{b}})" for f in _BINARY),
    *(f"xp.{f}({{a}}, {{bnz}})" for f in _DIVIDING),
    *(f"xp.{f}({{an}})" for f in ("isnan", "isinf", "isfinite", "isneginf", "isposinf", "sign", "exp", "sqrt",
                                   "absolute", "angle", "signbit", "floor", "rint", "reciprocal", "log")),
    "xp.power({a}, {e})", "xp.float_power({a}, {e})", "xp.left_shift({a}, {e})", "xp.right_shift({a}, {e})",
    "xp.ldexp({a}, {ei})", "{a} + 2", "{a} * 2.5", "{a} ** 2", "{a} + {b}[0]", "{a} / {bnz}", "{a} % {bnz}",
    "{a} // {bnz}", "{a} @ {b}.T", "xp.angle({a}, deg=True)", "xp.maximum({an}, {b})", "xp.fmin({an}, {b})",
    "xp.add({an}, {b})", "xp.multiply({an}, {an})", "xp.equal({an}, {an})", "xp.less({an}, {b})",
    # rounding, selection
    "xp.round({a}, {dec})", "xp.around({a}, 2)", "xp.round({an})", "xp.clip({a}, 1, 5)", "xp.clip({a}, {b}, {a} + 3)",
    "xp.where(xp.abs({a}) > 1, {a}, {b})", "xp.where(xp.abs({a}) > 1)", "xp.where(xp.abs({a}) > 1, {a}, 0)",
    "xp.select([xp.abs({a}) > 2, xp.abs({a}) < 1], [{a}, {b}], 0)",
    "xp.piecewise({v}, [xp.abs({v}) < 1, xp.abs({v}) >= 1], [lambda x: -x, lambda x: x * 2])",
    "xp.nan_to_num({an})", "xp.nan_to_num({an}, nan=-1.0, posinf=9.0, neginf=-9.0)", "xp.nan_to_num({a})",
    "xp.isclose({a}, {b})", "xp.isclose({an}, {an}, equal_nan=True)", "xp.isclose({an}, {a})",
    "xp.allclose({a}, {a})", "xp.array_equal({a}, {b})", "xp.array_equal({an}, {an}, equal_nan=True)",
    "xp.unwrap({v})", "xp.sinc({an})",
    # scans and differences
    "xp.cumsum({a}, axis={axi})", "xp.cumprod({a}, axis={axi})", "xp.cumsum({a})", "xp.cumulative_sum({a}, axis=1)",
    "xp.cumulative_prod({a}, axis=0, include_initial=True)", "xp.diff({a}, axis={axi})", "xp.diff({v}, n=2)",
    "xp.ediff1d({v})", "xp.gradient({v})", "xp.gradient({a})", "xp.convolve({v}, {k})",
    "xp.correlate({v}, {k}, mode='full')", "xp.interp(xp.linspace(-2, 2, 9), xp.sort({vf}), {vf})",
    "xp.trapezoid({v})", "xp.trapezoid({a}, dx=0.5, axis=1)", "xp.cross({a}[:, :3], {b}[:, :3])",
    # sorting, searching, counting
    "xp.sort({a}, axis={axi})", "xp.sort({an}, axis=-1)", "xp.sort({v})", "xp.sort({a}, axis=None)",
    "xp.argsort({a}, axis={axi}, kind='stable')", "xp.argsort({vn}, kind='stable')",
    "xp.partition({v}, {v}.shape[0] // 2)[{v}.shape[0] // 2]", "xp.sort(xp.partition({a}, 0, axis=-1), axis=-1)",
    "xp.take_along_axis({v}, xp.argpartition({v}, 0), axis=0)[0]", "xp.lexsort(({v}, {u}))",
    "xp.unique({u})", "xp.unique({a})", "xp.unique({an})", "xp.unique({u}, return_counts=True, return_inverse=True)",
    "xp.unique({u}, return_index=True)", "xp.unique_counts({u})", "xp.sort(xp.unique_values({u}))",
    "xp.searchsorted({sv}, {w}, side={side})", "xp.digitize({v}, {sv}[::3])", "xp.digitize({v}, {sv}[::3], right=True)",
    "xp.histogram({v}, bins={bins})", "xp.histogram({v}, bins=4, range=(-3, 3))",
    "xp.histogram({v}, bins=[-1.0, 0.0, 0.5, 2.0])", "xp.bincount({u})", "xp.bincount({u}, minlength=12)",
    "xp.bincount({u}, weights={vf})", "xp.nonzero({a})", "xp.argwhere({a})", "xp.flatnonzero({an})",
    "xp.count_nonzero({a}, axis=0)",
    # set operations
    "xp.isin({u}, {k})", "xp.isin({a}, {k})", "xp.intersect1d({u}, {k})", "xp.union1d({v}, {k})",
    "xp.setdiff1d({u}, {k})", "xp.setxor1d({u}, {k})", "xp.intersect1d({v}, {v}[::2], return_indices=True)",
    # gathers, scatters
    "xp.take({a}, [0, -1])", "xp.take({a}, [0, 5, 40, -7], mode='wrap')", "xp.take({a}, [0, 5, 40], mode='clip')",
    "xp.take({a}, [0, -1, 0], axis=1)", "xp.take_along_axis({a}, {ia}, axis=1)",
    ("xp.array({a})", "xp.put_along_axis({c}, {ia}, 1, axis=1)"),
    ("xp.array({a})", "xp.put_along_axis({c}, {ia}, {b}[:, :{ia}.shape[1]], axis=1)"),
    ("xp.array({v})", "xp.put({c}, [0, -1], {k}[:2])"),
    ("xp.array({v})", "xp.add.at({c}, xp.asarray({idx}), {k})"),
    ("xp.array({v})", "xp.add.at({c}, xp.asarray({idx}), 1)"),
    ("xp.array({v})", "xp.multiply.at({c}, xp.asarray({idx}), {k})"),
    ("xp.array({v})", "xp.maximum.at({c}, xp.asarray({idx}), {k})"),
    # rearrangement
    "xp.roll({a}, {shift}, axis={axi})", "xp.roll({a}, {shift})", "xp.flip({a})", "xp.flip({a}, axis={axi})",
    "xp.fliplr({a})", "xp.flipud({a})", "xp.rot90({a}, {rot})", "xp.tile({k}, {tiles})", "xp.tile({a}, {tiles})",
    "xp.repeat({a}, {rep}, axis={axi})", "xp.repeat({k}, [1, 0, 2, 3, 1])", "xp.repeat({a}, 2)",
    "xp.concatenate([{a}, {b}], axis={axi})", "xp.concatenate([{v}, {k}])", "xp.stack([{a}, {b}], axis={axi})",
    "xp.hstack([{a}, {b}])", "xp.vstack([{a}, {b}])", "xp.column_stack([{v}, {w}])", "xp.dstack([{a}, {b}])",
    "xp.split({v}, [1, 3])", "xp.array_split({a}, 3, axis={axi})", "xp.array_split({v}, 4)",
    "xp.pad({a}, {pw}, mode={mode})", "xp.pad({v}, 3, mode={mode})", "xp.pad({a}, 2, constant_values=1)",
    "xp.pad({a}, (1, 2), mode='linear_ramp', end_values=(5, -3))", "xp.pad({an}, 1, mode={mode})",
    "{a}.reshape(-1, order='F')", "xp.moveaxis({a}[None], 0, 2)", "xp.broadcast_to({k}, (3, 5))",
    # triangles and diagonals
    "xp.tril({a}, {off})", "xp.triu({a}, {off})", "xp.diag({k})", "xp.diag({k}, {off})", "xp.diag({a})",
    "xp.diag({a}, 1)", "xp.diagonal({a}, {off})", "xp.trace({a})", "xp.trace({a}, offset=1)",
    # ranges and creation with the dtype
    "xp.linspace(0, 10, 11, dtype='{dt}')", "xp.linspace(0.5, 7, 9, endpoint=False, dtype='{dt}')",
    "xp.logspace(0, 2, 5, dtype='{dt}')", "xp.logspace(0, 3, 4, base=2.0, dtype='{dt}')",
    "xp.geomspace(1, 1000, 4, dtype='{dt}')", "xp.geomspace(1, 10 ** 6, 7, dtype='{dt}')",
    "xp.geomspace(2, 162, 5, dtype='{dt}')", "xp.geomspace(0.5, 40.5, 5, dtype='{dt}')",
    "xp.eye(4, 5, k=1, dtype='{dt}')", "xp.identity(3, dtype='{dt}')", "xp.arange(2, 20, 3, dtype='{dt}')",
    "xp.full((2, 3), 7, dtype='{dt}')", "xp.tri(4, 5, -1, dtype='{dt}')", "xp.indices((3, 4), dtype='{dt}')",
    "xp.ones_like({a})", "xp.full_like({a}, 3)", "xp.zeros_like({a}, dtype={dt2})", "xp.vander({k}, 4)",
    "xp.meshgrid({k}, {v}, indexing='ij')",
    # products
    "xp.einsum('ij,kj->ik', {a}, {b})", "xp.einsum('ij->j', {a})", "xp.einsum('ii->i', {m})",
    "xp.einsum('ij,ij->i', {a}, {b})", "xp.einsum('i,i', {v}, {w})", "xp.einsum('ij->', {a})",
    "xp.einsum('ij,j->i', {a}, {vc})", "xp.einsum('ij->ji', {a})", "xp.vdot({v}, {w})", "xp.vdot({a}, {b})",
    "xp.dot({a}, {b}.T)", "xp.dot({v}, {w})", "xp.dot({a}, 3)", "xp.matmul({a}, {b}.T)", "xp.matmul({a}, {vc})",
    "xp.inner({a}, {b})", "xp.inner({v}, {w})", "xp.outer({k}, {v})", "xp.tensordot({a}, {b}, axes=([1], [1]))",
    "xp.tensordot({a}, {b}, axes=2)", "xp.kron({k}, {k})", "xp.kron({a}, {k})",
    "xp.linalg.multi_dot([{a}, {b}.T, {a}])", "xp.vecdot({a}, {b})", "xp.linalg.matmul({m}, {m})",
    # linear algebra
    "xp.linalg.det({m})", "xp.linalg.inv({m})", "xp.linalg.solve({m}, {mb})", "xp.linalg.slogdet({m})",
    "xp.linalg.lstsq({m}, {mb}, rcond=None)[0]", "xp.linalg.lstsq({a}.T, {vc}, rcond=None)[0]",
    "xp.linalg.norm({a})", "xp.linalg.norm({a}, axis=1)", "xp.linalg.norm({v}, {ordv})", "xp.linalg.norm({m}, {ordm})",
    "xp.linalg.norm({a}, axis={axi}, keepdims=True)", "xp.linalg.svdvals({a})",
    "xp.linalg.svd({m}, compute_uv=False)", "xp.linalg.matrix_power({m}, {pow})", "xp.linalg.matrix_rank({m})",
    "xp.linalg.matrix_rank({a})", "xp.abs(xp.linalg.qr({m})[1])", "xp.abs(xp.linalg.qr({a}, mode='r'))",
    "xp.linalg.eigvalsh({m} + {m}.T)", "xp.linalg.cholesky({m} @ xp.conj({m}).T)", "xp.linalg.cond({m})",
    "xp.linalg.pinv({m}) @ {m}", "xp.linalg.vector_norm({an})", "xp.linalg.matrix_norm({m})", "xp.trace({m})",
    # FFTs
    "xp.fft.fft({v})", "xp.fft.ifft({v})", "xp.fft.rfft({v})", "xp.fft.irfft({v})", "xp.fft.fft2({a})",
    "xp.fft.ifft2({a})", "xp.fft.fftn({a})", "xp.fft.fft({a}, axis=0)", "xp.fft.fft({v}, n=8)",
    "xp.fft.fftshift({a})", "xp.fft.ifftshift({v})", "xp.fft.hfft({v})",
    # ufunc methods
    "xp.add.reduce({a}, axis={axi})", "xp.multiply.reduce({a}, axis=0)", "xp.maximum.reduce({a}, axis={axi})",
    "xp.minimum.reduce({a}, axis=None)", "xp.logical_or.reduce({a}, axis=1)", "xp.bitwise_xor.reduce({a}, axis=0)",
    "xp.add.accumulate({a}, axis={axi})", "xp.multiply.accumulate({v})", "xp.maximum.accumulate({v})",
    "xp.minimum.accumulate({vn})", "xp.add.outer({k}, {k})", "xp.multiply.outer({k}, {v})",
    "xp.subtract.outer({k}, {k})", "xp.equal.outer({k}, {k})", "xp.add.reduceat({v}, [0, {v}.shape[0] // 2])",
    "xp.multiply.reduceat({v}, [0, {v}.shape[0] - 1])",
    # casts
    "{a}.astype({dt2})", "{an}.astype({dt2})", "{v}.astype({dt2})[::-1]", "xp.asarray({a}, dtype={dt2})",
)


#: (call forms, the dtypes they are left out for, why): known differences that are no defect, or that cost
#: minutes; every other mismatch is a defect to fix
_GAPS = (
    (("xp.histogram(",), ("complex128", "complex64"), "NumPy bins complex data by its real part; Nabla refuses it"),
    (("xp.geomspace(2, 162", "xp.geomspace(0.5, 40.5"), ("int64", "int32", "int16", "uint8", "bool"),
     "a float an ulp below an integer truncates one lower: which side NumPy's float lands on is its own rounding"),
    (("xp.linalg.cholesky(",), ("bool", "uint8"),
     "a bool ``m @ conj(m).T`` is a logical product and a uint8 one wraps, often not positive definite: NumPy raises "
     "LinAlgError, Nabla's lazy factor holds NaN (docs/numpy.md, What differs)"),
    (("xp.nanpercentile(", "xp.nanquantile("), ("float32", "float16"),
     "NumPy's dtype is its first slice's: float32 where that slice is all NaN, float64 (with a float q) "
     "otherwise; Nabla's is float64 (docs/numpy.md, What differs)"),
)
#: what the table keeps away from by construction (documented, not drawn)
_KEPT_AWAY = (
    "random Generator streams: Nabla's is Philox (docs), so no sampled values are compared",
    "unstable sort tie order: argsort is drawn with kind='stable' only; partitions compare the kth element only",
    "RuntimeWarnings: Nabla does not warn (the harness ignores warnings)",
    "float16 matmul/einsum: a model compile of about a minute (no float16 inputs; no call chains)",
    "matmul larger than 64x64: it may wait on a model (inputs are at most 33 wide)",
    "inv of a singular matrix: ``m`` is diagonally dominant (unit triangular for bool)",
    "float/complex cast to an integer dtype of NaN, inf or an out-of-range value: undefined in C, NumPy's answer "
    "is its machine's (``_safe_cast`` brings values into range first)",
)


def _gap(form: str, dtype: str) -> bool:
    return any(dtype in dtypes and any(f in form for f in forms) for forms, dtypes, _ in _GAPS)


class _Inputs(dict):
    """Inputs made on first use (each a line of the program), and per-call draws of ``_PARAMS``."""

    def __init__(self, w, dtype):
        super().__init__()
        self.w, self.dt = w, dtype
        self.r = int(w.pick((1, 2, 3, 4, 5, 8)))
        self.c = int(w.pick((1, 2, 3, 7, 9, 16, 33)))
        self.n = int(w.pick((1, 2, 5, 8, 9, 17, 64, 65)))
        self.nm = int(w.pick((1, 2, 3, 4, 6, 9)))

    def seed(self):
        return int(self.w.rng.integers(1 << 30))

    def _holed(self, base, shape):
        if not self.dt.startswith(("float", "complex")):
            return self[base]
        if self.dt.startswith("complex"):
            pool = ("[complex(onp.nan, 0), complex(0, onp.nan), complex(onp.inf, 1), complex(-1, -onp.inf), "
                    "complex(onp.nan, onp.nan), complex(-onp.inf, onp.inf)]")
        else:
            pool = "[onp.nan, onp.inf, -onp.inf, onp.nan]"
        s = self.seed()
        holes = (f"onp.where(onp.random.default_rng({s}).random({shape!r}) < 0.2, onp.random.default_rng({s + 1})"
                 f".choice(onp.array({pool}), {shape!r}), 0).astype('{self.dt}')")
        return self.w.new(f"{self[base]} + xp.asarray({holes})", shape, self.dt)

    def _small(self, shape, lo, hi, dtype=None):
        dtype = dtype or self.dt
        s = self.seed()
        if dtype == "bool":
            return f"xp.asarray(onp.random.default_rng({s}).random({shape!r}) < 0.5)"
        return f"xp.asarray(onp.random.default_rng({s}).integers({lo}, {hi}, {shape!r}).astype('{dtype}'))"

    def __missing__(self, key):
        if key in _PARAMS:
            return self.w.pick(_PARAMS[key])
        w, dt, r, c, n = self.w, self.dt, self.r, self.c, self.n
        if key == "dt":
            return dt
        if key in ("a", "b"):
            name = w.array((r, c), dt)
        elif key in ("v", "w"):
            name = w.array((n,), dt)
        elif key == "vc":
            name = w.array((c,), dt)
        elif key == "k":
            name = w.array((5,), dt)
        elif key == "an":
            name = self._holed("a", (r, c))
        elif key == "vn":
            name = self._holed("v", (n,))
        elif key == "bnz":
            name = w.new(f"xp.where({self['b']} == 0, xp.ones_like({self['b']}), {self['b']})", (r, c), dt)
        elif key == "e":
            name = w.new(self._small((r, c), 0, 4), (r, c), dt)
        elif key == "ei":
            name = w.new(self._small((r, c), -3, 4, "int32"), (r, c), "int32")
        elif key == "u":
            name = w.new(self._small((n,), 0, 10), (n,), dt)
        elif key == "sv":
            name = w.new(f"xp.asarray(onp.sort({w.host((n,), dt)}))", (n,), dt)
        elif key == "vf":
            name = w.array((n,), "float64")
        elif key == "wc":
            name = w.new(f"xp.asarray(onp.random.default_rng({self.seed()}).random({c}) + 0.5)", (c,), "float64")
        elif key == "m":
            m = self.nm
            s = self.seed()
            g = f"onp.random.default_rng({s})"
            if dt == "bool":
                host = f"onp.triu({g}.random(({m}, {m})) < 0.5, 1) | onp.eye({m}, dtype=bool)"
            elif dt.startswith(("int", "uint")):
                lo = 0 if dt.startswith("uint") else -2
                host = f"({g}.integers({lo}, 3, ({m}, {m})) + {2 * m + 1} * onp.eye({m}, dtype='int64')).astype('{dt}')"
            elif dt.startswith("complex"):
                host = (f"(lambda g: g.standard_normal(({m}, {m})) + 1j * g.standard_normal(({m}, {m})) + {2 * m} * "
                        f"onp.eye({m}))({g}).astype('{dt}')")
            else:
                host = f"({g}.standard_normal(({m}, {m})) + {2 * m} * onp.eye({m})).astype('{dt}')"
            name = w.new(f"xp.asarray({host})" + (".T" if w.rng.random() < 0.3 else ""), (m, m), dt)
        elif key == "mb":
            name = w.array((self.nm, 2), dt)
        elif key == "ia":
            kk = min(c, 3)
            name = w.new(f"xp.asarray(onp.argsort(onp.random.default_rng({self.seed()}).random(({r}, {c})), "
                         f"axis=1)[:, :{kk}])", (r, kk), "int64")
        elif key == "idx":
            return repr([int(i) for i in w.rng.integers(-n, n, 5)])
        else:
            raise KeyError(key)
        self[key] = name
        return name


_CAST = re.compile(r"astype\(|dtype=\{dt2\}")


def face_calls(w) -> None:
    """A few calls from ``FORMS`` on one dtype; calls NumPy refuses are dropped, but one may end the program
    (the harness then checks Nabla's exception class)."""
    dtype = w.pick(DTYPES)
    inp = _Inputs(w, dtype)
    groups = []  # (first line, last line + 1) of each call's own lines
    for _ in range(int(w.rng.integers(2, 6))):
        while True:
            form = w.pick(FORMS)
            text = form if isinstance(form, str) else form[0] + form[1]
            if not _gap(text, dtype):
                break
        if isinstance(form, str):
            expr = form.format_map(inp)
            if _CAST.search(form) and dtype.startswith(("float", "complex")):
                expr = _safe_cast(expr, dtype)
            start = len(w.lines)
            w.new(expr, (), "")
        else:
            # (inputs first: a line of the call's own is dropped with it where NumPy refuses the call)
            write = form[1].replace("{c}", "{{c}}").format_map(inp)
            src = form[0].format_map(inp)
            start = len(w.lines)
            copy = w.new(src, (), dtype)
            w.emit(write.replace("{c}", copy))
        groups.append((start, len(w.lines)))
    _keep_what_numpy_computes(w, groups)


def _safe_cast(expr: str, dtype: str) -> str:
    """``x.astype(t)`` or ``xp.asarray(x, dtype=t)`` of float or complex ``x`` into an integer ``t``: C leaves
    NaN, infinities and values out of the target's range undefined (NumPy's answer is its machine's), so
    the values are brought into range first (NaN to 0, into [-100, 100], magnitudes for uint8)."""
    m = re.match(r"(.*?)\.astype\((.*)\)(.*)$", expr) or re.match(r"xp\.asarray\((.*?), dtype=(.*)\)()$", expr)
    if not m:
        return expr
    x, target, tail = m.groups()
    t = target.strip("'")
    if t.startswith(("float", "complex")) or t == "bool":
        return expr
    src = f"{x}.real" if dtype.startswith("complex") else x
    src = f"xp.abs({src})" if t.startswith("uint") else src
    return f"xp.clip(xp.nan_to_num({src}), -100, 100).astype({target}){tail}"


def _keep_what_numpy_computes(w, groups) -> None:
    """Runs the program once with NumPy; drops each call it raises on, then may append one of those last."""
    env = {"xp": onp, "onp": onp}
    raised = set()
    bounds = {s: e for s, e in groups}
    i = 0
    with warnings.catch_warnings(), onp.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        while i < len(w.lines):
            end = bounds.get(i, i + 1)
            try:
                exec("\n".join(w.lines[i:end]), env)  # noqa: S102 (the program's own text)
            except Exception:  # noqa: BLE001
                if i not in bounds:
                    raise
                raised.add(i)
            i = end
    lines = []
    i = 0
    while i < len(w.lines):
        end = bounds.get(i, i + 1)
        if i not in raised:
            lines.extend(w.lines[i:end])
        i = end
    if raised and w.rng.random() < 0.5:
        s = w.pick(sorted(raised))
        lines.extend(w.lines[s:bounds[s]])
    w.lines[:] = lines
