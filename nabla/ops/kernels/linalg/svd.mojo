# Singular value decomposition by one-sided Jacobi (Hestenes 1958; Drmac & Veselic, SIMAX 29(4)
# 2008, LAPACK Working Notes 169/170): columns of A are rotated in pairs until they are mutually
# orthogonal; their norms are the singular values, the normalized columns U, the accumulated
# rotations V. The matrix is scaled by a power of two near 1/max|a| first (exact), so Gram entries
# neither overflow nor underflow for any finite input, and the sweeps are capped, so NaN and
# infinity terminate (the result is NaN). Columns of U for zero singular values, and the extra
# columns of a complete U, are an orthonormal completion by Gram-Schmidt on the unit vectors.
# Callers pass m >= n (a wide matrix is transposed first). Real matrices from GOLUB_KAHAN_FROM
# columns on take Golub-Kahan-Reinsch (golub_kahan.mojo): one reduction instead of Jacobi's sweeps.
from std.math import sqrt
from max.algorithm import parallelize
from max.gpu.host import DeviceContext
from extensibility import InputTensor, OutputTensor, register
from .common import (EPS, W, all_finite, cabs, caxpy, cdot_conj, fill_nan, jacobi_rotation, load_transposed,
                     pow2_inverse, put, rotate_pair, scal, sumsq, task_count)
from .golub_kahan import ROTATIONS, golub_kahan_svd

comptime MAX_SWEEPS = 60
#: real matrices with this many columns or more take the Golub-Kahan path
comptime GOLUB_KAHAN_FROM = 6


def one_sided_jacobi[C: Bool](ar: W, ai: W, m: Int, n: Int, vr: W, vi: W):
    """Orthogonalize the n columns (rows of the transposed workspace, length m) in place; rows of
    (vr, vi) accumulate V^T."""
    for e in range(n * n):
        vr.unsafe_store(e, 0.0)
        comptime if C:
            vi.unsafe_store(e, 0.0)
    for i in range(n):
        vr.unsafe_store(i * n + i, 1.0)
    var tol = EPS * sqrt(Float64(max(m, 1)))
    for _ in range(MAX_SWEEPS):
        var rotated = False
        for p in range(n - 1):
            var pr = ar + p * m
            var pi = ai + p * m
            for q in range(p + 1, n):
                var qr = ar + q * m
                var qi = ai + q * m
                var alpha = sumsq[C](pr, pi, m)
                var beta = sumsq[C](qr, qi, m)
                if alpha == 0.0 or beta == 0.0:
                    continue
                var gam = cdot_conj[C](qr, qi, pr, pi, m)  # a_p^H a_q
                # (|gamma| without squares: a column shrunk by earlier rotations has a gamma whose
                # square is subnormal, and its rounded root made e^-i phi off unit modulus, the
                # rotation no longer orthogonal: 4e-5 of a singular value lost on equal rows)
                var g = cabs(gam[0], gam[1])
                if g <= tol * sqrt(alpha) * sqrt(beta):
                    continue
                rotated = True
                var rot = jacobi_rotation(alpha, beta, g)
                var er = gam[0] / g  # e^-i phi = conj(gamma) / |gamma|
                var ei = -gam[1] / g
                rotate_pair[C](pr, pi, qr, qi, rot[1], rot[2], er, ei, m)
                rotate_pair[C](vr + p * n, vi + p * n, vr + q * n, vi + q * n, rot[1], rot[2], er, ei, n)
        if not rotated:
            return


