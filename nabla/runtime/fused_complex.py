"""Complex traces as real ones for the fused kernel: each complex value a pair of real values.

A complex array is stored as paired reals on a trailing axis of 2, and the fused kernel's
registers are real. Before a trace with complex work is written as a program it is rewritten: a
complex input is read as two strided views of its storage (its parts: offset 0 and 1, stride 2),
each complex op becomes real work on the parts by the formulas MAX's lowerings use
(``complex_formulas``), and a complex value that storage must hold (the result; an operand of a
reduction or a view) is written as a stack of its parts on the trailing axis, which is its storage.
Ops that act on storage as it is (views, ``sum``, ``mean``, concatenation) stay as they are.
Complex products are rewritten before a trace is scheduled (``real_products``): four real
products of the parts, each a matmul stage of its own.
"""

from __future__ import annotations

from ..core import dtypes as _dt
from ..core.graph import Node, Value
from ..core.pytree import tree_flatten
from ..ops.base import broadcast_shapes
from ..ops.creation import constant_op
from ..ops.elementwise import BINARY_OPS, UNARY_OPS, cast_op, complex_op, where_op
from ..ops.index_primitives import slice_op
from ..ops.linalg import matmul_op
from ..ops.multi_output import concat_op
from ..ops.reduction import REDUCE_OPS
from ..ops.view import reshape_op
from ..ops.broadcasting import broadcast_to_op

_FLOATS = (_dt.float32, _dt.float64)


def is_complex(n) -> bool:
    """Whether node ``n`` does complex work (rather than move complex storage as it is)."""
    kw = n.kwargs
    return "complex_storage" in kw or "src_complex" in kw or n.op is complex_op \
        or ((n.op is cast_op or n.op is constant_op) and kw["dtype"].is_complex)


def takes(n) -> bool:
    """Whether the rewrite writes complex node ``n`` as real work."""
    kw = n.kwargs
    if n.op is complex_op or n.op is constant_op or n.op is cast_op:  # (a cast to complex reads any real dtype)
        return True
    if not all(v.dtype in _FLOATS or v.dtype is _dt.bool_ or (v.dtype.is_complex and v.shape == ())
               for v in n.inputs):
        return False
    row = getattr(n.op, "row", None)
    return (n.op is where_op or (row is not None and row.formula is not None)) and set(kw) == {"complex_storage"}


class _Writer:
    """``complex_formulas``' backend that records real nodes for the rewritten trace."""

    def __init__(self, device):
        self.order: list = []
        self.device = device

    def _node(self, op, kwargs, inputs, shape, dtype, treedef=None) -> Value:
        n = Node(op, kwargs, tuple(inputs), treedef)
        self.order.append(n)
        return Value(n, 0, tuple(shape), dtype, self.device)

    def __getattr__(self, name):
        """The formulas' real elementwise ops, by their names: a node of the op's own row."""
        op = UNARY_OPS.get(name) or BINARY_OPS.get(name)
        if op is None:
            raise AttributeError(name)

        def node(*xs):
            shape = xs[0].shape if len(xs) == 1 else broadcast_shapes(xs[0].shape, xs[1].shape)
            return self._node(op, {}, xs, shape, _dt.bool_ if op.row.out_bool else xs[0].dtype)
        return node

    def const(self, value, like):
        return self.constant(value, like.dtype)

    def constant(self, value, dtype):
        return self._node(constant_op, {"value": float(value), "dtype": dtype, "device": self.device}, (), (), dtype)

    def where(self, c, x, y):
        return self._node(where_op, {}, (c, x, y), broadcast_shapes(c.shape, x.shape, y.shape), x.dtype)

    def cast(self, x, dtype):
        return x if x.dtype is dtype else self._node(cast_op, {"dtype": dtype}, (x,), x.shape, dtype)

    def parts(self, storage: Value):
        """The (re, im) views of complex storage (shape ``S + (2,)``), each of shape ``S``."""
        shape = storage.shape[:-1]
        out = []
        for k in (0, 1):
            index = tuple((0, d, 1) for d in shape) + ((k, k + 1, 1),)
            part = self._node(slice_op, {"index": index}, (storage,), shape + (1,), storage.dtype)
            out.append(self._node(reshape_op, {"shape": shape}, (part,), shape, storage.dtype))
        return tuple(out)

    def pack(self, pair, shape) -> Value:
        """Storage of shape ``shape`` (``S + (2,)``) holding ``pair``: a stack on the trailing axis."""
        inner = tuple(shape[:-1])
        dtype = pair[0].dtype if pair[0].dtype in _FLOATS else pair[1].dtype
        parts = []
        for p in pair:
            p = self.cast(p, dtype)
            if p.shape != inner:
                p = self._node(broadcast_to_op, {"shape": inner}, (p,), inner, dtype)
            parts.append(self._node(reshape_op, {"shape": inner + (1,)}, (p,), inner + (1,), dtype))
        _, treedef = tree_flatten((parts,), is_leaf=lambda x: isinstance(x, Value))
        return self._node(concat_op, {"axis": len(inner)}, parts, tuple(shape), dtype, treedef)


