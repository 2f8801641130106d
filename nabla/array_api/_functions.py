"""The standard's non-elementwise functions, with its signatures, on nabla.ops."""

from __future__ import annotations

import builtins
import math
import numbers

import numpy as np

from .. import ops as _ops
from ..core import dtypes as _dt
from ..core.tensor import Tensor
from ..ops import aliasing as _aliasing, indexing as _ix, scans as _scans, sorting as _sorting
from ..ops.base import as_index, normalize_axes, normalize_axis
from ..ops.elementwise import BINARY_FUNCTIONS as _B, UNARY_FUNCTIONS as _U, astype as _astype, where as _where
from ._dtypes import as_dtype
from ._creation import _tensor, asarray


# --- manipulation -----------------------------------------------------------------

def concat(arrays, /, *, axis=0) -> Tensor:
    arrays = list(arrays)
    dtype = _dt.result_type(*(a.dtype for a in arrays))
    arrays = [a if a.dtype is dtype else _astype(a, dtype) for a in arrays]
    if axis is None:
        arrays = [_ops.reshape(a, (a.size,)) for a in arrays]
        axis = 0
    if len(arrays) == 1:
        normalize_axis(axis, builtins.max(arrays[0].ndim, 1), "concat")
        return asarray(arrays[0], copy=True)
    return _ops.concat(arrays, axis=axis)


def stack(arrays, /, *, axis=0) -> Tensor:
    arrays = list(arrays)
    if not arrays:
        raise ValueError("nabla.stack: need at least one array")
    shapes = {a.shape for a in arrays}
    if len(shapes) > 1:
        raise ValueError(f"nabla.stack: arrays must share a shape, got {sorted(shapes)}")
    a = normalize_axis(axis, arrays[0].ndim + 1, "stack")
    return concat([_ops.unsqueeze(t, a) for t in arrays], axis=a)


def unstack(x, /, *, axis=0) -> tuple[Tensor, ...]:
    x = _tensor(x, "unstack")
    if x.ndim == 0:
        raise ValueError("nabla.unstack: 0-d arrays cannot be unstacked")
    a = normalize_axis(axis, x.ndim, "unstack")
    key = [slice(None)] * x.ndim
    out = []
    for i in range(x.shape[a]):
        key[a] = i
        out.append(x[tuple(key)])
    return tuple(out)


def expand_dims(x, /, axis=0) -> Tensor:
    x = _tensor(x, "expand_dims")
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    n = x.ndim + len(axes)
    norm = sorted(normalize_axis(a, n, "expand_dims") for a in axes)
    if len(set(norm)) != len(norm):
        raise ValueError(f"nabla.expand_dims: repeated axis in {axes}")
    shape, it = [], iter(x.shape)
    for k in range(n):
        shape.append(1 if k in norm else next(it))
    return _ops.reshape(x, tuple(shape))


def squeeze(x, /, axis) -> Tensor:
    x = _tensor(x, "squeeze")
    axes = normalize_axes(axis, x.ndim, "squeeze")
    return _ops.squeeze(x, axes)


def permute_dims(x, /, axes) -> Tensor:
    # a view, as NumPy's (array-api-strict's): SciPy writes through ``permute_dims(x)[a:b] += y``
    x = _tensor(x, "permute_dims")
    axes = tuple(axes)
    return _aliasing.permuted(x, _ops.permute_dims(x, axes), axes)


