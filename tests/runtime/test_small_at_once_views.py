"""Views at once: shape-only views of realized data are its memory, views of slices are slices of
the data (a reshape or transpose that moves unit axes, a slice of a slice), and ops at once read
them; values, and writes through them, NumPy's."""

import numpy
import pytest

import nabla as nb
import nabla.numpy as np

from .at_once_checks import counted

pytestmark = pytest.mark.usefixtures("fused_on", "fresh_kinds")


RNG = numpy.random.default_rng(13)


def test_views_of_a_slice_that_move_unit_axes_are_that_slice():
    """nbody's ``x.T - x`` of a column ``x = pos[:, 0:1]``, a row's ``c[:, None]``: the view is the
    slice of the same data under another shape (nothing computed for it), the op over it one run;
    values, and writes through the views, NumPy's."""
    def pairs(m, pos):
        x, c = pos[:, 1:2], pos[2, 1:]
        out = [x.T - x, c[:, None] * c[None, :], m.expand_dims(c, 0) + 1, m.squeeze(x) * 2, x.reshape(1, 6, 1) - 1]
        xt, cc = x.T, c[:, None]
        xt[0, 2] = 100.0
        cc[1, 0] = -5.0
        return tuple(out) + (xt + 0,)

    start = RNG.standard_normal((6, 4))
    small, reads = counted(pairs, start)
    # (the five ops, one run each: 13 with each view a copy of its own; the writes through views
    # are recorded, and read once at the end)
    assert small <= 5 and reads <= 1
    pos = np.array(start)
    before = nb.engine_stats()["small_ops"]
    views = [pos[:, 0:1].T, pos[1, :][:, None], pos[1:3, 2][None, :, None]]
    assert nb.engine_stats()["small_ops"] == before
    for view, want in zip(views, [start[:, 0:1].T, start[1, :][:, None], start[1:3, 2][None, :, None]]):
        assert numpy.array_equal(numpy.asarray(view), want)


def test_a_view_of_a_pending_slice_write_views_the_write():
    """A slice write over realized data is a node with an index too (``b[2:5] = v`` of a view of
    ``a``, recorded): its reshape is a reshape of the written array, never the write's node under
    another shape; values NumPy's."""
    from nabla.ops.view import reshape_op

    a = np.arange(10.0)
    b = a[:]
    b[2:5] = np.asarray([7.0, 8.0, 9.0])
    out = reshape_op.apply_unary(b, {"shape": (10, 1)})
    node = out._impl._values[0].node
    assert node is None or node.op is reshape_op or not node.op.index_kwarg or len(node.inputs) == 1
    want = numpy.arange(10.0)
    want[2:5] = [7.0, 8.0, 9.0]
    assert numpy.array_equal(numpy.asarray(out), want.reshape(10, 1))
    assert numpy.array_equal(numpy.asarray(np.reshape(b, (1, 10)).T), want.reshape(10, 1))


def test_a_slice_of_a_slice_is_one_slice_of_the_data():
    """``a[:, 0][1:]``, ``a[2][::-1][1:4]``, ``a[1:6][:, None, 3]`` (an int or a ``None`` in either
    key): one slice of ``a``'s data, which ops at once read (each was a copy, or recorded and read);
    values, and writes through such views, NumPy's."""
    def views(m, a):
        out = [m.flipud(a[:5, 2]) * 2, a[:, 0][1:] + 1, a[1:][2:4, ::-2] - 1, a[::2, 1:][1:, ::3] * 3,
               a[2][::-1][1:4] + 0, a[:, 1:2][2:5] + 0, a[1:6][:, None, 3] + 0, m.dot(m.flipud(a[:6, 1]), a[:6, 2])]
        v = a[1:][2:4, ::-2]
        v[1, 2] = 50.0
        w = a[:, 3][::-1]
        w[1:3] = -1.0
        return tuple(out)

    small, reads = counted(views, RNG.standard_normal((7, 9)))
    assert small >= 8 and reads <= 1  # (6 reads with each slice of a slice recorded; the writes' read at the end)


