"""How a trace runs at first sight, before (or instead of) a compiled model of its own: the
strategies the engine (``core/engine.py``) asks, in order, through ``FirstSightPaths``:

- ``fused.py``: elementwise work, reductions, gathers and concatenations as a program for Nabla's
  fused Mojo kernel (``ops/kernels/core/fused.mojo``), written by ``fused_program.py`` from the
  opcode tables in ``fused_codes.py``; no compile per structure;
- ``single_op.py``: an op alone (a linalg, FFT or sort kernel, or any op of a trace run node by
  node) on a single-op model that serves every size, kept in the kernel cache and built in bundles
  by ``single_op_compiler.py``;
- ``first_run.py``: on a machine that has built nothing, the models first runs need
  (``first_run.json``), built on every core while the program waits only for what it uses.

MAX's interpreter (``core/interpreter.py``) and the compiled model (``core/compiler.py``) are the
engine's own. Each strategy is a ``paths.FirstSightPath``; importing this package installs them on
the engine.
"""

from ..core.engine import Engine as _Engine
from .first_run import ask as _build_now, pending as _being_built
from .fused import FusedPath as _FusedPath
from .paths import FirstSightPaths as _FirstSightPaths
from .program import ProgramPath as _ProgramPath
from .single_op import SingleOpPath as _SingleOpPath

_Engine.first_sight = _FirstSightPaths(_FusedPath(), _SingleOpPath())
_Engine.programs = _ProgramPath()
_Engine.being_built = _being_built  # a cold machine's first run waits for its first-run build's parts
_Engine.build_now = _build_now
