# The fused evaluator's unary ops on float registers (see fused.mojo): one SIMD vector of values
# through the op an opcode names (``Op.EXP``). Booleans come out as 1 / 0; NaN is kept through
# functions whose std.math form, built for fast math, would lose it (fused_bits.mojo). The
# integer family's are in fused_int.mojo.
from std.math import log, sqrt, sin, cos, tanh, log1p, floor, ceil, trunc
from std.math import tan, asin, acos, atan, asinh, acosh, atanh, log10
from .fused_bits import _inf_bits, _is_inf, _is_nan, _keep_nan, _magnitude_bits, _nan, _sign_bit
from .fused_exp_log import _cosh, _exp, _expm1, _log2, _sinh
from .fused_int import _bool
from .opcodes import Op


@always_inline
def _unary[T: DType, w: Int](op: Int, x: SIMD[T, w]) -> SIMD[T, w] where T.is_floating_point():
    if op == Op.NEGATIVE:
        return -x
    elif op == Op.ABS:
        return abs(x)
    elif op == Op.SQUARE:
        return x * x
    elif op == Op.RECIPROCAL:
        return SIMD[T, w](1) / x
    elif op == Op.EXP:
        return _exp(x)
    elif op == Op.EXPM1:  # expm1
        return _expm1(x)
    elif op == Op.LOG:
        return _keep_nan(x, log(x))
    elif op == Op.LOG1P:
        return _keep_nan(x, log1p(x))
    elif op == Op.SQRT:
        return sqrt(x)
    elif op == Op.SIN:
        return _keep_nan(x, sin(x))
    elif op == Op.COS:
        return _keep_nan(x, cos(x))
    elif op == Op.TANH:
        # (std tanh of float32 is off by up to 4 ulps near 1 and reaches 1.0000002 at 9: float32's
        # in float64, rounded once; |tanh| <= 1, as NumPy's, whatever the rounding)
        var one = SIMD[T, w](1)
        var t: SIMD[T, w]
        comptime if T == DType.float32:
            t = tanh(x.cast[DType.float64]()).cast[T]()
        else:
            t = tanh(x)
        return _keep_nan(x, _is_inf(x).select(x.gt(0).select(one, -one), min(max(t, -one), one)))
    elif op == Op.FLOOR:
        return floor(x)
    elif op == Op.CEIL:
        return ceil(x)
    elif op == Op.TRUNC:
        return trunc(x)
    elif op == Op.SIGN:  # sign: -1, 0, 1, NaN for NaN
        return _keep_nan(x, _bool[T, w](x.gt(0)) - _bool[T, w](x.lt(0)))
    elif op == Op.ISNAN:
        return _bool[T, w](_is_nan(x))
    elif op == Op.ISINF:
        return _bool[T, w](_is_inf(x))
    elif op == Op.ISFINITE:  # isfinite
        return _bool[T, w](_magnitude_bits(x).lt(SIMD[DType.int64, w](_inf_bits[T]())))
    elif op == Op.LOGICAL_NOT:  # logical_not
        return _bool[T, w](x.eq(0))
    elif op == Op.ROUND:  # round: half to even, as NumPy's rint
        return x.__round__()
    elif op == Op.SIGNBIT:  # signbit: the sign bit, NaN's and -0.0's included
        return _bool[T, w](_sign_bit(x))
    elif op == Op.TAN:
        return _keep_nan(x, tan(x))
    elif op == Op.ASIN:
        return _keep_nan(x, abs(x).gt(1).select(_nan[T, w](), asin(x)))
    elif op == Op.ACOS:
        return _keep_nan(x, abs(x).gt(1).select(_nan[T, w](), acos(x)))
    elif op == Op.ATAN:
        return _keep_nan(x, atan(x))
    elif op == Op.SINH:
        return _keep_nan(x, _sinh(x))
    elif op == Op.COSH:
        return _keep_nan(x, _cosh(x))
    elif op == Op.ASINH:
        return _keep_nan(x, asinh(x))
    elif op == Op.ACOSH:
        return _keep_nan(x, x.lt(1).select(_nan[T, w](), acosh(x)))
    elif op == Op.ATANH:
        return _keep_nan(x, abs(x).gt(1).select(_nan[T, w](), atanh(x)))
    elif op == Op.LOG2:
        return _keep_nan(x, _log2(x))
    elif op == Op.LOG10:
        return _keep_nan(x, log10(x))
    return x  # Op.POSITIVE: identity (positive, casts between bool and this dtype, reshapes)
