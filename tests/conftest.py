import atexit
import collections
import gc
import os
import shutil
import tempfile

import numpy as np
import pytest

#: ``NABLA_TESTS_AS_USER=1`` (set by ``python -m conformance.sklearn``): the engine as a user's process
#: has it (its realization policy, single-op models, first-run build, model cache, compile timing),
#: for the suites that measure what a user meets rather than check one path
AS_USER = os.environ.get("NABLA_TESTS_AS_USER") == "1"
# scipy reads this once, at import: scikit-learn's array-API dispatch (tests/interop/test_sklearn.py) needs it
os.environ.setdefault("SCIPY_ARRAY_API", "1")
if not AS_USER:
    # A private compiled-model cache per test process, so first sight really is first sight (a worker
    # of pytest-xdist inherits its controller's environment: it gets a folder of its own, or it would
    # read the structures the other worker compiled)
    if "PYTEST_XDIST_WORKER" in os.environ or "NABLA_CACHE_DIR" not in os.environ:
        os.environ["NABLA_CACHE_DIR"] = tempfile.mkdtemp(prefix="nabla-test-cache-")
        # removed at exit, after Nabla's own exit work (registered before nabla is imported, so run after it)
        atexit.register(shutil.rmtree, os.environ["NABLA_CACHE_DIR"], ignore_errors=True)
    # the single-op models the test run's many structures want are not compiled at its exit
    os.environ.setdefault("NABLA_COMPILE_AT_EXIT", "0")
    # nor does a cold machine's first-run build start (tests/runtime/test_first_run.py turns it on where it is
    # the subject): the session would spend both cores on models its tests do not count on
    os.environ.setdefault("NABLA_FIRST_RUN", "0")
    # a structure met twice is compiled however young the process (the compile paths are what many
    # tests check; tests/core/test_engine.py checks the default, which waits until a process has run a while)
    os.environ.setdefault("NABLA_COMPILE_AFTER", "0")
# JAX, where installed, gets 8 host devices: tests/sharding/test_sharding_jax.py runs its shard_map beside ours
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import nabla as nb  # noqa: E402


#: seconds each test file took on a cold machine (the README's test command, MAX's interpreter kernels compiled,
#: summed over its tests), heaviest first; the files not listed took under 10 s. The files run in
#: this order, longest first: with ``--dist loadfile`` pytest-xdist hands files to its workers in
#: the order collected, so the longest go first and the short ones fill in at the end (Graham's
#: longest-processing-time rule). xdist's own order (files with the most tests first) had left the
#: few-but-long compile tests to the end: one worker ran them alone for ~90 s.
COLD_SECONDS = {
    "tests/ops/test_ops.py": 308, "tests/runtime/test_single_op.py": 233, "tests/sharding/test_sharding_devices.py": 212,
    "tests/numpy/test_ufunc_edges.py": 197, "tests/fuzz/test_fuzz.py": 79, "tests/ops/test_fft.py": 69,
    "tests/runtime/test_fused.py": 47, "tests/runtime/test_first_run.py": 43, "tests/interop/test_sklearn.py": 25,
    "tests/sharding/test_sharding.py": 22, "tests/transforms/test_autodiff.py": 19, "tests/core/test_concurrency.py": 18,
    "tests/core/test_engine.py": 18, "tests/ops/test_fft_gpu_math.py": 13,
}


def pytest_configure(config):
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False  # (xdist's reorder: see COLD_SECONDS)


def pytest_collection_modifyitems(config, items):
    rank = {path: i for i, path in enumerate(sorted(COLD_SECONDS, key=COLD_SECONDS.get, reverse=True))}
    root = str(config.rootpath)
    items.sort(key=lambda item: rank.get(os.path.relpath(str(item.path), root), len(rank)))


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture
def stats():
    """Engine counters relative to the start of the test."""
    nb.wait_for_compiles()  # background compiles of earlier tests land before the baseline
    # and live pending work of others runs before it: a read realizes every live pending tensor
    # with it, and a test module's parameters (``fnp.arange(3)``) are pending from its import on
    gc.collect()
    nb.core.graph.GRAPH.evaluate()
    before = nb.engine_stats()

    def delta():
        now = nb.engine_stats()
        return {k: now[k] - before[k] for k in now if isinstance(now[k], int)}

    return delta


@pytest.fixture(autouse=True)
def interpret_by_default():
    """Tests run first-sight style (MAX's interpreter): compiling every repeated structure in the
    background would cost 10-30 s each on a cold machine. Engine tests opt into other policies;
    none of it applies where the tests run as a user's process (``AS_USER``)."""
    if AS_USER:
        yield
        return
    nb.set_realization_policy("interpret")
    engine = nb.core.graph.GRAPH.engine
    saved = engine.single_op_models
    # single-op models depend on what this machine compiled before: tests that count paths must
    # not (tests/core/test_engine.py turns them on where they are the subject)
    engine.single_op_models = False
    yield
    engine.single_op_models = saved
    nb.set_realization_policy("interpret")


@pytest.fixture
def policy():
    return nb.set_realization_policy


def wait_for_fused_kernels():
    """Have the fused kernel's models compiled (once per machine; then read from disk)."""
    from nabla.runtime.fused import warm_program_kernel

    assert warm_program_kernel(), "the program kernel did not build"


