"""Which traces the fused kernel takes whole, in stages, or node by node: the values to realize
first so that more of a trace runs on the kernel, and whether a node runs on it alone."""

from __future__ import annotations

from ..core import dtypes as _dt
from .fused_codes import INT_CODES, _unsigned_order, arg_reduce, elementwise_facts, reduce_kind, scan_kind, view_kind
from .fused_complex import is_complex, takes
from . import op_kinds as K
from .fused_layouts import _is_stack
from .fused_matmul import matmul_fits
from .fused_program import _coded_registers, _tested


#: the ops the kernel runs that say so by no fact of their own (an opcode, a reduction kind, a view kind)
_STAGEABLE = frozenset((K.WHERE, K.CONSTANT, K.ASTYPE, K.FULL, K.IOTA, K.TAKE, K.CONCAT,
                        K.ZEROS_LIKE))


_STAGE_DTYPES = (_dt.float32, _dt.float64, *INT_CODES)


def _unfit(n) -> bool:
    """Whether node ``n`` is no op of the kernel's, whatever its operands (complex work: as the
    rewrite to real pairs writes it)."""
    if is_complex(n):
        return not takes(n)
    f = elementwise_facts(n.op)
    if f is not None:
        return (f.ints_only and any(v.dtype not in INT_CODES for v in n.inputs)) or _unsigned_order(n)
    known = reduce_kind(n.op) is not None or view_kind(n.op) is not None or scan_kind(n.op) is not None
    return (not known and n.op not in _STAGEABLE and not _is_stack(n)) or _unsigned_order(n)


def _stage_dtype(v) -> bool:
    """Whether the kernel reads or writes value ``v``: of its dtypes, or a complex scalar constant
    (a pair of real constants)."""
    return v.dtype in _STAGE_DTYPES or (v.dtype.is_complex and v.node is not None and v.node.op is K.CONSTANT)


def fits_alone(n, results) -> bool:
    """Whether the kernel takes node ``n`` run alone, its operands realized, giving ``results``: a
    trace run node by node (``single_op.split``) needs no single-op model for it. A program is
    of one family: a float dtype, the integers with bool, or float work whose inputs or result are
    of other dtypes (a float comparison's bool result, a cast). Where this errs, the node asks for
    its model when it runs."""
    values = (*n.inputs, *results)
    if n.op is K.MATMUL:
        return len(results) == 1 and results[0].device.is_host and all(v.device.is_host for v in n.inputs) \
            and matmul_fits(n)
    if _unfit(n) or any(not (_stage_dtype(v) or v.dtype is _dt.float16) or not v.device.is_host for v in values):
        return False
    if is_complex(n):  # (a program of the results' real dtype, or bool)
        return len(results) == 1 and len({v.dtype for v in values if v.dtype.is_floating}) <= 1
    kinds = {"int" if v.dtype in INT_CODES else v.dtype for v in values}
    if len(kinds) == 1 and _dt.float16 not in kinds:
        return True  # (float16 work is the coded float family's: below)
    return len(results) == 1 and scan_kind(n.op) is None and n.op is not K.MATMUL \
        and (reduce_kind(n.op) is None or results[0].dtype.is_floating or arg_reduce(n.op)) \
        and (n.op is K.ASTYPE or n.op is K.TAKE or all(v.dtype.is_floating or v.dtype is _dt.bool_ for v in n.inputs)) \
        and _coded_registers([n], results[0]) is not None


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
                if below is None or below.node.op is K.CONSTANT:
                    continue
                if id(n) in foreign and id(below.node) not in foreign and below.dtype in _STAGE_DTYPES \
                        and below.dtype is not _dt.bool_:
                    add(below)  # an operand the kernel computes
                elif id(n) not in foreign and id(below.node) in foreign:
                    add(below)  # a result the kernel's ops go on with
                elif n.op is K.MATMUL and id(below.node) in foreign and below.dtype in _STAGE_DTYPES:
                    add(below)  # another matmul's result (``a.T @ (a @ w)``): each is then one of views
        return first
    if any(not _stage_dtype(v) or not v.device.is_host for n in order for v in n.inputs):
        return []
    for n in order:
        for v in n.inputs:
            if v.node is None:
                continue
            if reduce_kind(v.node.op) is not None or scan_kind(v.node.op) is not None:
                if len(outputs) > 1 and _tested(n, v):
                    continue  # a count only its test reads: with that test, the program of a result
                add(v)  # a reduction or a scan ends a program
            elif (n.op is K.GETITEM or n.op in K.PERMUTES or (n.op is K.TAKE and v is n.inputs[0])
                  or (n.op is K.CONCAT and not _is_stack(n) and (v.node is None or v.node.op not in
                                                                      (K.FULL, K.CONSTANT)))) \
                    and _first_computed(v) is not None:  # (a take's rows, a concatenation's parts: views of inputs)
                add(v)
            elif n.op is K.RESHAPE and v.node.op is K.TAKE:
                add(v)  # a gather reshaped (``take(x, idx.ravel()).reshape(...)``): the kernel gathers at
                #         the shape of the program it is in, so the gather is one first
            elif n.op is K.ASTYPE and v.dtype in INT_CODES and v.dtype is not _dt.bool_ \
                    and not n.kwargs["dtype"].is_integer and _first_computed(v) is not None \
                    and v.node.op is not K.CONSTANT:
                add(v)  # integer work cast to floats (``ii * jj / R``): a program of the integer family first
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
        if view_kind(v.node.op) not in ("alias", "strided"):
            return False
        v = v.node.inputs[0]
    return v.device.is_host


def _first_computed(v):
    """The computed value that ``v`` is a view of (or is), None for a view of a leaf."""
    while v.node is not None:
        if view_kind(v.node.op) not in ("alias", "strided"):
            return v
        v = v.node.inputs[0]
    return None
