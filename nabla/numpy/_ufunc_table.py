"""The face's ufuncs as a table: NumPy name -> Nabla elementwise function (compositions where Nabla has
no op of that name); NumPy's ufunc of the same name resolves the types."""

from __future__ import annotations

import functools
import math

import numpy as _np

from .. import array_api as _xp
from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops.elementwise import BINARY_FUNCTIONS as _B, BINARY_OPS, UNARY_FUNCTIONS as _U, UNARY_OPS
from ..ops.elementwise import BINARY_TABLE, UNARY_TABLE
from ..ops.elementwise import astype as _astype, where as _where
from ..ops import scans as _scans
from ..ops.elementwise_rows import CATEGORIES
from ._complex_order import extreme
from ._ufunc_compositions import COMPOSED as _COMPOSITIONS
from ._ufuncs import plain_binary, plain_unary, ufunc

_LN2 = math.log(2.0)


def _fmax(a, b):
    return _where(_U["isnan"](b), a, _where(_U["isnan"](a), b, _B["maximum"](a, b)))


def _fmin(a, b):
    return _where(_U["isnan"](b), a, _where(_U["isnan"](a), b, _B["minimum"](a, b)))


def _fmod(a, b):
    """C's fmod, the sign of the dividend, from the exact floor remainder (the sign of the divisor):
    where they differ the two are b apart, and r - b is exact (the result is representable)."""
    r = _B["remainder"](a, b)
    out = _where(_B["logical_and"](r != 0, (r < 0) != (a < 0)), r - b, r)
    if a.dtype.is_integer:
        return out
    out = _where(out == 0, _B["copysign"](_xp.zeros_like(out), a), out)
    # |a| < |b| (b = +-inf too): a itself, where a + b, the floor remainder, rounds
    return _where(_U["abs"](a) < _U["abs"](b), a, out)


def _heaviside(x, h0):
    # (h0 broadcast to x's shape by subtracting zeros: adding them would turn h0 = -0.0 into +0.0)
    step = _where(x < 0, _xp.zeros_like(x), _where(x > 0, _xp.ones_like(x), h0 - _xp.zeros_like(x)))
    return _where(_U["isnan"](x), x, step) if x.dtype.is_floating else step


def _floor_divide(a, b):
    """NumPy's: as the standard's, but x // +-inf with x finite, nonzero and of the other sign is -1.0
    (the standard's -0), as Python's float ``//``, and +-inf // y is NaN for y nonzero (the
    standard's +-inf)."""
    q = _B["floor_divide"](a, b)
    if not q.dtype.is_floating:
        return q
    # (the tests below on the operands as the float loop takes them: a bool one has no isfinite)
    # (a Python scalar straight to q's dtype: a weak int past int64, 2**63, is a float here as in NumPy)
    a, b = (x if not isinstance(x, Tensor) or not x.dtype.is_bool else _astype(x, q.dtype) for x in (a, b))
    a, b = (x if isinstance(x, Tensor) else _xp.asarray(x, dtype=q.dtype) for x in (a, b))
    other = _B["logical_and"](_B["logical_and"](_U["isfinite"](a), a != 0), _U["isinf"](b))
    q = _where(_B["logical_and"](other, (a < 0) != (b < 0)), _xp.full_like(q, -1.0), q)
    return _where(_B["logical_and"](_U["isinf"](a), b != 0), _xp.full_like(q, _np.nan), q)


def _logaddexp2(a, b):
    """log2(2^a + 2^b) as NumPy's: the larger plus log2(1 + 2^-|a - b|), a + 1 where a == b; float16
    computed in float32 and rounded once."""
    if a.dtype == _dt.float16:
        return _astype(_logaddexp2(_astype(a, _dt.float32), _astype(b, _dt.float32)), _dt.float16)
    big = _B["maximum"](a, b)
    d = _where(a == b, _xp.zeros_like(a), -_U["abs"](a - b))
    return big + _U["log1p"](_exp2(d)) * (1.0 / _LN2)


def _via_float32(fn):
    """``fn`` as NumPy's float16 loops run it: in float32, rounded once to float16 (float16 steps
    would round each product and land a step off)."""
    def f(x):
        if x.dtype == _dt.float16:
            return _astype(fn(_astype(x, _dt.float32)), _dt.float16)
        return fn(x)

    return f


