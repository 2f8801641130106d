"""Single elements at the host boundary: ``x[i, j]`` and ``float(x[i, j])`` on data already on the host.

Code that checks an array element by element (array-api-tests does, for every example; so do
NumPy-style loops) picks thousands of single elements. Each pick as a graph of its own is a new
structure per index (~1-6 ms apiece); a pick of realized host data is a read of memory, as
NumPy's ``a[i, j]`` is. Everything else (transforms, gradients, sharding, accelerator data, large
lazy sources) stays an op in ``indexing``.
"""

from __future__ import annotations

import numpy as np

from ..core.graph import HostValue, host_value, host_view
from ..core.values import _BUFFER
from ..core.operation import PLAIN_CLASSES, plain_array
from ..core.tensor import Tensor
from ..core.tensor_impl import TensorImpl, plain_host
from .index_primitives import slice_op, sliced_shape
from .view import reshape_op



def element_key(impl, key):
    """``key`` as a tuple of Python ints, one per axis of ``impl`` (``x[i, j]``, or ``x[i]`` of a
    1-D array), without parsing it; None for any other key (and under ``vmap``)."""
    if impl.batch_dims:
        return None
    if type(key) is tuple:
        if len(key) != len(impl.cached_shape):
            return None
        for k in key:  # (a loop, not all(): this is asked first of every basic index)
            if type(k) is not int:
                return None
        return key
    if type(key) is int and len(impl.cached_shape) == 1:
        return (key,)
    return None


#: ``quick_pick``'s answer for a key that is no ``element_key`` (a slice's)
NOT_ONE = object()


def quick_pick(x: Tensor, key):
    """``x[key]`` for a key of Python ints, one per axis (or one int of a 1-D ``x``), of a realized
    plain host tensor, read from its memory: ``NOT_ONE`` for a key that is no ``element_key``, None
    when the general path must decide (another tensor, or an out-of-range index, whose IndexError it
    raises). Written out in one function: an element loop asks this of every pick (its calls were a
    third of a pick's ~1.5 us)."""
    impl = x._impl
    shape = impl.cached_shape
    if type(key) is tuple:
        if len(key) != len(shape):
            return NOT_ONE
    elif type(key) is int and len(shape) == 1:
        key = (key,)
    elif type(key) in PLAIN_CLASSES and len(shape) == 1:  # (``dist[src[e]]``: a 0-d integer array's int)
        i = held_int(key)
        if i is None:
            return NOT_ONE
        key = (i,)
    else:
        return NOT_ONE
    for i in key:  # (first, and without a zip: a slice's key leaves here)
        if type(i) is not int:
            if type(i) not in PLAIN_CLASSES:
                return NOT_ONE
            key = tuple(k if type(k) is int else held_int(k) if type(k) in PLAIN_CLASSES else None for k in key)
            if None in key:
                return NOT_ONE
            break
    for i, n in zip(key, shape):
        if not -n <= i < n:
            return None
    values = impl._values
    if len(values) != 1 or impl.batch_dims or impl.tangents is not None or impl.sharding is not None \
            or impl.traced or impl.requires_grad:
        return None
    v = values[0]
    if v.node is not None or not v.device.is_host:
        return None
    if type(v) is not HostValue:  # the same buffer with its NumPy view kept: later picks read it at once
        v = values[0] = host_value(v.buffer, v.shape, v.dtype, v.device, host_view(v), owned=False)
    host = v.host
    # (NumPy's scalar, a copy, kept as it is; a complex element's pair, a view, and a uint64, whose
    # scalar no constant takes, copied as an array)
    picked = (host if type(host) is np.ndarray else host_view(v))[key]
    if type(picked) is np.ndarray or type(picked) is np.uint64:
        picked = np.array(picked)
    # (its value, TensorImpl and array made with their fields set directly, as ``_wrap`` makes them)
    h = _new(HostValue)
    h.node, h.index, h.shape, h.dtype, h.device, h.host, h.owned, h.address = \
        None, 0, picked.shape, v.dtype, v.device, picked, False, 0
    _BUFFER.__set__(h, None)
    r = _new(TensorImpl)
    r._values, r.cached_shape, r.dtype, r.batch_dims = [h], (), impl.dtype, 0  # (a complex pair's too)
    cls = type(x)
    if cls in PLAIN_CLASSES:
        out = _new(cls)
        out._impl = r
        out._view = out._views = None
        return out
    return cls(r)


_new = object.__new__


def element_value(t: Tensor):
    """The realized host value of a 0-d tensor that no transform, gradient or sharding sees (a pick,
    an op at once over picks); None for any other tensor."""
    ti = t._impl
    values = ti._values
    if ti.cached_shape or len(values) != 1 or ti.batch_dims or ti.tangents is not None or ti.sharding is not None \
            or ti.traced or ti.requires_grad:
        return None
    v = values[0]
    return v if v.node is None and v.device.is_host else None


def held_int(k: Tensor):
    """The Python int a realized 0-d integer array on the host holds (NumPy reads such an index as
    its integer); None for any other array."""
    v = element_value(k) if k._impl.dtype.is_integer else None
    if v is None:
        return None
    host = v.host if type(v) is HostValue else None
    return int(host) if isinstance(host, np.integer) else int(host_view(v))