def moveaxis(x, source, destination, /) -> Tensor:
    x = _tensor(x, "moveaxis")
    src = (source,) if isinstance(source, numbers.Integral) else tuple(source)
    dst = (destination,) if isinstance(destination, numbers.Integral) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError(f"nabla.moveaxis: source {src} and destination {dst} differ in length")
    src = [normalize_axis(a, x.ndim, "moveaxis") for a in src]
    dst = [normalize_axis(a, x.ndim, "moveaxis") for a in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError("nabla.moveaxis: repeated axes")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _aliasing.permuted(x, _ops.permute_dims(x, order), order)


def reshape(x, /, shape, *, copy=None) -> Tensor:
    """A view of ``x`` (writes through it reach ``x``, as through NumPy's and array-api-strict's:
    SciPy writes into ``reshape(fj.T, ...)`` and reads ``fj``); ``copy=True``: a new array."""
    x = _tensor(x, "reshape")
    if copy:
        return _ops.reshape(x, tuple(shape))
    return _aliasing.reshape(x, tuple(shape))


def flip(x, /, *, axis=None) -> Tensor:
    x = _tensor(x, "flip")
    axes = normalize_axes(axis, x.ndim, "flip")
    key = tuple(slice(None, None, -1) if k in axes else slice(None) for k in range(x.ndim))
    return x[key] if axes else asarray(x, copy=True)


def roll(x, /, shift, *, axis=None) -> Tensor:
    x = _tensor(x, "roll")
    if axis is None:
        flat = _ops.reshape(x, (x.size,))
        return _ops.reshape(roll(flat, shift, axis=0), x.shape)
    shifts = (shift,) if as_index(shift) is not None else tuple(shift)
    axes = (axis,) if as_index(axis) is not None else tuple(axis)
    if len(shifts) != len(axes):
        if len(shifts) == 1:
            shifts = shifts * len(axes)
        else:
            raise ValueError(f"nabla.roll: shift {shifts} and axis {axes} differ in length")
    out = x
    for s, a in zip(shifts, axes):
        a = normalize_axis(a, x.ndim, "roll")
        n = x.shape[a]
        if n == 0:
            continue
        s %= n
        if s == 0:
            continue
        head = [slice(None)] * x.ndim
        tail = [slice(None)] * x.ndim
        head[a], tail[a] = slice(n - s, None), slice(0, n - s)
        out = _ops.concat([out[tuple(head)], out[tuple(tail)]], axis=a)
    return out


def repeat(x, repeats, /, *, axis=None) -> Tensor:
    x = _tensor(x, "repeat")
    if axis is None:
        x = _ops.reshape(x, (x.size,))
        axis = 0
    a = normalize_axis(axis, x.ndim, "repeat")
    n = x.shape[a]
    if isinstance(repeats, Tensor):
        if repeats.ndim == 0:
            repeats = int(repeats)
        else:
            if repeats.shape == (1,) and n != 1:  # broadcast along the axis, as NumPy does
                repeats = _ops.broadcast_to(repeats, (n,))
            if repeats.shape != (n,):
                raise ValueError(f"nabla.repeat: repeats of shape {repeats.shape} for an axis of size {n}")
            total = int(_ops.sum(repeats).item())  # data-dependent size: realized
            ends = _scans.cumulative_sum(_astype(repeats, _dt.int64))
            pos = _ops.arange(total, device=x.device)
            idx = _sorting.searchsorted(ends, pos, side="right")
            return _ix.take(x, idx, axis=a)
    if repeats < 0:
        raise ValueError(f"nabla.repeat: repeats must be non-negative, got {repeats}")
    idx = np.repeat(np.arange(n, dtype=np.int64), repeats)  # static positions, not data
    return _ix.take(x, asarray(idx, device=x.device), axis=a)


def tile(x, repetitions, /) -> Tensor:
    x = _tensor(x, "tile")
    reps = tuple(repetitions)
    nd = builtins.max(len(reps), x.ndim)
    reps = (1,) * (nd - len(reps)) + reps
    x = _ops.reshape(x, (1,) * (nd - x.ndim) + x.shape)
    shape = x.shape
    inter = []
    for r, d in zip(reps, shape):
        inter += [r, d]
    expanded = _ops.broadcast_to(_ops.reshape(x, tuple(v for d in shape for v in (1, d))), tuple(inter))
    return _ops.reshape(expanded, tuple(r * d for r, d in zip(reps, shape)))


# --- indexing ---------------------------------------------------------------------

def take(x, indices, /, *, axis=None) -> Tensor:
    return _ix.take(_tensor(x, "take"), indices, axis)


def take_along_axis(x, indices, /, *, axis=-1) -> Tensor:
    return _ix.take_along_axis(_tensor(x, "take_along_axis"), indices, axis)


# --- searching ----------------------------------------------------------------------

def argmax(x, /, *, axis=None, keepdims=False) -> Tensor:
    return _sorting.argmax(_tensor(x, "argmax"), axis, keepdims)


def argmin(x, /, *, axis=None, keepdims=False) -> Tensor:
    return _sorting.argmin(_tensor(x, "argmin"), axis, keepdims)


def nonzero(x, /) -> tuple[Tensor, ...]:
    return _ix.nonzero(_tensor(x, "nonzero"))


def count_nonzero(x, /, *, axis=None, keepdims=False) -> Tensor:
    x = _tensor(x, "count_nonzero")
    if x.dtype.is_bool:  # (its sum, int64: a mask's bytes summed as they are)
        return _ops.sum(x, axis=axis, keepdims=keepdims)
    nz = _B["not_equal"](x, 0)
    return _ops.sum(_astype(nz, _dt.int64), axis=axis, keepdims=keepdims)


def searchsorted(x1, x2, /, *, side="left", sorter=None) -> Tensor:
    return _sorting.searchsorted(_tensor(x1, "searchsorted"), x2, side, sorter)


def where(condition, x1, x2, /) -> Tensor:
    return _where(condition, x1, x2)


# --- sorting ----------------------------------------------------------------------------

def argsort(x, /, *, axis=-1, descending=False, stable=True) -> Tensor:
    return _sorting.argsort(_tensor(x, "argsort"), axis, descending, stable)


def sort(x, /, *, axis=-1, descending=False, stable=True) -> Tensor:
    return _sorting.sort(_tensor(x, "sort"), axis, descending, stable)


# --- statistics ---------------------------------------------------------------------------

def sum(x, /, *, axis=None, dtype=None, keepdims=False) -> Tensor:
    x = _tensor(x, "sum")
    return _ops.sum(x, axis=_axis(axis), keepdims=keepdims, dtype=as_dtype(dtype, "sum"))


def prod(x, /, *, axis=None, dtype=None, keepdims=False) -> Tensor:
    x = _tensor(x, "prod")
    return _ops.prod(x, axis=_axis(axis), keepdims=keepdims, dtype=as_dtype(dtype, "prod"))


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def mean(x, /, *, axis=None, keepdims=False) -> Tensor:
    x = _tensor(x, "mean")
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError(f"nabla.mean: expected a floating-point array, got {x.dtype}")
    axes = normalize_axes(axis, x.ndim, "mean")
    if x.ndim and builtins.any(x.shape[a] == 0 for a in axes):
        total = _ops.sum(x, axis=axis, keepdims=keepdims)
        return total / 0.0 * 0.0 + float("nan")
    return _ops.mean(x, axis=axis, keepdims=keepdims)


def _nan_reduce(name, x, axis, keepdims):
    x = _tensor(x, name)
    if x.dtype.is_bool:
        raise TypeError(f"nabla.{name}: expected a numeric array, got {x.dtype}")
    axes = normalize_axes(axis, x.ndim, name)
    if x.ndim and builtins.any(x.shape[a] == 0 for a in axes):
        raise ValueError(f"nabla.{name}: zero-size reduction axis (shape {x.shape})")
    return getattr(_ops, name)(x, axis=axis, keepdims=keepdims)  # NaN propagates (the op's lowering)


def max(x, /, *, axis=None, keepdims=False) -> Tensor:
    return _nan_reduce("max", x, axis, keepdims)


def min(x, /, *, axis=None, keepdims=False) -> Tensor:
    return _nan_reduce("min", x, axis, keepdims)


def var(x, /, *, axis=None, correction=0.0, keepdims=False) -> Tensor:
    x = _tensor(x, "var")
    if not x.dtype.is_floating:
        raise TypeError(f"nabla.var: expected a real floating-point array, got {x.dtype}")
    axes = normalize_axes(axis, x.ndim, "var")
    n = math.prod(x.shape[a] for a in axes)
    m = _ops.mean(x, axis=axes, keepdims=True) if n else _ops.sum(x, axis=axes, keepdims=True)
    d = x - m
    ss = _ops.sum(d * d, axis=axes, keepdims=keepdims)
    denom = n - correction
    if denom <= 0:
        return ss * float("nan")
    if x.dtype is _dt.float16:  # a count past 65504 is inf as a float16: divide in float32, round once (as NumPy)
        return _astype(_astype(ss, _dt.float32) / float(denom), _dt.float16)
    return ss / float(denom)


def std(x, /, *, axis=None, correction=0.0, keepdims=False) -> Tensor:
    return _U["sqrt"](var(x, axis=axis, correction=correction, keepdims=keepdims))


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False) -> Tensor:
    return _scans.cumulative_sum(_tensor(x, "cumulative_sum"), axis, as_dtype(dtype, "cumulative_sum"),
                                   include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False) -> Tensor:
    return _scans.cumulative_prod(_tensor(x, "cumulative_prod"), axis, as_dtype(dtype, "cumulative_prod"),
                                    include_initial)


