"""What NumPy scripts do with arrays as Python values, against NumPy: hashing 0-d results (``set``,
``Counter``), formatting and rounding them, NumPy's printing functions, flags, user subclasses
(``view(cls)``, ``__array_finalize__``), and dtype rules that depend on the data (``eig``) or on
the input kind (complex sorting, integer ``matrix_power``, ``lstsq``'s rank)."""

from __future__ import annotations

import collections

import numpy
import pytest

import nabla.numpy as fnp

R = numpy.random.default_rng(5)


@pytest.mark.parametrize("n", [1, 7, 1000])
def test_zero_d_results_hash_by_value_as_numpy_scalars(n):
    a = R.integers(0, 5, n)
    z = fnp.asarray(a)
    assert len(set(z)) == len(set(a))
    assert collections.Counter(z) == collections.Counter(a.tolist())
    assert (z[0] in {int(a[0])}) and {int(a[0]): "x"}.get(z[0]) == "x"
    f = fnp.asarray(a / 2)
    assert f.sum() in {float((a / 2).sum())}


def test_arrays_other_than_zero_d_are_unhashable_as_numpys():
    for m in (numpy, fnp):
        with pytest.raises(TypeError, match="unhashable"):
            hash(m.zeros(3))
        with pytest.raises(TypeError, match="unhashable"):
            {m.zeros((2, 2)): 1}  # noqa: B018
    assert hash(fnp.asarray(3.0)) == hash(3.0)  # (a 0-d one stands for NumPy's scalar)


@pytest.mark.parametrize("spec", ["", ".2f", "10.3e", "+.1%", "g"])
def test_format_of_zero_d_results_is_the_scalars(spec):
    a = numpy.array([1.25, -2.5, 0.125])  # a mean every summation order gives exactly
    f = fnp.asarray(a)
    assert format(f.mean(), spec) == format(a.mean(), spec)
    assert f"{f[1]:{spec}}" == f"{a[1]:{spec}}"
    assert "{:d}".format(fnp.asarray(numpy.arange(5)).sum()) == "10"


def test_format_of_arrays_is_str_and_refuses_a_spec_as_numpy():
    a = numpy.arange(4.0)
    assert f"{fnp.asarray(a)}" == f"{a}"
    with pytest.raises(TypeError):
        f"{fnp.asarray(a):.2f}"
    with pytest.raises(TypeError):
        f"{a:.2f}"


def test_round():
    a = numpy.array([2.567, -1.5, 0.5, 2.5])
    f = fnp.asarray(a)
    assert round(f.mean(), 2) == round(a.mean(), 2)
    for k in range(4):
        assert round(f[k]) == round(a[k]) and type(round(f[k])) is int
    for arrays in (f, a):  # arrays have no __round__ (NumPy's scalars do)
        with pytest.raises(TypeError):
            round(arrays, 1)


def test_numpys_printing_functions_and_can_cast_take_our_arrays():
    a = numpy.linspace(0, 1, 7)
    f = fnp.asarray(a)
    assert fnp.array2string(f, precision=2) == numpy.array2string(a, precision=2)
    assert fnp.array_repr(f) == numpy.array_repr(a) and fnp.array_str(f) == numpy.array_str(a)
    assert numpy.array2string(f) == numpy.array2string(a)
    assert fnp.can_cast(f, numpy.float32) == numpy.can_cast(a, numpy.float32)
    assert fnp.can_cast(fnp.asarray(numpy.arange(3)), numpy.float64)


@pytest.mark.parametrize("n", [1, 7, 1000])
@pytest.mark.parametrize("dtype", [numpy.complex64, numpy.complex128])
def test_complex_sort_argsort_unique_as_numpy(n, dtype):
    a = (R.integers(-3, 3, n) + 1j * R.integers(-3, 3, n)).astype(dtype)
    if n > 2:
        a[:3] = [complex(numpy.nan, 1), complex(1, numpy.nan), complex(numpy.nan, numpy.nan)]
    z = fnp.asarray(a)
    numpy.testing.assert_array_equal(fnp.sort(z).numpy(), numpy.sort(a))
    numpy.testing.assert_array_equal(fnp.sort(fnp.asarray(a.reshape(1, -1)), axis=1).numpy(),
                                     numpy.sort(a.reshape(1, -1), axis=1))
    numpy.testing.assert_array_equal(a[fnp.argsort(z, kind="stable").numpy()], a[numpy.argsort(a, kind="stable")])
    got = fnp.unique(z, return_counts=True)
    want = numpy.unique(a, return_counts=True)
    numpy.testing.assert_array_equal(got[0].numpy(), want[0])
    numpy.testing.assert_array_equal(got[1].numpy(), want[1])


