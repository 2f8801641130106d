# The fused evaluator's integer family (see fused.mojo): int64 registers, data and results held as
# bytes and read or written through dtype codes (0 bool, 1 int8, 2 int16, 3 int32, 4 int64, 5 uint8,
# 6 uint16, 7 uint32; 8 float32, 9 float64 for the coded float family); narrow results wrapped to their dtype as NumPy's integer arithmetic wraps.
from std.sys.info import simd_width_of
from .opcodes import Op, Code


@always_inline
def _bool[T: DType, w: Int](m: SIMD[DType.bool, w]) -> SIMD[T, w]:
    return m.select(SIMD[T, w](1), SIMD[T, w](0))


@always_inline
def _unary_bytes[w: Int](op: Int, x: SIMD[DType.uint8, w]) -> SIMD[DType.uint8, w]:
    """The byte family's unary ops (bools, 0 or 1, in registers of one byte: the ops whose row says
    ``Fused.bytes``); any other through int64, as the integer family computes it."""
    comptime B = DType.uint8
    if op == Op.LOGICAL_NOT:
        return _bool[B, w](x.eq(0))
    elif op == Op.POSITIVE:
        return x
    return _unary_int[w](op, x.cast[DType.int64]()).cast[B]()


@always_inline
def _binary_bytes[w: Int](op: Int, x: SIMD[DType.uint8, w], y: SIMD[DType.uint8, w]) -> SIMD[DType.uint8, w]:
    """The byte family's binary ops (see ``_unary_bytes``)."""
    comptime B = DType.uint8
    if op == Op.LOGICAL_AND:
        return _bool[B, w](x.ne(0) & y.ne(0))
    elif op == Op.LOGICAL_OR:
        return _bool[B, w](x.ne(0) | y.ne(0))
    elif op == Op.LOGICAL_XOR:
        return _bool[B, w](x.ne(0) ^ y.ne(0))
    elif op == Op.EQUAL:
        return _bool[B, w](x.eq(y))
    elif op == Op.NOT_EQUAL:
        return _bool[B, w](x.ne(y))
    elif op == Op.GREATER:
        return _bool[B, w](x.gt(y))
    elif op == Op.GREATER_EQUAL:
        return _bool[B, w](x.ge(y))
    elif op == Op.LESS:
        return _bool[B, w](x.lt(y))
    elif op == Op.LESS_EQUAL:
        return _bool[B, w](x.le(y))
    elif op == Op.MAXIMUM:
        return x.ge(y).select(x, y)
    elif op == Op.MINIMUM:
        return x.le(y).select(x, y)
    return _binary_int[w](op, x.cast[DType.int64](), y.cast[DType.int64]()).cast[B]()


@always_inline
def _unary_int[w: Int](op: Int, x: SIMD[DType.int64, w]) -> SIMD[DType.int64, w]:
    comptime I = DType.int64
    if op == Op.NEGATIVE:
        return -x
    elif op == Op.ABS:
        return abs(x)
    elif op == Op.SQUARE:
        return x * x
    elif op == Op.SIGN:
        return _bool[I, w](x.gt(0)) - _bool[I, w](x.lt(0))
    elif op == Op.ISNAN or op == Op.ISINF:  # isnan, isinf
        return SIMD[I, w](0)
    elif op == Op.ISFINITE:  # isfinite
        return SIMD[I, w](1)
    elif op == Op.LOGICAL_NOT:
        return _bool[I, w](x.eq(0))
    elif op == Op.BITWISE_INVERT:  # bitwise_invert (narrow results wrapped after it)
        return ~x
    elif op == Op.U_SIGN:  # sign of uint64 bits
        return _bool[I, w](x.ne(0))
    return x  # floor, ceil, trunc, positive, casts


