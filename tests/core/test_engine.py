"""The realization engine: structure-keyed cache, symbolic dims, first-sight interpreter."""

import time

import numpy as np
import pytest

import nabla as nb
from nabla.runtime import single_op_compiler
from tests.structures import chain, chain_ref, dense, dense_ref, matrices, vector


def test_first_sight_is_interpreted_repeat_is_compiled_then_cached(stats, policy, no_fused, fresh_structures):
    policy("auto")
    a = vector()
    np.testing.assert_allclose(chain(nb.asarray(a)).numpy(), chain_ref(a), rtol=1e-5)
    d = stats()
    assert d["interpreted"] == 1 and d["compiles"] == 0 and d["graph_builds"] == 1

    b = a + 1  # new data, same structure: queued for a background compile
    np.testing.assert_allclose(chain(nb.asarray(b)).numpy(), chain_ref(b), rtol=1e-5)
    nb.wait_for_compiles()
    assert stats()["compiles"] == 1

    builds = stats()["graph_builds"]
    for n in (7, 7, 1000, 3):  # new data, and new sizes: one model serves them all
        c = np.linspace(-2, 2, n, dtype=np.float32)
        np.testing.assert_allclose(chain(nb.asarray(c)).numpy(), chain_ref(c), rtol=1e-5, atol=1e-6)
    d = stats()
    assert d["compiles"] == 1 and d["graph_builds"] == builds and d["cache_hits"] == 4


def test_a_young_process_does_not_compile_a_repeated_structure(stats, policy, no_fused, monkeypatch,
                                                               fresh_structures):
    """By default a structure met again is compiled only once the process has run a while
    (``NABLA_COMPILE_AFTER``, 2 s): a short script's compile would be killed at its exit unused."""
    import time

    from nabla.core import engine

    policy("auto")
    monkeypatch.setattr(engine, "_COMPILE_AFTER_S", 2.0)
    monkeypatch.setattr(engine, "_STARTED", time.monotonic())  # a process that has just started
    for shift in (0.0, 1.0, 2.0):
        a = vector(shift=shift)
        np.testing.assert_allclose(chain(nb.asarray(a)).numpy(), chain_ref(a), rtol=1e-5)
    nb.wait_for_compiles()
    assert stats()["compiles"] == 0 and stats()["interpreted"] == 3
    monkeypatch.setattr(engine, "_STARTED", time.monotonic() - 2.0)  # the same process, older
    a = vector(shift=3.0)
    np.testing.assert_allclose(chain(nb.asarray(a)).numpy(), chain_ref(a), rtol=1e-5)
    nb.wait_for_compiles()
    assert stats()["compiles"] == 1


def test_compile_policy_compiles_once_per_structure(stats, policy, fresh_structures):
    policy("compile")
    a, b = matrices()
    w = nb.asarray(b)
    np.testing.assert_allclose(dense(nb.asarray(a), w).numpy(), dense_ref(a, b), rtol=1e-5)
    assert stats()["compiles"] == 1
    # new sizes of the symbolic dim: no compile (dims are named by size equality, so a size that
    # coincides with another dim, 3 or 4 here, would be a new structure; sizes 1 and 2 stay concrete)
    for rows in (6, 5, 64):
        a, _ = matrices(rows)
        np.testing.assert_allclose(dense(nb.asarray(a), w).numpy(), dense_ref(a, b), rtol=1e-5)
    d = stats()
    assert d["compiles"] == 1 and d["cache_hits"] == 3


