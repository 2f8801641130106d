# The FFT kernel's GPU path: the same operands as the CPU path (fft.mojo), every transform of the
# stack at once. Each of the b * K sequences becomes a complex row of length L (n, or n / 2 for a
# real transform of even n: the half-length trick, even samples as real parts and odd ones as
# imaginary, Cooley, Lewis & Welch 1970), is transformed, and leaves through the output's layout
# with the split of the real trick and the norm's scaling.
#
# Lengths whose prime factors are at most 13 run mixed-radix Stockham passes (radices 8, 4, 2, 3,
# 5, 7, 11, 13; Stockham autosort needs no bit reversal: the form of Govindaraju et al., "High
# performance discrete Fourier transforms on graphics processors", SC 2008). Other lengths run
# Bluestein's chirp-z (Bluestein 1970): x w, zero-padded to a power of two m >= 2L - 1, convolved
# with conj(w) through m-point transforms, times w, where w[j] = exp(sign i pi j^2 / L).
#
# Where an m-point row fits in shared memory, one kernel does everything: a block gathers its rows
# from the input (several rows when m is small; for an inner axis neighbouring sequences, so the
# reads coalesce), runs every pass (and Bluestein's product and inverse) there, and scatters the
# result. Longer rows (up to the square of that) run the four-step form (Bailey 1989): m = m1 m2,
# the m2 columns' m1-point transforms times the twiddles exp(sign 2 pi i k1 j2 / m), then the rows'
# m2-point transforms, both through the same block kernel, the result left transposed for the
# store to read in order. Beyond that, one launch per pass.
#
# Roots of unity, the butterflies and the index math are gpu_passes.mojo's. Shared memory is
# padded (one scalar per 32) against bank conflicts; kernels come in variants for powers of two
# (no odd radix' registers) and for one sequence per item (no column division). ``spec`` stays on
# the device: the kernels read the sign and the norm there.
from std.math import sqrt
from std.memory import stack_allocation
from max.gpu import barrier, block_dim, block_idx, thread_idx
from max.gpu.host import DeviceBuffer, DeviceContext
from max.gpu.memory import AddressSpace
from .gpu_passes import any_stage, cmul, divmod32, pad, padded_size, plan_of, radix_of, root

comptime THREADS = 256
comptime C2C = 0
comptime R2C = 1
comptime C2R = 2

# A transform's geometry, one vector so kernels take it as one argument.
comptime Geo = SIMD[DType.int64, 16]
comptime MODE = 0
comptime N = 1  # the transform's length on the real side (what the norm divides by)
comptime L = 2  # the complex rows' length (n, or n / 2 for the real trick)
comptime M = 3  # the transformed length (L, or Bluestein's power of two)
comptime K = 4  # sequences per item (an inner axis' columns)
comptime ITEM_IN = 5
comptime COLS_IN = 6
comptime ITEM_OUT = 7
comptime COLS_OUT = 8
comptime HALF = 9
comptime CHIRP = 10
comptime COUNT = 11  # outputs per row
comptime ROWS = 12
comptime TWIDDLE = 13  # the four-step's twiddle denominator (0: none)
comptime SCALED = 14  # 1: the norm's scaling applies
comptime PLAN = 15  # the radices of an m-point row, 4 bits each, first pass lowest


def _shared_points[T: DType]() -> Int:
    """The longest row one block transforms in shared memory (two padded complex planes: 33 KiB)."""
    comptime if T == DType.float64:
        return 1024
    return 2048


@always_inline
def _any[T: DType](buffer: DeviceBuffer[T]) -> UnsafePointer[Scalar[T], MutAnyOrigin]:
    return buffer.unsafe_ptr().unsafe_mut_cast[True]().unsafe_origin_cast[MutAnyOrigin]()


@always_inline
def _global_id() -> Int:
    return Int(block_idx.x) * Int(block_dim.x) + Int(thread_idx.x)


@always_inline
def _item[K1: Bool](g: Geo, t: Int) -> Tuple[Int, Int]:
    """Sequence t's item and column (K1: one sequence per item)."""
    comptime if K1:
        return (t, 0)
    return divmod32(t, Int(g[K]))


