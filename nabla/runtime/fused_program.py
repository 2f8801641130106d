"""Traces written as programs for the fused kernel (``kernels/evaluator/fused.mojo``).

A program is a list of 5-int instructions over registers that each hold one block of the trace's
elements. Every value in a register is spread to the trace's full shape; inputs are read through
strided layouts (NumPy's view model: an offset and a stride per axis), so basic slices, transposes
and broadcasts of an input cost no instruction and no copy. A trace whose reductions feed more
work, or that has several results, is run in stages (``stages``).

Three families: float traces (everything of one float dtype; the registers hold it), integer
traces (bool and every integer dtype, mixed: int64 registers, data passed as bytes and read and
written through dtype codes, narrow results wrapped after each op as NumPy's arithmetic wraps;
uint64 is int64's bits, so only the ops whose bits do not depend on the sign take it) and coded
float traces (float work of one float dtype whose inputs or result are of other dtypes: a
comparison's bool result, casts, an integer input; float registers, data through dtype codes).
"""

from __future__ import annotations

import contextlib
import math

import numpy as np

from ..core import dtypes as _dt
from ..core.operation import OPS
from . import op_kinds as K
from .fused_codes import (_AXIS_INDEX, _CONST, _GATHER, _LOAD, _REGISTERS, _WHERE, _WRAP, BYTES, CODES, HALF, HEADER,
                          INT_CODES, SLOTS, _unsigned_order, arg_reduce, constant_bits, elementwise_facts, opcode,
                          reduce_kind, view_kind)
from .fused_layouts import Offset, Unfit as _Unfit
from .fused_layouts import (_contiguous, _is_stack, _layout, _layouts, _reduced_run, _restride, _through,
                            release_last_uses)
from .fused_reads import _concat, _index_nodes, _iota_axis, _stack, _take


class Program:
    """What ``write`` makes of a trace: the program, its constants (layouts included), which leaf
    feeds each data slot, the reduction kind and the output's size."""

    __slots__ = ("program", "consts", "slots", "reduce", "size", "dtype", "count", "scan", "lifted", "out_dtype",
                 "lifted_leaves", "test", "registers", "offsets")

    def __init__(self, program, consts, slots, reduce, size, dtype, count, scan, lifted=(), out_dtype=None,
                 lifted_leaves=(), registers=None):
        self.program, self.consts, self.slots, self.reduce, self.size = program, consts, slots, reduce, size
        self.dtype = dtype  # of the data slots (BYTES: read through dtype codes)
        self.registers = registers or (_dt.int64 if dtype is BYTES else dtype)
        self.out_dtype = out_dtype or dtype  # a coded program's result dtype
        self.count = count  # a sum of 1 / 0 whose result is int64
        self.scan = scan  # a running sum: 1 forward, 2 reverse
        self.lifted = lifted  # (trace position of a scalar constant, its index in consts): data per run
        self.lifted_leaves = lifted_leaves  # (leaf of one element, its index in consts): read per run
        self.test = 0  # the reduced values' test (``any`` / ``all`` of a count), as in the header
        self.offsets = ()  # (index in consts, Offset): layout offsets that depend on slice starts


def reduction_inside(order, out) -> bool:
    """Whether a reduction, a running sum or a matmul feeds more of ``order``'s work (``out``: its
    result): a program ends with one (its store), so no one program runs such a trace, whatever its
    sizes. (Not asked of a trace that ends with a test, as ``any``/``all`` do: a count's store makes
    the test.)"""
    if out.node.op is K.GREATER or out.node.op is K.LOGICAL_NOT:
        return False
    for n in order[:-1]:
        op = n.op
        if op is K.MATMUL or op is K.CUMULATIVE_SUM or reduce_kind(op) is not None:
            return True
    return False


