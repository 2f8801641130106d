"""The lazy-eager core: laziness, OutputRefs, tracing, memory, errors, contexts, pytrees."""

import gc
import weakref
from collections import OrderedDict, namedtuple
from dataclasses import dataclass

import numpy as np
import pytest

import nabla as nb
from nabla.core.graph import GRAPH


@pytest.mark.usefixtures("recorded_small_ops")
def test_building_an_expression_evaluates_nothing():
    x = nb.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    epoch = GRAPH.epoch
    y = nb.tanh(nb.exp(x) * 2.0 - 1.0).sum(axis=0)
    z = y.reshape(3, 1) @ nb.ones((1, 4))
    assert GRAPH.epoch == epoch
    assert not y.is_realized and not z.is_realized
    assert z.shape == (3, 4) and z.dtype is nb.float32  # shape and dtype known eagerly
    expected = np.tanh(np.exp(x.numpy()) * 2 - 1).sum(0).reshape(3, 1) @ np.ones((1, 4))
    np.testing.assert_allclose(z.numpy(), expected, rtol=1e-5)
    assert GRAPH.epoch == epoch + 1
    assert y.is_realized  # every pending tensor was realized in the same graph


@pytest.mark.usefixtures("recorded_small_ops")
def test_each_data_access_kind_realizes():
    x = nb.asarray([1.5, 2.5])
    for access in (lambda t: t.numpy(), lambda t: t.sum().item(), lambda t: repr(t),
                   lambda t: bool(t.sum() > 0), lambda t: np.asarray(t), lambda t: float(t.sum())):
        y = x * 3
        epoch = GRAPH.epoch
        access(y)
        assert GRAPH.epoch > epoch


def test_multi_output_shares_output_refs():
    x = nb.asarray(np.arange(12.0, dtype=np.float32))
    a, b, c = nb.split(x, 3)
    assert a._impl.output_refs is b._impl.output_refs is c._impl.output_refs
    assert [t._impl.output_index for t in (a, b, c)] == [0, 1, 2]
    refs = a._impl.output_refs
    assert refs.op is nb.ops.multi_output.split_op and refs.num_outputs == 3
    assert refs.get_alive_outputs() == [a._impl, b._impl, c._impl]
    np.testing.assert_array_equal(b.numpy(), np.arange(4.0, 8.0))
    with pytest.raises(AttributeError):
        refs.op = None  # frozen


def test_split_points_like_numpy():
    x = np.arange(10.0, dtype=np.float32)
    for spec in ([3, 7], [2], [0, 10], [4, 4]):
        got = nb.split(nb.asarray(x), spec)
        want = np.split(x, spec)
        assert [g.shape for g in got] == [w.shape for w in want]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w)


@pytest.mark.usefixtures("recorded_small_ops")
def test_traced_keeps_parents_untraced_does_not():
    x = nb.asarray([1.0, 2.0])
    y = x * 2
    assert y._impl.output_refs is None and y._impl.parents == []  # (untraced: no link to its operands)
    assert y._impl.op.name == "multiply" and not y._impl.traced
    t = nb.traced(nb.asarray([1.0, 2.0]))
    u = nb.exp(t) + 1
    assert u._impl.traced
    (p,) = u._impl.parents[:1]
    assert p.op.name == "exp" and p.parents[0] is t._impl
    assert not t._impl.parents and t._impl.is_leaf


def test_untraced_intermediates_are_collected():
    x = nb.asarray(np.ones(4, dtype=np.float32))
    y = nb.exp(x)
    z = y + 1
    ref = weakref.ref(y._impl)
    del y
    gc.collect()
    assert ref() is None  # the intermediate TensorImpl is gone while z is still pending
    np.testing.assert_allclose(z.numpy(), np.e + 1, rtol=1e-6)


def test_traced_intermediates_are_kept():
    x = nb.traced(nb.asarray(np.ones(4, dtype=np.float32)))
    y = nb.exp(x)
    z = y + 1
    ref = weakref.ref(y._impl)
    del y
    gc.collect()
    assert ref() is not None and z._impl.parents[0] is ref()


