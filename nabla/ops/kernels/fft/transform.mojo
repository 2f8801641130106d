# Complex FFT of one row, any length, on split real/imaginary planes.
#
# Smooth lengths (factors 2, 3, 5, 7, 11, 13) run the Stockham autosort algorithm, decimation in
# frequency (Cooley & Tukey 1965; Stockham 1966; Van Loan, "Computational Frameworks for the FFT",
# 1992, 1.7): each pass reads x[q + s(p + k m)] and writes y[q + s(r p + j)], so the result comes
# out in natural order with no bit reversal, and the innermost loop (over q) is contiguous, which
# is what the SIMD path vectorizes once s reaches the vector width. Other lengths use Bluestein's
# chirp-z algorithm (Bluestein 1970): a circular convolution through power-of-two transforms of
# length M >= 2n - 1, so a prime length costs about what a power of two near 2n does.
#
# Twiddles are computed in float64 (two-level tables: e^(2 pi i k / n) = hi[k / B] lo[k % B], with
# hi and lo from sin/cos, so the error stays a few ulps) and stored in the data's precision; the
# chirp's angle comes from k^2 mod 2n in integers. Tables hold cos and sin of +2 pi k / n; the
# transform's sign is applied where they are read, so one table serves both directions.
from std.math import cos, sin, sqrt
from std.sys.info import simd_width_of
from max.algorithm import parallelize

comptime TAU = 6.283185307179586
#: a block at least this long (its transform's length times its lanes) is split over cores pass by
#: pass; below it, blocks are the unit of work. Measured on the 2-core machine, one process, CPU
#: time per call: a pass-by-pass split of 2^20 complex64 cost 23 ms of CPU against 13 ms serial,
#: and of prime n = 10007 (Bluestein, 20736-point passes) 3.6-8.8 ms against 1.2-1.3 ms, for no
#: gain in wall time (each pass's fork and join outweighs half a pass), so only rows far beyond
#: the L2 caches split (was 8192)
comptime PARALLEL_ROW = 1 << 22


