"""``shard_map`` against JAX's, program by program: values and gradients (JAX is the oracle where
it is installed; CI does not install it, so these run on developers' machines).

Each program is written once against a namespace ``L`` that is Nabla's or JAX's (the collectives
take JAX's arguments in both), so one table drives both sides.
"""

from __future__ import annotations

import numpy as np
import pytest

import nabla as nb
from nabla import sharding as S

jax = pytest.importorskip("jax", reason="JAX is the optional cross-check (pip install jax)")
jnp = jax.numpy

if len(jax.devices("cpu")) < 8:
    pytest.skip("JAX needs 8 host devices (XLA_FLAGS, set in conftest.py before JAX starts)",
                allow_module_level=True)


class _Nabla:
    sin, cos, tanh, sum, reshape = nb.sin, nb.cos, nb.tanh, nb.sum, nb.reshape
    psum, pmean, pmax, pmin = S.psum, S.pmean, S.pmax, S.pmin
    all_gather, psum_scatter, ppermute, all_to_all, axis_index = (
        S.all_gather, S.psum_scatter, S.ppermute, S.all_to_all, S.axis_index)


class _Jax:
    sin, cos, tanh, sum, reshape = jnp.sin, jnp.cos, jnp.tanh, jnp.sum, jnp.reshape
    psum, pmean, pmax, pmin = jax.lax.psum, jax.lax.pmean, jax.lax.pmax, jax.lax.pmin
    all_gather, psum_scatter, ppermute, all_to_all, axis_index = (
        jax.lax.all_gather, jax.lax.psum_scatter, jax.lax.ppermute, jax.lax.all_to_all, jax.lax.axis_index)


RING4 = [(k, (k + 1) % 4) for k in range(4)]
RING6 = [(k, (k + 1) % 6) for k in range(6)]

#: name -> (body(L, *blocks), mesh shape, axis names, in_specs, out_spec, grad?) with specs as
#: tuples of P entries; arguments: x (12, 8) and v (8,), the first `len(in_specs)` of them
PROGRAMS = {
    "psum": (lambda L, b: L.psum(b, "i"), (4,), ("i",), (("i",),), (), True),
    "pmean_inner_axis": (lambda L, b: L.pmean(b * b, "j"), (2, 2), ("i", "j"), (("i", "j"),), ("i",), True),
    "pmax_two_axes": (lambda L, b: L.pmax(b, ("i", "j")), (2, 2), ("i", "j"), ((("i", "j"),),), (), False),
    "pmax_minus_pmin": (lambda L, b: L.pmax(b, "j") - L.pmin(b, "i"), (3, 2), ("i", "j"), (("i", "j"),),
                        ("i", "j"), False),
    "psum_subset_of_3d": (lambda L, b: L.psum(b, ("a", "c")), (2, 2, 2), ("a", "b", "c"), ((("a", "b"), "c"),),
                          ("b",), True),
    "all_gather_tiled": (lambda L, b: L.all_gather(b, "i", axis=1, tiled=True) * 1.5, (2,), ("i",),
                         ((None, "i"),), (None, "i"), True),
    "all_gather_stacked": (lambda L, b: L.all_gather(b, "j", axis=1), (3, 2), ("i", "j"), (("i", "j"),),
                           ("i", None, "j"), True),
    "all_gather_two_axes": (lambda L, b: L.all_gather(b, ("j", "i"), axis=1, tiled=True), (2, 2), ("i", "j"),
                            ((None, ("j", "i")),), (None, ("j", "i")), True),
    "psum_scatter_tiled": (lambda L, b: L.psum_scatter(b, "i", scatter_dimension=1, tiled=True), (2,), ("i",),
                           (("i",),), (None, "i"), True),
    "psum_scatter_two_axes": (lambda L, b: L.psum_scatter(b, ("i", "j"), scatter_dimension=0, tiled=True), (3, 2),
                              ("i", "j"), ((None,),), (("i", "j"),), True),
    "ppermute_ring": (lambda L, b: L.ppermute(b, "i", RING4), (4,), ("i",), (("i",),), ("i",), True),
    "ppermute_partial": (lambda L, b: L.ppermute(b, "i", [(0, 1), (2, 3)]), (4,), ("i",), (("i",),), ("i",), True),
    "ppermute_two_axes": (lambda L, b: L.ppermute(b, ("i", "j"), RING6), (3, 2), ("i", "j"), ((("i", "j"),),),
                          (("i", "j"),), True),
    "all_to_all": (lambda L, b: L.all_to_all(b, "i", 1, 0, tiled=True), (2,), ("i",), (("i",),), ("i",), True),
    "all_to_all_two_axes": (lambda L, b: L.all_to_all(b, ("i", "j"), 0, 1, tiled=True), (2, 2), ("i", "j"),
                            ((None, ("i", "j")),), (None, ("i", "j")), True),
    "axis_index": (lambda L, b: b * (L.axis_index("j") + 1) + L.axis_index("i"), (2, 2), ("i", "j"),
                   (("i", "j"),), ("i", "j"), True),
    "row_parallel_matmul": (lambda L, b, w: L.psum(b @ L.reshape(w, (4, 1)), "i"), (2,), ("i",),
                            ((None, "i"), ("i",)), (), True),
    "replicated_meets_split": (lambda L, b, v: L.sin(b) * L.psum(L.sum(v * v), "j"), (2, 2), ("i", "j"),
                               (("i", "j"), ()), ("i", "j"), True),
    "varying_psum_times_split": (lambda L, b, v: L.sin(b) * L.psum(L.sum(b * b), "j") + v[:4], (2, 2),
                                 ("i", "j"), (("i", "j"), ()), ("i", "j"), True),
    "replicated_through_ppermute": (lambda L, b, v: L.psum(L.ppermute(b * v, "i", RING4), "i") * v, (4,), ("i",),
                                    (("i",), ()), (), True),
    "pmean_chain": (lambda L, b, v: L.pmean(L.tanh(b @ L.reshape(v, (8, 1))), "i") * b, (4,), ("i",),
                    (("i",), ()), ("i",), True),
}


