"""MAX lowerings of elementwise functions MAX lacks, or gets wrong on special values.

Each function takes and returns MAX ``TensorValue``s; one Nabla op lowers to a
few MAX nodes, all of them ops MAX's eager interpreter runs (its ``acos`` and
``argsort`` are refused there, so they are not used). Special values (signed
zeros, infinities, NaN) follow the Array API standard's special-case tables.
"""

from __future__ import annotations

import math

import numpy as np
from max.dtype import DType
from ..core.lazy_module import graph_ops as ops
from ..core.operation import OPS

from . import complex_formulas as F
from .custom_kernels import sign_bit

_FLOATS = (DType.float16, DType.float32, DType.float64, DType.bfloat16)


def is_float(x) -> bool:
    return x.dtype in _FLOATS


def is_unsigned(x) -> bool:
    return x.dtype in (DType.uint8, DType.uint16, DType.uint32, DType.uint64)


def const(value, like):
    return ops.constant(value, like.dtype, like.device)


# MAX's eager interpreter moves data (broadcast_to, transpose) at rank <= 5 only.
MOVE_RANK = 5


def _fold_groups(kinds):
    """Runs of adjacent axes of one kind; axes of kind None join any run."""
    groups = []
    for axis, kind in enumerate(kinds):
        if groups and (kind is None or groups[-1][0] in (None, kind)):
            if groups[-1][0] is None:
                groups[-1][0] = kind
            groups[-1][1].append(axis)
        else:
            groups.append([kind, [axis]])
    return groups


def broadcast_to(x, shape):
    """``ops.broadcast_to`` at any rank: axes that broadcast alike are folded together."""
    target, dims = _static(shape), _static(x.shape)
    if len(shape) <= MOVE_RANK or target is None or dims is None:  # symbolic dims: compiled, no limit
        return ops.broadcast_to(x, shape)
    shape = target
    src = [1] * (len(shape) - len(dims)) + dims
    if src == shape:
        return ops.reshape(x, shape) if len(x.shape) != len(shape) else x
    current = src
    while current != shape:
        kinds = [None if t == 1 else ("keep" if c == t else "grow") for c, t in zip(current, shape)]
        groups = _fold_groups(kinds)
        # each step grows at most two runs, so at most five folded axes move at once
        grown = [g for g in groups if g[0] == "grow"][:2]
        step = list(current)
        for _, axes in grown:
            for a in axes:
                step[a] = shape[a]
        kinds = [None if t == 1 else ("keep" if c == t else "grow") for c, t in zip(current, step)]
        groups = _fold_groups(kinds)
        folded_src = [math.prod(current[a] for a in axes) for _, axes in groups]
        folded_dst = [math.prod(step[a] for a in axes) for _, axes in groups]
        x = ops.reshape(ops.broadcast_to(ops.reshape(x, folded_src), folded_dst), step)
        current = step
    return x


def permute(x, perm):
    """``ops.permute`` at any rank: axes that stay adjacent are folded, the rest move one at a time."""
    perm = [int(p) for p in perm]
    dims = _static(x.shape)
    if len(perm) <= MOVE_RANK or dims is None:
        return ops.permute(x, perm)
    # runs of source axes that stay consecutive in the output
    runs = [[perm[0]]]
    for p in perm[1:]:
        if p == runs[-1][-1] + 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    order = sorted(range(len(runs)), key=lambda k: runs[k][0])  # runs in source order
    folded = [math.prod(dims[a] for a in runs[k]) for k in order]
    x = ops.reshape(x, folded)
    target = [order.index(k) for k in range(len(runs))]  # folded permutation
    current = list(range(len(target)))
    if len(target) <= MOVE_RANK:
        x = ops.permute(x, target)
    else:
        for pos, want in enumerate(target):  # selection: move one folded axis into place per step
            at = current.index(want)
            if at == pos:
                continue
            x, current = _move_axis(x, at, pos), current[:pos] + [want] + current[pos:at] + current[at + 1:]
    return ops.reshape(x, [dims[p] for p in perm])


