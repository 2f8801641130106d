"""A simulated mesh runs each op once over a stack of its shards (``spmd.STACKING``): the trace of a
data-parallel step has about as many kernels as the unsharded step, whatever the mesh size, and every
result equals the per-shard path's and NumPy's."""

from __future__ import annotations

import collections
import gc
import weakref

import numpy as np
import pytest

import nabla as nb
from nabla.sharding import DeviceMesh, P, spmd, stacking

from ..threads import run_threads


def _nodes(tensors) -> collections.Counter:
    """Op names of the nodes behind ``tensors`` (the kernels their realization would run)."""
    seen, count = set(), collections.Counter()
    stack = [v for t in tensors for v in t._impl._values]
    while stack:
        n = stack.pop().node
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        count[n.op.name] += 1
        stack.extend(n.inputs)
    return count


def _step(params, x, y):
    def loss(params):
        w1, b1, w2 = params
        h = nb.maximum(x @ w1 + b1, 0.0)
        return nb.mean((h @ w2 - y) ** 2)

    value, grads = nb.value_and_grad(loss)(params)
    return value, tuple(p - 0.1 * g for p, g in zip(params, grads))


def _data(rng):
    host = [rng.standard_normal((6, 16)).astype(np.float32), rng.standard_normal(16).astype(np.float32),
            rng.standard_normal((16, 3)).astype(np.float32)]
    return host, rng.standard_normal((24, 6)).astype(np.float32), rng.standard_normal((24, 3)).astype(np.float32)


def _run(mesh_shape, host, x, y):
    params, xs, ys = tuple(nb.asarray(h) for h in host), nb.asarray(x), nb.asarray(y)
    if mesh_shape is not None:
        mesh = DeviceMesh(mesh_shape, ("dp",))
        params = tuple(p.shard(mesh, P()) for p in params)
        xs, ys = xs.shard(mesh, P("dp")), ys.shard(mesh, P("dp"))
    loss, new = _step(params, xs, ys)
    return (loss,) + new


@pytest.mark.parametrize("k", [2, 4, 8])
def test_data_parallel_step_runs_one_kernel_per_op_whatever_the_mesh(k, monkeypatch):
    # (the unsharded step's small ops would be computed as they are made, leaving fewer nodes to count)
    monkeypatch.setattr(nb.core.graph.GRAPH.engine, "small_at_once", False)
    host, x, y = _data(np.random.default_rng(0))
    plain = _run(None, host, x, y)
    stacked = _run((k,), host, x, y)
    base, got = sum(_nodes(plain).values()), sum(_nodes(stacked).values())
    # the extra nodes: the split of x and y (reshapes), each gradient's all-reduce (one reduction)
    assert got <= base + 10, (base, got, _nodes(stacked) - _nodes(plain))
    monkeypatch.setattr(spmd, "STACKING", False)
    per_shard = _run((k,), host, x, y)
    assert sum(_nodes(per_shard).values()) > base + k * 10  # the oracle for the count: one node per shard
    for a, b, c in zip(plain, stacked, per_shard):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(c.numpy(), a.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mesh_shape,spec", [((2, 2), P("a", "b")), ((2, 2), P("b", "a")), ((3, 2), P(("a", "b"))),
                                             ((2, 2, 2), P("c", ("a", "b")))])
def test_reductions_and_gathers_over_mesh_axes_match_numpy(mesh_shape, spec):
    """Pending sums and maxima over one mesh axis (reduced in the stack), gathers over all of them."""
    names = ("a", "b", "c")[:len(mesh_shape)]
    mesh = DeviceMesh(mesh_shape, names)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((12, 8)).astype(np.float32)
    x = nb.asarray(a).shard(mesh, spec)
    t = nb.tanh(x) * 2.0
    for axis in (0, 1):
        np.testing.assert_allclose(nb.sum(t, axis=axis).numpy(), (np.tanh(a) * 2).sum(axis), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(nb.max(t, axis=axis).numpy(), (np.tanh(a) * 2).max(axis), rtol=1e-6)
    np.testing.assert_allclose(t.numpy(), np.tanh(a) * 2, rtol=1e-6)
    np.testing.assert_allclose((t @ t.T).numpy(), (np.tanh(a) * 2) @ (np.tanh(a) * 2).T, rtol=1e-4, atol=1e-4)


def test_an_op_over_the_stack_makes_no_per_device_values_until_they_are_read():
    """Recording on a mesh costs one node and one value per op, like unsharded recording; reading a
    result makes the members, realizes them and frees the recorded graph behind them."""
    mesh = DeviceMesh((4,), ("dp",))
    a = np.random.default_rng(2).standard_normal((8, 3)).astype(np.float32)
    x = nb.asarray(a).shard(mesh, P("dp"))
    y = nb.tanh(x) * 0.5
    z = nb.exp(y)
    stacked = [t._impl._values for t in (y, z)]
    assert all(type(v) is stacking.Members and v._list is None for v in stacked)
    # the split of x (a reshape), the three ops, the scalar, and z's members (made by this walk)
    assert _nodes([z]) == collections.Counter({"reshape": 1, "tanh": 1, "multiply": 1, "constant": 1, "exp": 1,
                                               "unstack_values": 1})
    inner = weakref.ref(stacked[0].stack.node)
    del y, stacked
    np.testing.assert_allclose(z.numpy(), np.exp(np.tanh(a) * 0.5), rtol=1e-6)
    gc.collect()
    assert inner() is None  # the tanh node, held by nothing once z is realized
    assert z._impl.is_realized and len(z._impl._values) == 4
    np.testing.assert_allclose(np.concatenate([v.buffer.to_numpy() for v in z._impl._values]),
                               np.exp(np.tanh(a) * 0.5), rtol=1e-6)


def test_threads_reading_one_stacked_result_agree():
    """The members are made on first use: threads that read the same result at once each get it
    whole (either may make the members; both sets are the same stack's)."""
    mesh = DeviceMesh((4,), ("dp",))
    a = np.random.default_rng(3).standard_normal((16, 5)).astype(np.float32)
    for _ in range(3):
        y = nb.tanh(nb.asarray(a).shard(mesh, P("dp"))) * 0.5
        got = []

        def read(i):
            got.append(y.numpy())

        run_threads(read, 4)
        assert len(got) == 4
        for g in got:
            np.testing.assert_allclose(g, np.tanh(a) * 0.5, rtol=1e-6)
