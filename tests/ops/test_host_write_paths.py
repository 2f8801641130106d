"""Writes into realized host data beside what reads it (``nabla/ops/host_writes.py``): a slice write
while the array's row views are alive, a write at integer arrays, and the realized positions small
``arange``s are; NumPy's values against NumPy doing the same steps."""

import weakref

import numpy as onp
import pytest

import nabla.numpy as np

from .test_host_data import _in_place, _realized


@pytest.mark.parametrize("width", [300, 3000])
def test_row_writes_beside_live_row_views_go_in_place_as_numpys(width):
    """``y = ys[i]; ys[i + 1] = f(y)`` with a read each step (an integrator's history): the write goes
    into ys's memory while y is alive (its slice is all that holds it), where each step copied the
    whole array; views of ys see the write as NumPy's do, and a value recorded over a view before the
    write keeps what it read."""
    def history(m, steps=12):
        ys = m.zeros((steps, width))
        ys[0] = m.linspace(0.1, 2.0, width)
        rows = []
        for i in range(steps - 1):
            y = ys[i]
            ys[i + 1] = y + 0.01 * (m.cos(y) - 0.3 * y)
            rows.append(y)
            if float(ys[i + 1].max()) > 1e6:
                break
        return ys, rows
    ours, ours_rows = history(np)
    theirs, their_rows = history(onp)
    onp.testing.assert_array_equal(ours.numpy(), theirs)
    for got, want in zip(ours_rows, their_rows):
        onp.testing.assert_array_equal(onp.asarray(got), want)
    if width <= 2048:  # (its rows' ops at once: after a copy into memory of its own, writes go in place)
        ours[3] = ours[2] * 2.0
        host = weakref.ref(ours._impl._values[0].host)
        ours[4] = ours[2] * 3.0
        assert _in_place(ours) and ours._impl._values[0].host is host()
        onp.testing.assert_array_equal(onp.asarray(ours_rows[3]), theirs[2] * 2.0)  # (a view sees the write)

    a = _realized(np.asarray(onp.arange(4.0 * width).reshape(4, width)))
    b = onp.arange(4.0 * width).reshape(4, width)
    ra, rb = a[1], b[1]
    ea, eb = a[2], b[2]
    early = ea * 1.0  # (computed at once, or recorded: either way the values before the write)
    a[1] = a[3] + 1.0
    b[1] = b[3] + 1.0
    a[2] = 7.0
    b[2] = 7.0
    onp.testing.assert_array_equal(onp.asarray(ra), rb)
    onp.testing.assert_array_equal(onp.asarray(ea), eb)
    onp.testing.assert_array_equal(onp.asarray(early), onp.arange(4.0 * width).reshape(4, width)[2])
    onp.testing.assert_array_equal(a.numpy(), b)


def test_writes_at_integer_arrays_go_in_place_as_numpys():
    """``S[i, j] = v`` at realized integer arrays (an anti-diagonal dynamic program's step) writes into
    S's memory at once, S staying realized for the next step's gathers at once: NumPy's values (ints
    beside the arrays, negative positions, the last of repeated positions, a broadcast value), and
    NumPy's errors with S untouched."""
    def dp(m):
        S = m.zeros((31, 29), dtype=m.int64)
        for d in range(2, 59):
            i = m.arange(max(1, d - 28), min(30, d - 1) + 1)
            j = d - i
            S[i, j] = m.maximum(S[i - 1, j - 1] + 1, S[i - 1, j] - 2)
        return S
    ours = dp(np)
    assert _in_place(ours)
    onp.testing.assert_array_equal(ours.numpy(), dp(onp))
    for key, value in (((onp.array([0, 2, 2]), onp.array([1, -1, 3])), onp.array([1.5, 2.5, 3.5])),
                       ((1, onp.array([0, 3, 0])), 7.0), ((onp.array([[0], [2]]), onp.array([1, 2])), onp.array([4.0, 5.0]))):
        a = _realized(np.asarray(onp.arange(20.0).reshape(4, 5)))
        b = onp.arange(20.0).reshape(4, 5)
        a[tuple(np.asarray(k) if isinstance(k, onp.ndarray) else k for k in key)] = \
            np.asarray(value) if isinstance(value, onp.ndarray) else value
        b[key] = value
        assert _in_place(a)
        onp.testing.assert_array_equal(a.numpy(), b)
    a = _realized(np.asarray(onp.arange(20.0).reshape(4, 5)))
    with pytest.raises(IndexError):
        a[np.asarray(onp.array([0, 9])), np.asarray(onp.array([1, 1]))] = 1.0
    with pytest.raises(ValueError):
        a[np.asarray(onp.array([0, 1])), np.asarray(onp.array([1, 1]))] = np.asarray(onp.ones(3))
    onp.testing.assert_array_equal(a.numpy(), onp.arange(20.0).reshape(4, 5))


