"""Collectives by mesh axis name, for ``shard_map`` bodies (JAX's semantics).

Each is an ``Operation`` over a block tensor (a ``LocalView``: one value per device). On a
simulated mesh a collective is ordinary ops on one device: a tree of adds (or max/min) per group
of devices, a concat, a slice, or a re-pairing of the devices' values; over distinct devices,
MAX's collectives and transfers (``devices.py``). Their derivatives are
the transposes JAX uses: psum <-> pvary, all_gather <-> psum_scatter, ppermute <-> the inverse
permutation, all_to_all <-> the swapped axes.
"""

from __future__ import annotations

import threading

from ..core import dtypes, tensor_impl as _core
from ..core.tensor import Tensor
from ..ops.base import Operation, normalize_axis
from ..ops.elementwise import BINARY_OPS, where_op, zeros_like_physical
from ..ops.index_primitives import slice_op
from ..ops.multi_output import concat_op
from ..ops.view import squeeze_op, unsqueeze_op
from .mesh import LocalView, ShardingSpec
from . import devices
from . import spmd
from .spmd import _all_gather, _all_reduce, _local, _note, _on, _split, laid_out, move, spec_of
from ..ops.creation import asarray, full


def axis_names(name) -> tuple:
    return (name,) if isinstance(name, str) else tuple(name)


def differentiated(impl) -> bool:
    return impl.traced or impl.tangents is not None


def as_blocks(t: Tensor, mesh) -> Tensor:
    """A tensor made outside the blocks (a constant, a cotangent's seed, a closed-over tensor) as
    invariant blocks; a differentiated one goes through shard_map's boundary op, so its cotangent
    sums over the devices as a replicated argument's does."""
    impl = t._impl
    if impl.sharding is not None:
        return t
    if differentiated(impl):
        return to_blocks_op(t, spec=ShardingSpec.replicated(mesh, len(impl.cached_shape)))
    vals = [impl._values[0]] * mesh.size if mesh.simulated else [_on(t, d)._impl._values[0] for d in mesh.devices]
    return Tensor(laid_out(vals, (impl.cached_shape, impl.dtype, impl.batch_dims), LocalView(mesh)))


class _Collective(Operation):
    supports_complex = True

    def __call__(self, x, **kwargs):
        view = getattr(getattr(x, "_impl", None), "sharding", None)
        if view is None and MESHES.meshes:  # a constant in the body, invariant (JAX's psum(1, "i"): the size)

            x = as_blocks(x if isinstance(x, Tensor) else asarray(x), MESHES.meshes[-1])
            view = x._impl.sharding
        if not isinstance(view, LocalView):
            raise ValueError(f"nabla.{self.name}: collectives run inside shard_map, on the blocks it hands "
                             f"to the function (got {type(x).__name__} not from a shard_map)")
        for a in kwargs["axes"]:
            view.mesh.axis_index(a)
        return self._call_sharded([x], [x._impl], None, kwargs, type(x))

    def abstract_eval(self, x, **kwargs):
        return x.cached_shape, x.dtype, x.batch_dims

    def spmd_apply(self, impls, vals, kwargs, mesh):
        x = impls[0]
        out_vals, shape = self.move(x, vals[0], mesh, **kwargs)
        varying = self.varying(x.sharding.varying, kwargs["axes"])
        return [laid_out(out_vals, (shape, x.dtype, x.batch_dims), LocalView(mesh, varying))], None

    def varying(self, varying, axes):
        return varying | set(axes)


class PsumOp(_Collective):
    """Reduce over the devices along ``axes``; the result is the same on all of them."""

    def __init__(self, kind: str):
        self.kind = kind
        self.name = {"sum": "psum", "max": "pmax", "min": "pmin"}[kind]

    def move(self, x, vals, mesh, *, axes):
        for a in axes:
            vals = _all_reduce(vals, x.dtype, x.batch_dims, mesh, a, self.kind)
        return vals, x.cached_shape

    def varying(self, varying, axes):
        return varying - set(axes)

    def jvp_rule(self, primals, tangents, output, *, axes):
        if self.kind == "sum":
            return psum_op(tangents[0], axes=axes)
        hit = _hits(primals[0], output)  # the devices holding the extreme share its derivative
        return psum_op(tangents[0] * hit, axes=axes) / psum_op(hit, axes=axes)

    def vjp_rule(self, primals, cotangent, output, *, axes):
        # The result is the same along ``axes``, so a cotangent that differs along them holds terms
        # of one cotangent (an op with the result and a varying operand sends each device its own
        # term; the sum is left to whoever needs it): add them up before handing it back.
        view = cotangent._impl.sharding
        terms = tuple(a for a in axes if isinstance(view, LocalView) and a in view.varying)
        if terms:
            cotangent = psum_op(cotangent, axes=terms)
        if self.kind == "sum":
            return [pvary_op(cotangent, axes=axes)]
        hit = _hits(primals[0], output)
        return [pvary_op(cotangent, axes=axes) * hit / psum_op(hit, axes=axes)]


