"""The elementwise ops, each one row (``elementwise_rows.Unary``, ``Binary``) that registers itself, and
the elementwise ops that are not rows (``where``, ``complex``)."""

from __future__ import annotations

import math

import numpy as np

from ..core import dtypes as _dt
from ..core.operation import Fused
from ..core.tensor import Tensor
from . import bitwise_lowerings as B
from . import complex_formulas as F
from . import complex_lowerings as C
from . import division_lowerings as D
from . import lowerings as L
from . import transcendental_lowerings as T
from .base import BinaryOperation, UnaryOperation, broadcast_impls, broadcast_shapes, describe, flat_form, lift_same
from .casts import astype, cast_op  # noqa: F401 (astype is also this module's: the elementwise face)
from .elementwise_rows import (BINARY_FUNCTIONS, BINARY_OPS, BINARY_TABLE, UNARY_FUNCTIONS, UNARY_OPS,  # noqa: F401
                               UNARY_TABLE, Binary, Unary, register)
from .operands import coerce_operands  # noqa: F401 (a name of this module's face)
from .broadcasting import broadcast_physical, pad_logical_rank, sum_to_like
from .creation import asarray
from ..core.lazy_module import graph_ops as ops


def _sign(x):
    return astype(x > 0, x.dtype) - astype(x < 0, x.dtype)


def _zero(x, y, t):
    return zeros_like_physical(t)  # not t * 0: an infinite tangent would give NaN


def _unit_conj(x):
    return UNARY_FUNCTIONS["conj"](UNARY_FUNCTIONS["sign"](x))  # conj(x) / |x|, 0 at 0


#: complex rules of the functions that are not holomorphic, (jvp (x, t), vjp (x, ct)), each named in
#: its op's row. With JAX's pairing <a, b> = Re(sum a * b), the vjp of t -> Re(a * t) is ct -> ct * a:
#: ``grad(abs)(z) = conj(z) / |z|``
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


