"""A simulated mesh's shards as one stack: each op runs once over all of them.

All shards of a simulated mesh live on one device, so the per-device values of an operand can be
the members of one value with a leading stack axis, and an op lifted onto that axis
(``Operation.lift_kwargs``) computes every shard in one kernel where one node per shard would run
one each: MAX's per-kernel floor (tens of microseconds on a CPU) then stops multiplying with the
mesh size. Each device's value is a member of the result (an ``unstack`` node's output, never
lowered unless something reads it alone), and the next op recognizes the list of members and
takes the stack. The collectives have stack forms too: a reduction over a mesh axis is one
reduction along it, a gather over the whole mesh and a split of a replicated value are relayouts.
Anything else returns None here and runs one node per distinct shard (``spmd``).
"""

from __future__ import annotations

from ..core.graph import Node, Value
from ..core.tensor import Tensor
from ..core.tensor_impl import TensorImpl
from ..ops._physical import stack_values_op, unstack_values_op
from ..ops.reduction import REDUCE_OPS
from ..ops.view import permute_op, reshape_op


def local_tensor(value, dtype, batch_dims) -> Tensor:
    """An unsharded tensor of one recorded value."""
    return Tensor(TensorImpl([value], dtype, batch_dims, pending=False))


#: The highest rank a stack may reach (MAX's interpreter moves data at rank <= 5).
MAX_RANK = 5


class _Members(Node):
    """The members of a stack (one output each), with the per-device list made of them: the next
    op on that list recognizes it by identity. (The list and the members' ``node`` make a cycle
    that holds no data: realizing a member drops its node.)"""

    __slots__ = ("per_device", "positions")


_UNSTACK = {}  # n -> (the unstack node's kwargs, the identity positions)


def members_per_device(stack: Value, positions: tuple) -> list:
    """Device d's value is member ``positions[d]`` of ``stack`` (along its leading axis)."""
    n = stack.shape[0]
    known = _UNSTACK.get(n)
    if known is None:
        known = _UNSTACK[n] = ({"n": n}, tuple(range(n)))
    node = _Members(unstack_values_op, known[0], (stack,))
    shape = stack.shape[1:]
    dtype, device = stack.dtype, stack.device
    members = [Value(node, j, shape, dtype, device) for j in known[1]]
    node.positions = positions
    node.per_device = members if positions == known[1] else [members[p] for p in positions]
    return node.per_device


class Members:
    """A sharded tensor's per-device values as members of one stack, made on first use: the next
    op over the stack reads ``stack`` and needs no member (recording an op on a mesh then makes
    one node and one value, as unsharded, where the members are a node and a value per device).
    A sequence like the list it stands for; ``device`` and ``is_realized`` answer without it."""

    __slots__ = ("stack", "positions", "device", "_list")

    def __init__(self, stack: Value, positions: tuple):
        self.stack = stack
        self.positions = positions
        self.device = stack.device
        self._list = None

    def values(self) -> list:
        got = self._list
        if got is None:
            stack = self.stack
            if stack is None:  # another thread made them meanwhile (``_list`` is set first)
                return self._list
            # two threads may both make them: either list is the members of the same stack
            got = self._list = members_per_device(stack, self.positions)
            self.stack = None  # the members' node holds it now: realizing them frees the graph
        return got

    def stacked(self):
        """``(stack, positions)`` while the members are unrealized, else None."""
        stack = self.stack
        if stack is not None:
            return stack, self.positions
        return _made_stack(self._list)

    @property
    def is_realized(self) -> bool:
        return self._list is not None and all(v.node is None for v in self._list)

    def __len__(self) -> int:
        return len(self.positions)

    def __getitem__(self, k):
        return self.values()[k]

    def __iter__(self):
        return iter(self.values())

    def __eq__(self, other) -> bool:
        return self.values() == (other.values() if type(other) is Members else other)

    __hash__ = None  # (a list's equality: unhashable like one)

    def count(self, v) -> int:
        return self.values().count(v)

    def index(self, v) -> int:
        return self.values().index(v)

    def __repr__(self) -> str:
        return f"Members({self.values()!r})"


