# Shared pieces of Nabla's dense linear algebra kernels.
#
# Every kernel takes float64 stacks (b, rows, cols) (callers cast float32 up and back: one
# compiled binding per kernel, and float32 results as accurate as LAPACK's). Complex data arrives
# interleaved, (b, rows, 2*cols); a kernel tells the two apart by its shapes. Work happens in
# per-task workspaces split into real and imaginary planes, so the same loops vectorize for both;
# `C` (complex) is a compile-time switch, and the real instantiation carries no imaginary work.
#
# The package is built with fast-math assumptions, so NaN and infinity are read from the bits.
from std.math import sqrt
from std.memory import bitcast

comptime W = UnsafePointer[Float64, MutUntrackedOrigin]
comptime EPS = 2.220446049250313e-16
comptime SIMD_W = 8


@always_inline
def _bits(x: Float64) -> Int64:
    return bitcast[DType.int64, 1](x)


@always_inline
def is_nan(x: Float64) -> Bool:
    return (_bits(x) & 0x7FFFFFFFFFFFFFFF) > 0x7FF0000000000000


@always_inline
def is_finite(x: Float64) -> Bool:
    return (_bits(x) & 0x7FF0000000000000) != 0x7FF0000000000000


@always_inline
def nan64() -> Float64:
    return bitcast[DType.float64, 1](Int64(0x7FF8000000000000))


@always_inline
def inf64() -> Float64:
    return bitcast[DType.float64, 1](Int64(0x7FF0000000000000))


@always_inline
def pow2_inverse(m: Float64) -> Float64:
    """A power of two near 1/m (exact to apply and undo), or 1 for zero, subnormal or non-finite m."""
    var e = Int((_bits(m) >> 52) & 0x7FF)
    if e == 0 or e == 0x7FF:
        return 1.0
    var k = min(max(2046 - e, 1), 2046)  # biased exponent of 2^-(e - 1023), kept normal
    return bitcast[DType.float64, 1](Int64(k) << 52)


@always_inline
def cabs(re: Float64, im: Float64) -> Float64:
    """|re + i im| without overflow or underflow in the squares."""
    var a = abs(re)
    var b = abs(im)
    var big = max(a, b)
    var small = min(a, b)
    if big == 0.0 or not is_finite(big):
        return big + small  # 0, inf or NaN
    var r = small / big
    return big * sqrt(1.0 + r * r)


@always_inline
def dot(a: W, b: W, n: Int) -> Float64:
    var acc = SIMD[DType.float64, SIMD_W](0)
    var whole = n // SIMD_W * SIMD_W
    for k in range(0, whole, SIMD_W):
        acc += a.unsafe_load[width=SIMD_W](k) * b.unsafe_load[width=SIMD_W](k)
    var s = acc.reduce_add()
    for k in range(whole, n):
        s += a.unsafe_load(k) * b.unsafe_load(k)
    return s


@always_inline
def axpy(alpha: Float64, x: W, y: W, n: Int):
    """y += alpha * x."""
    var whole = n // SIMD_W * SIMD_W
    for k in range(0, whole, SIMD_W):
        y.unsafe_store(k, y.unsafe_load[width=SIMD_W](k) + alpha * x.unsafe_load[width=SIMD_W](k))
    for k in range(whole, n):
        y.unsafe_store(k, y.unsafe_load(k) + alpha * x.unsafe_load(k))


@always_inline
def scal(alpha: Float64, x: W, n: Int):
    for k in range(n):
        x.unsafe_store(k, alpha * x.unsafe_load(k))


@always_inline
def cdot_conj[C: Bool](ar: W, ai: W, br: W, bi: W, n: Int) -> SIMD[DType.float64, 2]:
    """sum(a * conj(b)) as (re, im)."""
    var re = dot(ar, br, n)
    var im = 0.0
    comptime if C:
        re += dot(ai, bi, n)
        im = dot(ai, br, n) - dot(ar, bi, n)
    return SIMD[DType.float64, 2](re, im)


@always_inline
def caxpy[C: Bool](alpha_re: Float64, alpha_im: Float64, xr: W, xi: W, yr: W, yi: W, n: Int):
    """y += alpha * x (complex alpha; the imaginary part is ignored for real data)."""
    axpy(alpha_re, xr, yr, n)
    comptime if C:
        axpy(-alpha_im, xi, yr, n)
        axpy(alpha_re, xi, yi, n)
        axpy(alpha_im, xr, yi, n)


