"""Strings at the host boundary: MAX holds numbers only, so a string or bytes array stays NumPy's own
array on the host (with ``HostStringWarning``), and ``np.char``/``np.strings`` are NumPy's modules."""

from __future__ import annotations

import os
import sys
import types
import warnings

import numpy as _np

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # nabla/


class HostStringWarning(UserWarning):
    """A string array stays on the host as a NumPy array: strings are not computed on MAX."""


def warn(what: str) -> None:
    """Warn at the caller's line: the first frame outside Nabla."""
    level, frame = 1, sys._getframe(0)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(f"nabla.numpy: {what}: strings stay on the host as NumPy arrays (numpy.ndarray) and are not "
                  f"computed on MAX", HostStringWarning, stacklevel=level)


def _is_text(kind) -> bool:
    return kind in ("U", "S")


def host_strings(obj, dtype, op: str):
    """NumPy's array of ``obj`` when it is (or is asked to be) a string or bytes array, else None."""
    if dtype is not None:
        try:
            if not _is_text(_np.dtype(dtype).kind):
                return None
        except TypeError:
            return None
    elif isinstance(obj, _np.ndarray):
        if not _is_text(obj.dtype.kind):
            return None
    elif not _maybe_text(obj):
        return None
    arr = _np.array(obj, dtype=dtype)
    if not _is_text(arr.dtype.kind):
        return None
    warn(f"{op} of {arr.dtype} data")
    return arr


def text_dtype(dtype) -> bool:
    """Whether ``dtype`` names a string or bytes dtype (``str``, ``"U5"``, ``np.bytes_``)."""
    try:
        return dtype is not None and _is_text(_np.dtype(dtype).kind)
    except TypeError:
        return False


def _maybe_text(obj) -> bool:
    """Whether ``obj``'s first leaf is a str or bytes (a cheap look before NumPy reads all of it)."""
    while isinstance(obj, (list, tuple)) and obj:
        obj = obj[0]
    return isinstance(obj, (str, bytes, _np.str_, _np.bytes_))


def text_module(name: str):
    """``np.char`` or ``np.strings``: NumPy's module, each name fetched with ``HostStringWarning``."""
    source = getattr(_np, name)
    module = types.ModuleType(f"nabla.numpy.{name}", f"NumPy's ``numpy.{name}`` on the host (strings are "
                                                     f"not computed on MAX).")

    def __getattr__(attr):
        value = getattr(source, attr)
        if not attr.startswith("__"):
            warn(f"np.{name}.{attr} is NumPy's numpy.{name}.{attr}")
        return value

    def __dir__():
        return dir(source)

    module.__getattr__ = __getattr__
    module.__dir__ = __dir__
    return module


#: the face's functions that take strings as data (not as dates or dtypes to parse: ``array``,
#: ``busday_count``), and are NumPy's own on string arrays
TEXT_FUNCTIONS = frozenset((
    "sort", "argsort", "lexsort", "partition", "argpartition", "unique", "unique_values", "unique_counts",
    "unique_inverse", "unique_all", "isin", "in1d", "searchsorted", "intersect1d", "setdiff1d", "union1d",
    "setxor1d", "concatenate", "stack", "hstack", "vstack", "column_stack", "repeat", "tile", "flip", "roll",
    "take", "ravel", "reshape", "transpose", "squeeze", "expand_dims", "atleast_1d", "atleast_2d", "max", "min",
    "amax", "amin", "argmax", "argmin", "nonzero", "count_nonzero", "flatnonzero"))


def is_text(value) -> bool:
    """Whether ``value`` is a string, bytes, or a host array of them."""
    t = type(value)
    return t is str or t is bytes or isinstance(value, _np.str_) or (t is _np.ndarray and _is_text(value.dtype.kind))


def holds_text(args) -> bool:
    """Whether a face function's first argument (one of ``TEXT_FUNCTIONS``') is a host string array, a
    list of them or of Python strings (``unique(labels)``, ``concatenate([a, b])``)."""
    first = args[0]
    t = type(first)
    if t is list or t is tuple:
        first = first[0] if first else None
        t = type(first)
        if t is str or t is bytes:
            return True
    return t is _np.ndarray and _is_text(first.dtype.kind)


def on_host(name: str, args, kwargs, numeric):
    """NumPy's function ``name`` of string arrays, on the host, as ``np.char`` is (with
    ``HostStringWarning``): its string results stay NumPy's arrays, its numeric ones (``argsort``'s
    order, ``unique``'s counts and inverse, ``isin``'s mask) become ``numeric(result)``, Nabla's."""
    function = getattr(_np, name, None)
    if function is None:
        return None
    warn(f"{name} of {args[0].dtype if type(args[0]) is _np.ndarray else 'string'} data is NumPy's numpy.{name}")
    if numeric is None:
        return function(*args, **kwargs)
    out = function(*args, **kwargs)

    def face(v):
        return v if type(v) is not _np.ndarray or _is_text(v.dtype.kind) or v.dtype.kind not in "biuf" else numeric(v)
    if isinstance(out, tuple):
        items = [face(v) for v in out]
        return type(out)._make(items) if hasattr(type(out), "_make") else tuple(items)
    return face(out)
