# The SVD of a tall real matrix by Golub-Kahan-Reinsch: Householder bidiagonalization A = U_B B V_B^T,
# then implicit-shift QR steps on the bidiagonal B until it is diagonal (Golub & Kahan 1965; Golub &
# Reinsch 1970; Golub & Van Loan, 4th ed., 5.4.8 and 8.6.1-8.6.2). One O(n^3) reduction plus
# rotations, where one-sided Jacobi needs ~8 O(n^3) sweeps; errors are absolute (~eps ||A||), as
# LAPACK's gesvd. The QR phase records its rotations and applies them to U and V in batches (the
# scalar chase stays in registers; each batch streams the vectors once). Splitting one matrix's
# vector work over cores (columns of the accumulation, element ranges of the rotations) measured
# slower on the 2-core machine (23 vs 21.8 ms at 256 x 256, twice the CPU time), so one matrix is
# one task; stacks spread over cores by matrix.
#
# Layout: the matrix arrives transposed (column j of A is the contiguous row j of `a`, length m), U
# and V are kept as rows of U^T and V^T, so every reflector and rotation streams contiguous memory.
from std.math import sqrt
from .common import EPS, W, axpy, cabs, reflect, reflector, rotate, scal

comptime ROTATIONS = 4096  # rotations recorded per side before they are applied


def bidiagonalize(a: W, m: Int, n: Int, d: W, e: W, tauq: W, taup: W, tmp: W, w: W):
    """Householder bidiagonalization of the transposed m x n (m >= n) workspace: diagonal d,
    superdiagonal e; left reflectors stay below the diagonal of each column (taus in tauq), right
    ones in each row beyond the superdiagonal (taus in taup)."""
    for k in range(n):
        var col = a + k * m + k
        var left = reflector(col, m - k)
        d.unsafe_store(k, left[0])
        tauq.unsafe_store(k, left[1])
        if left[1] != 0.0:
            for j in range(k + 1, n):
                reflect(col, left[1], a + j * m + k, m - k)
        taup.unsafe_store(k, 0.0)
        if k + 1 >= n:
            continue
        var span = n - k - 1  # row k beyond the diagonal, a stride-m gather
        for j in range(span):
            tmp.unsafe_store(j, a.unsafe_load((k + 1 + j) * m + k))
        var right = reflector(tmp, span)
        e.unsafe_store(k, right[0])
        taup.unsafe_store(k, right[1])
        for j in range(1, span):
            a.unsafe_store((k + 1 + j) * m + k, tmp.unsafe_load(j))
        var rows = m - k - 1
        if right[1] == 0.0 or rows == 0:
            continue
        # rows k+1.. of A[:, k+1:] <- A (I - tau v v^T): w = A v over the columns, then each column -= tau v_j w
        var first = a + (k + 1) * m + k + 1
        for i in range(rows):
            w.unsafe_store(i, first.unsafe_load(i))
        for j in range(1, span):
            axpy(tmp.unsafe_load(j), a + (k + 1 + j) * m + k + 1, w, rows)
        axpy(-right[1], w, first, rows)
        for j in range(1, span):
            axpy(-right[1] * tmp.unsafe_load(j), w, a + (k + 1 + j) * m + k + 1, rows)


def accumulate(a: W, m: Int, n: Int, ucols: Int, tauq: W, taup: W, ut: W, vt: W, v: W):
    """U_B's first ucols columns (rows of ut, length m) and V_B (rows of vt, length n) from the
    stored reflectors, applied backwards to the identity (LAPACK's orgbr)."""
    for i in range(ucols * m):
        ut.unsafe_store(i, 0.0)
    for j in range(ucols):
        ut.unsafe_store(j * m + j, 1.0)
    for i in range(n * n):
        vt.unsafe_store(i, 0.0)
    for j in range(n):
        vt.unsafe_store(j * n + j, 1.0)
    for k in range(n - 1, -1, -1):
        var tau = tauq.unsafe_load(k)
        if tau == 0.0:
            continue
        for j in range(k, ucols):
            reflect(a + k * m + k, tau, ut + j * m + k, m - k)
    for k in range(n - 2, -1, -1):
        var tau = taup.unsafe_load(k)
        if tau == 0.0:
            continue
        var span = n - k - 1
        for j in range(1, span):
            v.unsafe_store(j, a.unsafe_load((k + 1 + j) * m + k))
        for j in range(k + 1, n):
            reflect(v, tau, vt + j * n + k + 1, span)


