"""Elementwise ops, built from tables: ``name -> (MAX function, dtype category)``."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..core import dtypes as _dt
from ..core.context import get_default_dtype
from ..core.operation import Fused
from ..core.tensor import Tensor
from . import complex_lowerings as C
from . import lowerings as L
from . import bitwise_lowerings as B
from . import division_lowerings as D
from . import transcendental_lowerings as T
from .base import BinaryOperation, UnaryOperation, broadcast_impls, broadcast_shapes, describe, flat_form, lift_same
from .casts import astype, cast_op  # noqa: F401 (astype is also this module's: the elementwise face)
from .operands import align_batched, coerce_operands, scalar_dtype

# dtype categories: which input dtypes an op accepts
_CATEGORIES = {
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


def _lowering(fn, name: str = ""):
    """A table's lowering: a MAX ``ops`` name, or a function of MAX values (nabla.ops.lowerings);
    float16 operands computed in float32 but where the op works on float16's own bits."""
    if not callable(fn):
        from max.graph import ops

        fn = getattr(ops, fn)
    return fn if name in _HALF_BITS else L.half_in_single(fn)


#: ops whose float16 result depends on float16's own representation (the next float16 after x)
_HALF_BITS = frozenset({"nextafter"})


class Unary(NamedTuple):
    """A unary op's row: everything about the op, in one place."""
    lowering: object  # a MAX ``ops`` name, or a function of MAX values (nabla.ops.lowerings)
    category: str  # the dtypes it accepts (``_CATEGORIES``)
    linear: object  # (x, y, t) -> dy for a tangent t; None: not differentiable
    out_bool: bool = False
    fused: Fused | None = None  # how the fused kernel (runtime/kernels/evaluator/fused.mojo) runs it, if it does
    complex: object = None  # its lowering on complex storage (complex_lowerings.py), if it takes complex


class Binary(NamedTuple):
    """A binary op's row: everything about the op, in one place."""
    lowering: object
    category: str
    out_bool: bool  # the result is bool (a comparison)
    swap: bool  # lowered with its operands swapped (``less`` is ``greater`` of (y, x))
    partials: object  # (x, y, out) -> (d out/dx, d out/dy); 1 and -1 stand for themselves; None: none
    fused: Fused | None = None
    complex: object = None


class _TableOp:
    """What an elementwise op made from a table's row does the same whatever its arity."""
    lift_kwargs = lift_same
    lift_broadcasts = True
    arity: int

    def __init__(self, name: str, row):
        self.name, self.row = name, row
        self.fused = row.fused  # (Operation's hook; everything else is read from the row)
        self.supports_complex = row.complex is not None

    def complex_storage_kwargs(self, kwargs):
        return {"complex_storage": True}

    def single_op_form(self, kwargs, shapes):
        return flat_form(kwargs, shapes, (bool(kwargs.get("complex_storage")),) * self.arity)


class ElementwiseUnary(_TableOp, UnaryOperation):
    arity = 1

    def out_dtype(self, dtype):
        if self.row.out_bool:
            return _dt.bool_
        return _dt.real_dtype(dtype) if self.name in _REAL_RESULT else dtype

    def check_dtype(self, x):
        if not _CATEGORIES[self.row.category](x.dtype):
            raise TypeError(f"nabla.{self.name}: expected {_CATEGORY_TEXT[self.row.category]}, got {describe(x)}")

    def maxpr(self, x, complex_storage=False):
        if complex_storage:
            return L.elementwise(self.row.complex, x, trailing=1)
        return L.elementwise(_lowering(self.row.lowering, self.name), x)

    # a real derivative scales the tangent, so one formula serves both modes; so does a complex
    # one of a holomorphic function (JAX's convention transposes without conjugating)
    def jvp_rule(self, primals, tangents, output):
        x = primals[0]
        if x.dtype.is_complex and self.name in _NONHOLOMORPHIC:
            return _NONHOLOMORPHIC[self.name][0](x, tangents[0])
        return None if self.row.linear is None else self.row.linear(x, output, tangents[0])

    def vjp_rule(self, primals, cotangent, output):
        x = primals[0]
        if x.dtype.is_complex and self.name in _NONHOLOMORPHIC:
            return [_NONHOLOMORPHIC[self.name][1](x, cotangent)]
        return [None if self.row.linear is None else self.row.linear(x, output, cotangent)]


