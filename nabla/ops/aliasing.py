"""NumPy's aliasing on lazy values: views see writes to their base, and writes through a view reach it.

Values stay functional underneath (functionalization, as PyTorch's ``functionalize`` and JAX's
discussion of NumPy-style mutation describe it). A view records its parent and two functions:
``derive(parent) -> view`` and ``put_back(parent, view) -> parent``. The parent keeps weak references
to its live views. A write rebinds the written tensor, rewrites its ancestors up to the root through
``put_back``, then re-derives every other live view from the new root. Both functions are ordinary
ops, so all of it stays lazy and differentiable, and a tensor that has no views pays nothing.
"""

from __future__ import annotations

import weakref

from ..core.tensor import Tensor
from . import indexing, view as _view
from .picks import quick_pick


def make_view(parent: Tensor, child: Tensor, derive, put_back) -> Tensor:
    """Record ``child`` (already computed as ``derive(parent)``) as a view of ``parent``."""
    if child is parent:  # an op that changed nothing returned its input: the view is a new name
        child = type(parent)(parent._impl)
    child._view = (parent, derive, put_back)
    views = parent._views
    if views is None:
        parent._views = [weakref.ref(child)]
    else:
        if len(views) >= 16 and not len(views) & (len(views) - 1):  # prune dead entries now and then
            views[:] = [r for r in views if r() is not None]
        views.append(weakref.ref(child))
    return child


def read_only_view(parent: Tensor, child: Tensor, derive) -> Tensor:
    """A view that sees writes to ``parent`` but takes none (NumPy's ``diagonal``, ``broadcast_to``)."""
    return make_view(parent, child, derive, None)


def check_writeable(x: Tensor) -> None:
    """Raise before a write when ``x`` is, or views, a read-only view (NumPy's message)."""
    node = x
    while node._view is not None:
        if node._view[2] is None:
            raise ValueError(f"assignment destination is read-only (a read-only view of shape {node.shape}, "
                             f"{node.dtype}; copy it first)")
        node = node._view[0]


def wrote(x: Tensor) -> None:
    """``x._impl`` was just rebound by a write: carry the write to x's base and to every view of both."""
    if x._view is None and x._views is None:
        return
    written = {id(x)}
    node = x
    while node._view is not None:
        parent, _, put_back = node._view
        parent._impl = put_back(Tensor(parent._impl), node)._impl
        written.add(id(parent))
        node = parent
    _rederive(node, written)


def _rederive(node: Tensor, written: set) -> None:
    views = node._views
    if not views:
        return
    alive = []
    for ref in views:
        child = ref()
        if child is None:
            continue
        alive.append(ref)
        if id(child) not in written:
            child._impl = child._view[1](node)._impl
        _rederive(child, written)
    node._views = alive or None


# --- the view-making methods -------------------------------------------------------------------------

def _is_basic(x: Tensor, key) -> bool:
    """Slices, integers, None and Ellipsis only; an integer per axis gives a copy (NumPy gives a scalar)."""
    parts = key if isinstance(key, tuple) else (key,)
    all_ints = True
    for k in parts:
        if isinstance(k, bool):
            return False
        if isinstance(k, int):
            continue
        all_ints = False
        if not (k is None or k is Ellipsis or isinstance(k, slice)):
            return False
        if isinstance(k, slice) and any(isinstance(v, Tensor) for v in (k.start, k.stop, k.step)):
            return False
    return not all_ints or len(parts) < x.ndim


def getitem(x: Tensor, key) -> Tensor:
    picked = quick_pick(x, key)  # an element of realized host data: a scalar, never a view
    if picked is not None:
        return picked
    out = indexing.getitem(x, key)
    if _is_basic(x, key):
        return make_view(x, out, lambda p: indexing.getitem(p, key), _setitem_put_back(key))
    return out


def _setitem_put_back(key):
    def put_back(parent: Tensor, child: Tensor) -> Tensor:
        indexing.setitem(parent, key, child)
        return parent

    return put_back


def setitem(x: Tensor, key, value) -> None:
    if x._view is not None:
        check_writeable(x)
    before = x._impl
    indexing.setitem(x, key, value)
    if x._impl is not before:
        wrote(x)


def reshaped(x: Tensor, out: Tensor) -> Tensor:
    """``out`` has x's elements in x's order under another shape (reshape, ravel, squeeze, ...)."""
    shape = out.shape
    return make_view(x, out, lambda p: _view.reshape(p, shape), lambda p, c: _view.reshape(c, p.shape))


def permuted(x: Tensor, out: Tensor, axes) -> Tensor:
    """``out`` = ``permute_dims(x, axes)``."""
    axes = tuple(a % x.ndim for a in axes) if x.ndim else ()
    inverse = _view.inverse_perm(axes)
    return make_view(x, out, lambda p: _view.permute_dims(p, axes), lambda p, c: _view.permute_dims(c, inverse))


def reshape(x: Tensor, *shape) -> Tensor:
    return reshaped(x, _view.reshape(x, shape[0] if len(shape) == 1 else shape))


def transpose(x: Tensor, *axes) -> Tensor:
    axes = (axes[0] if len(axes) == 1 else axes) or tuple(reversed(range(x.ndim)))
    return permuted(x, _view.permute_dims(x, axes), axes)


def swapaxes(x: Tensor, a: int, b: int) -> Tensor:
    axes = list(range(x.ndim))
    axes[a], axes[b] = axes[b], axes[a]
    return permuted(x, _view.permute_dims(x, axes), axes)


def squeeze(x: Tensor, *args, **kwargs) -> Tensor:
    return reshaped(x, _view.squeeze(x, *args, **kwargs))


def unsqueeze(x: Tensor, *args, **kwargs) -> Tensor:
    return reshaped(x, _view.unsqueeze(x, *args, **kwargs))


def T(x: Tensor) -> Tensor:
    return transpose(x)
