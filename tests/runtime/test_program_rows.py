"""Rows moved whole inside programs (runtime/program.py): a ``take`` along a leading axis of values
held in buffers is a copy of each row's bytes from the row its index names (a gather stage), of
every row size; values against NumPy."""

import numpy
import pytest

import nabla.numpy as np

from .conftest import counted_stages
from .test_program import RNG, assert_same, both

pytestmark = pytest.mark.usefixtures("fused_on", "recorded_small_ops")


@pytest.fixture
def gathers(monkeypatch):
    """The row-gather stages of each program planned from here on, one count per plan."""
    from nabla.runtime.program_kernel import GATHER
    return counted_stages(monkeypatch, GATHER)


# rows of 1, 4, 8, 16 and 24 bytes: bools, int32, float64 and complex64, complex128, rows of three
DATA = {
    "bool": RNG.random(3001) > 0.5,
    "int32": RNG.integers(-9, 9, 3001).astype(numpy.int32),
    "float64": RNG.standard_normal(3001),
    "complex64": (RNG.standard_normal(3001) + 1j * RNG.standard_normal(3001)).astype(numpy.complex64),
    "complex128": RNG.standard_normal(3001) + 1j * RNG.standard_normal(3001),
    "rows_of_three": RNG.standard_normal((3001, 3)),
}


@pytest.mark.parametrize("name", sorted(DATA))
def test_a_selection_of_rows_is_each_rows_bytes(name, gathers):
    """A mask's selection and an index's rows (repeats, any order, the first and last rows) of
    values in buffers: a gather stage, NumPy's values bit for bit."""
    index = numpy.array([3000, 0, 7, 7, 2999, 1, 1500, 0])

    def select(m, x, i):
        keep = (m.arange(x.shape[0]) % 3) == 1
        return x[keep], x[i], x[i][::-1]

    want, got = both(select, DATA[name], index)
    assert_same(want, got)
    assert sum(gathers) >= 1


def test_a_loop_that_shrinks_its_arrays_by_a_mask_each_step(gathers):
    """mandelbrot's loop: each step keeps the points not yet escaped (``Z = Z[I]``, ``C = C[I]`` and
    their coordinates), writes the escaped ones' counts and values at their coordinates, reads the
    count; NumPy's values."""
    def escape(m, c0):
        C = c0 * 1
        Z = m.zeros(C.shape, m.complex128)
        N = m.zeros(C.shape, m.int64)
        Zs = m.zeros(C.shape, m.complex128)
        at = m.arange(C.shape[0])
        for i in range(12):
            if not len(Z):
                break
            Z = Z * Z + C
            out = abs(Z) > 2.0
            N[at[out]] = i + 1
            Zs[at[out]] = Z[out]
            keep = ~out
            Z, C, at = Z[keep], C[keep], at[keep]
        return N, Zs

    grid = numpy.linspace(-2, 0.5, 60)[:, None] + 1j * numpy.linspace(-1.2, 1.2, 50)[None, :]
    want, got = both(escape, grid.ravel())
    assert_same(want[:1], got[:1])
    assert_same(want[1:], got[1:], exact=False)  # (a complex product's last bit: NumPy's loop is its own)
    assert sum(gathers) >= 12
