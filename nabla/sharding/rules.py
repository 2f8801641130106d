"""Sharding propagation by op family: which layout each operand must have and what comes out.

A rule returns a ``Plan``: the spec each operand is moved to before the per-shard call, the
kwargs of that call (shapes and indices made local), the output specs, and an optional step on
each shard's result. Ops without a rule run on whole (replicated) operands, so a result is never
silently wrong; rules exist where a family keeps data where it is.

Pending reductions (``partial``) pass through linear ops (JAX's "unreduced" values): an add whose
operands are all partial sums, a product or quotient with one partial factor, a reduction of the
same kind, a matmul with one partial factor, and every layout op. Anything else completes them
first. A contraction or reduction over a sharded axis makes a new one (``mean``: a partial sum of
shard means, each scaled by 1/shards).
"""

from __future__ import annotations

from ..ops.reduction import REDUCE_OPS
from ..ops.scans import cumsum_op
from .mesh import ShardingSpec


class Plan:
    __slots__ = ("in_specs", "out_specs", "kwargs", "post")

    def __init__(self, in_specs, out_specs, kwargs, post=None):
        self.in_specs, self.out_specs, self.kwargs, self.post = in_specs, out_specs, kwargs, post


_SPECS: dict = {}


def interned_spec(mesh, dims, partial=None) -> ShardingSpec:
    """One shared instance per layout: later comparisons are identity checks."""
    key = (mesh, tuple(map(tuple, dims)), tuple(sorted(partial.items())) if partial else ())
    spec = _SPECS.get(key)
    if spec is None:
        if len(_SPECS) > 4096:
            _SPECS.clear()
        spec = _SPECS[key] = ShardingSpec(mesh, dims, partial)
    return spec


def _sum_partial(spec) -> dict | None:
    """The spec's pending reductions when they are all sums (the only kind linear ops carry)."""
    return dict(spec.partial) if spec.partial and all(k == "sum" for _, k in spec.partial) else None


def _replicated(impls, specs, kwargs, outs, mesh) -> Plan:
    return Plan([interned_spec(mesh, ((),) * len(s.dims)) for s in specs], [interned_spec(mesh, ((),) * len(o)) for o in outs],
                kwargs)


def _broadcast(shapes, specs, out_shape, skip=frozenset()):
    """Right-aligned broadcast: each out dim takes the first operand's sharding of a full-size dim
    whose axes are still free; operands then take the out dim's axes on their full-size dims."""
    nd = len(out_shape)
    dims, used = [()] * nd, set(skip)
    for shape, spec in zip(shapes, specs):
        off = nd - len(shape)
        for k, axes in enumerate(spec.dims[:len(shape)]):
            j = k + off
            if axes and not dims[j] and shape[k] == out_shape[j] and not used & set(axes):
                dims[j] = axes
                used |= set(axes)
    per_input = [[dims[k + nd - len(shape)] if shape[k] == out_shape[k + nd - len(shape)] else ()
                  for k in range(len(shape))] for shape in shapes]
    return dims, per_input


_LINEAR_UNARY = {"negative", "positive", "conj", "real", "imag", "identity"}


def _carried(name: str, specs) -> list | None:
    """Per operand, the pending sums an elementwise op may keep; ``None``: complete them first."""
    sums = [_sum_partial(s) for s in specs]
    if not any(s.partial for s in specs):
        return [{} for _ in specs]
    if any(s.partial and p is None for s, p in zip(specs, sums)):
        return None
    if name in _LINEAR_UNARY:
        return sums
    if name in ("add", "subtract"):
        return sums if all(p == sums[0] for p in sums) else None
    if name == "multiply":
        return sums if sum(bool(p) for p in sums) == 1 else None
    if name == "divide":
        return sums if sums[0] and not sums[1] else None
    return None


def _elementwise(op, impls, specs, kwargs, outs, mesh):
    carried = _carried(op.name, specs)
    if carried is None:
        carried = [{} for _ in specs]
    partial = next((p for p in carried if p), {})
    dims, per_input = _broadcast([i.cached_shape for i in impls], specs, outs[0], skip=set(partial))
    return Plan([interned_spec(mesh, d, p) for d, p in zip(per_input, carried)], [interned_spec(mesh, dims, partial)], kwargs)


_NEW_PARTIAL = {"sum": "sum", "mean": "sum", "max": "max", "min": "min"}