@always_inline
def cdiv(ar: Float64, ai: Float64, br: Float64, bi: Float64) -> SIMD[DType.float64, 2]:
    """(ar + i ai) / (br + i bi) by Smith's algorithm (no overflow in |b|^2)."""
    if abs(br) >= abs(bi):
        var r = bi / br
        var d = br + bi * r
        return SIMD[DType.float64, 2]((ar + ai * r) / d, (ai - ar * r) / d)
    var r = br / bi
    var d = bi + br * r
    return SIMD[DType.float64, 2]((ar * r + ai) / d, (ai * r - ar) / d)


@always_inline
def sumsq[C: Bool](re: W, im: W, n: Int) -> Float64:
    var s = dot(re, re, n)
    comptime if C:
        s += dot(im, im, n)
    return s


@always_inline
def nrm2[C: Bool](re: W, im: W, n: Int) -> Float64:
    """The 2-norm, scaled so that squares neither overflow nor underflow."""
    var big = 0.0
    for k in range(n):
        big = max(big, abs(re.unsafe_load(k)))
        comptime if C:
            big = max(big, abs(im.unsafe_load(k)))
    if big == 0.0 or not is_finite(big):
        return big
    var s = 0.0
    var inv = 1.0 / big
    for k in range(n):
        var x = re.unsafe_load(k) * inv
        s += x * x
        comptime if C:
            var y = im.unsafe_load(k) * inv
            s += y * y
    return big * sqrt(s)


@always_inline
def jacobi_rotation(app: Float64, aqq: Float64, g: Float64) -> SIMD[DType.float64, 4]:
    """(t, c, s, 0) of the rotation that zeroes the off-diagonal g >= 0 of [[app, g], [g, aqq]]
    (Rutishauser's smaller-angle formulas, GVL 4th ed. 8.5.2)."""
    var theta = (aqq - app) / (2.0 * g)
    var t: Float64
    if abs(theta) > 1.0e150:
        t = 0.5 / theta
    else:
        t = 1.0 / (abs(theta) + sqrt(theta * theta + 1.0))
        if theta < 0.0:
            t = -t
    var c = 1.0 / sqrt(t * t + 1.0)
    return SIMD[DType.float64, 4](t, c, t * c, 0.0)


@always_inline
def rotate_pair[C: Bool](pr: W, pi: W, qr: W, qi: W, c: Float64, s: Float64, er: Float64, ei: Float64, n: Int):
    """(p, q) <- (c p - s e q, s p + c e q) over n entries, e = er + i ei of modulus 1."""
    var whole = n // SIMD_W * SIMD_W
    for k in range(0, whole, SIMD_W):
        _rotate_pair_at[C, SIMD_W](pr, pi, qr, qi, c, s, er, ei, k)
    for k in range(whole, n):
        _rotate_pair_at[C, 1](pr, pi, qr, qi, c, s, er, ei, k)


@always_inline
def _rotate_pair_at[C: Bool, V: Int](pr: W, pi: W, qr: W, qi: W, c: Float64, s: Float64, er: Float64, ei: Float64,
                                     k: Int):
    var xpr = pr.unsafe_load[width=V](k)
    var xqr = qr.unsafe_load[width=V](k)
    comptime if C:
        var xpi = pi.unsafe_load[width=V](k)
        var xqi = qi.unsafe_load[width=V](k)
        var eqr = er * xqr - ei * xqi
        var eqi = er * xqi + ei * xqr
        pr.unsafe_store(k, c * xpr - s * eqr)
        pi.unsafe_store(k, c * xpi - s * eqi)
        qr.unsafe_store(k, s * xpr + c * eqr)
        qi.unsafe_store(k, s * xpi + c * eqi)
    else:
        var eq = er * xqr
        pr.unsafe_store(k, c * xpr - s * eq)
        qr.unsafe_store(k, s * xpr + c * eq)


@always_inline
def rotate(x: W, y: W, c: Float64, s: Float64, length: Int):
    """(x, y) <- (c x + s y, c y - s x)."""
    var whole = length // SIMD_W * SIMD_W
    for i in range(0, whole, SIMD_W):
        var xv = x.unsafe_load[width=SIMD_W](i)
        var yv = y.unsafe_load[width=SIMD_W](i)
        x.unsafe_store(i, c * xv + s * yv)
        y.unsafe_store(i, c * yv - s * xv)
    for i in range(whole, length):
        var xs = x.unsafe_load(i)
        var ys = y.unsafe_load(i)
        x.unsafe_store(i, c * xs + s * ys)
        y.unsafe_store(i, c * ys - s * xs)