def slice_tensor(x, slices):
    """``ops.slice_tensor`` (positive steps) at any rank: untouched axes are folded together,
    and at most two sliced axes are cut per pass."""
    dims = _static(x.shape)
    if dims is None or len(dims) <= MOVE_RANK:
        return ops.slice_tensor(x, slices)
    bounds = [sl.indices(n) for sl, n in zip(slices, dims)]
    todo = [a for a, (b, n) in enumerate(zip(bounds, dims)) if b != (0, n, 1)]
    while todo:
        now, todo = todo[:2], todo[2:]
        folded, cuts = [], []
        for a, d in enumerate(dims):
            if a in now:
                folded.append(d)
                cuts.append(slice(*bounds[a]))
            elif a and (a - 1) not in now:  # runs of untouched axes fold into one
                folded[-1] *= d
            else:
                folded.append(d)
                cuts.append(slice(None))
        x = ops.slice_tensor(ops.reshape(x, folded), cuts)
        dims = [len(range(*bounds[a])) if a in now else d for a, d in enumerate(dims)]
        x = ops.reshape(x, dims)
    return x


def _move_axis(x, src, dst):
    """Axis ``src`` to position ``dst < src``, with at most four folded axes."""
    dims = [int(d) for d in x.shape]
    head, mid, tail = dims[:dst], dims[dst:src], dims[src + 1:]
    folded = [math.prod(head), math.prod(mid), dims[src], math.prod(tail)]
    y = ops.permute(ops.reshape(x, folded), [0, 2, 1, 3])
    return ops.reshape(y, head + [dims[src]] + mid + tail)


def _static(shape):
    try:
        return [int(d) for d in shape]
    except TypeError:  # symbolic dims (compiled graphs): MAX's compiler has no rank limit
        return None


def static_shape(x):
    return _static(x.shape)


def elementwise(fn, *xs, trailing: int = 0):
    """``fn(*xs)`` for an elementwise ``fn``; near the interpreter's rank limit, on inputs
    flattened to one axis (plus ``trailing`` storage axes), since lowerings broadcast constants."""
    shapes = [_static(x.shape) for x in xs]
    # lowerings may add one trailing axis (bits, complex parts): flatten from rank MOVE_RANK on
    if all(len(x.shape) < MOVE_RANK for x in xs) or any(s is None for s in shapes):
        return fn(*xs)
    tail = list(np.broadcast_shapes(*(tuple(s[len(s) - trailing:]) for s in shapes))) if trailing else []
    lead = list(np.broadcast_shapes(*(tuple(s[:len(s) - trailing]) for s in shapes)))
    flat = [ops.reshape(broadcast_to(x, lead + tail), [math.prod(lead)] + tail) for x in xs]
    out = fn(*flat)
    return ops.reshape(out, lead + [int(d) for d in out.shape[1:]])


def half_in_single(fn):
    """``fn`` computing float16 operands in float32 and rounding its result to float16 once, as
    NumPy's half-precision loops do (for + - * / a single rounding of the float32 result is the
    correctly rounded float16 one). MAX's interpreter lacks float16 kernels for several math ops,
    and its compiler takes minutes over a float16 ``exp2``."""
    def f(*xs):
        if not any(x.dtype == DType.float16 for x in xs):
            return fn(*xs)
        out = fn(*[ops.cast(x, DType.float32) if x.dtype == DType.float16 else x for x in xs])
        return ops.cast(out, DType.float16) if out.dtype == DType.float32 else out

    return f


def fold_rows(x, axis):
    """``x`` with ``axis`` last and the other axes folded into one, and the map back."""
    dims = [int(d) for d in x.shape]
    perm = [a for a in range(len(dims)) if a != axis] + [axis]
    inverse = [perm.index(a) for a in range(len(dims))]
    moved = [dims[p] for p in perm]
    y = ops.reshape(permute(x, perm), [math.prod(moved[:-1]), moved[-1]])

    def restore(out):
        return permute(ops.reshape(out, moved[:-1] + [int(out.shape[-1])]), inverse)

    return y, restore


