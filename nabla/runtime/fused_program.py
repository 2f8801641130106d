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

What the trace's views are is found in ``fused_views``, a matmul is written in ``fused_matmul``,
gathers and concatenations in ``fused_reads``, and a program is packed by ``fused_format``.
"""

from __future__ import annotations

import math

import numpy as np

from ..core import dtypes as _dt
from ..core.operation import OPS
from . import op_kinds as K
from .fused_codes import (_AXIS_INDEX, _CONST, _GATHER, _LOAD, _REGISTERS, _WHERE, _WRAP, BYTE_CODES, BYTES, CODES, HALF,
                          HEADER, INT_CODES,
                          SLOTS, _unsigned_order, arg_reduce, constant_bits, elementwise_facts, opcode, reduce_kind,
                          scan_kind, view_kind)
from .fused_format import Program, pack_program
from .fused_layouts import Unfit as _Unfit
from .fused_layouts import _is_stack, _layouts, _reduced_run, release_last_uses
from .fused_matmul import _matmul
from .fused_reads import _concat, _index_nodes, _iota_axis, _stack, _take
from .fused_views import _viewer, counted_cast


def write(order, leaves, outputs, node_ids, leaf_ids) -> Program | None:
    """The program for a trace, or None when the fused kernel cannot run it."""
    if len(outputs) != 1 or not order:
        return None
    out = outputs[0]
    if not out.device.is_host:
        return None
    if out.dtype is _dt.bool_ and out.node is order[-1]:
        made = _float_map_to_bools(order, leaves, out, node_ids, leaf_ids)
        if made is not None:
            return made
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
        if registers is not None and scan_kind(last.op) is not None and out.node is last \
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
    elif scan_kind(last.op) is not None and out.node is last:  # a running combine: the scan model
        result = last.inputs[0]
        split = _reduced_run(result.shape, (last.kwargs["axis"],))
        if split is None or result.shape[last.kwargs["axis"]] == 0 or (ints and _unsigned_order(last)):
            return None  # (a running max or min of uint64 data: recorded, for MAX's graphs)
        rows, inner = split
        # (the header's kind: the direction, 1 forward or 2 reverse, plus four times the combine's kind)
        scan = (2 if last.kwargs.get("reverse") else 1) + 4 * scan_kind(last.op)
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
    parts = None if reduce or scan or dtype is BYTES or test is not None else _parts(out, order)
    if parts is not None:  # a complex result: its parts computed over its elements, stored as (re, im) pairs
        try:
            return _write(order[:-1], leaves, parts[0], full // 2, dtype, node_ids, leaf_ids, reduce, rows, inner,
                          count, scan, out.dtype, lift, registers, unsigned, parts[1])
        except _Unfit:
            pass  # (its parts not written apart: the stack at the storage's shape)
    try:
        program = _write(body, leaves, result, full, dtype, node_ids, leaf_ids, reduce, rows, inner, count, scan,
                         _dt.bool_ if test is not None and dtype is BYTES else out.dtype, lift, registers, unsigned)
        if test is not None:
            _add_test(program, test, node_ids[id(test[2])], ints)
        elif ints and not reduce and not scan:
            program.byte_registers = _bools_alone(program, body, leaves, out)
        return program
    except _Unfit:
        return None


def _float_map_to_bools(order, leaves, out, node_ids, leaf_ids) -> Program | None:
    """A map of float data of one dtype to a bool result (``r < c``, ``(c1 <= r) & (r < c2)``) as the
    float family's program, each value stored as a byte, or None: its loads in place and its
    constants filled once per task, where the coded family's copies each load and fills each
    constant per block (``r < c`` over 400,000 float64: 185 -> 73 us of kernel)."""
    last = order[-1]
    if not leaves or leaves[0].dtype not in (_dt.float32, _dt.float64) or len(leaves) > SLOTS \
            or any(leaf.dtype is not leaves[0].dtype for leaf in leaves) or reduce_kind(last.op) is not None \
            or scan_kind(last.op) is not None or last.op is K.MATMUL:
        return None
    full = math.prod(out.shape)
    if not 0 < full < 2 ** 31:
        return None
    try:
        return _write(order, leaves, out, full, leaves[0].dtype, node_ids, leaf_ids, 0, 1, 1, False, 0, _dt.bool_)
    except _Unfit:
        return None  # (the coded family's, as before)


def _write(body, leaves, result, full, dtype, node_ids, leaf_ids, reduce, rows, inner, count, scan,
           out_dtype, lift=frozenset(), registers=None, unsigned=False, pair=None) -> Program:
    """The program of ``body`` computing ``result`` (reduced or scanned as asked). ``unsigned``: the
    reduction orders uint64 values, so each value's sign bit is flipped first (unsigned order is
    signed order of ``x ^ 2**63``), and the kernel flips a max's or min's result back. ``pair``: a
    complex result's imaginary parts (``result`` its real ones), stored with them as (re, im) pairs."""
    registers = registers or (_dt.int64 if dtype is BYTES else dtype)
    alias, views, ref, view_of = _viewer(body, leaves, dtype, node_ids, leaf_ids, count, result, registers,
                                         not (reduce or scan))
    ints = registers is _dt.int64
    coded_float = dtype is BYTES and not ints
    index = _index_nodes(body, ref, ref(result), alias, _dtypes(body, result, node_ids)) \
        if registers.is_floating else frozenset()
    dtype_of = _dtypes(body, result, node_ids) if ints or coded_float else {}
    contexts: dict = {}
    loads = _layouts(body, result, full, ref, alias, views, node_ids, view_of, contexts, pair)
    uses: dict[int, int] = {}
    for i, n in enumerate(body):
        for v in n.inputs:
            uses[ref(v)] = i
    final = ref(result)
    uses[final] = len(body)
    if pair is not None:
        uses[ref(pair)] = len(body)
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
    pair_register = None if pair is None else register(ref(pair))
    if unsigned:
        if not free:
            raise _Unfit
        sign = free.pop()
        instructions.append((_CONST, sign, len(consts), 0, 0))
        consts.append(constant_bits(-2 ** 63, True))
        instructions.append((opcode(K.BITWISE_XOR), result_register, result_register, sign, 0))
    size = full // rows if reduce else 2 * full if pair is not None else full
    made = pack_program(instructions, result_register, reduce or scan, rows, inner, consts, slot_of, reduce, size,
                         dtype, count and dtype is not BYTES, scan, tuple(lifted), out_dtype, tuple(lifted_at.items()),
                         registers, pair_register)
    if unsigned and out_dtype is _dt.uint64:  # (a max or min: the kernel flips it back, told by its code)
        made.program[5] = CODES[_dt.uint64]
    return made