@_via_float32
def _cbrt(x):
    a = _U["abs"](x)
    y = _B["pow"](a, 1.0 / 3.0)
    # one Newton step on y^3 = a: the power of an inexact 1/3 is off by ~|log a| ulp, the step
    # leaves about one; written as a ratio near 1 (y^3 - a underflows for tiny a, y^3 overflows near
    # the top); 0 and inf, where the step divides 0 or inf by itself, keep the power
    step = y + y * ((a / y) / (y * y) - 1.0) / 3.0
    return _B["copysign"](_where(_U["isfinite"](step), step, y), x)


@_via_float32
def _exp2(x):
    """2^k e^((x - k) ln 2), k = round(x): x - k is exact, so only a small product rounds (e^(x ln 2)
    whole is off by about |x| ulp); 2^k as two exact powers of two (2^1024 alone would overflow).
    Complex: e^(z ln 2), each part scaled, as NumPy's ``nc_exp2``."""
    if x.dtype.is_complex:
        return _U["exp"](x * _LN2)
    k = _U["round"](x)
    half = _U["floor"](k * 0.5)
    two = _xp.full_like(k, 2.0)
    out = _U["exp"]((x - k) * _LN2) * _B["pow"](two, half) * _B["pow"](two, k - half)
    return _where(_U["isinf"](x), _U["exp"](x), out)


@_via_float32
def _deg2rad(x):
    return x * (math.pi / 180.0)


@_via_float32
def _rad2deg(x):
    return x * (180.0 / math.pi)


def _truth(x):
    if not hasattr(x, "dtype"):
        return bool(x)
    return x if x.dtype.is_bool else _astype(x, _dt.bool_)  # NumPy's logical loops take any dtype


_COMPOSED = {
    "logical_not": lambda x: _U["logical_not"](_truth(x)),
    **{name: (lambda fn: lambda a, b: fn(_truth(a), _truth(b)))(_B[name])
       for name in ("logical_and", "logical_or", "logical_xor")},
    "exp2": _exp2,
    "cbrt": _cbrt,
    "deg2rad": _deg2rad, "radians": _deg2rad, "rad2deg": _rad2deg, "degrees": _rad2deg,
    "fmax": _fmax, "fmin": _fmin, "fmod": _fmod, "heaviside": _heaviside,
    "logaddexp2": _logaddexp2, "floor_divide": _floor_divide,
    "divmod": lambda a, b: (_floor_divide(a, b), _B["remainder"](a, b)),
    **_COMPOSITIONS,  # modf, frexp, ldexp, spacing, gcd, lcm, bitwise_count
}

#: compositions that are their row's op on the dtypes of its ``plain_on`` (``floor_divide``'s float
#: corners are composed, on integers it is the op; the logical ufuncs take any dtype as its truth,
#: on booleans they are the op)
_OP_WHERE_PLAIN = frozenset(("floor_divide", "logical_not", "logical_and", "logical_or", "logical_xor"))

_REDUCERS = {"add": _xp.sum, "multiply": _xp.prod, "maximum": functools.partial(extreme, "max"),
             "minimum": functools.partial(extreme, "min"),
             "logical_and": _xp.all, "logical_or": _xp.any}
def _real_only(scan):
    """``scan`` of real data, None for complex and bool data (the ufunc's own doubling, its order)."""
    return lambda x, axis: None if x.dtype.is_complex or x.dtype.is_bool else scan(x, axis)


_ACCUMULATORS = {"add": _xp.cumulative_sum, "multiply": _xp.cumulative_prod,
                 "maximum": _real_only(_scans.cumulative_max), "minimum": _real_only(_scans.cumulative_min)}


def _np_ufunc(name):
    return getattr(_np, {"bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
                         "bitwise_right_shift": "right_shift"}.get(name, name))


def _byte(v):
    return int(v) if isinstance(v, bool) else _astype(v, _dt.uint8)


def _as_bytes(fn):
    return lambda a, b: fn(_byte(a), _byte(b))  # False < True, as 0 < 1


#: NumPy's boolean loops, as ops on booleans: ``True + True`` is ``True`` (or), ``a * b`` and,
#: ``abs(b)`` and ``floor(b)`` the booleans themselves, ``a < b`` orders False before True, and no
#: boolean is NaN or infinite
_ON_BOOLS = {"add": _B["logical_or"], "maximum": _B["logical_or"], "fmax": _B["logical_or"],
             "multiply": _B["logical_and"], "minimum": _B["logical_and"], "fmin": _B["logical_and"],
             **{name: (lambda x: _xp.asarray(x, copy=True)) for name in ("absolute", "fabs", "ceil", "floor", "trunc")},
             **{name: _as_bytes(_B[name]) for name in ("less", "less_equal", "greater", "greater_equal")},
             "isnan": lambda x: _xp.zeros_like(x), "isinf": lambda x: _xp.zeros_like(x),
             "isfinite": lambda x: _xp.ones_like(x)}


