"""The tests' one database of ops: each op's NumPy reference (``REFERENCE``, keyed by the op's
name in ``nabla``) and the inputs its domain admits (``UNARY_CASES``, ``BINARY_CASES``,
``REDUCE_CASES``: name -> (Nabla function, NumPy reference, inputs)). Tests over ops draw from here:
values against NumPy on every path, the fused kernel's opcodes, the standard's special values,
complex inputs, vmap against a loop."""

import numpy as np

import nabla as nb

#: op name -> NumPy's function for it (where NumPy's name differs, NumPy's function under ours)
REFERENCE = {
    # unary
    "abs": np.abs, "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin, "asinh": np.arcsinh,
    "atan": np.arctan, "atanh": np.arctanh, "bitwise_invert": np.invert, "ceil": np.ceil, "conj": np.conj,
    "cos": np.cos, "cosh": np.cosh, "exp": np.exp, "expm1": np.expm1, "floor": np.floor, "imag": np.imag,
    "isfinite": np.isfinite, "isinf": np.isinf, "isnan": np.isnan, "log": np.log, "log10": np.log10,
    "log1p": np.log1p, "log2": np.log2, "logical_not": np.logical_not, "negative": np.negative,
    "positive": np.positive, "real": np.real, "reciprocal": np.reciprocal, "round": np.round, "sign": np.sign,
    "signbit": np.signbit, "sin": np.sin, "sinh": np.sinh, "sqrt": np.sqrt, "square": np.square, "tan": np.tan,
    "tanh": np.tanh, "trunc": np.trunc,
    # binary
    "add": np.add, "atan2": np.arctan2, "bitwise_and": np.bitwise_and, "bitwise_left_shift": np.left_shift,
    "bitwise_or": np.bitwise_or, "bitwise_right_shift": np.right_shift, "bitwise_xor": np.bitwise_xor,
    "copysign": np.copysign, "divide": np.divide, "equal": np.equal, "floor_divide": np.floor_divide,
    "greater": np.greater, "greater_equal": np.greater_equal, "hypot": np.hypot, "less": np.less,
    "less_equal": np.less_equal, "logaddexp": np.logaddexp, "logical_and": np.logical_and,
    "logical_or": np.logical_or, "logical_xor": np.logical_xor, "maximum": np.maximum, "minimum": np.minimum,
    "multiply": np.multiply, "nextafter": np.nextafter, "not_equal": np.not_equal, "pow": np.power,
    "remainder": np.remainder, "subtract": np.subtract, "matmul": np.matmul, "vecdot": np.vecdot,
    # reductions
    "sum": np.sum, "prod": np.prod, "mean": np.mean, "max": np.max, "min": np.min,
}


R = np.random.default_rng(42)


def f32(*shape, lo=-2.0, hi=2.0):
    return R.uniform(lo, hi, shape).astype(np.float32)


def pos(*shape):
    return R.uniform(0.5, 3.0, shape).astype(np.float32)


def ints(*shape):
    return R.integers(-5, 6, shape).astype(np.int64)


def bools(*shape):
    return R.integers(0, 2, shape).astype(bool)


# name -> (nabla fn, numpy fn, list of input builders)
UNARY_CASES = {
    "negative": (nb.negative, REFERENCE["negative"], [f32(3, 4), ints(5)]),
    "abs": (nb.abs, REFERENCE["abs"], [f32(3, 4), ints(5)]),
    "exp": (nb.exp, REFERENCE["exp"], [f32(2, 3)]),
    "log": (nb.log, REFERENCE["log"], [pos(4)]),
    "sqrt": (nb.sqrt, REFERENCE["sqrt"], [pos(2, 2)]),
    "sin": (nb.sin, REFERENCE["sin"], [f32(6)]),
    "cos": (nb.cos, REFERENCE["cos"], [f32(6)]),
    "tanh": (nb.tanh, REFERENCE["tanh"], [f32(2, 5)]),
    "floor": (nb.floor, REFERENCE["floor"], [f32(7) * 3]),
    "ceil": (nb.ceil, REFERENCE["ceil"], [f32(7) * 3]),
    "logical_not": (nb.logical_not, REFERENCE["logical_not"], [bools(4)]),
}

