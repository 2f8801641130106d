"""Autodiff: every differentiable op's jvp and vjp rule against central finite differences
(float64), and against each other; higher orders; the JAX-style and PyTorch-style faces."""

import numpy as np
import pytest

import nabla as nb
from nabla.ops import _physical as P, broadcasting as B
from nabla.ops import elementwise, index_primitives, scans, sorting

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
    "scatter_add": (lambda x, u: index_primitives.scatter_add_op(x, u, nb.asarray(np.array([1, 1, 0])), axis=0),
                    [f64(3, 2), f64(3, 2)]),
    "scatter": (lambda x, v: _set(x, nb.asarray(np.array([2, 0])), v), [f64(3, 2), f64(2, 2)]),
    "cumulative_sum": (lambda x: nb.array_api.cumulative_sum(x, axis=1), [f64(2, 4)]),
    # (a running product, maximum or minimum is the scan op on plain data; under a gradient it is
    # composed of ops with their rules: these check that composition)
    "cumulative_prod": (lambda x: nb.array_api.cumulative_prod(x, axis=1), [f64(2, 4)]),
    "cumulative_max": (lambda x: scans.cumulative_max(x, 1), [f64(2, 5)]),
    "cumulative_min": (lambda x: scans.cumulative_min(x, 0), [f64(4, 3)]),
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
    "sum_to": (lambda x: B.sum_to(x, (1, 3), 0), [f64(2, 3)]),
    "broadcast_physical": (lambda x: B.broadcast_physical(x, (2, 3), 0), [f64(1, 3)]),
    "incr_batch_dims": (lambda x: P.decr_batch_dims(P.incr_batch_dims(x) * 2), [f64(2, 3)]),
    "decr_batch_dims": (lambda x: P.decr_batch_dims(P.incr_batch_dims(x)) * x, [f64(2, 3)]),
    "move_axis_to_batch_dims": (lambda x: P.move_axis_from_batch_dims(P.move_axis_to_batch_dims(x, 1) * 3, 0, 0),
                                [f64(2, 3)]),
    "move_axis_from_batch_dims": (lambda x: P.move_axis_from_batch_dims(P.move_axis_to_batch_dims(x, 0), 0, 1),
                                  [f64(2, 3)]),
}

_la = nb.array_api.linalg
_EYE3 = np.eye(3)
_ROTATION = np.array([[0.0, -1.5, 0.0], [1.5, 0.0, 0.0], [0.0, 0.0, 0.0]])
# linalg: spectral outputs enter through functions their sign/phase choices do not change
DIFF_CASES.update({
    "cholesky": (lambda x: _la.cholesky(x @ nb.array_api.matrix_transpose(x) + 3.0), [f64(3, 3) + 2 * _EYE3]),
    "solve": (_la.solve, [f64(3, 3) + 3 * _EYE3, f64(3, 2)]),
    "det": (lambda x: (_la.det(x), _la.slogdet(x).logabsdet), [f64(3, 3) + 2 * _EYE3]),
    "qr": (lambda x: tuple(_la.qr(x)), [f64(4, 3)]),
    "eigh": (lambda x: (lambda w, v: (w, v * v))(*_la.eigh(x + nb.array_api.matrix_transpose(x))), [f64(3, 3)]),
    "svd": (lambda x: (lambda u, s, vh: (u * u, s, vh * vh))(*_la.svd(x, full_matrices=False)), [f64(4, 3)]),
    # a real spectrum, and (x + _ROTATION) a complex pair; |v|^2 is phase-free
    "eig": (lambda x: [(nb.real(w), nb.imag(w), nb.abs(v) ** 2) for w, v in (_la.eig(x), _la.eig(x + _ROTATION))],
            [np.diag([1.0, 2.0, 3.5]) + 0.1 * f64(3, 3)]),
})

# complex from parts: broadcast parts, and through a complex product so both parts mix
DIFF_CASES["complex"] = (lambda x, y: _parts(elementwise.complex_from_parts(x, y) * (0.5 - 2j)), [f64(2, 3), f64(3)])

