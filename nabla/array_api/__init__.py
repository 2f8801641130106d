"""``nabla.array_api``: the Python Array API standard (2025.12) on Nabla tensors.

Every function is lazy and computes on MAX; ``x.__array_namespace__()`` returns
this module, so array-API-aware libraries run on Nabla tensors unchanged.
"""

from __future__ import annotations

import math as _math

from ..core.dtypes import (bool_ as bool, complex64, complex128, float32, float64, int8, int16,  # noqa: A004
                           int32, int64, uint8, uint16, uint32, uint64)
from . import _array_object  # noqa: F401  (binds the array object's methods onto Tensor)
from ._dtypes import can_cast, finfo, iinfo, isdtype, result_type
from ._creation import *  # noqa: F401,F403  (asarray, zeros, astype, ...)
from ._functions import *  # noqa: F401,F403,A004  (the standard's names: sum, max, all, ...)
from ._info import __array_namespace_info__
from ._elementwise import ELEMENTWISE_FUNCTIONS
from . import fft, linalg
from .linalg import diag  # (not the standard's: NumPy's, JAX's and PyTorch's, which libraries call)

__array_api_version__ = "2025.12"

e = _math.e
inf = _math.inf
nan = _math.nan
pi = _math.pi
newaxis = None

globals().update(ELEMENTWISE_FUNCTIONS)

__all__ = sorted(
    ["__array_api_version__", "__array_namespace_info__", "e", "inf", "nan", "pi", "newaxis",
     "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
     "complex64", "complex128", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
     *ELEMENTWISE_FUNCTIONS, *[n for n in dir() if not n.startswith("_") and callable(globals()[n])], "fft", "linalg"]
)
