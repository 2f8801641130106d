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

from ..core.context import NO_SIDE_EFFECTS, refuse_side_effect
from ..core.at_once import kept_into, small_at_once
from ..core.operation import PLAIN_CLASSES
from ..core.tensor import Tensor
from ..core.tensor_impl import plain_host
from . import indexing, view as _view
from .basic_keys import element_parse, plain_key
from .slices import composed_axis, host_int_indices, int_bounds, is_basic, parsed_slice, plain_slice, slice_memo
from .base import normalize_axis
from .broadcasting import broadcast_to_op
from .creation import operand_constant
from .elementwise import astype, where
from .index_primitives import set_slice_op, slice_op, sliced_shape
from .view import reshape_op
from .view_layout import C_ORDER, element_strides, reshaped_strides
from .host_writes import (exact_scalar, host_scatter, host_slice_write, host_write, may_be_element, realize_for_loop,
                          realized_for_picks, recorded_element_write, slice_place)
from .picks import NOT_ONE, element_key, pick_through, quick_pick


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


def refuse_write(x: Tensor) -> None:
    """Raise ``SideEffect`` before a write into ``x`` under ``no_side_effects`` where ``x`` is from
    outside the call (not mapped by a vmap begun inside it); callers ask ``NO_SIDE_EFFECTS`` first."""
    refuse_side_effect(f"a write into an array of shape {x.shape}", x._impl.batch_dims)


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
        index = getattr(put_back, "index", None)  # (a slice's: written into realized host data at once)
        if index is None or parent._view is not None or parent._impl.cached_shape != put_back.shape \
                or not host_slice_write(parent, index, node, writer=node):
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

class _Derive:
    """How a view taken at ``key`` is derived again from its parent (``derive(parent)``); its key
    tells ``setitem`` a view written back to where it was taken from. (A class of slots: a loop
    takes a slice per step, and a closure with attributes cost twice its making.)"""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __call__(self, parent: Tensor) -> Tensor:
        out = plain_slice(parent, self.key)
        return indexing.getitem(parent, self.key) if out is None else out


def _is_own_view(x: Tensor, key, value) -> bool:
    """Whether ``value`` is a live view of ``x`` taken at ``key`` (``x[k] += v`` ends by writing
    ``x[k]`` back into ``x[k]``): a live view always holds ``x[key]`` (every write re-derives
    the others), so the write changes nothing. Keys of ints, slices of ints, None and ``...``."""
    view = getattr(value, "_view", None)
    if view is None or view[0] is not x:
        return False
    taken = getattr(view[1], "key", None)
    if taken is key:  # (``x[k] += v`` passes the one key object it evaluated to both calls)
        return True
    if taken is None or type(taken) is not type(key):
        return False
    for part in (key if type(key) is tuple else (key,)):
        if type(part) is slice:
            if not all(b is None or type(b) is int for b in (part.start, part.stop, part.step)):
                return False
        elif not (type(part) is int or part is None or part is Ellipsis):
            return False
    return taken == key


def getitem(x: Tensor, key) -> Tensor:
    picked = quick_pick(x, key)  # one element of realized host data: read from it
    impl = x._impl
    if picked is not None:
        if picked is not NOT_ONE:
            return picked
        element = None
    else:
        element = element_key(impl, key)
    if element is not None:  # one element: a copy, never a view
        loop = getattr(x, "_element_loop", None)
        if loop is not None and not loop.off and impl.values_pending() and realize_for_loop(x, loop):
            picked = quick_pick(x, element)  # an element loop's array, realized for it
            if picked is not None:
                return picked
            impl = x._impl
        if not impl.batch_dims and impl.values_pending():
            op = impl._values[0].node.op
            if op is slice_op or op is reshape_op:  # a pick of a view of realized data reads the data
                picked = pick_through(x, element)
                if picked is not None:
                    return picked
            else:
                if realized_for_picks(x):  # a loop reading the elements of pending data: realized once
                    picked = quick_pick(x, element)
                    if picked is not None:
                        return picked
                    impl = x._impl
                plain = element_parse(impl.cached_shape, element)
                if plain is not None:  # of a lazy array (an element loop): a slice, reshaped to 0-d
                    return slice_op.apply_unary(x, {"index": plain[0], "shape": ()})
        return indexing.getitem(x, key)
    if x._view is not None:  # a slice of a slice: a slice of their base, as NumPy's views are
        composed = _composed(x, key)
        if composed is not None:
            return getitem(x._view[0], composed)
    out, plain, key = parsed_slice(x, key)
    if out is not None:  # (a view keeps the ints its key's 0-d bounds held when it was taken)
        return make_view(x, out, _Derive(key), _PutBack(key, plain, impl.cached_shape))
    if isinstance(key, Tensor) and key._impl.cached_shape:  # ``x[cols]``: one gather
        out = indexing.gather_rows(x, key)
        if out is not None:
            return out
    ints = host_int_indices(key) if type(key) is tuple or isinstance(key, Tensor) else None
    if ints is not None:  # NumPy reads a 0-d integer array as its integer, and copies
        out = plain_slice(x, ints) if element_key(impl, ints) is None else None
        return getitem(x, ints) if out is None or out is x else out
    out = indexing.getitem(x, key)
    if is_basic(x, key):
        return make_view(x, out, _Derive(key), _PutBack(key))
    return out


