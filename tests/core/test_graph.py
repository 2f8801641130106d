"""Reads (core/graph.py): what a read realizes with the tensor it reads, and when it runs alone
(the probe), against NumPy's values."""

import numpy as np
import pytest

import nabla as nb
import nabla.numpy as nnp
from nabla.core.graph import GRAPH


def test_reading_a_reduction_of_a_pending_chain_realizes_the_chain(stats):
    """A read computed alone (the fast probe) must not leave pending a live tensor that shares its
    work: the next read would trace that work again, one step longer each time."""
    x = nb.asarray(np.ones(100, np.float32))
    want = np.ones(100, np.float32)
    for step in range(12):
        x = x * 0.5 + 1.0
        want = want * np.float32(0.5) + np.float32(1.0)
        np.testing.assert_allclose(float(nb.sum(x)), want.sum(), rtol=1e-6)
        if step == 2:
            settled = stats()["cache_entries"]
    assert x._impl.is_realized and stats()["cache_entries"] == settled


@pytest.mark.usefixtures("recorded_small_ops")
def test_a_loop_whose_reads_are_all_declined_stops_probing(monkeypatch):
    """A convergence loop whose read needs the whole step (a trace longer than a probe takes) has
    its probe declined every step: after two in a row its reads run with the rest at once, a
    probe asked again every 16th read, and the values stay NumPy's."""
    probes = []
    run = GRAPH.engine.run

    def counted(outputs, *args, **kwargs):
        if kwargs.get("fast_only"):
            probes.append(len(outputs))
        return run(outputs, *args, **kwargs)

    monkeypatch.setattr(GRAPH.engine, "run", counted)
    monkeypatch.setattr(GRAPH._local, "declined", 0)
    data = np.linspace(0.0, 1.0, 40)
    u, want, other = nnp.asarray(data), data.copy(), nnp.asarray(data)
    u.numpy()
    other.numpy()
    sums = []
    for _ in range(40):
        un = u.copy()
        for _ in range(30):  # a step of ~200 ops, read by its sum
            u[1:-1] = 0.25 * (un[:-2] + un[2:]) + 0.5 * un[1:-1]
            un = u.copy()
        pending = other * 2.0  # other pending work: the read may probe
        sums.append(float(nnp.sum(u)))
        wn = want.copy()
        for _ in range(30):
            want[1:-1] = 0.25 * (wn[:-2] + wn[2:]) + 0.5 * wn[1:-1]
            wn = want.copy()
        np.testing.assert_allclose(sums[-1], want.sum(), rtol=1e-12)
    np.testing.assert_allclose(pending.numpy(), 2.0 * data)
    assert 2 < len(probes) <= 2 + 40 // 16 + 1, probes
