"""Where the fused kernel's registers read their values: strided layouts (NumPy's view model: an
offset and a (size, stride) per axis) of the trace's inputs, spread to the trace's full shape, and
the (outer, r, inner) view of a reduction over one run of axes. Used by ``fused_program.py``,
``fused_views.py``, ``fused_matmul.py`` and ``fused_reads.py``."""

from __future__ import annotations

import math

from ..ops.index_primitives import element_layout
from . import op_kinds as K


class Unfit(Exception):
    """The trace needs what the fused kernel's programs cannot express."""


class Offset(int):
    """An element offset that depends on slice starts, which are data of a program (``x[i, 1:j]``
    for every ``i`` is one structure): its value at planning time, and ``const`` plus ``terms``
    ({(trace position, axis): coefficient}) to work it out for each run's starts. Arithmetic with
    ints keeps the dependence; a program's constants hold it until they are packed, where it
    becomes a patch of the run's constants (``fused_format.pack_program``)."""

    # (no __slots__: an int subclass cannot have them; the instance dict holds const and terms)

    def __new__(cls, value: int, const: int, terms: dict):
        o = int.__new__(cls, value)
        o.const, o.terms = const, terms
        return o

    @classmethod
    def start(cls, value: int, param) -> "Offset":
        return cls(value, 0, {param: 1})

    def __add__(self, other):
        if type(other) is Offset:
            terms = dict(self.terms)
            for k, c in other.terms.items():
                terms[k] = terms.get(k, 0) + c
            return Offset(int(self) + int(other), self.const + other.const, terms)
        if isinstance(other, int):
            return Offset(int(self) + other, self.const + other, self.terms)
        return NotImplemented

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, int) and type(other) is not Offset:
            return Offset(int(self) - other, self.const - other, self.terms)
        return NotImplemented

    def __mul__(self, other):
        if isinstance(other, int) and type(other) is not Offset:
            return Offset(int(self) * other, self.const * other, {k: c * other for k, c in self.terms.items()})
        return NotImplemented

    __rmul__ = __mul__

    def at(self, starts) -> int:
        """The offset for a run whose slice starts are ``starts`` ({trace position: starts})."""
        return self.const + sum(c * starts[pos][axis] for (pos, axis), c in self.terms.items())


def as_const(x):
    """A layout entry as a program's constants hold it: a float, or an ``Offset`` kept for patching."""
    return x if type(x) is Offset else float(x)


_Unfit = Unfit


#: the most parts a stack (a concat of one-step parts) is written for: each holds a register
_STACK_PARTS = 8