#: name -> the op's row (``Unary``): lowering, accepted dtypes, linearization (x, y, t) -> dy, whether
#: its result is bool, how the fused kernel runs it, its complex lowering or formula, its public names
for _name, _row in {
    "negative": Unary(L.negative, "numeric", lambda x, y, t: -t,
          fused=Fused(10, ints=True, wraps=True), complex=C.cnegative,
          formula=F.negative, ufuncs=("negative",), plain_on="real_float"),
    "positive": Unary(L.identity, "numeric", lambda x, y, t: t, fused=Fused(30, ints=True, bytes=True),
          complex=C.cpositive, formula=F.positive, ufuncs=("positive",), plain_on="real_float"),
    "abs": Unary("abs", "numeric", lambda x, y, t: t * _sign(x),
          fused=Fused(11, ints=True, wraps=True, signed=True, unsigned=30),
          formula=F.magnitude, ufuncs=("absolute", "fabs"), plain_on="real_float", method=True,
          real_result=True, nonholomorphic=_NONHOLOMORPHIC["abs"]),
    "sign": Unary(L.sign, "numeric", _zero, fused=Fused(25, ints=True, signed=True, unsigned=77),
          formula=F.sign, ufuncs=("sign",), plain_on="real_float",
          nonholomorphic=_NONHOLOMORPHIC["sign"]),
    "square": Unary(L.square, "numeric", lambda x, y, t: t * (x * 2),
          fused=Fused(12, ints=True, wraps=True),
          formula=F.square, ufuncs=("square",), plain_on="real_float"),
    "reciprocal": Unary(L.reciprocal, "float", lambda x, y, t: -(t * (y * y)), fused=Fused(13),
          formula=F.reciprocal, ufuncs=("reciprocal",), plain_on="real_float"),
    "exp": Unary(L.exp, "float", lambda x, y, t: t * y, fused=Fused(14),
          formula=F.exp, ufuncs=("exp",), plain_on="real_float", method=True),
    "expm1": Unary(T.expm1, "float", lambda x, y, t: t * (y + 1), fused=Fused(15), formula=F.expm1,
          ufuncs=("expm1",), plain_on="real_float"),
    "log": Unary("log", "float", lambda x, y, t: t / x, fused=Fused(16),
          formula=F.log, ufuncs=("log",), plain_on="real_float", method=True),
    "log1p": Unary("log1p", "float", lambda x, y, t: t / (x + 1), fused=Fused(17), formula=F.log1p,
          ufuncs=("log1p",), plain_on="real_float"),
    "log2": Unary(T.log_base(2), "float", lambda x, y, t: t / (x * _LN2), formula=F.log_base(2), fused=Fused(75),
          ufuncs=("log2",), plain_on="real_float"),
    "log10": Unary(T.log_base(10), "float", lambda x, y, t: t / (x * _LN10), formula=F.log_base(10), fused=Fused(76),
          ufuncs=("log10",), plain_on="real_float"),
    "sqrt": Unary("sqrt", "float", lambda x, y, t: t / (y * 2), fused=Fused(18), formula=F.sqrt,
          ufuncs=("sqrt",), plain_on="real_float", method=True),
    "sin": Unary("sin", "float", lambda x, y, t: t * UNARY_FUNCTIONS["cos"](x), fused=Fused(19), formula=F.sin,
          ufuncs=("sin",), plain_on="real_float"),
    "cos": Unary("cos", "float", lambda x, y, t: -(t * UNARY_FUNCTIONS["sin"](x)), fused=Fused(20), formula=F.cos,
          ufuncs=("cos",), plain_on="real_float"),
    "tan": Unary(T.tan, "float", lambda x, y, t: t * (y * y + 1), formula=F.tan, fused=Fused(34),
          ufuncs=("tan",), plain_on="real_float"),
    "asin": Unary(T.asin, "float", lambda x, y, t: t / UNARY_FUNCTIONS["sqrt"](1 - x * x),
                  formula=F.asin, fused=Fused(35),
          ufuncs=("arcsin", "asin"), plain_on="real_float"),
    "acos": Unary(T.acos, "float", lambda x, y, t: -(t / UNARY_FUNCTIONS["sqrt"](1 - x * x)),
                  formula=F.acos, fused=Fused(36),
          ufuncs=("arccos", "acos"), plain_on="real_float"),
    "atan": Unary(T.atan, "float", lambda x, y, t: t / (x * x + 1), formula=F.atan, fused=Fused(37),
          ufuncs=("arctan", "atan"), plain_on="real_float"),
    "sinh": Unary(T.sinh, "float", lambda x, y, t: t * UNARY_FUNCTIONS["cosh"](x), formula=F.sinh, fused=Fused(38),
          ufuncs=("sinh",), plain_on="real_float"),
    "cosh": Unary(T.cosh, "float", lambda x, y, t: t * UNARY_FUNCTIONS["sinh"](x), formula=F.cosh, fused=Fused(39),
          ufuncs=("cosh",), plain_on="real_float"),
    "tanh": Unary(L.tanh, "float", lambda x, y, t: t * (1 - y * y), fused=Fused(21), formula=F.tanh,
          ufuncs=("tanh",), plain_on="real_float", method=True),
    "asinh": Unary(T.asinh, "float", lambda x, y, t: t / UNARY_FUNCTIONS["sqrt"](x * x + 1),
                   formula=F.asinh, fused=Fused(72),
          ufuncs=("arcsinh", "asinh"), plain_on="real_float"),
    "acosh": Unary(T.acosh, "float", lambda x, y, t: t / UNARY_FUNCTIONS["sqrt"](x * x - 1),
                   formula=F.acosh, fused=Fused(73),
          ufuncs=("arccosh", "acosh"), plain_on="real_float"),
    "atanh": Unary(T.atanh, "float", lambda x, y, t: t / (1 - x * x), formula=F.atanh, fused=Fused(74),
          ufuncs=("arctanh", "atanh"), plain_on="real_float"),
    "floor": Unary(L.integral_or(lambda x: L.ops.floor(x)), "real", _zero, fused=Fused(22, ints=True),
          ufuncs=("floor",), plain_on="real_float"),
    "ceil": Unary(L.integral_or(lambda x: L.ops.ceil(x)), "real", _zero, fused=Fused(23, ints=True),
          ufuncs=("ceil",), plain_on="real_float"),
    "trunc": Unary(L.integral_or(lambda x: L.ops.trunc(x)), "real", _zero, fused=Fused(24, ints=True),
          ufuncs=("trunc",), plain_on="real_float"),
    "round": Unary(L.integral_or(lambda x: L.ops.round(x)), "numeric", _zero, fused=Fused(33, ints=True),
          complex=C.cround, formula=F.round_parts,
          ufuncs=("rint",), plain_on="real_float"),
    "isnan": Unary(L.isnan, "numeric", None, True, fused=Fused(26, ints=True),
          formula=F.isnan, ufuncs=("isnan",), plain_on="real_float"),
    "isinf": Unary(L.isinf, "numeric", None, True, fused=Fused(27, ints=True),
          formula=F.isinf, ufuncs=("isinf",), plain_on="real_float"),
    "isfinite": Unary(L.isfinite, "numeric", None, True, fused=Fused(28, ints=True),
          formula=F.complex_isfinite, ufuncs=("isfinite",), plain_on="real_float"),
    "signbit": Unary(L.signbit, "real_float", None, True, fused=Fused(32),
          ufuncs=("signbit",)),
    "logical_not": Unary("logical_not", "bool", None, fused=Fused(29, ints=True, bytes=True), ufuncs=("logical_not",),
          plain_on="bool"),
    "conj": Unary(L.identity, "numeric", lambda x, y, t: t, fused=Fused(view="real"), complex=C.cconj,
          formula=F.conj, ufuncs=("conjugate", "conj"),
          nonholomorphic=_NONHOLOMORPHIC["conj"]),
    "real": Unary(L.identity, "numeric", lambda x, y, t: t, fused=Fused(view="real"), complex=C.creal,
          formula=F.real,
          real_result=True, nonholomorphic=_NONHOLOMORPHIC["real"]),
    # (zeros of x's shape: x * 0 would be NaN where x is infinite or NaN)
    "imag": Unary(lambda x: L.ops.mul(L.ops.cast(L.isfinite(x), x.dtype), L.const(0, x)), "numeric", _zero, complex=C.cimag,
          formula=F.imag,
          real_result=True, nonholomorphic=_NONHOLOMORPHIC["imag"]),
    "bitwise_invert": Unary(B.bitwise_invert, "integer_or_bool", None,
          fused=Fused(31, ints=True, ints_only=True, wraps=True, on_bools="logical_not"),
          ufuncs=("invert", "bitwise_not", "bitwise_invert"), plain_on="integer_or_bool"),
}.items():
    register(_name, _row)
