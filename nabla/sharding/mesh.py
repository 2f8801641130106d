"""Device meshes and sharding specs: one encoding for how a tensor is spread over a mesh.

A ``ShardingSpec`` gives, per physical dim of a tensor (vmap batch dims first), the mesh axes
that split it (major first), plus the mesh axes over which the tensor is a *pending partial*
reduction (sum, max or min: JAX's "unreduced"). Every shard has the same shape: sizes must divide
(as in JAX's ``device_put``).
"""

from __future__ import annotations

import math
import numbers

from max import driver

from ..core.context import SEVERAL_DEVICES, as_device, get_default_device

REDUCE_KINDS = ("sum", "max", "min")


def _compile_only() -> bool:
    """MAX's virtual device mode: graphs for its virtual accelerators compile and never run."""
    return driver.is_virtual_device_mode()


class DeviceMesh:
    """``shape`` devices named by ``axis_names``, row-major. ``devices=None`` simulates the mesh on
    the default device (every shard computed there: how tests and one-device machines run SPMD);
    distinct devices (``virtual_cpus(n)``) hold one shard each, joined by MAX's collectives."""

    def __init__(self, shape, axis_names, devices=None, name: str = "mesh"):
        if isinstance(shape, numbers.Integral):
            shape = (shape,)
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        shape, axis_names = tuple(shape), tuple(axis_names)
        if len(shape) != len(axis_names):
            raise ValueError(f"nabla.DeviceMesh: shape {shape} and axis names {axis_names} differ in length")
        if any(isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 1 for d in shape):
            raise ValueError(f"nabla.DeviceMesh: mesh sizes must be positive ints, got {shape}")
        if any(not isinstance(a, str) for a in axis_names) or len(set(axis_names)) != len(axis_names):
            raise ValueError(f"nabla.DeviceMesh: axis names must be distinct strings, got {axis_names}")
        self.shape = tuple(int(d) for d in shape)
        self.axis_names = axis_names
        self.name = name
        self.size = math.prod(self.shape)
        if devices is None:
            devices = [get_default_device()] * self.size
        devices = list(devices)
        if len(devices) != self.size:
            raise ValueError(f"nabla.DeviceMesh: {len(devices)} devices for a mesh of {self.size}")

        devices = [as_device(d) for d in devices]
        self.devices = devices
        self.simulated = all(d == devices[0] for d in devices)
        if not self.simulated:
            if any(devices[i] == devices[j] for i in range(self.size) for j in range(i)):
                raise ValueError(f"nabla.DeviceMesh: devices {devices} are neither all one device (a simulated "
                                 "mesh) nor all distinct")
            if any(not d.is_host for d in devices) and not _compile_only():
                # the lowering is the one virtual CPUs run, with MAX's Signals buffers as the
                # collectives' inputs; its graphs compile for virtual sm_90 GPUs (MAX's compile-only
                # mode, devices.compile_only) but have never run on GPUs: refused until they have
                raise NotImplementedError(
                    "nabla.DeviceMesh: meshes over distinct accelerators are not supported yet; a mesh over "
                    "nabla.sharding.virtual_cpus(n) runs the multi-device lowering on this CPU, and a mesh "
                    "simulated on one device runs every shard there")
            SEVERAL_DEVICES.in_use = True
        strides, s = [], 1
        for d in reversed(self.shape):
            strides.append(s)
            s *= d
        self._strides = tuple(reversed(strides))

    def axis_size(self, axis: str) -> int:
        return self.shape[self.axis_index(axis)]

    def axis_index(self, axis: str) -> int:
        try:
            return self.axis_names.index(axis)
        except ValueError:
            raise ValueError(f"nabla.sharding: {axis!r} is not an axis of {self}") from None

    def coords(self, device: int) -> tuple[int, ...]:
        return tuple((device // st) % d for st, d in zip(self._strides, self.shape))

    def block(self, device: int, axes: tuple) -> int:
        """Index of ``device``'s block along ``axes`` (major first)."""
        c = self.coords(device)
        idx = 0
        for a in axes:
            k = self.axis_index(a)
            idx = idx * self.shape[k] + c[k]
        return idx

    def groups(self, axes: tuple) -> list[list[int]]:
        """Devices that differ only along ``axes``, each group ordered by its block along them."""
        keep = [k for k, a in enumerate(self.axis_names) if a not in axes]
        found: dict = {}
        for dev in range(self.size):
            c = self.coords(dev)
            found.setdefault(tuple(c[k] for k in keep), []).append(dev)
        return [sorted(g, key=lambda d: self.block(d, axes)) for g in found.values()]

    def _key(self):
        key = self.__dict__.get("_cached_key")
        if key is None:
            key = self._cached_key = (self.shape, self.axis_names, tuple(map(str, self.devices)))
        return key

    def __eq__(self, other) -> bool:
        return self is other or isinstance(other, DeviceMesh) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        axes = ", ".join(f"{a!r}: {d}" for a, d in zip(self.axis_names, self.shape))
        return f"DeviceMesh({axes})"


class PartitionSpec(tuple):
    """JAX's ``P``: one entry per dim, a mesh axis name, a tuple of them (major first) or None."""

    def __new__(cls, *entries):
        return super().__new__(cls, entries)

    def __repr__(self) -> str:
        return f"P{tuple(self)!r}"


P = PartitionSpec


def _dim_axes(entry) -> tuple:
    if entry is None:
        return ()
    if isinstance(entry, str):
        return (entry,)
    if isinstance(entry, DimSpec):
        return entry.axes
    return tuple(entry)


class DimSpec:
    """The design's per-dim spec: the mesh axes splitting one dim, major first."""

    def __init__(self, axes=()):
        self.axes = _dim_axes(axes)

    def __repr__(self) -> str:
        return f"DimSpec({list(self.axes)})"


class ShardingSpec:
    """How a tensor lies on ``mesh``: ``dims[i]`` are the axes splitting physical dim i; ``partial``
    maps mesh axes to the reduction still pending over them."""

    __slots__ = ("mesh", "dims", "partial", "_hash")

    def __init__(self, mesh: DeviceMesh, dims, partial=None):
        self._hash = None
        self.mesh = mesh
        self.dims = tuple(_dim_axes(d) for d in dims)
        partial = dict(partial or {})
        self.partial = tuple(sorted(partial.items(), key=lambda kv: mesh.axis_index(kv[0])))
        seen = set()
        for axes in self.dims:
            for a in axes:
                mesh.axis_index(a)
                if a in seen:
                    raise ValueError(f"nabla.sharding: mesh axis {a!r} is used twice in {self}")
                seen.add(a)
        for a, kind in self.partial:
            if a in seen:
                raise ValueError(f"nabla.sharding: mesh axis {a!r} both splits a dim and is partial in {self}")
            if kind not in REDUCE_KINDS:
                raise ValueError(f"nabla.sharding: unknown partial reduction {kind!r} (one of {REDUCE_KINDS})")

    @classmethod
    def replicated(cls, mesh: DeviceMesh, ndim: int) -> "ShardingSpec":
        return cls(mesh, ((),) * ndim)

    @classmethod
    def parse(cls, mesh: DeviceMesh, spec, shape: tuple, op: str = "shard") -> "ShardingSpec":
        """``spec`` (a ``P``, a tuple, a list of ``DimSpec`` or a ``ShardingSpec``) for a tensor of
        physical ``shape``; missing trailing entries are replicated; sizes must divide."""
        if isinstance(spec, ShardingSpec):
            out = spec
        else:
            if spec is None:
                spec = ()
            spec = tuple(spec)
            if len(spec) > len(shape):
                raise ValueError(f"nabla.{op}: spec {spec} has {len(spec)} entries for a tensor of rank {len(shape)}")
            out = cls(mesh, tuple(spec) + ((),) * (len(shape) - len(spec)))
        if len(out.dims) != len(shape):
            raise ValueError(f"nabla.{op}: spec {out} does not fit a tensor of shape {tuple(shape)}")
        for i, (n, axes) in enumerate(zip(shape, out.dims)):
            k = out.shards(i)
            if n % k:
                raise ValueError(f"nabla.{op}: dim {i} of size {n} does not divide over mesh axes {axes} "
                                 f"({k} shards) of {mesh}")
        return out

    def shards(self, dim: int) -> int:
        return math.prod(self.mesh.axis_size(a) for a in self.dims[dim])

    def local_shape(self, shape) -> tuple:
        return tuple(n // self.shards(i) for i, n in enumerate(shape))

    def global_shape(self, local) -> tuple:
        return tuple(n * self.shards(i) for i, n in enumerate(local))

    @property
    def used_axes(self) -> set:
        return {a for axes in self.dims for a in axes}

    @property
    def is_replicated(self) -> bool:
        return not self.partial and not any(self.dims)

    def with_dims(self, dims) -> "ShardingSpec":
        return ShardingSpec(self.mesh, dims, dict(self.partial))

    def without_partial(self) -> "ShardingSpec":
        return ShardingSpec(self.mesh, self.dims) if self.partial else self

    @property
    def spec(self) -> PartitionSpec:
        """The JAX-style ``P`` (trailing replicated dims dropped)."""
        entries = [None if not a else a[0] if len(a) == 1 else a for a in self.dims]
        while entries and entries[-1] is None:
            entries.pop()
        return P(*entries)

    def describe(self, shape, dtype) -> str:
        """JAX's type notation: ``float32[8@dp,4]``, with ``{partial: sum@tp}`` when pending."""
        dims = ",".join(str(n) + (f"@{axes[0]}" if len(axes) == 1 else f"@({','.join(axes)})" if axes else "")
                        for n, axes in zip(shape, self.dims))
        tail = "".join(f"{{{kind}@{a}}}" for a, kind in self.partial)
        return f"{getattr(dtype, 'name', dtype)}[{dims}]{tail}"

    def _key(self):
        return self.mesh, self.dims, self.partial

    def __eq__(self, other) -> bool:
        return self is other or isinstance(other, ShardingSpec) and self._key() == other._key()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

    def __repr__(self) -> str:
        dims = ", ".join("{" + ", ".join(repr(a) for a in axes) + "}" for axes in self.dims)
        partial = "".join(f", partial_{kind}={{{a!r}}}" for a, kind in self.partial)
        return f"sharding<{self.mesh!r}, [{dims}]{partial}>"


class NamedSharding:
    """JAX's ``NamedSharding(mesh, P(...))``, for ``nabla.device_put``."""

    def __init__(self, mesh: DeviceMesh, spec=None):
        self.mesh = mesh
        self.spec = P() if spec is None else spec if isinstance(spec, PartitionSpec) else P(*spec)

    def __repr__(self) -> str:
        return f"NamedSharding({self.mesh!r}, {self.spec!r})"


class LocalView:
    """Inside ``shard_map``: a tensor whose shape is one device's block, holding every device's
    block, and the mesh axes its blocks may differ along (JAX's varying axes)."""

    __slots__ = ("mesh", "varying")

    def __init__(self, mesh: DeviceMesh, varying=frozenset()):
        self.mesh = mesh
        self.varying = frozenset(varying)

    def __eq__(self, other) -> bool:
        return isinstance(other, LocalView) and (self.mesh, self.varying) == (other.mesh, other.varying)

    def __hash__(self) -> int:
        return hash((self.mesh, self.varying))

    def __repr__(self) -> str:
        return f"LocalView({self.mesh!r}, varying={sorted(self.varying)})"

    def block_repr(self, shape, dtype) -> str:
        """What ``print`` shows of a block in the body (its data is one value per device, so none
        is read: JAX prints a tracer there)."""
        varying = ",".join(sorted(self.varying, key=self.mesh.axis_index))
        return f"{getattr(dtype, 'name', dtype)}{list(shape)}{{varying: {varying or '-'}}} block on {self.mesh!r}"
