# The fused evaluator's float facts read from a value's bits (see fused.mojo): NaN, infinity, the
# sign bit, and NaN kept through a result. The kernels are built with fast-math assumptions (no
# NaN, no inf), under which `x != x` and ordered comparisons say nothing about NaN: NaN and inf are
# read from the bits instead, and every result that IEEE arithmetic would not give by itself is
# fixed up explicitly.
from std.memory import bitcast


@always_inline
def _magnitude_bits[T: DType, w: Int](x: SIMD[T, w]) -> SIMD[DType.int64, w]:
    comptime if T == DType.float64:
        return bitcast[DType.int64, w](x) & 0x7FFFFFFFFFFFFFFF
    else:
        return (bitcast[DType.int32, w](x) & 0x7FFFFFFF).cast[DType.int64]()


@always_inline
def _inf_bits[T: DType]() -> Int:
    comptime if T == DType.float64:
        return 0x7FF0000000000000
    else:
        return 0x7F800000


@always_inline
def _is_nan[T: DType, w: Int](x: SIMD[T, w]) -> SIMD[DType.bool, w]:
    return _magnitude_bits(x).gt(SIMD[DType.int64, w](_inf_bits[T]()))


@always_inline
def _is_inf[T: DType, w: Int](x: SIMD[T, w]) -> SIMD[DType.bool, w]:
    return _magnitude_bits(x).eq(SIMD[DType.int64, w](_inf_bits[T]()))


@always_inline
def _infinity[T: DType, w: Int]() -> SIMD[T, w]:
    comptime if T == DType.float64:
        return bitcast[T, w](SIMD[DType.int64, w](0x7FF0000000000000))
    else:
        return bitcast[T, w](SIMD[DType.int32, w](0x7F800000))


@always_inline
def _nan[T: DType, w: Int]() -> SIMD[T, w]:
    comptime if T == DType.float64:
        return bitcast[T, w](SIMD[DType.int64, w](0x7FF8000000000000))
    else:
        return bitcast[T, w](SIMD[DType.int32, w](0x7FC00000))


@always_inline
def _keep_nan[T: DType, w: Int](x: SIMD[T, w], r: SIMD[T, w]) -> SIMD[T, w]:
    return _is_nan(x).select(x, r)


@always_inline
def _sign_bit[T: DType, w: Int](x: SIMD[T, w]) -> SIMD[DType.bool, w]:
    comptime if T == DType.float64:
        return bitcast[DType.int64, w](x).lt(0)
    else:
        return bitcast[DType.int32, w](x).lt(0)