_fft = nb.array_api.fft
_parts = lambda z: (nb.real(z), nb.imag(z))
# fft: one op, three kinds (c2c, r2c, c2r), odd and even lengths, each norm, 2-D c2c (ifftn)
DIFF_CASES.update({
    "fft": (lambda x: (*_parts(_fft.fft(x, n=5, norm="ortho")), *_parts(_fft.rfft(x, axis=0)),
                       _fft.irfft(_fft.ifft(x, axis=0), n=4, axis=0), _fft.hfft(_fft.fft(x), n=5, norm="forward"),
                       *_parts(_fft.ihfft(x, n=6)), *_parts(_fft.ifftn(x * (1 + 0.5j), norm="ortho"))), [f64(3, 4)]),
})

# sort: values move with their permutation (the integer output carries no tangent)
DIFF_CASES.update({
    "sort": (lambda x: (sorting.sort(x, axis=0), sorting.sort(x, axis=-1, descending=True)), [f64(4, 5)]),
})

# ops with no derivative: bool results, no inputs, or integer-valued
NOT_DIFFERENTIABLE = {
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and", "logical_or",
    "logical_xor", "logical_not", "constant", "full", "iota",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert", "bitwise_left_shift", "bitwise_right_shift",
    "isnan", "isinf", "isfinite", "signbit", "zeros_like", "nextafter", "floor_divide", "nonzero", "argmax", "argmin", "random_bits",
    # a simulated mesh's stack of shards: recorded as nodes under the sharded op, which autodiff sees
    "stack_values", "unstack_values",
    # reinterpreted bits: no derivative exists (a float32 view of an int32's bits is not smooth in it)
    "bit_view",
}


def _set(x, key, v):
    y = x * 1.0  # setitem rebinds its target: work on a fresh tensor
    y[key] = v
    return y


def test_registry_covers_every_op():
    ops = nb.ops.registry()
    missing = set(ops) - set(DIFF_CASES) - NOT_DIFFERENTIABLE
    assert not missing, f"ops without a gradient check (add them to DIFF_CASES): {sorted(missing)}"
    assert set(DIFF_CASES) <= set(ops) | {"move_axis_to_batch_dims", "move_axis_from_batch_dims"}


def _evaluate(fn, arrays):
    return [np.asarray(o.numpy(), np.float64) for o in nb.tree_leaves(fn(*[nb.asarray(a) for a in arrays]))]


def check_rules(fn, arrays):
    """jvp against central finite differences (float64) and vjp against jvp: <vjp(u), v> == <u, jvp(v)>."""
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
    assert lhs == pytest.approx(rhs_jvp, rel=1e-10, abs=1e-10)


@pytest.mark.parametrize("name", sorted(DIFF_CASES))
def test_rules_against_finite_differences(name):
    check_rules(*DIFF_CASES[name])


#: cases that call internal ops with physical kwargs directly: not meaningful under vmap
INTERNAL = {"identity", "sum_to", "broadcast_physical", "incr_batch_dims", "decr_batch_dims",
            "move_axis_to_batch_dims", "move_axis_from_batch_dims", "scatter_add"}


@pytest.mark.parametrize("name", sorted(set(DIFF_CASES) - INTERNAL))
def test_rules_under_vmap_of_tangents_and_cotangents(name):
    """Jacobians are vmaps of jvp/vjp over a basis with unbatched primals: each op's rules must
    give, batched, what they give one tangent (cotangent) at a time."""
    fn, arrays = DIFF_CASES[name]
    xs = [nb.asarray(a) for a in arrays]
    n = 3
    tangents = [R.standard_normal((n,) + a.shape) for a in arrays]
    got = nb.vmap(lambda *ts: nb.tree_leaves(nb.jvp(fn, xs, list(ts))[1]))(*map(nb.asarray, tangents))
    for i in range(n):
        want = nb.tree_leaves(nb.jvp(fn, xs, [nb.asarray(t[i]) for t in tangents])[1])
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy()[i], w.numpy(), rtol=1e-12, atol=1e-12)

    out, vjp_fn = nb.vjp(fn, *xs)
    tree = nb.tree_structure(out)
    cots = [R.standard_normal((n,) + o.shape) for o in nb.tree_leaves(out)]
    got = nb.vmap(lambda *cs: list(vjp_fn(nb.tree_unflatten(tree, list(cs)))))(*map(nb.asarray, cots))
    for i in range(n):
        want = vjp_fn(nb.tree_unflatten(tree, [nb.asarray(c[i]) for c in cots]))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy()[i], w.numpy(), rtol=1e-12, atol=1e-12)