@always_inline
def _input[T: DType, K1: Bool](x: UnsafePointer[Scalar[T], MutAnyOrigin], g: Geo, t: Int, j: Int,
                               sign: Float64) -> Tuple[Scalar[T], Scalar[T]]:
    """Position j of sequence t's complex row (zero past L; times the chirp for Bluestein)."""
    var ll = Int(g[L])
    if j >= ll:
        return (Scalar[T](0), Scalar[T](0))
    var at = _item[K1](g, t)
    var kk = at[1]
    var base = at[0] * Int(g[ITEM_IN])
    var cols = Int(g[COLS_IN])
    var mode = Int(g[MODE])
    var n = Int(g[N])
    var re = Scalar[T](0)
    var im = Scalar[T](0)
    if mode == R2C:
        if g[HALF] != 0:
            re = x[base + 2 * j * cols + kk]
            im = x[base + (2 * j + 1) * cols + kk]
        else:
            re = x[base + j * cols + kk]
    elif mode == C2C:
        var p = base + j * cols + 2 * kk
        re = x[p]
        im = x[p + 1]
    elif g[HALF] != 0:  # c2r of even n: Z[j] = (X[j] + X[j + L]) + i w^j (X[j] - X[j + L])
        var p = base + j * cols + 2 * kk
        var q = base + (ll - j) * cols + 2 * kk  # X[j + L] = conj(X[L - j])
        var ar = x[p]
        var ai = x[p + 1]
        var br = x[q]
        var bi = -x[q + 1]
        if j == 0:  # the DC and Nyquist terms' imaginary parts do not count (NumPy's irfft)
            ai = 0
            bi = 0
        var d = cmul[T](ar - br, ai - bi, root[T](j, n, sign))
        re = ar + br - d[1]
        im = ai + bi + d[0]
    else:  # c2r of odd n: the upper half is the conjugate of the lower
        var p = base + (j if 2 * j <= n else n - j) * cols + 2 * kk
        re = x[p]
        im = x[p + 1] if 2 * j <= n else -x[p + 1]
    if g[CHIRP] != 0:
        return cmul[T](re, im, root[T](divmod32(j * j, 2 * ll)[1], 2 * ll, sign))
    return (re, im)


@always_inline
def _result[T: DType, PAD: Bool, address_space: AddressSpace](
        z: UnsafePointer[Scalar[T], MutAnyOrigin, address_space=address_space], base: Int, g: Geo, idx: Int,
        m1: Int, m2: Int, sign: Float64) -> Tuple[Scalar[T], Scalar[T]]:
    """Frequency idx of the transformed row at scalar offset ``base`` of ``z`` (stored transposed
    as m1 x m2 when m1 > 0)."""
    var p = _transposed(idx, m1, m2)
    var re = z[pad[PAD](base + 2 * p)]
    var im = z[pad[PAD](base + 2 * p + 1)]
    if g[CHIRP] != 0:
        var ll = Int(g[L])
        return cmul[T](re, im, root[T](divmod32(idx * idx, 2 * ll)[1], 2 * ll, sign))
    return (re, im)


