"""Meshes over distinct devices: ``virtual_cpus(n)`` (``cpu:0 .. cpu:n-1``, run by MAX's interpreter).

Every test of test_sharding.py runs again here with its meshes over distinct devices, so each
shard's value lives on its device and the collectives are MAX's (``allreduce``, ``allgather``,
``transfer_to``); the oracles are that file's (NumPy, the unsharded result, JAX's examples). The
tests below check what only such meshes have: where each value lives and which MAX ops move it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import nabla as nb
from nabla.sharding import DeviceMesh, P, VirtualCPU, collectives_recorded, psum, shard_map, virtual_cpus

from . import test_sharding
from .test_sharding import *  # noqa: F401,F403 (its tests, run again on distinct devices)
from .test_sharding import _check_local_shapes  # noqa: F401 (its autouse fixture)


def distinct_mesh_of(shape) -> DeviceMesh:
    return DeviceMesh(shape, test_sharding.NAMES[:len(shape)], devices=virtual_cpus(math.prod(shape)))


@pytest.fixture(autouse=True)
def _distinct_devices(monkeypatch):
    monkeypatch.setattr(test_sharding, "mesh_of", distinct_mesh_of)


def _graph_text(t) -> str:
    from nabla.core.graph import GRAPH
    from nabla.sharding import spmd

    whole = spmd.gather(t._impl)
    return str(GRAPH.engine.lower([whole._values[0]], symbolic=False))


def test_each_shard_lives_on_its_device_and_max_collectives_join_them():
    mesh = distinct_mesh_of((2, 2))
    a = np.random.default_rng(0).standard_normal((8, 6)).astype(np.float32)
    x = nb.asarray(a).shard(mesh, P("a", "b"))
    y = nb.tanh(x) * 2
    assert [v.device for v in y._impl._values] == mesh.devices
    assert isinstance(mesh.devices[3], VirtualCPU) and not mesh.simulated
    with collectives_recorded() as log:
        s = nb.sum(y, axis=0)  # pending over "a"; reading it completes the sum with MAX's allreduce
        text = _graph_text(s)
    assert ("all_reduce_sum", ("a",)) in log
    assert "allreduce" in text and "allgather" in text and "cpu:3" in text
    np.testing.assert_allclose(s.numpy(), (np.tanh(a) * 2).sum(0), rtol=1e-5, atol=1e-5)
    with collectives_recorded() as log:
        m = nb.max(y, axis=0)
    assert log == [] and m.sharding.partial == (("a", "max"),)
    np.testing.assert_allclose(m.numpy(), (np.tanh(a) * 2).max(0), rtol=1e-6)


def test_a_replicated_operand_is_copied_to_each_device():
    mesh = distinct_mesh_of((2,))
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    x = nb.asarray(a).shard(mesh, P("a"))
    w = nb.asarray(np.ones((3,), np.float32))  # not on the mesh: each device gets a copy
    y = x + w
    assert [v.device for v in y._impl._values] == mesh.devices
    assert "transfer" in str(nb.core.graph.GRAPH.engine.lower([y._impl._values[1]], symbolic=False))
    np.testing.assert_array_equal(y.numpy(), a + 1)


def test_laying_out_copies_each_device_only_its_block():
    mesh = distinct_mesh_of((4,))
    a = np.arange(48, dtype=np.float32).reshape(8, 6)
    x = nb.asarray(a).shard(mesh, P("a"))
    text = str(nb.core.graph.GRAPH.engine.lower([x._impl._values[3]], symbolic=False))
    moves = [line for line in text.splitlines() if "transfer" in line]
    assert len(moves) == 1 and "tensor<[2, 6], f32>" in moves[0] and '"cpu", 3' in moves[0]
    np.testing.assert_array_equal(x.numpy(), a)


def test_shard_map_psum_and_its_gradient_on_distinct_devices():
    mesh = distinct_mesh_of((4,))
    a = np.arange(8, dtype=np.float32)

    def loss(x):
        return shard_map(lambda b: psum(nb.sum(b * b), "a"), mesh, in_specs=P("a"), out_specs=P())(x)

    np.testing.assert_allclose(loss(nb.asarray(a)).numpy(), (a * a).sum(), rtol=1e-6)
    np.testing.assert_allclose(nb.grad(loss)(nb.asarray(a)).numpy(), 2 * a, rtol=1e-6)


def test_compile_runs_a_distinct_device_mesh_on_the_interpreter():
    mesh = distinct_mesh_of((2,))
    rng = np.random.default_rng(3)
    a, w = rng.standard_normal((8, 4)).astype(np.float32), rng.standard_normal((4, 3)).astype(np.float32)
    step = nb.compile(lambda x, w: nb.sum(nb.tanh(x @ w), axis=0))
    x, ww = nb.asarray(a).shard(mesh, P("a")), nb.asarray(w).shard(mesh, P())
    for _ in range(2):
        out = step(x, ww)
        np.testing.assert_allclose(out.numpy(), np.tanh(a @ w).sum(0), rtol=1e-5, atol=1e-5)
    info = step.cache_info()
    assert info.misses == 1 and info.hits == 1
    assert [v.device for v in out._impl._values] == mesh.devices


def test_operands_on_different_devices_are_refused_at_the_call():
    a = nb.asarray(np.arange(3.0))
    b = a.to_device(VirtualCPU(1))
    with pytest.raises(ValueError, match="nabla.add: operands are on different devices"):
        a + b
    assert b.device == VirtualCPU(1)
    np.testing.assert_array_equal((b * 2).numpy(), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal((b.to_device(a.device) + a).numpy(), [0.0, 2.0, 4.0])
    z = nb.asarray(np.array([1 + 2j, 3 - 1j], np.complex64)).to_device(VirtualCPU(1))  # interleaved storage
    assert z.device == VirtualCPU(1) and z.dtype == nb.array_api.complex64
    np.testing.assert_array_equal((z * 2).to_device(a.device).numpy(), [2 + 4j, 6 - 2j])


def test_mesh_devices_are_one_or_all_distinct():
    cpus = virtual_cpus(3)
    with pytest.raises(ValueError, match="neither all one device"):
        DeviceMesh((3,), ("a",), devices=[cpus[0], cpus[1], cpus[1]])
    with pytest.raises(ValueError, match="numbered from 1"):
        VirtualCPU(0)
    assert DeviceMesh((2,), ("a",), devices=[cpus[0], cpus[0]]).simulated
