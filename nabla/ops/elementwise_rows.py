"""An elementwise op's row (``Unary``, ``Binary``: everything about the op) and how a row becomes an
``Operation`` and a function (``register``); the rows themselves are in ``elementwise.py``."""

from __future__ import annotations

from typing import NamedTuple

from ..core import dtypes as _dt
from ..core.context import get_default_dtype
from ..core.lazy_module import graph_ops
from ..core.operation import Fused
from ..core.tensor import Tensor
from . import complex_lowerings as C
from . import lowerings as L
from .base import OUT_DTYPES, BinaryOperation, UnaryOperation, broadcast_shapes, describe, flat_form, lift_same
from .casts import cast_op
from .operands import align_batched, coerce_operands, scalar_dtype
from .broadcasting import broadcast_to, sum_to_like
from .creation import asarray, operand_constant

#: dtype categories: which input dtypes an op accepts (a row's ``category``, ``plain_on``)
CATEGORIES = {
    "any": lambda d: True,
    "numeric": lambda d: not d.is_bool,
    "real": lambda d: not d.is_bool and not d.is_complex,
    "float": lambda d: d.is_floating or d.is_complex,
    "real_float": lambda d: d.is_floating,
    "bool": lambda d: d.is_bool,
    "integer": lambda d: d.is_integer,
    "integer_or_bool": lambda d: d.is_integer or d.is_bool,
}
_CATEGORY_TEXT = {
    "any": "any dtype", "numeric": "numeric dtypes", "real": "real numeric dtypes",
    "float": "floating-point dtypes", "real_float": "real floating-point dtypes", "bool": "boolean dtypes",
    "integer": "integer dtypes", "integer_or_bool": "integer or boolean dtypes",
}


_MAX_BOOL = L.DType.bool


def _graph_function(fn):
    """A row's lowering as a function: a MAX ``ops`` name, or a function of MAX values (nabla.ops.lowerings)."""
    if not callable(fn):
        fn = getattr(graph_ops, fn)
    return fn


def _lowering(fn, fused=None):
    """A row's lowering, float16 operands computed in float32 but where the op works on float16's
    own bits (``Fused.bits``)."""
    fn = _graph_function(fn)
    return fn if fused is not None and fused.bits else L.half_in_single(fn)


class Unary(NamedTuple):
    """A unary op's row: everything about the op, in one place."""
    lowering: object  # a MAX ``ops`` name, or a function of MAX values (nabla.ops.lowerings)
    category: str  # the dtypes it accepts (``CATEGORIES``)
    linear: object  # (x, y, t) -> dy for a tangent t; None: not differentiable
    out_bool: bool = False
    fused: Fused | None = None  # how the fused kernel (runtime/kernels/evaluator/fused.mojo) runs it, if it does
    complex: object = None  # its lowering on complex storage (complex_lowerings.py), where not ``formula``'s
    formula: object = None  # its formula on (re, im) pairs (complex_formulas.py): the fused kernel runs it
    ufuncs: tuple = ()  # the NumPy ufuncs that are this op (``nabla.numpy``), by their names
    plain_on: str | None = None  # the dtypes (a category) on which NumPy's loops of those ufuncs are this
    #                              op as it is: the NumPy face records it without resolving dtypes
    array_api: bool = True  # ``nabla.array_api`` has it under its row's name
    method: bool = False  # ``Tensor`` has it as a method of its row's name
    real_result: bool = False  # a complex operand gives a real result (``abs``)
    nonholomorphic: tuple | None = None  # (jvp (x, t), vjp (x, ct)) of a complex x, where not holomorphic


class Binary(NamedTuple):
    """A binary op's row: everything about the op, in one place."""
    lowering: object
    category: str
    out_bool: bool  # the result is bool (a comparison)
    swap: bool  # lowered with its operands swapped (``less`` is ``greater`` of (y, x)); real operands only
    partials: object  # (x, y, out) -> (d out/dx, d out/dy); 1 and -1 stand for themselves; None: none
    fused: Fused | None = None
    complex: object = None
    formula: object = None
    ufuncs: tuple = ()
    plain_on: str | None = None
    array_api: bool = True
    method: bool = False
    bool_lowering: object = None  # its lowering on bool operands, where MAX has no bool kernel of ``lowering``


class _TableOp:
    """What an elementwise op made from a table's row does the same whatever its arity."""
    lift_kwargs = lift_same
    lift_broadcasts = True
    arity: int

    def __init__(self, name: str, row):
        self.name, self.row = name, row
        self.fused = row.fused  # (Operation's hook; everything else is read from the row)
        self.complex_lowering = row.complex or (C.pairwise(row.formula) if row.formula is not None else None)
        self.supports_complex = self.complex_lowering is not None

    def complex_storage_kwargs(self, kwargs):
        return {"complex_storage": True}

    def single_op_form(self, kwargs, shapes):
        return flat_form(kwargs, shapes, (bool(kwargs.get("complex_storage")),) * self.arity)


