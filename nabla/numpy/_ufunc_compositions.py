"""Ufuncs composed of several Nabla ops, for the ufunc table: the parts of a float (``modf``,
``frexp``, ``ldexp``, ``spacing``) and integer number theory (``gcd``, ``lcm``, ``bitwise_count``).

Exponents are found and applied by arithmetic rather than through bit views (one path for every float
width, subnormals included): scaling by powers of two is exact, done in a fixed number of ``where``
steps bounded by the float's exponent range. Euclid's algorithm runs a fixed number of ``where`` steps
bounded by the integer's bit width (Lamé's bound), so everything stays lazy and the graph's size depends
on dtypes only.
"""

from __future__ import annotations

import numpy as _np

from .. import array_api as _xp
from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops.elementwise import BINARY_FUNCTIONS as _B, UNARY_FUNCTIONS as _U, astype as _astype, where as _where


def _tensor(v, like: Tensor) -> Tensor:
    """A weak Python scalar operand as a tensor of ``like``'s dtype (the loop's dtype)."""
    return v if isinstance(v, Tensor) else _xp.full((), v, dtype=like.dtype)


def _const(value, dtype) -> Tensor:
    return _xp.full((), value, dtype=dtype)


# --- the parts of a float -----------------------------------------------------------------------------

def _ldexp(x, e):
    """``x * 2**e`` as products by exact powers of two: whole chunks of ``2**chunk`` first, then the
    remainder's bits. Every factor lies on one side of 1, so no intermediate overflows or underflows
    unless the result does. float16 is done in float32 and rounded once, as NumPy's float16 loop
    does (``ldexpf`` of the widened value)."""
    if x.dtype is _dt.float16:
        return _astype(_ldexp(_astype(x, _dt.float32), e), _dt.float16)
    e = _tensor(e, _xp.full((), 0, dtype=_dt.int64))
    info = _np.finfo(x.dtype.numpy_dtype)
    maxexp, minexp, nmant = int(info.maxexp), int(info.minexp), int(info.nmant)
    limit = maxexp - minexp + nmant + 2  # past this the result is 0 or inf for any finite x
    chunk_bits = maxexp.bit_length() - 2  # 2**chunk and its reciprocal are finite
    chunk = 1 << chunk_bits
    e = _xp.clip(_astype(e, _dt.int64), -limit, limit)
    negative = e < 0
    mag = _U["abs"](e)
    q, r = mag // chunk, mag % chunk
    y = _xp.broadcast_to(x, _xp.broadcast_shapes(x.shape, e.shape))  # (adding zeros would lose -0.0)

    def factor(bits):
        return _where(negative, _const(2.0 ** -(1 << bits), x.dtype), _const(2.0 ** (1 << bits), x.dtype))

    big = factor(chunk_bits)
    for j in range(-(-limit // chunk)):
        y = _where(q > j, y * big, y)
    for i in range(chunk_bits):
        y = _where((r // (1 << i)) % 2 != 0, y * factor(i), y)
    return y


def _frexp(x):
    """Mantissa in [0.5, 1) and exponent: the exponent from ``log2``, then one correction each way
    (``log2`` may round across a power of two). float16 is done in float32, as NumPy's float16 loop
    does (every float16 is a float32, and so is its mantissa)."""
    if x.dtype is _dt.float16:
        m, e = _frexp(_astype(x, _dt.float32))
        return _astype(m, _dt.float16), e
    ax = _U["abs"](x)
    ok = _B["logical_and"](_U["isfinite"](x), ax != 0)
    guess = _U["floor"](_U["log2"](_where(ok, ax, _xp.ones_like(ax)))) + 1
    e = _astype(_where(ok, guess, _xp.zeros_like(guess)), _dt.int32)
    m = _ldexp(x, -e)
    over = _B["logical_and"](_U["abs"](m) >= 1, ok)
    m, e = _where(over, m * 0.5, m), _where(over, e + 1, e)
    under = _B["logical_and"](_U["abs"](m) < 0.5, ok)
    m, e = _where(under, m * 2.0, m), _where(under, e - 1, e)
    return _where(ok, m, x), e


def _modf(x):
    whole = _U["trunc"](x)
    frac = _where(_U["isinf"](x), _xp.zeros_like(x), x - whole)
    return _B["copysign"](frac, x), whole  # the fraction keeps x's sign: modf(-3.0) is (-0.0, -3.0)


def _spacing(x):
    if x.dtype == _dt.float16:  # NumPy's half spacing: positive, below |x| for negative x
        ax = _U["abs"](x)
        up = _B["nextafter"](x, _xp.full_like(x, _np.inf)) - x
        down = _where(ax == 0, _B["nextafter"](ax, _xp.full_like(x, 1.0)), ax - _B["nextafter"](ax, _xp.zeros_like(x)))
        return _where(_U["isinf"](x), x - x, _where(_U["signbit"](x), down, up))
    # toward the infinity of x's side, -0.0 counting as positive (NumPy tests x < 0, not the sign bit)
    inf = _where(x < 0, _xp.full_like(x, -_np.inf), _xp.full_like(x, _np.inf))
    return _B["nextafter"](x, inf) - x


# --- integers -----------------------------------------------------------------------------------------

def _euclid_steps(dtype) -> int:
    """Most division steps Euclid's algorithm takes on magnitudes the dtype holds (Lamé: n steps need
    a divisor of at least F(n + 1)), plus one for a first step that swaps the operands."""
    top = 2 ** (_np.iinfo(dtype.numpy_dtype).bits - (0 if dtype.numpy_dtype.kind == "u" else 1))
    a, b, n = 1, 1, 1  # F(n + 1), F(n + 2)
    while b <= top:
        a, b, n = b, a + b, n + 1
    return n + 1


def _magnitudes(x, y):
    """``|x|`` and ``|y|``, broadcast, as the unsigned integers of their width: the magnitude of a
    signed minimum (``abs`` wraps it back to itself) is held exactly there."""
    x = _tensor(x, y) if not isinstance(x, Tensor) else x
    y = _tensor(y, x)
    a, b = _xp.broadcast_arrays(_U["abs"](x), _U["abs"](y))
    if a.dtype.numpy_dtype.kind == "i":
        unsigned = _dt.from_name(f"uint{8 * a.dtype.numpy_dtype.itemsize}")
        a, b = _astype(a, unsigned), _astype(b, unsigned)
    return a, b, x.dtype


def _gcd(x, y):
    """Euclid's algorithm on the magnitudes; the result wraps into the signed dtype as NumPy's does
    (``gcd(-128, 0)`` is -128 in int8)."""
    a, b, dtype = _magnitudes(x, y)
    one, zero = _xp.ones_like(b), _xp.zeros_like(b)
    for step in range(_euclid_steps(a.dtype)):
        live = b != 0
        a, b = _where(live, b, a), _where(live, a % _where(live, b, one), zero)
        if step % 8 == 7 and _settled(b):
            break
    return _astype(a, dtype)


def _settled(b: Tensor) -> bool:
    """Whether every remainder is 0 already, where ``b`` is realized host data (small arrays: their ops
    ran at once, so the test is a read of memory; most pairs settle in a few steps of the worst
    case's 92): False for pending work, which keeps the whole of Euclid's steps (no read inside it)."""
    impl = b._impl
    if not impl.is_realized or impl.traced or impl.batch_dims or impl.tangents is not None or impl.sharding is not None:
        return False
    settled = _B["equal"](b, _xp.zeros_like(b))
    return settled._impl.is_realized and bool(_xp.all(settled))


def _lcm(x, y):
    a, b, dtype = _magnitudes(x, y)
    g = _gcd(a, b)
    zero = g == 0
    return _astype(_where(zero, _xp.zeros_like(g), a // _where(zero, _xp.ones_like(g), g) * b), dtype)


def _bitwise_count(x):
    """Set bits of ``|x|`` (NumPy counts the magnitude's bits for signed integers), one bit per step."""
    a = _U["abs"](x)
    bits = _np.iinfo(x.dtype.numpy_dtype).bits
    count = _xp.zeros(a.shape, dtype=_dt.uint8)
    for i in range(bits):
        count = count + _astype(_B["bitwise_and"](_B["bitwise_right_shift"](a, i), 1), _dt.uint8)
    return count


COMPOSED = {"ldexp": _ldexp, "frexp": _frexp, "modf": _modf, "spacing": _spacing, "gcd": _gcd, "lcm": _lcm,
            "bitwise_count": _bitwise_count}
