"""``einsum`` as a chain of batched matmuls on MAX: repeated letters take diagonals, letters used once are
summed first, and each pair of operands contracts as one ``(batch, L, C) @ (batch, C, R)`` product."""

from __future__ import annotations

import math
import numbers
import string

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops.elementwise import astype as _astype
from . import _dtypes as D
from ._ufuncs import write_out

#: dtypes whose einsum NumPy computes in the dtype itself where Nabla's sums would widen
_NARROW = frozenset((_dt.bool_, _dt.int8, _dt.int16, _dt.int32, _dt.uint8, _dt.uint16, _dt.uint32))


def _parse(subscripts: str, operands):
    spec = subscripts.replace(" ", "")
    lhs, arrow, rhs = spec.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"nabla.numpy.einsum: {len(terms)} terms in {subscripts!r} for {len(operands)} operands")
    free = iter(c for c in string.ascii_letters if c not in spec)
    ell_rank = max((x.ndim - (len(t) - 3) for t, x in zip(terms, operands) if "..." in t), default=0)
    ell = "".join(next(free) for _ in range(ell_rank))
    out_terms = []
    for t, x in zip(terms, operands):
        if "..." in t:
            k = x.ndim - (len(t) - 3)
            t = t.replace("...", ell[ell_rank - k:])
        if len(t) != x.ndim:
            raise ValueError(f"nabla.numpy.einsum: term {t!r} does not match an operand of shape {x.shape}")
        out_terms.append(t)
    if arrow:
        out = rhs.replace("...", ell)
    else:
        counts = {}
        for t in out_terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    for c in out:
        if not any(c in t for t in out_terms):
            raise ValueError(f"nabla.numpy.einsum: output subscript {c!r} does not appear in the inputs")
    return out_terms, out


def _diagonals(x: Tensor, t: str):
    while True:
        dup = next((c for c in t if t.count(c) > 1), None)
        if dup is None:
            return x, t
        p = t.index(dup)
        q = t.index(dup, p + 1)
        x = _xp.linalg.diagonal(_xp.moveaxis(x, (p, q), (-2, -1)))
        t = "".join(c for k, c in enumerate(t) if k not in (p, q)) + dup


def _sum_out(x: Tensor, t: str, keep: set):
    axes = tuple(k for k, c in enumerate(t) if c not in keep)
    if axes:
        x = _xp.sum(x, axis=axes)
        t = "".join(c for c in t if c in keep)
    return x, t


def _contract(x, tx, y, ty, keep: set):
    x, tx = _sum_out(x, tx, keep | set(ty))
    y, ty = _sum_out(y, ty, keep | set(tx))
    batch = [c for c in tx if c in ty and c in keep]
    summed = [c for c in tx if c in ty and c not in keep]
    left = [c for c in tx if c not in ty]
    right = [c for c in ty if c not in tx]
    size: dict[str, int] = {}
    for c, n in [*zip(tx, x.shape), *zip(ty, y.shape)]:
        size[c] = max(size.get(c, 1), n)  # broadcast (size-1) axes of an ellipsis
    xs = _xp.permute_dims(x, tuple(tx.index(c) for c in batch + left + summed))
    ys = _xp.permute_dims(y, tuple(ty.index(c) for c in batch + summed + right))
    bx = xs.shape[:len(batch)]
    by = ys.shape[:len(batch)]
    cx = math.prod(size[c] for c in summed)
    xs = _xp.broadcast_to(xs, bx + tuple(size[c] for c in left + summed))
    ys = _xp.broadcast_to(ys, by + tuple(size[c] for c in summed + right))
    xm = _reshape(xs, bx + (math.prod(size[c] for c in left), cx))
    ym = _reshape(ys, by + (cx, math.prod(size[c] for c in right)))
    r = _xp.matmul(xm, ym)
    r = _reshape(r, r.shape[:len(batch)] + tuple(size[c] for c in left + right))
    return r, "".join(batch + left + right)


def _sublist_letters(sublist) -> str:
    """NumPy's sublist form: ints 0-51 name axes ('a'-'z', then 'A'-'Z'), ``...`` the broadcast axes."""
    out = []
    for s in sublist:
        if s is Ellipsis:
            out.append("...")
        elif isinstance(s, numbers.Integral) and not isinstance(s, bool) and 0 <= s < 52:
            out.append(chr(ord("a") + s) if s < 26 else chr(ord("A") + s - 26))
        else:
            raise ValueError(f"nabla.numpy.einsum: subscript {s!r} in a sublist must be an int in [0, 52) or ...")
    return "".join(out)


def _from_sublists(args) -> tuple:
    """``(op0, sub0, op1, sub1, ..., [sub_out])`` as ``(subscripts, operands)``."""
    pairs = len(args) // 2
    ins = ",".join(_sublist_letters(args[2 * k + 1]) for k in range(pairs))
    target = "->" + _sublist_letters(args[-1]) if len(args) % 2 else ""
    return ins + target, [args[2 * k] for k in range(pairs)]


def einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    if not isinstance(subscripts, str):
        subscripts, operands = _from_sublists((subscripts,) + operands)
    xs = D.promote_all([D.asarray(o, op="einsum") for o in operands], "einsum")
    if dtype is not None:
        xs = [_xp.astype(x, D.to_nabla(dtype, "einsum")) for x in xs]
    # NumPy sums in the operands' dtype: bools as any-of-ands, small ints wrapping; the matmuls and sums
    # run in int64 (which wraps alike modulo 2**bits) and the result comes back to that dtype
    result_dtype = xs[0].dtype if xs else None
    narrow = result_dtype in _NARROW
    if narrow:
        xs = [_astype(x, _dt.int64) for x in xs]
    terms, target = _parse(subscripts, xs)
    pairs = [_diagonals(x, t) for x, t in zip(xs, terms)]
    x, t = pairs[0]
    later = "".join(tt for _, tt in pairs[1:])
    x, t = _sum_out(x, t, set(target) | set(later))
    for k, (y, ty) in enumerate(pairs[1:], start=1):
        rest = "".join(tt for _, tt in pairs[k + 1:])
        x, t = _contract(x, t, y, ty, set(target) | set(rest))
    x, t = _sum_out(x, t, set(target))
    r = _xp.permute_dims(x, tuple(t.index(c) for c in target)) if t != target else x
    if narrow:
        r = r != 0 if result_dtype is _dt.bool_ else _astype(r, result_dtype)
    if out is not None:
        return write_out(out, r, "einsum", casting)
    return r
