"""Ops of small results over realized host data, computed at once (``SmallOps.small``).

A loop over small realized arrays (lu's ``A[i, j] -= A[i, :j] @ A[:j, j]``, a stencil's rows) makes
ops whose operands are host data, slices of it or scalar constants. Each such op runs as it is made,
as one quick call of the program kernel over a program planned once per structure (op, kwargs,
operand shapes and dtypes, slices' sizes and steps; the slices' starts and the constants' values are
data, and, for vectors, their length: ``host_lengths``); its result is memory of its own, carved
from a block (a fill larger than a block's share: an array of its own). ``HostScalars``
(``host_scalars.py``) is these and the ops over host scalars.
"""

from __future__ import annotations

import threading
from math import prod as _prod
from operator import mul as _mul

import numpy as np

from ..core.at_once import NOT_KEPT, OPERAND_AT_ONCE, SMALL_AT_ONCE
from ..core.graph import GRAPH, HostValue, Node, Value, give_up, host_value, host_view
from ..core.trace_lowering import node_memo
from ..core.dtypes import float64 as _FLOAT64
from ..core.operation import PLAIN_CLASSES
from ..core.tensor import Tensor
from ..core.tensor_impl import TensorImpl
from ..core.values import CarvedMemory, known_address
from .fused_codes import constant_bits
from .host_lengths import at_length, length_key, length_patches, sharing
from .program import ProgramPath
from .program_kernel import MAP, ready as _kernel_built
from .result_memory import _BLOCK_RESULT, HostBlocks
from .small_program import SmallProgram, _numpy_dtype


