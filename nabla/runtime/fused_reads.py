"""What a fused program reads besides its inputs' strided views: ``take`` (a gather at positions a
register holds), concatenations (each part gathered at the axis index less its offset, or a
fill), stacks, and ``arange``'s positions along one axis; and the integer work on indices and
positions that a float program does in its registers."""

from __future__ import annotations

import math

from ..core import dtypes as _dt
from . import op_kinds as K
from .fused_codes import (_AXIS_INDEX, _CONST, _GATHER, _WHERE, CODES, INT_CODES, constant_bits, opcode, reduce_kind,
                          scan_kind)
from .fused_layouts import Unfit as _Unfit
from .fused_layouts import _is_stack, _padded, as_const, merge_axes, release_last_uses


def _index_nodes(body, ref, final_ref, alias, dtype_of) -> frozenset:
    """The nodes whose values only feed a ``take``'s indices (wrapping negatives, raveling several
    arrays) or are made of ``iota`` and constants alone (``arange``): integer work a float program
    may do in its registers, exact up to 2**53 (f32: the gather asks for 2**24), where positions
    below 2**31 live."""
    uses: dict[int, list] = {}
    for j, n in enumerate(body):
        if j in alias:
            continue  # (an alias's consumers use its input: ``ref`` sees through it)
        for k, v in enumerate(n.inputs):
            uses.setdefault(ref(v), []).append((j, k))
    found: set[int] = set()
    for i in range(len(body) - 1, -1, -1):
        mine = uses.get(i)
        if i != final_ref and mine and all((body[j].op is K.TAKE and k == 1) or j in found for j, k in mine):
            found.add(i)
    positions: set[int] = set()  # integers made of ``iota`` and constants alone (``arange``'s)
    for i, n in enumerate(body):
        if reduce_kind(n.op) is None and scan_kind(n.op) is None and dtype_of.get(i) in INT_CODES \
                and dtype_of.get(i) is not _dt.bool_ and all(ref(v) >= 0 and ref(v) in positions for v in n.inputs):
            positions.add(i)
    return frozenset(found | positions)


def _gather(v, axis, span, inner, consts, reading) -> tuple:
    """(_GATHER, data slot, 1 + where its view starts in consts) reading ``v`` (a view of an input)
    along ``axis`` at positions a register holds, element e at its coordinates (outer, m, inner)
    with m in ``span`` (see ``_gather_as`` in kernels/evaluator/fused_slots.mojo)."""
    view_of, lift, slot_of, registers, coded_float, leaves = reading
    found = view_of(v)
    if found is None or found[0] in lift or (registers is _dt.float32 and math.prod(found[2]) >= 2 ** 24):
        raise _Unfit  # (a float32 register holds positions exactly up to 2**24)
    leaf, offset, sizes, strides = found
    others = merge_axes([size, step] for a, (size, step) in enumerate(zip(sizes, strides))
                        if a != axis and size != 1)
    dtype = leaves[leaf].dtype
    code = CODES[dtype] if coded_float else INT_CODES[dtype] if registers is _dt.int64 else 0
    at = len(consts) + 1
    consts.extend(as_const(x) for x in (code, sizes[axis], strides[axis], offset, span, inner, len(others),
                                        *[x for pair in others for x in pair]))
    return _GATHER, slot_of.setdefault(leaf, len(slot_of)), at


def _take(n, result, consts, reading) -> tuple:
    """``take`` of a view of an input at the trace's full shape: a gather at the indices' values."""
    x, idx = n.inputs
    axis = n.kwargs.get("axis", 0)
    if axis >= len(x.shape) or tuple(x.shape[:axis]) + tuple(idx.shape) + tuple(x.shape[axis + 1:]) \
            != tuple(result.shape):
        raise _Unfit
    return _gather(x, axis, math.prod(idx.shape), math.prod(x.shape[axis + 1:]), consts, reading)


def _iota_axis(n, context, result, full) -> tuple:
    """(a, b) of the axis-index opcode for ``iota`` (0, 1, ..., k - 1) as the trace sees it: its
    own order at the trace's shape, or spread along one axis of its context (an ``arange``
    reshaped and broadcast: ``(element // a) % b``)."""
    k = n.kwargs["shape"][0]
    if (k,) == tuple(result.shape) or (context is None and k == full):
        return 1, k
    if context is None:
        raise _Unfit
    ctx, seen = context
    seen = _padded(seen, len(ctx))
    axes = [a for a, d in enumerate(seen) if d != 1]
    if len(axes) != 1 or seen[axes[0]] != k or ctx[axes[0]] != k or math.prod(ctx) != full:
        raise _Unfit
    return math.prod(ctx[axes[0] + 1:]), k


def _concat(n, i, result, ints, register, ref, uses, free, reg_of, instructions, consts, reading) -> None:
    """A concatenation at the trace's full shape: each part gathered from its input at the axis
    index less its offset, chosen by where the axis index falls (parts that are fills: their
    value). Parts that are computed are realized first (``stages``)."""
    axis = n.kwargs["axis"]
    shape = tuple(result.shape)
    parts, offset = [], 0  # (each part and where it starts along the axis: a running sum, where
    # a sum per part made a join of 16,000 parts 128M steps)
    for v in n.inputs:
        if v.shape[axis]:
            parts.append((v, offset))
        offset += v.shape[axis]
    first = tuple(n.inputs[0].shape)
    if not parts or first[:axis] + (offset,) + first[axis + 1:] != shape \
            or len(free) < 5:
        raise _Unfit  # (a concatenation at the trace's full shape only: its result is in element order)
    inner = math.prod(shape[axis + 1:])
    c, dst, tmp, value, mask = (free.pop() for _ in range(5))

    def constant(k) -> None:
        instructions.append((_CONST, tmp, len(consts), 0, 0))
        consts.append(constant_bits(k, ints))

    instructions.append((_AXIS_INDEX, c, inner, shape[axis], 0))
    for j in range(len(parts) - 1, -1, -1):
        v, offset = parts[j]
        if v.node is not None and v.node.op in (K.FULL, K.CONSTANT):
            source = register(ref(v))  # a fill: one value everywhere
        else:
            code, slot, at = _gather(v, axis, shape[axis], inner, consts, reading)
            constant(offset)
            instructions.append((opcode(K.SUBTRACT), value, c, tmp, 0))
            instructions.append((code, value, slot, value, at))
            source = value
        if j == len(parts) - 1:
            instructions.append((opcode(K.POSITIVE), dst, source, 0, 0))
        else:
            constant(parts[j + 1][1])
            instructions.append((opcode(K.LESS), mask, c, tmp, 0))
            instructions.append((_WHERE, dst, mask, source, dst))
    free.extend((c, tmp, value, mask))
    release_last_uses(map(ref, n.inputs), i, uses, reg_of, free)
    reg_of[i] = dst


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
    instructions.append((opcode(K.POSITIVE), dst, regs_in[-1], 0, 0))
    for j in range(len(parts) - 2, -1, -1):
        instructions.append((_CONST, j_reg, len(consts), 0, 0))
        consts.append(constant_bits(j, ints))
        instructions.append((opcode(K.EQUAL), mask, index, j_reg, 0))
        instructions.append((_WHERE, dst, mask, regs_in[j], dst))
    free.extend((index, mask, j_reg))
    release_last_uses(map(ref, parts), i, uses, reg_of, free)
    reg_of[i] = dst
