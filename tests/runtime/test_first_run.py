"""The models a first run needs, built together on a cold machine (nabla/runtime/first_run.py) and by
``python -m nabla.build``: the manifest, the workers, and the engine waiting for a part."""

import json
import sys
import time

import numpy as np

import nabla as nb
import nabla.array_api as xp
from nabla import build
from nabla.runtime import first_run, single_op


def test_the_manifest_lists_models_that_serve_every_size_or_scalars_of_ops_that_exist():
    from nabla.core import dtypes as _dt
    from nabla.ops import registry

    manifest = json.loads(first_run.MANIFEST.read_text())
    ops = registry()
    names = []
    for spec in manifest["models"]:
        assert spec["op"] in ops, spec
        assert spec["reuse"] in (single_op.KERNEL, single_op.EVERY_SIZE) or build._tiny(spec), spec
        assert all(_dt.from_name(d) for d in spec["dtypes"])
        names.append(first_run.spec_name(spec))
    assert len(set(names)) == len(names) and None not in names
    assert set(manifest) == {"models"}  # (the program kernel is built apart: program_kernel.py)
    order = [spec["first"] for spec in manifest["models"]]
    assert sorted(order) == list(range(len(order)))  # as first runs met them


def test_a_manifest_spec_names_the_model_the_engine_looks_up(no_single_op_models, arg_reductions_unfused):
    """A spec recorded from a run gives back, from today's sources, the name the engine asks for
    (an op's own shapes made symbolic, or its canonical form's). (The fused kernel, which takes
    ``argmax`` itself, declines it here: a trace it declines runs on these models.)"""
    x = nb.asarray(np.linspace(-1, 1, 7))
    assert int(xp.argmax(x)) == 6
    assert int(xp.argmin(x[:3])) == 0
    assert sorted(spec["op"] for spec in no_single_op_models._WANTED.values()) == ["argmax", "argmin"]
    for name, spec in no_single_op_models._WANTED.items():
        assert first_run.spec_name(spec) == name


def test_the_record_lists_the_family_of_a_transform_or_sort_met_in_its_dtypes():
    """A script that met ``rfft`` and an ascending sort of float64 gets, in the list, the other
    transforms and the descending sort of float64 (an ``ifft`` or ``sort(...)[::-1]`` a user
    writes next), none of another dtype."""
    from nabla.ops.fourier import fft_op
    from nabla.ops.sorting import sort_op

    met = {}
    for op, kwargs in ((fft_op, {"kind": "r2c", "sign": -1, "scaling": 0, "n": 0, "axis": -2}),
                       (sort_op, {"axis": 1, "descending": False})):
        spec = next(s for s in single_op.family(op) if s["kwargs"] == kwargs and s["dtypes"] == ["float64"])
        met[spec["name"]] = {**single_op._encoded(spec), "first": len(met)}
    build._add_siblings(met)
    listed = [(s["op"], single_op._decode(s["kwargs"]), s["dtypes"]) for s in met.values()]
    assert all(dtypes == ["float64"] for *_, dtypes in listed)
    assert ("sort", {"axis": 1, "descending": True}, ["float64"]) in listed
    kinds = {(k["kind"], k["sign"], k.get("dims", 1)) for op, k, _ in listed if op == "fft"}
    assert kinds == {("r2c", -1, 1), ("c2r", 1, 1), ("c2c", -1, 1), ("c2c", 1, 1), ("c2c", -1, 2), ("c2c", 1, 2)}
    assert all(first_run.spec_name(s) == name for name, s in met.items())


class _Engine:
    """What ``parts`` asks of an engine: which models the machine has."""

    def __init__(self, known=()):
        self.known = set(known)

    def single_op_model_known(self, name):
        return name in self.known


def _fake_workers(monkeypatch, script: str):
    """Workers that run ``script`` (reading parts on stdin) instead of compiling."""
    import subprocess

    real = subprocess.Popen

    def popen(cmd, **kwargs):
        return real([sys.executable, "-c", script], **kwargs)

    monkeypatch.setattr(first_run.subprocess, "Popen", popen)


