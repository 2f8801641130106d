"""pytest plugin for the runner: Hypothesis without its shrink phase.

Shrinking only makes a failure's example smaller; pass/fail is the same, and on MAX's
interpreter each shrink step realizes graphs, so a run with failures would take hours.
"""

import pytest
from hypothesis import Phase, settings


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    current = settings()
    settings.register_profile("nabla-conformance", parent=current,
                              phases=[p for p in Phase if p is not Phase.shrink and p is not Phase.explain])
    settings.load_profile("nabla-conformance")
