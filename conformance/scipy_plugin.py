"""pytest plugin for ``python -m conformance.scipy``: ``nabla.array_api`` as one more backend of
SciPy's ``xp`` fixture, the tests of the backends asked for, each outcome written as it happens.

SciPy's ``conftest.py`` lists the array libraries it knows (``xp_known_backends``) and makes its
``xp`` fixture over those it finds. This plugin adds Nabla to both before pytest reads the
fixture, as SciPy adds torch: eager (SciPy's ``eager_only`` skips do not apply), on the CPU, the
default float set to float64 (SciPy sets torch's so). The fixture's body is SciPy's: its skip and
xfail markers, ``array_namespace``, ``patch_lazy_xp_functions`` and ``default_xp`` as they are.

Set by the runner in the environment:
- ``NABLA_SCIPY_BACKENDS``: the backend ids to run (others are deselected);
- ``NABLA_SCIPY_SAMPLE``: keep a test when the hash of its id (the backend left out) falls in this
  fraction (the same tests for every backend);
- ``NABLA_SCIPY_OUT``: a file that gets one JSON line per test outcome as it happens;
- ``NABLA_SCIPY_DONE``: ids already recorded (a run restarted after a test timed out skips them);
- ``NABLA_SCIPY_TIMEOUT``: seconds a test may run; past them its outcome is ``timeout`` and the
  process exits (a test stuck in compiled code cannot be interrupted), and the runner restarts it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time

import pytest

NABLA = "nabla.array_api"
_FLOAT64 = None
#: SciPy's reasons for skipping JAX or Dask where a test writes into an array through
#: ``np.asarray`` (a host buffer view): Nabla's ``np.asarray`` is a copy, as theirs is
NON_BUFFER = re.compile(r"buffer|read-only|mutates|in-place|inplace|immutable|overwrite", re.I)
#: nodeid -> such a reason, for the tests this process runs on Nabla
_NON_BUFFER_TESTS: dict = {}


def base_id(nodeid: str, backends) -> str:
    """The test's id with its backend's parameter id written ``{xp}``."""
    for b in sorted(backends, key=len, reverse=True):
        for sep in ("[", "-"):
            for end in ("]", "-"):
                token = f"{sep}{b}{end}"
                if token in nodeid:
                    return nodeid.replace(token, f"{sep}{{xp}}{end}", 1)
    return nodeid


def sampled(base: str, fraction: float) -> bool:
    digest = hashlib.sha1(base.encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2 ** 32 < fraction


def _nabla_param():
    import nabla.array_api as nxp

    return pytest.param(nxp, id=NABLA, marks=pytest.mark.array_api_backends)


def _xp_fixture(conftest, params):
    def xp(request):
        conftest.skip_or_xfail_xp_backends(request, "skip")
        conftest.skip_or_xfail_xp_backends(request, "xfail")
        module = request.param
        namespace = conftest.array_namespace(module.empty(0))
        if conftest.SCIPY_ARRAY_API:
            with conftest.patch_lazy_xp_functions(request=request, xp=module):
                with conftest.default_xp(namespace):
                    yield namespace
        else:
            yield namespace

    xp.__doc__ = "SciPy's ``xp`` fixture over its backends and Nabla's (see conformance/scipy_plugin.py)."
    return pytest.fixture(params=params)(xp)


@pytest.hookimpl(tryfirst=True)
def pytest_plugin_registered(plugin, manager):
    """SciPy's conftest, as it is registered and before its fixtures are read: Nabla added."""
    name = getattr(plugin, "__name__", "")
    if not (name == "scipy.conftest" or name.endswith("scipy/conftest.py") or
            (name.endswith("conftest") and hasattr(plugin, "xp_available_backends"))):
        return
    if any(getattr(p, "id", None) == NABLA for p in plugin.xp_available_backends):
        return
    plugin.xp_known_backends.add(NABLA)
    plugin.xp_available_backends.append(_nabla_param())
    plugin.xp = _xp_fixture(plugin, list(plugin.xp_available_backends))


