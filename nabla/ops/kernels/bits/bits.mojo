# Kernels for what MAX's graph ops cannot see: the bits of a float.
from std.memory import bitcast
from std.utils.coord import Coord
from max.gpu.host import DeviceContext
from extensibility import InputTensor, OutputTensor, foreach, register


@always_inline
def _sign_bit[dtype: DType, width: Int](v: SIMD[dtype, width]) -> SIMD[DType.bool, width]:
    # The sign bit is the top bit of the same-width signed integer; this is the
    # only way to read it on NaN, where every comparison is false.
    comptime if dtype == DType.float64:
        return bitcast[DType.int64, width](v).lt(0)
    elif dtype == DType.float32:
        return bitcast[DType.int32, width](v).lt(0)
    elif dtype == DType.float16 or dtype == DType.bfloat16:
        return bitcast[DType.int16, width](v).lt(0)
    else:
        return v.lt(0)


@register("nabla_signbit")
struct SignBit:
    """Elementwise sign bit of a float tensor, NaN included (-0.0 and -NaN give True)."""

    @staticmethod
    def execute[
        target: StaticString,
    ](
        output: OutputTensor[dtype = DType.bool, ...],
        x: InputTensor[rank = output.rank, ...],
        ctx: DeviceContext,
    ) raises:
        def sign_of[width: Int](idx: Coord[...]) {var x} -> SIMD[DType.bool, width]:
            return _sign_bit(x.load[width](idx))

        foreach[target=target](sign_of, output, ctx)
