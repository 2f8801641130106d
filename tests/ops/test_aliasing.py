"""NumPy's aliasing on lazy values (ops/aliasing.py): slices of one value, views written through,
against NumPy on the same data."""

import numpy

import nabla.numpy as np


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
