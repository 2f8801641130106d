"""Operation ABCs: the shape/dtype rules shared by families of ops.

Shapes in ``abstract_eval`` are physical (vmap batch dims first); each ABC
translates the user's logical view into physical terms.
"""

from __future__ import annotations

import math
import numbers
import operator

import numpy as np

from ..core import dtypes as _dt
from ..core.context import get_default_dtype, get_default_int_dtype
from ..core.operation import Operation, recorded
from ..core.tensor import Tensor
from ..core.tensor_impl import TensorImpl


def as_index(x) -> int | None:
    """``x`` as an int where NumPy takes it as one for a size, a count or an axis (``operator.index``:
    a Python or NumPy integer, a 0-d integer array such as ``y.max() + 1``); None for anything else,
    bools included."""
    if type(x) is int:
        return x
    if isinstance(x, (bool, np.bool_)) or getattr(type(x), "__index__", None) is None:
        return None
    try:
        return operator.index(x)
    except TypeError:  # (an array of more than one element, or not of integers)
        return None


def describe(*impls: TensorImpl) -> str:
    return ", ".join(f"shape {tuple(i.shape)} {i.dtype.name}" for i in impls)


def normalize_axis(axis: int, ndim: int, op: str) -> int:
    if type(axis) is not int:
        index = as_index(axis)
        if index is None:
            raise TypeError(f"nabla.{op}: axis must be an integer, got {type(axis).__name__}")
        axis = index
    if not -ndim <= axis < ndim:  # (NumPy's AxisError: an IndexError and a ValueError)
        raise np.exceptions.AxisError(f"nabla.{op}: axis {axis} is out of range for a tensor of rank {ndim}")
    return int(axis) % ndim


