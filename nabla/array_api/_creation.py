"""The standard's creation and data-type functions, with its signatures, on nabla.ops."""

from __future__ import annotations

import builtins

import numpy as np
from max import driver

from .. import ops as _ops
from ..core import dtypes as _dt, tensor_impl
from ..core.context import as_device, driver_device, get_default_dtype, get_default_int_dtype
from ..core.tensor import Tensor
from ..ops.base import broadcast_shapes as _bs, tensor_from_host
from ..ops.elementwise import BINARY_FUNCTIONS as _B, astype as _astype, where as _where
from ._dtypes import as_dtype
from ..core.graph import Value
from ..core.tensor_impl import TensorImpl
from ..ops import linalg as _la
from ..ops.broadcasting import grids as _grids


def _tensor(x, op: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"nabla.{op}: expected an array, got {type(x).__name__}")
    return x


# --- creation -----------------------------------------------------------------

def asarray(obj, /, *, dtype=None, device=None, copy=None) -> Tensor:
    dtype = as_dtype(dtype, "asarray")
    if isinstance(obj, Tensor):
        out = obj
        if dtype is not None and dtype is not obj.dtype:
            if copy is False:
                raise ValueError("nabla.asarray: copy=False but a dtype change needs a copy")
            out = _astype(obj, dtype)
        if device is not None and as_device(device) != out.device:
            if copy is False:
                raise ValueError("nabla.asarray: copy=False but a device change needs a copy")
            out = to_device(out, device)
        if copy and out is obj:
            out = _astype(obj, obj.dtype, copy=True)
        return out
    if copy is False and not hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray):
        raise ValueError("nabla.asarray: copy=False cannot wrap a Python object without copying")
    if isinstance(obj, (list, tuple)):
        obj = _flatten_tensors(obj)
    if dtype is None and isinstance(obj, (bool, int, float)) and not isinstance(obj, np.generic):
        if isinstance(obj, int) and not isinstance(obj, bool):
            info = np.iinfo(get_default_int_dtype().numpy_dtype)
            if not info.min <= obj <= info.max:
                raise OverflowError(f"nabla.asarray: {obj} does not fit the default integer dtype")
    if dtype is not None and dtype.is_integer and not isinstance(obj, (np.ndarray, Tensor)):
        arr = np.asarray(obj)
        if arr.dtype.kind in "iu" and arr.size:
            info = np.iinfo(dtype.numpy_dtype)
            if arr.max() > info.max or arr.min() < info.min:
                raise OverflowError(f"nabla.asarray: values out of range for {dtype}")
    return _ops.asarray(obj, dtype=dtype, device=device, copy=copy)


def _flatten_tensors(seq):
    """Nested sequences may hold 0-d tensors: read them at the host boundary."""
    if builtins.any(isinstance(v, Tensor) for v in seq):
        return [v.item() if isinstance(v, Tensor) else v for v in seq]
    if builtins.any(isinstance(v, (list, tuple)) for v in seq):
        return [_flatten_tensors(v) if isinstance(v, (list, tuple)) else v for v in seq]
    return seq


def arange(start, /, stop=None, step=1, *, dtype=None, device=None) -> Tensor:
    dtype = as_dtype(dtype, "arange")
    if dtype is None and builtins.any(isinstance(v, float) for v in (start, stop, step)):
        dtype = get_default_dtype()
    return _ops.arange(start, stop, step, dtype=dtype, device=device)


def empty(shape, *, dtype=None, device=None) -> Tensor:
    return zeros(shape, dtype=dtype, device=device)


def empty_like(x, /, *, dtype=None, device=None) -> Tensor:
    return zeros_like(x, dtype=dtype, device=device)


def zeros(shape, *, dtype=None, device=None) -> Tensor:
    return _ops.zeros(shape, dtype=as_dtype(dtype, "zeros"), device=device)


def ones(shape, *, dtype=None, device=None) -> Tensor:
    return _ops.ones(shape, dtype=as_dtype(dtype, "ones"), device=device)


def full(shape, fill_value, *, dtype=None, device=None) -> Tensor:
    dtype = as_dtype(dtype, "full")
    if dtype is None:
        if isinstance(fill_value, bool):
            dtype = _dt.bool_
        elif isinstance(fill_value, int):
            dtype = get_default_int_dtype()
        elif isinstance(fill_value, float):
            dtype = get_default_dtype()
    return _ops.full(shape, fill_value, dtype=dtype, device=device)


def zeros_like(x, /, *, dtype=None, device=None) -> Tensor:
    return _ops.zeros_like(_tensor(x, "zeros_like"), dtype=as_dtype(dtype, "zeros_like"), device=device)


def ones_like(x, /, *, dtype=None, device=None) -> Tensor:
    return _ops.ones_like(_tensor(x, "ones_like"), dtype=as_dtype(dtype, "ones_like"), device=device)


