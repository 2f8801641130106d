"""vmap: every op against a Python loop, in_axes/out_axes, nesting, and composition with autodiff."""

import numpy as np
import pytest

import nabla as nb
from tests.test_ops import BINARY_CASES, REDUCE_CASES, UNARY_CASES

R = np.random.default_rng(3)
B = 3


def batched(a, axis=0):
    """``B`` random variations of ``a`` stacked along ``axis``."""
    stack = np.stack([a] + [np.asarray(R.permutation(a.ravel()).reshape(a.shape)) for _ in range(B - 1)])
    return np.moveaxis(stack, 0, axis)


def loop(f, args, in_axes):
    outs = []
    for i in range(B):
        sliced = [nb.asarray(np.take(a, i, axis=ax)) if ax is not None else nb.asarray(a) for a, ax in zip(args, in_axes)]
        outs.append(f(*sliced).numpy())
    return np.stack(outs)


def check(f, args, in_axes, rtol=1e-5):
    got = nb.vmap(f, in_axes=tuple(in_axes))(*[nb.asarray(a) for a in args])
    want = loop(f, args, in_axes)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("name", sorted(UNARY_CASES))
def test_unary_ops_batch(name):
    fn, _, inputs = UNARY_CASES[name]
    check(fn, [batched(inputs[0], 1 if inputs[0].ndim else 0)], [1 if inputs[0].ndim else 0])


@pytest.mark.parametrize("name", sorted(BINARY_CASES))
def test_binary_ops_batch_mixed(name):
    fn, _, inputs = BINARY_CASES[name]
    a, b = inputs[0]
    check(fn, [batched(a), b], [0, None])  # batched with unbatched
    check(fn, [a, batched(b, b.ndim)], [None, b.ndim])  # the other side, batch axis last
    check(fn, [batched(a), batched(b)], [0, 0])


@pytest.mark.parametrize("name", sorted(REDUCE_CASES))
def test_reductions_batch(name):
    fn, _, inputs = REDUCE_CASES[name]
    a = inputs[0]
    for axis in (None, 0, -1):
        for keepdims in (False, True):
            check(lambda x: fn(x, axis=axis, keepdims=keepdims), [batched(a, 1)], [1], rtol=1e-4)


VIEW_CASES = {
    "reshape": (lambda x: nb.reshape(x, (-1,)), (2, 3)),
    "transpose": (lambda x: nb.transpose(x), (2, 3, 4)),
    "permute_dims": (lambda x: nb.permute_dims(x, (1, 0)), (2, 3)),
    "moveaxis": (lambda x: nb.moveaxis(x, 0, -1), (2, 3, 4)),
    "unsqueeze": (lambda x: nb.unsqueeze(x, 1), (2, 3)),
    "squeeze": (lambda x: nb.squeeze(x, 0), (1, 3)),
    "broadcast_to": (lambda x: nb.broadcast_to(x, (4, 2, 3)), (2, 3)),
    "astype": (lambda x: nb.astype(x, nb.int32), (2, 3)),
    "split": (lambda x: nb.split(x, [1])[1] * 2, (4, 2)),
    "concat": (lambda x: nb.concat([x, x * 2], axis=1), (2, 3)),
    "concat_unbatched_piece": (lambda x: nb.concat([x, nb.ones((2, 1))], axis=1), (2, 3)),
    "where": (lambda x: nb.where(x > 0, x, 0.5), (5,)),
    "matmul_vec": (lambda x: x @ nb.asarray(np.arange(3.0, dtype=np.float32)), (2, 3)),
    "matmul_mat": (lambda x: nb.matmul(nb.asarray(np.ones((4, 2), np.float32)), x), (2, 3)),
    "zeros_like": (lambda x: nb.zeros_like(x) + x, (3,)),
    "full_like": (lambda x: nb.full_like(x, 2.0) * x, (3,)),
    "creation_inside": (lambda x: x + nb.arange(3, dtype=nb.float32), (3,)),
}


@pytest.mark.parametrize("name", sorted(VIEW_CASES))
def test_shape_ops_batch(name):
    fn, shape = VIEW_CASES[name]
    a = R.standard_normal(shape).astype(np.float32)
    check(fn, [batched(a)], [0])
    check(fn, [batched(a, len(shape))], [len(shape)])


def test_batched_result_of_creation_like_ops_is_batched():
    out = nb.vmap(lambda x: nb.zeros_like(x))(nb.ones((4, 3)))
    assert out.shape == (4, 3)


def test_out_axes_axis_size_and_pytrees():
    a = R.standard_normal((3, 2)).astype(np.float32)
    out = nb.vmap(lambda x: x * 2, out_axes=1)(nb.asarray(a))
    np.testing.assert_allclose(out.numpy(), (a * 2).T)
    out = nb.vmap(lambda d: {"s": d["x"] + d["y"], "p": d["x"] * d["y"]}, in_axes=({"x": 0, "y": None},))(
        {"x": nb.asarray(a), "y": nb.asarray(a[0])})
    np.testing.assert_allclose(out["s"].numpy(), a + a[0])
    out = nb.vmap(lambda: nb.ones((2,)), axis_size=5)()
    assert out.shape == (5, 2)
    out = nb.vmap(lambda x, c: x * c, in_axes=(0, None))(nb.asarray(a), 3.0)
    np.testing.assert_allclose(out.numpy(), a * 3)
    out = nb.vmap(lambda x: (x.sum(), x), out_axes=(0, 1))(nb.asarray(a))
    assert out[0].shape == (3,) and out[1].shape == (2, 3)