def test_scalar_constants_are_data_not_structure(first_sight, stats, policy):  # (the fused models first)
    """Traces that differ only in a Python scalar share one cache entry, one compiled model and one
    fused plan; each run gets its own value (sign of zero, inf and NaN included)."""
    a = np.linspace(-1, 1, 9, dtype=np.float32)
    x = nb.asarray(a)
    policy("auto")
    values = (0.5, -0.0, 0.0, 1e30, np.inf, -np.inf, np.nan, 3.0, 0.5)
    for c in values:
        with np.errstate(all="ignore"):
            want = np.tanh(a * np.float32(c)) + np.float32(c)
        got = (nb.tanh(x * c) + c).numpy()
        np.testing.assert_allclose(got, want, rtol=2e-6)
        real = ~np.isnan(want)  # (a NaN's sign is the hardware's)
        np.testing.assert_array_equal(np.signbit(got[real]), np.signbit(want[real]))  # -0.0 is not 0.0
    d = stats()
    # one entry and at most one compiled model for all nine values (the interpreter's path queues a
    # compile at the second sight; it lands during the loop when MAX has the graph cached); the
    # fused kernel's path never compiles (0 entries where another test built it first)
    assert d["cache_entries"] <= 1 and d["compiles"] <= (0 if first_sight == "fused" else 1)
    i = nb.asarray(np.arange(6, dtype=np.int32))
    policy("interpret")  # (what follows is about entries: compiling its structures would cost 60 s cold)
    for k in (3, -7, 2**31 - 1):  # integer and boolean constants too
        np.testing.assert_array_equal((i * 2 + k).numpy(), np.arange(6, dtype=np.int32) * 2 + np.int32(k))
        np.testing.assert_array_equal(nb.where(i > 2, i, k).numpy(), np.where(np.arange(6) > 2, np.arange(6), k))
    np.testing.assert_array_equal(nb.logical_and(i > 2, True).numpy(), np.arange(6) > 2)
    np.testing.assert_array_equal(nb.logical_and(i > 2, False).numpy(), np.zeros(6, bool))
    assert stats()["cache_entries"] <= 4


def test_complex_scalars_are_data_not_structure(first_sight, stats, policy, recorded_small_ops):
    """A Python complex scalar (a twiddle ``exp(-2j * pi * k / n)``, new each step of a loop) crosses as
    its (re, im) pair, data: traces that differ only in it share one entry, where each value was a
    structure of its own (a plan per step, ~0.5 ms); each run gets its own value, parts' signs kept."""
    a = np.linspace(-1, 1, 9) + 1j * np.linspace(2, 0, 9)
    x = nb.asarray(a)
    policy("auto")
    for c in [complex(np.exp(-2j * np.pi * k / 7)) for k in range(7)] + [complex(-0.0, 0.0), 0j]:
        got = (x * c + c).sum().numpy()
        want = (a * c + c).sum()
        np.testing.assert_allclose(got, want, rtol=1e-14)
    assert stats()["cache_entries"] <= 1
    np.testing.assert_array_equal(np.signbit((nb.asarray(np.zeros(2)) * complex(-0.0, -0.0)).numpy().imag),
                                  np.signbit((np.zeros(2) * complex(-0.0, -0.0)).imag))


def test_a_structure_compiled_once_serves_every_constant(stats, policy, no_fused, fresh_structures):
    policy("compile")
    a = vector()
    for c in (0.75, 1.75, -2.5):
        np.testing.assert_allclose(chain(nb.asarray(a), c).numpy(), chain_ref(a, c), rtol=1e-5)
    d = stats()
    assert d["compiles"] == 1 and d["cache_hits"] == 2


@pytest.mark.usefixtures("recorded_small_ops")
def test_a_read_that_the_fused_kernel_serves_runs_alone(stats, fused_kernels, matmul_models):
    n = 600  # n * n * 2 products: a matmul too large for the fused kernel (a matrix-vector product is not)
    x = nb.asarray(np.arange(n, dtype=np.float32))
    m = nb.asarray(np.eye(n, dtype=np.float32))
    ys = [x * k for k in (3.0, 2.0)] + [m @ nb.asarray(np.full((n, 2), 2.0, np.float32))]
    np.testing.assert_array_equal(ys[1].numpy(), np.arange(n) * 2.0)
    assert stats()["fused"] == 1 and not ys[0].is_realized and not ys[2].is_realized
    # the rest with it: one program, the matmul it lacks interpreted between its calls
    np.testing.assert_array_equal(ys[2].numpy(), np.full((n, 2), 2.0))
    assert stats()["interpreted"] == 1 and ys[0].is_realized
    np.testing.assert_array_equal(ys[0].numpy(), np.arange(n) * 3.0)


