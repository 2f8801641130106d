"""Marks shared by the suite's modules."""

import os

import pytest

# opt-in: minutes each (compile-only runs for virtual GPUs, a compile of every op)
SLOW = [pytest.mark.slow,
        pytest.mark.skipif(not os.environ.get("NABLA_SLOW_TESTS"), reason="slow: set NABLA_SLOW_TESTS=1")]
