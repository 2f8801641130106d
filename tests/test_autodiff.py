"""Autodiff: every differentiable op's jvp and vjp rule against central finite differences
(float64), and against each other; higher orders; the JAX-style and PyTorch-style faces."""

import inspect

import numpy as np
import pytest

import nabla as nb
from nabla.core.operation import Operation
from nabla.ops import _physical as P
from nabla.ops import creation, elementwise, indexing, linalg, multi_output, reduction, sorting, view

R = np.random.default_rng(7)


def f64(*shape, lo=-1.5, hi=1.5):
    return R.uniform(lo, hi, shape)


def pos(*shape):
    return R.uniform(0.5, 2.0, shape)


# op name -> (function of tensors, input arrays); every differentiable op appears here
DIFF_CASES = {
    "negative": (nb.negative, [f64(3)]),
    "abs": (nb.abs, [f64(4) + np.sign(f64(4)) * 0.2]),
    "exp": (nb.exp, [f64(2, 3)]),
    "log": (nb.log, [pos(4)]),
    "sqrt": (nb.sqrt, [pos(3)]),
    "sin": (nb.sin, [f64(5)]),
    "cos": (nb.cos, [f64(5)]),
    "tanh": (nb.tanh, [f64(2, 2)]),
    "floor": (lambda x: nb.floor(x) * x, [f64(4) * 3 + 0.37]),
    "trunc": (lambda x: nb.trunc(x) * x, [f64(4) * 3 + 0.37]),
    "round": (lambda x: nb.round(x) * x, [f64(4) * 3 + 0.37]),
    "sign": (lambda x: nb.sign(x) * x, [f64(4) + np.sign(f64(4)) * 0.2]),
    "positive": (nb.positive, [f64(3)]),
    "square": (nb.square, [f64(3)]),
    "reciprocal": (nb.reciprocal, [pos(3)]),
    "expm1": (nb.expm1, [f64(3)]),
    "log1p": (nb.log1p, [pos(3)]),
    "log2": (nb.log2, [pos(3)]),
    "log10": (nb.log10, [pos(3)]),
    "tan": (nb.tan, [f64(3)]),
    "asin": (nb.asin, [f64(3) * 0.6]),
    "acos": (nb.acos, [f64(3) * 0.6]),
    "atan": (nb.atan, [f64(3) * 2]),
    "sinh": (nb.sinh, [f64(3)]),
    "cosh": (nb.cosh, [f64(3)]),
    "asinh": (nb.asinh, [f64(3) * 2]),
    "acosh": (nb.acosh, [pos(3) + 1]),
    "atanh": (nb.atanh, [f64(3) * 0.6]),
    "conj": (nb.conj, [f64(3)]),
    "real": (nb.real, [f64(3)]),
    "imag": (lambda x: nb.imag(x) + x, [f64(3)]),
    "atan2": (nb.atan2, [f64(4), pos(4)]),
    "hypot": (nb.hypot, [f64(4), pos(4)]),
    "logaddexp": (nb.logaddexp, [f64(4), f64(4)]),
    "copysign": (lambda x, y: nb.copysign(x, y) * y, [f64(4) + np.sign(f64(4)) * 0.2, f64(4) + 3]),
    "remainder": (nb.remainder, [pos(4) * 0.4, pos(4) + 1.5]),
    "getitem": (lambda x: x[::-1, 1:] * x[0, ::2].sum(), [f64(3, 4)]),
    "setitem": (lambda x, v: _set(x, (slice(None, None, 2), 1), v), [f64(4, 3), f64(2)]),
    "take": (lambda x: nb.array_api.take(x, nb.asarray(np.array([2, 0, 2])), axis=1), [f64(2, 3)]),
    "scatter_add": (lambda x, u: indexing.scatter_add_op(x, u, nb.asarray(np.array([1, 1, 0])), axis=0),
                    [f64(3, 2), f64(3, 2)]),
    "scatter": (lambda x, v: _set(x, nb.asarray(np.array([2, 0])), v), [f64(3, 2), f64(2, 2)]),
    "cumulative_sum": (lambda x: nb.array_api.cumulative_sum(x, axis=1), [f64(2, 4)]),
    "ceil": (lambda x: nb.ceil(x) * x, [f64(4) * 3 + 0.37]),
    "add": (nb.add, [f64(3, 4), f64(4)]),
    "subtract": (nb.subtract, [f64(3, 1), f64(1, 4)]),
    "multiply": (nb.multiply, [f64(2, 3), f64(2, 3)]),
    "divide": (nb.divide, [f64(3), pos(3)]),
    "pow": (nb.pow, [pos(4), f64(4)]),
    "maximum": (nb.maximum, [f64(5), f64(5)]),
    "minimum": (nb.minimum, [f64(3, 2), f64(2)]),
    "sum": (lambda x: nb.sum(x, axis=1), [f64(3, 4)]),
    "mean": (lambda x: nb.mean(x, axis=(0, 2), keepdims=True), [f64(2, 3, 2)]),
    "prod": (lambda x: nb.prod(x, axis=0), [pos(3, 2)]),
    "max": (lambda x: nb.max(x, axis=-1), [f64(3, 5)]),
    "min": (lambda x: nb.min(x), [f64(6)]),
    "astype": (lambda x: nb.astype(x, nb.float64, copy=True) * x, [f64(3)]),  # float32 would swamp FD
    "reshape": (lambda x: nb.reshape(x, (3, 2)) * 2, [f64(2, 3)]),
    "permute_dims": (lambda x: nb.permute_dims(x, (2, 0, 1)), [f64(2, 3, 4)]),
    "expand_dims": (lambda x: nb.unsqueeze(x, 1), [f64(3)]),
    "squeeze": (lambda x: nb.squeeze(x, 0), [f64(1, 3)]),
    "broadcast_to": (lambda x: nb.broadcast_to(x, (2, 3)), [f64(3)]),
    "matmul": (nb.matmul, [f64(2, 3), f64(3, 4)]),
    "split": (lambda x: nb.split(x, [1, 3])[1] * nb.split(x, [1, 3])[2].sum(), [f64(5)]),
    "concat": (lambda x, y: nb.concat([x, y, x], axis=0), [f64(2), f64(3)]),
    "where": (lambda x, y: nb.where(x > y, x * y, y), [f64(4), f64(4)]),
    "identity": (P.identity_op, [f64(3)]),
    "sum_to": (lambda x: P.sum_to(x, (1, 3), 0), [f64(2, 3)]),
    "broadcast_physical": (lambda x: P.broadcast_physical(x, (2, 3), 0), [f64(1, 3)]),
    "incr_batch_dims": (lambda x: P.decr_batch_dims(P.incr_batch_dims(x) * 2), [f64(2, 3)]),
    "decr_batch_dims": (lambda x: P.decr_batch_dims(P.incr_batch_dims(x)) * x, [f64(2, 3)]),
    "move_axis_to_batch_dims": (lambda x: P.move_axis_from_batch_dims(P.move_axis_to_batch_dims(x, 1) * 3, 0, 0),
                                [f64(2, 3)]),
    "move_axis_from_batch_dims": (lambda x: P.move_axis_from_batch_dims(P.move_axis_to_batch_dims(x, 0), 0, 1),
                                  [f64(2, 3)]),
}

