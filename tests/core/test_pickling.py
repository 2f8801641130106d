"""Nabla arrays across process boundaries (nabla/core/pickling.py): pickle round trips against the
NumPy values they came from, copies independent of their source, worker processes (spawn,
forkserver, joblib's loky) taking and returning Nabla arrays, and the clear errors where an array
cannot cross (a traced one; a child forked after MAX started)."""

import copy
import multiprocessing
import pickle

import numpy as np
import pytest

import nabla as nb
import nabla.numpy as nnp

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32",
          "float64", "complex64", "complex128"]
SHAPES = [(), (7,), (3, 5), (2, 3, 4), (2, 1, 3, 2)]


def _values(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape) * 50
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=shape)
    return np.asarray(x).astype(dtype)


def _same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("protocol", [2, 4, 5])
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_and_rank_round_trips(dtype, protocol):
    for shape in SHAPES:
        want = _values(dtype, shape)
        for kind in (nb.asarray, nnp.asarray):
            x = kind(want)
            back = pickle.loads(pickle.dumps(x, protocol=protocol))
            assert type(back) is type(x) and back.dtype == x.dtype
            _same(np.asarray(back), want)


def test_views_and_pending_arrays_pickle_their_values():
    base = np.arange(60, dtype=np.float64).reshape(3, 4, 5)
    x = nnp.asarray(base)
    cases = {"slice": (x[1:, ::-2], base[1:, ::-2]), "transpose": (x.T, base.T),
             "broadcast": (nnp.broadcast_to(x[:1], (4, 4, 5)), np.broadcast_to(base[:1], (4, 4, 5))),
             "pending": (nnp.exp(x / 60) * 2 - x.sum(axis=0), np.exp(base / 60) * 2 - base.sum(axis=0))}
    for name, (ours, theirs) in cases.items():
        back = pickle.loads(pickle.dumps(ours))
        np.testing.assert_allclose(np.asarray(back), theirs, rtol=1e-13, err_msg=name)  # (exp: ulps)
        back[(0,) * back.ndim] = -1.0  # (an unpickled array is writable: NumPy's are)
        assert float(back[(0,) * back.ndim]) == -1.0


def test_protocol_5_hands_the_data_out_of_band():
    x = nnp.arange(250_000, dtype=nnp.float64) * 0.5
    buffers = []
    payload = pickle.dumps(x, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and len(payload) < 1000  # (the 2 MB travel beside the pickle, not in it)
    back = pickle.loads(payload, buffers=buffers)
    _same(np.asarray(back), np.arange(250_000) * 0.5)


def test_copies_are_independent_of_their_source():
    for make in (copy.copy, copy.deepcopy, lambda a: pickle.loads(pickle.dumps(a))):
        a = nnp.arange(6).reshape(2, 3)
        b = make(a)
        a[0, 0] = 100
        b[1, 2] = -7
        _same(np.asarray(a), np.array([[100, 1, 2], [3, 4, 5]]))
        _same(np.asarray(b), np.array([[0, 1, 2], [3, 4, -7]]))
    nested = copy.deepcopy({"w": nnp.ones(3), "b": [nnp.zeros(2)]})
    _same(np.asarray(nested["b"][0]), np.zeros(2))


def test_masked_arrays_round_trip():
    m = nnp.ma.masked_array(nnp.arange(5.0), mask=[0, 1, 0, 0, 1], fill_value=-9.0)
    back = pickle.loads(pickle.dumps(m))
    assert type(back) is type(m)
    _same(np.asarray(nnp.ma.getmaskarray(back)), np.array([False, True, False, False, True]))
    _same(np.asarray(back.filled()), np.array([0.0, -9.0, 2.0, 3.0, -9.0]))


def test_sharded_arrays_keep_their_mesh_and_spec():
    from nabla.sharding import DeviceMesh, P, typeof, virtual_cpus

    data = np.arange(32.0).reshape(8, 4)
    mesh = DeviceMesh((2, 2), ("dp", "tp"))
    x = nb.asarray(data).shard(mesh, P("dp", None))
    partial = x @ nb.asarray(np.ones((4, 4))).shard(mesh, P("tp", None))  # (a pending sum over tp)
    for ours, want in ((x, data), (partial, data @ np.ones((4, 4)))):
        back = pickle.loads(pickle.dumps(ours))
        assert typeof(back) == typeof(ours).split("{")[0] and back.sharding.mesh.axis_names == ("dp", "tp")
        _same(np.asarray(back), want)
    spread = nb.asarray(np.arange(6.0)).shard(DeviceMesh(2, "dp", devices=virtual_cpus(2)), P("dp"))
    back = pickle.loads(pickle.dumps(spread))
    assert back.sharding.mesh.devices == spread.sharding.mesh.devices
    _same(np.asarray(back), np.arange(6.0))


@pytest.mark.parametrize("transform", ["grad", "vmap"])
def test_a_traced_array_refuses_to_pickle_and_says_why(transform):
    """(Under ``compile`` a pickle reads data, as ``.numpy()`` does: the function runs eagerly.)"""
    def f(x):
        pickle.dumps(x)
        return nb.sum(x)

    fn = {"grad": nb.grad, "vmap": nb.vmap}[transform](f)
    with pytest.raises(TypeError, match="cannot pickle a traced array"):
        fn(nb.asarray(np.ones((2, 3))))


def scaled_sum(x):
    """A worker's function: takes a Nabla array, returns one and a float."""
    y = nnp.asarray(x) * 2 + 1
    return y, float(y.sum())


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_a_pool_of_worker_processes_takes_and_returns_nabla_arrays(method):
    xs = [nnp.arange(5, dtype=nnp.float32) + i for i in range(3)]
    with multiprocessing.get_context(method).Pool(2) as pool:
        out = pool.map(scaled_sum, xs)
    for x, (y, total) in zip(xs, out):
        assert type(y) is nnp.ndarray and y.dtype == nnp.float32
        _same(np.asarray(y), np.asarray(x) * 2 + 1)
        assert total == float(np.asarray(x).sum() * 2 + 5)


def test_a_child_forked_after_max_started_says_to_spawn():
    float(nnp.arange(3).sum())  # (MAX's runtime has started here)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        with pytest.raises(RuntimeError, match="'spawn' or 'forkserver'"):
            pool.map(scaled_sum, [nnp.arange(3)], chunksize=1)


def test_joblib_runs_functions_on_nabla_arrays_in_loky_workers():
    joblib = pytest.importorskip("joblib")
    xs = [nnp.linspace(0, 1, 11) * i for i in range(4)]
    out = joblib.Parallel(n_jobs=2, backend="loky")(joblib.delayed(scaled_sum)(x) for x in xs)
    for x, (y, total) in zip(xs, out):
        _same(np.asarray(y), np.asarray(x) * 2 + 1)
        np.testing.assert_allclose(total, float((np.asarray(x) * 2 + 1).sum()), rtol=1e-15)
