"""Realized host data: element writes into it (``nabla/ops/host_writes.py``), with NumPy's values and
every array read before a write keeping what it had, and its 0-d integer arrays as indices; against
NumPy doing the same steps."""

import weakref

import numpy as onp
import pytest

import nabla as nb
import nabla.numpy as np
from nabla.core.graph import GRAPH, HostValue


def _realized(a):
    onp.asarray(a)
    return a


def _in_place(a) -> bool:
    v = a._impl._values[0]
    return v.node is None and type(v) is HostValue


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "int32", "uint8", "int8", "bool"])
def test_element_loop_values_match_numpy(dtype):
    rng = onp.random.default_rng(3)
    base = (rng.random((6, 5)) * 50).astype(dtype)
    ours, ref = _realized(np.asarray(base)), base.copy()
    for k in range(30):
        i, j = k % 6, (3 * k) % 5
        value = bool(k % 2) if dtype == "bool" else (k * 1.25 if base.dtype.kind == "f" else k * 3)
        ours[i, j] = value
        ref[i, j] = value
        ours[i - 1, j] = ours[i, (j + 1) % 5]  # an element of the array's own dtype
        ref[i - 1, j] = ref[i, (j + 1) % 5]
        assert ours[i - 1, j].item() == ref[i - 1, j].item()
    onp.testing.assert_array_equal(onp.asarray(ours), ref)
    assert ours.dtype == ref.dtype


def test_writes_go_in_place_and_copy_once():
    a = _realized(np.zeros((4, 4)))
    a[1, 2] = 3.0
    assert _in_place(a)
    host = weakref.ref(a._impl._values[0].host)  # (a weak reference: a strong one would make a copy)
    a[2, 1] = 4.0
    assert a._impl._values[0].host is host()  # the second write needs no copy
    assert onp.asarray(a)[1, 2] == 3.0 and onp.asarray(a)[2, 1] == 4.0


def test_slice_writes_go_in_place_and_copy_once():
    """A loop of row and column writes (``out[:, i, j, :] = v``) copies the array into memory of its
    own once, then writes into it: a copy per write made such a loop quadratic in the array's size."""
    a = _realized(np.zeros((40, 30)))
    row = _realized(np.asarray(onp.arange(30.0)))
    a[1, :] = row
    assert _in_place(a)
    host = weakref.ref(a._impl._values[0].host)
    for i in range(2, 6):
        a[i, :] = row * i
        a[:, i] = 1.5 * i
        a[i, 3:9] = row[3:9]
        assert a._impl._values[0].host is host()
    want = onp.zeros((40, 30))
    want[1] = onp.arange(30.0)
    for i in range(2, 6):
        want[i] = onp.arange(30.0) * i
        want[:, i] = 1.5 * i
        want[i, 3:9] = onp.arange(30.0)[3:9]
    onp.testing.assert_array_equal(a.numpy(), want)


def test_recorded_readers_keep_the_values_before_the_write():
    a = _realized(np.asarray(onp.arange(6.0)))
    a[0] = 10.0
    pending = a * 2  # recorded, not run: it reads ``a`` as it is now
    a[0] = 20.0
    a[1] = 30.0
    onp.testing.assert_array_equal(onp.asarray(pending), [20.0, 2, 4, 6, 8, 10])
    onp.testing.assert_array_equal(onp.asarray(a), [20.0, 30, 2, 3, 4, 5])


def test_a_run_that_read_the_array_keeps_its_result():
    a = _realized(np.asarray(onp.arange(6.0)))
    a[0] = 10.0
    total = a.sum()
    assert float(total) == 25.0
    same = a + 0  # realized, possibly a view of a's memory
    onp.asarray(same)
    a[1] = 100.0
    assert float(total) == 25.0
    onp.testing.assert_array_equal(onp.asarray(same), [10.0, 1, 2, 3, 4, 5])
    onp.testing.assert_array_equal(onp.asarray(a), [10.0, 100, 2, 3, 4, 5])


def test_numpy_views_handed_out_keep_their_values():
    a = _realized(np.asarray(onp.arange(4.0)))
    a[0] = 7.0
    seen = a.numpy()  # read-only, a view of the data
    a[1] = 8.0
    onp.testing.assert_array_equal(seen, [7.0, 1, 2, 3])
    onp.testing.assert_array_equal(onp.asarray(a), [7.0, 8, 2, 3])


