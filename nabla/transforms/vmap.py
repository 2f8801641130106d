"""vmap: vectorization by prefix batch dims.

A batched axis is moved to the front of the physical shape and counted in
``batch_dims``; ops see logical shapes only. Batch dims are right-aligned among
themselves, so a tensor's batch dims always belong to the outermost levels: a
tensor entering level ``d`` with fewer batch dims gets size-1 axes for the
levels it lacks, then the new level's axis in front.
"""

from __future__ import annotations

import functools
import numbers

from ..core.pytree import broadcast_prefix, tree_flatten, tree_unflatten
from ..core.tensor import Tensor
from ..ops import creation
from ..ops._physical import move_axis_from_batch_dims, move_axis_to_batch_dims, pad_batch_dims
from ..ops.broadcasting import broadcast_physical


from ..core.context import VMAP_DEPTH as _LEVEL


def _is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def _broadcast_prefix(prefix, tree, what: str) -> list:
    """One axis spec per leaf of ``tree``, from a pytree ``prefix`` of it (an int or None covers a subtree)."""
    return broadcast_prefix(prefix, tree, lambda p: p is None or isinstance(p, numbers.Integral),
                            f"nabla.vmap: {what}", is_leaf=_is_tensor)


def _enter(x: Tensor, axis: int, depth: int, where: str) -> Tensor:
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"nabla.vmap: in_axes {axis} is out of range for {where} of shape {x.shape}")
    x = pad_batch_dims(x, depth)
    return move_axis_to_batch_dims(x, x.batch_dims + axis % x.ndim)


def _exit(x: Tensor, axis, depth: int, size: int, where: str) -> Tensor:
    x = pad_batch_dims(x, depth + 1)
    front = x._impl.cached_shape[0]
    if front != size:  # this level never reached the output: repeat it
        shape = (size,) + x._impl.cached_shape[1:]
        x = broadcast_physical(x, shape, x.batch_dims)
    if axis is None:
        raise ValueError(f"nabla.vmap: out_axes is None for {where}, but it varies along the mapped axis")
    n = x.ndim + 1
    if not -n <= axis < n:
        raise ValueError(f"nabla.vmap: out_axes {axis} is out of range for {where} of shape {x.shape}")
    return move_axis_from_batch_dims(x, 0, axis % n)


def _split_over(batched: list, name) -> list:
    """The batched arguments with their new batch axis split over mesh axis ``name`` (or a tuple
    of them, major first, as JAX allows; the mesh is the one the arguments lie on)."""
    meshes = {t._impl.sharding.mesh for t in batched if isinstance(t, Tensor) and t._impl.sharding is not None
              and hasattr(t._impl.sharding, "dims")}
    if len(meshes) != 1:
        raise ValueError(f"nabla.vmap: spmd_axis_name={name!r} needs the mapped arguments laid out on one device "
                         f"mesh (x.shard(mesh, spec)); found {len(meshes)} meshes")
    from ..sharding import ShardingSpec, reshard_op  # lazy: nabla.sharding loads on first use

    mesh = meshes.pop()
    names = (name,) if isinstance(name, str) else tuple(name)
    out = []
    for t in batched:
        impl = t._impl
        spec = impl.sharding if impl.sharding is not None else ShardingSpec.replicated(mesh, len(impl.cached_shape))
        dims = [tuple(a for a in d if a not in names) for d in spec.dims]
        dims[0] = names
        target = ShardingSpec.parse(mesh, ShardingSpec(mesh, dims), impl.cached_shape, "vmap (spmd_axis_name)")
        out.append(reshard_op(t, spec=target))
    return out


def vmap(f, in_axes=0, out_axes=0, axis_size: int | None = None, spmd_axis_name=None):
    """Vectorize ``f`` over an axis of its arguments (JAX's ``vmap``). With ``spmd_axis_name`` (a mesh
    axis name or a tuple of them), the mapped axis is split over those axes of the mesh the
    arguments lie on."""

    @functools.wraps(f)
    def wrapped(*args):
        flat, in_def = tree_flatten(args, is_leaf=_is_tensor)
        axes = _broadcast_prefix(tuple(in_axes) if isinstance(in_axes, list) else in_axes, args, "in_axes")
        sizes = {}
        tensors = []
        for k, (leaf, ax) in enumerate(zip(flat, axes)):
            if ax is not None and not isinstance(leaf, Tensor):
                leaf = creation.asarray(leaf)
            tensors.append(leaf)
            if ax is not None:
                if leaf.ndim == 0:
                    raise ValueError(f"nabla.vmap: argument leaf {k} is a scalar but in_axes maps axis {ax}")
                n = leaf.ndim
                if not -n <= ax < n:
                    raise ValueError(f"nabla.vmap: in_axes {ax} is out of range for argument leaf {k} "
                                     f"of shape {leaf.shape}")
                sizes.setdefault(leaf.shape[ax % n], []).append(k)
        if len(sizes) > 1:
            detail = "; ".join(f"size {s} for leaves {ks}" for s, ks in sizes.items())
            raise ValueError(f"nabla.vmap: mapped axes have different sizes: {detail}")
        if sizes:
            size = next(iter(sizes))
            if axis_size is not None and axis_size != size:
                raise ValueError(f"nabla.vmap: axis_size={axis_size} but the mapped axes have size {size}")
        elif axis_size is None:
            raise ValueError("nabla.vmap: no argument is mapped (all in_axes are None); pass axis_size")
        else:
            size = axis_size

        depth = _LEVEL.value
        batched = [_enter(t, ax, depth, f"argument leaf {k}") if ax is not None else t
                   for k, (t, ax) in enumerate(zip(tensors, axes))]
        if spmd_axis_name is not None:
            mapped = [k for k, ax in enumerate(axes) if ax is not None]
            for k, t in zip(mapped, _split_over([batched[k] for k in mapped], spmd_axis_name)):
                batched[k] = t
        _LEVEL.value += 1
        try:
            out = f(*tree_unflatten(in_def, batched))
        finally:
            _LEVEL.value -= 1
        out_flat, out_def = tree_flatten(out, is_leaf=_is_tensor)
        o_axes = _broadcast_prefix(out_axes, out, "out_axes")
        results = []
        for k, (o, ax) in enumerate(zip(out_flat, o_axes)):
            if not isinstance(o, Tensor):
                o = creation.asarray(o)
            if ax is None and o.batch_dims <= depth:
                results.append(o)
                continue
            results.append(_exit(o, ax, depth, size, f"output leaf {k}"))
        return tree_unflatten(out_def, results)

    return wrapped
