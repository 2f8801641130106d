# Eigenvalues and eigenvectors of general (complex) matrices: Householder reduction to upper
# Hessenberg form, then the complex single-shift QR algorithm with Wilkinson shifts, deflation and
# exceptional shifts (Golub & Van Loan, 4th ed., 7.4-7.5; LAPACK zgehrd / zlahqr), giving the Schur
# form T = Z^H A Z. Eigenvectors are back-substituted on T (LAPACK ztrevc) and mapped by Z, each
# normalized to unit 2-norm with its largest component real, as LAPACK's geev returns them.
# Callers pass complex data (real input is converted first).
from std.math import sqrt
from max.algorithm import parallelize
from max.gpu.host import DeviceContext
from extensibility import InputTensor, OutputTensor, register
from .common import EPS, W, all_finite, cabs, cdiv, nan64, pow2_inverse, put, task_count

comptime ITERATIONS_PER_EIGENVALUE = 40


@always_inline
def _at(p: W, n: Int, i: Int, j: Int) -> Float64:
    return p.unsafe_load(i * n + j)


@always_inline
def _cabs1(re: Float64, im: Float64) -> Float64:
    return abs(re) + abs(im)


def hessenberg[C: Bool](hr: W, hi: W, n: Int, zr: W, zi: W, vr: W, vi: W):
    """A <- P^H A P with Householder P (LAPACK zgehrd); Z accumulates the P's (starts as I)."""
    for e in range(n * n):
        zr.unsafe_store(e, 0.0)
        zi.unsafe_store(e, 0.0)
    for i in range(n):
        zr.unsafe_store(i * n + i, 1.0)
    for k in range(n - 2):
        var span = n - k - 1
        var xnorm2 = 0.0
        var big = 0.0
        for i in range(k + 2, n):
            big = max(big, max(abs(_at(hr, n, i, k)), abs(_at(hi, n, i, k))))
        if big > 0.0:
            for i in range(k + 2, n):
                var a = _at(hr, n, i, k) / big
                var b = _at(hi, n, i, k) / big
                xnorm2 += a * a + b * b
        var xnorm = big * sqrt(xnorm2)
        var alr = _at(hr, n, k + 1, k)
        var ali = _at(hi, n, k + 1, k)
        if xnorm == 0.0 and ali == 0.0:
            continue
        var beta = cabs(cabs(alr, ali), xnorm)
        if alr >= 0.0:
            beta = -beta
        var tr = (beta - alr) / beta
        var ti = -ali / beta
        var sc = cdiv(1.0, 0.0, alr - beta, ali)
        vr.unsafe_store(0, 1.0)
        vi.unsafe_store(0, 0.0)
        for i in range(1, span):
            var xr = _at(hr, n, k + 1 + i, k)
            var xi = _at(hi, n, k + 1 + i, k)
            vr.unsafe_store(i, xr * sc[0] - xi * sc[1])
            vi.unsafe_store(i, xr * sc[1] + xi * sc[0])
        # left: rows k+1.. <- (I - conj(tau) v v^H) rows
        for j in range(k, n):
            var wr = 0.0
            var wi = 0.0
            for i in range(span):  # v^H h_j
                var a = vr.unsafe_load(i)
                var b = -vi.unsafe_load(i)
                var cr = _at(hr, n, k + 1 + i, j)
                var ci = _at(hi, n, k + 1 + i, j)
                wr += a * cr - b * ci
                wi += a * ci + b * cr
            var fr = tr * wr + ti * wi  # conj(tau) w
            var fi = tr * wi - ti * wr
            for i in range(span):
                var a = vr.unsafe_load(i)
                var b = vi.unsafe_load(i)
                var at = (k + 1 + i) * n + j
                hr.unsafe_store(at, hr.unsafe_load(at) - (fr * a - fi * b))
                hi.unsafe_store(at, hi.unsafe_load(at) - (fr * b + fi * a))
        # right: columns k+1.. of H and of Z <- cols (I - tau v v^H)
        for pass_ in range(2):
            var pr = hr if pass_ == 0 else zr
            var pi = hi if pass_ == 0 else zi
            for i in range(n):
                var wr = 0.0
                var wi = 0.0
                for j in range(span):  # row . v
                    var a = vr.unsafe_load(j)
                    var b = vi.unsafe_load(j)
                    var cr = _at(pr, n, i, k + 1 + j)
                    var ci = _at(pi, n, i, k + 1 + j)
                    wr += cr * a - ci * b
                    wi += cr * b + ci * a
                var fr = tr * wr - ti * wi  # tau w
                var fi = tr * wi + ti * wr
                for j in range(span):  # -= f conj(v_j)
                    var a = vr.unsafe_load(j)
                    var b = -vi.unsafe_load(j)
                    var at = i * n + k + 1 + j
                    pr.unsafe_store(at, pr.unsafe_load(at) - (fr * a - fi * b))
                    pi.unsafe_store(at, pi.unsafe_load(at) - (fr * b + fi * a))
        for i in range(k + 2, n):
            hr.unsafe_store(i * n + k, 0.0)
            hi.unsafe_store(i * n + k, 0.0)


