# Written by nabla/runtime/fused_codes.py (write_opcodes) from the ops' rows, their Fused(code);
# not edited by hand: a test checks it is current.


struct Op:
    """A program instruction's opcode: an op's (from its row), or an instruction's; the
    bounds of the groups the kernel's loop dispatches on (``UNARY_FIRST``, ``UNARY_END``)."""

    comptime LOAD = 0
    comptime CONST = 1
    comptime NEGATIVE = 10
    comptime UNARY_FIRST = 10
    comptime ABS = 11
    comptime SQUARE = 12
    comptime RECIPROCAL = 13
    comptime EXP = 14
    comptime EXPM1 = 15
    comptime LOG = 16
    comptime LOG1P = 17
    comptime SQRT = 18
    comptime SIN = 19
    comptime COS = 20
    comptime TANH = 21
    comptime FLOOR = 22
    comptime CEIL = 23
    comptime TRUNC = 24
    comptime SIGN = 25
    comptime ISNAN = 26
    comptime ISINF = 27
    comptime ISFINITE = 28
    comptime LOGICAL_NOT = 29
    comptime POSITIVE = 30
    comptime U_ABS = 30
    comptime BITWISE_INVERT = 31
    comptime SIGNBIT = 32
    comptime ROUND = 33
    comptime TAN = 34
    comptime ASIN = 35
    comptime ACOS = 36
    comptime ATAN = 37
    comptime SINH = 38
    comptime COSH = 39
    comptime ADD = 40
    comptime BINARY_FIRST = 40
    comptime UNARY_END = 40
    comptime SUBTRACT = 41
    comptime MULTIPLY = 42
    comptime DIVIDE = 43
    comptime MAXIMUM = 44
    comptime MINIMUM = 45
    comptime EQUAL = 46
    comptime NOT_EQUAL = 47
    comptime GREATER = 48
    comptime GREATER_EQUAL = 49
    comptime LESS = 50
    comptime LESS_EQUAL = 51
    comptime LOGICAL_AND = 52
    comptime LOGICAL_OR = 53
    comptime LOGICAL_XOR = 54
    comptime BITWISE_AND = 55
    comptime BITWISE_OR = 56
    comptime BITWISE_XOR = 57
    comptime FLOOR_DIVIDE = 58
    comptime REMAINDER = 59
    comptime BINARY_END = 60
    comptime WHERE = 60
    comptime WRAP = 61
    comptime AXIS_INDEX = 62
    comptime GATHER = 63
    comptime BITWISE_LEFT_SHIFT = 64
    comptime MORE_BINARY_FIRST = 64
    comptime BITWISE_RIGHT_SHIFT = 65
    comptime POW = 66
    comptime ATAN2 = 67
    comptime HYPOT = 68
    comptime LOGADDEXP = 69
    comptime COPYSIGN = 70
    comptime NEXTAFTER = 71
    comptime ASINH = 72
    comptime MORE_BINARY_END = 72
    comptime MORE_UNARY_FIRST = 72
    comptime ACOSH = 73
    comptime ATANH = 74
    comptime LOG2 = 75
    comptime LOG10 = 76
    comptime MORE_UNARY_END = 77
    comptime UNSIGNED_UNARY_FIRST = 77
    comptime U_SIGN = 77
    comptime UNSIGNED_BINARY_FIRST = 78
    comptime UNSIGNED_UNARY_END = 78
    comptime U_MAXIMUM = 78
    comptime U_MINIMUM = 79
    comptime U_GREATER = 80
    comptime U_GREATER_EQUAL = 81
    comptime U_LESS = 82
    comptime U_LESS_EQUAL = 83
    comptime U_FLOOR_DIVIDE = 84
    comptime U_REMAINDER = 85
    comptime U_BITWISE_RIGHT_SHIFT = 86
    comptime U_POW = 87
    comptime HALF_BINARY_FIRST = 88
    comptime H_NEXTAFTER = 88
    comptime UNSIGNED_BINARY_END = 88
    comptime HALF_BINARY_END = 89


struct Reduce:
    """A stage's reduction (or running) kind."""

    comptime SUM = 1
    comptime MEAN = 2
    comptime MAX = 3
    comptime MIN = 4
    comptime PROD = 5
    comptime ARGMAX = 6
    comptime ARGMIN = 7


struct Code:
    """The dtype code of a data slot read or written as bytes."""

    comptime BOOL = 0
    comptime INT8 = 1
    comptime INT16 = 2
    comptime INT32 = 3
    comptime INT64 = 4
    comptime UINT8 = 5
    comptime UINT16 = 6
    comptime UINT32 = 7
    comptime FLOAT32 = 8
    comptime FLOAT64 = 9
    comptime FLOAT16 = 10
    comptime UINT64 = 11
