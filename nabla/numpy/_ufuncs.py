"""NumPy's ufuncs as objects over Nabla's elementwise ops: ``__call__`` with ``out=``, ``where=``,
``dtype=``, and the methods ``reduce``, ``accumulate``, ``reduceat``, ``outer`` and ``at``.

Types are resolved by NumPy's own ``ufunc.resolve_dtypes`` on dtypes alone (NEP 50: Python scalars are
weak), the tensor operands are cast to the loop's dtypes, and the op computes on MAX.
"""

from __future__ import annotations

import functools
import operator

import numpy as _np

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core import dtypes as _dt
from ..core.at_once import NOT_KEPT
from ..core.context import as_device
from ..core.graph import GRAPH, host_value
from ..core.tensor import Tensor
from ..core.tensor_impl import TensorImpl
from ..ops import aliasing
from ..ops.base import recorded_plain_binary
from ..ops.casts import cast_op
from ..ops.creation import full_like as _full_like, operand_constant
from ..ops.elementwise import astype as _astype, where as _where
from . import _dtypes as D
from ._items import face
from ._ndarray import ndarray
from ._ufunc_at import ORDER_FREE, repeated_indices, scatter_added


@functools.lru_cache(maxsize=8192)
def _loop(np_ufunc, types, dtype, casting="same_kind"):
    kwargs = {} if dtype is None else {"signature": (None,) * np_ufunc.nin + (dtype,) * np_ufunc.nout}
    if casting != "same_kind":  # (the rule the inputs are cast to the loop's types under: NumPy's)
        kwargs["casting"] = casting
    try:
        return np_ufunc.resolve_dtypes(types + (None,) * np_ufunc.nout, **kwargs)
    except TypeError as e:
        names = ", ".join(getattr(t, "name", getattr(t, "__name__", str(t))) for t in types)
        raise TypeError(f"nabla.numpy.{np_ufunc.__name__}: not supported for input types ({names}): {e}") from None


class OutCastingError(getattr(getattr(getattr(_np, "_core", None), "_exceptions", None), "_UFuncOutputCastingError",
                             None) or TypeError):
    """NumPy's class for a result its ``out=`` cannot take (a ``UFuncTypeError``, so a TypeError),
    with Nabla's message."""

    def __init__(self, message: str, op: str, casting: str, from_, to):
        self.message = message
        try:
            super().__init__(getattr(_np, op.partition(".")[0]), casting, from_, to, 0)
        except TypeError:  # (another NumPy's signature)
            TypeError.__init__(self, message)

    def __str__(self):
        return self.message


def write_out(out: Tensor, value: Tensor, op: str, casting: str = "same_kind") -> Tensor:
    """``out[...] = value`` as NumPy's ``out=`` does it: the casting rule checked, views kept in sync
    (a NumPy array's memory written at the host boundary)."""
    if not isinstance(out, (Tensor, _np.ndarray)):
        raise TypeError(f"nabla.numpy.{op}: out must be an array, got {type(out).__name__}")
    target = out.dtype if isinstance(out, _np.ndarray) else out.dtype.numpy_dtype
    if not _np.can_cast(value.dtype.numpy_dtype, target, casting):
        message = (f"nabla.numpy.{op}: cannot cast the result from {value.dtype.name} to the out array's "
                   f"{out.dtype.name} with casting rule {casting!r}")
        if not isinstance(getattr(_np, op.partition(".")[0], None), _np.ufunc):
            raise TypeError(message)  # (not a ufunc's: NumPy's iterator raises a plain TypeError)
        raise OutCastingError(message, op, casting, value.dtype.numpy_dtype, target)
    try:
        value = _xp.broadcast_to(value, out.shape)
    except ValueError:
        raise ValueError(f"nabla.numpy.{op}: result of shape {value.shape} does not fit out of shape "
                         f"{out.shape}") from None
    if isinstance(out, _np.ndarray):
        _np.copyto(out, value.numpy(), casting="unsafe")
        return out
    aliasing.setitem(out, ..., value if value.dtype is out.dtype else _astype(value, out.dtype))
    return out


def _as_out(out, nout: int):
    if out is None:
        return (None,) * nout
    if isinstance(out, tuple):
        if len(out) != nout:
            raise ValueError(f"nabla.numpy: out must have {nout} entries, got {len(out)}")
        return out
    return (out,)