def _scalar_of_first_arg(name):
    fn, arrays = DIFF_CASES[name]
    rest = [nb.asarray(a) for a in arrays[1:]]
    outs = nb.tree_leaves(fn(*map(nb.asarray, arrays)))
    weights = [nb.asarray(R.standard_normal(o.shape)) for o in outs]

    def scalar(x):
        return sum(nb.sum(w * o) for w, o in zip(weights, nb.tree_leaves(fn(x, *rest))))

    return scalar, arrays[0]


FIRST_ORDER_ONLY: set = set()


@pytest.mark.parametrize("name", sorted(set(DIFF_CASES) - INTERNAL - FIRST_ORDER_ONLY))
def test_hessians_agree_in_every_mode_composition(name):
    """Second order through every rule: forward and reverse over each other, and the Hessian's
    action against finite differences of the gradient."""
    f, a = _scalar_of_first_arg(name)
    x = nb.asarray(a)
    hessians = [jac2(jac1(f))(x).numpy() for jac1 in (nb.jacfwd, nb.jacrev) for jac2 in (nb.jacfwd, nb.jacrev)]
    for h in hessians[1:]:
        np.testing.assert_allclose(h, hessians[0], rtol=1e-9, atol=1e-9)
    v = R.standard_normal(a.shape)
    eps = 1e-6
    grad = lambda p: nb.grad(f)(nb.asarray(p)).numpy()
    fd = (grad(a + eps * v) - grad(a - eps * v)) / (2 * eps)
    hv = np.tensordot(hessians[0], v, axes=v.ndim)
    np.testing.assert_allclose(hv, fd, rtol=1e-5, atol=1e-6)


# --- every function of nabla.array_api, through the ops it is made of ------------------------------

def _namespace_cases():
    """test_vmap's namespace registry, one example each, differentiated in its float arguments."""
    from tests.transforms.test_vmap import NAMESPACE_CASES

    cases = {}
    for name, (fn, args, in_axes) in NAMESPACE_CASES.items():
        args = [np.take(a, 0, axis=ax) if ax is not None else a for a, ax in zip(args, in_axes)]
        diff = [k for k, a in enumerate(args) if np.asarray(a).dtype.kind == "f"]
        if not diff:
            continue

        def f(*xs, fn=fn, args=args, diff=diff):
            full = list(map(nb.asarray, args))
            for k, x in zip(diff, xs):
                full[k] = x
            return [o for o in nb.tree_leaves(fn(*full)) if o.dtype.is_floating]

        arrays = [np.asarray(args[k], np.float64) for k in diff]
        if f(*map(nb.asarray, arrays)):  # recorded, not run: argmax, argsort, count_nonzero ... have no float output
            cases[name] = (f, arrays)
    return cases


NAMESPACE_DIFF_CASES = _namespace_cases()


@pytest.mark.parametrize("name", sorted(NAMESPACE_DIFF_CASES))
def test_namespace_functions_against_finite_differences(name):
    """Composite functions (sort, clip, cumulative_prod, tensordot, stack, roll, ...) differentiate
    through the rules of the ops they are built from; checked like the ops themselves."""
    check_rules(*NAMESPACE_DIFF_CASES[name])


# --- complex inputs: JAX's convention, grad f = df/dx - i df/dy for z = x + iy ----------------------

def _complex(*shape):
    # right of the imaginary axis and off the real one: clear of every branch cut
    return R.uniform(0.5, 1.5, shape) + 1j * R.choice([-1, 1], shape) * R.uniform(0.2, 0.6, shape)


_BASE = _complex(3, 3) + 2 * np.eye(3)
_SPREAD = _complex(3, 3)


def _matrix_of(z):
    return nb.asarray(_BASE) + nb.array_api.expand_dims(z, axis=1) * nb.asarray(_SPREAD)


def _hermitian_of(z):
    """A Hermitian positive definite matrix moved by z (M M^H + 3 I)."""
    m = _matrix_of(z)
    return nb.matmul(m, nb.conj(nb.array_api.matrix_transpose(m))) + 3 * nb.asarray(np.eye(3))