@pytest.mark.usefixtures("recorded_small_ops")
def test_reading_one_output_realizes_its_siblings(stats, no_single_op_models):
    """A read that runs at once on its own model takes the other outputs of the same node along:
    eigh's eigenvectors come from the run that gave its eigenvalues, not from a second run."""
    single_op = no_single_op_models
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    w, v = nb.linalg.eigh(nb.asarray(a))
    w.numpy()
    single_op_compiler.compile_specs(list(single_op._WANTED.values()))  # this machine now has eigh's model
    before = stats()["evaluations"]
    other = nb.asarray(a) * 2.5  # pending work the read leaves for later
    w, v = nb.linalg.eigh(nb.asarray(a))
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(a))
    assert v.is_realized and not other.is_realized and stats()["evaluations"] == before + 1
    np.testing.assert_allclose(np.abs(v.numpy()), np.abs(np.linalg.eigh(a)[1]))


def test_all_pending_work_runs_in_one_graph(stats, no_fused):
    x = nb.asarray(np.arange(4, dtype=np.float32))
    ys = [x * k for k in (1.0, 2.0, 3.0)]
    ys[0].numpy()
    assert stats()["evaluations"] == 1
    assert all(y.is_realized for y in ys)
    np.testing.assert_array_equal(ys[2].numpy(), np.arange(4) * 3.0)
    assert stats()["evaluations"] == 1


def test_engine_stats_has_the_counters():
    s = nb.engine_stats()
    for k in ("evaluations", "cache_hits", "interpreted", "compiles", "graph_builds", "cache_entries"):
        assert isinstance(s[k], int)


def test_unknown_policy_is_rejected():
    with pytest.raises(ValueError):
        nb.set_realization_policy("fast")


def test_compiled_models_persist_on_disk_for_new_processes(stats, policy, no_fused, fresh_structures):
    policy("auto")
    from nabla.core.graph import GRAPH
    from nabla.runtime import new_engine

    for _ in range(2):  # first sight, then repeat: compiled in the background and written to disk
        chain(nb.asarray(vector(5))).numpy()
    nb.wait_for_compiles()
    assert stats()["compiles"] == 1 and any(GRAPH.engine.disk_cache.glob("*.mef"))

    saved = GRAPH.engine
    GRAPH.engine = new_engine()  # what a fresh process sees: empty memory, the same disk
    GRAPH.engine.disk = saved.disk
    GRAPH.engine.fused_enabled = False
    GRAPH.engine.single_op_models = False  # not the single-op models this machine happens to hold
    try:
        np.testing.assert_allclose(chain(nb.asarray(vector(9))).numpy(), chain_ref(vector(9)), rtol=1e-5)
        s = nb.engine_stats()
        assert s["disk_loads"] == 1 and s["compiles"] == 0 and s["interpreted"] == 0 and s["cache_hits"] == 1
    finally:
        GRAPH.engine = saved


