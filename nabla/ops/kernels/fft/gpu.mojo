# The FFT kernel's GPU path: the same operands as the CPU path (fft.mojo), every transform of the
# stack at once. Each of the b * K sequences is gathered into a contiguous complex work row (real
# input gets zero imaginary parts, c2r input its Hermitian extension), transformed, and scattered
# into the output with the norm's scaling.
#
# Power-of-two lengths run radix-2 Stockham passes (Stockham autosort: no bit reversal; the form
# of Govindaraju et al., "High performance discrete Fourier transforms on graphics processors",
# SC 2008): one thread block per row in shared memory when a row fits there, else one launch per
# pass over the whole stack. Other lengths run Bluestein's chirp-z (Bluestein 1970): x w, zero-
# padded to m >= 2n - 1, convolved with conj(w) through m-point transforms, times w, where
# w[j] = exp(sign i pi j^2 / n).
#
# Roots of unity are computed in float64 from exact integer fractions of a turn (num / den, with
# j^2 mod 2n for the chirp), reduced to an octant and summed as Taylor series: MAX's cos and sin
# refuse float64 on NVIDIA GPUs, and float32 arguments would cost float32 results their accuracy.
# Real transforms run as complex ones of the same length (not yet the half-length trick of the CPU
# path). ``spec`` stays on the device: the kernels read the sign and the norm there.
from std.math import sqrt
from std.memory import stack_allocation
from max.gpu import barrier, block_dim, block_idx, thread_idx
from max.gpu.host import DeviceBuffer, DeviceContext
from max.gpu.memory import AddressSpace

comptime THREADS = 256
comptime C2C = 0
comptime R2C = 1
comptime C2R = 2


def _shared_points[T: DType]() -> Int:
    """The longest row one block transforms in shared memory (two complex planes: 32 KiB)."""
    comptime if T == DType.float64:
        return 1024
    return 2048


@always_inline
def _turn(num: Int, den: Int) -> Tuple[Float64, Float64]:
    """cos and sin of 2 pi num / den (0 <= num), exact to float64 rounding."""
    var u = 8 * (num % den)
    var q = u // den  # the octant
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
def _root[T: DType](num: Int, den: Int, sign: Float64) -> Tuple[Scalar[T], Scalar[T]]:
    var cs = _turn(num, den)
    return (Scalar[T](cs[0]), Scalar[T](sign * cs[1]))


@always_inline
def _cmul[T: DType](re: Scalar[T], im: Scalar[T], w: Tuple[Scalar[T], Scalar[T]]) -> Tuple[Scalar[T], Scalar[T]]:
    return (re * w[0] - im * w[1], re * w[1] + im * w[0])


@always_inline
def _global_id() -> Int:
    return Int(block_idx.x) * Int(block_dim.x) + Int(thread_idx.x)


def _load_kernel[T: DType](work: UnsafePointer[Scalar[T], MutAnyOrigin], x: UnsafePointer[Scalar[T], MutAnyOrigin],
                           spec: UnsafePointer[Float64, MutAnyOrigin], total: Int64, m: Int64, n: Int64, K: Int64,
                           item_in: Int64, cols_in: Int64, mode: Int64, chirp: Int64):
    var g = _global_id()
    if g >= Int(total):
        return
    var t = g // Int(m)
    var j = g - t * Int(m)
    var re = Scalar[T](0)
    var im = Scalar[T](0)
    var ln = Int(n)
    if j < ln:
        var item = t // Int(K)
        var kk = t - item * Int(K)
        var base = item * Int(item_in)
        var cols = Int(cols_in)
        if mode == R2C:
            re = x[base + j * cols + kk]
        elif mode == C2C or 2 * j <= ln:
            var p = base + j * cols + 2 * kk
            re = x[p]
            im = x[p + 1]
        else:  # c2r: the upper half is the conjugate of the lower
            var p = base + (ln - j) * cols + 2 * kk
            re = x[p]
            im = -x[p + 1]
        if chirp != 0:
            var z = _cmul[T](re, im, _root[T]((j * j) % (2 * ln), 2 * ln, spec[0]))
            re = z[0]
            im = z[1]
    work[2 * g] = re
    work[2 * g + 1] = im


def _pass_kernel[T: DType](dst: UnsafePointer[Scalar[T], MutAnyOrigin], src: UnsafePointer[Scalar[T], MutAnyOrigin],
                           spec: UnsafePointer[Float64, MutAnyOrigin], total: Int64, m: Int64, ns: Int64,
                           fixed_sign: Float64):
    """One radix-2 Stockham pass over every row: span ``ns`` -> 2 ns."""
    var g = _global_id()
    if g >= Int(total):
        return
    var half = Int(m) // 2
    var t = g // half
    var q = g - t * half
    var base = 2 * t * Int(m)
    _butterfly[T](dst + base, src + base, q, half, Int(ns), fixed_sign if fixed_sign != 0 else spec[0])