def test_views_of_the_array_see_the_write():
    a = _realized(np.asarray(onp.arange(12.0).reshape(3, 4)))
    a[0, 0] = 1.5
    row = a[1]
    col = a[:, 2]
    a[1, 2] = -1.0
    ref = onp.arange(12.0).reshape(3, 4)
    ref[0, 0], ref[1, 2] = 1.5, -1.0
    onp.testing.assert_array_equal(onp.asarray(row), ref[1])
    onp.testing.assert_array_equal(onp.asarray(col), ref[:, 2])
    onp.testing.assert_array_equal(onp.asarray(a), ref)
    row[0] = 99.0  # and a write through a view reaches the base
    ref[1, 0] = 99.0
    onp.testing.assert_array_equal(onp.asarray(a), ref)


def test_bit_view_shares_what_numpy_shares():
    a = _realized(np.asarray(onp.arange(4.0)))
    a[0] = 2.0
    bits = a.view(np.uint64)
    ref = onp.arange(4.0)
    ref[0] = 2.0
    rbits = ref.view(onp.uint64)
    a[1] = 3.0
    ref[1] = 3.0
    onp.testing.assert_array_equal(onp.asarray(bits), rbits)
    onp.testing.assert_array_equal(onp.asarray(a), ref)


def test_copies_and_aliases_by_name():
    a = _realized(np.asarray(onp.arange(4)))
    b = a  # the same array
    c = a.copy()
    a[0] = 9
    assert int(b[0]) == 9 and int(c[0]) == 0


def test_writes_numpy_refuses_still_raise():
    a = _realized(np.zeros(3, np.uint8))
    with pytest.raises(OverflowError):
        a[0] = 300
    with pytest.raises(IndexError):
        a[3] = 1
    a[0] = 255
    assert int(a[0]) == 255
    frozen = _realized(np.zeros(3))
    frozen.flags.writeable = False
    with pytest.raises(ValueError):
        frozen[0] = 1.0


@pytest.mark.parametrize("value,dtype", [(2.7, "int32"), (-1, "uint8"), (1 << 60, "float32"), (5, "bool")])
def test_casts_numpy_makes_on_write(value, dtype):
    """Values the dtype does not hold exactly take the recorded write, with NumPy's result."""
    ref = onp.zeros(3, dtype)
    try:
        ref[1] = value
    except OverflowError:
        with pytest.raises(OverflowError):
            a = _realized(np.zeros(3, dtype))
            a[1] = value
        return
    a = _realized(np.zeros(3, dtype))
    a[1] = value
    onp.testing.assert_array_equal(onp.asarray(a), ref)


def test_nussinov_like_loop_matches_numpy():
    """A dynamic-programming loop that reads a comparison between its writes (npbench's nussinov)."""
    n = 12
    seq = onp.random.default_rng(0).integers(0, 4, n)

    def kernel(xp, seq):
        table = xp.zeros((n, n), xp.int32)
        for i in range(n - 1, -1, -1):
            for j in range(i + 1, n):
                table[i, j] = max(table[i, j], table[i, j - 1])
                if i + 1 < n:
                    table[i, j] = max(table[i, j], table[i + 1, j])
                    table[i, j] = max(table[i, j], table[i + 1, j - 1] + (1 if seq[i] + seq[j] == 3 else 0))
                for k in range(i + 1, j):
                    table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j])
        return table

    ours = kernel(np, np.asarray(seq))
    assert _in_place(ours)
    onp.testing.assert_array_equal(onp.asarray(ours), kernel(onp, seq))


@pytest.mark.parametrize("key", [(0, "i"), ("i",), (0, slice(1, None), "i"), ("i", "i", "i"), (Ellipsis, "j")])
def test_zero_d_integer_arrays_index_as_numpy_integers(key):
    base = onp.arange(24.0).reshape(2, 3, 4)
    i, j = onp.array(1), onp.array(-2, onp.int8)
    ref_key = tuple(i if k == "i" else j if k == "j" else k for k in key)
    ours_key = tuple(np.asarray(k) if isinstance(k, onp.ndarray) else k for k in ref_key)
    a = _realized(np.asarray(base))
    got = a[ours_key]
    ref = base[ref_key]
    onp.testing.assert_array_equal(onp.asarray(got), ref)
    a[...] = -5.0  # the result is a copy (NumPy's advanced index), not a view
    onp.testing.assert_array_equal(onp.asarray(got), ref)


