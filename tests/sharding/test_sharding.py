"""SPMD sharding on simulated meshes: layouts, propagation, collectives, shard_map, transforms.

Oracles: NumPy for values (every op, every mesh, layouts drawn from the mesh axes), the unsharded
Nabla result for gradients, the adjoint identity <c, J t> = <J^T c, t> for the collectives'
transposes, JAX's documented examples for ppermute and all_to_all.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import nabla as nb
import nabla.array_api as xp
from nabla.sharding import (DeviceMesh, P, ShardingSpec, all_gather, all_reduce, all_to_all, axis_index,
                            collectives_recorded, pmax, pmean, pmin, ppermute, psum, psum_scatter, reshard,
                            shard_map, typeof)

@pytest.fixture(autouse=True)
def _check_local_shapes(monkeypatch):
    """Each per-shard call also runs the op's own shape rule on its local operands."""
    from nabla.sharding import spmd

    monkeypatch.setattr(spmd, "CHECK_LOCAL_SHAPES", True)


MESH_SHAPES = [(1,), (2,), (4,), (8,), (2, 2), (3, 2), (2, 2, 2)]
NAMES = ("a", "b", "c")


def mesh_of(shape) -> DeviceMesh:
    return DeviceMesh(shape, NAMES[:len(shape)])


def layouts(mesh, ndim: int, count: int, rng) -> list:
    """``count`` specs for a rank-``ndim`` tensor: each mesh axis on some dim or on none."""
    choices = list(itertools.product(range(-1, ndim), repeat=len(mesh.axis_names)))
    picked = [choices[i] for i in rng.choice(len(choices), size=min(count, len(choices)), replace=False)]
    out = []
    for assign in picked:
        dims = [[] for _ in range(ndim)]
        for axis, d in zip(mesh.axis_names, assign):
            if d >= 0:
                dims[d].append(axis)
        out.append(P(*[tuple(d) if len(d) > 1 else d[0] if d else None for d in dims]))
    return out


def _softmax(m, x):
    e = m.exp(x - m.max(x, axis=1, keepdims=True))
    return e / m.sum(e, axis=1, keepdims=True)


def _spd(m, x):
    """Stacks of well-conditioned symmetric positive definite matrices made from x."""
    ns = xp if m is nb else np
    return x @ ns.matrix_transpose(x) / x.shape[-1] + ns.eye(x.shape[-1], dtype=x.dtype)


def _la(m):
    return xp.linalg if m is nb else np.linalg


def _fft(m):
    return xp.fft if m is nb else np.fft


def _set_slice(m, x, y):
    z = x * 1.0
    z[:, 6:30] = y[:, :24] * 2
    return z


def _set_row(m, x, y):
    """A write whose value has no axis for the integer (one op, the slice's unit axis left out)."""
    z = x * 1.0
    z[5, 6:30] = y[3, :24] * 2
    return z


def _set_rows(m, x, y):
    z = x * 1.0
    z[xp.asarray([3, 0, 7, 12]) if m is nb else [3, 0, 7, 12]] = y[:4] * 2
    return z


def _grad_of_take(m, x):
    """The gradient of a gather is a scatter-add (repeated indices add up)."""
    idx = [3, 0, 7, 7]
    if m is nb:
        return nb.grad(lambda t: xp.sum(xp.take(t, xp.asarray(idx), axis=1) ** 2))(x)
    g = np.zeros_like(x)
    np.add.at(g, (slice(None), idx), 2 * x[:, idx])
    return g


# name -> (function of (module, *inputs), input shapes). Sizes divide by every mesh's shard counts.
CASES = {
    "exp": (lambda m, x: m.exp(x), [(24, 48)]),
    "tanh_neg": (lambda m, x: -m.tanh(x), [(24, 48)]),
    "add_bcast": (lambda m, x, y: x + y, [(24, 48), (48,)]),
    "mul": (lambda m, x, y: x * y, [(24, 48), (24, 48)]),
    "where": (lambda m, x, y: m.where(x > y, x, y * 2), [(24, 48), (24, 48)]),
    "sum0": (lambda m, x: m.sum(x, axis=0), [(24, 48)]),
    "sum1_keep": (lambda m, x: m.sum(x, axis=1, keepdims=True), [(24, 48)]),
    "sum_all": (lambda m, x: m.sum(x), [(24, 48)]),
    "mean0": (lambda m, x: m.mean(x, axis=0), [(24, 48)]),
    "max1": (lambda m, x: m.max(x, axis=1), [(24, 48)]),
    "min_all": (lambda m, x: m.min(x), [(24, 48)]),
    "prod1": (lambda m, x: m.prod(x * 0.1 + 1, axis=1), [(24, 48)]),
    "matmul": (lambda m, x, w: x @ w, [(24, 48), (48, 24)]),
    "batched_matmul": (lambda m, x, w: x @ w, [(24, 24, 24), (24, 24)]),
    "mlp": (lambda m, x, w: m.sum(m.tanh(x @ w) ** 2, axis=1), [(24, 48), (48, 24)]),
    "softmax": (_softmax, [(24, 48)]),
    "transpose": (lambda m, x: m.permute_dims(x, (1, 0)) if m is nb else x.T, [(24, 48)]),
    "reshape_split": (lambda m, x: m.reshape(x, (24, 6, 8)), [(24, 48)]),
    "reshape_merge": (lambda m, x: m.reshape(x, (24 * 48,)), [(24, 48)]),
    "expand_squeeze": (lambda m, x: m.squeeze(m.expand_dims(x, axis=1), axis=1) + 1, [(24, 48)]),
    "broadcast_to": (lambda m, x: m.broadcast_to(x, (24, 48)), [(48,)]),
    "slice": (lambda m, x: x[:, 6:30] * 2, [(24, 48)]),
    "slice_row": (lambda m, x: x[5, 6:30] * 2 + x[:, 7], [(24, 48)]),
    "concat": (lambda m, x, y: m.concat([x, y], axis=1) if m is nb else np.concatenate([x, y], axis=1),
               [(24, 48), (24, 48)]),
    "sort": (lambda m, x: xp.sort(x, axis=1) if m is nb else np.sort(x, axis=1), [(24, 48)]),
    "cumsum": (lambda m, x: xp.cumulative_sum(x, axis=0) if m is nb else np.cumsum(x, axis=0), [(24, 48)]),
    "argmax": (lambda m, x: xp.argmax(x, axis=1) if m is nb else np.argmax(x, axis=1), [(24, 48)]),
    "take": (lambda m, x: xp.take(x, xp.asarray([3, 0, 7, 7]), axis=1) if m is nb else np.take(x, [3, 0, 7, 7], axis=1),
             [(24, 48)]),
    "set_slice": (_set_slice, [(24, 48), (24, 48)]),
    "set_row": (_set_row, [(24, 48), (24, 48)]),
    "set_rows": (_set_rows, [(24, 48), (24, 48)]),
    "scatter_add": (_grad_of_take, [(24, 48)]),
    # kernels of ours: a matrix (or the transformed axis) whole per device, stacks keep their splits
    "cholesky": (lambda m, x: _la(m).cholesky(_spd(m, x)), [(24, 24, 24)]),
    "solve": (lambda m, x, b: _la(m).solve(_spd(m, x), b), [(24, 24, 24), (24, 24, 24)]),
    "slogdet": (lambda m, x: _la(m).slogdet(_spd(m, x))[1], [(24, 24, 24)]),
    "eigvalsh": (lambda m, x: _la(m).eigvalsh(_spd(m, x)), [(24, 24, 24)]),
    "svdvals": (lambda m, x: _la(m).svdvals(x), [(24, 24, 24)]),
    "qr_r": (lambda m, x: (xp if m is nb else np).abs(_la(m).qr(x)[1]), [(24, 24, 24)]),
    "fft": (lambda m, x: (xp if m is nb else np).abs(_fft(m).fft(x, axis=1)), [(24, 48)]),
    "rfft": (lambda m, x: (xp if m is nb else np).real(_fft(m).rfft(x, axis=0)), [(24, 48)]),
    "fft2": (lambda m, x: (xp if m is nb else np).abs(_fft(m).fftn(x, axes=(1, 2))), [(24, 24, 48)]),
}


