"""Ops of small results over realized host data computed as they are made
(``HostScalars.small``): loops over small arrays as NumPy users write them, against NumPy; ops at
once over views and slices read them when made; the kinds of op whose plans do not pay back are
recorded, steadily; transforms and policies still record."""

import numpy
import pytest

import nabla as nb
import nabla.numpy as np
from nabla.core.graph import GRAPH
from nabla.ops.creation import FILL_AT_ONCE

from .at_once_checks import counted

pytestmark = pytest.mark.usefixtures("fused_on", "fresh_kinds")


RNG = numpy.random.default_rng(11)


def lu(m, A):
    for i in range(A.shape[0]):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, A.shape[0]):
            A[i, j] -= A[i, :i] @ A[:i, j]


def cholesky(m, A):
    A[0, 0] = m.sqrt(A[0, 0])
    for i in range(1, A.shape[0]):
        for j in range(i):
            A[i, j] -= m.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= m.dot(A[i, :i], A[i, :i])
        A[i, i] = m.sqrt(A[i, i])


def spd(n):
    a = RNG.standard_normal((n, n))
    return a @ a.T + n * numpy.eye(n)


@pytest.mark.parametrize("kernel", [lu, cholesky])
def test_a_loop_over_a_small_matrix_runs_at_once_with_numpys_values(kernel):
    small, reads = counted(kernel, spd(12))
    assert small > 70 and reads == 0  # (every op at once, a dot one op: nothing recorded to read)


def test_ops_of_every_kind_at_once_are_numpys():
    def ops(m, x, y, k):
        r = [x[1:5] * y[2:6], x[::2] - y[1::2], m.maximum(x[:4], y[4:8]), x[2:9].sum(), y[:7].max(),
             x[3:6] > y[3:6], m.tanh(x[1:4]), x[::-1][:3] @ y[1:4], k[1:5] & k[2:6], k[:6] // (k[1:7] | 1),
             x.reshape(2, 5)[:, 1:4].sum(axis=0), m.flip(y[:4])]
        return tuple(r)

    small, _ = counted(ops, RNG.standard_normal(10), RNG.standard_normal(10), RNG.integers(-50, 50, 10))
    assert small >= 12


def test_ops_at_once_over_views_read_them_when_made():
    def views(m, A):
        row = A[2, :4]  # (a view: a recorded slice of A, read by the ops at once that take it)
        before = row * A[3, :4]  # at once, over two slices of A
        A[2, 1] = 100.0  # a write into A: the view sees it, the product made before does not
        after = row * A[3, :4]
        row[3] = -7.0  # a write through the view reaches A
        both = row + A[:4, 3]
        return before, after, both, row.copy()

    small, _ = counted(views, RNG.standard_normal((5, 6)))
    assert small > 0


def test_ops_at_once_over_slices_of_an_array_written_in_place_read_its_writes():
    def loop(m, A, x):
        for i in range(1, 5):
            A[i, 0] = 2.0 * i  # into A's memory at once (nothing else holds A)
            x[i] = A[i, :3] @ A[i - 1, 1:4] + x[i - 1]  # at once: its slices read the memory as written

    small, reads = counted(loop, RNG.standard_normal((5, 6)), RNG.standard_normal(5))
    assert small >= 4 and reads == 0


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_vector_dot_at_once_is_one_program_with_numpys_value(dtype):
    """``x @ y`` of two vectors of host data (rows, columns, reversed and strided slices, one slice
    twice, nothing) is the product and its sum in one program, one op at once."""
    pairs = [lambda A: (A[2, :5], A[:5, 3]), lambda A: (A[1, 5:1:-1], A[3:7, 0]),
             lambda A: (A[::2, 1], A[0, 0:7:2]), lambda A: (A[4, :6],) * 2, lambda A: (A[3, :0], A[:0, 3])]
    for pair in pairs:
        a = RNG.standard_normal((8, 7)).astype(dtype)
        A = np.array(a)
        A.realize()
        x, y = pair(A)
        before = nb.engine_stats()["small_ops"]
        got = x @ y
        assert nb.engine_stats()["small_ops"] - before == 1
        want = numpy.matmul(*pair(a))
        assert got.dtype == want.dtype and got.shape == ()
        numpy.testing.assert_allclose(numpy.asarray(got), want, rtol=1e-6 if dtype == "float32" else 1e-14)


def trisolv(m, L, x, b):
    for i in range(x.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]