def _complex_cases():
    from nabla.ops.elementwise import BINARY_OPS, UNARY_OPS

    rhs = nb.asarray(_complex(3))
    w = _complex(3)
    weigh = lambda out: nb.sum(nb.real(nb.asarray(w) * out))
    cases = {}
    for name in {n for n, op in UNARY_OPS.items() if op.supports_complex} - {"isnan", "isinf", "isfinite", "round"}:
        op = getattr(nb.array_api, name)
        cases[name] = lambda z, op=op: weigh(op(z))
    u = nb.asarray(_complex(3))
    for name in {n for n, op in BINARY_OPS.items() if op.supports_complex} - {"equal", "not_equal"}:
        op = getattr(nb.array_api, name)
        cases[name] = lambda z, op=op: weigh(op(z, u))
        cases[name + "_right"] = lambda z, op=op: weigh(op(u, z))
    cases.update({
        "sum": lambda z: nb.imag(nb.sum(z * z)),
        "mean": lambda z: nb.real(nb.mean(z * nb.asarray(w))),
        "prod": lambda z: nb.imag(nb.array_api.prod(z)),
        "getitem": lambda z: weigh(z[::-1] * z[0]),
        "concat_reshape": lambda z: nb.abs(nb.reshape(nb.concat([z, z * z]), (2, 3))).sum(),
        "astype_real_part": lambda z: nb.sum(nb.astype(z, nb.float64) * nb.imag(z)),
        # linalg: a complex matrix moved by z; solve and det are holomorphic, log|det| is not
        "linalg_solve": lambda z: weigh(nb.array_api.linalg.solve(_matrix_of(z), rhs)),
        "linalg_det": lambda z: nb.real(nb.asarray(w[0]) * nb.array_api.linalg.det(_matrix_of(z)))
        + nb.array_api.linalg.slogdet(_matrix_of(z)).logabsdet,
        "linalg_inv": lambda z: weigh(nb.array_api.linalg.inv(_matrix_of(z))[0]),
        # factorizations of complex input (JAX's convention through the Hermitian-adjoint rules);
        # eigenvectors and singular vectors enter through phase-free quantities
        "linalg_cholesky": lambda z: weigh(nb.array_api.linalg.cholesky(_hermitian_of(z))[2]),
        "linalg_qr": lambda z: weigh(nb.array_api.linalg.qr(_matrix_of(z)).R[0]) + weigh(
            nb.array_api.linalg.qr(_matrix_of(z)).Q[1] * nb.conj(nb.array_api.linalg.qr(_matrix_of(z)).Q[2])),
        "linalg_eigh": lambda z: nb.sum(nb.array_api.linalg.eigh(_hermitian_of(z)).eigenvalues * nb.asarray(w.real))
        + nb.sum(nb.abs(nb.array_api.linalg.eigh(_hermitian_of(z)).eigenvectors[0]) ** 2 * nb.asarray(w.imag)),
        "linalg_eig": lambda z: weigh(nb.array_api.linalg.eigvals(_matrix_of(z)))
        + nb.sum(nb.abs(nb.array_api.linalg.eig(_matrix_of(z)).eigenvectors[1]) ** 2 * nb.asarray(w.imag)),
        "linalg_svd": lambda z: nb.sum(nb.array_api.linalg.svd(_matrix_of(z)).S * nb.asarray(w.real))
        + nb.sum(nb.abs(nb.array_api.linalg.svd(_matrix_of(z)).U[1]) ** 2 * nb.asarray(w.imag))
        + nb.sum(nb.abs(nb.array_api.linalg.svd(_matrix_of(z)).Vh[2]) ** 2),
        # fft: c2c is holomorphic; c2r (irfft, hfft) reads a half spectrum and drops imaginary parts
        "fft_fft": lambda z: weigh(nb.array_api.fft.fft(z, norm="ortho")),
        "fft_ifft": lambda z: weigh(nb.array_api.fft.ifft(z * z, n=3)),
        "fft_irfft_even": lambda z: nb.sum(nb.array_api.fft.irfft(z, n=4) * nb.asarray(np.arange(1.0, 5.0))),
        "fft_irfft_odd": lambda z: nb.sum(nb.array_api.fft.irfft(z, n=5) ** 2 + nb.array_api.fft.irfft(z, n=5)),
        "fft_hfft": lambda z: nb.sum(nb.array_api.fft.hfft(z, n=5, norm="ortho") * nb.asarray(np.arange(5.0))),
    })
    return cases


COMPLEX_CASES = _complex_cases()


