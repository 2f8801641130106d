"""Matrix factorizations on Nabla's Mojo kernels (``kernels/linalg/``): Cholesky, LU (solve, det),
Householder QR. Spectral ones (eigh, svd) are in ``spectral.py``.

Each op stages its operand for the kernel (moved to the CPU, cast to float64, leading axes
flattened into one stack axis; complex values stay interleaved) and undoes that on the results,
so one compiled kernel serves every dtype, rank and size. The derivative rules are the standard
matrix-calculus ones (Giles, "An extended collection of matrix derivative results", 2008; Murray,
"Differentiation of the Cholesky decomposition", 2016; Walter & Lehmann 2018 for QR), written with
Nabla ops so they are differentiable again.
"""

from __future__ import annotations

import functools
import math
import operator

from max.dtype import DType

from ..core import dtypes as _dt
from ..core.tensor import Tensor
from .base import broadcast_shapes, describe
from .custom_kernels import KernelOperation, WIDER, linalg_kernel
from .linalg import adjoint, diag_embed, diag_part, eye_like, matmul, tril
from .reduction import sum as _sum
from . import lowerings as L
from .broadcasting import broadcast_physical
from .creation import full
from .elementwise import UNARY_FUNCTIONS, astype, zeros_like_physical
from .view import swap_axes, unsqueeze
from ..core.lazy_module import graph_ops as ops


# --- staging a stack for a kernel -----------------------------------------------------------

def stage(x, cplx: bool):
    """(..., m, n[, 2]) -> ((b, m, n*w) float64 on the CPU, (m, n), restore)."""
    # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
    from max.graph import DeviceRef, Dim

    device, dtype = x.device, x.dtype
    cpu = DeviceRef.CPU()
    if device != cpu:  # the kernels are CPU code: data on an accelerator makes the round trip
        x = ops.transfer_to(x, cpu)
    if dtype != DType.float64:
        x = ops.cast(x, DType.float64)
    shape = list(x.shape)
    tail = 3 if cplx else 2
    lead, m, n = shape[:-tail], shape[-tail], shape[-tail + 1]
    batch = functools.reduce(operator.mul, lead, Dim(1))
    flat = ops.reshape(x, [batch, m, n * 2 if cplx else n])

    def restore(y, tail_dims):
        y = ops.reshape(y, lead + list(tail_dims))
        if dtype != DType.float64:
            y = ops.cast(y, dtype)
        return ops.transfer_to(y, device) if device != cpu else y

    return flat, (m, n), restore


def run_kernel(name: str, cplx: bool, *values) -> list:
    out = linalg_kernel(name, cplx)(*values)
    return list(out) if isinstance(out, (list, tuple)) else [out]


def pair(cplx: bool) -> list:
    """The trailing storage axis of a complex result."""
    return [2] if cplx else []


def check_matrix(op: str, *xs, square: bool = True) -> None:
    for x in xs:
        if not (x.dtype.is_floating or x.dtype.is_complex):
            raise TypeError(f"nabla.linalg.{op}: expected floating-point input, got {describe(x)}")
        if x.ndim < 2:
            raise ValueError(f"nabla.linalg.{op}: expected a stack of matrices (at least 2-D), got {describe(x)}")
        if square and x.shape[-1] != x.shape[-2]:
            raise ValueError(f"nabla.linalg.{op}: expected square matrices, got {describe(x)}")


def conjugate_convention(rule):
    """A vjp rule written with conjugate transposes gives the adjoint under the Hermitian inner
    product (PyTorch's convention for complex gradients); JAX's (and Nabla's) transpose pairs
    values by Re(sum(u * v)), so for complex input it is conj(rule(conj(cotangents)))."""

    @functools.wraps(rule)
    def vjp_rule(self, primals, cotangents, outputs, **kwargs):
        if not primals[0].dtype.is_complex:
            return rule(self, primals, cotangents, outputs, **kwargs)

        conj = UNARY_FUNCTIONS["conj"]
        flip = lambda c: conj(c) if c is not None and c.dtype.is_complex else c  # noqa: E731
        cts = [flip(c) for c in cotangents] if isinstance(cotangents, (list, tuple)) else flip(cotangents)
        return [flip(g) for g in rule(self, primals, cts, outputs, **kwargs)]

    return vjp_rule


