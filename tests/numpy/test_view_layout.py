"""A reshape, ravel, ``ascontiguousarray``, ``asfortranarray`` or ``asarray(order=)`` of a view is
NumPy's view where the view's memory lays its elements out so, else a copy: a write into the result
reaches the base exactly where NumPy's does (against NumPy, the oracle, for each kind of view)."""

import numpy
import pytest

import nabla.numpy as np

CASES = {
    "transpose ravel": lambda m, c: c.T.ravel(),
    "ravel of a transpose": lambda m, c: m.ravel(c.T),
    "transpose reshape": lambda m, c: c.T.reshape(-1),
    "transpose reshape 2d": lambda m, c: c.T.reshape(6, 2),
    "transpose reshape as it is": lambda m, c: c.T.reshape(4, 3),
    "transpose reshape axes of one": lambda m, c: c.T.reshape(1, 4, 3, 1),
    "columns reshape": lambda m, c: c[:, 1:3].reshape(-1),
    "strided columns reshape": lambda m, c: c[:, ::2].reshape(-1),
    "strided columns ravel": lambda m, c: c[:, ::2].ravel(),
    "strided rows reshape": lambda m, c: c[::2].reshape(-1),
    "reversed ravel": lambda m, c: c[::-1].ravel(),
    "flip reshape": lambda m, c: m.flip(c, 1).reshape(-1),
    "rows reshape": lambda m, c: c[1:].reshape(-1),
    "a row reshape": lambda m, c: c[1].reshape(2, 2),
    "a column reshape": lambda m, c: c[:, 1].reshape(3, 1),
    "whole reshape": lambda m, c: c.reshape(6, 2),
    "contiguous of a transpose": lambda m, c: m.ascontiguousarray(c.T),
    "contiguous of rows": lambda m, c: m.ascontiguousarray(c[1:]),
    "fortran of an array": lambda m, c: m.asfortranarray(c),
    "fortran of a transpose": lambda m, c: m.asfortranarray(c.T),
    "asarray in F order": lambda m, c: m.asarray(c, order="F"),
    "asarray of a transpose in C order": lambda m, c: m.asarray(c.T, order="C"),
    "asarray of a transpose in any order": lambda m, c: m.asarray(c.T, order="K"),
    "axes added to a transpose": lambda m, c: m.expand_dims(c.T, 0),
    "new axis of a transpose": lambda m, c: c.T[None],
    "squeeze of a transpose": lambda m, c: c.T[None].squeeze(),
    "moveaxis reshape": lambda m, c: m.moveaxis(c.reshape(3, 2, 2), 0, -1).reshape(-1),
    "swapaxes reshape splitting": lambda m, c: m.swapaxes(c.reshape(3, 2, 2), 1, 2).reshape(3, 2, 2),
    "transpose reshape then slice": lambda m, c: c.T.reshape(-1)[::2],
    "flatten": lambda m, c: c.T.flatten(),
    "atleast_3d": lambda m, c: m.atleast_3d(c),
    "atleast_2d of a row": lambda m, c: m.atleast_2d(c[1]),
    "atleast_1d of an element": lambda m, c: m.atleast_1d(c[1:2, 2:3].reshape(())),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_reshape_of_a_view_writes_through_where_numpys_does(name):
    make = CASES[name]
    ours, ref = np.arange(12.0).reshape(3, 4), numpy.arange(12.0).reshape(3, 4)
    r_ours, r_ref = make(np, ours), make(numpy, ref)
    assert r_ours.shape == r_ref.shape
    numpy.testing.assert_array_equal(numpy.asarray(r_ours), r_ref)
    at = (0,) * r_ref.ndim
    r_ours[at] = -1.0
    r_ref[at] = -1.0
    r_ours[...] *= 10
    r_ref[...] *= 10
    numpy.testing.assert_array_equal(numpy.asarray(ours), ref)
    numpy.testing.assert_array_equal(numpy.asarray(r_ours), r_ref)


VIEWS = {
    "array": lambda m, c: c,
    "transpose": lambda m, c: c.T,
    "a column": lambda m, c: c[:, 1],
    "strided columns": lambda m, c: c[:, ::2],
    "reversed rows": lambda m, c: c[::-1],
    "a block": lambda m, c: c[1:3, 2:],
    "reversed block": lambda m, c: c[2:0:-1, 5:1:-2],
    "transposed 3-d": lambda m, c: c.reshape(2, 3, 4).transpose(2, 0, 1),
    "reshape of a strided slice": lambda m, c: c[:, ::2].reshape(12),
    "slice of a transpose": lambda m, c: c.T[1:, ::2],
    "a row with a new axis": lambda m, c: c.reshape(2, 3, 4)[1, :, None],
    "a column with a new axis first": lambda m, c: c.reshape(2, 3, 4)[None, :, 2, ::3],
}


@pytest.mark.parametrize("name", sorted(VIEWS))
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_a_views_strides_and_flags_are_numpys(name, dtype):
    """``strides`` of a view are over the memory it views, ``flags`` say whether it is one run in C
    or Fortran order, and ``as_strided`` reads that memory from the view's first element."""
    from numpy.lib.stride_tricks import as_strided as numpy_strided
    from nabla.numpy.lib.stride_tricks import as_strided

    ref = numpy.arange(24, dtype=dtype).reshape(4, 6)
    ours, want = VIEWS[name](np, np.asarray(ref)), VIEWS[name](numpy, ref)
    assert ours.strides == want.strides
    assert (ours.flags.c_contiguous, ours.flags.f_contiguous) == (want.flags.c_contiguous, want.flags.f_contiguous)
    shape = (2,) + want.shape[1:]
    numpy.testing.assert_array_equal(numpy.asarray(as_strided(ours, shape, ours.strides)),
                                     numpy_strided(want, shape, want.strides))


def test_shares_memory_and_may_share_memory_are_numpys():
    def answers(m):
        a = m.asarray(numpy.arange(12.0))
        A, other = a.reshape(3, 4), m.asarray(numpy.arange(12.0))
        pairs = [(a, a), (a, a[::2]), (a[::2], a[1::2]), (a[:5], a[5:]), (a[:6], a[5:]), (A.T, a),
                 (A[:, 1], A[:, 2]), (A[:, 1], A.T[1]), (a, other), (a, a.copy()), (A.ravel(), a),
                 (A.T.ravel(), a), (a[::-1], a[:1]), (a[:0], a)]
        return [(m.shares_memory(x, y), m.may_share_memory(x, y)) for x, y in pairs]

    assert answers(np) == answers(numpy)


def test_writes_through_flat_reach_the_array_whatever_its_layout():
    """``g.T.flat[k] = v`` writes g's elements in the transpose's C order, as NumPy's flatiter, where
    ``g.T.ravel()`` is a copy."""
    def run(m):
        g = m.arange(8).reshape(2, 4)
        g.T.flat[0] = -7
        g.T.flat[[1, 2]] = -9
        g[:, ::2].flat[1] = 55
        return g, list(g.T.flat)

    ours, theirs = run(np), run(numpy)
    numpy.testing.assert_array_equal(numpy.asarray(ours[0]), theirs[0])
    assert [int(v) for v in ours[1]] == [int(v) for v in theirs[1]]


def test_broadcast_arrays_are_views_of_their_arrays():
    """Each result sees later writes to its array, one of the common shape being the array itself."""
    import warnings

    def run(m):
        a, b, c = m.zeros(3), m.zeros((2, 1)), m.ones((2, 3))
        x, y, z = m.broadcast_arrays(a, b, c)
        a[0], b[1, 0] = 5.0, 7.0
        return x, y, z is c, m.shares_memory(x, a)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        ours, theirs = run(np), run(numpy)
    for got, want in zip(ours, theirs):
        numpy.testing.assert_array_equal(numpy.asarray(got), want)


def test_diag_of_a_matrix_is_its_read_only_view():
    """``np.diag(a)`` sees later writes to ``a`` and refuses a write, as NumPy's (``diagonal``'s view)."""
    for m in (numpy, np):
        a = m.arange(9.0).reshape(3, 3)
        d, above = m.diag(a), m.diag(a, 1)
        a[0, 0], a[1, 2] = 7.0, -1.0
        assert numpy.asarray(d).tolist() == [7.0, 4.0, 8.0] and numpy.asarray(above).tolist() == [1.0, -1.0]
        with pytest.raises(ValueError):
            d[0] = 1.0
