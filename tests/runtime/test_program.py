"""Programs: a trace run as one program of stages by the program kernel (runtime/program.py).

Loops as NumPy users write them (stencils with slice writes, element loops, scalar reads between
writes, writes through views, ops the kernel lacks between its stages), each run with
``nabla.numpy`` and with NumPy on the same data, compared value for value; and how many kernel calls
a read pays."""

import numpy
import pytest

import nabla as nb
import nabla.numpy as np
from nabla.core.engine import Engine
from nabla.core.graph import GRAPH

pytestmark = pytest.mark.usefixtures("fused_on", "recorded_small_ops")

RNG = numpy.random.default_rng(7)


def both(fn, *arrays):
    """``fn`` run on NumPy copies and on Nabla copies of ``arrays``; (NumPy's, Nabla's) results and
    arrays, Nabla's read back."""
    host = [numpy.array(a) for a in arrays]
    ours = [np.array(a) for a in arrays]
    want = fn(numpy, *host)
    got = fn(np, *ours)
    want = (want if isinstance(want, tuple) else (want,)) + tuple(host)
    got = (got if isinstance(got, tuple) else (got,)) + tuple(ours)
    return [numpy.asarray(w) for w in want], [numpy.asarray(g) for g in got]


def assert_same(want, got, exact=True):
    for w, g in zip(want, got):
        assert w.dtype == g.dtype and w.shape == g.shape
        if exact:
            numpy.testing.assert_array_equal(g, w)
        else:
            numpy.testing.assert_allclose(g, w, rtol=1e-12, atol=0)


def jacobi(m, A, B, steps=6):
    for _ in range(steps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


def poisson(m, p, b, steps=5):
    """cavity_flow's pressure loop: a copy, an interior write, four border writes per step."""
    for _ in range(steps):
        pn = p.copy()
        p[1:-1, 1:-1] = (pn[1:-1, 2:] + pn[1:-1, 0:-2] + pn[2:, 1:-1] + pn[0:-2, 1:-1]) * 0.25 - b[1:-1, 1:-1]
        p[:, -1] = p[:, -2]
        p[0, :] = p[1, :]
        p[:, 0] = p[:, 1]
        p[-1, :] = 0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [7, 40, 150])  # (150: stages over several blocks and tasks)
def test_stencil_loops_are_one_program(dtype, n):
    A, B = RNG.random((n, n)).astype(dtype), RNG.random((n, n)).astype(dtype)
    before = nb.engine_stats()["evaluations"]
    want, got = both(jacobi, A, B)
    assert_same(want, got)
    # the two arrays read back: one program (the second read finds its array realized with the first)
    assert nb.engine_stats()["evaluations"] - before == 1


@pytest.mark.parametrize("n", [5, 61])
def test_slice_writes_that_read_what_they_write(n):
    """Border writes read the array they write (``p[:, -1] = p[:, -2]``): in place only where the
    stage reads it whole before it stores."""
    p, b = RNG.random((n, n)), RNG.random((n, n))
    want, got = both(poisson, p, b)
    assert_same(want, got)


def trajectory(m, ys):
    """An integrator's history: each step's row from the one before, ``ys[i + 1] = f(ys[i])``."""
    for i in range(ys.shape[0] - 1):
        y = ys[i]
        ys[i + 1] = y + 0.01 * (m.sin(y) - 0.5 * y)


def test_a_row_written_from_another_row_stores_in_place():
    """A write whose stage reads only slices of its array apart from the written region stores into
    the array's own memory at any size (no copy of the whole array a step); the values NumPy's."""
    ys = RNG.random((30, 3000))
    want, got = both(trajectory, ys)
    assert_same(want, got)