@always_inline
def givens(y: Float64, z: Float64) -> SIMD[DType.float64, 4]:
    """(c, s, r, 0) with c y + s z = r, c z - s y = 0. Operands here are scaled to about 1, so the
    squares are safe unless both are tiny, where the careful norm takes over."""
    var r2 = y * y + z * z
    var r: Float64
    if r2 > 1.0e-280:
        r = sqrt(r2)
    else:
        r = cabs(y, z)
        if r == 0.0:
            return SIMD[DType.float64, 4](1.0, 0.0, 0.0, 0.0)
    var inv = 1.0 / r
    return SIMD[DType.float64, 4](y * inv, z * inv, r, 0.0)


struct Rotations(Movable):
    """Plane rotations (p, q, c, s) recorded for the rows of one side's vectors (x^T), applied in
    order by `flush`."""

    var log: W
    var count: Int
    var rows: W
    var length: Int

    def __init__(out self, log: W, rows: W, length: Int):
        self.log = log
        self.count = 0
        self.rows = rows
        self.length = length

    @always_inline
    def add(mut self, p: Int, q: Int, c: Float64, s: Float64):
        var at = self.log + 4 * self.count
        at.unsafe_store(0, Float64(p))
        at.unsafe_store(1, Float64(q))
        at.unsafe_store(2, c)
        at.unsafe_store(3, s)
        self.count += 1

    def apply(self):
        """Every recorded rotation, in order, on its two rows."""
        for r in range(self.count):
            var at = self.log + 4 * r
            var p = Int(at.unsafe_load(0))
            var q = Int(at.unsafe_load(1))
            rotate(self.rows + p * self.length, self.rows + q * self.length, at.unsafe_load(2), at.unsafe_load(3),
                   self.length)


def flush(mut left: Rotations, mut right: Rotations):
    """Apply both sides' recorded rotations and clear the records."""
    left.apply()
    right.apply()
    left.count = 0
    right.count = 0


