"""Reductions, running sums and small matmuls inside programs (runtime/program.py): computed first
where more work reads them, written straight into the slice they are stored to, long accumulations
as one stage, small complex products as sums of their parts' products; values against NumPy."""

import numpy
import pytest

import nabla as nb
import nabla.numpy as np
from nabla.core.graph import GRAPH

from .test_program import RNG, assert_same, both

pytestmark = pytest.mark.usefixtures("fused_on", "recorded_small_ops")


def _traced(t):
    """(post-order nodes, leaves, the value) of a pending tensor's trace."""
    v = t._impl._values[0]
    traced = GRAPH.engine.trace([v])
    return traced.order, traced.leaves, v, traced


@pytest.mark.parametrize("build,inside", [
    (lambda x: (x - x.sum()) * 2.0, True),
    (lambda x: x[1:] - x[:-1] @ x[:-1], True),
    (lambda x: np.cumsum(x) + 1.0, True),
    (lambda x: np.exp(x.max() - x), True),
    (lambda x: (x * 2.0).sum(), False),
    (lambda x: x[:-1] @ x[1:], False),
    (lambda x: np.any(x > 0.5), False),
])
def test_a_reduction_feeding_more_work_is_computed_first_as_the_writer_refuses_it(build, inside):
    """A cut stops at a reduction (a running sum, a matmul) that feeds more of its work: the value
    is computed first, its work not walked (no program ends anywhere but at one); the writer,
    asked for the whole trace, refuses the same ones. A count's test keeps its count."""
    from nabla.runtime.fused import plan
    from nabla.runtime.program_cut import Cut

    x = np.array(RNG.random(12))
    order, leaves, v, traced = _traced(build(x))
    cut = Cut(v, {id(leaf): leaf for leaf in leaves}, set())
    assert bool(cut.missing) is inside
    assert all(u.node is not None and u.node.op in (n.op for n in order) for u in cut.missing)
    if inside:
        assert plan(order, leaves, [v], traced.node_ids, traced.leaf_ids) is None
        assert len(cut.origins) < len(order)
    else:
        assert len(cut.origins) == len(order)
    GRAPH.evaluate()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_triangular_solve_loop_whose_dot_changes_length(dtype):
    """``x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]``: each step's dot feeds more work and has a
    length of its own; the values are NumPy's."""
    def loop(m, L, x, b):
        for i in range(x.shape[0]):
            x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
        return x[-1]
    n = 40
    L = numpy.tril(RNG.random((n, n))).astype(dtype) + numpy.eye(n, dtype=dtype) * n
    want, got = both(loop, L, numpy.zeros(n, dtype), RNG.random(n).astype(dtype))
    for w, g in zip(want, got):  # (the dot's sums in another order than NumPy's: its rounding)
        assert g.dtype == w.dtype
        numpy.testing.assert_allclose(g, w, rtol=1e-12 if dtype == "float64" else 1e-5)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_a_reduction_written_into_one_run_of_an_array_is_one_stage(dtype, monkeypatch):
    """gramschmidt's ``R[k, j] = dot(Q[:, k], A[:, j])``: a reduction that only its write reads, into a
    slice that is one run of the array's memory (an element, part of a row, whole rows), is stored
    there by its own stage, at starts that move; a strided slice, a reduction read again or one the
    trace returns keep a buffer of their own, then loaded. NumPy's values."""
    from nabla.runtime import program

    into = []
    reduce_into = program.Scheduler._reduce_into

    def counted(self, v, x, value, index):
        found = reduce_into(self, v, x, value, index)
        into.append(found == [])
        return found

    monkeypatch.setattr(program.Scheduler, "_reduce_into", counted)

    def writes(m, R, A):
        for k in range(3):
            for j in range(k, 4):
                R[k, j] = m.dot(A[:, k], A[:, j])  # an element
            R[k + 1, k:k + 2] = A[:2, k:k + 2].sum(axis=0)  # part of a row
            R[k] -= A[k] * R[k, k]
        R[2:4] = A[:2, :4] + A[1:3, :4].max(axis=0)  # (not a reduction: loaded as before)
        R[:, 1] = A[:4].min(axis=1)  # a column: strided
        s = A.sum()
        R[0, 0] = s  # read again below
        R[3, 3] = s * 2
        R[1] = A[:4, :4].sum(axis=0)  # a whole row
        return R.sum(axis=1), A[0].sum()

    base = (RNG.random((5, 4)) * 8).astype(dtype)
    want, got = both(writes, numpy.zeros((4, 4), dtype), base)
    for w, g in zip(want, got):
        assert g.dtype == w.dtype
        numpy.testing.assert_allclose(g, w, rtol=1e-12 if dtype == "float64" else 1e-5)
    assert into.count(True) >= 6 and False in into