# ops with no derivative: bool results, no inputs, or integer-valued
NOT_DIFFERENTIABLE = {
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and", "logical_or",
    "logical_xor", "logical_not", "constant", "full", "arange",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert", "bitwise_left_shift", "bitwise_right_shift",
    "isnan", "isinf", "isfinite", "signbit", "nextafter", "floor_divide", "nonzero", "argsort", "argmax", "argmin",
}


def _set(x, key, v):
    y = x * 1.0  # setitem rebinds its target: work on a fresh tensor
    y[key] = v
    return y


def all_ops() -> dict[str, Operation]:
    found = {}
    for mod in (creation, elementwise, indexing, linalg, multi_output, reduction, sorting, view, P):
        for _, obj in inspect.getmembers(mod):
            if isinstance(obj, Operation):
                found[obj.name] = obj
            elif isinstance(obj, dict):
                found.update({o.name: o for o in obj.values() if isinstance(o, Operation)})
    return found


def test_registry_covers_every_op():
    ops = all_ops()
    missing = set(ops) - set(DIFF_CASES) - NOT_DIFFERENTIABLE
    assert not missing, f"ops without a gradient check (add them to DIFF_CASES): {sorted(missing)}"
    assert set(DIFF_CASES) <= set(ops) | {"move_axis_to_batch_dims", "move_axis_from_batch_dims"}