def complete_basis[C: Bool](ur: W, ui: W, m: Int, filled: W, cols: Int, tmp_r: W, tmp_i: W):
    """Fill every slot j < cols with filled[j] == 0 by a unit vector orthogonal to all filled
    slots (rows of (ur, ui), length m): Gram-Schmidt, twice, on e_0, e_1, ... in turn."""
    var candidate = 0
    for j in range(cols):
        if filled.unsafe_load(j) != 0.0:
            continue
        while candidate < m:
            for e in range(m):
                tmp_r.unsafe_store(e, 0.0)
                comptime if C:
                    tmp_i.unsafe_store(e, 0.0)
            tmp_r.unsafe_store(candidate, 1.0)
            candidate += 1
            for _ in range(2):
                for k in range(cols):
                    if filled.unsafe_load(k) == 0.0:
                        continue
                    var d = cdot_conj[C](tmp_r, tmp_i, ur + k * m, ui + k * m, m)  # u_k^H x
                    caxpy[C](-d[0], -d[1], ur + k * m, ui + k * m, tmp_r, tmp_i, m)
            var norm2 = sumsq[C](tmp_r, tmp_i, m)
            if norm2 > 0.25 / Float64(m):
                var inv = 1.0 / sqrt(norm2)
                for e in range(m):
                    ur.unsafe_store(j * m + e, tmp_r.unsafe_load(e) * inv)
                    comptime if C:
                        ui.unsafe_store(j * m + e, tmp_i.unsafe_load(e) * inv)
                filled.unsafe_store(j, 1.0)
                break


def sort_descending(norms: W, order: W, n: Int):
    """order <- 0..n-1 by descending norms (selection sort: n is small beside the factorization)."""
    for j in range(n):
        order.unsafe_store(j, Float64(j))
    for i in range(n):
        var best = i
        for j in range(i + 1, n):
            if norms.unsafe_load(Int(order.unsafe_load(j))) > norms.unsafe_load(Int(order.unsafe_load(best))):
                best = j
        var tmp = order.unsafe_load(i)
        order.unsafe_store(i, order.unsafe_load(best))
        order.unsafe_store(best, tmp)


