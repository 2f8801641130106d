"""Nabla from many threads: values as computed alone, per-thread settings, shared engine state,
interrupts, failures that stay local. Every wait here is bounded, so a deadlock fails the test."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import nabla as nb
from nabla.core.graph import GRAPH
from tests.structures import chain, chain_ref, vector
from tests.threads import TIMEOUT, call_in_thread, join_all, run_threads, start


def test_a_worker_thread_reads_data():
    a = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    b = np.linspace(0, 2, 20, dtype=np.float32).reshape(4, 5)
    x, y = nb.asarray(a), nb.asarray(b)
    got = run_threads(lambda i: float(nb.sum(nb.tanh(x @ y))), 4)
    for g in got:
        np.testing.assert_allclose(g, np.tanh(a @ b).sum(), rtol=1e-5)


def _mixed(kind, x, w, idx):
    """One of eight kinds of work on float64 data; returns (nabla result, NumPy result)."""
    a, b = x.numpy(), w.numpy()
    if kind == 0:
        return nb.exp(-x * x / 2) * nb.cos(x) + 0.5, np.exp(-a * a / 2) * np.cos(a) + 0.5
    if kind == 1:
        return nb.sum(nb.abs(x), axis=1) / 3.0, np.abs(a).sum(1) / 3.0
    if kind == 2:
        return nb.tanh(x @ w), np.tanh(a @ b)
    if kind == 3:
        return x[idx, 1:], a[idx, 1:]
    if kind == 4:
        return nb.array_api.sort(x, axis=0), np.sort(a, axis=0)
    if kind == 5:
        return nb.grad(lambda t: nb.sum(nb.sin(t) ** 2))(x), 2 * np.sin(a) * np.cos(a)
    if kind == 6:
        return nb.vmap(lambda r: nb.max(r) - nb.min(r))(x), a.max(1) - a.min(1)
    return _COMPILED(x, w), np.sqrt(np.abs(a @ b)) + 1.0


_COMPILED = nb.compile(lambda x, w: nb.sqrt(nb.abs(x @ w)) + 1.0)


@pytest.mark.parametrize("seed", [0, 1])
def test_stress_eight_threads_mixed_work(seed):
    per_thread = 200

    def work(i):
        rng = np.random.default_rng(1000 * seed + i)
        for j in range(per_thread):
            x = nb.asarray(rng.standard_normal((6, 4)))
            w = nb.asarray(rng.standard_normal((4, 3)))
            idx = nb.asarray(rng.integers(0, 6, size=5))
            kind = (i + j) % 8
            got, want = _mixed(kind, x, w, idx)
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12,
                                       err_msg=f"thread {i}, item {j}, kind {kind}")
        return per_thread

    assert run_threads(work, 8) == [per_thread] * 8


def test_threads_share_pending_work_without_recomputing_it():
    # a tensor recorded in one thread and read in many: every reader gets the value
    base = nb.asarray(np.arange(1000, dtype=np.float64))
    shared = nb.sqrt(base * 2.0 + 1.0)
    got = run_threads(lambda i: shared.numpy().copy(), 6)
    for g in got:
        np.testing.assert_allclose(g, np.sqrt(np.arange(1000) * 2.0 + 1.0))


@pytest.mark.usefixtures("recorded_small_ops")
def test_a_thread_realizes_only_its_own_pending_work():
    x = nb.asarray(np.ones(3, np.float32))
    mine = x * 7.0  # pending in the main thread
    run_threads(lambda i: (x + float(i)).numpy(), 2)
    assert not mine.is_realized  # the other threads' reads left it alone
    np.testing.assert_array_equal(mine.numpy(), np.full(3, 7.0))


def test_settings_are_per_thread():
    seen = {}
    gate = threading.Event()
    inside = threading.Event()

    def holder():
        with nb.default_dtype(nb.float64), nb.no_grad():
            inside.set()
            gate.wait(TIMEOUT)
            seen["holder"] = nb.zeros(2).dtype

    t = start(holder)
    assert inside.wait(TIMEOUT)
    seen["main"] = nb.zeros(2).dtype
    g = nb.grad(lambda v: nb.sum(v * v))(nb.asarray(np.array([1.0, 2.0])))  # grad mode on here
    gate.set()
    join_all([t])
    assert seen == {"holder": nb.float64, "main": nb.float32}
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0])


def test_joblib_threading_backend():
    import joblib  # the test extra installs it
    rng = np.random.default_rng(3)
    data = [rng.standard_normal((50, 8)) for _ in range(16)]

    def column_stats(a):
        x = nb.asarray(a)
        mu = nb.mean(x, axis=0)
        return (nb.sum((x - mu) ** 2, axis=0) / (a.shape[0] - 1)).numpy()

    out = joblib.Parallel(n_jobs=4, backend="threading")(joblib.delayed(column_stats)(a) for a in data)
    for a, o in zip(data, out):
        np.testing.assert_allclose(o, a.var(axis=0, ddof=1), rtol=1e-12)


def test_a_compiled_function_from_a_thread_pool_hits_and_misses():
    @nb.compile
    def f(x, y):
        return nb.sum(nb.exp(x) * y, axis=-1)

    shapes = [(3, 4), (5, 4), (3, 4), (2, 6)] * 3

    def call(i):
        rng = np.random.default_rng(i)
        a, b = rng.standard_normal(shapes[i]), rng.standard_normal(shapes[i])
        np.testing.assert_allclose(f(nb.asarray(a), nb.asarray(b)).numpy(), (np.exp(a) * b).sum(-1), rtol=1e-10)

    run_threads(call, len(shapes))
    info = f.cache_info()
    assert info.hits + info.misses == len(shapes)
    assert info.currsize == 3 and info.misses >= 3


# --- failures and interrupts ----------------------------------------------------------


class _Rejected(nb.Operation):
    """An op whose lowering fails: what a Nabla bug that MAX rejects looks like."""

    name = "rejected_by_max"

    def abstract_eval(self, x):
        return x.cached_shape, x.dtype, x.batch_dims

    def maxpr(self, x):
        raise ValueError("MAX says no")


def test_a_failing_realization_does_not_poison_other_pending_work():
    x = nb.asarray(np.arange(4, dtype=np.float32))
    good = x * 3.0
    bad = _Rejected()(x)
    later = x + 1.0
    with pytest.raises(nb.core.graph.RealizationError, match="rejected_by_max"):
        bad.numpy()
    np.testing.assert_array_equal(good.numpy(), np.arange(4) * 3.0)
    np.testing.assert_array_equal(later.numpy(), np.arange(4) + 1.0)
    with pytest.raises(nb.core.graph.RealizationError):
        bad.numpy()  # reading it again raises again


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs POSIX interval timers")
def test_keyboard_interrupt_during_realization_loses_nothing():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((256, 256))

    def expression():  # a long chain on enough elements (tens of ms), so an interrupt lands inside its realization
        x = nb.asarray(a)
        for k in range(60):
            x = nb.sin(x) * (1.0 + k / 1000.0)
        return x

    def reference():
        x = a
        for k in range(60):
            x = np.sin(x) * (1.0 + k / 1000.0)
        return x

    def interrupt(*_):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    interrupted = 0
    try:
        for delay in (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1):
            y = expression()
            other = nb.asarray(a) * 2.0
            signal.setitimer(signal.ITIMER_REAL, delay)
            try:
                y.numpy()
            except KeyboardInterrupt:
                interrupted += 1
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            np.testing.assert_allclose(y.numpy(), reference(), rtol=1e-12)  # still realizable
            np.testing.assert_allclose(other.numpy(), a * 2.0)
    finally:
        signal.signal(signal.SIGALRM, old)
    assert interrupted >= 1, "no interrupt landed inside a realization; lengthen the chain"
    assert not GRAPH.engine._in_flight  # nothing left marked as being computed


@pytest.mark.usefixtures("recorded_small_ops")
def test_an_interrupt_among_the_in_flight_marks_leaves_no_read_waiting(monkeypatch):
    """An interrupt that lands while a run marks its outputs as being computed (between two marks)
    leaves no mark that a later read waits on forever."""
    class Marks(dict):
        armed = True

        def __setitem__(self, key, value):
            if self.armed and len(self) == 1:
                self.armed = False
                raise KeyboardInterrupt
            super().__setitem__(key, value)

    monkeypatch.setattr(GRAPH.engine, "_in_flight", Marks())
    a = np.arange(6.0)
    x = nb.asarray(a)
    y, z = x * 2.0 + 1.0, x * 3.0 - 1.0
    with pytest.raises(KeyboardInterrupt):
        GRAPH.evaluate([y._impl, z._impl])
    got = call_in_thread(lambda: (y.numpy(), z.numpy()), timeout=60)
    np.testing.assert_allclose(got[0], a * 2.0 + 1.0)
    np.testing.assert_allclose(got[1], a * 3.0 - 1.0)
    assert not GRAPH.engine._in_flight


# --- the disk cache --------------------------------------------------------------------


def _compile_one(policy, n=5):
    """A structure of ``tests/structures.py``: compiled by MAX once per machine."""
    policy("compile")
    return chain(nb.asarray(vector(n)))


def _fresh_engine(directory):
    """What a fresh process sees: an empty engine over the disk cache in ``directory``."""
    from nabla.core.disk_cache import ModelDiskCache
    from nabla.runtime import new_engine

    engine = new_engine()
    engine.disk = ModelDiskCache(directory)
    engine.single_op_models = False  # not the single-op models this machine happens to hold
    return engine


def test_truncated_and_garbage_disk_entries_are_dropped_and_rebuilt(policy, tmp_path):
    import hashlib

    want = chain_ref(vector(5))
    saved = GRAPH.engine
    try:
        GRAPH.engine = _fresh_engine(tmp_path)
        np.testing.assert_allclose(_compile_one(policy).numpy(), want, rtol=1e-6)
        for damage in ("truncate", "garbage"):
            (entry,) = tmp_path.glob("*.mef")
            data = entry.read_bytes()
            if damage == "truncate":  # a writer killed half way: the name's digest no longer matches
                entry.write_bytes(data[: len(data) // 2])
            else:  # bytes whose digest matches their name, but which are no model
                junk = os.urandom(4096)
                entry.unlink()
                entry = entry.with_name(f"{entry.name.split('.')[0]}.{hashlib.sha256(junk).hexdigest()[:16]}.mef")
                entry.write_bytes(junk)
            GRAPH.engine = _fresh_engine(tmp_path)
            np.testing.assert_allclose(_compile_one(policy).numpy(), want, rtol=1e-6)
            s = nb.engine_stats()
            assert (s["disk_loads"], s["compiles"]) == (0, 1)
            (good,) = tmp_path.glob("*.mef")  # the damaged file dropped, a good one written

            assert good.name.split(".")[1] == hashlib.sha256(good.read_bytes()).hexdigest()[:16]
        GRAPH.engine = _fresh_engine(tmp_path)  # and the rebuilt entry serves the next process
        np.testing.assert_allclose(_compile_one(policy).numpy(), want, rtol=1e-6)
        assert (nb.engine_stats()["disk_loads"], nb.engine_stats()["compiles"]) == (1, 0)
    finally:
        GRAPH.engine = saved


def test_two_processes_racing_to_write_one_entry(tmp_path):
    from nabla.core.disk_cache import ModelDiskCache

    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from nabla.core.disk_cache import ModelDiskCache\n"
        "cache = ModelDiskCache(Path(sys.argv[1]))\n"
        "payload = bytes(range(256)) * 4096\n"
        "def slow_export(path):\n"
        "    with open(path, 'wb') as f:\n"
        "        for i in range(0, len(payload), 65536):\n"
        "            f.write(payload[i:i + 65536]); f.flush(); time.sleep(0.001)\n"
        "for _ in range(20):\n"
        "    assert cache.save('k' * 40, slow_export) == len(payload)\n"
    )
    import subprocess
    import sys

    procs = [subprocess.Popen([sys.executable, "-c", script, str(tmp_path)]) for _ in range(2)]
    reads = 0
    cache = ModelDiskCache(tmp_path)
    deadline = time.time() + TIMEOUT
    while any(p.poll() is None for p in procs) and time.time() < deadline:
        found = cache.load("k" * 40, lambda p, data: data)
        if found is not None:  # a reader never sees half a file
            assert found[0] == bytes(range(256)) * 4096
            reads += 1
    assert all(p.wait(TIMEOUT) == 0 for p in procs)
    assert [p.name for p in tmp_path.iterdir()] == [f"{'k' * 40}.{_digest16(bytes(range(256)) * 4096)}.mef"]
    assert cache.load("k" * 40, lambda p, data: data)[0] == bytes(range(256)) * 4096


def test_disk_listing_finds_entries_other_processes_publish(tmp_path):
    """The directory is listed once and reused; an entry published afterwards (by another process:
    here another instance) is still found, also when the directory's mtime did not move (a file
    published within the same clock tick as the listing)."""
    from nabla.core.disk_cache import ModelDiskCache

    reader, writer = ModelDiskCache(tmp_path), ModelDiskCache(tmp_path)
    read = lambda p, data: p.read_bytes()  # noqa: E731
    assert reader.load("a" * 40, read) is None  # lists the empty directory
    assert writer.save("a" * 40, lambda p: p.write_bytes(b"first")) == 5
    assert reader.load("a" * 40, read) == (b"first", 5)
    before = os.stat(tmp_path).st_mtime_ns
    assert writer.save("b" * 40, lambda p: p.write_bytes(b"second")) == 6
    os.utime(tmp_path, ns=(before, before))  # as if in the tick of the listing above
    assert reader.load("b" * 40, read) == (b"second", 6)
    listed = []
    real_listdir = os.listdir
    try:
        os.listdir = lambda *a: listed.append(a) or real_listdir(*a)
        time.sleep(0.06)
        assert reader.load("b" * 40, read) == (b"second", 6)  # a hit: no listing
        assert listed == []
    finally:
        os.listdir = real_listdir


_CLAIM_BUILD = """
def build():
    from max.dtype import DType
    from max.graph import DeviceRef, Graph, TensorType

    with Graph("claim_add_one", input_types=[TensorType(DType.float32, ["n"], DeviceRef.CPU())]) as g:
        g.output(g.inputs[0].tensor + 1)
    return g