@pytest.fixture
def fused_kernels():
    wait_for_fused_kernels()


@pytest.fixture
def matmul_models(monkeypatch):
    """A machine whose single-op models include the matmul's: a matmul past the program kernel's
    ``MATMUL_PRODUCTS`` then leaves the program for its model (with none compiled in a test run,
    MAX's interpreter runs it). Without them the program kernel takes it."""
    from nabla.runtime.first_sight import FirstSightPaths

    monkeypatch.setattr(FirstSightPaths, "model_ready", lambda self, engine, node: True)


@pytest.fixture(params=["fused", "interpreter"])
def first_sight(request):
    """Runs a test down each first-sight path: the fused kernel where a trace fits it, or MAX's
    interpreter for every trace."""
    engine = nb.core.graph.GRAPH.engine
    if request.param == "fused":
        wait_for_fused_kernels()
    saved = engine.fused_enabled
    engine.fused_enabled = request.param == "fused"
    yield request.param
    engine.fused_enabled = saved


@pytest.fixture
def no_fused():
    """For engine tests about compiling: traces go to the interpreter, never the fused kernel."""
    engine = nb.core.graph.GRAPH.engine
    saved = engine.fused_enabled
    engine.fused_enabled = False
    yield
    engine.fused_enabled = saved


@pytest.fixture
def without_fused_kernel(monkeypatch):
    """First sight without the fused kernel's path: the traces and nodes it would take run on
    single-op models (the subject) or MAX's interpreter."""
    from nabla.runtime import default_paths

    monkeypatch.setattr(nb.core.graph.GRAPH.engine, "paths", default_paths(fused=False))


@pytest.fixture
def no_library_kernels(monkeypatch):
    """The op kernels' library runs no kernel op (as where it is not built): a lone linalg,
    FFT, sort or random node takes its single-op model."""
    from nabla.runtime.library_kernels import LibraryKernels

    monkeypatch.setattr(LibraryKernels, "plan", lambda self, r: None)


@pytest.fixture
def no_single_op_models(monkeypatch, tmp_path):
    """A machine that has built no single-op models yet (and uses them); gives ``nabla.runtime.single_op``."""
    from nabla.core.disk_cache import ModelDiskCache
    from nabla.runtime import single_op

    engine = nb.core.graph.GRAPH.engine
    monkeypatch.setattr(engine, "single_op_models", True)
    monkeypatch.setattr(engine, "single_op_disk", ModelDiskCache(tmp_path))
    monkeypatch.setattr(engine, "_single_op_entries", {})
    monkeypatch.setattr(engine, "_bundled", {})
    monkeypatch.setattr(engine, "_bundle_use", {})
    monkeypatch.setattr(single_op, "_WANTED", {})
    monkeypatch.setattr(single_op, "_WANTED_PER_CLASS", collections.Counter())
    monkeypatch.setattr(single_op, "_MISSES", collections.Counter())
    monkeypatch.setattr(single_op, "_MET", {})
    return single_op


@pytest.fixture
def fresh_structures(monkeypatch, tmp_path):
    """The engine with no structure in memory or on disk: a structure of ``tests/structures.py`` that
    other tests compiled is compiled again here (MAX's own cache makes that ~0.2 s)."""
    from nabla.core.disk_cache import ModelDiskCache

    engine = nb.core.graph.GRAPH.engine
    nb.wait_for_compiles()
    monkeypatch.setattr(engine, "_cache", collections.OrderedDict())
    monkeypatch.setattr(engine, "_model_bytes", 0)  # (the models charged before stay charged, apart)
    monkeypatch.setattr(engine, "disk", ModelDiskCache(tmp_path / "structures"))
    yield engine
    nb.wait_for_compiles()  # (its compiles land in this cache, not the one restored)


@pytest.fixture
def arg_reductions_unfused(monkeypatch):
    """The fused kernel declines ``argmax``/``argmin`` (it takes them at first sight): their traces
    go down the single-op models' path, as any op the kernel lacks."""
    from nabla.core.operation import OPS
    from nabla.runtime import fused_codes

    def forget_plans():  # (the engine remembers, per structure, whether the kernel took it)
        for entry in nb.core.graph.GRAPH.engine._cache.values():
            entry.fused = None

    for name in fused_codes.ARG_REDUCE:
        monkeypatch.setattr(OPS[name], "fused", None)
    # (nor computed at once: a program kept for small operands would take them still)
    monkeypatch.setattr(nb.core.graph.GRAPH.engine, "small_at_once", False)
    forget_plans()
    yield
    monkeypatch.undo()
    forget_plans()


@pytest.fixture
def recorded_small_ops(monkeypatch):
    """Ops over small realized host data are recorded, not computed as they are made
    (``HostScalars.small``): tests of what a read records, stages and runs, on small arrays."""
    monkeypatch.setattr(nb.core.graph.GRAPH.engine, "small_at_once", False)


@pytest.fixture(autouse=True)
def _small_kinds_fresh(monkeypatch):
    """Each test starts with no kind of small op recorded for not paying back its plans
    (``HostScalars.small``'s choice is per process: the tests before would make this one's)."""
    scalars = nb.core.graph.GRAPH.engine.scalars
    if scalars is not None:
        monkeypatch.setattr(scalars, "_kinds", {})