def select(cond, a, b):
    return ops.where(cond, a, b)


def float_to_unsigned(x, target):
    """Floats ``x`` as the unsigned ``target``, as NumPy's x86 loops give them (MAX's own cast is
    undefined out of range): through x86's truncating conversion to 32 bits (64 for uint64, and for
    float16 into uint32), whose value where the float does not fit (NaN included) is the integer
    minimum, wrapped to the target; from 2^31 (2^63) on, uint32 (uint64) converts x - 2^31 (x -
    2^63) and adds that bit back, so from 2^32 (2^64) on it is 0. The program kernel's stores do
    the same (``as_stored`` in ``fused_int.mojo``)."""
    f = ops.cast(x, DType.float64)
    if target == DType.uint64 or x.dtype == DType.float16:
        bits = 64
    else:
        bits = 32
    top = float(2 ** (bits - 1))
    floor = -top if bits == 64 else -top - 1.0  # (float64 holds no value between -2^63 - 1 and -2^63)

    def truncated(v):  # x86's conversion to ``bits`` bits, as int64
        fits = ops.logical_and(ops.greater(const(top, v), v),
                               (ops.greater_equal if bits == 64 else ops.greater)(v, const(floor, v)))
        return select(fits, ops.cast(select(fits, v, const(0.0, v)), DType.int64),
                      ops.constant(-(2 ** (bits - 1)), DType.int64, v.device))

    low = truncated(f)
    if target != DType.uint64 and (bits == 64 or target != DType.uint32):
        return ops.cast(low, target)  # (wrapped to the target's bits)
    wide = DType.uint64 if bits == 64 else DType.int64  # (the sum wraps in it, or fits)
    high = ops.add(ops.cast(truncated(ops.sub(f, const(top, f))), wide), ops.constant(2 ** (bits - 1), wide, f.device))
    return ops.cast(select(ops.greater_equal(f, const(top, f)), high, ops.cast(low, wide)), target)


# MAX's graph compiler folds an op whose operands are one value (after it merges equal
# expressions): x - x to 0, x == x and x >= x to True, whatever x holds. For floats that is wrong
# where x is infinite or NaN (inf - inf is NaN; NaN == NaN is False), so the float lowerings below
# say so themselves: the same where the operands are two values, and right where MAX folds them.

def subtract(x, y):
    out = ops.sub(x, y)
    if not is_float(x):
        return out
    same_special = ops.logical_and(ops.logical_or(ops.is_inf(x), ops.is_nan(x)), ops.equal(x, y))
    # (only where MAX folded it: an unfolded NaN keeps the bits the hardware gave it)
    folded = ops.logical_and(same_special, ops.logical_not(ops.is_nan(out)))
    return select(folded, select(ops.is_nan(x), x, nan_like(x)), out)


def equal(x, y):
    if not is_float(x):
        return ops.equal(x, y)
    return ops.logical_and(ops.equal(x, y), ops.logical_not(ops.is_nan(x)))


def greater_equal(x, y):
    if not is_float(x):
        return ops.greater_equal(x, y)
    return ops.logical_and(ops.greater_equal(x, y), ops.logical_not(ops.is_nan(x)))


def not_equal(x, y):
    # MAX's not_equal says False when an operand is NaN; IEEE (and NumPy) say True
    if is_float(x):
        return ops.logical_not(equal(x, y))
    return ops.not_equal(x, y)


def isnan(x):
    if not is_float(x):
        return ops.not_equal(x, x)
    return ops.is_nan(x)


def isinf(x):
    if not is_float(x):
        return ops.not_equal(x, x)
    return ops.is_inf(x)


