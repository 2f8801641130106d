"""Single-op models (nabla/runtime/single_op.py): kernel ops alone and traces
run on models compiled once per machine, their canonical forms, and the detached compiler that
builds them (nabla/runtime/single_op_compiler.py)."""

import collections
import os
import time

import numpy as np
import pytest

import nabla as nb
import nabla.array_api as xp
from nabla.runtime import single_op_compiler
from nabla.runtime.single_op import QUEUED


def test_canonical_forms_give_one_model_per_dtype_with_numpys_values(stats, no_single_op_models):
    """Elementwise ops on equal shapes run as ``(n,)`` (``(n, 2)`` complex), any reshape as a flat
    identity, matmul as ``(b, m, k) @ (b, k, n)``, copysign broadcast apart: after one shape per
    dtype is compiled, other shapes and ranks (0-d included) run on the same models with NumPy's
    values, and only models of another kind meet MAX's interpreter; an empty sum (k = 0) still
    gives zeros."""
    single_op = no_single_op_models
    rng = np.random.default_rng(3)

    def arrays(shape, dtype):
        a = rng.standard_normal(shape) * 3
        b = rng.standard_normal(shape) * 3
        if np.dtype(dtype).kind == "c":
            a, b = a + 1j * rng.standard_normal(shape), b - 2j
        return a.astype(dtype), b.astype(dtype)

    def check(shape, k, dtype):
        a, b = arrays(shape, dtype)
        b.flat[:1] = a.flat[:1]
        x, y = nb.asarray(a), nb.asarray(b)
        np.testing.assert_array_equal((x == y).numpy(), a == b)
        np.testing.assert_array_equal(nb.isnan(x).numpy(), np.isnan(a))
        np.testing.assert_array_equal(nb.where(x == y, x, y).numpy(), np.where(a == b, a, b))
        np.testing.assert_array_equal(nb.reshape(x, (-1,)).numpy(), a.reshape(-1))
        m, n = rng.standard_normal((2, 3, k)).astype(dtype), rng.standard_normal((2, k, 4)).astype(dtype)
        np.testing.assert_allclose(nb.matmul(nb.asarray(m), nb.asarray(n)).numpy(), m @ n, rtol=1e-5, atol=1e-5)
        if np.dtype(dtype).kind == "f":
            got = nb.copysign(x, nb.asarray(np.array([-0.0, 2.0][:1], dtype))).numpy()
            np.testing.assert_array_equal(np.signbit(got), np.signbit(np.copysign(a, -0.0)))

    for dtype in (np.float32, np.complex128):
        check((4, 5), 3, dtype)
    single_op_compiler.compile_specs(list(single_op._WANTED.values()))
    names = {spec["name"] for spec in single_op._WANTED.values()}
    before = stats()["interpreted"]
    for shape, k in (((), 2), ((3, 1, 2), 0), ((7,), 5)):
        for dtype in (np.float32, np.complex128):
            check(shape, k, dtype)
    new = [spec for spec in single_op._WANTED.values() if spec["name"] not in names]
    # an empty sum's matmul keeps its static 0, and broadcast_to is a model per target shape
    assert all(spec["op"] == "broadcast_to" or spec["op"] == "matmul" and 0 in spec["dims"][0] for spec in new)
    assert stats()["interpreted"] == before + len(new)


