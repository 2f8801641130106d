"""The kernel ops run on Nabla's op kernels: no model, no compile, no wait for one.

The op kernels' shared library (``program_kernel.OP_KERNELS``, built after the program kernel)
exports the kernels of the graph ops' packages (``ops/kernels/linalg``, ``fft``, ``sort``,
``random``), the same Mojo functions those ops' custom ops call. A trace of one node of such an op, on host buffers, runs
there through ctypes: a single-op model of it would be a compile (on a fresh machine a wait for the
first-run bundle), and MAX's interpreter loads the kernels' package first (seconds per process).
Where an op meets other work, ``SingleOpNodesApart`` realizes it alone first, so it lands here.

One table, ``LIBRARY``, keyed by op: how to call that op's kernel for a node (None where the node is
not one the kernel takes: another path runs it).
"""

from __future__ import annotations

import math
from concurrent.futures import Future

from max.dtype import DType

from ..core import dtypes as _dt
from ..core.models import RealizationError
from ..core.paths import ExecutionPath
from ..ops.factorizations import cholesky_op, lu_det_op, qr_op, solve_op
from ..ops.fourier import fft_op, host_view
from ..ops.random_bits import random_op
from ..ops.sorting import sort_op
from ..ops.spectral import eig_op, eigh_op, svd_op
from .program_kernel import OP_KERNELS
from .result_memory import host_buffer

_F64 = DType.float64


class LibraryKernels(ExecutionPath):
    """A trace of one node of an op in ``LIBRARY`` (host data; float64 matrices and transforms,
    complex as (re, im) pairs): run on the op kernels, waiting for their build where this machine
    has not built them yet."""

    def plan(self, r):
        order = r.traced.order
        how = LIBRARY.get(order[0].op) if len(order) == 1 else None
        if how is None:
            return None
        node = order[0]
        cplx = bool(node.kwargs.get("cplx"))
        if any(not v.device.is_host or (cplx and (v.dtype is not _dt.float64 or v.shape[-1] != 2))
               for v in node.inputs):
            return None
        kernel = None if r.fast_only and not OP_KERNELS.ready() else OP_KERNELS.module_or_build()
        if isinstance(kernel, Future):  # (being built: waited for, then asked again)
            return kernel
        shapes = [v.shape[:-1] if cplx else v.shape for v in node.inputs]
        call = None if kernel is None else how(node, kernel, cplx, shapes)
        if call is None:
            return None
        outputs = r.outputs
        r.engine.count(fused=True)

        def run(_):
            made = {v.index: host_buffer(v.dtype.max_dtype, tuple(v.shape)) for v in outputs}
            if call(made):
                raise RealizationError(f"nabla: the op kernels' {node.op.name} failed on operands of shapes "
                                       f"{[v.shape for v in node.inputs]}")
            return [made[v.index] for v in outputs]

        return run, []


def _written(made, scratch) -> dict:
    """``made`` (the outputs read, by index) with a buffer of this run for each output the kernel
    writes that is not read (``scratch``: index -> (MAX dtype, shape))."""
    missing = {j: spec for j, spec in scratch.items() if j not in made}
    return {**made, **{j: host_buffer(dtype, shape) for j, (dtype, shape) in missing.items()}} \
        if missing else made


def _ptr(buffer) -> int:
    return buffer._data_ptr()


def _stack(node, shapes):
    """(matrices, rows, cols) of the first operand, where every operand is a float64 stack of
    matrices; None otherwise, or where the stack holds no element."""
    if any(v.dtype is not _dt.float64 for v in node.inputs) or any(len(s) < 2 for s in shapes):
        return None
    s = shapes[0]
    batch = math.prod(s[:-2])
    return (batch, s[-2], s[-1]) if batch and s[-2] and s[-1] else None


def _pair(cplx) -> tuple:
    return (2,) if cplx else ()


def _det(node, kernel, cplx, shapes):
    stack, (a,) = _stack(node, shapes), node.inputs
    if stack is None:
        return None
    batch, n, _ = stack
    return lambda made: kernel.lu_det(_ptr(a.buffer), batch, n, int(cplx),
                                      *(_ptr(made[j]) if j in made else 0 for j in range(3)))


def _solve(node, kernel, cplx, shapes):
    stack, (a, b) = _stack(node, shapes), node.inputs
    if stack is None or shapes[1][-1] == 0:
        return None
    (batch, n, _), k = stack, shapes[1][-1]
    return lambda made: kernel.lu_solve(_ptr(a.buffer), _ptr(b.buffer), _ptr(made[0]), batch, n, k, int(cplx))


def _cholesky(node, kernel, cplx, shapes):
    stack, (a,) = _stack(node, shapes), node.inputs
    if stack is None:
        return None
    batch, n, _ = stack
    return lambda made: kernel.cholesky(_ptr(a.buffer), _ptr(made[0]), batch, n, int(cplx))


