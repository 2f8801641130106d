"""File IO at the host boundary: NumPy reads and writes the bytes, Nabla holds the arrays."""

from __future__ import annotations

import numpy as _np

from ..core.tensor import Tensor
from . import _dtypes as D
from ._records import from_host


def _host(a):
    return a.numpy() if isinstance(a, Tensor) else a


def _face(arr, op: str, strings: bool = False):
    """What NumPy read, as the face's array: structured data (``genfromtxt(names=True)``, a record
    dtype) as a StructuredArray (``_records.py``)."""
    if isinstance(arr, _np.ndarray) and arr.dtype.names is not None:
        return from_host(arr, op=op)
    return D.asarray(arr, op=op, strings=strings)


class NpzFile(dict):
    """A ``.npz`` archive's arrays as Nabla's, read at ``load`` (NumPy's ``NpzFile`` reads each when
    asked): a mapping with NumPy's ``files``, ``close`` and ``with`` (closing is nothing to do)."""

    @property
    def files(self) -> list:
        return list(self)

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


def load(file, mmap_mode=None, allow_pickle=False, **kwargs):
    data = _np.load(file, mmap_mode=mmap_mode, allow_pickle=allow_pickle, **kwargs)
    if isinstance(data, _np.lib.npyio.NpzFile):
        with data:
            return NpzFile((k, _face(data[k], "load")) for k in data.files)
    return _face(data, "load")


def save(file, arr, allow_pickle=True, **kwargs):
    _np.save(file, _host(arr), allow_pickle=allow_pickle, **kwargs)


def savez(file, *args, **kwds):
    _np.savez(file, *map(_host, args), **{k: _host(v) for k, v in kwds.items()})


def savez_compressed(file, *args, **kwds):
    _np.savez_compressed(file, *map(_host, args), **{k: _host(v) for k, v in kwds.items()})


def savetxt(fname, X, *args, **kwargs):
    _np.savetxt(fname, _host(X), *args, **kwargs)


def loadtxt(fname, *args, **kwargs):
    return _face(_np.loadtxt(fname, *args, **kwargs), "loadtxt")


def genfromtxt(fname, *args, **kwargs):
    """NumPy's ``genfromtxt``; with ``usemask=True`` its data and mask as ``masked(data, mask)`` makes
    them (``nabla.numpy.ma``'s masked array, set by that module, which sits above this one)."""
    host = _np.genfromtxt(fname, *args, **kwargs)
    if isinstance(host, _np.ma.MaskedArray) and host.dtype.names is None:
        return MASKED[0](D.asarray(host.data, op="genfromtxt"), D.asarray(host.mask, op="genfromtxt"))
    return _face(host, "genfromtxt")


#: ``fn(data, mask)`` -> a masked array: ``nabla.numpy.ma`` sets it when the face loads it
MASKED: list = []


def fromfile(file, dtype=float, count=-1, sep="", offset=0, **kwargs):
    return _face(_np.fromfile(file, dtype=dtype, count=count, sep=sep, offset=offset, **kwargs), "fromfile")


def frombuffer(buffer, dtype=float, count=-1, offset=0, **kwargs):
    return _face(_np.frombuffer(buffer, dtype=dtype, count=count, offset=offset, **kwargs), "frombuffer")


def fromiter(iter, dtype, count=-1, *, like=None):  # noqa: A002  (NumPy's name)
    """NumPy's ``fromiter``: the host reads the iterable, the array lives on MAX (string dtypes stay
    NumPy arrays on the host, with a warning)."""
    try:
        host = _np.fromiter(iter, dtype=dtype, count=count)
    except (ValueError, TypeError) as e:
        raise type(e)(f"nabla.numpy.fromiter: {e} (dtype {dtype!r}, count {count})") from None
    return _face(host, "fromiter", strings=True)
