"""NumPy's index tricks: ``mgrid``/``ogrid`` (complex steps count points, as NumPy), ``s_`` and
``index_exp``, and the index sets of triangles and diagonals (``triu_indices``, ``diag_indices``,
``mask_indices``, ``fill_diagonal``). Grids and indices are aranges on MAX."""

from __future__ import annotations

import math
import operator

import numpy as _np

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops import aliasing
from ..ops.elementwise import astype as _astype
from . import _dtypes as D
from ._arrays import arange, indices
from ._indexing import cycled, nonzero

_I64 = _dt.int64


class _Grid:
    """``mgrid[...]`` (dense, one array) and ``ogrid[...]`` (open, a tuple), as NumPy's ``nd_grid``."""

    def __init__(self, sparse: bool):
        self.sparse = sparse

    def __getitem__(self, key):
        return D.as_face(self._grid(key))

    def _grid(self, key):
        if isinstance(key, slice):
            return _line(key)
        keys = tuple(key)
        sizes, bounds = [], [0]
        for k in keys:
            start = 0 if k.start is None else k.start
            step = 1 if k.step is None else k.step
            if isinstance(step, (complex, _np.complexfloating)):
                sizes.append(int(abs(step)))
                bounds += [start, k.stop, abs(step)]  # (NumPy's result_type sees the step's magnitude)
            else:
                sizes.append(math.ceil((k.stop - start) / step))
                bounds += [start, k.stop, step]
        typ = _np.result_type(*bounds)
        if self.sparse:
            grids = [arange(n, dtype=typ) for n in sizes]
        else:
            grids = list(_xp.unstack(indices(sizes, typ), axis=0)) if sizes else []
        out = []
        for j, (k, g) in enumerate(zip(keys, grids)):
            start = 0 if k.start is None else k.start
            step = 1 if k.step is None else k.step
            if isinstance(step, (complex, _np.complexfloating)):
                n = int(abs(step))
                step = (k.stop - start) / float(n - 1) if n != 1 else 1
            g = g * step + start
            if self.sparse:
                g = _reshape(g, tuple(-1 if i == j else 1 for i in range(len(keys))))
            out.append(g)
        if self.sparse:
            return tuple(out)
        return _xp.stack(D.promote_all(out, "mgrid"), axis=0) if out else _xp.zeros((0,), dtype=_dt.as_dtype(typ))

    def __len__(self):
        return 0


def _line(key: slice):
    start = 0 if key.start is None else key.start
    step = key.step
    if isinstance(step, (complex, _np.complexfloating)):
        n = int(abs(step))
        typ = _np.result_type(start, key.stop, abs(step))
        step = (key.stop - start) / float(n - 1) if n != 1 else 1
        return arange(0, n, 1, dtype=typ) * step + start
    return arange(start, key.stop, step)


mgrid = _Grid(False)
ogrid = _Grid(True)


class _IndexExpression:
    """``s_[...]`` gives the index itself; ``index_exp[...]`` always a tuple."""

    def __init__(self, maketuple: bool):
        self.maketuple = maketuple

    def __getitem__(self, item):
        return (item,) if self.maketuple and not isinstance(item, tuple) else item


s_ = _IndexExpression(False)
index_exp = _IndexExpression(True)


# --- triangles and diagonals --------------------------------------------------------------------------

def _tri_mask(n, m, k, upper):
    rows = _reshape(_xp.arange(n, dtype=_I64), (-1, 1))
    cols = _reshape(_xp.arange(m, dtype=_I64), (1, -1))
    return (cols - rows >= k) if upper else (cols - rows <= k)


def triu_indices(n, k=0, m=None):
    n = operator.index(n)
    return nonzero(_tri_mask(n, n if m is None else operator.index(m), k, True))


def tril_indices(n, k=0, m=None):
    n = operator.index(n)
    return nonzero(_tri_mask(n, n if m is None else operator.index(m), k, False))


def _square_2d(arr, op):
    a = D.asarray(arr, op=op) if not hasattr(arr, "shape") else arr
    if len(a.shape) != 2:
        raise ValueError("input array must be 2-d")
    return a.shape


def triu_indices_from(arr, k=0):
    n, m = _square_2d(arr, "triu_indices_from")
    return triu_indices(n, k=k, m=m)


def tril_indices_from(arr, k=0):
    n, m = _square_2d(arr, "tril_indices_from")
    return tril_indices(n, k=k, m=m)


def diag_indices(n, ndim=2):
    idx = _xp.arange(operator.index(n), dtype=_I64)
    return (idx,) * ndim


def diag_indices_from(arr):
    shape = arr.shape if hasattr(arr, "shape") else _np.shape(arr)
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if any(s != shape[0] for s in shape):
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shape[0], len(shape))


def mask_indices(n, mask_func, k=0):
    return nonzero(mask_func(_xp.ones((n, n), dtype=_I64), k) != 0)


def fill_diagonal(a, val, wrap=False):
    """Writes ``val`` (repeated as needed) on the main diagonal of ``a`` in place, as NumPy: over the
    flat positions ``0, step, 2 step, ...`` (``wrap``: past the first square block of a tall matrix)."""
    if not isinstance(a, Tensor):
        raise TypeError("nabla.numpy.fill_diagonal: a must be a nabla array (it is written in place)")
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    total = math.prod(a.shape)
    if a.ndim == 2:
        step = a.shape[1] + 1
        end = total if wrap else min(total, a.shape[1] * a.shape[1])
    else:
        if any(s != a.shape[0] for s in a.shape):
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + sum(math.prod(a.shape[i + 1:]) for i in range(a.ndim - 1))
        end = total
    pos = _xp.arange(0, end, step, dtype=_I64)
    n = pos.shape[0]
    if n == 0:
        return None
    values = cycled(val, n)
    flat = _reshape(a, (-1,))
    flat[pos] = values if values.dtype is a.dtype else _astype(values, a.dtype)
    aliasing.setitem(a, ..., _reshape(flat, a.shape))
    return None


__all__ = [n for n, v in list(globals().items()) if not n.startswith("_") and callable(v)
           and getattr(v, "__module__", None) == __name__]