def _rotate_rows(hr: W, hi: W, n: Int, k: Int, c: Float64, sr: Float64, si: Float64, lo: Int):
    """Rows k, k+1 <- [[c, s], [-conj(s), c]] rows, columns lo..n-1."""
    for j in range(lo, n):
        var xr = _at(hr, n, k, j)
        var xi = _at(hi, n, k, j)
        var yr = _at(hr, n, k + 1, j)
        var yi = _at(hi, n, k + 1, j)
        hr.unsafe_store(k * n + j, c * xr + sr * yr - si * yi)
        hi.unsafe_store(k * n + j, c * xi + sr * yi + si * yr)
        hr.unsafe_store((k + 1) * n + j, c * yr - (sr * xr + si * xi))
        hi.unsafe_store((k + 1) * n + j, c * yi - (sr * xi - si * xr))


def _rotate_cols(hr: W, hi: W, n: Int, k: Int, c: Float64, sr: Float64, si: Float64, rows: Int):
    """Columns k, k+1 <- columns [[c, -s], [conj(s), c]] (right product with G^H), rows 0..rows-1."""
    for i in range(rows):
        var xr = _at(hr, n, i, k)
        var xi = _at(hi, n, i, k)
        var yr = _at(hr, n, i, k + 1)
        var yi = _at(hi, n, i, k + 1)
        hr.unsafe_store(i * n + k, c * xr + sr * yr + si * yi)
        hi.unsafe_store(i * n + k, c * xi + sr * yi - si * yr)
        hr.unsafe_store(i * n + k + 1, c * yr - (sr * xr - si * xi))
        hi.unsafe_store(i * n + k + 1, c * yi - (sr * xi + si * xr))


