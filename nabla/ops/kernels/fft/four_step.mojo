# The four-step FFT for long sequences (Bailey, "FFTs in external or hierarchical memory", 1990;
# Van Loan 1992, 3.3): with n = n1 n2 and x viewed as n1 rows of n2,
#   X[k1 + n1 k2] = sum_j2 w_n2^(j2 k2) w_n^(j2 k1) sum_j1 w_n1^(j1 k1) x[j1 n2 + j2].
# Step A transforms the n2 columns (chunks of L adjacent columns: L interleaved lanes, whole
# vectors in every pass, the chunk's planes in a core's cache), multiplies by w_n^(j2 k1) and writes
# the result by V x V tiles transposed into B, where the rows k1 of a group of V lie interleaved
# (value j2 of row g V + m at (g n2 + j2) V + m). Step B transforms each group's V rows in place
# and writes them out: for each k2, the group's V outputs are adjacent in X. So the data crosses
# memory three times (read x, write and read B, write X), where a Stockham transform of 2^20 on
# one row sweeps it once per pass (seven), and both steps split over the cores by chunk and group.
# A 2-D transform of an n1 x n2 matrix is the same two steps without the twiddles, its rows
# written back in natural order: one kernel call, where two 1-D ones each sweep the data twice.
from std.sys.info import simd_width_of
from max.algorithm import parallelize
from .layout import join_rows, split_run, transpose_lanes
from .transform import transform, workspace_size

#: the bytes of one plane (n scalars) from which a row runs the four-step: below, a row's four
#: Stockham planes fit in half a core's L2 and its passes run there (2^15 complex64, one row:
#: Stockham 0.08 ms, the four-step the same at best and several times slower while the other core
#: is busy, its two fork-joins waiting for it; 2^17: the four-step 0.28 ms against 0.49 at best)
comptime FOUR_STEP_PLANE_BYTES = 1 << 18


def four_step_split(n: Int, v: Int, scalar_bytes: Int) -> Int:
    """n1 for n = n1 n2 with both multiples of v (whole vectors, whole tiles), the largest such
    n1 <= sqrt(n); 0 when n is too short or has no such split."""
    if n * scalar_bytes < FOUR_STEP_PLANE_BYTES or n % (v * v) != 0:
        return 0
    var best = 0
    var n1 = v
    while n1 * n1 <= n:
        if n % n1 == 0 and (n // n1) % v == 0:
            best = n1
        n1 += v
    return best


def _columns[T: DType](
    src: UnsafePointer[Scalar[T], _], br: UnsafePointer[mut=True, Scalar[T], _],
    bi: UnsafePointer[mut=True, Scalar[T], _], n1: Int, n2: Int, j0: Int, L: Int,
    plan1: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin], cr: UnsafePointer[Scalar[T], _],
    si: UnsafePointer[Scalar[T], _], tlr: UnsafePointer[Scalar[T], _], tli: UnsafePointer[Scalar[T], _],
    sign: Scalar[T], twiddle: Bool, ws: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin],
    tile_re: UnsafePointer[mut=True, SIMD[T, simd_width_of[T]()], _],
    tile_im: UnsafePointer[mut=True, SIMD[T, simd_width_of[T]()], _],
):
    """Step A for columns j0 .. j0 + L - 1. ``ws``: (2 n1 + workspace_size(n1)) L scalars."""
    comptime V = simd_width_of[T]()
    var xr = ws
    var xi = ws + n1 * L
    for j1 in range(n1):
        split_run[T](src + 2 * (j1 * n2 + j0), xr + j1 * L, xi + j1 * L, L)
    var ar = xr
    var ai = xi
    if transform[T](xr, xi, ws + 2 * n1 * L, n1, L, plan1, sign, 1):
        ar = ws + 2 * n1 * L
        ai = ar + n1 * L
    for g in range(n1 // V):
        for c in range(L // V):
            var jb = j0 + c * V
            for m in range(V):
                var k1 = g * V + m
                var at = k1 * L + c * V
                var dr = ar.load[width=V](at)
                var di = ai.load[width=V](at)
                if not twiddle:
                    tile_re[m] = dr
                    tile_im[m] = di
                    continue
                var b = jb * k1  # w^((jb + l) k1) = w^(jb k1) w^(l k1): one table read, one product
                var wbr = cr[b]
                var wbi = sign * si[b]
                var tr = tlr.load[width=V](k1 * V)
                var ti = tli.load[width=V](k1 * V)
                var wr = tr * wbr - ti * wbi
                var wi = tr * wbi + ti * wbr
                tile_re[m] = dr * wr - di * wi
                tile_im[m] = dr * wi + di * wr
            var to = (g * n2 + jb) * V
            transpose_lanes[T, V](tile_re)
            transpose_lanes[T, V](tile_im)
            comptime for j in range(V):
                br.store(to + j * V, tile_re[j])
                bi.store(to + j * V, tile_im[j])


def _rows[T: DType](
    dst: UnsafePointer[mut=True, Scalar[T], _], br: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin],
    bi: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin], n1: Int, n2: Int, g: Int,
    plan2: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin], sign: Scalar[T], scale: Scalar[T],
    natural: Bool, ws: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin],
):
    """Step B for the rows of group g, in place in B, written to X (``natural``: row by row, the 2-D
    transform; else X[k1 + n1 k2], the four-step's order). ``ws``: workspace_size(n2) V scalars."""
    comptime V = simd_width_of[T]()
    var xr = br + g * n2 * V
    var xi = bi + g * n2 * V
    var ar = xr
    var ai = xi
    if transform[T](xr, xi, ws, n2, V, plan2, sign, 1):
        ar = ws
        ai = ws + n2 * V
    if natural:
        join_rows[T](dst + 2 * g * V * n2, 2 * n2, n2, ar, ai, scale)
        return
    for k2 in range(n2):
        var at = k2 * V
        dst.store(2 * (g * V + n1 * k2), (ar.load[width=V](at) * scale).interleave(ai.load[width=V](at) * scale))