def pytest_configure(config):
    import nabla

    global _FLOAT64  # (held: a context manager collected would reset the default)
    _FLOAT64 = nabla.default_dtype(nabla.float64)
    _FLOAT64.__enter__()  # (for the process, as SciPy sets torch's default)
    out = os.environ.get("NABLA_SCIPY_OUT")
    if out:
        config.pluginmanager.register(_Recorder(out, float(os.environ.get("NABLA_SCIPY_TIMEOUT", "0"))),
                                      "nabla-scipy-recorder")


def _backend_of(item) -> str | None:
    spec = getattr(item, "callspec", None)
    if spec is None or "xp" not in spec.params:
        return None
    module = spec.params["xp"]
    return getattr(module, "__name__", None)


def pytest_collection_modifyitems(config, items):
    wanted = set(filter(None, os.environ.get("NABLA_SCIPY_BACKENDS", "").split(",")))
    fraction = float(os.environ.get("NABLA_SCIPY_SAMPLE", "1"))
    done_file = os.environ.get("NABLA_SCIPY_DONE")
    done = set(open(done_file).read().split("\n")) if done_file and os.path.exists(done_file) else set()
    keep, drop = [], []
    for item in items:
        backend = _backend_of(item)
        ok = backend is not None and (not wanted or backend in wanted) and item.nodeid not in done \
            and sampled(base_id(item.nodeid, wanted or {backend}), fraction)
        (keep if ok else drop).append(item)
        if ok and backend == NABLA:
            reason = _non_buffer_reason(item)
            if reason:
                _NON_BUFFER_TESTS[item.nodeid] = reason
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _non_buffer_reason(item) -> str | None:
    """SciPy's reason for skipping this test on JAX or Dask, where it is about writes through a
    host buffer view; None otherwise."""
    for mark in item.iter_markers("skip_xp_backends"):
        if mark.args and mark.args[0] in ("jax.numpy", "dask.array"):
            reason = str(mark.kwargs.get("reason", ""))
            if NON_BUFFER.search(reason):
                return reason
    return None


class _Recorder:
    """One JSON line per test (id, backend, outcome, seconds), written at once; a watchdog ends
    the process when a test runs past the timeout."""

    def __init__(self, path: str, timeout: float):
        self.file = open(path, "a")
        self.timeout = timeout
        self.current = None  # (nodeid, start)
        self.lock = threading.Lock()
        self.outcomes: dict = {}
        if timeout > 0:
            threading.Thread(target=self._watch, daemon=True, name="nabla-scipy-watchdog").start()

    def _write(self, nodeid, outcome, seconds, message=""):
        record = {"id": nodeid, "outcome": outcome, "seconds": round(seconds, 3), "message": message[:300]}
        if nodeid in _NON_BUFFER_TESTS:
            record["non_buffer"] = _NON_BUFFER_TESTS[nodeid]
        self.file.write(json.dumps(record) + "\n")
        self.file.flush()

    def _watch(self):
        while True:
            time.sleep(1.0)
            with self.lock:
                cur = self.current
                if cur is not None and time.monotonic() - cur[1] > self.timeout:
                    self._write(cur[0], "timeout", time.monotonic() - cur[1])
                    os._exit(3)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logstart(self, nodeid, location):
        with self.lock:
            self.current = (nodeid, time.monotonic())

    def pytest_runtest_logreport(self, report):
        state = self.outcomes.setdefault(report.nodeid, {"outcome": "passed", "seconds": 0.0, "message": ""})
        state["seconds"] += report.duration
        if report.when == "call" or report.failed or report.skipped:
            if hasattr(report, "wasxfail"):
                outcome = "xpassed" if report.passed else "xfailed"
            elif report.skipped:
                outcome = "skipped"
            elif report.failed:
                outcome = "failed" if report.when == "call" else "error"
            else:
                outcome = "passed"
            if state["outcome"] in ("passed",) or outcome in ("failed", "error"):
                state["outcome"] = outcome
                if report.failed:
                    crash = getattr(report.longrepr, "reprcrash", None)
                    state["message"] = crash.message if crash is not None else \
                        (report.longreprtext or "").strip().splitlines()[-1:][0] if report.longreprtext else ""
                elif report.skipped and isinstance(report.longrepr, tuple):
                    state["message"] = str(report.longrepr[2])

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logfinish(self, nodeid, location):
        with self.lock:
            self.current = None
            state = self.outcomes.pop(nodeid, None)
            if state is not None:
                self._write(nodeid, state["outcome"], state["seconds"], state["message"])