def normalize_axes(axis, ndim: int, op: str) -> tuple[int, ...]:
    """``None`` -> every axis; int or sequence -> sorted unique non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if as_index(axis) is not None:
        return (normalize_axis(axis, ndim, op),)
    axes = tuple(normalize_axis(a, ndim, op) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"nabla.{op}: repeated axis in {tuple(axis)}")
    return tuple(sorted(axes))


def broadcast_shapes(*shapes: tuple[int, ...], op: str = "broadcast_shapes") -> tuple[int, ...]:
    if len(shapes) == 2:
        a, b = shapes
        if a == b or not b:
            return a
        if not a:
            return b
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for k, d in enumerate(s, ndim - len(s)):
            if d != 1:
                if out[k] != 1 and out[k] != d:
                    raise ValueError(
                        f"nabla.{op}: shapes {' and '.join(str(tuple(x)) for x in shapes)} cannot be broadcast together"
                    )
                out[k] = d
    return tuple(out)


def broadcast_impls(impls, op: str):
    """Physical shape of broadcasting ``impls``: batch parts and logical parts broadcast apart."""
    for i in impls:
        if i.batch_dims:
            break
    else:  # (no batch dims: the common case, asked of every select a loop records)
        shapes = [i.cached_shape for i in impls if i.cached_shape]
        if not shapes:
            return (), None, 0
        first = shapes[0]
        for s in shapes:
            if s != first:
                return broadcast_shapes(*shapes, op=op), None, 0
        return first, None, 0
    batch = broadcast_shapes(*(i.batch_shape for i in impls), op=op)
    logical = broadcast_shapes(*(i.shape for i in impls), op=op)
    return batch + logical, None, max(i.batch_dims for i in impls)


def flat_form(kwargs: dict, shapes: list, paired: tuple):
    """An elementwise op's canonical single-op form (see ``KernelOperation.single_op_form``): when
    its operands share a logical shape, each is viewed as one axis ``(n,)`` (``(n, 2)`` where
    ``paired`` marks complex storage), so one model per dtype serves every shape and rank. Keyed by
    rank, a conformance run asked for a model per rank, 0-d included (its per-element checks), and
    most were still missing a run later (each costs the detached compiler seconds). None when the
    operands broadcast."""
    logical = [s[:-1] if p else s for s, p in zip(shapes, paired)]
    if any(s != logical[0] for s in logical[1:]):
        return None
    n = math.prod(logical[0])
    return kwargs, [["n", 2] if p else ["n"] for p in paired], [(n, 2) if p else (n,) for p in paired]


def lift_same(self, kwargs, n):
    """``lift_kwargs`` of an op that maps over leading axes with its kwargs unchanged."""
    return kwargs


class UnaryOperation(Operation):
    """One tensor in, same shape out; ``out_dtype`` may change the dtype."""
    sharding_rule = "elementwise"

    shape_polymorphic = True

    def out_dtype(self, dtype):
        return dtype

    def check_dtype(self, x: TensorImpl) -> None:
        pass

    def abstract_eval(self, x: TensorImpl, **kwargs):
        self.check_dtype(x)
        return x.cached_shape, self.out_dtype(x.dtype), x.batch_dims


class BinaryOperation(Operation):
    """Two tensors of one dtype, broadcast on logical shapes; batch dims broadcast apart.

    The public wrapper casts operands to a common dtype and aligns ranks when
    their batch dims differ, so ``maxpr`` sees MAX's plain right-aligned broadcast.
    """
    sharding_rule = "elementwise"

    shape_polymorphic = True

    def out_dtype(self, dtype):
        return dtype

    def check_dtype(self, dtype) -> None:
        pass

    def abstract_eval(self, x: TensorImpl, y: TensorImpl, **kwargs):
        dtype = x.dtype
        if dtype is not y.dtype:
            raise TypeError(f"nabla.{self.name}: operands must share a dtype here, got {describe(x, y)}")
        out = OUT_DTYPES.get((self, dtype))  # (its check passed and its result's dtype, once per dtype)
        if out is None:
            self.check_dtype(dtype)
            out = OUT_DTYPES[(self, dtype)] = self.out_dtype(dtype)
        if x.batch_dims == y.batch_dims == 0:
            a, b = x.cached_shape, y.cached_shape
            return (a if a == b else broadcast_shapes(a, b, op=self.name)), out, 0
        shape, _, bd = broadcast_impls((x, y), self.name)
        return shape, out, bd


#: (binary op, operands' dtype) -> the result's dtype, where the op takes that dtype (both depend on
#: the dtype alone: asked once, where a loop's ``x + y`` asked its category at every op)
OUT_DTYPES: dict = {}


def recorded_plain_binary(op, ia, ib, cls):
    """A ``cls`` array of binary ``op`` over ``ia`` and ``ib`` (TensorImpls of one real dtype, of one
    shape or one of them 0-d), one of them pending work of its own, recorded as ``apply_binary``
    records it (a plain real op of a dtype its shape rule took before); None for anything else."""
    va, vb = ia._values, ib._values
    if len(va) != 1 or len(vb) != 1:
        return None
    v0, v1 = va[0], vb[0]
    if ia.traced or ib.traced or ia.tangents is not None or ib.tangents is not None or ia.sharding is not None \
            or ib.sharding is not None or ia.batch_dims or ib.batch_dims or v0.device is not v1.device:
        return None
    dtype = OUT_DTYPES.get((op, ia.dtype))
    if dtype is None or ib.dtype is not ia.dtype or dtype.is_complex or ia.dtype.is_complex:
        return None
    s0, s1 = v0.shape, v1.shape
    shape = s0 if s0 == s1 or not s1 else s1 if not s0 else None
    if shape is None:
        return None
    return recorded(cls, op, {}, (v0, v1), shape, dtype, v0.device)


class LogicalShapeOperation(Operation):
    """Shape manipulation; public wrappers translate logical arguments to physical kwargs,
    and the batch dims pass through untouched."""

    def out_shape(self, shape: tuple[int, ...], **kwargs) -> tuple[int, ...]:
        raise NotImplementedError

    def abstract_eval(self, x: TensorImpl, **kwargs):
        return self.out_shape(x.cached_shape, **kwargs), x.dtype, x.batch_dims


class CreationOperation(Operation):
    """No tensor inputs; ``device`` and ``dtype`` come in the kwargs."""

    def abstract_eval(self, *, shape, dtype, device, **kwargs):
        return tuple(shape), dtype, 0


# --- converting Python and NumPy values at the host boundary ------------------

def _check_shape(shape, op: str) -> tuple[int, ...]:
    single = as_index(shape)
    if single is not None:
        shape = (single,)
    try:
        shape = tuple(shape)
    except TypeError:
        raise TypeError(f"nabla.{op}: shape must be an int or a sequence of ints, got {shape!r}") from None
    sizes = tuple(as_index(d) for d in shape)
    for d in sizes:
        if d is None:
            raise TypeError(f"nabla.{op}: shape entries must be ints, got {shape!r}")
        if d < 0:
            raise ValueError(f"nabla.{op}: negative dimension in shape {shape!r}")
    return sizes


def default_dtype_for(value) -> _dt.DType:
    """The dtype a Python scalar gets on its own."""
    if isinstance(value, (bool, np.bool_)):
        return _dt.bool_
    if isinstance(value, numbers.Integral):
        return get_default_int_dtype()
    if isinstance(value, numbers.Real):
        return get_default_dtype()
    if isinstance(value, numbers.Complex):
        return _dt.complex_dtype(get_default_dtype())
    raise TypeError(f"nabla: cannot make a tensor from {type(value).__name__} {value!r}")


def accumulation_dtype(dtype: _dt.DType) -> _dt.DType:
    """The dtype sums, products and scans of ``dtype`` accumulate in: the Array API's rule (and
    NumPy's), small integers widen to the default integer of their signedness."""
    if dtype.is_bool or dtype.kind == "i":
        return _dt.result_type(dtype, get_default_int_dtype()) if not dtype.is_bool else get_default_int_dtype()
    if dtype.kind == "u":
        return _dt.uint64
    return dtype


