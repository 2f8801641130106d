"""compile: trace a function once per input signature into one compiled MAX model.

On a cache hit the function's Python body does not run at all: the input buffers go
straight into the compiled model. Keys are the function, the input pytree structure,
the static (non-tensor) arguments, and each tensor's dtype, device, batch dims and
shape, with the dims named in ``dynamic_dims`` replaced by their names. A sharded result's pending
reductions are completed inside the model (``jax.jit``'s results never carry one either).
"""

from __future__ import annotations

import collections
import functools
import logging
import threading
from typing import NamedTuple

from ..core.models import execute
from ..core.graph import GRAPH, Value
from ..core.pytree import tree_flatten, tree_unflatten
from ..core.tensor import Tensor
from ..core.tensor_impl import TensorImpl
from ..ops._physical import identity_op

log = logging.getLogger("nabla")


class CacheInfo(NamedTuple):
    hits: int
    misses: int
    compiles: int
    eager_calls: int
    currsize: int
    maxsize: int


class _Entry:
    __slots__ = ("model", "sources", "out_def", "out_specs", "eager")

    def __init__(self):
        self.model = None
        self.sources = []  # per graph input: an argument leaf index, or a captured buffer
        self.out_def = None
        self.out_specs = []  # per output leaf: (dtype, batch_dims, device) or ("static", value)
        self.eager = False  # the function reads data while tracing: run it eagerly


def _is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def _static_key(v):
    try:
        hash(v)
    except TypeError:
        raise TypeError(f"nabla.compile: non-tensor argument {v!r:.60} is not hashable, so it cannot be "
                        "part of the cache key; pass it as a tensor or make it hashable") from None
    return ("f", v.hex()) if isinstance(v, float) else (type(v), v)