def write(order, leaves, outputs, node_ids, leaf_ids) -> Program | None:
    """The program for a trace, or None when the fused kernel cannot run it."""
    if len(outputs) != 1 or not order:
        return None
    out = outputs[0]
    if not out.device.is_host:
        return None
    test = _count_test(order, out)
    if test is not None:  # ``any``/``all``: the count, tested in the reduction's store
        out, order = test[1], order[:test[3]]
    last = order[-1]
    ints = out.dtype in INT_CODES and all(leaf.dtype in INT_CODES for leaf in leaves) \
        and not any(v.dtype.is_floating for n in order for v in n.inputs)  # (``i > 2.5``: float work)
    dtype = BYTES if ints else out.dtype
    count = not ints and out.dtype is _dt.int64 and last.op is K.SUM and out.node is last \
        and _counts(last.inputs[0])
    if count:  # a count of true values: 1 / 0 in registers of the inputs' float dtype
        dtype = leaves[0].dtype if leaves and leaves[0].dtype in (_dt.float32, _dt.float64) else None
    registers = _dt.int64 if ints else dtype
    if not ints and (dtype not in (_dt.float32, _dt.float64) or any(leaf.dtype is not dtype for leaf in leaves)):
        # float work with inputs or a result of other dtypes: the coded float family (a count of
        # it, ``any``/``all`` of float16 data, accumulates in float64 and is written as int64)
        registers = None if (test is not None and not count) or last.op is K.MATMUL else _coded_registers(order, out)
        if registers is not None and last.op is K.CUMULATIVE_SUM and out.node is last \
                and out.dtype is not registers and not (out.dtype is _dt.float16 and registers is _dt.float32):
            return None  # (a running sum is kept in its result's float dtype, float16's rounded from float32)
        if registers is None or (reduce_kind(last.op) is not None and out.dtype is not registers and not count
                                 and not (out.dtype is _dt.float16 and registers is _dt.float32)
                                 and not arg_reduce(last.op)):
            return None
        dtype = BYTES
    if ints and last.op is K.MEAN:
        return None
    reduce, rows, inner = 0, 1, 1
    unsigned = False
    result = out
    body = order
    scan = 0
    if reduce_kind(last.op) is not None and out.node is last:
        result = last.inputs[0]
        axes = (last.kwargs["axis"],) if arg_reduce(last.op) else last.kwargs.get("axes", ())
        split = _reduced_run(result.shape, axes) if result.shape else (1, 1)
        if split is None:
            return None
        rows, inner = split
        if rows == 0:  # a sum or product over nothing: its identity everywhere
            return None if test is not None else _identity_fill(last.op, out, dtype, registers)
        unsigned = ints and _unsigned_order(last)  # (max, min, argmax, argmin of uint64: see ``_write``)
        reduce = reduce_kind(last.op)
        body = order[:-1]
    elif last.op is K.CUMULATIVE_SUM and out.node is last:  # a running sum: the scan model
        result = last.inputs[0]
        split = _reduced_run(result.shape, (last.kwargs["axis"],))
        if split is None or result.shape[last.kwargs["axis"]] == 0:
            return None
        rows, inner = split
        scan = 2 if last.kwargs.get("reverse") else 1
        body = order[:-1]
    elif last.op is K.MATMUL and out.node is last:
        if len(leaves) > SLOTS or any(leaf.dtype is not dtype and not ints for leaf in leaves):
            return None
        try:
            return _matmul(order, leaves, last, dtype, node_ids, leaf_ids, out.dtype)
        except _Unfit:
            return None
    full = math.prod(result.shape)
    # more inputs than data slots: one-element host inputs (the elements an element-by-element check
    # picks, ``a[1] * b[2] - a[2] * b[1]``) are read into the constants per run instead
    lift = frozenset(k for k, leaf in enumerate(leaves) if math.prod(leaf.shape) == 1 and leaf.device.is_host) \
        if len(leaves) > SLOTS else frozenset()
    if full == 0 or full >= 2 ** 31 or len(leaves) - len(lift) > SLOTS or \
            any(leaf.dtype is not dtype and dtype is not BYTES for leaf in leaves):
        return None
    if test is not None and (not reduce or (dtype is not BYTES and (not count or math.prod(outputs[0].shape) != 1))):
        return None  # (the float family's count is int64 data: read as one bool only when it is one value)
    try:
        program = _write(body, leaves, result, full, dtype, node_ids, leaf_ids, reduce, rows, inner, count, scan,
                         _dt.bool_ if test is not None and dtype is BYTES else out.dtype, lift, registers, unsigned)
        if test is not None:
            _add_test(program, test, node_ids[id(test[2])], ints)
        return program
    except _Unfit:
        return None


