# A fused elementwise evaluator whose program is data (numexpr's virtual-machine idea:
# D. Cooke, F. Alted et al., numexpr, 2006-). One compiled kernel serves every elementwise
# expression, so a structure seen for the first time runs fused, in cache-sized blocks, SIMD, on
# all cores, without compiling anything. Nabla's program kernel (../nabla_vm.mojo) runs one such
# program per stage of a trace: ``map_into``, and ``reduce_into`` and ``scan_into``
# of fused_reduce.mojo.
#
# Program (int32): [n_instructions, result_register, reduction, r, inner, output code, then 5 ints
# per instruction: opcode, destination, a, b, c]. Registers hold one block of values each; booleans
# are 1 / 0. Load: a = input slot, b = 0 (in order, or one value for all) or 1 + where its strided
# layout starts in the constants (NumPy's view model: slices, transposes and broadcasts of an
# input), c = the slot's dtype code (integer family). Data slots are (address, size) pairs of a
# table (``slot``). Opcodes are each op's own (its ``Fused(code)`` in its row of
# nabla/ops/elementwise.py), named here by the constants of opcodes.mojo (``Op.EXP``), which
# nabla/runtime/fused_codes.py writes from the rows; nabla/runtime/fused_program.py writes programs.
#
# Three families, picked by the data's dtype S and the registers' dtype R (parameters of each
# instantiation): float (S = R, one float dtype); integer (R int64, data slots and output bytes read and
# written through dtype codes: 0 bool, 1 int8, 2 int16, 3 int32, 4 int64, 5 uint8, 6 uint16,
# 7 uint32); coded float (R float32 or float64, bytes through the codes above and 8 float32,
# 9 float64, 10 float16: a comparison's bool result, casts between dtypes, an integer input of a
# float expression, float16 work). Integer results narrower than 64 bits are wrapped to their dtype
# after each op (opcode 61), as NumPy's integer arithmetic wraps, so comparisons and maxima see
# wrapped values; sums and products wrap at the store (arithmetic modulo 2^k agrees). float16
# work runs in float32 registers rounded to float16 after each op (opcode 61, code 10), as NumPy's
# float16 loops compute in float32 and round each result.
from std.math import exp, log, sqrt, sin, cos, tanh, log1p, expm1, floor, ceil, trunc, atan2, fma
from std.math import tan, asin, acos, atan, asinh, acosh, atanh, log10
from std.memory import bitcast
from std.sys.info import simd_width_of
from max.algorithm import parallelize
from .denormals import KeepDenormals
from .fused_int import _binary_int, _bool, _code_of, _unary_int, _wrap, as_stored, itemsize, store_coded
from .opcodes import Op, Reduce, Code

comptime BLOCK = 1024
comptime MAX_REGISTERS = 24
comptime HEADER = 8
comptime WIDTH_OF_INSTRUCTION = 5
comptime BLOCKS_PER_TASK = 16
# Stages of fewer elements run their tasks on the calling thread, one after another: ``parallelize``
# costs more than that much work. Measured on the 2-core machine (npbench S, kernel time): a
# 150 x 150 stencil's 100 stages 10.6 ms in parallel, 2.5 ms here; floyd_warshall's 40,000-element
# steps 13.4 ms and 6.8 ms; from 100,000 elements of transcendental work (arc_distance) and millions
# (softmax), tasks in parallel win. The values are the same either way, tasks and partials alike.
comptime SERIAL_ELEMENTS = 64 * BLOCK


# The kernels are built with fast-math assumptions (no NaN, no inf), under which `x != x` and
# ordered comparisons say nothing about NaN: NaN and inf are read from the bits instead, and every
# result that IEEE arithmetic would not give by itself is fixed up explicitly.
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
def _halved_past_overflow[T: DType, w: Int](x: SIMD[T, w]) -> Tuple[SIMD[DType.bool, w], SIMD[T, w]]:
    # whether e^|x| overflows or nearly, and |x| halved there (transcendental_lowerings._overflow_halved)
    var ax = abs(x)
    var limit: Float64 = 709.0 if T == DType.float64 else 88.0
    var big = ax.gt(SIMD[T, w](limit))
    return (big, ax * big.select(SIMD[T, w](0.5), SIMD[T, w](1)))


@always_inline
def _sinh[T: DType, w: Int](x: SIMD[T, w]) -> SIMD[T, w] where T.is_floating_point():
    # transcendental_lowerings.sinh: (e + e / (e + 1)) / 2 with e = expm1(|x|), exact near 0
    var found = _halved_past_overflow(x)
    var e = _expm1(found[1])
    var h = e + 1
    var mag = found[0].select(h * 0.5 * h, _is_inf(e).select(e, (e + e / h) * 0.5))
    var out = x.lt(0).select(-mag, mag)
    return (x.eq(0) | _is_inf(x)).select(x, out)


@always_inline
def _cosh[T: DType, w: Int](x: SIMD[T, w]) -> SIMD[T, w] where T.is_floating_point():
    var found = _halved_past_overflow(x)
    var e = _exp(found[1])
    return found[0].select(e * 0.5 * e, (e + SIMD[T, w](1) / e) * 0.5)


@always_inline
def _log2[T: DType, w: Int](x: SIMD[T, w]) -> SIMD[T, w] where T.is_floating_point():
    # x = m 2^e with m in [sqrt(1/2), sqrt(2)): e + log(m) / ln 2, exact at powers of two (std's log2
    # loses ~1e-9 relative); subnormals scaled up first; zero, negatives, inf from log's own values
    comptime I = DType.int64 if T == DType.float64 else DType.int32
    comptime mant = 52 if T == DType.float64 else 23
    comptime bias = 1023 if T == DType.float64 else 127
    var tiny = x.lt(SIMD[T, w](2.2250738585072014e-308 if T == DType.float64 else 1.1754943508222875e-38))
    var scaled = tiny.select(x * SIMD[T, w](18014398509481984.0), x)  # 2^54
    var bits = bitcast[I, w](scaled)
    comptime exponent_mask = 0x7FF if T == DType.float64 else 0xFF
    var e = ((bits >> SIMD[I, w](mant)) & SIMD[I, w](exponent_mask)) - SIMD[I, w](bias)
    var m = bitcast[T, w]((bits & SIMD[I, w]((1 << mant) - 1)) | (SIMD[I, w](bias) << SIMD[I, w](mant)))
    var high = m.gt(SIMD[T, w](1.4142135623730951))
    m = high.select(m * 0.5, m)
    var exponent = (e + high.select(SIMD[I, w](1), SIMD[I, w](0)) - tiny.select(SIMD[I, w](54), SIMD[I, w](0))).cast[T]()
    var out = exponent + log(m) * SIMD[T, w](1.4426950408889634)
    return (x.le(0) | _is_inf(x)).select(log(x), out)