# --- utility ------------------------------------------------------------------------------

def any(x, /, *, axis=None, keepdims=False) -> Tensor:
    x = _tensor(x, "any")
    nz = x if x.dtype.is_bool else _B["not_equal"](x, 0)
    # a count in int64: the fused kernel runs ``sum(astype(mask, int64))`` of float data as one program
    return _B["greater"](_ops.sum(_astype(nz, _dt.int64), axis=_axis(axis), keepdims=keepdims), 0)


def all(x, /, *, axis=None, keepdims=False) -> Tensor:
    x = _tensor(x, "all")
    zero = x if not x.dtype.is_bool else _U["logical_not"](x)
    if not x.dtype.is_bool:
        zero = _B["equal"](x, 0)
    return _U["logical_not"](any(zero, axis=axis, keepdims=keepdims))


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None) -> Tensor:
    x = _tensor(x, "diff")
    a = normalize_axis(axis, x.ndim, "diff")
    if n < 0:
        raise ValueError(f"nabla.diff: n must be non-negative, got {n}")
    parts = [t for t in (prepend, x, append) if t is not None]
    if len(parts) > 1:
        x = concat(parts, axis=a)
    for _ in range(n):
        m = x.shape[a]
        hi = [slice(None)] * x.ndim
        lo = [slice(None)] * x.ndim
        hi[a], lo[a] = slice(1, None), slice(0, builtins.max(m - 1, 0))
        x = x[tuple(hi)] - x[tuple(lo)] if not x.dtype.is_bool else _B["not_equal"](x[tuple(hi)], x[tuple(lo)])
    return x