@pytest.mark.parametrize("i, j", [(0, 4000), (0, 500), (500, 0), (4000, 0), (100, 50), (50, 100), (500, 500)])
def test_a_write_of_a_slice_of_its_own_array_at_any_overlap(i, j):
    """``a[i:i + n] = f(a[j:j + n])`` of pending ``a`` over several blocks: where the regions meet the
    write stores only once every read is done (NumPy's value), whatever plan an apart pair of the same
    structure made first."""
    def shifted(m, a, i, j):
        a = a * 1.0
        a[i:i + 3000] = a[j:j + 3000] * 2.0 + 1.0
        return a

    base = numpy.arange(8000, dtype=numpy.float64)
    for k, l in ((0, 4000), (i, j)):  # (the apart pair first: its plan must not serve an overlapping one)
        got = numpy.asarray(shifted(np, np.asarray(base), k, l))
        numpy.testing.assert_array_equal(got, shifted(numpy, base.copy(), k, l))


def sweep(m, c, d):
    """vadv's sweep down a column axis: each step writes the column it reads and reads the one before."""
    c = c * 1.0
    for k in range(1, c.shape[1]):
        c[:, k] = (c[:, k] - c[:, k - 1] * d) * 0.5
        c[:, k] = c[:, k] * d
    return c


def test_a_sweep_that_writes_the_region_it_reads_stores_in_place(copies):
    """A write whose stage reads the written region itself, element by element, and regions apart
    from it stores into the array's memory (a copy of the array once, not at each step), NumPy's
    values."""
    want, got = both(sweep, RNG.random((3000, 12)), RNG.random(3000))
    assert_same(want, got)
    assert copies and max(copies) <= 1  # (the first write into realized ``c``: others may hold its memory)


