# The fused evaluator's binary ops on float registers (see fused.mojo): two SIMD vectors of values
# through the op an opcode names (``Op.ADD``). Comparisons come out as 1 / 0 and are false on NaN
# (not equal: true), as IEEE's; maxima and minima propagate NaN, as NumPy's; floor division and
# remainder are exact (fused_division.mojo). The integer family's are in fused_int.mojo.
from std.math import atan2, log1p, sqrt
from std.memory import bitcast
from .fused_bits import _infinity, _is_inf, _is_nan, _keep_nan
from .fused_division import _floor_divide, _remainder
from .fused_exp_log import _exp, _pow
from .fused_int import _binary_int, _bool
from .opcodes import Op


@always_inline
def _nextafter[T: DType, w: Int](x: SIMD[T, w], y: SIMD[T, w], up: SIMD[T, w], down: SIMD[T, w],
                                 tiny: SIMD[T, w]) -> SIMD[T, w]:
    """C99's nextafter from x's neighbours in its bits (``up``: one more unit of its magnitude,
    ``down``: one less) and the smallest subnormal of y's sign (``tiny``): a step away from zero
    where y lies beyond x on x's side of it, toward zero otherwise; from zero, ``tiny``; x where y
    equals it (y's sign of zero); NaN where either is. The largest finite value steps to infinity,
    an infinity toward y to the largest finite value, as the bits run."""
    var away = ~(y.gt(x) ^ x.gt(SIMD[T, w](0)))
    var out = away.select(up, down)
    out = x.eq(SIMD[T, w](0)).select(tiny, out)
    out = x.eq(y).select(y, out)
    return (_is_nan(x) | _is_nan(y)).select(x + y, out)


