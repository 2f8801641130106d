# Nabla's FFT kernel: complex-to-complex, real-to-complex and complex-to-real transforms of the
# rows of a (b, cols) stack, complex values interleaved. The mode is told by the widths: equal in
# and out is c2c (n = cols / 2), a wider output r2c (n = in cols), a narrower one c2r (n = out
# cols, the input holding n // 2 + 1 values). `spec` = [sign of the exponent, scaling: 0 none,
# 1 by 1 / sqrt(n), 2 by 1 / n].
#
# Real transforms of even n use the half-length trick (a length-n/2 complex transform of the
# even/odd samples packed as re/im, then one pass that splits them with the n-th roots of unity:
# Cooley, Lewis & Welch 1970); odd n runs a complex transform of n with zero imaginary parts.
from std.math import sqrt
from max.algorithm import parallelize
from max.gpu.host import DeviceContext
from extensibility import InputTensor, OutputTensor, register
from .transform import PARALLEL_ROW, build_plan, fill_roots, plan_size, transform, workspace_size

comptime C2C = 0
comptime R2C = 1
comptime C2R = 2


def _load[T: DType](src: UnsafePointer[Scalar[T], _], xr: UnsafePointer[mut=True, Scalar[T], _],
                    xi: UnsafePointer[mut=True, Scalar[T], _], mode: Int, n: Int, ln: Int,
                    cn: UnsafePointer[Scalar[T], _], sn: UnsafePointer[Scalar[T], _], sign: Scalar[T]):
    """One input row into the (xr, xi) planes of the length-ln complex transform."""
    if mode == C2C or (mode == R2C and ln != n):  # interleaved pairs: complex values, or packed even/odd samples
        for k in range(ln):
            xr[k] = src[2 * k]
            xi[k] = src[2 * k + 1]
    elif mode == R2C:
        for k in range(n):
            xr[k] = src[k]
            xi[k] = 0
    elif ln == n:  # c2r, odd n: the whole Hermitian row
        var h = n // 2
        xr[0] = src[0]
        xi[0] = 0
        for k in range(1, h + 1):
            xr[k] = src[2 * k]
            xi[k] = src[2 * k + 1]
            xr[n - k] = src[2 * k]
            xi[n - k] = -src[2 * k + 1]
    else:  # c2r, even n: E + i O, E = X_k + conj(X_h-k), O = (X_k - conj(X_h-k)) w^k
        var h = ln
        for k in range(h):
            var ar = src[2 * k]
            var ai = src[2 * k + 1] if k != 0 else Scalar[T](0)
            var br = src[2 * (h - k)]
            var bi = -src[2 * (h - k) + 1] if k != 0 else Scalar[T](0)  # conj; X_h's imaginary part is dropped
            var er = ar + br
            var ei = ai + bi
            var dr = ar - br
            var di = ai - bi
            var wr = cn[k]
            var wi = sign * sn[k]
            var o_r = dr * wr - di * wi
            var o_i = dr * wi + di * wr
            xr[k] = er - o_i
            xi[k] = ei + o_r