def growing(m, A, x, y):
    for k in range(1, A.shape[0]):
        s = A[k, :k] @ x[:k]  # a dot of a row and a vector slice
        u = A[:k, k] * y[k:0:-1]  # a column and a reversed slice
        v = m.maximum(u, x[:k]) - 0.5  # a result at once, a slice, a constant
        x[k] = s + v.sum() * 1e-3
    return u, v


def test_ops_over_slices_of_every_length_are_one_program_each():
    """A loop whose slices grow by one each step (trisolv's ``L[i, :i] @ x[:i]``) plans each op for
    a few lengths, then one program of it serves every length, its length data: every step runs at
    once, with NumPy's values at every length."""
    n = 60
    L = numpy.tril(RNG.random((n, n))) + n * numpy.eye(n)
    small, reads = counted(trisolv, L, numpy.zeros(n), RNG.random(n))
    assert small == n and reads == 0
    scalars = GRAPH.engine.scalars
    planned = {id(p) for p in scalars._small.values()}
    small, reads = counted(growing, RNG.standard_normal((n, n)), RNG.standard_normal(n), RNG.standard_normal(n))
    assert small >= 4 * (n - 1) and reads == 0
    made = {id(p) for p in scalars._small.values()} - planned
    assert len(made) < 30  # (a few lengths per op, where a plan per length made 240)


def test_a_kind_of_op_of_ever_new_shapes_is_recorded_and_steadily_so():
    """trisolv with a row of L as a matrix: its product's shapes grow by one each step, each taken
    once, and are no vectors: past a few plans the kind is recorded, and a second call finds the
    same trace (a read of a structure seen before)."""
    def rows(m, L, x, b):
        for i in range(x.shape[0]):
            x[i] = (b[i] - (L[i:i + 1, :i] @ x[:i]).sum()) / L[i, i]

    n = 60
    L = numpy.tril(RNG.random((n, n))) + n * numpy.eye(n)
    args = (L, numpy.zeros(n), RNG.random(n))
    first, _ = counted(rows, *args)
    second, reads = counted(rows, *args)
    # (the same steps at once: the same traces; x realized for the loop where ops were refused for its
    # slices, until the product, recorded anyway, is known not to run at once)
    assert first < 3 * n and second == first and reads <= 4


def test_transforms_policies_and_the_switch_record():
    x = np.array(RNG.standard_normal(8))
    g = nb.grad(lambda t: (t[1:5] * t[2:6]).sum())(nb.asarray(x.numpy()))  # (its seed's copy may run at once)
    want = numpy.zeros(8)
    want[1:5] += x.numpy()[2:6]
    want[2:6] += x.numpy()[1:5]
    numpy.testing.assert_allclose(g.numpy(), want, rtol=1e-15)
    before = nb.engine_stats()["small_ops"]
    nb.compile(lambda t: t[1:5] * t[2:6])(nb.asarray(x.numpy())).numpy()
    nb.vmap(lambda r: r[1:3] * r[:2])(nb.asarray(numpy.ones((3, 4)))).numpy()
    engine = GRAPH.engine
    engine.small_at_once = False
    try:
        assert (x[1:5] * x[2:6])._impl._values[0].node is not None  # (recorded: a node to read)
    finally:
        engine.small_at_once = True
    assert nb.engine_stats()["small_ops"] == before
    assert (x[1:5] * x[2:6])._impl._values[0].node is None  # (on: computed as it is made)


def test_constants_gathers_and_fills_at_once_are_numpys():
    """A scalar constant's value is data of the op's program (one program for every value, each
    rounded to the array's dtype as NumPy's weak scalar is); a gather reads only its rows (its
    source any size); a fill of a loop's vectors and grids is made at once, a larger one recorded."""
    def ops(m, x, f, k, big, cols):
        r = [x[1:5] * c for c in (2.0, -0.0, 3.5, 1e300)] + [f[1:4] + 0.1, f[:3] * 3, k[2:5] * 7, k[1:6] // 3,
                                                              big[cols], m.zeros(7), m.ones((2, 3), m.int32)]
        return tuple(r)

    args = (RNG.standard_normal(10), RNG.standard_normal(10).astype(numpy.float32), RNG.integers(-50, 50, 10),
            RNG.standard_normal(5000), RNG.integers(0, 5000, 9))
    small, _ = counted(ops, *args)
    assert small >= 11  # (every op of the list)
    assert np.zeros(7)._impl._values[0].node is None and np.zeros(FILL_AT_ONCE)._impl._values[0].node is None
    assert np.zeros(FILL_AT_ONCE + 1)._impl._values[0].node is not None
    numpy.testing.assert_array_equal(numpy.asarray(np.full(FILL_AT_ONCE, 2.5, np.float32)),
                                     numpy.full(FILL_AT_ONCE, 2.5, numpy.float32))


