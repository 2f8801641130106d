# LU with partial pivoting (Golub & Van Loan, 4th ed., 3.4; LAPACK getrf/getrs): solve, inv, det
# and slogdet. Each matrix of the stack is factored in a task's workspace; the stack is spread
# over the cores. Real matrices of order BLOCKED_FROM and up take the blocked factorization.
from std.math import log
from max.algorithm import parallelize
from max.gpu.host import DeviceContext
from extensibility import InputTensor, OutputTensor, register
from .blocked import BLOCKED_FROM, lu_factor_blocked
from .common import W, all_finite, cabs, caxpy, cdiv, is_nan, inf64, load_matrix, nan64, put, swap, task_count
from .lanes import LANES_UP_TO, V, gather_lanes, lu_solve_lanes, scatter_lanes


def lu_factor[C: Bool](re: W, im: W, n: Int, br: W, bi: W, k: Int) -> Int:
    """In-place LU of the n x n workspace (unit L below the diagonal, U on and above), the same
    row swaps and eliminations applied to n x k right-hand sides. Returns the permutation's sign.
    The pivot is the largest |re| + |im| (LAPACK's cabs1); a NaN is never chosen, and a column
    with nothing but zeros (or NaN) is left as it is (a singular factor)."""
    comptime if not C:
        if n >= BLOCKED_FROM:
            return lu_factor_blocked(re, n, br, k)
    var sign = 1
    for col in range(n):
        var p = col
        var best = -1.0
        for i in range(col, n):
            var v = abs(re.unsafe_load(i * n + col))
            comptime if C:
                v += abs(im.unsafe_load(i * n + col))
            if not is_nan(v) and v > best:
                best = v
                p = i
        if p != col:
            swap(re + p * n, re + col * n, n)
            swap(br + p * k, br + col * k, k)
            comptime if C:
                swap(im + p * n, im + col * n, n)
                swap(bi + p * k, bi + col * k, k)
            sign = -sign
        if best <= 0.0:
            continue
        var dr = re.unsafe_load(col * n + col)
        var di = 0.0
        comptime if C:
            di = im.unsafe_load(col * n + col)
        var rest = n - col - 1
        for i in range(col + 1, n):
            var lr: Float64
            var li = 0.0
            comptime if C:
                var l = cdiv(re.unsafe_load(i * n + col), im.unsafe_load(i * n + col), dr, di)
                lr = l[0]
                li = l[1]
                im.unsafe_store(i * n + col, li)
            else:
                lr = re.unsafe_load(i * n + col) / dr
            re.unsafe_store(i * n + col, lr)
            if lr == 0.0 and li == 0.0:
                continue
            caxpy[C](-lr, -li, re + col * n + col + 1, im + col * n + col + 1, re + i * n + col + 1,
                     im + i * n + col + 1, rest)
            if k > 0:
                caxpy[C](-lr, -li, br + col * k, bi + col * k, br + i * k, bi + i * k, k)
    return sign


def back_substitute[C: Bool](re: W, im: W, n: Int, br: W, bi: W, k: Int):
    """Overwrite the n x k right-hand sides with U^-1 B (U: the upper triangle of the workspace)."""
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            var ur = re.unsafe_load(i * n + j)
            var ui = 0.0
            comptime if C:
                ui = im.unsafe_load(i * n + j)
            caxpy[C](-ur, -ui, br + j * k, bi + j * k, br + i * k, bi + i * k, k)
        var dr = re.unsafe_load(i * n + i)
        comptime if C:
            var inv = cdiv(1.0, 0.0, dr, im.unsafe_load(i * n + i))
            for e in range(k):
                var xr = br.unsafe_load(i * k + e)
                var xi = bi.unsafe_load(i * k + e)
                br.unsafe_store(i * k + e, xr * inv[0] - xi * inv[1])
                bi.unsafe_store(i * k + e, xr * inv[1] + xi * inv[0])
        else:
            var inv = 1.0 / dr
            for e in range(k):
                br.unsafe_store(i * k + e, br.unsafe_load(i * k + e) * inv)