class ElementwiseBinary(_TableOp, BinaryOperation):
    arity = 2

    def out_dtype(self, dtype):
        return _dt.bool_ if self.row.out_bool else dtype

    def check_dtype(self, dtype):
        if not _CATEGORIES[self.row.category](dtype):
            raise TypeError(f"nabla.{self.name}: expected {_CATEGORY_TEXT[self.row.category]}, got {dtype.name}")

    def maxpr(self, x, y, complex_storage=False):
        if complex_storage:
            fn = self.row.complex
        elif x.dtype == _MAX_BOOL and self.name in L.BOOL_BINARY:
            fn = L.BOOL_BINARY[self.name]
        else:
            fn = _lowering(self.row.lowering, self.name)
        return L.elementwise(fn, *((y, x) if self.row.swap else (x, y)), trailing=int(complex_storage))

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
        from .broadcasting import sum_to_like

        if self.row.partials is None:
            return [None, None]
        return [None if d is None else sum_to_like(_scale(cotangent, d), p)
                for p, d in zip(primals, self.row.partials(*primals, output))]


def _scale(t, d):
    if isinstance(d, int):
        return t if d == 1 else -t
    return t * d


_REAL_RESULT = ("abs", "real", "imag")


def _sign(x):
    return astype(x > 0, x.dtype) - astype(x < 0, x.dtype)


def _zero(x, y, t):
    return zeros_like_physical(t)  # not t * 0: an infinite tangent would give NaN