def _two_steps[T: DType](
    dst: UnsafePointer[mut=True, Scalar[T], _], src: UnsafePointer[Scalar[T], _], n1: Int, n2: Int,
    plan1: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin],
    plan2: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin],
    cr: UnsafePointer[Scalar[T], _], si: UnsafePointer[Scalar[T], _], tlr: UnsafePointer[Scalar[T], _],
    tli: UnsafePointer[Scalar[T], _], sign: Scalar[T], scale: Scalar[T], twiddle: Bool,
):
    """Steps A and B over one n1 x n2 item; ``twiddle``: the four-step (X in its order), else the
    2-D transform (rows in natural order)."""
    comptime V = simd_width_of[T]()
    var L = 2 * V if n2 % (2 * V) == 0 else V
    var b = alloc[Scalar[T]](2 * n1 * n2)
    var br = b
    var bi = b + n1 * n2
    var chunks = n2 // L
    var col_tasks = min(chunks, 64)
    var col_ws = (2 * n1 + workspace_size(n1)) * L

    def columns(t: Int) {src, br, bi, n1, n2, L, plan1, cr, si, tlr, tli, sign, twiddle, chunks, col_tasks, col_ws}:  # by reference: see _parallel_pass
        var ws = alloc[Scalar[T]](col_ws)
        var tile = alloc[SIMD[T, V]](2 * V)
        for c in range(chunks * t // col_tasks, chunks * (t + 1) // col_tasks):
            _columns[T](src, br, bi, n1, n2, c * L, L, plan1, cr, si, tlr, tli, sign, twiddle, ws, tile, tile + V)
        tile.free()
        ws.free()

    parallelize(columns, col_tasks)
    var groups = n1 // V
    var row_tasks = min(groups, 64)
    var row_ws = workspace_size(n2) * V
    var natural = not twiddle

    def rows(t: Int) {dst, br, bi, n1, n2, plan2, sign, scale, natural, groups, row_tasks, row_ws}:
        var ws = alloc[Scalar[T]](row_ws)
        for g in range(groups * t // row_tasks, groups * (t + 1) // row_tasks):
            _rows[T](dst, br, bi, n1, n2, g, plan2, sign, scale, natural, ws)
        ws.free()

    parallelize(rows, row_tasks)
    b.free()


def four_step[T: DType](
    dst: UnsafePointer[mut=True, Scalar[T], _], src: UnsafePointer[Scalar[T], _], n: Int, n1: Int,
    plan1: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin],
    plan2: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin],
    roots: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin], sign: Scalar[T], scale: Scalar[T],
):
    """The length-n DFT (exponent sign ``sign``, times ``scale``) of one interleaved complex
    sequence, n = n1 n2 as four_step_split chose; ``plan1``/``plan2`` are the plans of n1 and n2,
    ``roots`` n roots of unity of n (cos, then sin)."""
    comptime V = simd_width_of[T]()
    var cr = roots
    var si = roots + n
    var tl = alloc[Scalar[T]](2 * n1 * V)  # w^(l k1), l < V: l k1 < V n1 <= n
    var tlr = tl
    var tli = tl + n1 * V
    for k1 in range(n1):
        for l in range(V):
            tlr[k1 * V + l] = cr[l * k1]
            tli[k1 * V + l] = sign * si[l * k1]
    _two_steps[T](dst, src, n1, n // n1, plan1, plan2, cr, si, tlr, tli, sign, scale, True)
    tl.free()


def can_transform_2d(n1: Int, n2: Int, v: Int) -> Bool:
    """Whether transform_2d takes an n1 x n2 matrix (whole row groups and column chunks)."""
    return n1 >= v and n2 >= v and n1 % v == 0 and n2 % v == 0


def transform_2d[T: DType](
    dst: UnsafePointer[mut=True, Scalar[T], _], src: UnsafePointer[Scalar[T], _], n1: Int, n2: Int,
    plan1: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin],
    plan2: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin], sign: Scalar[T], scale: Scalar[T],
):
    """The 2-D DFT of one n1 x n2 interleaved complex matrix (can_transform_2d), times ``scale``."""
    _two_steps[T](dst, src, n1, n2, plan1, plan2, plan1, plan1, plan1, plan1, sign, scale, False)