def _seidel_like(xp, A, rows):
    for i in range(1, rows):
        A[i, 1:-1] += A[i - 1, :-2] + A[i - 1, 2:]  # a row op: the array is pending again
        for j in range(1, A.shape[1] - 1):
            A[i, j] += A[i, j - 1]
            A[i, j] /= 3.0
    return A


def test_element_loop_over_realized_rows_runs_at_once():
    """A row op at once over small realized data writes the row into the array's memory: the
    element loop along it then runs at once too, and nothing is read."""
    base = onp.random.default_rng(5).random((9, 40))
    ours = _realized(np.asarray(base))
    nb.reset_engine_stats()
    _seidel_like(np, ours, 9)
    engine = GRAPH.engine
    if engine.scalars.serves(engine):
        assert _in_place(ours) and nb.engine_stats()["evaluations"] == 0
    onp.testing.assert_allclose(ours.numpy(), _seidel_like(onp, base.copy(), 9), rtol=1e-12)


@pytest.mark.usefixtures("recorded_small_ops")
def test_element_loop_over_pending_rows_runs_at_once():
    """A recorded row op, then an element loop along the row (npbench's seidel_2d): after a few
    recorded writes the array is realized at a pick, and each row's loop then runs at once (one
    read a row)."""
    base = onp.random.default_rng(5).random((9, 40))
    ours = _realized(np.asarray(base))
    nb.reset_engine_stats()
    _seidel_like(np, ours, 9)
    reads = nb.engine_stats()["evaluations"]
    engine = GRAPH.engine
    if engine.scalars.serves(engine):  # (0-d ops run at once: not under NABLA_DEBUG_MEMORY)
        assert _in_place(ours)
        assert reads <= 9 + 2  # one read per row op (and one realizing the first row's recorded writes)
        assert ours._element_loop.in_place > 8 and not ours._element_loop.off
    onp.testing.assert_allclose(onp.asarray(ours), _seidel_like(onp, base.copy(), 9), rtol=1e-13)


@pytest.mark.usefixtures("recorded_small_ops")
def test_element_loop_whose_values_stay_lazy_turns_off():
    """``A[i, j] -= A[i, :j] @ A[:j, j]`` (lu): the written values are lazy, so a realization buys no
    write in place; the array pays one read for it, then its loop records as before."""
    n = 10
    base = onp.random.default_rng(6).random((n, n)) + n * onp.eye(n)

    def lu(xp, A):
        for i in range(n):
            for j in range(i):
                A[i, j] -= A[i, :j] @ A[:j, j]
                A[i, j] /= A[j, j]
            for j in range(i, n):
                A[i, j] -= A[i, :i] @ A[:i, j]
        return A

    ours = _realized(np.asarray(base))
    nb.reset_engine_stats()
    lu(np, ours)
    engine = GRAPH.engine
    assert ours._element_loop.off or not engine.scalars.serves(engine)
    assert nb.engine_stats()["evaluations"] <= 4
    onp.testing.assert_allclose(onp.asarray(ours), lu(onp, base.copy()), rtol=1e-12)


def test_border_writes_of_a_stencil_loop_stay_recorded():
    """A stencil that fixes its borders each step writes two elements a step: never an element loop
    (at most one read for it, not one a step), and the values are NumPy's."""
    base = onp.random.default_rng(7).random(50)

    def heat(xp, u):
        for _ in range(30):
            u[1:-1] = 0.5 * u[1:-1] + 0.25 * (u[2:] + u[:-2])
            u[0] = 0.0
            u[-1] = 1.0
        return u

    ours = _realized(np.asarray(base))
    nb.reset_engine_stats()
    heat(np, ours)
    assert nb.engine_stats()["evaluations"] <= 1
    onp.testing.assert_allclose(onp.asarray(ours), heat(onp, base.copy()), rtol=1e-13)


