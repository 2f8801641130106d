# The kernel ops' kernels, exported for direct calls from Python (``runtime/library_kernels.py``): the
# same Mojo functions the graph ops' packages (``ops/kernels/linalg``, ``fft``, ``sort``, ``random``)
# give their custom ops, each called through ctypes with addresses and sizes and giving 0 when done.
#
# A shared library of its own, not part of the program kernel (``nabla_vm.mojo``): each build takes
# ~14-15 s of the 2-core machine, and a script whose reads are elementwise work waits for the
# program kernel alone (a first run of the demo: ~15 s instead of ~24 s).
from std.memory import UnsafePointer
# (the graph ops' kernel packages, staged under names of their own: MAX's kernels hold a ``linalg``)
from nabla_fft.fft import fft_stack
from nabla_linalg.cholesky import cholesky_stack
from nabla_linalg.common import adjoint_stack
from nabla_linalg.eig import eig_stack
from nabla_linalg.eigh import eigh_stack
from nabla_linalg.lu import det_stack, solve_stack
from nabla_linalg.qr import qr_stack
from nabla_linalg.svd import svd_stack
from nabla_random.philox import draw
from nabla_sort.sort import sort_rows


@export
def nabla_lu_det(a: Int, batch: Int, n: Int, cplx: Int, sign: Int, logabs: Int, det: Int) -> Int:
    """(sign, log|det|, det) of a stack of ``batch`` float64 n x n matrices at ``a`` (complex:
    (re, im) pairs), by the LU factorization the linalg kernels' ``det`` runs, into the outputs
    whose addresses are not 0: float64 per matrix, (re, im) pairs for a complex sign and det.
    A linalg op run here needs no model: on a fresh machine, no compile to wait for."""
    if batch <= 0 or n <= 0:
        return 1
    var parts = alloc[Float64](batch * 5)
    var src = UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=a)
    if cplx != 0:
        det_stack[True](src, parts, batch, n)
    else:
        det_stack[False](src, parts, batch, n)
    var w = 2 if cplx != 0 else 1
    var to_sign = UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=sign)
    var to_log = UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=logabs)
    var to_det = UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=det)
    for b in range(batch):
        for e in range(w):
            if sign != 0:
                to_sign.unsafe_store(b * w + e, parts.unsafe_load(b * 5 + e))
            if det != 0:
                to_det.unsafe_store(b * w + e, parts.unsafe_load(b * 5 + 3 + e))
        if logabs != 0:
            to_log.unsafe_store(b, parts.unsafe_load(b * 5 + 2))
    parts.free()
    return 0


@export
def nabla_lu_solve(a: Int, b: Int, x: Int, batch: Int, n: Int, k: Int, cplx: Int) -> Int:
    """x = a^-1 b for a stack of ``batch`` float64 n x n matrices at ``a`` and n x k right-hand
    sides at ``b`` (complex: (re, im) pairs), by the linalg kernels' LU, into ``x``."""
    if batch <= 0 or n <= 0 or k <= 0:
        return 1
    var ap = UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=a)
    var bp = UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=b)
    var xp = UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=x)
    if cplx != 0:
        solve_stack[True](ap, bp, xp, batch, n, k)
    else:
        solve_stack[False](ap, bp, xp, batch, n, k)
    return 0


@export
def nabla_sort(x: Int, values: Int, order: Int, batch: Int, n: Int, k: Int, descending: Int, kind: Int) -> Int:
    """A stable sort of every row of the stack x (batch, n, k) along axis 1, as the sort kernel
    runs it, into ``values`` and the int64 permutation ``order``; ``kind``: 0 float64, 1 int64,
    2 uint64 (the dtypes the sort op takes: others are sorted as one of these)."""
    if batch <= 0 or n <= 0 or k <= 0:
        return 1
    var o = UnsafePointer[Int64, MutUntrackedOrigin](unsafe_from_address=order)
    if kind == 0:
        sort_rows[DType.float64](UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=values), o,
                                 UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=x), batch, n, k,
                                 descending != 0)
    elif kind == 1:
        sort_rows[DType.int64](UnsafePointer[Int64, MutUntrackedOrigin](unsafe_from_address=values), o,
                               UnsafePointer[Int64, MutUntrackedOrigin](unsafe_from_address=x), batch, n, k,
                               descending != 0)
    elif kind == 2:
        sort_rows[DType.uint64](UnsafePointer[UInt64, MutUntrackedOrigin](unsafe_from_address=values), o,
                                UnsafePointer[UInt64, MutUntrackedOrigin](unsafe_from_address=x), batch, n, k,
                                descending != 0)
    else:
        return 1
    return 0


@export
def nabla_eigh(a: Int, w: Int, v: Int, batch: Int, n: Int, cplx: Int) -> Int:
    """Eigenvalues (ascending, float64 (batch, n)) into ``w`` and eigenvectors (columns, (batch, n,
    n); complex: (re, im) pairs) into ``v`` of a Hermitian stack of float64 matrices at ``a``, as the
    linalg kernels' ``eigh`` computes them (only the lower triangle is read)."""
    if batch <= 0 or n <= 0:
        return 1
    var ap = UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=a)
    var wp = UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=w)
    var vp = UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=v)
    if cplx != 0:
        eigh_stack[True](ap, wp, vp, batch, n)
    else:
        eigh_stack[False](ap, wp, vp, batch, n)
    return 0


