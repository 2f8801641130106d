"""Creation ops: tensors from nothing (computed on MAX) or from host data (the boundary)."""

from __future__ import annotations

import math
import weakref

import numpy as np
from max.dtype import DType

from ..core import dtypes as _dt
from ..core.context import as_device, get_default_dtype
from ..core.graph import GRAPH, Node, Value
from ..core.operation import plain_array
from ..core.tensor import Tensor
from ..core.tensor_impl import TensorImpl
from ..core.tracing import OutputRefs
from ..core.values import give_up, host_value
from .base import CreationOperation, _check_shape, default_dtype_for, host_array, tensor_from_host
from .casts import astype
from . import lowerings as L
from .broadcasting import broadcast_physical, broadcast_to_op
from ..core.lazy_module import graph_ops as ops


def _device_ref(device):
    # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
    from max.graph import DeviceRef

    return DeviceRef.from_device(device)


def _check_value(value, dtype, op):
    if dtype.is_complex:
        return complex(value)
    if dtype.is_bool:
        return bool(value)
    if isinstance(value, complex):  # NumPy's TypeError: no silent loss of the imaginary part
        raise TypeError(f"nabla.{op}: cannot convert complex {value!r} to {dtype}")
    if dtype.is_integer:
        info = np.iinfo(dtype.numpy_dtype)
        try:
            value = int(value)  # a float truncates toward zero, as NumPy's and PyTorch's casts do
        except (OverflowError, ValueError) as e:  # (inf: OverflowError, NaN: ValueError, as NumPy's)
            raise type(e)(f"nabla.{op}: cannot convert {value!r} to {dtype}") from None
        if not info.min <= value <= info.max:
            raise OverflowError(f"nabla.{op}: fill value {value} is out of range for {dtype}")
        return value
    return float(value)


class ConstantOp(CreationOperation):
    """A 0-d constant; Python scalars in expressions become these."""

    name = "constant"
    shape_polymorphic = True
    data_kwarg = "value"

    def data(self, kwargs):
        dtype = kwargs["dtype"]
        if dtype.is_complex:  # stored as a pair of reals: stays in the structure
            return None
        try:
            return np.asarray(kwargs["value"], dtype.numpy_dtype), kwargs["device"]
        except (TypeError, ValueError, OverflowError):
            return None

    def abstract_eval(self, *, value, dtype, device):
        return (), dtype, 0

    def maxpr(self, *, value, dtype, device):
        if dtype.is_complex:
            pair = np.array([value.real, value.imag], dtype=_dt.real_dtype(dtype).numpy_dtype)
            return ops.constant(pair, _dt.real_dtype(dtype).max_dtype, _device_ref(device))
        return ops.constant(value, dtype.max_dtype, _device_ref(device))


class FullOp(CreationOperation):
    name = "full"

    def maxpr(self, *, shape, value, dtype, device):
        c = ops.constant(value, dtype.max_dtype, _device_ref(device))
        return L.broadcast_to(c, shape) if shape else c


class IotaOp(CreationOperation):
    """``0, 1, ..., n - 1`` as int64: the positions ``arange`` scales and shifts.

    ``arange`` applies its start and step as scalar constants, which reach a graph as inputs: a
    graph whose values are all known at compile time lets MAX fold them, and MAX 26.7 returns
    unwritten memory for an integer ``x + 0`` or ``x - 0`` folded on a constant ``x`` over 4 KiB
    (``range(0, 1000) + 0`` in int64: addresses instead of 0..999)."""

    name = "iota"

    def maxpr(self, *, shape, dtype, device):
        n = shape[0]
        return ops.range(0, n, 1, out_dim=n, dtype=DType.int64, device=_device_ref(device))


constant_op = ConstantOp()
full_op = FullOp()
iota_op = IotaOp()


def scalar_tensor(value, dtype, device=None) -> Tensor:
    """A lazy 0-d tensor holding a Python scalar."""
    return constant_op(value=_check_value(value, dtype, "asarray"), dtype=dtype, device=as_device(device))


_OPERAND_CONSTANTS: dict = {}
#: the same constants by ``(type, value, id(dtype), id(device))``, for the values that key alone
#: tells apart (ints, and floats but zeros and NaNs, whose sign or payload ``==`` does not see): a
#: loop's ``x * 0.5`` finds its constant without formatting the float or hashing MAX's device. Each
#: entry holds the very dtype and device objects its key names (the impl's own device may be another,
#: equal object), so their ids are not reused while the entry lives.
_PLAIN_CONSTANTS: dict = {}