# --- Cholesky ---------------------------------------------------------------------------------

def _phi(x: Tensor) -> Tensor:
    """The lower triangle with the diagonal halved."""
    return tril(x, -1) + diag_embed(diag_part(x) * 0.5)


class MatrixKernelOperation(KernelOperation):
    """A kernel op over stacks of matrices (linalg), whose kernels flatten the leading axes anyway."""

    def single_op_form(self, kwargs: dict, shapes: list):
        """Every operand as ``(b, m, n)`` (complex: ``(b, m, n, 2)``), all three symbolic whatever
        their size (equal sizes share a name, as square kernels need): one model serves every
        stack of every size, or two where m == n is a pattern of its own. Keyed by the whole shape,
        a conformance run met a new model for each stack it drew ((3, 2, 3, 3) is not
        (4, 2, 3, 3)), each miss bound the kernel in MAX's interpreter (1.6-2.7 s), and each model
        costs the detached compiler ~18 s."""
        tail = 3 if kwargs.get("cplx") else 2
        if any(len(s) < tail for s in shapes) or len({tuple(s[:-tail]) for s in shapes}) != 1:
            return None
        # (m, n) named as the kernel needs them, the complex pair kept as it is
        names = self.matrix_dims([s[-tail:][:2] for s in shapes])
        dims = [["b", *named, *s[-tail:][2:]] for named, s in zip(names, shapes)]
        batch = math.prod(shapes[0][:-tail])
        return kwargs, dims, [(batch, *s[-tail:]) for s in shapes]

    def matrix_dims(self, sizes: list) -> list:
        """The names of each operand's (m, n) in its model: equal sizes share a name (a square
        kernel needs m == n stated). An op whose kernel takes any m and n names them apart, so one
        model serves square and oblong operands alike."""
        names: dict[int, str] = {}
        return [[names.setdefault(d, f"d{len(names)}") for d in mn] for mn in sizes]

    #: ``(kwargs, operand shapes)`` of each pattern of call the op's models serve, for real
    #: operands; ``single_op_variants`` adds the dtypes and the complex forms
    variant_calls: tuple = (({}, ((2, 3, 3),)),)
    variant_complex: tuple = (False, True)
    widened = WIDER

    def single_op_variants(self):
        """``(kwargs, dtype names, shapes)`` of a node of each model the op's family has (see
        ``single_op.family``): float64, real and complex storage (float32 work is done in float64)."""
        for kwargs, shapes in self.variant_calls:
            for dtype in ("float64",):
                for cplx in self.variant_complex:
                    yield ({**kwargs, "cplx": True} if cplx else kwargs), [dtype] * len(shapes), \
                        [(*s, 2) if cplx else s for s in shapes]


class CholeskyOp(MatrixKernelOperation):
    """The lower factor L of A = L L^H (only A's lower triangle is read); NaN where A is not
    positive definite."""
    sharding_rule = "stacked_matrices"

    name = "cholesky"

    def abstract_eval(self, a):
        check_matrix(self.name, a)
        return a.cached_shape, a.dtype, a.batch_dims

    def maxpr(self, a, cplx=False):
        flat, (m, n), restore = stage(a, cplx)
        (l,) = run_kernel("cholesky", cplx, flat)
        return restore(l, [m, n, *pair(cplx)])

    def jvp_rule(self, primals, tangents, output):
        lower = output
        z = adjoint(solve(lower, adjoint(solve(lower, tangents[0]))))  # L^-1 dA L^-H
        return matmul(lower, _phi(z))

    @conjugate_convention
    def vjp_rule(self, primals, cotangent, output):
        lower = output
        p = _phi(matmul(adjoint(lower), cotangent))
        x = solve(adjoint(lower), p)  # L^-H P
        s = adjoint(solve(adjoint(lower), adjoint(x)))  # L^-H P L^-1
        return [(s + adjoint(s)) * 0.5]


cholesky_op = CholeskyOp()


# --- LU: solve and determinants -----------------------------------------------------------------

