# The fused evaluator's exponentials, logarithms and powers of floats (see fused.mojo): exp, expm1,
# log2, sinh, cosh and power, accurate where std.math's are not (std exp is off by up to ~2.5e6 ulp
# in float64, std log2 ~1e-9 relative). exp, expm1, sinh, cosh and power take the same steps as the
# lowerings of MAX's graphs (nabla/ops/lowerings.py, transcendental_lowerings.py), so the fused
# kernel and a graph give the same bits. NaN and infinities are read from bits (fused_bits.mojo):
# the kernels assume fast math.
from std.math import exp, expm1, floor, fma, log, sqrt
from std.memory import bitcast
from .fused_bits import _is_inf, _is_nan, _keep_nan


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
def _exp64[w: Int](x: SIMD[DType.float64, w], xl: SIMD[DType.float64, w] = 0) -> SIMD[DType.float64, w]:
    # float64 exp within an ulp (std exp is off by up to ~2.5e6 ulp here). The algorithm of fdlibm's
    # e_exp.c (Sun Microsystems, 1993), as lowerings.exp writes it for MAX's graphs (same ops, same
    # bits): x = k ln2 + r with |r| <= ln2/2, ln2 in two parts (Cody and Waite: k * LN2_HI is
    # exact); e^r = 1 + 2r / (2 - c) with c = r - r^2 P(r^2), P a degree-5 Remez fit; times 2^k as
    # two exact powers of two, so a subnormal result is rounded once. ``xl``: a low part of x (a
    # double-double x + xl, power's), taken into the reduced argument's own low part.
    comptime F = DType.float64
    var k = floor(x * 1.44269504088896338700 + 0.5)
    var hi = x - k * 6.93147180369123816490e-01
    var lo = k * 1.90821492927058770002e-10 - xl
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


comptime _F64 = DType.float64
# ln 2 in two parts (fdlibm's): the high part has 32 trailing zero bits, so e * LN2_HI is exact
comptime LN2_HI = 6.93147180369123816490e-01
comptime LN2_LO = 1.90821492927058770002e-10
# 2/3 in two parts: 2/3 = TWO_THIRDS_HI + TWO_THIRDS_LO to ~2^-107
comptime TWO_THIRDS_HI = 0.6666666666666666
comptime TWO_THIRDS_LO = 3.700743415417188e-17


@always_inline
def _dd_mul[w: Int](ah: SIMD[_F64, w], al: SIMD[_F64, w], bh: SIMD[_F64, w],
                    bl: SIMD[_F64, w]) -> Tuple[SIMD[_F64, w], SIMD[_F64, w]]:
    # (ah + al)(bh + bl) as a double-double (Dekker's product: the fma gives ah bh's rounding error);
    # past overflow the infinity alone (its low part would be NaN, and NaN spreads)
    var p = ah * bh
    var e = fma(ah, bh, -p) + (ah * bl + al * bh)
    var big = _is_inf(p)
    var hi = big.select(p, p + e)
    return (hi, big.select(SIMD[_F64, w](0), e - (hi - p)))


@always_inline
def _two_sum[w: Int](a: SIMD[_F64, w], b: SIMD[_F64, w]) -> Tuple[SIMD[_F64, w], SIMD[_F64, w]]:
    # a + b and its rounding error, exactly (Knuth)
    var s = a + b
    var bb = s - a
    return (s, (a - (s - bb)) + (b - bb))