@always_inline
def _output[T: DType, K1: Bool, PAD: Bool, address_space: AddressSpace](
        dst: UnsafePointer[Scalar[T], MutAnyOrigin],
        z: UnsafePointer[Scalar[T], MutAnyOrigin, address_space=address_space], base: Int, g: Geo, t: Int,
        k: Int, m1: Int, m2: Int, sign: Float64, scale: Scalar[T]):
    """Output k of sequence t from its transformed row (at scalar offset ``base`` of ``z``)."""
    var mode = Int(g[MODE])
    var at = _item[K1](g, t)
    var kk = at[1]
    var re: Scalar[T]
    var im: Scalar[T]
    if mode == R2C and g[HALF] != 0:  # X[k] = E[k] + w^k O[k], E and O the even and odd samples' DFTs
        var ll = Int(g[L])
        var zk = _result[T, PAD](z, base, g, k if k < ll else 0, m1, m2, sign)
        var zc = _result[T, PAD](z, base, g, ll - k if 0 < k < ll else 0, m1, m2, sign)  # conjugated below
        var er = (zk[0] + zc[0]) * 0.5
        var ei = (zk[1] - zc[1]) * 0.5
        var o = cmul[T]((zk[1] + zc[1]) * 0.5, (zc[0] - zk[0]) * 0.5, root[T](k, Int(g[N]), sign))
        re = er + o[0]
        im = ei + o[1]
    elif mode == C2R and g[HALF] != 0:  # sample k is the real (even k) or imaginary part of Z[k / 2]
        var zz = _result[T, PAD](z, base, g, k >> 1, m1, m2, sign)
        re = zz[0] if k & 1 == 0 else zz[1]
        im = 0
    else:
        var zz = _result[T, PAD](z, base, g, k, m1, m2, sign)
        re = zz[0]
        im = zz[1]
    if g[TWIDDLE] != 0:
        var tw = Int(g[TWIDDLE])
        var w = cmul[T](re, im, root[T](divmod32(k * kk, tw)[1], tw, sign))
        re = w[0]
        im = w[1]
    var out = at[0] * Int(g[ITEM_OUT]) + k * Int(g[COLS_OUT])
    if mode == C2R:
        dst[out + kk] = re * scale
    else:
        dst[out + 2 * kk] = re * scale
        dst[out + 2 * kk + 1] = im * scale


@always_inline
def _scale[T: DType](spec: UnsafePointer[Float64, MutAnyOrigin], g: Geo, inv_sqrt_n: Float64,
                     inv_n: Float64) -> Scalar[T]:
    if g[SCALED] == 0:
        return 1
    var scaling = Int(spec[1])
    return Scalar[T](1.0 if scaling == 0 else (inv_sqrt_n if scaling == 1 else inv_n))


@always_inline
def _block_passes[T: DType, POW2: Bool](src: UnsafePointer[Scalar[T], MutAnyOrigin, address_space=AddressSpace.SHARED],
                                        dst: UnsafePointer[Scalar[T], MutAnyOrigin, address_space=AddressSpace.SHARED],
                                        rows: Int, m: Int, plan: Int, sign: Float64) -> Bool:
    """Every pass over ``rows`` m-point rows in shared memory; True when the result is in dst."""
    var tid = Int(thread_idx.x)
    var code = plan
    var ns = 1
    var in_dst = False
    while code != 0:
        var radix = code & 15
        code >>= 4
        var per_row = m // radix
        var a = dst if in_dst else src
        var b = src if in_dst else dst
        for q in range(tid, rows * per_row, THREADS):
            var rj = divmod32(q, per_row)
            any_stage[T, POW2, True](b, a, radix, 2 * rj[0] * m, rj[1], m, ns, sign)
        barrier()
        in_dst = not in_dst
        ns *= radix
    return in_dst