def _is_host_date(a) -> bool:
    """Whether ``a`` is NumPy's date or duration (a scalar, or an array of kind M or m)."""
    return isinstance(a, (_np.datetime64, _np.timedelta64)) or (type(a) is _np.ndarray and a.dtype.kind in "Mm")


def _deferred(owner, u, method: str, args, kwargs):
    r = type(owner).__nabla_ufunc__(owner, u, method, *args, **kwargs)
    if r is NotImplemented:
        raise TypeError(f"nabla.numpy.{u.__name__}.{method}: not supported for {type(owner).__name__} with "
                        f"keywords {sorted(kwargs)}")
    return r


_COMPARISONS = {"equal": operator.eq, "not_equal": operator.ne, "less": operator.lt, "less_equal": operator.le,
                "greater": operator.gt, "greater_equal": operator.ge}


def _out_of_range_comparison(compare, operands):
    """NumPy 2 compares an integer array with a Python int its dtype cannot hold (``u8 < 1000``,
    ``i8 == -1000``) by value: every element is on the same side of it, so the answer is one boolean
    (the dtype's nearest bound compared with the int, in Python) spread over the array's shape."""
    for k, v in enumerate(operands):
        other = operands[1 - k]
        if type(v) is not int or not isinstance(other, Tensor) or not other.dtype.is_integer:
            continue
        info = _np.iinfo(other.dtype.numpy_dtype)
        if info.min <= v <= info.max:
            return None
        bound = int(info.max if v > info.max else info.min)  # any element compares with v as the bound does
        answer = compare(bound, v) if k else compare(v, bound)
        return type(other)(_full_like(other, answer, _dt.bool_)._impl)  # (batched like it under vmap)
    return None


#: floats a Python scalar meets as a weak scalar of the array's dtype (NEP 50)
_WEAK_FLOATS = frozenset((_dt.float32, _dt.float64))
#: integer dtypes -> the Python ints they hold (a weak int scalar in range takes the array's dtype)
_INT_RANGE = {d: (int(_np.iinfo(d.numpy_dtype).min), int(_np.iinfo(d.numpy_dtype).max))
              for d in (_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64)}
#: complex dtypes: a Python complex, float or int is a weak scalar of the array's dtype
_WEAK_COMPLEX = frozenset((_dt.complex64, _dt.complex128))


def _scalar_operand(value, dtype, device):
    """``value`` (a Python or NumPy scalar) as an operand constant of ``dtype``, where NumPy's loop
    for an array of ``dtype`` takes it so (NEP 50); None where its dtype resolution decides."""
    t = type(value)
    if _dt.NUMPY_SCALARS.get(t) is dtype:
        return operand_constant(value.item(), dtype, device)
    if dtype in _WEAK_FLOATS:
        return operand_constant(float(value), dtype, device) if t is float or t is int else None
    if dtype in _WEAK_COMPLEX:
        if t is complex:
            return operand_constant(value, dtype, device)
        return operand_constant(float(value), dtype, device) if t is float or t is int else None
    bounds = _INT_RANGE.get(dtype)
    if t is int and bounds is not None and bounds[0] <= value <= bounds[1]:
        return operand_constant(value, dtype, device)
    return None


def empty_reduction(x: Tensor, axis) -> tuple | None:
    """The axes a reduction of ``x`` over ``axis`` (None: all) takes, where one of them is empty
    (x has no elements to reduce there); None otherwise (rows of length >= 1 of an empty x too)."""
    if x.size:
        return None
    reduced = tuple(range(x.ndim)) if axis is None else tuple(
        k % max(x.ndim, 1) for k in ((axis,) if isinstance(axis, int) else axis))
    return reduced if not x.ndim or any(x.shape[k] == 0 for k in reduced) else None


def initial_alone(x: Tensor, axis, keepdims: bool, initial) -> ndarray | None:
    """A reduction of ``x`` over an empty ``axis`` that starts from ``initial``: each result is
    ``initial`` alone, in x's dtype (NumPy's reduction starts from it); None where nothing is empty."""
    reduced = empty_reduction(x, axis)
    if reduced is None:
        return None
    shape = tuple(1 if k in reduced else n for k, n in enumerate(x.shape) if keepdims or k not in reduced)
    return ndarray(_xp.full(shape, initial_in(x.dtype, initial), dtype=x.dtype, device=x.device)._impl)


