"""vmap: every op against a Python loop, in_axes/out_axes, nesting, and composition with autodiff."""

import numpy as np
import pytest

import nabla as nb
from ..op_db import BINARY_CASES, REDUCE_CASES, UNARY_CASES

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
    # prefixes match ordered dicts in their order and named tuples field by field
    from collections import OrderedDict, namedtuple

    Pair = namedtuple("Pair", "u v")
    od = OrderedDict([("y", nb.asarray(a[0])), ("x", nb.asarray(a))])
    axes = (OrderedDict([("y", None), ("x", 0)]), Pair(0, None))
    out = nb.vmap(lambda d, p: d["x"] * p.v + d["y"] + p.u, in_axes=axes)(od, Pair(nb.asarray(a), nb.asarray(2.0)))
    np.testing.assert_allclose(out.numpy(), a * 2 + a[0] + a)
    with pytest.raises(ValueError, match="in_axes has 1 entries for a tuple of 2"):
        nb.vmap(lambda x, y: x, in_axes=(0,))(nb.asarray(a), nb.asarray(a))


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
    jac = nb.vmap(nb.jacfwd(f))(nb.asarray(x))
    np.testing.assert_allclose(jac.numpy()[2], np.diag(np.cos(x[2]) * x[2] + np.sin(x[2])), rtol=1e-10)

    # batched primal, one shared tangent (and the other way round), through a reduction
    g = lambda x: nb.sum(x * x, axis=1)
    _, tan = nb.vmap(lambda a: nb.jvp(g, (a,), (nb.asarray(v[:2]),)))(nb.asarray(x[:, None, :] * np.ones((4, 2, 3))))
    np.testing.assert_allclose(tan.numpy(), (2 * x[:, None, :] * v[:2]).sum(-1), rtol=1e-10)
    _, tan = nb.vmap(lambda b: nb.jvp(g, (nb.asarray(x[:2]),), (b,)))(nb.asarray(v.reshape(2, 2, 3)))
    np.testing.assert_allclose(tan.numpy(), (2 * x[:2] * v.reshape(2, 2, 3)).sum(-1), rtol=1e-10)


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


# --- every function of nabla.array_api under vmap --------------------------------------------

import nabla.array_api as xp  # noqa: E402


def _rand(*shape):
    return R.standard_normal(shape)


def _set(key):
    def f(x, v):
        y = x * 1
        y[key] = v
        return y
    return f


def _set_at(x, i, v):
    y = x * 1
    y[:, i] = v
    return y


_SORTED = np.sort(_rand(B, 6), axis=1)
_IDX = R.integers(0, 4, (B, 3))

