# Nabla's FFT kernel: complex-to-complex, real-to-complex and complex-to-real transforms along
# axis 1 of a (b, rows, cols) stack: cols holds K independent sequences (K = 1: the last axis;
# K > 1: an inner axis, transformed in place with no transpose), complex values interleaved
# (2K columns). The mode is told by the shapes: equal in and out is c2c (n = rows), twice the
# columns out r2c (n = rows in), half the columns out c2r (n = rows out, the input holding
# n // 2 + 1). `spec` = [sign of the exponent, scaling: 0 none, 1 by 1 / sqrt(n), 2 by 1 / n,
# optionally 2: a c2c transform along axes 1 and 2 at once (four_step.mojo), n = rows cols / 2].
#
# Work goes in blocks of `lanes` interleaved sequences (the K of an inner axis, or for the last
# axis a group of rows), so every Stockham pass runs on whole SIMD vectors.
#
# Real transforms of even n use the half-length trick (a length-n/2 complex transform of the
# even/odd samples packed as re/im, then one pass that splits them with the n-th roots of unity:
# Cooley, Lewis & Welch 1970); odd n runs a complex transform of n with zero imaginary parts.
# On a GPU the kernel runs gpu.mojo's path instead.
from std.ffi import _get_global_or_null, external_call
from std.math import sqrt
from std.memory import stack_allocation
from std.sys.info import simd_width_of, size_of
from max.algorithm import parallelize
from max.gpu.host import DeviceContext
from extensibility import InputTensor, OutputTensor, register
from .gpu import run_gpu
from .four_step import can_transform_2d, four_step, four_step_split, transform_2d
from .layout import join_rows, join_run, split_rows, split_run, store_tile
from .stockham import PARALLEL_ROW, fill_roots
from .transform import build_plan, plan_size, transform, work_length, workspace_size

#: elements of one plane that a block aims at: 4 planes of them stay in a core's L2 cache
comptime CACHED_ELEMENTS = 16384
comptime C2C = 0
comptime R2C = 1
comptime C2R = 2


#: tables of at most this many scalars are kept for the process (a plan of 2^20 points is 2^21),
#: up to CACHED_TABLE_SCALARS in all; larger or further ones are built for each call
comptime CACHED_TABLE_SCALARS = 1 << 24


