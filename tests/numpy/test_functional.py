"""``apply_along_axis`` against NumPy: a callable runs once over all the slices where it can
(``vmap``), once per slice where it reads a slice's data; the values are NumPy's either way."""

import random

import numpy
import pytest

import nabla
import nabla.numpy as nnp
from nabla.core.graph import GRAPH

RNG = numpy.random.default_rng(7)
X3 = RNG.random((4, 5, 6))


def _smooth(m):
    k = m.asarray([0.25, 0.5, 0.25])
    return lambda r: m.convolve(r, k, mode="same")


#: callables over a slice (given the face module ``m``), and whether they can run on all slices at once
CALLABLES = {
    "convolve": (_smooth, True),
    "sort": (lambda m: m.sort, True),
    "cumsum_tail": (lambda m: lambda r: m.cumsum(r)[1:] * 2.0, True),
    "median": (lambda m: m.median, True),
    "outer": (lambda m: lambda r: m.outer(r, r[:3]), True),
    "constant": (lambda m: lambda r: 3.5, True),
    "pair": (lambda m: lambda r: [r.min(), r.max()], True),
    "branch": (lambda m: lambda r: r * 2.0 if r[0] > 0.5 else -r, False),
    "mask": (lambda m: lambda r: r[r > 0.5].sum(), False),
    "float": (lambda m: lambda r: r * float(r.max()), False),
}


@pytest.mark.parametrize("name", sorted(CALLABLES))
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_values_are_numpys(name, axis):
    make, _ = CALLABLES[name]
    want = numpy.apply_along_axis(make(numpy), axis, X3)
    got = nnp.apply_along_axis(make(nnp), axis, nnp.asarray(X3))
    assert got.shape == want.shape and got.dtype == want.dtype
    numpy.testing.assert_allclose(numpy.asarray(got), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_calls(name):
    """A callable that only computes is called once, over every slice; one that reads a slice's data
    is then called once per slice, as NumPy calls it."""
    make, at_once = CALLABLES[name]
    f, calls = make(nnp), []

    def counted(r):
        calls.append(1)
        return f(r)
    numpy.asarray(nnp.apply_along_axis(counted, 2, nnp.asarray(X3)))
    assert len(calls) == (1 if at_once else 1 + 4 * 5)


def test_extra_arguments():
    want = numpy.apply_along_axis(lambda r, k, scale: r[:k] * scale, 1, X3, 2, scale=3.0)
    got = nnp.apply_along_axis(lambda r, k, scale: r[:k] * scale, 1, nnp.asarray(X3), 2, scale=3.0)
    numpy.testing.assert_allclose(numpy.asarray(got), want, rtol=1e-12)


def test_moves_of_batch_axes_run_on_the_program_kernel():
    """``vmap``'s moves of an axis into and out of the batch are transposes to the fused kernel:
    a mapped function's trace runs as one program, with no graph of MAX's built for it."""
    x = RNG.random((7, 9))
    before = dict(nabla.engine_stats())
    got = nabla.vmap(lambda r: r[1:] - r[:-1] * 2.0, in_axes=1, out_axes=1)(nnp.asarray(x))
    numpy.testing.assert_allclose(numpy.asarray(got), x[1:] - x[:-1] * 2.0, rtol=1e-15)
    after = nabla.engine_stats()
    assert after["interpreted"] == before["interpreted"] and after["graph_builds"] == before["graph_builds"]
    assert GRAPH.engine.stats.evaluations - before["evaluations"] == 1


def test_writes_are_numpys():
    """A callable that writes (into its slice, a view of it, or an array from outside) is called per
    slice, each write made as NumPy makes it, once per slice."""
    def writes(m, acc):
        def into_slice(r):
            r[1:][0] = -1.0
            return r.sum()

        def outside(r):
            acc[:2] += r[:2]
            return r.max()
        return into_slice, outside
    for k in range(2):
        want_x, want_acc = X3.copy(), numpy.zeros(2)
        want = numpy.apply_along_axis(writes(numpy, want_acc)[k], 2, want_x)
        got_x, got_acc = nnp.asarray(X3), nnp.zeros(2)
        got = nnp.apply_along_axis(writes(nnp, got_acc)[k], 2, got_x)
        for a, b in ((got, want), (got_x, want_x), (got_acc, want_acc)):
            numpy.testing.assert_allclose(numpy.asarray(a), b, rtol=1e-12)


def test_random_draws_are_per_slice():
    """A callable that draws random numbers draws them per slice, as called per slice: the values,
    and the generators' states after, are those of the loop (Nabla's generators; NumPy's and
    Python's global ones, their draws taken back)."""
    x = nnp.asarray(X3)

    def draws():
        nnp.random.seed(3)
        numpy.random.seed(4)
        random.seed(5)
        fs = [lambda r: nnp.random.permutation(r), lambda r: r + numpy.random.normal(size=r.shape),
              lambda r: r * random.random()]
        out = [numpy.asarray(nnp.apply_along_axis(f, 2, x)) for f in fs]
        return out, (float(nnp.random.random()), numpy.random.random(), random.random())

    def per_slice(f, axis, arr):
        moved = nnp.moveaxis(arr, axis, -1)
        return nnp.stack([nnp.stack([f(moved[i, j]) for j in range(5)]) for i in range(4)])
    got, after = draws()
    nnp.random.seed(3)
    numpy.random.seed(4)
    random.seed(5)
    want = [numpy.asarray(per_slice(lambda r: nnp.random.permutation(r), 2, x)),
            numpy.asarray(per_slice(lambda r: r + numpy.random.normal(size=r.shape), 2, x)),
            numpy.asarray(per_slice(lambda r: r * random.random(), 2, x))]
    for g, w in zip(got, want):
        numpy.testing.assert_array_equal(g, w)
    assert after == (float(nnp.random.random()), numpy.random.random(), random.random())