def _with_bool_loop(fn, name):
    on_bools = _ON_BOOLS[name]

    def f(*args):
        if all(isinstance(a, bool) or getattr(a, "dtype", None) is _dt.bool_ for a in args) and \
                not all(isinstance(a, bool) for a in args):
            return on_bools(*args)
        return fn(*args)

    return f


#: what ``signed < 0`` compared with any unsigned value gives, per comparison (signed on the left)
_NEGATIVE_VS_UNSIGNED = {"less": True, "less_equal": True, "greater": False, "greater_equal": False,
                         "equal": False, "not_equal": True}
_MIRRORED = {"less": "greater", "less_equal": "greater_equal", "greater": "less", "greater_equal": "less_equal",
             "equal": "equal", "not_equal": "not_equal"}


def _with_mixed_signs(fn, name):
    """NumPy 2 compares int64 with uint64 exactly (its loops ``qQ->?`` and ``Qq->?``): a negative
    signed value is below every unsigned one; otherwise both compare as uint64."""
    def f(a, b):
        da, db = getattr(a, "dtype", None), getattr(b, "dtype", None)
        if da is _dt.int64 and db is _dt.uint64:
            cmp = _B[name](_astype(a, _dt.uint64), b)
            return _where(a < 0, _xp.full_like(cmp, _NEGATIVE_VS_UNSIGNED[name]), cmp)
        if da is _dt.uint64 and db is _dt.int64:
            cmp = _B[name](a, _astype(b, _dt.uint64))
            return _where(b < 0, _xp.full_like(cmp, _NEGATIVE_VS_UNSIGNED[_MIRRORED[name]]), cmp)
        return fn(a, b)

    return f


#: the dtypes a ufunc's fast path may take (float16 operands take the general path)
_PLAIN_DTYPES = (_dt.float32, _dt.float64, _dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16,
                 _dt.uint32, _dt.uint64, _dt.bool_)
_COMPLEX_DTYPES = (_dt.complex64, _dt.complex128)


def _plain_dtypes(row, op, np_ufunc) -> frozenset:
    """The dtypes on which ``np_ufunc`` is the op of ``row`` as it is: those of the row's ``plain_on``
    whose NumPy loop keeps them (``float_power`` computes float32 in float64), and the complex ones
    where the op takes them and NumPy's loop keeps them (the general path calls the same op on them)."""
    found = set()
    for d in _PLAIN_DTYPES + (_COMPLEX_DTYPES if op.supports_complex else ()):
        if not d.is_complex and not CATEGORIES[row.plain_on](d):
            continue
        operand = d.numpy_dtype
        try:
            resolved = np_ufunc.resolve_dtypes((operand,) * np_ufunc.nin + (None,))
        except TypeError:  # (no loop of NumPy's takes it)
            continue
        if resolved == (operand,) * np_ufunc.nin + (_np.dtype(bool) if row.out_bool else operand,):
            found.add(d)
    return frozenset(found)


def build() -> dict[str, ufunc]:
    """The face's ufuncs from the rows registered when it is called (the face calls it once, as it
    loads): each row's ``ufuncs`` its op's function, with the fast path its ``plain_on`` gives, and
    the compositions."""
    rows = {**{u: (row, UNARY_OPS[name], _U[name]) for name, row in UNARY_TABLE.items() for u in row.ufuncs},
            **{u: (row, BINARY_OPS[name], _B[name]) for name, row in BINARY_TABLE.items() for u in row.ufuncs}}
    fns = {**{u: fn for u, (_, _, fn) in rows.items()}, **_COMPOSED}
    fns = {k: _with_bool_loop(fn, k) if k in _ON_BOOLS else fn for k, fn in fns.items()}
    fns = {k: _with_mixed_signs(fn, k) if k in _NEGATIVE_VS_UNSIGNED else fn for k, fn in fns.items()}
    made = {name: ufunc(name, fn, _np_ufunc(name), reducer=_REDUCERS.get(name), accumulator=_ACCUMULATORS.get(name))
            for name, fn in fns.items()}
    for name, (row, op, _) in rows.items():
        if row.plain_on is not None and (name not in _COMPOSED or name in _OP_WHERE_PLAIN):
            dtypes = _plain_dtypes(row, op, made[name]._np)
            if dtypes:
                made[name]._plain = plain_unary(op, dtypes) if op.arity == 1 else \
                    plain_binary(op, dtypes, made[name]._np)
    return made


UFUNCS = build()
