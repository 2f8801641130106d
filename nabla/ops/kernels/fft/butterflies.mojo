# The butterflies of the FFT's Stockham passes (stockham.mojo), on SIMD vectors of split
# real/imaginary planes: one radix-r butterfly on v consecutive q's of a pass (``_pass_block``:
# radices 2, 3, 4, 8 and 16 written out, 5, 7, 11 and 13 as sums), each output times its twiddle;
# and the first radix-8 pass of a single sequence (``_radix8_first``), its 8 outputs of each p
# transposed in registers so they are stored as whole vectors.


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