def test_a_linalg_model_serves_every_stack_of_a_matrix_shape(stats, no_single_op_models, no_library_kernels):
    """Linalg kernels take their operands as (b, m, n), all symbolic: once this machine has
    their models, stacks of any leading shape and matrix size run on them, with NumPy's values,
    and no trace meets MAX's interpreter (where the op kernels' library does not run them)."""
    single_op = no_single_op_models
    rng = np.random.default_rng(0)

    def check(lead, dtype=np.float64, n=3):
        g = rng.standard_normal(lead + (n, n))
        a = (g @ np.swapaxes(g, -1, -2) + n * np.eye(n)).astype(dtype)
        b = rng.standard_normal(lead + (n, 4)).astype(dtype)
        np.testing.assert_allclose(nb.linalg.det(nb.asarray(a)).numpy(), np.linalg.det(a), rtol=1e-10)
        np.testing.assert_allclose(nb.linalg.solve(nb.asarray(a), nb.asarray(b)).numpy(), np.linalg.solve(a, b),
                                   rtol=1e-9, atol=1e-12)
        z = np.array([-0.0, 0.0, -np.nan, np.nan, -1.0], dtype)
        np.testing.assert_array_equal(nb.signbit(nb.asarray(z)).numpy(), np.signbit(z))

    check((2,))
    first = stats()["interpreted"]
    wanted = {spec["op"] for spec in single_op._WANTED.values()}
    assert {"det", "solve"} <= wanted
    assert {spec["reuse"] for spec in single_op._WANTED.values() if spec["op"] != "getitem"} == {single_op.KERNEL}
    single_op_compiler.compile_specs(list(single_op._WANTED.values()))
    for lead in ((), (4,), (3, 2), (1, 5)):
        check(lead)
    for n in (1, 2, 5):  # every size of matrix too
        check((3,), n=n)
    assert stats()["interpreted"] == first
    check((0,))  # an empty stack's results are fills


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_argmax_and_argmin_models_serve_every_axis_and_size(stats, no_single_op_models, dtype, arg_reductions_unfused):
    """argmax and argmin run as a reduction over the middle axis of (outer, n, inner): once one
    shape's models are compiled, every axis, rank, size (an axis of one, a single row) and
    keepdims runs on them with NumPy's values (the first of ties, NaN first), no interpreter.
    (The fused kernel, which takes them itself at first sight, declines them here.)"""
    single_op = no_single_op_models
    rng = np.random.default_rng(5)

    def check(shape, axis, keepdims=False):
        a = np.round(rng.standard_normal(shape) * 3).astype(dtype)  # (ties: the first one wins)
        if a.dtype.kind == "f" and a.size > 2:
            a.flat[a.size // 2] = np.nan
        for name in ("argmax", "argmin"):
            got = getattr(xp, name)(nb.asarray(a), axis=axis, keepdims=keepdims).numpy()
            np.testing.assert_array_equal(got, getattr(np, name)(a, axis=axis, keepdims=keepdims),
                                          err_msg=f"{name} {shape} axis={axis}")

    check((4, 6), 1)
    assert {spec["op"] for spec in single_op._WANTED.values()} == {"argmax", "argmin"}
    single_op_compiler.compile_specs(list(single_op._WANTED.values()))
    before = stats()["interpreted"]
    for shape, axis, keepdims in (((4, 6), 0, False), ((3, 5, 7), 1, True), ((3, 5, 7), 2, False),
                                  ((3, 5, 7), 0, True), ((9,), 0, False), ((5, 1), 1, False), ((1, 8), 1, True),
                                  ((2, 3, 4, 5), 2, False)):
        check(shape, axis, keepdims)
    assert stats()["interpreted"] == before


def test_fft_models_serve_every_axis_rank_and_default_length(stats, no_single_op_models, no_library_kernels):
    """Where the op kernels' library does not run it, a transform's model sees its input as (outer, n, inner) around the axis (a 2-D one as
    (outer, rows, n)), with an inverse's length NumPy's default kept symbolic: once one shape's
    models are compiled, every axis, rank and size runs on them with NumPy's values, and the family
    the models name is the one the first run's list builds."""
    import nabla.numpy as nnp
    from nabla.ops.fourier import fft_op

    single_op = no_single_op_models
    rng = np.random.default_rng(7)

    def check(shape, axis):
        x = rng.standard_normal(shape)
        z = x + 1j * rng.standard_normal(shape)
        xs, zs = nnp.asarray(x), nnp.asarray(z)
        for name, ours, theirs in (("rfft", xs, x), ("irfft", zs, z), ("ifft", zs, z)):  # (fft: ifft's constants)
            got = np.asarray(getattr(nnp.fft, name)(ours, axis=axis))
            np.testing.assert_allclose(got, getattr(np.fft, name)(theirs, axis=axis), rtol=1e-10, atol=1e-10,
                                       err_msg=f"{name} {shape} axis={axis}")
        if len(shape) >= 2:
            np.testing.assert_allclose(np.asarray(nnp.fft.ifft2(zs)), np.fft.ifft2(z), rtol=1e-10, atol=1e-10,
                                       err_msg=f"ifft2 {shape}")

    check((4, 6), 1)
    met = list(single_op._WANTED.values())
    assert {spec["op"] for spec in met} == {"fft"} and len(met) == 4
    assert {spec["name"] for spec in met} <= {spec["name"] for spec in single_op.family(fft_op)}
    single_op_compiler.compile_specs(met)
    before = stats()["interpreted"]
    for shape, axis in (((4, 6), 0), ((3, 5, 7), 1), ((3, 5, 7), 0), ((9,), 0), ((2, 3, 4, 5), 2), ((5, 1), 0)):
        check(shape, axis)
    assert stats()["interpreted"] == before


@pytest.mark.usefixtures("recorded_small_ops")
def test_single_op_models_run_a_new_trace_node_by_node(stats, monkeypatch, tmp_path, without_fused_kernel):
    """A trace the fused kernel does not take runs on MAX's interpreter at first sight and asks for
    single-op models; once this machine has compiled them, traces of those ops,
    of any size, run node by node on them (no interpreter), with the same values."""
    from nabla.core.disk_cache import ModelDiskCache
    from nabla.runtime import single_op

    engine = nb.core.graph.GRAPH.engine
    monkeypatch.setattr(engine, "single_op_models", True)
    monkeypatch.setattr(engine, "single_op_disk", ModelDiskCache(tmp_path))  # a machine with no models yet
    for table in ("_single_op_entries", "_bundled", "_bundle_use"):
        monkeypatch.setattr(engine, table, {})
    monkeypatch.setattr(single_op, "_MET", {})
    monkeypatch.setattr(single_op, "_WANTED", {})
    monkeypatch.setattr(single_op, "_WANTED_PER_CLASS", collections.Counter())
    monkeypatch.setattr(single_op, "_MISSES", collections.Counter())

    def f(x, y):
        return x * 7 + y

    def check(rows, cols):
        a = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols) - 5
        b = np.arange(rows, dtype=np.int64).reshape(rows, 1) * -3
        np.testing.assert_array_equal(f(nb.asarray(a), nb.asarray(b)).numpy(), f(a, b))

    check(3, 4)
    assert stats()["interpreted"] == 1
    wanted = {spec["op"] for spec in single_op._WANTED.values()}
    assert wanted == {"multiply", "add"}, wanted
    single_op_compiler.compile_specs(list(single_op._WANTED.values()))
    # one compile for both (MAX's cost per compile is nearly all fixed): one file under both names
    from nabla.core.models import single_op_digest

    files = {engine.single_op_disk.path_of(single_op_digest(name)) for name in single_op._WANTED}
    assert None not in files and len({f.name.split(".")[1] for f in files}) == 1, files
    for shape in ((3, 4), (5, 9)):
        check(*shape)
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    for c in (7, -2):  # one node and its scalar constant: its model, the constant given as data
        np.testing.assert_array_equal((nb.asarray(a) * c).numpy(), a * c)
    assert stats()["interpreted"] == 1