def operand_constant(value, dtype, device) -> Tensor:
    """An interned 0-d constant for a Python scalar operand (``x * 0.5``).

    Shared and immutable: it is never registered as pending, so it is never
    realized on its own and stays a constant node in every graph that uses it.
    """
    t = type(value)
    if dtype.is_complex and device.is_host and not GRAPH.captures:
        return _complex_operand(value, dtype, device)
    plain = (t, value, id(dtype), id(device)) if t is int or (t is float and value != 0.0 and value == value) \
        else None
    if plain is not None:
        hit = _PLAIN_CONSTANTS.get(plain)
        if hit is not None:
            return plain_array(Tensor, hit[2])  # (a loop's ``x * 0.5`` meets this at every step)
    key = (type(value), value.hex() if isinstance(value, float) else
           (value.real.hex(), value.imag.hex()) if isinstance(value, complex) else value, dtype, device)
    impl = _OPERAND_CONSTANTS.get(key)
    if impl is None:
        kwargs = {"value": _check_value(value, dtype, "asarray"), "dtype": dtype, "device": device}
        impl = TensorImpl([Value(Node(constant_op, kwargs, ()), 0, (), dtype, device)], dtype, pending=False)
        impl.output_refs = OutputRefs((weakref.ref(impl),), None, constant_op, (), kwargs)
        if len(_OPERAND_CONSTANTS) > 4096:
            _OPERAND_CONSTANTS.clear()
        _OPERAND_CONSTANTS[key] = impl
    if plain is not None:
        if len(_PLAIN_CONSTANTS) > 4096:
            _PLAIN_CONSTANTS.clear()
        _PLAIN_CONSTANTS[plain] = (dtype, device, impl)
    return Tensor(impl)


def _complex_operand(value, dtype, device) -> Tensor:
    """A complex scalar operand (``z * (0.9 + 0.3j)``, ``exp(2j * pi * k / n)``) as realized host data,
    its (re, im) pair: data of a program, not its structure, as a real constant's value is (a
    constant node keyed by its value made each new value a new structure: a loop's twiddle, new
    each step, planned and read a program per step, ~0.5 ms)."""
    value = _check_value(value, dtype, "asarray")
    key = (value.real.hex(), value.imag.hex(), dtype, device)  # (interned: a loop's ``acc * c`` is one leaf)
    impl = _COMPLEX_OPERANDS.get(key)
    if impl is None:
        pair = np.array([value.real, value.imag], _dt.real_dtype(dtype).numpy_dtype)
        leaf = host_value(None, (2,), _dt.real_dtype(dtype), device, pair, owned=False)
        impl = TensorImpl([leaf], dtype, pending=False)
        if len(_COMPLEX_OPERANDS) >= 4096:
            _COMPLEX_OPERANDS.clear()
        _COMPLEX_OPERANDS[key] = impl
    return Tensor(impl)


_COMPLEX_OPERANDS: dict = {}


def full(shape, fill_value, dtype=None, device=None) -> Tensor:
    shape = _check_shape(shape, "full")
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    dtype = default_dtype_for(fill_value) if dtype is None else _dt.as_dtype(dtype)
    value = _check_value(fill_value, dtype, "full")
    device = as_device(device)
    if dtype.is_complex:
        return Tensor(_complex_filled(shape, value, dtype, device))
    impl = _filled_at_once(shape, value, dtype, device) if shape else None
    return Tensor(impl) if impl is not None else full_op(shape=shape, value=value, dtype=dtype, device=device)


#: the most elements a fill made at once has (``_filled_at_once``): a loop's new vectors, grids and
#: feature maps (up to 1 MB of float64; a larger fill stays recorded, made by the read that needs
#: it, where the slices a loop writes into it are fused with it: vadv's columns)
FILL_AT_ONCE = 1 << 17


def _filled_at_once(shape, value, dtype, device):
    """``full(shape, value)`` of at most ``FILL_AT_ONCE`` elements as realized host data, filled as
    it is made by the engine's ``scalars`` hook, as NumPy's ``zeros`` is: a loop that writes into
    a small new array (``y = empty_like(r)``, then ``y[:k] += ...``) writes its memory at once;
    None where it is recorded (a fill is a spread constant, a fill only its read needs)."""
    constant = operand_constant(value, dtype, device)._impl._values[0]
    out = _spread_at_once(constant, shape, dtype, device, math.prod(shape))
    return None if out is None else TensorImpl([out], dtype)


def _spread_at_once(source, shape, dtype, device, elements: int):
    """Value ``source`` (a constant, a small host leaf) spread to ``shape`` as realized host data made
    at once (``elements``: the fill's, at most ``FILL_AT_ONCE``); None where it is recorded."""
    scalars = GRAPH.engine.scalars
    if not 0 < elements <= FILL_AT_ONCE or scalars is None:
        return None
    return scalars.small(GRAPH.engine, broadcast_to_op, {"shape": shape}, (source,), shape, dtype, device)


