"""Nabla as a Dask array backend: ``dask.config.set({"array.backend": "nabla"})``.

Dask finds this class through the ``dask.array.backends`` entry point (``pyproject.toml``). Under
it, Dask's creation functions (``ones``, ``zeros``, ``empty``, ``full``, ``arange``) and its
random module (``da.random.default_rng``, ``da.random.RandomState``) make Nabla chunks, each
computed on the worker that holds it; ``x.to_backend("nabla")`` moves a collection's chunks to
Nabla. Dask seeds each chunk of a ``Generator`` draw with a child of the seed's ``SeedSequence``
(``Philox.spawn``), so a draw is the same for a seed however the chunks are scheduled.
"""

from __future__ import annotations

import dask.array as da
from dask import config
from dask.array.backends import ArrayBackendEntrypoint
from dask.array.dispatch import to_numpy_dispatch
from dask.utils import Dispatch

from . import _arrays, random
from ._ndarray import ndarray, wrap


def empty(shape, dtype=float) -> ndarray:
    return wrap(_arrays.empty(shape, dtype))


#: chunks of another library made Nabla's (``Array.to_backend("nabla")``)
to_nabla_dispatch = Dispatch("to_nabla_dispatch")
to_nabla_dispatch.register(object, lambda data, **kwargs: wrap(_arrays.asarray(data)))
to_numpy_dispatch.register(ndarray, lambda data, **kwargs: data.numpy())


def _creation(name):
    """Dask's creation function ``name`` (``da.ones(shape, chunks=...)``), its chunks made like a
    Nabla array."""
    def make(*args, meta=None, **kwargs):
        with config.set({"array.backend": "numpy"}):
            return getattr(da, name)(*args, meta=empty(()) if meta is None else meta, **kwargs)

    make.__name__ = make.__qualname__ = name
    return staticmethod(make)


class DaskBackend(ArrayBackendEntrypoint):
    """What Dask asks of an array library to make its collections' chunks."""

    @classmethod
    def to_backend_dispatch(cls):
        return to_nabla_dispatch

    @classmethod
    def to_backend(cls, data, **kwargs):
        if isinstance(data._meta, ndarray):
            return data
        return data.map_blocks(to_nabla_dispatch, meta=empty((0,) * data.ndim, dtype=data.dtype), **kwargs)

    @property
    def RandomState(self):
        return random.RandomState

    @property
    def default_bit_generator(self):
        return random.Philox

    ones, zeros, empty, full = (_creation(name) for name in ("ones", "zeros", "empty", "full"))

    @staticmethod
    def arange(*args, like=None, **kwargs):
        with config.set({"array.backend": "numpy"}):
            return da.arange(*args, like=empty(()) if like is None else like, **kwargs)