def _composed(x: Tensor, key):
    """The key of ``x[key]`` in x's parent, where x is a slice of it and both keys are slices (of
    ints, ``...`` and all: ``v = v[1:]`` in a loop, ``r[::-1][1:]``, ``v[..., 1:]``); None for any
    other (an int or a ``None`` in either). A view taken so is its base's view: a write into it is
    carried one step, where a chain of views carried it through each."""
    taken = _taken_in_parent(x)
    if taken is None:
        return None
    ints = int_bounds(key)  # (bounds of 0-d integer arrays and NumPy integers: their ints)
    then = plain_key(x._impl.cached_shape, key if ints is None else ints)
    if then is None or not then[2]:  # (slices only: no int, no None)
        return None
    out = []
    for (start, _, step), (at, stop, by) in zip(taken, then[0]):  # (x's element j: the parent's start + j step)
        begin, end, stride, count = composed_axis(start, step, at, stop, by)
        if not count:
            out.append(slice(0, 0))
            continue
        out.append(slice(begin, None if end < 0 else end, stride))  # (-1 would count from the end)
    return tuple(out)


def _taken_in_parent(x: Tensor):
    """Where the view ``x`` lies in its parent, ``(start, stop, step)`` per axis, where it is a
    writable slice of it by slices only (x's axes the parent's); None otherwise (a read-only view's
    slices stay read-only, a subclass's keep its class)."""
    parent, derive, put_back = x._view
    outer = getattr(derive, "key", None)
    if outer is None or put_back is None or type(parent) is not type(x) or parent._impl.batch_dims \
            or x._impl.batch_dims:
        return None
    index = getattr(put_back, "index", None)  # (its key's parse, kept where the view was taken)
    if index is not None and put_back.shape == parent._impl.cached_shape:
        return index if put_back.same else None
    first = plain_key(parent._impl.cached_shape, outer)
    return first[0] if first is not None and first[2] else None


def _element_in_base(x: Tensor, key):
    """The key in x's parent of the element ``x[key]`` (an int per axis), where x is a slice of it
    (``v = A[1:, 1:]; v[i, i] = s``); None for any other. Written there, a write costs an element,
    where carried back into the parent as the whole slice it cost the slice's size each time."""
    element = element_key(x._impl, key)
    taken = None if element is None else _taken_in_parent(x)
    if taken is None:
        return None
    out = []
    for (start, _, step), i, n in zip(taken, element, x._impl.cached_shape):
        if not -n <= i < n:
            return None  # (the general path raises NumPy's IndexError)
        out.append(start + (i % n) * step)
    return tuple(out)