def _complex_filled(shape, value: complex, dtype, device) -> TensorImpl:
    """``full`` of a complex ``value``: its storage's (re, im) pairs spread from one pair (two numbers
    crossing the host boundary, where the whole array did), made at once where at most
    ``FILL_AT_ONCE`` elements, as a real fill is, else recorded for the read that needs it; on an
    accelerator, the array made on the host and copied over."""
    if not device.is_host:  # (an accelerator's spread would be a graph of its own: the array crosses)
        return tensor_from_host(np.full(shape, value, dtype.numpy_dtype), device)._impl
    real = _dt.real_dtype(dtype)
    pair = tensor_from_host(np.array([value.real, value.imag], real.numpy_dtype), device)._impl
    storage = tuple(shape) + (2,)
    out = _spread_at_once(pair._values[0], storage, real, device, math.prod(shape))
    if out is not None:
        return TensorImpl([out], dtype)
    return TensorImpl(broadcast_to_op.apply_unary(Tensor(pair), {"shape": storage})._impl._values, dtype)


def kept_constant(t: Tensor) -> Tensor:
    """``t`` realized, its memory given up (a write into any name of it copies first): a constant a
    cache hands out again (``positions``, ``linalg.identity``)."""
    t._impl.realize()
    for v in t._impl._values:
        give_up(v)
    return t


def positions(length: int, device) -> Tensor:
    """0, 1, ..., length - 1 as int64 (``iota``): up to ``FILL_AT_ONCE`` of them a slice of realized
    positions kept per device (grown as asked), which the ops at once over it take (a loop's
    ``np.arange(lo, hi)`` of index positions is then realized at once, and each step's gathers and
    writes at it, where a recorded iota left them pending, and a program of each new length planned)."""
    if not 0 < length <= FILL_AT_ONCE or GRAPH.captures or GRAPH.engine.scalars is None:
        return iota_op(shape=(length,), dtype=_dt.int64, device=device)
    key = (device.label, device.id)
    held = _POSITIONS.get(key)
    if held is None or held.shape[0] < length:
        n = min(FILL_AT_ONCE, max(length, 1024, 2 * (0 if held is None else held.shape[0])))
        held = _POSITIONS[key] = kept_constant(iota_op(shape=(n,), dtype=_dt.int64, device=device))
    return Tensor(held._impl)[0:length]  # (a new name's slice: the kept one's views stay none)


#: per device, realized positions 0, 1, ... that ``positions`` slices
_POSITIONS: dict = {}


def zeros(shape, dtype=None, device=None) -> Tensor:
    dtype = get_default_dtype() if dtype is None else _dt.as_dtype(dtype)
    return full(shape, False if dtype.is_bool else 0, dtype, device)


def ones(shape, dtype=None, device=None) -> Tensor:
    dtype = get_default_dtype() if dtype is None else _dt.as_dtype(dtype)
    return full(shape, True if dtype.is_bool else 1, dtype, device)


def full_like(x: Tensor, fill_value, dtype=None, device=None) -> Tensor:
    """``full`` with ``x``'s shape; inside ``vmap`` the result is batched like ``x``."""
    dtype = x.dtype if dtype is None else _dt.as_dtype(dtype)
    device = x.device if device is None else device
    if not x.batch_dims:
        return full(x.shape, fill_value, dtype, device)

    return broadcast_physical(full((), fill_value, dtype, device), x._impl.cached_shape, x.batch_dims)


def zeros_like(x: Tensor, dtype=None, device=None) -> Tensor:
    dtype = x.dtype if dtype is None else _dt.as_dtype(dtype)
    return full_like(x, False if dtype.is_bool else 0, dtype, device)


def ones_like(x: Tensor, dtype=None, device=None) -> Tensor:
    dtype = x.dtype if dtype is None else _dt.as_dtype(dtype)
    return full_like(x, True if dtype.is_bool else 1, dtype, device)


def asarray(obj, dtype=None, device=None, copy: bool | None = None) -> Tensor:
    """A tensor from a Tensor, NumPy array, nested sequence or Python scalar."""
    if isinstance(obj, Tensor):
        out = obj
        if dtype is not None and _dt.as_dtype(dtype) is not obj.dtype:
            out = astype(obj, dtype)
        if device is not None and as_device(device) != out.device:
            raise NotImplementedError("nabla.asarray: moving a tensor between devices comes with to_device")
        return out
    if isinstance(obj, (bool, int, float)) and not isinstance(obj, np.generic):
        target = default_dtype_for(obj) if dtype is None else _dt.as_dtype(dtype)
        if not target.is_complex:
            return scalar_tensor(obj, target, device)
    if hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray):
        obj = np.from_dlpack(obj)
    arr = host_array(obj, dtype, "asarray")
    return tensor_from_host(arr, device, copy=copy)


tensor = asarray