@pytest.mark.parametrize("index_dtype", [numpy.int32, numpy.uint32, numpy.uint8, numpy.int64])
def test_a_csr_loops_gathers_read_their_columns_as_they_are(index_dtype):
    """spmv's ``vals @ x[cols]`` over CSR columns of any integer dtype: each gather is one program
    reading the columns in their own dtype (a cast to int64 first made it two), NumPy's values;
    a negative column still wraps, one out of range is NumPy's IndexError."""
    def spmv(m, rows, cols, vals, x):
        y = m.empty(rows.size - 1)
        for i in range(rows.size - 1):
            y[i] = vals[rows[i]:rows[i + 1]] @ x[cols[rows[i]:rows[i + 1]]]
        return y

    rows = numpy.array([0, 3, 3, 5, 9], numpy.int64)
    cols = RNG.integers(0, 200, 9).astype(index_dtype)
    args = (rows, cols, RNG.standard_normal(9), RNG.standard_normal(200))
    counted(spmv, *args)
    x, c = np.array(args[3]), np.array(cols)
    x[c[:3]]
    before = nb.engine_stats()["small_ops"]
    got = x[c[:3]]
    assert nb.engine_stats()["small_ops"] - before == 1
    numpy.testing.assert_array_equal(numpy.asarray(got), args[3][cols[:3]])
    if numpy.dtype(index_dtype).kind == "i":
        wrapped = numpy.array([-1, 2, -200], index_dtype)
        numpy.testing.assert_array_equal(numpy.asarray(x[np.array(wrapped)]), args[3][wrapped])
    with pytest.raises(IndexError, match="out of bounds"):
        x[np.array(numpy.array([200], index_dtype))]


def test_a_loop_of_mask_reads_and_writes_through_views_reads_nothing():
    """A sandpile's step: ``g[t] -= 4`` and ``g[1:][t[:-1]] += 1`` over small realized data, each
    mask's true positions computed at once (one kernel call, where each was a read of the engine),
    its gathers, ops and scatters too; the array stays realized, values NumPy's."""
    def sandpile(m, g):
        for _ in range(6):
            t = g >= 4
            g[t] -= 4
            g[1:][t[:-1]] += 1
            g[:-1][t[1:]] += 1
            g[:, 1:][t[:, :-1]] += 1
            g[:, :-1][t[:, 1:]] += 1
        return g[g > 2]

    start = numpy.zeros((9, 9), numpy.int32)
    start[4, 4] = 40
    small, reads = counted(sandpile, start)
    assert small > 100 and reads <= 2  # (32 with each mask's positions a read; a kind of op of ever new
    #                                      lengths may be recorded once its plans have not paid back)


def test_casts_and_masks_of_small_data_at_once_are_numpys():
    """A cast of small realized data runs at once, so a boolean mask's count does too: nbody's
    ``inv_r3[inv_r3 > 0] = inv_r3[inv_r3 > 0] ** -1.5`` runs one program per mask (its positions),
    where the count was a read of its own."""
    def ops(m, x):
        y = x.astype(m.int32) + 1
        z = x.astype(m.float32) * 2
        x[x > 0] = x[x > 0] ** -1.5
        return y, z, x[x < 0]

    small, reads = counted(ops, RNG.standard_normal((9, 9)) * 5)
    assert small >= 6 and reads <= 5  # (a mask: a run of its positions; the write: a run)


def test_a_loop_of_whole_mask_writes_runs_each_at_once():
    """``x[x > 0] = ...`` writes at the mask's positions at once (a program of two stages, x's copy
    and the scatter, both into one result): the next step's comparison then takes realized data,
    where a recorded scatter made every step's mask a read of the engine."""
    def steps(m, x):
        for _ in range(8):
            x[x > 0] = x[x > 0] ** -1.5
            x[x < -1] = 0.5
            x -= 0.25
        return x

    small, reads = counted(steps, RNG.standard_normal((12, 12)) * 3)
    assert small >= 8 * 6 and reads == 0  # (8 with each write recorded)


