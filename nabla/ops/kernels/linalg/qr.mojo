# Householder QR (Golub & Van Loan, 4th ed., 5.2): reflectors generated as LAPACK's larfg does
# (beta = -sign(Re alpha) ||x||, tau = (beta - alpha) / beta, no overflow in the norm), applied
# column by column to A held transposed (columns contiguous), then Q accumulated backwards
# (orgqr). Entries below R's diagonal are written as exact +0.
from max.algorithm import parallelize
from max.gpu.host import DeviceContext
from extensibility import InputTensor, OutputTensor, register
from .common import W, cabs, caxpy, cdiv, cdot_conj, load_transposed, nrm2, put, task_count


def householder_qr[C: Bool](ar: W, ai: W, m: Int, n: Int, tr: W, ti: W) -> Int:
    """In place on A^T (n x m): R in the upper part, reflector tails below the diagonal, taus in
    (tr, ti). Returns the number of reflectors."""
    var steps = max(min(m - 1, n), 0)
    for k in range(steps):
        var cr = ar + k * m
        var ci = ai + k * m
        var alr = cr.unsafe_load(k)
        var ali = 0.0
        comptime if C:
            ali = ci.unsafe_load(k)
        var xnorm = nrm2[C](cr + k + 1, ci + k + 1, m - k - 1)
        if xnorm == 0.0 and ali == 0.0:
            tr.unsafe_store(k, 0.0)
            ti.unsafe_store(k, 0.0)
            continue
        var beta = cabs(cabs(alr, ali), xnorm)
        if alr >= 0.0:
            beta = -beta
        tr.unsafe_store(k, (beta - alr) / beta)
        ti.unsafe_store(k, -ali / beta)
        var sc = cdiv(1.0, 0.0, alr - beta, ali)
        for i in range(k + 1, m):
            comptime if C:
                var xr = cr.unsafe_load(i)
                var xi = ci.unsafe_load(i)
                cr.unsafe_store(i, xr * sc[0] - xi * sc[1])
                ci.unsafe_store(i, xr * sc[1] + xi * sc[0])
            else:
                cr.unsafe_store(i, cr.unsafe_load(i) * sc[0])
        cr.unsafe_store(k, beta)
        comptime if C:
            ci.unsafe_store(k, 0.0)
        var tau_r = tr.unsafe_load(k)
        var tau_i = ti.unsafe_load(k)
        for j in range(k + 1, n):  # A <- H^H A = (I - conj(tau) v v^H) A, v = (1, tail)
            var jr = ar + j * m
            var ji = ai + j * m
            var s = cdot_conj[C](jr + k + 1, ji + k + 1, cr + k + 1, ci + k + 1, m - k - 1)
            var wr = jr.unsafe_load(k) + s[0]
            var wi = s[1]
            comptime if C:
                wi += ji.unsafe_load(k)
            var fr = tau_r * wr + tau_i * wi
            var fi = tau_r * wi - tau_i * wr
            jr.unsafe_store(k, jr.unsafe_load(k) - fr)
            comptime if C:
                ji.unsafe_store(k, ji.unsafe_load(k) - fi)
            caxpy[C](-fr, -fi, cr + k + 1, ci + k + 1, jr + k + 1, ji + k + 1, m - k - 1)
    return steps


def form_q[C: Bool](ar: W, ai: W, m: Int, steps: Int, tr: W, ti: W, qr: W, qi: W, cols: Int):
    """The first `cols` columns of Q = H_1 ... H_steps, transposed (cols x m), from the reflectors."""
    for e in range(cols * m):
        qr.unsafe_store(e, 0.0)
        comptime if C:
            qi.unsafe_store(e, 0.0)
    for j in range(cols):
        qr.unsafe_store(j * m + j, 1.0)
    for k in range(steps - 1, -1, -1):
        var tau_r = tr.unsafe_load(k)
        var tau_i = ti.unsafe_load(k)
        if tau_r == 0.0 and tau_i == 0.0:
            continue
        var vr = ar + k * m
        var vi = ai + k * m
        for j in range(k, cols):  # Q <- H Q = (I - tau v v^H) Q
            var jr = qr + j * m
            var ji = qi + j * m
            var s = cdot_conj[C](jr + k + 1, ji + k + 1, vr + k + 1, vi + k + 1, m - k - 1)
            var wr = jr.unsafe_load(k) + s[0]
            var wi = s[1]
            comptime if C:
                wi += ji.unsafe_load(k)
            var fr = tau_r * wr - tau_i * wi
            var fi = tau_r * wi + tau_i * wr
            jr.unsafe_store(k, jr.unsafe_load(k) - fr)
            comptime if C:
                ji.unsafe_store(k, ji.unsafe_load(k) - fi)
            caxpy[C](-fr, -fi, vr + k + 1, vi + k + 1, jr + k + 1, ji + k + 1, m - k - 1)