#: name -> the op's row (``Unary``): lowering, accepted dtypes, linearization (x, y, t) -> dy, whether
#: its result is bool, how the fused kernel runs it, its complex lowering
UNARY_TABLE = {
    "negative": Unary(L.negative, "numeric", lambda x, y, t: -t,
          fused=Fused(10, ints=True, wraps=True), complex=C.cnegative),
    "positive": Unary(L.identity, "numeric", lambda x, y, t: t, fused=Fused(30, ints=True), complex=C.cpositive),
    "abs": Unary("abs", "numeric", lambda x, y, t: t * _sign(x),
          fused=Fused(11, ints=True, wraps=True, signed=True, unsigned=30), complex=C.cabs),
    "sign": Unary(L.sign, "numeric", _zero, fused=Fused(25, ints=True, signed=True, unsigned=76), complex=C.csign),
    "square": Unary(L.square, "numeric", lambda x, y, t: t * (x * 2),
          fused=Fused(12, ints=True, wraps=True), complex=C.csquare),
    "reciprocal": Unary(L.reciprocal, "float", lambda x, y, t: -(t * (y * y)), fused=Fused(13), complex=C.creciprocal),
    "exp": Unary(L.exp, "float", lambda x, y, t: t * y, fused=Fused(14), complex=C.cexp),
    "expm1": Unary(T.expm1, "float", lambda x, y, t: t * (y + 1), fused=Fused(15), complex=C.cexpm1),
    "log": Unary("log", "float", lambda x, y, t: t / x, fused=Fused(16), complex=C.clog),
    "log1p": Unary("log1p", "float", lambda x, y, t: t / (x + 1), fused=Fused(17), complex=C.clog1p),
    "log2": Unary(T.log_base(2), "float", lambda x, y, t: t / (x * _LN2), complex=C.clog2, fused=Fused(74)),
    "log10": Unary(T.log_base(10), "float", lambda x, y, t: t / (x * _LN10), complex=C.clog10, fused=Fused(75)),
    "sqrt": Unary("sqrt", "float", lambda x, y, t: t / (y * 2), fused=Fused(18), complex=C.csqrt),
    "sin": Unary("sin", "float", lambda x, y, t: t * UNARY_FUNCTIONS["cos"](x), fused=Fused(19), complex=C.csin),
    "cos": Unary("cos", "float", lambda x, y, t: -(t * UNARY_FUNCTIONS["sin"](x)), fused=Fused(20), complex=C.ccos),
    "tan": Unary(T.tan, "float", lambda x, y, t: t * (y * y + 1), complex=C.ctan, fused=Fused(34)),
    "asin": Unary(T.asin, "float", lambda x, y, t: t / UNARY_FUNCTIONS["sqrt"](1 - x * x),
                  complex=C.casin, fused=Fused(35)),
    "acos": Unary(T.acos, "float", lambda x, y, t: -(t / UNARY_FUNCTIONS["sqrt"](1 - x * x)),
                  complex=C.cacos, fused=Fused(36)),
    "atan": Unary(T.atan, "float", lambda x, y, t: t / (x * x + 1), complex=C.catan, fused=Fused(37)),
    "sinh": Unary(T.sinh, "float", lambda x, y, t: t * UNARY_FUNCTIONS["cosh"](x), complex=C.csinh, fused=Fused(38)),
    "cosh": Unary(T.cosh, "float", lambda x, y, t: t * UNARY_FUNCTIONS["sinh"](x), complex=C.ccosh, fused=Fused(39)),
    "tanh": Unary(L.tanh, "float", lambda x, y, t: t * (1 - y * y), fused=Fused(21), complex=C.ctanh),
    "asinh": Unary(T.asinh, "float", lambda x, y, t: t / UNARY_FUNCTIONS["sqrt"](x * x + 1),
                   complex=C.casinh, fused=Fused(71)),
    "acosh": Unary(T.acosh, "float", lambda x, y, t: t / UNARY_FUNCTIONS["sqrt"](x * x - 1),
                   complex=C.cacosh, fused=Fused(72)),
    "atanh": Unary(T.atanh, "float", lambda x, y, t: t / (1 - x * x), complex=C.catanh, fused=Fused(73)),
    "floor": Unary(L.integral_or(L.ops.floor), "real", _zero, fused=Fused(22, ints=True)),
    "ceil": Unary(L.integral_or(L.ops.ceil), "real", _zero, fused=Fused(23, ints=True)),
    "trunc": Unary(L.integral_or(L.ops.trunc), "real", _zero, fused=Fused(24, ints=True)),
    "round": Unary(L.integral_or(L.ops.round), "numeric", _zero, fused=Fused(33, ints=True), complex=C.cround),
    "isnan": Unary(L.isnan, "numeric", None, True, fused=Fused(26, ints=True), complex=C.cisnan),
    "isinf": Unary(L.isinf, "numeric", None, True, fused=Fused(27, ints=True), complex=C.cisinf),
    "isfinite": Unary(L.isfinite, "numeric", None, True, fused=Fused(28, ints=True), complex=C.cisfinite),
    "signbit": Unary(L.signbit, "real_float", None, True, fused=Fused(32)),
    "logical_not": Unary("logical_not", "bool", None, fused=Fused(29, ints=True)),
    "conj": Unary(L.identity, "numeric", lambda x, y, t: t, fused=Fused(view="real"), complex=C.cconj),
    "real": Unary(L.identity, "numeric", lambda x, y, t: t, fused=Fused(view="real"), complex=C.creal),
    # (zeros of x's shape: x * 0 would be NaN where x is infinite or NaN)
    "imag": Unary(lambda x: L.ops.mul(L.ops.cast(L.isfinite(x), x.dtype), L.const(0, x)), "numeric", _zero, complex=C.cimag),
    "bitwise_invert": Unary(B.bitwise_invert, "integer_or_bool", None,
          fused=Fused(31, ints=True, ints_only=True, wraps=True, on_bools="logical_not")),
}
_LN2, _LN10 = math.log(2), math.log(10)


def _unit_conj(x):
    return UNARY_FUNCTIONS["conj"](UNARY_FUNCTIONS["sign"](x))  # conj(x) / |x|, 0 at 0


