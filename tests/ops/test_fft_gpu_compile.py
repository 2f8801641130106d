"""Compile-only: the FFT kernel's GPU path (kernels/fft/gpu.mojo) built into graphs for a virtual
sm_90 GPU (MAX's virtual device mode), never run: every kind (c2c, r2c, c2r), a Bluestein length,
an inner axis and a 2-D transform. Run on a real GPU by ``python -m bench.gpu_check``. Opt-in (about
a minute):

    NABLA_SLOW_TESTS=1 python -m pytest tests/ops/test_fft_gpu_compile.py
"""

from ..marks import SLOW
from ..virtual_gpus import run_on_virtual_gpus

pytestmark = SLOW

_SCRIPT = """
    from max import driver
    import numpy as np
    import nabla as nb
    from nabla.core.tensor import Tensor
    from nabla.core.tensor_impl import TensorImpl
    from nabla.sharding.devices import compile_only, to_device

    def on_gpu(a):
        t = nb.asarray(a)
        return Tensor(TensorImpl([to_device(t._impl._values[0], driver.Accelerator(0))], t.dtype))

    x = on_gpu(np.random.rand(8, 1000).astype(np.float32))
    z = on_gpu((np.random.rand(4, 64, 48) + 1j).astype(np.complex128))
    outs = [nb.fft.fft(x), nb.fft.irfft(nb.fft.rfft(x), n=1000), nb.fft.fftn(z, axes=(1, 2)),
            nb.fft.ifft(z, axis=1, norm="ortho")]
    assert all(not o.device.is_host for o in outs)
    print("compiled", compile_only(outs))
"""


def test_fft_gpu_path_compiles_for_a_virtual_sm90():
    out = run_on_virtual_gpus(_SCRIPT, 1)
    assert "compiled" in out