def contiguous_view(order, leaves, outputs, node_ids, leaf_ids):
    """(leaf, offset) when the trace's one result is a contiguous run of one input's elements
    (reshapes and basic slices of it, ``res[i]`` of a C-ordered array): a view of that input's
    buffer, which no kernel needs to copy; None otherwise."""
    if len(outputs) != 1 or not outputs[0].device.is_host:
        return None
    if any((view_kind(n.op) != "alias" and n.op is not K.GETITEM) or "complex_storage" in n.kwargs
           for n in order):
        return None
    try:
        found = _viewer(order, leaves, None, node_ids, leaf_ids)[3](outputs[0])
    except _Unfit:
        return None
    if found is None:
        return None
    leaf, offset, sizes, strides = found
    step = 1
    for n, s in zip(reversed(sizes), reversed(strides)):
        if n != 1 and s != step:
            return None
        step *= n
    return leaf, offset


def _viewer(body, leaves, dtype, node_ids, leaf_ids, count=False, result=None, registers=None, stored=True):
    """What the trace's views are: value ids (leaves -(k+1), node outputs by node index), with
    order-keeping views and free casts as aliases of their input and strided views of an input as
    loads of it. ``stored``: ``result``'s values are written as they are (a map's), so its cast
    is made by the store; a reduction or running sum must see each value cast (a float16 running
    sum adds float16 values). Returns (alias, views, ref, view_of)."""
    alias: dict[int, int] = {}
    views: dict[int, tuple] = {}  # node -> (leaf, offset, sizes, strides)

    def ref(v):
        r = -1 - leaf_ids[id(v)] if v.node is None else node_ids[id(v.node)]
        return alias.get(r, r)

    def view_of(v, shape=None):
        """The strided view (leaf, offset, sizes, strides) that ``v``, seen as ``shape``, is of a
        leaf; None for a computed value."""
        r = ref(v)
        if r < 0:
            leaf = leaves[-1 - r]
            found = (-1 - r, 0, tuple(leaf.shape), _contiguous(leaf.shape))
        elif r in views:
            found = views[r]
        else:
            return None
        shape = tuple(v.shape if shape is None else shape)
        strides = _restride(found[2], found[3], shape)
        if strides is None:
            if math.prod(found[2]) != 1:
                raise _Unfit
            strides = (0,) * len(shape)  # one element seen in a larger shape (its broadcast, an alias): every stride 0
        return found[0], found[1], shape, strides

    for i, n in enumerate(body):
        if "complex_storage" in n.kwargs or "src_complex" in n.kwargs:
            raise _Unfit
        if _is_alias(n, dtype, registers, stored and result is not None and v_is(n, result)) \
                or (count and v_is(n, result)):
            alias[i] = ref(n.inputs[0])
        elif view_kind(n.op) == "strided":
            found = view_of(n.inputs[0])
            if found is not None:
                views[i] = _through(n, found)
            elif n.op not in K.BROADCASTS:
                raise _Unfit  # a slice or transpose of a computed value: ``stages`` realizes it first
    return alias, views, ref, view_of


