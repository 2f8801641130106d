import os
import tempfile

import numpy as np
import pytest

# A private compiled-model cache per test session, so first sight really is first sight.
os.environ.setdefault("NABLA_CACHE_DIR", tempfile.mkdtemp(prefix="nabla-test-cache-"))

import nabla as nb  # noqa: E402


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture
def stats():
    """Engine counters relative to the start of the test."""
    nb.wait_for_compiles()  # background compiles of earlier tests land before the baseline
    before = nb.engine_stats()

    def delta():
        now = nb.engine_stats()
        return {k: now[k] - before[k] for k in now if isinstance(now[k], int)}

    return delta