@always_inline
def _binary[T: DType, w: Int](op: Int, x: SIMD[T, w], y: SIMD[T, w]) -> SIMD[T, w]:
    var unordered = _is_nan(x) | _is_nan(y)
    if op == Op.ADD:
        return x + y
    elif op == Op.SUBTRACT:
        return x - y
    elif op == Op.MULTIPLY:
        return x * y
    elif op == Op.DIVIDE:
        return x / y
    elif op == Op.MAXIMUM:  # maximum and minimum propagate NaN, as NumPy's do
        return _is_nan(y).select(y, _keep_nan(x, x.ge(y).select(x, y)))  # ties: x, as NumPy
    elif op == Op.MINIMUM:
        return _is_nan(y).select(y, _keep_nan(x, x.le(y).select(x, y)))
    elif op == Op.EQUAL:
        return _bool[T, w](x.eq(y) & ~unordered)
    elif op == Op.NOT_EQUAL:
        return _bool[T, w](x.ne(y) | unordered)
    elif op == Op.GREATER:
        return _bool[T, w](x.gt(y) & ~unordered)
    elif op == Op.GREATER_EQUAL:
        return _bool[T, w](x.ge(y) & ~unordered)
    elif op == Op.LESS:
        return _bool[T, w](x.lt(y) & ~unordered)
    elif op == Op.LESS_EQUAL:
        return _bool[T, w](x.le(y) & ~unordered)
    elif op == Op.LOGICAL_AND:
        return _bool[T, w](x.ne(0) & y.ne(0))
    elif op == Op.LOGICAL_OR:
        return _bool[T, w](x.ne(0) | y.ne(0))
    elif op == Op.FLOOR_DIVIDE:  # Python's float //, exact (an index's arithmetic too: integral values)
        comptime if T.is_floating_point():
            return _floor_divide(x, y)
        return _binary_int[w](op, x.cast[DType.int64](), y.cast[DType.int64]()).cast[T]()
    elif op == Op.REMAINDER:  # Python's float %, exact
        comptime if T.is_floating_point():
            return _remainder(x, y)
        return _binary_int[w](op, x.cast[DType.int64](), y.cast[DType.int64]()).cast[T]()
    elif op == Op.POW:
        return _pow(x, y)
    elif op == Op.ATAN2:  # atan2 (the float family's only): C99's quadrants, signed zeros and infinities
        comptime if T.is_floating_point():
            return atan2(x, y)
        return x
    elif op == Op.LOGADDEXP:  # logaddexp: log(e^x + e^y) without overflow; x + ln 2 where they are equal (infinities)
        comptime if T.is_floating_point():
            var big = x.gt(y).select(x, y)
            var d = abs(x - y)
            var out = big + log1p(_exp(-d))
            out = x.eq(y).select(x + SIMD[T, w](0.6931471805599453), out)
            return unordered.select(_is_nan(x).select(x, y), out)
        return x
    elif op == Op.COPYSIGN:  # copysign: |x| with y's sign bit (NaN's too)
        comptime if T == DType.float64:
            var m = SIMD[DType.int64, w](0x7FFFFFFFFFFFFFFF)
            return bitcast[T, w]((bitcast[DType.int64, w](x) & m) | (bitcast[DType.int64, w](y) & ~m))
        elif T == DType.float32:
            var m = SIMD[DType.int32, w](0x7FFFFFFF)
            return bitcast[T, w]((bitcast[DType.int32, w](x) & m) | (bitcast[DType.int32, w](y) & ~m))
        return x
    elif op == Op.NEXTAFTER:  # nextafter (the float family's only): C99's, x's bits stepped by one
        comptime if T == DType.float64:
            var bx = bitcast[DType.int64, w](x)
            var tiny = bitcast[T, w]((bitcast[DType.int64, w](y) & SIMD[DType.int64, w](-0x8000000000000000)) | 1)
            return _nextafter(x, y, bitcast[T, w](bx + 1), bitcast[T, w](bx - 1), tiny)
        elif T == DType.float32:
            var bx = bitcast[DType.int32, w](x)
            var tiny = bitcast[T, w]((bitcast[DType.int32, w](y) & SIMD[DType.int32, w](-0x80000000)) | 1)
            return _nextafter(x, y, bitcast[T, w](bx + 1), bitcast[T, w](bx - 1), tiny)
        return x
    elif op == Op.H_NEXTAFTER:  # nextafter of float16 data (exact in these registers): float16's bits stepped
        comptime if T.is_floating_point():
            var bh = bitcast[DType.int16, w](x.cast[DType.float16]())
            var up = bitcast[DType.float16, w](bh + 1).cast[T]()
            var down = bitcast[DType.float16, w](bh - 1).cast[T]()
            var tiny = y.lt(SIMD[T, w](0)).select(SIMD[T, w](-5.960464477539063e-08), SIMD[T, w](5.960464477539063e-08))
            # where x equals y, x (NumPy's half nextafter; C99's gives y, whose zero may be the other one)
            return x.eq(y).select(x, _nextafter(x, y, up, down, tiny))
        return x
    elif op == Op.HYPOT:  # hypot (the float family's only): complex_formulas.hypot's form, scaled by the larger
        comptime if T == DType.float32:
            # (in float64: each square exact and no overflow, the root rounded to float32 once more:
            # NumPy's hypotf, correctly rounded, to the bit but for rare double roundings)
            var x64 = x.cast[DType.float64]()
            var y64 = y.cast[DType.float64]()
            var wide = sqrt(x64 * x64 + y64 * y64).cast[T]()
            wide = (_is_nan(x) | _is_nan(y)).select(_is_nan(x).select(x, y), wide)
            return (_is_inf(x) | _is_inf(y)).select(_infinity[T, w](), wide)
        elif T.is_floating_point():
            var ax = abs(x)
            var ay = abs(y)
            var big = ax.gt(ay).select(ax, ay)
            var small = ax.gt(ay).select(ay, ax)
            var ratio = small / big.eq(0).select(SIMD[T, w](1), big)
            var out = big * sqrt(SIMD[T, w](1) + ratio * ratio)
            out = (_is_nan(x) | _is_nan(y)).select(_is_nan(x).select(x, y), out)
            return (_is_inf(x) | _is_inf(y)).select(_infinity[T, w](), out)
        return x
    return _bool[T, w](x.ne(0) ^ y.ne(0))  # Op.LOGICAL_XOR: logical_xor