def _write(body, leaves, result, full, dtype, node_ids, leaf_ids, reduce, rows, inner, count, scan,
           out_dtype, lift=frozenset(), registers=None, unsigned=False) -> Program:
    """The program of ``body`` computing ``result`` (reduced or scanned as asked). ``unsigned``: the
    reduction orders uint64 values, so each value's sign bit is flipped first (unsigned order is
    signed order of ``x ^ 2**63``), and the kernel flips a max's or min's result back."""
    registers = registers or (_dt.int64 if dtype is BYTES else dtype)
    alias, views, ref, view_of = _viewer(body, leaves, dtype, node_ids, leaf_ids, count, result, registers,
                                         not (reduce or scan))
    ints = registers is _dt.int64
    coded_float = dtype is BYTES and not ints
    index = _index_nodes(body, ref, ref(result), alias, _dtypes(body, result, node_ids)) \
        if registers.is_floating else frozenset()
    dtype_of = _dtypes(body, result, node_ids) if ints or coded_float else {}
    contexts: dict = {}
    loads = _layouts(body, result, full, ref, alias, views, node_ids, view_of, contexts)
    uses: dict[int, int] = {}
    for i, n in enumerate(body):
        for v in n.inputs:
            uses[ref(v)] = i
    final = ref(result)
    uses[final] = len(body)
    instructions: list[tuple] = []
    consts: list[float] = []
    lifted: list[tuple[int, int]] = []
    reg_of: dict[int, int] = {}
    free = list(range(_REGISTERS - 1, -1, -1))
    slot_of: dict[int, int] = {}
    lifted_at: dict[int, int] = {}  # lifted leaf -> its index in consts

    def register(vid):
        if vid in reg_of:
            return reg_of[vid]
        if (vid >= 0 and vid not in views) or not free:
            raise _Unfit
        leaf = -1 - vid if vid < 0 else views[vid][0]
        if leaf in lift:  # one element, whatever view of it: a constant of this run
            if leaf not in lifted_at:
                lifted_at[leaf] = len(consts)
                consts.append(0.0)
            r = reg_of[vid] = free.pop()
            instructions.append((_CONST, r, lifted_at[leaf], 0, 0))
            return r
        slot = slot_of.setdefault(leaf, len(slot_of))
        layout = loads.get(vid)
        at = 0
        if layout is not None:
            at = len(consts) + 1
            consts.extend(layout)
        r = reg_of[vid] = free.pop()
        instructions.append((_LOAD, r, slot, at, CODES[leaves[leaf].dtype] if coded_float else
                             INT_CODES[leaves[leaf].dtype] if ints else 0))
        return r

    for i, n in enumerate(body):
        if ints and dtype_of.get(i, _dt.int64) not in INT_CODES:  # (a float intermediate; unused: a test's bound)
            raise _Unfit
        if ints and _unsigned_order(n):
            raise _Unfit
        if i in alias or i in views:
            continue
        op, f = n.op, elementwise_facts(n.op)
        if f is not None and f.on_bools is not None and all(v.dtype is _dt.bool_ for v in n.inputs):
            f = elementwise_facts(OPS[f.on_bools])
        elif f is not None and f.ints_only and not ints:
            raise _Unfit
        half = f is not None and f.bits and any(v.dtype is _dt.float16 for v in n.inputs)
        if half and f.half is None:
            raise _Unfit  # (float16 work runs in float32 registers: its next float would be float32's)
        if coded_float and op is not K.ASTYPE and op is not K.TAKE and i not in index \
                and any(v.dtype is not registers and v.dtype is not _dt.bool_
                        and not (v.dtype is _dt.float16 and registers is _dt.float32) for v in n.inputs):
            raise _Unfit  # (integer work: the integer family's, run first as a stage)
        if op is K.CONCAT:
            if _is_stack(n):
                _stack(n, i, result, ints, register, ref, uses, free, reg_of, instructions, consts)
            else:
                _concat(n, i, result, ints, register, ref, uses, free, reg_of, instructions, consts,
                        (view_of, lift, slot_of, registers, coded_float, leaves))
            continue
        if op is K.IOTA:  # positions: the element's index along the axis the trace sees iota on
            args, code = (), (_AXIS_INDEX, *_iota_axis(n, contexts.get(i), result, full))
        elif op in K.FILLS:  # a fill: the same value everywhere, whatever its shape
            value = n.kwargs["value"] if op is not K.ZEROS_LIKE else 0
            if isinstance(value, complex):
                raise _Unfit
            args, code = (), (_CONST, len(consts))
            if op is K.CONSTANT:
                lifted.append((i, len(consts)))
            consts.append(constant_bits(value, ints))
        elif ints and f is not None and not f.ints:
            raise _Unfit  # float results, or no integer opcode
        elif ints and op is K.ASTYPE:  # to a narrower or other-signed integer, or to bool
            target = n.kwargs.get("dtype")
            if target not in INT_CODES:
                raise _Unfit
            args, code = n.inputs, (_WRAP, INT_CODES[target])
        elif coded_float and op is K.ASTYPE and n.kwargs.get("dtype") is _dt.bool_:  # nonzero: 1 / 0
            args, code = n.inputs, (opcode(K.LOGICAL_NOT), opcode(K.LOGICAL_NOT))
        elif coded_float and op is K.ASTYPE and n.kwargs.get("dtype") is _dt.float16:
            args, code = n.inputs, (_WRAP, HALF)
        elif registers.is_floating and op is K.ASTYPE and i in index and n.kwargs["dtype"] in INT_CODES:
            # (an index's integer cast: its value)
            args, code = n.inputs, (opcode(K.POSITIVE),)
        elif op is K.TAKE:
            args, code = n.inputs[1:], _take(n, result, consts, (view_of, lift, slot_of, registers, coded_float, leaves))
        elif ints and f is not None and f.unsigned is not None and any(v.dtype is _dt.uint64 for v in n.inputs):
            args, code = n.inputs, (f.unsigned,)  # (their bits in int64 registers, read unsigned)
        elif half:  # (float16's own bits, stepped in the float family's registers)
            args, code = n.inputs, (f.half,)
        elif f is not None:
            args, code = n.inputs, (f.code,)
        elif op is K.WHERE:
            args, code = n.inputs, (_WHERE,)
        elif op in K.BROADCASTS:  # of a computed value: its register spreads it
            args, code = n.inputs, (opcode(K.POSITIVE),)
        else:
            raise _Unfit
        regs_in = [register(ref(v)) for v in args]
        release_last_uses(map(ref, args), i, uses, reg_of, free)  # (free for this result)
        if not free:
            raise _Unfit
        dst = reg_of[i] = free.pop()
        if code[0] == _CONST:
            instructions.append((_CONST, dst, code[1], 0, 0))
        elif code[0] == _AXIS_INDEX:
            instructions.append((_AXIS_INDEX, dst, code[1], code[2], 0))
        elif code[0] == _WRAP:
            instructions.append((_WRAP, dst, regs_in[0], code[1], 0))
        elif code[0] == _GATHER:
            instructions.append((_GATHER, dst, code[1], regs_in[0], code[2]))
        else:
            instructions.append((code[0], dst, *(regs_in + [0, 0, 0])[:3]))
            if len(code) == 2:  # (a second unary op on the result)
                instructions.append((code[1], dst, dst, 0, 0))
            narrow = dtype_of.get(i)
            if ints and f is not None and f.wraps and narrow is not None and INT_CODES[narrow] != INT_CODES[_dt.int64]:
                instructions.append((_WRAP, dst, dst, INT_CODES[narrow], 0))
        if coded_float and code[0] != _WRAP and dtype_of.get(i) is _dt.float16:
            instructions.append((_WRAP, dst, dst, HALF, 0))
    result_register = register(final)
    if unsigned:
        if not free:
            raise _Unfit
        sign = free.pop()
        instructions.append((_CONST, sign, len(consts), 0, 0))
        consts.append(constant_bits(-2 ** 63, True))
        instructions.append((opcode(K.BITWISE_XOR), result_register, result_register, sign, 0))
    size = full // rows if reduce else full
    made = _program(instructions, result_register, reduce or scan, rows, inner, consts, slot_of, reduce, size,
                    dtype, count and dtype is not BYTES, scan, tuple(lifted), out_dtype, tuple(lifted_at.items()),
                    registers)
    if unsigned and out_dtype is _dt.uint64:  # (a max or min: the kernel flips it back, told by its code)
        made.program[5] = CODES[_dt.uint64]
    return made


