"""``shard_map``: run a function on each device's block, collectives by mesh axis name (JAX's
semantics, ``check_vma`` included).

The arguments are laid out by ``in_specs`` (an op, so gradients flow back through it), handed to
``f`` as block tensors (``LocalView``), and ``f``'s results are joined by ``out_specs``: a named
mesh axis concatenates the blocks along its dim, an unnamed one keeps one copy, which must then be
the same on every device along it (checked from the varying axes each value carries).
"""

from __future__ import annotations

import functools

from ..core.pytree import broadcast_prefix, tree_flatten, tree_unflatten
from ..core.tensor import Tensor
from .collectives import MESHES, as_blocks, from_blocks_op, to_blocks_op
from .mesh import DeviceMesh, LocalView, NamedSharding, PartitionSpec, ShardingSpec
from ..ops.creation import asarray


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
    from . import shard  # lazy: nabla.sharding imports this module

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