def schur(hr: W, hi: W, n: Int, zr: W, zi: W) -> Bool:
    """Hessenberg H -> upper triangular T in place (Z <- Z Q). Returns False if it did not converge."""
    var top = n - 1
    var iters = 0
    var total = 0
    while top > 0:
        if total > ITERATIONS_PER_EIGENVALUE * n:
            return False
        var l = top
        while l > 0:
            var sub = _cabs1(_at(hr, n, l, l - 1), _at(hi, n, l, l - 1))
            var near = _cabs1(_at(hr, n, l - 1, l - 1), _at(hi, n, l - 1, l - 1)) + _cabs1(
                _at(hr, n, l, l), _at(hi, n, l, l))
            if sub <= EPS * near or sub < 1.0e-300:
                hr.unsafe_store(l * n + l - 1, 0.0)
                hi.unsafe_store(l * n + l - 1, 0.0)
                break
            l -= 1
        if l == top:
            top -= 1
            iters = 0
            continue
        iters += 1
        total += 1
        # Wilkinson shift: the eigenvalue of the trailing 2 x 2 nearer its last entry
        var ar = _at(hr, n, top - 1, top - 1)
        var ai = _at(hi, n, top - 1, top - 1)
        var br = _at(hr, n, top - 1, top)
        var bi = _at(hi, n, top - 1, top)
        var cr = _at(hr, n, top, top - 1)
        var ci = _at(hi, n, top, top - 1)
        var dr = _at(hr, n, top, top)
        var di = _at(hi, n, top, top)
        var mur: Float64
        var mui: Float64
        if iters % 11 == 10:  # exceptional shift, against cycling
            mur = dr + 0.75 * abs(cr)
            mui = di + 0.75 * abs(ci)
        else:
            var hr_ = 0.5 * (ar - dr)
            var hi_ = 0.5 * (ai - di)
            # disc = sqrt(h^2 + b c)
            var qr = hr_ * hr_ - hi_ * hi_ + (br * cr - bi * ci)
            var qi = 2.0 * hr_ * hi_ + (br * ci + bi * cr)
            var mod = cabs(qr, qi)
            var sr = sqrt(0.5 * (mod + abs(qr)))
            var si = 0.0
            if sr > 0.0:
                si = qi / (2.0 * sr)
            if qr < 0.0:  # principal root of a number with negative real part
                var t = sr
                sr = abs(si)
                si = t if qi >= 0.0 else -t
            # mu = d + h -/+ disc: the root nearer d
            var m1r = dr + hr_ - sr
            var m1i = di + hi_ - si
            var m2r = dr + hr_ + sr
            var m2i = di + hi_ + si
            if _cabs1(m1r - dr, m1i - di) <= _cabs1(m2r - dr, m2i - di):
                mur = m1r
                mui = m1i
            else:
                mur = m2r
                mui = m2i
        var xr = _at(hr, n, l, l) - mur
        var xi = _at(hi, n, l, l) - mui
        var yr = _at(hr, n, l + 1, l)
        var yi = _at(hi, n, l + 1, l)
        for k in range(l, top):
            if k > l:
                xr = _at(hr, n, k, k - 1)
                xi = _at(hi, n, k, k - 1)
                yr = _at(hr, n, k + 1, k - 1)
                yi = _at(hi, n, k + 1, k - 1)
            var ax = cabs(xr, xi)
            var ay = cabs(yr, yi)
            if ay == 0.0:
                continue
            var norm = cabs(ax, ay)
            var c: Float64
            var sr: Float64
            var si: Float64
            if ax == 0.0:
                c = 0.0
                sr = yr / ay
                si = -yi / ay
            else:
                c = ax / norm
                var ur = xr / ax  # x / |x|
                var ui = xi / ax
                # s = (x/|x|) conj(y) / norm
                sr = (ur * yr + ui * yi) / norm
                si = (ui * yr - ur * yi) / norm
            _rotate_rows(hr, hi, n, k, c, sr, si, max(k - 1, 0))
            _rotate_cols(hr, hi, n, k, c, sr, si, min(k + 3, n))
            _rotate_cols(zr, zi, n, k, c, sr, si, n)
            if k > l:
                hr.unsafe_store((k + 1) * n + k - 1, 0.0)
                hi.unsafe_store((k + 1) * n + k - 1, 0.0)
    return True


def eigenvectors(tr: W, ti: W, n: Int, zr: W, zi: W, yr: W, yi: W, outr: W, outi: W):
    """Columns of Z Y, Y solving (T - t_kk I) y = 0 with y_k = 1 (LAPACK ztrevc), normalized."""
    var tnorm = 0.0
    for e in range(n * n):
        tnorm = max(tnorm, _cabs1(tr.unsafe_load(e), ti.unsafe_load(e)))
    var small = max(EPS * tnorm, 1.0e-300)
    for k in range(n):
        var lr = _at(tr, n, k, k)
        var li = _at(ti, n, k, k)
        for i in range(n):
            yr.unsafe_store(i, 0.0)
            yi.unsafe_store(i, 0.0)
        yr.unsafe_store(k, 1.0)
        for i in range(k - 1, -1, -1):
            var sr = 0.0
            var si = 0.0
            for j in range(i + 1, k + 1):
                var a = _at(tr, n, i, j)
                var b = _at(ti, n, i, j)
                var cr = yr.unsafe_load(j)
                var ci = yi.unsafe_load(j)
                sr += a * cr - b * ci
                si += a * ci + b * cr
            var dr = _at(tr, n, i, i) - lr
            var di = _at(ti, n, i, i) - li
            if _cabs1(dr, di) < small:
                dr = small
                di = 0.0
            var q = cdiv(-sr, -si, dr, di)
            yr.unsafe_store(i, q[0])
            yi.unsafe_store(i, q[1])
        var norm2 = 0.0
        var bigr = 0.0
        var bigi = 0.0
        var bigm = -1.0
        for i in range(n):
            var sr = 0.0
            var si = 0.0
            for j in range(k + 1):
                var a = _at(zr, n, i, j)
                var b = _at(zi, n, i, j)
                var cr = yr.unsafe_load(j)
                var ci = yi.unsafe_load(j)
                sr += a * cr - b * ci
                si += a * ci + b * cr
            outr.unsafe_store(i * n + k, sr)
            outi.unsafe_store(i * n + k, si)
            var m = sr * sr + si * si
            norm2 += m
            if m > bigm:
                bigm = m
                bigr = sr
                bigi = si
        # unit norm, largest component real: multiply by conj(big) / (|big| ||x||)
        var bm = sqrt(bigm)
        var scale = 1.0 / (sqrt(norm2) * bm) if bm > 0.0 and norm2 > 0.0 else 1.0
        var pr = bigr * scale
        var pi = -bigi * scale
        for i in range(n):
            var xr = outr.unsafe_load(i * n + k)
            var xi = outi.unsafe_load(i * n + k)
            outr.unsafe_store(i * n + k, xr * pr - xi * pi)
            outi.unsafe_store(i * n + k, xr * pi + xi * pr)


