"""Single elements at the host boundary (``ops/picks.py``): a pick of host data is a read of memory,
a pick of a lazy source stays lazy."""

import numpy as np
import pytest

import nabla as nb


@pytest.mark.usefixtures("recorded_small_ops")
def test_picking_elements_reads_host_data_not_a_graph_per_index(stats):
    """``x[i, j]`` (an integer per axis) is a 0-d copy read from host data, as NumPy's scalar: code
    that checks arrays element by element (array-api-tests, for every example) made a graph per
    index (a new structure each: 1-6 ms apiece). A few picks of a lazy source stay lazy; a loop
    over its elements (the ``_LOOP_PICKS``-th pick of one value) realizes them with the source,
    once, and its later picks read memory."""
    a = np.arange(24, dtype=np.int16).reshape(2, 3, 4)
    lazy = nb.asarray(a) * 3 - 1
    base = stats()["evaluations"]
    picks = [lazy[i, j, k] for i in range(2) for j in range(3) for k in range(4)]
    assert stats()["evaluations"] == base + 1 and not lazy._impl.values_pending()
    assert [int(p) for p in picks] == [int(v) for v in (a * 3 - 1).ravel()] and str(picks[5]) == str(a.ravel()[5] * 3 - 1)
    assert all(p.dtype == nb.int16 and p.shape == () for p in picks)
    assert stats()["evaluations"] == base + 1
    few = nb.asarray(a) * 2
    picks = [few[0, 0, k] for k in range(4)]
    assert stats()["evaluations"] == base + 1 and few._impl.values_pending()  # a few: lazy
    assert [int(p) for p in picks] == [0, 2, 4, 6] and stats()["evaluations"] == base + 2
    x = nb.asarray(np.array([[1.0, 2.0], [3.0, 4.0]]))
    v = x[0, 1]
    x[0, 1] = 9.0  # a copy, as NumPy's scalar: the write does not reach it
    assert float(v) == 2.0 and float(x[0, 1]) == 9.0 and float(x[-1, -2]) == 3.0
    with pytest.raises(IndexError):
        x[2, 0]
    g = nb.grad(lambda t: t[1, 0] * 3.0 + t[0, 1])(x)  # under a transform a pick stays an op
    np.testing.assert_array_equal(g.numpy(), [[0.0, 1.0], [3.0, 0.0]])
    flag = nb.asarray(np.asarray(True))  # a 0-d bool array (MAX's from_numpy fails on it)
    assert bool(flag) and flag.shape == () and flag.dtype == nb.bool
    for dtype in (np.complex64, np.complex128):  # complex too (stored as (re, im) pairs)
        c = (np.arange(6).reshape(2, 3) - 1j * np.arange(6).reshape(2, 3) ** 2).astype(dtype)
        z = nb.asarray(c)
        base = stats()["evaluations"]
        assert [complex(z[i, j]) for i in range(2) for j in range(3)] == [complex(v) for v in c.ravel()]
        assert stats()["evaluations"] == base
        assert complex(z[1:][0, 2]) == complex(c[1, 2])  # a pick of a view: the view realized once


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                   "uint64", "float32", "float64", "complex64", "complex128"])
def test_picks_of_realized_data_equal_numpys_scalars(stats, dtype):
    """The key-parsing-free pick (an int per axis of realized host data): every real dtype's bits,
    extremes, -0.0 and NaN included, with no evaluation; the NumPy face's pick stays its array."""
    import nabla.numpy as fnp

    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    if dtype == "bool":
        a = np.array([[True, False, True], [False, True, True]])
    elif info is not None:
        a = np.array([[info.min, info.max, 0], [1, info.max - 1, info.min + 1]], dtype=dtype)
    elif np.dtype(dtype).kind == "f":
        a = np.array([[-0.0, np.nan, np.inf], [-np.inf, np.finfo(dtype).tiny, 1.5]], dtype=dtype)
    else:  # stored as (re, im) pairs
        a = np.array([[complex(-0.0, 1), complex(np.nan, -2), complex(3, np.inf)],
                      [complex(-np.inf, -0.0), complex(0, np.finfo(dtype).tiny), 1.5 - 2.5j]], dtype=dtype)
    x = nb.asarray(a)
    x.numpy()
    base = stats()["evaluations"]
    for i in (-2, 0, 1):
        for j in (-1, 0, 2):
            p = x[i, j]
            assert p.dtype == x.dtype and p.shape == ()
            assert p.numpy().tobytes() == a[i, j].tobytes()
            assert p.numpy().reshape(()).item() == a[i, j].item() or np.isnan(a[i, j])
            if dtype.startswith("complex"):
                assert np.array(complex(p), dtype).tobytes() == a[i, j].tobytes()
    assert x[1, 2].numpy().tobytes() == x[(1, 2)].numpy().tobytes()
    assert nb.asarray(a[0])[-1].numpy().tobytes() == a[0, -1].tobytes()  # one int on a 1-d tensor
    assert stats()["evaluations"] == base
    with pytest.raises(IndexError):
        x[2, 0]
    with pytest.raises(IndexError):
        x[0, -4]
    face = fnp.asarray(a)
    assert type(face[1, 1]) is fnp.ndarray and face[1, 1].numpy().tobytes() == a[1, 1].tobytes()


