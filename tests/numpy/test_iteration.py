"""NumPy's element-by-element APIs against NumPy: ``nditer`` (flags, write-back, broadcasting, dtypes,
errors), ``vectorize`` (otypes, excluded, cache, signature), ``isscalar`` and ``is_integer`` of 0-d
results, and byte views of plain arrays as records and raw ``void`` items (unique rows)."""

from __future__ import annotations

import gc

import numpy
import pytest

import nabla.numpy as fnp


def _same(ours, theirs):
    """Same values, dtype and shape; ours a face array."""
    assert isinstance(ours, fnp.ndarray), type(ours)
    got = numpy.asarray(ours)
    assert got.dtype == numpy.asarray(theirs).dtype and got.shape == numpy.shape(theirs)
    numpy.testing.assert_array_equal(got, theirs)


def _both(fn):
    """``fn(np)`` under NumPy and under the face."""
    return fn(fnp), fn(numpy)


# --- nditer ------------------------------------------------------------------------------------------------
def test_nditer_allocates_and_broadcasts_an_output():
    def run(np):
        it = np.nditer([np.arange(3).reshape(3, 1), np.arange(3).reshape(1, 3), None])
        for x, y, z in it:
            z[...] = x + y
        return it.operands[2]

    ours, theirs = _both(run)
    _same(ours, theirs)


def test_nditer_elements_in_order_with_multi_index_and_c_index():
    def run(np):
        a = np.arange(6).reshape(2, 3) * 10
        it = np.nditer(a, flags=["multi_index", "c_index"])
        out = [(it.multi_index, it.index, int(x)) for x in it]
        it = np.nditer(a, flags=["f_index"], order="F")
        return out, [(it.index, int(x)) for x in it], len(np.nditer(a)), [int(x) for x in np.nditer(a.T)]

    ours, theirs = _both(run)
    assert ours[:3] == theirs[:3]
    # a transposed face array is C-contiguous: order 'K' walks it in its own C order
    assert ours[3] == [0, 30, 10, 40, 20, 50] and theirs[3] == [0, 10, 20, 30, 40, 50]


def test_nditer_elements_are_numpy_zero_d_arrays_read_only_unless_written():
    it = fnp.nditer(fnp.arange(3))
    x = next(it)
    assert isinstance(x, numpy.ndarray) and x.shape == () and x.dtype == numpy.int64
    with pytest.raises(ValueError, match="read-only"):
        x[...] = 5
    assert isinstance(it, fnp.nditer)


@pytest.mark.parametrize("how", ["loop", "with", "close", "operands", "break"])
def test_nditer_readwrite_writes_back_to_the_face_array(how):
    a = fnp.arange(6).reshape(2, 3)
    view = a[1]  # a view of the operand sees the write too
    it = fnp.nditer(a, op_flags=["readwrite"])
    if how == "with":
        with it:
            for x in it:
                x[...] = 2 * x
    elif how == "break":
        for x in it:
            x[...] = -1
            break
        del it
        gc.collect()
    else:
        for i in range(6):
            x = next(it)
            x[...] = 2 * x
        if how == "loop":
            with pytest.raises(StopIteration):
                next(it)
        elif how == "close":
            it.close()
        else:
            assert it.operands[0] is a
    expected = numpy.arange(6).reshape(2, 3) * 2
    if how == "break":
        expected = numpy.arange(6).reshape(2, 3)
        expected[0, 0] = -1
    _same(a, expected)
    _same(view, expected[1])


def test_nditer_external_loop_chunks_and_iternext():
    def run(np):
        a = np.arange(6).reshape(2, 3)
        chunks = [c.tolist() for c in np.nditer(a, flags=["external_loop"], order="F")]
        b = np.arange(6).reshape(2, 3)
        it = np.nditer(b, flags=["external_loop", "buffered"], op_flags=["readwrite"], buffersize=4)
        while not it.finished:
            it[0] = it[0] * 3
            it.iternext()
        chunks2 = [(c.tolist(), d.tolist()) for c, d in np.nditer([np.arange(3), a], flags=["external_loop"])]
        return chunks, b, chunks2

    ours, theirs = _both(run)
    assert ours[0] == theirs[0] and ours[2] == theirs[2]
    _same(ours[1], theirs[1])