@pytest.mark.parametrize("name", sorted(COMPLEX_CASES))
def test_complex_gradients_against_finite_differences(name):
    f = COMPLEX_CASES[name]
    z = _complex(3)
    got = nb.grad(f)(nb.asarray(z)).numpy()
    h = 1e-6
    value = lambda p: f(nb.asarray(p)).item()
    want = np.array([(value(z + h * e) - value(z - h * e)) / (2 * h)
                     - 1j * (value(z + 1j * h * e) - value(z - 1j * h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # forward mode agrees with reverse: jvp(t) = Re(sum(grad * t)) for every complex tangent t
    t = _complex(3)
    _, jv = nb.jvp(f, (nb.asarray(z),), (nb.asarray(t),))
    assert jv.item() == pytest.approx(float(np.real(np.sum(got * t))), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("name", ["abs", "sign", "sqrt", "linalg_qr", "linalg_eigh", "linalg_eig", "linalg_svd"])
def test_complex_second_order_against_finite_differences(name):
    """Forward over reverse of non-holomorphic rules (abs's and sign's included) against finite
    differences of the gradient."""
    f = COMPLEX_CASES[name]
    z, t = _complex(3), _complex(3)
    grad = lambda p: nb.grad(f)(nb.asarray(p)).numpy()
    _, hv = nb.jvp(nb.grad(f), (nb.asarray(z),), (nb.asarray(t),))
    h = 1e-6
    np.testing.assert_allclose(hv.numpy(), (grad(z + h * t) - grad(z - h * t)) / (2 * h), rtol=1e-5, atol=1e-6)


def test_complex_grad_matches_jax_and_rejects_complex_outputs():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    z = _complex(4)
    got = nb.grad(lambda z: nb.sum(nb.abs(nb.sqrt(z) * nb.tanh(z)) + nb.imag(nb.log(z))))(nb.asarray(z))
    want = jax.grad(lambda z: jnp.sum(jnp.abs(jnp.sqrt(z) * jnp.tanh(z)) + jnp.imag(jnp.log(z))))(z)
    np.testing.assert_allclose(got.numpy(), np.asarray(want), rtol=1e-10)
    np.testing.assert_allclose(nb.grad(lambda z: nb.abs(z) ** 2)(nb.asarray(3 + 4j)).item(), 6 - 8j)
    with pytest.raises(TypeError, match="holomorphic=True"):
        nb.grad(lambda z: nb.sum(z * z))(nb.asarray(z))


def test_holomorphic_grad_is_the_complex_derivative():
    z = _complex(3)
    f = lambda z: nb.sum(nb.exp(z) * nb.sin(z) / z)
    want = np.exp(z) * (np.sin(z) + np.cos(z)) / z - np.exp(z) * np.sin(z) / z ** 2
    np.testing.assert_allclose(nb.grad(f, holomorphic=True)(nb.asarray(z)).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(np.diag(nb.jacrev(lambda z: nb.exp(z) * nb.sin(z) / z)(nb.asarray(z)).numpy()), want,
                               rtol=1e-12)
    with pytest.raises(TypeError, match="complex inputs"):
        nb.grad(f, holomorphic=True)(nb.asarray(z.real))
    with pytest.raises(TypeError, match="must be complex"):
        nb.grad(lambda z: nb.abs(nb.sum(z)), holomorphic=True)(nb.asarray(z))


def test_gradients_of_a_selection_ignore_inf_elsewhere():
    x = nb.asarray(np.array([np.inf, 1.0, -np.inf]))
    take = lambda x: nb.sum(nb.array_api.take(x, nb.asarray(np.array([1, 1])), axis=0))
    for f, want in ((lambda x: x[1], [0, 1, 0]), (take, [0, 2, 0]), (lambda x: _set(x, 0, 5.0)[1], [0, 1, 0])):
        np.testing.assert_array_equal(nb.grad(f)(x).numpy(), want)


# --- higher order ---------------------------------------------------------------------

def test_second_order_grad_of_grad():
    f = lambda x: nb.sum(nb.sin(x) * nb.exp(x))  # f'' = 2 cos(x) e^x
    x = f64(4)
    g2 = nb.grad(lambda x: nb.sum(nb.grad(f)(x)))(nb.asarray(x))
    np.testing.assert_allclose(g2.numpy(), 2 * np.cos(x) * np.exp(x), rtol=1e-10)


def test_nested_jvp_to_third_order_without_perturbation_confusion():
    d = lambda f: (lambda x: nb.jvp(f, (x,), (nb.ones_like(x),))[1])
    x = np.array([0.3, -1.1])
    np.testing.assert_allclose(d(d(nb.sin))(nb.asarray(x)).numpy(), -np.sin(x), rtol=1e-12)
    np.testing.assert_allclose(d(d(d(lambda t: nb.exp(2 * t))))(nb.asarray(x)).numpy(), 8 * np.exp(2 * x), rtol=1e-12)
    # D(x -> x * D(y -> x + y)(1))(1) is 1; a tangent without a level would make it 2
    one = nb.asarray(1.0)
    assert d(lambda x: x * d(lambda y: x + y)(one))(one).item() == 1.0
    # the inner tangent itself carries an outer tangent: d/da <grad h(a), t(a)> with t = a
    h = lambda a: nb.sum(a * a * a)
    a = np.array([[0.5, -1.0, 2.0]])
    inner = lambda a: nb.jvp(h, (a,), (a,))[1]  # 3 sum(a^3)
    np.testing.assert_allclose(nb.jvp(inner, (nb.asarray(a),), (nb.asarray(np.ones_like(a)),))[1].item(),
                               9 * np.sum(a * a), rtol=1e-12)


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


def test_jacobians_of_pytrees_in_and_out_with_aux():
    """JAX's layout: the output's structure, then the input's; blocks out_leaf.shape + in_leaf.shape."""
    w, b, x = f64(3, 2), f64(2), f64(4, 3)

    def f(p, x):
        h = nb.tanh(x @ p["w"] + p["b"])
        return {"h": h, "s": nb.sum(h * h)}, nb.sum(h)

    params = {"w": nb.asarray(w), "b": nb.asarray(b)}
    for jac in (nb.jacrev, nb.jacfwd):
        got, aux = jac(f, argnums=(0, 1), has_aux=True)(params, nb.asarray(x))
        assert aux.item() == pytest.approx(np.tanh(x @ w + b).sum())
        assert set(got) == {"h", "s"} and set(got["h"][0]) == {"w", "b"}
        assert got["h"][0]["w"].shape == (4, 2, 3, 2) and got["s"][1].shape == (4, 3)
        eps = 1e-6  # one block per output leaf against central differences
        d = np.zeros_like(w)
        d[1, 0] = eps
        h = lambda w_: np.tanh(x @ w_ + b)
        np.testing.assert_allclose(got["h"][0]["w"].numpy()[..., 1, 0], (h(w + d) - h(w - d)) / (2 * eps), rtol=1e-6)
        s = lambda x_: np.sum(np.tanh(x_ @ w + b) ** 2)
        e = np.zeros_like(x)
        e[2, 1] = eps
        assert got["s"][1].numpy()[2, 1] == pytest.approx((s(x + e) - s(x - e)) / (2 * eps), rel=1e-6)
    empty, b2 = nb.zeros((0,), dtype=nb.float64), nb.asarray(np.array([1.0, 2.0]))
    for jac in (nb.jacrev, nb.jacfwd):  # zero-size inputs and outputs keep their blocks' shapes
        ja, jb = jac(lambda a, b: nb.sum(a) * b, argnums=(0, 1))(empty, b2)
        assert ja.shape == (2, 0) and jb.shape == (2, 2) and not jb.numpy().any()
        assert jac(lambda x: x[:0])(b2).shape == (0, 2)
    hess = nb.hessian(lambda p: nb.sum(nb.sin(p["w"]) * p["b"]))(params)
    np.testing.assert_allclose(hess["w"]["b"].numpy(), np.einsum("ij,jk->ijk", np.cos(w), np.eye(2)), rtol=1e-12)
    assert hess["b"]["b"].shape == (2, 2) and not hess["b"]["b"].numpy().any()


def test_prod_derivatives_are_exact_at_zeros():
    """The gradient of a product is the product of the others (no division by the input), to any order."""
    x = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.5, 2.0, 4.0]])
    grad = nb.grad(lambda x: nb.sum(nb.prod(x, axis=1)))(nb.asarray(x)).numpy()
    want = np.array([[np.prod(np.delete(row, j)) for j in range(3)] for row in x])
    np.testing.assert_array_equal(grad, want)
    hess = nb.hessian(lambda v: nb.prod(v))(nb.asarray(x[0])).numpy()
    np.testing.assert_array_equal(hess, [[0, 3, 0], [3, 0, 2], [0, 2, 0]])  # d2(abc) = the third factor


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