def _evaluate(fn, arrays):
    return [np.asarray(o.numpy(), np.float64) for o in nb.tree_leaves(fn(*[nb.asarray(a) for a in arrays]))]


@pytest.mark.parametrize("name", sorted(DIFF_CASES))
def test_rules_against_finite_differences(name):
    fn, arrays = DIFF_CASES[name]
    tangents = [R.standard_normal(a.shape) for a in arrays]
    eps = 1e-6
    plus = _evaluate(fn, [a + eps * t for a, t in zip(arrays, tangents)])
    minus = _evaluate(fn, [a - eps * t for a, t in zip(arrays, tangents)])
    fd = [(p - m) / (2 * eps) for p, m in zip(plus, minus)]

    xs = [nb.asarray(a) for a in arrays]
    out, jv = nb.jvp(fn, xs, [nb.asarray(t) for t in tangents])
    jv = [np.asarray(t.numpy(), np.float64) for t in nb.tree_leaves(jv)]
    for got, want in zip(jv, fd):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

    out, vjp_fn = nb.vjp(fn, *xs)
    cots = [R.standard_normal(o.shape) for o in nb.tree_leaves(out)]
    ct_tree = nb.tree_unflatten(nb.tree_structure(out), [nb.asarray(c) for c in cots])
    grads = vjp_fn(ct_tree)
    lhs = sum(float(np.sum(g.numpy() * t)) for g, t in zip(grads, tangents))
    rhs_fd = sum(float(np.sum(c * d)) for c, d in zip(cots, fd))
    rhs_jvp = sum(float(np.sum(c * d)) for c, d in zip(cots, jv))
    assert lhs == pytest.approx(rhs_fd, rel=1e-5, abs=1e-6)
    assert lhs == pytest.approx(rhs_jvp, rel=1e-10, abs=1e-10)  # <vjp(u), v> == <u, jvp(v)>


# --- higher order ---------------------------------------------------------------------

def test_second_order_grad_of_grad():
    f = lambda x: nb.sum(nb.sin(x) * nb.exp(x))  # f'' = 2 cos(x) e^x
    x = f64(4)
    g2 = nb.grad(lambda x: nb.sum(nb.grad(f)(x)))(nb.asarray(x))
    np.testing.assert_allclose(g2.numpy(), 2 * np.cos(x) * np.exp(x), rtol=1e-10)


def test_jvp_of_grad_is_a_hessian_vector_product():
    a = f64(3, 3)
    f = lambda x: nb.sum(nb.tanh(nb.matmul(nb.asarray(a), x)) ** 2)
    x, v = f64(3), f64(3)
    _, hv = nb.jvp(nb.grad(f), (nb.asarray(x),), (nb.asarray(v),))
    h = nb.hessian(f)(nb.asarray(x)).numpy()
    np.testing.assert_allclose(hv.numpy(), h @ v, rtol=1e-8)
    eps = 1e-6
    gp = nb.grad(f)(nb.asarray(x + eps * v)).numpy()
    gm = nb.grad(f)(nb.asarray(x - eps * v)).numpy()
    np.testing.assert_allclose(hv.numpy(), (gp - gm) / (2 * eps), rtol=1e-5)


