"""The classical orthogonal series of ``numpy.polynomial`` (Chebyshev, Legendre, Laguerre, Hermite,
HermiteE), from one table: each family is its three-term recurrence

    P_0 = 1,   P_{k+1} = (A_k x + B_k) P_k - C_k P_{k-1}

plus the closed forms of its derivative and antiderivative. Every function is built from those:
values by Clenshaw's algorithm (Clenshaw 1955), products by running the recurrence on series
(``P_k * c`` from ``x * c``), roots as the eigenvalues of the comrade matrix (Barnett 1975; the
colleague matrix for Chebyshev), Gauss quadrature by Golub-Welsch (1969: the symmetric Jacobi
matrix's ``eigh``). Coefficients live on MAX; the recurrence's constants are Python numbers.
As in NumPy, sums, products and quotients drop trailing zero coefficients (read by value).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable

import numpy as _np

from ... import array_api as _xp
from ...ops.view import reshape as _reshape
from ...core import dtypes as _dt
from .. import _dtypes as D
from . import _power
from .._polynomial import least_squares


@dataclass(frozen=True)
class Family:
    prefix: str  # NumPy's function prefix: cheb, leg, lag, herm, herme
    name: str  # the class: Chebyshev, ...
    basis_name: str  # how ``str`` names the basis: T, P, L, H, He
    domain: tuple
    A: Callable[[int], float]
    B: Callable[[int], float]
    C: Callable[[int], float]
    #: derivative: d/dx P_j = sum_i D(i, j) P_i over i < j (elementwise on index grids)
    der: Callable
    #: antiderivative up to a constant: int P_j = sum_i I(i, j) P_i (on index grids)
    integral: Callable
    weight: Callable  # the weight function, elementwise on MAX
    mu0: float  # the integral of the weight over its interval (Gauss weights' scale)


def _odd(n):
    return (n - 2 * _xp.floor(n / 2)) == 1


def _cheb_der(i, j):
    return _xp.where((j > i) & _odd(j - i), _xp.where(i == 0, j, 2 * j), 0.0)


def _cheb_int(i, j):  # T_j -> T_{j+1} / (2(j+1)) - T_{j-1} / (2(j-1)); T_0 -> T_1, T_1 -> T_2 / 4
    up = _xp.where(j == 0, 1.0, 1.0 / (2 * (j + 1)))
    down = -1.0 / _xp.where(j >= 2, 2 * (j - 1), 1.0)
    return _xp.where(i == j + 1, up, _xp.where((i == j - 1) & (j >= 2), down, 0.0))


def _leg_der(i, j):
    return _xp.where((j > i) & _odd(j - i), 2 * i + 1, 0.0)


def _leg_int(i, j):  # P_j -> (P_{j+1} - P_{j-1}) / (2j + 1)
    return _xp.where(i == j + 1, 1.0 / (2 * j + 1), _xp.where(i == j - 1, -1.0 / (2 * j + 1), 0.0))


def _lag_der(i, j):
    return _xp.where(j > i, -1.0, 0.0)


def _lag_int(i, j):  # L_j -> L_j - L_{j+1}
    return _xp.where(i == j, 1.0, _xp.where(i == j + 1, -1.0, 0.0))


def _step_der(scale):  # P_j' = scale * j * P_{j-1}
    return lambda i, j: _xp.where(i == j - 1, scale * j, 0.0)


def _step_int(scale):
    return lambda i, j: _xp.where(i == j + 1, 1.0 / (scale * (j + 1)), 0.0)


POWER = Family("poly", "Polynomial", "", (-1.0, 1.0), lambda k: 1.0, lambda k: 0.0, lambda k: 0.0,
               _step_der(1.0), _step_int(1.0), lambda x: x * 0 + 1.0, 0.0)

FAMILIES = {
    "cheb": Family("cheb", "Chebyshev", "T", (-1.0, 1.0), lambda k: 1.0 if k == 0 else 2.0, lambda k: 0.0,
                   lambda k: 1.0, _cheb_der, _cheb_int, lambda x: 1.0 / _xp.sqrt(1 - x * x), math.pi),
    "leg": Family("leg", "Legendre", "P", (-1.0, 1.0), lambda k: (2 * k + 1) / (k + 1), lambda k: 0.0,
                  lambda k: k / (k + 1), _leg_der, _leg_int, lambda x: x * 0 + 1.0, 2.0),
    "lag": Family("lag", "Laguerre", "L", (0.0, 1.0), lambda k: -1.0 / (k + 1), lambda k: (2 * k + 1) / (k + 1),
                  lambda k: k / (k + 1), _lag_der, _lag_int, lambda x: _xp.exp(-x), 1.0),
    "herm": Family("herm", "Hermite", "H", (-1.0, 1.0), lambda k: 2.0, lambda k: 0.0, lambda k: 2.0 * k,
                   _step_der(2.0), _step_int(2.0), lambda x: _xp.exp(-x * x), math.sqrt(math.pi)),
    "herme": Family("herme", "HermiteE", "He", (-1.0, 1.0), lambda k: 1.0, lambda k: 0.0, lambda k: float(k),
                    _step_der(1.0), _step_int(1.0), lambda x: _xp.exp(-x * x / 2), math.sqrt(2 * math.pi)),
}


def is_series(x) -> bool:
    """A series object (``Polynomial``, ``Chebyshev``, ...): values at it are series too."""
    return hasattr(x, "coef") and hasattr(x, "domain")


def clenshaw(fam, s, x):
    """sum s_k P_k(x): b_k = s_k + (A_k x + B_k) b_{k+1} - C_{k+1} b_{k+2}, the value is b_0 (with
    C = 0 this is Horner's rule). ``x`` on the left of every product, so a series object works."""
    b1 = b2 = None
    for k in range(s.shape[0] - 1, -1, -1):
        if b1 is None:
            b0 = x * 0 + s[k]
        else:
            b0 = (x * fam.A(k) + fam.B(k)) * b1 + s[k]
            if b2 is not None and fam.C(k + 1) != 0:
                b0 = b0 - b2 * fam.C(k + 1)
        b1, b2 = b0, b1
    return b1


def _vector(values, dtype):
    return _xp.asarray(_np.asarray(values, dtype=_np.float64), dtype=_dt.float64 if not dtype.is_complex else dtype)


def _grid(rows, cols):
    i = _reshape(_xp.arange(rows, dtype=_dt.float64), (-1, 1))
    j = _reshape(_xp.arange(cols, dtype=_dt.float64), (1, -1))
    return i, j


def _apply(matrix, c):
    """``matrix @ c`` over the first axis of ``c`` (its other axes kept)."""
    m = _xp.astype(matrix, c.dtype) if c.dtype.is_complex else matrix
    return m @ c if c.ndim > 1 else _reshape(m @ _reshape(c, (-1, 1)), (-1,))


def _coef(c, op, fam):
    """Coefficients as NumPy reads them for values and calculus: at least 1-D, at least float64."""
    s = D.asarray(c, op=f"{fam.prefix}{op}")
    if s.ndim == 0:
        s = _reshape(s, (1,))
    if s.dtype.is_complex:
        return s if s.dtype == _dt.complex128 else _xp.astype(s, _dt.complex128)
    return s if s.dtype == _dt.float64 else _xp.astype(s, _dt.float64)


def _pad(s, n):
    return s if s.shape[0] >= n else _xp.concat([s, _xp.zeros((n - s.shape[0],) + s.shape[1:], dtype=s.dtype)])


def _series(c, op, fam):
    return _power.trimseq(_power.as_series(c, f"{fam.prefix}{op}"))


@functools.cache
def functions(fam: Family) -> dict:
    """NumPy's module of ``fam``: ``chebval``, ``chebfit``, ... by name."""
    p = fam.prefix
    A, B, C = fam.A, fam.B, fam.C

    def mulx(c):
        """x * sum c_k P_k, by x P_k = (P_{k+1} - B_k P_k + C_k P_{k-1}) / A_k."""
        s = _power.as_series(c, f"{p}mulx")
        n = s.shape[0]
        inv_a = _vector([1.0 / A(k) for k in range(n)], s.dtype)
        up = s * inv_a
        same = s * _vector([-B(k) / A(k) for k in range(n)], s.dtype)
        down = s * _vector([C(k) / A(k) for k in range(n)], s.dtype)
        zero = _xp.zeros((1,), dtype=s.dtype)
        out = _xp.concat([zero, up]) + _xp.concat([same, zero])
        return out + _xp.concat([down[1:], zero, zero]) if n > 1 else out

    def _times_basis(s, count):
        """[P_0 * s, P_1 * s, ..., P_{count-1} * s], each padded to one length."""
        terms = [s]
        for k in range(count - 1):
            nxt = mulx(terms[-1]) * A(k) + _pad(terms[-1], terms[-1].shape[0] + 1) * B(k)
            if k > 0:
                nxt = nxt - _pad(terms[-2], nxt.shape[0]) * C(k)
            terms.append(nxt)
        n = terms[-1].shape[0]
        return [_pad(t, n) for t in terms]

    def product(a, b):
        """sum_k a_k P_k * b, untrimmed (length len(a) + len(b) - 1)."""
        terms = _times_basis(b, a.shape[0])
        return _xp.sum(_xp.stack(terms) * _reshape(a, (-1, 1)), axis=0)

    def mul(c1, c2):
        a, b = D.promote_all([_series(c1, "mul", fam), _series(c2, "mul", fam)], f"{p}mul")
        return _power.trimseq(product(a, b))

    def div(c1, c2):
        a, b = D.promote_all([_series(c1, "div", fam), _series(c2, "div", fam)], f"{p}div")
        if not bool(b[-1] != 0):
            raise ZeroDivisionError(f"nabla.numpy.polynomial.{p}div: division by a zero series")
        la, lb = a.shape[0], b.shape[0]
        if la < lb:
            return a[:1] * 0, a
        if lb == 1:
            return a / b[-1], a[:1] * 0
        terms = _times_basis(b, la - lb + 1)  # P_i * c2, length la
        rem, quo = a, [None] * (la - lb + 1)
        for i in range(la - lb, -1, -1):
            t = terms[i][:rem.shape[0]]
            q = rem[-1] / t[-1]
            rem = rem[:-1] - q * t[:-1]
            quo[i] = _reshape(q, (1,))
        return _xp.concat(quo), _power.trimseq(rem)

    def pow_(c, pow, maxpower=16):  # noqa: A002 (NumPy's name)
        s = _series(c, "pow", fam)
        if int(pow) != pow or pow < 0:
            raise ValueError(f"nabla.numpy.polynomial.{p}pow: power must be a non-negative integer")
        if maxpower is not None and pow > maxpower:
            raise ValueError(f"nabla.numpy.polynomial.{p}pow: power is too large")
        out = _xp.ones((1,), dtype=s.dtype)
        for _ in range(int(pow)):
            out = product(out, s)
        return _power.trimseq(out)

    def val(x, c, tensor=True):
        s = _coef(c, "val", fam)
        if is_series(x):
            return clenshaw(fam, s, x)
        xv = D.asarray(x, op=f"{p}val")
        if tensor and s.ndim > 1:
            s = _reshape(s, s.shape + (1,) * xv.ndim)
        return clenshaw(fam, s, xv)

    def der(c, m=1, scl=1, axis=0):
        s = _xp.moveaxis(_coef(c, "der", fam), axis, 0)
        if int(m) != m or m < 0:
            raise ValueError(f"nabla.numpy.polynomial.{p}der: the order of derivation must be a non-negative integer")
        for _ in range(int(m)):
            n = s.shape[0]
            if n <= 1:
                s = s[:1] * 0
                break
            s = _apply(fam.der(*_grid(n - 1, n)), s) * scl
        return _xp.moveaxis(s, 0, axis)

    def integ(c, m=1, k=(), lbnd=0, scl=1, axis=0):
        s = _xp.moveaxis(_coef(c, "int", fam), axis, 0)
        if int(m) != m or m < 0:
            raise ValueError(f"nabla.numpy.polynomial.{p}int: the order of integration must be a non-negative integer")
        ks = list(_np.atleast_1d(k)) if _np.ndim(k) else ([] if k == () else [k])
        if len(ks) > m:
            raise ValueError(f"nabla.numpy.polynomial.{p}int: too many integration constants")
        ks += [0] * (int(m) - len(ks))
        for j in range(int(m)):
            s = s * scl
            n = s.shape[0]
            if n == 1 and s.ndim == 1 and not bool(s[0] != 0):  # NumPy: a zero constant integrates to k
                s = s + ks[j]
                continue
            t = _apply(fam.integral(*_grid(n + 1, n)), s)
            shift = ks[j] - val(lbnd, t, tensor=False)
            t = _xp.concat([_reshape(t[0] + shift, (1,) + t.shape[1:]), t[1:]])
            s = t
        return _xp.moveaxis(s, 0, axis)

    def vander(x, deg):
        deg = int(deg)
        if deg < 0:
            raise ValueError(f"nabla.numpy.polynomial.{p}vander: deg must be non-negative")
        xv = D.asarray(x, op=f"{p}vander")
        xv = xv if xv.dtype.is_complex or xv.dtype == _dt.float64 else _xp.astype(xv, _dt.float64)
        cols = [_xp.ones_like(xv)]
        if deg > 0:
            cols.append(xv * A(0) + B(0))
        for k in range(1, deg):
            cols.append((xv * A(k) + B(k)) * cols[k] - cols[k - 1] * C(k))
        return _xp.stack(cols, axis=-1)

    def fit(x, y, deg, rcond=None, full=False, w=None):
        xv = _xp.astype(D.asarray(x, op=f"{p}fit"), _dt.float64)
        degs = _np.atleast_1d(_np.asarray(deg))
        if degs.ndim != 1 or degs.dtype.kind not in "iu" or degs.size == 0 or degs.min() < 0:
            raise TypeError(f"nabla.numpy.polynomial.{p}fit: deg must be a non-negative int or a 1-D list of them")
        top = int(degs.max())
        lhs = vander(xv, top)
        listed = sorted(int(d) for d in degs)
        if _np.ndim(deg):
            lhs = _xp.take(lhs, _xp.asarray(listed), axis=1)
        out = least_squares(lhs, y, xv, rcond, w, f"{p}fit")[:4]
        coef = out[0]
        if _np.ndim(deg):  # the listed degrees' coefficients in place, zeros elsewhere
            rows = _reshape(_xp.asarray(listed), (-1, 1))
            pick = _xp.astype(_reshape(_xp.arange(top + 1), (1, -1)) == rows, coef.dtype)
            coef = _xp.matrix_transpose(pick) @ coef if coef.ndim > 1 else _reshape(
                _xp.matrix_transpose(pick) @ _reshape(coef, (-1, 1)), (-1,))
        return (coef, list(out[1:])) if full else coef

    def companion(c):
        """NumPy's scaled comrade matrix: with x P_k = a_k P_{k+1} + b_k P_k + g_k P_{k-1}, the
        tridiagonal part made symmetric (off-diagonals sign(g) sqrt(a_k g_{k+1})) by the diagonal
        similarity S, S_{k+1} / S_k = sqrt(a_k / g_{k+1}); P_n is eliminated through
        sum c_k P_k = 0 in the last column. Its eigenvalues are the series' roots."""
        s = _series(c, "companion", fam)
        n = s.shape[0] - 1
        if n < 1:
            raise ValueError(f"nabla.numpy.polynomial.{p}companion: series must have maximum degree of at least 1")
        a = [1.0 / A(k) for k in range(n)]
        g = [C(k) / A(k) for k in range(n + 1)]
        off = [math.copysign(math.sqrt(a[k] * g[k + 1]), g[k + 1]) for k in range(n - 1)]
        ratio = [1.0] * n  # S_{n-1} / S_j
        for j in range(n - 2, -1, -1):
            ratio[j] = ratio[j + 1] * math.sqrt(a[j] / g[j + 1])
        i, j = _grid(n, n)
        diag = _reshape(_vector([-B(k) / A(k) for k in range(n)], s.dtype), (-1, 1))
        upper = _reshape(_vector(off + [0.0], s.dtype), (-1, 1))
        lower = _reshape(_vector(off + [0.0], s.dtype), (1, -1))
        m = _xp.where(i == j, diag, _xp.where(j == i + 1, upper, _xp.where(i == j + 1, lower, 0.0)))
        last = _reshape(-s[:-1] / s[-1] * a[n - 1] * _vector(ratio, s.dtype), (-1, 1))
        return m + _xp.where(j == n - 1, last, 0.0)

    def roots(c):
        s = _series(c, "roots", fam)
        if s.shape[0] < 2:
            return _xp.zeros((0,), dtype=_dt.complex128)
        r = _xp.linalg.eigvals(companion(s))
        r = _xp.take(r, _xp.argsort(_xp.imag(r), stable=True))
        return _xp.take(r, _xp.argsort(_xp.real(r), stable=True))

    def line(off, scl):
        """off + scl x = (off - scl B_0 / A_0) P_0 + (scl / A_0) P_1; integral factors stay integers,
        so integer arguments give NumPy's integer series."""
        def exact(r):
            return int(r) if float(r).is_integer() else r

        if scl == 0:
            return D.asarray([off], op=f"{p}line")
        return D.asarray([off - scl * exact(B(0) / A(0)), scl * exact(1 / A(0))], op=f"{p}line")

    def fromroots(rs):
        r = D.asarray(rs, op=f"{p}fromroots")
        if r.ndim != 1:
            raise ValueError(f"nabla.numpy.polynomial.{p}fromroots: roots must be 1-D")
        if r.shape[0] == 0:
            return _xp.ones((1,), dtype=_dt.float64)
        r = r if r.dtype.is_complex or r.dtype == _dt.float64 else _xp.astype(r, _dt.float64)
        factors = [_xp.stack([-r[k] - B(0) / A(0), _xp.ones_like(r[k]) / A(0)]) for k in range(r.shape[0])]
        while len(factors) > 1:  # a product tree, as NumPy's, keeps the rounding balanced
            factors = [product(factors[k], factors[k + 1]) if k + 1 < len(factors) else factors[k]
                       for k in range(0, len(factors), 2)]
        return factors[0]

    def to_power(c):
        """sum c_k P_k as a power series: Clenshaw's recurrence run on power series."""
        s = _power.as_series(c, f"{p}2poly")
        b1 = b2 = None
        for k in range(s.shape[0] - 1, -1, -1):
            b0 = _reshape(s[k], (1,))
            if b1 is not None:  # (A_k x + B_k) b1: x shifts a power series up by one
                n = b1.shape[0] + 1
                b0 = _pad(b0, n) + _xp.concat([_xp.zeros((1,), dtype=s.dtype), b1]) * A(k) + _pad(b1, n) * B(k)
            if b2 is not None:
                b0 = b0 - _pad(b2, b0.shape[0]) * C(k + 1)
            b1, b2 = b0, b1
        return _power.trimseq(b1)

    def from_power(pol):
        """A power series in this basis, by Horner's rule with ``mulx``."""
        s = _power.as_series(pol, f"poly2{p}")
        out = _reshape(s[-1], (1,))
        for k in range(s.shape[0] - 2, -1, -1):
            m = mulx(out)
            out = _xp.concat([_reshape(m[0] + s[k], (1,)), m[1:]])
        return _power.trimseq(out)

    def gauss(deg):
        """Golub-Welsch: the nodes are the eigenvalues of the symmetric Jacobi matrix of the
        orthonormal recurrence, the weights mu0 times the squared first components of its
        eigenvectors. Chebyshev's are closed-form (and, as NumPy's, in descending order)."""
        deg = int(deg)
        if deg <= 0:
            raise ValueError(f"nabla.numpy.polynomial.{p}gauss: deg must be a positive integer")
        if p == "cheb":
            nodes = _xp.cos(_xp.arange(1, 2 * deg, 2, dtype=_dt.float64) * (math.pi / (2 * deg)))
            return nodes, _xp.full((deg,), math.pi / deg, dtype=_dt.float64)
        off = [math.sqrt(C(k + 1) / (A(k) * A(k + 1))) for k in range(deg - 1)]
        i, j = _grid(deg, deg)
        d = _reshape(_vector([-B(k) / A(k) for k in range(deg)], _dt.float64), (-1, 1))
        e = _reshape(_vector(off + [0.0], _dt.float64), (-1, 1))
        e_t = _reshape(_vector(off + [0.0], _dt.float64), (1, -1))
        jac = _xp.where(i == j, d, _xp.where(j == i + 1, e, _xp.where(i == j + 1, e_t, 0.0)))
        nodes, vectors = _xp.linalg.eigh(jac)
        return nodes, fam.mu0 * vectors[0] ** 2

    def trim(c, tol=0):
        return _power.trimcoef(c, tol)

    def make_val_nd(k_dims, grid):
        def fn(*args):
            *points, c = args
            out = c
            if grid:
                for pt in points:
                    out = val(pt, out)
                return out
            pts = [D.asarray(pt, op=f"{p}val{k_dims}d") for pt in points]
            if len({tuple(t.shape) for t in pts}) > 1:
                raise ValueError(f"nabla.numpy.polynomial.{p}val{k_dims}d: x, y{', z' if k_dims == 3 else ''} "
                                 f"are incompatible (shapes {[tuple(t.shape) for t in pts]})")
            out = val(pts[0], out)
            for pt in pts[1:]:
                out = val(pt, out, tensor=False)
            return out
        return fn

    def make_vander_nd(k_dims):
        def fn(*args):
            *points, degs = args
            if len(points) != k_dims or len(degs) != k_dims:
                raise ValueError(f"nabla.numpy.polynomial.{p}vander{k_dims}d: expected {k_dims} point arrays and "
                                 f"{k_dims} degrees")
            pts = [D.asarray(pt, op=f"{p}vander{k_dims}d") for pt in points]
            if len({tuple(t.shape) for t in pts}) > 1:
                raise ValueError(f"nabla.numpy.polynomial.{p}vander{k_dims}d: the point arrays differ in shape "
                                 f"({[tuple(t.shape) for t in pts]})")
            out = None
            for pt, deg in zip(pts, degs):  # an outer product over the last axis, first degree slowest
                v = vander(pt, deg)
                if out is None:
                    out = v
                else:
                    prod = _reshape(out, out.shape + (1,)) * _reshape(v, v.shape[:-1] + (1, v.shape[-1]))
                    out = _reshape(prod, prod.shape[:-2] + (prod.shape[-2] * prod.shape[-1],))
            return out
        return fn

    table = {
        "add": lambda c1, c2: _power.polyadd(c1, c2), "sub": lambda c1, c2: _power.polysub(c1, c2),
        "mulx": mulx, "mul": mul, "div": div, "pow": pow_, "val": val, "der": der, "int": integ, "vander": vander,
        "fit": fit, "companion": companion, "roots": roots, "line": line, "fromroots": fromroots, "gauss": gauss,
        "trim": trim, "weight": lambda x: fam.weight(_coef(x, "weight", fam)), "val2d": make_val_nd(2, False), "val3d": make_val_nd(3, False),
        "grid2d": make_val_nd(2, True), "grid3d": make_val_nd(3, True),
        "vander2d": make_vander_nd(2), "vander3d": make_vander_nd(3),
    }
    out = {p + name: f for name, f in table.items()}
    out[f"{p}2poly"], out[f"poly2{p}"] = to_power, from_power
    if p == "cheb":
        out.update(_chebyshev_points(vander))
    out[f"{p}domain"] = _np.array(fam.domain)
    out[f"{p}zero"], out[f"{p}one"] = _np.array([0]), _np.array([1])
    out[f"{p}x"] = _np.array([-B(0) / A(0), 1.0 / A(0)]) if fam.prefix == "lag" else _np.array(
        [0, 1] if A(0) == 1 else [0, 1.0 / A(0)])
    return out


def _chebyshev_points(vander) -> dict:
    """Chebyshev points of the first and second kind, and interpolation at the former (the
    discrete orthogonality of T_k at them: c = V^T f scaled, no solve)."""

    def chebpts1(npts):
        n = int(npts)
        if n != npts or n < 1:
            raise ValueError("nabla.numpy.polynomial.chebpts1: npts must be a positive integer")
        return _xp.sin(_xp.arange(-n + 1, n + 1, 2, dtype=_dt.float64) * (0.5 * math.pi / n))

    def chebpts2(npts):
        n = int(npts)
        if n != npts or n < 2:
            raise ValueError("nabla.numpy.polynomial.chebpts2: npts must be an integer >= 2")
        return _xp.cos(_xp.linspace(-math.pi, 0.0, n, dtype=_dt.float64))

    def chebinterpolate(func, deg, args=()):
        deg = int(deg)
        if deg < 0:
            raise ValueError("nabla.numpy.polynomial.chebinterpolate: deg must be a non-negative integer")
        order = deg + 1
        x = chebpts1(order)
        c = _xp.matrix_transpose(vander(x, deg)) @ D.asarray(func(x, *args), op="chebinterpolate")
        scale = _xp.concat([_xp.full((1,), 1.0 / order, dtype=_dt.float64),
                            _xp.full((deg,), 2.0 / order, dtype=_dt.float64)])
        return c * (scale if c.ndim == 1 else _reshape(scale, (-1, 1)))

    return {"chebpts1": chebpts1, "chebpts2": chebpts2, "chebinterpolate": chebinterpolate}
