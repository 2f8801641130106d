# Cholesky factorization A = L L^H, row by row (Golub & Van Loan, 4th ed., 4.2): each entry is
# one contiguous dot product of rows already computed. Only the lower triangle of A is read (as
# LAPACK's potrf with uplo='L'); the strict upper triangle of the result is exactly +0. A pivot
# that is not positive (A not positive definite) makes that row and every later one NaN. Real
# matrices of order BLOCKED_FROM and up take the blocked factorization (blocked.mojo).
from std.math import sqrt
from max.algorithm import parallelize
from max.gpu.host import DeviceContext
from extensibility import InputTensor, OutputTensor, register
from .blocked import BLOCKED_FROM, cholesky_blocked
from .common import W, cdot_conj, is_nan, load_matrix, nan64, put, task_count
from .lanes import LANES_UP_TO, V, cholesky_lanes, gather_lanes, scatter_lanes


def cholesky_factor[C: Bool](re: W, im: W, n: Int):
    """In place on the lower triangle of the n x n workspace."""
    comptime if not C:
        if n >= BLOCKED_FROM:
            cholesky_blocked(re, n)
            return
    for i in range(n):
        for j in range(i + 1):
            var s = cdot_conj[C](re + i * n, im + i * n, re + j * n, im + j * n, j)
            var sr = re.unsafe_load(i * n + j) - s[0]
            if j == i:
                var d = nan64()
                if not is_nan(sr) and sr > 0.0:
                    d = sqrt(sr)
                re.unsafe_store(i * n + i, d)
                comptime if C:
                    im.unsafe_store(i * n + i, 0.0)
            else:
                var ljj = re.unsafe_load(j * n + j)
                re.unsafe_store(i * n + j, sr / ljj)
                comptime if C:
                    im.unsafe_store(i * n + j, (im.unsafe_load(i * n + j) - s[1]) / ljj)


def _cholesky_range[C: Bool](ap: UnsafePointer[Float64, _], lp: UnsafePointer[mut=True, Float64, _], lo: Int,
                             hi: Int, n: Int):
    comptime w = 2 if C else 1
    var ws = alloc[Float64](2 * n * n)
    var re = ws
    var im = ws + n * n
    for b in range(lo, hi):
        load_matrix[C](ap + b * n * n * w, n, n, re, im)
        cholesky_factor[C](re, im, n)
        var dst = lp + b * n * n * w
        for i in range(n):
            for j in range(n):
                var k = i * n + j
                if j > i:
                    put[C](dst, k, 0.0, 0.0)
                else:
                    comptime if C:
                        put[C](dst, k, re.unsafe_load(k), im.unsafe_load(k))
                    else:
                        put[C](dst, k, re.unsafe_load(k), 0.0)
    ws.free()


def _cholesky_lanes(ap: UnsafePointer[Float64, _], lp: UnsafePointer[mut=True, Float64, _], batch: Int, n: Int):
    """Small real matrices V at a time in SIMD lanes (lanes.mojo); the last batch % V one at a time."""
    var groups = batch // V
    var tasks = task_count(groups, V * n * n * n // 3)

    def task(t: Int) {var ap, var lp, var groups, var n, var tasks}:
        var a = alloc[Float64](n * n * V)
        for g in range(groups * t // tasks, groups * (t + 1) // tasks):
            var first = g * V
            _ = gather_lanes(ap + first * n * n, n * n, n * n, a)  # NaN and infinity propagate by themselves
            cholesky_lanes(a, n)
            scatter_lanes(a, n * n, lp + first * n * n, n * n, SIMD[DType.bool, V](fill=False))
        a.free()

    if tasks == 1:
        task(0)
    elif tasks > 1:
        parallelize(task, tasks)
    _cholesky_range[False](ap, lp, groups * V, batch, n)


def cholesky_stack[C: Bool](ap: UnsafePointer[Float64, _], lp: UnsafePointer[mut=True, Float64, _], batch: Int,
                            n: Int):
    comptime if not C:
        if n <= LANES_UP_TO and batch >= V:
            _cholesky_lanes(ap, lp, batch, n)
            return
    var tasks = task_count(batch, n * n * n // 3)

    def task(t: Int) {var ap, var lp, var batch, var n, var tasks}:
        _cholesky_range[C](ap, lp, batch * t // tasks, batch * (t + 1) // tasks, n)

    if tasks == 1:
        task(0)
    elif tasks > 1:
        parallelize(task, tasks)


@register("nabla_cholesky")
struct Cholesky:
    """The lower Cholesky factor of each matrix of a stack (b, n, n)."""

    @staticmethod
    def execute[target: StaticString](
        l: OutputTensor[dtype=DType.float64, rank=3, ...],
        a: InputTensor[dtype=DType.float64, rank=3, ...],
        ctx: DeviceContext,
    ) raises:
        comptime assert target == "cpu", "Nabla's linalg kernels run on the CPU (callers move the data there)"
        var batch = a.dim_size(0)
        var n = a.dim_size(1)
        if batch == 0 or n == 0:
            return
        if a.dim_size(2) == 2 * n:
            cholesky_stack[True](a.unsafe_ptr(), l.unsafe_ptr(), batch, n)
        else:
            cholesky_stack[False](a.unsafe_ptr(), l.unsafe_ptr(), batch, n)