UNARY_CASES.update({
    "positive": (nb.positive, REFERENCE["positive"], [f32(3), ints(3)]),
    "sign": (nb.sign, REFERENCE["sign"], [f32(4), ints(4)]),
    "square": (nb.square, REFERENCE["square"], [f32(3), ints(3)]),
    "reciprocal": (nb.reciprocal, REFERENCE["reciprocal"], [pos(3)]),
    "expm1": (nb.expm1, REFERENCE["expm1"], [f32(3)]),
    "log1p": (nb.log1p, REFERENCE["log1p"], [pos(3)]),
    "log2": (nb.log2, REFERENCE["log2"], [pos(3)]),
    "log10": (nb.log10, REFERENCE["log10"], [pos(3)]),
    "tan": (nb.tan, REFERENCE["tan"], [f32(3)]),
    "asin": (nb.asin, REFERENCE["asin"], [f32(3, lo=-1, hi=1)]),
    "acos": (nb.acos, REFERENCE["acos"], [f32(3, lo=-1, hi=1)]),
    "atan": (nb.atan, REFERENCE["atan"], [f32(3) * 3]),
    "sinh": (nb.sinh, REFERENCE["sinh"], [f32(3)]),
    "cosh": (nb.cosh, REFERENCE["cosh"], [f32(3)]),
    "asinh": (nb.asinh, REFERENCE["asinh"], [f32(3)]),
    "acosh": (nb.acosh, REFERENCE["acosh"], [pos(3) + 1]),
    "atanh": (nb.atanh, REFERENCE["atanh"], [f32(3, lo=-0.9, hi=0.9)]),
    "trunc": (nb.trunc, REFERENCE["trunc"], [f32(4) * 3]),
    "round": (nb.round, REFERENCE["round"], [f32(4) * 3]),
    "isnan": (nb.isnan, REFERENCE["isnan"], [f32(3)]),
    "isinf": (nb.isinf, REFERENCE["isinf"], [f32(3)]),
    "isfinite": (nb.isfinite, REFERENCE["isfinite"], [f32(3)]),
    "signbit": (nb.signbit, REFERENCE["signbit"], [f32(3)]),
    "conj": (nb.conj, REFERENCE["conj"], [f32(3)]),
    "real": (nb.real, REFERENCE["real"], [f32(3)]),
    "imag": (nb.imag, REFERENCE["imag"], [f32(3)]),
    "bitwise_invert": (nb.bitwise_invert, REFERENCE["bitwise_invert"], [ints(4)]),
})

BINARY_CASES = {
    "add": (nb.add, REFERENCE["add"], [(f32(3, 4), f32(4)), (ints(2, 3), ints(2, 1))]),
    "subtract": (nb.subtract, REFERENCE["subtract"], [(f32(3, 1), f32(1, 4)), (ints(3), ints(3))]),
    "multiply": (nb.multiply, REFERENCE["multiply"], [(f32(2, 3), f32(2, 3)), (ints(4), ints(4))]),
    "divide": (nb.divide, REFERENCE["divide"], [(f32(3, 4), pos(3, 4))]),
    "pow": (nb.pow, REFERENCE["pow"], [(pos(5), f32(5))]),
    "maximum": (nb.maximum, REFERENCE["maximum"], [(f32(3, 4), f32(4)), (ints(3), ints(3))]),
    "minimum": (nb.minimum, REFERENCE["minimum"], [(f32(3, 4), f32(3, 1))]),
    "equal": (nb.equal, REFERENCE["equal"], [(ints(6), ints(6)), (bools(4), bools(4))]),
    "not_equal": (nb.not_equal, REFERENCE["not_equal"], [(ints(6), ints(6))]),
    "greater": (nb.greater, REFERENCE["greater"], [(f32(5), f32(5)), (ints(3, 2), ints(2))]),
    "greater_equal": (nb.greater_equal, REFERENCE["greater_equal"], [(ints(8), ints(8))]),
    "less": (nb.less, REFERENCE["less"], [(f32(5), f32(5))]),
    "less_equal": (nb.less_equal, REFERENCE["less_equal"], [(ints(8), ints(8))]),
    "logical_and": (nb.logical_and, REFERENCE["logical_and"], [(bools(5), bools(5))]),
    "logical_or": (nb.logical_or, REFERENCE["logical_or"], [(bools(5), bools(5))]),
    "logical_xor": (nb.logical_xor, REFERENCE["logical_xor"], [(bools(5), bools(5))]),
    "floor_divide": (nb.floor_divide, REFERENCE["floor_divide"], [(f32(4), pos(4)), (ints(4), ints(4) + 9)]),
    "remainder": (nb.remainder, REFERENCE["remainder"], [(f32(4), pos(4)), (ints(4), ints(4) + 9)]),
    "atan2": (nb.atan2, REFERENCE["atan2"], [(f32(4), f32(4))]),
    "hypot": (nb.hypot, REFERENCE["hypot"], [(f32(4), f32(4))]),
    "logaddexp": (nb.logaddexp, REFERENCE["logaddexp"], [(f32(4), f32(4))]),
    "copysign": (nb.copysign, REFERENCE["copysign"], [(f32(4), f32(4))]),
    "nextafter": (nb.nextafter, REFERENCE["nextafter"], [(f32(4), f32(4))]),
    "bitwise_and": (nb.bitwise_and, REFERENCE["bitwise_and"], [(ints(4), ints(4))]),
    "bitwise_or": (nb.bitwise_or, REFERENCE["bitwise_or"], [(ints(4), ints(4))]),
    "bitwise_xor": (nb.bitwise_xor, REFERENCE["bitwise_xor"], [(ints(4), ints(4))]),
    "bitwise_left_shift": (nb.bitwise_left_shift, REFERENCE["bitwise_left_shift"], [(ints(4), np.abs(ints(4)) % 8)]),
    "bitwise_right_shift": (nb.bitwise_right_shift, REFERENCE["bitwise_right_shift"], [(ints(4), np.abs(ints(4)) % 8)]),
}

REDUCE_CASES = {
    "sum": (nb.sum, REFERENCE["sum"], [f32(3, 4, 5), ints(3, 4)]),
    "prod": (nb.prod, REFERENCE["prod"], [pos(2, 3)]),
    "mean": (nb.mean, REFERENCE["mean"], [f32(3, 4, 5)]),
    "max": (nb.max, REFERENCE["max"], [f32(3, 4, 5), ints(4, 3)]),
    "min": (nb.min, REFERENCE["min"], [f32(3, 4, 5)]),
}
