"""nabla.compile: cache keys, dynamic dims, fullgraph, LRU, composition with vmap and grad."""

import logging

import numpy as np
import pytest

import nabla as nb

R = np.random.default_rng(11)


def test_dynamic_dims_one_model_for_every_batch_size(stats):
    calls = []

    @nb.compile(dynamic_dims={0: {0: "batch"}})
    def f(x, w):
        calls.append(1)
        return nb.tanh(x @ w) * 1.5

    w = R.standard_normal((3, 4)).astype(np.float32)
    for n in (2, 5, 8, 13, 21):
        x = R.standard_normal((n, 3)).astype(np.float32)
        np.testing.assert_allclose(f(nb.asarray(x), nb.asarray(w)).numpy(), np.tanh(x @ w) * 1.5, rtol=1e-5)
    info = f.cache_info()
    assert (info.misses, info.hits, info.compiles, info.currsize) == (1, 4, 1, 1)
    assert len(calls) == 1  # a hit never runs the Python body
    assert stats()["compiles"] == 1


def test_static_arguments_and_non_tensor_outputs():
    @nb.compile
    def f(x, power, label="out"):
        return {"y": x ** power, "label": label, "n": 3}

    x = R.uniform(0.5, 2, (4,)).astype(np.float32)
    a = f(nb.asarray(x), 2)
    b = f(nb.asarray(x), 3)
    c = f(nb.asarray(x), 2, label="again")
    np.testing.assert_allclose(a["y"].numpy(), x ** 2, rtol=1e-6)
    np.testing.assert_allclose(b["y"].numpy(), x ** 3, rtol=1e-6)
    assert (a["label"], c["label"], a["n"]) == ("out", "again", 3)
    assert f.cache_info().misses == 3
    with pytest.raises(TypeError, match="hashable"):
        f(nb.asarray(x), {2})  # a set: unhashable


def test_fullgraph_detects_data_access(caplog):
    def peeks(x):
        if float(x.sum()) > 0:  # reads data: the epoch moves
            return x * 2
        return x

    strict = nb.compile(peeks, fullgraph=True)
    with pytest.raises(RuntimeError, match="fullgraph=True"):
        strict(nb.asarray(np.ones(3, np.float32)))
    lenient = nb.compile(peeks)
    with caplog.at_level(logging.WARNING, logger="nabla"):
        out1 = lenient(nb.asarray(np.ones(3, np.float32)))
        out2 = lenient(nb.asarray(np.ones(3, np.float32)))
    np.testing.assert_array_equal(out1.numpy(), np.full(3, 2.0))
    np.testing.assert_array_equal(out2.numpy(), np.full(3, 2.0))
    assert sum("reads tensor data" in r.message for r in caplog.records) == 1  # said once
    assert lenient.cache_info().eager_calls == 2


def test_lru_eviction_and_move_to_end():
    f = nb.compile(lambda x: nb.exp(x) - 1, cache_size=2)
    xs = {n: nb.asarray(np.zeros(n, np.float32)) for n in (2, 3, 4)}
    f(xs[2]), f(xs[3])
    f(xs[2])  # hit: 2 becomes the most recent
    f(xs[4])  # evicts 3, the least recent
    assert f.cache_info().currsize == 2
    misses = f.cache_info().misses
    f(xs[2])
    assert f.cache_info().misses == misses  # 2 survived
    f(xs[3])
    assert f.cache_info().misses == misses + 1  # 3 was evicted


def test_compile_composes_with_vmap_and_grad():
    # (an elementwise body and a sum: a graph with a matmul costs ~30 s more to compile on 2 cores,
    # and the matmul's own rules under vmap and grad are tested uncompiled)
    w = R.standard_normal(3)
    x = R.standard_normal((5, 3))
    loss = lambda w, xi: nb.sum(nb.tanh(xi * w) ** 2)

    per_example = nb.compile(nb.vmap(nb.grad(loss), in_axes=(None, 0)))
    want = np.stack([nb.grad(loss)(nb.asarray(w), nb.asarray(xi)).numpy() for xi in x])
    for _ in range(2):
        np.testing.assert_allclose(per_example(nb.asarray(w), nb.asarray(x)).numpy(), want, rtol=1e-10)
    assert per_example.cache_info().hits == 1

    inner = nb.compile(lambda xi, w: nb.sum(nb.tanh(xi * w)))
    got = nb.vmap(inner, in_axes=(0, None))(nb.asarray(x), nb.asarray(w))
    np.testing.assert_allclose(got.numpy(), np.tanh(x * w).sum(1), rtol=1e-10)

    g = nb.grad(lambda w: inner(nb.asarray(x[0]), w))(nb.asarray(w))  # traced inputs run the body
    t = np.tanh(x[0] * w)
    np.testing.assert_allclose(g.numpy(), x[0] * (1 - t * t), rtol=1e-10)


def test_a_whole_training_step_under_compile():
    from examples.mlp import loss_fn

    rng = np.random.default_rng(0)
    params = [{"w": nb.asarray(rng.standard_normal((6, 8)).astype(np.float32) * 0.5), "b": nb.zeros(8)},
              {"w": nb.asarray(rng.standard_normal((8, 3)).astype(np.float32) * 0.5), "b": nb.zeros(3)}]
    x = nb.asarray(rng.standard_normal((16, 6)).astype(np.float32))
    y = nb.asarray(np.eye(3, dtype=np.float32)[rng.integers(0, 3, 16)])

    @nb.compile
    def step(params, x, y):
        loss, grads = nb.value_and_grad(loss_fn)(params, x, y)
        return loss, nb.tree_map(lambda p, g: p - 0.5 * g, params, grads)

    losses = []
    for _ in range(20):
        loss, params = step(params, x, y)
        losses.append(loss.item())
    assert step.cache_info().compiles <= 2  # zeros biases first, realized ones after
    assert losses[-1] < losses[0] * 0.5