def fdtd(m, ex, ey, hz, f):
    """fdtd_2d's step: each field's update reads the others' (and its own) regions; the row written
    first each step was read by the step before."""
    for t in range(f.shape[0]):
        ey[0, :] = f[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


def test_writes_after_the_reads_of_their_array_store_in_place(copies):
    """Writes whose arrays' other readers come earlier in the trace compute those first and store
    into the arrays' memory: each field copied once a program (its first write: its memory was the
    caller's), not at each step; NumPy's values."""
    want, got = both(fdtd, *(RNG.random((60, 70)) for _ in range(3)), RNG.random(8))
    assert_same(want, got)
    assert copies and max(copies) <= 3


def test_a_result_that_is_a_written_array_in_another_shape_is_its_memory(copies):
    """A read's result that is the whole of an intermediate in another shape (a write's array
    reshaped, a complex array's storage) is that intermediate's memory, not a copy of it."""

    def reshaped(m, x):
        z = x * 3.0
        z[3:900] = z[1000:1897] * 2.0
        return z.reshape(40, 50)

    want, got = both(reshaped, RNG.random(2000))
    assert_same(want, got)
    assert copies == [0]


def test_a_view_of_an_intermediate_read_by_a_foreign_op_keeps_its_values():
    """An intermediate reshaped for an op the kernel lacks (a sort) is the same memory: a later write
    into the intermediate goes through a copy, so the op still reads the values before it."""
    def viewed(m, x):
        z = x * 3.0
        w = z.reshape(64, 64)
        s = m.sort(w, axis=1)
        z[0:100] = 7.0
        return z, s

    want, got = both(viewed, RNG.random(4096))
    assert_same(want, got)


@pytest.mark.parametrize("form", ["transposed", "gathered", "reshaped", "summed", "broadcast"])
def test_a_write_of_its_own_region_moved_elsewhere(form):
    """``x[r] = f(x[r])`` where f moves elements (a transpose, a gather, a reshape to another shape, a
    sum, a broadcast of part of it) over more than one block: the write stores once every read is
    done."""
    def moved(m, x):
        x = x * 1.0
        r = x[0:60, 0:60]
        f = {"transposed": lambda: r.T * r, "gathered": lambda: r[m.arange(60)[::-1]] + r,
             "reshaped": lambda: (r.reshape(30, 120) * 2.0).reshape(60, 60) - r,
             "summed": lambda: r - r.sum(axis=0), "broadcast": lambda: r[0:1] + r}[form]
        x[0:60, 0:60] = f()
        return x

    want, got = both(moved, RNG.random((80, 80)))
    assert_same(want, got)


def row_and_element_writes(m, x):
    for i in range(1, 4):
        x[i, 1:-1] = x[i - 1, 2:] * 2 + x[i - 1, :-2]
        x[i, 0] = x[i - 1, 1] - x[i, 2]
        x[i, -1] += x[i, 0]
    x[0, 2:4] = x[4, 1]
    x[4] = x[3] + x[0, 0]
    return x[2, 1]


@pytest.mark.parametrize("dtype", ["float64", "int32", "complex128"])
def test_writes_of_values_in_the_keys_shape(first_sight, dtype):
    """``x[i, j] = a`` and ``x[i, 1:-1] = row`` take the value in the key's shape (an int's axis
    dropped), one op each, on every first-sight path; the same under ``grad`` (its own form)."""
    x = (RNG.random((5, 6)) * 10).astype(dtype)
    want, got = both(row_and_element_writes, x)
    for w, g in zip(want, got):
        assert w.dtype == g.dtype
        with numpy.errstate(all="ignore"):
            assert numpy.allclose(g, w, rtol=1e-14, atol=0)
    ours = np.array(x) * 1
    before = len(GRAPH._local.pending)
    ours[2, 3] = ours[1, 1]
    assert ours._impl._values[0].node.inputs[1].node.op.name == "getitem"  # no reshape between
    assert len(GRAPH._local.pending) - before == 2


def test_writes_of_values_in_the_keys_shape_under_grad():
    def f(a):
        y = a * 1.0
        y[1, 1:3] = a[0, :2] * 3.0
        y[2, 0] = a[1, 2] ** 2
        return y.sum()
    a = RNG.random((3, 4))
    g = nb.grad(f)(nb.asarray(a)).numpy()
    want = numpy.ones((3, 4))
    want[1, 1:3] = 0.0
    want[2, 0] = 0.0
    want[0, :2] += 3.0
    want[1, 2] += 2 * a[1, 2]
    numpy.testing.assert_allclose(g, want, rtol=1e-12)


def convolution(m, x, w, out):
    k = w.shape[0]
    for i in range(x.shape[1] - k + 1):
        for j in range(x.shape[2] - k + 1):
            out[:, i, j, :] = m.sum(x[:, i:i + k, j:j + k, :, None] * w[None], axis=(1, 2, 3))
    return m.argmax(out, axis=1), m.cumsum(out, axis=2)


def test_a_convolution_loop_of_small_column_reductions():
    """npbench's conv2d: a reduction over middle axes per output pixel (a task per outer index,
    run one after another on a stage this small), with NumPy's values; then an arg reduction and a
    running sum over middle axes."""
    x, w = RNG.random((4, 7, 6, 3)), RNG.random((3, 3, 3, 5))
    want, got = both(convolution, x, w, numpy.zeros((4, 5, 4, 5)))
    for a, b in zip(want, got):
        assert a.dtype == b.dtype
        numpy.testing.assert_allclose(b, a, rtol=1e-13)


@pytest.mark.parametrize("n", [10, 3000])
def test_overlapping_shifts(n):
    """``x[1:] = x[:-1]`` is NumPy's copy-then-write, whatever the size (a larger write than one
    block goes through a copy)."""
    def shift(m, x):
        for _ in range(3):
            x[1:] = x[:-1] * 1.5
            x[:-2] = x[2:] + 1.0
    want, got = both(shift, RNG.random(n))
    assert_same(want, got)


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "float32", "float64"])
def test_element_loops(dtype):
    """``x[i] = max(x[i - 1], y[i])`` and a recurrence, as one program whatever ``i`` is (slice
    starts are data of the program, not its structure)."""
    def loop(m, x, y):
        for i in range(1, len(x)):
            x[i] = m.maximum(x[i - 1], y[i])
        for i in range(2, len(y)):
            y[i] = y[i - 1] + y[i - 2] * 3
        return x[3] + y[2]
    x = (RNG.random(30) * 50).astype(dtype)
    y = (RNG.random(30) * 50).astype(dtype)
    before = nb.engine_stats()["evaluations"]
    with numpy.errstate(over="ignore"):
        want, got = both(loop, x, y)
    assert_same(want, got)
    assert nb.engine_stats()["evaluations"] - before <= 2


