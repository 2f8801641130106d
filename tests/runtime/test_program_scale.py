"""How planning a program grows with the loop that recorded it (``runtime/program.py``): a loop that
reads nothing until its end is one trace, and its scheduler must cut it in work linear in the loop's
length (counted as the nodes its cuts walk), with NumPy's values."""

import numpy
import pytest

import nabla.numpy as np
from nabla.runtime import program_cut

pytestmark = pytest.mark.usefixtures("fused_on")


def walked(monkeypatch):
    """A list that gets the node count of every cut the scheduler walks."""
    counts = []
    walk = program_cut.Cut._walk

    def counting(self, value, buffer_of, stop_ids, deep):
        walk(self, value, buffer_of, stop_ids, deep)
        counts.append(len(self.origins))

    monkeypatch.setattr(program_cut.Cut, "_walk", counting)
    return counts


def bounces(m, x0, steps):
    """A particle loop's count of wall hits: ``count += hit.any(axis=1)`` crosses from a float test
    through bools to int64 at every step, a chain with more inputs than one program's slots."""
    x = m.array(x0)
    count = m.zeros(x0.shape[0], dtype=m.int64)
    for _ in range(steps):
        x = x * 1.01 - 0.004
        count += (x > 0.9).any(axis=1)
    return x, count


def test_a_loops_chain_across_kinds_plans_in_work_linear_in_its_length(monkeypatch):
    x0 = numpy.random.default_rng(3).random((3000, 2))
    counts = walked(monkeypatch)
    sizes = []
    for steps in (40, 80):
        counts.clear()
        got = [numpy.asarray(a) for a in bounces(np, x0, steps)]
        want = bounces(numpy, x0, steps)
        numpy.testing.assert_array_equal(got[1], want[1])
        numpy.testing.assert_allclose(got[0], want[0], rtol=1e-13)
        sizes.append(sum(counts))
    # (a chain planned again one step shorter each time walks ~4x the nodes at twice the length)
    assert sizes[1] < 2.5 * sizes[0], sizes


def counter_of_tests(m, x0, steps):
    """An int64 counter of a float test feeding the float state back: parts of parts at every step."""
    x = m.array(x0)
    count = m.zeros(x0.shape[0], dtype=m.int64)
    for _ in range(steps):
        count += x > 0.5
        x = x * 0.97 + 0.01 * count.astype(m.float64) % 1.0
        x = x - m.floor(x)
    return x, count


def masked_updates(m, x0, steps):
    """In-place updates and masked fills of two arrays read by each other."""
    x, y = m.array(x0), m.ones(x0.shape[0])
    for _ in range(steps):
        x *= 1.01
        x += 0.001 * y
        x[x > 2.0] = -2.0
        y -= 0.5 * x
        y[m.abs(y) > 3.0] = 0.0
    return x, y


def scalar_sums(m, x0, steps):
    """0-d sums of a dot product a step: more computed one-element inputs than a stage's slots."""
    x, y = m.array(x0), m.array(x0[::-1].copy())
    s, t = m.zeros(()), m.zeros(())
    for _ in range(steps):
        x = 0.9 * x + 0.1 * y
        s = s + x @ y
        t = t + x.sum() * 1e-3
    return s, t, x


def where_of_itself(m, x0, steps):
    """A state that takes a test of itself each step while another computed chain feeds it: the
    evaluator refuses the top of each cut, and its parts come one step at a time."""
    x, q = m.array(x0), m.zeros(x0.shape[0])
    for _ in range(steps):
        x = x * 0.5 + 1.0
        q = m.where(q > 100.0, q, q + x)
    return q, x


@pytest.mark.parametrize("loop", [counter_of_tests, masked_updates, scalar_sums, where_of_itself])
def test_loops_that_read_nothing_plan_in_work_linear_in_their_length(monkeypatch, loop):
    x0 = numpy.random.default_rng(4).standard_normal(10_000)  # (recorded: above ``SMALL_AT_ONCE``)
    counts = walked(monkeypatch)
    sizes = []
    for steps in (40, 80):
        counts.clear()
        got = [numpy.asarray(a) for a in loop(np, x0, steps)]
        for g, w in zip(got, loop(numpy, x0, steps)):
            if w.dtype.kind == "f":
                numpy.testing.assert_allclose(g, w, rtol=1e-11, atol=1e-12)
            else:
                numpy.testing.assert_array_equal(g, w)
        sizes.append(sum(counts))
    assert sizes[1] < 2.5 * sizes[0], sizes


def test_a_join_of_many_pending_parts_takes_each_at_its_offset():
    """``np.concatenate`` of a loop's pieces, each computed (a list of per-step results joined at the
    end): each part is read at its running offset along the axis (a sum over the parts before it,
    per part, made 16,000 parts 128M steps), empty parts too, with NumPy's values."""
    base = numpy.cos(numpy.arange(3000) * 0.01)
    x = np.asarray(base)
    pieces = [x[i:i + (i % 3)] * 2.0 for i in range(0, 3000, 2)]  # (one in three empty)
    want = numpy.concatenate([base[i:i + (i % 3)] * 2.0 for i in range(0, 3000, 2)])
    numpy.testing.assert_array_equal(numpy.asarray(np.concatenate(pieces)), want)
