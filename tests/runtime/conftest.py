import pytest

from nabla.core.graph import GRAPH


@pytest.fixture
def fused_on(fused_kernels):
    """The fused kernel's models are built and the engine uses the kernel."""
    GRAPH.engine.fused_enabled = True


def counted_stages(monkeypatch, kind: int) -> list:
    """The stages of ``kind`` (``program_kernel.COPY``, ...) in each program planned from here on,
    one count per plan."""
    from nabla.runtime import program
    counts = []
    planned = program.Scheduler.plan
    monkeypatch.setattr(program.Scheduler, "plan", lambda self: (
        counts.append(sum(s.kind == kind for s in self.stages)), planned(self))[1])
    return counts


@pytest.fixture
def copies(monkeypatch):
    """The whole-buffer copy stages of each program planned from here on, one count per plan."""
    from nabla.runtime.program_kernel import COPY
    return counted_stages(monkeypatch, COPY)


@pytest.fixture
def fresh_kinds(monkeypatch):
    """No plans of small ops yet, no kind recorded (a kind whose plans did not pay back is recorded
    for the rest of the process: the tests before would decide this one's)."""
    scalars = GRAPH.engine.scalars
    monkeypatch.setattr(scalars, "_small", {})
    monkeypatch.setattr(scalars, "_kinds", {})
    monkeypatch.setattr(scalars, "_lengths", {})
