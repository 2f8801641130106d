"""``np.emath`` (NumPy's ``numpy.lib.scimath``): functions whose result is complex where a real input lies
outside the real domain (``sqrt(-1)`` is ``1j``, ``log(-1)`` is ``pi*1j``, ``arcsin(2)`` is complex).

As in NumPy, the choice is made once per call on the whole input: if any real element is out of the
domain, the input is cast to complex first (complex64 for float32, float16 and small integers, else
complex128). The test is computed on MAX and its one boolean read back on the host, so these functions
realize their input (they cannot run inside ``nabla.compile`` or ``vmap``); the math runs on MAX.
"""

from __future__ import annotations

from .. import array_api as _xp
from ..core import dtypes as _dt
from ..ops.elementwise import astype as _astype
from . import _dtypes as D
from ._ufunc_table import UFUNCS as _U

#: NumPy's ``_tocomplex``: these become complex64, everything else complex128
_SINGLE = frozenset({"float16", "float32", "int8", "int16", "uint8", "uint16", "complex64"})


def _any(mask) -> bool:
    return bool(_xp.any(mask))


def _tocomplex(x):
    if x.dtype.is_complex:
        return x
    return _astype(x, _dt.complex64 if x.dtype.name in _SINGLE else _dt.complex128)


def _fix_real_lt_zero(x, op):
    x = D.asarray(x, op=f"emath.{op}")
    if not x.dtype.is_complex and not x.dtype.is_bool and _any(x < 0):
        return _tocomplex(x)
    return x


def _fix_int_lt_zero(x, op):
    x = D.asarray(x, op=f"emath.{op}")
    if x.dtype.is_integer and _any(x < 0):
        return _astype(x, _dt.float64)
    return x


def _fix_real_abs_gt_1(x, op):
    x = D.asarray(x, op=f"emath.{op}")
    if not x.dtype.is_complex and not x.dtype.is_bool and _any(_U["absolute"](x) > 1):
        return _tocomplex(x)
    return x


def _on_domain(name, fix):
    def function(x):
        return _U[name](fix(x, name))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"NumPy's ``emath.{name}``: complex results where a real input is outside the real domain."
    return function


sqrt, log, log10, log2 = (_on_domain(name, _fix_real_lt_zero) for name in ("sqrt", "log", "log10", "log2"))
arccos, arcsin, arctanh = (_on_domain(name, _fix_real_abs_gt_1) for name in ("arccos", "arcsin", "arctanh"))


def logn(n, x):
    """The logarithm of ``x`` to the base ``n``."""
    return _U["divide"](log(x), log(n))


def power(x, p):
    return _U["power"](_fix_real_lt_zero(x, "power"), _fix_int_lt_zero(p, "power"))


__all__ = ["sqrt", "log", "log10", "log2", "logn", "power", "arccos", "arcsin", "arctanh"]