@always_inline
def reflector(x: W, length: Int) -> SIMD[DType.float64, 2]:
    """Householder H = I - tau v v^T with H x = beta e_0: x[1:] becomes v[1:] (v[0] = 1 implied);
    returns (beta, tau). tau = 0 when x[1:] is already zero (H = I)."""
    var alpha = x.unsafe_load(0)
    var xnorm = nrm2[False](x + 1, x + 1, length - 1)
    if xnorm == 0.0:
        return SIMD[DType.float64, 2](alpha, 0.0)
    var beta = cabs(alpha, xnorm)
    if alpha >= 0.0:
        beta = -beta
    var inv = 1.0 / (alpha - beta)
    for i in range(1, length):
        x.unsafe_store(i, x.unsafe_load(i) * inv)
    return SIMD[DType.float64, 2](beta, (beta - alpha) / beta)


@always_inline
def reflect(v: W, tau: Float64, y: W, length: Int):
    """y <- (I - tau v v^T) y, v[0] = 1 implied (v[0] itself is not read)."""
    var s = tau * (y.unsafe_load(0) + dot(v + 1, y + 1, length - 1))
    y.unsafe_store(0, y.unsafe_load(0) - s)
    axpy(-s, v + 1, y + 1, length - 1)


@always_inline
def swap(a: W, b: W, n: Int):
    """Exchange n entries of a and b (rows of a workspace)."""
    for k in range(n):
        var t = a.unsafe_load(k)
        a.unsafe_store(k, b.unsafe_load(k))
        b.unsafe_store(k, t)


@always_inline
def load_matrix[C: Bool](src: UnsafePointer[Float64, _], rows: Int, cols: Int, re: W, im: W):
    """Row-major rows x cols from (interleaved, when complex) float64 data."""
    for k in range(rows * cols):
        comptime if C:
            re.unsafe_store(k, src.unsafe_load(2 * k))
            im.unsafe_store(k, src.unsafe_load(2 * k + 1))
        else:
            re.unsafe_store(k, src.unsafe_load(k))


@always_inline
def load_transposed[C: Bool](src: UnsafePointer[Float64, _], rows: Int, cols: Int, re: W, im: W):
    """The transpose (cols x rows, row-major) of row-major rows x cols data: columns become contiguous."""
    for i in range(rows):
        for j in range(cols):
            var k = i * cols + j
            comptime if C:
                re.unsafe_store(j * rows + i, src.unsafe_load(2 * k))
                im.unsafe_store(j * rows + i, src.unsafe_load(2 * k + 1))
            else:
                re.unsafe_store(j * rows + i, src.unsafe_load(k))


def adjoint_stack[C: Bool](src: UnsafePointer[Float64, _], dst: UnsafePointer[mut=True, Float64, _], batch: Int,
                          rows: Int, cols: Int):
    """The conjugate transpose (cols x rows) of each rows x cols matrix of a stack (complex:
    interleaved (re, im) pairs)."""
    comptime w = 2 if C else 1
    for b in range(batch):
        var s = src + b * rows * cols * w
        var d = dst + b * rows * cols * w
        for i in range(rows):
            for j in range(cols):
                comptime if C:
                    d.unsafe_store(2 * (j * rows + i), s.unsafe_load(2 * (i * cols + j)))
                    d.unsafe_store(2 * (j * rows + i) + 1, -s.unsafe_load(2 * (i * cols + j) + 1))
                else:
                    d.unsafe_store(j * rows + i, s.unsafe_load(i * cols + j))


@always_inline
def put[C: Bool](dst: UnsafePointer[mut=True, Float64, _], k: Int, re: Float64, im: Float64):
    """Element k of (interleaved, when complex) float64 output."""
    comptime if C:
        dst.unsafe_store(2 * k, re)
        dst.unsafe_store(2 * k + 1, im)
    else:
        dst.unsafe_store(k, re)


@always_inline
def fill_nan[C: Bool](dst: UnsafePointer[mut=True, Float64, _], count: Int):
    var width = 2 if C else 1
    for k in range(count * width):
        dst.unsafe_store(k, nan64())


@always_inline
def all_finite(src: UnsafePointer[Float64, _], count: Int) -> Bool:
    for k in range(count):
        if not is_finite(src.unsafe_load(k)):
            return False
    return True


@always_inline
def task_count(batch: Int, work_per_item: Int) -> Int:
    """How many tasks to split a batch into: enough to feed every core, few enough that each
    task does at least ~20k flops."""
    if batch <= 1:
        return batch
    var per = max(1, 20000 // max(work_per_item, 1))
    return min(batch, max(1, (batch + per - 1) // per), 64)
