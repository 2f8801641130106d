"""``shard_map``: run a function on each device's block, collectives by mesh axis name (JAX's
semantics, ``check_vma`` included).

The arguments are laid out by ``in_specs`` (an op, so gradients flow back through it), handed to
``f`` as block tensors (``LocalView``), and ``f``'s results are joined by ``out_specs``: a named
mesh axis concatenates the blocks along its dim, an unnamed one keeps one copy, which must then be
the same on every device along it (checked from the varying axes each value carries).
"""

from __future__ import annotations

import functools

from ..core.operation import Operation
from ..core.pytree import broadcast_prefix, tree_flatten, tree_unflatten
from ..core.tensor import Tensor
from . import devices
from .collectives import MESHES, as_blocks, per_device_scalar, psum_op
from .mesh import DeviceMesh, LocalView, NamedSharding, PartitionSpec, ShardingSpec
from .spmd import laid_out, move, spec_of


def _with_batch_dims(spec: ShardingSpec, x: Tensor) -> ShardingSpec:
    """``spec`` for ``x``'s physical dims: a vmap added after the spec was made (``jacrev`` maps
    a pullback over cotangents) puts whole batch dims ahead of it."""
    extra = len(x._impl.cached_shape) - len(spec.dims)
    return spec if extra <= 0 else ShardingSpec(spec.mesh, ((),) * extra + spec.dims, dict(spec.partial))


class ToBlocksOp(Operation):
    """A global tensor laid out as ``spec``, seen as its blocks."""

    name = "to_blocks"
    supports_complex = True

    def __call__(self, x, *, spec):
        return self._call_sharded([x], [x._impl], None, {"spec": _with_batch_dims(spec, x)}, type(x))

    def abstract_eval(self, x, *, spec):
        return spec.local_shape(x.cached_shape), x.dtype, x.batch_dims

    def spmd_apply(self, impls, vals, kwargs, mesh):
        x, spec = impls[0], kwargs["spec"]
        moved = move(vals[0], x.dtype, x.batch_dims, spec_of(x, mesh), spec)
        return [laid_out(moved, self.abstract_eval(x, spec=spec), LocalView(mesh, spec.used_axes))], None

    def jvp_rule(self, primals, tangents, output, *, spec):
        return to_blocks_op(tangents[0], spec=spec)

    def vjp_rule(self, primals, cotangent, output, *, spec):
        # the argument was the same on every device along the axes its spec leaves out: the
        # devices' cotangents along those axes add up
        view = cotangent._impl.sharding
        extra = tuple(a for a in spec.mesh.axis_names
                      if isinstance(view, LocalView) and a in view.varying and a not in spec.used_axes)
        if extra:
            cotangent = psum_op(cotangent, axes=extra)
        return [from_blocks_op(as_blocks(cotangent, spec.mesh), spec=spec)]


class FromBlocksOp(Operation):
    """Blocks joined into the global tensor laid out as ``spec``; along a mesh axis the spec
    leaves out, the first device's block is kept."""

    name = "from_blocks"
    supports_complex = True

    def __call__(self, x, *, spec):
        return self._call_sharded([x], [x._impl], None, {"spec": _with_batch_dims(spec, x)}, type(x))

    def abstract_eval(self, x, *, spec):
        return spec.global_shape(x.cached_shape), x.dtype, x.batch_dims

    def spmd_apply(self, impls, vals, kwargs, mesh):
        x, spec = impls[0], kwargs["spec"]
        vals = vals[0]
        left_out = [k for k, a in enumerate(mesh.axis_names) if a not in spec.used_axes]
        if not mesh.simulated and not (x.sharding.varying - spec.used_axes):
            keep = vals  # over distinct devices each holds its own copy of the invariant blocks
        else:
            keep = []
            for d in range(mesh.size):  # the device with the same position on named axes, 0 on the others
                c = mesh.coords(d)
                v = vals[d - sum(c[k] * mesh._strides[k] for k in left_out)]
                keep.append(v if mesh.simulated else devices.to_device(v, mesh.devices[d]))
        return [laid_out(keep, self.abstract_eval(x, spec=spec), spec)], None

    def jvp_rule(self, primals, tangents, output, *, spec):
        return from_blocks_op(as_blocks(tangents[0], spec.mesh), spec=spec)

    def vjp_rule(self, primals, cotangent, output, *, spec):
        # the first device's block along the axes the spec leaves out became the result: the
        # cotangent goes back to it alone, as that device's term (see PsumOp.vjp_rule)
        blocks = to_blocks_op(cotangent, spec=spec)
        left = tuple(a for a in spec.mesh.axis_names if a not in spec.used_axes and spec.mesh.axis_size(a) > 1)
        if not left:
            return [blocks]
        return [blocks * per_device_scalar(spec.mesh, left, lambda b: int(b == 0), cotangent.dtype)]


to_blocks_op = ToBlocksOp()
from_blocks_op = FromBlocksOp()


def _is_spec(s) -> bool:
    return s is None or isinstance(s, (PartitionSpec, ShardingSpec, NamedSharding))


