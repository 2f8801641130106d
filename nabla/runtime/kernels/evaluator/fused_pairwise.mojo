# NumPy's order of a float sum (its loops' ``pairwise_sum``): a run of n values is split in two at
# n / 2 rounded down to a multiple of 8 until a part has at most 128 values; such a leaf is summed
# by eight running sums over its lanes i % 8, joined ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 +
# r7)), then its last n % 8 values in turn (fewer than 8 values: one after another); the parts are
# added as they were split. Every addition is rounded to the data's dtype (float32 sums in
# float32), so a row's sum is NumPy's to the bit. The split depends on n alone: a long row is
# summed by walking the split (fused_reduce.mojo's ``_split_rows``), its first parts over cores
# (``split_parts``), each part's sum its own, joined as the split adds them (``joined_parts``).

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
    return Scalar[T](0) + pairwise_part[T](v, n)


def pairwise_part[T: DType](v: UnsafePointer[Scalar[T], MutUntrackedOrigin], n: Int) -> Scalar[T]:
    """The split's sum of a part of ``n`` values (no identity added: ``pairwise_sum``'s)."""
    if n <= LEAF:
        return leaf_sum[T](v, n)
    var half = split(n)
    return pairwise_part[T](v, half) + pairwise_part[T](v + half, n - half)


def split_parts(start: Int, n: Int, depth: Int, at: Int, starts: UnsafePointer[Int, MutUntrackedOrigin]) -> Int:
    """The first positions of the parts of a run of ``n`` values ``depth`` levels down NumPy's split
    (a part of at most ``LEAF`` values is not split), in order from ``at``; how many there are then."""
    if depth == 0 or n <= LEAF:
        starts.unsafe_store(at, start)
        return at + 1
    var half = split(n)
    return split_parts(start + half, n - half, depth - 1, split_parts(start, half, depth - 1, at, starts), starts)


def joined_parts[T: DType](n: Int, depth: Int, sums: UnsafePointer[Scalar[T], MutUntrackedOrigin],
                           at: UnsafePointer[Int, MutUntrackedOrigin]) -> Scalar[T]:
    """The sum of a run of ``n`` values from its parts' sums (``split_parts``), added as the split adds them."""
    if depth == 0 or n <= LEAF:
        var i = at.unsafe_load(0)
        at.unsafe_store(0, i + 1)
        return sums.unsafe_load(i)
    var half = split(n)
    var left = joined_parts[T](half, depth - 1, sums, at)
    return left + joined_parts[T](n - half, depth - 1, sums, at)