def test_a_repeated_structure_with_moving_indices_reuses_its_plan():
    """A read per step of ``x[i] = ...`` meets one structure for every ``i``: planned once."""
    x = np.zeros(50)
    host = numpy.zeros(50)
    engine = GRAPH.engine
    known = set(engine._cache)
    for i in range(1, 50):
        x[i] = x[i - 1] * 0.5 + i
        host[i] = host[i - 1] * 0.5 + i
        assert float(x[i]) == host[i]
    plans = [key for key, e in engine._cache.items() if key not in known and e.program]
    assert len(plans) <= 3  # (the first step reads the zeros as a fill; the next ones one structure)


def test_a_long_loop_run_again_at_other_indices_binds_its_starts():
    """A loop of 60 slice writes, run at three offsets: one structure (its slice starts are data),
    its plan's offset table of more entries than are written one by one read anew each run."""
    from nabla.runtime import program_plan

    def steps(m, x, k0):
        for i in range(k0, k0 + 60):
            x[i:i + 2] = x[i - 1:i + 1] * 0.5 + x[i + 1:i + 3] * 0.25 + 1.0
        return x.copy()

    engine = GRAPH.engine
    known = set(engine._cache)
    for k0 in (1, 17, 30):
        base = RNG.random(100)
        want, got = both(lambda m, x: steps(m, x, k0), base)
        assert_same(want, got)
    plans = [e.program for key, e in engine._cache.items() if key not in known and e.program]
    assert len(plans) == 1
    plan = next(iter(plans[0].values()))
    assert plan.offsets is not None and plan.offsets.entries is None and \
        len(plan.offsets.where) > program_plan._SHORT_TABLE


def test_scalar_reads_between_writes():
    """A convergence loop reading one scalar per step."""
    def converge(m, u):
        steps = 0
        diff = 1.0
        while diff > 1e-3 and steps < 200:
            un = u.copy()
            u[1:-1, 1:-1] = 0.25 * (un[1:-1, 2:] + un[1:-1, :-2] + un[2:, 1:-1] + un[:-2, 1:-1])
            diff = float(m.abs(u - un).max())
            steps += 1
        return m.asarray(steps)
    u = numpy.zeros((20, 20))
    u[0, :] = 1.0
    want, got = both(converge, u)
    assert_same(want, got)


def test_writes_through_views_inside_loops():
    def views(m, x):
        v = x[1:-1]
        for i in range(5):
            v[:] = v * 2 + i
            x[0] = x[-1] + v[0]
            x[-1] = v.sum()
        return v.copy()
    want, got = both(views, RNG.random(12))
    assert_same(want, got, exact=False)


def test_ops_the_kernel_lacks_between_stages():
    """A large matmul and a sort inside a loop of elementwise work and writes: the program's
    calls run around them."""
    def mixed(m, a, w):
        for _ in range(3):
            h = m.tanh(a @ w) * 0.5
            a[:, :8] = m.sort(h[:, :8], axis=1)
            a[0, 0] = h.sum()
        return a.mean(axis=0)
    a, w = RNG.random((96, 96)), RNG.random((96, 96)) / 96
    want, got = both(mixed, a, w)
    assert_same(want, got, exact=False)


@pytest.mark.parametrize("dtype", ["bool", "int16", "uint8", "float32", "int64", "uint64", "float16"])
def test_slice_writes_of_every_dtype(dtype):
    def writes(m, x, y):
        for k in range(4):
            x[k::3] = y[k::3]
            x[-1] = x[0]
        return x[2:5].copy()
    x = (RNG.random(17) * 9).astype(dtype)
    y = (RNG.random(17) * 9).astype(dtype)
    if dtype in ("int64", "uint64"):  # (values past 2**53: every bit is kept)
        y = y + numpy.array(2 ** 60 + 1, dtype)
    want, got = both(writes, x, y)
    assert_same(want, got)


