"""Structured (record) arrays in ``nabla.numpy`` (one array per field, on MAX), against NumPy."""

from __future__ import annotations

import warnings

import numpy
import pytest

import nabla
import nabla.numpy as fnp
from nabla.numpy import HostStringWarning, StructuredArray

POINT = [("x", float), ("y", float)]
NESTED = [("position", [("x", float, 1), ("y", float, 1)]),
          ("color", [("r", float, 1), ("g", float, 1), ("b", float, 1)])]
DTYPES = {
    "point": POINT,
    "comma": "i4,f8",
    "nested": NESTED,
    "subarray": [("v", "f8", (3,)), ("n", "i8")],
    "kinds": [("a", "i1"), ("b", "u2"), ("c", "f4"), ("d", "c16"), ("e", "?")],
    "struct_subarray": [("p", [("x", "f4"), ("y", "i2")], (2,)), ("q", "f8")],
    "aligned": numpy.dtype([("a", "i1"), ("b", "f8")], align=True),
    "byteorder": [("a", ">i4"), ("b", "<f8")],
    "dates": [("t", "M8[D]"), ("v", "f8")],
}
SIZES = [1, 7, 1000]


def random_records(dtype, shape, seed=0, spread=4):
    """NumPy records of ``dtype`` with small random values (ties in every field, for sorting)."""
    rng = numpy.random.default_rng(seed)
    out = numpy.zeros(shape, dtype)
    _fill(out, rng, spread)
    return out


def _fill(out, rng, spread):
    for name in out.dtype.names:
        field = out[name]
        if field.dtype.names is not None:
            _fill(field, rng, spread)
        elif field.dtype.kind == "M":
            field[...] = rng.integers(-spread, spread, field.shape).view("M8[D]")
        elif field.dtype.kind == "b":
            field[...] = rng.random(field.shape) < 0.5
        elif field.dtype.kind == "c":
            field[...] = rng.integers(0, spread, field.shape) + 1j * rng.integers(0, 2, field.shape)
        elif field.dtype.kind in "US":
            field[...] = rng.choice(["pear", "apple", "fig", "kiwi"][:spread], field.shape)
        else:
            field[...] = rng.integers(0, spread, field.shape)