def real_trace(order, leaves, outputs, node_ids, leaf_ids):
    """``(order, outputs, node_ids, positions)`` of the trace with its complex work written as real
    work; ``positions``: new position -> the trace's, of its nodes kept as they are (its scalar
    constants among them). None when some complex work is not of the ops written here."""
    w = _Writer(outputs[0].device)
    pairs: dict = {}  # an original value's key -> its (re, im) in the new trace
    stored: dict = {}  # an original value's key -> the new trace's value holding it as stored
    positions: dict = {}
    read: dict = {}  # id(node) -> the values of it the trace reads
    for v in [u for n in order for u in n.inputs] + list(outputs):
        if v.node is not None:
            read.setdefault(id(v.node), {})[v.index] = v

    def key(v):
        return id(v) if v.node is None else (id(v.node), v.index)

    def storage(v):
        k = key(v)
        found = stored.get(k)
        if found is None:  # (a complex constant's value has its logical shape)
            found = stored[k] = w.pack(pairs[k], v.shape + (2,) if v.dtype.is_complex else v.shape) \
                if k in pairs else v
        return found

    def pair(v):
        k = key(v)
        if k not in pairs:
            pairs[k] = w.parts(storage(v))
        return pairs[k]

    for i, n in enumerate(order):
        reshaped = _reshaped_pair(w, n, pairs.get(key(n.inputs[0])) if n.inputs else None)
        if reshaped is not None:  # (the parts reshaped: no stack of them to view again)
            pairs[(id(n), 0)] = reshaped
            continue
        if not is_complex(n):
            inputs = tuple(storage(v) for v in n.inputs)
            if all(a is b for a, b in zip(inputs, n.inputs)):
                positions[len(w.order)] = i
                w.order.append(n)
            else:  # (an operand was rewritten: the same op on the rewritten one)
                new = Node(n.op, n.kwargs, inputs, n.treedef)
                w.order.append(new)
                for v in read.get(id(n), {}).values():
                    stored[key(v)] = Value(new, v.index, v.shape, v.dtype, v.device)
            continue
        if not takes(n):
            return None
        out = _where_stored(w, n, storage) if n.op is where_op and not any(key(v) in pairs for v in n.inputs[1:]) \
            else None
        out = _rewrite(w, n, pair, storage) if out is None else out
        if not isinstance(out, tuple) and id(n) in read:  # a real result (``imag`` of a cast: a scalar
            shape = tuple(next(iter(read[id(n)].values())).shape)  # 0) has the node's shape for any reader
            if tuple(out.shape) != shape:
                out = w._node(broadcast_to_op, {"shape": shape}, (out,), shape, out.dtype)
        pairs_or_stored = pairs if isinstance(out, tuple) else stored
        pairs_or_stored[(id(n), 0)] = out
    return w.order, [storage(v) for v in outputs], {id(n): i for i, n in enumerate(w.order)}, positions


