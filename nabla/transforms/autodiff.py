"""Automatic differentiation.

Forward mode: tangents ride on ``TensorImpl.tangents``, keyed by the level of the
``jvp`` that made them (nested calls get higher levels), and ``Operation.__call__``
applies each op's ``jvp_rule`` level by level. Reverse mode: inputs are marked traced, so ops
keep their parents in ``OutputRefs.op_args``; the backward pass walks that graph
in reverse topological order and applies each op's ``vjp_rule``. Rules are
written with Nabla ops, so every derivative is differentiable again.
"""

from __future__ import annotations

import contextlib
import numbers
import threading

from ..core.context import VMAP_DEPTH
from ..core.operation import GRAD_MODE
from ..core.pytree import tree_flatten, tree_unflatten
from ..core.tensor import Tensor
from ..core.tensor_impl import TensorImpl
from ..ops import creation
from ..ops._physical import broadcast_batch_dims, common_batch_shape, identity_op
from ..ops.elementwise import astype
from ..ops.ranges import arange
from ..ops.view import moveaxis, reshape
from .vmap import vmap


class _Depth(threading.local):
    """How many transforms are running in this thread; results leave traced mode only at depth 0."""

    value = 0
    jvp_levels = 0  # jvp levels handed out so far: a new call's level exceeds every running one


_DEPTH = _Depth()


def _is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def _as_tensor(x) -> Tensor:
    return x if isinstance(x, Tensor) else creation.asarray(x)


def _fresh_input(x: Tensor, tangent: Tensor | None = None, level: int = 0) -> Tensor:
    """A traced stand-in for ``x``; under an outer transform it stays linked to ``x``."""
    y = identity_op(x)
    y._impl.traced = True
    if tangent is not None:
        y._impl.tangents = {**(y._impl.tangents or {}), level: tangent._impl}
    return y


def _without_level(x: Tensor, level: int) -> Tensor:
    """``x`` as a value of the levels outside ``level`` (linked to ``x`` for them)."""
    impl = x._impl
    d = impl.tangents
    if d is None or level not in d:
        return x
    impl.tangents = {l: t for l, t in d.items() if l != level} or None
    try:
        return identity_op(x)
    finally:
        impl.tangents = d


def _detach(x):
    """At depth 0, a result that neither keeps the trace alive nor carries a tangent."""
    if not isinstance(x, Tensor) or _DEPTH.value:
        return x
    return type(x)(x._impl.detached())


def _check_differentiable(x: Tensor, fn: str, argnum) -> None:
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError(
            f"nabla.{fn}: argument {argnum} has dtype {x.dtype.name}; gradients need floating-point inputs "
            "(integer and boolean inputs get no gradient, as in JAX)"
        )


# --- reverse mode ------------------------------------------------------------------

