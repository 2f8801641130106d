"""A ufunc's ``at`` over indices with repeats (NumPy's unbuffered in-place op): the index data's
rounds, planned on the host as a key is, and additions as one scatter-add on MAX."""

from __future__ import annotations

import math

import numpy as _np

from .. import array_api as _xp
from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops.elementwise import astype as _astype, complex_from_parts, where as _where
from ..ops.index_primitives import scatter_add_op
from ..ops.indexing import check_bounds
from ..ops.view import reshape as _reshape
from . import _dtypes as D


def repeated_indices(a: Tensor, parts):
    """For an index of integer arrays with repeats: ``(the arrays broadcast and raveled, on the host;
    their broadcast shape; the positions in the order of the index they take (stable); where each
    index's run starts in that order; per position, which occurrence of its index it is)``: a round
    of every index's k-th occurrence repeats none; None where no index repeats (or the key is not
    integer arrays). The index data is read here, at the call, as NumPy's unbuffered ``at`` reads it."""
    if len(parts) > a.ndim or not all(isinstance(p, (Tensor, list, _np.ndarray)) for p in parts):
        return None
    host = [_np.asarray(p.numpy() if isinstance(p, Tensor) else p) for p in parts]
    if any(h.dtype.kind not in "iu" for h in host):
        return None
    shape = _np.broadcast_shapes(*(h.shape for h in host))
    flat = [_np.broadcast_to(h, shape).ravel() for h in host]
    if not flat[0].size:
        return None
    dims = a.shape[:len(parts)]
    wrapped = [_np.where(f < 0, f + n, f) for f, n in zip(flat, dims)]
    for axis, (f, w, n) in enumerate(zip(flat, wrapped, dims)):
        bad = (w < 0) | (w >= n)
        if bad.any():  # (NumPy's IndexError, before anything is written)
            raise IndexError(f"nabla.numpy.at: index {f[bad][0]} is out of bounds for axis {axis} with size {n}")
    linear = _np.ravel_multi_index(wrapped, dims)  # (host index data, planned here as a key is)
    order = _np.argsort(linear, kind="stable")
    ranked = linear[order]
    starts = _np.r_[0, _np.flatnonzero(ranked[1:] != ranked[:-1]) + 1]
    rank = _np.empty(linear.size, _np.int64)
    rank[order] = _np.arange(linear.size) - _np.repeat(starts, _np.diff(_np.r_[starts, linear.size]))
    if rank.max() == 0:
        return None
    return flat, tuple(shape), order, starts, rank


#: ufuncs whose ``at`` over repeated indices may reduce each index's values first (any grouping and
#: order gives the same bits)
ORDER_FREE = frozenset({"maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or", "logical_xor",
                         "bitwise_and", "bitwise_or", "bitwise_xor"})


def scatter_added(a: Tensor, indices, b: Tensor, op: str) -> Tensor:
    """``a`` with ``b`` added at ``indices`` (arrays, or arrays among slices), each repeat counted."""
    idx = indices if isinstance(indices, tuple) else (indices,)
    b = b if b.dtype is a.dtype else _astype(b, a.dtype)
    if any(isinstance(i, slice) or i is Ellipsis or i is None for i in idx):
        # (arrays mixed with slices: the selection's element positions, in NumPy's order for the
        # key, from its own indexing of the positions: index data read at the call, as ``at``'s)
        host = tuple(i.numpy() if isinstance(i, Tensor) else i for i in idx)
        try:
            positions = _np.arange(math.prod(a.shape), dtype=_np.int64).reshape(a.shape)[host]
        except IndexError as e:
            raise IndexError(f"nabla.numpy.{op}: {e} (array of shape {a.shape})") from None
        flat = _xp.asarray(positions.reshape(-1), device=a.device)
        base = _reshape(a, (math.prod(a.shape),))
        u = _reshape(_xp.broadcast_to(b, positions.shape), (-1,))
        return _added(a, base, u, flat)
    arrays = [D.asarray(i, op=op) for i in idx]
    for t in arrays:
        if not t.dtype.is_integer:
            raise IndexError(f"nabla.numpy.{op}: indices must be integers, got {t.dtype.name}")
    arrays = _xp.broadcast_arrays(*arrays)
    k = len(arrays)
    lead = a.shape[:k]
    flat = None
    for axis, (t, n) in enumerate(zip(arrays, lead)):
        check_bounds(t, n, axis, op)  # (NumPy's IndexError, where the indices are host memory: as a key's)
        t = _astype(t, _dt.int64)
        t = _where(t < 0, t + n, t)
        flat = t if flat is None else flat * n + t
    rest = a.shape[k:]
    base = _reshape(a, (math.prod(lead),) + rest)
    return _added(a, base, _xp.broadcast_to(b, flat.shape + rest), flat)


def _added(a: Tensor, base: Tensor, u: Tensor, flat: Tensor) -> Tensor:
    """``a`` (seen as ``base``, its rows along the first axis) with ``u``'s rows added at rows ``flat``."""
    if a.dtype.is_bool:  # NumPy's bool add is an OR: count the true terms (MAX has no bool scatter-add)
        counts = scatter_add_op(_astype(base, _dt.int64), _astype(u, _dt.int64), flat, axis=0)
        return _reshape(counts, a.shape) != 0
    if a.dtype.is_complex:  # real and imaginary parts add apart
        re = scatter_add_op(_xp.real(base), _xp.real(u), flat, axis=0)
        im = scatter_add_op(_xp.imag(base), _xp.imag(u), flat, axis=0)
        return _reshape(complex_from_parts(re, im), a.shape)
    return _reshape(scatter_add_op(base, u, flat, axis=0), a.shape)
