# Eigenvalues and eigenvectors of Hermitian matrices by the cyclic two-sided Jacobi method
# (Jacobi 1846; Golub & Van Loan, 4th ed., 8.5; Demmel & Veselic, SIMAX 13(4) 1992 for the
# relative threshold, which gives small eigenvalues high relative accuracy). A complex pair is
# first turned real by a phase, diag(1, e^-i phi), then rotated as a real one. The matrix is
# scaled by a power of two near 1/max|a| (exact), so nothing overflows near the float maximum.
# Only the lower triangle is read, as LAPACK's syevd with uplo='L'.
from std.math import sqrt
from max.algorithm import parallelize
from max.gpu.host import DeviceContext
from extensibility import InputTensor, OutputTensor, register
from .common import (EPS, W, all_finite, axpy, cabs, dot, jacobi_rotation, nan64, pow2_inverse, put, reflector,
                     rotate, rotate_pair, task_count)

comptime MAX_SWEEPS = 60
#: real matrices from this size on take the tridiagonal QR path (Jacobi's sweeps cost more there)
comptime TRIDIAGONAL_FROM = 6


def tridiagonalize(a: W, n: Int, d: W, e: W, q: W, v: W, p: W):
    """Householder reduction of the symmetric n x n workspace to tridiagonal (d, e), Q (row-major)
    accumulated with A = Q T Q^T (Golub & Van Loan, 4th ed., 8.3.1; LAPACK sytrd/orgtr)."""
    for i in range(n * n):
        q.unsafe_store(i, 0.0)
    for i in range(n):
        q.unsafe_store(i * n + i, 1.0)
    for k in range(n - 2):
        var span = n - k - 1
        var row = a + k * n + k + 1  # A[k, k+1:], the column below the diagonal by symmetry
        var h = reflector(row, span)  # row[1:] becomes the reflector's tail
        var tau = h[1]
        e.unsafe_store(k, h[0])
        if tau == 0.0:
            row.unsafe_store(0, 0.0)  # tau = 0 marks "no reflector" for the accumulation
            continue
        v.unsafe_store(0, 1.0)
        for i in range(1, span):
            v.unsafe_store(i, row.unsafe_load(i))
        # B <- H B H on the trailing block B = A[k+1:, k+1:]: p = tau B v, w = p - (tau/2)(p.v) v
        var b = a + (k + 1) * n + k + 1
        for i in range(span):
            p.unsafe_store(i, tau * dot(b + i * n, v, span))
        var half = 0.5 * tau * dot(p, v, span)
        for i in range(span):
            p.unsafe_store(i, p.unsafe_load(i) - half * v.unsafe_load(i))
        for i in range(span):  # B -= v w^T + w v^T, row by row
            axpy(-v.unsafe_load(i), p, b + i * n, span)
            axpy(-p.unsafe_load(i), v, b + i * n, span)
        # keep v (its leading 1 implied) and tau in row k for the accumulation below
        row.unsafe_store(0, tau)
        for i in range(1, span):
            row.unsafe_store(i, v.unsafe_load(i))
    for k in range(n):
        d.unsafe_store(k, a.unsafe_load(k * n + k))
    if n >= 2:
        e.unsafe_store(n - 2, a.unsafe_load((n - 2) * n + n - 1))
    for k in range(n - 3, -1, -1):  # Q = H_0 ... H_{n-3}, backwards: Q[k+1:, k+1:] <- H_k Q[k+1:, k+1:]
        var span = n - k - 1
        var row = a + k * n + k + 1
        var tau = row.unsafe_load(0)
        if tau == 0.0:
            continue
        v.unsafe_store(0, 1.0)
        for i in range(1, span):
            v.unsafe_store(i, row.unsafe_load(i))
        var sub = q + (k + 1) * n + k + 1
        for j in range(span):
            p.unsafe_store(j, 0.0)
        for i in range(span):  # w^T = v^T Q_sub
            axpy(v.unsafe_load(i), sub + i * n, p, span)
        for i in range(span):  # Q_sub -= tau v w^T
            axpy(-tau * v.unsafe_load(i), p, sub + i * n, span)