def mask_writes(m, x):
    """nbody's and mandelbrot's pattern: a mask read, computed on, and written back, each step."""
    for k in range(4):
        hot = x > 0.2 * k
        x[hot] = x[hot] * 0.5 + k
    return x.copy()


def index_writes(m, x, y):
    """Rows named by an index array (repeats: the last write wins), of a 2-D array."""
    rows = m.asarray([3, 0, 3, 5, 1, 0])
    for k in range(3):
        x[rows] = y[:6] * (k + 1)
        x[1] = x[2] + 1
    return x.copy()


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "complex128"])
def test_mask_writes_are_row_writes_of_the_program(dtype, monkeypatch):
    x = (RNG.random(40) * 4 - 1).astype(dtype) if dtype != "complex128" else RNG.random(40) * (1 + 0.5j)
    if dtype == "complex128":  # (a mask of the real parts: complex order is NumPy's too, elsewhere)
        def fn(m, z):
            for k in range(3):
                hot = z.real > 0.3 * k
                z[hot] = z[hot] * 1j + k
            return z.copy()
    else:
        fn = mask_writes
    interpreted = []
    run = Engine._interpret
    monkeypatch.setattr(Engine, "_interpret", lambda self, entry, *a: interpreted.extend(entry.op_names) or
                        run(self, entry, *a))
    want, got = both(fn, x)
    assert_same(want, got, exact=dtype.startswith("int"))
    assert "scatter" not in interpreted  # (the suite's engine interprets the mask's nonzero: no models)


@pytest.mark.parametrize("dtype", ["float64", "uint8"])
def test_index_writes_with_repeated_rows(dtype):
    x = (RNG.random((8, 5)) * 9).astype(dtype)
    y = (RNG.random((8, 5)) * 9).astype(dtype)
    want, got = both(index_writes, x, y)
    assert_same(want, got)


def test_a_mask_write_that_selects_nothing():
    def none(m, x):
        x[x > 5] = x[x > 5] * 2
        return x + 1
    want, got = both(none, RNG.random(9))
    assert_same(want, got)


def test_rows_bounded_by_array_elements():
    """spmv's loop: slices whose bounds are 0-d arrays (realized picks, or pending values), read with
    ``__index__`` as NumPy reads them."""
    def spmv(m, row, col, val, x):
        y = m.empty(row.size - 1, val.dtype)
        for i in range(row.size - 1):
            y[i] = val[row[i]:row[i + 1]] @ x[col[row[i]:row[i + 1]]]
        lo = row[1] * 1  # a pending bound
        return y, val[lo:row[3]].copy()
    row = numpy.array([0, 2, 2, 5, 9])
    col = RNG.integers(0, 6, 9)
    want, got = both(spmv, row, col, RNG.random(9), RNG.random(6))
    assert_same(want, got, exact=False)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "bool", "complex128"])
def test_stacks_of_many_rows(dtype):
    """A stack of more parts than the fused evaluator holds registers for (``apply_along_axis``
    over 128 rows, each computed) is one stage per part, stored into its slice of the result."""
    x = (RNG.random((40, 6)) * 9).astype(dtype) if dtype != "complex128" else RNG.random((40, 6)) * (1 - 2j)

    def rows(m, x):
        parts = [x[i] * 2 if dtype != "bool" else ~x[i] for i in range(40)] + [x[3]]
        return m.stack(parts, axis=0).sum(axis=0), m.stack(parts, axis=1)
    want, got = both(rows, x)
    assert_same(want[1:], got[1:])  # (the stack along axis 1 and x: exact)
    assert got[0].dtype == want[0].dtype  # (a sum's order of additions is its own)
    numpy.testing.assert_allclose(got[0], want[0], rtol=1e-6)


def test_apply_along_axis_with_a_gather_per_row():
    img = RNG.random((128, 31)).astype("float32")

    def smooth(m, img):
        k = m.asarray([0.25, 0.5, 0.25], dtype=m.float32)
        return m.apply_along_axis(lambda r: m.convolve(r, k, mode="same"), 1, img)
    before = GRAPH.engine.stats.evaluations
    want, got = both(smooth, img)
    numpy.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    assert GRAPH.engine.stats.evaluations - before <= 3  # (one program: was a run per row and stage)