def _tables[T: DType](n: Int, ln: Int, sign: Scalar[T], real_roots: Bool,
                      mut owned: Bool) -> UnsafePointer[Scalar[T], MutUntrackedOrigin]:
    """Everything a transform of n needs besides its data: the plan of its complex length ln, then
    (real transforms with ln != n) n // 2 + 1 roots of n. Kept in MAX's process-wide runtime
    dictionary, so a length's twiddles, chirp and chirp spectrum are computed once per process,
    not on every call (2^20 points: ~1.3 ms of float64 roots; a prime's Bluestein spectrum: one
    more transform of its convolution length). Tables are never freed once published (a call may
    be reading them); ``owned`` says the caller must free what it got (not published)."""
    var psize = plan_size(ln)
    var size = psize + 2 * (n // 2 + 1)
    var key = String("nabla.fft.tables.", T, ".", n, ".", ln, ".", Int(sign), ".", Int(real_roots))
    var found = _get_global_or_null(key)
    if found:
        owned = False
        return found.value().unsafe_bitcast[Scalar[T]]()
    var plan = alloc[Scalar[T]](size)
    build_plan[T](plan, ln, sign)
    if real_roots:
        fill_roots[T](plan + psize, plan + psize + (n // 2 + 1), n, n // 2 + 1)
    owned = True
    if size <= CACHED_TABLE_SCALARS:
        # the running total of published scalars (itself a published Int); a race between two
        # first calls of one length may publish twice (the loser's table stays, unused): harmless
        var total_key = String("nabla.fft.tables.total")
        var total = _get_global_or_null(total_key)
        var count: UnsafePointer[Int, MutUntrackedOrigin]
        if total:
            count = total.value().unsafe_bitcast[Int]()
        else:
            count = alloc[Int](1)
            count[] = 0
            external_call["KGEN_CompilerRT_InsertGlobal", NoneType](StringSlice(total_key), count.unsafe_bitcast[NoneType]())
        if count[] + size <= CACHED_TABLE_SCALARS:
            count[] += size
            external_call["KGEN_CompilerRT_InsertGlobal", NoneType](StringSlice(key), plan.unsafe_bitcast[NoneType]())
            owned = False
    return plan


@always_inline
def _split_bin[T: DType, w: Int](zr: SIMD[T, w], zi: SIMD[T, w], cr: SIMD[T, w], ci: SIMD[T, w], wr: SIMD[T, w],
                                 wi: SIMD[T, w], half: Scalar[T]) -> Tuple[SIMD[T, w], SIMD[T, w]]:
    """r2c of even n: X_k = (Z_k + C) / 2 + w^k (Z_k - C) / 2i from Z (C = conj Z_h-k, given as cr, ci)."""
    var o_r = zi - ci  # (Z - C) / i
    var o_i = cr - zr
    return ((zr + cr + o_r * wr - o_i * wi) * half, (zi + ci + o_r * wi + o_i * wr) * half)


@always_inline
def _pack_bin[T: DType, w: Int](ar: SIMD[T, w], ai: SIMD[T, w], br: SIMD[T, w], bi: SIMD[T, w], wr: SIMD[T, w],
                                wi: SIMD[T, w]) -> Tuple[SIMD[T, w], SIMD[T, w]]:
    """c2r of even n: Z_k = E + i O, E = A + B, O = (A - B) w^k (A = X_k, B = conj X_h-k as br, bi)."""
    var dr = ar - br
    var di = ai - bi
    var o_r = dr * wr - di * wi
    var o_i = dr * wi + di * wr
    return (ar + br - o_i, ai + bi + o_r)


def _hermitian_split[T: DType](dst: UnsafePointer[mut=True, Scalar[T], _], ls: Int, xr: UnsafePointer[Scalar[T], _],
                               xi: UnsafePointer[Scalar[T], _], h: Int, cn: UnsafePointer[Scalar[T], _],
                               sn: UnsafePointer[Scalar[T], _], sign: Scalar[T], scale: Scalar[T]):
    """r2c of even n = 2h for V rows at once: X_k = (Z_k + conj Z_h-k) / 2 + w^k (Z_k - conj Z_h-k) / 2i
    on lane vectors, V values of k at a time transposed straight into the rows."""
    comptime V = simd_width_of[T]()
    var re = stack_allocation[V, SIMD[T, V]]()
    var im = stack_allocation[V, SIMD[T, V]]()
    var half = Scalar[T](0.5) * scale
    var whole = (h + 1) // V * V
    for k0 in range(0, h + 1, V):
        for i in range(min(V, h + 1 - k0)):
            var k = k0 + i
            var z = (k if k < h else 0) * V  # k mod h and (h - k) mod h, k <= h: no division
            var c = (h - k if k > 0 else 0) * V
            var x = _split_bin[T, V](xr.load[width=V](z), xi.load[width=V](z), xr.load[width=V](c),
                                     -xi.load[width=V](c), cn[k], sign * sn[k], half)
            re[i] = x[0]
            im[i] = x[1]
        if k0 < whole:
            store_tile[T, V](dst, ls, k0, re, im)
            continue
        for i in range(h + 1 - k0):  # the last values, fewer than V
            for l in range(V):
                dst[l * ls + 2 * (k0 + i)] = re[i][l]
                dst[l * ls + 2 * (k0 + i) + 1] = im[i][l]


def _hermitian_pack[T: DType](src: UnsafePointer[Scalar[T], _], ls: Int, xr: UnsafePointer[mut=True, Scalar[T], _],
                              xi: UnsafePointer[mut=True, Scalar[T], _], h: Int, cn: UnsafePointer[Scalar[T], _],
                              sn: UnsafePointer[Scalar[T], _], sign: Scalar[T]):
    """c2r of even n = 2h for V rows at once: the h + 1 spectrum values of each row into lane vectors,
    then Z_k = E_k + i O_k (E = X_k + conj X_h-k, O = (X_k - conj X_h-k) w^k) on whole vectors."""
    comptime V = simd_width_of[T]()
    var planes = alloc[Scalar[T]](2 * (h + 1) * V)
    var ar_ = planes
    var ai_ = planes + (h + 1) * V
    split_rows[T](src, ls, h + 1, ar_, ai_)
    for k in range(h):
        var ar = ar_.load[width=V](k * V)
        var ai = ai_.load[width=V](k * V) if k != 0 else SIMD[T, V](0)
        var br = ar_.load[width=V]((h - k) * V)
        var bi = -ai_.load[width=V]((h - k) * V) if k != 0 else SIMD[T, V](0)  # X_h's imaginary part is dropped
        var z = _pack_bin[T, V](ar, ai, br, bi, cn[k], sign * sn[k])
        xr.store(k * V, z[0])
        xi.store(k * V, z[1])
    planes.free()


def _hermitian_split_run[T: DType](dst: UnsafePointer[mut=True, Scalar[T], _], xr: UnsafePointer[Scalar[T], _],
                                   xi: UnsafePointer[Scalar[T], _], h: Int, cn: UnsafePointer[Scalar[T], _],
                                   sn: UnsafePointer[Scalar[T], _], sign: Scalar[T], scale: Scalar[T]):
    """r2c of even n = 2h for one row: the split on vectors along k, the partners h - k read
    reversed, written as (re, im) pairs."""
    comptime w = simd_width_of[T]()
    var half = Scalar[T](0.5) * scale
    var k = 1
    while k + w <= h:  # partners h - k - w + 1 .. h - k, all in 1 .. h - 1
        var c0 = h - k - w + 1
        var x = _split_bin[T, w](xr.load[width=w](k), xi.load[width=w](k), xr.load[width=w](c0).reversed(),
                                 -xi.load[width=w](c0).reversed(), cn.load[width=w](k), sn.load[width=w](k) * sign,
                                 half)
        dst.store(2 * k, x[0].interleave(x[1]))
        k += w
    for j in range(h + 1):
        if j != 0 and j < k:
            continue
        var z = j % h
        var c = (h - j) % h
        var x = _split_bin[T, 1](xr[z], xi[z], xr[c], -xi[c], cn[j], sign * sn[j], half)
        dst[2 * j] = x[0]
        dst[2 * j + 1] = x[1]


def _hermitian_pack_run[T: DType](src: UnsafePointer[Scalar[T], _], xr: UnsafePointer[mut=True, Scalar[T], _],
                                  xi: UnsafePointer[mut=True, Scalar[T], _], h: Int, cn: UnsafePointer[Scalar[T], _],
                                  sn: UnsafePointer[Scalar[T], _], sign: Scalar[T]):
    """c2r of even n = 2h for one row (h + 1 (re, im) pairs in): Z_k on vectors along k, the
    partners h - k read reversed."""
    comptime w = simd_width_of[T]()
    var k = 1
    while k + w <= h:  # partners h - k - w + 1 .. h - k, all in 1 .. h - 1
        var a = src.load[width=2 * w](2 * k).deinterleave()
        var b = src.load[width=2 * w](2 * (h - k - w + 1)).deinterleave()
        var z = _pack_bin[T, w](rebind[SIMD[T, w]](a[0]), rebind[SIMD[T, w]](a[1]),
                                rebind[SIMD[T, w]](b[0]).reversed(), -rebind[SIMD[T, w]](b[1]).reversed(),
                                cn.load[width=w](k), sn.load[width=w](k) * sign)
        xr.store(k, z[0])
        xi.store(k, z[1])
        k += w
    for j in range(h):
        if j != 0 and j < k:
            continue
        var ai = src[2 * j + 1] if j != 0 else Scalar[T](0)
        var bi = -src[2 * (h - j) + 1] if j != 0 else Scalar[T](0)  # X_h's imaginary part is dropped
        var z = _pack_bin[T, 1](src[2 * j], ai, src[2 * (h - j)], bi, cn[j], sign * sn[j])
        xr[j] = z[0]
        xi[j] = z[1]


def _load[T: DType](src: UnsafePointer[Scalar[T], _], ls: Int, es: Int, lanes: Int,
                    xr: UnsafePointer[mut=True, Scalar[T], _], xi: UnsafePointer[mut=True, Scalar[T], _],
                    mode: Int, n: Int, ln: Int, cn: UnsafePointer[Scalar[T], _], sn: UnsafePointer[Scalar[T], _],
                    sign: Scalar[T]):
    """One block into the (xr, xi) planes of the length-ln complex transforms: value k of lane l
    is read at src + l * ls + k * es, and goes to k * lanes + l."""
    var L = lanes
    if (mode == C2C and L == 1 and es == 2) or (mode == R2C and ln != n and L == 1 and es == 1):
        split_run[T](src, xr, xi, ln)  # one contiguous sequence (complex values, or packed real pairs)
    elif mode == C2C and ls == 2:  # an inner axis: each element's lanes are contiguous pairs
        for k in range(ln):
            split_run[T](src + k * es, xr + k * L, xi + k * L, L)
    elif L == simd_width_of[T]() and ((mode == C2C and es == 2) or (mode == R2C and ln != n and es == 1)):
        split_rows[T](src, ls, ln, xr, xi)  # a full group of rows (complex values, or packed real pairs)
    elif mode == C2C:
        for k in range(ln):
            for l in range(L):
                var a = l * ls + k * es
                xr[k * L + l] = src[a]
                xi[k * L + l] = src[a + 1]
    elif mode == R2C and ln != n:  # even n: samples 2k and 2k + 1 packed as one complex value
        for k in range(ln):
            for l in range(L):
                var a = l * ls + 2 * k * es
                xr[k * L + l] = src[a]
                xi[k * L + l] = src[a + es]
    elif mode == R2C:
        for k in range(n):
            for l in range(L):
                xr[k * L + l] = src[l * ls + k * es]
                xi[k * L + l] = 0
    elif ln == n:  # c2r, odd n: the whole Hermitian sequence
        var h = n // 2
        for l in range(L):
            xr[l] = src[l * ls]
            xi[l] = 0
        for k in range(1, h + 1):
            for l in range(L):
                var a = l * ls + k * es
                xr[k * L + l] = src[a]
                xi[k * L + l] = src[a + 1]
                xr[(n - k) * L + l] = src[a]
                xi[(n - k) * L + l] = -src[a + 1]
    elif L == simd_width_of[T]() and es == 2:  # c2r, even n, a full group of rows: in lane vectors
        _hermitian_pack[T](src, ls, xr, xi, ln, cn, sn, sign)
    elif L == 1 and es == 2:  # c2r, even n, one row: on vectors along the row
        _hermitian_pack_run[T](src, xr, xi, ln, cn, sn, sign)
    else:  # c2r, even n: E + i O, E = X_k + conj(X_h-k), O = (X_k - conj(X_h-k)) w^k
        var h = ln
        for k in range(h):
            var wr = cn[k]
            var wi = sign * sn[k]
            for l in range(L):
                var a = l * ls + k * es
                var b = l * ls + (h - k) * es
                var ar = src[a]
                var ai = src[a + 1] if k != 0 else Scalar[T](0)
                var br = src[b]
                var bi = -src[b + 1] if k != 0 else Scalar[T](0)  # conj; X_h's imaginary part is dropped
                var z = _pack_bin[T, 1](ar, ai, br, bi, wr, wi)
                xr[k * L + l] = z[0]
                xi[k * L + l] = z[1]


def _store[T: DType](dst: UnsafePointer[mut=True, Scalar[T], _], ls: Int, es: Int, lanes: Int,
                     xr: UnsafePointer[Scalar[T], _], xi: UnsafePointer[Scalar[T], _], mode: Int, n: Int, ln: Int,
                     cn: UnsafePointer[Scalar[T], _], sn: UnsafePointer[Scalar[T], _], sign: Scalar[T],
                     scale: Scalar[T]):
    var L = lanes
    if (mode == C2C and L == 1 and es == 2) or (mode == C2R and ln != n and L == 1 and es == 1):
        join_run[T](dst, xr, xi, ln, scale)
    elif mode == C2C and ls == 2:
        for k in range(ln):
            join_run[T](dst + k * es, xr + k * L, xi + k * L, L, scale)
    elif L == simd_width_of[T]() and ((mode == C2C and es == 2) or (mode == C2R and ln != n and es == 1)):
        join_rows[T](dst, ls, ln, xr, xi, scale)
    elif mode == C2C:
        for k in range(ln):
            for l in range(L):
                var a = l * ls + k * es
                dst[a] = xr[k * L + l] * scale
                dst[a + 1] = xi[k * L + l] * scale
    elif mode == C2R and ln != n:  # even n: the packed samples 2k and 2k + 1
        for k in range(ln):
            for l in range(L):
                var a = l * ls + 2 * k * es
                dst[a] = xr[k * L + l] * scale
                dst[a + es] = xi[k * L + l] * scale
    elif mode == C2R:
        for k in range(n):
            for l in range(L):
                dst[l * ls + k * es] = xr[k * L + l] * scale
    elif ln == n:  # r2c, odd n: the first half of the spectrum
        for k in range(n // 2 + 1):
            for l in range(L):
                var a = l * ls + k * es
                dst[a] = xr[k * L + l] * scale
                dst[a + 1] = xi[k * L + l] * scale
    elif L == simd_width_of[T]() and es == 2:  # r2c, even n, a full group of rows: in lane vectors
        _hermitian_split[T](dst, ls, xr, xi, ln, cn, sn, sign, scale)
    elif L == 1 and es == 2:  # r2c, even n, one row: on vectors along the row
        _hermitian_split_run[T](dst, xr, xi, ln, cn, sn, sign, scale)
    else:  # r2c, even n: X_k = E_k + w^k O_k from Z = E + i O
        var h = ln
        var half = Scalar[T](0.5) * scale
        for k in range(h + 1):
            var wr = cn[k]
            var wi = sign * sn[k]
            var z = (k % h) * L
            var c = ((h - k) % h) * L
            for l in range(L):
                var x = _split_bin[T, 1](xr[z + l], xi[z + l], xr[c + l], -xi[c + l], wr, wi, half)
                var a = l * ls + k * es
                dst[a] = x[0]
                dst[a + 1] = x[1]


def _real_four_step[T: DType](dst: UnsafePointer[mut=True, Scalar[T], _], src: UnsafePointer[Scalar[T], _],
                              batch: Int, item_in: Int, item_out: Int, mode: Int, h: Int, n1: Int,
                              plan: UnsafePointer[mut=True, Scalar[T], MutUntrackedOrigin],
                              cn: UnsafePointer[Scalar[T], _], sn: UnsafePointer[Scalar[T], _], sign: Scalar[T],
                              scale: Scalar[T]):
    """r2c (c2r) of rows of even n = 2h: the h-point complex transform of the packed samples as a
    four-step, then (before) the Hermitian split (pack) along the row."""
    var owned1 = False
    var owned2 = False
    var plan1 = _tables[T](n1, n1, sign, False, owned1)
    var plan2 = _tables[T](h // n1, h // n1, sign, False, owned2)
    var ws = alloc[Scalar[T]](4 * h)
    var z = ws  # the packed row's transform, interleaved
    var zr = ws + 2 * h
    var zi = zr + h
    for item in range(batch):
        if mode == R2C:
            four_step[T](z, src + item * item_in, h, n1, plan1, plan2, plan, sign, Scalar[T](1))
            split_run[T](z, zr, zi, h)
            _hermitian_split_run[T](dst + item * item_out, zr, zi, h, cn, sn, sign, scale)
        else:
            _hermitian_pack_run[T](src + item * item_in, zr, zi, h, cn, sn, sign)
            join_run[T](z, zr, zi, h, Scalar[T](1))
            four_step[T](dst + item * item_out, z, h, n1, plan1, plan2, plan, sign, scale)
    ws.free()
    if owned1:
        plan1.free()
    if owned2:
        plan2.free()


def _run[T: DType](dst: UnsafePointer[mut=True, Scalar[T], _], src: UnsafePointer[Scalar[T], _], batch: Int,
                   rows_in: Int, cols_in: Int, rows_out: Int, cols_out: Int, sign: Scalar[T], scaling: Int):
    comptime V = simd_width_of[T]()
    var mode = C2C if cols_in == cols_out else (R2C if cols_out > cols_in else C2R)
    var n = rows_out if mode == C2R else rows_in
    var K = cols_in // 2 if mode == C2C else min(cols_in, cols_out)
    var ln = n // 2 if mode != C2C and n % 2 == 0 else n
    if n == 0 or K == 0:
        return
    var scale = _scale_for[T](n, scaling)
    var psize = plan_size(ln)
    var owned = False
    var plan = _tables[T](n, ln, sign, mode != C2C and ln != n, owned)
    var cn = plan + psize
    var sn = cn + (n // 2 + 1)
    var n1 = four_step_split(n, V, size_of[T]()) if mode == C2C and K == 1 else 0
    if n1 != 0:  # long sequences: two sweeps over memory and a transposition, not one per pass
        var owned1 = False
        var owned2 = False
        var plan1 = _tables[T](n1, n1, sign, False, owned1)
        var plan2 = _tables[T](n // n1, n // n1, sign, False, owned2)
        for item in range(batch):
            var at = item * rows_in * cols_in
            four_step[T](dst + at, src + at, n, n1, plan1, plan2, plan, sign, scale)
        if owned1:
            plan1.free()
        if owned2:
            plan2.free()
        if owned:
            plan.free()
        return
    var n1r = four_step_split(ln, V, size_of[T]()) if mode != C2C and K == 1 and ln != n else 0
    if n1r != 0:  # long real rows: the half-length complex transform as a four-step
        _real_four_step[T](dst, src, batch, rows_in * cols_in, rows_out * cols_out, mode, ln, n1r, plan, cn, sn,
                           sign, scale)
        if owned:
            plan.free()
        return
    # a block: `group` items of the batch side by side (K == 1), or a chunk of one item's K
    # sequences, as many as keep the block's planes within a core's cache (every pass then works
    # in cache; a chunk is at least a SIMD vector wide)
    var item_in = rows_in * cols_in
    var item_out = rows_out * cols_out
    var group = min(V, batch) if K == 1 else 1
    var chunk = min(K, max(V, CACHED_ELEMENTS // work_length(ln) // V * V))
    var per_item = (K + chunk - 1) // chunk
    var lanes = group if K == 1 else chunk
    var blocks = (batch + group - 1) // group if K == 1 else batch * per_item
    var ls_in = item_in if K == 1 else (2 if mode != R2C else 1)
    var ls_out = item_out if K == 1 else (2 if mode != C2R else 1)
    var wsize = (2 * ln + workspace_size(ln)) * lanes
    var tasks = min(blocks, 64)
    var inner = 1
    if blocks == 1 and work_length(ln) * lanes >= PARALLEL_ROW:
        inner = 4

    def task(t: Int) {dst, src, plan, cn, sn, batch, blocks, tasks, mode, n, ln, group, lanes, item_in, item_out,
                      ls_in, ls_out, cols_in, cols_out, wsize, sign, scale, inner, K, chunk, per_item}:  # by reference: see _parallel_pass
        var ws = alloc[Scalar[T]](wsize)
        var xr = ws
        var xi = ws + ln * lanes
        for blk in range(blocks * t // tasks, blocks * (t + 1) // tasks):
            var L: Int
            var at_in: Int
            var at_out: Int
            if K == 1:
                var first = blk * group
                L = min(group, batch - first)
                at_in = first * item_in
                at_out = first * item_out
            else:
                var item = blk // per_item
                var l0 = (blk % per_item) * chunk
                L = min(chunk, K - l0)
                at_in = item * item_in + l0 * ls_in
                at_out = item * item_out + l0 * ls_out
            _load[T](src + at_in, ls_in, cols_in, L, xr, xi, mode, n, ln, cn, sn, sign)
            var scratch = ws + 2 * ln * lanes
            if transform[T](xr, xi, scratch, ln, L, plan, sign, inner):  # the result is in the scratch planes
                _store[T](dst + at_out, ls_out, cols_out, L, scratch, scratch + ln * L, mode, n, ln, cn, sn, sign,
                          scale)
            else:
                _store[T](dst + at_out, ls_out, cols_out, L, xr, xi, mode, n, ln, cn, sn, sign, scale)
        ws.free()

    if tasks <= 1:
        task(0)
    else:
        parallelize(task, tasks)
    if owned:
        plan.free()


def _scale_for[T: DType](n: Int, scaling: Int) -> Scalar[T]:
    if scaling == 1:
        return Scalar[T](1.0 / sqrt(Float64(n)))
    if scaling == 2:
        return Scalar[T](1.0 / Float64(n))
    return Scalar[T](1)


def _run_2d[T: DType](dst: UnsafePointer[mut=True, Scalar[T], _], src: UnsafePointer[Scalar[T], _], batch: Int,
                      n1: Int, cols: Int, sign: Scalar[T], scaling: Int):
    """The 2-D c2c transform of each (n1, cols / 2) complex matrix of a (batch, n1, cols) stack."""
    comptime V = simd_width_of[T]()
    var n2 = cols // 2
    if n1 == 0 or n2 == 0:
        return
    if not can_transform_2d(n1, n2, V):  # the rows, then the columns (each pass scaled for its own
        # length, so the product is the matrix's)
        var rows = alloc[Scalar[T]](batch * n1 * cols)
        _run[T](rows, src, batch * n1, n2, 2, n2, 2, sign, scaling)
        _run[T](dst, rows, batch, n1, cols, n1, cols, sign, scaling)
        rows.free()
        return
    var owned1 = False
    var owned2 = False
    var plan1 = _tables[T](n1, n1, sign, False, owned1)
    var plan2 = _tables[T](n2, n2, sign, False, owned2)
    for item in range(batch):
        var at = item * n1 * cols
        transform_2d[T](dst + at, src + at, n1, n2, plan1, plan2, sign, _scale_for[T](n1 * n2, scaling))
    if owned1:
        plan1.free()
    if owned2:
        plan2.free()


def fft_stack[T: DType](dst: UnsafePointer[mut=True, Scalar[T], _], src: UnsafePointer[Scalar[T], _], batch: Int,
                        rows_in: Int, cols_in: Int, rows_out: Int, cols_out: Int, sign: Int, scaling: Int, dims: Int):
    """x (batch, rows_in, cols_in) transformed along axis 1 (``dims`` 2: axes 1 and 2, c2c) into
    (batch, rows_out, cols_out) on the CPU; the kind follows from the column counts."""
    if dims == 2:
        _run_2d[T](dst, src, batch, rows_in, cols_in, Scalar[T](sign), scaling)
    else:
        _run[T](dst, src, batch, rows_in, cols_in, rows_out, cols_out, Scalar[T](sign), scaling)


@register("nabla_fft")
struct FFT:
    """x (b, rows_in, cols_in) transformed along axis 1 into out (b, rows_out, cols_out); ``rows`` and
    ``cols`` only carry the output's sizes."""

    @staticmethod
    def execute[target: StaticString](
        output: OutputTensor[rank=3, ...],
        x: InputTensor[dtype=output.dtype, rank=3, ...],
        spec: InputTensor[dtype=DType.float64, rank=1, ...],
        rows: InputTensor[dtype=DType.uint8, rank=1, ...],
        cols: InputTensor[dtype=DType.uint8, rank=1, ...],
        ctx: DeviceContext,
    ) raises:
        comptime T = output.dtype
        comptime assert T.is_floating_point(), "the FFT kernel runs on float data"
        var batch = x.dim_size(0)
        if batch == 0:
            return
        comptime if target != "cpu":  # one axis per call there (callers split a 2-D transform)
            run_gpu[T](ctx, output.unsafe_ptr(), x.unsafe_ptr(), spec.unsafe_ptr(), batch, x.dim_size(1),
                       x.dim_size(2), output.dim_size(1), output.dim_size(2))
            return
        var sp = spec.unsafe_ptr()
        fft_stack[T](output.unsafe_ptr(), x.unsafe_ptr(), batch, x.dim_size(1), x.dim_size(2), output.dim_size(1),
                     output.dim_size(2), Int(sp.unsafe_load(0)), Int(sp.unsafe_load(1)),
                     Int(sp.unsafe_load(2)) if spec.dim_size(0) > 2 else 1)
