# Nabla's sort kernel: a stable sort of every row of a (b, n, k) stack along axis 1 (k independent
# rows interleaved, so an inner axis sorts in place with no transpose), giving the sorted values
# and the permutation (int64) at once.
#
# Each value becomes an unsigned 64-bit key whose integer order is the array order: floats by
# their bits (sign-magnitude flipped to two's order, -0.0 folded onto +0.0 so the two compare
# equal, every NaN onto the largest key: NaN sorts last), signed integers with the sign bit
# flipped; descending order is the complement of the key, which keeps equal keys equal, so the
# sort stays stable both ways. Rows are sorted by least-significant-digit radix sort (Knuth,
# TAOCP vol. 3, 5.2.5) on bytes, stable by construction; one pass over the keys counts all eight
# digit histograms, and a digit every key shares (the zero low bytes of a widened float32, the
# high bytes of small integers) costs no pass. Short rows use insertion sort.
from std.memory import bitcast
from max.algorithm import parallelize
from max.gpu.host import DeviceContext
from extensibility import InputTensor, OutputTensor, register

comptime INSERTION_MAX = 32
comptime SIGN = UInt64(0x8000000000000000)
comptime Keys = UnsafePointer[UInt64, MutUntrackedOrigin]
comptime Perm = UnsafePointer[Int64, MutUntrackedOrigin]


@always_inline
def order_key[T: DType](v: Scalar[T], descending: Bool) -> UInt64:
    var key: UInt64
    comptime if T.is_floating_point():
        var bits = bitcast[DType.uint64, 1](v.cast[DType.float64]())
        if (bits & 0x7FFFFFFFFFFFFFFF) > 0x7FF0000000000000:
            key = UInt64(0xFFFFFFFFFFFFFFFF)  # NaN, whatever its sign and payload
        elif bits == SIGN:
            key = SIGN  # -0.0 == +0.0
        elif (bits & SIGN) != 0:
            key = ~bits
        else:
            key = bits | SIGN
    elif T.is_unsigned():
        key = v.cast[DType.uint64]()
    else:
        key = bitcast[DType.uint64, 1](v.cast[DType.int64]()) ^ SIGN
    return ~key if descending else key


def _sort_row(keys: Keys, idx: Perm, keys2: Keys, idx2: Perm, counts: UnsafePointer[Int, MutUntrackedOrigin],
              n: Int) -> Bool:
    """Sorts (keys, idx) by key, stably; True when the result is in (keys2, idx2)."""
    if n <= INSERTION_MAX:
        for i in range(1, n):
            var kk = keys[i]
            var ii = idx[i]
            var j = i
            while j > 0 and keys[j - 1] > kk:
                keys[j] = keys[j - 1]
                idx[j] = idx[j - 1]
                j -= 1
            keys[j] = kk
            idx[j] = ii
        return False
    for d in range(8 * 256):
        counts[d] = 0
    for i in range(n):
        var kk = keys[i]
        for d in range(8):
            counts[d * 256 + Int((kk >> UInt64(8 * d)) & 255)] += 1
    var src_k = keys
    var src_i = idx
    var dst_k = keys2
    var dst_i = idx2
    var swapped = False
    for d in range(8):
        var c = counts + d * 256
        var trivial = False
        for b in range(256):
            if c[b] == n:
                trivial = True
        if trivial:
            continue
        var total = 0
        for b in range(256):
            var here = c[b]
            c[b] = total
            total += here
        var shift = UInt64(8 * d)
        for i in range(n):
            var kk = src_k[i]
            var b = Int((kk >> shift) & 255)
            var at = c[b]
            c[b] = at + 1
            dst_k[at] = kk
            dst_i[at] = src_i[i]
        var tk = src_k
        src_k = dst_k
        dst_k = tk
        var ti = src_i
        src_i = dst_i
        dst_i = ti
        swapped = not swapped
    return swapped


def sort_rows[T: DType](values: UnsafePointer[mut=True, Scalar[T], _], order: UnsafePointer[mut=True, Int64, _],
                   x: UnsafePointer[Scalar[T], _], batch: Int, n: Int, k: Int, descending: Bool):
    var rows = batch * k
    var tasks = min(rows, max(1, rows * n // 16384), 64)

    def task(t: Int) {values, order, x, batch, n, k, descending, rows, tasks}:
        var keys = alloc[UInt64](2 * n)
        var idx = alloc[Int64](2 * n)
        var counts = alloc[Int](8 * 256)
        for r in range(rows * t // tasks, rows * (t + 1) // tasks):
            var base = (r // k) * n * k + r % k
            for j in range(n):
                keys[j] = order_key[T](x[base + j * k], descending)
                idx[j] = Int64(j)
            var sorted_idx = idx
            if _sort_row(keys, idx, keys + n, idx + n, counts, n):
                sorted_idx = idx + n
            for j in range(n):
                var at = sorted_idx[j]
                order[base + j * k] = at
                values[base + j * k] = x[base + Int(at) * k]
        keys.free()
        idx.free()
        counts.free()

    if tasks == 1:
        task(0)
    elif tasks > 1:
        parallelize(task, tasks)


@register("nabla_sort")
struct Sort:
    """The stack x (b, n, k) sorted along axis 1 into values (b, n, k) and the permutation order
    (b, n, k); ``spec`` = [descending]."""

    @staticmethod
    def execute[target: StaticString](
        values: OutputTensor[rank=3, ...],
        order: OutputTensor[dtype=DType.int64, rank=3, ...],
        x: InputTensor[dtype=values.dtype, rank=3, ...],
        spec: InputTensor[dtype=DType.int64, rank=1, ...],
        ctx: DeviceContext,
    ) raises:
        comptime assert target == "cpu", "Nabla's sort kernel runs on the CPU (callers move the data there)"
        var batch = x.dim_size(0)
        var n = x.dim_size(1)
        var k = x.dim_size(2)
        if batch == 0 or n == 0 or k == 0:
            return
        var descending = spec.unsafe_ptr().unsafe_load(0) != 0
        sort_rows[values.dtype](values.unsafe_ptr(), order.unsafe_ptr(), x.unsafe_ptr(), batch, n, k, descending)
