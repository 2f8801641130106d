"""Host-side helpers NumPy scripts call on Python values, dtypes and shapes: ``show_config``,
``binary_repr``/``base_repr``, ``isdtype``, ``common_type``, ``mintypecode``, ``min_scalar_type``,
``typename``, ``einsum_path``, ``format_float_*`` and ``fromstring``. Nabla arrays are read through
their dtype and shape; only ``min_scalar_type`` of a 0-d array and the formatters read a value."""

from __future__ import annotations

import operator
import platform
from importlib import metadata

import numpy as _np
from max import driver

from ..core import dtypes as _dt
from ..core.tensor import Tensor
from . import _dtypes as D


def _np_dtype(x):
    if isinstance(x, Tensor):
        return x.dtype.numpy_dtype
    if isinstance(x, _dt.DType):
        return x.numpy_dtype
    return x


def show_config():
    """Prints the versions of Nabla, MAX and NumPy and the devices MAX sees."""
    def version(name):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    accelerators = driver.accelerator_count()
    names = []
    for i in range(accelerators):
        try:
            names.append(f"accelerator {i}: {driver.Accelerator(i).label}")
        except Exception as e:  # a device MAX counts but cannot open: say so, as a report should
            names.append(f"accelerator {i}: unavailable ({e})")
    lines = [
        "Nabla (import nabla.numpy as np):",
        f"  nabla: {version('nabla')}",
        f"  max: {version('max')}",
        f"  numpy: {_np.__version__} (the NumPy this face follows: np.__version__)",
        f"  python: {platform.python_version()} on {platform.machine()} {platform.system()}",
        "Devices:",
        "  cpu",
        *(f"  {n}" for n in names),
    ]
    print("\n".join(lines))


def binary_repr(num, width=None):
    return _np.binary_repr(operator.index(num), width)


def base_repr(number, base=2, padding=0):
    return _np.base_repr(operator.index(number), base, padding)


def isdtype(dtype, kind):
    if isinstance(dtype, Tensor):
        raise TypeError(f"dtype argument must be a NumPy dtype, but it is a {type(dtype)}.")
    return _np.isdtype(_np_dtype(dtype), kind)


def common_type(*arrays):
    return _np.common_type(*(_np.empty(0, dtype=D.numpy_dtype(a) if isinstance(a, Tensor) else _np.asarray(a).dtype)
                             for a in arrays))


def mintypecode(typechars, typeset="GDFgdf", default="d"):
    return _np.mintypecode([t if isinstance(t, str) else _np.dtype(_np_dtype(getattr(t, "dtype", t))).char
                            for t in typechars], typeset, default)


def min_scalar_type(a):
    if isinstance(a, Tensor):
        return a.dtype.numpy_dtype if a.ndim else _np.min_scalar_type(a.numpy())
    return _np.min_scalar_type(a)


def typename(char):
    return _np.typename(char)


def einsum_path(subscripts, *operands, optimize="greedy", einsum_call=False):
    """NumPy's contraction order, found from the operands' shapes (zero-stride stand-ins, no data)."""
    stand_ins = [_np.broadcast_to(_np.zeros((), dtype=D.numpy_dtype(o)), o.shape) if isinstance(o, Tensor) else o
                 for o in operands]
    return _np.einsum_path(subscripts, *stand_ins, optimize=optimize, einsum_call=einsum_call)


def _scalar(x):
    return x.numpy()[()] if isinstance(x, Tensor) else x


def format_float_positional(x, *args, **kwargs):
    return _np.format_float_positional(_scalar(x), *args, **kwargs)


def format_float_scientific(x, *args, **kwargs):
    return _np.format_float_scientific(_scalar(x), *args, **kwargs)


def fromstring(string, dtype=float, count=-1, *, sep, like=None):
    """Parsed on the host by NumPy, then one transfer to MAX."""
    return D.asarray(_np.fromstring(string, dtype=dtype, count=count, sep=sep), op="fromstring")


__all__ = ["show_config", "binary_repr", "base_repr", "isdtype", "common_type", "mintypecode", "min_scalar_type",
           "typename", "einsum_path", "format_float_positional", "format_float_scientific", "fromstring"]
