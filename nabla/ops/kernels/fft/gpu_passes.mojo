# The GPU path's arithmetic (gpu.mojo runs it): roots of unity, the radix-R butterflies of a
# mixed-radix Stockham pass, and the index math they share. Plain functions over pointers in any
# address space, so tests/mojo/fft_gpu_math.mojo runs them on the CPU too.
#
# Roots of unity are computed in float64 from exact integer fractions of a turn (num / den),
# reduced to an octant and summed as Taylor series: MAX's cos and sin refuse float64 on NVIDIA
# GPUs, and float32 arguments would cost float32 results their accuracy. Index division runs in
# 32 bits where the operands fit: GPUs emulate 64-bit division in dozens of instructions.
from max.gpu.memory import AddressSpace

#: a butterfly's R values (comptime indices only: registers)
comptime Lanes[T: DType, R: Int] = SIMD[T, 2 if R <= 2 else (4 if R <= 4 else (8 if R <= 8 else 16))]


def radix_of(m: Int) -> Int:
    """The next pass' radix for a length-m remainder (0: a prime factor above 13)."""
    if m % 8 == 0:
        return 8
    if m % 4 == 0:
        return 4
    if m % 2 == 0:
        return 2
    if m % 3 == 0:
        return 3
    if m % 5 == 0:
        return 5
    if m % 7 == 0:
        return 7
    if m % 11 == 0:
        return 11
    return 13 if m % 13 == 0 else 0


def plan_of(m: Int) -> Int:
    """The radices of an m-point transform packed 4 bits each, first pass lowest (-1: not
    13-smooth, or more passes than fit)."""
    var code = 0
    var shift = 0
    var rest = m
    while rest > 1:
        var r = radix_of(rest)
        if r == 0 or shift >= 60:
            return -1
        code |= r << shift
        shift += 4
        rest //= r
    return code