def host_array(obj, dtype=None, op: str = "asarray") -> np.ndarray:
    """Validate and convert host data (NumPy, nested lists, scalars) to a NumPy array."""
    if isinstance(obj, np.ndarray):
        arr = obj
    else:
        try:
            arr = np.asarray(obj)
        except ValueError as e:
            raise ValueError(f"nabla.{op}: ragged or inconsistent nested sequence: {e}") from None
        if arr.dtype == object:
            raise TypeError(f"nabla.{op}: cannot make a tensor from non-numeric data {obj!r:.80}")
    if arr.dtype.kind not in "biufc":
        if isinstance(obj, np.ndarray):
            raise TypeError(f"nabla.{op}: unsupported NumPy dtype {arr.dtype} (data must be bool or numeric)")
        raise TypeError(f"nabla.{op}: Value {obj!r:.80} (NumPy dtype {arr.dtype}) is not bool or numeric data")
    if dtype is None:
        if isinstance(obj, np.ndarray) or isinstance(obj, np.generic):
            target = _dt.as_dtype(arr.dtype)
        else:
            leaves = arr.dtype.kind
            target = {"b": _dt.bool_, "i": get_default_int_dtype(), "u": get_default_int_dtype(),
                      "f": get_default_dtype(), "c": _dt.complex_dtype(get_default_dtype())}[leaves]
    else:
        target = _dt.as_dtype(dtype)
    if arr.dtype != target.numpy_dtype:
        if target.is_integer and arr.dtype.kind == "f" and not isinstance(obj, (np.ndarray, np.generic)):
            # Python ints past int64 mixed with others make NumPy infer float64: convert them exactly
            try:
                arr = np.asarray(obj, dtype=target.numpy_dtype)
            except OverflowError as e:
                raise OverflowError(f"nabla.{op}: {e} (dtype {target})") from None
        else:
            arr = arr.astype(target.numpy_dtype)
    return arr


def tensor_from_host(arr: np.ndarray, device=None, copy: bool | None = True) -> Tensor:
    """Wrap host data as a realized tensor (the host boundary)."""
    return Tensor(TensorImpl.from_host(arr, device, copy))
