# Nabla's program kernel: a trace's whole program of stages run in one call from Python.
#
# A read runs its trace as a program of stages (runtime/program.py writes it): each stage is one
# program of the fused evaluator (evaluator/fused.mojo: registers over blocks of the stage's elements,
# inputs read through strided layouts) whose result is stored into a buffer, in order or through a
# strided layout (a slice write), or reduced over one run of axes, or summed running; or a copy of
# bytes. The stages' buffers are the trace's leaves, its outputs and an arena of intermediates, all
# given by address, so one call runs any program: nothing is compiled per structure, and a read
# pays one call, not one per stage. A row write (a scatter) copies rows of bytes to the rows an
# int64 index names, in order.
#
# Called from Python through ctypes (a C symbol of this shared library), not through a MAX graph:
# MAX's ``model.execute`` of a custom op costs ~30-40 us per call on the 2-core machine, a direct
# call ~1 us, and a loop that reads a scalar per step pays that floor every step. ctypes releases
# the GIL for the call: other Python threads run meanwhile, and a thread in the kernel never holds
# a lock that work it waits for (its own tasks, MAX's) could need.
#
# The call: an int64 array [n_stages, then STAGE ints per stage]:
#   kind (0 map, 1 reduce, 2 scan, 3 copy, 4 scatter, 5 scatter-add, 6 nonzero), family (0 float32, 1 float64,
#   2 integers in int64 registers over bytes, 3 coded float32, 4 coded float64; scatter-add: the
#   dtype's code), program address (int32), constants address (float64; scatter-add: outer, extent,
#   inner; nonzero: the axis's stride and size), output address, n (map and scan: elements; reduce:
#   outputs; copy: bytes; scatters: rows; nonzero: the mask's elements), store layout address (0: in
#   order), count (reduce of a float family into int64: 1; scatter: the bytes of a row; nonzero: the
#   true elements), then the data table: (address, size) for each of eight data slots (the
#   scatters: the rows written or added, then their int64 row numbers; nonzero: the bool mask).
from std.memory import UnsafePointer
from evaluator.fused import map_into
from evaluator.fused_reduce import reduce_into, scan_into, scan_into_coded, scan_into_ints
# (the graph ops' kernel packages, ops/kernels/*, staged under names of their own: MAX's kernels hold a ``linalg``)
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

comptime STAGE = 24


@export
def nabla_vm_run(call: Int) -> Int:
    """Run the program of stages whose call array is at address ``call``; 0 when done, 1 when a
    stage raised (nothing the kernel computes raises: a guard)."""
    var c = UnsafePointer[Int, MutUntrackedOrigin](unsafe_from_address=call)
    var n = c.unsafe_load(0)
    try:
        for s in range(n):
            _stage(c + 1 + s * STAGE)
    except:
        return 1
    return 0


@always_inline
def _stage(st: UnsafePointer[Int, MutUntrackedOrigin]) raises:
    var kind = st.unsafe_load(0)
    var family = st.unsafe_load(1)
    var p = UnsafePointer[Int32, MutUntrackedOrigin](unsafe_from_address=st.unsafe_load(2))
    var k = UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=st.unsafe_load(3))
    var dst = UnsafePointer[UInt8, MutAnyOrigin](unsafe_from_address=st.unsafe_load(4))
    var n = st.unsafe_load(5)
    var at = st.unsafe_load(6)
    var layout = UnsafePointer[Float64, MutUntrackedOrigin](unsafe_from_address=at) if at != 0 else k
    var data = st + 8
    if kind == 3:
        _copy(dst, UnsafePointer[UInt8, MutUntrackedOrigin](unsafe_from_address=data.unsafe_load(0)), n)
    elif kind == 4:
        var src = UnsafePointer[UInt8, MutUntrackedOrigin](unsafe_from_address=data.unsafe_load(0))
        var rows = UnsafePointer[Int64, MutUntrackedOrigin](unsafe_from_address=data.unsafe_load(2))
        var row = st.unsafe_load(7)
        for i in range(n):
            _copy(dst + Int(rows.unsafe_load(i)) * row, src + i * row, row)
    elif kind == 5:
        var src = UnsafePointer[UInt8, MutUntrackedOrigin](unsafe_from_address=data.unsafe_load(0))
        var rows = UnsafePointer[Int64, MutUntrackedOrigin](unsafe_from_address=data.unsafe_load(2))
        var outer = Int(k.unsafe_load(0))
        var extent = Int(k.unsafe_load(1))
        var inner = Int(k.unsafe_load(2))
        if family == 9:
            _scatter_add[DType.float64](dst, src, rows, n, outer, extent, inner)
        elif family == 8:
            _scatter_add[DType.float32](dst, src, rows, n, outer, extent, inner)
        elif family == 10:  # float16: each sum in float32, rounded to float16 (NumPy's float16 loop)
            _scatter_add[DType.float16, DType.float32](dst, src, rows, n, outer, extent, inner)
        elif family == 4 or family == 11:  # (int64, and uint64's same bits)
            _scatter_add[DType.int64](dst, src, rows, n, outer, extent, inner)
        elif family == 3 or family == 7:
            _scatter_add[DType.int32](dst, src, rows, n, outer, extent, inner)
        elif family == 2 or family == 6:
            _scatter_add[DType.int16](dst, src, rows, n, outer, extent, inner)
        else:  # int8, uint8
            _scatter_add[DType.int8](dst, src, rows, n, outer, extent, inner)
    elif kind == 6:  # one axis's coordinates of the mask's true elements, in order
        var mask = UnsafePointer[UInt8, MutUntrackedOrigin](unsafe_from_address=data.unsafe_load(0))
        var stride, size = Int(k.unsafe_load(0)), Int(k.unsafe_load(1))
        _nonzero_axis(mask, dst.unsafe_bitcast[Int64](), n, stride, size, st.unsafe_load(7))
    elif kind == 0:
        if family == 0:
            map_into[DType.float32, DType.float32](p, k, data, dst, n, layout, at != 0)
        elif family == 1:
            map_into[DType.float64, DType.float64](p, k, data, dst, n, layout, at != 0)
        elif family == 2:
            map_into[DType.int64, DType.uint8](p, k, data, dst, n, layout, at != 0)
        elif family == 3:
            map_into[DType.float32, DType.uint8](p, k, data, dst, n, layout, at != 0)
        else:
            map_into[DType.float64, DType.uint8](p, k, data, dst, n, layout, at != 0)
    elif kind == 1:
        var count = st.unsafe_load(7) != 0
        if family == 0:
            if count:
                reduce_into[DType.float32, DType.float32, DType.int64](p, k, data, dst, n)
            else:
                reduce_into[DType.float32, DType.float32, DType.float32](p, k, data, dst, n)
        elif family == 1:
            if count:
                reduce_into[DType.float64, DType.float64, DType.int64](p, k, data, dst, n)
            else:
                reduce_into[DType.float64, DType.float64, DType.float64](p, k, data, dst, n)
        elif family == 2:
            reduce_into[DType.int64, DType.uint8, DType.uint8](p, k, data, dst, n)
        elif family == 3:
            reduce_into[DType.float32, DType.uint8, DType.uint8](p, k, data, dst, n)
        else:
            reduce_into[DType.float64, DType.uint8, DType.uint8](p, k, data, dst, n)
    elif kind == 2:
        if family == 0:
            scan_into[DType.float32](p, k, data, dst.unsafe_bitcast[Float32](), n)
        elif family == 1:
            scan_into[DType.float64](p, k, data, dst.unsafe_bitcast[Float64](), n)
        elif family == 2:
            scan_into_ints(p, k, data, dst, n)
        elif family == 3:
            scan_into_coded[DType.float32](p, k, data, dst, n)
        else:
            scan_into_coded[DType.float64](p, k, data, dst, n)