def test_a_loop_over_rows_of_pending_data_realizes_it_once(monkeypatch):
    """deriche's second pass, ``y[i, :] = a * img[i, :] + b * y[i - 1, :]`` over a pending ``img``:
    once ``_LOOP_REFUSALS`` ops at once were refused for its rows, img is realized (one read) and the ops
    run at once, with NumPy's values; a stencil's few slices of a pending grid stay recorded."""
    from nabla.core import at_once
    from nabla.core.at_once import _LOOP_REFUSALS

    # (per-process counts: the tests before this one in its process must not have turned it off)
    monkeypatch.setattr(at_once, "_NO_LOOP", {})
    monkeypatch.setattr(at_once, "_REFUSED", at_once.CountsPerValue())

    def rows(m, img, y):
        img = img * 2.0 + 1.0  # (pending: larger than an op at once)
        for i in range(1, img.shape[0]):
            y[i, :] = 0.5 * img[i, :] + 0.25 * y[i - 1, :]
        return img

    small, reads = counted(rows, RNG.standard_normal((200, 50)), numpy.zeros((200, 50)))
    assert _LOOP_REFUSALS <= 20 and reads <= 3 and small >= 3 * (199 - 20)  # (the rows after the 16th at once)

    def stencil(m, b):
        a = (b * 2.0)[:30, :30]  # (pending: a slice of a larger op's result)
        for _ in range(6):
            a[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        return a

    small, reads = counted(stencil, RNG.standard_normal((100, 100)))
    assert small == 0 and reads <= 2


def test_a_loop_over_small_complex_matrices_runs_at_once_with_numpys_values():
    """scattering's loop: products of small complex matrices and their slices, and sums written
    into rows of a complex array, at once (their storage's real pairs), nothing read."""
    def loop(m, G, D, S):
        for k in range(G.shape[0]):
            for a in range(D.shape[0]):
                x = G[k, :, 1:3] @ G[(k + 1) % G.shape[0], 1:3]
                S[k, a] += x[a] * D[a, k] + m.abs(G[k, a]) * 2.0
                S[(k + 1) % G.shape[0], :, a] = G[k, a] * D[a, 0]

    complex_of = lambda *shape: RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)  # noqa: E731
    small, reads = counted(loop, complex_of(3, 4, 4), complex_of(4, 3), complex_of(3, 4, 4))
    assert small >= 30 and reads == 0


def test_a_small_result_at_once_is_its_memory_wherever_it_is_read():
    """A small result at once keeps its carved memory without a view until one is asked: each way
    of reading it (a later op at once by its address, a pick, an export, a recorded op over its
    buffer, a write into it, a slice of it) sees NumPy's values, and a write into it changes no
    other result."""
    a0, b0 = RNG.random(7), RNG.random(7)
    a, b = np.array(a0), np.array(b0)
    before = nb.engine_stats()["small_ops"]
    r, s = a * 2.0 + b, a - b  # (two results of one block of memory)
    assert nb.engine_stats()["small_ops"] - before == 3 and r._impl.is_realized
    want_r, want_s = a0 * 2.0 + b0, a0 - b0
    assert float(r[3]) == want_r[3] and type(r[3].numpy()) is numpy.ndarray
    numpy.testing.assert_array_equal((r * s).numpy(), want_r * want_s)  # (at once, by address)
    numpy.testing.assert_array_equal(np.concatenate([r, s]).numpy(), numpy.concatenate([want_r, want_s]))
    numpy.testing.assert_array_equal(r[1:5].numpy(), want_r[1:5])
    big = np.array(RNG.random(4096))
    numpy.testing.assert_array_equal((big[:7] + r).numpy(), numpy.asarray(big)[:7] + want_r)
    r[2] = 5.0
    want_r[2] = 5.0
    numpy.testing.assert_array_equal(r.numpy(), want_r)
    numpy.testing.assert_array_equal(s.numpy(), want_s)  # (its neighbour in the block: untouched)
    exported = numpy.asarray(r)
    assert type(exported) is numpy.ndarray and exported.shape == (7,)
    numpy.testing.assert_array_equal(exported, want_r)
    one = a[:1] * 2.0  # (one element: its truth and its item read the memory)
    assert bool(one) == bool(a0[0] * 2.0) and one.item() == a0[0] * 2.0