def test_picks_of_fresh_results_stay_lazy():
    """``u = f(u); s += u[3]``: each step's ``u`` is a new array no element write marks, so its picks
    record, and the loop is one program at its read."""
    base = onp.random.default_rng(8).random(20)
    u, s = _realized(np.asarray(base)), 0.0
    ref_u, ref_s = base.copy(), 0.0
    nb.reset_engine_stats()
    for _ in range(15):
        u = 0.9 * u + 0.1
        s = s + u[3]
        ref_u = 0.9 * ref_u + 0.1
        ref_s = ref_s + ref_u[3]
    assert nb.engine_stats()["evaluations"] == 0
    assert float(s) == pytest.approx(ref_s, rel=1e-13)


@pytest.mark.usefixtures("recorded_small_ops")
def test_element_loop_keeps_earlier_readers_values():
    """An array realized for its element loop and then written in place: what read it before keeps
    the values it had, and a view of it sees the writes."""
    base = onp.arange(30.0)
    x = _realized(np.asarray(base))
    ref = base.copy()
    x[1:] = x[1:] * 2.0  # pending
    ref[1:] = ref[1:] * 2.0
    for i in range(1, 12):  # recorded element writes, then a realization, then writes in place
        x[i] = x[i - 1] + 1.0
        ref[i] = ref[i - 1] + 1.0
        if i == 10:
            before = x * 1.0  # recorded over the array as it is now
            ref_before = ref.copy()
    engine = GRAPH.engine
    assert not engine.scalars.serves(engine) or x._element_loop.realized and x._element_loop.in_place >= 2
    view = x[5:9]
    x[12] = -3.0  # into the array a live view sees: recorded
    ref[12] = -3.0
    onp.testing.assert_array_equal(onp.asarray(before), ref_before)
    onp.testing.assert_array_equal(onp.asarray(view), ref[5:9])
    onp.testing.assert_array_equal(onp.asarray(x), ref)



def test_in_place_ops_on_views_write_back_as_numpy():
    """``x[i, :j] += v`` writes through the view with its key parsed once (the view keeps the parse
    for its write back), also over a parent rebound by other writes and through a view of a view."""
    def steps(m, x):
        for i in range(1, 5):
            x[i, :i + 1] += x[i - 1, :i + 1] * 0.5
            row = x[i]
            row[1:3] *= 2.0
            x[0, 0] = x[i, 1]
        v = x[2:4, 1:]
        x[3] = 7.0
        v -= 1.0
        flat = x.reshape(-1)
        w = flat[3:9]
        w += 1.0
        w[::2] *= 3.0
        return x.copy()

    rng = onp.random.default_rng(8)
    base = rng.random((6, 5))
    want = steps(onp, base.copy())
    got = onp.asarray(steps(np, np.asarray(base)))
    onp.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("key", [(2, slice(1, 4)), (slice(None), 3), (slice(1, -1), slice(None, -2)), (slice(None, None, -1),),
                                 (slice(5, 1, -2), 4), (Ellipsis, 2), (3,)])
def test_slice_writes_of_realized_data_go_in_place_as_numpys(key):
    """A slice write of realized host data (or a Python scalar) into a realized array goes into its
    memory at once; whatever read the array before (a recorded op, a NumPy export, an op at once)
    keeps the values it read, and a live view of it sees the write."""
    rng = onp.random.default_rng(7)
    base = rng.random((6, 5))
    ours, ref = _realized(np.asarray(base)), base.copy()
    shape = ref[key].shape
    for step in range(3):
        value = rng.random(shape)
        recorded = ours * 2.0  # (recorded: it reads the array as it is now)
        exported = ours.numpy()
        at_once = ours[1:3, 1:3] + ours[2:4, 2:4]
        before = ref.copy()
        ours[key] = np.asarray(value)
        ref[key] = value
        assert _in_place(ours) or not GRAPH.engine.scalars.serves(GRAPH.engine)
        onp.testing.assert_array_equal(ours.numpy(), ref)
        onp.testing.assert_array_equal(recorded.numpy(), before * 2.0)
        onp.testing.assert_array_equal(exported, before)
        onp.testing.assert_array_equal(at_once.numpy(), before[1:3, 1:3] + before[2:4, 2:4])
        ours[key] = 0.25 * step  # a fill
        ref[key] = 0.25 * step
        onp.testing.assert_array_equal(ours.numpy(), ref)
    view, ref_view = ours[1:4], ref[1:4]
    value = rng.random(shape)
    ours[key] = np.asarray(value)  # (a live view: the write is recorded, the view re-derived)
    ref[key] = value
    onp.testing.assert_array_equal(view.numpy(), ref_view)
    del view
    row, ref_row = ours[2], ref[2]
    row[1:3] += np.asarray(onp.ones(2))  # a view's write carried back into the array
    ref_row[1:3] += onp.ones(2)
    onp.testing.assert_array_equal(row.numpy(), ref_row)
    onp.testing.assert_array_equal(ours.numpy(), ref)