@always_inline
def divmod32(a: Int, b: Int) -> Tuple[Int, Int]:
    """a // b and a % b for 0 <= a, 0 < b: in 32 bits where both fit."""
    if (a | b) < (1 << 31):
        var q = Int(UInt32(a) // UInt32(b))
        return (q, a - q * b)
    var q = a // b
    return (q, a - q * b)


@always_inline
def pad[PAD: Bool](i: Int) -> Int:
    """A shared-memory offset with one spare scalar per 32: the passes' power-of-two strides then
    fall on different banks."""
    comptime if PAD:
        return i + (i >> 5)
    return i


def padded_size(scalars: Int) -> Int:
    return scalars + (scalars >> 5) + 1


@always_inline
def turn(num: Int, den: Int) -> Tuple[Float64, Float64]:
    """cos and sin of 2 pi num / den (0 <= num), exact to float64 rounding."""
    var u = 8 * (num if num < den else divmod32(num, den)[1])
    var q = divmod32(u, den)[0]  # the octant
    var t = u - q * den
    var odd = (q & 1) == 1
    if odd:
        t = den - t
    var x = 0.78539816339744830962 * (Float64(t) / Float64(den))  # in [0, pi / 4]
    var x2 = x * x
    var s = x * (1.0 + x2 * (-1.0 / 6.0 + x2 * (1.0 / 120.0 + x2 * (-1.0 / 5040.0 + x2 * (1.0 / 362880.0
            + x2 * (-1.0 / 39916800.0 + x2 * (1.0 / 6227020800.0 + x2 * (-1.0 / 1307674368000.0))))))))
    var c = 1.0 + x2 * (-0.5 + x2 * (1.0 / 24.0 + x2 * (-1.0 / 720.0 + x2 * (1.0 / 40320.0 + x2 * (
            -1.0 / 3628800.0 + x2 * (1.0 / 479001600.0 + x2 * (-1.0 / 87178291200.0
            + x2 * (1.0 / 20922789888000.0))))))))
    # the angle is k quarter turns plus x (even octants) or minus x (odd ones)
    var k = ((q + 1) >> 1) & 3 if odd else (q >> 1) & 3
    if odd:
        s = -s
    if k == 0:
        return (c, s)
    if k == 1:
        return (-s, c)
    if k == 2:
        return (-c, -s)
    return (s, -c)


@always_inline
def root[T: DType](num: Int, den: Int, sign: Float64) -> Tuple[Scalar[T], Scalar[T]]:
    """exp(sign 2 pi i num / den) rounded to T."""
    var cs = turn(num, den)
    return (Scalar[T](cs[0]), Scalar[T](sign * cs[1]))


@always_inline
def cmul[T: DType](re: Scalar[T], im: Scalar[T], w: Tuple[Scalar[T], Scalar[T]]) -> Tuple[Scalar[T], Scalar[T]]:
    return (re * w[0] - im * w[1], re * w[1] + im * w[0])


@always_inline
def _dft[T: DType, R: Int](mut vr: Lanes[T, R], mut vi: Lanes[T, R], sign: Float64):
    """The R-point DFT of (vr, vi) in place."""
    var s = Scalar[T](sign)
    comptime if R == 2:
        var ar = vr[0]
        var ai = vi[0]
        vr[0] = ar + vr[1]
        vi[0] = ai + vi[1]
        vr[1] = ar - vr[1]
        vi[1] = ai - vi[1]
    elif R == 4:
        var t0r = vr[0] + vr[2]
        var t0i = vi[0] + vi[2]
        var t1r = vr[0] - vr[2]
        var t1i = vi[0] - vi[2]
        var t2r = vr[1] + vr[3]
        var t2i = vi[1] + vi[3]
        var t3r = -s * (vi[1] - vi[3])  # (a1 - a3) times the quarter turn sign i
        var t3i = s * (vr[1] - vr[3])
        vr[0] = t0r + t2r
        vi[0] = t0i + t2i
        vr[2] = t0r - t2r
        vi[2] = t0i - t2i
        vr[1] = t1r + t3r
        vi[1] = t1i + t3i
        vr[3] = t1r - t3r
        vi[3] = t1i - t3i
    elif R == 8:  # two 4-point DFTs (even and odd samples) joined by the eighth roots
        var er = Lanes[T, 4](0)
        var ei = Lanes[T, 4](0)
        var orr = Lanes[T, 4](0)
        var oi = Lanes[T, 4](0)
        comptime for i in range(4):
            er[i] = vr[2 * i]
            ei[i] = vi[2 * i]
            orr[i] = vr[2 * i + 1]
            oi[i] = vi[2 * i + 1]
        _dft[T, 4](er, ei, sign)
        _dft[T, 4](orr, oi, sign)
        var h = Scalar[T](0.70710678118654752440)
        # w^k O[k] for w = (1 + sign i) / sqrt 2
        var pr = Lanes[T, 4](orr[0], h * (orr[1] - s * oi[1]), -s * oi[2], h * (-orr[3] - s * oi[3]))
        var pi = Lanes[T, 4](oi[0], h * (oi[1] + s * orr[1]), s * orr[2], h * (-oi[3] + s * orr[3]))
        comptime for k in range(4):
            vr[k] = er[k] + pr[k]
            vi[k] = ei[k] + pi[k]
            vr[k + 4] = er[k] - pr[k]
            vi[k + 4] = ei[k] - pi[k]
    else:  # an odd prime: the direct sum over the R-th roots
        var cr = Lanes[T, R](0)
        var ci = Lanes[T, R](0)
        comptime for i in range(R):
            var w = root[T](i, R, sign)
            cr[i] = w[0]
            ci[i] = w[1]
        var ur = vr
        var ui = vi
        comptime for k in range(1, R):
            var sr = vr[0]
            var si = vi[0]
            comptime for r in range(1, R):
                comptime e = (r * k) % R
                sr += vr[r] * cr[e] - vi[r] * ci[e]
                si += vr[r] * ci[e] + vi[r] * cr[e]
            ur[k] = sr
            ui[k] = si
        comptime for r in range(1, R):
            ur[0] += vr[r]
            ui[0] += vi[r]
        vr = ur
        vi = ui


@always_inline
def stage[T: DType, R: Int, PAD: Bool, address_space: AddressSpace](
        dst: UnsafePointer[Scalar[T], MutAnyOrigin, address_space=address_space],
        src: UnsafePointer[Scalar[T], MutAnyOrigin, address_space=address_space], base: Int, j: Int, m: Int,
        ns: Int, sign: Float64):
    """Butterfly j of a radix-R Stockham pass over the m-point row at scalar offset ``base``: R
    transforms of span ns -> one of span ns R (Stockham autosort: no bit reversal; the form of
    Govindaraju et al., "High performance discrete Fourier transforms on graphics processors",
    SC 2008)."""
    var k1 = divmod32(j, ns)[1]
    var stride = m // R
    var w = turn(k1, ns * R)
    var wr = w[0]
    var wi = sign * w[1]
    var pr = 1.0
    var pi = 0.0
    var vr = Lanes[T, R](0)
    var vi = Lanes[T, R](0)
    comptime for r in range(R):
        var at = base + 2 * (j + r * stride)
        var ar = src[pad[PAD](at)]
        var ai = src[pad[PAD](at + 1)]
        comptime if r == 0:
            vr[0] = ar
            vi[0] = ai
        else:  # times w^r, its powers multiplied up in float64
            var c = Scalar[T](pr)
            var s = Scalar[T](pi)
            vr[r] = ar * c - ai * s
            vi[r] = ar * s + ai * c
        var npr = pr * wr - pi * wi
        pi = pr * wi + pi * wr
        pr = npr
    _dft[T, R](vr, vi, sign)
    var o = (j - k1) * R + k1
    comptime for r in range(R):
        var at = base + 2 * (o + r * ns)
        dst[pad[PAD](at)] = vr[r]
        dst[pad[PAD](at + 1)] = vi[r]


@always_inline
def any_stage[T: DType, POW2: Bool, PAD: Bool, address_space: AddressSpace](
        dst: UnsafePointer[Scalar[T], MutAnyOrigin, address_space=address_space],
        src: UnsafePointer[Scalar[T], MutAnyOrigin, address_space=address_space], radix: Int, base: Int, j: Int,
        m: Int, ns: Int, sign: Float64):
    """``stage`` of a radix known at run time (POW2: only 8, 4 or 2, so a kernel for powers of two
    holds no odd radix' registers)."""
    if radix == 8:
        stage[T, 8, PAD](dst, src, base, j, m, ns, sign)
    elif radix == 4:
        stage[T, 4, PAD](dst, src, base, j, m, ns, sign)
    elif radix == 2:
        stage[T, 2, PAD](dst, src, base, j, m, ns, sign)
    else:
        comptime if not POW2:
            if radix == 3:
                stage[T, 3, PAD](dst, src, base, j, m, ns, sign)
            elif radix == 5:
                stage[T, 5, PAD](dst, src, base, j, m, ns, sign)
            elif radix == 7:
                stage[T, 7, PAD](dst, src, base, j, m, ns, sign)
            elif radix == 11:
                stage[T, 11, PAD](dst, src, base, j, m, ns, sign)
            else:
                stage[T, 13, PAD](dst, src, base, j, m, ns, sign)