def _store[T: DType](dst: UnsafePointer[mut=True, Scalar[T], _], xr: UnsafePointer[Scalar[T], _],
                     xi: UnsafePointer[Scalar[T], _], mode: Int, n: Int, ln: Int,
                     cn: UnsafePointer[Scalar[T], _], sn: UnsafePointer[Scalar[T], _], sign: Scalar[T],
                     scale: Scalar[T]):
    if mode == C2C or (mode == C2R and ln != n):  # complex values, or even/odd real samples packed
        for k in range(ln):
            dst[2 * k] = xr[k] * scale
            dst[2 * k + 1] = xi[k] * scale
    elif mode == C2R:
        for k in range(n):
            dst[k] = xr[k] * scale
    elif ln == n:  # r2c, odd n: the first half of the spectrum
        for k in range(n // 2 + 1):
            dst[2 * k] = xr[k] * scale
            dst[2 * k + 1] = xi[k] * scale
    else:  # r2c, even n: X_k = E_k + w^k O_k from Z = E + i O
        var h = ln
        var half = Scalar[T](0.5) * scale
        for k in range(h + 1):
            var zr = xr[k % h]
            var zi = xi[k % h]
            var cr = xr[(h - k) % h]
            var ci = -xi[(h - k) % h]
            var er = zr + cr
            var ei = zi + ci
            var o_r = zi - ci  # (Z - conj Z') / i
            var o_i = cr - zr
            var wr = cn[k]
            var wi = sign * sn[k]
            dst[2 * k] = (er + o_r * wr - o_i * wi) * half
            dst[2 * k + 1] = (ei + o_r * wi + o_i * wr) * half


def _run[T: DType](dst: UnsafePointer[mut=True, Scalar[T], _], src: UnsafePointer[Scalar[T], _], batch: Int,
                   ci: Int, co: Int, sign: Scalar[T], scale: Scalar[T]):
    var mode = C2C if ci == co else (R2C if co > ci else C2R)
    var n = ci // 2 if mode == C2C else (ci if mode == R2C else co)
    var ln = n // 2 if mode != C2C and n % 2 == 0 else n
    if n == 0:
        return
    var psize = plan_size(ln)
    var plan = alloc[Scalar[T]](psize + 2 * (n // 2 + 1))
    build_plan[T](plan, ln, sign)
    var cn = plan + psize
    var sn = cn + (n // 2 + 1)
    if mode != C2C and ln != n:
        fill_roots[T](cn, sn, n, n // 2 + 1)
    var row_in = ci
    var row_out = co
    var wsize = 2 * ln + workspace_size(ln)
    var split_rows = batch >= 4 or ln < PARALLEL_ROW
    var inner = 1 if split_rows else 4
    var tasks = min(batch, 64) if split_rows else 1

    def task(t: Int) {dst, src, plan, cn, sn, batch, tasks, mode, n, ln, row_in, row_out, wsize, sign, scale,
                      inner}:  # by reference: see transform.mojo's _parallel_pass
        var ws = alloc[Scalar[T]](wsize)
        var xr = ws
        var xi = ws + ln
        for b in range(batch * t // tasks, batch * (t + 1) // tasks):
            _load[T](src + b * row_in, xr, xi, mode, n, ln, cn, sn, sign)
            transform[T](xr, xi, ws + 2 * ln, ln, plan, sign, inner)
            _store[T](dst + b * row_out, xr, xi, mode, n, ln, cn, sn, sign, scale)
        ws.free()

    if tasks <= 1:
        task(0)
    else:
        parallelize(task, tasks)
    plan.free()


@register("nabla_fft")
struct FFT:
    """The rows of x (b, cols_in) transformed into out (b, cols_out); ``like`` (0, cols_out) only
    carries the output width."""

    @staticmethod
    def execute[target: StaticString](
        output: OutputTensor[rank=2, ...],
        x: InputTensor[dtype=output.dtype, rank=2, ...],
        spec: InputTensor[dtype=DType.float64, rank=1, ...],
        like: InputTensor[dtype=DType.uint8, rank=1, ...],
        ctx: DeviceContext,
    ) raises:
        comptime T = output.dtype
        comptime assert T.is_floating_point(), "the FFT kernel runs on float data"
        comptime assert target == "cpu", "Nabla's FFT kernel runs on the CPU (callers move the data there)"
        var batch = x.dim_size(0)
        if batch == 0:
            return
        var sp = spec.unsafe_ptr()
        var ci = x.dim_size(1)
        var co = output.dim_size(1)
        var n = ci // 2 if ci == co else min(ci, co)  # c2c, or the real side of r2c / c2r
        var scaling = Int(sp.unsafe_load(1))
        var scale = 1.0
        if scaling == 1 and n > 0:
            scale = 1.0 / sqrt(Float64(n))
        elif scaling == 2 and n > 0:
            scale = 1.0 / Float64(n)
        _run[T](output.unsafe_ptr(), x.unsafe_ptr(), batch, ci, co, Scalar[T](sp.unsafe_load(0)), Scalar[T](scale))