def _f64(address: Int) -> UnsafePointer[Float64, MutUntrackedOrigin]:
    return UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=address)


@export
def nabla_cholesky(a: Int, l: Int, batch: Int, n: Int, cplx: Int) -> Int:
    """The lower Cholesky factor of each float64 n x n matrix of a stack (complex: (re, im) pairs)."""
    if batch <= 0 or n <= 0:
        return 1
    if cplx != 0:
        cholesky_stack[True](_f64(a), _f64(l), batch, n)
    else:
        cholesky_stack[False](_f64(a), _f64(l), batch, n)
    return 0


@export
def nabla_qr(a: Int, q: Int, r: Int, batch: Int, m: Int, n: Int, k: Int, cplx: Int) -> Int:
    """A (batch, m, n) = Q (m, k) R (k, n), k = n (reduced, m >= n) or m, by the linalg kernels' QR."""
    if batch <= 0 or m <= 0:
        return 1
    if cplx != 0:
        qr_stack[True](_f64(a), _f64(q), _f64(r), batch, m, n, k, k)
    else:
        qr_stack[False](_f64(a), _f64(q), _f64(r), batch, m, n, k, k)
    return 0


def _svd[C: Bool](a: Int, u: Int, s: Int, vh: Int, batch: Int, m: Int, n: Int, full: Bool, wide: Bool):
    comptime w = 2 if C else 1
    var rows = n if wide else m  # the kernel factors A (A^H where A is wide): rows >= cols
    var cols = m if wide else n
    var ucols = rows if full else cols
    var src = _f64(a)
    var flipped = alloc[Float64](batch * m * n * w if wide else 1)
    if wide:
        adjoint_stack[C](src, flipped, batch, m, n)
        src = flipped
    var left = alloc[Float64](batch * rows * ucols * w if wide else 1)  # U of A^H, A's V
    var right = alloc[Float64](batch * cols * cols * w if not wide else 1)  # V of A
    if wide:  # A^H = U S V^H: A = V S U^H
        svd_stack[C](src, left, _f64(s), _f64(u), batch, rows, cols, ucols)
        adjoint_stack[C](left, _f64(vh), batch, rows, ucols)
    else:
        svd_stack[C](src, _f64(u), _f64(s), right, batch, rows, cols, ucols)
        adjoint_stack[C](right, _f64(vh), batch, cols, cols)
    flipped.free()
    left.free()
    right.free()


@export
def nabla_svd(a: Int, u: Int, s: Int, vh: Int, batch: Int, m: Int, n: Int, full: Int, wide: Int, cplx: Int) -> Int:
    """A (batch, m, n) = U diag(S) Vh, S descending (``wide``: m < n), by the linalg kernels' SVD."""
    if batch <= 0 or m <= 0 or n <= 0:
        return 1
    if cplx != 0:
        _svd[True](a, u, s, vh, batch, m, n, full != 0, wide != 0)
    else:
        _svd[False](a, u, s, vh, batch, m, n, full != 0, wide != 0)
    return 0


@export
def nabla_eig(a: Int, w: Int, v: Int, batch: Int, n: Int) -> Int:
    """Eigenvalues (batch, n) and unit eigenvectors (columns) of a complex stack ((re, im) pairs)."""
    if batch <= 0 or n <= 0:
        return 1
    eig_stack(_f64(a), _f64(w), _f64(v), batch, n)
    return 0


@export
def nabla_fft(y: Int, x: Int, batch: Int, rows: Int, cols: Int, rows_out: Int, cols_out: Int, sign: Int,
              scaling: Int, dims: Int) -> Int:
    """The FFT kernel's transform of float64 x (batch, rows, cols) along axis 1 (``dims`` 2: the 2-D
    c2c transform of axes 1 and 2) into y (batch, rows_out, cols_out)."""
    if batch <= 0 or rows <= 0 or cols <= 0:
        return 1
    fft_stack[DType.float64](_f64(y), _f64(x), batch, rows, cols, rows_out, cols_out, sign, scaling, dims)
    return 0


@export
def nabla_random(y: Int, n: Int, state: Int, kind: Int) -> Int:
    """``n`` values of the Philox draw that the uint64 ``state`` [key, start, stream, kind] names;
    ``kind``: 0 uint32 words, 1 float32, 2 float64."""
    if n <= 0:
        return 1
    var st = UnsafePointer[UInt64, MutUntrackedOrigin](unsafe_from_address=state)
    if kind == 0:
        draw[DType.uint32](UnsafePointer[UInt32, MutUntrackedOrigin](unsafe_from_address=y), n, st)
    elif kind == 1:
        draw[DType.float32](UnsafePointer[Float32, MutUntrackedOrigin](unsafe_from_address=y), n, st)
    elif kind == 2:
        draw[DType.float64](_f64(y), n, st)
    else:
        return 1
    return 0