class _PutBack:
    """How a view taken at ``key`` writes back into its parent: a slice write, with the key's parse
    where the view's own found it (``plain``, over a parent of ``shape``: ``x[i, :j] += v`` parses
    its key once; ``index``, ``shape`` and ``same`` kept for ``wrote``, which writes a realized
    view into realized host data at once, and for a slice of the view, composed in the parent)."""

    __slots__ = ("key", "plain", "index", "shape", "same")

    def __init__(self, key, plain=None, shape=None):
        self.key, self.plain = key, plain
        if plain is not None:
            self.index, self.shape, self.same = plain[0], shape, plain[2]

    def __call__(self, parent: Tensor, child: Tensor) -> Tensor:
        plain = self.plain
        if plain is not None and parent._impl.cached_shape == self.shape and not parent._impl.batch_dims:
            value = _plain_value(parent._impl, child)
            if value is not None and _write_plain(parent, plain, value):
                return parent
        if not _plain_setitem(parent, self.key, child):
            indexing.setitem(parent, self.key, child)
        return parent


def setitem(x: Tensor, key, value) -> None:
    if NO_SIDE_EFFECTS:
        refuse_write(x)
    if x._view is not None:
        check_writeable(x)
        element = _element_in_base(x, key)
        if element is not None:  # an element of a slice: written into the base, which re-derives its views
            setitem(x._view[0], element, value)
            return
    if type(value) is complex and (x._impl.dtype.is_integer or x._impl.dtype.is_floating):  # NumPy's TypeError
        raise TypeError(f"nabla.setitem: cannot write complex {value!r} into an array of {x._impl.dtype}")
    if type(value) in (list, tuple) and value and type(value[0]) in (list, tuple):
        _check_nesting(x, key, value)
    if _is_own_view(x, key, value) or host_write(x, key, value) \
            or ((type(key) is tuple or isinstance(key, Tensor)) and host_scatter(x, key, value)):
        return
    if type(key) in PLAIN_CLASSES and _masked_fill(x, key, value):
        return
    before = id(x._impl)  # (not a reference: a write into x's memory counts those, ``host_writes._memory``)
    if not _plain_setitem(x, key, value, at_once=True):
        ints = host_int_indices(key) if type(key) is tuple or isinstance(key, Tensor) else None
        if ints is not None:  # (``h[x[i]] += 1``: NumPy's integer, as a pick reads it)
            setitem(x, ints, value)
            return
        indexing.setitem(x, key, value)
    if id(x._impl) != before:  # (the old state lives until it is replaced: no id is reused meanwhile)
        wrote(x)
        if may_be_element(key):
            loop = getattr(x, "_element_loop", None)
            if (loop is None or not loop.off) and element_key(x._impl, key) is not None:
                recorded_element_write(x, loop)


def _check_nesting(x: Tensor, key, value) -> None:
    """NumPy's rule for a nested list written into ``x[key]``: it is read as an array of at most the
    region's dimensions (``x[1:3] = [[7, 8]]`` raises, where an array of shape (1, 2) broadcasts)."""
    depth, inner = 0, value
    while type(inner) in (list, tuple) and inner:
        depth, inner = depth + 1, inner[0]
    region = getitem(x, key)._impl.cached_shape
    if depth > len(region):
        raise ValueError(f"nabla.setitem: setting an array element with a sequence: a list nested {depth} deep "
                         f"written into a region of shape {region} of an array of shape {x._impl.cached_shape}")


def _masked_fill(x: Tensor, mask: Tensor, value) -> bool:
    """``x[mask] = v`` for a boolean ``mask`` of x's shape and a value of x's dtype (a Python scalar
    it holds exactly, or a 0-d array): NumPy's assignment is then a select, ``where(mask, v, x)``,
    made here without the general path's parse and conversions (a loop's ``a[a > t] = 0``, ~32 ->
    ~10 us). False where the general path decides."""
    mi, xi = mask._impl, x._impl
    if not mi.dtype.is_bool or mi.cached_shape != xi.cached_shape or mi.batch_dims or xi.batch_dims \
            or xi.dtype.is_complex or type(x) not in PLAIN_CLASSES:
        return False
    v = _plain_value(xi, value)
    if v is None or v._impl.cached_shape:
        return False
    x._impl = where(mask, v, x)._impl
    wrote(x)
    return True


def rebind(x: Tensor, value: Tensor) -> None:
    """``x[...] = value`` for a value of x's shape and dtype: x's new value, its views kept in sync."""
    if NO_SIDE_EFFECTS:
        refuse_write(x)
    if x._view is not None:
        check_writeable(x)
    x._impl = value._impl
    wrote(x)