def test_a_training_loop_settles_on_one_structure(stats):
    # the pending-work order must not depend on memory reuse, or every step is a new structure
    w = nb.asarray(np.full((4, 3), 0.1, np.float32))
    b = nb.zeros(3)
    x = nb.asarray(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    loss_fn = lambda w, b: nb.sum(nb.tanh(x @ w + b) ** 2)
    entries = []
    for step in range(16):
        loss, (gw, gb) = nb.value_and_grad(loss_fn, argnums=(0, 1))(w, b)
        w, b = w - 0.1 * gw, b - 0.1 * gb
        loss.item()
        entries.append(stats()["cache_entries"])
    # the first step (lazy zeros) and every step after, each with its first-sight stages
    assert entries[2] == entries[-1]


def test_a_cold_interpreter_compiles_the_structure_instead(stats, policy, no_fused, fresh_structures):
    # without `max warm-interpreter-cache`, each op family the interpreter meets would compile in
    # this process (~15 s each): the engine compiles the whole structure once instead
    from nabla.core.graph import GRAPH

    policy("auto")
    GRAPH.engine._interpreter_warm = False
    try:
        a, b = matrices()
        np.testing.assert_allclose(dense(nb.asarray(a), nb.asarray(b), 1.125).numpy(), dense_ref(a, b, 1.125),
                                   rtol=1e-6)
        d = stats()
        assert d["compiles"] == 1 and d["interpreted"] == 0
    finally:
        GRAPH.engine._interpreter_warm = None


def test_compiles_run_in_process_where_subprocesses_are_off(policy):
    # NABLA_COMPILE_PROCESS=0: the same compile, in this process (hosts without subprocesses)
    from nabla.core.graph import GRAPH
    from nabla.runtime import new_engine

    saved = GRAPH.engine
    GRAPH.engine = engine = new_engine()
    engine.compiler.in_process = True
    engine.disk = None
    try:
        policy("compile")
        a = vector()
        np.testing.assert_allclose(chain(nb.asarray(a)).numpy(), chain_ref(a), rtol=1e-6)
        assert nb.engine_stats()["compiles"] == 1
    finally:
        GRAPH.engine = saved


def test_a_compile_waited_for_starts_before_the_background_ones_queued(monkeypatch):
    """The pool takes one compile at a time; one a caller waits for (``progress.wait`` urges it)
    starts next, not after every background compile asked for before it."""
    import threading
    from concurrent.futures import Future

    from nabla.core import progress
    from nabla.core.compiler import BackgroundCompiler

    compiler = BackgroundCompiler()
    started, running = [], {}
    changed = threading.Condition()

    def to_pool(bytecode, extensions):
        with changed:
            started.append(bytecode)
            running[bytecode] = Future()
            changed.notify_all()
            return running[bytecode]

    def wait_started(n):
        with changed:
            assert changed.wait_for(lambda: len(started) >= n, timeout=10), started

    monkeypatch.setattr(compiler, "_submit_to_pool", to_pool)
    futures = {name: compiler.submit(name) for name in (b"a", b"b", b"c", b"d")}
    wait_started(1)
    assert started == [b"a"]  # (one at a time: the others wait here, where they can be reordered)
    waiter = threading.Thread(target=progress.wait, args=(futures[b"d"], "d"), daemon=True)
    waiter.start()
    time.sleep(0.2)
    running[b"a"].set_result("A")
    wait_started(2)
    assert started == [b"a", b"d"]
    running[b"d"].set_result("D")
    waiter.join(timeout=10)
    assert futures[b"a"].result(timeout=10) == "A" and futures[b"d"].result(timeout=10) == "D"
    wait_started(3)
    running[b"b"].set_result("B")
    wait_started(4)
    running[b"c"].set_result("C")
    assert started == [b"a", b"d", b"b", b"c"] and futures[b"c"].result(timeout=10) == "C"


@pytest.mark.usefixtures("recorded_small_ops")
@pytest.mark.parametrize("rows", [3, 2000])
def test_a_staged_trace_is_one_program_never_compiled_nor_looked_up(policy, fused_kernels, monkeypatch, rows):
    """A trace whose reduction feeds more work runs as one program of stages, one kernel call per
    sight, whatever its size and however often it comes back: a structure the program kernel
    serves is never compiled (a compile costs 10-30 s of a core for a run of milliseconds) and never
    looked up on disk (a digest of its key and a stat: ~0.5 ms, more than the run)."""
    from concurrent.futures import Future

    from nabla.core.graph import GRAPH

    engine = GRAPH.engine
    policy("auto")
    submitted: list[Future] = []
    monkeypatch.setattr(engine.compiler, "submit", lambda *_, **__: submitted.append(Future()) or submitted[-1])
    looked: list = []
    real = engine.load_from_disk
    monkeypatch.setattr(engine, "load_from_disk", lambda entry: looked.append(entry.key) or real(entry))
    a = np.linspace(-1.0, 2.0, rows * 4).reshape(rows, 4) ** 3
    x = nb.asarray(a)
    for sight in range(1, 18):
        before = nb.engine_stats()["fused"]
        y = nb.sum(x - nb.mean(x, axis=0) * 0.8125)
        GRAPH.evaluate()  # the whole pending work (a read alone may run as a probe, never compiled)
        assert nb.engine_stats()["fused"] == before + 1
        np.testing.assert_allclose(float(y), np.sum(a - a.mean(axis=0) * 0.8125), rtol=1e-5)
    assert not submitted and not looked


def test_memory_debug_mode_catches_a_result_no_run_wrote():
    """NABLA_DEBUG_MEMORY's check: a 'kernel' returning a block it never wrote is caught (the block
    holds the churn's poison, or differs between the two runs); a pure run passes unchanged."""
    from max import driver
    from max.dtype import DType

    from nabla.core import memory_check
    from nabla.core.models import RealizationError

    data = driver.Buffer.from_numpy(np.arange(5000, dtype=np.int64))
    out = memory_check.checked_run(lambda b: [b[0]], [data], "an identity")
    np.testing.assert_array_equal(out[0].to_numpy(), np.arange(5000))
    with pytest.raises(RealizationError, match="NABLA_DEBUG_MEMORY"):
        memory_check.checked_run(lambda b: [driver.Buffer(DType.int64, (1 << 17,), device=driver.CPU())], [],
                                 "an unwritten result")
    poisoned = np.resize(memory_check.POISON, 64)
    assert memory_check._holds_poison(poisoned) and not memory_check._holds_poison(poisoned[3:])


def test_realizations_pass_the_memory_debug_mode(monkeypatch, first_sight):
    """Traces down the fused kernel and MAX's interpreter, with sizes past every block boundary,
    run twice over poisoned memory and agree."""
    engine = nb.core.graph.GRAPH.engine
    monkeypatch.setattr(engine, "debug_memory", True)
    for n in (7, 513, 4097, 65537):
        x = np.linspace(-2, 2, n, dtype=np.float32)
        np.testing.assert_allclose(nb.sum(nb.exp(nb.asarray(x)) * 0.5).item(), np.exp(x).sum() * 0.5, rtol=1e-4)
        i = np.arange(n)
        np.testing.assert_array_equal((nb.asarray(i) * 7 % 13).numpy(), i * 7 % 13)
        np.testing.assert_array_equal((nb.arange(n) * 7).numpy(), np.arange(n) * 7)


def test_a_long_compile_wait_says_what_it_builds(capsys, monkeypatch):
    """A wait on a one-time compile past a second names what it builds on stderr, then its time;
    a short one and NABLA_PROGRESS=0 say nothing."""
    import threading
    from concurrent.futures import Future

    from nabla.core import progress

    monkeypatch.setattr(progress, "QUIET", 0.05)
    slow = Future()
    threading.Timer(0.4, lambda: slow.set_result(None)).start()
    progress.wait(slow, "a model of exp, sum")
    err = capsys.readouterr().err
    assert "building a model of exp, sum" in err and "built a model of exp, sum in" in err
    quick = Future()
    quick.set_result(None)
    progress.wait(quick, "nothing")
    monkeypatch.setenv("NABLA_PROGRESS", "0")
    quiet = Future()
    threading.Timer(0.2, lambda: quiet.set_result(None)).start()
    progress.wait(quiet, "a model of sin")
    assert capsys.readouterr().err == ""


def test_a_graph_maxs_interpreter_rejects_on_reuse_is_built_again(monkeypatch, stats, fresh_structures):
    """MAX's interpreter may rewrite a module it runs (its executor's contract asks for fresh ones):
    a kept graph that a later run rejects is built again and run, with NumPy's values; a fresh
    graph it fails on (its kernel families' state is MAX's) is compiled instead and gives NumPy's
    values, counted in ``interpreter_rejections``."""
    from nabla.core.graph import GRAPH

    engine = GRAPH.engine
    real = engine.interpreter
    seen = set()

    class ReusingFails:
        def execute(self, graph, buffers):
            if id(graph) in seen:
                raise RuntimeError("module was already lowered")
            seen.add(id(graph))
            return real.execute(graph, buffers)

    monkeypatch.setattr(engine, "_interpreter", ReusingFails())
    monkeypatch.setattr(engine, "fused_enabled", False)
    data = np.arange(6.0).reshape(2, 3)
    for k in range(3):  # one structure, run three times: its kept graph is met again
        got = (nb.asarray(data + k) * 2.5 - 1.0).numpy()
        np.testing.assert_array_equal(got, (data + k) * 2.5 - 1.0)

    class Rejects:
        def execute(self, graph, buffers):
            raise RuntimeError("verifier: operand types differ\nmore detail")

    monkeypatch.setattr(engine, "_interpreter", Rejects())
    before = stats()["interpreter_rejections"]
    for k in range(2):  # the second run finds the compiled model
        a = vector(shift=k)
        np.testing.assert_allclose(chain(nb.asarray(a)).numpy(), chain_ref(a), rtol=1e-5)
    assert stats()["interpreter_rejections"] == before + 1


def test_one_single_op_model_serves_a_concat_of_every_size(no_single_op_models, monkeypatch):
    """Where a concat is not the fused kernel's (off the CPU, in a compiled trace), one single-op
    model serves it at every size."""
    from nabla.runtime.fused import FusedPath

    monkeypatch.setattr(FusedPath, "plan", staticmethod(lambda *traced: None))
    from nabla.runtime import default_paths

    monkeypatch.setattr(nb.core.graph.GRAPH.engine, "paths", default_paths(programs=False))  # (the fused kernel's)
    monkeypatch.setattr(nb.core.graph.GRAPH.engine, "small_at_once", False)  # (small joins: at once otherwise)
    for first, second in (((3, 4), (5, 4)), ((6, 4), (7, 4)), ((40, 9), (3, 9))):
        x, y = np.ones(first), np.zeros(second)
        np.testing.assert_array_equal(nb.concat([nb.asarray(x), nb.asarray(y)], axis=0).numpy(),
                                      np.concatenate([x, y]))
    assert [spec["op"] for spec in no_single_op_models._WANTED.values()] == ["concat"]


_EXIT_WHILE_COMPILING = """
import sys, time
import time

import numpy as np
from max.dtype import DType
from max.graph import DeviceRef, Graph, TensorType, ops
from nabla.core.compiler import BackgroundCompiler
from nabla.core.models import mlir_context

t = TensorType(DType.float64, [int(sys.argv[1]), 64], DeviceRef.CPU())
with mlir_context():
    with Graph("m", input_types=[t]) as g:  # a matmul: the slowest of MAX's compiles
        x = g.inputs[0]
        g.output(ops.matmul(ops.sin(x), ops.transpose(x, 0, 1)))
    job = (g._module.bytecode, [])
compiler = BackgroundCompiler()
compiler.submit(*job)
while not (getattr(compiler._pool, "_executor", None) and compiler._pool._executor._processes):
    time.sleep(0.05)
print(*compiler._pool._executor._processes, flush=True)
if sys.argv[2] == "after_hook":  # a compile asked for once the exit hook has run starts nothing
    compiler._kill_workers()
    late = compiler.submit(*job)
    try:
        late.result(timeout=60)
        sys.exit("a compile started after the exit hook")
    except RuntimeError as e:  # refused as the program exits (not a broken pool's error)
        assert "exiting" in str(e), repr(e)
print("exiting", time.monotonic(), flush=True)
"""


def test_a_compile_whose_pool_breaks_runs_again_on_a_new_pool():
    """A pool worker killed under a compile (a signal meant for another process, memory) breaks
    MAX's pool: the compile starts again on a new one instead of failing its model."""
    import time

    from max.dtype import DType
    from max.graph import DeviceRef, Graph, TensorType, ops

    from nabla.core.compiler import BackgroundCompiler
    from nabla.core.models import mlir_context

    with mlir_context():
        with Graph("broken_pool_m", input_types=[TensorType(DType.float32, ["n"], DeviceRef.CPU())]) as g:
            g.output(ops.sin(g.inputs[0]) * 2.5)
        job = (g._module.bytecode, [])
    compiler = BackgroundCompiler()
    if compiler.in_process:
        pytest.skip("compiles run in this process here")
    fut = compiler.submit(*job)
    deadline = time.monotonic() + 120
    while not (getattr(compiler._pool, "_executor", None) and compiler._pool._executor._processes):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    first = compiler._pool
    for process in list(compiler._pool._executor._processes.values()):
        process.kill()
    assert fut.result(timeout=600) is not None  # a compiled model, from a new pool
    assert compiler._pool is not first
    compiler._kill_workers()


@pytest.mark.parametrize("when", ["compiling", "after_hook"])
def test_a_program_exits_without_waiting_for_a_compile(when, tmp_path):
    """At exit MAX's compile pool sends its workers SIGTERM and joins them; a worker inside the
    compiler does not act on it, and a script waited out the compile in flight (49 s measured).
    Nabla's exit hook kills the workers, and no compile asked for after it (from the compiler's
    thread, while the program exits) starts one."""
    import os
    import subprocess
    import sys
    import time

    script = tmp_path / "exit_while_compiling.py"
    script.write_text(_EXIT_WHILE_COMPILING)
    proc = subprocess.Popen([sys.executable, str(script), str(64 + os.getpid() % 977), when],
                            stdout=subprocess.PIPE, text=True)
    out, _ = proc.communicate(timeout=300)
    left = time.monotonic() - float(out.split()[-1])
    assert proc.returncode == 0
    # a matmul's compile alone takes 12 s or more on one core: an exit that waited for it is slower
    assert left < 8.0, f"the program took {left:.1f} s to exit after its last line"
    for pid in out.split()[:-2]:
        try:
            os.kill(int(pid), 0)
            raise AssertionError(f"compile worker {pid} outlived the program")
        except ProcessLookupError:
            pass


def test_the_interpreter_warm_names_every_family_of_maxs():
    """``python -m nabla.build --interpreter`` compiles ``FAMILIES``; every other family of MAX's
    interpreter is in ``LEFT_COLD`` with its reason (a new family of MAX's must be looked at, not
    silently left cold)."""
    import importlib

    from nabla.core import interpreter

    importlib.import_module("max._interpreter_ops")
    from max._interpreter_ops import gc_compile

    names = {f.name for f in gc_compile.registered_families()}
    assert set(interpreter.FAMILIES) <= names
    assert names - set(interpreter.FAMILIES) == set(interpreter.LEFT_COLD)
    assert interpreter.warmed()  # (the README's test command compiled them before the tests)


def test_a_process_whose_work_runs_on_the_program_kernel_never_imports_max_graph(fused_kernels):
    """``max.graph`` (and ``max.engine``, which imports it) cost ~0.1-0.2 s of a process's start; a
    script whose work the program kernel and the op kernels run builds no graph, so imports neither:
    the lowerings look MAX's graph ops up at their first use."""
    import subprocess
    import sys

    script = ("import sys\nimport nabla.numpy as np\n"
              "x = np.arange(12.0).reshape(3, 4)\n"
              "v = float((np.sin(x) * 2 + x.sum(axis=0)).max()) + float(np.linalg.det(x[:, :3] + np.eye(3)))\n"
              "v += float(np.sort(x[::-1], axis=0)[0, 0]) + float(np.abs(np.fft.rfft(x)).sum())\n"
              "y = np.arange(12).reshape(3, 4)\ny[[0, 2], 1:3] = -1\nv += float(y.sum())\n"
              "print(v, 'max.graph' in sys.modules, 'max.engine' in sys.modules,"
              " 'max._interpreter_ops' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()
    x = np.arange(12.0).reshape(3, 4)
    y = np.arange(12).reshape(3, 4)
    y[[0, 2], 1:3] = -1
    want = (np.sin(x) * 2 + x.sum(axis=0)).max() + np.linalg.det(x[:, :3] + np.eye(3)) \
        + np.sort(x[::-1], axis=0)[0, 0] + np.abs(np.fft.rfft(x)).sum() + y.sum()
    assert abs(float(out[0]) - want) < 1e-9 * abs(want)
    # (nor MAX's interpreter modules, 0.3-0.5 s to import: a staged trace asked whether their
    # families were loaded by importing them)
    assert out[1:] == ["False", "False", "False"]