#: complex rules of functions that are not holomorphic: name -> (jvp (x, t), vjp (x, ct)). With JAX's
#: pairing <a, b> = Re(sum a * b), the vjp of t -> Re(a * t) is ct -> ct * a: ``grad(abs)(z) = conj(z) / |z|``
_NONHOLOMORPHIC = {
    "abs": (lambda x, t: UNARY_FUNCTIONS["real"](_unit_conj(x) * t), lambda x, ct: ct * _unit_conj(x)),
    "conj": (lambda x, t: UNARY_FUNCTIONS["conj"](t), lambda x, ct: UNARY_FUNCTIONS["conj"](ct)),
    "real": (lambda x, t: UNARY_FUNCTIONS["real"](t), lambda x, ct: astype(ct, x.dtype)),
    "imag": (lambda x, t: UNARY_FUNCTIONS["imag"](t), lambda x, ct: astype(ct, x.dtype) * -1j),
    # sign(z) = z / |z| is smooth off 0: ds = (t - s Re(conj(s) t)) / |z| (0 at 0), so abs's
    # rules above (written with sign) have correct higher derivatives
    "sign": (lambda x, t: _over_abs(x, t - UNARY_FUNCTIONS["sign"](x) * _real_as(_unit_conj(x) * t, x)),
             lambda x, ct: _over_abs(x, ct - _real_as(ct * UNARY_FUNCTIONS["sign"](x), x) * _unit_conj(x))),
}


def _real_as(z, like):
    return astype(UNARY_FUNCTIONS["real"](z), like.dtype)


def _over_abs(x, v):
    r = _real_as(UNARY_FUNCTIONS["abs"](x), x)
    return where(r == 0, 0, v / where(r == 0, 1, r))


def _pow_partials(x, y, out):
    log = UNARY_FUNCTIONS["log"]
    safe_log = where(x == 0, 0, log(where(x == 0, 1, x)))
    return y * x ** (y - 1), out * safe_log


def _select_partials(x, y, out, first_wins):
    # ties split the gradient evenly, as JAX does
    win = astype(first_wins(x, y), x.dtype) + astype(x == y, x.dtype) * 0.5
    return win, 1 - win


def _atan2_partials(y, x, out):
    r2 = x * x + y * y
    return x / r2, -(y / r2)


def _copysign_partials(x, y, out):
    flip = astype(UNARY_FUNCTIONS["signbit"](x) != UNARY_FUNCTIONS["signbit"](y), x.dtype)
    return 1 - flip * 2, None