@always_inline
def _butterfly[T: DType, origin: MutOrigin, address_space: AddressSpace](
        dst: UnsafePointer[Scalar[T], origin, address_space=address_space],
        src: UnsafePointer[Scalar[T], origin, address_space=address_space], q: Int, half: Int, ns: Int,
        sign: Float64):
    var k = q & (ns - 1)
    var w = _root[T](k, 2 * ns, sign)
    var ar = src[2 * q]
    var ai = src[2 * q + 1]
    var b = _cmul[T](src[2 * (q + half)], src[2 * (q + half) + 1], w)
    var br = b[0]
    var bi = b[1]
    var o = 2 * (q - k) + k
    dst[2 * o] = ar + br
    dst[2 * o + 1] = ai + bi
    dst[2 * (o + ns)] = ar - br
    dst[2 * (o + ns) + 1] = ai - bi


def _block_kernel[T: DType](work: UnsafePointer[Scalar[T], MutAnyOrigin], spec: UnsafePointer[Float64, MutAnyOrigin],
                            m: Int64, fixed_sign: Float64):
    """Row ``block_idx.x`` transformed in place, every pass in shared memory."""
    comptime P = _shared_points[T]()
    var a = stack_allocation[2 * P, Scalar[T], address_space=AddressSpace.SHARED]()
    var b = stack_allocation[2 * P, Scalar[T], address_space=AddressSpace.SHARED]()
    var row = work + 2 * Int(block_idx.x) * Int(m)
    var tid = Int(thread_idx.x)
    var lm = Int(m)
    var half = lm // 2
    var sign = fixed_sign if fixed_sign != 0 else spec[0]
    for i in range(tid, 2 * lm, THREADS):
        a[i] = row[i]
    barrier()
    var ns = 1
    var from_a = True
    while ns < lm:
        for q in range(tid, half, THREADS):
            if from_a:
                _butterfly[T](b, a, q, half, ns, sign)
            else:
                _butterfly[T](a, b, q, half, ns, sign)
        barrier()
        from_a = not from_a
        ns *= 2
    for i in range(tid, 2 * lm, THREADS):
        row[i] = a[i] if from_a else b[i]


def _chirp_kernel[T: DType](bw: UnsafePointer[Scalar[T], MutAnyOrigin], spec: UnsafePointer[Float64, MutAnyOrigin],
                            m: Int64, n: Int64):
    """conj(w) at offsets -(n - 1) .. n - 1, wrapped around the m-point circle."""
    var g = _global_id()
    if g >= Int(m):
        return
    var ln = Int(n)
    var d = g if g < ln else (Int(m) - g if Int(m) - g < ln else -1)
    var re = Scalar[T](0)
    var im = Scalar[T](0)
    if d >= 0:
        var w = _root[T]((d * d) % (2 * ln), 2 * ln, -spec[0])
        re = w[0]
        im = w[1]
    bw[2 * g] = re
    bw[2 * g + 1] = im


def _product_kernel[T: DType](work: UnsafePointer[Scalar[T], MutAnyOrigin], bw: UnsafePointer[Scalar[T], MutAnyOrigin],
                              total: Int64, m: Int64, scale: Float64):
    var g = _global_id()
    if g >= Int(total):
        return
    var j = g % Int(m)
    var z = _cmul[T](work[2 * g], work[2 * g + 1], (bw[2 * j] * Scalar[T](scale), bw[2 * j + 1] * Scalar[T](scale)))
    work[2 * g] = z[0]
    work[2 * g + 1] = z[1]


def _store_kernel[T: DType](dst: UnsafePointer[Scalar[T], MutAnyOrigin], work: UnsafePointer[Scalar[T], MutAnyOrigin],
                            spec: UnsafePointer[Float64, MutAnyOrigin], total: Int64, count: Int64, m: Int64,
                            n: Int64, K: Int64, item_out: Int64, cols_out: Int64, mode: Int64, chirp: Int64,
                            inv_sqrt_n: Float64, inv_n: Float64):
    var g = _global_id()
    if g >= Int(total):
        return
    var t = g // Int(count)
    var k = g - t * Int(count)
    var at = 2 * (t * Int(m) + k)
    var re = work[at]
    var im = work[at + 1]
    if chirp != 0:
        var ln = Int(n)
        var z = _cmul[T](re, im, _root[T]((k * k) % (2 * ln), 2 * ln, spec[0]))
        re = z[0]
        im = z[1]
    var scaling = Int(spec[1])
    if scaling != 0:
        var s = Scalar[T](inv_sqrt_n if scaling == 1 else inv_n)
        re *= s
        im *= s
    var item = t // Int(K)
    var kk = t - item * Int(K)
    var base = item * Int(item_out)
    if mode == C2R:
        dst[base + k * Int(cols_out) + kk] = re
    else:
        var p = base + k * Int(cols_out) + 2 * kk
        dst[p] = re
        dst[p + 1] = im