def _recorded(make):
    """``make()`` recorded, not computed at once: a reader that reads its operands at its read."""
    engine = GRAPH.engine
    engine.small_at_once = False
    try:
        return make()
    finally:
        engine.small_at_once = True


def _spied_in_place(monkeypatch):
    """Count ``op_in_place``'s answers: [computed and written back, computed into the base]."""
    from nabla.ops import aliasing
    answers = [0, 0]
    real = aliasing.op_in_place

    def spy(op, x, y):
        done = real(op, x, y)
        answers[done] += 1
        return done

    monkeypatch.setattr(aliasing, "op_in_place", spy)
    return answers


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8"])
def test_in_place_ops_on_contiguous_slices_go_into_the_base(monkeypatch, dtype):
    """``C[i, :i + 1] += alpha * A[i, k] * A[:i + 1, k]`` (syrk) computes into C's memory at once:
    NumPy's values, bit for bit, and every array read before keeps what it read."""
    answers = _spied_in_place(monkeypatch)
    rng = onp.random.default_rng(11)
    An, Cn = (rng.random((9, 4)) * 10).astype(dtype), (rng.random((9, 9)) * 10).astype(dtype)
    A, C = _realized(np.asarray(An)), _realized(np.asarray(Cn))
    alpha = 3 if An.dtype.kind in "iu" else 1.5
    for i in range(9):
        C[i, :i + 1] *= 2
        Cn[i, :i + 1] *= 2
        for k in range(4):
            if k == 2:  # (readers before the write, recorded and at once: they keep what they read)
                before, row = _recorded(lambda: C * 1), C[i, :i + 1] * 1
                before_n, row_n = Cn * 1, Cn[i, :i + 1] * 1
            C[i, :i + 1] += alpha * A[i, k] * A[:i + 1, k]
            Cn[i, :i + 1] += alpha * An[i, k] * An[:i + 1, k]
            if k == 2:
                onp.testing.assert_array_equal(before.numpy(), before_n)
                onp.testing.assert_array_equal(row.numpy(), row_n)
    onp.testing.assert_array_equal(C.numpy(), Cn)
    assert answers[1] >= 18  # (the writes after a copy of C's memory of its own: into it)


