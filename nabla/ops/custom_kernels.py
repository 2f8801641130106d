"""Nabla's own Mojo kernels (``kernels/<package>/``), for what no MAX graph op can express.

Each kernel is declared with ``max.experimental.custom.declare`` so MAX's eager
interpreter runs it as well as the compiler. The Mojo package is built once per
digest of its sources (3-14 s) into Nabla's disk cache and reused by every later
process; MAX itself would rebuild it in every process. Kernels take rank-1
operands; callers flatten and restore the shape.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import threading
from pathlib import Path

from max.dtype import DType
from ..core.lazy_module import graph_ops as ops

from ..core import dtypes as _dt
from ..core.operation import OPS, Operation
from ..core.pytree import tree_map
from ..core.tensor import Tensor
from ..core.disk_cache import kernel_cache_dir, source_digest

KERNEL_DIR = Path(__file__).with_name("kernels")
#: kernel package -> the Python files (under nabla/) that declare and stage it: part of its digest
PACKAGES = {"bits": ("ops/custom_kernels.py",),
            "linalg": ("ops/custom_kernels.py", "ops/factorizations.py", "ops/spectral.py"),
            "fft": ("ops/custom_kernels.py", "ops/fourier.py"),
            "sort": ("ops/custom_kernels.py", "ops/sorting.py"),
            "random": ("ops/custom_kernels.py", "ops/random_bits.py")}
_BUILD_LOCK = threading.Lock()


class KernelOperation(Operation):
    """An op lowered to one of Nabla's kernel packages (``kernel_package``); complex operands reach
    ``maxpr`` as ``cplx=True`` with their interleaved storage."""

    supports_complex = True
    shape_polymorphic = True
    #: alone in a trace on host operands, it runs on a compiled model of its own (runtime/single_op.py)
    single_op = True
    kernel_package = "linalg"

    #: operand dtypes whose work this op's kernel does in a wider dtype on the host (its results cast
    #: back): one model per kernel and form serves both, where each dtype would be a model of its own
    #: for a fresh machine to build (a float32 ``lstsq`` took a script's first run 17 s more)
    widened: dict | None = None

    def __call__(self, *args, **kwargs):
        widened = self.widened
        if widened is None or not args or not all(isinstance(a, Tensor) for a in args) \
                or any(widened.get(a._impl.dtype) is None or not a._impl.device.is_host for a in args):
            return super().__call__(*args, **kwargs)
        cast = OPS["astype"]  # (the registry's: ops/casts.py's lowering imports this module's kernels)
        narrow = {wide: dtype for dtype, wide in widened.items()}
        out = super().__call__(*(cast(a, dtype=widened[a._impl.dtype]) for a in args), **kwargs)
        return tree_map(lambda t: cast(t, dtype=narrow[t._impl.dtype]) if t._impl.dtype in narrow else t, out,
                        is_leaf=lambda t: isinstance(t, Tensor))

    def complex_storage_kwargs(self, kwargs):
        return {**kwargs, "cplx": True}

    def single_op_form(self, kwargs: dict, shapes: list):
        """``(kwargs, dims, views)``: a canonical form for the single-op model, so one model serves
        every rank and axis (operands are viewed as ``views``, dims may name symbols), or None to
        build it for the node's own shapes (sizes above 2 made symbolic)."""
        return None


#: float32 and complex64 work done in float64 and complex128, then rounded once: within float32's
#: precision of NumPy's single-precision results, and one model per kernel and form for both
WIDER = {_dt.float32: _dt.float64, _dt.complex64: _dt.complex128}


@functools.cache
def kernel_digest(package: str) -> str:
    """A digest of one package's sources and of the Python that declares and stages them: editing
    the linalg kernels leaves the fused evaluator's compiled models valid."""
    nabla = Path(__file__).resolve().parent.parent
    return source_digest(KERNEL_DIR / package, (".mojo",), extra=tuple(nabla / f for f in PACKAGES[package]))


@functools.cache
def kernel_library(package: str) -> Path:
    """The built Mojo package ``kernels/<package>`` (built on first use per source digest), or the
    source folder itself when there is no kernel cache (MAX then builds it in this process)."""
    source = KERNEL_DIR / package
    root = kernel_cache_dir()
    if root is None:
        return source
    target = root / "mojo" / kernel_digest(package) / f"nabla_{package}.mojoc"
    with _BUILD_LOCK:
        if not target.exists():
            from mojo.run import subprocess_run_mojo  # (lazy: Mojo's toolchain, needed only to build)

            # the compiler bakes the module name from the output's stem: stage under the final name
            staging = target.parent / f".staging.{os.getpid()}.{threading.get_ident()}"
            staging.mkdir(parents=True, exist_ok=True)
            try:
                subprocess_run_mojo(["precompile", str(source), "-o", str(staging / target.name)],
                                    capture_output=True, check=True)
                os.replace(staging / target.name, target)  # atomic: other processes see all or nothing
            finally:
                shutil.rmtree(staging, ignore_errors=True)
    return target