def _made_stack(vals):
    """``(stack, positions)`` when ``vals`` is the list of one stack's unrealized members, else None."""
    node = vals[0].node
    return (node.inputs[0], node.positions) if type(node) is _Members and node.per_device is vals else None


def _stack_of(vals):
    """``(stack, positions)`` when ``vals`` are one stack's members (lazy, or a made list), else None."""
    return vals.stacked() if type(vals) is Members else _made_stack(vals)


def _stacked_form(vals):
    """``(stack, positions, distinct)`` of an operand's per-device values: device d's value is member
    ``positions[d]`` of ``stack``, or of the ``distinct`` values still to be stacked (``stack``
    None); None when every device holds the same value."""
    got = _stack_of(vals)
    if got is not None:
        return got[0], got[1], None
    if type(vals) is Members:
        vals = vals.values()
    first = vals[0]
    node = first.node
    if type(node) is _Members and node.per_device == vals:  # a copy of the members' list
        return node.inputs[0], node.positions, None
    if first is vals[-1] and vals.count(first) == len(vals):
        return None
    seen, distinct, positions = {}, [], []
    for v in vals:
        k = seen.get(v)
        if k is None:
            k = seen[v] = len(distinct)
            distinct.append(v)
        positions.append(k)
    return None, tuple(positions), distinct


def record(op, in_vals, node_kwargs, values, post=None, batch_dims=()):
    """Per output, its per-device values, from one node over a stack of the shards: a simulated
    mesh's shards all live on one device, so an op lifted onto a leading stack axis runs one kernel
    where per-shard nodes would run one each (MAX's per-kernel floor dominates small shards). None
    where the op or the operands' layouts do not allow it (the per-shard nodes then serve).
    ``post``, a layout rule's step on each shard's result, is elementwise: it runs on the stack."""
    forms, positions, n, rank = [], None, 0, 0
    for vals in in_vals:
        f = _stacked_form(vals)
        forms.append(f)
        r = len(vals[0].shape)
        if r > rank:
            rank = r
        if f is not None:
            if f[0] is None and any(d.shape != vals[0].shape for d in f[2]):
                return None  # shards of different shapes do not stack
            size = f[0].shape[0] if f[0] is not None else len(f[2])
            if positions is None:
                positions, n = f[1], size
            elif f[1] != positions or size != n:
                return None  # members vary along different mesh axes: no common stack
    if positions is None:
        return None  # every device holds the same operands: the plain path records one node
    if rank >= MAX_RANK or (len(forms) > 1 and not op.lift_broadcasts and None in forms):
        return None
    kwargs = op.lift_kwargs(node_kwargs, n)
    if kwargs is None:
        return None
    ins = []
    for vals, f in zip(in_vals, forms):
        v = vals[0]
        if f is None:
            ins.append(v)
            continue
        stack, _, distinct = f
        if stack is None:  # (every check is above: nothing is recorded for a declined call)
            stack = Value(Node(stack_values_op, {}, tuple(distinct)), 0, (n, *v.shape), v.dtype, v.device)
        if len(v.shape) < rank:  # right-aligned broadcasting must not meet the stack axis
            shape = (n,) + (1,) * (rank - len(v.shape)) + tuple(v.shape)
            stack = Value(Node(reshape_op, {"shape": shape}, (stack,)), 0, shape, v.dtype, v.device)
        ins.append(stack)
    node = Node(op, kwargs, tuple(ins))
    device = in_vals[0][0].device
    outs = []
    for k, (shape, dtype) in enumerate(values):
        stack = Value(node, k, (n, *shape), dtype, device)
        if post is not None:
            stack = post(local_tensor(stack, dtype, batch_dims[k] + 1))._impl._values[0]
        outs.append(members_per_device(stack, positions))
    return outs