def initial_in(dtype, initial):
    """``initial`` in a reduction's ``dtype``, as NumPy's reduction starts from it (a cast)."""
    return _np.asarray(initial).astype(dtype.numpy_dtype)[()]


def recorded_over_pending(op, a, b, dtypes):
    """``op(a, b)`` recorded directly where an operand is pending work of its own (not a slice, not a
    constant), which no op at once takes: two arrays of one dtype (of ``dtypes``) and one shape, or
    an array and a Python or NumPy scalar it takes as ``_scalar_operand`` says (NEP 50); None for
    anything else (``apply_binary`` records it, after asking what such an operand always refuses:
    a third of a recorded ``x + y``'s ~2.7 us)."""
    if type(a) is ndarray:
        ia = a._impl
        if type(b) is ndarray:
            ib = b._impl
            n0, n1 = ia._values[0].node, ib._values[0].node
            if (n0 is None or not n0.inputs or n0.op.index_kwarg is not None) \
                    and (n1 is None or not n1.inputs or n1.op.index_kwarg is not None):
                return None  # (neither is pending work of its own: asked of realized data first)
            if ia.dtype is not ib.dtype or ia.cached_shape != ib.cached_shape \
                    or (dtypes is not None and ia.dtype not in dtypes):
                return None
            return recorded_plain_binary(op, ia, ib, ndarray)
        if _pending_work(ia) and (dtypes is None or ia.dtype in dtypes):
            c = _scalar_operand(b, ia.dtype, ia._values[0].device)
            return None if c is None else recorded_plain_binary(op, ia, c._impl, ndarray)
    elif type(b) is ndarray:
        ib = b._impl
        if _pending_work(ib) and (dtypes is None or ib.dtype in dtypes):
            c = _scalar_operand(a, ib.dtype, ib._values[0].device)
            return None if c is None else recorded_plain_binary(op, c._impl, ib, ndarray)
    return None


def _pending_work(impl) -> bool:
    """Whether ``impl``'s one value is pending work of its own (a node over inputs, not a slice)."""
    values = impl._values
    if len(values) != 1:
        return False
    node = values[0].node
    return node is not None and bool(node.inputs) and node.op.index_kwarg is None


def plain_operands(a, b, dtypes=None):
    """``(a, b)`` as an op takes them without NumPy's dtype resolution: two arrays of one dtype (of
    ``dtypes``, where given), or an array and a Python number its dtype takes (a weak scalar, NEP
    50) or a NumPy scalar of its dtype, as a constant; no batch dims. None for anything else."""
    if type(a) is ndarray:
        ia = a._impl
        dtype = ia.dtype
        if ia.batch_dims or (dtypes is not None and dtype not in dtypes):
            return None
        if type(b) is ndarray:
            ib = b._impl
            return (a, b) if ib.dtype is dtype and not ib.batch_dims else None
        c = _scalar_operand(b, dtype, ia.device)
        return None if c is None else (a, c)
    if type(b) is ndarray:
        ib = b._impl
        if ib.batch_dims or (dtypes is not None and ib.dtype not in dtypes):
            return None
        c = _scalar_operand(a, ib.dtype, ib.device)
        return None if c is None else (c, b)
    return None


def promoted_operands(a, b, dtypes, np_ufunc, loops: dict):
    """``(a, b)`` cast to NumPy's float or complex loop for them, where that loop is one of ``dtypes``
    and takes both inputs and gives its result in one dtype (``int_array * 0.5``, ``int_array / 2``,
    ``float32_array + int32_array``, ``complex_array + float_array``): an array of another dtype
    becomes a cast, a Python scalar a constant of the loop's dtype. ``loops`` keeps what NumPy resolved per pair of operand kinds (its
    resolution costs more than the op's recording). None for anything else (the general path)."""
    ka, kb = _operand_kind(a), _operand_kind(b)
    if ka is None or kb is None or (type(a) is not ndarray and type(b) is not ndarray):
        return None
    target = loops.get((ka, kb), False)
    if target is False:
        target = None
        try:
            resolved = np_ufunc.resolve_dtypes((D.weak_type(a), D.weak_type(b), None))
        except TypeError:  # (the general path says why)
            resolved = None
        if resolved is not None and resolved[0] == resolved[1] == resolved[2] and resolved[0].kind in "fc":
            t = _dt.as_dtype(resolved[0])
            target = t if t in dtypes else None
        if len(loops) >= 256:
            loops.clear()
        loops[(ka, kb)] = target
    if target is None:
        return None
    device = (a if type(a) is ndarray else b)._impl.device
    return _in_loop(a, target, device), _in_loop(b, target, device)