def _program(instructions, result_register, kind, rows, inner, consts, slot_of, reduce, size, dtype, count=False,
             scan=0, lifted=(), out_dtype=None, lifted_leaves=(), registers=None) -> Program:
    """The instructions packed behind their header, the data slots in the order they were given."""
    program = np.zeros(HEADER + 5 * len(instructions), np.int32)
    out_code = (INT_CODES if registers in (None, _dt.int64) else CODES)[out_dtype] if dtype is BYTES else 0
    program[:HEADER] = (len(instructions), result_register, kind, rows, inner, out_code, 0, 0)
    program[HEADER:] = np.asarray(instructions, np.int32).reshape(-1)
    slots = [leaf for leaf, _ in sorted(slot_of.items(), key=lambda kv: kv[1])]
    made = Program(program, np.asarray(consts or [0.0], np.float64), slots, reduce, size, dtype, count, scan, lifted,
                   out_dtype, lifted_leaves, registers)
    made.offsets = tuple((k, c) for k, c in enumerate(consts) if type(c) is Offset)
    return made


def _identity_fill(op, out, dtype, registers) -> Program | None:
    """A program without inputs that fills the output with the identity of ``op`` (sum, prod)."""
    size = math.prod(out.shape)
    if (op is not K.SUM and op is not K.PROD) or size == 0 or size >= 2 ** 31 \
            or (dtype is not BYTES and out.dtype is not dtype):
        return None
    value = constant_bits(int(op is K.PROD), registers is _dt.int64)
    return _program([(_CONST, 0, 0, 0, 0)], 0, 0, 1, 1, [value], {}, 0, size, dtype, out_dtype=out.dtype,
                    registers=registers)


