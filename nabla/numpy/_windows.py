"""NumPy's window functions (``hanning``, ``hamming``, ``blackman``, ``bartlett``, ``kaiser``) and the
modified Bessel function ``i0`` they need, on MAX in float64 as NumPy's."""

from __future__ import annotations

import math

import numpy as _np

from .. import array_api as _xp
from ..core import dtypes as _dt
from ..ops.elementwise import astype as _astype
from . import _dtypes as D
from ._arrays import arange

_F64 = _dt.float64

# Cephes' Chebyshev coefficients for exp(-x) I0(x) on [0, 8] and exp(-x) sqrt(x) I0(x) on (8, inf),
# as NumPy uses them
_I0A = (
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
    1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
    9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
    1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
    -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
    1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
    1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1,
)
_I0B = (
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
    3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
    2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1,
)


def _chbevl(x, coefs):
    b0, b1, b2 = coefs[0], 0.0, 0.0
    for c in coefs[1:]:
        b2, b1 = b1, b0
        b0 = x * b1 - b2 + c
    return 0.5 * (b0 - b2)


def i0(x):
    """Modified Bessel function of the first kind, order 0 (Cephes' expansions, as NumPy's)."""
    a = D.asarray(x, op="i0")
    if a.dtype.is_complex:
        raise TypeError("i0 not supported for complex values")
    if not a.dtype.is_floating:
        a = _astype(a, _F64)
    a = _xp.abs(a)
    small = a <= 8.0
    near = _xp.exp(a) * _chbevl(a / 2.0 - 2.0, _I0A)
    far_x = _xp.where(small, _xp.full_like(a, 9.0), a)  # keeps 32 / x finite where the branch is unused
    far = _xp.exp(a) * _chbevl(32.0 / far_x - 2.0, _I0B) / _xp.sqrt(far_x)
    return _xp.where(small, near, far)


def _window(M):
    """The points 1-M, 3-M, ..., M-1 (NumPy's), or the trivial windows for M < 2."""
    if M < 1:
        return None, _xp.zeros((0,), dtype=_F64)
    if M == 1:
        return None, _xp.ones((1,), dtype=_F64)
    return _astype(arange(1 - M, M, 2), _F64), None


def _cosines(M, coefs):
    n, trivial = _window(M)
    if trivial is not None:
        return trivial
    out = _xp.full_like(n, coefs[0])
    for k, c in enumerate(coefs[1:], start=1):
        out = out + c * _xp.cos(k * math.pi * n / (M - 1))
    return out


def hanning(M):
    return _cosines(M, (0.5, 0.5))


def hamming(M):
    return _cosines(M, (0.54, 0.46))


def blackman(M):
    return _cosines(M, (0.42, 0.5, 0.08))


def bartlett(M):
    n, trivial = _window(M)
    if trivial is not None:
        return trivial
    return _xp.where(n <= 0, 1 + n / (M - 1), 1 - n / (M - 1))


def kaiser(M, beta):
    if M < 1:
        return _xp.zeros((0,), dtype=_F64)
    if M == 1:
        return _xp.ones((1,), dtype=_F64)
    n = _astype(arange(0, M), _F64)
    alpha = (M - 1) / 2.0
    return i0(beta * _xp.sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / i0(_np.float64(beta))


__all__ = ["i0", "hanning", "hamming", "blackman", "bartlett", "kaiser"]