@always_inline
def smooth_radices(n: Int) -> List[Int]:
    """The Stockham passes for n (8s, then 4, 16 or 2, then 3, 5, 7, 11, 13: fewer passes over memory),
    or an empty list when n has another prime factor (n == 1 too: nothing to do)."""
    var out = List[Int]()
    var rest = n
    var e = 0  # the power of two in n: radix-8 passes, the rest in one pass of 4, 2 or 16
    while rest % 2 == 0:
        rest //= 2
        e += 1
    for _ in range((e - 4) // 3 if e % 3 == 1 and e >= 4 else e // 3):
        out.append(8)
    if e % 3 == 2:
        out.append(4)
    elif e % 3 == 1:
        # a radix-2 pass joins the last radix-8 one as radix 16 (1024 = 8 8 16, 12% faster than
        # 8 8 8 2 on 16-lane blocks; 16 16 16 ran 5% slower than 8 8 8 8: its butterfly spills)
        out.append(16 if e >= 4 else 2)
    for r in [2, 3, 5, 7, 11, 13]:
        while rest % r == 0:
            out.append(r)
            rest //= r
    if rest != 1:
        return List[Int]()
    return out^


@always_inline
def is_smooth(n: Int) -> Bool:
    return n == 1 or len(smooth_radices(n)) > 0


def bluestein_length(n: Int) -> Int:
    """The smallest 2^a 3^b >= 2n - 1: the convolution's length (radix 8, 4, 2 and 3 passes only)."""
    var best = 1
    while best < 2 * n - 1:
        best *= 2
    var p3 = 1
    while p3 < 2 * n - 1:
        var m = p3
        while m < 2 * n - 1:
            m *= 2
        best = min(best, m)
        p3 *= 3
    return best


def fill_roots[T: DType](cr: UnsafePointer[mut=True, Scalar[T], _], si: UnsafePointer[mut=True, Scalar[T], _],
                         n: Int, count: Int):
    """cr[k], si[k] = cos, sin of 2 pi k / n for k < count, computed in float64."""
    if count <= 0:
        return
    var b = Int(sqrt(Float64(count))) + 1
    var lo = alloc[Float64](2 * b)
    for j in range(b):
        var a = TAU * Float64(j) / Float64(n)
        lo[2 * j] = cos(a)
        lo[2 * j + 1] = sin(a)
    var hi_count = (count + b - 1) // b
    for t in range(hi_count):
        var a = TAU * Float64((t * b) % n) / Float64(n)
        var hr = cos(a)
        var hs = sin(a)
        var end = min(count, (t + 1) * b)
        for k in range(t * b, end):
            var j = k - t * b
            var lr = lo[2 * j]
            var ls = lo[2 * j + 1]
            cr[k] = Scalar[T](hr * lr - hs * ls)
            si[k] = Scalar[T](hr * ls + hs * lr)
    lo.free()


# --- butterflies --------------------------------------------------------------------------------

@always_inline
def _twiddle[T: DType, v: Int](mut re: SIMD[T, v], mut im: SIMD[T, v], tr: Scalar[T], ti: Scalar[T]):
    var r = re * tr - im * ti
    im = re * ti + im * tr
    re = r


@always_inline
def _dft4[T: DType, v: Int](
    xr: UnsafePointer[Scalar[T], _], xi: UnsafePointer[Scalar[T], _], i0: Int, step: Int, sign: Scalar[T],
    mut b0r: SIMD[T, v], mut b0i: SIMD[T, v], mut b1r: SIMD[T, v], mut b1i: SIMD[T, v],
    mut b2r: SIMD[T, v], mut b2i: SIMD[T, v], mut b3r: SIMD[T, v], mut b3i: SIMD[T, v],
):
    """The 4-point DFT (omega = sign * i) of x[i0], x[i0 + step], x[i0 + 2 step], x[i0 + 3 step]."""
    var a0r = xr.load[width=v](i0)
    var a0i = xi.load[width=v](i0)
    var a1r = xr.load[width=v](i0 + step)
    var a1i = xi.load[width=v](i0 + step)
    var a2r = xr.load[width=v](i0 + 2 * step)
    var a2i = xi.load[width=v](i0 + 2 * step)
    var a3r = xr.load[width=v](i0 + 3 * step)
    var a3i = xi.load[width=v](i0 + 3 * step)
    var t0r = a0r + a2r
    var t0i = a0i + a2i
    var t1r = a0r - a2r
    var t1i = a0i - a2i
    var t2r = a1r + a3r
    var t2i = a1i + a3i
    var t3r = (a3i - a1i) * sign
    var t3i = (a1r - a3r) * sign
    b0r = t0r + t2r
    b0i = t0i + t2i
    b1r = t1r + t3r
    b1i = t1i + t3i
    b2r = t0r - t2r
    b2i = t0i - t2i
    b3r = t1r - t3r
    b3i = t1i - t3i


@always_inline
def _put[T: DType, v: Int](
    yr: UnsafePointer[mut=True, Scalar[T], _], yi: UnsafePointer[mut=True, Scalar[T], _],
    cr: UnsafePointer[Scalar[T], _], si: UnsafePointer[Scalar[T], _], sign: Scalar[T],
    at: Int, j: Int, tw: Int, p: Int, re: SIMD[T, v], im: SIMD[T, v],
):
    """Output j of a butterfly, times its twiddle w^(p j)."""
    var vr = re
    var vi = im
    if p != 0 and j != 0:
        _twiddle(vr, vi, cr[j * tw], sign * si[j * tw])
    yr.store(at, vr)
    yi.store(at, vi)


@always_inline
def _radix8[T: DType, v: Int](
    xr: UnsafePointer[Scalar[T], _], xi: UnsafePointer[Scalar[T], _],
    yr: UnsafePointer[mut=True, Scalar[T], _], yi: UnsafePointer[mut=True, Scalar[T], _],
    cr: UnsafePointer[Scalar[T], _], si: UnsafePointer[Scalar[T], _],
    sign: Scalar[T], i0: Int, step: Int, o0: Int, s: Int, tw: Int, p: Int,
):
    """An 8-point butterfly: 4-point DFTs of the even and odd inputs joined by the 8th roots."""
    comptime c = 0.7071067811865476
    var z = SIMD[T, v](0)
    var e0r = z
    var e0i = z
    var e1r = z
    var e1i = z
    var e2r = z
    var e2i = z
    var e3r = z
    var e3i = z
    var o0r = z
    var o0i = z
    var o1r = z
    var o1i = z
    var o2r = z
    var o2i = z
    var o3r = z
    var o3i = z
    _dft4[T, v](xr, xi, i0, 2 * step, sign, e0r, e0i, e1r, e1i, e2r, e2i, e3r, e3i)
    _dft4[T, v](xr, xi, i0 + step, 2 * step, sign, o0r, o0i, o1r, o1i, o2r, o2i, o3r, o3i)
    var h = Scalar[T](c)
    # omega8^j O_j, omega8 = (1 + sign i) / sqrt 2
    var w1r = (o1r - sign * o1i) * h
    var w1i = (sign * o1r + o1i) * h
    var w2r = -sign * o2i
    var w2i = sign * o2r
    var w3r = (-o3r - sign * o3i) * h
    var w3i = (sign * o3r - o3i) * h
    _put[T, v](yr, yi, cr, si, sign, o0, 0, tw, p, e0r + o0r, e0i + o0i)
    _put[T, v](yr, yi, cr, si, sign, o0 + s, 1, tw, p, e1r + w1r, e1i + w1i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 2 * s, 2, tw, p, e2r + w2r, e2i + w2i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 3 * s, 3, tw, p, e3r + w3r, e3i + w3i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 4 * s, 4, tw, p, e0r - o0r, e0i - o0i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 5 * s, 5, tw, p, e1r - w1r, e1i - w1i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 6 * s, 6, tw, p, e2r - w2r, e2i - w2i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 7 * s, 7, tw, p, e3r - w3r, e3i - w3i)


@always_inline
def _dft4_of[T: DType, v: Int](
    sign: Scalar[T], mut a0r: SIMD[T, v], mut a0i: SIMD[T, v], mut a1r: SIMD[T, v], mut a1i: SIMD[T, v],
    mut a2r: SIMD[T, v], mut a2i: SIMD[T, v], mut a3r: SIMD[T, v], mut a3i: SIMD[T, v],
):
    """In place, the 4-point DFT (omega = sign * i) of values held in registers."""
    var t0r = a0r + a2r
    var t0i = a0i + a2i
    var t1r = a0r - a2r
    var t1i = a0i - a2i
    var t2r = a1r + a3r
    var t2i = a1i + a3i
    var t3r = (a3i - a1i) * sign
    var t3i = (a1r - a3r) * sign
    a0r = t0r + t2r
    a0i = t0i + t2i
    a1r = t1r + t3r
    a1i = t1i + t3i
    a2r = t0r - t2r
    a2i = t0i - t2i
    a3r = t1r - t3r
    a3i = t1i - t3i


@always_inline
def _rotate[T: DType, v: Int](mut re: SIMD[T, v], mut im: SIMD[T, v], c: Scalar[T], s: Scalar[T]):
    """Times c + s i (s already carries the exponent's sign)."""
    var r = re * c - im * s
    im = re * s + im * c
    re = r


@always_inline
def _radix16[T: DType, v: Int](
    xr: UnsafePointer[Scalar[T], _], xi: UnsafePointer[Scalar[T], _],
    yr: UnsafePointer[mut=True, Scalar[T], _], yi: UnsafePointer[mut=True, Scalar[T], _],
    cr: UnsafePointer[Scalar[T], _], si: UnsafePointer[Scalar[T], _],
    sign: Scalar[T], i0: Int, step: Int, o0: Int, s: Int, tw: Int, p: Int,
):
    """A 16-point butterfly as 4 x 4 (j = j1 + 4 j2, k = k2 + 4 k1): 4-point DFTs over j2 for each
    j1, the inner twiddles omega16^(j1 k2), then 4-point DFTs over j1 for each k2. One pass where
    radix 8 and 2 took two (1024 = 8 8 16: three passes over memory, not four)."""
    comptime c1 = 0.9238795325112867  # cos(pi / 8)
    comptime s1 = 0.3826834323650898  # sin(pi / 8)
    comptime h = 0.7071067811865476
    var z = SIMD[T, v](0)
    # u[j1][k2] after the first 4-point DFTs, register names u<j1><k2>
    var u00r = z; var u00i = z; var u01r = z; var u01i = z; var u02r = z; var u02i = z; var u03r = z; var u03i = z
    var u10r = z; var u10i = z; var u11r = z; var u11i = z; var u12r = z; var u12i = z; var u13r = z; var u13i = z
    var u20r = z; var u20i = z; var u21r = z; var u21i = z; var u22r = z; var u22i = z; var u23r = z; var u23i = z
    var u30r = z; var u30i = z; var u31r = z; var u31i = z; var u32r = z; var u32i = z; var u33r = z; var u33i = z
    _dft4[T, v](xr, xi, i0, 4 * step, sign, u00r, u00i, u01r, u01i, u02r, u02i, u03r, u03i)
    _dft4[T, v](xr, xi, i0 + step, 4 * step, sign, u10r, u10i, u11r, u11i, u12r, u12i, u13r, u13i)
    _dft4[T, v](xr, xi, i0 + 2 * step, 4 * step, sign, u20r, u20i, u21r, u21i, u22r, u22i, u23r, u23i)
    _dft4[T, v](xr, xi, i0 + 3 * step, 4 * step, sign, u30r, u30i, u31r, u31i, u32r, u32i, u33r, u33i)
    var sc1 = sign * Scalar[T](c1)
    var ss1 = sign * Scalar[T](s1)
    var sh = sign * Scalar[T](h)
    # k2 = 0: no inner twiddles
    _dft4_of[T, v](sign, u00r, u00i, u10r, u10i, u20r, u20i, u30r, u30i)
    _put[T, v](yr, yi, cr, si, sign, o0, 0, tw, p, u00r, u00i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 4 * s, 4, tw, p, u10r, u10i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 8 * s, 8, tw, p, u20r, u20i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 12 * s, 12, tw, p, u30r, u30i)
    # k2 = 1: omega16^j1
    _rotate(u11r, u11i, Scalar[T](c1), ss1)
    _rotate(u21r, u21i, Scalar[T](h), sh)
    _rotate(u31r, u31i, Scalar[T](s1), sc1)
    _dft4_of[T, v](sign, u01r, u01i, u11r, u11i, u21r, u21i, u31r, u31i)
    _put[T, v](yr, yi, cr, si, sign, o0 + s, 1, tw, p, u01r, u01i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 5 * s, 5, tw, p, u11r, u11i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 9 * s, 9, tw, p, u21r, u21i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 13 * s, 13, tw, p, u31r, u31i)
    # k2 = 2: omega8^j1 (omega4 = sign i)
    _rotate(u12r, u12i, Scalar[T](h), sh)
    var t = u22r
    u22r = -sign * u22i
    u22i = sign * t
    _rotate(u32r, u32i, Scalar[T](-h), sh)
    _dft4_of[T, v](sign, u02r, u02i, u12r, u12i, u22r, u22i, u32r, u32i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 2 * s, 2, tw, p, u02r, u02i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 6 * s, 6, tw, p, u12r, u12i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 10 * s, 10, tw, p, u22r, u22i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 14 * s, 14, tw, p, u32r, u32i)
    # k2 = 3: omega16^(3 j1): omega16^3, omega8^3, omega16^9 = -omega16
    _rotate(u13r, u13i, Scalar[T](s1), sc1)
    _rotate(u23r, u23i, Scalar[T](-h), sh)
    _rotate(u33r, u33i, Scalar[T](-c1), -ss1)
    _dft4_of[T, v](sign, u03r, u03i, u13r, u13i, u23r, u23i, u33r, u33i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 3 * s, 3, tw, p, u03r, u03i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 7 * s, 7, tw, p, u13r, u13i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 11 * s, 11, tw, p, u23r, u23i)
    _put[T, v](yr, yi, cr, si, sign, o0 + 15 * s, 15, tw, p, u33r, u33i)


@always_inline
def _pass_block[T: DType, v: Int](
    xr: UnsafePointer[Scalar[T], _], xi: UnsafePointer[Scalar[T], _],
    yr: UnsafePointer[mut=True, Scalar[T], _], yi: UnsafePointer[mut=True, Scalar[T], _],
    cr: UnsafePointer[Scalar[T], _], si: UnsafePointer[Scalar[T], _],
    wr: UnsafePointer[Scalar[T], _], wi: UnsafePointer[Scalar[T], _],
    sign: Scalar[T], r: Int, m: Int, s: Int, stride: Int, p: Int, q: Int,
):
    """One radix-r butterfly on v consecutive q's at position p of a pass; wr/wi: the r-th roots."""
    var i0 = q + s * p
    var step = s * m
    var o0 = q + s * r * p
    var tw = p * stride
    if r == 8:
        _radix8[T, v](xr, xi, yr, yi, cr, si, sign, i0, step, o0, s, tw, p)
    elif r == 16:
        _radix16[T, v](xr, xi, yr, yi, cr, si, sign, i0, step, o0, s, tw, p)
    elif r == 4:
        var a0r = xr.load[width=v](i0)
        var a0i = xi.load[width=v](i0)
        var a1r = xr.load[width=v](i0 + step)
        var a1i = xi.load[width=v](i0 + step)
        var a2r = xr.load[width=v](i0 + 2 * step)
        var a2i = xi.load[width=v](i0 + 2 * step)
        var a3r = xr.load[width=v](i0 + 3 * step)
        var a3i = xi.load[width=v](i0 + 3 * step)
        var t0r = a0r + a2r
        var t0i = a0i + a2i
        var t1r = a0r - a2r
        var t1i = a0i - a2i
        var t2r = a1r + a3r
        var t2i = a1i + a3i
        # omega * (a1 - a3), omega = sign * i
        var t3r = (a3i - a1i) * sign
        var t3i = (a1r - a3r) * sign
        yr.store(o0, t0r + t2r)
        yi.store(o0, t0i + t2i)
        var b1r = t1r + t3r
        var b1i = t1i + t3i
        var b2r = t0r - t2r
        var b2i = t0i - t2i
        var b3r = t1r - t3r
        var b3i = t1i - t3i
        if p != 0:
            _twiddle(b1r, b1i, cr[tw], sign * si[tw])
            _twiddle(b2r, b2i, cr[2 * tw], sign * si[2 * tw])
            _twiddle(b3r, b3i, cr[3 * tw], sign * si[3 * tw])
        yr.store(o0 + s, b1r)
        yi.store(o0 + s, b1i)
        yr.store(o0 + 2 * s, b2r)
        yi.store(o0 + 2 * s, b2i)
        yr.store(o0 + 3 * s, b3r)
        yi.store(o0 + 3 * s, b3i)
    elif r == 2:
        var a0r = xr.load[width=v](i0)
        var a0i = xi.load[width=v](i0)
        var a1r = xr.load[width=v](i0 + step)
        var a1i = xi.load[width=v](i0 + step)
        yr.store(o0, a0r + a1r)
        yi.store(o0, a0i + a1i)
        var b1r = a0r - a1r
        var b1i = a0i - a1i
        if p != 0:
            _twiddle(b1r, b1i, cr[tw], sign * si[tw])
        yr.store(o0 + s, b1r)
        yi.store(o0 + s, b1i)
    elif r == 3:
        comptime h = 0.8660254037844386
        var a0r = xr.load[width=v](i0)
        var a0i = xi.load[width=v](i0)
        var a1r = xr.load[width=v](i0 + step)
        var a1i = xi.load[width=v](i0 + step)
        var a2r = xr.load[width=v](i0 + 2 * step)
        var a2i = xi.load[width=v](i0 + 2 * step)
        var tr = a1r + a2r
        var ti = a1i + a2i
        var ur = (a1i - a2i) * (sign * Scalar[T](h))  # i * sign * h * (a1 - a2)
        var ui = (a2r - a1r) * (sign * Scalar[T](h))
        var mr = a0r - tr * Scalar[T](0.5)
        var mi = a0i - ti * Scalar[T](0.5)
        yr.store(o0, a0r + tr)
        yi.store(o0, a0i + ti)
        var b1r = mr - ur
        var b1i = mi - ui
        var b2r = mr + ur
        var b2i = mi + ui
        if p != 0:
            _twiddle(b1r, b1i, cr[tw], sign * si[tw])
            _twiddle(b2r, b2i, cr[2 * tw], sign * si[2 * tw])
        yr.store(o0 + s, b1r)
        yi.store(o0 + s, b1i)
        yr.store(o0 + 2 * s, b2r)
        yi.store(o0 + 2 * s, b2i)
    else:  # 5, 7, 11, 13: the r-point DFT as sums, O(r^2) per butterfly
        for j in range(r):
            var br = SIMD[T, v](0)
            var bi = SIMD[T, v](0)
            for k in range(r):
                var e = (j * k) % r
                var ar = xr.load[width=v](i0 + k * step)
                var ai = xi.load[width=v](i0 + k * step)
                var er = wr[e]
                var ei = sign * wi[e]
                br += ar * er - ai * ei
                bi += ar * ei + ai * er
            if p != 0 and j != 0:
                _twiddle(br, bi, cr[j * tw], sign * si[j * tw])
            yr.store(o0 + j * s, br)
            yi.store(o0 + j * s, bi)


@always_inline
def _cmul[T: DType, v: Int](ar: SIMD[T, v], ai: SIMD[T, v], br: SIMD[T, v], bi: SIMD[T, v],
                            mut re: SIMD[T, v], mut im: SIMD[T, v]):
    re = ar * br - ai * bi
    im = ar * bi + ai * br


@always_inline
def _interleave8[T: DType, v: Int](
    b0: SIMD[T, v], b1: SIMD[T, v], b2: SIMD[T, v], b3: SIMD[T, v], b4: SIMD[T, v], b5: SIMD[T, v],
    b6: SIMD[T, v], b7: SIMD[T, v],
) -> SIMD[T, 8 * v]:
    """[b0[0], b1[0], ..., b7[0], b0[1], ...]: an 8 x v transpose in registers."""
    var w0 = b0.interleave(b4).interleave(b2.interleave(b6))
    var w1 = b1.interleave(b5).interleave(b3.interleave(b7))
    return w0.interleave(w1)


@always_inline
def _radix8_first[T: DType, v: Int](
    xr: UnsafePointer[Scalar[T], _], xi: UnsafePointer[Scalar[T], _],
    yr: UnsafePointer[mut=True, Scalar[T], _], yi: UnsafePointer[mut=True, Scalar[T], _],
    cr: UnsafePointer[Scalar[T], _], si: UnsafePointer[Scalar[T], _], sign: Scalar[T], m: Int, p: Int,
):
    """The first radix-8 pass of a single sequence (s = 1) on v consecutive p's: the inputs are
    contiguous over p, the 8 outputs of each p are adjacent (a transpose in registers), and the
    twiddles w^(p j) come from w^p by at most three products."""
    comptime c = 0.7071067811865476
    var z = SIMD[T, v](0)
    var e0r = z
    var e0i = z
    var e1r = z
    var e1i = z
    var e2r = z
    var e2i = z
    var e3r = z
    var e3i = z
    var o0r = z
    var o0i = z
    var o1r = z
    var o1i = z
    var o2r = z
    var o2i = z
    var o3r = z
    var o3i = z
    _dft4[T, v](xr, xi, p, 2 * m, sign, e0r, e0i, e1r, e1i, e2r, e2i, e3r, e3i)
    _dft4[T, v](xr, xi, p + m, 2 * m, sign, o0r, o0i, o1r, o1i, o2r, o2i, o3r, o3i)
    var h = Scalar[T](c)
    var w1r = (o1r - sign * o1i) * h
    var w1i = (sign * o1r + o1i) * h
    var w2r = -sign * o2i
    var w2i = sign * o2r
    var w3r = (-o3r - sign * o3i) * h
    var w3i = (sign * o3r - o3i) * h
    var t1r = cr.load[width=v](p)
    var t1i = si.load[width=v](p) * sign
    var t2r = z
    var t2i = z
    var t3r = z
    var t3i = z
    var t4r = z
    var t4i = z
    var t5r = z
    var t5i = z
    var t6r = z
    var t6i = z
    var t7r = z
    var t7i = z
    _cmul(t1r, t1i, t1r, t1i, t2r, t2i)
    _cmul(t2r, t2i, t1r, t1i, t3r, t3i)
    _cmul(t2r, t2i, t2r, t2i, t4r, t4i)
    _cmul(t4r, t4i, t1r, t1i, t5r, t5i)
    _cmul(t3r, t3i, t3r, t3i, t6r, t6i)
    _cmul(t6r, t6i, t1r, t1i, t7r, t7i)
    var b1r = z
    var b1i = z
    var b2r = z
    var b2i = z
    var b3r = z
    var b3i = z
    var b4r = z
    var b4i = z
    var b5r = z
    var b5i = z
    var b6r = z
    var b6i = z
    var b7r = z
    var b7i = z
    _cmul(e1r + w1r, e1i + w1i, t1r, t1i, b1r, b1i)
    _cmul(e2r + w2r, e2i + w2i, t2r, t2i, b2r, b2i)
    _cmul(e3r + w3r, e3i + w3i, t3r, t3i, b3r, b3i)
    _cmul(e0r - o0r, e0i - o0i, t4r, t4i, b4r, b4i)
    _cmul(e1r - w1r, e1i - w1i, t5r, t5i, b5r, b5i)
    _cmul(e2r - w2r, e2i - w2i, t6r, t6i, b6r, b6i)
    _cmul(e3r - w3r, e3i - w3i, t7r, t7i, b7r, b7i)
    yr.store(8 * p, _interleave8(e0r + o0r, b1r, b2r, b3r, b4r, b5r, b6r, b7r))
    yi.store(8 * p, _interleave8(e0i + o0i, b1i, b2i, b3i, b4i, b5i, b6i, b7i))


def _pass[T: DType](
    xr: UnsafePointer[Scalar[T], _], xi: UnsafePointer[Scalar[T], _],
    yr: UnsafePointer[mut=True, Scalar[T], _], yi: UnsafePointer[mut=True, Scalar[T], _],
    cr: UnsafePointer[Scalar[T], _], si: UnsafePointer[Scalar[T], _],
    wr: UnsafePointer[Scalar[T], _], wi: UnsafePointer[Scalar[T], _],
    sign: Scalar[T], r: Int, m: Int, s: Int, stride: Int, p_lo: Int, p_hi: Int, q_lo: Int, q_hi: Int,
):
    comptime v = simd_width_of[T]()
    var p_start = p_lo
    if r == 8 and s == 1 and stride == 1 and q_lo == 0 and q_hi == 1:  # a single sequence's first pass
        var first = (p_lo + v - 1) // v * v
        var last = max(first, p_hi // v * v)
        for p in range(p_lo, min(first, p_hi)):
            _pass_block[T, 1](xr, xi, yr, yi, cr, si, wr, wi, sign, r, m, s, stride, p, 0)
        for p in range(first, last, v):
            _radix8_first[T, v](xr, xi, yr, yi, cr, si, sign, m, p)
        p_start = max(last, min(first, p_hi))
    for p in range(p_start, p_hi):
        # whole vectors, then halves and quarters: the early passes of a single row have s < v
        # (s = 8 under AVX-512's 16 float32 lanes), which ran one element at a time before
        var q = q_lo
        while q + v <= q_hi:
            _pass_block[T, v](xr, xi, yr, yi, cr, si, wr, wi, sign, r, m, s, stride, p, q)
            q += v
        comptime if v >= 4:
            while q + v // 2 <= q_hi:
                _pass_block[T, v // 2](xr, xi, yr, yi, cr, si, wr, wi, sign, r, m, s, stride, p, q)
                q += v // 2
        comptime if v >= 8:
            while q + v // 4 <= q_hi:
                _pass_block[T, v // 4](xr, xi, yr, yi, cr, si, wr, wi, sign, r, m, s, stride, p, q)
                q += v // 4
        while q < q_hi:
            _pass_block[T, 1](xr, xi, yr, yi, cr, si, wr, wi, sign, r, m, s, stride, p, q)
            q += 1


def _parallel_pass[T: DType](
    xr: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin], xi: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin],
    yr: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin], yi: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin],
    cr: UnsafePointer[Scalar[T], MutUntrackedOrigin], si: UnsafePointer[Scalar[T], MutUntrackedOrigin],
    wr: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin], wi: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin],
    sign: Scalar[T], r: Int, m: Int, s: Int, stride: Int, tasks: Int,
):
    # captured by reference (parallelize returns when every task has): a by-value capture of
    # T-typed values inside a T-generic function crashes Mojo 1.2's compiler
    comptime v = simd_width_of[T]()
    var by_p = m >= tasks
    var chunks = (s + v - 1) // v  # split q in whole vectors when there are fewer p's than tasks

    def task(t: Int) {xr, xi, yr, yi, cr, si, wr, wi, sign, r, m, s, stride, tasks, by_p, chunks}:
        if by_p:
            _pass[T](xr, xi, yr, yi, cr, si, wr, wi, sign, r, m, s, stride, m * t // tasks, m * (t + 1) // tasks, 0, s)
        else:
            var lo = min(s, chunks * t // tasks * v)
            var hi = min(s, chunks * (t + 1) // tasks * v)
            _pass[T](xr, xi, yr, yi, cr, si, wr, wi, sign, r, m, s, stride, 0, m, lo, hi)

    parallelize(task, tasks)


def stockham[T: DType](
    xr: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin], xi: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin],
    yr: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin], yi: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin],
    n: Int, lanes: Int, radices: List[Int], cr: UnsafePointer[Scalar[T], MutUntrackedOrigin],
    si: UnsafePointer[Scalar[T], MutUntrackedOrigin], sign: Scalar[T], tasks: Int,
) -> Bool:
    """The length-n transforms of ``lanes`` interleaved sequences (element k of sequence l at
    k * lanes + l), left in (xr, xi), or in (yr, yi) when this returns True (an odd number of
    passes: no copy back). Interleaving is Stockham's stride s
    started at ``lanes`` instead of 1, so every pass runs on whole vectors once lanes reaches the
    SIMD width. ``cr``/``si`` hold n roots of unity; ``tasks`` > 1 splits each pass over cores."""
    var small = alloc[Scalar[T]](32)
    var wr = small
    var wi = small + 16
    var a = xr
    var b = xi
    var c = yr
    var d = yi
    var ln = n
    var s = lanes
    for idx in range(len(radices)):
        var r = radices[idx]
        if r > 4 and r != 8 and r != 16:  # the generic odd radices' roots (8 and 16 have theirs inline)
            for e in range(r):
                var ang = TAU * Float64(e) / Float64(r)
                wr[e] = Scalar[T](cos(ang))
                wi[e] = Scalar[T](sin(ang))
        var m = ln // r
        var stride = n // ln
        if tasks > 1:
            _parallel_pass[T](a, b, c, d, cr, si, wr, wi, sign, r, m, s, stride, tasks)
        else:
            _pass[T](a, b, c, d, cr, si, wr, wi, sign, r, m, s, stride, 0, m, 0, s)
        var t0 = a
        var t1 = b
        a = c
        b = d
        c = t0
        d = t1
        ln = m
        s *= r
    small.free()
    return a != xr


