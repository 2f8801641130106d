# The Stockham passes of a complex FFT of smooth length (factors 2, 3, 5, 7, 11, 13), on split
# real/imaginary planes: transform.mojo runs them on a row, and on Bluestein's convolutions.
#
# Stockham autosort, decimation in frequency (Cooley & Tukey 1965; Stockham 1966; Van Loan,
# "Computational Frameworks for the FFT", 1992, 1.7): each pass reads x[q + s(p + k m)] and writes
# y[q + s(r p + j)], so the result comes out in natural order with no bit reversal, and the
# innermost loop (over q) is contiguous, which is what the SIMD path vectorizes once s reaches the
# vector width. The butterflies each pass runs are in butterflies.mojo.
#
# Twiddles are computed in float64 (two-level tables: e^(2 pi i k / n) = hi[k / B] lo[k % B], with
# hi and lo from sin/cos, so the error stays a few ulps) and stored in the data's precision. Tables
# hold cos and sin of +2 pi k / n; the transform's sign is applied where they are read, so one
# table serves both directions.
from std.math import cos, sin, sqrt
from std.sys.info import simd_width_of
from max.algorithm import parallelize
from .butterflies import _pass_block, _radix8_first


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
    # the quarter turns exact (sin pi is 1.2e-16 in float64): a real transform's DC and Nyquist bins
    # are then exactly real, as NumPy's are (an angle of -3 + 0j is pi, of -3 - 1e-16j -pi)
    if n % 4 == 0:
        for q in range(4):
            var k = q * (n // 4)
            if k < count:
                cr[k] = Scalar[T](1 if q == 0 else (-1 if q == 2 else 0))
                si[k] = Scalar[T](1 if q == 1 else (-1 if q == 3 else 0))
    elif n % 2 == 0:
        cr[0], si[0] = Scalar[T](1), Scalar[T](0)
        if n // 2 < count:
            cr[n // 2], si[n // 2] = Scalar[T](-1), Scalar[T](0)
    else:
        cr[0], si[0] = Scalar[T](1), Scalar[T](0)


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
