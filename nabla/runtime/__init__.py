"""How traces run: the engine's execution paths (``paths.py``, asked in order by
``core/engine.py``: a known program, a compiled model, the program kernel, stages, MAX's
interpreter or a compile), and the kernels they run on:

- ``program.py``: a whole trace scheduled as one program of stages for the program kernel
  (``program_kernel.py``, ``kernels/nabla_vm.mojo``), one call per read;
- ``fused.py``: elementwise work, reductions, gathers and concatenations as a program of the fused
  evaluator (``runtime/kernels/evaluator/fused.mojo``), written by ``fused_program.py`` from the opcode
  tables in ``fused_codes.py``; no compile per structure;
- ``single_op.py``: an op alone (a linalg, FFT or sort kernel, or any op of a trace run node by
  node) on a single-op model that serves every size, kept in the kernel cache and built in bundles
  by ``single_op_compiler.py``;
- ``first_run.py``: on a machine that has built nothing, the models first runs need
  (``first_run.json``), built on every core while the program waits only for what it uses.

MAX's interpreter (``core/interpreter.py``) and compiled models (``core/compiler.py``) are the
engine's own services. ``new_engine()`` is an engine with these paths; ``nabla`` makes the one
every thread uses.
"""

from ..core.engine import Engine
from .host_scalars import HostScalars
from .paths import default_paths
from .program import ProgramPath


def new_engine() -> Engine:
    """An engine with Nabla's execution paths and host scalar ops (``nabla`` makes the one every
    thread uses)."""
    return Engine(paths=default_paths(), scalars=HostScalars(ProgramPath()))