def _count_test(order, out):
    """``greater(sum(...), c)``, or its ``logical_not``, ending a trace (``any`` and ``all`` count in
    int64, then test the count): (2, or 1 when negated; the sum's value; c's node; where the sum's
    trace ends in ``order``), or None."""
    node, kind = out.node, 2
    if out.dtype is not _dt.bool_ or node is not order[-1]:
        return None
    if node.op is K.LOGICAL_NOT:
        node, kind = node.inputs[0].node, 1
    if node is None or node.op is not K.GREATER:
        return None
    total, bound = node.inputs
    if total.node is None or total.node.op is not K.SUM or total.dtype is not _dt.int64 \
            or bound.node is None or bound.node.op is not K.CONSTANT or bound.shape != ():
        return None
    end = next(i for i, n in enumerate(order) if n is total.node) + 1
    if not all(n is node or n is out.node or n is bound.node for n in order[end:]):
        return None
    return kind, total, bound.node, end


def _tested(n, v) -> bool:
    """Whether ``n`` is ``v > c`` of a count ``v`` (``sum`` in int64) and a constant ``c``."""
    bound = n.inputs[-1].node
    return n.op is K.GREATER and n.inputs[0] is v and v.dtype is _dt.int64 and v.node.op is K.SUM \
        and bound is not None and bound.op is K.CONSTANT


def _add_test(program: Program, test, position: int, ints: bool) -> None:
    """The test in the program's header; its bound is data like any constant (a constant's value is
    not part of a structure's key: one plan serves every bound)."""
    at = dict(program.lifted).get(position)
    if at is None:  # (the bound came after the sum: not written by the program's body)
        at = len(program.consts)
        program.consts = np.append(program.consts, constant_bits(test[2].kwargs["value"], ints))
        program.lifted = program.lifted + ((position, at),)
    program.program[6:8] = (test[0], at)
    program.test = test[0]


def _dtypes(body, result, node_ids) -> dict:
    """node index -> its output's dtype (from the values that use it)."""
    found = {}
    for v in [u for n in body for u in n.inputs] + [result]:
        if v.node is not None and id(v.node) in node_ids:
            found[node_ids[id(v.node)]] = v.dtype
    return found


#: the largest matmul (batch * M * K * N products) the kernel takes: a product of views of the
#: inputs summed over the contraction, one multiply-add per element, where MAX's compiled matmul is
#: blocked and vectorized; small products (a first sight's) cost microseconds either way, where a
#: compile costs 10-40 s. A matrix-vector product (M or N of 1) reuses nothing a blocked kernel
#: could keep in cache: it is a sum of rows (or of columns) of the matrix, memory-bound either way,
#: taken up to the programs' sizes (``MATVEC_PRODUCTS``)
MATMUL_PRODUCTS = 1 << 18
MATVEC_PRODUCTS = (1 << 31) - 1