#: name -> the op's row (``Binary``): lowering, accepted dtypes, result is bool, operands swapped,
#: partials, how the fused kernel runs it, its complex lowering
BINARY_TABLE = {
    "add": Binary("add", "numeric", False, False, lambda x, y, o: (1, 1),
          fused=Fused(40, ints=True, wraps=True), complex=C.cadd),
    "subtract": Binary(L.subtract, "numeric", False, False, lambda x, y, o: (1, -1),
          fused=Fused(41, ints=True, wraps=True), complex=C.csubtract),
    "multiply": Binary("mul", "numeric", False, False, lambda x, y, o: (y, x),
          fused=Fused(42, ints=True, wraps=True), complex=C.cmul),
    "divide": Binary("div", "float", False, False, lambda x, y, o: (1 / y, -(o / y)), fused=Fused(43), complex=C.cdiv),
    "pow": Binary(T.power, "numeric", False, False, _pow_partials, fused=Fused(66, ints=True, wraps=True),
                 complex=C.cpow),
    "floor_divide": Binary(D.floor_divide, "real", False, False, lambda x, y, o: (None, None),
          fused=Fused(58, ints=True, ints_only=True, wraps=True, signed=True, unsigned=83)),
    "remainder": Binary(D.remainder, "real", False, False, lambda x, y, o: (1, -BINARY_FUNCTIONS["floor_divide"](x, y)),
          fused=Fused(59, ints=True, ints_only=True, signed=True, unsigned=84)),
    "maximum": Binary(L.maximum, "real", False, False, lambda x, y, o: _select_partials(x, y, o, lambda a, b: a > b),
          fused=Fused(44, ints=True, signed=True, unsigned=77)),
    "minimum": Binary(L.minimum, "real", False, False, lambda x, y, o: _select_partials(x, y, o, lambda a, b: a < b),
          fused=Fused(45, ints=True, signed=True, unsigned=78)),
    "atan2": Binary(T.atan2, "real_float", False, False, _atan2_partials, fused=Fused(67)),
    "hypot": Binary(L.hypot, "real_float", False, False, lambda x, y, o: (x / o, y / o), fused=Fused(68)),
    "logaddexp": Binary(T.logaddexp, "real_float", False, False,
                  lambda x, y, o: (UNARY_FUNCTIONS["exp"](x - o), UNARY_FUNCTIONS["exp"](y - o)), fused=Fused(69)),
    "copysign": Binary(L.copysign, "real_float", False, False, _copysign_partials, fused=Fused(70)),
    "nextafter": Binary(L.nextafter, "real_float", False, False, None),
    "equal": Binary(L.equal, "any", True, False, None, fused=Fused(46, ints=True), complex=C.cequal),
    "not_equal": Binary(L.not_equal, "any", True, False, None, fused=Fused(47, ints=True), complex=C.cnot_equal),
    "greater": Binary("greater", "numeric", True, False, None,
          fused=Fused(48, ints=True, signed=True, unsigned=79), complex=C.cgreater),
    "greater_equal": Binary(L.greater_equal, "numeric", True, False, None,
          fused=Fused(49, ints=True, signed=True, unsigned=80), complex=C.cgreater_equal),
    "less": Binary("greater", "numeric", True, True, None, fused=Fused(50, ints=True, signed=True, unsigned=81),
                   complex=C.cgreater),
    "less_equal": Binary(L.greater_equal, "numeric", True, True, None,
          fused=Fused(51, ints=True, signed=True, unsigned=82), complex=C.cgreater_equal),
    "logical_and": Binary("logical_and", "bool", False, False, None, fused=Fused(52, ints=True)),
    "logical_or": Binary("logical_or", "bool", False, False, None, fused=Fused(53, ints=True)),
    "logical_xor": Binary("logical_xor", "bool", False, False, None, fused=Fused(54, ints=True)),
    "bitwise_and": Binary(B.bitwise_and, "integer_or_bool", False, False, None,
          fused=Fused(55, ints=True, ints_only=True, on_bools="logical_and")),
    "bitwise_or": Binary(B.bitwise_or, "integer_or_bool", False, False, None,
          fused=Fused(56, ints=True, ints_only=True, on_bools="logical_or")),
    "bitwise_xor": Binary(B.bitwise_xor, "integer_or_bool", False, False, None,
          fused=Fused(57, ints=True, ints_only=True, on_bools="logical_xor")),
    "bitwise_left_shift": Binary(B.left_shift, "integer", False, False, None,
          fused=Fused(64, ints=True, ints_only=True, wraps=True)),
    "bitwise_right_shift": Binary(B.right_shift, "integer", False, False, None,
          fused=Fused(65, ints=True, ints_only=True, signed=True, unsigned=85)),
}

UNARY_OPS = {name: ElementwiseUnary(name, row) for name, row in UNARY_TABLE.items()}
BINARY_OPS = {name: ElementwiseBinary(name, row) for name, row in BINARY_TABLE.items()}
# these lower through Nabla's sign-bit kernel (no MAX op reads a NaN's sign): like the kernel ops they
# run apart at first sight, on a model of their own, since MAX's interpreter binds a kernel in
# 1.6-2.8 s per process (the first float check of a conformance run paid it)
def _bits_variants(operands: int):
    """A node of each model of a sign-bit op's family (``single_op.family``): float32 and float64."""
    return lambda: [({}, [d] * operands, [(3,)] * operands) for d in ("float32", "float64")]


for _op, _operands in ((UNARY_OPS["signbit"], 1), (BINARY_OPS["copysign"], 2)):
    _op.single_op, _op.kernel_package = True, "bits"
    _op.single_op_variants = _bits_variants(_operands)




def _float_input(x: Tensor, op) -> Tensor:
    # ints and bools go to the default float, as JAX and PyTorch do
    if op.row.category == "float" and (x.dtype.is_integer or x.dtype.is_bool):
        return cast_op(x, dtype=get_default_dtype())
    return x