def conjugate_gradient(m, A, b):
    """CG on a 60 x 60 system: a product of the matrix (3,600 elements) and a vector, two dots and a
    scalar read every step."""
    x = m.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    for _ in range(8):
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rn = r @ r
        if float(rn) < 1e-20:
            break
        p = r + (rn / rs) * p
        rs = rn
    return x, A.max(), A.sum(axis=0)


def test_a_matrix_of_up_to_16384_elements_times_a_vector_runs_at_once():
    rng = numpy.random.default_rng(5)
    M = rng.random((60, 60))
    A, b = M @ M.T + 60 * numpy.eye(60), rng.random(60)
    ours = [np.array(A), np.array(b)]
    before = nb.engine_stats()
    got = [numpy.asarray(v) for v in conjugate_gradient(np, *ours)]
    after = nb.engine_stats()
    want = conjugate_gradient(numpy, A, b)
    # (CG near convergence amplifies the products' last bits: NumPy's own CG with its products summed
    # in another order than BLAS's differs from it by 3e-8 here)
    for g, w in zip(got, want):
        numpy.testing.assert_allclose(g, w, rtol=1e-6, atol=0)
    # (each step's product, dots and updates at once: no read)
    assert after["evaluations"] == before["evaluations"] and after["small_ops"] - before["small_ops"] > 40
    big = rng.random((130, 130))  # (16,900 elements: recorded, read once)
    _, reads = counted(lambda m, B: B @ B[:, 0], big)
    assert reads == 1


def lorenz(m, u):
    """RK4 whose right-hand side builds its vector from picks, its path written row by row."""
    def f(v):
        return m.asarray([10.0 * (v[1] - v[0]), v[0] * (28.0 - v[2]) - v[1], v[0] * v[1] - 8.0 / 3.0 * v[2]])

    path = m.zeros((40, 3))
    for s in range(40):
        k1 = f(u)
        k2 = f(u + 0.0025 * k1)
        k3 = f(u + 0.0025 * k2)
        k4 = f(u + 0.005 * k3)
        u = u + 0.005 / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        path[s] = u
    joined = (m.concatenate([path[0], path[1, :2], u]), m.stack([u, u * 2]), m.hstack([u, m.asarray([1, 2])]))
    return (path,) + joined


def test_lists_of_small_host_data_are_joined_at_once():
    small, reads = counted(lorenz, numpy.array([1.0, 1.0, 1.0]))
    assert reads == 0 and small > 40 * 4  # (each step's vectors joined at once: nothing recorded)
    x = np.array(RNG.random(10_000))  # (larger parts: recorded and read)
    before = nb.engine_stats()["evaluations"]
    joined = np.concatenate([x, x[:5]])
    assert numpy.array_equal(numpy.asarray(joined), numpy.concatenate([numpy.asarray(x), numpy.asarray(x)[:5]]))
    assert nb.engine_stats()["evaluations"] == before + 1


def greedy(m, score):
    """A greedy selection: ``where`` of three operands and an ``argmax`` of it each step, an element
    write and a slice update."""
    taken, order = m.zeros(score.shape[0], dtype=bool), []
    for _ in range(12):
        i = int(m.argmax(m.where(taken, -1.0, score)))
        order.append(i)
        taken[i] = True
        score[max(i - 2, 0):i + 3] = score[max(i - 2, 0):i + 3] * 0.5
    return m.asarray(order), taken, m.argmin(score), m.where(score > 0.4, score, m.zeros_like(score))


def test_ops_of_three_operands_and_arg_reductions_at_once():
    small, reads = counted(greedy, RNG.random(200))
    assert reads == 0 and small >= 12 * 3  # (a where, an argmax and a product each step)


def binned_means(m, data, radius, bins):
    """azimint's loop: a mask of a large array per bin, the data it selects and their mean."""
    out = m.zeros(bins)
    for i in range(bins):
        out[i] = data[m.logical_and(i / bins <= radius, radius < (i + 1) / bins)].mean()
    return out


