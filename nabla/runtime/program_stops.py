"""Where the scheduler's cuts stop (``program.py``): the nodes that are stages of their own kinds
(slice writes, row writes and additions, coordinates of true elements) and the work no stage of the
program kernel does (foreign: it runs alone on the engine's other paths, between kernel calls)."""

from __future__ import annotations

from ..core import dtypes as _dt
from ..ops.index_primitives import nonzero_op, scatter_add_op, scatter_op, set_slice_op
from ..ops.linalg import matmul_op
from ..ops.multi_output import concat_op
from .fused_codes import CODES
from .fused_matmul import matmul_fits
from .fused_stages import _unfit

#: ops whose work is a stage of its own kind, never part of a program of the fused evaluator
_OWN_KIND = frozenset((set_slice_op, scatter_op, scatter_add_op, nonzero_op))


def foreign(node) -> bool:
    """Whether ``node`` is work no stage of the program kernel does: it runs alone, on the engine's
    other paths (a single-op model, MAX's interpreter, a compiled model), between kernel calls."""
    found = _FOREIGN_NODES.get(id(node))
    if found is None or found[0] is not node:
        found = _FOREIGN_NODES[id(node)] = (node, _foreign(node))
    return found[1]


#: id(node) -> (node, foreign(node)) for the trace being planned (cleared after each plan)
_FOREIGN_NODES: dict = {}


def _foreign(node) -> bool:
    op = node.op
    if op is set_slice_op:
        return "complex_storage" in node.kwargs
    if op is scatter_op or op is scatter_add_op:
        x, u, idx = node.inputs
        if u.dtype is not x.dtype or idx.dtype is not _dt.int64 or any(not w.device.is_host for w in node.inputs):
            return True
        # (rows added in the dtype's own arithmetic, float16's in float32: a code of the kernel's, not bool's)
        return op is scatter_add_op and (x.dtype not in CODES or x.dtype is _dt.bool_)
    if op is nonzero_op:
        return node.inputs[0].dtype is not _dt.bool_ or not node.inputs[0].device.is_host
    if op is matmul_op:
        return not matmul_fits(node) and not empty_sum(node)  # (a complex one planned is real ones: ``real_products``)
    return _unfit(node) or any(not v.device.is_host for v in node.inputs)


def stop_ids(order) -> set:
    """The ids of the nodes of ``order`` a cut stops at: stages of their own kinds (``_OWN_KIND``)
    and foreign work. Whether a node is foreign is asked once per (op, dtype, operands' dtypes and
    devices) where nothing else decides it (a loop's trace repeats a few kinds of node many
    thousands of times); a matmul's and a concat's rules read shapes, complex work its kwargs."""
    stops = set()
    answers: dict = {}
    # (keys of ids: the dtypes, devices and ops are alive while the trace is, and a DType's hash and
    # equality are Python's; one or two operands without a list, most nodes have)
    for n in order:
        op, kw = n.op, n.kwargs
        if op in _OWN_KIND:
            stops.add(id(n))
            continue
        ins = n.inputs
        if len(ins) == 2:
            a, b = ins
            key = (op, id(kw.get("dtype")), id(a.dtype), id(a.device), id(b.dtype), id(b.device))
        elif len(ins) == 1:
            a = ins[0]
            key = (op, id(kw.get("dtype")), id(a.dtype), id(a.device))
        else:
            key = (op, id(kw.get("dtype")), *[(id(v.dtype), id(v.device)) for v in ins])
        answer = answers.get(key)
        if answer is None:
            answer = foreign(n)
            if not (op is matmul_op or op is concat_op or "complex_storage" in kw or "src_complex" in kw
                    or any(v.dtype.is_complex for v in n.inputs)):
                answers[key] = answer
        if answer:
            stops.add(id(n))
    return stops


def is_free(v) -> bool:
    """A scalar constant (a node of no operands, its value data): a foreign op takes it as it is."""
    return v.node is not None and not v.node.inputs and not v.shape


def empty_sum(node) -> bool:
    """A matmul over a contraction of length 0 (``x[i, :0] @ y[:0, j]``): zeros."""
    x = node.inputs[0]
    return len(node.inputs) == 2 and len(x.shape) >= 2 and x.shape[-1] == 0 and x.dtype in CODES


def forget_foreign() -> None:
    """Drop the answers ``foreign`` kept for the trace just planned."""
    _FOREIGN_NODES.clear()
