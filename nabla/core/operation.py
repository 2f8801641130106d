"""Operation: the singleton base every op derives from.

A subclass supplies ``abstract_eval`` (eager shape/dtype rule, raising at the
call that caused an error), ``maxpr`` (lowering to MAX graph ops) and its
autodiff/sharding rules. ``__call__`` does all the bookkeeping.
"""

from __future__ import annotations

import threading
import weakref
from math import prod as _prod
from typing import NamedTuple

from .graph import GRAPH, Node, Value
from .values import NO_KWARGS_MEMO
from .pytree import tree_flatten, tree_unflatten
from .tensor import Tensor
from . import tensor_impl as _tensor_impl
from .tensor_impl import TensorImpl
from .tracing import OutputRefs
from .context import get_default_device
from .dtypes import real_dtype
from .at_once import (SMALL_AT_ONCE, _alias_at_once, _at_once, _complex_at_once, kept_at_once, slice_reshaped,
                      small_at_once)


class _GradMode(threading.local):
    """``enabled`` is False inside ``nabla.no_grad()`` (per thread): ops then record no parents."""

    enabled = True


GRAD_MODE = _GradMode()


def _value(node, index, shape, dtype, device) -> Value:
    if dtype.is_complex:
        return Value(node, index, tuple(shape) + (2,), real_dtype(dtype), device)
    return Value(node, index, shape, dtype, device)


def _is_tensor(x) -> bool:
    return isinstance(x, Tensor)


def _list_treedef(n: int):
    """The structure of an op's one argument, a list of ``n`` tensors (``tree_flatten``'s, kept)."""
    td = _LIST_TREEDEFS.get(n)
    if td is None:
        td = _LIST_TREEDEFS[n] = tree_flatten(([object()] * n,))[1]
    return td


_LIST_TREEDEFS: dict = {}


#: classes whose results an op makes directly (``Tensor`` and a face's plain array class, which add
#: nothing to a result made from storage)
PLAIN_CLASSES = {Tensor}
_new = object.__new__
_add_pending = GRAPH.add_pending


def plain_array(cls, impl):
    """A result of a ``PLAIN_CLASSES`` class over ``impl``, made directly (no view links)."""
    result = _new(cls)
    result._impl = impl
    result._view = result._views = result._element_loop = None
    return result


def recorded(cls, op, kwargs: dict, inputs: tuple, shape: tuple, dtype, device, batch_dims: int = 0,
             memo=None):
    """A pending real result of ``cls`` (of ``PLAIN_CLASSES``) of one new node ``op(*inputs, **kwargs)``:
    the node, its value, the TensorImpl (recorded as pending) and the array made with their fields
    set directly, as ``Node``, ``Value`` and ``TensorImpl`` would set them (a loop records one per op:
    their constructors cost twice as much, ~0.6 us of an op's ~3). ``memo``: the node's keying memo,
    where the caller found it."""
    node = _new(Node)
    node.op, node.kwargs, node.inputs, node.treedef = op, kwargs, inputs, None
    node.memo = memo if memo is not None else None if kwargs else NO_KWARGS_MEMO
    value = _new(Value)
    value.node, value.index, value.shape, value.dtype, value.device, value.buffer = node, 0, shape, dtype, device, None
    impl = _new(TensorImpl)
    impl._values, impl.cached_shape, impl.dtype, impl.batch_dims = [value], shape, dtype, batch_dims
    _add_pending(impl)
    result = _new(cls)
    result._impl = impl
    result._view = result._views = None
    return result


def plain_values(*arrays) -> tuple | None:
    """The one value of each of ``arrays``, where each is a plain array (of ``PLAIN_CLASSES``, one
    value, no trace or tangent) and all are on one device, as an op at once takes them; None else."""
    values = []
    for a in arrays:
        impl = a._impl
        if type(a) not in PLAIN_CLASSES or len(impl._values) != 1 or impl.traced or impl.tangents is not None:
            return None
        values.append(impl._values[0])
    return tuple(values) if all(v.device is values[0].device for v in values) else None