def isfinite(x):
    if not is_float(x):
        return ops.equal(x, x)
    return ops.logical_not(ops.logical_or(ops.is_nan(x), ops.is_inf(x)))


def _any_nan(*xs):
    out = isnan(xs[0])
    for x in xs[1:]:
        out = ops.logical_or(out, isnan(x))
    return out


def nan_like(x):
    return const(math.nan, x)


def signbit(x):
    """Sign bit of each element, NaN's too (read by Nabla's Mojo kernel: no MAX op sees it)."""
    if not is_float(x):
        return ops.greater(const(0, x), x)

    return sign_bit(x)


def signbit_of_number(x):
    """Sign bit of each non-NaN element (-0.0 counts); NaN gives False. Plain MAX ops only."""
    if not is_float(x):
        return ops.greater(const(0, x), x)
    return F.signbit_of_number(MAX_OPS, x)


def identity(x):
    return x


def integral_or(fn):
    """Rounding functions are the identity on integers."""
    return lambda x: fn(x) if is_float(x) else x


def square(x):
    return ops.mul(x, x)


def reciprocal(x):
    return ops.div(const(1, x), x)


def sign(x):
    zero = const(0, x)
    if is_unsigned(x):
        return select(ops.greater(x, zero), const(1, x), x)
    # +0 for either zero (the standard's "0"); NaN stays NaN
    return select(ops.greater(x, zero), const(1, x), select(ops.greater(zero, x), const(-1, x),
                                                            select(ops.equal(x, zero), zero, x)))


def tanh(x):
    # (float32's in float64, rounded once, as the fused kernel's: MAX's float32 tanh is off by ulps
    # near 1; |tanh| <= 1, as NumPy's, whatever the rounding)
    t = ops.cast(ops.tanh(ops.cast(x, DType.float64)), x.dtype) if x.dtype == DType.float32 else ops.tanh(x)
    one = const(1, x)
    return select(ops.is_nan(x), x, ops.min(ops.max(t, ops.negate(one)), one))


def exp(x):
    if x.dtype == DType.float64:
        return _exp64(x)
    if x.dtype == DType.float32:
        return _exp32(x)
    return select(ops.is_nan(x), x, ops.exp(x))  # MAX's exp(NaN) is inf


def _exp32(x):
    """float32 exp within about an ulp (MAX's loses up to 6 ulp far from 0 and saturates at 2.4e38
    from 88.38 on): x = k ln2 + r, ln2 in two parts as fdlibm's e_expf.c (k ln2_hi exact), MAX's exp
    of |r| <= ln2/2, where it is accurate, times 2^k as two exact powers of two. The fused kernel's
    ``_exp32`` does the same ops: both paths give the same bits."""
    k = ops.floor(ops.add(ops.mul(x, const(1.44269504088896338700, x)), const(0.5, x)))
    r = ops.sub(ops.sub(x, ops.mul(k, const(6.93145751953125e-01, x))), ops.mul(k, const(1.428606765330187e-06, x)))
    k1 = ops.floor(ops.mul(k, const(0.5, x)))
    two = const(2, x)
    out = ops.mul(ops.mul(ops.exp(r), ops.pow(two, k1)), ops.pow(two, ops.sub(k, k1)))
    out = select(ops.greater(x, const(89, x)), const(math.inf, x), out)
    out = select(ops.greater(const(-104, x), x), const(0, x), out)
    return select(ops.is_nan(x), x, out)


#: fdlibm's e_exp.c (Sun Microsystems, 1993): ln2 in two parts (Cody and Waite) and the degree-5
#: Remez fit P of r (e^r + 1) / (e^r - 1) = 2 + r^2 P(r^2) on |r| <= ln2 / 2
_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10
_EXP_P = (1.66666666666666019037e-01, -2.77777777770155933842e-03, 6.61375632143793436117e-05,
          -1.65339022054652515390e-06, 4.13813679705723846039e-08)


