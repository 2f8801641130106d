"""Traces written as programs for the fused kernel (``kernels/core/fused.mojo``).

A program is a list of 5-int instructions over registers that each hold one block of the trace's
elements. Every value in a register is spread to the trace's full shape; inputs are read through
strided layouts (NumPy's view model: an offset and a stride per axis), so basic slices, transposes
and broadcasts of an input cost no instruction and no copy. A trace whose reductions feed more
work, or that has several results, is run in stages (``stages``).

Two families: float traces (everything of one float dtype; the registers hold it) and integer
traces (bool and every integer dtype, mixed: int64 registers, data passed as bytes and read and
written through dtype codes, narrow results wrapped after each op as NumPy's arithmetic wraps;
uint64 is int64's bits, so only the ops whose bits do not depend on the sign take it).
"""

from __future__ import annotations

import math

import numpy as np

from ..core import dtypes as _dt
from .fused_layouts import Unfit as _Unfit
from .fused_layouts import _contiguous, _layout, _layouts, _reduced_run, _restride, _through

#: op name -> opcode of kernels/core/fused.mojo
UNARY_CODES = {
    "negative": 10, "abs": 11, "square": 12, "reciprocal": 13, "exp": 14, "expm1": 15, "log": 16,
    "log1p": 17, "sqrt": 18, "sin": 19, "cos": 20, "tanh": 21, "floor": 22, "ceil": 23, "trunc": 24,
    "sign": 25, "isnan": 26, "isinf": 27, "isfinite": 28, "logical_not": 29, "positive": 30,
    "bitwise_invert": 31, "signbit": 32,
}
BINARY_CODES = {
    "add": 40, "subtract": 41, "multiply": 42, "divide": 43, "maximum": 44, "minimum": 45,
    "equal": 46, "not_equal": 47, "greater": 48, "greater_equal": 49, "less": 50, "less_equal": 51,
    "logical_and": 52, "logical_or": 53, "logical_xor": 54,
    "bitwise_and": 55, "bitwise_or": 56, "bitwise_xor": 57,
}
#: on booleans the bitwise ops are the logical ones
_ON_BOOLS = {"bitwise_and": "logical_and", "bitwise_or": "logical_or", "bitwise_xor": "logical_xor",
             "bitwise_invert": "logical_not"}
#: codes only the integer family runs (the float family: signbit only)
_INT_ONLY = frozenset({"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert"})
REDUCE_CODES = {"sum": 1, "mean": 2, "max": 3, "min": 4, "prod": 5}
_LOAD, _CONST, _WHERE, _WRAP, _AXIS_INDEX = 0, 1, 60, 61, 62
#: the most parts a stack (a concat of one-step parts) is written for: each holds a register
_STACK_PARTS = 8
#: the integer family's dtypes -> their codes in kernels/core/fused.mojo
INT_CODES = {_dt.bool_: 0, _dt.int8: 1, _dt.int16: 2, _dt.int32: 3, _dt.int64: 4, _dt.uint8: 5, _dt.uint16: 6,
             _dt.uint32: 7, _dt.uint64: 4}
#: ops whose result on uint64 operands differs from their int64 bits' (order, magnitude): elsewhere
_SIGNED_ONLY = frozenset({"abs", "sign", "maximum", "minimum", "greater", "greater_equal", "less", "less_equal",
                          "max", "min"})
#: what the integer family's programs take as data: bytes
BYTES = _dt.uint8
_INT_UNARY = frozenset({"negative", "abs", "square", "floor", "ceil", "trunc", "sign", "isnan", "isinf", "isfinite",
                        "logical_not", "positive", "bitwise_invert"})
#: integer ops whose results wrap to a narrow dtype
_WRAPPING = frozenset({"negative", "abs", "square", "add", "subtract", "multiply", "bitwise_invert"})
#: views that keep the elements' order: an alias in the program
_ORDER_KEEPING = frozenset({"reshape", "expand_dims", "squeeze", "identity"})
#: ops that are the identity on real values
_REAL_IDENTITIES = frozenset({"conj", "real"})
#: views an input's strided layout expresses
_STRIDED = frozenset({"getitem", "permute_dims", "broadcast_to", "broadcast_physical"})
SLOTS = 4
_REGISTERS = 24
#: n_instructions, result register, reduction (or scan) kind, reduced extent r, inner extent, output code,
#: the reduced values' test (0 none, 2 ``> c``, 1 not ``> c``) and c's index in the constants
HEADER = 8


