"""Denormal floats kept, as NumPy keeps them: the fused kernel's work runs on MAX's worker threads,
which flush denormals to zero (SSE's MXCSR FTZ and DAZ bits set); ``with KeepDenormals():``
clears both bits for the work inside and restores the thread's own setting after it."""

from std.sys.info import CompilationTarget
from std.sys.intrinsics import llvm_intrinsic
from std.memory import UnsafePointer

#: MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6) bits
comptime _FTZ_DAZ = Int32(0x8040)


struct KeepDenormals:
    """Clears MXCSR's FTZ and DAZ bits on entry (x86; elsewhere nothing), restores them on exit."""

    var saved: Int32

    def __init__(out self):
        self.saved = 0

    def __enter__(mut self):
        comptime if CompilationTarget.is_x86():
            var csr: Int32 = 0
            llvm_intrinsic["llvm.x86.sse.stmxcsr", NoneType](UnsafePointer(to=csr))
            self.saved = csr
            var kept = csr & ~_FTZ_DAZ
            llvm_intrinsic["llvm.x86.sse.ldmxcsr", NoneType](UnsafePointer(to=kept))

    def __exit__(mut self):
        comptime if CompilationTarget.is_x86():
            var csr = self.saved
            llvm_intrinsic["llvm.x86.sse.ldmxcsr", NoneType](UnsafePointer(to=csr))