@always_inline
def _keep_nan[T: DType, w: Int](x: SIMD[T, w], r: SIMD[T, w]) -> SIMD[T, w]:
    return _is_nan(x).select(x, r)


@always_inline
def _exp[T: DType, w: Int](x: SIMD[T, w]) -> SIMD[T, w] where T.is_floating_point():
    comptime if T == DType.float64:
        return rebind[SIMD[T, w]](_exp64(rebind[SIMD[DType.float64, w]](x)))
    elif T == DType.float32:
        return rebind[SIMD[T, w]](_exp32(rebind[SIMD[DType.float32, w]](x)))
    var r = exp(x)
    r = _is_inf(x).select(x.gt(0).select(x, SIMD[T, w](0)), r)
    return _keep_nan(x, r)


@always_inline
def _exp32[w: Int](x: SIMD[DType.float32, w]) -> SIMD[DType.float32, w]:
    # float32 exp within about an ulp (std exp loses up to 6 ulp far from 0 and saturates at 2.4e38
    # from 88.38 on), as lowerings.exp writes it for MAX's graphs (same ops, same bits): x = k ln2 + r,
    # ln2 in two parts as fdlibm's e_expf.c (k ln2_hi exact), std exp of |r| <= ln2/2, where it is
    # accurate, times 2^k as two exact powers of two.
    comptime F = DType.float32
    var k = floor(x * 1.44269504088896338700 + 0.5)
    var r = (x - k * 6.93145751953125e-01) - k * 1.428606765330187e-06
    var k1 = floor(k * 0.5)
    var e1 = (k1.cast[DType.int32]() + 127) << 23
    var e2 = ((k - k1).cast[DType.int32]() + 127) << 23
    var out = exp(r) * bitcast[F, w](e1) * bitcast[F, w](e2)
    out = x.gt(SIMD[F, w](89.0)).select(SIMD[F, w](FloatLiteral.infinity), out)
    out = x.lt(SIMD[F, w](-104.0)).select(SIMD[F, w](0), out)
    return _keep_nan(x, out)


@always_inline
def _exp64[w: Int](x: SIMD[DType.float64, w]) -> SIMD[DType.float64, w]:
    # float64 exp within an ulp (std exp is off by up to ~2.5e6 ulp here). The algorithm of fdlibm's
    # e_exp.c (Sun Microsystems, 1993), as lowerings.exp writes it for MAX's graphs (same ops, same
    # bits): x = k ln2 + r with |r| <= ln2/2, ln2 in two parts (Cody and Waite: k * LN2_HI is
    # exact); e^r = 1 + 2r / (2 - c) with c = r - r^2 P(r^2), P a degree-5 Remez fit; times 2^k as
    # two exact powers of two, so a subnormal result is rounded once.
    comptime F = DType.float64
    var k = floor(x * 1.44269504088896338700 + 0.5)
    var hi = x - k * 6.93147180369123816490e-01
    var lo = k * 1.90821492927058770002e-10
    var r = hi - lo
    var t = r * r
    var c = r - t * (1.66666666666666019037e-01 + t * (-2.77777777770155933842e-03 + t * (
        6.61375632143793436117e-05 + t * (-1.65339022054652515390e-06 + t * 4.13813679705723846039e-08))))
    var y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
    var k1 = floor(k * 0.5)
    var e1 = (k1.cast[DType.int64]() + 1023) << 52
    var e2 = ((k - k1).cast[DType.int64]() + 1023) << 52
    var out = y * bitcast[F, w](e1) * bitcast[F, w](e2)
    out = x.gt(SIMD[F, w](709.782712893383973096)).select(SIMD[F, w](FloatLiteral.infinity), out)
    out = x.lt(SIMD[F, w](-745.13321910194110842)).select(SIMD[F, w](0), out)
    return _keep_nan(x, out)


@always_inline
def _expm1[T: DType, w: Int](x: SIMD[T, w]) -> SIMD[T, w] where T.is_floating_point():
    # Kahan's trick for float64 ((u - 1) x / log u, u = e^x: accurate where e^x - 1 cancels, from
    # an accurate exp and log; W. Kahan, via Higham, "Accuracy and Stability of Numerical
    # Algorithms", 2002, 1.14.1); float32's std expm1 is within two ulp. As transcendental_lowerings.expm1.
    comptime if T == DType.float64:
        var u = _exp(x)
        var d = u - 1
        var body = (d * x) / log(u)
        var r = d.eq(0).select(x, d.eq(-1).select(d, body))
        r = x.gt(SIMD[T, w](1)).select(d, r)
        return _keep_nan(x, _is_inf(u).select(u, r))
    var r = x.gt(SIMD[T, w](1)).select(_exp(x) - 1, expm1(x))
    return _keep_nan(x, _is_inf(x).select(x.gt(0).select(x, SIMD[T, w](-1)), r))


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
        return _keep_nan(x, _is_inf(x).select(x.gt(0).select(SIMD[T, w](1), SIMD[T, w](-1)), tanh(x)))
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