def test_nditer_reductions_numpy_docs_examples():
    def run(np):
        a = np.arange(24).reshape(2, 3, 4)
        b = np.array(0)
        with np.nditer([a, b], flags=["reduce_ok"], op_flags=[["readonly"], ["readwrite"]]) as it:
            for x, y in it:
                y[...] += x
        with np.nditer([a, None], flags=["reduce_ok"], op_flags=[["readonly"], ["readwrite", "allocate"]],
                       op_axes=[None, [0, 1, -1]]) as it:
            it.operands[1][...] = 0  # a write to the operand itself, before the loop
            for x, y in it:
                y[...] += x
            result = it.operands[1]
        return b, result

    ours, theirs = _both(run)
    _same(ours[0], theirs[0])
    _same(ours[1], theirs[1])


def test_nditer_sees_writes_to_an_operand_between_elements():
    def run(np):
        a = np.arange(4)
        seen = []
        for x in np.nditer(a):
            seen.append(int(x))
            a[3] = 100
        return seen

    ours, theirs = _both(run)
    assert ours == theirs == [0, 1, 2, 100]


def test_nditer_op_dtypes_common_dtype_and_casting_back():
    def run(np):
        a = np.arange(4)
        got = [(x.dtype, complex(x)) for x in np.nditer(a, flags=["buffered"], op_dtypes=["complex128"])]
        f = np.arange(4) / 2
        with np.nditer(f, flags=["buffered"], op_flags=["readwrite"], op_dtypes=["float32"],
                       casting="same_kind") as it:
            for x in it:
                x[...] = x * 4
        i = np.arange(4)
        with np.nditer([i, f], flags=["buffered", "common_dtype"], op_flags=[["readwrite"], ["readonly"]],
                       casting="unsafe") as it:
            dts = it.dtypes
            for x, y in it:
                x[...] = x + y
        return got, f, i, dts

    ours, theirs = _both(run)
    assert ours[0] == theirs[0] and ours[3] == theirs[3]
    _same(ours[1], theirs[1])
    _same(ours[2], theirs[2])


def test_nditer_host_operands_are_written_in_place():
    host = numpy.arange(3)
    it = fnp.nditer([fnp.arange(3), host, None], op_flags=[["readonly"], ["readwrite"], ["writeonly", "allocate"]])
    for x, y, z in it:
        y[...] = x * 5
        z[...] = x + 1
    numpy.testing.assert_array_equal(host, [0, 5, 10])
    assert it.operands[1] is host
    _same(it.operands[2], numpy.arange(3) + 1)


@pytest.mark.parametrize("kwargs, cls, match", [
    (dict(op_dtypes=["complex128"]), TypeError, "copying or buffering"),
    (dict(op_dtypes=["float32"], flags=["buffered"]), TypeError, "according to the rule 'safe'"),
    (dict(op_dtypes=["float64"], flags=["buffered"], op_flags=["writeonly"]), TypeError, "the operand 0 dtype"),
    (dict(flags=["bogus"]), ValueError, "global flag"),
    (dict(op_flags=["readwrite", "copy"]), ValueError, "UPDATEIFCOPY"),
    (dict(casting="bogus"), ValueError, "casting must be one of"),
])
def test_nditer_errors_are_numpys(kwargs, cls, match):
    with pytest.raises(cls, match=match):
        numpy.nditer(numpy.arange(4), **kwargs)
    with pytest.raises(cls, match=f"nabla.numpy.nditer: .*{match}"):
        fnp.nditer(fnp.arange(4), **kwargs)


def test_nditer_refuses_writes_to_read_only_and_broadcast_operands():
    with pytest.raises(ValueError, match="nabla.numpy.nditer: .*read-only"):
        fnp.nditer(fnp.broadcast_to(fnp.arange(3), (2, 3)), op_flags=["readwrite"])
    with pytest.raises(ValueError, match="nabla.numpy.nditer: .*reduction"):
        fnp.nditer([fnp.zeros((2, 3)), fnp.arange(3)], op_flags=[["readonly"], ["readwrite"]])
    it = fnp.nditer(fnp.arange(3))
    it.close()
    with pytest.raises(ValueError, match="closed"):
        it.operands


# --- vectorize ---------------------------------------------------------------------------------------------
def test_vectorize_calls_per_element_with_python_scalars():
    seen = []

    def f(x, y):
        seen.append(type(x))
        return x * 2 if x > y else x - y

    ours = fnp.vectorize(f)(fnp.arange(6), 2)
    first, seen[:] = list(seen), []
    theirs = numpy.vectorize(f)(numpy.arange(6), 2)
    _same(ours, theirs)
    assert first == seen  # the first element twice (its dtype probe: a NumPy scalar), then Python ints