def _exp64(x, xl=None):
    """float64 exp within an ulp (MAX's is off by up to ~2.5e6 ulp): x = k ln2 + r, e^r = 1 + 2r /
    (2 - c), c = r - r^2 P(r^2), times 2^k as two exact powers of two (a subnormal result is rounded
    once). ``xl``: a low part of x (a double-double x + xl, power's), taken into the reduced
    argument's own. The fused kernel's ``_exp64`` does the same ops: both paths give the same bits."""
    k = ops.floor(ops.add(ops.mul(x, const(1.44269504088896338700, x)), const(0.5, x)))
    hi = ops.sub(x, ops.mul(k, const(_LN2_HI, x)))
    lo = ops.mul(k, const(_LN2_LO, x))
    if xl is not None:
        lo = ops.sub(lo, xl)
    r = ops.sub(hi, lo)
    t = ops.mul(r, r)
    p = const(_EXP_P[-1], x)
    for coefficient in reversed(_EXP_P[:-1]):
        p = ops.add(const(coefficient, x), ops.mul(t, p))
    c = ops.sub(r, ops.mul(t, p))
    y = ops.sub(const(1, x), ops.sub(ops.sub(lo, ops.div(ops.mul(r, c), ops.sub(const(2, x), c))), hi))
    k1 = ops.floor(ops.mul(k, const(0.5, x)))
    two = const(2, x)
    out = ops.mul(ops.mul(y, ops.pow(two, k1)), ops.pow(two, ops.sub(k, k1)))
    out = select(ops.greater(x, const(709.782712893383973096, x)), const(math.inf, x), out)
    out = select(ops.greater(const(-745.13321910194110842, x), x), const(0, x), out)
    return select(ops.is_nan(x), x, out)


def maximum(x, y):
    if not is_float(x):
        return ops.max(x, y)
    return select(_any_nan(x, y), nan_like(x), ops.max(x, y))


def minimum(x, y):
    if not is_float(x):
        return ops.min(x, y)
    return select(_any_nan(x, y), nan_like(x), ops.min(x, y))


def copysign(x, y):
    ax = ops.abs(x)
    return select(signbit(y), ops.negate(ax), ax)


def copysign_of_number(x, y):
    """``copysign`` for a ``y`` whose NaNs' signs do not matter (plain MAX ops only)."""
    return F.copysign_of_number(MAX_OPS, x, y)


def hypot(x, y):
    if x.dtype == DType.float32:  # (in float64, rounded once more: NumPy's hypotf, correctly rounded)
        wide = F.hypot(MAX_OPS, ops.cast(x, DType.float64), ops.cast(y, DType.float64))
        return ops.cast(wide, DType.float32)
    return F.hypot(MAX_OPS, x, y)


#: per dtype: mantissa bits, the smallest subnormal's and normal's exponents, the largest finite value
_FLOAT_LAYOUT = {DType.float64: (52, -1074, -1022, 1.7976931348623157e308),
                 DType.float32: (23, -149, -126, 3.4028234663852886e38),
                 DType.float16: (10, -24, -14, 65504.0)}


def nextafter(x, y):
    """The next float after ``x`` toward ``y``, from the exponent of ``x`` (no bit casts in MAX).
    float16's neighbours are found in float32 (they are exact there)."""
    if x.dtype == DType.float16:
        return ops.cast(_nextafter(ops.cast(x, DType.float32), ops.cast(y, DType.float32), DType.float16),
                        DType.float16)
    return _nextafter(x, y, x.dtype)