def _parts(out, order):
    """(real parts, imaginary parts) of a complex result written as a stack of its parts on the
    storage's trailing axis (``fused_complex``'s ``pack``: each part a value of the complex shape,
    reshaped to one step of the axis), both of its float dtype; None for any other result. The
    program then runs over the complex elements, not the storage's, and stores the pairs: each part
    computed once per element, no index test and select per element of the storage."""
    n = out.node
    if n is not order[-1] or not _is_stack(n) or len(n.inputs) != 2 or n.kwargs["axis"] != len(out.shape) - 1 \
            or out.shape[-1] != 2 or out.dtype not in (_dt.float32, _dt.float64):
        return None
    parts = []
    for v in n.inputs:
        m = v.node
        if m is None or m.op is not K.RESHAPE or m.inputs[0].shape != out.shape[:-1] \
                or m.inputs[0].dtype is not out.dtype:
            return None
        parts.append(m.inputs[0])
    return tuple(parts)


def _identity_fill(op, out, dtype, registers) -> Program | None:
    """A program without inputs that fills the output with the identity of ``op`` (sum, prod)."""
    size = math.prod(out.shape)
    if (op is not K.SUM and op is not K.PROD) or size == 0 or size >= 2 ** 31 \
            or (dtype is not BYTES and out.dtype is not dtype):
        return None
    value = constant_bits(int(op is K.PROD), registers is _dt.int64)
    return pack_program([(_CONST, 0, 0, 0, 0)], 0, 0, 1, 1, [value], {}, 0, size, dtype, out_dtype=out.dtype,
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


def _counts(v) -> bool:
    """Whether ``v`` is booleans cast to int64 (what ``sum`` of a mask counts), seen through views
    that keep the order (a whole array's ``sum`` reshapes it first: ``(r < 0.5).sum()``)."""
    n = v.node
    while n is not None and view_kind(n.op) == "alias":
        v = n.inputs[0]
        n = v.node
    return n is not None and counted_cast(n) and v.dtype is _dt.int64


def _bools_alone(program: Program, body, leaves, out) -> bool:
    """Whether an integer program's map is of bools alone, each value 0 or 1 (bool data and
    constants, ops whose row says ``Fused.bytes``, ``where``): the byte family then runs it, in
    registers of one byte, 32 values to a SIMD step where int64 registers hold 4 (``m1 & m2`` over
    400,000 bools: 134 -> 23 us)."""
    if out.dtype is not _dt.bool_ or program.lifted_leaves or any(leaf.dtype is not _dt.bool_ for leaf in leaves) \
            or any(body[i].kwargs.get("dtype") is not _dt.bool_ for i, _ in program.lifted):
        return False
    bits = program.consts.view(np.int64)
    for op, _, a, _, _ in program.program[HEADER:].reshape(-1, 5).tolist():
        if op == _CONST:
            if bits[a] not in (0, 1):
                return False
        elif op != _LOAD and op != _WHERE and op not in BYTE_CODES:
            return False
    return True


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