#: while a program is planned (``taking_large_matmuls``): whether the kernel takes a matmul past
#: ``MATMUL_PRODUCTS`` (``node -> bool``, asked once a node), else None: never
_LARGE: list = [None, {}]


@contextlib.contextmanager
def taking_large_matmuls(takes):
    """Within it, a matmul past ``MATMUL_PRODUCTS`` fits where ``takes(node)`` says so: where its
    model, faster there, is not on this machine yet (a first run on a fresh machine never waits
    for a model's compile: the model is built beside it for later reads)."""
    _LARGE[0] = takes
    try:
        yield
    finally:
        _LARGE[0] = None
        _LARGE[1].clear()


def _large_taken(node) -> bool:
    takes, asked = _LARGE
    if takes is None:
        return False
    found = asked.get(id(node))
    if found is None or found[0] is not node:
        found = asked[id(node)] = (node, takes(node))
    return found[1]


def matmul_fits(node) -> bool:
    """Whether the kernel takes ``x @ y`` alone (its operands realized): real operands of one float
    dtype, or integers, of at most ``MATMUL_PRODUCTS`` products (any number, ``taking_large_matmuls``)."""
    if node.kwargs.get("complex_storage") or len(node.inputs) != 2:
        return False
    x, y = node.inputs
    if len(x.shape) < 2 or len(y.shape) < 2 or not (x.dtype is y.dtype and x.dtype in (_dt.float32, _dt.float64)
                                                    or x.dtype in INT_CODES and y.dtype in INT_CODES):
        return False
    (*bx, m, k), (*by, _, n) = x.shape, y.shape
    full = math.prod(tuple(np.broadcast_shapes(tuple(bx), tuple(by))) + (m, k, n))
    return k > 0 and 0 < full and (full <= (MATVEC_PRODUCTS if m == 1 or n == 1 else MATMUL_PRODUCTS)
                                   or _large_taken(node))