def test_in_place_ops_into_the_base_keep_numpys_aliasing(monkeypatch):
    """Where the other operand reads the base elsewhere, or another view or reader sees the slice,
    the op is computed first and written back, as NumPy's is; views of the base see the write."""
    answers = _spied_in_place(monkeypatch)
    rng = onp.random.default_rng(12)
    base = rng.random((5, 6))
    ours, ref = _realized(np.asarray(base)), base.copy()
    ours[0, 0] = 1.0  # (its memory now its own)
    ref[0, 0] = 1.0
    ours[1, 1:] += ours[1, :-1]  # overlapping: computed first
    ref[1, 1:] += ref[1, :-1]
    row = ours[2]
    ours[2, :] -= row  # the slice itself as the other operand
    ref[2, :] -= ref[2]
    onp.testing.assert_array_equal(ours.numpy(), ref)
    sub, ref_sub = ours[3, 1:4] * 1, ref[3, 1:4] * 1
    other = ours[3]  # a live view of the written row: it sees the write
    pending = _recorded(lambda: ours[3, :] * 2.0)  # a recorded op over the slice: it reads it at its read
    ours[3, :] += 5.0
    ref3 = ref[3].copy()
    ref[3, :] += 5.0
    onp.testing.assert_array_equal(other.numpy(), ref[3])
    onp.testing.assert_array_equal(pending.numpy(), ref3 * 2.0)
    onp.testing.assert_array_equal(sub.numpy(), ref_sub)
    flat = ours.reshape(-1)  # (a view of the array, not a slice: written back)
    flat[6:12] *= 0.5
    ref.reshape(-1)[6:12] *= 0.5
    cube, ref_cube = _realized(np.asarray(onp.arange(24.0).reshape(2, 3, 4))), onp.arange(24.0).reshape(2, 3, 4)
    cube[0, 0, 0] = 0.5
    ref_cube[0, 0, 0] = 0.5
    written_back = answers[0]
    for key in [(1,), (0, slice(1, 3)), (1, 2, slice(None, None, 2)), (slice(None), 1), (0, 2)]:
        part = cube[key]
        part += 1.0  # (into the base: a run of its memory, or stored through the part's layout)
        ref_cube[key] += 1.0
        del part
    onp.testing.assert_array_equal(ours.numpy(), ref)
    onp.testing.assert_array_equal(cube.numpy(), ref_cube)
    assert written_back >= 4 and answers == [written_back, 5]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_in_place_ops_on_columns_store_through_the_slice(monkeypatch, dtype):
    """gramschmidt's ``A[:, j] -= Q[:, k] * R[k, j]`` and symm's ``C[:i, j] += ...``: a strided slice
    updated at once through its layout, with NumPy's values bit for bit."""
    answers = _spied_in_place(monkeypatch)
    rng = onp.random.default_rng(13)
    An, Qn = (rng.random((7, 5)) * 9).astype(dtype), (rng.random((7, 5)) * 9).astype(dtype)
    A, Q = _realized(np.asarray(An)), _realized(np.asarray(Qn))
    for k in range(5):
        for j in range(k + 1, 5):
            A[:, j] -= Q[:, k] * A[k, j]
            An[:, j] -= Qn[:, k] * An[k, j]
            A[:k + 1, j] += A[k, k]
            An[:k + 1, j] += An[k, k]
            A[::-2, j] *= 2
            An[::-2, j] *= 2
    onp.testing.assert_array_equal(A.numpy(), An)
    assert answers[1] >= 25


def test_slice_writes_of_slices_of_realized_data_go_in_place_as_numpys():
    """adi's ``q[1:-1, 0] = v[0, 1:-1]``: a slice of other realized data written into realized data
    is read where it lies and copied at once (x stays realized); a reader of x before the write
    keeps what it read. A slice of x itself (a live view of it) is written as before, NumPy's
    values either way."""
    rng = onp.random.default_rng(14)
    base, other = rng.random((6, 5)), rng.random((5, 6))
    ours, ref = _realized(np.asarray(base)), base.copy()
    src, ref_src = _realized(np.asarray(other)), other.copy()
    ours[0, 0] = 0.5  # (x's memory its own)
    ref[0, 0] = 0.5
    steps = [((slice(1, -1), 0), lambda a, b: b[0, 1:-1]), ((2, slice(None)), lambda a, b: b[1, 1:]),
             ((slice(None), 2), lambda a, b: b[4, ::-1]),
             ((3, slice(None, None, -1)), lambda a, b: b[:, 2]), ((slice(0, 2), slice(1, 3)), lambda a, b: b[3:, ::3]),
             ((slice(1, None), 1), lambda a, b: a[:-1, 1])]
    for k, (key, make) in enumerate(steps):
        before, ref_before = _recorded(lambda: ours * 1), ref * 1
        ours[key] = make(ours, src)
        ref[key] = make(ref, ref_src)
        assert _in_place(ours) or k == len(steps) - 1 or not GRAPH.engine.scalars.serves(GRAPH.engine)
        onp.testing.assert_array_equal(ours.numpy(), ref)
        onp.testing.assert_array_equal(before.numpy(), ref_before)