_LN2, _LN10 = math.log(2), math.log(10)


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
#: partials, how the fused kernel runs it, its complex lowering or formula, its public names
for _name, _row in {
    "add": Binary("add", "numeric", False, False, lambda x, y, o: (1, 1),
          fused=Fused(40, ints=True, wraps=True), complex=C.cadd,
          formula=F.add, ufuncs=("add",), plain_on="real", bool_lowering="logical_or"),
    "subtract": Binary(L.subtract, "numeric", False, False, lambda x, y, o: (1, -1),
          fused=Fused(41, ints=True, wraps=True), complex=C.csubtract,
          formula=F.subtract, ufuncs=("subtract",), plain_on="real"),
    "multiply": Binary("mul", "numeric", False, False, lambda x, y, o: (y, x),
          fused=Fused(42, ints=True, wraps=True),
          formula=F.multiply, ufuncs=("multiply",), plain_on="real", bool_lowering="logical_and"),
    "divide": Binary("div", "float", False, False, lambda x, y, o: (1 / y, -(o / y)), fused=Fused(43),
          formula=F.divide, ufuncs=("divide", "true_divide"), plain_on="real_float"),
    "pow": Binary(T.power, "numeric", False, False, _pow_partials, fused=Fused(66, ints=True, wraps=True, signed=True,
          unsigned=87), formula=F.power, ufuncs=("power", "pow", "float_power"), plain_on="real_float"),
    "floor_divide": Binary(D.floor_divide, "real", False, False, lambda x, y, o: (None, None),
          fused=Fused(58, ints=True, wraps=True, signed=True, unsigned=84), ufuncs=("floor_divide",),
          plain_on="integer"),
    "remainder": Binary(D.remainder, "real", False, False, lambda x, y, o: (1, -BINARY_FUNCTIONS["floor_divide"](x, y)),
          fused=Fused(59, ints=True, signed=True, unsigned=85),
          ufuncs=("remainder", "mod"), plain_on="real"),
    "maximum": Binary(L.maximum, "numeric", False, False, lambda x, y, o: _select_partials(x, y, o, lambda a, b: a > b),
          fused=Fused(44, ints=True, signed=True, unsigned=78, bytes=True), formula=F.maximum,
          ufuncs=("maximum",), plain_on="real", bool_lowering="logical_or"),
    "minimum": Binary(L.minimum, "numeric", False, False, lambda x, y, o: _select_partials(x, y, o, lambda a, b: a < b),
          fused=Fused(45, ints=True, signed=True, unsigned=79, bytes=True), formula=F.minimum,
          ufuncs=("minimum",), plain_on="real", bool_lowering="logical_and"),
    "atan2": Binary(T.atan2, "real_float", False, False, _atan2_partials, fused=Fused(67),
          ufuncs=("arctan2", "atan2"), plain_on="real_float"),
    "hypot": Binary(L.hypot, "real_float", False, False, lambda x, y, o: (x / o, y / o), fused=Fused(68),
          ufuncs=("hypot",), plain_on="real_float"),
    "logaddexp": Binary(T.logaddexp, "real_float", False, False,
                  lambda x, y, o: (UNARY_FUNCTIONS["exp"](x - o), UNARY_FUNCTIONS["exp"](y - o)), fused=Fused(69),
          ufuncs=("logaddexp",), plain_on="real_float"),
    "copysign": Binary(L.copysign, "real_float", False, False, _copysign_partials, fused=Fused(70),
          ufuncs=("copysign",)),
    "nextafter": Binary(L.nextafter, "real_float", False, False, None, fused=Fused(71, bits=True, half=88),
          ufuncs=("nextafter",)),
    "equal": Binary(L.equal, "any", True, False, None, fused=Fused(46, ints=True, bytes=True),
          formula=F.equal, ufuncs=("equal",), plain_on="any", bool_lowering=L.equal_bools),
    "not_equal": Binary(L.not_equal, "any", True, False, None, fused=Fused(47, ints=True, bytes=True),
          formula=F.not_equal, ufuncs=("not_equal",), plain_on="any", bool_lowering="logical_xor"),
    "greater": Binary("greater", "numeric", True, False, None,
          fused=Fused(48, ints=True, signed=True, unsigned=80, bytes=True),
          formula=F.greater, ufuncs=("greater",), plain_on="real", bool_lowering=L.greater_bools),
    "greater_equal": Binary(L.greater_equal, "numeric", True, False, None,
          fused=Fused(49, ints=True, signed=True, unsigned=81, bytes=True),
          formula=F.greater_equal, ufuncs=("greater_equal",), plain_on="real", bool_lowering=L.greater_equal_bools),
    "less": Binary("greater", "numeric", True, True, None,
          fused=Fused(50, ints=True, signed=True, unsigned=82, bytes=True), formula=F.less, ufuncs=("less",), plain_on="real"),
    "less_equal": Binary(L.greater_equal, "numeric", True, True, None,
          fused=Fused(51, ints=True, signed=True, unsigned=83, bytes=True),
          formula=F.less_equal, ufuncs=("less_equal",), plain_on="real"),
    "logical_and": Binary("logical_and", "bool", False, False, None, fused=Fused(52, ints=True, bytes=True),
          ufuncs=("logical_and",), plain_on="bool"),
    "logical_or": Binary("logical_or", "bool", False, False, None, fused=Fused(53, ints=True, bytes=True),
          ufuncs=("logical_or",), plain_on="bool"),
    "logical_xor": Binary("logical_xor", "bool", False, False, None, fused=Fused(54, ints=True, bytes=True),
          ufuncs=("logical_xor",), plain_on="bool"),
    "bitwise_and": Binary(B.bitwise_and, "integer_or_bool", False, False, None,
          fused=Fused(55, ints=True, ints_only=True, on_bools="logical_and"),
          ufuncs=("bitwise_and",), plain_on="integer_or_bool"),
    "bitwise_or": Binary(B.bitwise_or, "integer_or_bool", False, False, None,
          fused=Fused(56, ints=True, ints_only=True, on_bools="logical_or"),
          ufuncs=("bitwise_or",), plain_on="integer_or_bool"),
    "bitwise_xor": Binary(B.bitwise_xor, "integer_or_bool", False, False, None,
          fused=Fused(57, ints=True, ints_only=True, on_bools="logical_xor"),
          ufuncs=("bitwise_xor",), plain_on="integer_or_bool"),
    "bitwise_left_shift": Binary(B.left_shift, "integer", False, False, None,
          fused=Fused(64, ints=True, ints_only=True, wraps=True),
          ufuncs=("left_shift", "bitwise_left_shift"), plain_on="integer"),
    "bitwise_right_shift": Binary(B.right_shift, "integer", False, False, None,
          fused=Fused(65, ints=True, ints_only=True, signed=True, unsigned=86),
          ufuncs=("right_shift", "bitwise_right_shift"), plain_on="integer"),
}.items():
    register(_name, _row)


