"""Nabla's own Mojo kernels (``kernels/``), for what no MAX graph op can express.

Each kernel is declared with ``max.experimental.custom.declare`` so MAX's eager
interpreter runs it as well as the compiler. The Mojo package is built once per
digest of its sources (3-14 s) into Nabla's disk cache and reused by every later
process; MAX itself would rebuild it in every process. Kernels take rank-1
operands; callers flatten and restore the shape.
"""

from __future__ import annotations

import functools
import os
import shutil
import threading
from pathlib import Path

from max.dtype import DType
from max.graph import ops

KERNEL_DIR = Path(__file__).with_name("kernels")
_BUILD_LOCK = threading.Lock()


@functools.cache
def kernel_digest() -> str:
    """A digest of the kernels' sources and of the Python that declares and stages them."""
    from ..core.disk_cache import source_digest

    here = Path(__file__).parent
    return source_digest(KERNEL_DIR, (".mojo",), extra=(here / "custom_kernels.py", here / "fused.py"))


@functools.cache
def kernel_library() -> Path:
    """The built package of ``kernels/`` (built on first use per source digest), or the source
    folder itself when there is no kernel cache (MAX then builds it in this process)."""
    from ..core.disk_cache import kernel_cache_dir

    root = kernel_cache_dir()
    if root is None:
        return KERNEL_DIR
    target = root / "mojo" / kernel_digest() / "nabla_kernels.mojoc"
    with _BUILD_LOCK:
        if not target.exists():
            from mojo.run import subprocess_run_mojo

            # the compiler bakes the module name from the output's stem: stage under the final name
            staging = target.parent / f".staging.{os.getpid()}.{threading.get_ident()}"
            staging.mkdir(parents=True, exist_ok=True)
            try:
                subprocess_run_mojo(["precompile", str(KERNEL_DIR), "-o", str(staging / target.name)],
                                    capture_output=True, check=True)
                os.replace(staging / target.name, target)  # atomic: other processes see all or nothing
            finally:
                shutil.rmtree(staging, ignore_errors=True)
    return target


@functools.cache
def _declared_sign_bit():
    from max.experimental import custom

    (n,) = custom.Symbols("n")
    return custom.declare(
        "nabla_signbit",
        inputs={"x": custom.TemplateType(custom.DTypeVar("T"), [n])},
        outputs=[custom.TemplateType(DType.bool, [n])],
        custom_extensions=[kernel_library()],
    )


def sign_bit(x):
    """The sign bit of each element of a float ``TensorValue``, NaN's included."""
    flat = ops.reshape(x, [-1]) if x.rank != 1 else x
    out = _declared_sign_bit()(flat)
    return ops.reshape(out, x.shape) if x.rank != 1 else out


@functools.cache
def fused_kernel(reduce: bool):
    """The fused evaluator (kernels/fused.mojo): program, constants and four data slots in; the
    values (or their reduction, one element) out."""
    from max.experimental import custom

    T = custom.DTypeVar("T")
    p, c, n0, n1, n2, n3 = custom.Symbols("p", "c", "n0", "n1", "n2", "n3")
    inputs = {"prog": custom.TemplateType(DType.int32, [p]), "consts": custom.TemplateType(DType.float64, [c])}
    inputs.update({f"x{k}": custom.TemplateType(T, [n]) for k, n in enumerate((n0, n1, n2, n3))})
    return custom.declare(
        "nabla_fused_reduce" if reduce else "nabla_fused_map",
        inputs=inputs,
        outputs=[custom.TemplateType(T, [1] if reduce else [n0])],
        custom_extensions=[kernel_library()],
    )
