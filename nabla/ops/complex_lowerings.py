"""MAX lowerings on complex storage: a complex tensor is paired reals on a trailing axis of 2.

An op's complex form is its formula on (re, im) pairs (``complex_formulas``, named in the op's
row), lowered here by ``pairwise`` with the registered ops' own MAX lowerings as the formula's
backend (``lowerings.MAX_OPS``); the fused kernel runs the same formula on the same ops
(``runtime/fused_complex.py``). The few ops whose complex form is their real one on
the whole storage (a sum, a negation, a rounding of each part) are lowered as such.
"""

from __future__ import annotations

from ..core.lazy_module import graph_ops as ops

from .lowerings import MAX_OPS, identity, slice_tensor


def _part(x, k):
    rank = len(x.shape)
    return ops.squeeze(slice_tensor(x, [slice(None)] * (rank - 1) + [slice(k, k + 1)]), -1)


def re(x):
    return _part(x, 0)


def im(x):
    return _part(x, 1)


def pack(real, imag):
    return ops.stack([real, imag], axis=-1)


def _pair(x):
    return re(x), im(x)


def pairwise(formula):
    """A formula on pairs as a lowering on complex storage (a pair result packed again)."""
    def lowering(*xs):
        out = formula(MAX_OPS, *map(_pair, xs))
        return pack(*out) if isinstance(out, tuple) else out
    return lowering


def cconj(x):
    return pack(re(x), ops.negate(im(x)))


# the ops whose complex form is their real one on the whole storage (a sum, a negation, a rounding of
# each part); an op whose row names only a formula of the pair is lowered by ``pairwise`` of it
cpositive, creal, cimag = identity, re, im


def cnegative(x):
    return ops.negate(x)


def cround(x):
    return ops.round(x)


def cadd(x, y):
    return ops.add(x, y)


def csubtract(x, y):
    return ops.sub(x, y)
