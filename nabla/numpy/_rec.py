"""NumPy's ``numpy.rec`` on the face's record arrays: ``fromarrays``, ``fromrecords`` and ``array``
(fields on MAX)."""

from __future__ import annotations

import builtins
import types

import numpy as _np

from ..core.tensor import Tensor
from ._datetime import DatetimeArray
from ._records import StructuredArray, _host, blank, recarray
from . import _records as R


def fromarrays(arrayList, dtype=None, shape=None, formats=None, names=None, titles=None, aligned=False,
               byteorder=None):
    """NumPy's ``rec.fromarrays``: one array per field (face arrays stay on MAX, as they are)."""
    import nabla.numpy as fnp  # lazy: nabla.numpy imports this module

    arrays = [fnp.asarray(x) for x in arrayList]
    shape = tuple(arrays[0].shape) if shape is None else (shape,) if isinstance(shape, int) else tuple(shape)
    if formats is None and dtype is None:
        formats = [a.dtype.numpy_dtype if isinstance(a, Tensor) else a.dtype for a in arrays]
    descr = _np.dtype(dtype) if dtype is not None else \
        _np.rec.format_parser(formats, names, titles, aligned, byteorder).dtype
    if len(descr) != len(arrays):
        raise ValueError("mismatch between the number of fields and the number of arrays")
    nn = len(descr[0].shape)
    if nn:
        shape = shape[:-nn]
    out = blank(descr, shape, "rec.fromarrays", recarray)
    for k, (obj, name) in enumerate(zip(arrays, descr.names)):
        nn = descr[k].ndim
        if tuple(obj.shape[:obj.ndim - nn]) != shape:
            raise ValueError(f'array-shape mismatch in array {k} ("{name}")')
        out[name] = obj
    return out


def fromrecords(recList, dtype=None, shape=None, formats=None, names=None, titles=None, aligned=False,
                byteorder=None):
    """NumPy's ``rec.fromrecords``: NumPy reads the records on the host, the fields go to the device."""
    host = _np.rec.fromrecords(_host(recList), dtype, shape, formats, names, titles, aligned, byteorder)
    return R.from_host(host, recarray, "rec.fromrecords")


def rec_array(obj, dtype=None, shape=None, offset=0, strides=None, formats=None, names=None, titles=None,
              aligned=False, byteorder=None, copy=True):
    """NumPy's ``rec.array``: records as a record array (a list of arrays is ``fromarrays``)."""
    if isinstance(obj, StructuredArray):
        z = obj if dtype is None else obj.astype(dtype)
        return (z.copy() if copy and z is obj else z).view(recarray)
    if isinstance(obj, (list, tuple)) and obj and builtins.all(isinstance(v, (Tensor, DatetimeArray)) for v in obj):
        return fromarrays(obj, dtype, shape, formats, names, titles, aligned, byteorder)
    host = _np.rec.array(_host(obj), dtype, shape, offset, strides, formats, names, titles, aligned, byteorder, copy)
    return R.from_host(host, recarray, "rec.array")


rec_array.__name__ = "array"
rec = types.ModuleType("nabla.numpy.rec", "NumPy's ``numpy.rec`` on the face's record arrays (fields on MAX).")
rec.fromarrays, rec.fromrecords, rec.array, rec.recarray = fromarrays, fromrecords, rec_array, recarray
rec.record, rec.format_parser = _np.record, _np.rec.format_parser