def _hits(x, out):
    """1 where ``x`` holds the group's extreme ``out``, else 0 (x's dtype)."""
    one, zero = full((), 1, dtype=x.dtype), full((), 0, dtype=x.dtype)
    return where_op(BINARY_OPS["equal"](x, out), one, zero)


class PvaryOp(_Collective):
    """Mark a value as varying along ``axes`` (no data moves); the transpose of ``psum``."""

    name = "pvary"

    def move(self, x, vals, mesh, *, axes):
        return vals, x.cached_shape

    def jvp_rule(self, primals, tangents, output, *, axes):
        return pvary_op(tangents[0], axes=axes)

    def vjp_rule(self, primals, cotangent, output, *, axes):
        return [psum_op(cotangent, axes=axes)]


def _group_size(mesh, axes) -> int:
    k = 1
    for a in axes:
        k *= mesh.axis_size(a)
    return k


def _scattered(x, axes, axis, tiled, op):
    """``x``'s shape as a list and the group size, checking that ``axis`` splits over the group
    (tiled: divides by its size; untiled: equals it)."""
    s = list(x.cached_shape)
    k = _group_size(x.sharding.mesh, axes)
    if (s[axis] % k) if tiled else (s[axis] != k):
        raise ValueError(f"nabla.{op}: axis {axis - x.batch_dims} of size {s[axis]} does not "
                         f"{'divide over' if tiled else 'equal'} the {k} devices along {axes}")
    return s, k


class AllGatherOp(_Collective):
    """Every device gets the blocks of its group along ``axes``, joined on ``axis`` (tiled) or
    stacked on a new ``axis``."""

    name = "all_gather"

    def abstract_eval(self, x, *, axes, axis, tiled):
        s = list(x.cached_shape)
        k = _group_size(x.sharding.mesh, axes)
        if tiled:
            s[axis] *= k
        else:
            s.insert(axis, k)
        return tuple(s), x.dtype, x.batch_dims

    def move(self, x, vals, mesh, *, axes, axis, tiled):
        if not tiled:
            vals = [unsqueeze_op(_local(v, x.dtype, x.batch_dims), axis=axis)._impl._values[0] for v in vals]
        shape = self.abstract_eval(x, axes=axes, axis=axis, tiled=tiled)[0]
        return _all_gather(vals, x.dtype, x.batch_dims, mesh, axes, axis), shape

    def jvp_rule(self, primals, tangents, output, *, axes, axis, tiled):
        return all_gather_op(tangents[0], axes=axes, axis=axis, tiled=tiled)

    def vjp_rule(self, primals, cotangent, output, *, axes, axis, tiled):
        return [psum_scatter_op(cotangent, axes=axes, axis=axis, tiled=tiled)]


class PsumScatterOp(_Collective):
    """Sum over the group along ``axes``; device i keeps block i of ``axis`` (tiled) or row i of it."""

    name = "psum_scatter"

    def abstract_eval(self, x, *, axes, axis, tiled):
        s, k = _scattered(x, axes, axis, tiled, self.name)
        if tiled:
            s[axis] //= k
        else:
            del s[axis]
        return tuple(s), x.dtype, x.batch_dims

    def move(self, x, vals, mesh, *, axes, axis, tiled):
        shape = self.abstract_eval(x, axes=axes, axis=axis, tiled=tiled)[0]
        for a in axes:
            vals = _all_reduce(vals, x.dtype, x.batch_dims, mesh, a, "sum")
        vals = _split(vals, x.dtype, x.batch_dims, mesh, axes, axis, len(x.cached_shape))
        if not tiled:
            vals = [squeeze_op(_local(v, x.dtype, x.batch_dims), axis=axis)._impl._values[0] for v in vals]
        return vals, shape

    def jvp_rule(self, primals, tangents, output, *, axes, axis, tiled):
        return psum_scatter_op(tangents[0], axes=axes, axis=axis, tiled=tiled)

    def vjp_rule(self, primals, cotangent, output, *, axes, axis, tiled):
        return [all_gather_op(cotangent, axes=axes, axis=axis, tiled=tiled)]


