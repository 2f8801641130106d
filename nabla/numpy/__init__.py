"""``import nabla.numpy as np``: NumPy's main namespace on Nabla arrays, lazy and on MAX.

A thin face over ``nabla.array_api`` and ``nabla.ops`` (one implementation): NumPy's defaults (float64,
int64), NEP 50 promotion, NumPy's signatures, ufunc objects, the ndarray methods, views that see writes
(``ops/aliasing.py``), ``linalg``, ``fft`` and ``random``. ``ndarray`` is Nabla's ``Tensor``.
"""

from __future__ import annotations

import importlib as _importlib
import math as _pymath
import types as _types

import numpy as _np

from . import _dtypes, _io, _methods, _strings
from ._ndarray import ndarray
from ._arrays import *  # noqa: F401,F403
from ._joins import *  # noqa: F401,F403
from ._dtypes import (bool_, byte, can_cast, cdouble, complex64, complex128, complexfloating, csingle, double,  # noqa: F401
                      dtype, finfo, float16, float32, float64, floating, generic, half, iinfo, inexact, int8, int16,
                      int32, int64, int_, intc, integer, intp, issubdtype, longlong, number, promote_types, short,
                      signedinteger, single, ubyte, uint8, uint16, uint32, uint64, uintc, uintp, unsignedinteger,
                      ushort)
from ._bits import packbits, unpackbits  # noqa: F401
from ._einsum import einsum  # noqa: F401
from ._indexing import *  # noqa: F401,F403
from ._indexing import c_, r_  # noqa: F401  (objects, not functions: outside __all__)
from ._io import frombuffer, fromfile, fromiter, genfromtxt, load, loadtxt, save, savetxt, savez, savez_compressed  # noqa: F401
from ._math import *  # noqa: F401,F403
from ._polynomial import *  # noqa: F401,F403
from ._poly1d import *  # noqa: F401,F403  (poly1d, and the classic functions taking it)
from ._reductions import *  # noqa: F401,F403
from ._sorting import *  # noqa: F401,F403
from ._ufunc_table import UFUNCS as _UFUNCS
from ._ufuncs import ufunc  # noqa: F401
from ._strings import HostStringWarning  # noqa: F401
# dates and durations: arange and the creation functions below take datetime64/timedelta64 dtypes and values
from ._datetime import DatetimeArray, arange  # noqa: F401
# structured (record) arrays: the creation functions take structured dtypes and records, then dates
from ._records import StructuredArray, recarray  # noqa: F401
from ._records_ops import (array, asanyarray, asarray, ascontiguousarray, empty, empty_like, full,  # noqa: F401
                           full_like, ones, ones_like, zeros, zeros_like)
from ._ndarray import array_constructor as _array_constructor
# (their 0-d results are arrays; every other 0-d result stands for NumPy's scalar: ``made_as_array``)
array, asanyarray, asarray, ascontiguousarray, empty, empty_like, full, full_like, ones, ones_like, zeros, \
    zeros_like, copy = map(_array_constructor, (array, asanyarray, asarray, ascontiguousarray, empty, empty_like,
                                                full, full_like, ones, ones_like, zeros, zeros_like, copy))
from ._rec import rec  # noqa: F401
from ._datetime_ops import (busday_count, busday_offset, busdaycalendar, datetime_as_string, is_busday,  # noqa: F401
                            isnat)
from . import emath, fft, lib, linalg, random  # noqa: F401,E402
from ._functional import *  # noqa: F401,F403,E402
from ._histograms import *  # noqa: F401,F403,E402
from ._host import *  # noqa: F401,F403,E402
from ._index_tricks import *  # noqa: F401,F403,E402
from ._index_tricks import index_exp, mgrid, ogrid, s_  # noqa: F401,E402  (objects, not functions)
from ._iteration import nditer, vectorize  # noqa: F401,E402
from . import _void  # noqa: F401,E402  (x.view of record and raw void dtypes)
from ._manipulation import *  # noqa: F401,F403,E402
from ._numeric import *  # noqa: F401,F403,E402
from ._pad import pad  # noqa: F401,E402
from ._windows import *  # noqa: F401,F403,E402

__version__ = _np.__version__  # the NumPy whose semantics the face follows (show_config() has Nabla's)