def _block_kernel[T: DType, POW2: Bool, K1: Bool](
        dst: UnsafePointer[Scalar[T], MutAnyOrigin], x: UnsafePointer[Scalar[T], MutAnyOrigin],
        spec: UnsafePointer[Float64, MutAnyOrigin], spectrum: UnsafePointer[Scalar[T], MutAnyOrigin], g: Geo,
        fixed_sign: Float64, inv_sqrt_n: Float64, inv_n: Float64):
    """The rows of block ``block_idx.x``: gathered from x, transformed in shared memory (with
    Bluestein's product and inverse), scattered to dst. POW2: m is a power of two; K1: one
    sequence per item."""
    comptime P = _shared_points[T]()
    var a = stack_allocation[padded_size(2 * P), Scalar[T], address_space=AddressSpace.SHARED]().unsafe_origin_cast[
        MutAnyOrigin]()
    var b = stack_allocation[padded_size(2 * P), Scalar[T], address_space=AddressSpace.SHARED]().unsafe_origin_cast[
        MutAnyOrigin]()
    var tid = Int(thread_idx.x)
    var m = Int(g[M])
    var per_block = P // m
    var r0 = Int(block_idx.x) * per_block
    var rows = min(per_block, Int(g[ROWS]) - r0)
    var sign = fixed_sign if fixed_sign != 0 else spec[0]
    # K1: rows are whole sequences, the threads run along them; else neighbouring rows are
    # neighbouring columns of an item, and the threads run across them so the reads coalesce
    for i in range(tid, rows * m, THREADS):
        var rj: Tuple[Int, Int]
        comptime if K1:
            rj = divmod32(i, m)
        else:
            var jr = divmod32(i, rows)
            rj = (jr[1], jr[0])
        var v = _input[T, K1](x, g, r0 + rj[0], rj[1], sign)
        var at = 2 * (rj[0] * m + rj[1])
        a[pad[True](at)] = v[0]
        a[pad[True](at + 1)] = v[1]
    barrier()
    var chirp = g[CHIRP] != 0
    var in_b = _block_passes[T, POW2](a, b, rows, m, Int(g[PLAN]), -1.0 if chirp else sign)
    if chirp:  # times the chirp's spectrum (and 1 / m), then the inverse transform
        var z = b if in_b else a
        var inv_m = Scalar[T](1.0 / Float64(m))
        for i in range(tid, rows * m, THREADS):
            var j = divmod32(i, m)[1]
            var at = pad[True](2 * i)
            var at1 = pad[True](2 * i + 1)
            var w = cmul[T](z[at], z[at1], (spectrum[2 * j] * inv_m, spectrum[2 * j + 1] * inv_m))
            z[at] = w[0]
            z[at1] = w[1]
        barrier()
        if in_b:
            in_b = not _block_passes[T, POW2](b, a, rows, m, Int(g[PLAN]), 1.0)
        else:
            in_b = _block_passes[T, POW2](a, b, rows, m, Int(g[PLAN]), 1.0)
    var z = b if in_b else a
    var count = Int(g[COUNT])
    var scale = _scale[T](spec, g, inv_sqrt_n, inv_n)
    for i in range(tid, rows * count, THREADS):
        var rk: Tuple[Int, Int]
        comptime if K1:
            rk = divmod32(i, count)
        else:
            var kr = divmod32(i, rows)
            rk = (kr[1], kr[0])
        _output[T, K1, True](dst, z, 2 * rk[0] * m, g, r0 + rk[0], rk[1], 0, 0, sign, scale)


def _load_kernel[T: DType](work: UnsafePointer[Scalar[T], MutAnyOrigin], x: UnsafePointer[Scalar[T], MutAnyOrigin],
                           spec: UnsafePointer[Float64, MutAnyOrigin], g: Geo):
    var i = _global_id()
    var m = Int(g[M])
    if i >= Int(g[ROWS]) * m:
        return
    var tj = divmod32(i, m)
    var v = _input[T, False](x, g, tj[0], tj[1], spec[0])
    work[2 * i] = v[0]
    work[2 * i + 1] = v[1]