def _specs_for(specs, tree, what: str) -> list:
    """``specs`` (a pytree prefix of ``tree`` with ``P`` leaves, or the design's ``{position: spec}``
    for the arguments) matched to ``tree``'s tensors."""
    if isinstance(specs, dict) and isinstance(tree, (tuple, list)):
        if any(not isinstance(k, int) or not 0 <= k < len(tree) for k in specs):
            raise TypeError(f"{what} as a dict maps argument positions (0..{len(tree) - 1}) "
                            f"to specs, got keys {sorted(map(repr, specs))}")
        specs = tuple(specs.get(k) for k in range(len(tree)))
    return broadcast_prefix(specs, tree, _is_spec, what, is_leaf=lambda t: isinstance(t, Tensor))


def _layout(x: Tensor, mesh, spec, what: str) -> ShardingSpec:
    impl = x._impl
    if isinstance(spec, ShardingSpec):
        spec = tuple(spec.dims)[impl.batch_dims:] if len(spec.dims) == len(impl.cached_shape) else spec.dims
    spec = () if spec is None else tuple(spec)
    return ShardingSpec.parse(mesh, ((),) * impl.batch_dims + spec, impl.cached_shape, f"shard_map ({what})")


def shard_map(f=None, mesh: DeviceMesh = None, in_specs=None, out_specs=None, check_vma: bool = True):
    """``f`` runs on each device's blocks of its arguments (``in_specs``: one ``P`` per argument,
    or a pytree prefix, or the design's ``{position: ShardingSpec}``), calling collectives by mesh
    axis name; its results' blocks are joined as ``out_specs`` say."""
    if f is None:
        return functools.partial(shard_map, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_vma)
    if not isinstance(mesh, DeviceMesh):
        raise TypeError(f"nabla.shard_map: mesh must be a DeviceMesh, got {type(mesh).__name__}")

    @functools.wraps(f)
    def run(*args):
        from ..ops.creation import asarray

        flat, tdef = tree_flatten(args, is_leaf=lambda t: isinstance(t, Tensor))
        specs = _specs_for(in_specs, args, "nabla.shard_map: in_specs")
        blocks = []
        for x, s in zip(flat, specs):
            x = x if isinstance(x, Tensor) else asarray(x)
            if isinstance(x._impl.sharding, LocalView):
                raise ValueError("nabla.shard_map: nested shard_map over the same blocks is not supported")
            blocks.append(to_blocks_op(x, spec=_layout(x, mesh, s, "in_specs")))
        MESHES.meshes.append(mesh)
        try:
            out = f(*tree_unflatten(tdef, blocks))
        finally:
            MESHES.meshes.pop()
        out_flat, out_def = tree_flatten(out, is_leaf=lambda t: isinstance(t, Tensor))
        results = []
        for y, s in zip(out_flat, _specs_for(out_specs, out, "nabla.shard_map: out_specs")):
            y = as_blocks(y if isinstance(y, Tensor) else asarray(y), mesh)
            impl = y._impl
            named = ((),) * impl.batch_dims + (() if s is None else tuple(s.spec if isinstance(s, ShardingSpec) else s))
            target = ShardingSpec(mesh, named + ((),) * (len(impl.cached_shape) - len(named)))
            left = sorted(impl.sharding.varying - target.used_axes, key=mesh.axis_index)
            if check_vma and left:
                raise ValueError(
                    f"nabla.shard_map: an output varies along mesh axes {left} that out_specs {s!r} does not "
                    "name; name them to join the blocks, reduce over them (psum, pmean, pmax, pmin), or pass "
                    "check_vma=False")
            target = ShardingSpec.parse(mesh, target.dims, target.global_shape(impl.cached_shape), "shard_map")
            results.append(from_blocks_op(y, spec=target))
        return tree_unflatten(out_def, results)

    return run


def with_shardings(f, in_shardings, out_shardings):
    """``f`` with its tensor arguments laid out as ``in_shardings`` and its results as
    ``out_shardings`` (``NamedSharding`` leaves of a pytree prefix; ``None``: left as they are)."""
    from . import shard

    def lay_out(tree, shardings, what):
        flat, tdef = tree_flatten(tree, is_leaf=lambda t: isinstance(t, Tensor))
        specs = [shardings] * len(flat) if _is_spec(shardings) else \
            _specs_for(shardings, tree if isinstance(tree, (tuple, list, dict)) else (tree,), f"nabla.compile: {what}")
        for s in specs:
            if s is not None and not isinstance(s, NamedSharding):
                raise TypeError(f"nabla.compile: {what} takes NamedSharding leaves, got {s!r}")
        flat = [shard(x, s.mesh, s.spec) if s is not None and isinstance(x, Tensor) else x
                for x, s in zip(flat, specs)]
        return tree_unflatten(tdef, flat)

    @functools.wraps(f)
    def laid_out(*args):
        if in_shardings is not None:
            args = lay_out(args, in_shardings, "in_shardings")
        out = f(*args)
        return out if out_shardings is None else lay_out(out, out_shardings, "out_shardings")

    return laid_out