def backward_pass(outputs: list[TensorImpl], cotangents: list[Tensor], inputs: list[TensorImpl] | None,
                  recorded_depth: int | None = None):
    """Cotangents of ``inputs`` (None where unreached); ``inputs=None`` means every
    ``requires_grad`` leaf, returned as ``(leaves, cotangents)``.

    ``recorded_depth``: the vmap depth the graph was recorded at, when vmaps begun since are
    running now. Their batch axes would take the places of the batch axes of vmaps that ran
    inside the recorded function, so such graphs are refused.
    """
    stop = None if inputs is None else {id(i) for i in inputs}
    leaves: dict[int, TensorImpl] = {}

    def is_stop(impl) -> bool:
        if stop is not None:
            return id(impl) in stop
        if impl.requires_grad and not (impl.output_refs and impl.output_refs.op_args):
            leaves[id(impl)] = impl
            return True
        return False

    # post-order (parents first) over the OutputRefs nodes that lead to the outputs
    order, state = [], {}
    for out in outputs:
        if is_stop(out) or out.output_refs is None or not out.output_refs.op_args:
            continue
        stack = [out.output_refs]
        while stack:
            node = stack[-1]
            if state.get(id(node)) == 2:
                stack.pop()
                continue
            state[id(node)] = 1
            pushed = False
            for p in node.op_args:
                if isinstance(p, TensorImpl) and not is_stop(p):
                    r = p.output_refs
                    if r is not None and r.op_args and id(r) not in state:
                        stack.append(r)
                        pushed = True
            if not pushed:
                stack.pop()
                state[id(node)] = 2
                order.append(node)

    # only nodes that depend on an input carry cotangents worth computing
    reached: set[int] = set()
    for node in order:
        for p in node.op_args:
            if isinstance(p, TensorImpl) and (is_stop(p) or (p.output_refs is not None and id(p.output_refs) in reached)):
                reached.add(id(node))
                break

    cts: dict[int, Tensor] = {}
    holders: dict[int, TensorImpl] = {}

    def accumulate(impl: TensorImpl, g: Tensor) -> None:
        key = id(impl)
        if key in cts:
            cts[key] = cts[key] + g
        else:
            cts[key] = g
            holders[key] = impl

    for o, c in zip(outputs, cotangents):
        accumulate(o, c)

    for node in reversed(order):
        if id(node) not in reached:
            continue
        outs = node.get_alive_outputs()
        node_cts = [None if o is None else cts.get(id(o)) for o in outs]
        if all(c is None for c in node_cts):
            continue
        if recorded_depth is not None and any(a.batch_dims > recorded_depth for a in node.op_args):
            raise NotImplementedError(
                f"nabla.vjp: the vjp function runs under a vmap begun after its forward pass, and that pass "
                f"ran a vmap of its own ({node.op.name} has batched operands); call vjp inside the vmap instead")
        primals = [Tensor(a) for a in node.op_args]
        if node.tree_def is None:
            grads = node.op.vjp_rule(primals, node_cts[0], Tensor(outs[0]), **node.op_kwargs)
        else:
            out_tensors = [None if o is None else Tensor(o) for o in outs]
            grads = node.op.vjp_rule(primals, node_cts, out_tensors, **node.op_kwargs)
        if isinstance(grads, Tensor):
            grads = [grads]
        for a, g in zip(node.op_args, grads):
            if g is not None and (a.dtype.is_floating or a.dtype.is_complex):
                accumulate(a, g)

    if inputs is None:
        found = list(leaves.values())
        return found, [cts.get(id(i)) for i in found]
    return [cts.get(id(i)) for i in inputs]


def vjp(f, *primals, has_aux: bool = False):
    """``(f(*primals), vjp_fn)``; ``vjp_fn(cotangents)`` returns a tuple of cotangents, one per primal."""
    flat, in_def = tree_flatten(primals, is_leaf=_is_tensor)
    flat = [_as_tensor(p) for p in flat]
    depth = VMAP_DEPTH.value
    _DEPTH.value += 1
    try:
        ins = [_fresh_input(p) for p in flat]
        result = f(*tree_unflatten(in_def, ins))
    finally:
        _DEPTH.value -= 1
    aux = None
    if has_aux:
        if not (isinstance(result, tuple) and len(result) == 2):
            raise TypeError("nabla.vjp: with has_aux=True the function must return a pair (output, aux)")
        result, aux = result
    out_flat, out_def = tree_flatten(result, is_leaf=_is_tensor)
    for o in out_flat:
        if not isinstance(o, Tensor):
            raise TypeError(f"nabla.vjp: the function must return tensors, got {type(o).__name__}")

    def vjp_fn(cotangents):
        ct_flat, ct_def = tree_flatten(cotangents, is_leaf=_is_tensor)
        if ct_def != out_def:
            raise ValueError(f"nabla.vjp: cotangent structure {ct_def} does not match the output's {out_def}")
        cts = []
        for o, c in zip(out_flat, ct_flat):
            c = _as_tensor(c)
            if c.shape != o.shape:
                raise ValueError(f"nabla.vjp: cotangent shape {c.shape} does not match output shape {o.shape}")
            cts.append(c if c.dtype is o.dtype else astype(c, o.dtype))
        _DEPTH.value += 1
        try:
            grads = backward_pass([o._impl for o in out_flat], cts, [i._impl for i in ins],
                                  depth if VMAP_DEPTH.value > depth else None)
            grads = [creation.zeros_like(p) if g is None else _invariant_cotangent(p, g) for p, g in zip(flat, grads)]
        finally:
            _DEPTH.value -= 1
        return tuple(tree_unflatten(in_def, [_detach(g) for g in grads]))

    out = tree_unflatten(out_def, [_detach(o) for o in out_flat])
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def _invariant_cotangent(primal: Tensor, g: Tensor) -> Tensor:
    """Inside ``shard_map``, a primal that is the same along some mesh axes (a replicated block)
    whose cotangent varies along them gets the sum of the per-device terms: JAX's transpose of the
    implicit ``pvary`` where an invariant value met a varying one, so ``grad`` in the body with
    respect to a replicated weight gives the whole gradient on every device."""
    view, got = primal._impl.sharding, g._impl.sharding
    extra = getattr(got, "varying", frozenset()) - getattr(view, "varying", frozenset())
    if not extra or not hasattr(view, "varying"):
        return g
    from ..sharding.collectives import psum_op  # lazy: nabla.sharding loads on first use

    return psum_op(g, axes=tuple(sorted(extra, key=view.mesh.axis_index)))