def _blocks(total: Int) -> Int:
    return (total + THREADS - 1) // THREADS


def _transform[T: DType](ctx: DeviceContext, a: DeviceBuffer[T], b: DeviceBuffer[T],
                         spec: UnsafePointer[Float64, MutAnyOrigin], rows: Int, m: Int,
                         fixed_sign: Float64) raises -> Bool:
    """The m-point DFT of each of ``rows`` rows held in ``a``; True when the result is in ``b``."""
    if m == 1:
        return False
    if m <= _shared_points[T]():
        ctx.enqueue_function[_block_kernel[T]](a.unsafe_ptr(), spec, Int64(m), fixed_sign, grid_dim=rows,
                                               block_dim=THREADS)
        return False
    var in_b = False
    var ns = 1
    var total = rows * (m // 2)
    while ns < m:
        var src = b.unsafe_ptr() if in_b else a.unsafe_ptr()
        var dst = a.unsafe_ptr() if in_b else b.unsafe_ptr()
        ctx.enqueue_function[_pass_kernel[T]](dst, src, spec, Int64(total), Int64(m), Int64(ns), fixed_sign,
                                              grid_dim=_blocks(total), block_dim=THREADS)
        in_b = not in_b
        ns *= 2
    return in_b


def run_gpu[T: DType](ctx: DeviceContext, dst_in: UnsafePointer[mut=True, Scalar[T], _],
                      x_in: UnsafePointer[Scalar[T], _], spec_in: UnsafePointer[Float64, _], batch: Int,
                      rows_in: Int, cols_in: Int, rows_out: Int, cols_out: Int) raises:
    """x (batch, rows_in, cols_in) transformed along axis 1 into dst (batch, rows_out, cols_out), all
    three in the device's memory."""
    var dst = dst_in.unsafe_origin_cast[MutAnyOrigin]()
    var x = x_in.unsafe_mut_cast[True]().unsafe_origin_cast[MutAnyOrigin]()
    var spec = spec_in.unsafe_mut_cast[True]().unsafe_origin_cast[MutAnyOrigin]()
    var mode = C2C if cols_in == cols_out else (R2C if cols_out > cols_in else C2R)
    var n = rows_out if mode == C2R else rows_in
    var K = cols_in // 2 if mode == C2C else min(cols_in, cols_out)
    var rows = batch * K
    if n == 0 or rows == 0:
        return
    var pow2 = (n & (n - 1)) == 0
    var m = n
    if not pow2:
        m = 1
        while m < 2 * n - 1:
            m *= 2
    var a = ctx.enqueue_create_buffer[T](2 * rows * m)
    var b = ctx.enqueue_create_buffer[T](2 * rows * m)
    var chirp = Int64(0 if pow2 else 1)
    ctx.enqueue_function[_load_kernel[T]](a.unsafe_ptr(), x, spec, Int64(rows * m), Int64(m), Int64(n), Int64(K),
                                          Int64(rows_in * cols_in), Int64(cols_in), Int64(mode), chirp,
                                          grid_dim=_blocks(rows * m), block_dim=THREADS)
    var in_b: Bool
    if pow2:
        in_b = _transform[T](ctx, a, b, spec, rows, m, 0.0)
    else:  # Bluestein: the chirp's spectrum, then x w's, their product, back, times w (in the store)
        var cw = ctx.enqueue_create_buffer[T](2 * m)
        var cw2 = ctx.enqueue_create_buffer[T](2 * m)
        ctx.enqueue_function[_chirp_kernel[T]](cw.unsafe_ptr(), spec, Int64(m), Int64(n), grid_dim=_blocks(m),
                                               block_dim=THREADS)
        var spectrum = cw2 if _transform[T](ctx, cw, cw2, spec, 1, m, -1.0) else cw
        var forward_in_b = _transform[T](ctx, a, b, spec, rows, m, -1.0)
        var product = b if forward_in_b else a
        var spare = a if forward_in_b else b
        ctx.enqueue_function[_product_kernel[T]](product.unsafe_ptr(), spectrum.unsafe_ptr(), Int64(rows * m),
                                                 Int64(m), 1.0 / Float64(m), grid_dim=_blocks(rows * m),
                                                 block_dim=THREADS)
        in_b = forward_in_b != _transform[T](ctx, product, spare, spec, rows, m, 1.0)
    var count = n // 2 + 1 if mode == R2C else n
    var result = b if in_b else a
    ctx.enqueue_function[_store_kernel[T]](dst, result.unsafe_ptr(), spec, Int64(rows * count), Int64(count),
                                           Int64(m), Int64(n), Int64(K), Int64(rows_out * cols_out),
                                           Int64(cols_out), Int64(mode), chirp, 1.0 / sqrt(Float64(n)),
                                           1.0 / Float64(n), grid_dim=_blocks(rows * count), block_dim=THREADS)