@always_inline
def _pow[T: DType, w: Int](x: SIMD[T, w], y: SIMD[T, w]) -> SIMD[T, w]:
    # NumPy's power (C99's pow) in float64, rounded once to T: an integral y below 2^31 by square and
    # multiply over |y| (a few roundings, where e^(y log x) loses |y log x| ulp), any other as
    # e^(y log|x|); the sign from an odd integral y; the limits at 0, 1, infinities and NaN of C99's
    # Annex F, as transcendental_lowerings.power writes them for MAX's graphs.
    comptime F = DType.float64
    var a = x.cast[F]()
    var b = y.cast[F]()
    var ax = abs(a)
    var safe = ax.eq(0).select(SIMD[F, w](1), ax)
    var integral = floor(b).eq(b)
    var counted = integral & abs(b).lt(SIMD[F, w](2147483648.0))
    var n = counted.select(abs(b), SIMD[F, w](0)).cast[DType.int64]()
    var base = safe
    var power = SIMD[F, w](1)
    while n.ne(0).reduce_or():
        power = (n & 1).eq(1).select(power * base, power)
        base = base * base
        n = n >> 1
    power = b.lt(0).select(1.0 / power, power)
    var mag = counted.select(power, _exp64(b * log(safe)))
    mag = b.eq(0.5).select(sqrt(safe), mag)  # (exact, as NumPy's x ** 0.5)
    var zero = SIMD[F, w](0)
    var inf = SIMD[F, w](FloatLiteral.infinity)
    var up = b.gt(0)
    mag = ax.eq(0).select(up.select(zero, inf), mag)
    mag = _is_inf(ax).select(up.select(inf, zero), mag)
    var y_inf = _is_inf(b)
    mag = (y_inf & ax.gt(1)).select(up.select(inf, zero), mag)
    mag = (y_inf & ax.lt(1)).select(up.select(zero, inf), mag)
    mag = (y_inf & ax.eq(1)).select(SIMD[F, w](1), mag)
    var odd = integral & (floor(b * 0.5) * 2).ne(b)
    var out = (bitcast[DType.int64, w](a).lt(0) & odd).select(-mag, mag)
    var nan = SIMD[F, w](FloatLiteral.nan)
    out = (a.lt(0) & ~_is_inf(a) & ~integral & ~y_inf).select(nan, out)
    out = (_is_nan(a) | _is_nan(b)).select(nan, out)
    out = a.eq(1).select(SIMD[F, w](1), out)
    return b.eq(0).select(SIMD[F, w](1), out).cast[T]()


@always_inline
def _sign_bit[T: DType, w: Int](x: SIMD[T, w]) -> SIMD[DType.bool, w]:
    comptime if T == DType.float64:
        return bitcast[DType.int64, w](x).lt(0)
    else:
        return bitcast[DType.int32, w](x).lt(0)


comptime TWO_52 = 4503599627370496.0
comptime TWO_32 = 4294967296.0


def _fmod_reduced(x: Float64, y: Float64) -> Float64:
    """x brought below y 2^32 by exact multiples y 2^(32 k) of y, the largest first (x >= y 2^52,
    both finite, y > 0); each step's quotient is below 2^32 + 1, so its residual is exact."""
    var top = y
    var m = 0
    while top * TWO_32 <= x:
        top = top * TWO_32
        m += 1
    var r = x
    for j in range(m, 0, -1):
        var d = y
        for _ in range(j):
            d = d * TWO_32
        var q = trunc(r / d)
        r = fma(-q, d, r)
        if r < 0:
            r = r + d
    return r


@always_inline
def _fmod_exact[w: Int](ax: SIMD[DType.float64, w], ay: SIMD[DType.float64, w]) -> SIMD[DType.float64, w]:
    """fmod(ax, ay) of finite ax >= 0 and ay > 0, exactly (ay = inf leaves ax), as
    division_lowerings._fmod_exact gives it: q = trunc(ax / ay), then ax - q ay in one rounding
    (exact: the residual is representable); where ax / ay rounded up to an integer, q is one too
    large and the negative residual takes ay back. Quotients of 2^52 and more (rare) are first
    brought down lane by lane (``_fmod_reduced``)."""
    var r = ax
    var usual = ~_is_inf(ax) & ~_is_nan(ax) & ~_is_inf(ay) & ~_is_nan(ay) & ay.gt(0)
    var big = usual & ax.ge(ay * TWO_52)
    if big.reduce_or():
        for i in range(w):
            if big[i]:
                r[i] = _fmod_reduced(ax[i], ay[i])
    var q = trunc(r / ay)
    var out = fma(-q, ay, r)
    out = out.lt(0).select(out + ay, out)
    return _is_inf(ay).select(ax, out)


@always_inline
def _fmod64[T: DType, w: Int](x: SIMD[T, w], y: SIMD[T, w]) -> SIMD[DType.float64, w]:
    """C's fmod (x's sign), exactly, in float64 (narrower floats' fmod can be subnormal there)."""
    var x64 = x.cast[DType.float64]()
    var f = _fmod_exact(abs(x64), abs(y.cast[DType.float64]()))
    return _sign_bit(x64).select(-f, f)


@always_inline
def _remainder[T: DType, w: Int](x: SIMD[T, w], y: SIMD[T, w]) -> SIMD[T, w]:
    """Python's float ``%`` (the sign of y), exact, with the standard's special values: the steps of
    division_lowerings.remainder, so both paths give the same bits; rounded once to T."""
    var f = _fmod64(x, y)
    var y64 = y.cast[DType.float64]()
    var fix = f.ne(0) & (_sign_bit(f) ^ _sign_bit(y64))
    var r = fix.select(f + y64, f).cast[T]()
    var differ = _sign_bit(x) ^ _sign_bit(y)
    var x_finite_y_inf = ~_is_inf(x) & ~_is_nan(x) & _is_inf(y)
    r = x_finite_y_inf.select((differ & x.ne(0)).select(y, x), r)  # x itself, or y where signs differ
    r = (r.eq(0) & ~_is_nan(r)).select(_sign_bit(y).select(SIMD[T, w](-0.0), SIMD[T, w](0.0)), r)
    var bad = _is_inf(x) | y.eq(0) | _is_nan(x) | _is_nan(y)
    return bad.select(_nan[T, w](), r)


@always_inline
def _floor_divide[T: DType, w: Int](x: SIMD[T, w], y: SIMD[T, w]) -> SIMD[T, w]:
    """NumPy's float ``//`` (its npy_divmod: the quotient from the exact fmod, one less where the
    fmod and y differ in sign, rounded to the nearest integer) with the standard's special values:
    the steps of division_lowerings.floor_divide, so both paths give the same bits."""
    var mod = _fmod64(x, y).cast[T]()
    var div = (x - mod) / y
    div = (mod.ne(0) & ~_is_nan(mod) & (y.lt(0) ^ mod.lt(0))).select(div - 1, div)
    var whole = floor(div)
    whole = (div - whole).gt(0.5).select(whole + 1, whole)
    var signed_zero = (_sign_bit(x) ^ _sign_bit(y)).select(SIMD[T, w](-0.0), SIMD[T, w](0.0))
    var q = (div.eq(0) & ~_is_nan(div)).select(signed_zero, whole)
    q = (y.eq(0) | _is_inf(x)).select(x / y, q)  # x / 0, and an infinite x: the standard's infinities
    q = (~_is_inf(x) & ~_is_nan(x) & _is_inf(y)).select(signed_zero, q)
    return (_is_nan(x) | _is_nan(y)).select(_nan[T, w](), q)


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
        comptime if T.is_floating_point():
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


