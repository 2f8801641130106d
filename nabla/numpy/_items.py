"""What the face's arrays that are not Tensors (records, raw void items) share: NumPy's sizes,
``len`` and iteration, from their ``shape`` and ``dtype``."""

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