def _without_opcodes(monkeypatch, *names):
    """The fused kernel made to lack these ops' opcodes (every float function has one)."""
    from nabla.core.operation import OPS

    for name in names:
        monkeypatch.setattr(OPS[name], "fused", None)


def test_a_trace_runs_its_nodes_with_models_on_them_while_the_interpreter_lacks_families(
        stats, monkeypatch, no_single_op_models):
    """Where this machine has models for some of a trace's nodes and MAX's interpreter has not yet
    loaded its families (a process's first traces), every node runs alone: those with models on
    them, the others on the interpreter, which then loads only their families. Once the families
    are loaded the interpreter takes such a trace whole."""
    single_op = no_single_op_models
    engine = nb.core.graph.GRAPH.engine
    interpreted = []
    run_interpreter = engine._interpret

    def record(entry, *args):
        interpreted.append(sorted(set(entry.op_names) - {"constant"}))
        return run_interpreter(entry, *args)

    monkeypatch.setattr(engine, "_interpret", record)
    _without_opcodes(monkeypatch, "atan", "hypot", "sinh")
    a = (np.arange(24, dtype=np.float64).reshape(6, 4) - 5) / 7
    c = np.arange(6, dtype=np.float64).reshape(6, 1) % 2 + 1

    def check(rows=3):  # (ops the fused kernel lacks here, so none of them runs fused)
        got = nb.hypot(nb.atan(nb.sinh(nb.asarray(a[:rows]))), nb.asarray(c[:rows]))
        np.testing.assert_allclose(got.numpy(), np.hypot(np.arctan(np.sinh(a[:rows])), c[:rows]), rtol=1e-12)

    check()
    assert interpreted == [["atan", "hypot", "sinh"]]
    single_op_compiler.compile_specs([spec for spec in single_op._WANTED.values() if spec["op"] in ("atan", "sinh")])
    interpreted.clear()
    monkeypatch.setattr(single_op, "families_loaded", lambda: False)
    check(5)
    assert interpreted == [["hypot"]]  # atan and sinh ran on their models
    interpreted.clear()
    monkeypatch.setattr(single_op, "families_loaded", lambda: True)
    check(6)
    assert interpreted == [["atan", "hypot", "sinh"]]


def test_kernel_models_are_asked_for_when_the_other_wants_are_full(monkeypatch):
    """A session that has asked for as many every-size and one-shape models as it may queue still
    asks for a kernel's model (the ones that save most); per class, the models it missed most
    often are queued."""
    from nabla.runtime import single_op

    monkeypatch.setattr(single_op, "_WANTED", {})
    monkeypatch.setattr(single_op, "_WANTED_PER_CLASS", collections.Counter())
    monkeypatch.setattr(single_op, "_MISSES", collections.Counter())
    monkeypatch.setattr(single_op, "_MAX_WANTED", {single_op.KERNEL: 2, single_op.EVERY_SIZE: 3,
                                                    single_op.ONE_SHAPE: 3})
    spec = {"kwargs": {}, "layout": None}
    for i in range(10):
        single_op._want(f"s{i}", {**spec, "name": f"s{i}", "reuse": single_op.EVERY_SIZE})
        single_op._want(f"o{i}", {**spec, "name": f"o{i}", "reuse": single_op.ONE_SHAPE})
    for _ in range(3):
        single_op._want("k", {**spec, "name": "k", "reuse": single_op.KERNEL})
        # missed most: queued though met last
        single_op._want("late", {**spec, "name": "late", "reuse": single_op.ONE_SHAPE})
    queued = single_op._selected()
    classes = collections.Counter(s["reuse"] for s in queued)
    assert classes == {single_op.EVERY_SIZE: 3, single_op.ONE_SHAPE: 3, single_op.KERNEL: 1}
    assert [s["name"] for s in queued if s["reuse"] == single_op.ONE_SHAPE] == ["late", "o0", "o1"]
    assert {s["name"]: s["misses"] for s in queued}["k"] == 3 and single_op._MISSES["s0"] == 1