def _argnums(argnums, nargs: int, fn: str) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, numbers.Integral) else tuple(argnums)
    for n in nums:
        if not -nargs <= n < nargs:
            raise ValueError(f"nabla.{fn}: argnums {argnums} out of range for {nargs} positional arguments")
    return tuple(n % nargs for n in nums)


def _split_args(args, nums):
    def call_with(f, kwargs):
        def g(*diff):
            full = list(args)
            for i, d in zip(nums, diff):
                full[i] = d
            return f(*full, **kwargs)

        return g

    return [args[i] for i in nums], call_with


def value_and_grad(f, argnums=0, has_aux: bool = False, holomorphic: bool = False):
    """``(f(x), df/dx)`` for a function with a scalar real output; ``holomorphic=True``: a complex
    function of complex inputs, whose gradient is the complex derivative ``f'(z)`` (as JAX)."""

    def wrapped(*args, **kwargs):
        nums = _argnums(argnums, len(args), "value_and_grad")
        diff, call_with = _split_args(args, nums)
        for n, d in zip(nums, diff):
            for leaf in tree_flatten(d, is_leaf=_is_tensor)[0]:
                _check_differentiable(_as_tensor(leaf), "grad", n)
                if holomorphic and not _as_tensor(leaf).dtype.is_complex:
                    raise TypeError(f"nabla.grad(holomorphic=True): argument {n} has dtype "
                                    f"{_as_tensor(leaf).dtype.name}; holomorphic gradients need complex inputs")
        res = vjp(call_with(f, kwargs), *diff, has_aux=has_aux)
        out, vjp_fn = res[0], res[1]
        if not isinstance(out, Tensor) or out.shape != ():
            shape = getattr(out, "shape", type(out).__name__)
            raise TypeError(f"nabla.grad: the function must return a scalar (shape ()) tensor, got {shape}; "
                            "use jacrev or vjp for non-scalar outputs")
        if holomorphic and not out.dtype.is_complex:
            raise TypeError(f"nabla.grad(holomorphic=True): the output must be complex, got {out.dtype.name}")
        if not holomorphic and not out.dtype.is_floating:
            raise TypeError(f"nabla.grad: the output must be real floating-point, got {out.dtype.name}"
                            + ("; for a complex output of a holomorphic function pass holomorphic=True"
                               if out.dtype.is_complex else ""))
        grads = vjp_fn(creation.ones_like(out))
        grads = grads[0] if isinstance(argnums, numbers.Integral) else tuple(grads)
        return ((out, res[2]), grads) if has_aux else (out, grads)

    wrapped.__name__ = f"value_and_grad({getattr(f, '__name__', 'f')})"
    return wrapped