def test_concatenations_of_computed_parts_along_an_inner_axis():
    a, b = RNG.random((5, 3, 4)), RNG.random((5, 7, 4))

    def cat(m, a, b):
        parts = [a * k if k % 2 else b - k for k in range(24)]
        return m.concatenate(parts, axis=1)
    want, got = both(cat, a, b)
    assert_same(want, got)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int32", "uint8", "int64"])
def test_row_additions_are_a_stage_of_the_program(dtype, monkeypatch):
    """``bincount``, ``histogram``, ``add.at``: rows added in index order (repeats add up, negative
    rows from the end, integers wrap, float16's sums rounded from float32 each) by the program
    kernel, where each was a model of its own."""
    from nabla.runtime import single_op

    asked = []
    real = single_op.SingleOpPath.model
    monkeypatch.setattr(single_op.SingleOpPath, "model",
                        staticmethod(lambda engine, plan_: asked.append(plan_.node.op.name) or real(engine, plan_)))
    ids = RNG.integers(0, 40, 500)
    w = (RNG.standard_normal(500) * 50).astype(dtype) if dtype.startswith("float") else \
        RNG.integers(0, 200, 500).astype(dtype)

    def adds(m, ids, w):
        x = m.zeros((6, 4), dtype=w.dtype)
        for k in range(2):
            m.add.at(x, m.asarray([1, 1, 5, -2, 0]), w[:20].reshape(5, 4) * (k + 1))
        return m.bincount(ids, minlength=45), m.bincount(ids[:50], weights=w[:50] * 1), x
    want, got = both(adds, ids, w)
    for g, v in zip(got[:3], want[:3]):
        assert g.dtype == v.dtype
        numpy.testing.assert_allclose(g, v, rtol=1e-13 if dtype == "float64" else 1e-6)
    numpy.testing.assert_array_equal(got[2], want[2])  # (add.at: NumPy's order, so its very sums)
    assert "scatter_add" not in asked


def test_nonzero_is_a_stage_of_the_program(monkeypatch):
    """The coordinates of a mask's true elements (their count read first), every shape, density and
    count, each axis a pass of the program kernel: no model, no interpreter."""
    from nabla.runtime import single_op

    asked = []
    real = single_op.SingleOpPath.model
    monkeypatch.setattr(single_op.SingleOpPath, "model",
                        staticmethod(lambda engine, plan_: asked.append(plan_.node.op.name) or real(engine, plan_)))
    before = nb.engine_stats()["interpreted"]
    # (long and sparse masks: the kernel passes over sixteen false elements at a time, and a row's
    # coordinates cross those groups)
    for shape, p in (((6, 7), 0.5), ((40, 9), 0.7), ((17, 5, 3), 0.1), ((9,), 0.0), ((4, 4), 1.0),
                     ((3, 1000), 0.003), ((5003,), 0.001), ((2, 37, 19), 0.02), ((700,), 0.95)):
        a = RNG.random(shape) < p
        for got, want in zip(np.nonzero(np.asarray(a)), numpy.nonzero(a), strict=True):
            assert_same([want], [numpy.asarray(got)])
        x = RNG.standard_normal(shape)
        want, got = both(lambda m, x: (x[x > 0.5] * 2, m.flatnonzero(x < -1)), x)
        assert_same(want, got)
    assert nb.engine_stats()["interpreted"] == before and "nonzero" not in asked


def test_a_loops_intermediates_share_the_arena():
    """Stages run one after another: memory whose last reader has run holds a later value, so a
    long loop's program needs a few arrays' worth of intermediates, not one per step."""
    n, steps = 60, 40
    A, B = RNG.random((n, n)), RNG.random((n, n))
    engine = GRAPH.engine
    known = set(engine._cache)
    want, got = both(lambda m, a, b: jacobi(m, a, b, steps), A, B)
    assert_same(want, got)
    plans = [p for key, e in engine._cache.items() if key not in known and e.program
             for p in e.program.values() if p]
    assert plans
    one = n * n * 8
    assert max(p.arena_bytes for p in plans) <= 8 * one  # (one place per intermediate: ~400 arrays)