@pytest.mark.usefixtures("recorded_small_ops")
def test_a_bundle_compiled_again_under_new_names_serves_them(stats, no_single_op_models, without_fused_kernel):
    """MAX's compile cache ignores graph names: the same graphs bundled under new names (an edit
    renamed the models) come back with the old names; each new name still finds its model."""
    single_op = no_single_op_models
    engine = nb.core.graph.GRAPH.engine
    a = np.arange(24, dtype=np.int64).reshape(6, 4) - 5
    (nb.asarray(a) * 7 - 2).numpy()
    specs = list(single_op._WANTED.values())
    ops = nb.ops.registry()
    for suffix in ("", "-renamed"):
        members = [(spec["name"] + suffix,
                    single_op_compiler._link_or_build(spec, ops[spec["op"]], spec["name"] + suffix, engine, None,
                                                       None)[1]) for spec in specs]
        single_op_compiler._compile_bundle(engine, engine.single_op_disk, members)
    engine._single_op_entries = {}  # a fresh process (the fixture puts the engine's own back)
    assert {s["op"] for s in specs} == {"multiply", "subtract"}
    for spec in specs:
        assert engine.single_op_model(spec["name"] + "-renamed", None, compile=False) is not None, spec["name"]
        assert engine.single_op_model(spec["name"], None, compile=False) is not None, spec["name"]


