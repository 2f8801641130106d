"""Nabla: a lazy-eager array framework on Modular's MAX."""

import importlib

from .core import (GRAPH, Operation, OutputRefs, PyTreeDef, Tensor, TensorImpl, default_device, default_dtype,
                   engine_stats, register_dataclass_node, traced, register_pytree_node, reset_engine_stats, tree_flatten,
                   tree_leaves, tree_map, tree_structure, tree_unflatten)
from .core.context import accelerator, cpu
from .core.dtypes import (DType, bool_, float16, float32, float64, int8, int16, int32, int64, result_type,
                          uint8, uint16, uint32, uint64)
from .ops import *  # noqa: F401,F403
from .ops import max, min, sum  # noqa: A004  (NumPy's names, on purpose)
from . import runtime
from .runtime.fused import warm_program_kernel as _warm_program_kernel
from .transforms import compile, grad, hessian, jacfwd, jacrev, jvp, no_grad, value_and_grad, vjp, vmap  # noqa: A004

GRAPH.engine = runtime.new_engine()  # (the engine every thread uses, with Nabla's execution paths)

bool = bool_  # noqa: A001


def wait_for_compiles() -> None:
    """Block until background compiles have landed (benchmarks and tests use this)."""
    GRAPH.engine.wait_for_compiles()


def set_realization_policy(policy: str) -> None:
    """``'auto'`` (interpret first sight, compile on repeat), ``'compile'`` or ``'interpret'``."""
    if policy not in ("auto", "compile", "interpret"):
        raise ValueError(f"nabla.set_realization_policy: unknown policy {policy!r}")
    GRAPH.engine.policy = policy


def warm_program_kernel(wait: bool = True) -> bool:
    """Build the program kernel now (once per machine: later processes load it in milliseconds);
    ``wait=False`` starts the build and returns. Returns whether it is ready."""
    return _warm_program_kernel(wait)


__version__ = "0.1.0"

from . import array_api  # noqa: E402  (the standard's namespace)
from .array_api import fft, linalg  # noqa: E402

# NumPy's face and nabla.sharding load on first use (``import nabla.numpy as np`` also works); a
# sharded tensor can only come from nabla.sharding
_SHARDING_NAMES = ("DeviceMesh", "NamedSharding", "P", "PartitionSpec", "device_put", "shard_map")


def __getattr__(name):
    if name in ("numpy", "sharding"):
        return importlib.import_module("." + name, __name__)
    if name == "random":  # NumPy's random API on MAX, where libraries look for ``<library>.random`` (Dask)
        return importlib.import_module(".numpy.random", __name__)
    if name in _SHARDING_NAMES:
        return getattr(importlib.import_module(".sharding", __name__), name)
    raise AttributeError(f"module 'nabla' has no attribute {name!r}")

from . import tensor_api  # noqa: E402,F401  (binds Tensor's methods, from every layer, in one place)

