# The fused evaluator's integer family (see fused.mojo): int64 registers, data and results held as
# bytes and read or written through dtype codes (0 bool, 1 int8, 2 int16, 3 int32, 4 int64, 5 uint8,
# 6 uint16, 7 uint32; 8 float32, 9 float64 for the coded float family); narrow results wrapped to their dtype as NumPy's integer arithmetic wraps.
from std.sys.info import simd_width_of


@always_inline
def _bool[T: DType, w: Int](m: SIMD[DType.bool, w]) -> SIMD[T, w]:
    return m.select(SIMD[T, w](1), SIMD[T, w](0))


@always_inline
def _unary_int[w: Int](op: Int, x: SIMD[DType.int64, w]) -> SIMD[DType.int64, w]:
    comptime I = DType.int64
    if op == 10:
        return -x
    elif op == 11:
        return abs(x)
    elif op == 12:
        return x * x
    elif op == 25:
        return _bool[I, w](x.gt(0)) - _bool[I, w](x.lt(0))
    elif op == 26 or op == 27:  # isnan, isinf
        return SIMD[I, w](0)
    elif op == 28:  # isfinite
        return SIMD[I, w](1)
    elif op == 29:
        return _bool[I, w](x.eq(0))
    elif op == 31:  # bitwise_invert (narrow results wrapped after it)
        return ~x
    elif op == 76:  # sign of uint64 bits
        return _bool[I, w](x.ne(0))
    return x  # floor, ceil, trunc, positive, casts