def _operand_kind(x):
    """A face array's dtype name (no batch dims), or a Python float, int or bool's type; None else."""
    t = type(x)
    if t is ndarray:
        impl = x._impl
        return None if impl.batch_dims else impl.dtype.name
    return t if t is float or t is int or t is bool else None


def _in_loop(x, target, device):
    if type(x) is not ndarray:
        return operand_constant(float(x), target, device)
    return x if x._impl.dtype is target else cast_op.apply_unary(x, {"dtype": target})


def _host_numbers(args):
    """Python floats (or ints of int64's range), all of one kind, as realized 0-d host arrays of
    NumPy's default dtype for them (float64, int64), as ``asarray`` makes them without its generality:
    a loop's ``np.sin(t)``, ``np.maximum(a, b)`` over Python numbers (~10 us through the general path,
    ~2 at once); None for anything else."""
    kind = type(args[0])
    if kind is float:
        dtype = _dt.float64
    elif kind is int:
        dtype = _dt.int64
    else:
        return None
    for a in args:
        if type(a) is not kind or (kind is int and not -(1 << 63) <= a < 1 << 63):
            return None
    device = as_device(None)
    if not device.is_host:
        return None
    return tuple(ndarray(TensorImpl([host_value(None, (), dtype, device, dtype.numpy_dtype.type(a), owned=False)],
                                    dtype, pending=False)) for a in args)


def plain_binary(op, dtypes, np_ufunc=None):
    """The ufunc of core ``op`` on operands ``plain_operands`` takes as they are, or (given NumPy's
    ufunc) cast to a float loop of ``dtypes`` (``promoted_operands``): the result is what the general
    path gives, recorded without its dtype resolution (``x + y`` in a loop is one op); None for
    anything else."""
    loops: dict = {}

    def fast(a, b):
        scalars = GRAPH.engine.scalars
        if (not a._impl.cached_shape and (type(b) is not ndarray or not b._impl.cached_shape)) if type(a) is ndarray \
                else (type(b) is ndarray and not b._impl.cached_shape):
            # (two host scalars: computed at once, as NumPy's scalars are)
            out = None if scalars is None else scalars.binary(op, a, b, dtypes)
        else:  # (an op at once over small realized data and slices of it)
            out = None if scalars is None else scalars.small_binary(op, a, b, dtypes)
        if out is not None and out is not NOT_KEPT:
            return out
        kept = out is None  # (NOT_KEPT: none kept for these operands, and the recording does not ask again)
        if kept:  # (an operand that is pending work of its own: no op at once takes it)
            out = recorded_over_pending(op, a, b, dtypes)
            if out is not None:
                return out
        pair = plain_operands(a, b, dtypes)
        if pair is None:
            pair = None if np_ufunc is None else promoted_operands(a, b, dtypes, np_ufunc, loops)
            if pair is None:
                return None
            kept = True  # (other operands: cast)
        return op.apply_binary(pair[0], pair[1], None, kept)

    def into(a, b) -> bool:
        """``a op= b`` into a's base's memory at once (``aliasing.op_in_place``), a a view of it;
        False where it is not."""
        pair = plain_operands(a, b, dtypes)
        return pair is not None and pair[0] is a and aliasing.op_in_place(op, a, pair[1])

    fast.into = into
    return fast


def plain_unary(op, dtypes):
    """The ufunc of core ``op`` on one array of ``dtypes``, no batch dims (see ``plain_binary``)."""
    def fast(a):
        if type(a) is ndarray:
            ia = a._impl
            if not ia.cached_shape:
                scalars = GRAPH.engine.scalars  # (a host scalar: computed at once)
                out = None if scalars is None else scalars.unary(op, a, dtypes)
                if out is not None:
                    return out
            if ia.dtype in dtypes and not ia.batch_dims:
                return op.apply_unary(a)
        return None

    return fast