def full_like(x, /, fill_value, *, dtype=None, device=None) -> Tensor:
    return _ops.full_like(_tensor(x, "full_like"), fill_value, dtype=as_dtype(dtype, "full_like"), device=device)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None) -> Tensor:
    n_cols = n_rows if n_cols is None else n_cols
    dtype = as_dtype(dtype, "eye") or get_default_dtype()
    k = builtins.min(builtins.max(k, -n_rows), n_cols)  # any k beyond the matrix gives zeros alike
    return _la.identity(n_rows, n_cols, k, dtype, device)


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True) -> Tensor:
    if isinstance(start, complex) or isinstance(stop, complex):
        raise TypeError("nabla.linspace: complex endpoints need complex dtypes")
    dtype = as_dtype(dtype, "linspace") or get_default_dtype()
    if num < 0:
        raise ValueError(f"nabla.linspace: num must be non-negative, got {num}")
    div = (num - 1) if endpoint else num
    idx = _ops.arange(num, dtype=_dt.float64, device=device)
    step = (stop - start) / div if div > 0 else 0.0
    out = idx * step + float(start)
    if endpoint and num > 1:
        out = _where(_B["equal"](idx, num - 1), float(stop), out)
    return _astype(out, dtype)


def meshgrid(*arrays, indexing="xy") -> tuple[Tensor, ...]:
    dtypes = {a.dtype for a in arrays}
    if len(dtypes) > 1:
        raise TypeError(f"nabla.meshgrid: arrays must share a dtype, got {sorted(d.name for d in dtypes)}")
    return _grids(arrays, indexing)


def _band(x, k: int, lower: bool) -> Tensor:
    x = _tensor(x, "tril" if lower else "triu")
    if x.ndim < 2:
        raise ValueError(f"nabla.{'tril' if lower else 'triu'}: needs at least 2-D, got shape {x.shape}")
    return _la.tril(x, k) if lower else _la.triu(x, k)


def tril(x, /, *, k=0) -> Tensor:
    return _band(x, k, True)


def triu(x, /, *, k=0) -> Tensor:
    return _band(x, k, False)


#: DLPack's device types whose memory is an accelerator's (CUDA, ROCm)
_DLPACK_ACCELERATORS = (2, 10)


def from_dlpack(x, /, *, device=None, copy=None) -> Tensor:
    if isinstance(x, Tensor):
        return asarray(x, device=device, copy=copy)
    where = x.__dlpack_device__() if hasattr(x, "__dlpack_device__") else (1, 0)
    if int(where[0]) in _DLPACK_ACCELERATORS:
        return _from_accelerator_dlpack(x, device, copy)
    arr = np.from_dlpack(x)
    return tensor_from_host(arr, device, copy=copy if copy is not None else True)


def _from_accelerator_dlpack(x, device, copy) -> Tensor:
    """An accelerator's buffer taken as it is (copied on that device unless ``copy=False``: the
    producer may write to it later, and Nabla's tensors do not change)."""
    try:
        buf = driver.Buffer.from_dlpack(x)
    except Exception as e:  # complex dtypes, strides MAX cannot view
        reason = (str(e).splitlines() or [type(e).__name__])[0]
        raise BufferError(f"nabla.from_dlpack: cannot take {type(x).__name__} with DLPack device "
                          f"{x.__dlpack_device__()} ({reason}); move it to the host first") from None
    if copy is not False:
        buf = buf.copy()
    dtype = _dt.as_dtype(buf.dtype)
    out = Tensor(TensorImpl([Value.leaf(buf, tuple(buf.shape), dtype, buf.device)], dtype))
    return out if device is None else to_device(out, device)


def to_device(x: Tensor, device, /, *, stream=None) -> Tensor:
    """A copy of ``x`` on ``device``, buffer to buffer (MAX copies between devices; complex data
    travels as its interleaved storage). A sharded tensor is gathered first."""
    target = as_device(device)
    if target == x.device:
        return x

    impl = x._impl
    if impl.batch_dims:
        raise ValueError("nabla.to_device: a tensor with hidden vmap batch dims cannot move; return it from the "
                         "function instead")
    if impl.sharding is not None or impl.num_shards != 1:
        impl = tensor_impl.SPMD.gather(impl)
    impl.realize()
    value = impl._values[0]
    buf = value.buffer.to(driver_device(target))
    return Tensor(tensor_impl.TensorImpl([Value.leaf(buf, tuple(value.shape), value.dtype, target)], x.dtype))


# --- data types -----------------------------------------------------------------

def astype(x, dtype, /, *, copy=True, device=None) -> Tensor:
    x = _tensor(x, "astype")
    dtype = as_dtype(dtype, "astype")
    out = x
    if dtype is not x.dtype:
        out = _astype(x, dtype)
    elif copy:
        out = asarray(x, copy=True)
    if device is not None:
        out = to_device(out, device)
    return out


def broadcast_arrays(*arrays) -> list[Tensor]:
    shape = broadcast_shapes(*(a.shape for a in arrays))
    return tuple(_ops.broadcast_to(a, shape) for a in arrays)


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    return _bs(*(tuple(s) for s in shapes), op="broadcast_shapes")


def broadcast_to(x, /, shape) -> Tensor:
    return _ops.broadcast_to(_tensor(x, "broadcast_to"), tuple(shape))


__all__ = [n for n, v in list(globals().items())
           if not n.startswith("_") and callable(v) and getattr(v, "__module__", None) == __name__]