def _make_unary(op):
    def fn(x):
        if not isinstance(x, Tensor):
            from .creation import asarray

            x = asarray(x)
        return op(_float_input(x, op))

    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = f"Elementwise ``{op.name}`` on MAX ({_CATEGORY_TEXT[op.row.category]})."
    return fn


def _make_binary(op):
    from .creation import operand_constant

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
            from .broadcasting import broadcast_to

            shape = broadcast_shapes(xi.shape, yi.shape, op=name)
            x, y = broadcast_to(x, shape), broadcast_to(y, shape)
        return op(x, y)

    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = f"Elementwise ``{op.name}`` with broadcasting, on MAX ({_CATEGORY_TEXT[op.row.category]})."
    return fn


UNARY_FUNCTIONS = {name: _make_unary(op) for name, op in UNARY_OPS.items()}
BINARY_FUNCTIONS = {name: _make_binary(op) for name, op in BINARY_OPS.items()}
_general_pow = BINARY_FUNCTIONS["pow"]


def _pow(x, y):
    if type(y) is int and y < 0 and isinstance(x, Tensor) and (x.dtype.is_integer or x.dtype.is_bool):
        raise ValueError(f"nabla.pow: integers to negative integer powers are not allowed ({x.dtype} ** {y})")
    if type(y) is int and y >= 2 ** 31 and isinstance(x, Tensor) and x.dtype.is_integer \
            and y <= np.iinfo(x.dtype.numpy_dtype).max:
        # MAX's integer pow takes an int32 count: square and multiply (wrapping, as NumPy's)
        mul, out = BINARY_FUNCTIONS["multiply"], None
        while y:
            if y & 1:
                out = x if out is None else mul(out, x)
            y >>= 1
            if y:
                x = mul(x, x)
        return out
    # x ** 2 is x * x exactly (NumPy takes the same shortcut); as `square` it stays an elementwise
    # op that the fused first-sight kernel runs, and its derivative is the plain one
    if type(x) is Tensor and type(y) in (int, float) and y == 2 and (
            type(y) is int and not x._impl.dtype.is_bool or x._impl.dtype.is_floating):
        return UNARY_FUNCTIONS["square"](x)
    return _general_pow(x, y)


_pow.__name__ = _pow.__qualname__ = "pow"
_pow.__doc__ = _general_pow.__doc__
BINARY_FUNCTIONS["pow"] = _pow
globals().update(UNARY_FUNCTIONS)
globals().update(BINARY_FUNCTIONS)


class ComplexOp(BinaryOperation):
    """``re + 1j * im`` from real floating parts of one shape (JAX's ``lax.complex``): exact where
    arithmetic is not (``1j * inf`` is NaN), so writes through NumPy's ``x.real``/``x.imag`` keep
    the other part bit for bit."""

    name = "complex"

    def out_dtype(self, dtype):
        return _dt.complex_dtype(dtype)

    def check_dtype(self, dtype):
        if not dtype.is_floating:
            raise TypeError(f"nabla.complex: expected real floating parts, got {dtype.name}")

    def maxpr(self, re, im):
        return C.pack(re, im)

    def jvp_rule(self, primals, tangents, output):
        dre, dim = (zeros_like_physical(p) if t is None else t for p, t in zip(primals, tangents))
        return complex_op(dre, dim)

    def vjp_rule(self, primals, cotangent, output):
        # pairing Re(ct * (dre + i dim)) = Re(ct) dre - Im(ct) dim
        return [UNARY_FUNCTIONS["real"](cotangent), -UNARY_FUNCTIONS["imag"](cotangent)]


complex_op = ComplexOp()