def grad(f, argnums=0, has_aux: bool = False, holomorphic: bool = False):
    """``df/dx`` for a function with a scalar output (JAX's ``grad``)."""
    vg = value_and_grad(f, argnums, has_aux, holomorphic)

    def wrapped(*args, **kwargs):
        (value, grads) = vg(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    wrapped.__name__ = f"grad({getattr(f, '__name__', 'f')})"
    return wrapped


# --- forward mode ------------------------------------------------------------------

def _aligned(p: Tensor, t: Tensor) -> tuple[Tensor, Tensor]:
    """``p`` and ``t`` with one batch shape.

    Under ``vmap`` a tangent may be batched where its primal is not (``jacfwd``) or the other
    way round. Rules take their physical axis kwargs from the primal, so both sides get the
    common batch shape; the price is a primal computed once per batch element.
    """
    batch = common_batch_shape(p, t, op="jvp")
    return broadcast_batch_dims(p, batch), broadcast_batch_dims(t, batch)


def jvp(f, primals, tangents):
    """``(f(*primals), J @ tangents)`` by forward mode."""
    p_flat, p_def = tree_flatten(tuple(primals), is_leaf=_is_tensor)
    t_flat, t_def = tree_flatten(tuple(tangents), is_leaf=_is_tensor)
    if p_def != t_def:
        raise ValueError(f"nabla.jvp: tangents {t_def} do not match primals {p_def}")
    p_flat = [_as_tensor(p) for p in p_flat]
    t_flat = [_as_tensor(t) for t in t_flat]
    for p, t in zip(p_flat, t_flat):
        if p.shape != t.shape:
            raise ValueError(f"nabla.jvp: tangent shape {t.shape} does not match primal shape {p.shape}")
    _DEPTH.value += 1
    _DEPTH.jvp_levels += 1
    level = _DEPTH.jvp_levels
    try:
        ins = [_fresh_input(*_aligned(p, astype(t, p.dtype) if t.dtype is not p.dtype else t), level)
               for p, t in zip(p_flat, t_flat)]
        result = f(*tree_unflatten(p_def, ins))
        out_flat, out_def = tree_flatten(result, is_leaf=_is_tensor)
        out_t = [creation.zeros_like(o) if not (o._impl.tangents and level in o._impl.tangents)
                 else Tensor(o._impl.tangents[level]) for o in out_flat]
        out_flat = [_without_level(o, level) for o in out_flat]
    finally:
        _DEPTH.value -= 1
    return (tree_unflatten(out_def, [_detach(o) for o in out_flat]),
            tree_unflatten(out_def, [_detach(t) for t in out_t]))


# --- Jacobians ---------------------------------------------------------------------

def _basis(like: Tensor) -> Tensor:
    """The standard basis of ``like``'s space, stacked: shape ``(like.size,) + like.shape``."""
    n = like.size
    i = arange(n)
    return reshape(astype(reshape(i, (n, 1)) == reshape(i, (1, n)), like.dtype), (n,) + like.shape)


def _leaves(tree) -> tuple[list[Tensor], object]:
    leaves, treedef = tree_flatten(tree, is_leaf=_is_tensor)
    return [_as_tensor(x) for x in leaves], treedef


def _jacobian_tree(blocks, out_def, arg_defs, argnums):
    """JAX's layout: the output's structure, each leaf holding the input's structure (a tuple of
    the arguments' structures for a tuple ``argnums``) of blocks ``out_leaf.shape + in_leaf.shape``."""
    per_out = []
    for row in blocks:  # one row per output leaf, one block per input leaf of every argument
        it = iter(row)
        per_arg = [tree_unflatten(d, [next(it) for _ in range(d.num_leaves)]) for d in arg_defs]
        per_out.append(per_arg[0] if isinstance(argnums, numbers.Integral) else tuple(per_arg))
    return tree_unflatten(out_def, per_out)


def jacrev(f, argnums=0, has_aux: bool = False):
    """Jacobian by reverse mode: ``vmap`` of the vjp over each output leaf's basis (pytrees in and out)."""
    def wrapped(*args, **kwargs):
        nums = _argnums(argnums, len(args), "jacrev")
        diff, call_with = _split_args(args, nums)
        g = call_with(f, kwargs)
        res = vjp(g, *diff, has_aux=has_aux)
        outs, out_def = _leaves(res[0])
        ins = [_leaves(d) for d in diff]
        in_leaves = [x for leaves, _ in ins for x in leaves]
        blocks = []
        for k, o in enumerate(outs):
            if o.size == 0:
                blocks.append([creation.zeros(o.shape + x.shape, dtype=x.dtype) for x in in_leaves])
                continue

            def pullback(ct, k=k):
                # the forward pass is recorded inside the vmap, so vmaps it runs nest inside this one;
                # it depends on no mapped value, so it is computed once, unbatched
                fresh = vjp(g, *diff, has_aux=has_aux)
                cts = [ct if j == k else creation.zeros_like(y) for j, y in enumerate(_leaves(fresh[0])[0])]
                return _leaves_of(fresh[1](tree_unflatten(out_def, cts)))

            rows = vmap(pullback)(_basis(o))  # (o.size,) + x.shape per input leaf
            blocks.append([reshape(r, o.shape + x.shape) for r, x in zip(rows, in_leaves)])
        jac = _jacobian_tree(blocks, out_def, [d for _, d in ins], argnums)
        return (jac, res[2]) if has_aux else jac

    return wrapped


def jacfwd(f, argnums=0, has_aux: bool = False):
    """Jacobian by forward mode: ``vmap`` of ``jvp`` over each input leaf's basis (pytrees in and out)."""
    def wrapped(*args, **kwargs):
        nums = _argnums(argnums, len(args), "jacfwd")
        diff, call_with = _split_args(args, nums)
        g = call_with(f, kwargs)
        main = (lambda *d: g(*d)[0]) if has_aux else g
        ins = [_leaves(d) for d in diff]
        in_leaves = [x for leaves, _ in ins for x in leaves]
        # the output's structure comes from the vmapped jvp; a plain call is made only for aux,
        # or when no input leaf has elements to push
        primal = g(*diff) if has_aux or not any(x.size for x in in_leaves) else None
        found = {}
        if primal is not None:
            found["outs"], found["def"] = _leaves(primal[0] if has_aux else primal)
        columns = {}  # input leaf -> one block per output leaf
        for k, x in enumerate(in_leaves):
            if x.size == 0:
                continue

            def push(t, k=k):
                tangents = [t if j == k else creation.zeros_like(y) for j, y in enumerate(in_leaves)]
                it = iter(tangents)
                tangent_args = [tree_unflatten(d, [next(it) for _ in range(d.num_leaves)]) for _, d in ins]
                leaves, found["def"] = _leaves(jvp(main, diff, tangent_args)[1])
                return leaves

            cols = vmap(push)(_basis(x))  # (x.size,) + out_leaf.shape per output leaf
            columns[k] = [reshape(moveaxis(reshape(c, (x.size, -1)), 0, -1), c.shape[1:] + x.shape) for c in cols]
            found.setdefault("outs", [c[0] for c in cols])
        outs = found["outs"]
        blocks = [[columns[k][j] if k in columns else creation.zeros(o.shape + x.shape, dtype=o.dtype)
                   for k, x in enumerate(in_leaves)] for j, o in enumerate(outs)]
        jac = _jacobian_tree(blocks, found["def"], [d for _, d in ins], argnums)
        return (jac, primal[1]) if has_aux else jac

    return wrapped


def _leaves_of(tree) -> list[Tensor]:
    return tree_flatten(tree, is_leaf=_is_tensor)[0]


def hessian(f, argnums=0):
    """Second derivatives: ``jacfwd(jacrev(f))``."""
    return jacfwd(jacrev(f, argnums), argnums)


# --- the PyTorch face --------------------------------------------------------------

@contextlib.contextmanager
def no_grad():
    """Ops inside record no parents, so nothing inside is differentiated."""
    previous = GRAD_MODE.enabled
    GRAD_MODE.enabled = False
    try:
        yield
    finally:
        GRAD_MODE.enabled = previous


def _requires_grad_(self: Tensor, requires_grad: bool = True) -> Tensor:
    if requires_grad:
        _check_differentiable(self, "requires_grad_", "self")
    self._impl.requires_grad = requires_grad
    self._impl.traced = requires_grad or self._impl.traced
    return self


def _backward(self: Tensor, gradient=None) -> None:
    if gradient is None:
        if self.shape != ():
            raise RuntimeError(f"nabla.backward: grad can be implicitly created only for scalar outputs, "
                               f"got shape {self.shape}; pass gradient=")
        gradient = creation.ones_like(self)
    leaves, grads = backward_pass([self._impl], [_as_tensor(gradient)], None)
    for leaf, g in zip(leaves, grads):
        if g is None:
            continue
        g = _detach_always(g)
        leaf.grad = g._impl if leaf.grad is None else _detach_always(Tensor(leaf.grad) + g)._impl


def _detach_always(x: Tensor) -> Tensor:
    return Tensor(x._impl.detached())


def _grad_get(self: Tensor):
    g = self._impl.grad
    return None if g is None else Tensor(g)


def _grad_set(self: Tensor, value) -> None:
    self._impl.grad = None if value is None else _as_tensor(value)._impl


def _detach_method(self: Tensor) -> Tensor:
    return _detach_always(self)


#: what ``nabla/tensor_api.py`` binds onto ``Tensor`` from this layer (PyTorch's autograd surface)
TENSOR_METHODS = {"requires_grad_": _requires_grad_, "backward": _backward, "grad": property(_grad_get, _grad_set),
                  "requires_grad": property(lambda self: self._impl.requires_grad), "detach": _detach_method}