#: name -> (function, arguments (batched along in_axes), in_axes)
NAMESPACE_CASES = {
    "all": (lambda x: xp.all(x > 0, axis=1), [_rand(B, 2, 3)], [0]),
    "any": (lambda x: xp.any(x > 0), [_rand(B, 2, 3)], [0]),
    "argmax": (lambda x: xp.argmax(x, axis=0), [_rand(B, 4, 3)], [0]),
    "argmin": (lambda x: xp.argmin(x), [_rand(B, 4, 3)], [0]),
    "argsort": (lambda x: xp.argsort(x, axis=-1, descending=True), [_rand(2, B, 5)], [1]),
    "asarray": (lambda x: xp.asarray(x) * 2, [_rand(B, 3)], [0]),
    "astype": (lambda x: xp.astype(x * 3, xp.int32), [_rand(B, 3)], [0]),
    "broadcast_arrays": (lambda x, y: xp.broadcast_arrays(x, y)[1], [_rand(B, 2, 1), _rand(3)], [0, None]),
    "broadcast_to": (lambda x: xp.broadcast_to(x, (2, 3)), [_rand(B, 3)], [0]),
    "clip": (lambda x, lo: xp.clip(x, lo, 0.5), [_rand(B, 4), _rand(B, 4) - 1], [0, 0]),
    "concat": (lambda x, y: xp.concat([x, y], axis=0), [_rand(B, 2, 3), _rand(1, 3)], [0, None]),
    "count_nonzero": (lambda x: xp.count_nonzero(x > 0, axis=1), [_rand(B, 2, 4)], [0]),
    "cumulative_prod": (lambda x: xp.cumulative_prod(x, axis=1, include_initial=True), [_rand(B, 2, 4)], [0]),
    "cumulative_sum": (lambda x: xp.cumulative_sum(x, axis=0), [_rand(B, 3, 2)], [0]),
    "diff": (lambda x: xp.diff(x, n=2, axis=-1), [_rand(B, 2, 5)], [0]),
    "empty_like": (lambda x: xp.zeros_like(xp.empty_like(x)) + x, [_rand(B, 3)], [0]),
    "expand_dims": (lambda x: xp.expand_dims(x, axis=(0, -1)), [_rand(B, 3)], [0]),
    "flip": (lambda x: xp.flip(x, axis=1), [_rand(B, 2, 3)], [0]),
    "full_like": (lambda x: xp.full_like(x, 7.0) * x, [_rand(B, 3)], [0]),
    "isin": (lambda x, y: xp.isin(x, y), [R.integers(0, 5, (B, 6)), R.integers(0, 5, (B, 3))], [0, 0]),
    "matmul": (lambda x, y: xp.matmul(x, y), [_rand(B, 2, 3), _rand(3, 4)], [0, None]),
    "matrix_transpose": (lambda x: xp.matrix_transpose(x), [_rand(B, 2, 3, 4)], [0]),
    "max": (lambda x: xp.max(x, axis=(0, 1)), [_rand(B, 2, 3, 2)], [0]),
    "mean": (lambda x: xp.mean(x, axis=1, keepdims=True), [_rand(B, 2, 3)], [0]),
    "meshgrid": (lambda x, y: xp.meshgrid(x, y)[0] * xp.meshgrid(x, y, indexing="ij")[1].mT,
                 [_rand(B, 3), _rand(B, 2)], [0, 0]),
    "min": (lambda x: xp.min(x), [_rand(B, 2, 3)], [0]),
    "moveaxis": (lambda x: xp.moveaxis(x, 0, -1), [_rand(B, 2, 3, 4)], [0]),
    "ones_like": (lambda x: xp.ones_like(x) * x, [_rand(B, 3)], [0]),
    "permute_dims": (lambda x: xp.permute_dims(x, (2, 0, 1)), [_rand(B, 2, 3, 4)], [0]),
    "prod": (lambda x: xp.prod(x, axis=0), [_rand(B, 3, 2)], [0]),
    "repeat": (lambda x: xp.repeat(x, 2, axis=1), [_rand(B, 2, 3)], [0]),
    "reshape": (lambda x: xp.reshape(x, (3, -1)), [_rand(B, 2, 3)], [0]),
    "roll": (lambda x: xp.roll(x, (1, -1), axis=(0, 1)), [_rand(B, 3, 4)], [0]),
    "searchsorted": (lambda s, v: xp.searchsorted(s, v, side="right"), [_SORTED, _rand(B, 4)], [0, 0]),
    "sort": (lambda x: xp.sort(x, axis=0, stable=True), [_rand(B, 5, 2)], [0]),
    "squeeze": (lambda x: xp.squeeze(x, axis=1), [_rand(B, 2, 1, 3)], [0]),
    "stack": (lambda x, y: xp.stack([x, y], axis=1), [_rand(B, 2, 3), _rand(2, 3)], [0, None]),
    "std": (lambda x: xp.std(x, axis=1, correction=1), [_rand(B, 2, 4)], [0]),
    "sum": (lambda x: xp.sum(x, axis=None), [_rand(B, 2, 3)], [0]),
    "take": (lambda x, i: xp.take(x, i, axis=1), [_rand(B, 2, 4), _IDX], [0, 0]),
    "take_along_axis": (lambda x, i: xp.take_along_axis(x, i, axis=1),
                        [_rand(B, 2, 4), R.integers(0, 4, (B, 2, 3))], [0, 0]),
    "tensordot": (lambda x, y: xp.tensordot(x, y, axes=([1], [0])), [_rand(B, 2, 3), _rand(3, 4)], [0, None]),
    "tile": (lambda x: xp.tile(x, (2, 1)), [_rand(B, 2, 3)], [0]),
    "to_device": (lambda x: x.to_device(x.device) * 2, [_rand(B, 3)], [0]),
    "tril": (lambda x: xp.tril(x, k=-1), [_rand(B, 3, 3)], [0]),
    "diag": (lambda x: xp.diag(x, k=1), [_rand(B, 3)], [0]),
    "triu": (lambda x: xp.triu(x), [_rand(B, 2, 3, 3)], [0]),
    "unstack": (lambda x: xp.unstack(x, axis=1)[1], [_rand(B, 2, 3)], [0]),
    "var": (lambda x: xp.var(x, axis=0), [_rand(B, 3, 2)], [0]),
    "vecdot": (lambda x, y: xp.vecdot(x, y), [_rand(B, 2, 3), _rand(B, 2, 3)], [0, 0]),
    "where": (lambda c, x: xp.where(c > 0, x, -x), [_rand(B, 4), _rand(4)], [0, None]),
    "zeros_like": (lambda x: xp.zeros_like(x) + x, [_rand(B, 3)], [0]),
    # __getitem__ / __setitem__
    "getitem_basic": (lambda x: x[::-1, None, 1], [_rand(B, 3, 4)], [0]),
    "getitem_batched_array": (lambda x, i: x[:, i], [_rand(B, 2, 4), _IDX], [0, 0]),
    "getitem_array_unbatched_tensor": (lambda x, i: x[i, 1:], [_rand(4, 3), _IDX], [None, 0]),
    "getitem_arrays_apart": (lambda x, i: x[i, :, i[:2, None]], [_rand(B, 4, 2, 4), _IDX], [0, 0]),
    "getitem_mask": (lambda x: x[np.array([True, False, True])], [_rand(B, 3, 2)], [0]),
    "setitem_basic": (_set((slice(1, None), 0)), [_rand(B, 3, 2), _rand(B, 2)], [0, 0]),
    "setitem_batched_value_only": (_set(1), [_rand(3, 2), _rand(B, 2)], [None, 0]),
    "setitem_mask": (lambda x: xp.where(x > 0, x, 0.0) + _set(np.array([True, False, True]))(x, 5.0),
                     [_rand(B, 3)], [0]),
    "setitem_batched_array": (_set_at, [_rand(B, 2, 4), _IDX, _rand(B, 2, 3)], [0, 0, 0]),
    "setitem_array_unbatched_value": (_set_at, [_rand(B, 2, 4), _IDX, _rand(2, 3)], [0, 0, None]),
}