def test_in_place_ops_into_the_base_from_threads_are_numpys():
    """Threads updating rows and columns of arrays of their own in place (one program's call array
    and slots at a time): each array NumPy's."""
    import threading

    def work(seed, results):
        rng = onp.random.default_rng(seed)
        ref = rng.random((30, 30))
        ours = _realized(np.asarray(ref))
        ours[0, 0] = ref[0, 0] = 0.0
        for i in range(1, 30):
            ours[i, :i + 1] += ours[0, :i + 1] * 0.5
            ref[i, :i + 1] += ref[0, :i + 1] * 0.5
            ours[:, i] -= 0.25 * i
            ref[:, i] -= 0.25 * i
        results.append(onp.array_equal(ours.numpy(), ref))

    results = []
    threads = [threading.Thread(target=work, args=(k, results)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 4


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint32", "uint8", "int8"])
def test_picked_integers_as_slice_bounds_are_numpys(dtype):
    """spmv's ``A_col[A_row[i]:A_row[i + 1]]``: elements picked from an integer array bound a slice
    as the ints they hold (negative ones counting from the end), as NumPy reads them."""
    rows = onp.array([0, 2, 3, 7, 7, 9] if dtype.startswith("u") else [0, 2, -3, 7, -1, 9], dtype)
    data = onp.arange(12.0) * 1.5
    ours_rows, ours_data = _realized(np.asarray(rows)), _realized(np.asarray(data))
    for i in range(len(rows) - 1):
        for step in (None, 2, ours_rows[1]):
            want = data[rows[i]:rows[i + 1]:step if step is None or isinstance(step, int) else int(step)]
            got = ours_data[ours_rows[i]:ours_rows[i + 1]:step]
            onp.testing.assert_array_equal(got.numpy(), want)
    flags = _realized(np.asarray(onp.array([True, False])))
    with pytest.raises(TypeError):
        ours_data[flags[0]:3]


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_picked_integers_as_slice_write_bounds_go_in_place_as_numpys(dtype):
    """A knapsack's ``T[i, w[i]:] = maximum(T[i - 1, w[i]:], ...)``: a slice write whose bounds are
    picked integers is the write of the ints they hold, into the array's memory at once (the
    general path recorded it), with NumPy's values."""
    rng = onp.random.default_rng(3)
    weights = rng.integers(0, 6, 9).astype(dtype)
    ref = onp.zeros((10, 8), onp.int32)
    ours, w = _realized(np.asarray(ref)), _realized(np.asarray(weights))
    for i in range(1, 10):
        ref[i, weights[i - 1]:] = ref[i - 1, :8 - weights[i - 1]] + i
        ours[i, w[i - 1]:] = ours[i - 1, :8 - w[i - 1]] + i
        assert _in_place(ours) or not GRAPH.engine.scalars.serves(GRAPH.engine)
        ref[i, :weights[i - 1]:2] = -i
        ours[i, :w[i - 1]:2] = -i
        assert _in_place(ours) or not GRAPH.engine.scalars.serves(GRAPH.engine)
    onp.testing.assert_array_equal(ours.numpy(), ref)


@pytest.mark.parametrize("key, source", [((slice(1, None),), (slice(None, -1),)), ((slice(None, -1),), (slice(1, None),)),
                                         ((3,), (2,)), ((slice(None), slice(1, None)), (slice(None), slice(None, -1))),
                                         ((2, slice(None, None, -1)), (2,)), ((slice(None, None, -1), 1), (slice(None), 1))])
def test_slice_writes_of_the_arrays_own_slices_go_in_place_as_numpys(key, source):
    """A DP table's ``T[i] = T[i - 1]``, a shift ``a[1:] = a[:-1]``: the array's own slice is read as
    NumPy's copy reads it (overlap included) and written into its memory at once (it was recorded);
    a slice of it the caller keeps sees the write."""
    rng = onp.random.default_rng(5)
    ref = rng.random((6, 7))
    ours = _realized(np.asarray(ref))
    for _ in range(2):
        ref[key] = ref[source]
        ours[key] = ours[source]
        assert _in_place(ours) or not GRAPH.engine.scalars.serves(GRAPH.engine)
        onp.testing.assert_array_equal(ours.numpy(), ref)
    kept, kept_ref = ours[source], ref[source]
    ours[key] = kept
    ref[key] = kept_ref
    ours[0, 0], ref[0, 0] = 7.0, 7.0
    onp.testing.assert_array_equal(kept.numpy(), kept_ref)
    onp.testing.assert_array_equal(ours.numpy(), ref)

