# Blocked right-looking factorizations of real matrices: LU with partial pivoting (LAPACK getrf;
# Golub & Van Loan, 4th ed., 3.4.7) and Cholesky (potrf, GVL 4.2.9). A panel of PANEL columns is
# factored unblocked, the block beside it solved with the panel's triangle, and the trailing
# matrix takes one rank-PANEL update, where the flops are. That update runs as register tiles
# (6 rows x 8 columns kept in registers over the panel's width), so the trailing matrix streams
# once per panel instead of once per column: the unblocked LU of a 512 x 512 matrix was bound by
# the L3 bandwidth (10.7 ms; blocked 4.7 ms).
from .common import SIMD_W, W, axpy, dot, is_nan, nan64, scal, swap

from std.math import sqrt

#: real matrices from this order on are factored by panels (the unblocked loops win below it)
comptime BLOCKED_FROM = 96
comptime PANEL = 32
comptime TILE_ROWS = 6
#: rows per rank update of the Cholesky trailing matrix (only its lower triangle is updated)
comptime CHOLESKY_ROWS = 48


def rank_update(c: W, ldc: Int, l: W, ldl: Int, u: W, ldu: Int, rows: Int, cols: Int, depth: Int):
    """C[rows, cols] -= L[rows, depth] U[depth, cols], all row-major with the given row strides.
    L and each 8-column strip of U are first packed contiguous: rows a power-of-two stride apart
    share cache sets, and the tiles read 6 of them (and 32 of U) at a time."""
    var whole_cols = cols // SIMD_W * SIMD_W
    var whole_rows = rows // TILE_ROWS * TILE_ROWS
    var lp = alloc[Float64](rows * depth + depth * SIMD_W)
    var up = lp + rows * depth
    for i in range(rows):
        for p in range(depth):
            lp.unsafe_store(i * depth + p, -l.unsafe_load(i * ldl + p))
    for j in range(0, whole_cols, SIMD_W):  # one column strip of U stays in L1 across the rows
        for p in range(depth):
            up.unsafe_store(p * SIMD_W, u.unsafe_load[width=SIMD_W](p * ldu + j))
        for i in range(0, whole_rows, TILE_ROWS):
            var c0 = c + i * ldc + j
            var acc0 = c0.unsafe_load[width=SIMD_W](0)
            var acc1 = c0.unsafe_load[width=SIMD_W](ldc)
            var acc2 = c0.unsafe_load[width=SIMD_W](2 * ldc)
            var acc3 = c0.unsafe_load[width=SIMD_W](3 * ldc)
            var acc4 = c0.unsafe_load[width=SIMD_W](4 * ldc)
            var acc5 = c0.unsafe_load[width=SIMD_W](5 * ldc)
            var l0 = lp + i * depth
            for p in range(depth):
                var uv = up.unsafe_load[width=SIMD_W](p * SIMD_W)
                acc0 = uv.fma(SIMD[DType.float64, SIMD_W](l0.unsafe_load(p)), acc0)
                acc1 = uv.fma(SIMD[DType.float64, SIMD_W](l0.unsafe_load(depth + p)), acc1)
                acc2 = uv.fma(SIMD[DType.float64, SIMD_W](l0.unsafe_load(2 * depth + p)), acc2)
                acc3 = uv.fma(SIMD[DType.float64, SIMD_W](l0.unsafe_load(3 * depth + p)), acc3)
                acc4 = uv.fma(SIMD[DType.float64, SIMD_W](l0.unsafe_load(4 * depth + p)), acc4)
                acc5 = uv.fma(SIMD[DType.float64, SIMD_W](l0.unsafe_load(5 * depth + p)), acc5)
            c0.unsafe_store(0, acc0)
            c0.unsafe_store(ldc, acc1)
            c0.unsafe_store(2 * ldc, acc2)
            c0.unsafe_store(3 * ldc, acc3)
            c0.unsafe_store(4 * ldc, acc4)
            c0.unsafe_store(5 * ldc, acc5)
        for i in range(whole_rows, rows):
            var acc = c.unsafe_load[width=SIMD_W](i * ldc + j)
            for p in range(depth):
                acc = up.unsafe_load[width=SIMD_W](p * SIMD_W).fma(SIMD[DType.float64, SIMD_W](lp.unsafe_load(i * depth + p)), acc)
            c.unsafe_store(i * ldc + j, acc)
    for i in range(rows):  # the columns past the last whole vector
        for j in range(whole_cols, cols):
            var acc = c.unsafe_load(i * ldc + j)
            for p in range(depth):
                acc += lp.unsafe_load(i * depth + p) * u.unsafe_load(p * ldu + j)
            c.unsafe_store(i * ldc + j, acc)
    lp.free()


