"""Keying traces by structure (``core/trace_lowering.py``): constants are data, sizes and steps
structure, each node keyed by the memo it was recorded with."""

import numpy as np
import pytest

import nabla as nb


def test_constants_keep_their_bits():
    x = nb.asarray(np.ones(3, np.float32))
    np.testing.assert_array_equal((x * 0.0).numpy(), np.zeros(3))
    np.testing.assert_array_equal(np.signbit((x * -0.0).numpy()), np.ones(3, bool))  # -0.0 is not 0.0
    np.testing.assert_array_equal((x * 2.0).numpy(), np.full(3, 2.0))


def test_complex_constants_keep_their_parts_bits():
    """A complex scalar and a complex fill hold their parts' bits: the same structure with 0j,
    -0 + 0j, 0 - 0j or NaN parts gives each its own value, signs kept."""
    data = np.array([-0.0 - 0.0j, 1.5 - 0.0j], np.complex128)
    x = nb.asarray(data)
    for c in (0j, complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0), 0j):
        for got, want in ((x + c, data + c), (nb.full((2,), c, dtype="complex128"), np.full(2, c))):
            got = got.numpy()
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(np.signbit(got.real), np.signbit(want.real))
            np.testing.assert_array_equal(np.signbit(got.imag), np.signbit(want.imag))
    nan = complex("nan+nanj")
    np.testing.assert_array_equal(np.isnan((x * nan).numpy()), np.isnan(data * nan))


def test_static_shape_ops_key_by_size(stats, no_fused):
    # reshape's target shape is concrete, so a new size is a new structure
    for n in (4, 6):
        a = np.arange(n, dtype=np.float32)
        np.testing.assert_array_equal(nb.asarray(a).reshape(2, -1).numpy(), a.reshape(2, -1))
    assert stats()["graph_builds"] == 2


def test_a_trace_of_concats_lowers_with_its_sizes():
    """``pad`` of a 2-d array is two concats in one trace: after the first, MAX sees a row count
    ``d1 + d3 + 1`` it cannot match with the ``d0`` of the same value, so such a trace keeps its
    sizes (its symbolic lowering must not fail, and its values are NumPy's)."""
    from nabla.core.graph import GRAPH
    import nabla.numpy as fnp

    a = np.arange(20, dtype=np.uint8).reshape(4, 5)
    out = fnp.pad(fnp.asarray(a), (1, 3))
    values = [v for v in out._impl._values if v.node is not None]
    GRAPH.engine.lower(values, symbolic=True)
    np.testing.assert_array_equal(np.asarray(out), np.pad(a, (1, 3)))


@pytest.mark.usefixtures("recorded_small_ops")
def test_long_structures_that_differ_between_the_signatures_a_key_hashes_stay_apart():
    """A long trace's key is hashed by its length and some of its node signatures
    (``trace_lowering.TraceKey``): two loops that differ only in one op the hash skips hash alike,
    compare unequal, and each runs its own program."""
    from nabla.core.graph import GRAPH
    from nabla.core.trace_lowering import TraceKey

    def loop(x, middle):
        for k in range(200):
            x = x * 1.01 + 1.0 if k != 101 else middle(x)
        return x

    a = np.linspace(0, 1, 16)
    got = [loop(nb.asarray(a), m) for m in (lambda x: x * 2.0, lambda x: x - 3.0)]
    keys = [GRAPH.engine.trace([g._impl._values[0]]).key for g in got]
    assert all(type(k) is TraceKey for k in keys)
    assert hash(keys[0]) == hash(keys[1]) and keys[0] != keys[1]
    for g, m in zip(got, (lambda x: x * 2.0, lambda x: x - 3.0)):
        np.testing.assert_allclose(g.numpy(), loop(a, m), rtol=1e-12)


@pytest.mark.usefixtures("recorded_small_ops")
@pytest.mark.parametrize("key", [(1, slice(2, 5)), (slice(None), 3), (slice(1, -1), slice(None, -2)), (Ellipsis, 2),
                                 (None, 1, slice(0, 6, 2)), (slice(None, None, -1),), (2, Ellipsis, slice(1, 3)),
                                 (slice(5, 1, -2), None, 4)])
def test_a_slice_and_a_slice_write_carry_the_memo_keying_would_make(key):
    """A basic index records its node with the keying memo its parse found (``index_memo``): the
    same as keying makes from the node, its index structure the one shared object."""
    import nabla.numpy as fnp
    from nabla.core.trace_lowering import node_memo

    a = fnp.asarray(np.random.default_rng(0).random((6, 7, 5)))
    b = fnp.asarray(np.random.default_rng(1).random((6, 7, 5)))
    b[key] = 1.5
    for node in (a[key]._impl._values[0].node, b._impl._values[0].node):
        made = node.memo
        assert made is not None
        node.memo = None
        again = node_memo(node)
        assert made == again and made[0] is again[0]


@pytest.mark.usefixtures("recorded_small_ops")
def test_a_vector_dots_sum_carries_the_memo_keying_would_make():
    import nabla.numpy as fnp
    from nabla.core.trace_lowering import node_memo

    a = fnp.asarray(np.arange(5.0))
    node = (a @ (a * 2.0))._impl._values[0].node
    made = node.memo
    node.memo = None
    assert made is not None and made == node_memo(node)


@pytest.mark.parametrize("a, b, apart", [
    (((0, 3, 1),), ((3, 6, 1),), True), (((0, 4, 1),), ((3, 6, 1),), False),
    (((5, 0, -1),), ((6, 9, 1),), True), (((5, 0, -1),), ((1, 3, 1),), False),
    (((0, 2, 1), (0, 10, 1)), ((0, 2, 1), (10, 20, 1)), True),  # (rows shared, columns apart)
    (((0, 2, 1), (0, 10, 1)), ((1, 3, 1), (5, 20, 1)), False), (((4, 4, 1),), ((0, 9, 1),), True)])
def test_regions_apart(a, b, apart):
    """Two basic slices share no element where their spans miss on some axis (or either is empty)."""
    from nabla.core.trace_lowering import regions_apart

    def memo(index):
        return tuple(i[0] for i in index), tuple((len(range(*i)), i[2]) for i in index)

    (fa, sa), (fb, sb) = memo(a), memo(b)
    assert regions_apart(fa, sa, fb, sb) is apart is regions_apart(fb, sb, fa, sa)
    cells = lambda index: {c for c in np.ndindex(*[20] * len(index))
                           if all(x in range(*i) for x, i in zip(c, index))}
    assert (not cells(a) & cells(b)) or not apart


@pytest.mark.usefixtures("recorded_small_ops")
def test_a_write_apart_from_its_arrays_slices_is_keyed_apart():
    """``a[i:i + n] = f(a[j:j + n])``: whether the two regions meet is in the key (its starts are
    data), so a write that may store where it reads shares no plan with one that may not."""
    import nabla.numpy as fnp
    from nabla.core.graph import GRAPH

    def key(i, j):
        a = fnp.asarray(np.arange(20.0)) * 1.0
        a[i:i + 5] = a[j:j + 5] * 2.0
        traced = GRAPH.engine.trace([a._impl._values[0]])
        return traced.key, bool(traced.write_relations)

    assert key(0, 10)[1] and key(12, 3)[1] and not key(0, 3)[1] and not key(4, 0)[1]
    assert key(0, 10)[0] == key(12, 3)[0] != key(0, 3)[0] == key(4, 0)[0]
