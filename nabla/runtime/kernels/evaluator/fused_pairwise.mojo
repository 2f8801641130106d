# NumPy's order of a float sum (its loops' ``pairwise_sum``): a run of n values is split in two at
# n / 2 rounded down to a multiple of 8 until a part has at most 128 values; such a leaf is summed
# by eight running sums over its lanes i % 8, joined ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 +
# r7)), then its last n % 8 values in turn (fewer than 8 values: one after another); the parts are
# added as they were split. Every addition is rounded to the data's dtype (float32 sums in
# float32), so a row's sum is NumPy's to the bit. The split depends on n alone: a long row is
# summed leaf by leaf, a block of registers holding several leaves, and joined afterwards.

from std.sys.info import num_logical_cores
from max.algorithm import parallelize
from .denormals import KeepDenormals

comptime LEAF = 128  # (NumPy's PW_BLOCKSIZE)


@always_inline
def leaf_sum[T: DType](v: UnsafePointer[Scalar[T], MutUntrackedOrigin], n: Int) -> Scalar[T]:
    """A leaf of at most ``LEAF`` values, summed as NumPy sums it."""
    if n < 8:
        var s = Scalar[T](0)
        comptime if T.is_floating_point():
            s = -s  # (-0.0: a run of -0.0 sums to -0.0 until the identity is added)
        for i in range(n):
            s += v.unsafe_load(i)
        return s
    var lanes = v.unsafe_load[width=8](0)
    var whole = n - n % 8
    for i in range(8, whole, 8):
        lanes += v.unsafe_load[width=8](i)
    var s = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))
    for i in range(whole, n):
        s += v.unsafe_load(i)
    return s


@always_inline
def split(n: Int) -> Int:
    """Where NumPy splits a run of n values: n / 2 rounded down to a multiple of 8."""
    var half = n // 2
    return half - half % 8


def pairwise_sum[T: DType](v: UnsafePointer[Scalar[T], MutUntrackedOrigin], n: Int) -> Scalar[T]:
    """NumPy's sum of ``n`` values in memory, from its identity 0 (``0 + -0.0`` is 0, as NumPy's)."""
    return Scalar[T](0) + _pairwise[T](v, n)


def _pairwise[T: DType](v: UnsafePointer[Scalar[T], MutUntrackedOrigin], n: Int) -> Scalar[T]:
    if n <= LEAF:
        return leaf_sum[T](v, n)
    var half = split(n)
    return _pairwise[T](v, half) + _pairwise[T](v + half, n - half)


def leaf_count(n: Int) -> Int:
    """How many leaves NumPy's split of ``n`` values has."""
    if n <= LEAF:
        return 1
    var half = split(n)
    return leaf_count(half) + leaf_count(n - half)


def fill_leaves(start: Int, n: Int, at: Int, starts: UnsafePointer[Int, MutUntrackedOrigin]) -> Int:
    """The leaves' first positions, in order, from ``at`` (``starts`` holds one more: the end)."""
    if n <= LEAF:
        starts.unsafe_store(at, start)
        starts.unsafe_store(at + 1, start + n)
        return at + 1
    var half = split(n)
    return fill_leaves(start + half, n - half, fill_leaves(start, half, at, starts), starts)


def join_leaves[T: DType](n: Int, sums: UnsafePointer[Scalar[T], MutUntrackedOrigin]) -> Scalar[T]:
    """A row's sum from its leaves' sums, added as NumPy's split adds them, from its identity 0."""
    var at = alloc[Int](1)
    at.unsafe_store(0, 0)
    var total = Scalar[T](0) + _join[T](n, sums, at)
    at.free()
    return total


def _join[T: DType](n: Int, sums: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                    at: UnsafePointer[Int, MutUntrackedOrigin]) -> Scalar[T]:
    if n <= LEAF:
        var i = at.unsafe_load(0)
        at.unsafe_store(0, i + 1)
        return sums.unsafe_load(i)
    var half = split(n)
    var left = _join[T](half, sums, at)
    return left + _join[T](n - half, sums, at)


def pairwise_rows[T: DType, A: DType](v: UnsafePointer[Scalar[T], MutUntrackedOrigin], m: Int, r: Int,
                                      result: UnsafePointer[Scalar[A], MutUntrackedOrigin], parallel: Bool) raises:
    """``pairwise_sum`` of each of ``m`` rows of ``r`` values in memory, straight from them (a
    program that only loads its data: ``x.sum()``, where a block's pass and each leaf's bounds and
    partial cost as much again as the sums: 2.5M float64 1.0 -> 0.42 ms). ``parallel``: rows over
    cores, or one row's two halves of its split apart, each half's sum its own (the same bits)."""
    var cores = num_logical_cores()
    if not parallel or (m == 1 and (r <= LEAF or cores < 2)):
        for row in range(m):
            result.unsafe_store(row, pairwise_sum[T](v + row * r, r).cast[A]())
        return
    if m == 1:
        # (the split's first levels, each part a task: at most 2 ** depth parts, combined as the split adds them)
        var depth = 1
        while (1 << depth) < cores and depth < 3:
            depth += 1
        var starts = alloc[Int]((1 << depth) + 1)
        var parts = _parts(0, r, depth, 0, starts)
        starts.unsafe_store(parts, r)
        var sums = alloc[Scalar[T]](parts)

        def part(t: Int) {v, starts, sums}:
            with KeepDenormals():
                var at = starts.unsafe_load(t)
                sums.unsafe_store(t, _pairwise[T](v + at, starts.unsafe_load(t + 1) - at))

        parallelize(part, parts)
        var counted = alloc[Int](1)
        counted.unsafe_store(0, 0)
        result.unsafe_store(0, (Scalar[T](0) + _joined_parts[T](r, depth, sums, counted)).cast[A]())
        counted.free()
        starts.free()
        sums.free()
        return
    var tasks = min(m, 4 * cores)
    var per = (m + tasks - 1) // tasks

    def rows(t: Int) {v, r, m, result, per}:
        with KeepDenormals():
            for row in range(t * per, min(m, (t + 1) * per)):
                result.unsafe_store(row, pairwise_sum[T](v + row * r, r).cast[A]())

    parallelize(rows, (m + per - 1) // per)


def _parts(start: Int, n: Int, depth: Int, at: Int, starts: UnsafePointer[Int, MutUntrackedOrigin]) -> Int:
    """The first positions of the parts of a run of ``n`` values ``depth`` levels down NumPy's split
    (a part of at most ``LEAF`` values is not split), in order from ``at``; how many there are then."""
    if depth == 0 or n <= LEAF:
        starts.unsafe_store(at, start)
        return at + 1
    var half = split(n)
    return _parts(start + half, n - half, depth - 1, _parts(start, half, depth - 1, at, starts), starts)


def _joined_parts[T: DType](n: Int, depth: Int, sums: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                            at: UnsafePointer[Int, MutUntrackedOrigin]) -> Scalar[T]:
    """The sum of a run of ``n`` values from its parts' sums (``_parts``), added as the split adds them."""
    if depth == 0 or n <= LEAF:
        var i = at.unsafe_load(0)
        at.unsafe_store(0, i + 1)
        return sums.unsafe_load(i)
    var half = split(n)
    var left = _joined_parts[T](half, depth - 1, sums, at)
    return left + _joined_parts[T](n - half, depth - 1, sums, at)