def bidiagonal_qr(d: W, e: W, n: Int, mut left: Rotations, mut right: Rotations) -> Bool:
    """Diagonalize the upper bidiagonal (d, e) by Golub-Kahan steps with the Wilkinson shift of
    the trailing 2 x 2 of B^T B; a zero on the diagonal is chased out of its row or column first
    (GVL 8.6.2). Rotations go to `left` (U) and `right` (V). False if it did not converge."""
    var bnorm = 0.0
    for k in range(n):
        bnorm = max(bnorm, abs(d.unsafe_load(k)))
        if k + 1 < n:
            bnorm = max(bnorm, abs(e.unsafe_load(k)))
    var small = EPS * bnorm
    var hi = n - 1
    var steps = 0
    while hi > 0:
        if left.count + 2 * n > ROTATIONS or right.count + 2 * n > ROTATIONS:
            flush(left, right)
        var eh = abs(e.unsafe_load(hi - 1))
        if eh <= small or eh <= EPS * (abs(d.unsafe_load(hi - 1)) + abs(d.unsafe_load(hi))):
            e.unsafe_store(hi - 1, 0.0)
            hi -= 1
            continue
        var lo = hi - 1
        while lo > 0:
            var el = abs(e.unsafe_load(lo - 1))
            if el <= small or el <= EPS * (abs(d.unsafe_load(lo - 1)) + abs(d.unsafe_load(lo))):
                e.unsafe_store(lo - 1, 0.0)
                break
            lo -= 1
        steps += 1
        if steps > 40 * n:
            return False
        var zero = -1
        for k in range(lo, hi + 1):
            if abs(d.unsafe_load(k)) <= small:
                d.unsafe_store(k, 0.0)
                if zero < 0:
                    zero = k
        if zero >= 0 and zero < hi:  # chase e[zero] along its row with left rotations (rows j, zero)
            var f = e.unsafe_load(zero)
            e.unsafe_store(zero, 0.0)
            for j in range(zero + 1, hi + 1):
                var g = givens(d.unsafe_load(j), f)
                var c = g[0]
                var s = g[1]
                d.unsafe_store(j, g[2])
                left.add(j, zero, c, s)
                if j < hi:
                    var ej = e.unsafe_load(j)
                    f = -s * ej
                    e.unsafe_store(j, c * ej)
            continue
        if zero == hi:  # chase e[hi-1] up its column with right rotations (columns j, hi)
            var f = e.unsafe_load(hi - 1)
            e.unsafe_store(hi - 1, 0.0)
            for j in range(hi - 1, lo - 1, -1):
                var g = givens(d.unsafe_load(j), f)
                var c = g[0]
                var s = g[1]
                d.unsafe_store(j, g[2])
                right.add(j, hi, c, s)
                if j > lo:
                    var ej = e.unsafe_load(j - 1)
                    f = -s * ej
                    e.unsafe_store(j - 1, c * ej)
            continue
        # one implicit QR step on B^T B, shifted by the eigenvalue of its trailing 2 x 2 nearer the end
        var dm = d.unsafe_load(hi - 1)
        var dn = d.unsafe_load(hi)
        var em = e.unsafe_load(hi - 1)
        var fm = e.unsafe_load(hi - 2) if hi - 1 > lo else 0.0
        var t11 = dm * dm + fm * fm
        var t12 = dm * em
        var t22 = dn * dn + em * em
        var delta = 0.5 * (t11 - t22)
        var root = cabs(delta, t12)
        var denom = delta + root if delta >= 0.0 else delta - root
        var mu = t22 - t12 * t12 / denom if denom != 0.0 else t22
        var y = d.unsafe_load(lo) * d.unsafe_load(lo) - mu
        var z = d.unsafe_load(lo) * e.unsafe_load(lo)
        for k in range(lo, hi):
            var rot = givens(y, z)
            var c = rot[0]
            var s = rot[1]
            if k > lo:
                e.unsafe_store(k - 1, rot[2])
            var dk0 = d.unsafe_load(k)
            var ek0 = e.unsafe_load(k)
            var dk = c * dk0 + s * ek0  # columns k, k+1 rotated: row k, then the bulge g below d[k]
            var ek = c * ek0 - s * dk0
            var g = s * d.unsafe_load(k + 1)
            var dk1 = c * d.unsafe_load(k + 1)
            right.add(k, k + 1, c, s)
            rot = givens(dk, g)
            c = rot[0]
            s = rot[1]
            d.unsafe_store(k, rot[2])
            e.unsafe_store(k, c * ek + s * dk1)
            d.unsafe_store(k + 1, c * dk1 - s * ek)
            left.add(k, k + 1, c, s)
            if k + 1 < hi:
                var en = e.unsafe_load(k + 1)
                z = s * en
                e.unsafe_store(k + 1, c * en)
                y = e.unsafe_load(k)
    flush(left, right)
    return True


def golub_kahan_svd(a: W, m: Int, n: Int, ucols: Int, ut: W, vt: W, sigma: W, gk: W) -> Bool:
    """The real SVD of the transposed workspace a: rows of ut (U^T, ucols of them) and vt (V^T),
    signed singular values in sigma, made nonnegative (V's column negated) here. gk holds
    6n + m + 8 ROTATIONS entries."""
    var e = gk
    var tauq = e + n
    var taup = tauq + n
    var tmp = taup + n
    var w = tmp + n
    var logs = w + m + n
    bidiagonalize(a, m, n, sigma, e, tauq, taup, tmp, w)
    accumulate(a, m, n, ucols, tauq, taup, ut, vt, tmp)
    var left = Rotations(logs, ut, m)
    var right = Rotations(logs + 4 * ROTATIONS, vt, n)
    if not bidiagonal_qr(sigma, e, n, left, right):
        return False
    for j in range(n):
        if sigma.unsafe_load(j) < 0.0:
            sigma.unsafe_store(j, -sigma.unsafe_load(j))
            scal(-1.0, vt + j * n, n)
    return True