def _run(side, body, mesh_shape, names, in_specs, out_spec, args):
    if side is _Nabla:
        mesh = S.DeviceMesh(mesh_shape, names)
        specs = tuple(S.P(*s) for s in in_specs)
        return lambda *a: S.shard_map(lambda *b: body(_Nabla, *b), mesh, specs, S.P(*out_spec))(*a)
    devices = np.array(jax.devices("cpu")[:int(np.prod(mesh_shape))]).reshape(mesh_shape)
    mesh = jax.sharding.Mesh(devices, names)
    specs = tuple(jax.sharding.PartitionSpec(*s) for s in in_specs)
    return lambda *a: jax.shard_map(lambda *b: body(_Jax, *b), mesh=mesh, in_specs=specs,
                                    out_specs=jax.sharding.PartitionSpec(*out_spec))(*a)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_shard_map_matches_jax(name):
    body, mesh_shape, names, in_specs, out_spec, check_grad = PROGRAMS[name]
    rng = np.random.default_rng(len(name))
    args = [rng.standard_normal((12, 8)).astype(np.float32), rng.standard_normal(8).astype(np.float32)]
    args = args[:len(in_specs)]
    ours = _run(_Nabla, body, mesh_shape, names, in_specs, out_spec, args)
    theirs = _run(_Jax, body, mesh_shape, names, in_specs, out_spec, args)
    want = np.asarray(theirs(*args))
    got = ours(*[nb.asarray(a) for a in args]).numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    if not check_grad:  # JAX has no derivative of pmax/pmin (tests/sharding/test_sharding.py checks ours)
        return
    argnums = tuple(range(len(args)))
    want_g = jax.grad(lambda *a: jnp.sum(jnp.sin(theirs(*a))), argnums=argnums)(*args)
    got_g = nb.grad(lambda *a: nb.sum(nb.sin(ours(*a))), argnums=argnums)(*[nb.asarray(a) for a in args])
    for g, w in zip(got_g, want_g):
        np.testing.assert_allclose(g.numpy(), np.asarray(w), rtol=1e-3, atol=1e-4)  # float32 sums