def op_in_place(op, x: Tensor, y: Tensor) -> bool:
    """``x op= y`` for elementwise ``op`` and x a view of realized host data at a basic slice
    (``C[i, :i + 1] += w``, ``A[:, j] -= w``): the op at once with its result written into the
    slice's place in the base's memory (``host_writes.slice_place``: one run of it, or stored
    through the slice's layout), where that memory is the base's own and nothing
    but x reads it, and ``y`` (of x's dtype, or a constant) is nothing of the base's but x itself
    (an elementwise op reads each element before it writes it); x keeps its slice, which reads
    the new values, and the base's other views are derived again. False where the op is computed
    and then written back (``rebind``)."""
    view = x._view
    parent, _, put_back = view
    index = getattr(put_back, "index", None)
    if index is None or parent._view is not None or parent._impl.cached_shape != put_back.shape or NO_SIDE_EFFECTS:
        return False
    xi, yi = x._impl, y._impl
    xv, yv = xi._values, yi._values
    if len(xv) != 1 or len(yv) != 1 or not plain_host(xi) or not plain_host(yi) or xi.dtype is not yi.dtype \
            or type(x) not in PLAIN_CLASSES or type(y) not in PLAIN_CLASSES:
        return False
    sliced, other = xv[0], yv[0]
    node = sliced.node
    if node is None or node.op is not slice_op or len(node.inputs) != 1:
        return False
    source = node.inputs[0]
    if other is source or (other.node is not None and other is not sliced and other.node.inputs
                           and other.node.inputs[0] is source):
        return False  # (y reads the base elsewhere: NumPy's result is as if computed first)
    spec = op.abstract_eval(xi, yi)
    if type(spec) is not tuple or spec[0] != xi.cached_shape or spec[1] is not xi.dtype or spec[2]:
        return False
    del xv, yv, source
    address = slice_place(parent, index, sliced)
    if not address or not (kept_into(op, sliced, other, address) or small_at_once(
            op, {}, (sliced, other), (xi, yi), spec[0], spec[1], sliced.device, into=address)):
        return False
    _rederive(parent, {id(parent), id(x)})
    return True


def _plain_setitem(x: Tensor, key, value, at_once: bool = False) -> bool:
    """``x[1:-1, j] = v`` with a key of ints and slices and a value of x's dtype (a tensor, or a
    Python float, int or bool x's dtype holds exactly): one slice write, recorded without the
    general path (``at_once``: into x's memory, where ``host_slice_write`` takes it). False where
    the general path decides."""
    impl = x._impl
    if impl.batch_dims:
        return False
    element = element_key(impl, key) if may_be_element(key) else None
    plain = plain_key(impl.cached_shape, key, element=True) if element is None \
        else element_parse(impl.cached_shape, element)
    if plain is None and element is None:  # (bounds of 0-d integer arrays: ``T[i, w[i]:] = v``, as ``getitem``)
        ints = int_bounds(key)
        plain = None if ints is None else plain_key(impl.cached_shape, ints, element=True)
    if plain is None:
        return False
    if isinstance(value, Tensor) and value._impl.dtype is not impl.dtype and not value._impl.batch_dims:
        value = astype(value, impl.dtype)  # (NumPy's cast of the value, as the general path's: ``row[:] = ints``)
    if at_once and element is None:
        del impl  # (a write into x's memory counts the references to x's state: this would be one)
        if host_slice_write(x, plain[0], value):
            return True
        impl = x._impl
    value = _plain_value(impl, value)
    return value is not None and _write_plain(x, plain, value)


def _plain_value(impl, value):
    """A slice write's value as ``_plain_setitem`` takes it (a tensor of x's dtype, or a Python
    scalar x's dtype holds exactly, as a constant); None where it does not."""
    dtype = impl.dtype
    tv = type(value)
    if tv is float or tv is int or tv is bool:  # (``mask[i * i::i] = False``, ``counts[:, 0] = 0``)
        value = exact_scalar(value, dtype)
        return None if value is None else operand_constant(value, dtype, impl.device)
    if not isinstance(value, Tensor) or value._impl.dtype is not dtype or value._impl.batch_dims:
        return None
    return value