@functools.cache
def _declared_sign_bit():
    # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
    from max.experimental import custom

    (n,) = custom.Symbols("n")
    return custom.declare(
        "nabla_signbit",
        inputs={"x": custom.TemplateType(custom.DTypeVar("T"), [n])},
        outputs=[custom.TemplateType(DType.bool, [n])],
        custom_extensions=[kernel_library("bits")],
    )


def sign_bit(x):
    """The sign bit of each element of a float ``TensorValue``, NaN's included."""
    flat = ops.reshape(x, [-1]) if x.rank != 1 else x
    out = _declared_sign_bit()(flat)
    return ops.reshape(out, x.shape) if x.rank != 1 else out


#: linalg kernel -> (input dims, output dims), over symbols b (stack), m (rows), c (stored columns:
#: 2 per complex value), k (right-hand sides); ``n`` is the column count c // w and ``mw`` the
#: stored width of m columns. Shapes tell the kernels real from complex.
_LINALG_SIGNATURES = {
    "cholesky": (("bmc",), ("bmc",)),
    "lu_solve": (("bmc", "bmk"), ("bmk",)),
    "lu_det": (("bmc",), ("b5",)),
    "qr_reduced": (("bmc",), ("bmc", "bnc")),  # m >= n
    "qr_complete": (("bmc",), ("bm[mw]", "bmc")),
    "eigh": (("bmc",), ("bm", "bmc")),
    "svd_reduced": (("bmc",), ("bmc", "bn", "bnc")),  # m >= n
    "svd_complete": (("bmc",), ("bm[mw]", "bn", "bnc")),
    "eig": (("bmc",), ("bc", "bmc")),  # complex only
}


@functools.cache
def linalg_kernel(name: str, cplx: bool):
    """The declared linalg kernel ``nabla_<family>`` (kernels/linalg/) for float64 stacks."""
    # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
    from max.experimental import custom

    b, m, c, k = custom.Symbols("b", "m", "c", "k")
    w = 2 if cplx else 1
    dims = {"b": b, "m": m, "c": c, "k": k, "n": c if w == 1 else c // 2, "mw": m if w == 1 else m * 2, "5": 5}

    def template(spec):
        return custom.TemplateType(DType.float64, [dims[long or short]
                                                   for long, short in re.findall(r"\[(\w+)\]|(\w)", spec)])

    ins, outs = _LINALG_SIGNATURES[name]
    return custom.declare(
        "nabla_" + (name.split("_")[0] if name.startswith(("qr", "svd")) else name),
        inputs={f"x{i}": template(s) for i, s in enumerate(ins)},
        outputs=[template(s) for s in outs],
        custom_extensions=[kernel_library("linalg")],
    )


@functools.cache
def fft_kernel():
    """The FFT kernel (kernels/fft/): x (b, rows, cols) of float32 or float64 transformed along
    axis 1 (or axes 1 and 2), the spec [sign, scaling, dims], and two operands that only carry the
    output's sizes."""
    # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
    from max.experimental import custom

    b, r, c, ro, co = custom.Symbols("b", "r", "c", "ro", "co")
    T = custom.DTypeVar("T")
    return custom.declare(
        "nabla_fft",
        inputs={"x": custom.TemplateType(T, [b, r, c]), "spec": custom.TemplateType(DType.float64, [3]),
                "rows": custom.TemplateType(DType.uint8, [ro]), "cols": custom.TemplateType(DType.uint8, [co])},
        outputs=[custom.TemplateType(T, [b, ro, co])],
        custom_extensions=[kernel_library("fft")],
    )


@functools.cache
def sort_kernel():
    """The sort kernel (kernels/sort/): x (b, n, k) sorted along axis 1, stably, into the values and
    the permutation (int64); ``spec`` = [descending]."""
    # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
    from max.experimental import custom

    b, n, k = custom.Symbols("b", "n", "k")
    T = custom.DTypeVar("T")
    return custom.declare(
        "nabla_sort",
        inputs={"x": custom.TemplateType(T, [b, n, k]), "spec": custom.TemplateType(DType.int64, [1])},
        outputs=[custom.TemplateType(T, [b, n, k]), custom.TemplateType(DType.int64, [b, n, k])],
        custom_extensions=[kernel_library("sort")],
    )


@functools.cache
def random_kernel(dtype):
    """The Philox kernel (kernels/random/): a draw of ``size``'s length into ``dtype`` (uint32 words,
    float32 or float64 values) from ``state`` = [key, start counter, stream, kind]."""
    # (lazy: MAX's modules beyond its driver and dtypes load where used; max.graph alone costs ~0.1 s)
    from max.experimental import custom

    s, m = custom.Symbols("s", "m")  # s: the state's 4 (engines may name any size symbolically)
    return custom.declare(
        "nabla_random",
        inputs={"state": custom.TemplateType(DType.uint64, [s]), "size": custom.TemplateType(DType.uint8, [m])},
        outputs=[custom.TemplateType(dtype, [m])],
        custom_extensions=[kernel_library("random")],
    )
