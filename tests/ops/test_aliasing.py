"""NumPy's aliasing on lazy values (ops/aliasing.py): slices of one value, views written through,
against NumPy on the same data."""

import numpy
import pytest

import nabla.numpy as np


@pytest.mark.usefixtures("recorded_small_ops")
def test_a_slice_taken_again_of_one_value_is_one_node():
    """``un[1:-1, 1:-1]`` five times in one update is one node (slices of one pending value), and a
    write between two takes of one slice gives the second its new value."""
    from nabla.core.trace_lowering import TraceLowering

    def step(xp, u):
        un = u.copy()
        u[1:-1, 1:-1] = un[1:-1, 1:-1] - un[1:-1, 1:-1] * (un[1:-1, 1:-1] - un[1:-1, :-2]) \
            + 0.5 * (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[:-2, 1:-1])
        before = u[1:-1, 0]
        u[1:-1, 0] = u[1:-1, 0] * 2.0  # the same key, over the written u: its new value
        after = u[1:-1, 0]
        view = u[1:-1, 1:-1]
        view += 1.0  # a write through one of two equal views: the other sees it
        return before + after + u[1:-1, 1:-1].sum(), view

    data = numpy.random.default_rng(7).standard_normal((9, 8))
    host, ours = data.copy(), np.array(data)
    want, got = step(numpy, host), step(np, ours)
    for w, g in zip(want + (host,), got + (ours,)):
        numpy.testing.assert_allclose(numpy.asarray(g), w, rtol=1e-13)

    slices = []
    trace = TraceLowering.trace

    def counted(self, outputs, limit=None):
        traced = trace(self, outputs, limit)
        if traced is not None and limit is None:
            slices.extend((id(n.inputs[0]), n.kwargs["index"]) for n in traced.order if n.op.name == "getitem")
        return traced

    u = np.array(data)
    un = u.copy()
    TraceLowering.trace, saved = counted, trace
    try:
        out = un[1:-1, 1:-1] - un[1:-1, 1:-1] * (un[1:-1, 1:-1] - un[1:-1, :-2]) + un[1:-1, 1:-1]
        numpy.testing.assert_allclose(out.numpy(), data[1:-1, 1:-1] - data[1:-1, 1:-1] * (
            data[1:-1, 1:-1] - data[1:-1, :-2]) + data[1:-1, 1:-1], rtol=1e-13)
    finally:
        TraceLowering.trace = saved
    assert len(slices) == len(set(slices)) == 2, slices


def chains_of_views(m):
    buf = m.arange(30.0) * 1.0
    x = buf[2:25]
    y = x[1::2]
    z = y[::-1][1:4]
    z[0] = -1
    y[2] = -2
    x[0] = -3
    w = buf[::-1][3:10:2][1:]
    w[1] = -4
    A = m.arange(48.0).reshape(6, 8) * 1.0
    B = A[1:, ::2]
    C = B[::2, 1:]
    C[1, 0] = -5
    C[:, 1] += 100
    D = C[1:]
    D[0] = 7
    F = A[2][1:5]  # (a row's slice: a view of the row, which views A)
    F[0] = -9
    v = m.zeros(45) + 1.0
    u = v
    for i in range(40):  # a buffer consumed through a chain of views
        u[0] = i
        u = u[1:]
    r = m.zeros(12) + 1.0
    q = r
    for i in range(6):
        q[0] = i + 1
        q = q[::-1][1:]
    stream = m.array([2, 5, 6, 1, 7, 3, 1, 2, 3, 1, 9])  # length-prefixed records, bounds 0-d arrays
    rest, sums = stream, []
    while rest.size:
        k = rest[0]
        sums.append(rest[1:1 + k].sum())
        rest[0] = -1
        rest = rest[1 + k:]
    G = m.zeros((3, 30)) + 1.0
    g = G
    for i in range(20):  # through ``...`` and NumPy integer bounds
        g[..., 0] = i
        g = g[..., numpy.int64(1):]
    V = m.zeros((9, 7)) + 1.0
    s = V[1:, 1:]
    for i in range(6):  # elements written through a slice
        s[i, i] = i
    t = V[::-1, 2:][1:]
    t[0, -1] = -7.0
    return buf, x, y, z, w, A, B, C, D, F, v, u, r, q, stream, m.array(sums), G, g, V, s, t


def test_a_slice_of_a_slice_is_a_slice_of_their_base():
    """As NumPy's views have one base: ``y = x[1::2]`` of ``x = buf[2:25]`` is a view of ``buf``, so a
    write into it is carried one step (a chain ``u = u[1:]`` written at each step carried each write
    through every view before it: 200 steps took a second); every view sees every write, values
    NumPy's."""
    want, got = chains_of_views(numpy), chains_of_views(np)
    for w, g in zip(want, got):
        numpy.testing.assert_array_equal(numpy.asarray(g), w)
    buf = np.arange(10.0)
    x = buf[1:]
    y = x[2:][::-1]
    z = y[np.asarray(numpy.int64(1)):]  # (a bound of a 0-d array: its int when taken)
    assert y._view[0] is buf and x._view[0] is buf and z._view[0] is buf
    assert buf[2:][..., numpy.int64(1):]._view[0] is buf
    V = np.zeros((2000, 5)) + 1.0  # (recorded: above ``SMALL_AT_ONCE``)
    s = V[1:, 1:]
    s[2, 3] = 5.0  # an element of the base written, where the slice's 7,996 elements were carried back
    assert V._impl._values[0].node.kwargs["index"] == ((3, 4, 1), (4, 5, 1))
    row = np.zeros((3, 4))[1]
    assert row[1:]._view[0] is row  # (an int's axis: composed no further)
    frozen = np.broadcast_to(np.arange(5.0), (3, 5))[1:]
    try:
        frozen[:, 1:][0, 0] = 1.0
    except ValueError as e:
        assert "read-only" in str(e)
    else:
        raise AssertionError("a slice of a read-only view took a write")
