"""Spectral decompositions on Nabla's Mojo kernels: Hermitian eigenproblems (Jacobi) and the SVD
(one-sided Jacobi). Derivative rules: Giles 2008 (eigh), Townsend, "Differentiating the singular
value decomposition", 2016 (svd). Both assume distinct eigen/singular values (and, for the SVD,
nonzero ones): at a degenerate spectrum the vectors are not unique and the rules give inf/NaN,
as JAX's and PyTorch's do.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes as _dt
from .base import describe
from .factorizations import MatrixKernelOperation, check_matrix, conjugate_convention, pair, run_kernel, solve, stage
from .linalg import adjoint, band_mask, diag_embed, diag_part, matmul
from .elementwise import UNARY_FUNCTIONS, astype, where, zeros_like_physical
from .reduction import sum as _sum
from .view import unsqueeze
from ..core.lazy_module import graph_ops as ops


def _adjoint_value(x, cplx: bool):
    """Conjugate transpose of a MAX value's matrix axes (complex: interleaved storage)."""
    r = len(x.shape)
    if not cplx:
        return ops.transpose(x, r - 2, r - 1)
    flip = ops.constant(np.array([1.0, -1.0], dtype=x.dtype.to_numpy()), x.dtype, x.device)
    return ops.mul(ops.transpose(x, r - 3, r - 2), flip)


def _inverse_gaps(values, square: bool):
    """F[i, j] = 1 / (v_j - v_i) (of the squares when ``square``), 0 on the diagonal."""
    v = values * values if square else values
    n = v.shape[-1]
    diagonal = band_mask(n, n, 0, True, v.device) & band_mask(n, n, 0, False, v.device)
    gaps = unsqueeze(v, -2) - unsqueeze(v, -1)
    return where(diagonal, 0.0, 1.0 / where(diagonal, 1.0, gaps))


def _like(x, dtype):
    return x if x.dtype is dtype else astype(x, dtype)


def _real(x):
    return UNARY_FUNCTIONS["real"](x) if x.dtype.is_complex else x


class EighOp(MatrixKernelOperation):
    """Eigenvalues (ascending, real) and eigenvectors (columns) of Hermitian stacks; only the
    lower triangle is read."""
    sharding_rule = "stacked_matrices"

    name = "eigh"

    def abstract_eval(self, a):
        check_matrix(self.name, a)
        real = _dt.real_dtype(a.dtype) if a.dtype.is_complex else a.dtype
        return [(a.cached_shape[:-1], real, a.batch_dims), (a.cached_shape, a.dtype, a.batch_dims)]

    def maxpr(self, a, cplx=False):
        flat, (m, n), restore = stage(a, cplx)
        w, v = run_kernel("eigh", cplx, flat)
        return [restore(w, [n]), restore(v, [n, n, *pair(cplx)])]

    def jvp_rule(self, primals, tangents, outputs):
        w, v = outputs
        x = matmul(matmul(adjoint(v), tangents[0]), v)
        dv = matmul(v, _like(_inverse_gaps(w, False), x.dtype) * x)
        return [_real(diag_part(x)), dv]

    @conjugate_convention
    def vjp_rule(self, primals, cotangents, outputs):
        (a,) = primals
        w, v = outputs if all(o is not None for o in outputs) else self(a)
        gw, gv = cotangents
        inner = None if gw is None else diag_embed(gw)
        if gv is not None:
            term = _inverse_gaps(w, False) * matmul(adjoint(v), gv)
            inner = term if inner is None else inner + term
        return [matmul(matmul(v, inner), adjoint(v))]


eigh_op = EighOp()