def test_every_exiting_process_queues_its_wanted_models(monkeypatch, tmp_path):
    """Processes that exit while the detached compiler runs queue their wants; the compiler
    drains every queued file (not just the first process's) and leaves the queue empty."""
    from nabla.runtime import single_op

    monkeypatch.setenv("NABLA_KERNEL_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("NABLA_COMPILE_AT_EXIT", "1")  # (asked for: by default nothing compiles after exit)
    started = []
    monkeypatch.setattr(single_op, "start_detached", lambda *a, **k: started.append(a) or False)  # one is running
    monkeypatch.setattr(single_op, "_MET", {})  # (nothing to regroup)
    for names in (["a", "b"], ["c"]):
        monkeypatch.setattr(single_op, "_WANTED", {n: {"name": n} for n in names})
        single_op._compile_elsewhere()
    assert len(started) == 2 and len(list(tmp_path.glob(QUEUED))) == 2
    compiled = []
    monkeypatch.setattr(single_op_compiler, "compile_specs",
                        lambda specs, alive: compiled.extend(s["name"] for s in specs))
    lock = tmp_path / "single_op.lock"
    lock.touch()
    monkeypatch.setattr(single_op_compiler, "_sources_changed", lambda: True)  # edited since this compiler started
    single_op_compiler._drain(tmp_path, lock)
    assert not compiled and len(list(tmp_path.glob(QUEUED))) == 2  # left for a fresh compiler
    monkeypatch.setattr(single_op_compiler, "_sources_changed", lambda: False)
    single_op_compiler._drain(tmp_path, lock)
    assert sorted(compiled) == ["a", "b", "c"]
    assert not list(tmp_path.glob(QUEUED))


def test_by_default_an_exiting_process_queues_its_wants_and_starts_nothing(monkeypatch, tmp_path):
    """Nothing of Nabla's computes after a program exits unless asked: the wants wait in the queue
    for ``python -m nabla.build``; ``NABLA_COMPILE_AT_EXIT=0`` queues nothing."""
    from nabla.runtime import single_op

    monkeypatch.setenv("NABLA_KERNEL_CACHE_DIR", str(tmp_path))
    started = []
    monkeypatch.setattr(single_op, "start_detached", lambda *a, **k: started.append(a) or True)
    monkeypatch.setattr(single_op, "_MET", {})
    monkeypatch.setattr(single_op, "_WANTED", {"a": {"name": "a"}})
    monkeypatch.setenv("NABLA_COMPILE_AT_EXIT", "0")
    single_op._compile_elsewhere()
    assert not list(tmp_path.glob(QUEUED))
    monkeypatch.delenv("NABLA_COMPILE_AT_EXIT")
    single_op._compile_elsewhere()
    assert len(list(tmp_path.glob(QUEUED))) == 1 and not started


def test_the_detached_compiler_takes_what_saves_most_first(monkeypatch, tmp_path):
    """Kernel models first, then the ones processes missed most often (summed over processes),
    then models for every size before one-shape models, then the oldest. A spec queued while it
    compiles joins the order."""
    import json

    from nabla.runtime import single_op

    def queue(*specs):
        (tmp_path / f"nabla-single_op-{len(list(tmp_path.iterdir()))}.json").write_text(json.dumps(list(specs)))

    one, every, kernel = single_op.ONE_SHAPE, single_op.EVERY_SIZE, single_op.KERNEL
    queue({"name": "getitem", "reuse": one}, {"name": "add", "reuse": every}, {"name": "old"})
    queue({"name": "reshape", "reuse": one}, {"name": "sum", "reuse": every})
    queue({"name": "reshape", "reuse": one}, {"name": "cholesky", "reuse": kernel},
          {"name": "equal", "reuse": one, "misses": 3})
    compiled = []

    def compile_specs(specs, alive):
        compiled.append([s["name"] for s in specs])
        if len(compiled) == 1:
            queue({"name": "sort", "reuse": kernel})  # asked for while the compiler runs

    monkeypatch.setattr(single_op_compiler, "compile_specs", compile_specs)
    monkeypatch.setattr(single_op_compiler, "_sources_changed", lambda: False)
    lock = tmp_path / "single_op.lock"
    lock.touch()
    single_op_compiler._drain(tmp_path, lock)
    # each bundle: the first in that order, with what the same process asked for (``_batch``)
    assert compiled == [["cholesky"], ["sort"], ["equal"], ["reshape", "sum"], ["add", "getitem", "old"]]
    assert not list(tmp_path.glob(QUEUED))


def test_a_killed_compilers_lock_is_taken(monkeypatch, tmp_path):
    """The detached compiler's lock names its pid: a lock whose process is dead (a session's
    processes were killed) is taken at once, a live one is respected, one naming no pid is taken
    after a minute (it blocked every compile for an hour before)."""
    import subprocess

    from nabla.core import compiler

    finished = subprocess.Popen(["true"])
    finished.wait()
    monkeypatch.setenv("NABLA_KERNEL_CACHE_DIR", str(tmp_path))
    started = []

    class Child:
        def __init__(self, argv, **kwargs):
            started.append(argv)
            self.pid = finished.pid + 0  # any pid: only written to the lock

    monkeypatch.setattr(subprocess, "Popen", Child)
    lock = tmp_path / "x.lock"
    lock.write_text(str(os.getpid()))
    assert not compiler.start_detached("x.lock", "m") and not started
    lock.write_text(str(finished.pid))
    assert compiler.start_detached("x.lock", "m") and len(started) == 1
    assert lock.read_text() == str(finished.pid)
    lock.write_text("")
    assert not compiler.start_detached("x.lock", "m")
    os.utime(lock, (time.time() - 120, time.time() - 120))
    assert compiler.start_detached("x.lock", "m") and len(started) == 2


@pytest.mark.skipif(not os.path.exists("/proc/self/autogroup"), reason="Linux autogroups only")
def test_detached_compilers_yield_to_the_users_session():
    """A detached compiler starts a session of its own; with autogroups its session's group must be
    nice 19 too, or it takes a whole core from the user's work whatever its own nice value."""
    import subprocess
    import sys

    from nabla.core import compiler

    child = subprocess.run([sys.executable, "-c", "import os; print(open('/proc/self/autogroup').read(), os.nice(0))"],
                           start_new_session=True, preexec_fn=compiler._background_priority, capture_output=True,
                           text=True, check=True)
    group, nice = child.stdout.rsplit(maxsplit=1)
    probe = subprocess.run([sys.executable, "-c", "open('/proc/self/autogroup', 'w').write('19')"],
                           start_new_session=True, capture_output=True)
    if probe.returncode != 0:
        pytest.skip("this system does not let a process renice its autogroup")
    assert group.strip().endswith("nice 19") and nice == "19"


def test_a_renamed_single_op_model_with_the_same_graph_is_linked_not_compiled(monkeypatch, tmp_path):
    """Model names carry a digest of the lowerings' sources, so an edit anywhere in nabla/ops renames
    them all; the detached compiler links a model whose graph text it compiled before (no compile)
    and compiles one whose graph differs."""
    from nabla.core.disk_cache import ModelDiskCache
    from nabla.core.models import single_op_digest

    engine = nb.core.graph.GRAPH.engine
    disk = ModelDiskCache(tmp_path)
    monkeypatch.setattr(engine, "single_op_disk", disk)
    monkeypatch.setattr(engine, "_single_op_entries", {})
    spec = {"op": "add", "kwargs": {"dict": {}}, "dtypes": ["float32", "float32"], "dims": [["a"], ["a"]], "picks": [0],
            "layout": None}
    sources = ["oldsources"]
    monkeypatch.setattr(single_op_compiler, "_digest_of", lambda op: sources[0])
    engine.wait_for_compiles()  # (earlier tests' background compiles would land inside the count)
    compiles = engine.stats.compiles
    single_op_compiler.compile_specs([{**spec, "name": "op1-add-test-oldsources"}])
    assert engine.stats.compiles == compiles + 1
    sources[0] = "newsources"
    single_op_compiler.compile_specs([{**spec, "name": "op1-add-test-newsources"}])
    assert engine.stats.compiles == compiles + 1  # linked
    single_op_compiler.compile_specs([{**spec, "op": "subtract", "name": "op1-subtract-test-oldsources"}])
    assert engine.stats.compiles == compiles + 1  # asked for by older sources: skipped, nothing looks it up
    old, new = (disk.path_of(single_op_digest(n)) for n in ("op1-add-test-oldsources", "op1-add-test-newsources"))
    assert old is not None and new is not None and old.read_bytes() == new.read_bytes()
    x = np.arange(5, dtype=np.float32)
    monkeypatch.setattr(engine, "_single_op_entries", {})  # as another process finds it
    model = engine.single_op_model("op1-add-test-newsources", None, compile=False)
    from max.driver import Buffer

    np.testing.assert_array_equal(model.execute(*[Buffer.from_numpy(x)] * 2)[0].to_numpy(), x + x)
    single_op_compiler.compile_specs([{**spec, "op": "multiply", "name": "op1-multiply-test-newsources"}])
    assert engine.stats.compiles == compiles + 2  # another graph: compiled


def test_a_kernel_ops_family_is_every_model_its_calls_ask_for(monkeypatch, no_single_op_models, no_library_kernels):
    """One miss of a kernel op asks for its whole family (``single_op.family``): the family is
    exactly the set of models the public functions ask for, over dtypes, complex forms, kwargs and
    matrix shapes (the oracle: the names those calls look up); an exiting process queues the
    members the machine lacks after its own misses."""
    import nabla.array_api as xp
    from nabla.runtime import single_op

    class Asked(Exception):
        pass

    asked = set()
    others = single_op.SingleOpPath.model

    def model(engine, plan_):
        if not plan_.node.op.single_op:  # (a cast of real input to eig's complex)
            return others(engine, plan_)
        asked.add(plan_.name)
        raise Asked

    monkeypatch.setattr(single_op.SingleOpPath, "model", staticmethod(model))
    rng = np.random.default_rng(0)

    def ask(f, *arrays, **kwargs):
        with pytest.raises(Asked):
            out = f(*(xp.asarray(a) for a in arrays), **kwargs)
            [t.numpy() for t in (out if isinstance(out, tuple) else (out,))]

    shapes = {"square": (2, 3, 3), "tall": (2, 4, 3), "wide": (2, 3, 4)}
    for dtype in (np.float32, np.float64, np.complex64, np.complex128):
        m = {k: rng.standard_normal(s).astype(dtype) for k, s in shapes.items()}
        for upper in (False, True):
            ask(xp.linalg.cholesky, m["square"], upper=upper)
        for b in (m["wide"], m["square"], m["square"][0, :, 0]):
            ask(xp.linalg.solve, m["square"], b)
        ask(xp.linalg.inv, m["square"])
        ask(xp.linalg.det, m["square"])
        ask(xp.linalg.slogdet, m["square"])
        ask(xp.linalg.eigh, m["square"])
        ask(xp.linalg.eigvalsh, m["square"])
        ask(xp.linalg.eig, m["square"])
        ask(xp.linalg.eigvals, m["square"])
        for a in m.values():
            for mode in ("reduced", "complete"):
                ask(xp.linalg.qr, a, mode=mode)
            for full in (True, False):
                ask(xp.linalg.svd, a, full_matrices=full)
            ask(xp.linalg.svdvals, a)
    for dtype in [d for d in nb.core.dtypes.ALL_DTYPES if not d.is_complex]:
        x = (rng.standard_normal((2, 3, 4)) * 9).astype(dtype.numpy_dtype)
        for f in (xp.sort, xp.argsort):
            for axis in (0, 1, -1):
                for descending in (False, True):
                    ask(f, x, axis=axis, descending=descending)
    # the sign-bit kernel's ops, at any shape and rank (at first sight the fused kernel reads sign
    # bits itself: here the path that asks for the kernel's models)
    from nabla.runtime.fused import FusedPath

    monkeypatch.setattr(FusedPath, "plan", staticmethod(lambda *traced: None))
    from nabla.runtime import default_paths

    monkeypatch.setattr(nb.core.graph.GRAPH.engine, "paths", default_paths(programs=False))  # (the fused kernel's)
    for dtype in (np.float32, np.float64):
        for shape in ((13,), (3, 7), (2, 1, 3)):  # (shapes no other test plans: plans are kept per structure)
            x = rng.standard_normal(shape).astype(dtype)
            ask(xp.signbit, x)
            ask(xp.copysign, x, -x)
    ops = nb.ops.registry()
    names = ("cholesky", "solve", "det", "eigh", "eig", "qr", "svd", "sort", "signbit", "copysign")
    family = {spec["name"]: spec for n in names for spec in single_op.family(ops[n])}
    assert asked == set(family)
    # per complex form (float32 and complex64 work is done in float64 and complex128): cholesky, solve
    # (one model whatever B's columns), det, eigh, qr (the complete factors of tall and wide stacks
    # share one model), svd (tall or wide, a square one is either); eig complex only; sort: int64,
    # uint64, float64 (every other dtype sorted as one of them), either order; signbit and copysign:
    # float32, float64
    assert len(family) == 2 * (1 + 1 + 1 + 1 + 5 + 4) + 1 + 6 + 4

    # a process that missed one member queues it, then the rest of its family after its misses
    (name, spec), = [(n, s) for n, s in family.items() if s["op"] == "eigh"][:1]
    kernel_cache = nb.core.graph.GRAPH.engine.single_op_disk.directory
    monkeypatch.setenv("NABLA_KERNEL_CACHE_DIR", str(kernel_cache))
    monkeypatch.setenv("NABLA_COMPILE_AT_EXIT", "1")
    started = []
    monkeypatch.setattr(single_op, "start_detached", lambda *a, **k: started.append(a) or False)
    for table in ("_WANTED", "_MISSES", "_WANTED_PER_CLASS", "_MET"):
        monkeypatch.setattr(single_op, table, type(getattr(single_op, table))())
    single_op._want(name, spec)
    single_op._compile_elsewhere()
    import json

    (queued_file,) = kernel_cache.glob(QUEUED)
    queued = json.loads(queued_file.read_text())
    assert queued[0]["name"] == name and queued[0]["misses"] == 1
    assert sorted(s["name"] for s in queued[1:]) == sorted(n for n, s in family.items() if s["op"] == "eigh" and n != name)
    assert all(s["misses"] == 0 for s in queued[1:]) and len(started) == 1


def test_a_bundle_is_made_of_one_processs_neighbouring_wants():
    """The detached compiler bundles the first spec in its order with the specs the same process
    queued nearest to it in the order that process met them, kernels apart; not with whatever
    other processes missed as often."""
    one, kernel = 2, 0
    pending = {"a1": {"reuse": one}, "a2": {"reuse": one}, "a3": {"reuse": one}, "ak": {"reuse": kernel},
               "b1": {"reuse": one}, "b2": {"reuse": one}}
    origin = {"a1": "A", "a2": "A", "a3": "A", "ak": "A", "b1": "B", "b2": "B"}
    first = {"a1": 3, "a2": 9, "a3": 5, "ak": 4, "b1": 6, "b2": 1}
    assert single_op_compiler._batch(["a3", "b1", "a1", "b2", "a2", "ak"], pending, origin, first) == \
        ["a3", "a1", "a2"]  # |3 - 5| < |9 - 5|
    assert single_op_compiler._batch(["ak", "a1"], pending, origin, first) == ["ak"]
    assert single_op_compiler._batch(["b1", "a1", "b2"], pending, origin, first) == ["b1", "b2"]
    eight = {f"c{i}": {"reuse": one} for i in range(12)}
    batch = single_op_compiler._batch(list(eight), eight, dict.fromkeys(eight, "C"), {n: i for i, n in enumerate(eight)})
    assert batch == [f"c{i}" for i in range(single_op_compiler._BUNDLE)]


@pytest.mark.usefixtures("recorded_small_ops")
def test_models_used_apart_from_a_heavy_bundle_are_regrouped_once(stats, no_single_op_models, monkeypatch,
                                                                  without_fused_kernel):
    """A process that used some members of a bundle asks, at exit, for them to be compiled into a
    bundle of their own; the regrouped models serve it (their old bundle still serves the rest),
    and a regrouped bundle is never regrouped again."""
    from nabla.core.models import single_op_digest

    def content(name):
        return engine.single_op_disk.path_of(single_op_digest(name)).name.split(".")[1]

    def fresh_process():
        for table in ("_single_op_entries", "_bundled", "_bundle_use", "_cache"):
            monkeypatch.setattr(engine, table, type(getattr(engine, table))())
        monkeypatch.setattr(single_op, "_WANTED", {})
        monkeypatch.setattr(single_op, "_MET", {})

    single_op = no_single_op_models
    engine = nb.core.graph.GRAPH.engine
    a = np.arange(24, dtype=np.int64).reshape(6, 4) - 5
    (-(nb.asarray(a) * 7 - 2)).numpy()
    single_op_compiler.compile_specs(list(single_op._WANTED.values()))
    by_op = {spec["op"]: spec["name"] for spec in single_op._WANTED.values()}
    assert set(by_op) == {"multiply", "subtract", "negative"}
    old = content(by_op["multiply"])
    assert content(by_op["subtract"]) == content(by_op["negative"]) == old  # one bundle
    fresh_process()
    assert engine.single_op_model_known(by_op["multiply"]) and not engine.single_op_model_known("op1-none")
    assert not engine._bundle_use and engine._single_op_entries[by_op["multiply"]].model is None  # asked, not loaded
    np.testing.assert_array_equal((nb.asarray(a) * 7 - 2).numpy(), a * 7 - 2)
    assert not single_op._WANTED and set(single_op._MET) == {by_op["multiply"], by_op["subtract"]}
    assert single_op._regroup(engine.single_op_disk.directory) == []  # a third of 1 MB unused: kept
    monkeypatch.setattr(single_op, "_REGROUP_BYTES", 1)
    specs = single_op._regroup(engine.single_op_disk.directory)
    assert {s["name"] for s in specs} == {by_op["multiply"], by_op["subtract"]} and all(s["regroup"] for s in specs)

    single_op_compiler.compile_specs(specs)
    new = content(by_op["multiply"])
    assert new != old and content(by_op["subtract"]) == new and content(by_op["negative"]) == old
    for name in (by_op["multiply"], by_op["subtract"]):  # each left its old entry
        assert len(list(engine.single_op_disk.directory.glob(single_op_digest(name) + ".*.mef"))) == 1
    assert (engine.single_op_disk.directory / f"{new}.regrouped").exists()
    fresh_process()
    np.testing.assert_array_equal((-(nb.asarray(a) * 7 - 2)).numpy(), -(a * 7 - 2))  # all found, right
    assert not single_op._WANTED and len(single_op._MET) == 3
    monkeypatch.setattr(engine, "_bundle_use", {new: [1 << 30, 8, [by_op["multiply"]]]})
    assert single_op._regroup(engine.single_op_disk.directory) == []  # regrouped already


def test_a_split_trace_asks_models_only_for_nodes_the_fused_kernel_does_not_take(monkeypatch, fused_kernels):
    """A trace the fused kernel cannot take whole (an op it lacks, and an integer sum of float
    work), on a machine with no single-op models and the interpreter's families loaded, asks for
    its nodes' models only for the nodes the fused kernel would not take alone (``hypot``); the
    comparison, the ``where`` and the integer sum run on the kernel."""
    from nabla.runtime import single_op

    engine = nb.core.graph.GRAPH.engine
    monkeypatch.setattr(engine, "single_op_models", True)
    monkeypatch.setattr(engine, "single_op_model_known", lambda name: False)  # no single-op models
    monkeypatch.setattr(single_op, "families_loaded", lambda: True)
    monkeypatch.setattr(single_op, "_WANTED", {})
    _without_opcodes(monkeypatch, "hypot")
    x = np.random.default_rng(3).standard_normal((7, 13))
    got = nb.sum(nb.where(nb.hypot(nb.asarray(x), 1.0) > 1.5, nb.asarray(np.int64(3)),
                          nb.asarray(np.int64(-1)))).numpy()
    assert got == np.where(np.hypot(x, 1.0) > 1.5, 3, -1).sum()
    assert [spec["op"] for spec in single_op._WANTED.values()] == ["hypot"]


@pytest.mark.usefixtures("recorded_small_ops")
def test_fits_alone_says_what_the_fused_kernel_takes(monkeypatch, fused_kernels):
    """``fits_alone`` (no model needed for a node run alone) against the fused kernel's own
    planning of each node as a trace of its own: when it declines, the single-op path is asked."""
    from nabla.runtime import single_op
    from nabla.runtime.fused_stages import fits_alone

    asked = []
    real = single_op.SingleOpPath.model
    monkeypatch.setattr(single_op.SingleOpPath, "model",
                        lambda self, engine, plan_: asked.append(plan_.node.op.name) or real(self, engine, plan_))
    rng = np.random.default_rng(4)
    f64, f32 = nb.asarray(rng.standard_normal((5, 6))), nb.asarray(rng.standard_normal((5, 6)).astype(np.float32))
    i64, i32 = nb.asarray(rng.integers(-5, 5, (5, 6))), nb.asarray(rng.integers(-5, 5, (5, 6)).astype(np.int32))
    b = nb.asarray(rng.random((5, 6)) > 0.5)
    cases = [lambda: f64 > 0.5, lambda: nb.isnan(f32), lambda: i64 == 2, lambda: i32 <= i32,
             lambda: nb.where(b, i64, i64), lambda: nb.where(b, f64, f64), lambda: nb.astype(f64, nb.int64),
             lambda: nb.astype(b, nb.float32), lambda: nb.astype(b, nb.int64), lambda: nb.astype(f64, nb.float32),
             lambda: nb.floor(f64), lambda: nb.sum(i64), lambda: nb.logical_not(b), lambda: nb.mean(f32, axis=0),
             lambda: f32 * 2.0, lambda: i32 + i32, lambda: nb.astype(f64, nb.float16),
             lambda: nb.astype(f64, nb.uint64)]  # (a negative float as uint64 is the platform's: refused)
    verdicts = []
    for case in cases:
        asked.clear()
        out = case()
        value = out._impl._values[0]
        assert value.node is not None and all(v.node is None or v.node.op.name == "constant"
                                              for v in value.node.inputs)  # one node on realized operands
        name, predicted = value.node.op.name, fits_alone(value.node, [value])
        out.numpy()
        verdicts.append((name, predicted, not asked))
    assert all(p == took for _, p, took in verdicts), [v for v in verdicts if v[1] != v[2]]
    assert {p for _, p, _ in verdicts} == {True, False}


def test_a_large_matmul_a_program_ran_without_its_model_queues_it(monkeypatch, tmp_path):
    """A read that runs a large matmul in a program, its model not on the machine, wants the model:
    a process that exits before a first-run build makes it (each run of a short script) queues it
    for ``python -m nabla.build``, where no process ever built it."""
    from nabla.core.disk_cache import ModelDiskCache
    from nabla.runtime import single_op

    engine = nb.core.graph.GRAPH.engine
    monkeypatch.setattr(engine, "single_op_disk", ModelDiskCache(tmp_path))  # a machine with no models yet
    for table in ("_single_op_entries", "_bundled", "_bundle_use"):
        monkeypatch.setattr(engine, table, {})
    monkeypatch.setattr(single_op, "_WANTED", {})
    monkeypatch.setattr(single_op, "_WANTED_PER_CLASS", collections.Counter())
    monkeypatch.setattr(single_op, "_MISSES", collections.Counter())
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((120, 70)), rng.standard_normal((70, 90))  # (past the programs' products)
    got = (nb.asarray(a) @ nb.asarray(b) * 2.0).numpy()
    np.testing.assert_allclose(got, a @ b * 2.0, rtol=1e-12, atol=1e-12)
    assert [spec["op"] for spec in single_op._WANTED.values()] == ["matmul"]