"""


@pytest.mark.parametrize("holder", ["publishes", "dies"])
def test_a_model_another_process_compiles_is_waited_for_not_compiled_again(tmp_path, holder):
    """Two processes wanting one model at once (test workers, a pool's workers warming the same
    kernels): the one that finds it claimed waits for the other's file; where the other ends
    without publishing one, it compiles the model itself."""
    import subprocess
    import sys
    from concurrent.futures import Future

    from max.driver import Buffer

    from nabla.core.disk_cache import ModelDiskCache
    from nabla.core.engine import Engine
    from nabla.core.models import single_op_digest

    name = "test-claim-add-one"
    digest = single_op_digest(name)
    scope = {}
    exec(_CLAIM_BUILD, scope)
    # the other process: claims the model as its compile would, then publishes it, or dies
    other = (_CLAIM_BUILD +
             "import os, sys\n"
             "from pathlib import Path\n"
             "from nabla.core.disk_cache import ModelDiskCache\n"
             "from nabla.core.engine import Engine\n"
             "from nabla.core.models import mlir_context\n"
             "disk = ModelDiskCache(Path(sys.argv[1]))\n"
             f"claim = disk.claim({digest!r})\n"
             "assert claim.try_take()\n"
             "print('claimed', flush=True)\n"
             "sys.stdin.readline()\n"
             "if sys.argv[2] == 'dies':\n    os._exit(3)\n"
             "engine = Engine()\n"
             "with mlir_context():\n    job = engine._serialize(build())\n"
             f"disk.save({digest!r}, engine.compiler.submit(*job).result().export_mef)\n"
             "claim.release()\n")
    proc = subprocess.Popen([sys.executable, "-c", other, str(tmp_path), holder], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "claimed"
        engine = Engine()
        engine.single_op_disk = ModelDiskCache(tmp_path)
        waiting = engine.single_op_model(name, scope["build"])
        assert isinstance(waiting, Future)
        time.sleep(1.0)
        assert not waiting.done()  # not compiled here: the other process holds the claim
        proc.stdin.write("go\n")
        proc.stdin.flush()
        assert proc.wait(TIMEOUT) == (3 if holder == "dies" else 0)
        engine.wait_for_compiles()
        model = engine.single_op_model(name, scope["build"], compile=False)
        assert model is not None
        assert engine.stats.compiles == (1 if holder == "dies" else 0)
        out = model.execute(Buffer.from_numpy(np.arange(4, dtype=np.float32)))[0]
        np.testing.assert_array_equal(out.to_numpy(), np.arange(4, dtype=np.float32) + 1)
    finally:
        proc.kill()


def _digest16(data):
    import hashlib

    return hashlib.sha256(data).hexdigest()[:16]


# --- memory -----------------------------------------------------------------------------


def test_loaded_models_stay_within_the_byte_budget(policy, tmp_path):
    saved = GRAPH.engine
    GRAPH.engine = engine = _fresh_engine(tmp_path)
    engine.fused_enabled = False  # only the structures' models are charged (no fused kernel probed)
    try:
        policy("compile")
        results = {}
        x = np.linspace(1, 2, 6)
        ops = {"sqrt": np.sqrt, "exp": np.exp, "log1p": np.log1p}
        for name, ref in ops.items():  # three structures; room for one and a half models
            results[name] = (getattr(nb, name)(nb.asarray(x)) * 0.5).numpy()
            if name == "sqrt":
                engine.max_model_bytes = int(nb.engine_stats()["model_bytes"] * 1.5)
            assert 0 < nb.engine_stats()["model_bytes"] <= engine.max_model_bytes
            np.testing.assert_allclose(results[name], ref(x) * 0.5)
        s = nb.engine_stats()
        assert (s["evictions"], s["compiles"]) == (2, 3)
        # an evicted structure comes back from disk, not from the compiler (a new constant is data)
        again = (nb.sqrt(nb.asarray(x)) * 0.25).numpy()
        np.testing.assert_allclose(again, np.sqrt(x) * 0.25)
        s2 = nb.engine_stats()
        assert (s2["disk_loads"], s2["compiles"]) == (1, 3)
        assert s2["model_bytes"] <= engine.max_model_bytes
    finally:
        GRAPH.engine = saved


def test_a_program_whose_first_read_is_on_a_thread_exits_cleanly():
    """MAX enters its default MLIR context on the thread that imports it and leaves it at exit on
    the main thread: a program whose first read ran on a worker thread ended with MAX's
    "Unbalanced Context enter/exit" at exit, until nabla imported it itself."""
    import subprocess
    import sys

    script = ("import threading, numpy\nimport nabla.numpy as np\n"
              "def work():\n    x = np.asarray(numpy.arange(10.0))\n    float((x * 2).sum())\n"
              "t = threading.Thread(target=work)\nt.start()\nt.join()\nprint('read')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "read", done.stderr[-2000:]
    assert "Unbalanced" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr[-2000:]