def _reduce(op, impls, specs, kwargs, outs, mesh):
    spec, axes, keepdims = specs[0], kwargs["axes"], kwargs["keepdims"]
    kind = _NEW_PARTIAL.get(op.name)
    keep = {a: k for a, k in spec.partial if k == kind} if spec.partial and all(
        k == kind for _, k in spec.partial) else {}
    in_dims, partial, shards = list(spec.dims), dict(keep), 1
    for a in axes:
        if spec.dims[a]:
            if kind is None:
                in_dims[a] = ()
                continue
            for ax in spec.dims[a]:
                partial[ax] = kind
            shards *= spec.shards(a)
    out_dims = [() if d in axes else in_dims[d] for d in range(len(in_dims)) if keepdims or d not in axes]
    post = None
    if op is REDUCE_OPS["mean"] and shards > 1:
        post = lambda t, s=shards: t * (1.0 / s)  # noqa: E731
    return Plan([interned_spec(mesh, in_dims, keep)], [interned_spec(mesh, out_dims, partial)], kwargs, post)


def _matmul(op, impls, specs, kwargs, outs, mesh):
    x, y = impls
    sx, sy = specs
    # linear in each factor: one factor may stay a pending sum, not both
    carry = [{}, {}] if sx.partial and sy.partial else [_sum_partial(sx) or {}, _sum_partial(sy) or {}]
    partial = dict(carry[0] or carry[1])
    out_shape = outs[0]
    lead, (lx, ly) = _broadcast([x.cached_shape[:-2], y.cached_shape[:-2]],
                                [sx.with_dims(sx.dims[:-2]), sy.with_dims(sy.dims[:-2])],
                                out_shape[:-2], skip=set(partial))
    used = set(partial) | {a for d in lead for a in d}
    m = sx.dims[-2] if not used & set(sx.dims[-2]) else ()
    used |= set(m)
    n = sy.dims[-1] if not used & set(sy.dims[-1]) else ()
    used |= set(n)
    k = next((c for c in (sx.dims[-1], sy.dims[-2]) if c and not used & set(c)), ())
    out_partial = {**partial, **{a: "sum" for a in k}}
    return Plan([interned_spec(mesh, lx + [m, k], carry[0]), interned_spec(mesh, ly + [k, n], carry[1])],
                [interned_spec(mesh, lead + [m, n], out_partial)], kwargs)


def _linear_layout(specs):
    """Layout ops carry pending sums; other pending kinds are completed first."""
    return _sum_partial(specs[0]) or {}


def _permute(op, impls, specs, kwargs, outs, mesh):
    s, p = specs[0], _linear_layout(specs)
    return Plan([interned_spec(mesh, s.dims, p)], [interned_spec(mesh, [s.dims[q] for q in kwargs["perm"]], p)], kwargs)


def _same_layout(op, impls, specs, kwargs, outs, mesh):
    s, p = specs[0], _linear_layout(specs)
    return Plan([interned_spec(mesh, s.dims, p)], [interned_spec(mesh, s.dims, p)], kwargs)


def _unsqueeze(op, impls, specs, kwargs, outs, mesh):
    s, p, a = specs[0], _linear_layout(specs), kwargs["axis"]
    return Plan([interned_spec(mesh, s.dims, p)], [interned_spec(mesh, s.dims[:a] + ((),) + s.dims[a:], p)], kwargs)


def _squeeze(op, impls, specs, kwargs, outs, mesh):
    s, p, a = specs[0], _linear_layout(specs), kwargs["axis"]
    dims = list(s.dims)
    dims[a] = ()
    return Plan([interned_spec(mesh, dims, p)], [interned_spec(mesh, dims[:a] + dims[a + 1:], p)], kwargs)


def _broadcast_to(op, impls, specs, kwargs, outs, mesh):
    p = _linear_layout(specs)
    dims, (per,) = _broadcast([impls[0].cached_shape], specs, outs[0], skip=set(p))
    out = interned_spec(mesh, dims, p)
    return Plan([interned_spec(mesh, per, p)], [out], {**kwargs, "shape": out.local_shape(outs[0])})


def _reshape(op, impls, specs, kwargs, outs, mesh):
    a, b, s = impls[0].cached_shape, tuple(outs[0]), specs[0]
    if 0 in a or 0 in b:
        return None
    p = _linear_layout(specs)
    in_dims, out_dims = list(s.dims), [()] * len(b)
    i = j = 0
    while i < len(a) and j < len(b):  # blocks of dims whose products match
        i0, j0, pa, pb = i, j, a[i], b[j]
        i, j = i + 1, j + 1
        while pa != pb:
            if pa < pb:
                pa, i = pa * a[i], i + 1
            else:
                pb, j = pb * b[j], j + 1
        sharded = [q for q in range(i0, i) if s.dims[q]]
        if not sharded:
            continue
        first_in = next((q for q in range(i0, i) if a[q] != 1), None)
        first_out = next((q for q in range(j0, j) if b[q] != 1), None)
        q = sharded[0]
        # a split dim stays split only as the major-most factor of its block, on both sides
        if len(sharded) == 1 and q == first_in and first_out is not None and b[first_out] % s.shards(q) == 0:
            out_dims[first_out] = s.dims[q]
        else:
            for q in sharded:
                in_dims[q] = ()
    for q in range(i, len(a)):
        in_dims[q] = ()
    out = interned_spec(mesh, out_dims, p)
    return Plan([interned_spec(mesh, in_dims, p)], [out], {**kwargs, "shape": out.local_shape(b)})