def _reshaped_pair(w, n, parts):
    """The (re, im) parts of a reshape of complex storage whose parts are written here (``x.reshape``
    of a computed complex value: each part reshaped), or None."""
    if parts is None or n.op is not reshape_op or set(n.kwargs) != {"shape"}:
        return None
    src, shape = n.inputs[0].shape, tuple(n.kwargs["shape"])
    if src[-1:] != (2,) or shape[-1:] != (2,) or any(p.shape != src[:-1] for p in parts):
        return None  # (a part spread from a smaller shape: not reshaped as the storage is)
    return tuple(w._node(reshape_op, {"shape": shape[:-1]}, (p,), shape[:-1], p.dtype) for p in parts)


def _where_stored(w, n, storage):
    """``where(c, x, y)`` of complex values held as stored (leaves, or results packed already): one
    real ``where`` over the storage with ``c`` spread over the (re, im) axis, where parts would be
    sliced out and packed again (a ``tril`` of a complex stack, whose mask is (n, n)); None where
    the two storages differ in dtype."""
    c, x, y = (storage(v) for v in n.inputs)
    if x.dtype is not y.dtype or c.dtype is not _dt.bool_:
        return None
    spread = w._node(reshape_op, {"shape": tuple(c.shape) + (1,)}, (c,), tuple(c.shape) + (1,), c.dtype)
    return w.where(spread, x, y)


def _rewrite(w, n, pair, storage):
    """Node ``n``'s complex work on real values: a pair for a complex result, else a real value."""
    kw = n.kwargs
    if n.op is constant_op:
        real = _dt.real_dtype(kw["dtype"])
        return w.constant(kw["value"].real, real), w.constant(kw["value"].imag, real)
    if n.op is complex_op:
        return storage(n.inputs[0]), storage(n.inputs[1])
    if n.op is cast_op:
        target = kw["dtype"]
        x = n.inputs[0]
        if target.is_complex:  # a complex x's parts, or (x, 0)
            real = _dt.real_dtype(target)
            if kw.get("src_complex"):
                parts, shape = pair(x), x.shape + (2,) if x.dtype.is_complex else x.shape
            else:
                re = w.cast(storage(x), x.dtype if x.dtype in _FLOATS else real)
                parts, shape = (re, w.const(0, re)), x.shape + (2,)
            # (to another precision: the storage cast as it is written, one float dtype of work)
            return parts if parts[0].dtype is real else w.cast(w.pack(parts, shape), real)
        re, im = pair(x)
        if target is _dt.bool_:  # nonzero
            zero = w.const(0, re)
            return w.logical_not(w.logical_and(w.equal(re, zero), w.equal(im, zero)))
        return w.cast(re, target)  # (NumPy keeps the real part)
    if n.op is where_op:
        c = storage(n.inputs[0])
        (xr, xi), (yr, yi) = pair(n.inputs[1]), pair(n.inputs[2])
        return w.where(c, xr, yr), w.where(c, xi, yi)
    return n.op.row.formula(w, *map(pair, n.inputs))