def _layouts(body, result, full, ref, alias, views, node_ids, view_of, contexts=None, pair=None) -> dict:
    """The layout each loaded value is read with: registers hold values spread to the trace's full
    shape, so a value smaller than the trace takes the shape of the full-size result it is
    broadcast into (its context), from its consumers back to the inputs it is computed from.
    Returns vid -> layout (None: read in order). Raises _Unfit where a value would need two
    layouts. ``contexts`` (given): filled with node -> (context, the shape it sees the node's value in).
    ``pair``: a second result of the result's shape (a complex result's imaginary parts)."""
    results = [result] if pair is None else [result, pair]
    shape_of: dict[int, tuple] = {}  # node index -> its output's shape (from the values that use it)
    for v in [u for n in body for u in n.inputs] + results:
        if v.node is not None and id(v.node) in node_ids:
            shape_of[node_ids[id(v.node)]] = tuple(v.shape)
    loads: dict[int, tuple | None] = {}

    def load(v, seen, ctx):
        src = ref(v)
        layout = _layout(view_of(v, seen), ctx, full)
        if loads.setdefault(src, layout) != layout:
            raise _Unfit

    # node -> (context, the shape in which the context sees its value: a reshape may stand between)
    context: dict[int, tuple] = {}
    for v in results:  # (a result that is a view of an input: read through its layout)
        final = ref(v)
        if final < 0 or final in views:
            load(v, tuple(v.shape), tuple(v.shape))
    for i in range(len(body) - 1, -1, -1):
        if i in alias or i in views or i not in shape_of:
            continue
        own = shape_of[i]
        ctx, view = (own, own) if math.prod(own) == full else context.get(i, (None, None))
        take = body[i].op is K.TAKE
        if body[i].op is K.CONCAT and not _is_stack(body[i]):
            continue  # (its parts: gathered through their own views, or fills)
        for k, v in enumerate(body[i].inputs):
            if take and k == 0:
                continue  # (the rows a take reads: through their own view, by the gather)
            size = math.prod(v.shape)
            src = ref(v)
            loaded = src < 0 or src in views
            if size == 1 or (size == full and not loaded):
                if size == 1 and loaded:
                    load(v, tuple(v.shape), (1,))
                continue
            if ctx is None:
                raise _Unfit
            rank = len(ctx)
            if take:  # a take's indices stand for its axis in its result's shape: spread over the others
                axis = body[i].kwargs.get("axis", 0)
                seen = (1,) * axis + tuple(v.shape) + (1,) * (len(body[i].inputs[0].shape) - axis - 1)
            elif _padded(view, rank) == _padded(own, rank):
                seen = tuple(v.shape)
            elif tuple(v.shape) == own:  # an elementwise input of a value seen reshaped
                seen = view
            elif tuple(view[:len(own)]) == own and not any(d != 1 for d in view[len(own):]):
                # a value seen with unit axes after its own (a stack's part) and an input broadcast into it
                seen = _padded(tuple(v.shape), len(own)) + tuple(view[len(own):])
            else:
                raise _Unfit
            if loaded:
                load(v, seen, ctx)
                continue
            mine = (_padded(ctx, rank), _padded(seen, rank))
            known = context.setdefault(src, (ctx, seen))
            if (_padded(known[0], rank), _padded(known[1], rank)) != mine:
                raise _Unfit
    if contexts is not None:
        contexts.update(context)
    return loads


def _is_stack(n) -> bool:
    """Whether ``n`` is a concat the kernel writes as a stack: parts each one step along its axis."""
    if n.op is not K.CONCAT:
        return False
    axis, parts = n.kwargs["axis"], n.inputs
    return 1 < len(parts) <= _STACK_PARTS and all(v.shape[axis] == 1 for v in parts)


def _layout(view, ctx, full):
    """[rank, offset, (size, stride) per axis] reading ``view`` (leaf, offset, shape, strides)
    spread to the full shape ``ctx``, axes merged where they can be; None when that is the leaf
    itself in order."""
    _, offset, shape, strides = view
    if math.prod(shape) == 1:  # one value for all
        return (1.0, as_const(offset), float(full), 0.0)
    if math.prod(ctx) != full or len(shape) > len(ctx):
        raise _Unfit
    lead = len(ctx) - len(shape)
    axes = []
    for a, n in enumerate(ctx):
        if a < lead:
            s = 0
        else:
            d, s = shape[a - lead], strides[a - lead]
            if d != n:
                if d != 1:
                    raise _Unfit
                s = 0
        if n != 1:
            axes.append([n, s])
    merged = merge_axes(axes) or [[1, 0]]
    if offset == 0 and type(offset) is not Offset and len(merged) == 1 and merged[0][1] == 1 and merged[0][0] == full:
        return None
    return (float(len(merged)), as_const(offset), *[float(x) for axis in merged for x in axis])


def merge_axes(axes) -> list:
    """[size, stride] pairs, outermost first, with adjacent ones merged where the outer steps over
    exactly the inner (the same elements in the same order, fewer axes to walk)."""
    merged: list[list[int]] = []
    for n, s in axes:
        if merged and merged[-1][1] == n * s:
            merged[-1] = [merged[-1][0] * n, s]
        else:
            merged.append([n, s])
    return merged


def release_last_uses(refs, i, uses, reg_of, free) -> None:
    """Free the registers of the values in ``refs`` whose last use is node ``i``."""
    for v in set(refs):
        if uses.get(v) == i and v in reg_of:
            free.append(reg_of.pop(v))


def _contiguous(shape):
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return tuple(reversed(strides))