@pytest.mark.parametrize("mesh_shape", MESH_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("case", sorted(CASES))
def test_sharded_op_matches_numpy(case, mesh_shape):
    fn, shapes = CASES[case]
    mesh = mesh_of(mesh_shape)
    rng = np.random.default_rng(abs(hash((case, mesh_shape))) % 2**32)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    expected = fn(np, *arrays)
    unsharded = fn(nb, *[nb.asarray(a) for a in arrays]).numpy()
    per_input = [layouts(mesh, len(s), 3, rng) for s in shapes]
    for specs in list(itertools.product(*per_input))[:4]:
        xs = [nb.asarray(a).shard(mesh, s) for a, s in zip(arrays, specs)]
        out = fn(nb, *xs)
        assert out.sharding is not None and out.sharding.mesh == mesh, (case, specs)
        got = out.numpy()
        assert got.shape == expected.shape, (case, specs)
        np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-5, err_msg=f"{case} {specs}")
        np.testing.assert_allclose(got, unsharded, rtol=2e-5, atol=2e-5, err_msg=f"{case} {specs}")


def test_writes_keep_the_splits_of_dims_they_do_not_index():
    mesh = mesh_of((2,))
    a = np.arange(48.0).reshape(8, 6)
    x = nb.asarray(a).shard(mesh, P(None, "a"))
    with collectives_recorded() as log:
        rows = x * 1.0
        rows[xp.asarray([3, 0, 5])] = x[:3] * 2   # rows whole already: columns keep their split
        cols = x * 1.0
        cols[1:5] = 0.0                             # a dim taken whole (columns) keeps its split
    assert log == [] and rows.sharding.spec == P(None, "a") and cols.sharding.spec == P(None, "a")
    want = a.copy()
    want[[3, 0, 5]] = a[:3] * 2
    np.testing.assert_array_equal(rows.numpy(), want)
    want = a.copy()
    want[1:5] = 0.0
    np.testing.assert_array_equal(cols.numpy(), want)


@pytest.mark.parametrize("mesh_shape", [(2, 2), (3, 2)], ids=lambda s: "x".join(map(str, s)))
def test_recording_path_matches_numpy(mesh_shape, monkeypatch):
    """The path users run (nodes recorded directly, no per-shard shape check) on every case."""
    from nabla.sharding import spmd

    monkeypatch.setattr(spmd, "CHECK_LOCAL_SHAPES", False)
    mesh = mesh_of(mesh_shape)
    rng = np.random.default_rng(7)
    for case, (fn, shapes) in sorted(CASES.items()):
        arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        specs = [layouts(mesh, len(s), 1, rng)[0] for s in shapes]
        got = fn(nb, *[nb.asarray(a).shard(mesh, p) for a, p in zip(arrays, specs)]).numpy()
        np.testing.assert_allclose(got, fn(np, *arrays), rtol=2e-5, atol=2e-5, err_msg=f"{case} {specs}")


def test_kernels_keep_stack_splits_without_collectives():
    """A stack of matrices split over devices factorizes in place; a transform keeps the other dims'
    splits; splitting the matrix (or the transformed axis) gathers it first."""
    mesh = mesh_of((2, 2))
    rng = np.random.default_rng(1)
    a = rng.standard_normal((8, 6, 6))
    x = nb.asarray(a).shard(mesh, P("a", None, None))
    with collectives_recorded() as log:
        w, v = xp.linalg.eigh(x + xp.matrix_transpose(x))
        f = xp.fft.fft(x, axis=2)
    assert log == [] and w.sharding.spec == P("a") and f.sharding.spec == P("a")
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(a + a.transpose(0, 2, 1)), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(f.numpy(), np.fft.fft(a, axis=2), rtol=1e-10, atol=1e-10)
    split_rows = nb.asarray(a).shard(mesh, P("a", "b", None))
    with collectives_recorded() as log:
        d = xp.linalg.det(split_rows)
    assert log == [("all_gather", ("b",))] and d.sharding.spec == P("a")
    np.testing.assert_allclose(d.numpy(), np.linalg.det(a), rtol=1e-10)


A2A, GATHER = "all_to_all", "all_gather"