def qr_stack[C: Bool](ap: UnsafePointer[Float64, _], qp: UnsafePointer[mut=True, Float64, _],
                      rp: UnsafePointer[mut=True, Float64, _], batch: Int, m: Int, n: Int, qcols: Int,
                      rrows: Int):
    comptime w = 2 if C else 1
    var tasks = task_count(batch, m * n * n + m * m * qcols)

    def task(t: Int) {var ap, var qp, var rp, var batch, var m, var n, var qcols, var rrows, var tasks}:
        var lo = batch * t // tasks
        var hi = batch * (t + 1) // tasks
        var ws = alloc[Float64](2 * (m * n + m * qcols + n + 1))
        var ar = ws
        var ai = ws + m * n
        var qr = ws + 2 * m * n
        var qi = qr + m * qcols
        var tr = qi + m * qcols
        var ti = tr + n + 1
        for b in range(lo, hi):
            load_transposed[C](ap + b * m * n * w, m, n, ar, ai)
            var steps = householder_qr[C](ar, ai, m, n, tr, ti)
            form_q[C](ar, ai, m, steps, tr, ti, qr, qi, qcols)
            var qo = qp + b * m * qcols * w
            for i in range(m):
                for j in range(qcols):
                    comptime if C:
                        put[C](qo, i * qcols + j, qr.unsafe_load(j * m + i), qi.unsafe_load(j * m + i))
                    else:
                        put[C](qo, i * qcols + j, qr.unsafe_load(j * m + i), 0.0)
            var ro = rp + b * rrows * n * w
            for i in range(rrows):
                for j in range(n):
                    if i > j:
                        put[C](ro, i * n + j, 0.0, 0.0)
                    else:
                        comptime if C:
                            put[C](ro, i * n + j, ar.unsafe_load(j * m + i), ai.unsafe_load(j * m + i))
                        else:
                            put[C](ro, i * n + j, ar.unsafe_load(j * m + i), 0.0)
        ws.free()

    if tasks == 1:
        task(0)
    elif tasks > 1:
        parallelize(task, tasks)


@register("nabla_qr")
struct HouseholderQR:
    """A (b, m, n) = Q R. Q has m columns (complete) or n (reduced, m >= n); R has as many rows as Q
    has columns. The caller picks the mode through the output shapes."""

    @staticmethod
    def execute[target: StaticString](
        q: OutputTensor[dtype=DType.float64, rank=3, ...],
        r: OutputTensor[dtype=DType.float64, rank=3, ...],
        a: InputTensor[dtype=DType.float64, rank=3, ...],
        ctx: DeviceContext,
    ) raises:
        comptime assert target == "cpu", "Nabla's linalg kernels run on the CPU (callers move the data there)"
        var batch = a.dim_size(0)
        var m = a.dim_size(1)
        if batch == 0 or m == 0:
            return
        # complex data is interleaved: Q's last axis holds 2 * (its columns) values, R's 2 * n
        var cplx = q.dim_size(2) == 2 * r.dim_size(1)
        if cplx:
            qr_stack[True](a.unsafe_ptr(), q.unsafe_ptr(), r.unsafe_ptr(), batch, m, a.dim_size(2) // 2,
                            q.dim_size(2) // 2, r.dim_size(1))
        else:
            qr_stack[False](a.unsafe_ptr(), q.unsafe_ptr(), r.unsafe_ptr(), batch, m, a.dim_size(2),
                             q.dim_size(2), r.dim_size(1))