def eig_stack(ap: UnsafePointer[Float64, _], wp: UnsafePointer[mut=True, Float64, _],
              vp: UnsafePointer[mut=True, Float64, _], batch: Int, n: Int):
    var tasks = task_count(batch, 20 * n * n * n)

    def task(t: Int) {var ap, var wp, var vp, var batch, var n, var tasks}:
        var lo = batch * t // tasks
        var hi = batch * (t + 1) // tasks
        var ws = alloc[Float64](6 * n * n + 4 * n)
        var hr = ws
        var hi_ = ws + n * n
        var zr = ws + 2 * n * n
        var zi = ws + 3 * n * n
        var outr = ws + 4 * n * n
        var outi = ws + 5 * n * n
        var yr = ws + 6 * n * n
        var yi = yr + n
        var vr = yi + n
        var vi = vr + n
        for b in range(lo, hi):
            var src = ap + b * n * n * 2
            var wo = wp + b * n * 2
            var vo = vp + b * n * n * 2
            if not all_finite(src, n * n * 2):
                for e in range(n):
                    put[True](wo, e, nan64(), nan64())
                for e in range(n * n):
                    put[True](vo, e, nan64(), nan64())
                continue
            var big = 0.0
            for e in range(n * n):
                hr.unsafe_store(e, src.unsafe_load(2 * e))
                hi_.unsafe_store(e, src.unsafe_load(2 * e + 1))
                big = max(big, max(abs(src.unsafe_load(2 * e)), abs(src.unsafe_load(2 * e + 1))))
            var scale = pow2_inverse(big)
            for e in range(n * n):
                hr.unsafe_store(e, hr.unsafe_load(e) * scale)
                hi_.unsafe_store(e, hi_.unsafe_load(e) * scale)
            hessenberg[True](hr, hi_, n, zr, zi, vr, vi)
            var ok = schur(hr, hi_, n, zr, zi)
            if not ok:
                for e in range(n):
                    put[True](wo, e, nan64(), nan64())
                for e in range(n * n):
                    put[True](vo, e, nan64(), nan64())
                continue
            for i in range(n):
                put[True](wo, i, _at(hr, n, i, i) / scale, _at(hi_, n, i, i) / scale)
            eigenvectors(hr, hi_, n, zr, zi, yr, yi, outr, outi)
            for e in range(n * n):
                put[True](vo, e, outr.unsafe_load(e), outi.unsafe_load(e))
        ws.free()

    if tasks == 1:
        task(0)
    elif tasks > 1:
        parallelize(task, tasks)


@register("nabla_eig")
struct HessenbergQR:
    """Eigenvalues (b, n) and unit eigenvectors (columns, (b, n, n)) of a complex stack, interleaved."""

    @staticmethod
    def execute[target: StaticString](
        w: OutputTensor[dtype=DType.float64, rank=2, ...],
        v: OutputTensor[dtype=DType.float64, rank=3, ...],
        a: InputTensor[dtype=DType.float64, rank=3, ...],
        ctx: DeviceContext,
    ) raises:
        comptime assert target == "cpu", "Nabla's linalg kernels run on the CPU (callers move the data there)"
        var batch = a.dim_size(0)
        var n = a.dim_size(1)
        if batch == 0 or n == 0:
            return
        eig_stack(a.unsafe_ptr(), w.unsafe_ptr(), v.unsafe_ptr(), batch, n)