@pytest.mark.usefixtures("recorded_small_ops")
def test_realized_tensors_drop_their_symbolic_graph():
    x = nb.asarray(np.ones(3, dtype=np.float32))
    y = nb.exp(x) * 2
    node = weakref.ref(y._impl._values[0].node)
    parent_node = weakref.ref(y._impl._values[0].node.inputs[0].node)
    y.numpy()
    gc.collect()
    assert y._impl._values[0].node is None and y._impl._storages is not None
    assert node() is None and parent_node() is None
    assert y._impl.cached_shape == (3,)


def test_tensor_facade_holds_only_its_value_alias_links_and_element_loop():
    x = nb.asarray([1.0])
    assert not hasattr(x, "__dict__") \
        and type(x).__slots__ == ("_impl", "_view", "_views", "_element_loop", "__weakref__")
    assert x._view is None and x._views is None  # links appear only when a view is taken (ops/aliasing.py)
    assert x._element_loop is None  # an ElementLoop from its first recorded element write (ops/host_writes.py)
    v = x[:]
    assert v._view[0] is x and x._views[0]() is v


@pytest.mark.usefixtures("recorded_small_ops")
def test_epoch_increments_on_every_evaluation():
    e = GRAPH.epoch
    nb.asarray([1.0]).__add__(1).numpy()
    nb.asarray([2.0]).__add__(1).numpy()
    assert GRAPH.epoch == e + 2


# --- errors at the call that caused them ---------------------------------------------

@pytest.mark.parametrize("call, exc, words", [
    (lambda: nb.ones((2, 3)) + nb.ones((4,)), ValueError, ["add", "(2, 3)", "(4,)"]),
    (lambda: nb.ones((2, 3)) @ nb.ones((4, 2)), ValueError, ["matmul", "(2, 3)", "(4, 2)"]),
    (lambda: nb.ones((2, 3)).sum(axis=2), IndexError, ["sum", "axis 2", "rank 2"]),
    (lambda: nb.ones((2, 3)).reshape(4, 2), ValueError, ["reshape", "(2, 3)", "(4, 2)"]),
    (lambda: nb.asarray([True]) @ nb.asarray([True]), TypeError, ["matmul", "bool"]),
    (lambda: nb.asarray([True]) + nb.asarray([False]), TypeError, ["add", "bool"]),
    (lambda: nb.asarray([[1, 2], [3]]), ValueError, ["asarray", "ragged"]),
    (lambda: nb.asarray(["a", "b"]), TypeError, ["asarray"]),
    (lambda: nb.asarray({"a": 1}), TypeError, ["asarray"]),
    (lambda: nb.full((2, -1), 0.0), ValueError, ["full", "negative"]),
    (lambda: nb.ones((2,), dtype="U3"), TypeError, ["unsupported dtype"]),
    (lambda: nb.asarray(np.array(["x"])), TypeError, ["asarray", "<U1"]),
    (lambda: nb.split(nb.ones((5,)), 2), ValueError, ["split", "5", "2"]),
    (lambda: nb.squeeze(nb.ones((2, 3)), 0), ValueError, ["squeeze", "size 2"]),
    (lambda: nb.permute_dims(nb.ones((2, 3)), (0, 0)), ValueError, ["permute_dims"]),
    (lambda: nb.broadcast_to(nb.ones((3,)), (2, 4)), ValueError, ["broadcast_to", "(3,)", "(2, 4)"]),
    (lambda: nb.max(nb.ones((0, 3)), axis=0), ValueError, ["max", "zero-size"]),
    (lambda: nb.ones((2, 2)) + "a", TypeError, ["add"]),
    (lambda: nb.asarray([1, 2], dtype=nb.uint64) + nb.asarray([1], dtype=nb.int8), TypeError, ["add"]),
    (lambda: bool(nb.ones((2,))), ValueError, ["ambiguous"]),
    (lambda: float(nb.ones((2,))), TypeError, ["0-d"]),
])
def test_errors_raise_at_call_time(call, exc, words):
    epoch = GRAPH.epoch
    with pytest.raises(exc) as info:
        call()
    msg = str(info.value)
    for w in words:
        assert w in msg, (w, msg)
    assert "MLIR" not in msg and "mo." not in msg
    assert GRAPH.epoch == epoch  # raised at the call, before anything ran


def test_failed_call_leaves_no_pending_work():
    pending = GRAPH.num_pending
    x = nb.ones((2, 3))
    with pytest.raises(ValueError):
        x + nb.ones((3, 2))
    del x
    gc.collect()
    assert GRAPH.num_pending <= pending


