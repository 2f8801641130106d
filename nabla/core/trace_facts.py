"""What the engine asks of a trace before it picks a path: whether its inner values are held
elsewhere, where its values live, how many elements it moves, whether the fused kernel runs it
whole."""

from __future__ import annotations

import sys

from max import driver

from .context import VirtualCPU


def shares_inner_values(order, outputs) -> bool:
    """Whether something outside the trace holds one of its inner values (another pending node's
    input, a live tensor's value): a probe must not compute the read alone then, or that work
    stays pending and the next read traces it again, one step longer each time (a loop reading
    ``sum(x)`` after each ``x = x * 0.99 + 1`` would meet a new structure at every step, and a
    training loop reading its loss would carry its updates' gradients into the next step's
    trace). Counted, not searched: an inner value is referenced by its consumers' input tuples
    and by whatever else holds it, so a reference count above its uses in the trace means it is
    shared (scanning the live pending tensors would make reading n pending scalars O(n^2)).
    Values of nodes without operands (scalar constants, fills) cost nothing to compute again and
    are not counted. Either answer computes the same values: a wrong one only costs time."""
    # beyond its uses: the list holding it in ``uses`` and getrefcount's own argument
    return any(sys.getrefcount(entry[0]) > entry[1] + 2 for entry in _inner_uses(order, outputs).values())


def _inner_uses(order, outputs) -> dict:
    """id -> [value, its uses in the trace] of the trace's inner values (a function of its own:
    its loop variables, which would hold references, are gone when it returns)."""
    read = {id(v.node) for v in outputs}
    uses: dict[int, list] = {}
    for n in order:
        for v in n.inputs:
            m = v.node
            if m is not None and m.inputs and id(m) not in read:
                entry = uses.get(id(v))
                if entry is None:
                    uses[id(v)] = [v, 1]
                else:
                    entry[1] += 1
    return uses


_HAS_ACCELERATORS: list = []  # asked once: most machines have none, and the realization path is hot


def on_accelerators(leaves, outputs) -> bool:
    if not _HAS_ACCELERATORS:
        _HAS_ACCELERATORS.append(driver.accelerator_count() > 0)
    return _HAS_ACCELERATORS[0] and (any(not v.device.is_host for v in outputs)
                                     or any(not leaf.device.is_host for leaf in leaves))


def on_virtual_devices(traced) -> bool:
    """Whether a trace places values on virtual CPU devices: its leaves, its transfers and
    collectives (meshes over distinct devices are of virtual CPUs only), or its nodes' kwargs (a
    creation's device)."""
    if any(type(leaf.device) is VirtualCPU for leaf in traced.leaves):
        return True
    for n in traced.order:
        if n.op.multi_device:
            return True
        if n.kwargs and any(type(v) is VirtualCPU for v in n.kwargs.values()):
            return True
    return False


def fused_whole(entry, leaves) -> bool:
    """Whether the fused kernel runs this entry's trace whole for these leaves' shapes: as one
    program (of any number of stages: a structure it runs at one size it runs at every size), or
    one fused plan."""
    if entry.program and any(entry.program.values()):
        return True
    return bool(entry.fused and entry.fused.get(tuple(leaf.shape for leaf in leaves)))


def element_count(leaves, outputs) -> int:
    total = 0
    for v in (*leaves, *outputs):
        n = 1
        for d in v.shape:
            n *= d
        total += n
    return total


def describe_outputs(outputs) -> str:
    """What a realization computes, for a debug message: the ops of its outputs' nodes."""
    names = sorted({v.node.op.name for v in outputs if v.node is not None})
    return f"a trace ending in {names}"
