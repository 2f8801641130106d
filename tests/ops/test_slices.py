"""Basic slices recorded as one node each (``ops/slices.py``): slices whose keys parse to the same
sizes but give other shapes (an int's axis dropped, a one-element slice's kept, an axis put in)
are other structures at a read, of pending and of realized data, with NumPy's shapes and values;
a slice taken again of the same pending value is one node."""

import numpy
import pytest

import nabla as nb
import nabla.numpy as np

RNG = numpy.random.default_rng(5)

#: keys of one parse's sizes and steps and other result shapes, read in one process: a column
#: (50,), a one-column slice (50, 1), a column with an axis put in (50, 1); each plus a vector of
#: 50, which broadcasts the first to (50,) and the others to (50, 50)
KEYS = [(slice(None), 3), (slice(None), slice(3, 4)), (Ellipsis, 3, None), (slice(None), 3)]


@pytest.mark.parametrize("pending", [False, True])
def test_slices_of_one_parse_and_other_shapes_are_numpys(pending):
    x = RNG.standard_normal((50, 60))  # (more than ops at once take: a pending one's ops are recorded)
    v = RNG.standard_normal(50)
    for _ in range(2):  # (the second time: every structure is kept, each read keyed again)
        for key in KEYS:
            ours = np.array(x)
            if pending:
                ours = ours * 1.0 + 0.0  # (recorded: its slices are nodes of the read's trace)
            got = (ours[key] + np.array(v)) * 2.0
            want = (x[key] + v) * 2.0
            assert got.shape == want.shape, key
            assert numpy.asarray(got).tobytes() == want.tobytes(), key


def test_a_slice_taken_again_of_one_pending_value_is_one_node():
    x = np.array(RNG.standard_normal((100, 100))) * 2.0  # (recorded: above ``SMALL_AT_ONCE``)
    a, b = x[1:-1, 2:], x[1:-1, 2:]
    assert a._impl._values[0] is b._impl._values[0]
    c = x[1:-1, 1:-1]
    assert c._impl._values[0] is not a._impl._values[0]
    before = nb.engine_stats()["evaluations"]
    got = numpy.asarray(a + b - c)
    assert nb.engine_stats()["evaluations"] - before == 1
    want = numpy.asarray(x)
    numpy.testing.assert_array_equal(got, want[1:-1, 2:] * 2 - want[1:-1, 1:-1])