@pytest.mark.parametrize("dtype", [numpy.int64, numpy.int32, numpy.uint8])
@pytest.mark.parametrize("power", [0, 1, 2, 5, 10])
def test_integer_matrix_power_is_exact(dtype, power):
    a = R.integers(0, 3, (2, 3, 3)).astype(dtype)
    got = fnp.linalg.matrix_power(fnp.asarray(a), power)
    want = numpy.linalg.matrix_power(a, power)
    assert got.dtype == want.dtype
    numpy.testing.assert_array_equal(got.numpy(), want)


def test_lstsq_rank_is_numpys_int32():
    a, b = R.random((8, 3)), R.random(8)
    rank = fnp.linalg.lstsq(fnp.asarray(a), fnp.asarray(b), rcond=None)[2]
    assert rank.dtype == numpy.linalg.lstsq(a, b, rcond=None)[2].dtype and int(rank) == 3


@pytest.mark.parametrize("matrix", [numpy.diag([1.0, 2.0, 3.0]), numpy.array([[0.0, -1.0], [1.0, 0.0]]),
                                    numpy.array([[2.0, 1.0], [1.0, 3.0]])])
def test_eig_of_a_real_matrix_is_real_where_numpys_is(matrix):
    w, v = fnp.linalg.eig(fnp.asarray(matrix))
    nw, nv = numpy.linalg.eig(matrix)
    assert w.dtype == nw.dtype and v.dtype == nv.dtype
    assert fnp.linalg.eigvals(fnp.asarray(matrix)).dtype == numpy.linalg.eigvals(matrix).dtype
    numpy.testing.assert_allclose(numpy.sort_complex(w.numpy()), numpy.sort_complex(nw), atol=1e-12)


@pytest.mark.parametrize("n,seed", [(5, 0), (6, 1), (50, 0), (12, 3)])
def test_eig_of_a_real_matrix_has_lapacks_real_structure(n, seed):
    """Real eigenvalues exactly real with real eigenvectors, complex ones in exact conjugate pairs
    with conjugate eigenvectors, as LAPACK's geev gives them: NumPy's ``isreal`` counts, the upper
    half plane's, and ``roots``' dtype are the same, and each pair still solves ``a v = w v``."""
    a = numpy.random.RandomState(seed).randn(n, n)
    w, v = (x.numpy() for x in fnp.linalg.eig(fnp.asarray(a)))
    nw = numpy.linalg.eigvals(a)
    assert numpy.isreal(w).sum() == numpy.isreal(nw).sum() and (w.imag > 0).sum() == (nw.imag > 0).sum()
    numpy.testing.assert_allclose(numpy.sort_complex(w), numpy.sort_complex(nw), atol=1e-10 * n)
    assert numpy.array_equal(numpy.sort_complex(w), numpy.sort_complex(numpy.conj(w)))  # exact pairs
    real = w.imag == 0
    assert (v[:, real].imag == 0).all()
    for j in numpy.flatnonzero(w.imag < 0):  # its pair's vector, conjugated
        (k,) = numpy.flatnonzero(w == numpy.conj(w[j]))[:1]
        numpy.testing.assert_array_equal(v[:, j], numpy.conj(v[:, k]))
    assert numpy.linalg.norm(a @ v - v * w) <= 1e-12 * n * numpy.linalg.norm(a)
    coefficients = numpy.poly(numpy.arange(1.0, 6.0))  # (x - 1) ... (x - 5): real roots
    r, nr = fnp.roots(fnp.asarray(coefficients)), numpy.roots(coefficients)
    assert r.dtype == nr.dtype and numpy.allclose(numpy.sort(r.numpy()), numpy.sort(nr))


def _named(module):
    class Named(module.ndarray):
        def __new__(cls, array, name="no name"):
            obj = module.asarray(array).view(cls)
            obj.name = name
            return obj

        def __array_finalize__(self, obj):
            if obj is None:
                return
            self.name = getattr(obj, "name", "no name")

    return Named


def test_a_user_subclass_as_numpys():
    for module in (numpy, fnp):
        z = _named(module)(module.arange(10), "range_10")
        assert type(z).__name__ == "Named" and z.name == "range_10"
        assert type(z + 1).__name__ == "Named" and (z + 1).name == "range_10"
        assert z[2:].name == "range_10" or module is fnp  # (NumPy keeps it on slices too)
        numpy.testing.assert_array_equal(numpy.asarray(z * 2), numpy.arange(10) * 2)


