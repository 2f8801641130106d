# The FFT kernel's GPU path (nabla/ops/kernels/fft/gpu.mojo) run on the CPU, one row at a time:
# its gather (_input), every Stockham pass (_any_stage), Bluestein's chirp and product, and its
# scatter (_output), in the order its block kernel runs them, minus the threads. Prints each case's
# parameters and output; tests/ops/test_fft_gpu_math.py rebuilds the input and checks against NumPy.
from std.math import sqrt
from fft.gpu import CHIRP, COUNT, L, M, N, PLAN, ROWS, Geo, _chirp, _input, _output, _scale, stack_geometry
from fft.gpu_passes import any_stage, pad, padded_size


def _passes[T: DType, PAD: Bool](a: UnsafePointer[Scalar[T], MutAnyOrigin],
                                 b: UnsafePointer[Scalar[T], MutAnyOrigin], m: Int, plan: Int, sign: Float64) -> Bool:
    """Every pass of ``plan`` from a; True when the result is in b."""
    var code = plan
    var ns = 1
    var in_b = False
    while code != 0:
        var radix = code & 15
        code >>= 4
        var src = b if in_b else a
        var dst = a if in_b else b
        for j in range(m // radix):
            any_stage[T, False, PAD](dst, src, radix, 0, j, m, ns, sign)
        in_b = not in_b
        ns *= radix
    return in_b


def emulate[T: DType, PAD: Bool, K1: Bool](seed: Int, batch: Int, rows_in: Int, cols_in: Int, rows_out: Int, cols_out: Int,
                      sign: Float64, scaling: Int):
    var size_in = batch * rows_in * cols_in
    var size_out = batch * rows_out * cols_out
    var x = alloc[Scalar[T]](size_in).unsafe_origin_cast[MutAnyOrigin]()
    for i in range(size_in):  # the test rebuilds these
        x[i] = Scalar[T](Float64((i * 7919 + seed * 104729) % 1000) / 500.0 - 1.0)
    var g = stack_geometry(batch, rows_in, cols_in, rows_out, cols_out)
    var spec = alloc[Float64](3).unsafe_origin_cast[MutAnyOrigin]()
    spec[0] = sign
    spec[1] = Float64(scaling)
    spec[2] = 1.0
    var n = Int(g[N])
    var m = Int(g[M])
    var plan = Int(g[PLAN])
    var chirp = g[CHIRP] != 0
    var spectrum = alloc[Scalar[T]](2 * m).unsafe_origin_cast[MutAnyOrigin]()
    var a = alloc[Scalar[T]](padded_size(2 * m)).unsafe_origin_cast[MutAnyOrigin]()
    var b = alloc[Scalar[T]](padded_size(2 * m)).unsafe_origin_cast[MutAnyOrigin]()
    var dst = alloc[Scalar[T]](size_out).unsafe_origin_cast[MutAnyOrigin]()
    if chirp:
        for i in range(m):
            var w = _chirp[T](i, m, Int(g[L]), sign)
            spectrum[2 * i] = w[0]
            spectrum[2 * i + 1] = w[1]
        if _passes[T, False](spectrum, b, m, plan, -1.0):
            for i in range(2 * m):
                spectrum[i] = b[i]
    var scale = _scale[T](spec, g, 1.0 / sqrt(Float64(n)), 1.0 / Float64(n))
    for t in range(Int(g[ROWS])):
        for j in range(m):
            var v = _input[T, K1](x, g, t, j, sign)
            a[pad[PAD](2 * j)] = v[0]
            a[pad[PAD](2 * j + 1)] = v[1]
        var in_b = _passes[T, PAD](a, b, m, plan, -1.0 if chirp else sign)
        if chirp:
            var z = b if in_b else a
            var inv_m = Scalar[T](1.0 / Float64(m))
            for j in range(m):
                var zr = z[pad[PAD](2 * j)]
                var zi = z[pad[PAD](2 * j + 1)]
                var wr = spectrum[2 * j] * inv_m
                var wi = spectrum[2 * j + 1] * inv_m
                z[pad[PAD](2 * j)] = zr * wr - zi * wi
                z[pad[PAD](2 * j + 1)] = zr * wi + zi * wr
            if in_b:
                in_b = not _passes[T, PAD](b, a, m, plan, 1.0)
            else:
                in_b = _passes[T, PAD](a, b, m, plan, 1.0)
        var z = b if in_b else a
        for k in range(Int(g[COUNT])):
            _output[T, K1, PAD](dst, z, 0, g, t, k, 0, 0, sign, scale)
    var line = String("case ", seed, " ", T, " ", batch, " ", rows_in, " ", cols_in, " ", rows_out, " ", cols_out,
                      " ", Int(sign), " ", scaling, "\n")
    for i in range(size_out):
        line += String(Float64(dst[i]), " ")
    print(line)
    for p in [x, spectrum, a, b, dst]:
        p.free()
    spec.free()


def one[T: DType](seed: Int, batch: Int, rows_in: Int, cols_in: Int, rows_out: Int, cols_out: Int, sign: Float64,
                  scaling: Int, k: Int):
    """Padded rows (the block kernel's) for even seeds, unpadded (the global passes') for odd."""
    if seed % 2 == 0:
        if k == 1:
            emulate[T, True, True](seed, batch, rows_in, cols_in, rows_out, cols_out, sign, scaling)
        else:
            emulate[T, True, False](seed, batch, rows_in, cols_in, rows_out, cols_out, sign, scaling)
    else:
        emulate[T, False, False](seed, batch, rows_in, cols_in, rows_out, cols_out, sign, scaling)


def cases[T: DType](mut seed: Int):
    """c2c, r2c and c2r over every radix, Bluestein lengths, odd and even real lengths, inner axes."""
    for n in [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 22, 26, 30, 34, 60, 64, 97, 100, 120, 128, 210, 254,
              360, 1001, 1009, 2018]:
        for k in [1, 3]:
            var sign = -1.0 if (n + k) % 2 == 0 else 1.0
            var scaling = (n + k) % 3
            one[T](seed, 2, n, 2 * k, n, 2 * k, sign, scaling, k)  # c2c
            seed += 1
            one[T](seed, 2, n, k, n // 2 + 1, 2 * k, -sign, scaling, k)  # r2c
            seed += 1
            one[T](seed, 2, n // 2 + 1, 2 * k, n, k, sign, 2 - scaling, k)  # c2r
            seed += 1


def main():
    var seed = 0
    cases[DType.float64](seed)
    cases[DType.float32](seed)