# --- sets ---------------------------------------------------------------------------------

def _unique_parts(x):
    """Sorted values, the sort permutation, and the mask of each group's first element (MAX ops;
    the group count is realized)."""
    flat = _ops.reshape(x, (x.size,))
    if flat.dtype.is_complex:  # complex has no order; group by (real, imag), lexicographically
        by_imag = _sorting.argsort(_U["imag"](flat))
        perm = _ix.take(by_imag, _sorting.argsort(_ix.take(_U["real"](flat), by_imag, axis=0)), axis=0)
    else:
        perm = _sorting.argsort(flat)
    s = _ix.take(flat, perm, axis=0)
    n = flat.size
    if n == 0:
        return flat, perm, s, None, 0
    first = _ops.ones((1,), dtype=_dt.bool_, device=x.device)
    if n > 1:
        first = _ops.concat([first, _B["not_equal"](s[1:], s[:-1])], axis=0)
    return flat, perm, s, first, n


def unique_values(x, /) -> Tensor:
    flat, perm, s, first, n = _unique_parts(_tensor(x, "unique_values"))
    if n == 0:
        return s
    return s[first]


def unique_counts(x, /):
    flat, perm, s, first, n = _unique_parts(_tensor(x, "unique_counts"))
    if n == 0:
        return UniqueCountsResult(s, _ops.zeros((0,), dtype=_dt.int64, device=s.device))
    values, counts = s[first], _counts(first, n)
    return UniqueCountsResult(values, counts)