@pytest.mark.usefixtures("recorded_small_ops")
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint64", "float32", "complex128"])
def test_picks_of_pending_slices_read_the_sliced_data(stats, dtype):
    """``x[key][i, j]`` with ``x[key]`` a pending basic slice of realized data (an element check's
    ``a[1] * b[2]`` of a stack it sliced) reads the element from ``x``'s data: no run realizes the
    slice. Steps, negative steps, integers (their axes dropped by a reshape) and Ellipsis."""
    rng = np.random.default_rng(3)
    a = rng.integers(-100, 100, (4, 3, 5))
    a = (a + 1j * a[::-1]).astype(dtype) if dtype.startswith("complex") else a.astype(dtype)
    x = nb.asarray(a)
    x.numpy()
    base = stats()["evaluations"]
    for key in [(1, slice(None), 2), (slice(1, 4, 2), 0, slice(None, None, -2)), (-1, slice(0, 1), slice(4, 0, -1)),
                (Ellipsis, 3), (slice(None), slice(2, None), slice(None))]:
        part, ref = x[key], a[key]
        for idx in np.ndindex(ref.shape):
            p = part[idx]
            assert p.dtype == x.dtype and p.shape == () and p.numpy().tobytes() == np.asarray(ref[idx]).tobytes()
        assert not part._impl.is_realized
    assert stats()["evaluations"] == base


def test_picked_integers_index_as_numpys_integers(stats):
    """A picked integer (a 0-d array of host data) indexes as the integer NumPy's scalar is, in a
    read and in a write: ``for v in x: h[v] += 1`` and ``T[a, b] += 1`` over pairs of picks count
    as NumPy counts, each write into the array's memory at once (no read of a trace per step)."""
    import nabla.numpy as nnp

    seq = np.random.default_rng(7).integers(0, 5, 200)
    x, h, T = nnp.asarray(seq), nnp.zeros(5, dtype=nnp.int64), nnp.zeros((5, 5))
    h_ref, T_ref = np.zeros(5, np.int64), np.zeros((5, 5))
    base = stats()["evaluations"]
    for v in x:
        h[v] += 1
    for a, b in zip(x[:-1], x[1:]):
        T[a, b] += 1
        T[b, 1:] *= 1.0  # (a slice after a picked int)
    assert stats()["evaluations"] == base
    for v in seq:
        h_ref[v] += 1
    for a, b in zip(seq[:-1], seq[1:]):
        T_ref[a, b] += 1
    np.testing.assert_array_equal(np.asarray(h), h_ref)
    np.testing.assert_array_equal(np.asarray(T), T_ref)
    assert float(T[x[3], x[4]]) == T_ref[seq[3], seq[4]]


def test_a_loop_over_the_elements_of_pending_data_runs_at_once():
    """``t = t + a[i]`` and ``sum(a)`` over pending ``a``: the loop's picks realize ``a`` (with the
    loop's ``t``) once, so its picks read memory and its adds run at once. Each pick and add was a
    node of one trace of 2n nodes planned at the loop's end (8,000 steps: 0.4 s of a first call).
    The sums are NumPy's, added in the same order."""
    import nabla.numpy as nnp

    base = np.arange(3000) * 0.37
    a = nnp.arange(3000) * 0.37
    t = 0.0
    for i in range(3000):
        t = t + a[i]
    assert not a._impl.values_pending() and not t._impl.values_pending()
    want = 0.0
    for v in base:
        want = want + v
    assert float(t) == want
    b = nnp.arange(3000) * 0.37
    it = iter(b)
    next(it)
    assert not b._impl.values_pending()  # iterating reads every element: computed once
    assert float(sum(nnp.arange(3000) * 0.37)) == sum(base)
    view = nnp.asarray(base)[1:]  # a view of realized data is read through, not computed
    next(iter(view))
    assert view._impl.values_pending()