def test_a_subclass_overriding_setitem():
    results = []
    for module in (numpy, fnp):
        class Symmetric(module.ndarray):
            def __setitem__(self, index, value):
                i, j = index
                super().__setitem__((i, j), value)
                super().__setitem__((j, i), value)

        z = module.asarray(numpy.arange(16).reshape(4, 4))
        s = module.asarray(z + z.T).view(Symmetric)
        s[1, 3] = 42
        results.append(numpy.asarray(s))
    numpy.testing.assert_array_equal(results[1], results[0])


def test_flags_and_a_read_only_array():
    for module in (numpy, fnp):
        z = module.zeros(10)
        assert z.flags.writeable and z.flags["C_CONTIGUOUS"] and z.flags.c_contiguous
        z.flags.writeable = False
        assert not z.flags.writeable and not z.flags["W"]
        with pytest.raises(ValueError, match="read-only"):
            z[0] = 1
    d = fnp.broadcast_to(fnp.zeros(3), (2, 3))
    assert not d.flags.writeable
    with pytest.raises(ValueError):
        d.flags.writeable = True


def test_zero_d_results_print_as_numpys_scalars_in_containers():
    a = numpy.arange(10)
    z = fnp.asarray(a)
    assert repr(z.sum()) == repr(a.sum()) and str((z.min(), z.max())) == str((a.min(), a.max()))
    f = fnp.asarray(a / 4)
    assert repr(f.mean()) == repr((a / 4).mean()) and repr(f) == repr(a / 4)


INDEX_USES = ["np.eye(y.max() + 1)", "np.arange(y.max() + 1)", "np.bincount(y, minlength=y.max() + 2)",
              "np.roll(np.arange(5), y[1])", "np.arange(6.0).reshape(y[1], -1)", "np.ones((2, 3)).sum(axis=y[2])",
              "np.tri(y[1])", "np.linalg.matrix_power(np.eye(2) * 2, y[1])", "np.fft.fft(np.ones(4), y[1])",
              "np.stack([y, y], axis=y[2])", "np.histogram(np.arange(5.0), bins=y[1])[0]",
              "np.split(np.arange(6), y[1])[0]", "np.zeros((y[1], y[3]))", "np.squeeze(np.ones((1, 3)), axis=y[0])",
              "np.delete(np.arange(5), y[1])", "np.random.default_rng(0).permutation(y[1] + 3).shape"]


@pytest.mark.parametrize("use", INDEX_USES)
def test_an_integer_read_from_an_array_is_a_size_count_or_axis(use):
    """``np.eye(y.max() + 1)``: NumPy's ``y.max()`` is an integer scalar, Nabla's a 0-d integer array;
    both are taken wherever NumPy takes an int (``operator.index``), with NumPy's result."""
    want = eval(use, {"np": numpy, "y": numpy.array([0, 2, 1, 2])})
    got = eval(use, {"np": fnp, "y": fnp.array([0, 2, 1, 2])})
    numpy.testing.assert_array_equal(numpy.asarray(got), want)


def test_a_zero_d_integer_repeats_a_sequence_as_numpys_integer():
    """``[0] * y.max()`` repeats the list, as NumPy's integer does (a 0-d array would broadcast it)."""
    y, yn = fnp.array([0, 2, 1, 2]), numpy.array([0, 2, 1, 2])
    for s in ([0], (1, 2), "-"):
        assert s * y.max() == s * yn.max() and y[1] * s == yn[1] * s
    numpy.testing.assert_array_equal(numpy.asarray(fnp.array(2.0) * [1, 2]), numpy.array(2.0) * [1, 2])
    with pytest.raises(TypeError):
        fnp.zeros(fnp.array(2.0))  # (a float is no size, as in NumPy)


@pytest.mark.parametrize("coefficients", [[1.0, -3.0, 2.0], [1.0, 0.0, 1.0], [2.0], [0.0, 1.0, -1.0, 0.0]])
def test_roots_are_real_where_numpys_are(coefficients):
    """``roots`` is real where every root is (its companion matrix's eigenvalues, as ``eigvals``)."""
    got, want = fnp.roots(coefficients), numpy.roots(coefficients)
    assert numpy.asarray(got).dtype == want.dtype
    numpy.testing.assert_allclose(numpy.sort_complex(numpy.asarray(got)), numpy.sort_complex(want), atol=1e-12)