def _counts(first, n):
    (starts,) = _ix.nonzero(first)
    ends = _ops.concat([starts[1:], asarray([n], dtype=_dt.int64, device=starts.device)], axis=0)
    return ends - starts


def _inverse(first, perm, x):
    group = _scans.cumulative_sum(_astype(first, _dt.int64)) - 1  # group of each sorted position
    inv = _ops.zeros((x.size,), dtype=_dt.int64, device=x.device)
    inv[perm] = group
    return _ops.reshape(inv, x.shape)


def unique_inverse(x, /):
    x = _tensor(x, "unique_inverse")
    flat, perm, s, first, n = _unique_parts(x)
    if n == 0:
        return UniqueInverseResult(s, _ops.zeros(x.shape, dtype=_dt.int64, device=x.device))
    return UniqueInverseResult(s[first], _inverse(first, perm, x))


def unique_all(x, /):
    x = _tensor(x, "unique_all")
    flat, perm, s, first, n = _unique_parts(x)
    if n == 0:
        z = _ops.zeros((0,), dtype=_dt.int64, device=x.device)
        return UniqueAllResult(s, z, _ops.zeros(x.shape, dtype=_dt.int64, device=x.device), z)
    return UniqueAllResult(s[first], perm[first], _inverse(first, perm, x), _counts(first, n))


def isin(x1, x2, /, *, invert=False) -> Tensor:
    if not isinstance(x1, Tensor) and not isinstance(x2, Tensor):
        raise TypeError("nabla.isin: at least one of x1, x2 must be a tensor")
    if not isinstance(x2, Tensor) or not isinstance(x1, Tensor):
        # a Python scalar compares under the standard's scalar rules; an int the dtype cannot hold is in nothing
        tensor, scalar = (x1, x2) if isinstance(x1, Tensor) else (x2, x1)
        if isinstance(scalar, int) and not isinstance(scalar, bool) and tensor.dtype.is_integer and \
                not np.iinfo(tensor.dtype.numpy_dtype).min <= scalar <= np.iinfo(tensor.dtype.numpy_dtype).max:
            out = _ops.zeros(tensor.shape if tensor is x1 else (), dtype=_dt.bool_, device=tensor.device)
        else:
            out = _B["equal"](tensor, scalar)
            out = out if tensor is x1 else any(out)
        return _U["logical_not"](out) if invert else out
    flat = _ops.reshape(x2, (x2.size,))
    if flat.size == 0:
        out = _ops.zeros(x1.shape, dtype=_dt.bool_, device=x1.device)
    elif x1.size * flat.size > _PAIRS_COMPARED and not (x1.dtype.is_complex or x2.dtype.is_complex):
        # (x2 sorted and each element of x1 found by binary search: (n + m) log m, where comparing
        # every pair held n * m booleans, 20 GB for two arrays of 48,000; NaN, last, equals nothing)
        values = _sorting.sort(flat)
        wanted = _ops.reshape(x1, (x1.size,))
        at = _B["minimum"](_sorting.searchsorted(values, wanted), values.size - 1)
        out = _ops.reshape(_B["equal"](_ix.take(values, at, axis=0), wanted), x1.shape)
    else:
        out = any(_B["equal"](_ops.reshape(x1, x1.shape + (1,)), flat), axis=-1)
    return _U["logical_not"](out) if invert else out


#: above this many pairs, ``isin`` searches a sorted copy of x2 instead of comparing every pair
_PAIRS_COMPARED = 1 << 22


from typing import NamedTuple  # noqa: E402


class UniqueAllResult(NamedTuple):
    values: Tensor
    indices: Tensor
    inverse_indices: Tensor
    counts: Tensor


class UniqueCountsResult(NamedTuple):
    values: Tensor
    counts: Tensor


class UniqueInverseResult(NamedTuple):
    values: Tensor
    inverse_indices: Tensor


# --- linear algebra in the main namespace ---------------------------------------------------

def matmul(x1, x2, /) -> Tensor:
    return _ops.matmul(x1, x2)