def tridiagonal_qr(d: W, e: W, n: Int, qt: W) -> Bool:
    """Eigenvalues of the symmetric tridiagonal (d, e) into d by implicit QR steps with Wilkinson
    shifts (Golub & Van Loan, 4th ed., 8.3.2-8.3.3); the rotations also act on the rows of qt
    (Q^T), whose rows become the eigenvectors. False if it did not converge."""
    var hi = n - 1
    var steps = 0
    while hi > 0:
        if abs(e.unsafe_load(hi - 1)) <= EPS * (abs(d.unsafe_load(hi - 1)) + abs(d.unsafe_load(hi))):
            e.unsafe_store(hi - 1, 0.0)
            hi -= 1
            continue
        steps += 1
        if steps > 40 * n:
            return False
        var lo = hi - 1
        while lo > 0 and abs(e.unsafe_load(lo - 1)) > EPS * (abs(d.unsafe_load(lo - 1)) + abs(d.unsafe_load(lo))):
            lo -= 1
        var delta = 0.5 * (d.unsafe_load(hi - 1) - d.unsafe_load(hi))
        var bb = e.unsafe_load(hi - 1)
        var root = cabs(delta, bb)
        var mu = d.unsafe_load(hi) - bb * bb / (delta + root if delta >= 0.0 else delta - root)
        var x = d.unsafe_load(lo) - mu
        var z = e.unsafe_load(lo)
        for k in range(lo, hi):
            var r = cabs(x, z)
            var c = 1.0
            var s = 0.0
            if r > 0.0:
                c = x / r
                s = z / r
            if k > lo:
                e.unsafe_store(k - 1, r)
            var a0 = d.unsafe_load(k)
            var b0 = e.unsafe_load(k)
            var d1 = d.unsafe_load(k + 1)
            d.unsafe_store(k, c * c * a0 + 2.0 * c * s * b0 + s * s * d1)
            d.unsafe_store(k + 1, s * s * a0 - 2.0 * c * s * b0 + c * c * d1)
            e.unsafe_store(k, c * s * (d1 - a0) + (c * c - s * s) * b0)
            if k + 1 < hi:
                var e1 = e.unsafe_load(k + 1)
                z = s * e1
                e.unsafe_store(k + 1, c * e1)
            x = e.unsafe_load(k)
            rotate(qt + k * n, qt + (k + 1) * n, c, s, n)
    return True


def jacobi_eigh[C: Bool](re: W, im: W, n: Int, vr: W, vi: W) -> Int:
    """Diagonalize the Hermitian n x n workspace in place; rows of (vr, vi) become the
    eigenvectors (V^T). Returns the sweeps taken."""
    for e in range(n * n):
        vr.unsafe_store(e, 0.0)
        comptime if C:
            vi.unsafe_store(e, 0.0)
    for i in range(n):
        vr.unsafe_store(i * n + i, 1.0)
    var tol = EPS * Float64(max(n, 1))
    for sweep in range(MAX_SWEEPS):
        var rotated = False
        for p in range(n - 1):
            for q in range(p + 1, n):
                var br = re.unsafe_load(p * n + q)
                var bi = 0.0
                comptime if C:
                    bi = im.unsafe_load(p * n + q)
                var g = cabs(br, bi)
                if g == 0.0:
                    continue
                var app = re.unsafe_load(p * n + p)
                var aqq = re.unsafe_load(q * n + q)
                if g <= tol * sqrt(abs(app)) * sqrt(abs(aqq)):
                    re.unsafe_store(p * n + q, 0.0)
                    re.unsafe_store(q * n + p, 0.0)
                    comptime if C:
                        im.unsafe_store(p * n + q, 0.0)
                        im.unsafe_store(q * n + p, 0.0)
                    continue
                rotated = True
                var rot = jacobi_rotation(app, aqq, g)
                var t = rot[0]
                var c = rot[1]
                var s = rot[2]
                var er = br / g  # e^-i phi = conj(b) / |b|
                var ei = -bi / g
                for k in range(n):
                    if k == p or k == q:
                        continue
                    var xpr = re.unsafe_load(k * n + p)
                    var xqr = re.unsafe_load(k * n + q)
                    comptime if C:
                        var xpi = im.unsafe_load(k * n + p)
                        var xqi = im.unsafe_load(k * n + q)
                        var eqr = er * xqr - ei * xqi
                        var eqi = er * xqi + ei * xqr
                        var npr = c * xpr - s * eqr
                        var npi = c * xpi - s * eqi
                        var nqr = s * xpr + c * eqr
                        var nqi = s * xpi + c * eqi
                        re.unsafe_store(k * n + p, npr)
                        im.unsafe_store(k * n + p, npi)
                        re.unsafe_store(k * n + q, nqr)
                        im.unsafe_store(k * n + q, nqi)
                        re.unsafe_store(p * n + k, npr)
                        im.unsafe_store(p * n + k, -npi)
                        re.unsafe_store(q * n + k, nqr)
                        im.unsafe_store(q * n + k, -nqi)
                    else:
                        var eq = er * xqr
                        var np = c * xpr - s * eq
                        var nq = s * xpr + c * eq
                        re.unsafe_store(k * n + p, np)
                        re.unsafe_store(k * n + q, nq)
                        re.unsafe_store(p * n + k, np)
                        re.unsafe_store(q * n + k, nq)
                re.unsafe_store(p * n + p, app - t * g)
                re.unsafe_store(q * n + q, aqq + t * g)
                re.unsafe_store(p * n + q, 0.0)
                re.unsafe_store(q * n + p, 0.0)
                comptime if C:
                    im.unsafe_store(p * n + q, 0.0)
                    im.unsafe_store(q * n + p, 0.0)
                rotate_pair[C](vr + p * n, vi + p * n, vr + q * n, vi + q * n, c, s, er, ei, n)
        if not rotated:
            return sweep + 1
    return MAX_SWEEPS


