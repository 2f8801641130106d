"""Operators and ufuncs with an operand that is pending work of its own (a stencil's ``(u - v) / dx``
after ``u - v`` was recorded): recorded directly, without asking the paths a pending operand always
refuses (``nabla/numpy/_ufuncs.py``, ``recorded_over_pending``). Values and dtypes against NumPy,
every dtype, both orders, arrays and Python scalars; the operands it does not take (other dtypes,
broadcasting shapes) go the general way with the same values."""

import operator
import warnings

import numpy as np
import pytest

import nabla.numpy as nnp
from nabla.core.at_once import SMALL_AT_ONCE
from nabla.numpy import _ufuncs

#: elements of an array whose ops are recorded, never at once (above ``SMALL_AT_ONCE``)
LARGE = 10_000
assert LARGE > SMALL_AT_ONCE

DTYPES = ["bool", "int8", "uint8", "int32", "uint64", "float32", "float64"]
SCALARS = [0.5, -3, 2, 2.0, np.float64(1.5), np.float32(0.25)]
BINARY = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul, "true_divide": operator.truediv,
          "maximum": np.maximum, "arctan2": np.arctan2, "power": operator.pow, "floor_divide": operator.floordiv,
          "less": operator.lt, "bitwise_and": operator.and_}


def data(dtype, seed, n):
    r = np.random.default_rng(seed)
    if dtype == "bool":
        return r.random(n) < 0.5
    if dtype.startswith(("int", "uint")):
        return r.integers(0 if dtype.startswith("u") else -9, 10, n).astype(dtype)
    return r.uniform(-4, 4, n).astype(dtype)


def pending(x):
    """``x`` as pending work of its own (a node over inputs, not a slice or a constant)."""
    a = nnp.asarray(x)
    out = nnp.maximum(a, a)
    assert out._impl._values[0].node is not None and out._impl._values[0].node.inputs
    return out


def check(fn, a, b, host, name):
    """``fn(a, b)`` against ``fn(*host)`` (NumPy's operands: reading a or b first would realize it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = np.asarray(fn(*host))
        except (TypeError, OverflowError, ValueError) as e:
            with pytest.raises(type(e)):
                fn(a, b)
            return
        got = fn(a, b)
        got = np.asarray(got)
    assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    if name in ("arctan2", "power", "true_divide") and want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=4 * np.finfo(want.dtype).eps, atol=0, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.fixture
def counted(monkeypatch):
    calls = []
    record = _ufuncs.recorded_plain_binary

    def counting(*args):
        out = record(*args)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(_ufuncs, "recorded_plain_binary", counting)
    return calls


@pytest.mark.parametrize("n", [7, LARGE])  # (7: small ops recorded, as a read's trace holds them)
@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", DTYPES)
def test_ops_over_pending_work_are_numpys(name, dtype, n, counted, request):
    if n <= SMALL_AT_ONCE:
        request.getfixturevalue("recorded_small_ops")
    fn = BINARY[name]
    x, y = data(dtype, 1, n), data(dtype, 2, n)
    if name == "power" and dtype.startswith("int"):  # (negative integer powers: docs/numpy.md)
        x, y = np.abs(x), np.abs(y) % 3
    p, q = pending(x), pending(y)
    check(fn, p, q, (x, y), name)
    check(fn, pending(x), nnp.asarray(y), (x, y), name)
    check(fn, nnp.asarray(x), pending(y), (x, y), name)
    for s in SCALARS:
        if name == "power" and not dtype.startswith("float") and type(s) is int and s < 0:
            continue
        check(fn, pending(x), s, (x, s), name)
        check(fn, s, pending(x), (s, x), name)
    if name in ("add", "subtract", "multiply", "maximum", "less") and dtype != "bool":
        assert any(counted), "no op over pending work was recorded directly"


def test_the_direct_recording_is_taken_and_refuses_what_it_does_not_take(counted):
    """``p + q`` and ``p * 0.5`` over float64 pending work are recorded directly (fails where the lane
    is never taken); broadcasting shapes and other dtypes are not, and keep NumPy's values."""
    x, y = data("float64", 1, LARGE), data("float64", 2, LARGE)
    p = pending(x)
    for f in (operator.add, operator.mul, operator.sub):  # (an op's first of a dtype asks its shape rule)
        f(pending(x), pending(y))
    counted.clear()
    r = p + pending(y)
    s = p * 0.5
    t = 2.0 - p
    assert counted == [True, True, True]
    np.testing.assert_array_equal(np.asarray(r), x + y)
    np.testing.assert_array_equal(np.asarray(s), x * 0.5)
    np.testing.assert_array_equal(np.asarray(t), 2.0 - x)
    counted.clear()
    m = pending(x.reshape(100, 100)) + nnp.asarray(y[:100])  # (broadcast: the general path)
    f = pending(x) + pending(y.astype(np.float32))  # (two dtypes: NumPy's promotion)
    assert not any(counted)
    np.testing.assert_array_equal(np.asarray(m), x.reshape(100, 100) + y[:100])
    np.testing.assert_array_equal(np.asarray(f), x + y.astype(np.float32))
