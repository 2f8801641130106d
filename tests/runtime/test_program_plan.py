"""How a program is bound and where its values live (``runtime/program_plan.py``): picks read from
host memory, small results carved from host blocks of their own."""

import numpy
import pytest

import nabla.numpy as np

pytestmark = pytest.mark.usefixtures("fused_on", "recorded_small_ops")


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_a_pick_makes_its_buffer_only_when_a_run_asks(dtype):
    """Picked elements of host data are read from their memory (a program's constants past its data
    slots, ``item``): a pick's driver buffer is made where something asks for it, with its value."""
    from nabla.core.values import _BUFFER, HostValue

    base = (numpy.arange(12).reshape(3, 4) % 3).astype(dtype)
    a = np.asarray(base)
    numpy.asarray(a)
    picks = [a[k // 4, k % 4] for k in range(12)]
    total = picks[0]
    for p in picks[1:]:
        total = total + p
    assert numpy.asarray(total).item() == base.sum()  # twelve one-element inputs: constants of the program
    assert picks[5].item() == base[1, 1].item()
    values = [p._impl._values[0] for p in picks]
    assert all(type(v) is HostValue and _BUFFER.__get__(v, HostValue) is None for v in values)
    v = values[6]
    assert v.buffer.to_numpy().item() == base[1, 2].item()  # asked: made, of the element's value
    assert _BUFFER.__get__(v, HostValue) is v.buffer


def test_small_results_are_host_memory_of_their_own():
    """A read's small results are views of host blocks (``result_memory.HostBlocks``), kept by the
    values as ``HostValue``s: read at once, used as leaves of later runs, written in place without
    touching the results beside them in the block; a large result is a kept block's view."""
    from nabla.core.values import HostValue

    x = np.asarray(numpy.arange(6.0))
    for _ in range(2):  # (two reads in a row take neighbouring memory of one block, but at its end)
        a, b = x * 2.0, x + 1.0
        numpy.asarray(a), numpy.asarray(b)
        va, vb = a._impl._values[0], b._impl._values[0]
        if va.host.base is vb.host.base:
            break
    assert type(va) is HostValue and type(vb) is HostValue and va.node is None
    assert va.host.base is not None and va.host.base is vb.host.base
    del va, vb  # (no reference but the array's own: nothing else tells a write to copy)
    seen = a.numpy()  # a NumPy view of a's memory, handed out: it keeps its values
    a[2] = -1.0  # (a copy of a's memory, then written), b's untouched
    numpy.testing.assert_array_equal(seen, numpy.arange(6.0) * 2)
    numpy.testing.assert_array_equal(numpy.asarray(a), [0.0, 2, -1, 6, 8, 10])
    numpy.testing.assert_array_equal(numpy.asarray(b), numpy.arange(6.0) + 1)
    c = (a + b).sum()  # a and b as leaves of a later run: their buffers made when it asks
    assert float(c) == float(numpy.sum(numpy.array([0.0, 2, -1, 6, 8, 10]) + numpy.arange(6.0) + 1))
    big = np.asarray(numpy.ones(100_000)) * 3.0
    numpy.asarray(big)
    assert type(big._impl._values[0]) is HostValue
    flags = np.asarray(numpy.arange(5)) > 2  # bool results too
    numpy.testing.assert_array_equal(numpy.asarray(flags), numpy.arange(5) > 2)


def test_large_results_take_a_kept_block_once_nothing_holds_it():
    """A result of ``_LARGE`` bytes or more is a view of a kept block (``LargeBlocks``): a run never
    writes into a block that a live result, or a NumPy view handed out of one, still holds; once
    they are gone the next run of that size takes the block again, so a loop's reads keep a few."""
    from nabla.runtime.result_memory import LARGE_BLOCKS

    base = numpy.arange(40_000.0)  # (320 KB a result)
    x = np.asarray(base)
    held = [x * float(k) for k in range(5)]
    seen = numpy.asarray(held[1] + 1.0)  # handed out: its array is gone, its view is not
    addresses = set()
    for k in range(6):
        r = x * float(k + 10)
        numpy.asarray(r)
        addresses.add(r._impl._values[0].address)
        del r
    for k, h in enumerate(held):  # none overwritten by the runs after them
        numpy.testing.assert_array_equal(numpy.asarray(h), base * k)
    numpy.testing.assert_array_equal(seen, base + 1.0)
    assert len(addresses) <= 2  # (the loop's results took one block again and again)
    before = LARGE_BLOCKS.kept_bytes()
    for k in range(20):
        numpy.asarray(x * float(k))
    assert LARGE_BLOCKS.kept_bytes() == before


def test_a_general_runs_results_are_host_memory_with_their_addresses():
    """A program of several kernel calls (a sort between them) gives its results as views of its
    block, each ``HostValue`` knowing its address (no driver buffer made for it: one is made where a
    later run or an export asks), with NumPy's values; a later run reads them as leaves."""
    from nabla.core.values import _BUFFER, HostValue

    base = numpy.random.default_rng(5).random(3000)
    x = np.asarray(base)
    y = np.sort(x * 2.0) + 1.0
    w = (x - 0.5) * 3.0
    numpy.testing.assert_array_equal(numpy.asarray(y), numpy.sort(base * 2.0) + 1.0)
    vy, vw = y._impl._values[0], w._impl._values[0]
    if vw.node is None:  # (read with y: a result of the same run)
        assert type(vw) is HostValue and vw.address == vw.host.ctypes.data
    assert type(vy) is HostValue and _BUFFER.__get__(vy, HostValue) is None
    assert vy.address == numpy.asarray(vy.host).ctypes.data
    numpy.testing.assert_array_equal(numpy.asarray(w), (base - 0.5) * 3.0)
    z = (y * w).sum()  # (both as leaves of a later run: read at their addresses)
    assert float(z) == float(((numpy.sort(base * 2.0) + 1.0) * ((base - 0.5) * 3.0)).sum())


def test_a_quick_runs_middle_sized_results_are_numpy_memory_of_their_own():
    """A one-call program's results past a host block's share and below MAX's allocator's sizes are
    NumPy memory of their own, each ``HostValue`` knowing its address, with NumPy's values; a write
    into one leaves the others as they were."""
    from nabla.core.values import _BUFFER, HostValue

    base = numpy.random.default_rng(2).random(4000)  # (32 KB a result)
    x = np.asarray(base)
    a, b = x * 2.0, x - 1.0
    numpy.testing.assert_array_equal(numpy.asarray(a), base * 2.0)
    numpy.testing.assert_array_equal(numpy.asarray(b), base - 1.0)
    va, vb = a._impl._values[0], b._impl._values[0]
    assert type(va) is HostValue and type(vb) is HostValue
    assert _BUFFER.__get__(va, HostValue) is None and va.address == va.host.ctypes.data
    assert va.host.base is None and vb.host.base is None  # (memory of their own, not a block's)
    del va, vb
    a[7] = -3.0
    numpy.testing.assert_array_equal(numpy.asarray(b), base - 1.0)
    want = base * 2.0
    want[7] = -3.0
    numpy.testing.assert_array_equal(numpy.asarray(a), want)
    assert float((a + b).sum()) == float((want + (base - 1.0)).sum())