def test_views_that_ops_the_kernel_lacks_make_of_intermediates():
    """An op run apart between the kernel's calls may return a view of its operand's memory (under
    ``vmap``, the batching moves of an axis): that memory stays the operand's while the view is read."""
    def f(x):
        y = x * 1.0
        v = y[1:]
        v *= x[:-1]
        y[0] = 0.0
        return np.sum(y ** 2)

    def f_host(x):
        y = x.copy()
        y[1:] *= x[:-1]
        y[0] = 0.0
        return (y ** 2).sum()

    xs = RNG.standard_normal((3, 4))
    got = nb.vmap(f)(np.asarray(xs)).numpy()
    numpy.testing.assert_allclose(got, [f_host(r) for r in xs], rtol=1e-12)


def test_writes_through_a_view_of_a_row_are_one_program():
    """``part = A[k][1:5]; part[j] = v``: the write goes into the row, and the row's new value into A,
    a write whose value is another write's result: computed first, and the loop is one program
    (the scheduler refused it, and the trace ran node by node)."""
    def loop(m, A):
        A = A * 1.0
        for k in range(60):
            part = A[k % 6][1:5]
            part[k % 4] = k + part[(k + 1) % 4]
        return A

    before = nb.engine_stats()["evaluations"]
    want, got = both(loop, RNG.random((6, 8)))
    assert_same(want, got)
    assert nb.engine_stats()["evaluations"] - before <= 2


@pytest.mark.parametrize("form", ["exp of a scalar", "complex power", "a cheap op"])
def test_a_costly_scalar_spread_over_a_stage_is_computed_once(form, monkeypatch):
    """A transcendental op over a pending scalar, spread to a larger stage (contour_integral's
    ``np.power(z, k) * Ham[n]``), is a stage of its own, computed once, where the stage computed it
    once per element; a cheap op stays in the stage. Values NumPy's."""
    from nabla.runtime import program_cut

    found = []
    first_parts = program_cut.Cut.first_parts

    def counted(self, readers):
        out = first_parts(self, readers)
        found.extend(u.shape for u in out)
        return out

    monkeypatch.setattr(program_cut.Cut, "first_parts", counted)

    def fn(m, x, H):
        s = x.sum()  # (a reduction: a stage's buffer; the op on it too little work to be a stage as ops count)
        if form == "exp of a scalar":
            return m.exp(s) * H
        if form == "complex power":
            return m.power(s, 1.5 + 0.5j) * H
        return (s + 1.0) * H

    want, got = both(fn, RNG.standard_normal(3), RNG.standard_normal((40, 40)))
    assert_same(want, got, exact=False)
    assert any(shape in ((), (2,)) for shape in found) == (form != "a cheap op"), found  # ((2,): a complex pair)


def test_gathers_from_computed_rows_plan_in_a_loops_length(monkeypatch):
    """A loop of ``interp`` over ``xp`` computed in it and dropped (``xp = x * 1.0``): each halving
    step of the binary search gathers from the computed rows, which are one stage first, found
    before any plan is tried; planning grows with the loop's length (8 calls stepped 6,054 values,
    5.6 s, where 16 calls now step about 65). NumPy's values."""
    from nabla.runtime import program

    stepped = []
    original = program.Scheduler._step
    monkeypatch.setattr(program.Scheduler, "_step", lambda self, v: stepped.append(v) or original(self, v))

    def kern(m, x, y, steps):
        xp = x * 1.0
        for _ in range(steps):
            y = 0.99 * y + 0.01 * m.interp(x + 0.001, xp, y)
        return y

    x = numpy.sort(RNG.random(5000))
    for steps in (4, 8):
        stepped.clear()
        want = kern(numpy, x, numpy.sin(x), steps)
        got = numpy.asarray(kern(np, np.asarray(x), np.asarray(numpy.sin(x)), steps))
        numpy.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
        assert len(stepped) <= 6 * steps

