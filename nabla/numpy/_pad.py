"""``pad``: NumPy's padding modes, each built from Nabla's gathers, fills and concatenations."""

from __future__ import annotations

import numpy as _np

from .. import array_api as _xp
from ..core import dtypes as _dt
from ..ops.elementwise import astype as _astype, complex_from_parts
from ..ops.view import reshape as _reshape
from . import _arrays as A, _dtypes as D, _reductions as R

_F64, _I64 = _dt.float64, _dt.int64


#: the keywords each mode takes (NumPy's ValueError for any other)
_KEYWORDS = {"constant": {"constant_values"}, "edge": set(), "linear_ramp": {"end_values"},
             "maximum": {"stat_length"}, "mean": {"stat_length"}, "median": {"stat_length"},
             "minimum": {"stat_length"}, "reflect": {"reflect_type"}, "symmetric": {"reflect_type"}, "wrap": set(),
             "empty": set()}


def pad(array, pad_width, mode="constant", **kwargs):
    x = D.asarray(array, op="pad")
    if callable(mode):
        return _pad_by(x, pad_width, mode, kwargs)
    unknown = set(kwargs) - _KEYWORDS.get(mode, set(kwargs))
    if unknown:
        raise ValueError(f"nabla.numpy.pad: unsupported keyword arguments for mode {mode!r}: {unknown}")
    widths = _np.broadcast_to(_np.asarray(pad_width, dtype=_np.int64), (x.ndim, 2))
    if (widths < 0).any():
        raise ValueError("nabla.numpy.pad: index can't contain negative values")
    for ax in range(x.ndim):
        before, after = int(widths[ax, 0]), int(widths[ax, 1])
        if not before and not after:
            continue
        x = _pad_axis(x, ax, before, after, mode, kwargs)
    return x


def _pad_by(x, pad_width, function, kwargs):
    """NumPy's padding by a function: the array padded with zeros, then ``function(vector,
    (before, after), axis, kwargs)`` called on each 1-D line of it along each axis in turn, writing
    the pad into the line (a view: its writes reach the padded array)."""
    widths = _np.broadcast_to(_np.asarray(pad_width, dtype=_np.int64), (x.ndim, 2))
    padded = pad(x, widths)
    for axis in range(padded.ndim):
        lines = A.moveaxis(padded, axis, -1)
        for at in _np.ndindex(*lines.shape[:-1]):
            function(lines[at + (Ellipsis,)], tuple(int(w) for w in widths[axis]), axis, kwargs)
    return padded


def _pad_axis(x, ax, before, after, mode, kwargs):
    n = x.shape[ax]

    def part(idx):
        return _xp.take(x, _xp.asarray(idx, dtype=_I64), axis=ax)

    if mode == "empty":  # (NumPy leaves the pad's values undefined: zeros here)
        mode, kwargs = "constant", {}
    if mode == "constant":
        cv = _np.broadcast_to(_np.asarray(kwargs.get("constant_values", 0)), (x.ndim, 2))
        shape_b = x.shape[:ax] + (before,) + x.shape[ax + 1:]
        shape_a = x.shape[:ax] + (after,) + x.shape[ax + 1:]
        lo = _xp.full(shape_b, cv[ax, 0].item(), dtype=x.dtype)
        hi = _xp.full(shape_a, cv[ax, 1].item(), dtype=x.dtype)
        return _xp.concat([lo, x, hi], axis=ax)
    if mode == "edge":
        idx = [0] * before + list(range(n)) + [n - 1] * after
    elif mode in ("reflect", "symmetric") and kwargs.get("reflect_type", "even") == "odd" and n > 1:
        return _odd_reflection(x, ax, before, after, mode == "symmetric")
    elif mode in ("reflect", "symmetric", "wrap"):
        period = {"reflect": 2 * n - 2, "symmetric": 2 * n, "wrap": n}[mode]
        if period <= 0:
            idx = [0] * (before + n + after)
        else:
            def fold(i):
                j = i % period
                if mode == "wrap":
                    return j
                if mode == "reflect":
                    return j if j < n else period - j
                return j if j < n else period - 1 - j
            idx = [fold(i) for i in range(-before, n + after)]
    elif mode in ("mean", "maximum", "minimum", "median"):
        fn = {"mean": R.mean, "maximum": R.max, "minimum": R.min, "median": R.median}[mode]
        given = kwargs.get("stat_length")
        lengths = _np.broadcast_to(_np.asarray(n if given is None else given, dtype=_np.int64), (x.ndim, 2))

        def reps(k, side):  # (the statistic of the ``stat_length`` values at that edge, as NumPy's)
            m = min(int(lengths[ax, side]), n)
            idx = list(range(m)) if side == 0 else list(range(n - m, n))
            stat = fn(x if m == n else part(idx), axis=ax, keepdims=True)
            stat = stat if stat.dtype is x.dtype else \
                _astype(_xp.round(stat) if x.dtype.is_integer else stat, x.dtype)
            return _xp.broadcast_to(stat, x.shape[:ax] + (k,) + x.shape[ax + 1:])

        return _xp.concat([reps(before, 0), x, reps(after, 1)], axis=ax)
    elif mode == "linear_ramp":
        ends = _np.broadcast_to(_np.asarray(kwargs.get("end_values", 0)), (x.ndim, 2))
        # NumPy hands one or two end values to its linspace as NumPy scalars (float64 arithmetic)
        # and a table of them as Python numbers (arithmetic in x's own inexact dtype)
        given = _np.asarray(kwargs.get("end_values", 0))
        strong = given.ndim < 3 and (given.size == 1 or (given.size == 2 and given.shape != (2, 1)))
        ft = x.dtype if (x.dtype.is_floating or x.dtype.is_complex) and not strong else \
            (_dt.complex128 if x.dtype.is_complex else _F64)
        lo = _ramp(x, ax, before, ends[ax, 0].item(), 0, False, ft)
        hi = _ramp(x, ax, after, ends[ax, 1].item(), n - 1, True, ft)
        return _xp.concat([lo, x, hi], axis=ax)
    else:
        error = NotImplementedError if callable(mode) else ValueError  # (NumPy's class for a mode it lacks)
        raise error(f"nabla.numpy.pad: mode {mode!r} is not supported (constant, edge, reflect, "
                    "symmetric, wrap, mean, maximum, minimum, median, linear_ramp, empty are)")
    return part(idx)