def _nonzero_axis(mask: UnsafePointer[UInt8, MutUntrackedOrigin], coords: UnsafePointer[Int64, MutAnyOrigin], n: Int,
                  stride: Int, size: Int, count: Int):
    """coords[j]: the coordinate ``(i // stride) % size`` of the mask's j-th true element i, for the
    first ``count`` of them. The coordinate is kept per run of elements that share it (or, on the
    innermost axis, grows by one an element), not divided out per element; and every element is
    stored without a branch (a random mask's branch mispredicts at about every other true element):
    the store goes to coords[j] and j grows by the mask's bit, a chunk never longer than the places
    left in ``coords``; sixteen false elements in a row are passed over at once."""
    var run = size if stride == 1 else stride
    var step = 1 if stride == 1 else 0
    var coord = 0
    var start = 0
    var j = 0
    while start < n and j < count:
        var end = min(start + run, n)
        var e = start
        while e < end and j < count:
            var last = e + min(end - e, count - j)
            var q = e
            while q + 16 <= last:  # sixteen at a time; all false (a sparse mask): passed over at once
                if mask.unsafe_load[width=16](q).reduce_max() != 0:
                    for r in range(q, q + 16):
                        coords.unsafe_store(j, Int64(coord + (r - start) * step))
                        j += Int(mask.unsafe_load(r) != 0)
                q += 16
            while q < last:
                coords.unsafe_store(j, Int64(coord + (q - start) * step))
                j += Int(mask.unsafe_load(q) != 0)
                q += 1
            e = last
        start = end
        if stride != 1:
            coord = coord + 1 if coord + 1 < size else 0


def _scatter_add[D: DType, A: DType = D](dst: UnsafePointer[UInt8, MutAnyOrigin],
                                         src: UnsafePointer[UInt8, MutUntrackedOrigin],
                                         rows: UnsafePointer[Int64, MutUntrackedOrigin], n: Int, outer: Int,
                                         extent: Int, inner: Int):
    """out[o, rows[i], :] += u[o, i, :] over i in order (a negative row from the end; one outside
    the extent adds nothing): NumPy's ``add.at`` order, so float sums round as its do, each added
    in A and rounded to D. Integers add modulo 2^bits, as NumPy's wrap."""
    var out = dst.unsafe_bitcast[Scalar[D]]()
    var u = src.unsafe_bitcast[Scalar[D]]()
    for o in range(outer):
        for i in range(n):
            var j = Int(rows.unsafe_load(i))
            if j < 0:
                j += extent
            if j < 0 or j >= extent:
                continue
            var d = out + (o * extent + j) * inner
            var s = u + (o * n + i) * inner
            for e in range(inner):
                d.unsafe_store(e, (d.unsafe_load(e).cast[A]() + s.unsafe_load(e).cast[A]()).cast[D]())


def _copy(dst: UnsafePointer[UInt8, MutAnyOrigin], src: UnsafePointer[UInt8, MutUntrackedOrigin], n: Int):
    """``n`` bytes, eight at a time."""
    var words = n // 8
    var d = dst.unsafe_bitcast[Int64]()
    var s = src.unsafe_bitcast[Int64]()
    for i in range(words):
        d.unsafe_store(i, s.unsafe_load(i))
    for i in range(words * 8, n):
        dst.unsafe_store(i, src.unsafe_load(i))


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
