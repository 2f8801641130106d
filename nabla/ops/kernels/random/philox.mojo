# Counter-based random numbers: Philox4x32-10 (Salmon, Moraes, Dror & Shaw, "Parallel random
# numbers: as easy as 1, 2, 3", SC 2011). Counter c of a draw is the 128-bit block
# (start + c, stream) under a 64-bit key, so every value depends only on (key, counter): never on
# how the work is split over cores or on the machine. Lanes of SIMD uint64 vectors hold 32-bit
# words, so each round's 32 x 32 -> 64-bit products are whole-vector multiplies.
#
# Values per counter: `bits` gives the four words (uint32 out); `uniform` gives four float32 in
# [0, 1) (24 bits of a word each) or two float64 (53 bits of a word pair each); `normal` gives two
# standard normals by Box & Muller (1958) from two float64 uniforms.
from std.math import cos, log1p, sin, sqrt
from std.memory import bitcast
from max.algorithm import parallelize
from max.gpu.host import DeviceContext
from extensibility import InputTensor, OutputTensor, register

comptime V = 8  # counters per vector
comptime U64 = SIMD[DType.uint64, V]
comptime MASK = UInt64(0xFFFFFFFF)
comptime UNIFORM = 1
comptime NORMAL = 2


@always_inline
def philox_block(counter: U64, stream: UInt64, key: UInt64, mut w0: U64, mut w1: U64, mut w2: U64, mut w3: U64):
    """The Philox4x32-10 block of (counter, stream) under key, one counter per lane."""
    var c0 = counter & MASK
    var c1 = counter >> 32
    var c2 = U64(stream & MASK)
    var c3 = U64(stream >> 32)
    var k0 = key & MASK
    var k1 = key >> 32
    comptime for _ in range(10):
        var p0 = c0 * 0xD2511F53
        var p1 = c2 * 0xCD9E8D57
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & MASK, (p0 >> 32) ^ c3 ^ k1, p0 & MASK
        k0 = (k0 + 0x9E3779B9) & MASK
        k1 = (k1 + 0xBB67AE85) & MASK
    w0, w1, w2, w3 = c0, c1, c2, c3


@always_inline
def _exact_f64[w: Int](v: SIMD[DType.uint64, w]) -> SIMD[DType.float64, w]:
    """``v`` < 2^52 as float64, exactly: its bits under 2^52's exponent, minus 2^52. AVX2 has no
    vector uint64 -> float64 conversion, and the compiler's emulation made float draws 5x slower
    than the words they come from."""
    return bitcast[DType.float64, w](v | 0x4330000000000000) - 4503599627370496.0


@always_inline
def _unit53(hi: U64, lo: U64) -> SIMD[DType.float64, V]:
    # (hi >> 11) * 2^32 + lo < 2^53: every step exact, the same value as converting the 53-bit word
    return (_exact_f64[V](hi >> 11) * 4294967296.0 + _exact_f64[V](lo)) * (1.0 / 9007199254740992.0)


@always_inline
def _store[T: DType, w: Int](dst: UnsafePointer[mut=True, Scalar[T], _], at: Int, n: Int, v: SIMD[T, w]):
    if at + w <= n:
        dst.store(at, v)
    else:
        for l in range(n - at):
            dst[at + l] = v[l]


def _draw[T: DType, normal: Bool](dst: UnsafePointer[mut=True, Scalar[T], _], n: Int, key: UInt64, start: UInt64,
                                  stream: UInt64):
    # the kind is a parameter: a runtime test inside the loop was if-converted, so every uniform
    # draw also paid for the normals' log, sqrt, cos and sin (10x slower)
    comptime per = 4 if (T == DType.uint32 or (T == DType.float32 and not normal)) else 2
    var counters = (n + per - 1) // per
    var vectors = (counters + V - 1) // V
    var tasks = min(vectors, max(1, vectors // 512), 64)
    var lanes = U64(0)
    for l in range(V):
        lanes[l] = UInt64(l)

    def task(t: Int) {dst, n, key, start, stream, vectors, tasks, lanes}:
        var w0 = U64(0)
        var w1 = U64(0)
        var w2 = U64(0)
        var w3 = U64(0)
        for blk in range(vectors * t // tasks, vectors * (t + 1) // tasks):
            philox_block(U64(start + UInt64(blk * V)) + lanes, stream, key, w0, w1, w2, w3)
            var at = blk * V * per
            comptime if T == DType.uint32:
                _store[T, 4 * V](dst, at, n, w0.interleave(w2).interleave(w1.interleave(w3)).cast[T]())
            elif T.is_floating_point():
                comptime if per == 4:  # float32 uniforms: 24 bits of each word
                    var words = w0.interleave(w2).interleave(w1.interleave(w3))
                    _store[T, 4 * V](dst, at, n, (_exact_f64[4 * V](words >> 8) * (1.0 / 16777216.0)).cast[T]())
                else:
                    var a = _unit53(w0, w1)
                    var b = _unit53(w2, w3)
                    comptime if normal:
                        var radius = sqrt(-2.0 * log1p(-a))  # log(1 - a): a < 1 never reaches log(0)
                        var angle = b * 6.283185307179586
                        a = radius * cos(angle)
                        b = radius * sin(angle)
                    _store[T, 2 * V](dst, at, n, a.interleave(b).cast[T]())

    if tasks <= 1:
        task(0)
    else:
        parallelize(task, tasks)


def draw[T: DType](dst: UnsafePointer[mut=True, Scalar[T], _], n: Int, s: UnsafePointer[UInt64, _]):
    """``n`` values of the draw that ``s`` = [key, start counter, stream, kind] names."""
    if Int(s.unsafe_load(3)) == NORMAL:
        _draw[T, True](dst, n, s.unsafe_load(0), s.unsafe_load(1), s.unsafe_load(2))
    else:
        _draw[T, False](dst, n, s.unsafe_load(0), s.unsafe_load(1), s.unsafe_load(2))


@register("nabla_random")
struct Random:
    """A draw of dst's length: ``state`` = [key, start counter, stream, kind (0 bits, 1 uniform, 2
    normal)]; ``dst`` is uint32 for bits, float32 or float64 otherwise; ``size`` only carries dst's
    length."""

    @staticmethod
    def execute[target: StaticString](
        dst: OutputTensor[rank=1, ...],
        state: InputTensor[dtype=DType.uint64, rank=1, ...],
        size: InputTensor[dtype=DType.uint8, rank=1, ...],
        ctx: DeviceContext,
    ) raises:
        comptime T = dst.dtype
        comptime assert T == DType.uint32 or T == DType.float32 or T == DType.float64, "bits, float32 or float64"
        comptime assert target == "cpu", "Nabla's random kernel runs on the CPU (callers move the data there)"
        var n = dst.dim_size(0)
        if n == 0:
            return
        draw[T](dst.unsafe_ptr(), n, state.unsafe_ptr())