def _matmul(order, leaves, node, dtype, node_ids, leaf_ids, out_dtype) -> Program | None:
    """``x @ y`` of (views of) inputs: registers over (..., M, K, N) holding x[..., m, k] *
    y[..., k, n], reduced over K."""
    if not matmul_fits(node):
        return None
    x, y = node.inputs
    (*bx, m, k), (*by, _, n) = x.shape, y.shape
    ctx = tuple(np.broadcast_shapes(tuple(bx), tuple(by))) + (m, k, n)
    full = math.prod(ctx)
    _, _, _, view_of = _viewer(order[:-1], leaves, dtype, node_ids, leaf_ids)
    vx, vy = view_of(x), view_of(y)
    if vx is None or vy is None:
        return None  # a computed operand: ``stages`` realizes it first
    (*sx, xm, xk), (*sy, yk, yn) = vx[3], vy[3]
    if n == 1 and xk != 1 and xm == 1 or m == 1 and yn != 1 and yk == 1:
        # a matrix-vector product whose matrix steps by one along the output's axis (``A.T @ y``,
        # ``y @ A.T``): summed over the contraction as columns, (..., K, M or N), so the matrix is
        # read in its memory's order (the output's order is the same: one of M, N is 1)
        ctx = ctx[:-3] + (k, m * n)
        if n == 1:
            seen_x = (vx[0], vx[1], vx[2][:-2] + (k, m), (*sx, xk, xm))
            seen_y = (vy[0], vy[1], vy[2][:-2] + (k, 1), (*sy, yk, 0))
        else:
            seen_x = (vx[0], vx[1], vx[2][:-2] + (k, 1), (*sx, xk, 0))
            seen_y = (vy[0], vy[1], vy[2][:-2] + (k, n), (*sy, yk, yn))
        inner = m * n
    else:
        seen_x = (vx[0], vx[1], vx[2] + (1,), vx[3] + (0,))  # (..., M, K, 1)
        seen_y = (vy[0], vy[1], vy[2][:-2] + (1,) + vy[2][-2:], vy[3][:-2] + (0,) + vy[3][-2:])  # (..., 1, K, N)
        inner = n
    consts: list[float] = []
    slot_of: dict[int, int] = {}
    instructions = []
    for register, view in enumerate((seen_x, seen_y)):
        layout = _layout(view, ctx, full)
        at = 0
        if layout is not None:
            at = len(consts) + 1
            consts.extend(layout)
        code = INT_CODES[leaves[view[0]].dtype] if dtype is BYTES else 0
        instructions.append((_LOAD, register, slot_of.setdefault(view[0], len(slot_of)), at, code))
    instructions.append((opcode(K.MULTIPLY), 2, 0, 1, 0))  # (narrow sums wrap at the store)
    total = reduce_kind(K.SUM)
    return _program(instructions, 2, total, k, inner, consts, slot_of, total, full // k, dtype, out_dtype=out_dtype)


def _counts(v) -> bool:
    """Whether ``v`` is booleans cast to int64 (what ``sum`` of a mask counts)."""
    n = v.node
    return n is not None and n.op is K.ASTYPE and n.inputs[0].dtype is _dt.bool_ and v.dtype is _dt.int64


def v_is(node, value) -> bool:
    return value.node is node


def _is_alias(node, dtype, registers=None, final=False) -> bool:
    """A node whose value is its input's, element for element, in the program's registers: views
    that keep the order, a single value broadcast, casts to this dtype from itself or from bool
    (stored as 1 / 0); in a coded float program, casts to the registers' dtype (made as an input
    is read) and the result's cast to its dtype (made as it is written)."""
    op = node.op
    kind = view_kind(node.op)
    if kind == "alias" or (kind == "real" and not node.inputs[0].dtype.is_complex):
        return True
    if op is K.BROADCAST_TO:
        return math.prod(node.inputs[0].shape) == 1
    if op is K.ASTYPE:
        src, target = node.inputs[0].dtype, node.kwargs.get("dtype")
        if dtype is BYTES and registers is not None and registers.is_floating:
            return target is registers or (final and target in CODES and target is not _dt.bool_)
        if dtype is BYTES:  # integers: the same values (uint64: the same bits) in int64 registers
            return src is target or (target in INT_CODES and (src is _dt.bool_ or target in (_dt.int64, _dt.uint64)))
        # (an integer source in a float program: positions, ``arange``'s, exact in its registers)
        return target is dtype and (src is dtype or src is _dt.bool_ or src in INT_CODES)
    return False


# --- stages -------------------------------------------------------------------------------------


def _coded_registers(order, out):
    """The registers' float dtype for a coded float program of ``order`` giving ``out``: the one
    float dtype of its float work (casts read their input in it, the result's cast writes its
    dtype), or None when there is no one such dtype, or a value no code reads."""
    floats = set()
    for n in order:
        cast = n.op is K.ASTYPE
        if any(v.dtype not in CODES for v in n.inputs) or (cast and n.kwargs.get("dtype") not in CODES):
            return None
        if cast and n.kwargs["dtype"] is _dt.float16 and n.inputs[0].dtype is _dt.float64 and n is not out.node:
            return None  # (through float32 registers: rounded twice, where NumPy rounds once; the
            # result's cast is the store's, from float64 registers straight to float16: once)
        if cast and n.kwargs["dtype"] is _dt.uint64:
            return None  # (a negative float as uint64 is the platform's: NumPy's wraps, a cast in Mojo need not)
        if cast and n.kwargs["dtype"] is _dt.uint32 and n.inputs[0].dtype is _dt.float16:
            return None  # (NumPy converts float16 through 64 bits: float32 registers would go through 32)
        if not cast or n is out.node:  # (a result's cast reads its input in the registers)
            floats.update(v.dtype for v in n.inputs if v.dtype.is_floating)
        elif n.kwargs["dtype"].is_floating:
            floats.add(n.kwargs["dtype"])
    if out.dtype not in CODES:
        return None
    if out.dtype.is_floating and (out.node is None or out.node.op is not K.ASTYPE):
        floats.add(out.dtype)
    if not floats and out.dtype.is_floating:
        floats.add(out.dtype)
    floats = {_dt.float32 if f is _dt.float16 else f for f in floats}  # (float16 work: ``HALF``)
    return floats.pop() if len(floats) == 1 else None