def test_parts_come_by_kind_then_in_the_order_first_runs_meet_them(monkeypatch, tmp_path):
    specs = [{"op": "abs", "kwargs": {"dict": {}}, "dtypes": [d], "dims": [["d0"]], "picks": [0], "layout": None,
              "reuse": 1, "first": 2 + i} for i, d in enumerate(["float64", "float32", "int64"])]
    specs.append({**specs[0], "op": "sort", "reuse": 0, "first": 6})
    specs += [{**specs[0], "op": "matmul", "first": 7}, {**specs[0], "op": "matmul", "dtypes": ["float32"], "first": 8}]
    specs += [{**specs[0], "op": op, "reuse": 0, "first": first} for op, first in (("qr", 5), ("fft", 9), ("cholesky", 10))]
    manifest = tmp_path / "first_run.json"
    manifest.write_text(json.dumps({"models": specs}))
    monkeypatch.setattr(first_run, "MANIFEST", manifest)
    monkeypatch.setattr(first_run, "BUNDLE", 3)
    monkeypatch.setattr(first_run, "SPLIT", 2)
    monkeypatch.setattr(first_run, "spec_name", lambda spec: f"{spec['op']}-{spec['dtypes'][0]}")
    todo = first_run.parts(_Engine(known={"abs-float32"}), workers=2)
    # the single-op models in as few bundles of at most BUNDLE as there are, of even sizes, in the
    # order first runs met them, then the heavy ops one by one
    assert [p.names for p in todo] == [["abs-float64", "abs-int64", "qr-float64"],
                                      ["sort-float64", "fft-float64", "cholesky-float64"],
                                      ["matmul-float64"], ["matmul-float32"]]
    assert [p.task["group"] for p in todo] == ["models"] * 2 + ["heavy"] * 2
    assert [p.index for p in todo] == list(range(4))
    # one worker: at most BUNDLE models a bundle still
    assert [p.names for p in first_run.parts(_Engine(known={"abs-float32"}), workers=1)][:2] == \
        [["abs-float64", "abs-int64", "qr-float64"], ["sort-float64", "fft-float64", "cholesky-float64"]]


def test_every_kernel_adds_each_kernel_ops_family_after_the_manifests_own():
    """``python -m nabla.build --every-kernel``: every dtype and form of each kernel op, bundled with
    the single-op models, the manifest's own first; nothing else changes."""
    from nabla.ops import registry

    families = {spec["name"] for op in registry().values() if op.single_op for spec in single_op.family(op)}
    plain, every = first_run.parts(_Engine(known=set())), first_run.parts(_Engine(known=set()), every_kernel=True)
    names = [n for p in every for n in p.names]
    assert families <= set(names) and len(names) == len(set(names))
    assert {n for p in plain for n in p.names} <= set(names)
    assert {p.task["group"] for p in every if set(p.names) & (families - {n for q in plain for n in q.names})} \
        == {"models"}
    first = {p.task["group"]: i for i, p in reversed(list(enumerate(every)))}
    assert first["models"] < first["heavy"]


def test_a_build_hands_out_parts_and_a_failed_or_stopped_part_is_not_built(monkeypatch):
    # the fake worker builds even parts, fails odd ones, and hangs on part 3
    _fake_workers(monkeypatch, "import json, sys, time\n"
                               "for line in sys.stdin:\n"
                               "    i = json.loads(line)['index']\n"
                               "    if i == 3: time.sleep(60)\n"
                               "    print('done' if i % 2 == 0 else 'failed', i, flush=True)\n")
    todo = [first_run.Part(i, {"models": []}, [f"m{i}"]) for i in range(4)]
    build = first_run.Build(todo, workers=2)
    build.start()
    assert todo[0].future.result(timeout=30) is True and todo[1].future.result(timeout=30) is False
    assert todo[2].future.result(timeout=30) is True
    waiting = build.pending("m3")
    assert waiting is not None and "parts done" in str(waiting.nabla_what)
    assert build.pending("m0") is None and build.pending("other") is None
    build.stop()  # (at exit): the hung worker is killed, its part not built
    assert todo[3].future.result(timeout=10) is False
    assert all(proc.wait(timeout=10) is not None for proc in build._procs)