def _re_im(z):
    return xp.stack([xp.real(z), xp.imag(z)])


_F = xp.fft
# the fft extension (complex results enter as their real and imaginary parts, so the gradient
# registry of test_autodiff differentiates them too)
NAMESPACE_CASES.update({
    "fft.fft": (lambda x: _re_im(_F.fft(x, n=6, axis=0)), [_rand(B, 5, 3)], [0]),
    "fft.ifft": (lambda x: _re_im(_F.ifft(x, norm="ortho")), [_rand(B, 2, 7)], [0]),
    "fft.fftn": (lambda x: _re_im(_F.fftn(x, s=(3, 4), norm="forward")), [_rand(B, 2, 5)], [0]),
    "fft.ifftn": (lambda x: _re_im(_F.ifftn(x, axes=(0, 2))), [_rand(2, B, 3, 4)], [1]),
    "fft.rfft": (lambda x: _re_im(_F.rfft(x, n=7)), [_rand(B, 2, 6)], [0]),
    "fft.irfft": (lambda x: _F.irfft(_F.fft(x), n=5, axis=0), [_rand(B, 4, 2)], [0]),
    "fft.rfftn": (lambda x: _re_im(_F.rfftn(x)), [_rand(B, 3, 4)], [0]),
    "fft.irfftn": (lambda x: _F.irfftn(_F.fftn(x), s=(3, 5)), [_rand(B, 3, 4)], [0]),
    "fft.hfft": (lambda x: _F.hfft(_F.fft(x), n=7), [_rand(B, 2, 4)], [0]),
    "fft.ihfft": (lambda x: _re_im(_F.ihfft(x, axis=0)), [_rand(B, 5, 2)], [0]),
    "fft.fftshift": (lambda x: _F.fftshift(x, axes=[0, 1]), [_rand(B, 3, 4)], [0]),
    "fft.ifftshift": (lambda x: _F.ifftshift(x), [_rand(B, 3, 5)], [0]),
})

def _from_parts(x, y):
    from nabla.ops.elementwise import complex_from_parts

    return _re_im(complex_from_parts(x, y) * (1 + 2j))