def lu_factor_blocked(a: W, n: Int, b: W, k: Int) -> Int:
    """In-place LU of the real n x n workspace (unit L below the diagonal, U on and above), the row
    swaps applied to the n x k right-hand sides b, which end as L^-1 P b; returns the
    permutation's sign. Pivots as the unblocked factorization: the largest |a|, never a NaN; a
    column of zeros is left as it is."""
    var sign = 1
    var panel = alloc[Float64](n * PANEL)  # the panel column-major: pivot search and updates run contiguous
    for j0 in range(0, n, PANEL):
        var width = min(PANEL, n - j0)
        var end = j0 + width
        var rows = n - j0
        for r in range(rows):  # row by row: a's rows are contiguous, its columns 8n bytes apart
            for q in range(width):
                panel.unsafe_store(q * rows + r, a.unsafe_load((j0 + r) * n + j0 + q))
        for c in range(width):
            var column = panel + c * rows
            var p = c
            var best = -1.0
            for r in range(c, rows):
                var v = abs(column.unsafe_load(r))
                if not is_nan(v) and v > best:
                    best = v
                    p = r
            if p != c:  # whole rows of a (its panel columns are rewritten below), b and the panel
                swap(a + (j0 + p) * n, a + (j0 + c) * n, n)
                swap(b + (j0 + p) * k, b + (j0 + c) * k, k)
                for q in range(width):
                    var t = panel.unsafe_load(q * rows + p)
                    panel.unsafe_store(q * rows + p, panel.unsafe_load(q * rows + c))
                    panel.unsafe_store(q * rows + c, t)
                sign = -sign
            if best <= 0.0:
                continue
            scal(1.0 / column.unsafe_load(c), column + c + 1, rows - c - 1)
            for q in range(c + 1, width):
                var f = panel.unsafe_load(q * rows + c)
                if f != 0.0:
                    axpy(-f, column + c + 1, panel + q * rows + c + 1, rows - c - 1)
        for r in range(rows):
            for q in range(width):
                a.unsafe_store((j0 + r) * n + j0 + q, panel.unsafe_load(q * rows + r))
        var rest = n - end
        if rest == 0:
            break
        for r in range(j0 + 1, end):  # U12 = L11^-1 A12, row by row
            var row = a + r * n + end
            for q in range(j0, r):
                var f = a.unsafe_load(r * n + q)
                if f != 0.0:
                    axpy(-f, a + q * n + end, row, rest)
        rank_update(a + end * n + end, n, a + end * n + j0, n, a + j0 * n + end, n, rest, rest, width)
    panel.free()
    for i in range(1, n if k > 0 else 0):  # b <- L^-1 b (the swaps are in b already)
        for q in range(i):
            var f = a.unsafe_load(i * n + q)
            if f != 0.0:
                axpy(-f, b + q * k, b + i * k, k)
    return sign


def cholesky_blocked(a: W, n: Int):
    """In place on the lower triangle of the real n x n workspace: A = L L^T. A pivot that is not
    positive gives NaN, which the updates carry to every later row (as the unblocked loop)."""
    var ut = alloc[Float64](PANEL * n)  # the panel's rows below it, transposed (the update's right factor)
    for j0 in range(0, n, PANEL):
        var width = min(PANEL, n - j0)
        var end = j0 + width
        for i in range(j0, n):  # the panel: its diagonal block, then the rows below against it
            for j in range(j0, min(i + 1, end)):
                var sr = a.unsafe_load(i * n + j) - dot(a + i * n + j0, a + j * n + j0, j - j0)
                if j == i:
                    a.unsafe_store(i * n + i, sqrt(sr) if not is_nan(sr) and sr > 0.0 else nan64())
                else:
                    a.unsafe_store(i * n + j, sr / a.unsafe_load(j * n + j))
        var rest = n - end
        for r in range(rest):
            for p in range(width):
                ut.unsafe_store(p * rest + r, a.unsafe_load((end + r) * n + j0 + p))
        for r0 in range(0, rest, CHOLESKY_ROWS):  # lower triangle only: row block r0 needs columns < its end
            var rows = min(CHOLESKY_ROWS, rest - r0)
            rank_update(a + (end + r0) * n + end, n, a + (end + r0) * n + j0, n, ut, rest, rows, r0 + rows, width)
    ut.free()