class SvdOp(MatrixKernelOperation):
    """A = U diag(S) Vh, S descending; ``full_matrices`` completes U and Vh to square. ``wide``
    (m < n: the kernel factors A^H) is recorded with the call, so the lowering needs no concrete size."""
    sharding_rule = "stacked_matrices"

    name = "svd"
    variant_calls = tuple(({"full_matrices": full, "wide": wide}, ((2, 3, 4) if wide else (2, 4, 3),))
                          for full in (True, False) for wide in (False, True))

    def matrix_dims(self, sizes: list) -> list:
        return [["d0", "d1"]]  # (the kernel takes any m >= n: a square operand is no model of its own)

    def abstract_eval(self, a, *, full_matrices, wide):
        check_matrix(self.name, a, square=False)
        *lead, m, n = a.cached_shape
        lead, k = tuple(lead), min(m, n)
        real = _dt.real_dtype(a.dtype) if a.dtype.is_complex else a.dtype
        bd = a.batch_dims
        return [(lead + (m, m if full_matrices else k), a.dtype, bd), (lead + (k,), real, bd),
                (lead + (n if full_matrices else k, n), a.dtype, bd)]

    def maxpr(self, a, *, full_matrices, wide, cplx=False):
        flat, (m, n), restore = stage(_adjoint_value(a, cplx) if wide else a, cplx)  # m >= n from here
        u, s, v = run_kernel("svd_complete" if full_matrices else "svd_reduced", cplx, flat)
        u = restore(u, [m, m if full_matrices else n, *pair(cplx)])
        v = restore(v, [n, n, *pair(cplx)])
        s = restore(s, [n])
        if wide:  # A^H = U S V^H, so A = V S U^H
            return [v, s, _adjoint_value(u, cplx)]
        return [u, s, _adjoint_value(v, cplx)]

    def _check_differentiable(self, a, full_matrices):
        m, n = a.shape[-2:]
        if full_matrices and m != n:
            raise NotImplementedError(f"nabla.linalg.svd: derivatives of full_matrices=True are not unique for "
                                      f"non-square input ({describe(a._impl)}); use full_matrices=False")

    def jvp_rule(self, primals, tangents, outputs, *, full_matrices, wide):
        (a,), (da,) = primals, tangents
        self._check_differentiable(a, full_matrices)
        u, s, vh = outputs
        v = adjoint(vh)
        m, n = a.shape[-2:]
        k = min(m, n)
        p = matmul(matmul(adjoint(u), da), v)  # U^H dA V
        row, col = _like(unsqueeze(s, -2), p.dtype), _like(unsqueeze(s, -1), p.dtype)
        f = _like(_inverse_gaps(s, True), p.dtype)
        ps, sp = p * row, col * p
        du = matmul(u, f * (ps + adjoint(ps)))
        dv = matmul(v, f * (sp + adjoint(sp)))
        if p.dtype.is_complex:  # the phase each pair of singular vectors shares
            du = du + matmul(u, diag_embed(diag_part(p - adjoint(p)) * 0.5 / _like(s, p.dtype)))
        if m > k:
            dav = matmul(da, v)
            du = du + (dav - matmul(u, matmul(adjoint(u), dav))) / row
        if n > k:
            dahu = matmul(adjoint(da), u)
            dv = dv + (dahu - matmul(v, matmul(adjoint(v), dahu))) / row
        return [du, _real(diag_part(p)), adjoint(dv)]

    @conjugate_convention
    def vjp_rule(self, primals, cotangents, outputs, *, full_matrices, wide):
        (a,) = primals
        self._check_differentiable(a, full_matrices)
        u, s, vh = outputs if all(o is not None for o in outputs) else self(a, full_matrices=full_matrices, wide=wide)
        gu, gs, gvh = (zeros_like_physical(o) if g is None else g for g, o in zip(cotangents, (u, s, vh)))
        v, gv = adjoint(vh), adjoint(gvh)
        m, n = a.shape[-2:]
        k = min(m, n)
        row, col = unsqueeze(s, -2), unsqueeze(s, -1)
        f = _inverse_gaps(s, True)
        j = f * (matmul(adjoint(u), gu) - matmul(adjoint(gu), u))
        kk = f * (matmul(adjoint(v), gv) - matmul(adjoint(gv), v))
        inner = j * row + diag_embed(gs) + col * kk
        ga = matmul(matmul(u, inner), vh)
        if m > k:
            ga = ga + matmul((gu - matmul(u, matmul(adjoint(u), gu))) / row, vh)
        if n > k:
            ga = ga + matmul(u, adjoint((gv - matmul(v, matmul(adjoint(v), gv))) / row))
        return [ga]


svd_op = SvdOp()


def svd(a, full_matrices: bool = False):
    m, n = a.shape[-2:]
    return svd_op(a, full_matrices=bool(full_matrices), wide=m < n)


class EigOp(MatrixKernelOperation):
    """Eigenvalues and unit eigenvectors (largest component real) of general complex stacks
    (callers convert real input); the order is the Schur form's, as LAPACK's geev."""
    sharding_rule = "stacked_matrices"

    name = "eig"
    variant_complex = (True,)  # real input is converted by the callers

    def abstract_eval(self, a):
        check_matrix(self.name, a)
        if not a.dtype.is_complex:
            raise TypeError(f"nabla.linalg.eig: the kernel takes complex input, got {describe(a)}")
        return [(a.cached_shape[:-1], a.dtype, a.batch_dims), (a.cached_shape, a.dtype, a.batch_dims)]

    def maxpr(self, a, cplx=False):
        flat, (m, n), restore = stage(a, True)
        w, v = run_kernel("eig", True, flat)
        return [restore(w, [n, 2]), restore(v, [n, n, 2])]

    def jvp_rule(self, primals, tangents, outputs):
        w, v = outputs
        x = solve(v, matmul(tangents[0], v))  # V^-1 dA V
        dv = matmul(v, _inverse_gaps(w, False) * x)
        # keep each vector's unit norm (its largest-component phase is left free, as in JAX)
        real = UNARY_FUNCTIONS["real"](_sum(UNARY_FUNCTIONS["conj"](v) * dv, axis=-2))
        dv = dv - v * unsqueeze(astype(real, v.dtype), -2)
        return [diag_part(x), dv]

    @conjugate_convention
    def vjp_rule(self, primals, cotangents, outputs):
        """The Hermitian adjoint of jvp_rule (as PyTorch's linalg_eig_backward): with
        G = V^H gV - V^H V diag(Re diag(V^H gV)) (the unit-norm projection's adjoint),
        gA = V^-H (diag(gw) + conj(F) * G) V^H. Only phase-invariant losses are well defined."""
        (a,) = primals
        w, v = outputs if all(o is not None for o in outputs) else self(a)
        gw, gv = cotangents
        vh = adjoint(v)
        inner = diag_embed(zeros_like_physical(w) if gw is None else gw)
        if gv is not None:
            vhgv = matmul(vh, gv)
            re_diag = astype(UNARY_FUNCTIONS["real"](diag_part(vhgv)), v.dtype)
            g = vhgv - matmul(vh, v) * unsqueeze(re_diag, -2)
            inner = inner + UNARY_FUNCTIONS["conj"](_inverse_gaps(w, False)) * g
        return [solve(vh, matmul(inner, vh))]


eig_op = EigOp()