def test_nothing_is_built_when_turned_off_or_under_another_policy(monkeypatch):
    engine = nb.core.graph.GRAPH.engine
    monkeypatch.setattr(first_run, "_BUILD", [])
    monkeypatch.setattr(engine, "policy", "auto")
    monkeypatch.setenv("NABLA_FIRST_RUN", "0")
    assert first_run.pending(engine, "any") is None and not first_run._BUILD
    monkeypatch.setenv("NABLA_FIRST_RUN", "1")
    monkeypatch.setattr(engine, "policy", "interpret")
    assert first_run.pending(engine, "any") is None and not first_run._BUILD


def test_a_machine_whose_interpreter_is_warm_builds_them_too(monkeypatch):
    engine = nb.core.graph.GRAPH.engine
    monkeypatch.setattr(engine, "_interpreter_warm", True)
    monkeypatch.setattr(engine, "policy", "auto")
    monkeypatch.delenv("NABLA_FIRST_RUN", raising=False)
    assert first_run.enabled(engine) == (engine.single_op_disk is not None)


def _a_cold_machine(monkeypatch, tmp_path, models: list) -> None:
    """This process as on a machine whose interpreter is cold, with a manifest of ``models`` and
    the kernel cache of ``tmp_path`` (the one ``no_single_op_models`` made)."""
    manifest = tmp_path / "first_run.json"
    manifest.write_text(json.dumps({"fused": [], "models": models}))
    monkeypatch.setattr(first_run, "MANIFEST", manifest)
    monkeypatch.setenv("NABLA_KERNEL_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(first_run, "_BUILD", [])
    monkeypatch.delenv("NABLA_FIRST_RUN", raising=False)
    monkeypatch.setattr(nb.core.graph.GRAPH.engine, "_interpreter_warm", False)
    nb.set_realization_policy("auto")


def test_a_cold_machine_waits_for_the_part_that_builds_its_model(no_single_op_models, stats, monkeypatch, tmp_path,
                                                                 arg_reductions_unfused):
    """On a cold machine a node the fused kernel does not take runs on the model a first-run
    worker builds (the engine waits for that part), with NumPy's values, and nothing compiles
    in the process itself. (The fused kernel, which takes ``argmax`` itself, declines it here.)"""
    data = np.linspace(-1, 1, 9)
    x = nb.asarray(data)
    assert int(xp.argmax(x)) == 8  # (interpreted: records the spec)
    (name, spec), = no_single_op_models._WANTED.items()
    _a_cold_machine(monkeypatch, tmp_path, [{**spec, "first": 0}])
    before = stats()
    y = nb.asarray(data[::-1] * 3)
    assert int(xp.argmax(y)) == 0
    build = first_run._BUILD[0]
    partner = first_run.spec_name({**spec, "op": "argmin"})  # (first_run.PARTNERS: built alongside)
    assert build is not None and [p.names for p in build.parts] == [[name, partner]]
    assert build.parts[0].future.result(timeout=900) is True
    assert int(xp.argmin(y)) == 8
    after = stats()
    assert after["compiles"] == before["compiles"] and after["interpreted"] == before["interpreted"]
    build.stop()


def test_a_cold_machine_builds_a_model_the_manifest_lacks_on_a_worker(no_single_op_models, no_library_kernels, stats,
                                                                      monkeypatch, tmp_path):
    """A kernel op the manifest does not list (a complex cholesky, where the op kernels'
    library does not run it), met on a cold machine, is built
    at once by an extra worker of the first-run build and run on its model with NumPy's values:
    not interpreted (a cold interpreter took 15-65 s for such a call), not compiled here; a second
    call of another size runs on the same model. It is queued for ``python -m nabla.build`` too."""
    _a_cold_machine(monkeypatch, tmp_path, [])
    before = stats()
    rng = np.random.default_rng(2)

    def hermitian(n):
        g = rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))
        return g @ g.conj().T + n * np.eye(n)

    data = hermitian(5)
    np.testing.assert_allclose(xp.linalg.cholesky(nb.asarray(data)).numpy(), np.linalg.cholesky(data), rtol=1e-12)
    build = first_run._BUILD[0]
    assert build is not None and [p.task["group"] for p in build.parts] == ["asked"]
    # also queued for ``python -m nabla.build``: an exit stops the worker before its build is done
    assert [spec["op"] for spec in no_single_op_models._WANTED.values()] == ["cholesky"]
    assert build.parts[0].future.result(timeout=900) is True
    more = hermitian(3)
    np.testing.assert_allclose(xp.linalg.cholesky(nb.asarray(more)).numpy(), np.linalg.cholesky(more), rtol=1e-12)
    after = stats()
    assert after["compiles"] == before["compiles"] and after["interpreted"] == before["interpreted"]
    assert len(build.parts) == 1
    build.stop()
    assert build._extra is None or build._extra.wait(timeout=10) is not None