def reshaped_rows(m, x):
    """Views of realized data that only change its shape, read, written and written through."""
    rows = x.reshape(3, 4)  # the same memory (NumPy's view; Nabla's value, computed at nothing)
    col = m.expand_dims(x[:4], 1)
    flat = rows.reshape(-1)
    first = m.squeeze(rows[:1], 0)
    x[0] = 100.0  # after the views were taken: NumPy's views see it
    copies = (rows * 1, col * 1, flat * 1, first * 1)
    rows[2, 3] = -5.0  # through the view into x
    pair = m.asarray([x[1], -m.sin(x[2])])  # a list of picks, one dtype
    return copies + (pair, rows.sum(), x.reshape(2, 6)[1, 2:4])


def test_shape_views_of_realized_data_are_numpys_and_compute_nothing():
    x = RNG.random(12)
    small, _ = counted(reshaped_rows, x)
    ours = np.array(x)
    before = nb.engine_stats()["small_ops"]
    r = ours.reshape(3, 4)
    e = np.expand_dims(ours[3], 0)
    assert nb.engine_stats()["small_ops"] == before  # (no kernel run for a view)
    assert numpy.array_equal(numpy.asarray(r), x.reshape(3, 4)) and numpy.asarray(e).tolist() == [x[3]]
    ours[5] = 7.0  # the memory is shared: the write copies, the views keep their values
    assert numpy.asarray(r)[1, 1] == 7.0 and numpy.asarray(ours)[5] == 7.0  # (NumPy: r is a view of x)
    r2 = ours.reshape(4, 3)
    ours += 1  # an op in place after the view: the view's value is NumPy's
    assert numpy.array_equal(numpy.asarray(r2), (numpy.asarray(ours)).reshape(4, 3))
    t = nb.asarray(x)  # a Tensor is a value: its reshape keeps its own, whatever is written later
    t[1] = 3.0  # (its memory its own from here: element writes go into it)
    u = nb.reshape(t, (2, 6))
    t[0] = 50.0
    want = x.copy()
    want[1] = 3.0
    assert numpy.array_equal(numpy.asarray(u), want.reshape(2, 6)) and float(t[0]) == 50.0


def test_shape_views_of_realized_complex_data_are_its_memory_with_numpys_values():
    """A reshape, an axis put in or taken out of a realized complex array is a view of its storage
    (nothing recorded, nothing computed), as a real array's is; what reads it (a mask's selection
    of a 2-D array, ``Z[I]``, reads its rows through the flat view) and a write after it are
    NumPy's."""
    z = RNG.standard_normal((6, 5)) + 1j * RNG.standard_normal((6, 5))
    ours = np.array(z)
    ours.realize()
    before = nb.engine_stats()
    views = [ours.reshape(-1), ours.reshape(3, 10), np.expand_dims(ours, 0), ours.reshape(1, 30).squeeze(0)]
    after = nb.engine_stats()
    assert after["small_ops"] == before["small_ops"] and after["evaluations"] == before["evaluations"]
    for v in views:
        assert v._impl.is_realized and v.dtype == numpy.complex128
    wants = [z.reshape(-1), z.reshape(3, 10), z[None], z.reshape(-1)]
    for v, w in zip(views, wants):
        assert numpy.asarray(v).tobytes() == w.tobytes() and numpy.asarray(v).shape == w.shape
    mask = numpy.abs(z) < 1.2
    got = ours[np.array(mask)]
    assert numpy.asarray(got).tobytes() == z[mask].tobytes()
    ours[2, 3] = 9 - 1j  # (the write copies: the views keep NumPy's values of a view)
    z[2, 3] = 9 - 1j
    assert numpy.asarray(ours).tobytes() == z.tobytes() and numpy.asarray(views[1])[1, 3] == 9 - 1j