class Program:
    """What ``write`` makes of a trace: the program, its constants (layouts included), which leaf
    feeds each data slot, the reduction kind and the output's size."""

    __slots__ = ("program", "consts", "slots", "reduce", "size", "dtype", "count", "scan", "lifted", "out_dtype",
                 "lifted_leaves", "test")

    def __init__(self, program, consts, slots, reduce, size, dtype, count, scan, lifted=(), out_dtype=None,
                 lifted_leaves=()):
        self.program, self.consts, self.slots, self.reduce, self.size = program, consts, slots, reduce, size
        self.dtype = dtype  # of the inputs and the registers (BYTES: the integer family)
        self.out_dtype = out_dtype or dtype  # the integer family's result dtype
        self.count = count  # a sum of 1 / 0 whose result is int64
        self.scan = scan  # a running sum: 1 forward, 2 reverse
        self.lifted = lifted  # (trace position of a scalar constant, its index in consts): data per run
        self.lifted_leaves = lifted_leaves  # (leaf of one element, its index in consts): read per run
        self.test = 0  # the reduced values' test (``any`` / ``all`` of a count), as in the header


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
    ints = out.dtype in INT_CODES and all(leaf.dtype in INT_CODES for leaf in leaves)
    dtype = BYTES if ints else out.dtype
    count = not ints and out.dtype is _dt.int64 and last.op.name == "sum" and out.node is last \
        and _counts(last.inputs[0])
    if count:  # a count of true values: 1 / 0 in registers of the inputs' float dtype
        dtype = leaves[0].dtype if leaves and leaves[0].dtype in (_dt.float32, _dt.float64) else None
    if dtype not in (_dt.float32, _dt.float64, BYTES) or (ints and last.op.name in ("mean", "cumulative_sum")):
        return None
    reduce, rows, inner = 0, 1, 1
    result = out
    body = order
    scan = 0
    if last.op.name in REDUCE_CODES and out.node is last:
        result = last.inputs[0]
        split = _reduced_run(result.shape, last.kwargs.get("axes", ())) if result.shape else (1, 1)
        if split is None:
            return None
        rows, inner = split
        if rows == 0:  # a sum or product over nothing: its identity everywhere
            return None if test is not None else _identity_fill(last.op.name, out, dtype)
        if ints and _unsigned_order(last):
            return None
        reduce = REDUCE_CODES[last.op.name]
        body = order[:-1]
    elif last.op.name == "cumulative_sum" and out.node is last:  # a running sum: the scan model
        result = last.inputs[0]
        split = _reduced_run(result.shape, (last.kwargs["axis"],))
        if split is None or result.shape[last.kwargs["axis"]] == 0:
            return None
        rows, inner = split
        scan = 2 if last.kwargs.get("reverse") else 1
        body = order[:-1]
    elif last.op.name == "matmul" and out.node is last:
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
            any(leaf.dtype is not dtype and not ints for leaf in leaves):
        return None
    if test is not None and (not reduce or (not ints and (not count or math.prod(outputs[0].shape) != 1))):
        return None  # (the float family's count is int64 data: read as one bool only when it is one value)
    try:
        program = _write(body, leaves, result, full, dtype, node_ids, leaf_ids, reduce, rows, inner, count, scan,
                         _dt.bool_ if test is not None and ints else out.dtype, lift)
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
    if any((n.op.name not in _ORDER_KEEPING and n.op.name != "getitem") or "complex_storage" in n.kwargs
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


def _viewer(body, leaves, dtype, node_ids, leaf_ids, count=False, result=None):
    """What the trace's views are: value ids (leaves -(k+1), node outputs by node index), with
    order-keeping views and free casts as aliases of their input and strided views of an input as
    loads of it. Returns (alias, views, ref, view_of)."""
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
        strides = _restride(found[2], found[3], tuple(v.shape if shape is None else shape))
        if strides is None:
            raise _Unfit
        return found[0], found[1], tuple(v.shape if shape is None else shape), strides

    for i, n in enumerate(body):
        if "complex_storage" in n.kwargs or "src_complex" in n.kwargs:
            raise _Unfit
        if _is_alias(n, dtype) or (count and v_is(n, result)):
            alias[i] = ref(n.inputs[0])
        elif n.op.name in _STRIDED:
            found = view_of(n.inputs[0])
            if found is not None:
                views[i] = _through(n, found)
            elif n.op.name not in ("broadcast_to", "broadcast_physical"):
                raise _Unfit  # a slice or transpose of a computed value: ``stages`` realizes it first
    return alias, views, ref, view_of


def _write(body, leaves, result, full, dtype, node_ids, leaf_ids, reduce, rows, inner, count, scan,
           out_dtype, lift=frozenset()) -> Program:
    alias, views, ref, view_of = _viewer(body, leaves, dtype, node_ids, leaf_ids, count, result)
    ints = dtype is BYTES
    dtype_of = _dtypes(body, result, node_ids) if ints else {}
    loads = _layouts(body, result, full, ref, alias, views, node_ids, view_of)
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
        instructions.append((_LOAD, r, slot, at, INT_CODES[leaves[leaf].dtype] if ints else 0))
        return r

    for i, n in enumerate(body):
        if ints and dtype_of.get(i, _dt.int64) not in INT_CODES:  # (a float intermediate; unused: a test's bound)
            raise _Unfit
        if ints and _unsigned_order(n):
            raise _Unfit
        if i in alias or i in views:
            continue
        name = n.op.name
        if name in _ON_BOOLS and all(v.dtype is _dt.bool_ for v in n.inputs):
            name = _ON_BOOLS[name]
        elif name in _INT_ONLY and not ints:
            raise _Unfit
        if name == "concat":
            _stack(n, i, result, ints, register, ref, uses, free, reg_of, instructions, consts)
            continue
        if name == "iota":  # positions: the element's own index, where the trace's shape is iota's
            if tuple(n.kwargs["shape"]) != tuple(result.shape):
                raise _Unfit  # (broadcast or reshaped, its values no longer follow the element order)
            args, code = (), (_AXIS_INDEX, 1, full)
        elif name in ("constant", "full"):  # a fill (full) is the same value everywhere, whatever its shape
            value = n.kwargs["value"]
            if isinstance(value, complex):
                raise _Unfit
            args, code = (), (_CONST, len(consts))
            if name == "constant":
                lifted.append((i, len(consts)))
            consts.append(constant_bits(value, ints))
        elif ints and (name in UNARY_CODES and name not in _INT_UNARY or name == "divide"):
            raise _Unfit  # float results
        elif ints and name == "astype":  # to a narrower or other-signed integer, or to bool
            target = n.kwargs.get("dtype")
            if target not in INT_CODES:
                raise _Unfit
            args, code = n.inputs, (_WRAP, INT_CODES[target])
        elif name in UNARY_CODES:
            args, code = n.inputs, (UNARY_CODES[name],)
        elif name in BINARY_CODES:
            args, code = n.inputs, (BINARY_CODES[name],)
        elif name == "where":
            args, code = n.inputs, (_WHERE,)
        elif name in ("broadcast_to", "broadcast_physical"):  # of a computed value: its register spreads it
            args, code = n.inputs, (UNARY_CODES["positive"],)
        else:
            raise _Unfit
        regs_in = [register(ref(v)) for v in args]
        for v in set(map(ref, args)):  # last use: the register is free for this result
            if uses.get(v) == i and v in reg_of:
                free.append(reg_of.pop(v))
        if not free:
            raise _Unfit
        dst = reg_of[i] = free.pop()
        if code[0] == _CONST:
            instructions.append((_CONST, dst, code[1], 0, 0))
        elif code[0] == _AXIS_INDEX:
            instructions.append((_AXIS_INDEX, dst, code[1], code[2], 0))
        elif code[0] == _WRAP:
            instructions.append((_WRAP, dst, regs_in[0], code[1], 0))
        else:
            instructions.append((code[0], dst, *(regs_in + [0, 0, 0])[:3]))
            narrow = dtype_of.get(i)
            if name in _WRAPPING and narrow is not None and INT_CODES[narrow] != INT_CODES[_dt.int64]:
                instructions.append((_WRAP, dst, dst, INT_CODES[narrow], 0))
    result_register = register(final)
    size = full // rows if reduce else full
    return _program(instructions, result_register, reduce or scan, rows, inner, consts, slot_of, reduce, size,
                    dtype, count, scan, tuple(lifted), out_dtype, tuple(lifted_at.items()))


def _program(instructions, result_register, kind, rows, inner, consts, slot_of, reduce, size, dtype, count=False,
             scan=0, lifted=(), out_dtype=None, lifted_leaves=()) -> Program:
    """The instructions packed behind their header, the data slots in the order they were given."""
    program = np.zeros(HEADER + 5 * len(instructions), np.int32)
    out_code = INT_CODES[out_dtype] if dtype is BYTES else 0
    program[:HEADER] = (len(instructions), result_register, kind, rows, inner, out_code, 0, 0)
    program[HEADER:] = np.asarray(instructions, np.int32).reshape(-1)
    slots = [leaf for leaf, _ in sorted(slot_of.items(), key=lambda kv: kv[1])]
    return Program(program, np.asarray(consts or [0.0], np.float64), slots, reduce, size, dtype, count, scan, lifted,
                   out_dtype, lifted_leaves)


def _is_stack(n) -> bool:
    """Whether ``n`` is a concat the kernel writes: parts each one step along its axis (``stack``)."""
    if n.op.name != "concat":
        return False
    axis, parts = n.kwargs["axis"], n.inputs
    return 1 < len(parts) <= _STACK_PARTS and all(v.shape[axis] == 1 for v in parts)


def _stack(n, i, result, ints, register, ref, uses, free, reg_of, instructions, consts) -> None:
    """A concat whose parts are each one step along its axis (``stack``), at the trace's full shape:
    the index along the axis picks each element's part (``where(index == j, part_j, ...)``)."""
    axis = n.kwargs["axis"]
    shape = tuple(result.shape)
    parts = n.inputs
    if not _is_stack(n) or any(len(v.shape) != len(shape) for v in parts) or shape[axis] != len(parts) \
            or tuple(parts[0].shape[:axis] + parts[0].shape[axis + 1:]) != shape[:axis] + shape[axis + 1:]:
        raise _Unfit
    regs_in = [register(ref(v)) for v in parts]
    if len(free) < 4:
        raise _Unfit
    index, mask, j_reg, dst = free.pop(), free.pop(), free.pop(), free.pop()
    instructions.append((_AXIS_INDEX, index, math.prod(shape[axis + 1:]), len(parts), 0))
    instructions.append((UNARY_CODES["positive"], dst, regs_in[-1], 0, 0))
    for j in range(len(parts) - 2, -1, -1):
        instructions.append((_CONST, j_reg, len(consts), 0, 0))
        consts.append(constant_bits(j, ints))
        instructions.append((BINARY_CODES["equal"], mask, index, j_reg, 0))
        instructions.append((_WHERE, dst, mask, regs_in[j], dst))
    free.extend((index, mask, j_reg))
    for v in set(map(ref, parts)):  # last use: the register is free again
        if uses.get(v) == i and v in reg_of:
            free.append(reg_of.pop(v))
    reg_of[i] = dst


def _identity_fill(name, out, dtype) -> Program | None:
    """A program without inputs that fills the output with the identity of ``name`` (sum, prod)."""
    size = math.prod(out.shape)
    if name not in ("sum", "prod") or size == 0 or size >= 2 ** 31 or (dtype is not BYTES and out.dtype is not dtype):
        return None
    value = constant_bits(int(name == "prod"), dtype is BYTES)
    return _program([(_CONST, 0, 0, 0, 0)], 0, 0, 1, 1, [value], {}, 0, size, dtype, out_dtype=out.dtype)


def constant_bits(value, ints: bool) -> float:
    """A constant as the kernel reads it: its float value, or (integer family: a constant of an
    integer or bool dtype) its int64 bits."""
    if ints:
        return float(np.array([int(value) % 2 ** 64], np.uint64).view(np.float64)[0])
    return float(value)


def _count_test(order, out):
    """``greater(sum(...), c)``, or its ``logical_not``, ending a trace (``any`` and ``all`` count in
    int64, then test the count): (2, or 1 when negated; the sum's value; c's node; where the sum's
    trace ends in ``order``), or None."""
    node, kind = out.node, 2
    if out.dtype is not _dt.bool_ or node is not order[-1]:
        return None
    if node.op.name == "logical_not":
        node, kind = node.inputs[0].node, 1
    if node is None or node.op.name != "greater":
        return None
    total, bound = node.inputs
    if total.node is None or total.node.op.name != "sum" or total.dtype is not _dt.int64 \
            or bound.node is None or bound.node.op.name != "constant" or bound.shape != ():
        return None
    end = next(i for i, n in enumerate(order) if n is total.node) + 1
    if not all(n is node or n is out.node or n is bound.node for n in order[end:]):
        return None
    return kind, total, bound.node, end


def _tested(n, v) -> bool:
    """Whether ``n`` is ``v > c`` of a count ``v`` (``sum`` in int64) and a constant ``c``."""
    bound = n.inputs[-1].node
    return n.op.name == "greater" and n.inputs[0] is v and v.dtype is _dt.int64 and v.node.op.name == "sum" \
        and bound is not None and bound.op.name == "constant"


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


def _unsigned_order(n) -> bool:
    """Whether ``n`` orders or measures uint64 values (int64 registers would see large ones as negative)."""
    return n.op.name in _SIGNED_ONLY and any(v.dtype is _dt.uint64 for v in n.inputs)


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
#: compile costs 10-40 s
MATMUL_PRODUCTS = 1 << 18


def _matmul(order, leaves, node, dtype, node_ids, leaf_ids, out_dtype) -> Program | None:
    """``x @ y`` of (views of) inputs: registers over (..., M, K, N) holding x[..., m, k] *
    y[..., k, n], reduced over K."""
    if node.kwargs.get("complex_storage"):
        return None
    x, y = node.inputs
    if len(x.shape) < 2 or len(y.shape) < 2:
        return None
    (*bx, m, k), (*by, _, n) = x.shape, y.shape
    ctx = tuple(np.broadcast_shapes(tuple(bx), tuple(by))) + (m, k, n)
    full = math.prod(ctx)
    if k == 0 or full == 0 or full > MATMUL_PRODUCTS:
        return None
    _, _, _, view_of = _viewer(order[:-1], leaves, dtype, node_ids, leaf_ids)
    vx, vy = view_of(x), view_of(y)
    if vx is None or vy is None:
        return None  # a computed operand: ``stages`` realizes it first
    seen_x = (vx[0], vx[1], vx[2] + (1,), vx[3] + (0,))  # (..., M, K, 1)
    seen_y = (vy[0], vy[1], vy[2][:-2] + (1,) + vy[2][-2:], vy[3][:-2] + (0,) + vy[3][-2:])  # (..., 1, K, N)
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
    instructions.append((BINARY_CODES["multiply"], 2, 0, 1, 0))  # (narrow sums wrap at the store)
    total = REDUCE_CODES["sum"]
    return _program(instructions, 2, total, k, n, consts, slot_of, total, full // k, dtype, out_dtype=out_dtype)


def _counts(v) -> bool:
    """Whether ``v`` is booleans cast to int64 (what ``sum`` of a mask counts)."""
    n = v.node
    return n is not None and n.op.name == "astype" and n.inputs[0].dtype is _dt.bool_ and v.dtype is _dt.int64


def v_is(node, value) -> bool:
    return value.node is node


def _is_alias(node, dtype) -> bool:
    """A node whose value is its input's, element for element, in the program's registers: views
    that keep the order, a single value broadcast, casts to this dtype from itself or from bool
    (stored as 1 / 0)."""
    name = node.op.name
    if name in _ORDER_KEEPING or (name in _REAL_IDENTITIES and not node.inputs[0].dtype.is_complex):
        return True
    if name == "broadcast_to":
        return math.prod(node.inputs[0].shape) == 1
    if name == "astype":
        src, target = node.inputs[0].dtype, node.kwargs.get("dtype")
        if dtype is BYTES:  # integers: the same values (uint64: the same bits) in int64 registers
            return src is target or (target in INT_CODES and (src is _dt.bool_ or target in (_dt.int64, _dt.uint64)))
        return target is dtype and (src is dtype or src is _dt.bool_)
    return False


# --- stages -------------------------------------------------------------------------------------

_STAGEABLE = frozenset(UNARY_CODES) | frozenset(BINARY_CODES) | frozenset(REDUCE_CODES) | _ORDER_KEEPING \
    | _STRIDED | _REAL_IDENTITIES | {"where", "constant", "astype", "cumulative_sum", "full", "iota"}
_STAGE_DTYPES = (_dt.float32, _dt.float64, *INT_CODES)


def _unfit(n) -> bool:
    """Whether node ``n`` is no op of the kernel's, whatever its operands."""
    return (n.op.name not in _STAGEABLE and not _is_stack(n)) or "complex_storage" in n.kwargs \
        or "src_complex" in n.kwargs \
        or (n.op.name in _INT_ONLY and any(v.dtype not in INT_CODES for v in n.inputs)) or _unsigned_order(n)


def fits_alone(n, results) -> bool:
    """Whether the kernel takes node ``n`` run alone, its operands realized, giving ``results``: a
    trace run node by node (``standalone.split``) needs no single-op model for it. A program is
    of one family, a float dtype or the integers with bool (a float comparison's bool result, a
    cast between families: elsewhere). Where this errs, the node asks for its model when it runs."""
    values = (*n.inputs, *results)
    if _unfit(n) or any(v.dtype not in _STAGE_DTYPES or not v.device.is_host for v in values):
        return False
    return len({"int" if v.dtype in INT_CODES else v.dtype for v in values}) == 1


def stages(order, outputs) -> list:
    """The values to realize first so that more of a trace runs on the kernel. In a trace of the
    kernel's ops: a reduction that feeds more work (``(x - mean(x, axis=0)) / std(x, axis=0)``), a
    computed value that is sliced or transposed,
    each of several results. In a trace with other ops (a matmul): the kernel's work on their
    operands, and their results that the kernel's ops use, so that only those ops are left to the
    interpreter (or single-op models). [] when there is nothing to stage."""
    first: list = []

    def add(v):
        if v.node is not None and all(v is not u for u in first):
            first.append(v)

    foreign = {id(n) for n in order if _unfit(n)}
    if foreign:
        for n in order:
            for v in n.inputs:
                below = _first_computed(v)
                if below is None or below.node.op.name == "constant":
                    continue
                if id(n) in foreign and id(below.node) not in foreign and below.dtype in _STAGE_DTYPES \
                        and below.dtype is not _dt.bool_:
                    add(below)  # an operand the kernel computes
                elif id(n) not in foreign and id(below.node) in foreign:
                    add(below)  # a result the kernel's ops go on with
        return first
    if any(v.dtype not in _STAGE_DTYPES or not v.device.is_host for n in order for v in n.inputs):
        return []
    for n in order:
        for v in n.inputs:
            if v.node is None:
                continue
            if v.node.op.name in REDUCE_CODES or v.node.op.name == "cumulative_sum":
                if len(outputs) > 1 and _tested(n, v):
                    continue  # a count only its test reads: with that test, the program of a result
                add(v)  # a reduction or a scan ends a program
            elif n.op.name in ("getitem", "permute_dims") and _first_computed(v) is not None:
                add(v)
    if not first and len(outputs) > 1:  # the kernel has one output: one program per result
        position = {id(n): i for i, n in enumerate(order)}
        first = sorted(outputs, key=lambda v: position[id(v.node)])
    return first


def deferrable(impl) -> bool:
    """Whether a pending tensor is a view (slices, transposes, broadcasts, reshapes) of realized host
    data: left pending by a joint run, it costs a strided load in whatever reads it, where
    realizing it is a run of its own (an element check's slices of each stack it compares)."""
    if len(impl._values) != 1 or impl.sharding is not None:
        return False
    v = impl._values[0]
    while v.node is not None:
        if v.node.op.name not in _ORDER_KEEPING and v.node.op.name not in _STRIDED:
            return False
        v = v.node.inputs[0]
    return v.device.is_host


def _first_computed(v):
    """The computed value that ``v`` is a view of (or is), None for a view of a leaf."""
    while v.node is not None:
        if v.node.op.name not in _ORDER_KEEPING and v.node.op.name not in _STRIDED:
            return v
        v = v.node.inputs[0]
    return None