class CompiledFunction:
    def __init__(self, f, dynamic_dims=None, fullgraph: bool = False, cache_size: int = 64):
        functools.update_wrapper(self, f)
        self.f = f
        self.dynamic_dims = {int(k): dict(v) for k, v in (dynamic_dims or {}).items()}
        self.fullgraph = fullgraph
        self.cache_size = cache_size
        self._cache: collections.OrderedDict = collections.OrderedDict()
        self._hits = self._misses = self._compiles = self._eager = 0
        self._warned = False
        self._lock = threading.Lock()  # the cache and counters; tracing and running happen outside it

    def cache_info(self) -> CacheInfo:
        return CacheInfo(self._hits, self._misses, self._compiles, self._eager, len(self._cache), self.cache_size)

    def cache_clear(self) -> None:
        with self._lock:
            self._cache.clear()

    # --- keys --------------------------------------------------------------------
    def _key(self, args, kwargs, flat, treedef):
        dyn_by_leaf = {}
        offset = 0
        for i, a in enumerate(args):
            n = len(tree_flatten(a, is_leaf=_is_tensor)[0])
            if i in self.dynamic_dims:
                if n != 1 or not isinstance(a, Tensor):
                    raise TypeError(f"nabla.compile: dynamic_dims names argument {i}, which is not a tensor")
                dyn_by_leaf[offset] = self.dynamic_dims[i]
            offset += n
        sig = []
        for k, leaf in enumerate(flat):
            if isinstance(leaf, Tensor):
                impl = leaf._impl
                dims = list(impl.cached_shape)
                for d, name in dyn_by_leaf.get(k, {}).items():
                    if not -impl.ndim <= d < impl.ndim:
                        raise ValueError(f"nabla.compile: dynamic dim {d} is out of range for argument of shape "
                                         f"{leaf.shape}")
                    dims[impl.batch_dims + d % impl.ndim] = str(name)
                if impl.sharding is not None and k in dyn_by_leaf:
                    raise ValueError("nabla.compile: dynamic_dims cannot name a sharded argument")
                # the layout (mesh, split dims and pending reductions) is part of the structure
                sig.append((impl.dtype, tuple(dims), impl.batch_dims, impl.device.label, impl.device.id,
                            impl.sharding))
            else:
                sig.append(("static", _static_key(leaf)))
        return (treedef, tuple(sig)), dyn_by_leaf

    # --- calls -------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        flat, treedef = tree_flatten((args, kwargs), is_leaf=_is_tensor)
        tensors = [x for x in flat if isinstance(x, Tensor)]
        if any(t._impl.traced or t._impl.tangents is not None for t in tensors):
            # autodiff needs the recorded graph of the body: run it as ordinary lazy code
            with self._lock:
                self._eager += 1
            return self.f(*args, **kwargs)
        key, dyn = self._key(args, kwargs, flat, treedef)
        with self._lock:
            entry = self._cache.get(key)
            if entry is not None:
                self._cache.move_to_end(key)
                if entry.eager:
                    self._eager += 1
                else:
                    self._hits += 1
            else:
                self._misses += 1
        if entry is not None:
            return self.f(*args, **kwargs) if entry.eager else self._run(entry, flat)
        entry, result = self._trace_and_compile(args, kwargs, flat, dyn)
        with self._lock:  # two threads that missed at once both compiled: either model serves
            self._cache[key] = entry
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return result

    @staticmethod
    def _realize_inputs(flat) -> None:
        pending = [x._impl for x in flat if isinstance(x, Tensor) and not x._impl.is_realized]
        if pending:
            GRAPH.evaluate(pending)

    @staticmethod
    def _buffers(entry, flat) -> list:
        return [s[1] if s[0] == "captured" else flat[s[0]]._impl._values[s[1]].buffer for s in entry.sources]

    def _run(self, entry, flat):
        self._realize_inputs(flat)
        results = list(execute(entry.model, self._buffers(entry, flat)))
        leaves = []
        for spec in entry.out_specs:
            if spec[0] == "static":
                leaves.append(spec[1])
                continue
            dtype, batch_dims, devices, layout, shape, positions = spec
            made = {}  # a sharded result's equal shards share one value, as they did when traced
            for i, device in zip(positions, devices):
                if i not in made:
                    buf = results[i]
                    made[i] = Value.leaf(buf, tuple(int(d) for d in buf.shape), dtype, device)
            impl = TensorImpl([made[i] for i in positions], dtype, batch_dims)
            if layout is not None:
                impl.cached_shape, impl.sharding = shape, layout
            leaves.append(Tensor(impl))
        return tree_unflatten(entry.out_def, leaves)

    def _trace_and_compile(self, args, kwargs, flat, dyn):
        entry = _Entry()
        self._realize_inputs(flat)
        epoch = GRAPH.epoch
        with GRAPH.capturing():
            result = self.f(*args, **kwargs)
        if GRAPH.epoch != epoch:
            if self.fullgraph:
                raise RuntimeError(
                    f"nabla.compile(fullgraph=True): {getattr(self.f, '__name__', 'the function')} read tensor "
                    "data while being traced (.numpy(), .item(), print, bool(), float() ...), which splits the "
                    "graph; remove the data access or use fullgraph=False")
            if not self._warned:  # once per function, so a benign race may warn twice
                log.warning("nabla.compile: %s reads tensor data while tracing; running it eagerly "
                            "for this input signature", getattr(self.f, "__name__", "the function"))
                self._warned = True
            entry.eager = True
            with self._lock:
                self._eager += 1
            return entry, result

        out_flat, entry.out_def = tree_flatten(result, is_leaf=_is_tensor)
        out_tensors, values, position = [], [], {}
        for o in out_flat:
            if isinstance(o, Tensor):
                layout = o._impl.sharding
                if getattr(layout, "partial", None):  # pending reductions are done in the model, as jit's
                    # results are: reading the result then costs no second graph
                    from ..sharding.spmd import reshard_op  # lazy: nabla.sharding loads on first use

                    o = reshard_op(o, spec=layout.without_partial())
                if any(v.node is None for v in o._impl._values):  # an input or constant returned as is
                    o = identity_op(o)
                out_tensors.append(o)
                impl = o._impl
                for v in impl._values:  # one graph output per distinct shard
                    if id(v) not in position:
                        position[id(v)] = len(values)
                        values.append(v)
                entry.out_specs.append((o.dtype, o.batch_dims, tuple(v.device for v in impl._values), impl.sharding,
                                        impl.cached_shape, tuple(position[id(v)] for v in impl._values)))
            else:
                entry.out_specs.append(("static", o))
        if not out_tensors:
            entry.eager = True  # nothing to compile
            return entry, result

        engine = GRAPH.engine
        arg_of = {id(v): (k, d) for k, x in enumerate(flat) if isinstance(x, Tensor)
                  for d, v in enumerate(x._impl._values)}
        with engine.tracing():
            traced = engine.trace(values)
            virtual = engine.on_virtual_devices(traced)
            dims = []
            for leaf in traced.leaves:
                source = arg_of.get(id(leaf))
                if source is None:
                    entry.sources.append(("captured", leaf.buffer))
                    dims.append(leaf.shape)
                    continue
                entry.sources.append(source)
                k = source[0]
                impl = flat[k]._impl
                shape = list(leaf.shape)
                for d, name in dyn.get(k, {}).items():
                    shape[impl.batch_dims + d % impl.ndim] = str(name)
                dims.append(tuple(shape))
            symbolic = any(isinstance(d, str) for shape in dims for d in shape)
            if symbolic and virtual:
                raise ValueError("nabla.compile: dynamic_dims on a mesh of virtual CPU devices (MAX's interpreter "
                                 "runs its graphs, with static sizes)")
            if symbolic and not traced.polymorphic:
                names = sorted({n.op.name for n in traced.order if not n.op.shape_polymorphic})
                raise ValueError(f"nabla.compile: dynamic_dims need ops that work for any size, but the function "
                                 f"uses {', '.join(names)} with sizes fixed at trace time")
            graph = engine.graph_of(traced, values, dims, symbolic)
            # MAX's collectives take a signal buffer per device, given after the leaves
            entry.sources += [("captured", buf) for buf in engine.signal_buffers(traced.order)]
        # over virtual CPU devices MAX's compiled sessions refuse the graph: its interpreter runs it
        entry.model = engine.interpreted_model(graph) if virtual else engine.compile_graph(graph)
        with self._lock:
            self._compiles += 1
        engine.write_back(values, execute(entry.model, self._buffers(entry, flat)))
        outs = iter(out_tensors)
        leaves_out = [next(outs) if isinstance(o, Tensor) else o for o in out_flat]
        return entry, tree_unflatten(entry.out_def, leaves_out)


def compile(f=None, *, dynamic_dims=None, fullgraph: bool = False, cache_size: int = 64, in_shardings=None,
            out_shardings=None):
    """Compile ``f`` per input signature; usable as ``@nabla.compile`` or ``@nabla.compile(...)``.

    ``in_shardings``/``out_shardings`` (``NamedSharding``s, one per argument/result or a pytree
    prefix) lay the arguments out on a mesh before the body runs and the results after: the
    layout moves are part of the compiled model."""
    if f is None:
        return lambda g: compile(g, dynamic_dims=dynamic_dims, fullgraph=fullgraph, cache_size=cache_size,
                                 in_shardings=in_shardings, out_shardings=out_shardings)
    if in_shardings is not None or out_shardings is not None:
        from ..sharding.shard_map import with_shardings  # lazy: nabla.sharding loads on first use

        f = with_shardings(f, in_shardings, out_shardings)
    return CompiledFunction(f, dynamic_dims, fullgraph, cache_size)
