"""``sliding_window_view`` (windows gathered on MAX, not strided memory) and ``broadcast_to``."""

from .._arrays import broadcast_arrays, broadcast_to  # noqa: F401
from .._indexing import sliding_window_view  # noqa: F401


def as_strided(*args, **kwargs):
    raise NotImplementedError("nabla.numpy.lib.stride_tricks.as_strided: MAX arrays have no user-visible strides; "
                              "use sliding_window_view, broadcast_to or reshape")