class ufunc:
    """A NumPy-style universal function computing on MAX (``reduceat`` is bound by ``_methods.bind``)."""

    #: the op for operands that need no dtype resolution (``plain_binary``), or None
    _plain = None

    def __init__(self, name: str, fn, np_ufunc, *, reducer=None, accumulator=None):
        self.__name__ = name
        self._fn = fn
        self._np = np_ufunc
        self.nin, self.nout = np_ufunc.nin, np_ufunc.nout
        self.nargs = self.nin + self.nout
        self.identity = np_ufunc.identity
        self._reducer = reducer
        self._accumulator = accumulator
        self.__doc__ = f"NumPy's ``{np_ufunc.__name__}`` on Nabla arrays (lazy, on MAX)."

    def __repr__(self) -> str:
        return f"<ufunc '{self.__name__}' (nabla.numpy)>"

    def __call__(self, *args, out=None, where=True, dtype=None, casting="same_kind", **kwargs):
        plain = self._plain
        if plain is not None and out is None and where is True and dtype is None and not kwargs \
                and len(args) == self.nin:
            r = plain(*args)
            if r is not None:
                return r
            held = _host_numbers(args)
            if held is not None:  # (``np.sin(t)`` of a Python float: a host scalar, computed at once)
                r = plain(*held)
                if r is not None:
                    return r
        if any(_is_host_date(a) for a in args):  # NumPy's dates and durations: the face's date arrays
            args = tuple(face().asarray(a) if _is_host_date(a) else a for a in args)
        for a in args:
            if hasattr(type(a), "__nabla_ufunc__"):  # masked arrays, dates: the ufunc of this name for them
                given = {k: v for k, v in (("out", out), ("where", where), ("dtype", dtype))
                         if v is not (True if k == "where" else None)}
                return _deferred(a, self, "__call__", args, {**given, **kwargs})
        kwargs.pop("order", None)
        kwargs.pop("subok", None)
        if kwargs:
            raise TypeError(f"nabla.numpy.{self.__name__}: unsupported keyword(s) {sorted(kwargs)}")
        if len(args) > self.nin:
            if out is not None:
                raise TypeError(f"nabla.numpy.{self.__name__}: out given both by position and by keyword")
            out = args[self.nin:] if len(args) > self.nin + 1 else args[self.nin]
            args = args[:self.nin]
        if len(args) != self.nin:
            raise TypeError(f"nabla.numpy.{self.__name__}: takes {self.nin} input(s), got {len(args)}")
        operands = [D.operand(a, self.__name__) for a in args]
        compare = _COMPARISONS.get(self.__name__)
        settled = None if compare is None else _out_of_range_comparison(compare, operands)
        if settled is not None:
            results = (settled,)
        else:
            results = self._compute(operands, dtype, casting)
        outs = _as_out(out, self.nout)
        if where is not True:
            mask = D.asarray(where, op=self.__name__)
            results = tuple(_where(mask, r, o if o is not None else _xp.zeros_like(r))
                            for r, o in zip(results, outs))
        results = tuple(r if o is None else write_out(o, r, self.__name__, casting) for r, o in zip(results, outs))
        return results if self.nout > 1 else results[0]

    def _compute(self, operands, dtype, casting="same_kind") -> tuple:
        if not any(isinstance(a, Tensor) for a in operands):  # all Python scalars: NumPy's default dtypes
            operands[0] = D.asarray(operands[0], op=self.__name__)
        dt = None if dtype is None else _np.dtype(D.to_nabla(dtype, self.__name__).numpy_dtype)
        loop = _loop(self._np, tuple(D.weak_type(a) for a in operands), dt, casting)
        inputs = [D.cast(a, loop[i]) for i, a in enumerate(operands)]
        results = self._fn(*inputs)
        results = results if isinstance(results, tuple) else (results,)
        return tuple(r if r.dtype.numpy_dtype == loop[self.nin + i] else _astype(r, _dt.as_dtype(loop[self.nin + i]))
                     for i, r in enumerate(results))

    # --- methods --------------------------------------------------------------------------------------
    def _binary_only(self, method: str):
        if self.nin != 2 or self.nout != 1:
            raise ValueError(f"nabla.numpy.{self.__name__}.{method}: only binary ufuncs have {method}")

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
        self._binary_only("reduce")
        if hasattr(type(array), "__nabla_ufunc__"):
            return _deferred(array, self, "reduce", (array,), {"axis": axis, **({"dtype": dtype} if dtype else {})})
        x = D.asarray(array, op=f"{self.__name__}.reduce")
        if dtype is not None:
            x = _astype(x, D.to_nabla(dtype, f"{self.__name__}.reduce"))
        axes = tuple(range(x.ndim)) if axis is None else axis
        if where is not True:
            fill = self.identity if initial is None else initial
            if fill is None:
                raise ValueError(f"nabla.numpy.{self.__name__}.reduce: where= needs initial= (no identity)")
            x = _where(D.asarray(where, op="reduce"), x, _xp.full_like(x, fill))
        if initial is not None and self.identity is None:
            r = initial_alone(x, axes, keepdims, initial)
            if r is not None:
                return r if out is None else write_out(out, r, f"{self.__name__}.reduce")
        kept = self._in_dtype(x, dtype)
        if x.dtype.is_bool and self.__name__ in ("maximum", "minimum", "fmax", "fmin") and x.size:
            # (bool extremes: any and all, where the standard's max and min take numbers only)
            r = (_xp.any if self.__name__ in ("maximum", "fmax") else _xp.all)(x, axis=axes, keepdims=keepdims)
        elif self._reducer is not None and kept is not None:
            r = self._reducer(x, axis=axes, keepdims=keepdims, **kept)
        else:
            r = self._fold(self._as_loop_dtype(x), axes, keepdims)
        if initial is not None:  # (NumPy's reduction starts from ``initial`` in its own dtype)
            r = self(r, initial_in(r.dtype, initial))
        return r if out is None else write_out(out, r, f"{self.__name__}.reduce")

    def _in_dtype(self, x: Tensor, dtype) -> dict | None:
        """The reducer's or scan's ``dtype`` keyword where one was asked: ``add`` and ``multiply``
        widen small integers and bools as ``sum`` does, unless told a dtype (``np.add.reduce(a,
        dtype=np.int8)`` wraps in int8); None where the ufunc's own fold takes it (told bool: or
        and and, which ``sum`` and ``prod`` do not take)."""
        if dtype is None or self.__name__ not in ("add", "multiply"):
            return {}
        return None if x.dtype.is_bool else {"dtype": x.dtype}

    def _as_loop_dtype(self, x: Tensor) -> Tensor:
        """Reductions and scans keep one dtype throughout: NumPy's loop output for (x, x)."""
        loop = _loop(self._np, (x.dtype.numpy_dtype,) * 2, None)
        return D.cast(x, loop[-1])

    def _fold(self, x: Tensor, axes, keepdims: bool) -> Tensor:
        """Associative ufuncs reduce by halving (log2(n) whole-array steps); the others fold left, as NumPy."""
        axes = (axes,) if isinstance(axes, int) else tuple(a % x.ndim for a in axes)
        for a in sorted(axes, reverse=True):
            if x.shape[a] == 0:
                if self.identity is None:
                    raise ValueError(f"nabla.numpy.{self.__name__}.reduce: zero-size axis and no identity")
                x = _xp.full(x.shape[:a] + x.shape[a + 1:], self.identity, dtype=x.dtype)
                x = _xp.expand_dims(x, axis=a)
            if self.__name__ not in _ASSOCIATIVE:
                x = self._left_fold(x, a)
            while x.shape[a] > 1:
                n = x.shape[a]
                half = n // 2
                lo = D.axis_range(x, a, 0, half)
                hi = D.axis_range(x, a, half, 2 * half)
                folded = self._fn(lo, hi)
                x = folded if n % 2 == 0 else _xp.concat([folded, D.axis_range(x, a, 2 * half, n)], axis=a)
            if not keepdims:
                x = _xp.squeeze(x, axis=a)
        return x

    def accumulate(self, array, axis=0, dtype=None, out=None):
        self._binary_only("accumulate")
        if hasattr(type(array), "__nabla_ufunc__"):
            return _deferred(array, self, "accumulate", (array,), {"axis": axis, **({"dtype": dtype} if dtype else {})})
        x = D.asarray(array, op=f"{self.__name__}.accumulate")
        if dtype is not None:
            x = _astype(x, D.to_nabla(dtype, f"{self.__name__}.accumulate"))
        kept = self._in_dtype(x, dtype)
        r = None if self._accumulator is None or kept is None else self._accumulator(x, axis=axis, **kept)
        if r is None:
            r = self._scan(self._as_loop_dtype(x), axis % x.ndim)
        return r if out is None else write_out(out, r, f"{self.__name__}.accumulate")

    def _left_fold(self, x: Tensor, a: int) -> Tensor:
        n = x.shape[a]
        if n <= 1:
            return x
        r = D.axis_range(x, a, 0, 1)
        for i in range(1, n):
            r = self._fn(r, D.axis_range(x, a, i, i + 1))
        return r

    def _scan(self, x: Tensor, a: int) -> Tensor:
        """Inclusive scan by doubling (Hillis and Steele, 1986) for associative ufuncs; left to right else."""
        n = x.shape[a]
        if self.__name__ == "subtract" and n > 1:
            # (x0 - x1 - x2 ... is x0 + (-x1) + (-x2) ... bit for bit, wrapping integers too: a
            # negation is exact, and a running sum takes its values in order, as NumPy's accumulate;
            # one scan, where an op per element made 16,000 elements 4.6 s of a first call)
            tail = D.axis_range(x, a, 1, n)
            return _xp.cumulative_sum(_xp.concat([D.axis_range(x, a, 0, 1), -tail], axis=a), axis=a, dtype=x.dtype)
        if self.__name__ not in _ASSOCIATIVE:
            parts = [D.axis_range(x, a, 0, 1)] if n else []
            for i in range(1, n):
                parts.append(self._fn(parts[-1], D.axis_range(x, a, i, i + 1)))
            return _xp.concat(parts, axis=a) if parts else x
        k = 1
        while k < n:
            head = D.axis_range(x, a, 0, k)
            x = _xp.concat([head, self._fn(D.axis_range(x, a, k, n), D.axis_range(x, a, 0, n - k))], axis=a)
            k *= 2
        return x

    def outer(self, A, B, **kwargs):
        self._binary_only("outer")
        if hasattr(type(A), "__nabla_ufunc__") or hasattr(type(B), "__nabla_ufunc__"):
            return _deferred(A if hasattr(type(A), "__nabla_ufunc__") else B, self, "outer", (A, B), kwargs)
        a = D.operand(A, f"{self.__name__}.outer")
        b = D.operand(B, f"{self.__name__}.outer")
        a = D.asarray(a) if not isinstance(a, Tensor) else a
        b = D.asarray(b) if not isinstance(b, Tensor) else b
        return self(_reshape(a, a.shape + (1,) * b.ndim), b, **kwargs)

    def at(self, a, indices, b=None):
        """Unbuffered in-place ``a[indices] = ufunc(a[indices], b)``: repeated indices all count for add and
        subtract (a scatter-add); other ufuncs take indices without repeats."""
        name = f"{self.__name__}.at"
        if not isinstance(a, Tensor):
            raise TypeError(f"nabla.numpy.{name}: the target must be a nabla array")
        parts = indices if isinstance(indices, tuple) else (indices,)
        basic = all(isinstance(i, (int, slice)) or i is None or i is Ellipsis for i in parts)
        if self.__name__ in ("add", "subtract") and not basic:
            b = D.asarray(b, op=name)
            b = b if self.__name__ == "add" else -b
            aliasing.setitem(a, ..., scatter_added(a, indices, b, name))
            return None
        groups = None if basic else repeated_indices(a, parts)
        if groups is not None:  # repeated indices: each occurrence applies in turn, as NumPy's
            flat, shape, order, starts, rank = groups
            rest = a.shape[len(parts):]
            values = None if b is None else _reshape(_xp.broadcast_to(D.asarray(b, op=name), shape + rest), (-1,) + rest)
            if values is not None and self.__name__ in ORDER_FREE:
                # (an order-free op: each index's values reduced together, then one op per index,
                # where a round per repeat made a loop of ~23 us per element of a group-by max)
                grouped = self.reduceat(values[_xp.asarray(order)], starts, axis=0)
                key = tuple(_xp.asarray(f[order[starts]]) for f in flat)
                aliasing.setitem(a, key, self(a[key], grouped))
                return None
            for at in (_np.flatnonzero(rank == k) for k in range(int(rank.max()) + 1)):
                key = tuple(_xp.asarray(f[at]) for f in flat)
                current = a[key]
                new = self(current) if self.nin == 1 else self(current, values[_xp.asarray(at)])
                aliasing.setitem(a, key, new)
            return None
        current = a[indices]
        new = self(current) if self.nin == 1 else self(current, b)
        aliasing.setitem(a, indices, new)
        return None


#: ufuncs whose reduction may regroup: (a op b) op c == a op (b op c)
_ASSOCIATIVE = frozenset({"add", "multiply", "maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or",
                          "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "hypot", "logaddexp",
                          "logaddexp2", "gcd", "lcm"})