def _solve_range[C: Bool](ap: UnsafePointer[Float64, _], bp: UnsafePointer[Float64, _],
                          xp: UnsafePointer[mut=True, Float64, _], lo: Int, hi: Int, n: Int, k: Int):
    """Matrices lo .. hi - 1 of the stack, one at a time."""
    comptime w = 2 if C else 1
    var ws = alloc[Float64](2 * (n * n + n * k))
    var re = ws
    var im = ws + n * n
    var br = ws + 2 * n * n
    var bi = br + n * k
    for b in range(lo, hi):
        var dst = xp + b * n * k * w
        if not all_finite(ap + b * n * n * w, n * n * w):  # as the factorization would: NaN through
            for e in range(n * k * w):
                dst.unsafe_store(e, nan64())
            continue
        load_matrix[C](ap + b * n * n * w, n, n, re, im)
        load_matrix[C](bp + b * n * k * w, n, k, br, bi)
        _ = lu_factor[C](re, im, n, br, bi, k)
        back_substitute[C](re, im, n, br, bi, k)
        for e in range(n * k):
            comptime if C:
                put[C](dst, e, br.unsafe_load(e), bi.unsafe_load(e))
            else:
                put[C](dst, e, br.unsafe_load(e), 0.0)
    ws.free()


def _solve_lanes(ap: UnsafePointer[Float64, _], bp: UnsafePointer[Float64, _], xp: UnsafePointer[mut=True, Float64, _],
                 batch: Int, n: Int, k: Int):
    """Small real systems V at a time in SIMD lanes (lanes.mojo); the last batch % V one at a time."""
    var groups = batch // V
    var tasks = task_count(groups, V * n * n * (n + k))

    def task(t: Int) {var ap, var bp, var xp, var groups, var n, var k, var tasks}:
        var ws = alloc[Float64]((n * n + n * k) * V)
        var a = ws
        var b = ws + n * n * V
        for g in range(groups * t // tasks, groups * (t + 1) // tasks):
            var first = g * V
            var bad = gather_lanes(ap + first * n * n, n * n, n * n, a)
            _ = gather_lanes(bp + first * n * k, n * k, n * k, b)
            lu_solve_lanes(a, b, n, k)
            scatter_lanes(b, n * k, xp + first * n * k, n * k, bad)
        ws.free()

    if tasks == 1:
        task(0)
    elif tasks > 1:
        parallelize(task, tasks)
    _solve_range[False](ap, bp, xp, groups * V, batch, n, k)


def solve_stack[C: Bool](ap: UnsafePointer[Float64, _], bp: UnsafePointer[Float64, _],
                          xp: UnsafePointer[mut=True, Float64, _], batch: Int, n: Int, k: Int):
    comptime if not C:
        if n <= LANES_UP_TO and batch >= V:
            _solve_lanes(ap, bp, xp, batch, n, k)
            return
    var tasks = task_count(batch, n * n * (n + k))

    def task(t: Int) {var ap, var bp, var xp, var batch, var n, var k, var tasks}:
        _solve_range[C](ap, bp, xp, batch * t // tasks, batch * (t + 1) // tasks, n, k)

    if tasks == 1:
        task(0)
    elif tasks > 1:
        parallelize(task, tasks)


@register("nabla_lu_solve")
struct LuSolve:
    """x = a^-1 rhs for a stack of square a (b, n, n) and right-hand sides (b, n, k)."""

    @staticmethod
    def execute[target: StaticString](
        x: OutputTensor[dtype=DType.float64, rank=3, ...],
        a: InputTensor[dtype=DType.float64, rank=3, ...],
        rhs: InputTensor[dtype=DType.float64, rank=3, ...],
        ctx: DeviceContext,
    ) raises:
        comptime assert target == "cpu", "Nabla's linalg kernels run on the CPU (callers move the data there)"
        var batch = a.dim_size(0)
        var n = a.dim_size(1)
        if batch == 0 or n == 0 or rhs.dim_size(2) == 0:
            return
        if a.dim_size(2) == 2 * n:
            solve_stack[True](a.unsafe_ptr(), rhs.unsafe_ptr(), x.unsafe_ptr(), batch, n, rhs.dim_size(2) // 2)
        else:
            solve_stack[False](a.unsafe_ptr(), rhs.unsafe_ptr(), x.unsafe_ptr(), batch, n, rhs.dim_size(2))


def det_stack[C: Bool](ap: UnsafePointer[Float64, _], op: UnsafePointer[mut=True, Float64, _], batch: Int, n: Int):
    comptime w = 2 if C else 1
    var tasks = task_count(batch, n * n * n)

    def task(t: Int) {var ap, var op, var batch, var n, var tasks}:
        var lo = batch * t // tasks
        var hi = batch * (t + 1) // tasks
        var ws = alloc[Float64](2 * n * n)
        var re = ws
        var im = ws + n * n
        for b in range(lo, hi):
            var res = op + b * 5
            var src = ap + b * n * n * w
            if not all_finite(src, n * n * w):
                # NaN or infinity anywhere: what the factorization would give is NaN all through
                for e in range(5):
                    res.unsafe_store(e, nan64())
                continue
            load_matrix[C](src, n, n, re, im)
            var sign = Float64(lu_factor[C](re, im, n, re, im, 0))
            var det_r = sign
            var det_i = 0.0
            var ph_r = sign
            var ph_i = 0.0
            var logabs = 0.0
            var singular = False
            for i in range(n):
                var dr = re.unsafe_load(i * n + i)
                var di = 0.0
                comptime if C:
                    di = im.unsafe_load(i * n + i)
                var m = cabs(dr, di)
                var nr = det_r * dr - det_i * di
                det_i = det_r * di + det_i * dr
                det_r = nr
                if m == 0.0:
                    singular = True
                else:
                    logabs += log(m)
                    var ur = dr / m
                    var ui = di / m
                    var pr = ph_r * ur - ph_i * ui
                    ph_i = ph_r * ui + ph_i * ur
                    ph_r = pr
            if singular:
                res.unsafe_store(0, 0.0)
                res.unsafe_store(1, 0.0)
                res.unsafe_store(2, -inf64())
                res.unsafe_store(3, 0.0)
                res.unsafe_store(4, 0.0)
            else:
                res.unsafe_store(0, ph_r)
                res.unsafe_store(1, ph_i)
                res.unsafe_store(2, logabs)
                res.unsafe_store(3, det_r)
                res.unsafe_store(4, det_i)
        ws.free()

    if tasks == 1:
        task(0)
    elif tasks > 1:
        parallelize(task, tasks)


@register("nabla_lu_det")
struct LuDet:
    """Per matrix of a square stack (b, n, n): (sign re, sign im, log|det|, det re, det im)."""

    @staticmethod
    def execute[target: StaticString](
        det: OutputTensor[dtype=DType.float64, rank=2, ...],
        a: InputTensor[dtype=DType.float64, rank=3, ...],
        ctx: DeviceContext,
    ) raises:
        comptime assert target == "cpu", "Nabla's linalg kernels run on the CPU (callers move the data there)"
        var batch = a.dim_size(0)
        var n = a.dim_size(1)
        var op = det.unsafe_ptr()
        if n == 0:  # the empty product: det 1, slogdet (1, 0)
            for b in range(batch):
                op.unsafe_store(b * 5, 1.0)
                op.unsafe_store(b * 5 + 1, 0.0)
                op.unsafe_store(b * 5 + 2, 0.0)
                op.unsafe_store(b * 5 + 3, 1.0)
                op.unsafe_store(b * 5 + 4, 0.0)
            return
        if a.dim_size(2) == 2 * n:
            det_stack[True](a.unsafe_ptr(), op, batch, n)
        else:
            det_stack[False](a.unsafe_ptr(), op, batch, n)