# --- a plan: everything a length needs, computed once per kernel call ------------------------------

def plan_size(n: Int) -> Int:
    """Scalars a plan for length n holds: roots of n, or (Bluestein) roots of M, the chirp and the
    kernel's spectrum."""
    if is_smooth(n):
        return 2 * n
    var m = bluestein_length(n)
    return 2 * m + 2 * n + 2 * m


def work_length(n: Int) -> Int:
    """The length a transform of n actually runs: n, or Bluestein's convolution length."""
    return n if is_smooth(n) else bluestein_length(n)


def workspace_size(n: Int) -> Int:
    """Scratch planes a row transform of length n needs besides its own (re, im) planes."""
    if is_smooth(n):
        return 2 * n
    return 4 * bluestein_length(n)


def build_plan[T: DType](plan: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin], n: Int, sign: Scalar[T]):
    if is_smooth(n):
        fill_roots[T](plan, plan + n, n, n)
        return
    var m = bluestein_length(n)
    fill_roots[T](plan, plan + m, m, m)
    var chr = plan + 2 * m
    var chi = chr + n
    var spr = chi + n
    var spi = spr + m
    # chirp e^(sign pi i k^2 / n) = the (k^2 mod 2n)-th of the 2n-th roots of unity
    var roots = alloc[Float64](4 * n)
    fill_roots[DType.float64](roots, roots + 2 * n, 2 * n, 2 * n)
    for k in range(n):
        var e = (k * k) % (2 * n)
        chr[k] = Scalar[T](roots[e])
        chi[k] = sign * Scalar[T](roots[2 * n + e])
    roots.free()
    for k in range(m):
        spr[k] = 0
        spi[k] = 0
    var inv_m = Scalar[T](1.0 / Float64(m))
    for k in range(n):  # conj(chirp) at k and -k, scaled by 1/M (the inverse transform's factor)
        spr[k] = chr[k] * inv_m
        spi[k] = -chi[k] * inv_m
        if k > 0:
            spr[m - k] = spr[k]
            spi[m - k] = spi[k]
    var scratch = alloc[Scalar[T]](2 * m)
    if stockham[T](spr, spi, scratch, scratch + m, m, 1, smooth_radices(m), plan, plan + m, Scalar[T](-1), 1):
        for k in range(m):
            spr[k] = scratch[k]
            spi[k] = scratch[m + k]
    scratch.free()