def test_small_aranges_are_realized_at_once():
    for args in ((5,), (1, 18), (3, 1, -1), (0.5, 3, 0.5), (0,), (2, 9, 3)):
        got = np.arange(*args)
        if got.size:
            assert got._impl._values[0].node is None
        onp.testing.assert_array_equal(got.numpy(), onp.arange(*args))


@pytest.mark.parametrize("dtype", ["float64", "int64", "float32"])
def test_element_writes_beside_live_views_go_in_place_as_numpys(stats, dtype):
    """A dynamic program's ``row = t[m]`` alive while it writes ``t[n, k] = ...``: each write goes
    into t's memory at once (no copy of t, no recorded write, no read of a trace), and the row views,
    a slice of one and a value recorded over one before a write read what NumPy's do."""
    def program(m):
        t = m.zeros((6, 5), dtype=dtype)
        row, col = t[2], t[:, 1]
        seen = []
        for j in range(5):
            t[2, j] = j + 3
            seen.append(row[j])  # (a pick through the view: read from t's memory)
        t[2, 1] = 7
        seen += [row[1], col[2]]
        doubled = row * 2  # (recorded or at once: either way the values before the next write)
        t[2, 3] = -1
        sub = row[1:4]
        t[2, 2] = 9
        seen += [doubled[3], row[3], sub[1]]
        for k in range(5):  # (writes into other rows while the views live)
            t[4, k] = t[2, k] + k
        return t, row, col, doubled, sub, seen

    ours, theirs = program(np), program(onp)
    for got, want in zip(ours[:5], theirs[:5]):
        onp.testing.assert_array_equal(onp.asarray(got), want)
    assert [onp.asarray(s).item() for s in ours[5]] == [s.item() for s in theirs[5]]
    t = _realized(np.asarray(theirs[0]))
    row, ref = t[2], theirs[0].copy()
    t[3, 0] = 0  # (into memory of t's own)
    host = weakref.ref(t._impl._values[0].host)
    base = stats()["evaluations"]
    for k in range(5):
        t[3, k] = row[k] + 1
        ref[3, k] = ref[2, k] + 1
    assert stats()["evaluations"] == base and _in_place(t) and t._impl._values[0].host is host()
    onp.testing.assert_array_equal(t.numpy(), ref)
    onp.testing.assert_array_equal(onp.asarray(row), ref[2])


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_element_writes_go_in_place_as_numpys(stats, dtype):
    """``X[k] += x[n] * exp(-2j * pi * k * n / N)`` (a DFT by hand) and ``w[i] = w[i - 1] * c + d``:
    each complex element write goes into the array's (re, im) pairs at once, as a real one does (it
    was recorded, and the array read every few steps); values NumPy's to the bit."""
    def program(m):
        x = m.asarray((onp.arange(8) + 1j * onp.arange(8)[::-1]).astype(dtype))
        X = m.zeros(8, dtype=dtype)
        for k in range(8):
            for n in range(8):
                X[k] += x[n] * m.exp(-2j * onp.pi * k * n / 8)
        w = m.zeros(6, dtype=dtype)
        w[0] = 1
        for i in range(1, 6):
            w[i] = w[i - 1] * (0.9 + 0.3j) + 2.5
        w[5] = -3
        return X, w

    ours, theirs = program(np), program(onp)
    for got, want in zip(ours, theirs):
        assert got.dtype == want.dtype
        onp.testing.assert_array_equal(onp.asarray(got), want)
    X, Y = ours[0], theirs[0]
    X[0] = Y[0] = 0  # (into memory of X's own: complex64's run wrote a complex128 sum through a cast)
    host = weakref.ref(X._impl._values[0].host)
    base = stats()["evaluations"]
    for k in range(8):
        X[k] = X[(k + 1) % 8] * 1j
        Y[k] = Y[(k + 1) % 8] * 1j
    assert stats()["evaluations"] == base and _in_place(X) and X._impl._values[0].host is host()
    onp.testing.assert_array_equal(X.numpy(), Y)