def test_jacobians_agree_and_match_the_analytic_one():
    a = f64(2, 3)
    f = lambda x: nb.tanh(nb.matmul(nb.asarray(a), x))
    x = f64(3)
    jr, jf = nb.jacrev(f)(nb.asarray(x)), nb.jacfwd(f)(nb.asarray(x))
    want = (1 - np.tanh(a @ x) ** 2)[:, None] * a
    assert jr.shape == jf.shape == (2, 3)
    np.testing.assert_allclose(jr.numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(jf.numpy(), want, rtol=1e-10)


def test_hessian_of_a_quadratic_form():
    a = f64(3, 3)
    f = lambda x: nb.sum(x * nb.matmul(nb.asarray(a), x))
    np.testing.assert_allclose(nb.hessian(f)(nb.asarray(f64(3))).numpy(), a + a.T, rtol=1e-10)


# --- API semantics ----------------------------------------------------------------------

def test_grad_argnums_has_aux_and_pytrees():
    def loss(params, x):
        y = nb.matmul(x, params["w"]) + params["b"]
        return nb.sum(y * y), y

    params = {"w": nb.asarray(f64(3, 2)), "b": nb.asarray(f64(2))}
    x = nb.asarray(f64(4, 3))
    (value, y), grads = nb.value_and_grad(loss, has_aux=True)(params, x)
    w, b, xv = params["w"].numpy(), params["b"].numpy(), x.numpy()
    yy = xv @ w + b
    assert value.item() == pytest.approx(float(np.sum(yy * yy)))
    np.testing.assert_allclose(grads["w"].numpy(), xv.T @ (2 * yy), rtol=1e-10)
    np.testing.assert_allclose(grads["b"].numpy(), (2 * yy).sum(0), rtol=1e-10)
    gx, gw = nb.grad(lambda p, x: loss(p, x)[0], argnums=(1, 0))(params, x)
    np.testing.assert_allclose(gx.numpy(), 2 * yy @ w.T, rtol=1e-10)
    assert set(gw) == {"w", "b"}


def test_grad_errors():
    with pytest.raises(TypeError, match="scalar"):
        nb.grad(lambda x: x * 2)(nb.asarray(f64(3)))
    with pytest.raises(TypeError, match="int64"):
        nb.grad(lambda x: nb.sum(x))(nb.asarray([1, 2, 3]))
    with pytest.raises(ValueError, match="argnums"):
        nb.grad(lambda x: nb.sum(x), argnums=2)(nb.asarray(f64(3)))


def test_unused_input_gets_zero_gradient_and_results_are_untraced():
    g = nb.grad(lambda x, y: nb.sum(x * 2), argnums=(0, 1))(nb.asarray(f64(2)), nb.asarray(f64(3)))
    np.testing.assert_array_equal(g[1].numpy(), np.zeros(3))
    assert not g[0].traced and g[0]._impl.output_refs is None


def test_pytorch_face_accumulates_and_no_grad():
    w = nb.asarray(np.array([1.0, -2.0, 3.0])).requires_grad_()
    x = nb.asarray(np.array([0.5, 0.25, 2.0]))
    loss = nb.sum(w * w * x)
    loss.backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * np.array([1.0, -2.0, 3.0]) * x.numpy())
    nb.sum(w * 3.0).backward()  # accumulates, as in PyTorch
    np.testing.assert_allclose(w.grad.numpy(), 2 * np.array([1.0, -2.0, 3.0]) * x.numpy() + 3.0)
    with nb.no_grad():
        y = w * 2
    assert not y.traced and y._impl.parents == []
    w.grad = None
    assert w.grad is None
    with pytest.raises(RuntimeError, match="scalar"):
        (w * 2).backward()


def test_matches_jax_on_a_composite_function():
    jax = pytest.importorskip("jax", reason="JAX is the optional cross-check (pip install jax)")
    jnp = jax.numpy
    jax.config.update("jax_enable_x64", True)
    a, x = f64(4, 3), f64(3)

    def f(np_like, x):
        h = np_like.tanh(np_like.matmul(a, x)) * np_like.exp(-x.sum())
        return np_like.sum(np_like.maximum(h, 0.1) ** 2) / np_like.sqrt(np_like.sum(x * x) + 1)

    class NB:
        tanh, matmul, exp, sum, maximum, sqrt = nb.tanh, nb.matmul, nb.exp, nb.sum, nb.maximum, nb.sqrt

    ours = nb.grad(lambda v: f(NB, v))(nb.asarray(x)).numpy()
    theirs = np.asarray(jax.grad(lambda v: f(jnp, v))(jnp.asarray(x)))
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)


def test_transforms_leave_no_reference_cycles():
    # a cycle would keep traced intermediates alive, and pending, until the cyclic GC runs
    import gc

    x = nb.asarray(f64(3))
    gc.collect()
    gc.disable()
    try:
        before = len(gc.get_objects())
        for _ in range(3):
            value, g = nb.value_and_grad(lambda v: nb.sum(nb.tanh(v) * v))(x)
            del value, g
        found = gc.collect()
    finally:
        gc.enable()
    assert found == 0, f"{found} objects were only reachable through cycles"
    assert len(gc.get_objects()) - before < 50
