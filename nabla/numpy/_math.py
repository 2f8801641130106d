"""Products, differences, signal helpers, comparisons and statistics as NumPy spells them."""

from __future__ import annotations

import builtins
import math

import numpy as _np

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops.elementwise import astype as _astype, complex_from_parts
from ..ops.linalg import vector_dot
from . import _dtypes as D
from ._ndarray import ndarray
from ._ufuncs import write_out
from ._ufunc_table import UFUNCS

_F64, _I64 = _dt.float64, _dt.int64


def _pair(a, b, op):
    if type(a) is ndarray and type(b) is ndarray and a._impl.dtype is b._impl.dtype:
        return a, b  # (one dtype: nothing to read or promote; a loop's ``x[i, :j] @ y[:j, j]``)
    x, y = D.asarray(a, op=op), D.asarray(b, op=op)
    return tuple(D.promote_all([x, y], op))


# --- products -----------------------------------------------------------------------------------------

def _counted(product, x, y, **kwargs):
    """``product(x, y)``, where two bool operands give NumPy's bool product (an OR of ANDs: the true
    terms counted in int64, then tested), which the standard's numeric-only products refuse."""
    if x.dtype.is_bool and y.dtype.is_bool:
        return product(_astype(x, _dt.int64), _astype(y, _dt.int64), **kwargs) != 0
    return product(x, y, **kwargs)


def _plain_dot(a, b, out):
    """``a @ b`` of two face arrays that are real vectors of one dtype (``linalg.vector_dot``: a
    loop's ``x[i, :j] @ y[:j, j]`` without the layers below); None for anything else."""
    return vector_dot(a, b) if out is None and type(a) is ndarray and type(b) is ndarray else None


def matmul(x1, x2, /, out=None, **kwargs):
    r = None if kwargs else _plain_dot(x1, x2, out)
    if r is not None:
        return r
    a, b = _pair(x1, x2, "matmul")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("nabla.numpy.matmul: input operand does not have enough dimensions (scalars: use *)")
    r = _counted(_xp.matmul, a, b)
    return r if out is None else write_out(out, r, "matmul")


def dot(a, b, out=None):
    r = _plain_dot(a, b, out)
    if r is not None:
        return r
    x, y = _pair(a, b, "dot")
    if x.ndim == 0 or y.ndim == 0:
        r = x * y
    elif y.ndim <= 2:
        r = _counted(_xp.matmul, x, y)
    else:  # sum over the last axis of a and the second-to-last of b
        r = _counted(_xp.tensordot, x, y, axes=([x.ndim - 1], [y.ndim - 2]))
    return r if out is None else write_out(out, r, "dot")


def vdot(a, b):
    x, y = _pair(a, b, "vdot")
    x, y = _reshape(x, (-1,)), _reshape(y, (-1,))
    if x.dtype.is_bool:  # (NumPy's bool dot: any of the ands)
        return _xp.any(_xp.logical_and(x, y))
    if x.dtype.is_complex:
        x = _xp.conj(x)
    return _xp.sum(x * y, dtype=x.dtype)  # NumPy keeps the operands' dtype: small ints wrap, none widen


def inner(a, b):
    x, y = _pair(a, b, "inner")
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    return _counted(_xp.tensordot, x, y, axes=([x.ndim - 1], [y.ndim - 1]))


def outer(a, b, out=None):
    x, y = _pair(a, b, "outer")
    r = _reshape(x, (-1, 1)) * _reshape(y, (1, -1))
    return r if out is None else write_out(out, r, "outer")


def tensordot(a, b, axes=2):
    x, y = _pair(a, b, "tensordot")
    return _counted(_xp.tensordot, x, y, axes=axes)