def test_nested_vmap_to_any_depth():
    a = R.standard_normal((2, 3, 4)).astype(np.float32)
    b = R.standard_normal((4,)).astype(np.float32)
    f = lambda x, y: nb.sum(x * y)
    got = nb.vmap(nb.vmap(f, in_axes=(0, None)), in_axes=(0, None))(nb.asarray(a), nb.asarray(b))
    np.testing.assert_allclose(got.numpy(), (a * b).sum(-1), rtol=1e-5)
    # inner-only batched argument meets an outer-only batched one
    c = R.standard_normal((3, 4)).astype(np.float32)
    got = nb.vmap(lambda x: nb.vmap(lambda y, z: y * z, in_axes=(None, 0))(x, nb.asarray(c)))(nb.asarray(a[:, 0]))
    np.testing.assert_allclose(got.numpy(), a[:, 0][:, None, :] * c[None], rtol=1e-6)
    got = nb.vmap(nb.vmap(nb.vmap(lambda x: x * 2)))(nb.asarray(a))
    np.testing.assert_allclose(got.numpy(), a * 2)


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="different sizes"):
        nb.vmap(lambda x, y: x + y)(nb.ones((3, 2)), nb.ones((4, 2)))
    with pytest.raises(ValueError, match="out of range"):
        nb.vmap(lambda x: x, in_axes=2)(nb.ones((3, 2)))
    with pytest.raises(ValueError, match="2 entries"):
        nb.vmap(lambda x: x, in_axes=(0, 0))(nb.ones((3,)))
    with pytest.raises(ValueError, match="axis_size"):
        nb.vmap(lambda x: x, in_axes=None)(nb.ones((3,)))


# --- composition with autodiff -----------------------------------------------------------

def test_per_example_gradients_vmap_of_grad():
    x = R.standard_normal((5, 3))
    w = R.standard_normal((3, 2))
    loss = lambda w, xi: nb.sum(nb.tanh(xi @ w) ** 2)
    g = nb.vmap(nb.grad(loss), in_axes=(None, 0))(nb.asarray(w), nb.asarray(x))
    want = np.stack([nb.grad(loss)(nb.asarray(w), nb.asarray(xi)).numpy() for xi in x])
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-10)


def test_grad_of_vmap():
    x = R.standard_normal((5, 3))
    w = R.standard_normal((3, 2))
    f = lambda w: nb.vmap(lambda w, xi: nb.sum(nb.tanh(xi @ w)), in_axes=(None, 0))(w, nb.asarray(x)).sum()
    t = np.tanh(x @ w)
    np.testing.assert_allclose(nb.grad(f)(nb.asarray(w)).numpy(), x.T @ (1 - t * t), rtol=1e-10)


def test_vmap_of_jvp_and_jacobians():
    x = R.standard_normal((4, 3))
    v = R.standard_normal((4, 3))
    f = lambda x: nb.sin(x) * x
    out, tan = nb.vmap(lambda a, b: nb.jvp(f, (a,), (b,)))(nb.asarray(x), nb.asarray(v))
    np.testing.assert_allclose(tan.numpy(), (np.cos(x) * x + np.sin(x)) * v, rtol=1e-10)
    jac = nb.vmap(nb.jacrev(f))(nb.asarray(x))
    assert jac.shape == (4, 3, 3)
    np.testing.assert_allclose(jac.numpy()[1], np.diag(np.cos(x[1]) * x[1] + np.sin(x[1])), rtol=1e-10)


@pytest.mark.parametrize("name", ["vecdot", "views", "split_concat", "broadcast"])
def test_per_example_gradients_through_shape_ops(name):
    # the cotangent of an unbatched weight carries the batch: rules must rebase their axes
    fns = {
        "vecdot": lambda w, xi: nb.tanh(xi @ w),
        "views": lambda w, xi: nb.sum(nb.reshape(nb.transpose(nb.unsqueeze(w, 0) * nb.unsqueeze(xi, 1)), (-1,)) ** 2),
        "split_concat": lambda w, xi: nb.sum(nb.concat(nb.split(w * xi, [1])[::-1], axis=0) * nb.arange(3.0)),
        "broadcast": lambda w, xi: nb.sum(nb.broadcast_to(w, (2, 3)) * xi),
    }
    f = fns[name]
    x = R.standard_normal((4, 3))
    w = R.standard_normal(3)
    got = nb.vmap(nb.grad(f), in_axes=(None, 0))(nb.asarray(w), nb.asarray(x))
    want = np.stack([nb.grad(f)(nb.asarray(w), nb.asarray(xi)).numpy() for xi in x])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)