def _whole_dims(s, shape, index):
    """A split dim the index takes whole keeps its split (its local index is the whole block);
    any other split dim is gathered."""
    dims, index = list(s.dims), list(index)
    for d, sl in enumerate(index):
        if dims[d]:
            if tuple(sl) == (0, shape[d], 1):
                index[d] = (0, shape[d] // s.shards(d), 1)
            else:
                dims[d] = ()
    return dims, tuple(index)


def _slice(op, impls, specs, kwargs, outs, mesh):
    p = _linear_layout(specs)
    if "shape" in kwargs:  # axes of length 1 dropped or added: on whole data
        rank = len(impls[0].cached_shape)
        return Plan([interned_spec(mesh, [()] * rank, p)], [interned_spec(mesh, [()] * len(kwargs["shape"]), p)],
                    kwargs)
    dims, index = _whole_dims(specs[0], impls[0].cached_shape, kwargs["index"])
    return Plan([interned_spec(mesh, dims, p)], [interned_spec(mesh, dims, p)], {**kwargs, "index": index})


def _set_slice(op, impls, specs, kwargs, outs, mesh):
    """``x[index] = v``: a dim written whole keeps x's split and v's block matches it."""
    dims, index = _whole_dims(specs[0], impls[0].cached_shape, kwargs["index"])
    spec = interned_spec(mesh, dims)
    return Plan([spec, spec], [spec], {**kwargs, "index": index})


def _scatter(op, impls, specs, kwargs, outs, mesh):
    """Scatters (``scatter``: rows of the first k axes, u = idx dims + x's other dims;
    ``scatter_add``: along one axis, u = x's dims with idx dims in place of the axis): the indexed
    axes and the indices whole, every other dim of x keeps its split and u's matching dims take it."""
    x, n_idx = specs[0], len(impls[2].cached_shape)
    if "k" in kwargs:
        before, after, x_mid = [], [tuple(d) for d in x.dims[kwargs["k"]:]], [()] * kwargs["k"]
    else:
        a = kwargs["axis"]
        before, after, x_mid = [tuple(d) for d in x.dims[:a]], [tuple(d) for d in x.dims[a + 1:]], [()]
    if len(impls[1].cached_shape) != len(before) + n_idx + len(after):
        return None
    x_spec = interned_spec(mesh, before + x_mid + after)
    return Plan([x_spec, interned_spec(mesh, before + [()] * n_idx + after), interned_spec(mesh, [()] * n_idx)],
                [x_spec], kwargs)


def _along_axis(op, impls, specs, kwargs, outs, mesh):
    """Sorts, scans and arg-reductions along one axis: that axis whole on each device, the other
    dims keep their splits (a cumulative sum, being linear, keeps a pending sum too)."""
    s, axis = specs[0], kwargs["axis"]
    p = _linear_layout(specs) if op is cumsum_op else {}
    dims = list(s.dims)
    dims[axis] = ()
    out_specs = [interned_spec(mesh, dims if len(o) == len(dims) else dims[:axis] + dims[axis + 1:], p)
                 for o in outs]
    return Plan([interned_spec(mesh, dims, p)], out_specs, kwargs)


def _take(op, impls, specs, kwargs, outs, mesh):
    """``take`` along an axis: that axis whole, the indices whole, the other dims keep their splits."""
    s, axis, p = specs[0], kwargs["axis"], _linear_layout(specs[:1])
    dims = list(s.dims)
    dims[axis] = ()
    n_idx = len(impls[1].cached_shape)
    out = interned_spec(mesh, dims[:axis] + [()] * n_idx + dims[axis + 1:], p)
    return Plan([interned_spec(mesh, dims, p), interned_spec(mesh, ((),) * n_idx)], [out], kwargs)


def _concat(op, impls, specs, kwargs, outs, mesh):
    axis = kwargs["axis"]
    dims = list(specs[0].dims)
    dims[axis] = ()
    sums = [_sum_partial(s) for s in specs]
    p = sums[0] if all(q == sums[0] and q for q in sums) else {}
    return Plan([interned_spec(mesh, dims, p) for _ in specs], [interned_spec(mesh, dims, p)], kwargs)


def _split(op, impls, specs, kwargs, outs, mesh):
    dims, p = list(specs[0].dims), _linear_layout(specs)
    dims[kwargs["axis"]] = ()
    return Plan([interned_spec(mesh, dims, p)], [interned_spec(mesh, dims, p) for _ in outs], kwargs)


def _aligned(in_shape, in_bd, out_shape, out_bd) -> dict:
    """Input axis -> output axis, batch parts and logical parts each right-aligned (the
    ``sum_to``/``broadcast_physical`` convention)."""
    pairs = {}
    for lo, hi, tlo, thi in ((0, in_bd, 0, out_bd), (in_bd, len(in_shape), out_bd, len(out_shape))):
        for i in range(min(hi - lo, thi - tlo)):
            pairs[hi - 1 - i] = thi - 1 - i
    return pairs


def _sum_to(op, impls, specs, kwargs, outs, mesh):
    x, s, p = impls[0], specs[0], _linear_layout(specs)
    shape = kwargs["shape"]
    pairs = _aligned(x.cached_shape, kwargs["in_batch_dims"], shape, kwargs["batch_dims"])
    out_dims, partial = [()] * len(shape), dict(p)
    for a, axes in enumerate(s.dims):
        j = pairs.get(a)
        if j is not None and shape[j] == x.cached_shape[a]:
            out_dims[j] = axes
        else:  # summed away: each device holds part of the sum
            partial.update({ax: "sum" for ax in axes})
    out = interned_spec(mesh, out_dims, partial)
    return Plan([interned_spec(mesh, s.dims, p)], [out], {**kwargs, "shape": out.local_shape(shape)})


def _broadcast_physical(op, impls, specs, kwargs, outs, mesh):
    x, s, p = impls[0], specs[0], _linear_layout(specs)
    shape = kwargs["shape"]
    pairs = _aligned(x.cached_shape, kwargs["in_batch_dims"], shape, kwargs["batch_dims"])
    in_dims, out_dims = [()] * len(s.dims), [()] * len(shape)
    for a, axes in enumerate(s.dims):
        j = pairs.get(a)
        if axes and j is not None and shape[j] == x.cached_shape[a]:
            in_dims[a] = out_dims[j] = axes
    out = interned_spec(mesh, out_dims, p)
    return Plan([interned_spec(mesh, in_dims, p)], [out], {**kwargs, "shape": out.local_shape(shape)})


def _stacked_matrices(op, impls, specs, kwargs, outs, mesh):
    """Linear-algebra kernels: each matrix (the last two dims) whole on a device, the stack's
    leading dims keep their splits. Operands share their leading dims (``solve`` broadcasts them
    first): the most-split operand's layout is every operand's."""
    lead = len(impls[0].cached_shape) - 2
    if lead <= 0 or any(len(i.cached_shape) - 2 != lead for i in impls):
        return None
    best = max(specs, key=lambda s: sum(len(d) for d in s.dims[:lead]))
    dims = [tuple(d) for d in best.dims[:lead]]
    return Plan([interned_spec(mesh, dims + [()] * 2) for _ in impls],
                [interned_spec(mesh, dims + [()] * (len(o) - lead)) for o in outs], kwargs)


def _transform_axis(op, impls, specs, kwargs, outs, mesh):
    """The FFT kernel: the transformed axes whole on each device, the other dims keep their splits."""
    dims = list(specs[0].dims)
    for k in range(kwargs.get("dims", 1)):
        dims[kwargs["axis"] - k] = ()
    return Plan([interned_spec(mesh, dims)], [interned_spec(mesh, dims)], kwargs)


#: rule name (an op's ``sharding_rule``) -> the rule
RULES = {
    "elementwise": _elementwise, "reduce": _reduce, "matmul": _matmul, "permute": _permute,
    "unsqueeze": _unsqueeze, "squeeze": _squeeze, "broadcast_to": _broadcast_to, "reshape": _reshape,
    "slice": _slice, "concat": _concat, "split": _split, "sum_to": _sum_to,
    "broadcast_physical": _broadcast_physical, "same_layout": _same_layout, "along_axis": _along_axis,
    "take": _take, "set_slice": _set_slice, "scatter": _scatter, "transform_axis": _transform_axis,
    "stacked_matrices": _stacked_matrices,
}


def rule_for(op):
    return RULES.get(op.sharding_rule)


def plan(op, impls, specs, kwargs, outs, mesh) -> Plan:
    rule = rule_for(op)
    got = None if rule is None else rule(op, impls, specs, kwargs, outs, mesh)
    return _replicated(impls, specs, kwargs, outs, mesh) if got is None else got
