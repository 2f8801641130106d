"""NumPy's order of complex values (real part first, then imaginary part; a value with a NaN part
first) for argmax, argmin, max, min and the maximum/minimum ufuncs' reductions."""

from __future__ import annotations

import numpy as _np

from .. import array_api as _xp
from ..core import dtypes as _dt
from ..ops.elementwise import astype as _astype, where as _where
from ..ops.view import reshape as _reshape


def complex_arg(name, x, axis, keepdims):
    """NumPy's argmax/argmin of complex values: ordered by real part, then imaginary part; the first
    value with a NaN part is picked, as a NaN is among reals."""
    if axis is None:
        r = complex_arg(name, _reshape(x, (-1,)), 0, False)
        return _reshape(r, (1,) * x.ndim) if keepdims else r
    pick, fill = (_xp.max, -_np.inf) if name == "argmax" else (_xp.min, _np.inf)
    re, im = _xp.real(x), _xp.imag(x)
    nan = _xp.logical_or(_xp.isnan(re), _xp.isnan(im))
    on = re == pick(re, axis=axis, keepdims=True)
    im = _where(on, im, fill)
    hit = _xp.logical_and(on, im == pick(im, axis=axis, keepdims=True))
    hit = _where(_xp.any(nan, axis=axis, keepdims=True), nan, hit)
    return _xp.argmax(_astype(hit, _dt.int8), axis=axis, keepdims=keepdims)  # (the first hit)


def _one_axis(x, axis):
    """``x`` with the axes ``axis`` names made one, last (None: all of them), and that axis."""
    if axis is None:
        return _reshape(x, (-1,)), 0
    if isinstance(axis, int):
        return x, axis
    axes = [k % x.ndim for k in axis]
    keep = [k for k in range(x.ndim) if k not in axes]
    moved = _xp.permute_dims(x, tuple(keep + axes))
    return _reshape(moved, tuple(x.shape[k] for k in keep) + (-1,)), len(keep)


def complex_extreme(name, x, axis, keepdims):
    """``max`` or ``min`` of complex ``x``: the value at its argmax or argmin."""
    flat, k = _one_axis(x, axis)
    r = _xp.squeeze(_xp.take_along_axis(flat, complex_arg("arg" + name, flat, k, True), axis=k), axis=k)
    if keepdims:
        axes = range(x.ndim) if axis is None else [a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis)]
        r = _reshape(r, tuple(1 if a in axes else n for a, n in enumerate(x.shape)))
    return r


def extreme(name, x, axis, keepdims):
    """``max`` or ``min`` of a numeric ``x``: complex values in NumPy's order, others as MAX reduces."""
    if x.dtype.is_complex:
        return complex_extreme(name, x, axis, keepdims)
    return (_xp.max if name == "max" else _xp.min)(x, axis=axis, keepdims=keepdims)