@pytest.mark.parametrize("target, source", [("float64", "int64"), ("int32", "float64"), ("bool", "float64"),
                                            ("uint8", "int64"), ("float64", "float32"), ("int64", "bool")])
def test_slice_writes_of_another_dtype_are_cast_and_go_in_place(stats, target, source):
    """``row[:] = np.arange(5) * i`` into a float array, and any cast NumPy's assignment makes (floats
    truncated into integers, nonzero into bools, integers wrapped into narrower unsigned ones): the
    value is cast at once and written into the array's memory, the array and its views NumPy's."""
    data = onp.array([[-2.7, 0.0, 3.5, 260.0, -1.0], [1.5, 2.5, -0.0, 7.9, 300.0]]).astype(source)
    ours, theirs = _realized(np.zeros((3, 5), dtype=target)), onp.zeros((3, 5), dtype=target)
    ours[0, 0] = 0  # (into memory of its own)
    host = weakref.ref(ours._impl._values[0].host)
    view, their_view = ours[1], theirs[1]
    base = stats()["evaluations"]
    for k in range(2):
        src = _realized(np.asarray(data[k]))
        ours[k + 1, :] = src
        theirs[k + 1, :] = data[k]
        ours[0, 1:4] = src[1:4]
        theirs[0, 1:4] = data[k][1:4]
    assert stats()["evaluations"] == base and _in_place(ours) and ours._impl._values[0].host is host()
    onp.testing.assert_array_equal(ours.numpy(), theirs)
    onp.testing.assert_array_equal(onp.asarray(view), their_view)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int16", "uint8", "bool"])
def test_masked_writes_are_selects_at_once_as_numpys(stats, dtype):
    """``a[a > t] = v`` and ``row[row > t] = v`` through a view, with a Python scalar, a picked element
    or a 0-d array: each a select over the array, computed at once on small realized data (no read
    of a trace), the array and its views NumPy's."""
    def program(m):
        rng = onp.random.default_rng(5)
        a = m.asarray((rng.standard_normal((5, 4)) * 10).astype(dtype))
        row, col = a[1], a[:, 2]
        a[a > 3] = False if dtype == "bool" else 0
        a[a < -2] = 1 if dtype in ("uint8", "bool") else -1
        row[row > 1] = True if dtype == "bool" else 7
        mask = m.asarray(rng.random((5, 4)) > 0.5)
        a[mask] = a[2, 3]
        a[~mask] = m.asarray(onp.array(1.5 if dtype.startswith("float") else 1, dtype))
        return a, row, col

    _realized(np.asarray(onp.zeros(2)))
    base = stats()["evaluations"]
    ours = program(np)
    assert stats()["evaluations"] == base
    for got, want in zip(ours, program(onp)):
        assert got.dtype == want.dtype
        onp.testing.assert_array_equal(onp.asarray(got), want)