@pytest.mark.usefixtures("recorded_small_ops")
def test_a_long_trace_pauses_the_collector_until_it_is_read():
    assert gc.isenabled()
    x = nb.zeros((4,))
    for _ in range(20_000):  # each step's value dies; the chain of nodes stays alive
        x = x + 1.0
    assert not gc.isenabled()
    np.testing.assert_array_equal(x.numpy(), np.full(4, 20_000.0))
    assert gc.isenabled()


def test_a_collector_the_program_paused_stays_paused():
    gc.disable()
    try:
        x = nb.zeros((4,))
        for _ in range(10_000):
            x = x + 1.0
        np.testing.assert_array_equal(x.numpy(), np.full(4, 10_000.0))
        assert not gc.isenabled()
    finally:
        gc.enable()


# --- context defaults ---------------------------------------------------------------

def test_default_dtype_context():
    assert nb.ones((2,)).dtype is nb.float32
    assert nb.asarray(1.5).dtype is nb.float32 and nb.asarray(2).dtype is nb.int64
    with nb.default_dtype(nb.float64):
        assert nb.ones((2,)).dtype is nb.float64
        assert nb.asarray([1.0, 2.0]).dtype is nb.float64
        with nb.default_dtype("int32"):
            assert nb.arange(3).dtype is nb.int32
            assert nb.zeros(3).dtype is nb.float64
    assert nb.ones((2,)).dtype is nb.float32
    with pytest.raises(ValueError):
        with nb.default_dtype(nb.bool_):
            pass


def test_default_device_context():
    cpu = nb.cpu()
    with nb.default_device("cpu"):
        assert nb.ones((2,)).device == cpu
    with nb.default_device(cpu):
        x = nb.arange(4)
    assert x.device == cpu
    np.testing.assert_array_equal(x.numpy(), np.arange(4))
    with pytest.raises(ValueError):
        with nb.default_device("tpu"):
            pass


# --- pytrees ------------------------------------------------------------------------

class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


nb.register_pytree_node(Point, lambda p: ([p.x, p.y], None), lambda _aux, ch: Point(*ch))


@nb.register_dataclass_node
@dataclass
class Params:
    w: object
    b: object


Pair = namedtuple("Pair", "left right")


def test_pytree_round_trip_with_custom_nodes():
    tree = {"b": [1, (2, None)], "a": Point(3, Params(4, 5)), "c": Pair(6, OrderedDict(z=7, y=8))}
    leaves, treedef = nb.tree_flatten(tree)
    assert leaves == [3, 4, 5, 1, 2, 6, 7, 8]  # dict keys sorted, OrderedDict keeps order
    rebuilt = nb.tree_unflatten(treedef, leaves)
    assert rebuilt["b"] == [1, (2, None)] and isinstance(rebuilt["a"], Point)
    assert rebuilt["a"].y.b == 5 and isinstance(rebuilt["c"], Pair) and list(rebuilt["c"].right) == ["z", "y"]
    doubled = nb.tree_map(lambda v: v * 2, tree)
    assert nb.tree_leaves(doubled) == [2 * v for v in leaves]
    assert nb.tree_structure(doubled) == treedef and hash(nb.tree_structure(doubled)) == hash(treedef)
    assert nb.tree_structure(doubled) is treedef  # one shared object per structure: caches probe at once
    other = dict(tree, c=Pair(6, OrderedDict(y=8, z=7)))
    assert nb.tree_structure(other) != treedef  # an OrderedDict's key order is part of its structure


def test_pytree_errors_and_leaves():
    with pytest.raises(ValueError):
        nb.tree_map(lambda a, b: a, [1, 2], [1, [2]])
    _, td = nb.tree_flatten([1, 2])
    with pytest.raises(ValueError):
        nb.tree_unflatten(td, [1, 2, 3])
    t = nb.ones((2,))
    assert nb.tree_leaves({"t": t, "n": None}) == [t]
    with pytest.raises(ValueError):
        nb.register_pytree_node(Point, None, None)


def test_multi_output_pytree_of_tensors_through_tree_map():
    parts = nb.split(nb.arange(6, dtype=nb.float32), 2)
    total = nb.tree_map(lambda t: t.sum(), {"p": parts})
    assert [v.item() for v in total["p"]] == [3.0, 12.0]