class SmallOps:
    """``small``: an op of a small result over host data at once, or None (the op is recorded)."""

    def __init__(self, programs: ProgramPath):
        self.programs = programs
        self._small: dict = {}  # (op, kwargs items, operand dtypes and shapes, sharing) -> SmallProgram or None
        self._kinds: dict = {}  # (op, operands, dtype) -> its SmallPrograms, latest last, or _CLOSED
        # (``host_lengths.length_key`` -> the one length planned, the SmallProgram of any length, or _CLOSED)
        self._lengths: dict = {}
        self._lock = threading.Lock()  # a run's (its program's constants and call array, its blocks)
        # (results' memory: 0-d views of blocks of its own, carved under its lock; a view over a block
        # costs a sixth of an allocation of its own and that one's address, 0.17 us against 1.2)
        self._blocks = HostBlocks()
        self._slots: dict = {}  # (operand, NumPy dtype) -> a 0-d array of its own and its address (``_address``)

    def small(self, engine, op, kwargs: dict, values: tuple, shape: tuple, dtype, device, inner=None, into=0,
              holds=None):
        """``op(*values, **kwargs)`` as a realized host value of ``shape`` and ``dtype``, computed at
        once, where every operand is realized host data, a slice of it (a slice node over a leaf)
        or a scalar constant and this op's program over such operands is one quick kernel call
        (planned once per op, kwargs, operand shapes and dtypes, slices' structure and which
        operands share a source; the slices' starts and the constants' values are data); None
        otherwise (the op is recorded). A loop over small
        realized arrays then runs as NumPy's does, op by op with no trace to key, plan or read:
        lu's ``A[i, j] -= A[i, :j] @ A[:j, j]`` is a product and a sum in one program (``inner``: an
        op of ``values`` whose result ``op`` takes, of the first operand's shape and dtype). ``into``:
        where its result is written (a slice of host memory an elementwise op updates,
        ``aliasing.op_in_place``: the address of one run, or an address and a layout to store
        through), True for it done. ``holds``: a complex result's dtype (``shape`` and ``dtype`` its
        storage's). ``shape`` None: only a program kept for these operands runs, its result's shape
        and dtype its own (the caller skips the op's shape rule), where that result is real."""
        if _recorded(engine, device) or op.single_op:
            return None  # (a single-op model's path: recorded)
        if shape is not None and 0 in shape:  # (nothing to compute: ``A[i, :0] * B[i, :0]``, a loop's first step)
            if into:
                return True
            return host_value(None, shape, dtype, device, np.empty(shape, _numpy_dtype(dtype)), owned=False)
        items = tuple(kwargs.items()) if kwargs else ()
        named = op if inner is None else (op, inner)  # (the program's op in its key and kind)
        sources = values
        for v in values:
            if v.node is not None:  # (a slice: its source's address, moved by its starts; a constant)
                for u in values:
                    if u.node is not None and not u.node.inputs and _memo(u.node)[1] is None:
                        return None  # (a complex constant: its value is structure, its op recorded)
                if len(values) == 2:  # (the common case, without a generator)
                    a, b = values
                    na, nb = a.node, b.node
                    sources = (a if na is None or not na.inputs else na.inputs[0],
                               b if nb is None or not nb.inputs else nb.inputs[0])
                else:
                    sources = tuple(u if u.node is None or not u.node.inputs else u.node.inputs[0] for u in values)
                key = _sliced_key(named, items, values, sources)
                break
        else:
            key = _op_key(named, items, values, True)
        try:
            program = self._small.get(key, False)
        except TypeError:  # (an unhashable kwarg: recorded)
            return None
        if program is False:
            if shape is None:
                return None
            program = self._any_length(engine, key, op, kwargs, values, sources, shape, dtype, device, inner, named,
                                       items)
            if program is not None:
                program.holds = holds
        if program is None or (shape is None and program.holds is not None):
            return None
        if shape is None:
            shape, dtype = program.shape, program.result_dtype
            if program.lengths is not None and program.lengths.along:
                shape = (values[program.lengths.operand].shape[0],)
        return self._run_small(engine, program, values, sources, shape, dtype, device, into)

    def small_binary(self, op, a, b, dtypes):
        """``op(a, b)`` as a plain array computed at once where ``small`` keeps a program for its
        operands (``kept_at_once``'s case), each a plain array of realized host data or a slice of
        it, of one dtype of ``dtypes`` (None: any), or one of them a Python float or int (or
        NumPy's float64 scalar) that a float64 array takes as NumPy's weak scalar does (NEP 50);
        None for anything else (the general path); ``NOT_KEPT`` where no program is kept for them.
        ``small`` without the layers above it, written out (syrk's ``alpha * A[i, k] * A[:i + 1,
        k]``: they were a third of such an op's ~7 us)."""
        number = None
        if type(a) in PLAIN_CLASSES:
            cls = type(a)
            va = _plain_operand(a)
            if va is None:
                return None
            if type(b) in PLAIN_CLASSES:
                if cls is Tensor:
                    cls = type(b)  # (``apply_binary``'s result class)
                vb = _plain_operand(b)
                if vb is None or vb.dtype is not va.dtype:
                    return None
            elif type(b) in _NUMBERS and va.dtype is _FLOAT64 and -_INT_BOUND <= b <= _INT_BOUND:
                vb = number = _Number(float(b))
            else:
                return None
            dtype = va.dtype
        elif type(a) in _NUMBERS and type(b) in PLAIN_CLASSES and -_INT_BOUND <= a <= _INT_BOUND:
            cls = type(b)
            vb = _plain_operand(b)
            if vb is None or vb.dtype is not _FLOAT64:
                return None
            va = number = _Number(float(a))
            dtype = _FLOAT64
        else:
            return None
        if dtypes is not None and dtype not in dtypes:
            return None
        return self._kept_array(op, (), cls, va, vb, number)

    def small_pair(self, named, items: tuple, a, b):
        """``small``'s op ``named`` (with kwargs ``items``) over plain arrays ``a`` and ``b`` of one
        dtype, as ``small_binary`` computes it (a loop's ``x[i, :j] @ y[:j, j]``, a product and its
        sum); None where no program is kept for them."""
        if type(a) not in PLAIN_CLASSES or type(b) not in PLAIN_CLASSES:
            return None
        va, vb = _plain_operand(a, OPERAND_AT_ONCE), _plain_operand(b, OPERAND_AT_ONCE)
        if va is None or vb is None or va.dtype is not vb.dtype:
            return None
        return self._kept_array(named, items, type(a) if type(a) is not Tensor else type(b), va, vb, None)

    def _kept_array(self, named, items, cls, va, vb, number):
        """A kept program's result over ``va`` and ``vb`` (one a ``_Number``, where ``number``) as
        an array of ``cls``; ``NOT_KEPT`` where ``small`` keeps no program for them (its caller's
        ``kept_at_once`` would find none), None where ops are recorded or it runs no other way."""
        engine = GRAPH.engine
        device = (vb if number is va else va).device
        if (number is None and vb.device is not device) or _recorded(engine, device) \
                or (named.single_op if type(named) is not tuple else named[0].single_op):
            return None
        program, sources = self._kept(named, items, va, vb, number)
        if program is None:
            return NOT_KEPT if sources is None else None
        if program.holds is not None:
            return None
        shape = program.shape
        if program.lengths is not None and program.lengths.along:
            shape = ((va, vb)[program.lengths.operand].shape[0],)
        out = self._run_small(engine, program, (va, vb), sources, shape, program.result_dtype, device)
        if out is None:
            return None
        impl = _new(TensorImpl)
        impl._values, impl.cached_shape, impl.dtype, impl.batch_dims = [out], shape, out.dtype, 0
        r = _new(cls)
        r._impl = impl
        r._view = r._views = r._element_loop = None
        return r

    def small_into(self, op, x, y, into) -> bool:
        """``small``'s run of elementwise ``op`` over ``x`` (a slice of realized host data) and ``y``
        (realized host data, a slice of it or a scalar constant, of x's dtype) into ``into`` (see
        ``small``), where a program for them is kept; False otherwise (the caller asks ``small``,
        which plans it). ``x op= y`` in a loop (``aliasing.op_in_place``) without ``small``'s
        generality."""
        engine = GRAPH.engine
        if _recorded(engine, x.device) or op.single_op:
            return False
        program, sources = self._kept(op, (), x, y, None)
        return program is not None and bool(self._run_small(engine, program, (x, y), sources, None, None, x.device,
                                                            into))

    def _kept(self, named, items: tuple, va, vb, number) -> tuple:
        """The program ``small`` keeps for ``named`` (``small``'s op, or (op, inner)) with kwargs
        ``items`` over two operands of one dtype (sources None where none is kept), each
        realized host data, a slice of it, a scalar constant or ``number`` (a ``_Number``), and
        their sources; (None, None) where none is kept. (``small``'s key, ``_op_key`` or
        ``_sliced_key``, without ``small``'s checks.)"""
        na, nb = va.node, vb.node
        sa = va if na is None or not na.inputs else na.inputs[0]
        sb = vb if nb is None or not nb.inputs else nb.inputs[0]
        pair = (va, vb)
        key = _op_key(named, items, pair, True) if na is None and nb is None and number is None \
            else _sliced_key(named, items, pair, (sa, sb))
        program = self._small.get(key)
        if program is None:
            return None, None
        if program.fills and number is not None:
            return None, ()  # (kept, but its run reads a constant node's value: the general path's)
        return program, (sa, sb)

    def _run_small(self, engine, program, values, sources, shape, dtype, device, into=0):
        """One run of kept ``program`` over ``values`` (``sources``: each one's realized data, itself
        or its slice's source) as a realized host value of ``shape`` and ``dtype`` (``into``: see
        ``small``); None where another thread's run holds the programs (the op is recorded)."""
        if not self._lock.acquire(False):
            return None
        try:
            program.uses += 1
            lengths = program.lengths
            if lengths is not None:
                lengths.set(program, values[lengths.operand].shape[0])
            quick = program.quick
            call = quick.call
            if program.fills:
                leaves = [sources[k] for k in program.sources]
                program.plan.fill(quick.consts, [v.buffer for v in leaves],
                                  {pos: _memo(values[k].node)[1][0] for pos, k in program.constants},
                                  {pos: values[k].node.memo[2] for pos, k in program.starts}, leaves)
            else:
                consts = quick.consts
                for j, ints, k in program.lifted:
                    # (its value in its dtype, as a read's fill writes it: a float32 constant rounded;
                    # kept per constant node, interned as operands' constants are; a Python number
                    # of ``binary``'s: its value, of a program over float64)
                    node = values[k].node
                    if node is None:
                        consts[j] = values[k].host
                        continue
                    bits = (_FLOAT_BITS, _INT_BITS)[ints].get(node)
                    if bits is None:
                        bits = _constant_bits(node, ints)
                    consts[j] = bits
                for parts, pairs in program.offsets:
                    moved = 0
                    for k, axes, coefs in parts:
                        starts = values[k].node.memo[2]
                        if axes is None:
                            moved += sum(map(_mul, coefs, starts))
                        else:
                            for axis, c in zip(axes, coefs):
                                moved += c * starts[axis]
                    for j, base in pairs:
                        consts[j] = base + moved
            for at, k, offset, terms in program.places:
                v = sources[k]
                address = v.address if type(v) is HostValue and v.address else self._address(v, k)
                for j, axis, c in terms:
                    offset += c * values[j].node.memo[2][axis]
                call[at] = address + offset
            nbytes = program.nbytes
            if type(into) is tuple:  # (a strided slice: its one map stage stores through the slice's layout)
                at = program.result_at
                if call[0] != 1 or call[at - 4] != MAP or call[at + 2] or program.result_also:
                    return None
                block, (address, call[at + 2], _) = None, into
            elif into:
                block, address = None, into
            elif nbytes <= _BLOCK_RESULT:
                block, start, address = self._blocks.place(nbytes)
            else:  # (a larger fill: memory of its own)
                block, start = np.empty(nbytes, np.uint8), 0
                address = block.ctypes.data
            call[program.result_at] = address
            for at in program.result_also:
                call[at] = address
            try:
                program.run(quick.address)
            finally:
                if type(into) is tuple:
                    call[program.result_at + 2] = 0  # (its other runs store in order)
            engine.stats.small_ops += 1
            engine.stats.fused += 1  # (a run of the program kernel, as a read's)
        finally:
            self._lock.release()
        if into:
            return True
        # (its view made where asked: most such results are read only by later ops at once, by address)
        held = program.dtype  # (NumPy's dtype of its memory)
        out = CarvedMemory(block, start, shape, held) if shape else np.ndarray((), held, block, start)
        return host_value(None, shape, dtype, device, out, owned=False, address=address)

    def view(self, engine, value, shape: tuple) -> HostValue | None:
        """Realized host ``value``'s memory seen under ``shape`` (as many elements, in order): its
        own memory, which it gives up (``give_up``: a write into either copies first); None where
        ops are recorded (``_recorded``) or the memory is no run of its elements."""
        if _recorded(engine, value.device) or (type(value) is not HostValue and value.buffer is None):
            return None
        host = host_view(value)
        if not host.flags.c_contiguous:
            return None
        give_up(value)
        return host_value(None, shape, value.dtype, value.device, host.reshape(shape), owned=False)

    def _address(self, value, k: int) -> int:
        """The address of operand ``k``'s realized data for a run (its lock held): a NumPy scalar
        (an op over host scalars, a pick: ``alpha * A[i, k] * A[:i + 1, k]``) copied into a slot of
        this object's (a buffer of its own would cost 4 us, a fifth of such a statement), anything
        else its memory's: a host array's own (kept: a driver buffer made to ask it costs ~2 us, the
        array ~0.8), else its buffer's."""
        address = known_address(value)
        if address:
            return address
        host = value.host if type(value) is HostValue else None
        if not isinstance(host, np.generic):
            address = value.buffer._data_ptr()
            if type(host) is np.ndarray:  # (its memory for its life: known from now on)
                value.address = address
            return address
        slot = self._slots.get((k, host.dtype))
        if slot is None:
            memory = np.empty(16, np.uint8)  # (the widest scalar operand: 16 bytes)
            view = np.ndarray((), host.dtype, memory, 0)
            slot = self._slots[k, host.dtype] = (view, view.ctypes.data)
        view, address = slot
        view[()] = host
        return address

    def _plan_small(self, engine, key, op, kwargs, values, shape, dtype, device, inner, named):
        """``small``'s program of ``key``, kept (None where it is no quick kernel call of one
        result in a block's memory, or the kernel is not built)."""
        if not _kernel_built():
            return None
        # (a plan costs ~40 runs: an op of ever new shapes, a loop's slices of growing length each
        # taken once, ``L[i, :i] @ x[:i]`` in trisolv, is recorded once its kind's plans have not
        # paid back, from then on: a loop whose steps switched between computed and recorded ops
        # would be a new trace at every call, planned anew)
        kind = (named, len(values), dtype.name)
        made = self._kinds.get(kind)
        if made is None:
            made = self._kinds[kind] = []
        elif made is _CLOSED:
            return None
        elif len(made) >= _TRIED and sum(p.uses for p in made[-_TRIED:]) < _PAYS * _TRIED:
            self._kinds[kind] = _CLOSED
            return None
        program = self._planned_small(engine, op, kwargs, values, shape, dtype, device, inner)
        if program is not None:
            made.append(program)
            if len(made) > _KIND_KEEPS:
                del made[:len(made) // 2]
        self._keep(key, program)
        return program

    def _any_length(self, engine, key, op, kwargs, values, sources, shape, dtype, device, inner, named, items):
        """``small``'s program of an op over vectors of a length not planned before: one program of
        any length (``host_lengths``) from the second length of its kind on, where it is one;
        else ``_plan_small``'s of this length."""
        found = length_key(named, items, values, sources, shape)
        if found is None:
            return self._plan_small(engine, key, op, kwargs, values, shape, dtype, device, inner, named)
        general, n = found
        seen = self._lengths.get(general)
        if type(seen) is SmallProgram:
            self._keep(key, seen)  # (this length's later steps find it at once)
            return seen
        if seen is None or seen == n or seen is _CLOSED or n < 4 or not _kernel_built():
            if seen is None:
                self._lengths[general] = n
            return self._plan_small(engine, key, op, kwargs, values, shape, dtype, device, inner, named)
        lengths = (n, n - 1, n - 2)
        programs = [self._planned_small(engine, op, kwargs, values, shape, dtype, device, inner, m, n)
                    for m in lengths]
        patches = None if None in programs else length_patches(programs, lengths)
        if len(self._lengths) >= 4096:
            self._lengths.clear()
        if patches is None:
            self._lengths[general] = _CLOSED
            return self._plan_small(engine, key, op, kwargs, values, shape, dtype, device, inner, named)
        program = programs[0]
        patches.operand = next(k for k, v in enumerate(values) if v.shape == (n,))
        patches.along = shape == (n,)
        program.lengths = patches
        self._lengths[general] = program
        self._keep(key, program)
        return program

    def _keep(self, key, program) -> None:
        with self._lock:
            if len(self._small) >= 4096:
                self._small.clear()
            self._small[key] = program

    def _planned_small(self, engine, op, kwargs, values, shape, dtype, device, inner, length=None, n=None):
        """A ``SmallProgram`` of the op over ``values`` (those of 1-D length ``n`` read as ``length``,
        where given; others as they are), or None where its plan is no quick kernel call of one
        result in a block's memory."""
        program = None
        leaf_of: dict = {}  # id(source) -> its stand-in leaf

        def stand_in(v):
            node = v.node
            if node is not None and not node.inputs:  # (a constant: lifted by the plan, its value written by a run)
                return v
            source = v if node is None else node.inputs[0]
            leaf = leaf_of.get(id(source))
            if leaf is None:
                held = (length,) if node is None and length is not None and source.shape == (n,) else source.shape
                leaf = leaf_of[id(source)] = Value.leaf(None, held, source.dtype, device)
            if node is None:
                return leaf
            if length is None:
                sliced = Node(node.op, node.kwargs, (leaf,))
                sliced.memo = _memo(node)
                return Value(sliced, 0, v.shape, v.dtype, device)
            sliced = Node(node.op, at_length(node.kwargs, n, length), (leaf,))
            return Value(sliced, 0, (length,), v.dtype, device)

        stand_ins = tuple(_stand_ins(values, stand_in))
        taken = stand_ins
        if length is not None and shape == (n,):
            shape = (length,)
        if inner is not None:
            first = values[0]
            taken = (Value(Node(inner, {}, stand_ins), 0, (length,) if length is not None and first.shape == (n,)
                           else first.shape, first.dtype, device),)
        out = Value(Node(op, kwargs, taken), 0, shape, dtype, device)
        with engine.lock:
            traced = engine.trace([out])
            plan = self.programs.plan(traced.order, traced.leaves, [out], traced.node_ids, lambda n: False)
        quick = None if plan is None else plan.quick
        if quick is not None and quick.places and all(k == 0 and not offset for _, k, offset in quick.places) \
                and not quick.shifted \
                and quick.shifts is None:
            source_of, operand_at, constants = {}, {}, {}
            for k, (v, s) in enumerate(zip(values, stand_ins)):
                if v.node is not None and not v.node.inputs:
                    constants[traced.node_ids[id(v.node)]] = k
                    continue
                source_of.setdefault(traced.leaf_ids[id(s if v.node is None else s.node.inputs[0])], k)
                if v.node is not None:
                    operand_at.setdefault(traced.node_ids[id(s.node)], k)
            program = SmallProgram(plan, [source_of[j] for j in range(len(traced.leaves))], operand_at, constants,
                                    shape, dtype)
        return program


class _Number:
    """A Python number among ``small_binary``'s operands, as a program's lifted constant reads it."""

    __slots__ = ("host",)
    node = None
    shape = ()
    dtype = _FLOAT64  # (``small_binary`` takes numbers only beside float64 operands)

    def __init__(self, host: float):
        self.host = host


def _plain_operand(x, limit: int = SMALL_AT_ONCE):
    """The one value of plain array ``x`` where it is real realized host data or a slice of it, of
    at most ``limit`` elements (a larger one's elementwise ops are never at once), with
    nothing to record of it (no trace, tangent, gradient, mesh or batch dims); None otherwise.
    (Pending data, the common refusal, is refused first: this is asked of every binary ufunc.)"""
    impl = x._impl
    values = impl._values
    if type(values) is not list or len(values) != 1:
        return None
    v = values[0]
    node = v.node
    if node is not None and (node.op.index_kwarg is None or len(node.inputs) != 1
                             or node.inputs[0].node is not None or node.memo is None):
        return None
    if impl.traced or impl.tangents is not None or impl.requires_grad or impl.sharding is not None \
            or impl.batch_dims or v.dtype is not impl.dtype or _prod(v.shape) > limit:
        return None  # (v.dtype: a complex array's storage, whose ops at once go the general way)
    return v


def _part(v):
    """An operand's part of ``small``'s key (``_sliced_key``): its slice's structure, ``_CONSTANT``
    for a scalar constant or a ``_Number``, None for realized data."""
    node = v.node
    if node is None:
        return _CONSTANT if type(v) is _Number else None
    return _memo(node)[0] if node.inputs else _CONSTANT


def _recorded(engine, device) -> bool:
    """Whether ops on ``device`` are recorded whatever their size: while tracing for ``compile``,
    every read compiled, the fused path or ops at once off, memory debugging on, or off the host."""
    return GRAPH.captures or not engine.small_at_once or not engine.fused_enabled or engine.debug_memory \
        or not device.is_host or engine.policy == "compile"


def _op_key(op, items, operands, shapes: bool) -> tuple:
    """A kept program's key: the op, its kwargs' items, its operands' dtypes (by name: a name hashes
    at once, a dtype in Python) and, where ``shapes``, shapes, and which operands are one value
    (two operands, the common case, without a tuple per operand)."""
    if len(operands) == 2:
        a, b = operands
        if shapes:
            return op, items, a.dtype.name, a.shape, b.dtype.name, b.shape, a is b
        return op, items, a.dtype.name, b.dtype.name, a is b
    if len(operands) == 1 and shapes:
        a, = operands
        return op, items, a.dtype.name, a.shape
    return (op, items, tuple((v.dtype.name, v.shape) if shapes else v.dtype.name for v in operands),
            sharing(operands))



def _sliced_key(op, items, values, sources) -> tuple:
    """``small``'s key of an op with slices or scalar constants among its operands: per operand its
    dtype, shape, slice structure (its starts are data, read at each run) or that it is a constant
    (its value data too; None for realized data) and source's shape, and which operands, and which
    sources, are one value."""
    if len(values) == 2:  # (the common case, flat)
        a, b = values
        sa, sb = sources
        return (op, items, a.dtype.name, a.shape, _part(a), sa.shape, b.dtype.name, b.shape, _part(b), sb.shape,
                a is b, sa is sb)
    return (op, items, tuple((v.dtype.name, v.shape, _part(v), s.shape) for v, s in zip(values, sources)),
            sharing(values), sharing(sources))


#: constant node -> its value as a program's constant reads it (float, and integer family's bits)
_FLOAT_BITS: dict = {}
_INT_BITS: dict = {}


def _constant_bits(node, ints: bool) -> float:
    kept = _INT_BITS if ints else _FLOAT_BITS
    if len(kept) >= 4096:
        kept.clear()
    bits = kept[node] = constant_bits(_memo(node)[1][0].item(), ints)
    return bits


def _memo(node) -> tuple:
    """``node``'s keying memo, made once (a slice recorded on the hot path has it already)."""
    memo = node.memo
    if memo is None:
        memo = node.memo = node_memo(node)
    return memo


def _stand_ins(operands, make) -> list:
    """A stand-in per operand for planning its op, ``make(operand)``: one for an operand used twice."""
    out = []
    for v in operands:
        for u, s in zip(operands, out):
            if u is v:
                out.append(s)
                break
        else:
            out.append(make(v))
    return out


#: ``small`` plans a new shape of an op of a kind (op, operands, dtype) that has ``_TRIED`` plans
#: only where its latest ``_TRIED`` have run ``_PAYS`` times each on average; a kind keeps its
#: latest plans' counts
_TRIED, _PAYS, _KIND_KEEPS = 16, 2, 256
_CLOSED = ()  # (a kind whose new shapes are recorded)
#: the numbers ``small_binary`` takes as a float64 operand's constant
_NUMBERS = frozenset((float, int, np.float64))
_INT_BOUND = float(1 << 53)  # (an int of at most 2^53 is its float exactly; a larger one goes the general way)
_new = object.__new__
_CONSTANT = ("constant",)  # (a scalar constant operand, in ``small``'s key)