def record_lean(op, in_vals, node_kwargs, value):
    """``record``'s common case (one output, no ``post``), kept lean: it is the recording hot path.
    Each operand is the list of members an earlier op made, all in one layout, or one value for
    every device (a list of one, or the same value repeated), none of a higher rank than the
    stacked ones; None otherwise."""
    ins, positions, n, rank, low, plain = [], None, 0, 0, MAX_RANK, False
    for vals in in_vals:
        got = _stack_of(vals)  # lazy members, or the list of ``record``'s or a collective's
        if got is not None:
            stack = got[0]
            if positions is None:
                positions, n = got[1], stack.shape[0]
            elif got[1] != positions or stack.shape[0] != n:
                return None
            ins.append(stack)
            r = len(stack.shape) - 1
            if r < low:
                low = r
        elif (first := vals[0]) is vals[-1] and vals.count(first) == len(vals):
            plain = True
            ins.append(first)
            r = len(first.shape)
        else:
            return None
        if r > rank:
            rank = r
    if positions is None or low < rank or rank >= MAX_RANK or (plain and not op.lift_broadcasts):
        return None
    kwargs = op.lift_kwargs(node_kwargs, n)
    if kwargs is None:
        return None
    shape, dtype = value
    return [Members(Value(Node(op, kwargs, tuple(ins)), 0, (n, *shape), dtype, ins[0].device), positions)]


# --- collectives on the stack ---------------------------------------------------------
# A stack whose member d is device d's value (all devices distinct, in device order) has the
# mesh's axes as its leading axis: a reduction over a mesh axis is one reduction kernel, a
# gather over the whole mesh a relayout, a split of a replicated value a relayout.

def _node(op, kwargs, x: Value, shape) -> Value:
    return Value(Node(op, kwargs, (x,)), 0, tuple(shape), x.dtype, x.device)


def _device_stack(vals, mesh):
    """The stack holding device d's value as member d, or None."""
    f = _stacked_form(vals)
    if f is None or f[0] is None or f[1] != tuple(range(mesh.size)) or f[0].shape[0] != mesh.size:
        return None
    return f[0]


def all_reduce(vals, mesh, axis, kind):
    stack = _device_stack(vals, mesh)
    if stack is None:
        return None
    local = tuple(stack.shape[1:])
    if len(mesh.shape) + len(local) > MAX_RANK:
        return None
    a = mesh.axis_index(axis)
    x = stack if len(mesh.shape) == 1 else _node(reshape_op, {"shape": mesh.shape + local}, stack, mesh.shape + local)
    rest = mesh.shape[:a] + mesh.shape[a + 1:]
    r = _node(REDUCE_OPS[kind], {"axes": (a,), "keepdims": False}, x, rest + local)
    if not rest:  # the whole mesh: one value, on every device
        return [r] * mesh.size
    m = mesh.size // mesh.shape[a]
    positions = []
    for d in range(mesh.size):
        c, pos = mesh.coords(d), 0
        for k, size in enumerate(mesh.shape):
            if k != a:
                pos = pos * size + c[k]
        positions.append(pos)
    return members_per_device(_node(reshape_op, {"shape": (m, *local)}, r, (m, *local)), tuple(positions))


def all_gather(vals, mesh, axes, dim):
    if tuple(axes) != mesh.axis_names:
        return None
    stack = _device_stack(vals, mesh)
    if stack is None:
        return None
    k, local = mesh.size, tuple(stack.shape[1:])
    x = stack
    if dim:  # the stack axis next to ``dim``, then both merge: member d becomes block d
        perm = (*range(1, dim + 1), 0, *range(dim + 1, len(local) + 1))
        x = _node(permute_op, {"perm": perm}, x, tuple(((k,) + local)[p] for p in perm))
    shape = local[:dim] + (k * local[dim],) + local[dim + 1:]
    return [_node(reshape_op, {"shape": shape}, x, shape)] * k


def split(vals, mesh, axes, dim):
    if tuple(axes) != mesh.axis_names or any(v is not vals[0] for v in vals):
        return None
    v, k = vals[0], mesh.size
    local = tuple(v.shape)
    if len(local) + 1 > MAX_RANK:
        return None
    blocks = local[:dim] + (k, local[dim] // k) + local[dim + 1:]
    x = _node(reshape_op, {"shape": blocks}, v, blocks)
    if dim:
        perm = (dim, *range(dim), *range(dim + 1, len(blocks)))
        x = _node(permute_op, {"perm": perm}, x, tuple(blocks[p] for p in perm))
    return members_per_device(x, tuple(range(k)))