def _restride(sizes, strides, shape):
    """Strides for ``shape`` over the same elements as (sizes, strides), where a view can express
    it (NumPy's no-copy reshape); None otherwise."""
    sizes, shape = tuple(sizes), tuple(shape)
    if sizes == shape:
        return tuple(strides)
    if math.prod(sizes) != math.prod(shape) or math.prod(shape) == 0:
        return None  # (an empty value seen through another shape: nothing to load, no layout)
    old = [(n, s) for n, s in zip(sizes, strides) if n != 1]
    new = [0] * len(shape)
    oi = ni = 0
    while ni < len(shape) and oi < len(old):
        nsize, osize = shape[ni], old[oi][0]
        nj, oj = ni + 1, oi + 1
        while nsize != osize:
            if nsize < osize:
                nsize *= shape[nj]
                nj += 1
            else:
                osize *= old[oj][0]
                oj += 1
        for k in range(oi, oj - 1):
            if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        step = old[oj - 1][1]
        for k in range(nj - 1, ni - 1, -1):
            new[k] = step
            step *= shape[k]
        ni, oi = nj, oj
    return tuple(new)


def _through(node, view):
    """The strided view after ``node`` (a slice, a transpose or a broadcast) of ``view``."""
    leaf, offset, sizes, strides = view
    op, kw = node.op, node.kwargs
    if op is K.GETITEM:
        index = kw["index"]
        if len(index) != len(sizes):
            raise _Unfit
        new_sizes, new_strides = [], []
        for (start, stop, step), s in zip(index, strides):
            offset += start * s
            new_sizes.append(len(range(start, stop, step)))
            new_strides.append(s * step)
        if "shape" in kw:  # unit axes dropped or added: the same elements
            shape = tuple(kw["shape"])
            new_strides = _restride(new_sizes, new_strides, shape)
            if new_strides is None:
                raise _Unfit
            new_sizes = shape
        return leaf, offset, tuple(new_sizes), tuple(new_strides)
    if op in K.PERMUTES:
        perm = kw["perm"]
        return leaf, offset, tuple(sizes[p] for p in perm), tuple(strides[p] for p in perm)
    target = tuple(kw["shape"])  # broadcast_to
    if op is K.BROADCAST_PHYSICAL:  # batch and logical parts each right-aligned first
        nb, batch_dims = kw["in_batch_dims"], kw["batch_dims"]
        padded = ((1,) * (batch_dims - nb) + tuple(sizes[:nb]) + (1,) * (len(target) - batch_dims - len(sizes) + nb)
                  + tuple(sizes[nb:]))
        strides = _restride(sizes, strides, padded)
        if strides is None:
            raise _Unfit
        sizes = padded
    lead = len(target) - len(sizes)
    if lead < 0:
        raise _Unfit
    new_strides = [0] * lead + [s if d == n else 0 for d, n, s in zip(sizes, target[lead:], strides)]
    return leaf, offset, target, tuple(new_strides)


def _padded(shape, rank):
    shape = tuple(shape)
    while len(shape) > rank and shape[0] == 1:
        shape = shape[1:]
    return (1,) * (rank - len(shape)) + shape


def _reduced_run(shape, axes):
    """(r, inner) when the reduced ``axes`` of ``shape`` (size-1 axes aside) are one contiguous run:
    the values are then an (outer, r, inner) block reduced over r. None otherwise."""
    if not shape:
        return None
    axes = sorted(a % len(shape) for a in axes)
    if not axes:
        return None
    moving = [a for a in axes if shape[a] > 1]
    if moving and any(shape[a] > 1 and a not in axes for a in range(moving[0], moving[-1] + 1)):
        return None
    r = math.prod(shape[a] for a in axes)
    inner = math.prod(shape[moving[-1] + 1:]) if moving else 1
    return r, inner


def slice_layout(shape, index, position=None) -> list:
    """The layout a stage stores through: the slice ``index`` (``(start, stop, step)`` per axis) of a
    contiguous array of ``shape`` (``element_layout``); its starts data of the slice write at trace
    ``position`` where given (the offset an ``Offset`` of them)."""
    layout = element_layout(shape, index)
    if position is not None:
        strides, step = [], 1
        for n in reversed(shape):
            strides.append(step)
            step *= n
        layout[1] = Offset(layout[1], 0, {(position, axis): st for axis, st in enumerate(reversed(strides))})
    return layout