@pytest.mark.parametrize("src,dst,log_want", [
    (P("a"), P(None, "a"), [(A2A, ("a",))]), (P(None, "b"), P("b"), [(A2A, ("b",))]),
    (P(("a", "b")), P(None, None, ("a", "b")), [(A2A, ("a", "b"))]),
    (P("a", "b"), P(None, "b", "a"), [(A2A, ("a",))]),
    (P("a", "b"), P("b", "a"), [(GATHER, ("a",)), (A2A, ("b",))]),  # a swap (was two gathers)
    (P("a", None, "b"), P("b", "a"), [(A2A, ("a",)), (A2A, ("b",))])])
def test_a_split_that_moves_dims_is_one_all_to_all(src, dst, log_want):
    """Each device ends with its own block (1/k of a gather's memory) and the values are NumPy's. A
    swap of two dims' splits gathers one of them and moves the other (the gathered dim is then
    sliced locally)."""
    mesh = mesh_of((2, 3))
    a = np.arange(12 * 12 * 6, dtype=np.float32).reshape(12, 12, 6)
    x = nb.asarray(a).shard(mesh, src)
    with collectives_recorded() as log:
        y = reshard(x, dst)
    assert log == log_want and y.sharding.spec == dst
    want = ShardingSpec.parse(mesh, dst, a.shape)
    for d, v in enumerate(y._impl._values):
        blocks = tuple(slice(None) if not ax else slice(mesh.block(d, ax) * (n // k), (mesh.block(d, ax) + 1) * (n // k))
                       for ax, n, k in ((ax, n, int(np.prod([mesh.axis_size(q) for q in ax])))
                                        for ax, n in zip(want.dims, a.shape)))
        np.testing.assert_array_equal(nb.Tensor(nb.TensorImpl([v], y.dtype)).numpy(), a[blocks])


def test_layout_round_trip_and_notation():
    mesh = mesh_of((2, 2))
    a = np.arange(32, dtype=np.float32).reshape(8, 4)
    x = nb.asarray(a).shard(mesh, P("a", "b"))
    assert typeof(x) == "float32[8@a,4@b]"
    assert x.sharding.spec == P("a", "b") and x.shape == (8, 4)
    np.testing.assert_array_equal(x.numpy(), a)
    np.testing.assert_array_equal(np.asarray(x), a)
    y = nb.device_put(a, nb.NamedSharding(mesh, P(("a", "b"))))
    assert typeof(y) == "float32[8@(a,b),4]"
    np.testing.assert_array_equal(reshard(y, P(None, "a")).numpy(), a)
    plain = nb.asarray(a)
    assert nb.device_put(plain) is plain and nb.device_put(plain, nb.cpu()).sharding is None
    # each device holds its own block
    blocks = [nb.Tensor(nb.TensorImpl([v], x.dtype)).numpy() for v in x._impl._values]
    for d, blk in enumerate(blocks):
        i, j = mesh.coords(d)
        np.testing.assert_array_equal(blk, a[4 * i:4 * i + 4, 2 * j:2 * j + 2])


@pytest.mark.parametrize("mesh_shape", MESH_SHAPES)
def test_addressable_shards_tile_the_array(mesh_shape):
    """JAX's ``addressable_shards``: the replica-0 blocks tile the array once, each is ``a[index]``;
    a pending sum's blocks are terms that add up to the reduced array."""
    mesh = mesh_of(mesh_shape)
    rng = np.random.default_rng(sum(mesh_shape))
    a = rng.standard_normal((24, 24)).astype(np.float32)
    for spec in layouts(mesh, 2, 4, rng):
        shards = nb.asarray(a).shard(mesh, spec).addressable_shards
        assert len(shards) == mesh.size and all(s.device == d for s, d in zip(shards, mesh.devices))
        covered = np.zeros(a.shape, int)
        for s in shards:
            np.testing.assert_array_equal(s.data.numpy(), a[s.index])
            covered[s.index] += s.replica_id == 0
        np.testing.assert_array_equal(covered, 1)
    x = nb.asarray(a).shard(mesh, P(None, mesh.axis_names[-1]))
    total = np.zeros(24, np.float64)
    for s in nb.sum(x, axis=1).addressable_shards:
        assert s.index == (slice(None),)
        total += s.data.numpy() * (s.replica_id == 0)
    np.testing.assert_allclose(total, a.sum(axis=1), rtol=1e-5, atol=1e-5)
    (whole,) = nb.asarray(a).addressable_shards
    assert whole.index == (slice(None), slice(None)) and whole.replica_id == 0


def test_layout_errors():
    mesh = mesh_of((2, 2))
    x = nb.asarray(np.zeros((6, 3), np.float32))
    with pytest.raises(ValueError, match="dim 1 of size 3 does not divide"):
        x.shard(mesh, P(None, "b"))
    with pytest.raises(ValueError, match="not an axis"):
        x.shard(mesh, P("z"))
    with pytest.raises(ValueError, match="used twice"):
        x.shard(mesh, P("a", "a"))
    with pytest.raises(ValueError, match="entries for a tensor of rank 2"):
        x.shard(mesh, P("a", None, None))
    with pytest.raises(ValueError, match="different device meshes"):
        x.shard(mesh, P("a")) + x.shard(mesh_of((2,)), P("a"))
    with pytest.raises(ValueError, match="shape"):
        DeviceMesh((2, 2), ("a",))
    with pytest.raises(ValueError, match="collectives run inside shard_map"):
        psum(x, "a")
    z = xp.asarray(np.ones((4, 4), np.complex64))
    for f in (lambda t: xp.argmax(t, axis=1), lambda t: xp.max(t, axis=1)):  # refused sharded as unsharded
        with pytest.raises(TypeError, match="complex operands are not supported"):
            f(z)
        with pytest.raises(TypeError, match=r"complex operands are not supported by this op yet \(got shape \(4, 4\)"):
            f(z.shard(mesh, P(("a", "b"))))


def test_data_parallel_matmul_moves_nothing_and_row_parallel_reduces_once():
    mesh = mesh_of((2, 2))
    rng = np.random.default_rng(0)
    a, w = rng.standard_normal((8, 4)).astype(np.float32), rng.standard_normal((4, 6)).astype(np.float32)
    x_dp, w_rep = nb.asarray(a).shard(mesh, P("a")), nb.asarray(w).shard(mesh, P())
    with collectives_recorded() as log:
        y = nb.tanh(x_dp @ w_rep)
    assert log == [] and y.sharding.spec == P("a")
    x_col, w_row = nb.asarray(a).shard(mesh, P(None, "b")), nb.asarray(w).shard(mesh, P("b"))
    with collectives_recorded() as log:
        z = x_col @ w_row
        assert log == [] and z.sharding.partial == (("b", "sum"),)
        r = nb.tanh(z)  # nonlinear: the pending sum completes first
    assert log == [("all_reduce_sum", ("b",))] and r.sharding.is_replicated
    np.testing.assert_allclose(r.numpy(), np.tanh(a @ w), rtol=1e-5)
    # negative oracle: tanh applied to each device's partial product, then summed, is wrong
    parts = {mesh.block(d, ("b",)): nb.Tensor(nb.TensorImpl([v], z.dtype)) for d, v in enumerate(z._impl._values)}
    wrong = sum(nb.tanh(t).numpy() for t in parts.values())
    assert len(parts) == 2 and not np.allclose(wrong, np.tanh(a @ w), atol=1e-2)


@pytest.mark.parametrize("kind", ["add", "mul", "div", "sum", "layout", "matmul"])
def test_pending_sums_ride_linear_ops(kind):
    mesh = mesh_of((2,))
    rng = np.random.default_rng(1)
    a, w = rng.standard_normal((4, 6)).astype(np.float32), rng.standard_normal((6, 4)).astype(np.float32)
    x, ww = nb.asarray(a).shard(mesh, P(None, "a")), nb.asarray(w).shard(mesh, P("a"))
    z, ref = x @ ww, a @ w  # partial over "a"
    other = nb.asarray(np.full((4, 4), 3.0, np.float32))
    ops = {"add": (lambda t: t + t, lambda r: r + r), "mul": (lambda t: t * other, lambda r: r * 3),
           "div": (lambda t: t / other, lambda r: r / 3), "sum": (lambda t: nb.sum(t, axis=0), lambda r: r.sum(0)),
           "layout": (lambda t: nb.reshape(t.T, (16,))[2:10], lambda r: r.T.reshape(16)[2:10]),
           "matmul": (lambda t: t @ other, lambda r: r @ np.full((4, 4), 3.0))}
    f, g = ops[kind]
    with collectives_recorded() as log:
        out = f(z)
    assert log == [] and out.sharding.partial == (("a", "sum"),), kind
    np.testing.assert_allclose(out.numpy(), g(ref), rtol=1e-5, atol=1e-5)
    # a sum of two pending sums stays pending; a pending sum plus a whole value does not
    with collectives_recorded() as log:
        mixed = z + other
    assert log == [("all_reduce_sum", ("a",))]
    np.testing.assert_allclose(mixed.numpy(), ref + 3, rtol=1e-5)


def test_reductions_make_pending_kinds():
    mesh = mesh_of((2, 2))
    a = np.random.default_rng(2).standard_normal((8, 6)).astype(np.float32)
    x = nb.asarray(a).shard(mesh, P(("a", "b")))
    for name, kind, ref in (("sum", "sum", a.sum(0)), ("max", "max", a.max(0)), ("min", "min", a.min(0)),
                            ("mean", "sum", a.mean(0))):
        out = getattr(nb, name)(x, axis=0)
        assert out.sharding.partial == (("a", kind), ("b", kind)), name
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-6)
    assert all_reduce(nb.sum(x, axis=0)).sharding.is_replicated


def test_ops_along_a_split_axis_gather_it_first():
    mesh = mesh_of((4,))
    a = np.random.default_rng(3).standard_normal((8, 5)).astype(np.float32)
    x = nb.asarray(a).shard(mesh, P("a"))
    with collectives_recorded() as log:
        s = xp.sort(x, axis=0)
    assert log == [("all_gather", ("a",))] and s.sharding.is_replicated
    np.testing.assert_array_equal(s.numpy(), np.sort(a, axis=0))
    with collectives_recorded() as log:  # along a whole axis: the split stays
        s = xp.sort(x, axis=1)
    assert log == [] and s.sharding.spec == P("a")
    np.testing.assert_array_equal(s.numpy(), np.sort(a, axis=1))
    with collectives_recorded() as log:  # a scan along the split axis gathers that axis first
        c = xp.cumulative_sum(x, axis=0)
    assert log == [("all_gather", ("a",))]
    np.testing.assert_allclose(c.numpy(), np.cumsum(a, axis=0), rtol=1e-5)


# --- transforms ---------------------------------------------------------------------------

def _mlp_loss(params, x):
    w1, w2 = params
    return nb.mean((nb.tanh(x @ w1) @ w2) ** 2)


@pytest.mark.parametrize("style", ["data", "tensor", "both"])
def test_grad_of_sharded_mlp_matches_unsharded(style):
    mesh = mesh_of((2, 2))
    rng = np.random.default_rng(4)
    a = rng.standard_normal((8, 6)).astype(np.float32)
    w1, w2 = rng.standard_normal((6, 8)).astype(np.float32), rng.standard_normal((8, 4)).astype(np.float32)
    specs = {"data": (P("a"), P(), P()), "tensor": (P(), P(None, "b"), P("b")),
             "both": (P("a"), P(None, "b"), P("b"))}[style]
    x, p1, p2 = (nb.asarray(v).shard(mesh, s) for v, s in zip((a, w1, w2), specs))
    loss, (g1, g2) = nb.value_and_grad(_mlp_loss)((p1, p2), x)
    ref_loss, (r1, r2) = nb.value_and_grad(_mlp_loss)((nb.asarray(w1), nb.asarray(w2)), nb.asarray(a))
    np.testing.assert_allclose(float(loss), float(ref_loss), rtol=1e-5)
    np.testing.assert_allclose(g1.numpy(), r1.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(g2.numpy(), r2.numpy(), rtol=1e-4, atol=1e-6)
    # an SGD step keeps the parameters' layouts
    new1 = p1 - 0.1 * g1
    assert new1.sharding.dims[:2] == p1.sharding.dims[:2] and not new1.sharding.partial
    # forward mode through the same layouts
    _, t = nb.jvp(lambda w: _mlp_loss((w, p2), x), (p1,), (nb.ones_like(p1),))
    _, rt = nb.jvp(lambda w: _mlp_loss((w, nb.asarray(w2)), nb.asarray(a)), (nb.asarray(w1),),
                   (nb.ones_like(nb.asarray(w1)),))
    np.testing.assert_allclose(float(t), float(rt), rtol=1e-4)


def test_vmap_over_a_sharded_tensor_and_spmd_axis_name():
    mesh = mesh_of((2, 2))
    rng = np.random.default_rng(5)
    a, w = rng.standard_normal((4, 6)).astype(np.float32), rng.standard_normal(6).astype(np.float32)
    with collectives_recorded() as log:
        out = nb.vmap(lambda r: nb.sum(r * r))(nb.asarray(a).shard(mesh, P("a")))
    assert log == [] and out.sharding.spec == P("a")  # the mapped axis keeps its split
    np.testing.assert_allclose(out.numpy(), (a * a).sum(1), rtol=1e-5)
    seen = []

    def f(r):
        seen.append(r.sharding)
        return nb.sum(nb.tanh(r) * nb.asarray(w))

    out = nb.vmap(f, spmd_axis_name="b")(nb.asarray(a).shard(mesh, P(None, "a")))
    assert seen[0].dims == (("b",), ("a",)) and out.sharding.spec == P("b")
    np.testing.assert_allclose(out.numpy(), np.array([(np.tanh(r) * w).sum() for r in a]), rtol=1e-5)
    with pytest.raises(ValueError, match="laid out on one device mesh"):
        nb.vmap(f, spmd_axis_name="b")(nb.asarray(a))
    # a tuple of mesh axes splits the mapped axis over both, major first (JAX's spmd_axis_name)
    out = nb.vmap(f, spmd_axis_name=("b", "a"))(nb.asarray(a).shard(mesh, P(None, "a")))
    assert seen[-1].dims == (("b", "a"), ()) and out.sharding.spec == P(("b", "a"))
    np.testing.assert_allclose(out.numpy(), np.array([(np.tanh(r) * w).sum() for r in a]), rtol=1e-5)
    assert [s.index for s in out.addressable_shards] == [(slice(k, k + 1),) for k in (0, 2, 1, 3)]


# --- shard_map and collectives ---------------------------------------------------------------

def _blocks(a, k, axis=0):
    return np.split(a, k, axis=axis)


@pytest.mark.parametrize("mesh_shape", [(4,), (2, 2), (3, 2)], ids=lambda s: "x".join(map(str, s)))
def test_collectives_match_numpy(mesh_shape):
    mesh = mesh_of(mesh_shape)
    k = mesh.shape[0]
    rng = np.random.default_rng(6)
    a = rng.standard_normal((k * 2, 6)).astype(np.float32)
    x = nb.asarray(a)
    run = lambda f, out=P(), check=True: shard_map(f, mesh, in_specs=P("a"), out_specs=out,  # noqa: E731
                                                   check_vma=check)(x).numpy()
    blocks = _blocks(a, k)
    np.testing.assert_allclose(run(lambda b: psum(b, "a")), sum(blocks), rtol=1e-5)
    np.testing.assert_allclose(run(lambda b: pmean(b, "a")), sum(blocks) / k, rtol=1e-5)
    np.testing.assert_allclose(run(lambda b: pmax(b, "a")), np.max(blocks, axis=0))
    np.testing.assert_allclose(run(lambda b: pmin(b, "a")), np.min(blocks, axis=0))
    np.testing.assert_allclose(run(lambda b: all_gather(b, "a", tiled=True), P(), False), a)
    np.testing.assert_allclose(run(lambda b: all_gather(b, "a"), P(), False), np.stack(blocks))
    np.testing.assert_allclose(run(lambda b: b * 0 + nb.astype(axis_index("a"), nb.float32), P("a")),
                               np.repeat(np.arange(k, dtype=np.float32), 2)[:, None] * np.ones((1, 6)))
    # psum_scatter: the sum over the group, device i keeping block i of the scattered dim
    tiled = run(lambda b: psum_scatter(b, "a", scatter_dimension=1, tiled=True), P(None, "a")) \
        if 6 % k == 0 else None
    if tiled is not None:
        np.testing.assert_allclose(tiled, sum(blocks), rtol=1e-5)
    y = nb.asarray(rng.standard_normal((k * k, 3)).astype(np.float32))
    rows = shard_map(lambda b: psum_scatter(b, "a"), mesh, in_specs=P("a"), out_specs=P("a"))(y).numpy()
    np.testing.assert_allclose(rows, sum(_blocks(y.numpy(), k)).reshape(-1), rtol=1e-5)


def test_ppermute_and_all_to_all_follow_jax_examples():
    mesh = mesh_of((4,))
    x = nb.asarray(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    shifted = shard_map(lambda b: ppermute(b, "a", [(0, 1), (1, 2), (2, 3)]), mesh, in_specs=P("a"),
                        out_specs=P("a"))(x)
    np.testing.assert_array_equal(shifted.numpy(), [0.0, 1.0, 2.0, 3.0])  # destinations not listed get zeros
    with pytest.raises(ValueError, match="perm"):
        shard_map(lambda b: ppermute(b, "a", [(0, 1), (1, 1)]), mesh, in_specs=P("a"), out_specs=P("a"))(x)
    # all_to_all: block (i, j) of the result is block (j, i) of the input
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = shard_map(lambda b: all_to_all(b, "a", 1, 0, tiled=True), mesh, in_specs=P("a"),
                    out_specs=P(None, "a"))(nb.asarray(a)).numpy()
    for i in range(4):
        for j in range(4):
            # device j's input block rows 2j:2j+2; it sends columns 2i:2i+2 to device i, stacked on axis 0
            np.testing.assert_array_equal(out[2 * j:2 * j + 2, 2 * i:2 * i + 2], a[2 * j:2 * j + 2, 2 * i:2 * i + 2])
    stacked = shard_map(lambda b: all_to_all(b, "a", 0, 0), mesh, in_specs=P(None, "a"),
                        out_specs=P(None, "a"))(nb.asarray(np.arange(32, dtype=np.float32).reshape(4, 8)))
    ref = np.arange(32, dtype=np.float32).reshape(4, 8)
    # untiled: device i gets row i of every device's block, stacked by source device
    for i in range(4):
        np.testing.assert_array_equal(stacked.numpy()[:, 2 * i:2 * i + 2],
                                      np.stack([ref[i, 2 * j:2 * j + 2] for j in range(4)]))


def test_shard_map_checks_varying_axes_and_specs():
    mesh = mesh_of((2, 2))
    x = nb.asarray(np.ones((4, 4), np.float32))
    with pytest.raises(ValueError, match=r"varies along mesh axes \['a'\]"):
        shard_map(lambda b: b * 2, mesh, in_specs=P("a"), out_specs=P())(x)
    ok = shard_map(lambda b: psum(b, "a"), mesh, in_specs=P("a"), out_specs=P())(x)
    np.testing.assert_array_equal(ok.numpy(), np.full((2, 4), 2.0))
    first = shard_map(lambda b: b * nb.astype(axis_index("a"), nb.float32), mesh, in_specs=P("a"), out_specs=P(),
                      check_vma=False)(x)
    np.testing.assert_array_equal(first.numpy(), np.zeros((2, 4)))  # device 0's block, as JAX keeps it
    with pytest.raises(ValueError, match="dim 0 of size 3 does not divide"):
        shard_map(lambda b: b, mesh, in_specs=P("a"), out_specs=P("a"))(nb.asarray(np.ones((3,), np.float32)))
    with pytest.raises(ValueError, match="return it from the function"):
        shard_map(lambda b: b.numpy(), mesh, in_specs=P("a"), out_specs=P("a"))(x)
    shown = []  # print in the body shows the block's type, as JAX's tracers do, and reads nothing
    shard_map(lambda b: shown.append((str(b), repr(b * 2))) or b, mesh, in_specs=P("a"), out_specs=P("a"))(x)
    assert shown == [("Tensor(<float32[2, 4]{varying: a} block on DeviceMesh('a': 2, 'b': 2)>)",) * 2]
    # the design's {position: ShardingSpec} form
    spec = ShardingSpec(mesh, [("a",), ()])
    y = shard_map(lambda u, v: u + v, mesh, in_specs={0: spec, 1: spec}, out_specs=P("a"))(x, x)
    np.testing.assert_array_equal(y.numpy(), np.full((4, 4), 2.0))
    # pytree prefixes match dicts by key, whatever their order (flattening sorts the keys)
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    d = shard_map(lambda t: {"x": psum(nb.sum(t["x"]), ("a", "b")) * t["s"]}, mesh,
                  in_specs=({"x": P("a", "b"), "s": P()},), out_specs={"x": P()})(
        {"x": nb.asarray(a), "s": nb.asarray(2.0)})
    assert float(d["x"]) == 2 * a.sum()
    with pytest.raises(ValueError, match=r"in_specs keys \['y'\] do not match the keys \['x'\]"):
        shard_map(lambda t: t, mesh, in_specs=({"y": P()},), out_specs=P())({"x": x})
    with pytest.raises(ValueError, match="in_specs has 1 entries for a tuple of 2"):
        shard_map(lambda u, v: u, mesh, in_specs=(P(),), out_specs=P())(x, x)


def test_collectives_of_values_invariant_in_the_body():
    """JAX's idioms: ``psum(1, axes)`` is the group's size, a value invariant along an axis sums to
    size times itself, a constant made in the body is the same on every device."""
    mesh = mesh_of((3, 2))
    a = np.arange(12, dtype=np.float32).reshape(6, 2)
    sizes = shard_map(lambda: (psum(1, "b"), psum(1, ("a", "b"))), mesh, in_specs=(), out_specs=(P(), P()))()
    assert [int(t) for t in sizes] == [2, 6]
    y = shard_map(lambda b: psum(b, "b") * pmax(nb.asarray(0.5), "a"), mesh, in_specs=P("a"), out_specs=P("a"))(
        nb.asarray(a))
    np.testing.assert_array_equal(y.numpy(), a * 2 * 0.5)


def test_grad_of_a_psummed_loss_gives_each_shard_its_gradient():
    mesh = mesh_of((4,))
    a = np.arange(8, dtype=np.float32)

    def loss(x, w):
        return shard_map(lambda b, v: psum(nb.sum((b * v) ** 2), "a"), mesh, in_specs=(P("a"), P()),
                         out_specs=P())(x, w)

    gx, gw = nb.grad(loss, argnums=(0, 1))(nb.asarray(a), nb.asarray(np.float32(1.5)))
    np.testing.assert_allclose(gx.numpy(), 2 * 1.5 ** 2 * a, rtol=1e-6)  # JAX's doc: [0, 2, ..., 14] at w=1
    np.testing.assert_allclose(float(gw), 2 * 1.5 * (a ** 2).sum(), rtol=1e-6)  # the replicated w sums over devices


@pytest.mark.parametrize("second", ["hessian", "jacrev_of_grad", "jacfwd_of_grad"])
def test_second_derivatives_through_shard_map(second):
    """jacrev maps the pullback over cotangents: shard_map's block ops meet a vmap added after them."""
    mesh = mesh_of((2, 2))
    a = np.random.default_rng(3).standard_normal((4, 2)).astype(np.float32)

    def loss(x):  # sum over devices of (the neighbour's block)^3: the Hessian is diag(6 a)
        return shard_map(lambda b: psum(nb.sum(ppermute(b, "a", [(0, 1), (1, 0)]) ** 3), ("a", "b")), mesh,
                         in_specs=P("a", "b"), out_specs=P())(x)

    fn = {"hessian": nb.hessian, "jacrev_of_grad": lambda f: nb.jacrev(nb.grad(f)),
          "jacfwd_of_grad": lambda f: nb.jacfwd(nb.grad(f))}[second]
    h = fn(loss)(nb.asarray(a)).numpy().reshape(a.size, a.size)
    np.testing.assert_allclose(h, np.diag(6 * a.ravel()), rtol=1e-5, atol=1e-5)


COLLECTIVE_MAPS = {
    "psum": (lambda b: psum(b, "a"), P("a"), P(), True),
    "pmax": (lambda b: pmax(b, "a"), P("a"), P(), True),
    "all_gather": (lambda b: all_gather(b, "a", axis=1, tiled=True), P("a"), P("a"), True),
    "psum_scatter": (lambda b: psum_scatter(b, "a", scatter_dimension=1, tiled=True), P("a"), P(None, "a"), True),
    "ppermute": (lambda b: ppermute(b, "a", [(0, 1), (1, 2), (2, 3), (3, 0)]), P("a"), P("a"), True),
    "all_to_all": (lambda b: all_to_all(b, "a", 1, 0, tiled=True), P("a"), P(None, "a"), True),
    "local_mlp": (lambda b: psum(nb.tanh(b) * 2, "a"), P("a"), P(), True),
}


@pytest.mark.parametrize("name", sorted(COLLECTIVE_MAPS))
def test_collective_transposes(name):
    """jvp vs finite differences, and vjp as the transpose of jvp: <c, J t> == <J^T c, t>."""
    f, ins, outs, _ = COLLECTIVE_MAPS[name]
    mesh = mesh_of((4,))
    g = shard_map(f, mesh, in_specs=ins, out_specs=outs)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((8, 8))
    t = rng.standard_normal((8, 8))
    y, jt = nb.jvp(g, (nb.asarray(x),), (nb.asarray(t),))
    eps = 1e-6
    fd = (g(nb.asarray(x + eps * t)).numpy() - g(nb.asarray(x - eps * t)).numpy()) / (2 * eps)
    np.testing.assert_allclose(jt.numpy(), fd, rtol=1e-5, atol=1e-6)
    c = rng.standard_normal(y.shape)
    _, pullback = nb.vjp(g, nb.asarray(x))
    (jtc,) = pullback(nb.asarray(c))
    np.testing.assert_allclose(np.sum(c * jt.numpy()), np.sum(jtc.numpy() * t), rtol=1e-9)


#: bodies where a split block meets a replicated argument (b: P over the mesh, v: P()), so a
#: cotangent reaching a replicated value holds one term per device
MIXED_BODIES = {
    "psum_of_replicated": (lambda b, v: nb.sin(b) * psum(nb.sum(v * v), "b"), P("i"), (2, 2)),
    "pmax_of_terms": (lambda b, v: nb.cos(b) * pmax(nb.sum(b) * v[0], "a"), P("i"), (2, 2)),
    "pmin_over_two_axes": (lambda b, v: pmin(b * v[:2], ("a", "b")) + b, P("i"), (3, 2)),
    "pmean_both": (lambda b, v: nb.sin(b) * pmean(v * v, "b")[0] + pmean(nb.sum(b), "a"), P("i"), (2, 2)),
    "ppermute_then_psum": (lambda b, v: psum(ppermute(b * v[:2], "a", [(0, 1), (1, 0)]), ("a", "b")) * v[:2], P(), (2, 2)),
    "replicated_out": (lambda b, v: psum(nb.sum(b), ("a", "b")) * v, P(), (2, 2)),
}


@pytest.mark.parametrize("name", sorted(MIXED_BODIES))
def test_shard_map_gradients_where_split_meets_replicated(name):
    """jvp vs finite differences, and the vjp as its transpose, over both arguments."""
    body, out, mesh_shape = MIXED_BODIES[name]
    mesh = mesh_of(mesh_shape)
    split = P(*mesh.axis_names)
    out = split if out == P("i") else out
    g = shard_map(body, mesh, in_specs=(split, P()), out_specs=out)
    rng = np.random.default_rng(len(name))
    x, v = rng.standard_normal((2 * mesh_shape[0], 2 * mesh_shape[1])), rng.standard_normal(4)
    tx, tv = rng.standard_normal(x.shape), rng.standard_normal(v.shape)
    y, jt = nb.jvp(g, (nb.asarray(x), nb.asarray(v)), (nb.asarray(tx), nb.asarray(tv)))
    eps = 1e-6
    fd = (g(nb.asarray(x + eps * tx), nb.asarray(v + eps * tv)).numpy()
          - g(nb.asarray(x - eps * tx), nb.asarray(v - eps * tv)).numpy()) / (2 * eps)
    np.testing.assert_allclose(jt.numpy(), fd, rtol=1e-5, atol=1e-6)
    c = rng.standard_normal(y.shape)
    _, pullback = nb.vjp(g, nb.asarray(x), nb.asarray(v))
    cx, cv = pullback(nb.asarray(c))
    np.testing.assert_allclose(np.sum(c * jt.numpy()), np.sum(cx.numpy() * tx) + np.sum(cv.numpy() * tv), rtol=1e-9)


def test_grad_through_a_tensor_closed_over_by_shard_map():
    """A differentiated tensor from outside the body enters it as a replicated argument would."""
    mesh = mesh_of((2, 2))
    a = np.arange(16, dtype=np.float64).reshape(4, 4) / 10
    w = np.array([0.5, -1.0, 2.0, 0.3])

    def loss(w):
        return nb.sum(shard_map(lambda b: nb.sin(b) * psum(nb.sum(w * w), "b"), mesh, in_specs=P("a", "b"),
                                out_specs=P("a", "b"))(nb.asarray(a)))

    np.testing.assert_allclose(nb.grad(loss)(nb.asarray(w)).numpy(), 4 * w * np.sin(a).sum(), rtol=1e-12)
    _, tangent = nb.jvp(loss, (nb.asarray(w),), (nb.asarray(np.ones(4)),))
    np.testing.assert_allclose(float(tangent), 4 * w.sum() * np.sin(a).sum(), rtol=1e-12)


@pytest.mark.parametrize("shape", [(2,), (4,), (2, 2)])
def test_grad_in_the_body_with_respect_to_a_replicated_argument(shape):
    """``grad`` inside the body, of a pmean'd loss, with respect to a replicated weight: the
    unsharded gradient on every device, as JAX gives it (it was refused: the gradient varied)."""
    mesh = mesh_of(shape)
    axes = NAMES[:len(shape)]
    rng = np.random.default_rng(11)
    x, w = rng.standard_normal((8, 3)), rng.standard_normal((3, 2))

    def loss(w, xb):
        return pmean(nb.mean(nb.tanh(xb @ w) ** 2), axes)

    got = shard_map(nb.grad(loss), mesh, in_specs=(P(), P(axes)), out_specs=P())(nb.asarray(w), nb.asarray(x))
    want = nb.grad(lambda v: nb.mean(nb.tanh(nb.asarray(x) @ v) ** 2))(nb.asarray(w))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)
    value, g = shard_map(nb.value_and_grad(loss), mesh, in_specs=(P(), P(axes)), out_specs=(P(), P()))(
        nb.asarray(w), nb.asarray(x))
    np.testing.assert_allclose(g.numpy(), want.numpy(), rtol=1e-10)
    np.testing.assert_allclose(float(value), float(nb.mean(nb.tanh(nb.asarray(x) @ nb.asarray(w)) ** 2)), rtol=1e-12)


def test_shard_map_data_parallel_training_step_matches_unsharded():
    mesh = mesh_of((2,))
    rng = np.random.default_rng(8)
    a, y = rng.standard_normal((8, 6)), rng.standard_normal((8, 1))
    w = rng.standard_normal((6, 1))

    def local_grad(w, xb, yb):
        # w is replicated: its gradient in the body sums every device's term (JAX's transpose of the
        # implicit pvary), the same on each device, so pmean leaves it as it is
        g = nb.grad(lambda v: nb.sum((xb @ v - yb) ** 2))(w)
        return pmean(g, "a") / 8

    step = shard_map(local_grad, mesh, in_specs=(P(), P("a"), P("a")), out_specs=P())
    got = step(nb.asarray(w), nb.asarray(a), nb.asarray(y)).numpy()
    ref = nb.grad(lambda v: nb.mean((nb.asarray(a) @ v - nb.asarray(y)) ** 2))(nb.asarray(w)).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-10)


def test_data_parallel_step_all_reduces_each_gradient_once():
    """Bias gradients sum over the split batch dim (``sum_to``): a pending sum, not a gather."""
    mesh = mesh_of((2,))
    rng = np.random.default_rng(9)
    host = [rng.standard_normal((6, 8)), rng.standard_normal(8), rng.standard_normal((8, 3))]
    a, y = rng.standard_normal((8, 6)), rng.standard_normal((8, 3))

    def loss(params, x, t):
        w1, b1, w2 = params
        return nb.mean((nb.maximum(x @ w1 + b1, 0.0) @ w2 - t) ** 2)

    params = tuple(nb.asarray(h).shard(mesh, P()) for h in host)
    with collectives_recorded() as log:
        grads = nb.grad(loss)(params, nb.asarray(a).shard(mesh, P("a")), nb.asarray(y).shard(mesh, P("a")))
        new = [p - 0.1 * g for p, g in zip(params, grads)]
    assert log == [("all_reduce_sum", ("a",))] * 3
    ref = nb.grad(loss)(tuple(nb.asarray(h) for h in host), nb.asarray(a), nb.asarray(y))
    for n, h, r in zip(new, host, ref):
        np.testing.assert_allclose(n.numpy(), h - 0.1 * r.numpy(), rtol=1e-12, atol=1e-12)


def test_compile_keys_on_layout_and_lays_out_arguments():
    mesh = mesh_of((2, 2))
    rng = np.random.default_rng(10)
    a, w = rng.standard_normal((8, 6)).astype(np.float32), rng.standard_normal((6, 4)).astype(np.float32)
    u = rng.standard_normal((8, 6)).astype(np.float32)
    # (elementwise: each MAX compile of a graph with a matmul costs ~30 s more on a 2-core machine)
    f = nb.compile(lambda x, v: nb.tanh(x) * v)
    ub = nb.asarray(u).shard(mesh, P(None, "b"))
    cases = ((P("a"), "float32[8@a,6@b]"), (P("a"), "float32[8@a,6@b]"), (P("b"), "float32[8@b,6]"))
    for spec, layout in cases:
        y = f(nb.asarray(a).shard(mesh, spec), ub)
        np.testing.assert_allclose(y.numpy(), np.tanh(a) * u, rtol=1e-5)
        assert typeof(y) == layout  # (rows on "b": the columns gathered it)
    info = f.cache_info()
    assert (info.hits, info.misses, info.compiles) == (1, 2, 2)
    g = nb.compile(lambda x, v: x @ v, in_shardings=(nb.NamedSharding(mesh, P(None, "a")), nb.NamedSharding(mesh, P("a"))),
                   out_shardings=nb.NamedSharding(mesh, P("b")))
    for _ in range(2):
        z = g(nb.asarray(a), nb.asarray(w))
        assert typeof(z) == "float32[8@b,4]"
        np.testing.assert_allclose(z.numpy(), a @ w, rtol=1e-5)
    assert g.cache_info().hits == 1


def test_compile_completes_pending_reductions_in_the_model():
    mesh = mesh_of((2,))
    a = np.random.default_rng(12).standard_normal((8, 3)).astype(np.float32)
    f = nb.compile(lambda x: (nb.sum(x, axis=0), nb.mean(x * x)))
    x = nb.asarray(a).shard(mesh, P("a"))
    assert nb.sum(x, axis=0)._impl.sharding.partial == (("a", "sum"),)  # eager: the reduction waits
    for _ in range(2):
        s, m = f(x)
        assert s._impl.sharding.partial == () and m._impl.sharding.partial == ()
        assert s._impl.is_realized and m._impl.is_realized  # reading them runs no other graph
        np.testing.assert_allclose(s.numpy(), a.sum(0), rtol=1e-5)
        np.testing.assert_allclose(float(m), (a * a).mean(), rtol=1e-5)
    assert f.cache_info().hits == 1


def test_collectives_under_vmap_act_per_mapped_row():
    mesh = mesh_of((2,))
    a = np.random.default_rng(11).standard_normal((4, 6)).astype(np.float32)
    run = lambda f, out: shard_map(f, mesh, in_specs=P("a"), out_specs=out, check_vma=False)(nb.asarray(a)).numpy()  # noqa: E731
    np.testing.assert_allclose(run(lambda b: nb.vmap(lambda r: psum(r, "a"))(b), P()), run(lambda b: psum(b, "a"), P()),
                               rtol=1e-6)
    np.testing.assert_array_equal(run(lambda b: nb.vmap(lambda r: all_gather(r, "a", tiled=True))(b), P("a")),
                                  run(lambda b: all_gather(b, "a", axis=1, tiled=True), P("a")))


def test_each_ops_sharding_rule_is_a_rule():
    """An op names its sharding rule (``Operation.sharding_rule``); each name is one of
    ``sharding/rules.py``'s, and the families that keep data where it is all have one."""
    from nabla.ops import registry
    from nabla.sharding.rules import RULES

    ops = registry()
    named = {name: op.sharding_rule for name, op in ops.items() if op.sharding_rule is not None}
    assert set(named.values()) <= set(RULES), set(named.values()) - set(RULES)
    assert set(RULES) <= set(named.values())  # (no rule that no op names)
    for name, rule in (("exp", "elementwise"), ("add", "elementwise"), ("sum", "reduce"), ("matmul", "matmul"),
                       ("cumulative_sum", "along_axis"), ("svd", "stacked_matrices"), ("fft", "transform_axis")):
        assert ops[name].sharding_rule == rule, name