def assert_records(got, want):
    """Equal dtype, shape and values, field by field (NaN equal to NaN)."""
    want = numpy.asarray(want)
    assert isinstance(got, StructuredArray), type(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    host = got.numpy()
    assert type(host) is numpy.ndarray and host.dtype == want.dtype
    _same_fields(host, want)


def _same_fields(a, b):
    for name in b.dtype.names:
        if b[name].dtype.names is not None:
            _same_fields(a[name], b[name])
        elif b[name].dtype.kind == "M":
            numpy.testing.assert_array_equal(a[name].view("i8"), b[name].view("i8"))
        else:
            numpy.testing.assert_array_equal(a[name], b[name])


def same(got, want):
    """A face result against NumPy's: records, or plain arrays (dtype and values)."""
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    if isinstance(want, (numpy.ndarray, numpy.void)) and want.dtype.names is not None:
        assert_records(got, want)
        return
    want = numpy.asarray(want)
    got = numpy.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    numpy.testing.assert_array_equal(got, want)


def scalar_fields(host, order=None):
    """``host`` with each subarray element and nested field as a scalar field of its own, and ``order``
    for it. NumPy compares subarray fields as raw bytes (an open NumPy bug: the order depends on the
    byte order, and 2.0 sorts before 1.0); here they compare element by element, as NumPy's maintainers
    say they should, which is NumPy's order of this form."""
    cols = _columns(host, host.ndim, "")
    flat = numpy.empty(host.shape, [(name, col.dtype) for _, name, col in cols])
    for _, name, col in cols:
        flat[name] = col
    if order is not None:
        order = [name for top in ([order] if isinstance(order, str) else order)
                 for t, name, _ in cols if t == top]
    return flat, order


def _columns(arr, nd, prefix):
    out, extra = [], arr.shape[nd:]
    for e in numpy.ndindex(*extra):
        part, tag = arr[(Ellipsis,) + e], prefix + (str(list(e)) if extra else "")
        for name in part.dtype.names:
            field, top = part[name], prefix.split(".")[0] or name
            if field.dtype.names is not None:
                out += [(top, n, c) for _, n, c in _columns(field, nd, f"{tag}.{name}" if tag else name)]
                continue
            sub = field.shape[nd:]
            for j in numpy.ndindex(*sub):
                out.append((top, f"{tag}.{name}{list(j) if sub else ''}", field[(Ellipsis,) + j]))
    return out


def numpy_argsort(host, order=None, axis=-1):
    flat, order = scalar_fields(host, order)
    return numpy.argsort(flat, axis=axis, order=order, kind="stable")


# --- the brief's examples and the interface ----------------------------------------------------------------
def test_numpy_100_structured_example_prints_as_numpy():
    Z = fnp.zeros(10, NESTED)
    want = numpy.zeros(10, NESTED)
    assert str(Z) == str(want) and repr(Z) == repr(want)
    assert Z.dtype == want.dtype and Z.dtype.names == ("position", "color")
    assert (Z.shape, Z.ndim, Z.size, len(Z), Z.itemsize, Z.nbytes) == \
        (want.shape, want.ndim, want.size, len(want), want.itemsize, want.nbytes)
    assert type(Z["position"]["x"]) is fnp.ndarray and Z["position"]["x"].shape == (10, 1)


def test_record_array_interface():
    Z = fnp.array([(1, 2.0), (3, 4.0)], dtype=[("a", "i4"), ("b", "f8")])
    want = numpy.array([(1, 2.0), (3, 4.0)], dtype=[("a", "i4"), ("b", "f8")])
    same(Z, want)
    assert Z["a"].dtype == numpy.int32 and Z["b"].dtype == numpy.float64
    assert fnp.dtype([("a", "i4"), ("b", "f8")]) == want.dtype  # NumPy's own dtype object
    assert repr(Z[1]) == repr(want[1]) and str(Z[1]) == str(want[1])  # np.void's forms
    assert Z[1]["a"] == 3 and Z.tolist() == want.tolist() and Z.item(0) == want.item(0)
    assert [tuple(r.tolist()) for r in Z] == want.tolist()
    host = numpy.asarray(Z)
    assert type(host) is numpy.ndarray and host.dtype == want.dtype
    assert fnp.shape(Z) == (2,) and fnp.ndim(Z) == 1 and fnp.size(Z) == 2
    zero = numpy.zeros((), [("a", "i4"), ("b", "f8")])
    assert repr(fnp.zeros((), zero.dtype)) == repr(zero) and str(fnp.zeros((), zero.dtype)) == str(zero)
    same(numpy.sort(Z, order="b"), numpy.sort(want, order="b"))  # NumPy's functions hand the call over
    same(numpy.concatenate([Z, Z]), numpy.concatenate([want, want]))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("key", list(DTYPES))
def test_host_round_trip(key, size):
    want = random_records(DTYPES[key], (size,), seed=size)
    got = fnp.asarray(want)
    same(got, want)
    same(fnp.array(want.tolist(), dtype=want.dtype), want)
    assert repr(got) == repr(want) and str(got) == str(want)
    same(fnp.asarray(got), want)
    assert fnp.asarray(got) is got and fnp.array(got) is not got


@pytest.mark.parametrize("size", [1, 7])
@pytest.mark.parametrize("key", list(DTYPES))
def test_creation_functions(key, size):
    dt = numpy.dtype(DTYPES[key])
    same(fnp.zeros(size, dt), numpy.zeros(size, dt))
    same(fnp.ones((size, 2), dt), numpy.ones((size, 2), dt))
    empty = fnp.empty(size, dt)
    assert empty.dtype == dt and empty.shape == (size,)
    if key != "dates":
        same(fnp.full(size, 3, dt), numpy.full(size, 3, dt))
    fill = numpy.zeros((), dt)
    fill[()] = random_records(dt, (), seed=5)
    same(fnp.full(size, fill[()], dt), numpy.full(size, fill[()], dt))
    base = fnp.asarray(random_records(dt, (size,)))
    same(fnp.zeros_like(base), numpy.zeros(size, dt))
    same(fnp.ones_like(base), numpy.ones(size, dt))
    assert fnp.empty_like(base).dtype == dt


def test_creation_spellings():
    same(fnp.zeros(3, "f8,i4"), numpy.zeros(3, "f8,i4"))
    same(fnp.zeros((2, 3), dtype=numpy.dtype(POINT)), numpy.zeros((2, 3), POINT))
    same(fnp.full(2, (1, 2.5), dtype="i4,f8"), numpy.full(2, (1, 2.5), dtype="i4,f8"))
    same(fnp.array([(1, 2.0)], dtype=POINT, ndmin=2), numpy.array([(1, 2.0)], dtype=POINT, ndmin=2))
    same(fnp.array(numpy.zeros(2, POINT)[0]), numpy.array(numpy.zeros(2, POINT)[0]))
    same(fnp.zeros_like(fnp.zeros(3, POINT), dtype=float), numpy.zeros(3))
    one = numpy.array((1, 2), POINT)[()]
    same(fnp.full_like(fnp.zeros(3, POINT), one), numpy.full(3, one, POINT))
    same(fnp.full(3, [1, 2, 3], POINT), numpy.full(3, [1, 2, 3], POINT))  # a list: one value per record
    z = fnp.zeros(2, POINT)
    same(fnp.array([z[0], z[1]]), numpy.zeros(2, POINT))
    # plain dtypes keep their paths
    assert type(fnp.zeros(3)) is fnp.ndarray and type(fnp.zeros(3, "datetime64[D]")) is fnp.DatetimeArray


# --- fields, indexing, writes -------------------------------------------------------------------------
def test_field_writes_reach_the_array():
    Z, want = fnp.zeros(10, NESTED), numpy.zeros(10, NESTED)
    for z in (Z, want):
        z["color"]["r"] = numpy.arange(10.0).reshape(10, 1)
        z["position"]["x"][2] = 5
        pos = z["position"]
        pos["y"][4] = -1  # a view of a view
        z[3] = ((1.0, 2.0), (3.0, 4.0, 5.0))
    same(Z, want)
    P, pw = fnp.zeros(6, POINT), numpy.zeros(6, POINT)
    for p in (P, pw):
        p["x"][2] = 5
        p[3] = (1.0, 2.0)
        p[4] = 7
        p[1:3]["y"] = 9
        r = p[5]
        r["x"] = 11  # a record is a view, as NumPy's np.void
        p[["x", "y"]][0] = (8, 8)
        p[p["x"] > 6] = (0.5, 0.5)
        p["y"] += 1  # in place through the field
        c = p.copy()
        c["x"] = 99  # a copy: no write reaches p
    same(P, pw)
    assert P[2]["y"] == pw[2]["y"]
    R, rw = P.view(fnp.recarray), pw.view(numpy.recarray)
    R.x *= 2
    rw.x *= 2
    same(P, pw)


@pytest.mark.parametrize("key", [slice(1, 5), slice(None, None, -2), [0, 2, 1], 3, -1, (Ellipsis,),
                                 numpy.array([True, False] * 3 + [True]), (slice(None), Ellipsis)])
@pytest.mark.parametrize("dt", ["point", "subarray", "struct_subarray", "nested"])
def test_indexing_applies_to_every_field(dt, key):
    host = random_records(DTYPES[dt], (7,))
    got = fnp.asarray(host)
    same(got[key], host[key])
    if isinstance(key, numpy.ndarray):
        same(got[fnp.asarray(key)], host[key])


@pytest.mark.parametrize("key", [(1, slice(None)), (Ellipsis, 0), (slice(None), [2, 0]), 1, (0, 1),
                                 (None, 1)])
def test_indexing_two_dimensional(key):
    host = random_records(DTYPES["subarray"], (2, 3))
    got = fnp.asarray(host)
    same(got[key], host[key])
    value = random_records(DTYPES["subarray"], numpy.shape(host[key]), seed=9)
    got[key] = fnp.asarray(value)
    host[key] = value
    same(got, host)


@pytest.mark.parametrize("value", [(1, 2.5), 4, [(1, 2.0), (3, 4.0), (5, 6.0)],
                                   numpy.array([(7, 8.0)], dtype="i4,f8"), "records"])
def test_setitem_values(value):
    got, want = fnp.zeros(5, "i4,f8"), numpy.zeros(5, "i4,f8")
    if isinstance(value, str):
        value = numpy.array([(9, -1.5)] * 3, dtype=[("p", "i8"), ("q", "f4")])  # by position, cast
        got[1:4] = fnp.asarray(value)
    else:
        got[1:4] = value
    want[1:4] = value
    same(got, want)


def test_multi_field_and_subarray_fields():
    host = random_records(DTYPES["subarray"], (4,))
    got = fnp.asarray(host)
    same(got[["n", "v"]], host[["n", "v"]])
    same(got[["n"]], host[["n"]])
    assert repr(got[["n"]]) == repr(host[["n"]])  # NumPy's view dtype: offsets and itemsize kept
    same(got["v"], host["v"])
    got["v"][1] = [1, 2, 3]
    host["v"][1] = [1, 2, 3]
    same(got, host)


def test_field_errors_are_numpys():
    Z = fnp.zeros(3, POINT)
    with pytest.raises(ValueError, match="no field of name q"):
        Z["q"]
    with pytest.raises(KeyError):
        Z[["x", "q"]]
    with pytest.raises(ValueError, match="duplicate"):
        Z[["x", "x"]]
    with pytest.raises(ValueError, match="tuple of length 3"):
        Z[1] = (1, 2, 3)
    with pytest.raises(IndexError, match="too many indices"):
        Z[0, 1]
    with pytest.raises(TypeError, match="len"):
        len(Z[0])
    with pytest.raises(TypeError, match="Cannot cast"):
        Z[:] = fnp.zeros(3, [("a", float)])


# --- shapes and joining --------------------------------------------------------------------------------
SHAPE_CASES = {
    "reshape": lambda m, z: m.reshape(z, (2, 3, 1)),
    "method_reshape": lambda m, z: z.reshape(3, -1),
    "ravel": lambda m, z: m.ravel(z),
    "flatten": lambda m, z: z.flatten(),
    "T": lambda m, z: z.T,
    "transpose": lambda m, z: m.transpose(z, (1, 0)),
    "swapaxes": lambda m, z: z.swapaxes(0, 1),
    "moveaxis": lambda m, z: m.moveaxis(z, 0, -1),
    "expand_dims": lambda m, z: m.expand_dims(z, 1),
    "squeeze": lambda m, z: m.squeeze(m.expand_dims(z, 0)),
    "concatenate": lambda m, z: m.concatenate([z, z[:1]]),
    "concatenate_axis1": lambda m, z: m.concatenate([z, z], axis=1),
    "concatenate_none": lambda m, z: m.concatenate([z, z], axis=None),
    "stack": lambda m, z: m.stack([z, z], axis=1),
    "vstack": lambda m, z: m.vstack([z, z]),
    "hstack": lambda m, z: m.hstack([z, z]),
    "append": lambda m, z: m.append(z, z[0]),
    "take": lambda m, z: m.take(z, [5, 0, 3]),
    "take_axis": lambda m, z: m.take(z, [1, 0], axis=0),
    "method_take": lambda m, z: z.take([2, 2]),
    "flip": lambda m, z: m.flip(z, 1),
    "roll": lambda m, z: m.roll(z, 2),
    "repeat": lambda m, z: m.repeat(z, 2, axis=0),
    "tile": lambda m, z: m.tile(z, (1, 2)),
    "split": lambda m, z: m.split(z, 3, axis=1),
    "atleast_3d": lambda m, z: m.atleast_3d(z),
    "copy": lambda m, z: m.copy(z),
    "where": lambda m, z: m.where(m.arange(6).reshape(2, 3) % 2 == 0, z, z[::-1]),
    "broadcast_to": lambda m, z: m.broadcast_to(z[0], (4, 3)),
}


@pytest.mark.parametrize("case", list(SHAPE_CASES))
@pytest.mark.parametrize("dt", ["comma", "subarray", "nested", "dates"])
def test_shape_functions(dt, case):
    host = random_records(DTYPES[dt], (2, 3))
    same(SHAPE_CASES[case](fnp, fnp.asarray(host)), SHAPE_CASES[case](numpy, host))


def test_views_of_reshape_and_transpose_see_writes():
    z, h = fnp.zeros(6, POINT), numpy.zeros(6, POINT)
    for a in (z, h):
        r = a.reshape(2, 3)
        r[1, 2] = (4, 5)
        a.reshape(3, 2).T[0, 1]["x"] = 7
    same(z, h)


def test_join_errors_are_numpys():
    a = fnp.zeros(2, [("x", int), ("y", float)])
    same(fnp.concatenate([a, fnp.zeros(1, [("x", float), ("y", float)])]),
         numpy.concatenate([numpy.zeros(2, a.dtype), numpy.zeros(1, [("x", float), ("y", float)])]))
    with pytest.raises(TypeError, match="mismatch"):
        fnp.concatenate([a, fnp.zeros(1, [("q", int), ("y", float)])])
    with pytest.raises(ValueError):
        fnp.concatenate([a, a.reshape(2, 1)])


# --- sorting, unique, equality -------------------------------------------------------------------------
SORT_CASES = [("point", None), ("point", "y"), ("point", ["y", "x"]), ("comma", "f1"), ("nested", "color"),
              ("subarray", None), ("kinds", ["e", "c"]), ("kinds", None), ("struct_subarray", "q"),
              ("dates", "t"), ("byteorder", "b")]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dt,order", SORT_CASES)
def test_sort_by_fields(dt, order, size):
    host = random_records(DTYPES[dt], (size,), seed=size)
    got = fnp.asarray(host)
    perm = numpy_argsort(host, order)
    same(fnp.sort(got, order=order), host[perm])
    same(fnp.argsort(got, order=order), perm)
    same(got.argsort(order=order), perm)
    got.sort(order=order)
    same(got, host[perm])
    if dt in ("point", "comma", "kinds", "dates"):  # no subarray fields: NumPy's own sort is the oracle
        same(fnp.sort(fnp.asarray(host), order=order), numpy.sort(host, order=order))


def test_subarray_fields_compare_element_by_element():
    host = numpy.array([([2.0], 0), ([1.0], 5), ([1.0], 0)], [("x", "f8", 1), ("y", "i4")])
    same(fnp.sort(fnp.asarray(host)), host[[2, 1, 0]])  # NumPy's bytes order gives [2.0] first


def test_sort_nan_and_axes():
    host = numpy.array([(1, numpy.nan), (1, 0.0), (0, numpy.nan), (0, -1.0)], "i4,f8")
    same(fnp.sort(fnp.asarray(host)), numpy.sort(host))
    grid = random_records("i4,i4", (3, 4), seed=2)
    for axis in (0, 1, -1, None):
        same(fnp.sort(fnp.asarray(grid), axis=axis, order="f1"), numpy.sort(grid, axis=axis, order="f1"))
        same(fnp.argsort(fnp.asarray(grid), axis=axis), numpy.argsort(grid, axis=axis, kind="stable"))
    sub = random_records(DTYPES["subarray"], (3, 4), seed=3)
    for axis in (0, 1):
        perm = numpy_argsort(sub, "n", axis)
        same(fnp.argsort(fnp.asarray(sub), axis=axis, order="n"), perm)
        same(fnp.sort(fnp.asarray(sub), axis=axis, order="n"), numpy.take_along_axis(sub, perm, axis))
    same(fnp.sort(grid, order="f1"), numpy.sort(grid, order="f1"))  # NumPy's records at the boundary


def test_sort_errors_are_numpys():
    z = fnp.zeros(3, POINT)
    with pytest.raises(ValueError, match="unknown field name: q"):
        fnp.sort(z, order="q")
    with pytest.raises(ValueError, match="duplicate field name: x"):
        fnp.sort(z, order=["x", "x"])
    with pytest.raises(ValueError, match="no fields"):
        fnp.sort(fnp.arange(3), order="x")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dt", ["point", "subarray", "nested", "kinds", "dates"])
def test_unique(dt, size):
    host = random_records(DTYPES[dt], (size,), seed=size, spread=2)
    got = fnp.asarray(host)
    flat, _ = scalar_fields(host)
    _, index, inverse, counts = numpy.unique(flat, return_index=True, return_inverse=True, return_counts=True)
    same(fnp.unique(got), host[index])
    same(fnp.unique(got, return_index=True, return_inverse=True, return_counts=True),
         (host[index], index, inverse, counts))
    if dt in ("point", "kinds", "dates"):
        same(fnp.unique(got), numpy.unique(host))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dt", ["point", "subarray", "nested", "kinds", "dates"])
def test_equality(dt, size):
    a = random_records(DTYPES[dt], (size,), seed=1, spread=2)
    b = random_records(DTYPES[dt], (size,), seed=2, spread=2)
    fa, fb = fnp.asarray(a), fnp.asarray(b)
    same(fa == fb, a == b)
    same(fa != fb, a != b)
    same(fa == fa, a == a)
    same(fa == b, a == b)
    same(fa == fb[0], a == b[0])
    same(fnp.equal(fa, fb), a == b)  # (NumPy's ufunc has no loop for records; its == has)
    same(b == fa, b == a)  # NumPy's records on the left hand the ufunc over
    assert fnp.array_equal(fa, fa) and fnp.array_equal(fa, fb) == numpy.array_equal(a, b)


def test_equality_errors_and_promotion():
    a = fnp.zeros(3, POINT)
    same(a == fnp.zeros(3, [("x", int), ("y", float)]), numpy.ones(3, bool))
    with pytest.raises(TypeError, match="non-void"):
        a == 1  # noqa: B015
    with pytest.raises(TypeError, match="common dtype"):
        a == fnp.zeros(3, [("a", float), ("b", float)])  # noqa: B015
    with pytest.raises(TypeError):
        a + a  # noqa: B018
    with pytest.raises(TypeError, match="structured"):
        fnp.mean(a)


# --- casts, strings, dates ------------------------------------------------------------------------------
def test_astype_by_position():
    host = numpy.array([(1, 2.5), (3, -4.0)], [("a", "i4"), ("b", "f8")])
    got = fnp.asarray(host)
    for target in ([("b", "f8"), ("a", "f8")], [("x", "f4"), ("y", "i2")], [("x", "f8", (2,)), ("y", "f8")]):
        same(got.astype(target), host.astype(target))
    same(fnp.asarray(numpy.zeros(2, [("a", "f4")])).astype("f8"), numpy.zeros(2, [("a", "f4")]).astype("f8"))
    with pytest.raises(TypeError, match="Cannot cast"):
        got.astype("f8")
    with pytest.raises(TypeError, match="Cannot cast"):
        got.astype([("a", "f8")])


def test_string_fields_stay_on_the_host():
    dt = [("name", "U10"), ("age", "i4"), ("weight", "f4")]
    rows = [("Rex", 9, 81.0), ("Fido", 3, 27.0), ("Ace", 3, 12.5)]
    with pytest.warns(HostStringWarning, match="'name'"):
        got = fnp.array(rows, dtype=dt)
    want = numpy.array(rows, dtype=dt)
    assert type(got["name"]) is numpy.ndarray and type(got["age"]) is fnp.ndarray
    same(got, want)
    same(fnp.sort(got, order="name"), numpy.sort(want, order="name"))
    same(fnp.sort(got, order=["age", "name"]), numpy.sort(want, order=["age", "name"]))
    same(fnp.unique(fnp.concatenate([got, got[:1]])), numpy.unique(numpy.concatenate([want, want[:1]])))
    same(got == got[::-1], want == want[::-1])
    got[1] = ("Bo", 4, 1.0)
    want[1] = ("Bo", 4, 1.0)
    same(got[got["age"] > 3], want[want["age"] > 3])
    same(fnp.stack([got, got]), numpy.stack([want, want]))


def test_object_fields_are_refused():
    with pytest.raises(TypeError, match="field 'o'"):
        fnp.zeros(2, [("a", float), ("o", object)])
    with pytest.raises(TypeError, match="field 'o'"):
        fnp.asarray(numpy.zeros(2, [("a", float), ("o", object)]))


# --- record arrays: np.rec ------------------------------------------------------------------------------
def test_rec_fromarrays_and_attributes():
    a, b = fnp.arange(3), fnp.arange(3.0) * 2
    R = fnp.rec.fromarrays([a, b], names="a,b")
    want = numpy.rec.fromarrays([numpy.arange(3), numpy.arange(3.0) * 2], names="a,b")
    assert isinstance(R, fnp.recarray) and repr(R) == repr(want)
    same(R.a, want.a)
    assert type(R.a) is fnp.ndarray and repr(R[0]) == repr(want[0]) and R[0].b == want[0].b
    R.b = fnp.ones(3)
    want.b = numpy.ones(3)
    R.a[1] = 10
    want.a[1] = 10
    same(R.view(StructuredArray), numpy.asarray(want).view(numpy.ndarray))
    with pytest.raises(AttributeError):
        R.nothing  # noqa: B018
    nested = fnp.zeros(2, NESTED).view(fnp.recarray)
    assert isinstance(nested.position, fnp.recarray) and nested.position.x.shape == (2, 1)


def test_rec_numpy_100_strings_and_formats():
    Z = numpy.array([("Hello", 2.5, 3), ("World", 3.6, 2)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HostStringWarning)
        R = fnp.rec.fromarrays(Z.T, names="col1, col2, col3", formats="S8, f8, i8")
    want = numpy.rec.fromarrays(Z.T, names="col1, col2, col3", formats="S8, f8, i8")
    assert repr(R) == repr(want)
    same(R.col2, want.col2)


def test_rec_array_fromrecords_and_recarray():
    rows = [(1, 2.0), (3, 4.0)]
    for got, want in ((fnp.rec.array(rows, dtype=[("a", "i4"), ("b", "f8")]),
                       numpy.rec.array(rows, dtype=[("a", "i4"), ("b", "f8")])),
                      (fnp.rec.fromrecords(rows, names="a,b"), numpy.rec.fromrecords(rows, names="a,b")),
                      (fnp.rec.array(fnp.zeros(2, POINT)), numpy.rec.array(numpy.zeros(2, POINT))),
                      (fnp.recarray((2,), dtype=POINT), numpy.zeros(2, POINT).view(numpy.recarray))):
        assert isinstance(got, fnp.recarray) and repr(got) == repr(want)
    with pytest.raises(ValueError, match="shape mismatch"):
        fnp.rec.fromarrays([fnp.arange(3), fnp.arange(6).reshape(3, 2)])


# --- gradients, files ----------------------------------------------------------------------------------
def test_fields_are_differentiable():
    def loss(x):
        Z = fnp.zeros(3, POINT)
        Z["x"] = x
        Z["y"] = 2 * x
        return (Z["x"] * Z["y"]).sum()

    x = fnp.arange(3.0)
    numpy.testing.assert_allclose(nabla.grad(loss)(x).numpy(), 4 * numpy.arange(3.0))
    Z = fnp.zeros(3, POINT)
    Z["x"] = x
    numpy.testing.assert_allclose(nabla.grad(lambda v: (v ** 2).sum())(Z["x"]).numpy(), 2 * numpy.arange(3.0))
    numpy.testing.assert_allclose(nabla.vmap(lambda v: v * 2)(Z["x"]).numpy(), 2 * numpy.arange(3.0))


def test_structured_files(tmp_path):
    path = tmp_path / "points.csv"
    path.write_text("x,y\n1,2.5\n3,4.5\n")
    same(fnp.genfromtxt(path, delimiter=",", names=True), numpy.genfromtxt(path, delimiter=",", names=True))
    host = random_records("i4,f8", (5,))
    fnp.save(tmp_path / "r.npy", fnp.asarray(host))
    same(fnp.load(tmp_path / "r.npy"), host)
    same(fnp.frombuffer(host.tobytes(), dtype=host.dtype), host)
    rows = [(1, 2.0), (3, 4.0)]
    same(fnp.fromiter(iter(rows), dtype="i4,f8"), numpy.fromiter(iter(rows), dtype="i4,f8"))
