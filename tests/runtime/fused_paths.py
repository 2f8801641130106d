"""Running a test's function down the fused kernel's path or the others, for the fused kernel's tests
(their fixture ``fused_on`` is in this package's conftest)."""

import numpy as np

import nabla as nb
from nabla.core.graph import GRAPH


def run(fn, *arrays, fused=True):
    """``fn`` on fresh tensors down one path; returns (NumPy result, whether it ran fused)."""
    engine = GRAPH.engine
    engine.fused_enabled = fused
    try:
        before = nb.engine_stats()["fused"]
        out = fn(*[nb.asarray(a) for a in arrays]).numpy()
        return out, nb.engine_stats()["fused"] > before
    finally:
        engine.fused_enabled = True


def on_the_kernel(fn, data):
    """(``fn`` of ``nabla.numpy`` on ``data``, ``fn`` of NumPy on it): Nabla's run on the fused kernel
    (or a model an earlier test's structure compiled: a cache hit), never the interpreter or a
    compile; dtypes and shapes equal."""
    import nabla.numpy as nnp

    before = nb.engine_stats()
    got = np.asarray(fn(nnp, *map(nnp.asarray, data)))
    after = nb.engine_stats()
    with np.errstate(all="ignore"):
        want = fn(np, *data)
    assert after["fused"] + after["cache_hits"] > before["fused"] + before["cache_hits"], (before, after)
    assert after["interpreted"] == before["interpreted"] and after["compiles"] == before["compiles"]
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    return got, want
