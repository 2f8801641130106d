"""What the face's arrays that are not Tensors (records, raw void items, dates) share: NumPy's
sizes, ``len`` and iteration, from their ``shape`` and ``dtype``, the reads of their values on
the host, through their ``numpy()``, and (records, dates) NumPy's functions answered by the face's."""

from __future__ import annotations

import math


class Items:
    __slots__ = ()

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: self.size * self.dtype.itemsize)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    # --- host reads -------------------------------------------------------------------------------
    def _shown(self):
        """What printing shows: NumPy's array of the values."""
        return self.numpy()

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype)

    def __repr__(self):
        return repr(self._shown())

    def __str__(self):
        return str(self._shown())

    def tolist(self):
        return self.numpy().tolist()

    def item(self, *args):
        return self.numpy().item(*args)


def face():
    """``nabla.numpy`` (initialized before any function of these arrays runs)."""
    import nabla.numpy as fnp  # lazy: nabla.numpy imports this module

    return fnp


class FaceItems(Items):
    """Items that NumPy's functions and the face's ufuncs reach through the face's own functions."""
    __slots__ = ()

    def __array_function__(self, func, types, args, kwargs):
        ours = getattr(face(), func.__name__, None)
        return NotImplemented if ours is None or not callable(ours) else ours(*args, **kwargs)

    def __nabla_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """The face's ufuncs (``nabla.numpy.add(d, td)``) with such an operand."""
        return self.__array_ufunc__(ufunc, method, *inputs, **kwargs)
