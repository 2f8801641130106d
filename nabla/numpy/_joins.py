"""Joining and splitting as NumPy spells them (``concatenate``, ``stack`` and its kinds, ``append``,
``split`` and its kinds), over ``nabla.array_api``: a join's parts promoted to their common dtype,
each checked against ``casting`` as NumPy's joins check it; a split's parts are views."""

from __future__ import annotations

import builtins

import numpy as _np

from .. import array_api as _xp
from ..core.tensor import Tensor
from ..ops.base import as_index
from ..ops.elementwise import astype as _astype
from ..ops.view import reshape as _reshape
from . import _dtypes as D
from ._arrays import atleast_1d, atleast_2d, atleast_3d, ravel
from ._ufuncs import write_out


def _arrays(seq, op, casting=None, dtype=None, out=None):
    """A join's parts as arrays of their common dtype; given ``casting``, each part checked against
    the dtype it is cast to (``dtype``, ``out``'s or the common one), as NumPy's joins check it."""
    if isinstance(seq, Tensor):
        return list(_xp.unstack(seq, axis=0))
    parts = [D.asarray(a, op=op) for a in seq]
    if not parts:
        raise ValueError(f"nabla.numpy.{op}: need at least one array")
    promoted = D.promote_all(parts, op)
    if casting is not None:
        if dtype is not None and out is not None:
            raise TypeError(f"nabla.numpy.{op}() only takes `out` or `dtype` as an argument, but both were provided.")
        target = D.to_nabla(dtype, op) if dtype is not None else out.dtype if isinstance(out, Tensor) \
            else promoted[0].dtype
        _check_parts_cast(parts, target, casting, op)
    return promoted


def concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    parts = _arrays(arrays, "concatenate", casting, dtype, out)
    if axis is None:
        parts, axis = [_reshape(p, (-1,)) for p in parts], 0
    r = _xp.concat(parts, axis=axis)
    if dtype is not None:
        r = _astype(r, D.to_nabla(dtype, "concatenate"))
    if out is not None:
        return write_out(out, r, "concatenate", "unsafe")
    return r


def _check_parts_cast(parts, target, casting: str, op: str) -> None:
    """NumPy's rule for a join: each part is cast to the result's dtype (``dtype``, ``out``'s or the
    parts' common one) under ``casting``."""
    if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise ValueError(f"nabla.numpy.{op}: casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
                         f"'unsafe' (got {casting!r})")
    for p in parts:
        if not _np.can_cast(p.dtype.numpy_dtype, target.numpy_dtype, casting):
            raise TypeError(f"nabla.numpy.{op}: cannot cast array data from dtype('{p.dtype.name}') to "
                            f"dtype('{target.name}') according to the rule '{casting}'")


concat = concatenate


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    r = _xp.stack(_arrays(arrays, "stack", casting, dtype, out), axis=axis)
    if dtype is not None:
        r = _astype(r, D.to_nabla(dtype, "stack"))
    return r if out is None else write_out(out, r, "stack", "unsafe")


def vstack(tup, *, dtype=None, casting="same_kind"):
    return concatenate(atleast_2d(*_arrays(tup, "vstack")) if len(tup) > 1 else [atleast_2d(_arrays(tup, "vstack")[0])],
                       axis=0, dtype=dtype)


row_stack = vstack


def hstack(tup, *, dtype=None, casting="same_kind"):
    parts = [atleast_1d(a) for a in _arrays(tup, "hstack")]
    return concatenate(parts, axis=0 if parts[0].ndim == 1 else 1, dtype=dtype)


def dstack(tup):
    parts = [atleast_3d(a) for a in _arrays(tup, "dstack")]
    return concatenate(parts, axis=2)


def column_stack(tup):
    parts = [_reshape(a, (-1, 1)) if a.ndim < 2 else a for a in _arrays(tup, "column_stack")]
    return concatenate(parts, axis=1)


def append(arr, values, axis=None):
    a, v = D.asarray(arr, op="append"), D.asarray(values, op="append")
    if axis is None:
        return concatenate([ravel(a), ravel(v)])
    return concatenate([a, v], axis=axis)


def _split_points(n, indices_or_sections, op, even):
    k = as_index(indices_or_sections)
    if k is not None:
        if k <= 0:
            raise ValueError(f"nabla.numpy.{op}: number of sections must be larger than 0")
        if even and n % k:
            raise ValueError(f"nabla.numpy.{op}: array split does not result in an equal division "
                             f"({n} into {k})")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        return [builtins.sum(sizes[:i]) for i in range(k + 1)]
    pts = [builtins.min(builtins.max(int(i) if i >= 0 else n + int(i), 0), n) for i in indices_or_sections]
    return [0] + pts + [n]


def _split(ary, indices_or_sections, axis, op, even):
    x = D.asarray(ary, op=op)
    axis %= x.ndim
    pts = _split_points(x.shape[axis], indices_or_sections, op, even)
    lead = (slice(None),) * axis
    return [x[lead + (slice(a, builtins.max(a, b)),)] for a, b in zip(pts[:-1], pts[1:])]


def split(ary, indices_or_sections, axis=0):
    return _split(ary, indices_or_sections, axis, "split", True)


def array_split(ary, indices_or_sections, axis=0):
    return _split(ary, indices_or_sections, axis, "array_split", False)


def hsplit(ary, indices_or_sections):
    x = D.asarray(ary, op="hsplit")
    return split(x, indices_or_sections, axis=1 if x.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, axis=0)


def dsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, axis=2)


__all__ = [n for n, v in list(globals().items()) if not n.startswith("_") and callable(v)
           and getattr(v, "__module__", None) == __name__]