def _eigh(node, kernel, cplx, shapes):
    stack, (a,) = _stack(node, shapes), node.inputs
    if stack is None:
        return None
    batch, n, _ = stack
    scratch = {0: (_F64, (batch, n)), 1: (_F64, a.shape)}

    def run(made):
        made = _written(made, scratch)
        return kernel.eigh(_ptr(a.buffer), _ptr(made[0]), _ptr(made[1]), batch, n, int(cplx))

    return run


def _eig(node, kernel, cplx, shapes):
    stack, (a,) = _stack(node, shapes), node.inputs
    if stack is None or not cplx:
        return None
    batch, n, _ = stack
    scratch = {0: (_F64, (batch, n, 2)), 1: (_F64, a.shape)}

    def run(made):
        made = _written(made, scratch)
        return kernel.eig(_ptr(a.buffer), _ptr(made[0]), _ptr(made[1]), batch, n)

    return run


def _qr(node, kernel, cplx, shapes):
    stack, (a,) = _stack(node, shapes), node.inputs
    if stack is None:
        return None
    batch, m, n = stack
    k = n if node.kwargs["tall"] else m  # (reduced and m >= n; else complete, or reduced with m < n)
    scratch = {0: (_F64, (batch, m, k) + _pair(cplx)), 1: (_F64, (batch, k, n) + _pair(cplx))}

    def run(made):
        made = _written(made, scratch)
        return kernel.qr(_ptr(a.buffer), _ptr(made[0]), _ptr(made[1]), batch, m, n, k, int(cplx))

    return run


def _svd(node, kernel, cplx, shapes):
    stack, (a,) = _stack(node, shapes), node.inputs
    full, wide = node.kwargs["full_matrices"], node.kwargs["wide"]
    if stack is None or wide != (stack[1] < stack[2]):
        return None
    batch, m, n = stack
    k = min(m, n)
    scratch = {0: (_F64, (batch, m, m if full else k) + _pair(cplx)), 1: (_F64, (batch, k)),
               2: (_F64, (batch, n if full else k, n) + _pair(cplx))}

    def run(made):
        made = _written(made, scratch)
        return kernel.svd(_ptr(a.buffer), _ptr(made[0]), _ptr(made[1]), _ptr(made[2]), batch, m, n, int(full),
                          int(wide), int(cplx))

    return run


def _fft(node, kernel, cplx, shapes):
    (x,), kw = node.inputs, node.kwargs
    if x.dtype is not _dt.float64:
        return None
    dims = kw.get("dims", 1)
    outer, rows, inner, rows_out, cols_out = host_view(x.shape, kind=kw["kind"], n=kw["n"], axis=kw["axis"],
                                                       dims=dims, cplx=cplx)
    if not outer * rows * inner * rows_out:
        return None
    return lambda made: kernel.fft(_ptr(made[0]), _ptr(x.buffer), outer, rows, inner, rows_out, cols_out, kw["sign"],
                                   kw["scaling"], dims)


def _sort(node, kernel, cplx, shapes):
    (x,) = node.inputs
    kind = _SORT_KINDS.get(x.dtype)
    axis, shape = node.kwargs["axis"], x.shape
    batch, n, k = math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:])
    if kind is None or cplx or batch * n * k == 0:
        return None
    scratch = {0: (x.dtype.max_dtype, shape), 1: (DType.int64, shape)}

    def run(made):
        made = _written(made, scratch)
        return kernel.sort(_ptr(x.buffer), _ptr(made[0]), _ptr(made[1]), batch, n, k,
                           int(node.kwargs["descending"]), kind)

    return run


def _random(node, kernel, cplx, shapes):
    state, size = node.inputs
    kind, n = RANDOM_KINDS.get(node.kwargs["dtype"]), size.shape[0]
    if kind is None or not n:
        return None
    return lambda made: kernel.random(_ptr(made[0]), n, _ptr(state.buffer), kind)


#: the dtypes the sort op takes (the others are sorted as one of these), as the kernel's call names them
_SORT_KINDS = {_dt.float64: 0, _dt.int64: 1, _dt.uint64: 2}
#: the random op's result dtypes, as the kernel's call names them
RANDOM_KINDS = {"uint32": 0, "float32": 1, "float64": 2}
#: the kernel ops whose kernels the op kernels' library exports: how to run a lone node of
#: each there, on host buffers (None where the node is not one it takes)
LIBRARY = {lu_det_op: _det, solve_op: _solve, cholesky_op: _cholesky, qr_op: _qr, eigh_op: _eigh, eig_op: _eig,
           svd_op: _svd, fft_op: _fft, sort_op: _sort, random_op: _random}