def complex_from_parts(re, im) -> Tensor:
    """The complex array with real part ``re`` and imaginary part ``im`` (broadcast together)."""
    from .broadcasting import broadcast_physical
    from .base import broadcast_shapes

    re, im = coerce_operands(re, im, "complex")
    if not re.dtype.is_floating:
        re, im = cast_op(re, dtype=_dt.float64), cast_op(im, dtype=_dt.float64)
    batch = broadcast_shapes(re._impl.batch_shape, im._impl.batch_shape, op="complex")
    shape = batch + broadcast_shapes(re.shape, im.shape, op="complex")
    return complex_op(broadcast_physical(re, shape, len(batch)), broadcast_physical(im, shape, len(batch)))


def relu(x: Tensor) -> Tensor:
    return BINARY_FUNCTIONS["maximum"](x, 0)


__all__ = ["astype", "relu", "coerce_operands", *UNARY_FUNCTIONS, *BINARY_FUNCTIONS]


class WhereOp(BinaryOperation):
    """``cond ? x : y`` with broadcasting; ``cond`` is bool, ``x`` and ``y`` share a dtype."""

    name = "where"
    lift_kwargs = lift_same
    lift_broadcasts = True

    def abstract_eval(self, cond, x, y):
        if not cond.dtype.is_bool:
            raise TypeError(f"nabla.where: condition must be boolean, got {describe(cond)}")
        if x.dtype is not y.dtype:
            raise TypeError(f"nabla.where: branches must share a dtype here, got {describe(x, y)}")
        shape, _, bd = broadcast_impls((cond, x, y), self.name)
        return shape, x.dtype, bd

    supports_complex = True

    def complex_storage_kwargs(self, kwargs):
        return {"complex_storage": True}

    def single_op_form(self, kwargs, shapes):
        paired = bool(kwargs.get("complex_storage"))
        return flat_form(kwargs, shapes, (False, paired, paired))

    def maxpr(self, cond, x, y, complex_storage=False):
        from max.graph import ops

        if complex_storage:
            cond = ops.unsqueeze(cond, -1)
        return L.elementwise(ops.where, cond, x, y, trailing=int(complex_storage))

    def jvp_rule(self, primals, tangents, output):
        tx, ty = dense_tangents(primals[1:], tangents[1:])
        return where_op(primals[0], tx, ty)

    def vjp_rule(self, primals, cotangent, output):
        from .broadcasting import sum_to_like

        cond, x, y = primals
        zero = zeros_like_physical(cotangent)
        return [None, sum_to_like(where_op(cond, cotangent, zero), x), sum_to_like(where_op(cond, zero, cotangent), y)]


where_op = WhereOp()


class ZerosLikeOp(UnaryOperation):
    """Zeros with ``x``'s physical shape, dtype and batch dims; only ``x``'s shape is read,
    so an inf or NaN in ``x`` stays out (``x * 0`` would let it in)."""

    name = "zeros_like"
    supports_complex = True
    lift_kwargs = lift_same
    lift_broadcasts = True

    def maxpr(self, x):
        from max.graph import ops

        return ops.broadcast_to(ops.constant(0, x.dtype, x.device), x.shape)

    def jvp_rule(self, primals, tangents, output):
        return None

    def vjp_rule(self, primals, cotangent, output):
        return [None]


zeros_like_op = ZerosLikeOp()


def zeros_like_physical(x: Tensor) -> Tensor:
    """Zeros with ``x``'s physical shape, dtype and batch dims (follows ``x`` through vmap)."""
    return zeros_like_op(x)


def dense_tangents(primals, tangents) -> list[Tensor]:
    """Tangents with the missing ones (``None``) made zeros shaped like their primals."""
    return [zeros_like_physical(p) if t is None else t for p, t in zip(primals, tangents)]


def where(cond, x, y) -> Tensor:
    """Elementwise select: ``x`` where ``cond`` is true, else ``y``; broadcasts all three."""
    from .creation import asarray

    if not isinstance(cond, Tensor):
        cond = asarray(cond)
    x, y = coerce_operands(x, y, "where")
    nd = max(cond.ndim, x.ndim, y.ndim)
    if cond.batch_dims or x.batch_dims or y.batch_dims:
        from .broadcasting import pad_logical_rank

        cond, x, y = (pad_logical_rank(t, nd) if t.batch_dims else t for t in (cond, x, y))
    return where_op(cond, x, y)


__all__.append("where")