@pytest.mark.parametrize("bins", [100, 20])  # (~1,000 elements a bin; ~5,000, past a small result's 2,048)
def test_selections_of_a_large_mask_are_one_program_for_every_count(bins):
    """A loop of masks over a large array selects a new count of elements each step: the mask's
    positions, the gather of the data at them and their mean each run at once, one program each
    for every count (the count's a length of the program, the large array fixed), where a plan per
    count planned (or recorded) them all at every step; NumPy's values."""
    data, radius = RNG.random(100_000), RNG.random(100_000)
    counted(binned_means, data, radius, numpy.int64(bins))
    scalars = GRAPH.engine.scalars
    planned = {id(p) for p in scalars._small.values()}
    small, reads = counted(binned_means, data, radius, numpy.int64(bins))
    assert small >= 3 * bins and reads <= bins + 1  # (a count read per mask)
    assert len({id(p) for p in scalars._small.values()} - planned) <= 1  # (at most a count's first steps)


def test_a_loops_ops_at_once_run_their_kept_programs_with_numpys_bits(monkeypatch):
    """Once an op over these operands is planned, its later runs (other starts, other lengths) take
    the kept program without ``small``'s general path: an op over slices, over realized results, over
    a slice and a Python float or int or NumPy's float64 scalar on either side, an update in place
    of a row and of a column, and a vector dot; every value NumPy's to the bit. A float32 slice
    with a Python float is NumPy's float32 result (its constant rounded), and an int too large for
    a float raises NumPy's error."""
    scalars = GRAPH.engine.scalars
    general = []
    small = type(scalars).small
    monkeypatch.setattr(type(scalars), "small", lambda self, *a, **k: general.append(a[1]) or small(self, *a, **k))

    def loop(m, C, A, x):
        alpha = m.float64(1.5) if m is numpy else numpy.float64(1.5)
        for i in range(6, 24):
            t = A[:i, 3] * alpha  # (NumPy's float64 scalar)
            u = 2.5 - A[i, :i] + t  # (a Python float on the left; two results at once)
            C[i, :i] += u * 3  # (a Python int; an update of a row in place)
            C[:i, i] -= alpha * C[i, :i]  # (a column: stored through its layout)
            x[i] = A[i, :i] @ C[:i, i] + (A[i, :i] / A[i - 1, 1:i + 1]).sum()
        return t, u

    counted(loop, RNG.standard_normal((24, 24)), RNG.standard_normal((24, 24)) + 4.0, numpy.zeros(24))
    runs = len(general)
    general.clear()
    small_ops, reads = counted(loop, RNG.standard_normal((24, 24)), RNG.standard_normal((24, 24)) + 4.0,
                               numpy.zeros(24))
    assert reads == 0 and small_ops >= 18 * 8
    assert len(general) < runs / 4  # (the kept programs' runs: the general path only for a sum)

    def exact(m, C, A, x):
        return A[:9, 2] * 0.1 + C[3, :9], 0.1 * A[4, 1:10] - 3, C[2:7, 5] / 7
    for _ in range(3):
        a, c = RNG.standard_normal((12, 12)), RNG.standard_normal((12, 12))
        got = exact(np, np.array(c), np.array(a), None)
        want = exact(numpy, c, a, None)
        for g, w in zip(got, want):
            assert numpy.asarray(g).tobytes() == w.tobytes()
    f = RNG.standard_normal(10).astype(numpy.float32)
    for _ in range(3):
        got = np.array(f)[1:8] * 0.1
        want = f[1:8] * 0.1
        assert got.dtype == want.dtype and numpy.asarray(got).tobytes() == want.tobytes()
    with pytest.raises(OverflowError):
        np.array(f.astype(numpy.float64))[1:8] * 10 ** 400


def test_a_complex_array_never_runs_the_real_program_of_its_storages_shape():
    """A complex array's value is its storage, real pairs: after an op over a real array of that
    storage's shape is kept, the complex array's op with a Python number or another complex array
    is still complex, NumPy's values."""
    real = RNG.standard_normal((7, 2))
    z = RNG.standard_normal(7) + 1j * RNG.standard_normal(7)
    w = RNG.standard_normal(7) - 1j * RNG.standard_normal(7)
    for _ in range(3):
        np.array(real) + 0.5, np.array(real) * np.array(real)  # (planned and kept for float64 (7, 2))
    for _ in range(3):
        for got, want in ((np.array(z) + 0.5, z + 0.5), (2.0 * np.array(z), 2.0 * z),
                          (np.array(z) * np.array(w), z * w), (np.array(z)[1:6] - np.array(w)[:5], z[1:6] - w[:5])):
            assert got.dtype == want.dtype and got.shape == want.shape
            numpy.testing.assert_allclose(numpy.asarray(got), want, rtol=1e-15)
