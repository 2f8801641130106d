"""Writes that store into the memory of a loop's fields: a read's results own their memory, and a
write whose array nothing outside the trace can see stores into it (``Trace.given``), where each
read copied the fields; and what still copies: a field seen from elsewhere keeps its values."""

import numpy
import pytest

import nabla.numpy as np
from .test_program import RNG, assert_same, both

pytestmark = pytest.mark.usefixtures("fused_on", "recorded_small_ops")


def relaxation(m, a, steps):
    """A convergence loop over two fields: each step writes each field's interior from the other
    and reads a scalar, so each step is a read whose leaves are the fields the step before gave."""
    a = a.copy()
    b = a.copy()
    errs = []
    for _ in range(steps):
        b[1:-1, 1:-1] = 0.25 * (a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1] + a[:-2, 1:-1])
        a[1:-1, 1:-1] = 0.25 * (b[1:-1, :-2] + b[1:-1, 2:] + b[2:, 1:-1] + b[:-2, 1:-1])
        errs.append(float(abs(a[3] - b[3]).max()))
    return a, b, m.asarray(errs)


def test_writes_store_into_the_fields_a_loops_last_read_gave(copies):
    """A read's results are memory their values own: the next step's writes store into it, where
    each step copied both fields (NumPy writes in place); NumPy's values."""
    want, got = both(relaxation, RNG.random((300, 200)), 6)
    assert_same(want, got)
    assert len(copies) >= 2 and copies[-1] == 0  # (the first step's leaves: the caller's memory, copied)


def test_a_written_field_seen_from_elsewhere_keeps_its_values():
    """A field whose old values something else can still see is copied before a write, as before:
    a NumPy view handed out, a pending op over it; each keeps the values it saw."""
    a = np.asarray(RNG.random((200, 100))) * 1.0
    float(a.sum())  # (a: a read's result, its own memory)
    seen = a.numpy()
    kept = seen.copy()
    a[1:-1] = 7.0
    float(a.sum())
    numpy.testing.assert_array_equal(seen, kept)
    b = np.asarray(RNG.random((200, 100))) * 1.0
    float(b.sum())
    before = numpy.asarray(b)
    pending = b * 1.0  # (over b's old values, not read yet)
    b[5:50] = 7.0
    float(b.sum())
    numpy.testing.assert_array_equal(numpy.asarray(pending), before)
    assert (numpy.asarray(b)[5:50] == 7.0).all()


def escapes(m, C, steps=12):
    """mandelbrot2's loop: the escaped points' iteration count and last value scattered by index
    into two result arrays (integer and complex) each step, the rest kept going; a count read per step."""
    n = C.shape[0]
    Xi, Yi = m.mgrid[0:n, 0:n]
    Xi, Yi, C = Xi.reshape(-1), Yi.reshape(-1), C.reshape(-1)
    N_ = m.zeros((n, n), dtype=m.int64)
    Z_ = m.zeros((n, n), dtype=m.complex128)
    Z = m.zeros(C.shape, m.complex128)
    for i in range(steps):
        Z = Z * Z + C
        out = abs(Z) > 2.0
        N_[Xi[out], Yi[out]] = i + 1
        Z_[Xi[out], Yi[out]] = Z[out]
        keep = m.logical_not(out)
        Z, Xi, Yi, C = Z[keep], Xi[keep], Yi[keep], C[keep]
    return N_, Z_


def test_index_writes_into_result_arrays_store_in_place(copies):
    """Index writes into arrays that the step before's read gave (an integer and a complex one) store
    into their memory, each a scatter into the array itself: no copy of either after the first step;
    NumPy's values."""
    x = numpy.linspace(-2.0, 0.5, 160)
    C = x + 1j * numpy.linspace(-1.2, 1.2, 160)[:, None]
    want, got = both(escapes, C)
    assert_same(want[:2], got[:2], exact=False)
    assert copies and max(copies[-4:]) == 0


def test_a_field_a_read_only_read_stays_its_own_and_takes_the_next_write(copies):
    """A read that only reads a field (a sum of it) leaves the field's memory its own: the write
    after it stores there, where it copied the whole field; NumPy's values, and a view handed out
    before the write keeps the values it saw."""
    base = RNG.random((301, 199))
    a = np.asarray(base) * 1.0
    float(a.sum())  # (a: a read's result, its own memory)
    total = float((a * 2.0).sum())  # (reads a, writes nothing)
    a[5:50] = 7.0
    got = a.numpy()
    want = base * 1.0
    numpy.testing.assert_allclose(total, (want * 2.0).sum(), rtol=1e-12)
    want[5:50] = 7.0
    numpy.testing.assert_array_equal(got, want)
    assert copies and copies[-1] == 0
    seen = a.numpy()
    kept = seen.copy()
    float((a * 3.0).sum())
    a[7:9] = -1.0
    float(a.sum())
    numpy.testing.assert_array_equal(seen, kept)
