"""MAX lowerings of floor division and the floor remainder: of floats exact for every quotient, as
Python's float ``//`` and ``%`` are; of integers NumPy's where the division would trap (a zero
divisor gives 0, ``MIN // -1`` wraps to MIN)."""

from __future__ import annotations

from max.dtype import DType
from ..core.lazy_module import graph_ops as ops

from .lowerings import (_any_nan, const, copysign_of_number, is_float, is_unsigned, isfinite, nan_like, select,
                        signbit_of_number)


def _safe_int_divisor(y):
    """Integer division traps on a zero divisor and on MIN // -1 (x86's idiv): a divisor 0, or -1 of a
    signed dtype, is replaced by 1; returns where it was 0, where -1, and the safe divisor."""
    zero = ops.equal(y, const(0, y))
    minus_one = ops.equal(y, const(-1, y)) if not is_unsigned(y) else None
    bad = zero if minus_one is None else ops.logical_or(zero, minus_one)
    return zero, minus_one, select(bad, const(1, y), y)


def floor_divide(x, y):
    if not is_float(x):  # NumPy: 0 for a zero divisor; x // -1 is -x, wrapped (MIN // -1 is MIN)
        by_zero, by_minus_one, safe = _safe_int_divisor(y)
        q = ops.floor_div(x, safe)
        if by_minus_one is not None:
            q = select(by_minus_one, ops.sub(const(0, x), x), q)
        return select(by_zero, const(0, x), q)
    # NumPy's npy_divmod: the quotient from the exact fmod, one less where the fmod and y differ in
    # sign, rounded to the nearest integer (the fused kernel's _floor_divide takes the same steps)
    zero = const(0, x)
    mod = _fmod(x, y)
    div = ops.div(ops.sub(x, mod), y)
    fix = ops.logical_and(ops.logical_not(ops.equal(mod, zero)),
                          ops.logical_xor(ops.greater(zero, y), ops.greater(zero, mod)))
    div = select(fix, ops.sub(div, const(1, x)), div)
    whole = ops.floor(div)
    whole = select(ops.greater(ops.sub(div, whole), const(0.5, x)), ops.add(whole, const(1, x)), whole)
    differ = ops.logical_xor(signbit_of_number(x), signbit_of_number(y))
    signed_zero = select(differ, const(-0.0, x), zero)
    q = select(ops.equal(div, zero), signed_zero, whole)
    # x / 0, and an infinite x: the standard's infinities; x finite, y infinite: 0 with the quotient's
    # sign (the standard's -0 where Python gives -1.0)
    q = select(ops.logical_or(ops.equal(y, zero), ops.is_inf(x)), ops.div(x, y), q)
    q = select(ops.logical_and(isfinite(x), ops.is_inf(y)), signed_zero, q)
    return select(_any_nan(x, y), nan_like(x), q)


# MAX's float64 mod is x - floor(x / y) y with one rounding: the exact residual while |x / y| < 2**34
# (its float32 mod drifts from 2**8), but one y below the remainder where x / y rounds up to an
# integer (mod(1, 0.001) is -2.1e-17, fmod's is 0.00099999999999997918): a negative residual takes y
# back, exactly (fmod's result is representable). Wider quotients are brought down 32 bits at a
# time by fmod with y * 2**(32 k), exact multiples of y, in float64 (a remainder of narrower floats
# is exact in their own dtype).
_FMOD_STEP_BITS = 32
_QUOTIENT_BITS = {DType.float64: 1024 + 1074, DType.float32: 128 + 149, DType.float16: 16 + 24,
                  DType.bfloat16: 128 + 133}


def _fmod_exact(x, y, quotient_dtype):
    """``fmod(x, y)`` of float64s exactly, for the quotients of ``quotient_dtype``; finite x and nonzero y
    (y = +-inf leaves x)."""
    step = const(2.0 ** _FMOD_STEP_BITS, y)
    divisors = [ops.abs(y)]
    for _ in range(_QUOTIENT_BITS[quotient_dtype] // _FMOD_STEP_BITS):
        divisors.append(ops.mul(divisors[-1], step))  # exact, or inf past the range
    r = ops.abs(x)
    for d in reversed(divisors):
        m = ops.mod(r, d)
        m = select(ops.greater(const(0, m), m), ops.add(m, d), m)
        r = select(ops.is_inf(d), r, m)  # MAX's mod(r, inf) is NaN, fmod's is r
    return copysign_of_number(r, x)


def _fmod64(x, y):
    """C's fmod (x's sign), exact, in float64 (the fmod of narrower floats can be subnormal where the
    modulo is not); returns it and y in float64."""
    dtype = x.dtype
    if dtype != DType.float64:
        x, y = ops.cast(x, DType.float64), ops.cast(y, DType.float64)
    return _fmod_exact(x, y, dtype), y


def _fmod(x, y):
    """C's fmod, exact, in x's dtype."""
    r, _ = _fmod64(x, y)
    return r if x.dtype == DType.float64 else ops.cast(r, x.dtype)


def _exact_fmod_then_mod(x, y):
    """Python's (floor) modulo, exact: the sign of y, from an exact fmod in float64."""
    r, y64 = _fmod64(x, y)
    fix = ops.logical_and(ops.logical_not(ops.equal(r, const(0, r))),
                          ops.logical_xor(signbit_of_number(r), signbit_of_number(y64)))
    r = select(fix, ops.add(r, y64), r)
    return r if x.dtype == DType.float64 else ops.cast(r, x.dtype)


def remainder(x, y):
    if not is_float(x):  # NumPy: 0 for a zero divisor, as x % -1 is: x % 1, the safe divisor's
        return ops.mod(x, _safe_int_divisor(y)[2])
    zero = const(0, x)
    r = _exact_fmod_then_mod(x, y)
    x_fin_y_inf = ops.logical_and(isfinite(x), ops.is_inf(y))
    differ = ops.logical_xor(signbit_of_number(x), signbit_of_number(y))
    # x finite, y infinite: x itself when signs agree (or x is zero), else y
    r = select(x_fin_y_inf, select(ops.logical_and(differ, ops.logical_not(ops.equal(x, zero))), y, x), r)
    # a zero remainder takes the divisor's sign
    r = select(ops.equal(r, zero), select(signbit_of_number(y), const(-0.0, x), zero), r)
    bad = ops.logical_or(ops.is_inf(x), ops.equal(y, zero))
    return select(ops.logical_or(bad, _any_nan(x, y)), nan_like(x), r)