def _wrap(x: Tensor, picked: np.ndarray) -> Tensor:
    """A picked element (its stored form: a complex one is its (re, im) pair) as a realized 0-d
    tensor of ``x``'s class (a face's pick stays the face's array)."""
    impl = x._impl
    # (read from ``host``, its buffer made where a run asks for one; a 0-d array takes no element write)
    r = TensorImpl([host_value(None, picked.shape, impl._values[0].dtype, impl.device, picked, owned=False)],
                   impl.dtype)
    cls = type(x)
    return plain_array(cls, r) if cls in PLAIN_CLASSES else cls(r)  # (plain: made directly, as an op's result)


def element_from_host(x: Tensor, entries):
    """``x[i, j, ...]`` (parsed entries, an integer for every axis) as a new 0-d tensor read from
    host data, as NumPy returns a scalar; None where a pick must stay an op: of a lazy ``x``, it
    stays lazy (an element loop, ``x[i] = f(x[i - 1])``, is then one program, where realizing
    ``x`` at each pick made a program per element)."""
    impl = x._impl
    if len(entries) != impl.ndim or any(e[0] != "int" for e in entries):
        return None
    if not plain_host(impl):
        return None
    index = []
    for (_, i), n in zip(entries, impl.shape):
        if not -n <= i < n:
            return None  # _basic raises the IndexError
        index.append(i % n)
    if not impl.is_realized:
        found = _through_slice(impl, index)
        if found is not None:  # an element of a slice of realized data: read from the data
            return _wrap(x, np.array(found))
        return None
    return _wrap(x, np.array(host_view(impl._values[0])[tuple(index)]))


def pick_through(x: Tensor, element):
    """``x[element]`` (an ``element_key``) of a pending basic slice of realized host data, read from
    that data (``_through_slice``): a DP loop's ``row = table[i]``, then ``row[j]`` at every step;
    None where it is not one (the general path decides, and raises NumPy's IndexError)."""
    impl = x._impl
    if not plain_host(impl):
        return None
    index = []
    for i, n in zip(element, impl.cached_shape):
        if not -n <= i < n:
            return None
        index.append(i % n)
    found = _through_slice(impl, index)
    return None if found is None else _wrap(x, np.array(found))


def _through_slice(impl, index):
    """The stored element ``index`` picks from a pending basic slice (``x[i, :, j]``: a slice, and a
    reshape dropping the integers' axes) of realized host data, read from that data; None
    otherwise. An element check picks each element of each slice it compares (array-api-tests'
    linalg stacks: ``a[1] * b[2] - a[2] * b[1]``), where realizing the slice is a run of its own."""
    pair = impl.dtype.is_complex  # stored as (re, im) on a trailing axis the slice takes whole
    value = impl._values[0]
    node = value.node
    if node.op is reshape_op:
        inner = node.inputs[0]
        node = inner.node
        if node is None:
            return None
        index = _unsqueezed(index, value.shape[:-1] if pair else value.shape,
                            inner.shape[:-1] if pair else inner.shape)
        if index is None:
            return None
    if node.op is not slice_op:
        return None
    src = node.inputs[0]
    if src.node is not None or src.buffer is None or not src.device.is_host:
        return None
    ranges = node.kwargs["index"]
    if pair:
        if tuple(ranges[-1]) != (0, 2, 1):
            return None
        ranges = ranges[:-1]
    if "shape" in node.kwargs:  # a slice that drops (or adds) axes of length 1
        shape = node.kwargs["shape"]
        index = _unsqueezed(index, shape[:-1] if pair else shape, sliced_shape(ranges))
        if index is None:
            return None
    if len(ranges) != len(index):
        return None
    return host_view(src)[tuple(range(*sl)[i] for sl, i in zip(ranges, index))]


def _unsqueezed(index, shape, full):
    """``index`` into ``shape`` as an index into ``full``, the same elements with more axes of 1 (a
    reshape that drops them); None for any other reshape."""
    out, j = [], 0
    for n in full:
        if j < len(shape) and shape[j] == n:
            out.append(index[j])
            j += 1
        elif n == 1:
            out.append(0)
        else:
            return None
    return out if j == len(shape) else None


def host_element(x: Tensor):
    """The Python scalar ``x`` holds when it is one element picked from a tensor already on the host.

    ``float(a[i, j])`` on realized data is a read at the host boundary; answering it from the
    source's host view spares a graph per element. ``None`` when that does not apply.
    """
    impl = x._impl
    value = impl._values[0]
    node = value.node
    if impl.batch_dims or impl.tangents is not None or impl.sharding is not None:
        return None
    if node is None:  # realized: a complex element as its stored (re, im) pair
        if impl.dtype.is_complex and len(impl._values) == 1 and value.device.is_host:
            re, im = host_view(value).reshape(2)
            return complex(re, im)
        return None
    if node.op is not slice_op and node.op is not reshape_op:
        return None

    if node.op is reshape_op:
        node = node.inputs[0].node
    if node is None or node.op is not slice_op:
        return None
    src = node.inputs[0]
    if src.node is not None or src.buffer is None or not src.device.is_host:
        return None
    index = node.kwargs["index"]
    pair = impl.dtype.is_complex  # stored as (re, im) on a trailing axis the index takes whole
    if pair and tuple(index[-1]) != (0, 2, 1):
        return None
    picked = index[:-1] if pair else index
    if any(len(range(*sl)) != 1 for sl in picked):
        return None
    value = host_view(src)[tuple(sl[0] for sl in picked)]
    return complex(value[0], value[1]) if pair else value.item()
