"""Ops at once whose sizes change every step (``HostScalars.small`` with ``host_lengths``): an
expanding window's statistics, and a large mask's positions found with its count."""

import numpy
import pytest

import nabla as nb
import nabla.numpy as np
from nabla.core.graph import GRAPH
from .at_once_checks import counted
from .test_small_at_once import RNG

pytestmark = pytest.mark.usefixtures("fused_on", "fresh_kinds")


def expanding(m, x, out):
    for t in range(4, x.shape[0]):
        out[t] = x[:t].std() + x[t // 2:t].var(ddof=1)  # (a mean kept 1-D, broadcast against the window)
    return out


def test_expanding_window_statistics_run_at_once_at_every_length():
    """``x[:t].std()`` over a growing window: its mean kept 1-D and the window minus it are
    programs of any length too, so no step is recorded and read, and its few plans serve every
    length, with NumPy's bits."""
    n = 80
    small, reads = counted(expanding, RNG.standard_normal(n), numpy.zeros(n))
    assert reads == 0 and small >= 8 * (n - 4)
    assert len({id(p) for p in GRAPH.engine.scalars._small.values()}) < 60  # (a plan per length made ~600)


def escapes(m, Z, C, N):
    """mandelbrot's loop: a mask of most of a large array each step, read, written and gathered."""
    for n in range(6):
        inside = m.less(abs(Z), 2.0)
        N[inside] = n
        Z[inside] = Z[inside] ** 2 + C[inside]
    return Z, N


def test_the_positions_of_a_large_mask_are_found_with_its_count():
    """A mask with tens of thousands of true elements: once its count is read (with the mask), its
    positions are one kernel call at once, whatever the count, not a second read of their own;
    NumPy's values."""
    x = numpy.linspace(-2, 2, 250)
    C = x + 1j * x[:, None]
    mask = (abs(C) < 1.9).reshape(-1)
    before = nb.engine_stats()
    (got,) = np.nonzero(np.asarray(mask))
    after = nb.engine_stats()
    (want,) = numpy.nonzero(mask)
    assert want.size > 16384 and numpy.array_equal(numpy.asarray(got), want)
    assert after["evaluations"] - before["evaluations"] == 1  # (the count)
    small, reads = counted(escapes, numpy.zeros_like(C), C, numpy.zeros(C.shape, numpy.int64))
    assert reads <= 6 + 1  # (a count per step, and the last read: its positions were a read each)