@always_inline
def _binary_int[w: Int](op: Int, x: SIMD[DType.int64, w], y: SIMD[DType.int64, w]) -> SIMD[DType.int64, w]:
    comptime I = DType.int64
    if op == 40:
        return x + y
    elif op == 41:
        return x - y
    elif op == 42:
        return x * y
    elif op == 44:
        return x.ge(y).select(x, y)
    elif op == 45:
        return x.le(y).select(x, y)
    elif op == 46:
        return _bool[I, w](x.eq(y))
    elif op == 47:
        return _bool[I, w](x.ne(y))
    elif op == 48:
        return _bool[I, w](x.gt(y))
    elif op == 49:
        return _bool[I, w](x.ge(y))
    elif op == 50:
        return _bool[I, w](x.lt(y))
    elif op == 51:
        return _bool[I, w](x.le(y))
    elif op == 52:
        return _bool[I, w](x.ne(0) & y.ne(0))
    elif op == 53:
        return _bool[I, w](x.ne(0) | y.ne(0))
    elif op == 55:  # bitwise ops on sign- or zero-extended values give the extended narrow result
        return x & y
    elif op == 56:
        return x | y
    elif op == 57:
        return x ^ y
    elif op == 58 or op == 59:  # floor_divide, remainder (Python's: floored); NumPy gives 0 for
        # a zero divisor, and x // -1 is -x wrapped (x86 division traps on MIN // -1)
        var zero = y.eq(0)
        var minus_one = y.eq(-1)
        var safe = (zero | minus_one).select(SIMD[I, w](1), y)
        if op == 58:
            return zero.select(SIMD[I, w](0), minus_one.select(-x, x // safe))
        return (zero | minus_one).select(SIMD[I, w](0), x % safe)
    elif op == 64 or op == 65:  # shifts: a count past 63, or negative (NumPy reads it unsigned),
        # shifts every bit out (narrow results are wrapped after, so counts past their width give 0)
        var inside = y.ge(0) & y.lt(64)
        if op == 64:
            return inside.select(x << inside.select(y, SIMD[I, w](0)), SIMD[I, w](0))
        return x >> inside.select(y, SIMD[I, w](63))  # (sign-extended: past 63 is the sign fill)
    elif op == 66:  # power: square and multiply, wrapping as NumPy's integer power does (a negative
        # exponent as 0, as transcendental_lowerings.power gives MAX's kernel)
        var result = SIMD[I, w](1)
        var base = x
        var e = y.lt(0).select(SIMD[I, w](0), y)
        while e.reduce_max() > 0:
            result = (e & 1).eq(1).select(result * base, result)
            base = base * base
            e = e >> 1
        return result
    elif op >= 77 and op <= 85:  # the ordering ops on uint64 operands: their bits read unsigned
        var a = x.cast[DType.uint64]()
        var b = y.cast[DType.uint64]()
        if op == 77:
            return a.ge(b).select(x, y)
        elif op == 78:
            return a.le(b).select(x, y)
        elif op == 79:
            return _bool[I, w](a.gt(b))
        elif op == 80:
            return _bool[I, w](a.ge(b))
        elif op == 81:
            return _bool[I, w](a.lt(b))
        elif op == 82:
            return _bool[I, w](a.le(b))
        elif op == 85:  # logical right shift (a count past 63: every bit out)
            var inside = b.lt(64)
            return inside.select((a >> inside.select(b, SIMD[DType.uint64, w](0))).cast[I](), SIMD[I, w](0))
        var zero = b.eq(0)  # floor_divide, remainder: 0 for a zero divisor, as NumPy gives
        var safe = zero.select(SIMD[DType.uint64, w](1), b)
        return zero.select(SIMD[I, w](0), ((a // safe) if op == 83 else (a % safe)).cast[I]())
    return _bool[I, w](x.ne(0) ^ y.ne(0))  # 54: logical_xor


@always_inline
def _wrap[w: Int](code: Int, x: SIMD[DType.int64, w]) -> SIMD[DType.int64, w]:
    """``x`` as a value of the dtype ``code`` (bool: nonzero)."""
    if code == 0:
        return _bool[DType.int64, w](x.ne(0))
    elif code == 1:
        return x.cast[DType.int8]().cast[DType.int64]()
    elif code == 2:
        return x.cast[DType.int16]().cast[DType.int64]()
    elif code == 3:
        return x.cast[DType.int32]().cast[DType.int64]()
    elif code == 5:
        return x.cast[DType.uint8]().cast[DType.int64]()
    elif code == 6:
        return x.cast[DType.uint16]().cast[DType.int64]()
    elif code == 7:
        return x.cast[DType.uint32]().cast[DType.int64]()
    return x


def itemsize(code: Int) -> Int:
    """Bytes per element of the dtype ``code``."""
    if code == 2 or code == 6 or code == 10:
        return 2
    elif code == 3 or code == 7 or code == 8:
        return 4
    elif code == 4 or code == 9 or code == 11:
        return 8
    return 1


def _code_of[S: DType]() -> Int:
    comptime if S == DType.int8:
        return 1
    elif S == DType.int16:
        return 2
    elif S == DType.int32:
        return 3
    elif S == DType.int64:
        return 4
    elif S == DType.uint16:
        return 6
    elif S == DType.uint32:
        return 7
    elif S == DType.float32:
        return 8
    elif S == DType.float64:
        return 9
    elif S == DType.float16:
        return 10
    elif S == DType.uint64:
        return 11
    return 5


@always_inline
def _store_as[D: DType, T: DType](dst: UnsafePointer[UInt8, MutAnyOrigin], src: UnsafePointer[Scalar[T], _],
                                  start: Int, count: Int):
    comptime w = simd_width_of[T]()
    var out = dst.unsafe_bitcast[Scalar[D]]()
    var whole = count // w * w
    for i in range(0, whole, w):
        out.unsafe_store(start + i, src.unsafe_load[width=w](i).cast[D]())
    for i in range(whole, count):
        out.unsafe_store(start + i, src.unsafe_load(i).cast[D]())


@always_inline
def store_coded[T: DType](code: Int, dst: UnsafePointer[UInt8, MutAnyOrigin], src: UnsafePointer[Scalar[T], _],
                          start: Int, count: Int):
    """``count`` values written from element ``start`` on into an output of the dtype ``code``,
    held as bytes (casts truncate: the integer family's wrap)."""
    if code == 1:
        _store_as[DType.int8, T](dst, src, start, count)
    elif code == 2:
        _store_as[DType.int16, T](dst, src, start, count)
    elif code == 3:
        _store_as[DType.int32, T](dst, src, start, count)
    elif code == 4:
        _store_as[DType.int64, T](dst, src, start, count)
    elif code == 6:
        _store_as[DType.uint16, T](dst, src, start, count)
    elif code == 7:
        _store_as[DType.uint32, T](dst, src, start, count)
    elif code == 8:
        _store_as[DType.float32, T](dst, src, start, count)
    elif code == 9:
        _store_as[DType.float64, T](dst, src, start, count)
    elif code == 10:
        _store_as[DType.float16, T](dst, src, start, count)
    elif code == 11:
        _store_as[DType.uint64, T](dst, src, start, count)
    else:
        _store_as[DType.uint8, T](dst, src, start, count)