class Fused(NamedTuple):
    """How the fused evaluator (``nabla/runtime/kernels/evaluator/fused.mojo``) takes an op: the op's
    own facts, which ``nabla/runtime/fused_codes.py`` gathers into the kernel's tables."""
    code: int | None = None  # an elementwise op's opcode
    reduce: int | None = None  # a reduction's kind, as the program's header names it
    scan: int | None = None  # a running combine's kind (a reduction's: 1 sum, 5 product, 3 max, 4 min)
    ints: bool = False  # the integer family (int64 registers, narrow dtypes wrapped) runs it
    ints_only: bool = False  # only the integer family does (the float family has no such opcode)
    wraps: bool = False  # its result wraps to a narrow integer dtype after it, as NumPy's arithmetic does
    signed: bool = False  # on uint64 operands its result differs from their int64 bits' (order, magnitude)
    unsigned: int | None = None  # the opcode of its form on uint64 operands (their bits in int64 registers)
    on_bools: str | None = None  # the op it is on booleans (``bitwise_and``: ``logical_and``)
    view: str | None = None  # "alias": the same elements in order; "strided": a strided read of them;
    #                          "real": an alias where the operand is real
    bits: bool = False  # its float16 result depends on float16's own bits (the next float16 after x):
    #                     not computed in float32 and rounded, as other float16 work is
    half: int | None = None  # the opcode of its form on float16 data (of a ``bits`` op: float16's own
    #                          bits stepped, in the float family's registers)
    bytes: bool = False  # on bools its result is a bool of theirs (0 or 1): the byte family runs it, in
    #                      registers of one byte (a map of masks alone, ``~m & (a | b)``)


#: every op, by name: an op joins when it is made (``nabla.ops.registry()`` imports them all first)
OPS: dict = {}


class _Registered(type):
    """Ops register themselves: one registry, no hand-kept lists of ops."""

    def __call__(cls, *args, **kwargs):
        op = super().__call__(*args, **kwargs)
        known = OPS.setdefault(op.name, op)
        if known is not op:
            raise TypeError(f"nabla: two ops are named {op.name!r} ({known!r} and {op!r})")
        return op