class SolveOp(MatrixKernelOperation):
    """X = A^-1 B for square A (..., n, n) and B (..., n, k) with equal leading axes."""
    sharding_rule = "stacked_matrices"

    name = "solve"
    variant_calls = (({}, ((2, 3, 3), (2, 3, 4))),)

    def matrix_dims(self, sizes: list) -> list:
        return [["d0", "d0"], ["d0", "d1"]]  # (B's columns apart from A's size: a square B is no other model)

    def abstract_eval(self, a, b):
        check_matrix(self.name, a)
        if b.dtype is not a.dtype or a.cached_shape[:-1] != b.cached_shape[:-1]:
            raise ValueError(f"nabla.linalg.solve: operands do not match: {describe(a, b)}")
        return b.cached_shape, b.dtype, b.batch_dims

    def maxpr(self, a, b, cplx=False):
        fa, (n, _), restore = stage(a, cplx)
        fb, (_, k), _ = stage(b, cplx)
        (x,) = run_kernel("lu_solve", cplx, fa, fb)
        return restore(x, [n, k, *pair(cplx)])

    def jvp_rule(self, primals, tangents, output):
        a, _ = primals
        da, db = tangents
        if da is None:
            return solve(a, db)
        rhs = matmul(da, output)
        return solve(a, db - rhs) if db is not None else -solve(a, rhs)

    def vjp_rule(self, primals, cotangent, output):
        # X = A^-1 B is holomorphic: the cotangent maps by the transpose (JAX's convention)
        a, b = primals
        gb = solve(swap_axes(a, -1, -2), cotangent)
        return [-matmul(gb, swap_axes(output, -1, -2)), gb if b._impl.traced else None]


solve_op = SolveOp()


def solve(a: Tensor, b: Tensor) -> Tensor:
    """A^-1 B for stacks of square A and matrices B (k right-hand sides), leading axes broadcast
    (vmap's batch dims apart from the logical ones, as every broadcasting op does)."""
    batch = broadcast_shapes(a._impl.batch_shape, b._impl.batch_shape, op="linalg.solve")
    lead = broadcast_shapes(a.shape[:-2], b.shape[:-2], op="linalg.solve")
    a = broadcast_physical(a, batch + lead + a.shape[-2:], len(batch))
    b = broadcast_physical(b, batch + lead + b.shape[-2:], len(batch))
    return solve_op(a, b)


class LuDetOp(MatrixKernelOperation):
    """(sign, log|det|, det) of a square stack from one LU factorization."""
    sharding_rule = "stacked_matrices"

    name = "det"

    def abstract_eval(self, a):
        check_matrix(self.name, a)
        lead = a.cached_shape[:-2]
        real = _dt.real_dtype(a.dtype) if a.dtype.is_complex else a.dtype
        return [(lead, a.dtype, a.batch_dims), (lead, real, a.batch_dims), (lead, a.dtype, a.batch_dims)]

    def maxpr(self, a, cplx=False):
        flat, _, restore = stage(a, cplx)
        (parts,) = run_kernel("lu_det", cplx, flat)

        def columns(lo, hi):
            return restore(L.slice_tensor(parts, [slice(None), slice(lo, hi)]), [hi - lo] if hi - lo > 1 else [])

        if cplx:
            return [columns(0, 2), columns(2, 3), columns(3, 5)]
        return [columns(0, 1), columns(2, 3), columns(3, 4)]

    def jvp_rule(self, primals, tangents, outputs):
        sign, _, det = outputs
        trace = _sum(diag_part(solve(primals[0], tangents[0])), axis=-1)  # tr(A^-1 dA)
        if not trace.dtype.is_complex:  # a real sign is locally constant

            return [zeros_like_physical(sign), trace, det * trace]
        real = UNARY_FUNCTIONS["real"](trace)
        return [sign * (trace - astype(real, trace.dtype)), real, det * trace]

    def vjp_rule(self, primals, cotangents, outputs):
        # with T = tr(A^-1 dA): d det = det T (holomorphic), d log|det| = Re T, d sign = sign i Im T;
        # each pairs with A^-T under JAX's convention <a, b> = Re(sum a b)
        (a,) = primals
        g_sign, g_log, g_det = cotangents
        sign, _, det = outputs if all(o is not None for o in outputs) else self(a)
        weight = None if g_log is None else astype(g_log, a.dtype)
        if g_det is not None:
            weight = g_det * det if weight is None else weight + g_det * det
        if g_sign is not None and a.dtype.is_complex:
            turn = UNARY_FUNCTIONS["imag"](g_sign * sign)
            term = astype(turn, a.dtype) * _imaginary_unit(a)
            weight = term if weight is None else weight + term
        if weight is None:
            return [None]
        inv_t = solve(swap_axes(a, -1, -2), eye_like(a))  # A^-T
        return [unsqueeze(unsqueeze(weight, -1), -1) * inv_t]


