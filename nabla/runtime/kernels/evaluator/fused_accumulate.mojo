# How the fused evaluator's reductions (fused_reduce.mojo) accumulate a program's values: in
# float64 or int64 (``accumulator``), from each reduction's identity, one block of values reduced in
# SIMD lanes, NaN winning maxima and minima as in NumPy.
from std.memory import bitcast
from std.sys.info import simd_width_of
from .fused_bits import _is_nan
from .opcodes import Reduce


def accumulator[T: DType]() -> DType:
    """What reductions accumulate a family's registers in: float64, or int64 (wrapping)."""
    return DType.float64 if T.is_floating_point() else DType.int64


def _identity[A: DType](kind: Int) -> Scalar[A]:
    comptime if A.is_floating_point():
        if kind == Reduce.MAX:
            return -Scalar[A].MAX - Scalar[A].MAX
        elif kind == Reduce.MIN:
            return Scalar[A].MAX + Scalar[A].MAX
    else:
        if kind == Reduce.MAX:
            return Scalar[A].MIN
        elif kind == Reduce.MIN:
            return Scalar[A].MAX
    return Scalar[A](1) if kind == Reduce.PROD else Scalar[A](0)


@always_inline
def _combine[A: DType](kind: Int, acc: Scalar[A], v: Scalar[A]) -> Scalar[A]:
    if kind == Reduce.MAX or kind == Reduce.MIN:
        comptime if A.is_floating_point():  # NaN wins, as in NumPy
            if _is_nan[A, 1](acc):
                return acc
            if _is_nan[A, 1](v):
                return v
        return v if (v > acc if kind == Reduce.MAX else v < acc) else acc
    elif kind == Reduce.PROD:
        return acc * v
    return acc + v


@always_inline
def _reduce_block[T: DType, A: DType](kind: Int, r: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                      count: Int) -> Scalar[A]:
    """The block's values reduced in the accumulator dtype ``A``; sums and maxima in SIMD lanes."""
    comptime w = simd_width_of[T]()
    var whole = count // w * w
    var acc = _identity[A](kind)
    if kind == Reduce.SUM or kind == Reduce.MEAN:
        var lanes = SIMD[A, w](0)
        for i in range(0, whole, w):
            lanes += r.unsafe_load[width=w](i).cast[A]()
        acc = lanes.reduce_add()
    elif kind == Reduce.MAX or kind == Reduce.MIN:
        var lanes = SIMD[T, w](r.unsafe_load(0))
        var nan = SIMD[DType.bool, w](fill=False)
        for i in range(0, whole, w):
            var v = r.unsafe_load[width=w](i)
            comptime if T.is_floating_point():
                nan |= _is_nan(v)
            lanes = (v.gt(lanes) if kind == Reduce.MAX else v.lt(lanes)).select(v, lanes)
        comptime if A.is_floating_point():
            if nan.reduce_or():
                return bitcast[A, 1](SIMD[DType.int64, 1](0x7FF8000000000000))
        for k in range(w):
            if whole > 0:
                acc = _combine[A](kind, acc, lanes[k].cast[A]())
    else:
        whole = 0
    for i in range(whole, count):
        acc = _combine[A](kind, acc, r.unsafe_load(i).cast[A]())
    return acc