@pytest.mark.parametrize("form", ["f(x_i) + acc", "acc + f(x_i)", "complex"])
def test_a_long_accumulation_is_one_stage(form, monkeypatch):
    """``acc = f(x[k]) + acc * c`` over many steps: the chain's operands are ordered deep work first,
    so the evaluator holds two values at a time and plans the chain as one stage (taking ``f(x[k])``
    first at every step held each until the end: out of registers, the scheduler then peeled the
    chain a node at a time, quadratic in its length); a chain too long for one stage is halved."""
    from nabla.runtime import program

    refused = []
    plan = program.Scheduler._plan

    def counted(self, sub):
        found = plan(self, sub)
        if not found:
            refused.append(len(sub.origins))
        return found

    monkeypatch.setattr(program.Scheduler, "_plan", counted)

    def loop(m, x):
        acc = m.zeros(1, dtype=complex if form == "complex" else float)
        for k in range(120):
            term = m.sin(x[k]) if form != "complex" else x[k] * m.exp(-0.3j)
            acc = acc * 0.5 + term if form == "acc + f(x_i)" else term + acc * 0.5
        return acc

    want, got = both(loop, RNG.standard_normal(120))
    assert_same(want, got, exact=form != "complex")
    if form == "complex":  # each step reads the complex scalar's (re, im) pair, an input: past the
        assert len(refused) <= 128  # data slots, the chain is halved until its parts fit (peeled, ~600 plans)
    else:
        assert refused == []


@pytest.mark.parametrize("shapes,summed", [(((4, 4), (4, 4)), True), (((2, 3, 5), (5, 4)), True),
                                           (((12, 12), (12, 12)), False)])
def test_a_small_complex_product_is_two_sums_of_its_parts_products(shapes, summed):
    """``product_by_parts``: up to ``_SUMMED_PRODUCTS`` products, the real and imaginary parts are each
    one sum over k of products of the parts (no matmul); beyond, four real matmuls. Either way the
    product is NumPy's."""
    from nabla.ops.linalg import matmul_op
    from nabla.ops.reduction import REDUCE_OPS
    from nabla.runtime.fused_complex import product_by_parts

    x0, y0 = (RNG.random(s) + 1j * RNG.random(s) for s in shapes)
    x, y = np.array(x0), np.array(y0)
    made = product_by_parts(*(t._impl._values[0] for t in (x, y)))
    ops = [u.node.op for u in made]
    assert (matmul_op in ops) is not summed
    assert (ops.count(REDUCE_OPS["sum"]) == 2) is summed
    numpy.testing.assert_allclose(numpy.asarray(x @ y), x0 @ y0, rtol=1e-13)


def complex_products(m, G, H, S):
    """scattering_self_energies' step: products of complex 3 x 3 views, one by a picked element,
    added into a slice of the result."""
    for k in range(G.shape[0]):
        for j in range(2):
            S[k, j] += (G[k, j] @ H[j]) @ (H[1 - j] * G[k, 1 - j, 0, 0])
    return S.copy(), G[0, 0] @ H[1, :, 0]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("n", [3, 12])
def test_complex_products_are_one_node_each_and_real_products_of_the_program(dtype, n):
    """A complex ``@`` records one node (``x @ y`` in a loop); the scheduler writes it as real work on
    the parts (``fused_complex.real_products``): a small one (3 x 3) as two sums of their products,
    a larger one (12 x 12) as four real products, so the loop is one program, no model."""
    from nabla.ops.linalg import matmul_op

    def cplx(*shape):
        return (RNG.random(shape) + 1j * RNG.random(shape) - 0.5).astype(dtype)

    G, H = np.array(cplx(3, 2, n, n)), np.array(cplx(2, n, n))
    p = G[0, 0] @ H[1]
    assert p._impl._values[0].node.op is matmul_op
    before = nb.engine_stats()
    want, got = both(complex_products, cplx(3, 2, n, n), cplx(2, n, n), numpy.zeros((3, 2, n, n), dtype))
    for w, g in zip(want, got):
        assert w.dtype == g.dtype and w.shape == g.shape
        numpy.testing.assert_allclose(g, w, rtol=1e-5 if dtype == "complex64" else 1e-12, atol=1e-6)
    after = nb.engine_stats()
    assert after["evaluations"] - before["evaluations"] == 1 and after["compiles"] == before["compiles"]
    assert after["interpreted"] == before["interpreted"]
    numpy.testing.assert_allclose(numpy.asarray(p), numpy.asarray(G)[0, 0] @ numpy.asarray(H)[1], rtol=1e-5)