def svd_stack[C: Bool](ap: UnsafePointer[Float64, _], up: UnsafePointer[mut=True, Float64, _],
                       sp: UnsafePointer[mut=True, Float64, _], vp: UnsafePointer[mut=True, Float64, _],
                       batch: Int, m: Int, n: Int, ucols: Int):
    comptime w = 2 if C else 1
    var tasks = task_count(batch, 10 * m * n * n)

    var golub = False
    comptime if not C:
        golub = n >= GOLUB_KAHAN_FROM

    def task(t: Int) {var ap, var up, var sp, var vp, var batch, var m, var n, var ucols, var tasks, var golub}:
        var lo = batch * t // tasks
        var hi = batch * (t + 1) // tasks
        var ws = alloc[Float64](2 * m * n + 2 * n * n + 2 * m * ucols + 2 * m + 3 * ucols)
        var gk = alloc[Float64](6 * n + m + 8 * ROTATIONS if golub else 1)
        var ar = ws
        var ai = ar + m * n
        var vr = ai + m * n
        var vi = vr + n * n
        var ur = vi + n * n
        var ui = ur + m * ucols
        var tmp_r = ui + m * ucols
        var tmp_i = tmp_r + m
        var order = tmp_i + m
        var norms = order + ucols
        var filled = norms + ucols
        for b in range(lo, hi):
            var src = ap + b * m * n * w
            var uo = up + b * m * ucols * w
            var so = sp + b * n
            var vo = vp + b * n * n * w
            if not all_finite(src, m * n * w):
                fill_nan[False](so, n)
                fill_nan[C](uo, m * ucols)
                fill_nan[C](vo, n * n)
                continue
            load_transposed[C](src, m, n, ar, ai)
            var big = 0.0
            for e in range(m * n):
                big = max(big, abs(ar.unsafe_load(e)))
                comptime if C:
                    big = max(big, abs(ai.unsafe_load(e)))
            var scale = pow2_inverse(big)
            scal(scale, ar, m * n)
            comptime if C:
                scal(scale, ai, m * n)
            if golub:
                if not golub_kahan_svd(ar, m, n, ucols, ur, vr, norms, gk):
                    fill_nan[False](so, n)
                    fill_nan[C](uo, m * ucols)
                    fill_nan[C](vo, n * n)
                    continue
                sort_descending(norms, order, n)
                for j in range(n):
                    var col = Int(order.unsafe_load(j))
                    so.unsafe_store(j, norms.unsafe_load(col) / scale)
                    for k in range(n):  # V[k, j] = VT[col, k]
                        vo.unsafe_store(k * n + j, vr.unsafe_load(col * n + k))
                for i in range(m):  # U[i, j] = UT[col, i]; the completion's columns keep their places
                    for j in range(ucols):
                        var col = Int(order.unsafe_load(j)) if j < n else j
                        uo.unsafe_store(i * ucols + j, ur.unsafe_load(col * m + i))
                continue
            one_sided_jacobi[C](ar, ai, m, n, vr, vi)
            for j in range(n):
                norms.unsafe_store(j, sqrt(sumsq[C](ar + j * m, ai + j * m, m)))
                order.unsafe_store(j, Float64(j))
            sort_descending(norms, order, n)
            for j in range(ucols):
                filled.unsafe_store(j, 0.0)
            for j in range(n):
                var col = Int(order.unsafe_load(j))
                var sigma = norms.unsafe_load(col)
                so.unsafe_store(j, sigma / scale)
                if sigma > 0.0:
                    var inv = 1.0 / sigma
                    for e in range(m):
                        ur.unsafe_store(j * m + e, ar.unsafe_load(col * m + e) * inv)
                        comptime if C:
                            ui.unsafe_store(j * m + e, ai.unsafe_load(col * m + e) * inv)
                    filled.unsafe_store(j, 1.0)
                for k in range(n):  # V[k, j] = VT[col, k]
                    comptime if C:
                        put[C](vo, k * n + j, vr.unsafe_load(col * n + k), vi.unsafe_load(col * n + k))
                    else:
                        put[C](vo, k * n + j, vr.unsafe_load(col * n + k), 0.0)
            complete_basis[C](ur, ui, m, filled, ucols, tmp_r, tmp_i)
            for i in range(m):
                for j in range(ucols):
                    comptime if C:
                        put[C](uo, i * ucols + j, ur.unsafe_load(j * m + i), ui.unsafe_load(j * m + i))
                    else:
                        put[C](uo, i * ucols + j, ur.unsafe_load(j * m + i), 0.0)
        ws.free()
        gk.free()

    if tasks == 1:
        task(0)
    elif tasks > 1:
        parallelize(task, tasks)


@register("nabla_svd")
struct JacobiSVD:
    """A (b, m, n), m >= n: U (b, m, n) or, complete, (b, m, m); S (b, n) descending; V (b, n, n)."""

    @staticmethod
    def execute[target: StaticString](
        u: OutputTensor[dtype=DType.float64, rank=3, ...],
        s: OutputTensor[dtype=DType.float64, rank=2, ...],
        v: OutputTensor[dtype=DType.float64, rank=3, ...],
        a: InputTensor[dtype=DType.float64, rank=3, ...],
        ctx: DeviceContext,
    ) raises:
        comptime assert target == "cpu", "Nabla's linalg kernels run on the CPU (callers move the data there)"
        var batch = a.dim_size(0)
        var m = a.dim_size(1)
        var n = s.dim_size(1)
        if batch == 0 or m == 0:
            return
        if a.dim_size(2) == 2 * n and n > 0:
            svd_stack[True](a.unsafe_ptr(), u.unsafe_ptr(), s.unsafe_ptr(), v.unsafe_ptr(), batch, m, n,
                             u.dim_size(2) // 2)
        else:
            svd_stack[False](a.unsafe_ptr(), u.unsafe_ptr(), s.unsafe_ptr(), v.unsafe_ptr(), batch, m, n,
                              u.dim_size(2))