def _nextafter(x, y, layout):
    mant, tiny_exp, min_normal_exp, largest = _FLOAT_LAYOUT[layout]
    tiny = 2.0 ** tiny_exp
    zero = const(0, x)
    ax = ops.abs(x)
    toward_up = ops.greater(y, x)
    # moving away from zero keeps the binade unless x is its top; toward zero at a power of two
    # drops a binade: use the exponent of the neighbour on the side we move to
    away = ops.logical_xor(toward_up, signbit_of_number(x))
    e = ops.floor(ops.div(ops.log(select(ops.equal(ax, zero), const(1, x), ax)), const(math.log(2), x)))
    # log2 can be off by one next to powers of two: correct it
    p = ops.pow(const(2, x), e)
    e = select(ops.greater(p, ax), ops.sub(e, const(1, x)), e)
    p = ops.pow(const(2, x), e)
    e = select(ops.greater_equal(ax, ops.mul(p, const(2, x))), ops.add(e, const(1, x)), e)
    p = ops.pow(const(2, x), e)
    at_power = ops.equal(ax, p)
    e = select(ops.logical_and(at_power, ops.logical_not(away)), ops.sub(e, const(1, x)), e)
    e = ops.max(e, const(min_normal_exp, x))
    # steps of the lowest normal binade are subnormal, which MAX's kernels flush: there x and the step
    # are scaled up by 2^64 (exactly) and the sum back down
    lowest = ops.equal(e, const(min_normal_exp, x))
    scale = select(lowest, const(64, x), const(0, x))
    ulp = ops.pow(const(2, x), ops.add(ops.sub(e, const(mant, x)), scale))
    step = select(toward_up, ulp, ops.negate(ulp))
    out = ops.mul(ops.add(ops.mul(x, ops.pow(const(2, x), scale)), step), ops.pow(const(2, x), ops.negate(scale)))
    out = select(ops.equal(ax, zero), select(toward_up, const(tiny, x), const(-tiny, x)), out)
    out = select(ops.is_inf(x), select(ops.equal(x, y), x, select(toward_up, const(-largest, x), const(largest, x))), out)
    # past the largest finite value: infinity (float16's, found in float32, is finite there)
    out = select(ops.greater(ops.abs(out), const(largest, x)), select(toward_up, const(math.inf, x), const(-math.inf, x)), out)
    if layout == DType.float16:  # from the smallest subnormal toward zero: a zero of x's sign (-tiny + tiny
        # is +0; float16's subnormals are float32's normals, where MAX's kernels keep them)
        out = select(ops.equal(out, zero), select(signbit_of_number(x), const(-0.0, x), zero), out)
    # equal: y (C99's, NumPy's float32 and float64), but x for float16 (NumPy's own half nextafter)
    out = select(ops.equal(x, y), x if layout == DType.float16 else y, out)
    return select(_any_nan(x, y), nan_like(x), out)


# --- bool operands: MAX's interpreter has no numeric kernels for bool (a row's ``bool_lowering``) ---

def equal_bools(a, b):
    return ops.logical_not(ops.logical_xor(a, b))


def greater_bools(a, b):
    return ops.logical_and(a, ops.logical_not(b))


def greater_equal_bools(a, b):
    return ops.logical_or(a, ops.logical_not(b))


def negative(x):
    if is_unsigned(x):
        return ops.sub(const(0, x), x)  # wraps like NumPy; MAX's negate has no unsigned kernels
    if is_float(x):  # MAX folds x + negate(x) to 0, inf and NaN too; x * -1 is -x and is not folded
        # (a NaN is negated for its sign bit, as NumPy's is: x * -1 keeps it)
        return select(ops.is_nan(x), ops.negate(x), ops.mul(x, const(-1, x)))
    return ops.negate(x)


class _RegisteredOps:
    """``complex_formulas``' backend on MAX graph values: ``k.exp`` is the registered elementwise op
    of that name lowered as it is (its ``maxpr``, found in ``core.operation.OPS`` when a graph is
    built, after every row has registered), as the fused kernel's backend (``runtime/fused_complex.py``)
    records that op; ``where`` and ``const`` are MAX's."""

    where = staticmethod(select)
    const = staticmethod(const)

    def __getattr__(self, name):
        op = OPS.get(name)
        if getattr(op, "row", None) is None:  # (only the ops of elementwise rows)
            raise AttributeError(name)
        return op.maxpr


MAX_OPS = _RegisteredOps()
