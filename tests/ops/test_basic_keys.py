"""The plain parse of a basic index (``ops/basic_keys.py``) against NumPy's own indexing: for keys of
ints, slices, ``None`` and ``...`` over arrays of many shapes, the parse's index, taken axis by axis
and reshaped to its shape, is NumPy's ``a[key]``; its sizes, starts and flags agree with it."""

import itertools

import numpy as np
import pytest

from nabla.ops.basic_keys import plain_key

_BOUNDS = [None, 0, 1, 2, -1, -2, 4, -5, 9, -9]
_PARTS = [slice(a, b, c) for a, b, c in itertools.product(_BOUNDS, _BOUNDS, (None, 1, 2, -1, -3))] \
    + [0, 1, -1, 3, -4, 7, None, Ellipsis]


def _check(shape, key):
    a = np.arange(int(np.prod(shape))).reshape(shape)
    try:
        want = a[key]
    except IndexError:
        want = None
    parsed = plain_key(shape, key)
    if parsed is None:  # (refused: an element, an index out of range, two ``...``)
        one_element = want is not None and np.ndim(want) == 0
        assert want is None or one_element or key.count(Ellipsis) > 1, (shape, key)
        return
    index, after, same, whole, sizes, starts = parsed
    assert want is not None and np.ndim(want) > 0 or after == (), (shape, key)
    got = a[np.ix_(*[list(range(s, e, st)) for s, e, st in index])].reshape(after) if index else a.reshape(after)
    np.testing.assert_array_equal(got, want)
    assert sizes == tuple((len(range(s, e, st)), st) for s, e, st in index) and starts == tuple(s for s, _, _ in index)
    assert same == (None not in key and not any(type(k) is int for k in key))
    assert whole == (got.size == a.size and all(i == (0, n, 1) for i, n in zip(index, shape)))


@pytest.mark.parametrize("shape", [(1, 1), (1, 5), (5, 1), (3, 4), (7, 2), (0, 3), (3, 0), (4,), (2, 3, 4)])
def test_plain_parse_is_numpys_indexing(shape):
    rng = np.random.default_rng(sum(shape))
    for _ in range(3000):
        n = rng.integers(1, 4)
        key = tuple(_PARTS[k] for k in rng.integers(0, len(_PARTS), n))
        _check(shape, key)


@pytest.mark.parametrize("shape", [(6,), (4, 6), (1, 3)])
def test_kept_parses_are_the_keys_own(shape):
    """``plain_key`` keeps its parses per key: each key, asked again after others whose bounds hash
    alike, parses as NumPy indexes it (a bare slice, a bare int, two parts of slices and ints)."""
    keys = [slice(1, -1), slice(None, None, 2), slice(-2, None, -1), 0, -1, 2,
            (1, slice(2, None)), (slice(1, 2), 1), (slice(1, None), slice(None, -1, 2)), (0, slice(None, None, -1))]
    for key in keys + keys[::-1]:
        parts = key if type(key) is tuple else (key,)
        if len(parts) > len(shape):
            continue
        _check(shape, parts)
        assert plain_key(shape, key) == plain_key(shape, parts)


def test_slices_whose_bounds_hash_alike_are_numpys():
    """Bounds that hash as the ints they hold (True, NumPy's integers, 0-d arrays) take NumPy's slices
    whatever was sliced before: ``x[1:]`` then ``x[True:]``, ``x[np.int64(1):]``, ``x[one:]``."""
    import nabla.numpy as nnp

    a = np.arange(12.0).reshape(3, 4)
    x = nnp.asarray(a)
    one = nnp.asarray(1)
    for key in [slice(1, None), slice(True, None), slice(np.int64(1), None), slice(one, None),
                (slice(1, None), slice(None, 2)), (slice(True, None), slice(None, np.int32(2))),
                (1, slice(one, None)), (True, slice(1, None))]:
        want = a[tuple(int(b) if isinstance(b, nnp.ndarray) else b for b in key) if type(key) is tuple else
                 slice(int(key.start) if isinstance(key.start, nnp.ndarray) else key.start, key.stop)]
        np.testing.assert_array_equal(np.asarray(x[key]), want)