class Operation(metaclass=_Registered):
    """A stateless op. Instances are singletons compared by identity."""

    name: str = "operation"
    #: The op's lowering uses no concrete size from its kwargs, so traces made
    #: only of such ops compile with symbolic dims (one model for every size).
    shape_polymorphic: bool = False
    #: The op runs apart from the rest of a trace, on a model of its own (kernels whose binding in
    #: MAX's interpreter costs seconds per process: see nabla/runtime/single_op.py).
    single_op: bool = False
    #: The op moves data between devices (a transfer, a collective over a mesh's devices).
    multi_device: bool = False
    #: The op's lowering takes a signal buffer per operand's device (MAX's collectives), graph
    #: inputs made by ``trace_lowering.SIGNALS``; ``maxpr`` gets them as ``signals=``.
    signal_buffers: bool = False
    #: The op understands complex operands (stored as paired reals on a hidden trailing axis).
    supports_complex: bool = False
    #: How its operands' layouts on a mesh carry to its result: a rule of nabla/sharding/rules.py
    #: (``RULES``); None: it runs on whole (replicated) operands.
    sharding_rule: str | None = None
    #: A kwarg whose value is data, not structure (a scalar constant's value): traces that differ
    #: only in it share one key, one compiled model and one fused plan, and get it as an input.
    data_kwarg: str | None = None
    #: How the fused first-sight kernel takes it (``Fused``); None: it does not.
    fused: Fused | None = None
    #: A kwarg holding a basic index (``(start, stop, step)`` per axis): its starts are data of a
    #: program (``x[i, 1:j]`` for every ``i`` is one structure for the program kernel), its sizes
    #: and steps structure.
    index_kwarg: str | None = None
    #: The op reads only as much of its first operand as its result holds (a gather): an op at
    #: once over small realized data (``small_at_once``) takes that operand at any size.
    reads_what_it_returns: bool = False
    #: Its result is its first operand with some elements replaced (a slice write, a scatter): a
    #: program may store it into that operand's memory where nothing else can see the operand.
    writes_first: bool = False

    def data(self, kwargs):
        """``(host ndarray, device)`` holding ``kwargs[data_kwarg]``, or None where it must stay
        part of the structure."""
        return None

    def __repr__(self) -> str:
        return f"<nabla op {self.name}>"

    # (no __eq__ or __hash__: an op is equal only to itself, and object's own C-level hash keeps
    # every trace key's lookup cheap)

    # --- hooks -----------------------------------------------------------------
    def abstract_eval(self, *args: TensorImpl, **kwargs):
        """Return ``(physical_shape, dtype, batch_dims)``; several outputs: a list or dict of those."""
        raise NotImplementedError(f"{self.name}: abstract_eval")

    def maxpr(self, *args, **kwargs):
        """Emit MAX graph ops for the given MAX ``TensorValue``s; return one value or a pytree."""
        raise NotImplementedError(f"{self.name}: maxpr")

    def complex_storage_kwargs(self, kwargs: dict) -> dict:
        """The kwargs ``maxpr`` gets when an operand is complex (stored with a trailing (re, im) axis)."""
        return kwargs

    def jvp_rule(self, primals, tangents, outputs, **kwargs):
        raise NotImplementedError(f"nabla: {self.name} has no forward-mode (jvp) rule")

    def vjp_rule(self, primals, cotangents, outputs, **kwargs):
        raise NotImplementedError(f"nabla: {self.name} has no reverse-mode (vjp) rule")

    #: ``lift_kwargs`` ops whose lowering broadcasts operands right-aligned (elementwise ops,
    #: matmul): an operand without the stack axis then serves every member of the stack.
    lift_broadcasts: bool = False

    def lift_kwargs(self, kwargs: dict, n: int):
        """The kwargs that make this op map over a new leading physical axis of size ``n`` (a stack
        of ``n`` operand sets: one call for a simulated mesh's shards); None where it cannot."""
        return None

    def default_device(self, kwargs):
        return kwargs.get("device") or get_default_device()

    # --- bookkeeping -------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        """Apply to Tensors (or lists of them, for ops like concat); return Tensor(s)."""
        treedef = None
        try:
            impls = [a._impl for a in args]
            flat = args
        except AttributeError:
            if len(args) == 1 and type(args[0]) is list and all(isinstance(a, Tensor) for a in args[0]):
                flat, treedef = args[0], _list_treedef(len(args[0]))  # (concat's parts: its common call)
            else:
                flat, treedef = tree_flatten(args, is_leaf=_is_tensor)
            if not all(isinstance(a, Tensor) for a in flat):
                bad = next(type(a).__name__ for a in flat if not isinstance(a, Tensor))
                raise TypeError(f"nabla.{self.name}: expected Tensor arguments, got {bad}") from None
            impls = [a._impl for a in flat]
        cls = Tensor  # a face's subclass (nabla.numpy.ndarray) carries over to the results
        for a in flat:
            if type(a) is not Tensor:
                cls, source = type(a), a
                break
        traced = has_tangent = complex_in = False
        in_values = []
        for i in impls:  # one pass: this is the recording hot path
            vals = i._values
            if len(vals) != 1 or i.sharding is not None:
                return self._call_sharded(flat, impls, treedef, kwargs, cls)
            in_values.append(vals[0])
            if i.traced or i.tangents is not None or i.dtype.is_complex:  # (one test for the common case)
                if i.traced:
                    traced = True
                if i.tangents is not None:
                    has_tangent = True
                if i.dtype.is_complex:
                    complex_in = True
                    if not self.supports_complex:
                        raise TypeError(f"nabla.{self.name}: complex operands are not supported by this op yet "
                                        f"(got shape {i.shape} {i.dtype.name})")
        spec = self.abstract_eval(*(impls if treedef is None else tree_unflatten(treedef, impls)), **kwargs)
        if traced and not GRAD_MODE.enabled:
            traced = False
        device = in_values[0].device if in_values else self.default_device(kwargs)
        if len(in_values) > 1:
            for v in in_values:
                if v.device is not device and v.device != device:  # (identity first: one device object per device)
                    raise ValueError(f"nabla.{self.name}: operands are on different devices ({device} and "
                                     f"{v.device}); move one with to_device() first")
        if type(spec) is tuple and not spec[2] and in_values and cls in PLAIN_CLASSES \
                and not (traced or has_tangent or complex_in or spec[1].is_complex) \
                and (treedef is None or treedef is _LIST_TREEDEFS.get(len(flat))):
            # (before a node is made for it: an op of three operands, ``where``; a join of a list's parts)
            out = None
            if not spec[0] and treedef is None:
                out = _at_once(self, kwargs, in_values, impls, spec[1], device)
            if out is None and (_prod(spec[0]) <= SMALL_AT_ONCE or self.reads_what_it_returns) and all(
                    v.node is None or not v.node.inputs or v.node.inputs[0].node is None for v in in_values):
                out = small_at_once(self, kwargs, tuple(in_values), tuple(impls), spec[0], spec[1], device)
            if out is not None:
                return plain_array(cls, out)
        # complex data is stored as paired reals on a trailing axis: the lowering sees that layout
        node = Node(self, self.complex_storage_kwargs(kwargs) if complex_in else kwargs, tuple(in_values), treedef)

        if type(spec) is tuple:  # one output; several come as a list or dict of specs
            shape, dtype, batch_dims = spec
            out = TensorImpl([Value(node, 0, shape, dtype, device) if not dtype.is_complex else
                              _value(node, 0, shape, dtype, device)], dtype, batch_dims, traced)
            if traced:  # (untraced, one output: the node says what made it; see TensorImpl.op)
                out.output_refs = OutputRefs((weakref.ref(out),), None, self, tuple(impls), kwargs)
            if cls in PLAIN_CLASSES:  # (made directly: this is the recording hot path)
                result = plain_array(cls, out)
            else:
                result = cls(out)
                if cls._inherits is not None:
                    cls._inherits(result, source)
            outs = (out,)
        else:
            specs, out_def = tree_flatten(spec, is_leaf=lambda s: type(s) is tuple)
            outs = tuple(
                TensorImpl([_value(node, k, s[0], s[1], device)], s[1], s[2], traced)
                for k, s in enumerate(specs)
            )
            result = self._link_outputs(outs, out_def, impls, traced, kwargs, cls)

        if has_tangent:
            self._attach_tangents(flat, impls, treedef, result, outs, kwargs)
        return result

    def apply_binary(self, a, b, kwargs=None, kept: bool = True):
        """``self(a, b, **kwargs)``: the recording hot path (``x + y``, ``x[1:-1] = y`` in a loop).
        Two plain operands (one value each, no trace, tangent or mesh, of ``PLAIN_CLASSES``) are
        recorded here without ``__call__``'s generality, a third of its cost (complex ones as
        ``__call__`` records them: on their storage); anything else goes to ``__call__``. ``kept``
        False: the caller found no kept program for these operands (``NOT_KEPT``): not asked again."""
        if kwargs is None:
            kwargs = {}
        ia, ib = a._impl, b._impl
        va, vb = ia._values, ib._values
        cls = type(a)
        if cls is Tensor:
            cls = type(b)
        if len(va) != 1 or len(vb) != 1 or ia.traced or ib.traced or ia.tangents is not None \
                or ib.tangents is not None or ia.sharding is not None or ib.sharding is not None \
                or cls not in PLAIN_CLASSES:
            return self(a, b, **kwargs)
        v0, v1 = va[0], vb[0]
        n0, n1 = v0.node, v1.node
        # (realized, constants, or slices of realized data: see ``apply_unary``)
        leaves = (n0 is None or not n0.inputs) and (n1 is None or not n1.inputs)
        leafy = leaves or ((n0 is None or not n0.inputs or n0.inputs[0].node is None)
                           and (n1 is None or not n1.inputs or n1.inputs[0].node is None))
        if leaves and not v0.shape and not v1.shape and v1.device is v0.device:  # (0-d: real, no batch dims)
            out = _at_once(self, kwargs, (v0, v1), (ia, ib), None, v0.device)
            if out is not None:
                return plain_array(cls, out)
        complex_in = ia.dtype.is_complex or ib.dtype.is_complex
        if complex_in and not self.supports_complex:
            return self(a, b, **kwargs)  # (which says so)
        if kept and leafy and not complex_in and not ia.batch_dims and not ib.batch_dims and v1.device is v0.device \
                and _prod(v0.shape) <= SMALL_AT_ONCE and _prod(v1.shape) <= SMALL_AT_ONCE:
            # (larger operands: ``small_at_once`` after the shape rule takes them where the result is small)
            out = kept_at_once(self, kwargs, (v0, v1), (ia, ib), v0.device)
            if out is not None:
                return plain_array(cls, out)
        spec = self.abstract_eval(ia, ib, **kwargs)
        if type(spec) is not tuple:
            return self(a, b, **kwargs)
        shape, dtype, batch_dims = spec
        device = v0.device
        if v1.device is not device and v1.device != device:
            return self(a, b, **kwargs)  # (which says so)
        if complex_in or dtype.is_complex:
            kwargs = self.complex_storage_kwargs(kwargs) if complex_in else kwargs
            if not batch_dims:
                out = _complex_at_once(self, kwargs, (v0, v1), (ia, ib), shape, dtype, device)
                if out is not None:
                    return plain_array(cls, out)
            node = Node(self, kwargs, (v0, v1))
            return plain_array(cls, TensorImpl([_value(node, 0, shape, dtype, device)], dtype, batch_dims))
        if not batch_dims:
            if not shape and leaves:
                out = _at_once(self, kwargs, (v0, v1), (ia, ib), dtype, device)
                if out is not None:
                    return plain_array(cls, out)
            # (a gather's result up to an operand's size: ``small_at_once`` decides)
            if (_prod(shape) <= SMALL_AT_ONCE or self.reads_what_it_returns) and (
                    v0.node is None or v1.node is None or v0.node.op.index_kwarg is not None or not v0.node.inputs):
                out = small_at_once(self, kwargs, (v0, v1), (ia, ib), shape, dtype, device)
                if out is not None:
                    return plain_array(cls, out)
        return recorded(cls, self, kwargs, (v0, v1), shape, dtype, device, batch_dims)

    def apply_unary(self, a, kwargs=None):
        """``self(a, **kwargs)`` on the recording hot path (see ``apply_binary``)."""
        if kwargs is None:
            kwargs = {}
        ia = a._impl
        va = ia._values
        cls = type(a)
        if len(va) != 1 or ia.traced or ia.tangents is not None or ia.sharding is not None \
                or cls not in PLAIN_CLASSES:
            return self(a, **kwargs)
        v0 = va[0]
        n0 = v0.node
        if n0 is None and self.fused is not None and self.fused.view == "alias" and not ia.batch_dims:
            out = _alias_at_once(self, kwargs, v0, ia)
            if out is not None:
                return plain_array(cls, out)
        # (realized, a constant, or a slice of realized data: what ops at once take; asked of a
        # pending operand, each of them answers None, ~0.7 us apiece on the recording path)
        leafy = n0 is None or not n0.inputs or n0.inputs[0].node is None
        if leafy and n0 is not None and len(n0.inputs) == 1 and n0.op.index_kwarg is not None \
                and self.fused is not None and self.fused.view is not None and not ia.batch_dims:
            found = slice_reshaped(self, kwargs, v0, ia)  # (a view of a slice, not a slice write: that slice, reshaped)
            if found is not None:
                return recorded(cls, n0.op, found[0], n0.inputs, found[1], ia.dtype, v0.device, 0, found[2])
        if not v0.shape and (n0 is None or not n0.inputs):  # (0-d: real, no batch dims)
            out = _at_once(self, kwargs, (v0,), (ia,), None, v0.device)
            if out is not None:
                return plain_array(cls, out)
        complex_in = ia.dtype.is_complex
        if complex_in and not self.supports_complex:
            return self(a, **kwargs)  # (which says so)
        if leafy and not complex_in and not ia.batch_dims and _prod(v0.shape) <= SMALL_AT_ONCE:
            out = kept_at_once(self, kwargs, (v0,), (ia,), v0.device)
            if out is not None:
                return plain_array(cls, out)
        spec = self.abstract_eval(ia, **kwargs)
        if type(spec) is not tuple:
            return self(a, **kwargs)
        shape, dtype, batch_dims = spec
        if complex_in or dtype.is_complex:
            kwargs = self.complex_storage_kwargs(kwargs) if complex_in else kwargs
            if not batch_dims:
                out = _complex_at_once(self, kwargs, (v0,), (ia,), shape, dtype, v0.device)
                if out is not None:
                    return plain_array(cls, out)
            node = Node(self, kwargs, (v0,))
            return plain_array(cls, TensorImpl([_value(node, 0, shape, dtype, v0.device)], dtype, batch_dims))
        if not batch_dims:
            if not shape and (n0 is None or not n0.inputs):
                out = _at_once(self, kwargs, (v0,), (ia,), dtype, v0.device)
                if out is not None:
                    return plain_array(cls, out)
            if _prod(shape) <= SMALL_AT_ONCE and (v0.node is None or v0.node.op.index_kwarg is not None):
                out = small_at_once(self, kwargs, (v0,), (ia,), shape, dtype, v0.device)
                if out is not None:
                    return plain_array(cls, out)
        return recorded(cls, self, kwargs, (v0,), shape, dtype, v0.device, batch_dims)

    def apply_shaped(self, operands: tuple, kwargs, shape, memo=None):
        """``self(*operands, **kwargs)`` for an op whose result has the first operand's dtype and
        the physical ``shape`` the caller has found already (a slice its key's parse sized, a slice
        write its target's): plain real operands of one device get their node made directly,
        without the op's shape rule (a loop's ``x[i, :j]`` and ``x[i, :j] = v``); anything else goes
        to ``apply_unary`` / ``apply_binary``. ``memo``: the node's keying memo, where the caller
        found it (``trace_lowering.index_memo``)."""
        first = operands[0]
        cls = type(first)  # (the written array's, for a slice write)
        dtype = first._impl.dtype
        device = None
        values = []
        for a in operands:
            ia = a._impl
            va = ia._values
            if len(va) != 1 or ia.traced or ia.tangents is not None or ia.sharding is not None or ia.batch_dims \
                    or ia.dtype is not dtype or dtype.is_complex or type(a) not in PLAIN_CLASSES \
                    or not shape or (device is not None and va[0].device is not device):
                return self.apply_unary(first, kwargs) if len(operands) == 1 else \
                    self.apply_binary(first, operands[1], kwargs)
            device = va[0].device
            values.append(va[0])
        return recorded(cls, self, kwargs, tuple(values), shape, dtype, device, 0, memo)

    def _link_outputs(self, outs, out_def, impls, traced, kwargs, cls):
        refs = OutputRefs(tuple(weakref.ref(o) for o in outs), out_def, self,
                          tuple(impls) if traced else (), kwargs)
        for k, o in enumerate(outs):
            o.output_refs = refs
            o.output_index = k
        return cls(outs[0]) if out_def is None else tree_unflatten(out_def, [cls(o) for o in outs])

    def _call_sharded(self, flat, impls, treedef, kwargs, cls):
        """An operand lies on a device mesh: ``nabla.sharding`` runs the op once per shard (after
        resharding operands as the op's family rule asks) and the results get the usual links."""
        spmd = _tensor_impl.SPMD
        if spmd is None:
            raise RuntimeError(f"nabla.{self.name}: sharded operands need nabla.sharding imported")
        traced = has_tangent = False
        for i in impls:  # (loops, not any(): this is the sharded recording path)
            if i.traced:
                traced = True
            if i.tangents is not None:
                has_tangent = True
            if i.dtype.is_complex and not self.supports_complex:  # as the unsharded path says
                raise TypeError(f"nabla.{self.name}: complex operands are not supported by this op yet "
                                f"(got shape {i.shape} {i.dtype.name})")
        if traced or has_tangent:  # a differentiated tensor closed over by a shard_map body enters it
            entered = spmd.enter_blocks(flat, impls)
            if entered is not None:
                flat, impls = entered
        outs, out_def = spmd.call(self, flat, impls, treedef, kwargs)
        traced = traced and GRAD_MODE.enabled
        if out_def is None and len(outs) == 1:  # one output: the lean link of the unsharded path
            out = outs[0]
            out.traced = traced
            out.output_refs = OutputRefs((weakref.ref(out),), None, self, tuple(impls) if traced else (), kwargs)
            result = cls(out)
        else:
            for o in outs:
                o.traced = traced
            result = self._link_outputs(outs, out_def, impls, traced, kwargs, cls)
        if has_tangent:
            self._attach_tangents(flat, impls, treedef, result, outs, kwargs)
        return result

    def _attach_tangents(self, flat, impls, treedef, result, outs, kwargs):
        """Forward mode, one jvp level at a time, innermost (highest) first.

        While ``jvp_rule(primals, tangents, outputs)`` runs for a level, that level is hidden on the
        primals, so the rule's arithmetic is not differentiated again at that level, while outer
        levels stay visible and differentiate it (``jvp`` of ``jvp``). The outputs first get their
        outer-level tangents, which carry no part of this level.
        """
        if not any(o.dtype.is_floating or o.dtype.is_complex for o in outs):
            return  # integer and boolean results carry no tangent (argsort, comparisons, ...)
        saved = [i.tangents for i in impls]
        level = max(l for d in saved if d is not None for l in d)
        tangents = [None if d is None or level not in d else Tensor(d[level]) for d in saved]
        for i, d in zip(impls, saved):
            if d is not None:
                i.tangents = {l: t for l, t in d.items() if l != level} or None
        try:
            if any(i.tangents is not None for i in impls):
                self._attach_tangents(flat, impls, treedef, result, outs, kwargs)
            out_tangents = self.jvp_rule(list(flat), tangents, result, **kwargs)
        finally:
            for i, d in zip(impls, saved):
                i.tangents = d
        if out_tangents is None:
            return
        flat_t = [out_tangents] if isinstance(out_tangents, Tensor) else \
            tree_flatten(out_tangents, is_leaf=_is_tensor)[0]
        for o, t in zip(outs, flat_t):
            if t is not None:
                o.tangents = {**o.tangents, level: t._impl} if o.tangents else {level: t._impl}