def _pass_kernel[T: DType, POW2: Bool](dst: UnsafePointer[Scalar[T], MutAnyOrigin],
                                       src: UnsafePointer[Scalar[T], MutAnyOrigin],
                                       spec: UnsafePointer[Float64, MutAnyOrigin], total: Int64, m: Int64,
                                       radix: Int64, ns: Int64, fixed_sign: Float64):
    """One Stockham pass over every row: span ``ns`` -> radix ns."""
    var i = _global_id()
    if i >= Int(total):
        return
    var tj = divmod32(i, Int(m) // Int(radix))
    any_stage[T, POW2, False](dst, src, Int(radix), 2 * tj[0] * Int(m), tj[1], Int(m), Int(ns),
                              fixed_sign if fixed_sign != 0 else spec[0])


@always_inline
def _transposed(k: Int, m1: Int, m2: Int) -> Int:
    """Where frequency k of a four-step result (m1 x m2, transposed) is stored."""
    if m1 == 0:
        return k
    var qr = divmod32(k, m1)
    return qr[1] * m2 + qr[0]


def _product_kernel[T: DType](dst: UnsafePointer[Scalar[T], MutAnyOrigin], src: UnsafePointer[Scalar[T], MutAnyOrigin],
                              spectrum: UnsafePointer[Scalar[T], MutAnyOrigin], total: Int64, m: Int64,
                              m1: Int64, m2: Int64, s1: Int64, s2: Int64):
    """dst = src times the chirp's spectrum over m, both read through their transposes, dst in order."""
    var i = _global_id()
    if i >= Int(total):
        return
    var lm = Int(m)
    var tk = divmod32(i, lm)
    var p = tk[0] * lm + _transposed(tk[1], Int(m1), Int(m2))
    var q = _transposed(tk[1], Int(s1), Int(s2))
    var inv_m = Scalar[T](1.0 / Float64(lm))
    var z = cmul[T](src[2 * p], src[2 * p + 1], (spectrum[2 * q] * inv_m, spectrum[2 * q + 1] * inv_m))
    dst[2 * i] = z[0]
    dst[2 * i + 1] = z[1]


def _store_kernel[T: DType](dst: UnsafePointer[Scalar[T], MutAnyOrigin], work: UnsafePointer[Scalar[T], MutAnyOrigin],
                            spec: UnsafePointer[Float64, MutAnyOrigin], g: Geo, m1: Int64, m2: Int64,
                            inv_sqrt_n: Float64, inv_n: Float64):
    var i = _global_id()
    var count = Int(g[COUNT])
    if i >= Int(g[ROWS]) * count:
        return
    var tk = divmod32(i, count)
    _output[T, False, False](dst, work, 2 * tk[0] * Int(g[M]), g, tk[0], tk[1], Int(m1), Int(m2), spec[0],
                             _scale[T](spec, g, inv_sqrt_n, inv_n))


@always_inline
def _chirp[T: DType](i: Int, m: Int, ll: Int, sign: Float64) -> Tuple[Scalar[T], Scalar[T]]:
    """conj(w) at offsets -(L - 1) .. L - 1, wrapped around the m-point circle: entry i."""
    var d = i if i < ll else (m - i if m - i < ll else -1)
    if d < 0:
        return (Scalar[T](0), Scalar[T](0))
    return root[T](divmod32(d * d, 2 * ll)[1], 2 * ll, -sign)


def _chirp_kernel[T: DType](bw: UnsafePointer[Scalar[T], MutAnyOrigin], spec: UnsafePointer[Float64, MutAnyOrigin],
                            m: Int64, n: Int64):
    var i = _global_id()
    if i >= Int(m):
        return
    var w = _chirp[T](i, Int(m), Int(n), spec[0])
    bw[2 * i] = w[0]
    bw[2 * i + 1] = w[1]


def _blocks(total: Int) -> Int:
    return (total + THREADS - 1) // THREADS


def _geometry(mode: Int, n: Int, ll: Int, m: Int, k: Int, item_in: Int, cols_in: Int, item_out: Int,
              cols_out: Int, half: Bool, chirp: Bool, count: Int, rows: Int, scaled: Bool, plan: Int) -> Geo:
    return Geo(Int64(mode), Int64(n), Int64(ll), Int64(m), Int64(k), Int64(item_in), Int64(cols_in),
               Int64(item_out), Int64(cols_out), Int64(1 if half else 0), Int64(1 if chirp else 0), Int64(count),
               Int64(rows), 0, Int64(1 if scaled else 0), Int64(plan))


def _plain(rows: Int, m: Int, k: Int, item: Int, cols: Int) -> Geo:
    """A c2c transform of m-point sequences held as complex rows: no scaling, no chirp."""
    return _geometry(C2C, m, m, m, k, item, cols, item, cols, False, False, m, rows, False, plan_of(m))


def _launch_block[T: DType](ctx: DeviceContext, dst: UnsafePointer[Scalar[T], MutAnyOrigin],
                            x: UnsafePointer[Scalar[T], MutAnyOrigin], spec: UnsafePointer[Float64, MutAnyOrigin],
                            spectrum: UnsafePointer[Scalar[T], MutAnyOrigin], g: Geo, fixed_sign: Float64,
                            inv_sqrt_n: Float64, inv_n: Float64) raises:
    var m = Int(g[M])
    var per_block = _shared_points[T]() // m
    var grid = (Int(g[ROWS]) + per_block - 1) // per_block
    var pow2 = (m & (m - 1)) == 0
    if g[K] == 1 and pow2:
        ctx.enqueue_function[_block_kernel[T, True, True]](dst, x, spec, spectrum, g, fixed_sign, inv_sqrt_n, inv_n,
                                                           grid_dim=grid, block_dim=THREADS)
    elif g[K] == 1:
        ctx.enqueue_function[_block_kernel[T, False, True]](dst, x, spec, spectrum, g, fixed_sign, inv_sqrt_n,
                                                            inv_n, grid_dim=grid, block_dim=THREADS)
    elif pow2:
        ctx.enqueue_function[_block_kernel[T, True, False]](dst, x, spec, spectrum, g, fixed_sign, inv_sqrt_n,
                                                            inv_n, grid_dim=grid, block_dim=THREADS)
    else:
        ctx.enqueue_function[_block_kernel[T, False, False]](dst, x, spec, spectrum, g, fixed_sign, inv_sqrt_n,
                                                             inv_n, grid_dim=grid, block_dim=THREADS)


def _split(m: Int, limit: Int) -> Int:
    """The largest divisor of m up to ``limit`` made of m's radices (m2 of the four-step)."""
    var d = min(m, limit)
    while d > 1:
        if m % d == 0 and plan_of(d) >= 0 and plan_of(m // d) >= 0:
            return d
        d -= 1
    return 1


def _transform_rows[T: DType](ctx: DeviceContext, a: DeviceBuffer[T], b: DeviceBuffer[T],
                              spec: UnsafePointer[Float64, MutAnyOrigin], rows: Int, m: Int,
                              fixed_sign: Float64) raises -> Tuple[Bool, Int, Int]:
    """The m-point DFT of each of ``rows`` contiguous complex rows held in ``a`` (m 13-smooth):
    whether the result is in ``b``, and (m1, m2) when it is stored transposed (m1 = 0: in order)."""
    comptime P = _shared_points[T]()
    var none = _any[T](a)  # no spectrum: no chirp
    if m <= P:
        if m > 1:
            _launch_block[T](ctx, _any[T](a), _any[T](a), spec, none, _plain(rows, m, 1, 2 * m, 2),
                             fixed_sign, 1.0, 1.0)
        return (False, 0, 0)
    var m2 = _split(m, P)
    var m1 = m // m2
    if m1 <= P:  # four-step: columns (times the twiddles) into b, then rows back into a
        var columns = _plain(rows * m2, m1, m2, 2 * m, 2 * m2)
        columns[TWIDDLE] = Int64(m)
        _launch_block[T](ctx, _any[T](b), _any[T](a), spec, none, columns, fixed_sign, 1.0, 1.0)
        _launch_block[T](ctx, _any[T](a), _any[T](b), spec, none, _plain(rows * m1, m2, 1, 2 * m2, 2),
                         fixed_sign, 1.0, 1.0)
        return (False, m1, m2)
    var in_b = False
    var ns = 1
    var rest = m
    while rest > 1:
        var radix = radix_of(rest)
        var src = _any[T](b) if in_b else _any[T](a)
        var dst = _any[T](a) if in_b else _any[T](b)
        var total = rows * (m // radix)
        if (m & (m - 1)) == 0:
            ctx.enqueue_function[_pass_kernel[T, True]](dst, src, spec, Int64(total), Int64(m), Int64(radix),
                                                        Int64(ns), fixed_sign, grid_dim=_blocks(total),
                                                        block_dim=THREADS)
        else:
            ctx.enqueue_function[_pass_kernel[T, False]](dst, src, spec, Int64(total), Int64(m), Int64(radix),
                                                         Int64(ns), fixed_sign, grid_dim=_blocks(total),
                                                         block_dim=THREADS)
        in_b = not in_b
        ns *= radix
        rest //= radix
    return (in_b, 0, 0)


def stack_geometry(batch: Int, rows_in: Int, cols_in: Int, rows_out: Int, cols_out: Int) -> Geo:
    """The geometry of transforming (batch, rows_in, cols_in) into (batch, rows_out, cols_out)."""
    var mode = C2C if cols_in == cols_out else (R2C if cols_out > cols_in else C2R)
    var n = rows_out if mode == C2R else rows_in
    var kcount = cols_in // 2 if mode == C2C else min(cols_in, cols_out)
    var half = mode != C2C and n % 2 == 0
    var ll = n // 2 if half else n
    var plan = plan_of(ll)
    var chirp = plan < 0
    var m = ll
    if chirp:
        m = 1
        while m < 2 * ll - 1:
            m *= 2
        plan = plan_of(m)
    return _geometry(mode, n, ll, m, kcount, rows_in * cols_in, cols_in, rows_out * cols_out, cols_out, half,
                     chirp, n // 2 + 1 if mode == R2C else n, batch * kcount, True, plan)


def run_gpu[T: DType](ctx: DeviceContext, dst_in: UnsafePointer[mut=True, Scalar[T], _],
                      x_in: UnsafePointer[Scalar[T], _], spec_in: UnsafePointer[Float64, _], batch: Int,
                      rows_in: Int, cols_in: Int, rows_out: Int, cols_out: Int) raises:
    """x (batch, rows_in, cols_in) transformed along axis 1 into dst (batch, rows_out, cols_out), all
    three in the device's memory."""
    var dst = dst_in.unsafe_origin_cast[MutAnyOrigin]()
    var x = x_in.unsafe_mut_cast[True]().unsafe_origin_cast[MutAnyOrigin]()
    var spec = spec_in.unsafe_mut_cast[True]().unsafe_origin_cast[MutAnyOrigin]()
    var g = stack_geometry(batch, rows_in, cols_in, rows_out, cols_out)
    var rows = Int(g[ROWS])
    var n = Int(g[N])
    var ll = Int(g[L])
    var m = Int(g[M])
    var chirp = g[CHIRP] != 0
    if n == 0 or rows == 0:
        return
    var inv_sqrt_n = 1.0 / sqrt(Float64(n))
    var inv_n = 1.0 / Float64(n)
    var cw = ctx.enqueue_create_buffer[T](2 * m if chirp else 2)
    var cw2 = ctx.enqueue_create_buffer[T](2 * m if chirp else 2)
    var spectrum = _any[T](cw)  # read only by Bluestein
    var s1 = 0
    var s2 = 0
    if chirp:  # conj(w)'s m-point spectrum
        ctx.enqueue_function[_chirp_kernel[T]](_any[T](cw), spec, Int64(m), Int64(ll), grid_dim=_blocks(m),
                                               block_dim=THREADS)
        var done = _transform_rows[T](ctx, cw, cw2, spec, 1, m, -1.0)
        spectrum = _any[T](cw2) if done[0] else _any[T](cw)
        s1 = done[1]
        s2 = done[2]
    if m <= _shared_points[T]():  # one kernel: gather, transform, scatter
        _launch_block[T](ctx, dst, x, spec, spectrum, g, 0.0, inv_sqrt_n, inv_n)
        return
    var a = ctx.enqueue_create_buffer[T](2 * rows * m)
    var b = ctx.enqueue_create_buffer[T](2 * rows * m)
    ctx.enqueue_function[_load_kernel[T]](_any[T](a), x, spec, g, grid_dim=_blocks(rows * m),
                                          block_dim=THREADS)
    var done = _transform_rows[T](ctx, a, b, spec, rows, m, -1.0 if chirp else 0.0)
    if chirp:  # the product, in order, into the spare buffer; then the inverse transform
        var z = b if done[0] else a
        var spare = a if done[0] else b
        ctx.enqueue_function[_product_kernel[T]](_any[T](spare), _any[T](z), spectrum, Int64(rows * m),
                                                 Int64(m), Int64(done[1]), Int64(done[2]), Int64(s1), Int64(s2),
                                                 grid_dim=_blocks(rows * m), block_dim=THREADS)
        var back = _transform_rows[T](ctx, spare, z, spec, rows, m, 1.0)
        done = (back[0] == done[0], back[1], back[2])  # in z (b when done[0]), or in spare
    var result = b if done[0] else a
    var count = Int(g[COUNT])
    ctx.enqueue_function[_store_kernel[T]](dst, _any[T](result), spec, g, Int64(done[1]), Int64(done[2]),
                                           inv_sqrt_n, inv_n, grid_dim=_blocks(rows * count), block_dim=THREADS)