@always_inline
def _log_dd[w: Int](x: SIMD[_F64, w]) -> Tuple[SIMD[_F64, w], SIMD[_F64, w]]:
    # log x of a positive finite x as a double-double, error ~2^-70 absolute: x = m 2^e with m in
    # [sqrt(1/2), sqrt(2)), log m = 2 atanh(s) = 2s + 2s^3/3 + 2s^5/5 + ... with s = (m - 1) /
    # (m + 1) = sh + sl (|s| <= 0.172): 2s, 2s^3/3 and e ln 2 in two parts each, the rest (at most
    # 6e-5 of log m) in one.
    var tiny = x.lt(SIMD[_F64, w](2.2250738585072014e-308))
    var scaled = tiny.select(x * SIMD[_F64, w](18014398509481984.0), x)  # 2^54
    var bits = bitcast[DType.int64, w](scaled)
    var e = ((bits >> 52) & 0x7FF) - 1023
    var m = bitcast[_F64, w]((bits & ((1 << 52) - 1)) | (1023 << 52))
    var high = m.gt(SIMD[_F64, w](1.4142135623730951))
    m = high.select(m * 0.5, m)
    var ef = (e + high.select(SIMD[DType.int64, w](1), SIMD[DType.int64, w](0))
              - tiny.select(SIMD[DType.int64, w](54), SIMD[DType.int64, w](0))).cast[_F64]()
    var f = m - 1.0  # (exact: Sterbenz)
    var dh = m + 1.0
    var dl = m - (dh - 1.0)  # (m + 1 = dh + dl exactly)
    var sh = f / dh
    var sl = (fma(-sh, dh, f) - sh * dl) / dh
    var s2h = sh * sh
    var s2l = fma(sh, sh, -s2h) + 2.0 * sh * sl
    var s3 = _dd_mul[w](s2h, s2l, sh, sl)
    var third = _dd_mul[w](s3[0], s3[1], SIMD[_F64, w](TWO_THIRDS_HI), SIMD[_F64, w](TWO_THIRDS_LO))  # 2s^3/3
    var rest = s3[0] * s2h * (2.0 / 5.0 + s2h * (2.0 / 7.0 + s2h * (2.0 / 9.0 + s2h * (2.0 / 11.0 + s2h * (
        2.0 / 13.0 + s2h * (2.0 / 15.0 + s2h * (2.0 / 17.0 + s2h * (2.0 / 19.0 + s2h * (2.0 / 21.0 + s2h * (
            2.0 / 23.0 + s2h * (2.0 / 25.0 + s2h * (2.0 / 27.0))))))))))))
    var first = _two_sum[w](ef * LN2_HI, sh * 2.0)
    var second = _two_sum[w](first[0], third[0])
    var lo = (first[1] + second[1]) + (third[1] + (ef * LN2_LO + (sl * 2.0 + rest)))
    var hi = second[0]
    var h = hi + lo
    return (h, lo - (h - hi))


@always_inline
def _pow[T: DType, w: Int](x: SIMD[T, w], y: SIMD[T, w]) -> SIMD[T, w]:
    # NumPy's power (C99's pow) in float64, within about an ulp, rounded once to T: an integral y
    # below 2^31 by square and multiply in double-double (exact where the power is: 10.0 ** 3),
    # any other as e^(y log|x|) with log|x| and its product with y in double-double, the low part
    # taken into exp's reduced argument (in plain doubles both lose |y log x| ulp: 1.0000001 ** 1e8
    # was off by 5.6e-9); y = 0.5 as sqrt; the sign from an odd integral y; the limits at 0, 1,
    # infinities and NaN of C99's Annex F, as transcendental_lowerings.power writes them for MAX's
    # graphs.
    comptime F = DType.float64
    var a = x.cast[F]()
    var b = y.cast[F]()
    var ax = abs(a)
    var safe = ax.eq(0).select(SIMD[F, w](1), ax)
    var integral = floor(b).eq(b)
    var counted = integral & abs(b).lt(SIMD[F, w](2147483648.0))
    var n = counted.select(abs(b), SIMD[F, w](0)).cast[DType.int64]()
    var bh = safe
    var bl = SIMD[F, w](0)
    var ph = SIMD[F, w](1)
    var pl = SIMD[F, w](0)
    while n.ne(0).reduce_or():
        var odd_bit = (n & 1).eq(1)
        var t = _dd_mul[w](ph, pl, bh, bl)
        ph = odd_bit.select(t[0], ph)
        pl = odd_bit.select(t[1], pl)
        var sq = _dd_mul[w](bh, bl, bh, bl)
        bh = sq[0]
        bl = sq[1]
        n = n >> 1
    var finite = ~_is_inf(ph) & ph.ne(0)  # (past overflow or underflow the low part is no correction)
    var r = 1.0 / ph
    var inverse = (finite & ~_is_inf(r)).select(r + r * (fma(-ph, r, SIMD[F, w](1)) - pl * r), r)
    var power = b.lt(0).select(inverse, finite.select(ph + pl, ph))
    var mag = power
    if (~counted).reduce_or():  # (a vector of integral exponents, x ** 7, skips the logarithm)
        var lg = _log_dd[w](safe)
        var qh = b * lg[0]
        var ql = fma(b, lg[0], -qh) + b * lg[1]
        mag = counted.select(power, _exp64(qh, _is_inf(qh).select(SIMD[F, w](0), ql)))
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
