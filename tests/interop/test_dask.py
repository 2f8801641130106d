"""Dask arrays with Nabla chunks on ``dask.distributed``'s worker processes (a ``LocalCluster`` of
two; the same code runs on a real cluster): the graph's chunks cross processes by pickle
(nabla/core/pickling.py), each worker runs them on its own engine, and results come back as Nabla
arrays, against NumPy's values."""

import numpy as np
import pytest

import nabla.numpy as nnp

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) \
            as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def data():
    host = np.random.default_rng(0).normal(size=(400, 30))
    return host, da.from_array(nnp.asarray(host), chunks=(100, 30), asarray=False)


def _nabla(x):
    assert type(x) is nnp.ndarray, type(x)
    return np.asarray(x)


def test_chunks_and_results_are_nabla_arrays(client, data):
    host, x = data
    assert type(x._meta) is nnp.ndarray
    np.testing.assert_allclose(_nabla((x * 2 + 1).sum(axis=0).compute()), (host * 2 + 1).sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(_nabla(x.mean(axis=1).compute()), host.mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(_nabla(x.max().compute()), host.max())


def test_gram_matrix_and_map_blocks(client, data):
    host, x = data
    np.testing.assert_allclose(_nabla((x.T @ x).compute()), host.T @ host, rtol=1e-10)
    got = x.map_blocks(lambda b: nnp.tanh(b) * 2).sum(axis=0).compute()
    np.testing.assert_allclose(_nabla(got), (np.tanh(host) * 2).sum(axis=0), rtol=1e-12)


def test_persisted_chunks_stay_on_the_workers(client, data):
    host, x = data
    kept = (x - x.mean(axis=0)).persist()
    np.testing.assert_allclose(_nabla((kept ** 2).sum().compute()), ((host - host.mean(axis=0)) ** 2).sum(),
                               rtol=1e-12)


def test_tall_skinny_qr_and_svd(client, data):
    host, x = data
    q, r = da.linalg.qr(x)
    q, r = _nabla(q.compute()), _nabla(r.compute())
    np.testing.assert_allclose(q @ r, host, atol=1e-10)
    np.testing.assert_allclose(q.T @ q, np.eye(30), atol=1e-10)
    _, s, _ = da.linalg.svd(x)
    np.testing.assert_allclose(_nabla(s.compute()), np.linalg.svd(host, compute_uv=False), rtol=1e-10)


def test_random_arrays_drawn_by_nabla_in_each_chunk(client):
    """``da.random.RandomState`` with Nabla's ``RandomState``: each chunk drawn on a worker by
    Nabla, the same chunks for the same seed."""
    draw = da.random.RandomState(7, RandomState=nnp.random.RandomState)
    x = draw.normal(2.0, 3.0, size=(40_000,), chunks=10_000)
    assert type(x._meta) is nnp.ndarray
    values = _nabla(x.compute())
    assert values.shape == (40_000,) and abs(values.mean() - 2.0) < 0.1 and abs(values.std() - 3.0) < 0.1
    again = da.random.RandomState(7, RandomState=nnp.random.RandomState).normal(2.0, 3.0, size=(40_000,),
                                                                                 chunks=10_000)
    np.testing.assert_array_equal(_nabla(again.compute()), values)


def test_nabla_as_dasks_array_backend(client):
    """``dask.config.set({"array.backend": "nabla"})``: Dask's creation functions and
    ``da.random.default_rng`` make Nabla chunks on the workers; a seed gives the same draw again."""
    import dask

    with dask.config.set({"array.backend": "nabla"}):
        made = {"ones": da.ones((300, 4), chunks=(100, 4)), "zeros": da.zeros((7, 5), chunks=3, dtype=np.int32),
                "full": da.full((10,), 2.5, chunks=4), "arange": da.arange(3, 40, 2, chunks=5)}
        x = da.random.default_rng(11).normal(1.0, 2.0, size=(30_000,), chunks=10_000)
        u = da.random.default_rng(11).uniform(size=(30_000,), chunks=10_000)
    want = {"ones": np.ones((300, 4)), "zeros": np.zeros((7, 5), np.int32), "full": np.full((10,), 2.5),
            "arange": np.arange(3, 40, 2)}
    for name, arr in made.items():
        assert type(arr._meta) is nnp.ndarray, name
        got = _nabla(arr.compute())
        assert got.dtype == want[name].dtype, name
        np.testing.assert_array_equal(got, want[name])
    assert type(x._meta) is nnp.ndarray
    values = _nabla(x.compute())
    assert abs(values.mean() - 1.0) < 0.1 and abs(values.std() - 2.0) < 0.1
    with dask.config.set({"array.backend": "nabla"}):
        again = da.random.default_rng(11).normal(1.0, 2.0, size=(30_000,), chunks=10_000)
    np.testing.assert_array_equal(_nabla(again.compute()), values)
    chunks = [values[i:i + 10_000] for i in range(0, 30_000, 10_000)]
    assert not any(np.array_equal(chunks[0], c) for c in chunks[1:])  # each chunk its own child seed
    uniform = _nabla(u.compute())
    assert uniform.min() >= 0.0 and uniform.max() < 1.0 and abs(uniform.mean() - 0.5) < 0.02


def test_a_nabla_generator_and_to_backend_without_the_setting(client):
    draw = da.random.default_rng(nnp.random.default_rng(5)).standard_normal(size=(2_000, 3), chunks=(500, 3))
    assert type(draw._meta) is nnp.ndarray and _nabla(draw.compute()).shape == (2_000, 3)
    host = np.arange(24.0).reshape(6, 4)
    moved = da.from_array(host, chunks=(2, 4)).to_backend("nabla")
    assert type(moved._meta) is nnp.ndarray
    np.testing.assert_array_equal(_nabla((moved * 2).compute()), host * 2)
    np.testing.assert_array_equal(moved.to_backend("numpy").compute(), host)
