# Complex FFT of one row, any length, on split real/imaginary planes (``transform``), and the plan
# a length needs, computed once per kernel call (``build_plan``).
#
# Smooth lengths (factors 2, 3, 5, 7, 11, 13) run the Stockham autosort algorithm (stockham.mojo).
# Other lengths use Bluestein's chirp-z algorithm (Bluestein 1970): a circular convolution through
# transforms of a length M >= 2n - 1 of factors 2 and 3 only, so a prime length costs about what a
# power of two near 2n does. The chirp's angle comes from k^2 mod 2n in integers, its roots of
# unity computed in float64 as the twiddles are.
from .stockham import fill_roots, is_smooth, smooth_radices, stockham


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