def test_vectorize_otypes_outputs_excluded_kwargs_cache():
    def run(np):
        calls = []

        def f(a, b, scale=1.0):
            calls.append(a)
            return a * scale, a > b

        v = np.vectorize(f, otypes=[np.float32, bool])
        r1 = v(np.arange(4), [[1], [2]], scale=0.5)
        w = np.vectorize(lambda p, coeffs: sum(c * p ** i for i, c in enumerate(coeffs)), excluded=["coeffs"])
        r2 = w(np.arange(3.0), coeffs=[1, 2])
        c = np.vectorize(lambda x: calls.append(x) or x + 1, cache=True)
        n0 = len(calls)
        r3 = c(np.arange(3))
        r4 = np.vectorize(lambda x: x + 0.5, otypes="d")(3)
        return r1 + (r2, r3, r4, len(calls) - n0)

    ours, theirs = _both(run)
    for o, t in zip(ours[:-1], theirs[:-1]):
        _same(o, t)
    assert ours[-1] == theirs[-1] == 3


def test_vectorize_as_a_decorator_keeps_name_and_doc():
    @fnp.vectorize
    def double(x):
        """Twice x."""
        return 2 * x

    @fnp.vectorize(otypes=[float])
    def half(x):
        return x / 2

    assert double.__name__ == "double" and double.__doc__ == "Twice x."
    _same(double(fnp.arange(3)), numpy.arange(3) * 2)
    _same(half([1, 2]), numpy.array([0.5, 1.0]))


def test_vectorize_signature_runs_on_face_slices():
    def run(np):
        dot = np.vectorize(lambda a, b: (a * b).sum(), signature="(n),(n)->()")
        outer = np.vectorize(lambda a: np.stack([a, -a]), signature="()->(k)")
        both = np.vectorize(lambda a: (a.sum(), a[::-1]), signature="(n)->(),(n)")
        x = np.arange(6.0).reshape(2, 3)
        return (dot(x, np.ones(3)), outer(np.arange(3)), *both(x),
                np.vectorize(lambda a: a, signature="(n)->(n)", otypes=[float])(np.zeros((0, 2))))

    ours, theirs = _both(run)
    for o, t in zip(ours, theirs):
        _same(o, t)
    seen = []
    fnp.vectorize(lambda a: seen.append(type(a)) or a.sum(), signature="(n)->()")(fnp.ones((2, 3)))
    assert seen == [fnp.ndarray, fnp.ndarray]


@pytest.mark.parametrize("call, cls, match", [
    (lambda np: np.vectorize(lambda x: x)(np.zeros(0)), ValueError, "size 0 inputs"),
    (lambda np: np.vectorize(lambda x: x, otypes="?z"), ValueError, "Invalid otype specified: z"),
    (lambda np: np.vectorize(lambda x: x, otypes=3), ValueError, "Invalid otype specification"),
    (lambda np: np.vectorize(3), TypeError, "only accepts keyword arguments"),
    (lambda np: np.vectorize(lambda x: x, signature="(n)->(n")(np.zeros(2)), ValueError, "not a valid gufunc"),
    (lambda np: np.vectorize(lambda a, b: a, signature="(n),(n)->()")(np.zeros(2)), TypeError,
     "wrong number of positional arguments"),
    (lambda np: np.vectorize(lambda a, b: a.sum(), signature="(n),(n)->()")(np.zeros(2), np.zeros(3)), ValueError,
     "inconsistent size for core dimension 'n'"),
    (lambda np: np.vectorize(lambda a: a.sum(), signature="(n)->(),()")(np.zeros(2)), ValueError,
     "wrong number of outputs"),
    (lambda np: np.vectorize(lambda a, b: a)(np.zeros(2), np.zeros(3)), ValueError, "broadcast"),
])
def test_vectorize_errors_are_numpys(call, cls, match):
    with pytest.raises(cls, match=match):
        call(numpy)
    with pytest.raises(cls, match=f"nabla.numpy.vectorize: .*{match}"):
        call(fnp)


def test_vectorize_lets_errors_of_the_function_through():
    class Mine(ValueError):
        pass

    def f(x):
        raise Mine("from pyfunc")

    with pytest.raises(Mine, match="^from pyfunc$"):
        fnp.vectorize(f, otypes="d")(fnp.arange(3))
    with pytest.raises(NotImplementedError, match="object arrays"):
        fnp.frompyfunc(f, 1, 1)


def test_vectorize_results_numpy_cannot_put_on_max():
    with pytest.warns(fnp.HostStringWarning):
        out = fnp.vectorize(lambda x: "ab"[x])(fnp.arange(2))
    numpy.testing.assert_array_equal(out, ["a", "b"])
    with pytest.raises(TypeError, match="nabla.numpy.vectorize: object"):
        fnp.vectorize(lambda x: x, otypes=[object])(fnp.arange(2))