class PpermuteOp(_Collective):
    """Device at position ``src`` along ``axes`` sends its block to position ``dst``, for each
    ``(src, dst)`` in ``perm``; a device nobody sends to gets zeros."""

    name = "ppermute"

    def move(self, x, vals, mesh, *, axes, perm):
        source = {dst: src for src, dst in perm}
        out, zeros = [None] * mesh.size, {}
        for group in mesh.groups(axes):
            for pos, d in enumerate(group):
                if pos in source:
                    out[d] = devices.to_device(vals[group[source[pos]]], mesh.devices[d])
                else:
                    v = vals[d]
                    if id(v) not in zeros:
                        zeros[id(v)] = zeros_like_physical(_local(v, x.dtype, x.batch_dims))._impl._values[0]
                    out[d] = zeros[id(v)]
        _note("ppermute", axes)
        return out, x.cached_shape

    def jvp_rule(self, primals, tangents, output, *, axes, perm):
        return ppermute_op(tangents[0], axes=axes, perm=perm)

    def vjp_rule(self, primals, cotangent, output, *, axes, perm):
        return [ppermute_op(cotangent, axes=axes, perm=tuple((d, s) for s, d in perm))]


class AllToAllOp(_Collective):
    """Device i splits its block along ``split_axis`` into one chunk per device of its group and
    sends chunk j to device j; each joins what it receives along ``concat_axis``. Untiled: the
    split axis (of the group's size) goes away and a new one of that size appears at ``concat_axis``."""

    name = "all_to_all"

    def abstract_eval(self, x, *, axes, split_axis, concat_axis, tiled):
        s, k = _scattered(x, axes, split_axis, tiled, self.name)
        if tiled:
            s[split_axis] //= k
            s[concat_axis] *= k
        else:
            del s[split_axis]
            s.insert(concat_axis, k)
        return tuple(s), x.dtype, x.batch_dims

    def move(self, x, vals, mesh, *, axes, split_axis, concat_axis, tiled):
        shape = self.abstract_eval(x, axes=axes, split_axis=split_axis, concat_axis=concat_axis, tiled=tiled)[0]
        dtype, bd, nd = x.dtype, x.batch_dims, len(x.cached_shape)
        out = [None] * mesh.size
        for group in mesh.groups(axes):
            k = len(group)
            chunks = []  # chunks[j][i]: what device j sends to device i
            for d in group:
                t = _local(vals[d], dtype, bd)
                n = x.cached_shape[split_axis] // k
                row = []
                for i in range(k):
                    index = tuple((i * n, (i + 1) * n, 1) if a == split_axis else (0, x.cached_shape[a], 1)
                                  for a in range(nd))
                    piece = slice_op(t, index=index)
                    if not tiled:
                        piece = unsqueeze_op(squeeze_op(piece, axis=split_axis), axis=concat_axis)
                    row.append(piece)
                chunks.append(row)
            for i, d in enumerate(group):
                out[d] = concat_op([_on(chunks[j][i], mesh.devices[d]) for j in range(k)],
                                   axis=concat_axis)._impl._values[0]
        _note("all_to_all", axes)
        return out, shape

    def jvp_rule(self, primals, tangents, output, *, axes, split_axis, concat_axis, tiled):
        return all_to_all_op(tangents[0], axes=axes, split_axis=split_axis, concat_axis=concat_axis, tiled=tiled)

    def vjp_rule(self, primals, cotangent, output, *, axes, split_axis, concat_axis, tiled):
        return [all_to_all_op(cotangent, axes=axes, split_axis=concat_axis, concat_axis=split_axis, tiled=tiled)]


psum_op, pmax_op, pmin_op = PsumOp("sum"), PsumOp("max"), PsumOp("min")
pvary_op = PvaryOp()
all_gather_op = AllGatherOp()
psum_scatter_op = PsumScatterOp()
ppermute_op = PpermuteOp()
all_to_all_op = AllToAllOp()


