"""Nabla's core: Tensor/TensorImpl, the trace, the realization engine, pytrees, context."""

from . import dtypes
from .context import default_device, default_dtype, get_default_device, get_default_dtype
from .graph import GRAPH, ComputeGraph, engine_stats, reset_engine_stats
from .operation import Operation
from .pytree import (PyTreeDef, register_dataclass_node, register_pytree_node, tree_flatten, tree_leaves,
                     tree_map, tree_structure, tree_unflatten)
from .tensor import Tensor, traced
from .tensor_impl import TensorImpl
from .tracing import OutputRefs