@always_inline
def _load_as[S: DType, T: DType](dst: UnsafePointer[Scalar[T], MutUntrackedOrigin], src: UnsafePointer[UInt8, _],
                                 nbytes: Int, start: Int, count: Int, layout: UnsafePointer[Float64, _], strided: Bool):
    var typed = src.unsafe_bitcast[Scalar[S]]()
    if strided:
        _fill_strided[S, T](dst, typed, start, count, layout)
    else:
        _fill[S, T](dst, typed, nbytes // itemsize(_code_of[S]()), start, count)


@always_inline
def _load_coded[T: DType](code: Int, dst: UnsafePointer[Scalar[T], MutUntrackedOrigin], src: UnsafePointer[UInt8, _],
                          nbytes: Int, start: Int, count: Int, layout: UnsafePointer[Float64, _], strided: Bool):
    """A block of an input held as bytes, read as the dtype ``code`` into registers of ``T``."""
    if code == Code.INT8:
        _load_as[DType.int8, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.INT16:
        _load_as[DType.int16, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.INT32:
        _load_as[DType.int32, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.INT64:
        _load_as[DType.int64, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.UINT16:
        _load_as[DType.uint16, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.UINT32:
        _load_as[DType.uint32, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.FLOAT32:
        _load_as[DType.float32, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.FLOAT64:
        _load_as[DType.float64, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.FLOAT16:
        _load_as[DType.float16, T](dst, src, nbytes, start, count, layout, strided)
    elif code == Code.UINT64:
        _load_as[DType.uint64, T](dst, src, nbytes, start, count, layout, strided)
    else:  # bool, uint8
        _load_as[DType.uint8, T](dst, src, nbytes, start, count, layout, strided)


@always_inline
def _fill[S: DType, T: DType](dst: UnsafePointer[Scalar[T], MutUntrackedOrigin], src: UnsafePointer[Scalar[S], _],
                            size: Int, start: Int, count: Int):
    """A block of an input read in order, or one value for all (an input of size 1)."""
    comptime w = simd_width_of[T]()
    if size == 1:
        var v = SIMD[T, w](src.unsafe_load(0).cast[T]())
        for i in range(0, count, w):
            dst.unsafe_store(i, v)
    else:
        var whole = count // w * w
        for i in range(0, whole, w):
            dst.unsafe_store(i, src.unsafe_load[width=w](start + i).cast[T]())
        for i in range(whole, count):
            dst.unsafe_store(i, src.unsafe_load(start + i).cast[T]())


@always_inline
def _fill_strided[S: DType, T: DType](dst: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                    src: UnsafePointer[Scalar[S], _], start: Int, count: Int,
                                    layout: UnsafePointer[Float64, _]):
    """A block of a strided view of an input: layout = [rank, offset, then (size, stride) per axis of
    the trace's elements, outermost first] (stride 0 where the input is broadcast)."""
    comptime w = simd_width_of[T]()
    var rank = Int(layout.unsafe_load(0))
    var index = alloc[Int](rank)
    var at = Int(layout.unsafe_load(1))
    var rest = start
    for d in range(rank - 1, -1, -1):
        var size = Int(layout.unsafe_load(2 + 2 * d))
        var i = rest % size
        rest //= size
        index.unsafe_store(d, i)
        at += i * Int(layout.unsafe_load(3 + 2 * d))
    var last = rank - 1
    var n_last = Int(layout.unsafe_load(2 + 2 * last))
    var s_last = Int(layout.unsafe_load(3 + 2 * last))
    var done = 0
    while done < count:
        var run = min(n_last - index.unsafe_load(last), count - done)
        if s_last == 1:
            var whole = run // w * w
            for i in range(0, whole, w):
                dst.unsafe_store(done + i, src.unsafe_load[width=w](at + i).cast[T]())
            for i in range(whole, run):
                dst.unsafe_store(done + i, src.unsafe_load(at + i).cast[T]())
        elif s_last == 0:
            var v = SIMD[T, w](src.unsafe_load(at).cast[T]())
            var whole = run // w * w
            for i in range(0, whole, w):
                dst.unsafe_store(done + i, v)
            for i in range(whole, run):
                dst.unsafe_store(done + i, v[0])
        else:
            for i in range(run):
                dst.unsafe_store(done + i, src.unsafe_load(at + i * s_last).cast[T]())
        done += run
        at += run * s_last
        index.unsafe_store(last, index.unsafe_load(last) + run)
        var d = last
        while d > 0 and index.unsafe_load(d) == Int(layout.unsafe_load(2 + 2 * d)):
            at -= Int(layout.unsafe_load(2 + 2 * d)) * Int(layout.unsafe_load(3 + 2 * d))
            index.unsafe_store(d, 0)
            d -= 1
            index.unsafe_store(d, index.unsafe_load(d) + 1)
            at += Int(layout.unsafe_load(3 + 2 * d))
    index.free()


@always_inline
def _gather_as[D: DType, T: DType](dst: UnsafePointer[Scalar[T], MutUntrackedOrigin], src: UnsafePointer[Scalar[D], _],
                                   pos: UnsafePointer[Scalar[T], MutUntrackedOrigin], start: Int, count: Int,
                                   view: UnsafePointer[Float64, _]):
    """Element e of the block is an input's element at the position in ``pos`` along one of its axes
    (clamped into that axis: memory stays safe whatever the indices) and at e's coordinates along
    the others. e's coordinates: (outer, m, inner) with m the gathered span (an index's axes, or
    a concatenation's axis) of extent M. view = [code, rows, row stride, offset, M, inner, k,
    then (size, stride) of the input's other k axes, outer ones first]."""
    var rows = Int(view.unsafe_load(1))
    var step = Int(view.unsafe_load(2))
    var offset = Int(view.unsafe_load(3))
    var span = Int(view.unsafe_load(4)) * Int(view.unsafe_load(5))
    var inner = Int(view.unsafe_load(5))
    var k = Int(view.unsafe_load(6))
    # e's (outer, m, inner) coordinates kept as e advances (one division per block, not per
    # element: a 64-bit division costs tens of cycles, more than the load it addresses)
    if count <= 0 or span <= 0:  # (nothing to gather)
        return
    var outer = start // span
    var in_span = start - outer * span
    var in_inner = in_span % inner
    for i in range(count):
        var p = max(0, min(rows - 1, Int(pos.unsafe_load(i).cast[DType.int64]())))
        var at = offset + p * step
        if k > 0:
            var q = outer * inner + in_inner
            for a in range(k - 1, -1, -1):
                var n = Int(view.unsafe_load(7 + 2 * a))
                at += (q % n) * Int(view.unsafe_load(8 + 2 * a))
                q //= n
        dst.unsafe_store(i, src.unsafe_load(at).cast[T]())
        in_inner += 1
        if in_inner == inner:
            in_inner = 0
        in_span += 1
        if in_span == span:
            in_span = 0
            in_inner = 0
            outer += 1


@always_inline
def _gather[S: DType, T: DType](dst: UnsafePointer[Scalar[T], MutUntrackedOrigin], src: UnsafePointer[Scalar[S], _],
                                pos: UnsafePointer[Scalar[T], MutUntrackedOrigin], start: Int, count: Int,
                                view: UnsafePointer[Float64, _]):
    """A gather from a data slot of the program's dtype, or (bytes) of the dtype code view[0]."""
    comptime if S == T:
        _gather_as[S, T](dst, src, pos, start, count, view)
    else:
        var code = Int(view.unsafe_load(0))
        var b = src.unsafe_bitcast[UInt8]()
        if code == Code.INT8:
            _gather_as[DType.int8, T](dst, b.unsafe_bitcast[Int8](), pos, start, count, view)
        elif code == Code.INT16:
            _gather_as[DType.int16, T](dst, b.unsafe_bitcast[Int16](), pos, start, count, view)
        elif code == Code.INT32:
            _gather_as[DType.int32, T](dst, b.unsafe_bitcast[Int32](), pos, start, count, view)
        elif code == Code.INT64:
            _gather_as[DType.int64, T](dst, b.unsafe_bitcast[Int64](), pos, start, count, view)
        elif code == Code.UINT16:
            _gather_as[DType.uint16, T](dst, b.unsafe_bitcast[UInt16](), pos, start, count, view)
        elif code == Code.UINT32:
            _gather_as[DType.uint32, T](dst, b.unsafe_bitcast[UInt32](), pos, start, count, view)
        elif code == Code.FLOAT32:
            _gather_as[DType.float32, T](dst, b.unsafe_bitcast[Float32](), pos, start, count, view)
        elif code == Code.FLOAT64:
            _gather_as[DType.float64, T](dst, b.unsafe_bitcast[Float64](), pos, start, count, view)
        elif code == Code.FLOAT16:
            _gather_as[DType.float16, T](dst, b.unsafe_bitcast[Float16](), pos, start, count, view)
        elif code == Code.UINT64:
            _gather_as[DType.uint64, T](dst, b.unsafe_bitcast[UInt64](), pos, start, count, view)
        else:  # bool, uint8
            _gather_as[DType.uint8, T](dst, b, pos, start, count, view)


@always_inline
def registers_used(p: UnsafePointer[Int32, _]) -> Int:
    """How many registers program ``p`` writes (its instructions' destinations, its result's): a
    task allocates only those. (All ``MAX_REGISTERS`` registers of a block are 192 KiB of float64,
    past the allocator's mapping threshold: a stage of many tasks paid fresh zeroed pages for each.)"""
    var n = Int(p.unsafe_load(1)) + 1
    for pc in range(Int(p.unsafe_load(0))):
        n = max(n, Int(p.unsafe_load(HEADER + pc * WIDTH_OF_INSTRUCTION + 1)) + 1)
    return min(n, MAX_REGISTERS)


def register_stride[T: DType](n: Int) -> Int:
    """How many values each register holds for a program over ``n`` elements: a block, or all of
    them rounded up to whole vectors (a small trace's registers then fit in a few cache lines,
    where a block's would be a fresh 192 KiB allocation per run)."""
    comptime w = simd_width_of[T]()
    return min(BLOCK, (n + w - 1) // w * w)


def accumulator[T: DType]() -> DType:
    """What reductions accumulate a family's registers in: float64, or int64 (wrapping)."""
    return DType.float64 if T.is_floating_point() else DType.int64


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


@always_inline
def _map_unary[T: DType, op: Int](dst: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                  src: UnsafePointer[Scalar[T], MutUntrackedOrigin], padded: Int):
    comptime w = simd_width_of[T]()
    for i in range(0, padded, w):
        comptime if T.is_floating_point():
            dst.unsafe_store(i, _unary[T, w](op, src.unsafe_load[width=w](i)))
        else:
            dst.unsafe_store(i, _unary_int[w](op, src.unsafe_load[width=w](i).cast[DType.int64]()).cast[T]())


@always_inline
def _map_binary[T: DType, op: Int](dst: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                   p: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                                   q: UnsafePointer[Scalar[T], MutUntrackedOrigin], padded: Int):
    comptime w = simd_width_of[T]()
    for i in range(0, padded, w):
        comptime if T.is_floating_point():
            dst.unsafe_store(i, _binary[T, w](op, p.unsafe_load[width=w](i), q.unsafe_load[width=w](i)))
        else:
            var x = p.unsafe_load[width=w](i).cast[DType.int64]()
            dst.unsafe_store(i, _binary_int[w](op, x, q.unsafe_load[width=w](i).cast[DType.int64]()).cast[T]())


@always_inline
def slot[S: DType](data: UnsafePointer[Int, _], a: Int) -> UnsafePointer[Scalar[S], MutUntrackedOrigin]:
    """Data slot ``a`` of a program: ``data`` holds (address, size) per slot."""
    return UnsafePointer[Scalar[S], MutUntrackedOrigin](unsafe_from_address=data.unsafe_load(2 * a))


def _run_block[T: DType, S: DType](
    prog: UnsafePointer[Int32, _], consts: UnsafePointer[Float64, _], data: UnsafePointer[Int, _],
    regs: UnsafePointer[Scalar[T], MutUntrackedOrigin], stride: Int, start: Int, count: Int,
):
    """One block of the program's values into ``regs`` (register k at ``regs + k * stride``): T the
    registers' dtype, S the data slots' (T itself, or bytes for the integer family, read through
    each load's dtype code). ``data``: (address, size in elements of S) per data slot."""
    comptime w = simd_width_of[T]()
    var n_instr = Int(prog.unsafe_load(0))
    var padded = (count + w - 1) // w * w
    for pc in range(n_instr):
        var at = HEADER + pc * WIDTH_OF_INSTRUCTION
        var op = Int(prog.unsafe_load(at))
        var dst = regs + Int(prog.unsafe_load(at + 1)) * stride
        var a = Int(prog.unsafe_load(at + 2))
        var b = Int(prog.unsafe_load(at + 3))
        var c = Int(prog.unsafe_load(at + 4))
        if op == Op.LOAD:  # load input slot a, in order (b == 0) or through the layout at consts[b - 1]
            var src = slot[S](data, a)
            var size = data.unsafe_load(2 * a + 1)
            comptime if S == T:
                if b > 0:
                    _fill_strided[S, T](dst, src, start, count, consts + (b - 1))
                else:
                    _fill[S, T](dst, src, size, start, count)
            else:
                _load_coded[T](c, dst, src.unsafe_bitcast[UInt8](), size, start, count, consts + (b - 1), b > 0)
        elif op == Op.CONST:  # constant a (the integer family's: its int64 bits)
            var v: SIMD[T, w]
            comptime if T.is_floating_point():
                v = SIMD[T, w](consts.unsafe_load(a).cast[T]())
            else:
                v = SIMD[T, w](bitcast[DType.int64, 1](consts.unsafe_load(a)).cast[T]())
            for i in range(0, padded, w):
                dst.unsafe_store(i, v)
        elif op < Op.UNARY_END:  # the opcode picks a loop compiled for it: no dispatch per element
            var src = regs + a * stride
            if op == Op.NEGATIVE:
                _map_unary[T, Op.NEGATIVE](dst, src, padded)
            elif op == Op.ABS:
                _map_unary[T, Op.ABS](dst, src, padded)
            elif op == Op.SQUARE:
                _map_unary[T, Op.SQUARE](dst, src, padded)
            elif op == Op.RECIPROCAL:
                _map_unary[T, Op.RECIPROCAL](dst, src, padded)
            elif op == Op.EXP:
                _map_unary[T, Op.EXP](dst, src, padded)
            elif op == Op.EXPM1:
                _map_unary[T, Op.EXPM1](dst, src, padded)
            elif op == Op.LOG:
                _map_unary[T, Op.LOG](dst, src, padded)
            elif op == Op.LOG1P:
                _map_unary[T, Op.LOG1P](dst, src, padded)
            elif op == Op.SQRT:
                _map_unary[T, Op.SQRT](dst, src, padded)
            elif op == Op.SIN:
                _map_unary[T, Op.SIN](dst, src, padded)
            elif op == Op.COS:
                _map_unary[T, Op.COS](dst, src, padded)
            elif op == Op.TANH:
                _map_unary[T, Op.TANH](dst, src, padded)
            elif op == Op.FLOOR:
                _map_unary[T, Op.FLOOR](dst, src, padded)
            elif op == Op.CEIL:
                _map_unary[T, Op.CEIL](dst, src, padded)
            elif op == Op.TRUNC:
                _map_unary[T, Op.TRUNC](dst, src, padded)
            elif op == Op.SIGN:
                _map_unary[T, Op.SIGN](dst, src, padded)
            elif op == Op.ISNAN:
                _map_unary[T, Op.ISNAN](dst, src, padded)
            elif op == Op.ISINF:
                _map_unary[T, Op.ISINF](dst, src, padded)
            elif op == Op.ISFINITE:
                _map_unary[T, Op.ISFINITE](dst, src, padded)
            elif op == Op.LOGICAL_NOT:
                _map_unary[T, Op.LOGICAL_NOT](dst, src, padded)
            elif op == Op.POSITIVE:
                _map_unary[T, Op.POSITIVE](dst, src, padded)
            elif op == Op.BITWISE_INVERT:
                _map_unary[T, Op.BITWISE_INVERT](dst, src, padded)
            elif op == Op.SIGNBIT:
                _map_unary[T, Op.SIGNBIT](dst, src, padded)
            elif op == Op.ROUND:
                _map_unary[T, Op.ROUND](dst, src, padded)
            elif op == Op.TAN:
                _map_unary[T, Op.TAN](dst, src, padded)
            elif op == Op.ASIN:
                _map_unary[T, Op.ASIN](dst, src, padded)
            elif op == Op.ACOS:
                _map_unary[T, Op.ACOS](dst, src, padded)
            elif op == Op.ATAN:
                _map_unary[T, Op.ATAN](dst, src, padded)
            elif op == Op.SINH:
                _map_unary[T, Op.SINH](dst, src, padded)
            elif op == Op.COSH:
                _map_unary[T, Op.COSH](dst, src, padded)
        elif op < Op.BINARY_END:
            var p = regs + a * stride
            var q = regs + b * stride
            if op == Op.ADD:
                _map_binary[T, Op.ADD](dst, p, q, padded)
            elif op == Op.SUBTRACT:
                _map_binary[T, Op.SUBTRACT](dst, p, q, padded)
            elif op == Op.MULTIPLY:
                _map_binary[T, Op.MULTIPLY](dst, p, q, padded)
            elif op == Op.DIVIDE:
                _map_binary[T, Op.DIVIDE](dst, p, q, padded)
            elif op == Op.MAXIMUM:
                _map_binary[T, Op.MAXIMUM](dst, p, q, padded)
            elif op == Op.MINIMUM:
                _map_binary[T, Op.MINIMUM](dst, p, q, padded)
            elif op == Op.EQUAL:
                _map_binary[T, Op.EQUAL](dst, p, q, padded)
            elif op == Op.NOT_EQUAL:
                _map_binary[T, Op.NOT_EQUAL](dst, p, q, padded)
            elif op == Op.GREATER:
                _map_binary[T, Op.GREATER](dst, p, q, padded)
            elif op == Op.GREATER_EQUAL:
                _map_binary[T, Op.GREATER_EQUAL](dst, p, q, padded)
            elif op == Op.LESS:
                _map_binary[T, Op.LESS](dst, p, q, padded)
            elif op == Op.LESS_EQUAL:
                _map_binary[T, Op.LESS_EQUAL](dst, p, q, padded)
            elif op == Op.LOGICAL_AND:
                _map_binary[T, Op.LOGICAL_AND](dst, p, q, padded)
            elif op == Op.LOGICAL_OR:
                _map_binary[T, Op.LOGICAL_OR](dst, p, q, padded)
            elif op == Op.LOGICAL_XOR:
                _map_binary[T, Op.LOGICAL_XOR](dst, p, q, padded)
            elif op == Op.BITWISE_AND:
                _map_binary[T, Op.BITWISE_AND](dst, p, q, padded)
            elif op == Op.BITWISE_OR:
                _map_binary[T, Op.BITWISE_OR](dst, p, q, padded)
            elif op == Op.BITWISE_XOR:
                _map_binary[T, Op.BITWISE_XOR](dst, p, q, padded)
            elif op == Op.FLOOR_DIVIDE:
                _map_binary[T, Op.FLOOR_DIVIDE](dst, p, q, padded)
            elif op == Op.REMAINDER:
                _map_binary[T, Op.REMAINDER](dst, p, q, padded)
        elif op == Op.POW:  # power
            _map_binary[T, Op.POW](dst, regs + a * stride, regs + b * stride, padded)
        elif op == Op.ATAN2:  # atan2 (the float family's only)
            comptime if T.is_floating_point():
                _map_binary[T, Op.ATAN2](dst, regs + a * stride, regs + b * stride, padded)
        elif op == Op.HYPOT:  # hypot (the float family's only)
            comptime if T.is_floating_point():
                _map_binary[T, Op.HYPOT](dst, regs + a * stride, regs + b * stride, padded)
        elif op == Op.LOGADDEXP:  # logaddexp (the float family's only)
            comptime if T.is_floating_point():
                _map_binary[T, Op.LOGADDEXP](dst, regs + a * stride, regs + b * stride, padded)
        elif op == Op.COPYSIGN:  # copysign (the float family's only)
            comptime if T.is_floating_point():
                _map_binary[T, Op.COPYSIGN](dst, regs + a * stride, regs + b * stride, padded)
        elif op == Op.NEXTAFTER:  # nextafter (the float family's only)
            comptime if T.is_floating_point():
                _map_binary[T, Op.NEXTAFTER](dst, regs + a * stride, regs + b * stride, padded)
        elif op >= Op.HALF_BINARY_FIRST and op < Op.HALF_BINARY_END:  # the float family's forms on float16 data
            comptime if T.is_floating_point():
                if op == Op.H_NEXTAFTER:
                    _map_binary[T, Op.H_NEXTAFTER](dst, regs + a * stride, regs + b * stride, padded)
        elif op >= Op.UNSIGNED_UNARY_FIRST and op < Op.UNSIGNED_BINARY_END:  # the integer family's forms for uint64 operands
            comptime if not T.is_floating_point():
                if op == Op.U_SIGN:
                    _map_unary[T, Op.U_SIGN](dst, regs + a * stride, padded)
                elif op == Op.U_MAXIMUM:
                    _map_binary[T, Op.U_MAXIMUM](dst, regs + a * stride, regs + b * stride, padded)
                elif op == Op.U_MINIMUM:
                    _map_binary[T, Op.U_MINIMUM](dst, regs + a * stride, regs + b * stride, padded)
                elif op == Op.U_GREATER:
                    _map_binary[T, Op.U_GREATER](dst, regs + a * stride, regs + b * stride, padded)
                elif op == Op.U_GREATER_EQUAL:
                    _map_binary[T, Op.U_GREATER_EQUAL](dst, regs + a * stride, regs + b * stride, padded)
                elif op == Op.U_LESS:
                    _map_binary[T, Op.U_LESS](dst, regs + a * stride, regs + b * stride, padded)
                elif op == Op.U_LESS_EQUAL:
                    _map_binary[T, Op.U_LESS_EQUAL](dst, regs + a * stride, regs + b * stride, padded)
                elif op == Op.U_FLOOR_DIVIDE:
                    _map_binary[T, Op.U_FLOOR_DIVIDE](dst, regs + a * stride, regs + b * stride, padded)
                elif op == Op.U_REMAINDER:
                    _map_binary[T, Op.U_REMAINDER](dst, regs + a * stride, regs + b * stride, padded)
                elif op == Op.U_BITWISE_RIGHT_SHIFT:
                    _map_binary[T, Op.U_BITWISE_RIGHT_SHIFT](dst, regs + a * stride, regs + b * stride, padded)
        elif op >= Op.MORE_UNARY_FIRST and op < Op.MORE_UNARY_END:  # more of the float family's unary functions
            comptime if T.is_floating_point():
                var src = regs + a * stride
                if op == Op.ASINH:
                    _map_unary[T, Op.ASINH](dst, src, padded)
                elif op == Op.ACOSH:
                    _map_unary[T, Op.ACOSH](dst, src, padded)
                elif op == Op.ATANH:
                    _map_unary[T, Op.ATANH](dst, src, padded)
                elif op == Op.LOG2:
                    _map_unary[T, Op.LOG2](dst, src, padded)
                elif op == Op.LOG10:
                    _map_unary[T, Op.LOG10](dst, src, padded)
        elif op == Op.BITWISE_LEFT_SHIFT or op == Op.BITWISE_RIGHT_SHIFT:  # the shifts (the integer family's only)
            comptime if not T.is_floating_point():
                var p = regs + a * stride
                var q = regs + b * stride
                if op == Op.BITWISE_LEFT_SHIFT:
                    _map_binary[T, Op.BITWISE_LEFT_SHIFT](dst, p, q, padded)
                else:
                    _map_binary[T, Op.BITWISE_RIGHT_SHIFT](dst, p, q, padded)
        elif op == Op.GATHER:  # gather from data slot a at the positions in register b (view at consts[c - 1])
            var src = slot[S](data, a)
            _gather[S, T](dst, src, regs + b * stride, start, count, consts + (c - 1))
        elif op == Op.AXIS_INDEX:  # the index along one axis of the trace's elements: (element // a) % b
            var q = start // a  # (kept as the element advances: no division per element)
            var r = start - q * a
            q %= b
            for i in range(count):
                dst.unsafe_store(i, Scalar[T](q))
                r += 1
                if r == a:
                    r = 0
                    q = q + 1 if q + 1 < b else 0
        elif op == Op.WRAP:  # wrap register a to the dtype code b (integers), or round it to float16 (b = Code.FLOAT16)
            var src = regs + a * stride
            comptime if not T.is_floating_point():
                for i in range(0, padded, w):
                    dst.unsafe_store(i, _wrap[w](b, src.unsafe_load[width=w](i).cast[DType.int64]()).cast[T]())
            else:
                if b == Code.FLOAT16:  # (float16 work runs in float32 registers, rounded after each op as NumPy's is)
                    for i in range(0, padded, w):
                        dst.unsafe_store(i, src.unsafe_load[width=w](i).cast[DType.float16]().cast[T]())
        else:  # Op.WHERE: where(a != 0, b, c)
            var m = regs + a * stride
            var p = regs + b * stride
            var q = regs + c * stride
            for i in range(0, padded, w):
                dst.unsafe_store(i, m.unsafe_load[width=w](i).ne(0).select(p.unsafe_load[width=w](i), q.unsafe_load[width=w](i)))


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
def _store_strided_as[T: DType, D: DType](dst: UnsafePointer[UInt8, MutAnyOrigin], src: UnsafePointer[Scalar[T], _],
                                          start: Int, count: Int, layout: UnsafePointer[Float64, _]):
    """Values ``start .. start + count`` of a program's elements written through a strided layout of
    the output (``[rank, offset, then (size, stride) per axis]``, as loads read: a slice write)."""
    comptime w = simd_width_of[T]()
    var out = dst.unsafe_bitcast[Scalar[D]]()
    var rank = Int(layout.unsafe_load(0))
    var index = alloc[Int](max(rank, 1))
    var at = Int(layout.unsafe_load(1))
    var rest = start
    for d in range(rank - 1, -1, -1):
        var size = Int(layout.unsafe_load(2 + 2 * d))
        var i = rest % size
        rest //= size
        index.unsafe_store(d, i)
        at += i * Int(layout.unsafe_load(3 + 2 * d))
    if rank == 0:
        out.unsafe_store(at, as_stored[D, T, 1](src.unsafe_load[width=1](0)))
        index.free()
        return
    var last = rank - 1
    var n_last = Int(layout.unsafe_load(2 + 2 * last))
    var s_last = Int(layout.unsafe_load(3 + 2 * last))
    var done = 0
    while done < count:
        var run = min(n_last - index.unsafe_load(last), count - done)
        if s_last == 1:
            var whole = run // w * w
            for i in range(0, whole, w):
                out.unsafe_store(at + i, as_stored[D, T, w](src.unsafe_load[width=w](done + i)))
            for i in range(whole, run):
                out.unsafe_store(at + i, as_stored[D, T, 1](src.unsafe_load[width=1](done + i)))
        else:
            for i in range(run):
                out.unsafe_store(at + i * s_last, as_stored[D, T, 1](src.unsafe_load[width=1](done + i)))
        done += run
        at += run * s_last
        index.unsafe_store(last, index.unsafe_load(last) + run)
        var d = last
        while d > 0 and index.unsafe_load(d) == Int(layout.unsafe_load(2 + 2 * d)):
            at -= Int(layout.unsafe_load(2 + 2 * d)) * Int(layout.unsafe_load(3 + 2 * d))
            index.unsafe_store(d, 0)
            d -= 1
            index.unsafe_store(d, index.unsafe_load(d) + 1)
            at += Int(layout.unsafe_load(3 + 2 * d))
    index.free()


@always_inline
def store_strided[T: DType](code: Int, dst: UnsafePointer[UInt8, MutAnyOrigin], src: UnsafePointer[Scalar[T], _],
                            start: Int, count: Int, layout: UnsafePointer[Float64, _]):
    """``store_coded`` through a strided layout of the output (a slice write)."""
    if code == Code.INT8:
        _store_strided_as[T, DType.int8](dst, src, start, count, layout)
    elif code == Code.INT16:
        _store_strided_as[T, DType.int16](dst, src, start, count, layout)
    elif code == Code.INT32:
        _store_strided_as[T, DType.int32](dst, src, start, count, layout)
    elif code == Code.INT64:
        _store_strided_as[T, DType.int64](dst, src, start, count, layout)
    elif code == Code.UINT16:
        _store_strided_as[T, DType.uint16](dst, src, start, count, layout)
    elif code == Code.UINT32:
        _store_strided_as[T, DType.uint32](dst, src, start, count, layout)
    elif code == Code.FLOAT32:
        _store_strided_as[T, DType.float32](dst, src, start, count, layout)
    elif code == Code.FLOAT64:
        _store_strided_as[T, DType.float64](dst, src, start, count, layout)
    elif code == Code.FLOAT16:
        _store_strided_as[T, DType.float16](dst, src, start, count, layout)
    elif code == Code.UINT64:
        _store_strided_as[T, DType.uint64](dst, src, start, count, layout)
    else:
        _store_strided_as[T, DType.uint8](dst, src, start, count, layout)


def map_into[T: DType, S: DType](p: UnsafePointer[Int32, _], k: UnsafePointer[Float64, _], data: UnsafePointer[Int, _],
                                 dst: UnsafePointer[UInt8, MutAnyOrigin], n: Int, layout: UnsafePointer[Float64, _],
                                 strided: Bool) raises:
    """Evaluate a program over ``n`` elements into ``dst``: in order, or (``strided``) through the
    output's ``layout``. Float data: S = T, the output of T (``code``: its dtype code, for a strided
    store); bytes (S = uint8): the output's dtype code in the program's header."""
    comptime w = simd_width_of[T]()
    var code = Int(p.unsafe_load(5))
    comptime if S == T:
        code = _code_of[T]()
    var blocks = (n + BLOCK - 1) // BLOCK
    var tasks = (blocks + BLOCKS_PER_TASK - 1) // BLOCKS_PER_TASK
    var result = Int(p.unsafe_load(1))
    var stride = register_stride[T](n)

    var memory = registers_used(p) * stride  # (a task's registers: counted once for every task)
    def task(t: Int) {memory, dst, p, k, data, n, blocks, result, code, stride, layout, strided}:
        var regs = alloc[Scalar[T]](memory)
        var last = min(blocks, (t + 1) * BLOCKS_PER_TASK)
        for blk in range(t * BLOCKS_PER_TASK, last):
            var start = blk * BLOCK
            var count = min(BLOCK, n - start)
            _run_block[T, S](p, k, data, regs, stride, start, count)
            var r = regs + result * stride
            if strided:
                store_strided[T](code, dst, r, start, count, layout)
            else:
                comptime if S == T:
                    var typed = dst.unsafe_bitcast[Scalar[T]]()
                    var whole = count // w * w
                    for i in range(0, whole, w):
                        typed.unsafe_store(start + i, r.unsafe_load[width=w](i))
                    for i in range(whole, count):
                        typed.unsafe_store(start + i, r.unsafe_load(i))
                else:
                    store_coded[T](code, dst, r, start, count)
        regs.free()

    # NumPy keeps denormals; MAX's worker threads, on which ``parallelize`` runs the tasks, flush
    # them to zero: each task keeps them, on whichever thread runs it
    def kept(t: Int) {task}:
        with KeepDenormals():
            task(t)

    if tasks == 1 or n < SERIAL_ELEMENTS:
        for t in range(tasks):
            kept(t)
    else:
        parallelize(kept, tasks)