def kron(a, b):
    x, y = _pair(a, b, "kron")
    nd = builtins.max(x.ndim, y.ndim)
    x = _reshape(x, (1,) * (nd - x.ndim) + x.shape)
    y = _reshape(y, (1,) * (nd - y.ndim) + y.shape)
    xs = tuple(d for n in x.shape for d in (n, 1))
    ys = tuple(d for n in y.shape for d in (1, n))
    r = _reshape(x, xs) * _reshape(y, ys)
    return _reshape(r, tuple(p * q for p, q in zip(x.shape, y.shape)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    x, y = _pair(a, b, "cross")
    if axis is not None:
        axisa = axisb = axisc = axis
    x, y = _xp.moveaxis(x, axisa, -1), _xp.moveaxis(y, axisb, -1)
    if x.shape[-1] == 2 and y.shape[-1] == 2:
        return x[..., 0] * y[..., 1] - x[..., 1] * y[..., 0]
    if x.shape[-1] == 2:
        x = _xp.concat([x, _xp.zeros(x.shape[:-1] + (1,), dtype=x.dtype)], axis=-1)
    if y.shape[-1] == 2:
        y = _xp.concat([y, _xp.zeros(y.shape[:-1] + (1,), dtype=y.dtype)], axis=-1)
    shape = _xp.broadcast_shapes(x.shape, y.shape)
    r = _xp.linalg.cross(_xp.broadcast_to(x, shape), _xp.broadcast_to(y, shape), axis=-1)
    return _xp.moveaxis(r, -1, axisc)


# --- differences and signals --------------------------------------------------------------------------

def diff(a, n=1, axis=-1, prepend=None, append=None):
    x = D.asarray(a, op="diff")
    pre = None if prepend is None else D.asarray(prepend, op="diff")
    app = None if append is None else D.asarray(append, op="diff")
    if pre is not None and pre.ndim == 0:
        pre = _xp.broadcast_to(pre, x.shape[:axis % x.ndim] + (1,) + x.shape[axis % x.ndim + 1:])
    if app is not None and app.ndim == 0:
        app = _xp.broadcast_to(app, x.shape[:axis % x.ndim] + (1,) + x.shape[axis % x.ndim + 1:])
    parts = [p for p in (pre, x, app) if p is not None]
    x = _xp.concat(D.promote_all(parts, "diff"), axis=axis) if len(parts) > 1 else x
    if n == 0:
        return x
    if x.dtype.is_bool:
        r = x
        for _ in range(n):
            r = _xp.not_equal(D.axis_range(r, axis, 1, None), D.axis_range(r, axis, None, -1))
        return r
    return _xp.diff(x, axis=axis, n=n)


def ediff1d(ary, to_end=None, to_begin=None):
    x = _reshape(D.asarray(ary, op="ediff1d"), (-1,))
    r = x[1:] - x[:-1]
    parts = [p for p in (to_begin, r, to_end) if p is not None]
    return _xp.concat([_reshape(D.asarray(p, r.dtype), (-1,)) for p in parts], axis=0)


def gradient(f, *varargs, axis=None, edge_order=1):
    """Second-order central differences inside, one-sided at the edges (uniform or coordinate spacing)."""
    y = D.asarray(f, op="gradient")
    if y.dtype.kind in "iu":
        y = _astype(y, _F64)
    axes = tuple(range(y.ndim)) if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    spacing = list(varargs) if varargs else [1.0] * len(axes)
    if len(spacing) == 1 and len(axes) > 1:
        spacing = spacing * len(axes)
    out = []
    for ax, h in zip(axes, spacing):
        ax %= y.ndim
        n = y.shape[ax]
        if n < edge_order + 1:
            raise ValueError("nabla.numpy.gradient: shape of the array too small for a gradient; needs at least "
                             f"{edge_order + 1} elements along axis {ax}")
        if y.dtype.is_bool:  # (NumPy's differences subtract, which bools refuse; its size check comes first)
            raise TypeError("nabla.numpy.gradient: bool data has no subtraction (use an integer or float array)")
        s = lambda a, b: D.axis_range(y, ax, a, b)  # noqa: E731
        if not (isinstance(h, (int, float)) or (isinstance(h, Tensor) and h.ndim == 0) or _np.ndim(h) == 0):
            xs = D.asarray(h, _np.float64, "gradient")
            dx = xs[1:] - xs[:-1]
            if bool(_xp.all(dx == dx[0])):  # (NumPy's rule: evenly spaced coordinates are their step)
                h = dx[0]
        if isinstance(h, (int, float)) or (isinstance(h, Tensor) and h.ndim == 0) or _np.ndim(h) == 0:
            h = float(h)
            # (NumPy's formulas and their roundings: coefficients over h, then the weighted sum)
            mid = (s(2, None) - s(None, -2)) / (2.0 * h)
            if edge_order == 1:
                first = (s(1, 2) - s(0, 1)) / h
                last = (s(-1, None) - s(-2, -1)) / h
            else:
                first = (-1.5 / h) * s(0, 1) + (2.0 / h) * s(1, 2) + (-0.5 / h) * s(2, 3)
                last = (0.5 / h) * s(-3, -2) + (-2.0 / h) * s(-2, -1) + (1.5 / h) * s(-1, None)
        else:  # coordinates: NumPy's nonuniform second-order formulas
            shape = tuple(-1 if k == ax else 1 for k in range(y.ndim))
            h1 = _reshape(dx[:-1], shape)
            h2 = _reshape(dx[1:], shape)
            a = -h2 / (h1 * (h1 + h2))
            b = (h2 - h1) / (h1 * h2)
            c = h1 / (h2 * (h1 + h2))
            mid = a * s(None, -2) + b * s(1, -1) + c * s(2, None)
            if edge_order == 1:
                first = (s(1, 2) - s(0, 1)) / float(dx[0])
                last = (s(-1, None) - s(-2, -1)) / float(dx[-1])
            else:
                d1, d2 = float(dx[0]), float(dx[1])
                first = (-(2.0 * d1 + d2) / (d1 * (d1 + d2))) * s(0, 1) + ((d1 + d2) / (d1 * d2)) * s(1, 2) \
                    + (-d1 / (d2 * (d1 + d2))) * s(2, 3)
                d1, d2 = float(dx[-2]), float(dx[-1])
                last = (d2 / (d1 * (d1 + d2))) * s(-3, -2) + (-(d2 + d1) / (d1 * d2)) * s(-2, -1) \
                    + ((2.0 * d2 + d1) / (d2 * (d1 + d2))) * s(-1, None)
        out.append(_xp.concat([first, mid, last], axis=ax) if n > 2 else _xp.concat([first, last], axis=ax))
    return out[0] if len(out) == 1 else tuple(out)


#: kernels up to this long convolve as shifted slices (an op or two per tap, all in one program);
#: longer ones as one gather of every window and a row sum
_SHIFTED_TAPS = 16


def convolve(a, v, mode="full"):
    """1-D convolution: a sum of shifted slices for a short kernel, else a gather of every window."""
    x, w = _pair(a, v, "convolve")
    x, w = _reshape(x, (-1,)), _reshape(w, (-1,))
    if x.shape[0] == 0 or w.shape[0] == 0:
        raise ValueError("nabla.numpy.convolve: inputs cannot be empty")
    if w.shape[0] > x.shape[0]:
        x, w = w, x
    n, m = x.shape[0], w.shape[0]
    padded = _xp.concat([_xp.zeros((m - 1,), dtype=x.dtype), x, _xp.zeros((m - 1,), dtype=x.dtype)], axis=0)
    rows = n + m - 1
    if m <= _SHIFTED_TAPS:  # c[k] = sum_i padded[k + i] w[m - 1 - i]: m shifted slices, one fused program
        full = padded[:rows] * w[m - 1]  # (added in NumPy's order: i = 0, 1, ...)
        for i in range(1, m):
            full = full + padded[i:i + rows] * w[m - 1 - i]
    else:
        idx = _reshape(_xp.arange(rows), (-1, 1)) + _reshape(_xp.arange(m), (1, -1))
        windows = _reshape(_xp.take(padded, _reshape(idx, (-1,)), axis=0), (rows, m))
        full = _xp.sum(windows * _xp.flip(w), axis=1)
    if mode == "full":
        return full
    if mode == "same":
        start = (m - 1) // 2
        return full[start:start + n]
    if mode == "valid":
        return full[m - 1:n]
    raise ValueError(f"nabla.numpy.convolve: mode must be 'full', 'same' or 'valid', got {mode!r}")


def correlate(a, v, mode="valid"):
    x, w = _pair(a, v, "correlate")
    x, w = _reshape(x, (-1,)), _reshape(w, (-1,))
    if w.shape[0] > x.shape[0]:  # NumPy correlates the longer with the shorter, reversed and conjugated
        r = correlate(w, x, mode)
        return _xp.flip(_xp.conj(r) if r.dtype.is_complex else r)
    return convolve(x, _xp.flip(_xp.conj(w) if w.dtype.is_complex else w), mode)


def _real_floats(a, op):
    """``a`` as float64 where NumPy casts it by its 'safe' rule: a complex array is refused."""
    v = D.asarray(a, op=op)
    if v.dtype.is_complex:
        raise TypeError(f"nabla.numpy.{op}: cannot cast array data from dtype('{v.dtype.name}') to "
                        "dtype('float64') according to the rule 'safe'")
    return _astype(v, _F64)


def interp(x, xp, fp, left=None, right=None, period=None):
    xv = _real_floats(x, "interp")
    xs = _real_floats(xp, "interp")
    fs = D.asarray(fp, op="interp")
    fs = fs if fs.dtype.is_complex else _astype(fs, _F64)
    if period is not None:  # NumPy's rule: wrap into [0, period), sort, pad one period on each side
        if period == 0:
            raise ValueError("nabla.numpy.interp: period must be a non-zero value")
        period = builtins.abs(float(period))
        left = right = None
        xv, xs = _xp.remainder(xv, period), _xp.remainder(xs, period)
        order = _xp.argsort(xs, stable=True)
        xs, fs = _xp.take(xs, order, axis=0), _xp.take(fs, order, axis=0)
        xs = _xp.concat([xs[-1:] - period, xs, xs[:1] + period])
        fs = _xp.concat([fs[-1:], fs, fs[:1]])
    n = xs.shape[0]
    if xs.ndim != 1 or fs.ndim != 1:
        raise ValueError(f"nabla.numpy.interp: xp and fp must be 1-D, got shapes {xs.shape} and {fs.shape}")
    if n == 0:
        raise ValueError("nabla.numpy.interp: array of sample points is empty")
    if fs.shape[0] != n:
        raise ValueError(f"nabla.numpy.interp: fp and xp are not of the same length ({fs.shape[0]} and {n})")
    j = _xp.clip(_xp.searchsorted(xs, xv, side="right") - 1, 0, builtins.max(n - 2, 0))
    x0, x1 = _xp.take(xs, j, axis=0), _xp.take(xs, _xp.clip(j + 1, 0, n - 1), axis=0)
    f0, f1 = _xp.take(fs, j, axis=0), _xp.take(fs, _xp.clip(j + 1, 0, n - 1), axis=0)
    # NumPy's formula, to the bit: slope * (x - x0) + f0; where that is NaN (an infinite slope), from
    # the right end, then the ends' value where they are equal; at a sample point its value
    with _np.errstate(divide="ignore", invalid="ignore"):
        slope = (f1 - f0) / (x1 - x0)
        r = slope * (xv - x0) + f0
        again = slope * (xv - x1) + f1
    r = _xp.where(_xp.isnan(r), _xp.where(_xp.logical_and(_xp.isnan(again), f0 == f1), f0, again), r)
    r = _xp.where(xv == x0, f0, r)
    lo = fs[0] if left is None else left
    hi = fs[-1] if right is None else right
    r = _xp.where(xv < xs[0], lo, r)
    r = _xp.where(xv > xs[-1], hi, r)
    return _xp.where(xv == xs[-1], fs[-1], r)


# --- comparisons --------------------------------------------------------------------------------------

def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    x, y = _pair(a, b, "isclose")
    if x.dtype.kind in "biu":
        x, y = _astype(x, _F64), _astype(y, _F64)
    # NumPy's rule: within tolerance of a finite y, or equal (infinities of one sign); a complex
    # value is NaN or infinite where either part is
    close = _xp.logical_and(_xp.abs(x - y) <= atol + rtol * _xp.abs(y), _xp.isfinite(y))
    r = _xp.logical_or(close, x == y)
    if equal_nan:
        r = _xp.logical_or(r, _xp.logical_and(_xp.isnan(x), _xp.isnan(y)))
    return r


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(_xp.all(isclose(a, b, rtol, atol, equal_nan)))


def array_equal(a1, a2, equal_nan=False):
    x, y = D.asarray(a1, op="array_equal"), D.asarray(a2, op="array_equal")
    if x.shape != y.shape:
        return False
    eq = x == y
    if equal_nan and x.dtype.kind in "fc":
        eq = _xp.logical_or(eq, _xp.logical_and(_xp.isnan(x), _xp.isnan(y)))
    return bool(_xp.all(eq))


def array_equiv(a1, a2):
    x, y = D.asarray(a1, op="array_equiv"), D.asarray(a2, op="array_equiv")
    try:
        shape = _xp.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return False
    return bool(_xp.all(_xp.broadcast_to(x, shape) == _xp.broadcast_to(y, shape)))


# --- elementwise helpers that are not ufuncs ----------------------------------------------------------

def clip(a, a_min=None, a_max=None, out=None, *, min=None, max=None, **kwargs):  # noqa: A002
    """``minimum(maximum(a, a_min), a_max)``, as NumPy defines it (its promotion included)."""
    r = D.asarray(a, op="clip")
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    if r.dtype.is_integer:
        # NumPy 2 clamps a Python int bound the dtype cannot hold where that changes nothing (a
        # lower bound below the range, an upper one above it); the others are NEP 50's OverflowError
        info = _np.iinfo(r.dtype.numpy_dtype)
        for b, beyond in ((lo, type(lo) is int and lo > info.max), (hi, type(hi) is int and hi < info.min)):
            if beyond:
                raise OverflowError(f"nabla.numpy.clip: Python integer {b} out of bounds for {r.dtype}")
        lo, hi = (builtins.min(builtins.max(b, int(info.min)), int(info.max)) if type(b) is int else b
                  for b in (lo, hi))
    if lo is not None:
        r = UFUNCS["maximum"](r, lo)
    if hi is not None:
        r = UFUNCS["minimum"](r, hi)
    return r if out is None else write_out(out, r, "clip")


def around(a, decimals=0, out=None):
    x = D.asarray(a, op="around")
    kind = x.dtype.kind
    if kind == "b":  # (NumPy: rint of bools is float16; other decimals cannot cast back to bool)
        if decimals != 0:
            raise TypeError(f"nabla.numpy.around: cannot round a bool array to {decimals} decimals: NumPy cannot "
                            "cast ufunc 'multiply' output from dtype('float64') to dtype('bool')")
        r = _xp.round(_astype(x, _dt.float16))
    elif decimals == 0 or (kind in "iu" and decimals > 0):
        r = _xp.round(x)
    elif kind in "iu":  # to tens, hundreds...: through floats, as NumPy's, back to the integer dtype
        s = 10.0 ** -decimals
        r = _astype(_xp.round(x / s) * s, x.dtype)
    elif decimals > 0:
        s = 10.0 ** decimals
        r = _xp.round(x * s) / s
    else:
        s = 10.0 ** -decimals
        r = _xp.round(x / s) * s
    return r if out is None else write_out(out, r, "around")


round = around  # noqa: A001


def _finite_part(a, nan, posinf, neginf):
    info = _np.finfo(a.dtype.numpy_dtype)
    a = _xp.where(_xp.isnan(a), nan, a)
    a = _xp.where(a == _np.inf, float(info.max) if posinf is None else posinf, a)
    return _xp.where(a == -_np.inf, float(info.min) if neginf is None else neginf, a)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    a = D.asarray(x, op="nan_to_num")
    if a.dtype.is_complex:  # (NumPy: each part on its own, with the same replacements)
        parts = (_finite_part(p, nan, posinf, neginf) for p in (_xp.real(a), _xp.imag(a)))
        return _astype(complex_from_parts(*parts), a.dtype)
    if not a.dtype.is_floating:
        return a
    return _finite_part(a, nan, posinf, neginf)


def real(val):
    return D.asarray(val, op="real").real  # a view, as NumPy's


def imag(val):
    return D.asarray(val, op="imag").imag


def angle(z, deg=False):
    x = D.asarray(z, op="angle")
    # NumPy's: arctan2(0, z) for real z, so its dtype is arctan2's (int16 -> float32, uint8 -> float16)
    r = _xp.atan2(_xp.imag(x), _xp.real(x)) if x.dtype.is_complex else UFUNCS["arctan2"](0, x)
    return UFUNCS["multiply"](r, 180.0 / math.pi) if deg else r


def isreal(x):
    a = D.asarray(x, op="isreal")
    return _xp.imag(a) == 0 if a.dtype.is_complex else _xp.ones(a.shape, dtype=_dt.bool_)


def iscomplex(x):
    return _xp.logical_not(isreal(x))


def _infinite(x, out, op, negative):
    a = D.asarray(x, op=op)
    if a.dtype.is_complex:
        raise TypeError(f"nabla.numpy.{op}: not supported for complex input (its sign is ambiguous), got "
                        f"{a.dtype.name}")
    if a.dtype.kind in "biu":  # (no bool or integer is infinite)
        r = _xp.zeros(a.shape, dtype=_dt.bool_)
    else:
        r = _xp.logical_and(_xp.isinf(a), a < 0 if negative else a > 0)
    return r if out is None else write_out(out, r, op)


def isneginf(x, out=None):
    return _infinite(x, out, "isneginf", True)


def isposinf(x, out=None):
    return _infinite(x, out, "isposinf", False)


def sinc(x):
    a = D.asarray(x, op="sinc")
    a = a if a.dtype.kind in "fc" else _astype(a, _F64)
    y = math.pi * _xp.where(a == 0, 1.0e-20, a)
    return _xp.where(a == 0, 1.0, _xp.sin(y) / y)


# --- statistics ---------------------------------------------------------------------------------------

def _cov_weights(w, n: int, kind: str):
    """Frequency or analytic weights for ``cov``, checked as NumPy checks them (signs only when they
    come as host data: a lazy tensor's values are not read here)."""
    if w is None:
        return None
    if not isinstance(w, Tensor):
        host = _np.asarray(w)
        if kind == "fweights" and host.dtype.kind not in "biu" and not _np.all(host == _np.around(host)):
            raise TypeError("nabla.numpy.cov: fweights must be integer")
        if _np.any(host < 0):
            raise ValueError(f"nabla.numpy.cov: {kind} cannot be negative")
    t = _astype(D.asarray(w, op="cov"), _F64)
    if t.ndim > 1:
        raise RuntimeError(f"nabla.numpy.cov: cannot handle multidimensional {kind}")
    if t.shape[0] != n:
        raise RuntimeError(f"nabla.numpy.cov: incompatible numbers of samples and {kind} ({n} vs {t.shape[0]})")
    return t


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    x = D.asarray(m, op="cov")
    if not rowvar and x.ndim != 1:  # (NumPy 2's rule for m: a one-row matrix is one observation too)
        x = _xp.permute_dims(x, (1, 0))
    x = _reshape(x, (1, -1)) if x.ndim == 1 else x
    if y is not None:
        yy = D.asarray(y, op="cov")
        yy = _reshape(yy, (1, -1)) if yy.ndim == 1 else yy
        if not rowvar and yy.shape[0] != 1:
            yy = _xp.permute_dims(yy, (1, 0))
        x = _xp.concat(D.promote_all([x, yy], "cov"), axis=0)
    # NumPy's cov computes in float64 at least (float32 data gives float64), or in ``dtype``
    x = _astype(x, D.to_nabla(_np.result_type(x.dtype.numpy_dtype, _np.float64) if dtype is None else dtype, "cov"))
    n = x.shape[1]
    ddof = (0 if bias else 1) if ddof is None else ddof
    fw, aw = _cov_weights(fweights, n, "fweights"), _cov_weights(aweights, n, "aweights")
    w = fw if aw is None else aw if fw is None else fw * aw
    if w is None:
        xc = x - _xp.mean(x, axis=1, keepdims=True)
        fact = builtins.max(n - ddof, 0)
    else:  # NumPy's weighted estimate: weighted mean, then the normalization by the weights' sums
        w_sum = _xp.sum(w)
        xc = x - _xp.sum(x * w, axis=1, keepdims=True) / w_sum
        fact = w_sum if ddof == 0 else w_sum - ddof if aw is None else w_sum - ddof * _xp.sum(w * aw) / w_sum
    xt = _xp.conj(xc) if xc.dtype.is_complex else xc
    if w is not None:
        xt = xt * w
    c = _xp.matmul(xc, _xp.permute_dims(xt, (1, 0))) / fact
    return _xp.squeeze(c, axis=(0, 1)) if c.shape == (1, 1) else c


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    d = _xp.linalg.diagonal(c)
    s = _xp.sqrt(_xp.real(d) if d.dtype.is_complex else d)
    r = c / _reshape(s, (-1, 1)) / _reshape(s, (1, -1))
    return _xp.clip(r, -1.0, 1.0) if not r.dtype.is_complex else r


__all__ = [n for n, v in list(globals().items()) if not n.startswith("_") and callable(v)
           and getattr(v, "__module__", None) == __name__]