def product_by_parts(x, y) -> list:
    """The complex product of ``x`` and ``y`` (stored as ``(..., M, K, 2)`` and ``(..., K, N, 2)``)
    as real work on their parts, ``(a + bi)(c + di) = (ac - bd) + (ad + bc)i``: the new values, each
    after its inputs, the last holding the product as stored."""
    dtype, device = x.dtype, x.device
    made: list = []

    def value(op, kwargs, inputs, shape):
        made.append(Value(Node(op, kwargs, inputs), 0, shape, dtype, device))
        return made[-1]

    real, imag = UNARY_OPS["real"], UNARY_OPS["imag"]
    sx, sy = x.shape[:-1], y.shape[:-1]
    a, b = (value(p, p.complex_storage_kwargs({}), (x,), sx) for p in (real, imag))
    c, d = (value(p, p.complex_storage_kwargs({}), (y,), sy) for p in (real, imag))
    batch = broadcast_shapes(sx[:-2], sy[:-2])
    (m, k), n = sx[-2:], sy[-1]
    shape = batch + (m, n)
    if m * k * n <= _SUMMED_PRODUCTS:
        # a small product (a loop's 4 x 4 blocks) as two sums over k of the parts' products, each
        # one reduction stage (as NumPy sums each element's complex terms), where four real products
        # and their sums were six stages
        a, b = (value(reshape_op, {"shape": sx + (1,)}, (u,), sx + (1,)) for u in (a, b))
        c, d = (value(reshape_op, {"shape": sy[:-2] + (1, k, n)}, (u,), sy[:-2] + (1, k, n)) for u in (c, d))
        terms = batch + (m, k, n)
        mul, summed = BINARY_OPS["multiply"], {"axes": (len(terms) - 2,), "keepdims": False}
        ac, bd, ad, bc = (value(mul, {}, pair, terms) for pair in ((a, c), (b, d), (a, d), (b, c)))
        re = value(REDUCE_OPS["sum"], summed, (value(BINARY_OPS["subtract"], {}, (ac, bd), terms),), shape)
        im = value(REDUCE_OPS["sum"], summed, (value(BINARY_OPS["add"], {}, (ad, bc), terms),), shape)
    else:
        ac, bd, ad, bc = (value(matmul_op, {}, pair, shape) for pair in ((a, c), (b, d), (a, d), (b, c)))
        re = value(BINARY_OPS["subtract"], {}, (ac, bd), shape)
        im = value(BINARY_OPS["add"], {}, (ad, bc), shape)
    value(complex_op, {}, (re, im), shape + (2,))
    return made


#: the most products (m * k * n) of a complex ``@`` written as sums of its parts' products
#: (``product_by_parts``) rather than as four real matmuls
_SUMMED_PRODUCTS = 1024


def _by_parts(node) -> bool:
    """Whether ``node`` is a complex product of host operands, planned as real products of their parts."""
    return node.op is matmul_op and "complex_storage" in node.kwargs and len(node.inputs) == 2 \
        and all(v.dtype in (_dt.float32, _dt.float64) and v.device.is_host and len(v.shape) >= 3
                for v in node.inputs)


def real_products(order, outputs, node_ids):
    """The trace with each complex product of host operands written as real work on its parts
    (``product_by_parts``), and the nodes that read it, or read those, copied onto the
    new values: ``(order, outputs, node_ids)``, a copy keeping its node's position (its slice starts
    and constants are the trace's data). Each real product is then a matmul stage of the program
    and the rest fuses around it (the parts packed where they are stored), where a complex product
    would run alone, on a model of its own; a loop records one node per product, not eleven."""
    if not any(_by_parts(n) for n in order):
        return order, outputs, node_ids
    node_ids = dict(node_ids)
    new_order: list = []
    made: dict = {}  # id(original node) -> its node in the new trace
    values: dict = {}  # (id(original node), output index) -> its value in the new trace (one each)

    def new(v):
        m = made.get(id(v.node)) if v.node is not None else None
        if m is None:
            return v
        w = values.get((id(v.node), v.index))
        if w is None:
            w = values[(id(v.node), v.index)] = Value(m, v.index, v.shape, v.dtype, v.device)
        return w

    for n in order:
        if _by_parts(n):
            parts = product_by_parts(*map(new, n.inputs))
            new_order += [u.node for u in parts]
            made[id(n)] = parts[-1].node
            values[(id(n), 0)] = parts[-1]
        elif any(v.node is not None and id(v.node) in made for v in n.inputs):
            c = Node(n.op, n.kwargs, tuple(map(new, n.inputs)), n.treedef)
            c.memo = n.memo
            node_ids[id(c)] = node_ids[id(n)]
            made[id(n)] = c
            new_order.append(c)
        else:
            new_order.append(n)
    return new_order, [new(v) for v in outputs], node_ids


def relift(program, positions) -> None:
    """A program's scalar constants renumbered to the trace's positions (each run passes its
    constants by those); the rewrite's own constants are fixed values of the program."""
    program.lifted = tuple((positions[i], at) for i, at in program.lifted if i in positions)


def complex_work(order) -> bool:
    return any(is_complex(n) for n in order)