# the op behind NumPy's writable x.real / x.imag views; parts broadcast across batch dims
NAMESPACE_CASES["complex_from_parts"] = (_from_parts, [_rand(B, 2, 3), _rand(3)], [0, None])

#: names the registry does not run, and why
NOT_MAPPED = {
    **{n: "no array argument (creation from Python values)" for n in (
        "arange", "empty", "eye", "full", "linspace", "ones", "zeros", "from_dlpack")},
    **{n: "takes dtypes or shapes, not arrays" for n in (
        "broadcast_shapes", "can_cast", "finfo", "iinfo", "isdtype", "result_type", "__array_namespace_info__")},
    **{n: "data-dependent output shape: not expressible under vmap (as in JAX)" for n in (
        "nonzero", "unique_all", "unique_counts", "unique_inverse", "unique_values")},
}


def _registry_names():
    return set(NAMESPACE_CASES) | set(UNARY_CASES) | set(BINARY_CASES) | set(NOT_MAPPED)


def test_registry_covers_every_function_of_the_namespace():
    import inspect

    functions = {n for n in xp.__all__ if callable(getattr(xp, n)) and not inspect.isclass(getattr(xp, n))
                 and not isinstance(getattr(xp, n), type(xp.float32))}
    missing = sorted(functions - _registry_names())
    assert not missing, f"no vmap case for: {missing}"


@pytest.mark.parametrize("name", sorted(NAMESPACE_CASES))
def test_namespace_function_batches(name):
    fn, args, in_axes = NAMESPACE_CASES[name]
    check(fn, args, in_axes, rtol=1e-10)


def test_boolean_mask_that_varies_under_vmap_is_a_clear_error():
    with pytest.raises(ValueError, match="data-dependent"):
        nb.vmap(lambda x: x[x > 0])(nb.ones((3, 2)))


def test_indexing_with_batched_indices_nested_and_under_grad():
    x = _rand(2, 3, 5)
    i = R.integers(0, 5, (2, 3, 4))
    got = nb.vmap(nb.vmap(lambda a, j: a[j] * 2))(nb.asarray(x), nb.asarray(i))
    np.testing.assert_allclose(got.numpy(), np.take_along_axis(x, i, axis=2) * 2)
    # per-example gradients through a gather with per-example indices
    w = _rand(5)
    f = lambda w, j: nb.sum(nb.sin(w[j]))
    g = nb.vmap(nb.grad(f), in_axes=(None, 0))(nb.asarray(w), nb.asarray(i[0]))
    want = np.stack([nb.grad(f)(nb.asarray(w), nb.asarray(j)).numpy() for j in i[0]])
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-10)
    # the gradient of a vmapped gather sums the examples' contributions into the unbatched weight
    h = lambda w: nb.sum(nb.vmap(lambda j: nb.sin(w[j]))(nb.asarray(i[0])))
    want = np.bincount(i[0].ravel(), minlength=5) * np.cos(w)
    np.testing.assert_allclose(nb.grad(h)(nb.asarray(w)).numpy(), want, rtol=1e-12)


def test_per_example_gradients_through_setitem():
    x = _rand(4)
    v = _rand(3, 2)

    def f(x, v):
        y = x * 1
        y[1:3] = v
        return nb.sum(y * y)

    gx, gv = nb.vmap(nb.grad(f, argnums=(0, 1)), in_axes=(None, 0))(nb.asarray(x), nb.asarray(v))
    np.testing.assert_allclose(gx.numpy(), np.stack([2 * x * np.array([1, 0, 0, 1])] * 3), rtol=1e-12)
    np.testing.assert_allclose(gv.numpy(), 2 * v, rtol=1e-12)


@pytest.mark.parametrize("name", sorted(NAMESPACE_CASES))
def test_namespace_function_lowers_with_symbolic_dims(name):
    """The compiled path names every size >= 2 symbolically; lowering must not need those sizes."""
    from nabla.core.graph import GRAPH

    fn, args, in_axes = NAMESPACE_CASES[name]
    out = nb.vmap(fn, in_axes=tuple(in_axes))(*[nb.asarray(a) for a in args])
    values = [v for t in nb.tree_leaves(out) for v in t._impl._values if v.node is not None]
    GRAPH.engine.lower(values, symbolic=True)
