"""Compile-only: the multi-device lowering built for two virtual sm_90 GPUs (MAX's virtual device
mode) and compiled, never run. Slow (each graph compiles in 1-2 min here), so opt-in:

    NABLA_SLOW_TESTS=1 python -m pytest tests/sharding/test_sharding_gpu_compile.py
"""

from ..marks import SLOW
from ..virtual_gpus import run_on_virtual_gpus

pytestmark = SLOW

_SCRIPT = """
    from max import driver
    import numpy as np
    import nabla as nb
    from nabla.sharding import DeviceMesh, P, collectives_recorded
    from nabla.sharding.devices import compile_only

    mesh = DeviceMesh((2,), ("dp",), devices=[driver.Accelerator(0), driver.Accelerator(1)])
    rng = np.random.default_rng(0)
    w1 = nb.asarray(rng.standard_normal((16, 32)).astype(np.float32)).shard(mesh, P())
    w2 = nb.asarray(rng.standard_normal((32, 4)).astype(np.float32)).shard(mesh, P())
    x = nb.asarray(rng.standard_normal((64, 16)).astype(np.float32)).shard(mesh, P("dp"))
    y = nb.asarray(rng.standard_normal((64, 4)).astype(np.float32)).shard(mesh, P("dp"))

    def loss(w1, w2):
        return nb.mean((nb.tanh(x @ w1) @ w2 - y) ** 2)

    with collectives_recorded() as log:  # a data-parallel step: each gradient all-reduced once
        l, (g1, g2) = nb.value_and_grad(loss, argnums=(0, 1))(w1, w2)
        new = [w1 - 0.1 * g1, w2 - 0.1 * g2]
    assert log == [("all_reduce_sum", ("dp",))] * 2, log
    assert [v.device for v in new[0]._impl._values] == mesh.devices
    print("step", compile_only([l, *new]))

    with collectives_recorded() as log:  # gathers and a pending max on the accelerators
        m = nb.max(nb.tanh(x @ w1), axis=0).shard(mesh, P())
        z = x.shard(mesh, P())
    assert log == [("all_reduce_max", ("dp",)), ("all_gather", ("dp",))], log
    print("gather", compile_only([m, z]))
"""


def test_data_parallel_step_compiles_for_two_virtual_gpus():
    out = run_on_virtual_gpus(_SCRIPT, 2)
    lines = dict(line.split() for line in out.splitlines() if line.startswith(("step ", "gather ")))
    assert set(lines) == {"step", "gather"}, out