def eigh_stack[C: Bool](ap: UnsafePointer[Float64, _], wp: UnsafePointer[mut=True, Float64, _],
                        vp: UnsafePointer[mut=True, Float64, _], batch: Int, n: Int):
    comptime w = 2 if C else 1
    var tasks = task_count(batch, 8 * n * n * n)

    def task(t: Int) {var ap, var wp, var vp, var batch, var n, var tasks}:
        var lo = batch * t // tasks
        var hi = batch * (t + 1) // tasks
        var ws = alloc[Float64](4 * n * n + 5 * n)
        var re = ws
        var im = ws + n * n
        var vr = ws + 2 * n * n
        var vi = ws + 3 * n * n
        var order = ws + 4 * n * n
        for b in range(lo, hi):
            var src = ap + b * n * n * w
            var wo = wp + b * n
            var vo = vp + b * n * n * w
            if not all_finite(src, n * n * w):
                for e in range(n):
                    wo.unsafe_store(e, nan64())
                for e in range(n * n):
                    put[C](vo, e, nan64(), nan64())
                continue
            var big = 0.0
            for i in range(n):  # the Hermitian matrix the lower triangle names
                for j in range(i + 1):
                    var k = i * n + j
                    var xr = src.unsafe_load(w * k)
                    var xi = 0.0
                    comptime if C:
                        xi = src.unsafe_load(2 * k + 1)
                        if i == j:
                            xi = 0.0
                    big = max(big, max(abs(xr), abs(xi)))
                    re.unsafe_store(k, xr)
                    re.unsafe_store(j * n + i, xr)
                    comptime if C:
                        im.unsafe_store(k, xi)
                        im.unsafe_store(j * n + i, -xi)
            var scale = pow2_inverse(big)
            for e in range(n * n):
                re.unsafe_store(e, re.unsafe_load(e) * scale)
                comptime if C:
                    im.unsafe_store(e, im.unsafe_load(e) * scale)
            var tri = False
            comptime if not C:
                tri = n >= TRIDIAGONAL_FROM
            if tri:  # eigenvalues to the diagonal of re, eigenvectors to the rows of vr, as Jacobi leaves them
                var d = order + n
                var e = d + n
                var tmp_v = e + n
                var tmp_p = tmp_v + n
                tridiagonalize(re, n, d, e, vi, tmp_v, tmp_p)  # vi holds Q
                for i in range(n):
                    for j in range(n):
                        vr.unsafe_store(i * n + j, vi.unsafe_load(j * n + i))
                if not tridiagonal_qr(d, e, n, vr):
                    for i in range(n):
                        d.unsafe_store(i, nan64())
                for i in range(n):
                    re.unsafe_store(i * (n + 1), d.unsafe_load(i))
            else:
                _ = jacobi_eigh[C](re, im, n, vr, vi)
            for i in range(n):
                order.unsafe_store(i, Float64(i))
            for i in range(n):  # selection sort, ascending
                var best = i
                for j in range(i + 1, n):
                    var a = re.unsafe_load(Int(order.unsafe_load(j)) * (n + 1))
                    var c = re.unsafe_load(Int(order.unsafe_load(best)) * (n + 1))
                    if a < c:
                        best = j
                var tmp = order.unsafe_load(i)
                order.unsafe_store(i, order.unsafe_load(best))
                order.unsafe_store(best, tmp)
            for j in range(n):
                var src_col = Int(order.unsafe_load(j))
                wo.unsafe_store(j, re.unsafe_load(src_col * (n + 1)) / scale)
                for k in range(n):  # V[k, j] = VT[src_col, k]
                    comptime if C:
                        put[C](vo, k * n + j, vr.unsafe_load(src_col * n + k), vi.unsafe_load(src_col * n + k))
                    else:
                        put[C](vo, k * n + j, vr.unsafe_load(src_col * n + k), 0.0)
        ws.free()

    if tasks == 1:
        task(0)
    elif tasks > 1:
        parallelize(task, tasks)


@register("nabla_eigh")
struct JacobiEigh:
    """Eigenvalues (ascending, (b, n)) and eigenvectors (columns, (b, n, n)) of a Hermitian stack."""

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
        if a.dim_size(2) == 2 * n:
            eigh_stack[True](a.unsafe_ptr(), w.unsafe_ptr(), v.unsafe_ptr(), batch, n)
        else:
            eigh_stack[False](a.unsafe_ptr(), w.unsafe_ptr(), v.unsafe_ptr(), batch, n)