lu_det_op = LuDetOp()


def _imaginary_unit(like: Tensor) -> Tensor:
    return full((), 1j, dtype=like.dtype, device=like.device)


# --- Householder QR ---------------------------------------------------------------------------------

class QrOp(MatrixKernelOperation):
    """A = Q R; ``mode`` "reduced" (k = min(m, n) columns of Q) or "complete". ``tall`` (reduced and
    m >= n) is recorded with the call, so the lowering needs no concrete size: k = min(m, n) is no
    expression MAX's symbolic dims can state, but with ``tall`` known it is n or m."""
    sharding_rule = "stacked_matrices"

    name = "qr"
    variant_calls = tuple(({"mode": mode, "tall": mode == "reduced" and m >= n}, ((2, m, n),))
                          for mode in ("reduced", "complete") for m, n in ((3, 3), (4, 3), (3, 4)))

    def abstract_eval(self, a, *, mode, tall):
        check_matrix(self.name, a, square=False)
        *lead, m, n = a.cached_shape
        lead, k = tuple(lead), (min(m, n) if mode == "reduced" else m)
        return [(lead + (m, k), a.dtype, a.batch_dims), (lead + (k, n), a.dtype, a.batch_dims)]

    def maxpr(self, a, *, mode, tall, cplx=False):
        flat, (m, n), restore = stage(a, cplx)
        q, r = run_kernel("qr_reduced" if tall else "qr_complete", cplx, flat)
        k = n if tall else m
        return [restore(q, [m, k, *pair(cplx)]), restore(r, [k, n, *pair(cplx)])]

    def _check_differentiable(self, a, mode):
        m, n = a.shape[-2:]
        if m < n or (mode == "complete" and m != n):
            raise NotImplementedError(f"nabla.linalg.qr: derivatives need m >= n and reduced mode (Q and R are "
                                      f"then unique), got {describe(a._impl)} in {mode} mode")

    def jvp_rule(self, primals, tangents, outputs, *, mode, tall):
        (a,), (da,) = primals, tangents
        self._check_differentiable(a, mode)
        q, r = outputs
        da_rinv = adjoint(solve(adjoint(r), adjoint(da)))  # dA R^-1
        c = matmul(adjoint(q), da_rinv)
        lower = tril(c, -1)
        omega = lower - adjoint(lower)
        if c.dtype.is_complex:  # the diagonal of Q^H dQ is imaginary: R's diagonal keeps its phase choice

            d = diag_part(c)
            omega = omega + diag_embed(d - astype(UNARY_FUNCTIONS["real"](d), d.dtype))
        dq = matmul(q, omega - c) + da_rinv
        dr = matmul(c - omega, r)
        return [dq, dr]

    @conjugate_convention
    def vjp_rule(self, primals, cotangents, outputs, *, mode, tall):
        (a,) = primals
        self._check_differentiable(a, mode)
        q, r = outputs if all(o is not None for o in outputs) else self(a, mode=mode, tall=tall)
        gq, gr = (zeros_like_physical(o) if g is None else g for g, o in zip(cotangents, (q, r)))
        m = matmul(r, adjoint(gr)) - matmul(adjoint(gq), q)
        lower = tril(m, -1)
        d = diag_part(m)
        if d.dtype.is_complex:  # the adjoint of the jvp's gauge (imaginary diagonal of Q^H dQ) keeps Re

            d = astype(UNARY_FUNCTIONS["real"](d), d.dtype)
        copyltu = lower + adjoint(lower) + diag_embed(d)
        b = gq + matmul(q, copyltu)
        return [adjoint(solve(r, adjoint(b)))]  # B R^-T


qr_op = QrOp()


def qr(a: Tensor, mode: str = "reduced"):
    m, n = a.shape[-2:]
    return qr_op(a, mode=mode, tall=mode == "reduced" and m >= n)
