import pytest

from nabla.core.graph import GRAPH


@pytest.fixture
def fused_on(fused_kernels):
    """The fused kernel's models are built and the engine uses the kernel."""
    GRAPH.engine.fused_enabled = True