# --- JAX's spellings (logical axes; vmap batch dims are skipped) ---------------------------

def _phys(x: Tensor, axis: int, op: str, extra: int = 0) -> int:
    return x.batch_dims + normalize_axis(axis, x.ndim + extra, op)


def psum(x, axis_name):
    return psum_op(x, axes=axis_names(axis_name))


def pmax(x, axis_name):
    return pmax_op(x, axes=axis_names(axis_name))


def pmin(x, axis_name):
    return pmin_op(x, axes=axis_names(axis_name))


def pmean(x, axis_name):
    axes = axis_names(axis_name)
    return psum(x, axes) / _group_size(x._impl.sharding.mesh, axes)


def pvary(x, axis_name):
    return pvary_op(x, axes=axis_names(axis_name))


def all_gather(x, axis_name, *, axis: int = 0, tiled: bool = False):
    return all_gather_op(x, axes=axis_names(axis_name), axis=_phys(x, axis, "all_gather", 0 if tiled else 1),
                         tiled=bool(tiled))


def psum_scatter(x, axis_name, *, scatter_dimension: int = 0, tiled: bool = False):
    return psum_scatter_op(x, axes=axis_names(axis_name), axis=_phys(x, scatter_dimension, "psum_scatter"),
                           tiled=bool(tiled))


def ppermute(x, axis_name, perm):
    axes = axis_names(axis_name)
    perm = tuple((int(s), int(d)) for s, d in perm)
    view = getattr(getattr(x, "_impl", None), "sharding", None)
    if isinstance(view, LocalView):
        k = _group_size(view.mesh, axes)
        srcs, dsts = [s for s, _ in perm], [d for _, d in perm]
        if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts) or \
                any(not 0 <= i < k for i in srcs + dsts):
            raise ValueError(f"nabla.ppermute: perm {perm} must pair distinct positions in 0..{k - 1} "
                             f"(the devices along {axes})")
    return ppermute_op(x, axes=axes, perm=perm)


def all_to_all(x, axis_name, split_axis: int, concat_axis: int, *, tiled: bool = False):
    split = _phys(x, split_axis, "all_to_all")
    concat = _phys(x, concat_axis, "all_to_all")
    return all_to_all_op(x, axes=axis_names(axis_name), split_axis=split, concat_axis=concat, tiled=bool(tiled))


class _MeshStack(threading.local):
    def __init__(self):
        self.meshes = []


MESHES = _MeshStack()


def per_device_scalar(mesh, axes, value_at, dtype) -> Tensor:
    """A 0-d block holding ``value_at(position along axes)`` on each device, varying along ``axes``."""
    consts = {}
    vals = []
    for d in range(mesh.size):
        b = mesh.block(d, axes)
        key = b if mesh.simulated else d  # over distinct devices, each holds its own
        if key not in consts:
            consts[key] = full((), value_at(b), dtype=dtype, device=mesh.devices[d])._impl._values[0]
        vals.append(consts[key])
    return Tensor(laid_out(vals, ((), dtype, 0), LocalView(mesh, axes)))


def axis_index(axis_name):
    """This device's position along ``axis_name`` (int32), inside a ``shard_map`` body."""
    if not MESHES.meshes:
        raise ValueError("nabla.axis_index: only inside a shard_map body")
    return per_device_scalar(MESHES.meshes[-1], axis_names(axis_name), int, dtypes.int32)


# --- the blocks' boundary: shard_map's arguments and results, closed-over tensors --------------


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


def enter_blocks(flat, impls):
    """Inside a shard_map body, a differentiated tensor from outside it (closed over) meets the
    blocks as a replicated argument would (``as_blocks``): its cotangent then sums over
    the devices (JAX's closure over a tracer). ``None`` when there is none."""
    view = next((i.sharding for i in impls if isinstance(i.sharding, LocalView)), None)
    if view is None or all(i.sharding is not None or not differentiated(i) for i in impls):
        return None
    flat = [as_blocks(t, view.mesh) if i.sharding is None and differentiated(i) else t for t, i in zip(flat, impls)]
    return flat, [t._impl for t in flat]


class _Runner:
    call = staticmethod(spmd.call)
    gather = staticmethod(spmd.gather)
    enter_blocks = staticmethod(enter_blocks)


_core.SPMD = _Runner
