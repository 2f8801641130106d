"""``nabla.numpy.lib``: the parts of NumPy's ``lib`` that scripts reach for."""

from . import stride_tricks  # noqa: F401
from .. import emath as scimath  # noqa: F401  (NumPy's name for np.emath)