# --- 0-d results as NumPy's scalars ------------------------------------------------------------------------
def test_isscalar_of_zero_d_results():
    a, f = fnp.array([3, 1, 2]), fnp.array([0.5, 1.5])
    assert fnp.isscalar(a[0]) and fnp.isscalar(f.sum()) and fnp.isscalar(f.mean())
    assert not fnp.isscalar(a) and not fnp.isscalar([1]) and fnp.isscalar(2.5) and fnp.isscalar(numpy.int8(1))
    d = fnp.array(["2020-01-01", "2021-01-01"], dtype="datetime64[D]")
    z = fnp.zeros(2, [("x", float)])
    assert fnp.isscalar(d[0]) and not fnp.isscalar(d) and fnp.isscalar(z[0]) and not fnp.isscalar(z)


@pytest.mark.parametrize("values", [[0.5, 1.5], [1.0, 3.0], [numpy.inf, 1.0], [numpy.nan, 1.0]])
def test_is_integer_of_zero_d_results(values):
    f = numpy.array(values)
    assert fnp.asarray(f).mean().is_integer() == f.mean().is_integer()
    assert fnp.asarray(f.astype(numpy.float32))[1].is_integer() == f.astype(numpy.float32)[1].is_integer()
    assert fnp.arange(3).sum().is_integer()


@pytest.mark.parametrize("x", [fnp.arange(3), fnp.array(True), fnp.array(1j)])
def test_is_integer_is_missing_where_numpy_has_none(x):
    with pytest.raises(AttributeError, match="is_integer"):
        x.is_integer()


# --- byte views: records and raw void items ----------------------------------------------------------------
def test_unique_rows_through_a_void_view():
    rows = numpy.array([[256, 1], [1, 256], [5, 0], [1, 256], [0, 0]])  # byte order differs from value order

    def run(np):
        z = np.asarray(rows)
        t = np.ascontiguousarray(z).view(np.dtype((np.void, z.dtype.itemsize * z.shape[1])))
        u, idx, inv, cnt = np.unique(t, return_index=True, return_inverse=True, return_counts=True)
        return t, u, z[idx], idx, inv, cnt, u.view(z.dtype), np.argsort(t, axis=None), t == t[1]

    ours, theirs = _both(run)
    assert type(ours[0]).__name__ == "VoidArray" and ours[0].dtype == theirs[0].dtype
    assert ours[0].shape == theirs[0].shape and repr(ours[1]) == repr(theirs[1])
    for o, t in zip(ours[2:], theirs[2:]):
        _same(o, t)


def test_void_items_are_views_of_their_source():
    z = fnp.arange(6).reshape(3, 2)
    t = z.view(numpy.dtype((numpy.void, 16)))
    t[0] = t[2]
    _same(z, numpy.array([[4, 5], [2, 3], [4, 5]]))
    z[1] = 9
    assert t[1].tobytes() == numpy.array([9, 9]).tobytes()


def test_structured_view_fields_are_views():
    def run(np):
        f = np.asarray([[3, 1], [1, 3], [2, 2], [1, 3]])
        g = f.view(dtype=[("p0", f.dtype), ("p1", f.dtype)])
        u = np.unique(g)
        g["p1"] = 9
        f[0, 0] = -1
        h = (np.arange(4.0) * 1.5).view([("a", "f8"), ("b", "i8")])
        return u, f, g["p0"], h["a"], h["b"], g.shape

    ours, theirs = _both(run)
    numpy.testing.assert_array_equal(numpy.asarray(ours[0]), theirs[0])
    assert ours[0].dtype == theirs[0].dtype and ours[5] == theirs[5]
    for o, t in zip(ours[1:5], theirs[1:5]):
        _same(o, t)


@pytest.mark.parametrize("make, dtype, cls, match", [
    (lambda np: np.arange(3), [("a", "i8"), ("b", "i8")], ValueError, "divisor"),
    (lambda np: np.array(1), [("a", "i4"), ("b", "i4"), ("c", "i4"), ("d", "i4")], ValueError, "0d array"),
])
def test_byte_view_errors_are_numpys(make, dtype, cls, match):
    with pytest.raises(cls, match=match):
        make(numpy).view(dtype)
    with pytest.raises(cls, match=f"nabla.numpy.view: .*{match}"):
        make(fnp).view(dtype)


def test_byte_views_name_what_they_leave_out():
    with pytest.raises(NotImplementedError, match="not aligned"):
        fnp.arange(4).view(numpy.dtype({"names": ["a"], "formats": ["i4"], "offsets": [2], "itemsize": 8}))
    with pytest.raises(NotImplementedError, match="native byte order"):
        fnp.arange(4).view([("a", ">i8")])