@always_inline
def _binary_int[w: Int](op: Int, x: SIMD[DType.int64, w], y: SIMD[DType.int64, w]) -> SIMD[DType.int64, w]:
    comptime I = DType.int64
    if op == Op.ADD:
        return x + y
    elif op == Op.SUBTRACT:
        return x - y
    elif op == Op.MULTIPLY:
        return x * y
    elif op == Op.MAXIMUM:
        return x.ge(y).select(x, y)
    elif op == Op.MINIMUM:
        return x.le(y).select(x, y)
    elif op == Op.EQUAL:
        return _bool[I, w](x.eq(y))
    elif op == Op.NOT_EQUAL:
        return _bool[I, w](x.ne(y))
    elif op == Op.GREATER:
        return _bool[I, w](x.gt(y))
    elif op == Op.GREATER_EQUAL:
        return _bool[I, w](x.ge(y))
    elif op == Op.LESS:
        return _bool[I, w](x.lt(y))
    elif op == Op.LESS_EQUAL:
        return _bool[I, w](x.le(y))
    elif op == Op.LOGICAL_AND:
        return _bool[I, w](x.ne(0) & y.ne(0))
    elif op == Op.LOGICAL_OR:
        return _bool[I, w](x.ne(0) | y.ne(0))
    elif op == Op.BITWISE_AND:  # bitwise ops on sign- or zero-extended values give the extended narrow result
        return x & y
    elif op == Op.BITWISE_OR:
        return x | y
    elif op == Op.BITWISE_XOR:
        return x ^ y
    elif op == Op.FLOOR_DIVIDE or op == Op.REMAINDER:  # floor_divide, remainder (Python's: floored); NumPy gives 0 for
        # a zero divisor, and x // -1 is -x wrapped (x86 division traps on MIN // -1)
        var zero = y.eq(0)
        var minus_one = y.eq(-1)
        var safe = (zero | minus_one).select(SIMD[I, w](1), y)
        if op == Op.FLOOR_DIVIDE:
            return zero.select(SIMD[I, w](0), minus_one.select(-x, x // safe))
        return (zero | minus_one).select(SIMD[I, w](0), x % safe)
    elif op == Op.BITWISE_LEFT_SHIFT or op == Op.BITWISE_RIGHT_SHIFT:  # shifts: a count past 63, or negative (NumPy reads it unsigned),
        # shifts every bit out (narrow results are wrapped after, so counts past their width give 0)
        var inside = y.ge(0) & y.lt(64)
        if op == Op.BITWISE_LEFT_SHIFT:
            return inside.select(x << inside.select(y, SIMD[I, w](0)), SIMD[I, w](0))
        return x >> inside.select(y, SIMD[I, w](63))  # (sign-extended: past 63 is the sign fill)
    elif op == Op.POW:  # power: square and multiply, wrapping as NumPy's integer power does (a negative
        # exponent as 0, as transcendental_lowerings.power gives MAX's kernel)
        var result = SIMD[I, w](1)
        var base = x
        var e = y.lt(0).select(SIMD[I, w](0), y)
        while e.reduce_max() > 0:
            result = (e & 1).eq(1).select(result * base, result)
            base = base * base
            e = e >> 1
        return result
    elif op >= Op.UNSIGNED_BINARY_FIRST and op < Op.UNSIGNED_BINARY_END:  # uint64 operands whose bits read unsigned change the result
        var a = x.cast[DType.uint64]()
        var b = y.cast[DType.uint64]()
        if op == Op.U_MAXIMUM:
            return a.ge(b).select(x, y)
        elif op == Op.U_MINIMUM:
            return a.le(b).select(x, y)
        elif op == Op.U_GREATER:
            return _bool[I, w](a.gt(b))
        elif op == Op.U_GREATER_EQUAL:
            return _bool[I, w](a.ge(b))
        elif op == Op.U_LESS:
            return _bool[I, w](a.lt(b))
        elif op == Op.U_LESS_EQUAL:
            return _bool[I, w](a.le(b))
        elif op == Op.U_POW:  # power by an exponent read unsigned (2^63 and past: no negative, as POW reads it)
            var result = SIMD[I, w](1)
            var base = x
            var e = b
            while e.reduce_max() > 0:
                result = (e & 1).eq(1).select(result * base, result)
                base = base * base
                e = e >> 1
            return result
        elif op == Op.U_BITWISE_RIGHT_SHIFT:  # logical right shift (a count past 63: every bit out)
            var inside = b.lt(64)
            return inside.select((a >> inside.select(b, SIMD[DType.uint64, w](0))).cast[I](), SIMD[I, w](0))
        var zero = b.eq(0)  # floor_divide, remainder: 0 for a zero divisor, as NumPy gives
        var safe = zero.select(SIMD[DType.uint64, w](1), b)
        return zero.select(SIMD[I, w](0), ((a // safe) if op == Op.U_FLOOR_DIVIDE else (a % safe)).cast[I]())
    return _bool[I, w](x.ne(0) ^ y.ne(0))  # Op.LOGICAL_XOR: logical_xor


@always_inline
def _wrap[w: Int](code: Int, x: SIMD[DType.int64, w]) -> SIMD[DType.int64, w]:
    """``x`` as a value of the dtype ``code`` (bool: nonzero)."""
    if code == Code.BOOL:
        return _bool[DType.int64, w](x.ne(0))
    elif code == Code.INT8:
        return x.cast[DType.int8]().cast[DType.int64]()
    elif code == Code.INT16:
        return x.cast[DType.int16]().cast[DType.int64]()
    elif code == Code.INT32:
        return x.cast[DType.int32]().cast[DType.int64]()
    elif code == Code.UINT8:
        return x.cast[DType.uint8]().cast[DType.int64]()
    elif code == Code.UINT16:
        return x.cast[DType.uint16]().cast[DType.int64]()
    elif code == Code.UINT32:
        return x.cast[DType.uint32]().cast[DType.int64]()
    return x


def itemsize(code: Int) -> Int:
    """Bytes per element of the dtype ``code``."""
    if code == Code.INT16 or code == Code.UINT16 or code == Code.FLOAT16:
        return 2
    elif code == Code.INT32 or code == Code.UINT32 or code == Code.FLOAT32:
        return 4
    elif code == Code.INT64 or code == Code.FLOAT64 or code == Code.UINT64:
        return 8
    return 1


def _code_of[S: DType]() -> Int:
    comptime if S == DType.int8:
        return Code.INT8
    elif S == DType.int16:
        return Code.INT16
    elif S == DType.int32:
        return Code.INT32
    elif S == DType.int64:
        return Code.INT64
    elif S == DType.uint16:
        return Code.UINT16
    elif S == DType.uint32:
        return Code.UINT32
    elif S == DType.float32:
        return Code.FLOAT32
    elif S == DType.float64:
        return Code.FLOAT64
    elif S == DType.float16:
        return Code.FLOAT16
    elif S == DType.uint64:
        return Code.UINT64
    return Code.UINT8


@always_inline
def _x86_truncated[bits: Int, w: Int](v: SIMD[DType.float64, w]) -> SIMD[DType.int64, w]:
    """x86's truncating conversion of ``v`` to ``bits`` bits (cvttsd2si), as int64: the integer
    minimum where ``v`` does not fit, NaN included."""
    comptime top = Float64(2 ** (bits - 1))
    var fits = v.lt(SIMD[DType.float64, w](top)) & (v.ge(SIMD[DType.float64, w](-top)) if bits == 64
                                                   else v.gt(SIMD[DType.float64, w](-top - 1.0)))
    var safe = fits.select(v, SIMD[DType.float64, w](0))
    return fits.select(safe.cast[DType.int64](), SIMD[DType.int64, w](-(2 ** (bits - 1))))


@always_inline
def as_stored[D: DType, T: DType, w: Int](x: SIMD[T, w]) -> SIMD[D, w]:
    """``x`` cast to ``D`` as NumPy's x86 loops store it. A float into an unsigned type (where the
    cast is undefined out of range) goes through x86's truncating conversion to 32 bits (64 for
    uint64, and for float16 into uint32), wrapped to the target; from 2^31 (2^63) on, uint32
    (uint64) converts x - 2^31 (x - 2^63) and adds that bit back, so from 2^32 (2^64) on it is 0.
    The graph's lowering is the same (``lowerings.float_to_unsigned``). Anything else: the cast."""
    comptime if T.is_floating_point() and D.is_unsigned():
        var f = x.cast[DType.float64]()
        comptime if D == DType.uint64 or T == DType.float16:
            var low = _x86_truncated[64, w](f)
            comptime if D != DType.uint64:
                return low.cast[D]()
            else:
                var high = _x86_truncated[64, w](f - 9223372036854775808.0).cast[DType.uint64]() + \
                    SIMD[DType.uint64, w](9223372036854775808)
                return f.ge(SIMD[DType.float64, w](9223372036854775808.0)).select(high, low.cast[DType.uint64]()).cast[D]()
        else:
            var low = _x86_truncated[32, w](f)
            comptime if D != DType.uint32:
                return low.cast[D]()
            else:
                var high = _x86_truncated[32, w](f - 2147483648.0) + SIMD[DType.int64, w](2147483648)
                return f.ge(SIMD[DType.float64, w](2147483648.0)).select(high, low).cast[D]()
    else:
        return x.cast[D]()


@always_inline
def _store_as[D: DType, T: DType](dst: UnsafePointer[UInt8, MutAnyOrigin], src: UnsafePointer[Scalar[T], _],
                                  start: Int, count: Int):
    comptime w = simd_width_of[T]()
    var out = dst.unsafe_bitcast[Scalar[D]]()
    var whole = count // w * w
    for i in range(0, whole, w):
        out.unsafe_store(start + i, as_stored[D, T, w](src.unsafe_load[width=w](i)))
    for i in range(whole, count):
        out.unsafe_store(start + i, as_stored[D, T, 1](src.unsafe_load[width=1](i)))


@always_inline
def store_coded[T: DType](code: Int, dst: UnsafePointer[UInt8, MutAnyOrigin], src: UnsafePointer[Scalar[T], _],
                          start: Int, count: Int):
    """``count`` values written from element ``start`` on into an output of the dtype ``code``,
    held as bytes (casts truncate: the integer family's wrap)."""
    if code == Code.INT8:
        _store_as[DType.int8, T](dst, src, start, count)
    elif code == Code.INT16:
        _store_as[DType.int16, T](dst, src, start, count)
    elif code == Code.INT32:
        _store_as[DType.int32, T](dst, src, start, count)
    elif code == Code.INT64:
        _store_as[DType.int64, T](dst, src, start, count)
    elif code == Code.UINT16:
        _store_as[DType.uint16, T](dst, src, start, count)
    elif code == Code.UINT32:
        _store_as[DType.uint32, T](dst, src, start, count)
    elif code == Code.FLOAT32:
        _store_as[DType.float32, T](dst, src, start, count)
    elif code == Code.FLOAT64:
        _store_as[DType.float64, T](dst, src, start, count)
    elif code == Code.FLOAT16:
        _store_as[DType.float16, T](dst, src, start, count)
    elif code == Code.UINT64:
        _store_as[DType.uint64, T](dst, src, start, count)
    else:
        _store_as[DType.uint8, T](dst, src, start, count)