def _write_plain(x: Tensor, plain, value) -> bool:
    """The slice write of ``value`` at a parsed key (``basic_keys.plain_key``); False where the general
    path decides (a value of another shape than the slice's that does not broadcast to it)."""
    impl = x._impl
    index, after, same, whole, sizes, starts = plain
    vshape = value._impl.cached_shape
    if vshape != after:
        if len(vshape) > len(after) or any(a != b and a != 1 for a, b in zip(vshape[::-1], after[::-1])):
            return False  # (the general path raises NumPy's error)
        value = broadcast_to_op(value, shape=after)
    sliced = after if same else sliced_shape(index)
    if not same and sliced != after and not _unshaped_write(impl, value._impl):
        value = reshape_op(value, shape=sliced)
    if 0 in sliced:
        return True
    if whole:
        x._impl = value._impl if value._impl.cached_shape == impl.cached_shape else \
            reshape_op(value, shape=impl.cached_shape)._impl
    else:
        x._impl = set_slice_op.apply_shaped((x, value), {"index": index}, impl.cached_shape,
                                            slice_memo(plain, write=True))._impl
    return True


def _unshaped_write(x, v) -> bool:
    """Whether a slice write may take its value in the key's shape rather than the slice's (see
    ``SetSliceOp``): data no transform, gradient or mesh sees."""
    return x.sharding is None and v.sharding is None and x.tangents is None and v.tangents is None \
        and not (x.traced or v.traced)


def flat_view(x: Tensor) -> Tensor:
    """``x`` raveled in C order, a view whatever its layout (``x.flat``: a write through it reaches
    x's elements, as NumPy's ``flatiter`` writes them, where ``ravel`` of a transpose is a copy)."""
    shape = x.shape
    return make_view(x, _view.reshape(x, (-1,)), lambda p: _view.reshape(p, (-1,)),
                     lambda p, c: _view.reshape(c, shape))


def reshaped(x: Tensor, out: Tensor) -> Tensor:
    """``out`` has x's elements in x's order under another shape (reshape, ravel, squeeze, ...): a
    view of x where x's memory lays them out so (NumPy's view), else ``out`` itself, a copy (a
    reshape of a transpose or a strided slice: a write into it leaves x as it was)."""
    shape = out.shape
    derive = lambda p: _view.reshape(p, shape)  # noqa: E731
    if x._view is None:  # (an array's own memory, C-ordered: so is its reshape)
        derive.layout = C_ORDER
    else:
        strides = element_strides(x)
        if strides is not None:
            strides = reshaped_strides(x.shape, strides, shape)
            if strides is None:
                return out
            derive.layout = ("strides", strides)
    return make_view(x, out, derive, lambda p, c: _view.reshape(c, p.shape))


def permuted(x: Tensor, out: Tensor, axes) -> Tensor:
    """``out`` = ``permute_dims(x, axes)``."""
    axes = tuple(a % x.ndim for a in axes) if x.ndim else ()
    inverse = _view.inverse_perm(axes)
    derive = lambda p: _view.permute_dims(p, axes)  # noqa: E731
    derive.layout = ("axes", axes)
    return make_view(x, out, derive, lambda p, c: _view.permute_dims(c, inverse))


def reshape(x: Tensor, *shape) -> Tensor:
    return reshaped(x, _view.reshape(x, shape[0] if len(shape) == 1 else shape))


def transpose(x: Tensor, *axes) -> Tensor:
    axes = (axes[0] if len(axes) == 1 else axes) or tuple(reversed(range(x.ndim)))
    return permuted(x, _view.permute_dims(x, axes), axes)


def swapaxes(x: Tensor, a: int, b: int) -> Tensor:
    a, b = normalize_axis(a, x.ndim, "swapaxes"), normalize_axis(b, x.ndim, "swapaxes")
    axes = list(range(x.ndim))
    axes[a], axes[b] = axes[b], axes[a]
    return permuted(x, _view.permute_dims(x, axes), axes)


def squeeze(x: Tensor, *args, **kwargs) -> Tensor:
    return reshaped(x, _view.squeeze(x, *args, **kwargs))


def unsqueeze(x: Tensor, *args, **kwargs) -> Tensor:
    return reshaped(x, _view.unsqueeze(x, *args, **kwargs))


def T(x: Tensor) -> Tensor:
    return transpose(x)