def test_a_part_the_process_waits_for_is_built_at_once_beside_the_others(monkeypatch):
    _fake_workers(monkeypatch, "import json, sys, time\n"
                               "for line in sys.stdin:\n"
                               "    time.sleep(0.3)\n"
                               "    print('done', json.loads(line)['index'], flush=True)\n")
    todo = [first_run.Part(i, {"models": []}, [f"m{i}"]) for i in range(4)]
    finished = []
    for part in todo:
        part.future.add_done_callback(lambda _, i=part.index: finished.append(i))
    build = first_run.Build(todo, workers=1)
    build.start()
    while 0 not in build._taken:
        time.sleep(0.01)
    build.pending("m3").result(timeout=30)  # asked while part 0 was being built: the extra worker's
    assert build._extra is not None and 1 not in finished
    for part in todo:
        part.future.result(timeout=30)
    assert finished.index(3) < finished.index(1) < finished.index(2)


def test_no_part_starts_beside_one_the_process_waits_for_and_heavy_parts_start_last():
    """Two compiles at once on a 2-core machine each take 1.25-2.4 times as long: while the process
    waits on a part, a free worker starts no other (one the process asks for excepted), and a heavy
    part starts once every other part is done."""
    todo = [first_run.Part(i, {"models": [], "group": g}, [f"m{i}"]) for i, g in enumerate(["models", "models", "heavy"])]
    build = first_run.Build(todo, workers=2)
    assert build._may_start(todo[1]) and not build._may_start(todo[2])
    build._taken.add(0)  # (a worker builds part 0)
    assert build.pending("m0") is todo[0].future
    assert not build._may_start(todo[1])
    build._settle(todo[0], True)
    assert build._may_start(todo[1]) and not build._may_start(todo[2])
    build._settle(todo[1], True)
    assert build._may_start(todo[2])
    ahead = first_run.Build([first_run.Part(i, {"models": [], "group": g}, [f"m{i}"])
                             for i, g in enumerate(["models", "heavy"])], workers=2, ahead=True)
    assert ahead._may_start(ahead.parts[1])  # (``python -m nabla.build``: nothing waits, all start)


def test_a_part_another_process_is_building_is_waited_for(tmp_path):
    """Processes started together on a cold machine each start a build of the same parts: a worker
    waits while another holds the part's claim (then finds its models on disk) instead of
    compiling it too."""
    import threading

    from nabla.core.disk_cache import ModelDiskCache
    from nabla.core.engine import Engine

    engine = Engine()
    engine.single_op_disk = ModelDiskCache(tmp_path)
    names = ["fused-map-float32-x", "op1-sort-y"]
    other = engine.single_op_disk.claim(ModelDiskCache.key_digest("first-run part:" + ",".join(sorted(names))))
    assert other.try_take()
    entered = threading.Event()

    def worker():
        with first_run._part_claimed(engine, list(reversed(names))):
            entered.set()

    thread = threading.Thread(target=worker)
    thread.start()
    assert not entered.wait(0.5)  # held elsewhere: the worker waits
    other.release()
    assert entered.wait(30)
    thread.join(30)