def _odd_reflection(x, ax, before, after, edge_in):
    """``reflect_type="odd"``: each pad the data mirrored about its edge value (``2 * edge -
    mirrored``), built outward a chunk at a time, each chunk at most the whole periods of what is
    there so far (``n - 1`` elements a period for ``reflect``, ``n`` for ``symmetric``, whose mirror
    holds the edge), so that every mirror point is where NumPy's is."""
    unit = x.shape[ax] if edge_in else x.shape[ax] - 1
    out, left, right = x, before, after

    def take(idx):
        return _xp.take(out, _xp.asarray(idx, dtype=_I64), axis=ax)

    while left or right:
        length = out.shape[ax]
        chunk = (length if edge_in else length - 1) // unit * unit
        parts = []
        if left:
            m = min(chunk, left)
            mirrored = take(list(range(m - 1, -1, -1)) if edge_in else list(range(m, 0, -1)))
            parts.append(2 * take([0]) - mirrored)
            left -= m
        parts.append(out)
        if right:
            m = min(chunk, right)
            last = length - 1
            mirrored = take(list(range(last, last - m, -1)) if edge_in else list(range(last - 1, last - 1 - m, -1)))
            parts.append(2 * take([last]) - mirrored)
            right -= m
        out = _xp.concat(parts, axis=ax)
    return out


def _ramp(x, ax, width, end, at, reverse, ft):
    """NumPy's ``linspace(end, edge, width, endpoint=False)`` along ``ax`` (reversed after the data),
    computed in ``ft``, floored for integers, in x's dtype. A complex ramp is two real ones: NumPy
    divides the complex difference by the count as a complex number (Smith's method: times the
    count's reciprocal), then its multiples are exact per part."""
    if ft.is_complex:
        part = _dt.float64 if ft is _dt.complex128 else _dt.float32
        end = complex(end)
        re = _real_ramp(_xp.real(x), ax, width, end.real, at, reverse, part, True)
        im = _real_ramp(_xp.imag(x), ax, width, end.imag, at, reverse, part, True)
        return _astype(complex_from_parts(re, im), x.dtype)
    # (a complex end value for real data: NumPy computes the complex ramp and keeps its real part)
    is_complex = isinstance(end, complex)
    return _real_ramp(x, ax, width, end.real if is_complex else end, at, reverse, ft, is_complex)


def _real_ramp(x, ax, width, end, at, reverse, ft, by_reciprocal):
    if not width:
        return _xp.take(x, _xp.asarray([], dtype=_I64), axis=ax)
    edge = _astype(_xp.take(x, _xp.asarray([at], dtype=_I64), axis=ax), ft)
    k = _xp.arange(width - 1, -1, -1, dtype=ft) if reverse else _xp.arange(width, dtype=ft)
    k = _reshape(k, (1,) * ax + (width,) + (1,) * (x.ndim - ax - 1))
    step = (edge - end) * (1.0 / width) if by_reciprocal else (edge - end) / width
    y = step * k + end  # NumPy's order: y = k * step + start
    if x.dtype.is_integer:
        y = _xp.floor(y)
    return _astype(y, x.dtype)


__all__ = ["pad"]