class ElementwiseUnary(_TableOp, UnaryOperation):
    arity = 1

    def out_dtype(self, dtype):
        if self.row.out_bool:
            return _dt.bool_
        return _dt.real_dtype(dtype) if self.row.real_result else dtype

    def check_dtype(self, x):
        if not CATEGORIES[self.row.category](x.dtype):
            raise TypeError(f"nabla.{self.name}: expected {_CATEGORY_TEXT[self.row.category]}, got {describe(x)}")

    def abstract_eval(self, x, **kwargs):
        out = OUT_DTYPES.get((self, x.dtype))  # (the row's check and result dtype: the dtype's alone)
        if out is None:
            self.check_dtype(x)
            out = OUT_DTYPES[(self, x.dtype)] = self.out_dtype(x.dtype)
        return x.cached_shape, out, x.batch_dims

    def maxpr(self, x, complex_storage=False):
        if complex_storage:
            return L.elementwise(self.complex_lowering, x, trailing=1)
        return L.elementwise(_lowering(self.row.lowering, self.row.fused), x)

    # a real derivative scales the tangent, so one formula serves both modes; so does a complex
    # one of a holomorphic function (JAX's convention transposes without conjugating)
    def jvp_rule(self, primals, tangents, output):
        x = primals[0]
        if x.dtype.is_complex and self.row.nonholomorphic:
            return self.row.nonholomorphic[0](x, tangents[0])
        return None if self.row.linear is None else self.row.linear(x, output, tangents[0])

    def vjp_rule(self, primals, cotangent, output):
        x = primals[0]
        if x.dtype.is_complex and self.row.nonholomorphic:
            return [self.row.nonholomorphic[1](x, cotangent)]
        return [None if self.row.linear is None else self.row.linear(x, output, cotangent)]


class ElementwiseBinary(_TableOp, BinaryOperation):
    arity = 2

    def out_dtype(self, dtype):
        return _dt.bool_ if self.row.out_bool else dtype

    def check_dtype(self, dtype):
        if not CATEGORIES[self.row.category](dtype):
            raise TypeError(f"nabla.{self.name}: expected {_CATEGORY_TEXT[self.row.category]}, got {dtype.name}")

    def maxpr(self, x, y, complex_storage=False):
        if complex_storage:  # (a formula of the pair takes its operands in their order)
            return L.elementwise(self.complex_lowering, x, y, trailing=1)
        if x.dtype == _MAX_BOOL and self.row.bool_lowering is not None:
            fn = _graph_function(self.row.bool_lowering)
        else:
            fn = _lowering(self.row.lowering, self.row.fused)
        return L.elementwise(fn, *((y, x) if self.row.swap else (x, y)))

    def jvp_rule(self, primals, tangents, output):
        if self.row.partials is None:
            return None
        out = None
        for t, d in zip(tangents, self.row.partials(*primals, output)):
            if t is not None and d is not None:
                term = _scale(t, d)
                out = term if out is None else out + term
        return out

    def vjp_rule(self, primals, cotangent, output):
        if self.row.partials is None:
            return [None, None]
        return [None if d is None else sum_to_like(_scale(cotangent, d), p)
                for p, d in zip(primals, self.row.partials(*primals, output))]


def _scale(t, d):
    if isinstance(d, int):
        return t if d == 1 else -t
    return t * d


def _float_input(x: Tensor, op) -> Tensor:
    # ints and bools go to the default float, as JAX and PyTorch do
    if op.row.category == "float" and (x.dtype.is_integer or x.dtype.is_bool):
        return cast_op(x, dtype=get_default_dtype())
    return x


def _make_unary(op):
    def fn(x):
        if not isinstance(x, Tensor):
            x = asarray(x)
        return op.apply_unary(_float_input(x, op))

    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = f"Elementwise ``{op.name}`` on MAX ({_CATEGORY_TEXT[op.row.category]})."
    return fn


def _make_binary(op):
    name = op.name

    def fn(x, y):
        tx, ty = type(x), type(y)
        if tx is Tensor and (ty is float or ty is int) and scalar_dtype(y, x._impl.dtype, name) is x._impl.dtype:
            y = operand_constant(y, x._impl.dtype, x._impl.device)  # the common `x * 0.5`
        elif tx is not Tensor or ty is not Tensor or x._impl.dtype is not y._impl.dtype:
            x, y = coerce_operands(x, y, name)
        if op.row.category == "float":
            x, y = _float_input(x, op), _float_input(y, op)
        xi, yi = x._impl, y._impl
        if (xi.batch_dims or yi.batch_dims) and xi.ndim != yi.ndim:
            x, y = align_batched(x, y)
        elif op.single_op and xi.shape != yi.shape and not xi.batch_dims and not yi.batch_dims:
            # a kernel op broadcasts apart: its model then serves every shape (see ``flat_form``),
            # where a model per pair of ranks cost a kernel bind per new pair (2.7 s)

            shape = broadcast_shapes(xi.shape, yi.shape, op=name)
            x, y = broadcast_to(x, shape), broadcast_to(y, shape)
        return op.apply_binary(x, y)

    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = f"Elementwise ``{op.name}`` with broadcasting, on MAX ({_CATEGORY_TEXT[op.row.category]})."
    return fn


#: the registered ops, by name: their rows, ``Operation`` singletons and functions
UNARY_TABLE: dict = {}
BINARY_TABLE: dict = {}
UNARY_OPS: dict = {}
BINARY_OPS: dict = {}
UNARY_FUNCTIONS: dict = {}
BINARY_FUNCTIONS: dict = {}


def register(name: str, row) -> None:
    """The elementwise op of a row (``Unary`` or ``Binary``): its ``Operation`` and its function,
    under ``name``. The faces built from the rows (``nabla.array_api``, ``nabla.numpy``'s ufuncs,
    ``Tensor``'s methods) take the ones registered before they are built."""
    unary = isinstance(row, Unary)
    table, ops, functions = (UNARY_TABLE, UNARY_OPS, UNARY_FUNCTIONS) if unary else \
        (BINARY_TABLE, BINARY_OPS, BINARY_FUNCTIONS)
    table[name] = row
    ops[name] = op = (ElementwiseUnary if unary else ElementwiseBinary)(name, row)
    functions[name] = (_make_unary if unary else _make_binary)(op)
