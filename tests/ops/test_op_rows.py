"""A new elementwise op is one row: registered, it runs on every path (the fused kernel, MAX's
interpreter, a compiled model, grad, vmap, sharding, complex operands), and the faces built from the
rows take it. The toy op is exp under a name of its own: exp's lowering, formula and opcode, and a
NumPy ufunc of its name (NumPy's exp, under that name while a test runs)."""

import numpy as np
import pytest

import nabla as nb
import nabla.numpy as nnp
from nabla.array_api import _elementwise
from nabla.core.operation import OPS, Fused
from nabla.core.tensor import Tensor
from nabla.numpy import _ufunc_table
from nabla.ops import complex_formulas as F
from nabla.ops import lowerings as L
from nabla.ops.elementwise_rows import UNARY_FUNCTIONS, UNARY_OPS, UNARY_TABLE, Unary, register
from nabla.ops.tensor_methods import row_methods
from nabla.runtime.fused_codes import UNARY_CODES
from nabla.sharding import DeviceMesh, P

from ..runtime.fused_paths import run

R = np.random.default_rng(5)


@pytest.fixture
def toy_exp():
    row = Unary(L.exp, "float", lambda x, y, t: t * y, fused=Fused(UNARY_CODES["exp"]), formula=F.exp,
                ufuncs=("toy_exp",), plain_on="real_float", method=True)
    register("toy_exp", row)
    try:
        yield UNARY_FUNCTIONS["toy_exp"]
    finally:
        for table in (UNARY_TABLE, UNARY_OPS, UNARY_FUNCTIONS, OPS):
            del table["toy_exp"]


def test_a_new_row_runs_on_the_kernel_and_the_interpreter(toy_exp):
    x = R.uniform(-3, 3, (5, 7))
    for fused in (True, False):
        got, ran_fused = run(lambda a: toy_exp(a) * 2 - 1, x, fused=fused)
        assert ran_fused == fused
        np.testing.assert_allclose(got, np.exp(x) * 2 - 1, rtol=1e-14)
    z = x + 1j * R.uniform(-3, 3, x.shape)  # its formula on (re, im) pairs, on both paths
    for fused in (True, False):
        got, ran_fused = run(toy_exp, z, fused=fused)
        assert ran_fused == fused
        np.testing.assert_allclose(got, np.exp(z), rtol=1e-13)


def test_a_new_row_differentiates_batches_compiles_and_shards(toy_exp):
    x = R.uniform(-2, 2, (8, 3))
    grad = nb.grad(lambda a: nb.sum(toy_exp(a) * a))(nb.asarray(x)).numpy()
    eps = 1e-6
    numeric = (np.exp(x + eps) * (x + eps) - np.exp(x - eps) * (x - eps)) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6)
    batched = nb.vmap(lambda row: toy_exp(row) - row)(nb.asarray(x)).numpy()
    np.testing.assert_allclose(batched, np.stack([np.exp(r) - r for r in x]), rtol=1e-14)
    compiled = nb.compile(lambda a: toy_exp(a) / 3)
    np.testing.assert_allclose(compiled(nb.asarray(x)).numpy(), np.exp(x) / 3, rtol=1e-14)
    sharded = toy_exp(nb.asarray(x).shard(DeviceMesh((2,), ("a",)), P("a", None)))
    assert sharded.sharding is not None
    np.testing.assert_allclose(sharded.numpy(), np.exp(x), rtol=1e-14)


def test_the_faces_built_from_the_rows_take_a_new_row(toy_exp):
    fn = _elementwise.build()["toy_exp"]
    x = R.uniform(-1, 1, 4)
    np.testing.assert_allclose(fn(nb.asarray(x)).numpy(), np.exp(x), rtol=1e-14)
    with pytest.raises(TypeError, match="toy_exp"):
        fn(1.0)  # the standard's functions take arrays


@pytest.mark.usefixtures("recorded_small_ops")
def test_the_numpy_face_and_the_methods_take_a_new_rows_ufuncs_and_method(toy_exp, monkeypatch):
    monkeypatch.setattr(np, "toy_exp", np.exp, raising=False)  # (the NumPy ufunc that resolves its dtypes)
    toy = _ufunc_table.build()["toy_exp"]  # the face's table, built from the rows as the face loads
    ints = np.arange(-2, 3)
    np.testing.assert_allclose(toy(nnp.asarray(ints)).numpy(), np.exp(ints), rtol=1e-14)  # (resolved: float64)
    x = R.uniform(-1, 1, 6)
    a = nnp.asarray(x)
    fast = toy._plain(a)  # the fast path its ``plain_on`` gives: the op recorded as it is
    assert fast._impl._values[0].node.op is UNARY_OPS["toy_exp"]
    np.testing.assert_allclose(fast.numpy(), np.exp(x), rtol=1e-14)
    assert toy._plain(nnp.asarray(ints)) is None  # (integers: NumPy's loop is not the op's)
    monkeypatch.setattr(Tensor, "toy_exp", row_methods()["toy_exp"], raising=False)  # (as ``tensor_api`` binds)
    np.testing.assert_allclose(nb.asarray(x).toy_exp().numpy(), np.exp(x), rtol=1e-14)
    np.testing.assert_allclose(a.toy_exp().numpy(), np.exp(x), rtol=1e-14)