# these lower through Nabla's sign-bit kernel (no MAX op reads a NaN's sign): like the kernel ops they
# run apart at first sight, on a model of their own, since MAX's interpreter binds a kernel in
# 1.6-2.8 s per process (the first float check of a conformance run paid it)
def _bits_variants(operands: int):
    """A node of each model of a sign-bit op's family (``single_op.family``): float32 and float64."""
    return lambda: [({}, [d] * operands, [(3,)] * operands) for d in ("float32", "float64")]


for _op, _operands in ((UNARY_OPS["signbit"], 1), (BINARY_OPS["copysign"], 2)):
    _op.single_op, _op.kernel_package = True, "bits"
    _op.single_op_variants = _bits_variants(_operands)




_general_pow = BINARY_FUNCTIONS["pow"]


def _pow(x, y):
    if type(y) is int and y < 0 and isinstance(x, Tensor) and (x.dtype.is_integer or x.dtype.is_bool):
        if x.dtype.kind == "u":  # (NumPy asks the weak scalar's range first)
            raise OverflowError(f"nabla.pow: Python integer {y} out of bounds for {x.dtype}")
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
        if complex_storage:
            cond = ops.unsqueeze(cond, -1)
        return L.elementwise(ops.where, cond, x, y, trailing=int(complex_storage))

    def jvp_rule(self, primals, tangents, output):
        tx, ty = dense_tangents(primals[1:], tangents[1:])
        return where_op(primals[0], tx, ty)

    def vjp_rule(self, primals, cotangent, output):
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
    if not isinstance(cond, Tensor):
        cond = asarray(cond)
    x, y = coerce_operands(x, y, "where")
    nd = max(cond.ndim, x.ndim, y.ndim)
    if cond.batch_dims or x.batch_dims or y.batch_dims:
        cond, x, y = (pad_logical_rank(t, nd) if t.batch_dims else t for t in (cond, x, y))
    return where_op(cond, x, y)


__all__.append("where")