def transform[T: DType](
    xr: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin], xi: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin],
    ws: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin], n: Int, lanes: Int,
    plan: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin], sign: Scalar[T], tasks: Int,
) -> Bool:
    """The length-n DFTs (exponent sign ``sign``, unnormalized) of ``lanes`` interleaved sequences
    in (xr, xi): left there, or (True) in ws's first two planes of n * lanes. ``ws`` holds
    workspace_size(n) * lanes scalars."""
    if n <= 1:
        return False
    var radices = smooth_radices(n)
    if len(radices) > 0:
        return stockham[T](xr, xi, ws, ws + n * lanes, n, lanes, radices, plan, plan + n, sign, tasks)
    var m = bluestein_length(n)
    var mr = smooth_radices(m)
    var chr = plan + 2 * m
    var chi = chr + n
    var spr = chi + n
    var spi = spr + m
    var L = lanes
    var ar = ws
    var ai = ws + m * L
    var br = ws + 2 * m * L
    var bi = ws + 3 * m * L
    for k in range(n):
        var cr = chr[k]
        var ci = chi[k]
        for l in range(L):
            var i = k * L + l
            ar[i] = xr[i] * cr - xi[i] * ci
            ai[i] = xr[i] * ci + xi[i] * cr
    for i in range(n * L, m * L):
        ar[i] = 0
        ai[i] = 0
    if stockham[T](ar, ai, br, bi, m, L, mr, plan, plan + m, Scalar[T](-1), tasks):
        swap(ar, br)
        swap(ai, bi)
    for k in range(m):  # times the chirp's spectrum
        var sr = spr[k]
        var sj = spi[k]
        for l in range(L):
            var i = k * L + l
            var r = ar[i] * sr - ai[i] * sj
            ai[i] = ar[i] * sj + ai[i] * sr
            ar[i] = r
    if stockham[T](ar, ai, br, bi, m, L, mr, plan, plan + m, Scalar[T](1), tasks):
        swap(ar, br)
        swap(ai, bi)
    for k in range(n):
        var cr = chr[k]
        var ci = chi[k]
        for l in range(L):
            var i = k * L + l
            xr[i] = ar[i] * cr - ai[i] * ci
            xi[i] = ar[i] * ci + ai[i] * cr
    return False