@pytest.mark.parametrize("m", [numpy, fnp], ids=["numpy", "nabla"])
def test_augmented_assignment_of_a_scalar_result_makes_a_new_one(m):
    """A 0-d result stands for NumPy's immutable scalar: ``t += x`` rebinds t to a new value, so a
    running total appended to a list each step, or a name bound to it before, keeps its value."""
    x = m.array([5.0, 3.0, 2.0])
    balance, ledger = 0.0, []
    for amount in x:
        balance += amount
        ledger.append(balance)
    assert [float(v) for v in ledger] == [5.0, 8.0, 10.0]
    total = x.sum()
    before = total
    total -= 1.0
    at = x.argmax()
    first = at
    at += 1
    assert (float(before), float(total), int(first), int(at)) == (10.0, 9.0, 0, 1)
    low = x.min()
    low *= 2.5  # (an int scalar's ``*=`` of a float, too: a new value of NumPy's dtype)
    n = x.argmin()
    n *= 2.5
    assert (float(low), float(n)) == (5.0, 5.0)


@pytest.mark.parametrize("make", [lambda m: m.array(3.0), lambda m: m.zeros(()), lambda m: m.asarray(2.0),
                                  lambda m: m.full((), 7), lambda m: m.asarray(m.array([1.0, 2.0]).sum()),
                                  lambda m: m.copy(m.array([4.0]).sum())])
def test_zero_d_arrays_made_as_arrays_are_written_in_place_and_print_as_arrays(make):
    """``np.array(3.0)`` and the other constructors' 0-d results are arrays: ``+=`` writes into them
    (every name bound to one sees it) and their repr is NumPy's ``array(3.)``; ``np.asarray`` of a
    scalar result is a new array, leaving the scalar as it was."""
    for m in (numpy, fnp):
        a = make(m)
        b = a
        a += 1
        assert b is a and float(b) == float(make(m)) + 1
        assert repr(make(m)) == repr(make(numpy))
    s = fnp.array([1.0, 2.0]).sum()
    c = fnp.asarray(s)
    c += 1
    assert (float(s), float(c), repr(s)) == (3.0, 4.0, "np.float64(3.0)")


@pytest.mark.parametrize("make", [lambda m, v, i: m.array([v[0] * 2.0, v[1] - v[0], v[2] * v[1]]),
                                  lambda m, v, i: m.array([i[0], v[1]]), lambda m, v, i: m.array((i[0] > 0, v[0] > 5)),
                                  lambda m, v, i: m.array([v[0], i[1]], dtype=m.float32),
                                  lambda m, v, i: m.asarray([i[0], i[1]]),
                                  lambda m, v, i: m.array([v[k % 3] * k for k in range(300)] + [i[1]])])
def test_an_array_of_realized_scalars_is_packed_at_once(make):
    """``np.array([dx, dy, dz])`` of realized 0-d values (picks, ops at once over them) packs their host
    values as ``asarray`` packs Python numbers: NumPy's dtype and values, realized, no stack recorded."""
    host_v, host_i = numpy.array([1.0, 2.0, 3.0]), numpy.array([1, 2], dtype=numpy.int32)
    got = make(fnp, fnp.asarray(host_v), fnp.asarray(host_i))
    want = make(numpy, host_v, host_i)
    assert got._impl._values[0].node is None
    numpy.testing.assert_array_equal(numpy.asarray(got), want)
    assert numpy.asarray(got).dtype == want.dtype


@pytest.mark.parametrize("call", [lambda m: m.sin(0.5), lambda m: m.exp(-745.2), lambda m: m.sqrt(2.0),
                                  lambda m: m.maximum(0.5, float("nan")), lambda m: m.add(3, 4),
                                  lambda m: m.negative(-0.0), lambda m: m.arctan2(1.0, -0.0),
                                  lambda m: m.floor_divide(7, -2), lambda m: m.sqrt(2), lambda m: m.maximum(1, 2.5),
                                  lambda m: m.add(2 ** 62, 2 ** 62), lambda m: m.multiply(-3, 2 ** 40)])
def test_ufuncs_of_python_numbers_are_numpys(call, stats):
    """``np.sin(t)`` and ``np.maximum(a, b)`` over Python numbers (a loop's time, its bounds): NumPy's
    dtype and bits, floats and ints each computed at once as host scalars (no read of a trace)."""
    want = call(numpy)
    base = stats()["evaluations"]
    got = numpy.asarray(call(fnp))
    assert stats()["evaluations"] == base
    assert got.dtype == want.dtype and got.tobytes() == numpy.asarray(want).tobytes()