def matrix_transpose(x, /) -> Tensor:
    x = _tensor(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"nabla.matrix_transpose: needs at least 2-D, got shape {x.shape}")
    return _aliasing.swapaxes(x, -1, -2)


def tensordot(x1, x2, /, *, axes=2) -> Tensor:
    if isinstance(axes, numbers.Integral):
        if axes < 0:
            raise ValueError(f"nabla.tensordot: axes must be non-negative, got {axes}")
        a1 = list(range(x1.ndim - axes, x1.ndim))
        a2 = list(range(axes))
    else:
        a1, a2 = [list(a) if not isinstance(a, numbers.Integral) else [a] for a in axes]
    a1 = [normalize_axis(a, x1.ndim, "tensordot") for a in a1]
    a2 = [normalize_axis(a, x2.ndim, "tensordot") for a in a2]
    for p, q in zip(a1, a2):
        if x1.shape[p] != x2.shape[q]:
            raise ValueError(f"nabla.tensordot: contracted axes differ in size: {x1.shape} vs {x2.shape}")
    dtype = _dt.result_type(x1.dtype, x2.dtype)
    x1, x2 = (t if t.dtype is dtype else _astype(t, dtype) for t in (x1, x2))
    free1 = [a for a in range(x1.ndim) if a not in a1]
    free2 = [a for a in range(x2.ndim) if a not in a2]
    k = math.prod(x1.shape[a] for a in a1)
    m = math.prod(x1.shape[a] for a in free1)
    n = math.prod(x2.shape[a] for a in free2)
    left = _ops.reshape(_ops.permute_dims(x1, free1 + a1), (m, k))
    right = _ops.reshape(_ops.permute_dims(x2, a2 + free2), (k, n))
    if k == 0:
        out = _ops.zeros((m, n), dtype=dtype, device=x1.device)
    else:
        out = _ops.matmul(left, right) if not dtype.is_bool else _B["greater"](_ops.matmul(
            _astype(left, _dt.int64), _astype(right, _dt.int64)), 0)
    return _ops.reshape(out, tuple(x1.shape[a] for a in free1) + tuple(x2.shape[a] for a in free2))


def vecdot(x1, x2, /, *, axis=-1) -> Tensor:
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("nabla.vecdot: operands must be at least 1-D")
    a1 = normalize_axis(axis, x1.ndim, "vecdot")
    a2 = normalize_axis(axis, x2.ndim, "vecdot")
    if x1.shape[a1] != x2.shape[a2]:
        raise ValueError(f"nabla.vecdot: axis sizes differ: {x1.shape} vs {x2.shape}")
    if axis >= 0 and x1.ndim != x2.ndim:
        raise ValueError("nabla.vecdot: a non-negative axis needs operands of one rank")
    x1 = moveaxis(x1, a1, -1)
    x2 = moveaxis(x2, a2, -1)
    products = _U["conj"](x1) * x2 if x1.dtype.is_complex else x1 * x2
    return sum(products, axis=-1, dtype=products.dtype)  # the standard keeps the dtype (no int widening)


def clip(x, /, min=None, max=None) -> Tensor:
    x = _tensor(x, "clip")
    out = x
    for bound, fn in ((min, "maximum"), (max, "minimum")):
        if bound is None:
            continue
        if isinstance(bound, Tensor) and bound.dtype is not x.dtype:
            if bound.dtype.kind != x.dtype.kind and not (bound.dtype.is_integer and x.dtype.is_integer):
                raise TypeError(f"nabla.clip: bound dtype {bound.dtype} does not match {x.dtype}")
            bound = _astype(bound, x.dtype)
        if isinstance(bound, float) and x.dtype.is_integer:
            raise TypeError(f"nabla.clip: float bound for an {x.dtype} array")
        if isinstance(bound, int) and x.dtype.is_integer:
            info = np.iinfo(x.dtype.numpy_dtype)
            bound = builtins.min(builtins.max(bound, int(info.min)), int(info.max))
        out = _B[fn](out, bound)
    return out if out is not x else asarray(x, copy=True)  # the shape broadcasts with the bounds


__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and callable(v) and getattr(v, "__module__", None) == __name__]