bool = _np.bool_  # noqa: A001  (NumPy 2's name)
datetime64, timedelta64, datetime_data = _np.datetime64, _np.timedelta64, _np.datetime_data  # host scalars
void, record = _np.void, _np.record  # record scalars (host); records as arrays are StructuredArrays
# NumPy's type names: host scalar types (strings, bytes and objects stay NumPy's, on the host)
str_, bytes_, object_, character, flexible = _np.str_, _np.bytes_, _np.object_, _np.character, _np.flexible
uint, long, ulong, ulonglong = _np.uint, _np.long, _np.ulong, _np.ulonglong
True_, False_ = _np.True_, _np.False_
ScalarType, sctypeDict, typecodes = _np.ScalarType, _np.sctypeDict, _np.typecodes
exceptions, dtypes = _np.exceptions, _np.dtypes
getbufsize, setbufsize, geterrcall, seterrcall = _np.getbufsize, _np.setbufsize, _np.geterrcall, _np.seterrcall
info = _np.info
globals().update(_UFUNCS)
abs = _UFUNCS["absolute"]  # noqa: A001

pi, e, inf, nan, euler_gamma = _pymath.pi, _pymath.e, _pymath.inf, _pymath.nan, _np.euler_gamma
newaxis = None
NaN = NAN = nan
Inf = PINF = inf
NINF = -inf
little_endian = _np.little_endian
set_printoptions, get_printoptions, printoptions = _np.set_printoptions, _np.get_printoptions, _np.printoptions
array2string, array_repr, array_str = _np.array2string, _np.array_repr, _np.array_str
errstate, seterr, geterr = _np.errstate, _np.seterr, _np.geterr  # NumPy's own: Nabla's ops do not warn
broadcast_shapes = _np.broadcast_shapes
ndindex, ndenumerate = _np.ndindex, _np.ndenumerate  # index iterators (host only)
AxisError = _np.exceptions.AxisError


def shape(a):
    return a.shape if isinstance(a, ndarray) else _np.shape(a)


def ndim(a):
    return a.ndim if isinstance(a, ndarray) else _np.ndim(a)


def size(a, axis=None):
    s = shape(a)
    return _pymath.prod(s) if axis is None else s[axis]


def isscalar(element):
    """NumPy's scalars, and 0-d face arrays: they stand for the NumPy scalars that reductions and
    indexing give there (``x.sum()``, ``x[0]``; dates and records answer in their modules)."""
    if isinstance(element, ndarray):
        return element.ndim == 0
    return _np.isscalar(element)


def iscomplexobj(x):
    return (x.dtype.is_complex if isinstance(x, ndarray) else _np.iscomplexobj(x))


def isrealobj(x):
    return not iscomplexobj(x)


def result_type(*arrays_and_dtypes):
    return _np.result_type(*(a.dtype.numpy_dtype if isinstance(a, ndarray) else a for a in arrays_and_dtypes))


def astype(x, dtype, /, *, copy=True, device=None):
    return ndarray.astype(asarray(x), dtype, copy=copy)


def frompyfunc(*args, **kwargs):
    raise NotImplementedError("nabla.numpy.frompyfunc: its results are object arrays, which MAX cannot hold; use "
                              "nabla.numpy.vectorize with otypes, or array operations")


def _face_namespace(ns: dict) -> None:
    """Every public function of a face namespace returns ndarrays (``_dtypes.face``)."""
    for name, value in list(ns.items()):
        if not name.startswith("_") and isinstance(value, _types.FunctionType) and \
                (value.__module__ or "").startswith("nabla."):
            ns[name] = _dtypes.face(value)


_methods.bind()
_face_namespace(globals())
_face_namespace(vars(linalg))
_face_namespace(vars(fft))
_face_namespace(vars(emath))


# (``genfromtxt(usemask=True)``'s masked array: ``ma`` is loaded on first use, from here, the face's top)
_io.MASKED.append(lambda data, mask: _importlib.import_module(f"{__name__}.ma").array(data, mask=mask))


def __getattr__(name):
    if name in ("polynomial", "ma"):  # loaded on first use: their classes and tables cost import time
        return _importlib.import_module(f"{__name__}.{name}")
    if name == "testing":  # NumPy's own assertions: they read Nabla arrays through __array__
        import numpy.testing  # (lazy: its own import pulls in unittest and more, ~20 ms)

        return numpy.testing
    if name in ("char", "strings"):  # NumPy's own string modules, on the host
        module = globals()[name] = _strings.text_module(name)
        return module
    raise AttributeError(f"module 'nabla.numpy' has no attribute {name!r}")
