"""The models a first run on a machine needs, built together, once, on every core.

A machine that has compiled nothing pays MAX 10-14 s for every compile, on one core, whatever it
holds: one small op, or a dozen in one module (a bundle). Met one at a time, as a script meets new
structures, such compiles add up to many minutes for an ordinary NumPy script. This module
keeps the list of models first runs need (``first_run.json``: single-op models that serve every
size or scalars, the ops the program kernel lacks, recorded from scripts of ordinary NumPy code
with ``python -m nabla.build --record``) and builds them as bundles in worker processes, one per core
the program kernel's build (``program_kernel.py``, started beside them) leaves free, as soon as a
process on a cold machine first asks for one of them; the engine then waits for the part that
holds the model it needs, saying so on stderr, instead of compiling that structure alone.

The workers stop when the process that started them exits: nothing keeps computing after it. What
they finished stays in the kernel cache, and the next process builds the rest.
``python -m nabla.build`` builds everything ahead of use. ``NABLA_FIRST_RUN=0`` turns this off.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path

from ..core.compiler import _background_priority, die_with_parent
from ..core.disk_cache import ModelDiskCache
from ..core.graph import GRAPH
from ..ops import registry
from . import program_kernel, single_op
from .single_op import _decode, _encoded, _name, family

MANIFEST = Path(__file__).with_name("first_run.json")
#: Models per bundle. MAX's cost per compile on a cold machine is mostly fixed (about 9 s for a
#: graph of one ``add``, paid again by each graph compiled apart). So the single-op models are
#: compiled as one bundle per free worker, not as bundles by kind (light ops, linalg, sort and FFT
#: kernels), each of which would add that fixed cost again.
BUNDLE = 64
#: models per bundle below which a bundle is not split for more workers: a model adds about 0.8 s
#: to a bundle's compile, a bundle about 9 s
SPLIT = 12
#: MAX ops whose single-op models cost as much as a bundle (``matmul`` alone: 24 s): a part of
#: their own, built once the others are done, so they never slow a part a script waits for
HEAVY = frozenset({"matmul"})
#: ops a script that meets one of them is about as likely to meet the other of: each recorded
#: model brings its partner's (the same kwargs, dtypes and dims) into the build
PARTNERS = {"argmin": "argmax", "argmax": "argmin"}


class Part:
    """One worker's unit: a bundle of single-op models."""

    __slots__ = ("index", "task", "names", "future", "seconds")

    def __init__(self, index: int, task: dict, names: list):
        self.index, self.task, self.names = index, task, names
        self.future: Future = Future()
        self.seconds = 0.0


def spec_name(spec: dict) -> str | None:
    """The name the engine gives the single-op model of ``spec`` with today's sources, or None
    when its op is gone."""
    op = registry().get(spec["op"])
    if op is None:
        return None
    picks = None if spec.get("picks") is None else tuple(spec["picks"])
    return _name(op, _decode(spec["kwargs"]), spec["dtypes"], spec["dims"], picks, _decode(spec.get("layout")))


def parts(engine, every_kernel: bool = False, workers: int = 2) -> list[Part]:
    """The manifest's models this machine lacks, as bundles in the order they are built: the
    single-op models (one bundle per worker, at most ``BUNDLE`` models each), then the heavy ops'
    one by one. With ``every_kernel``, also every model of each kernel op's family (each dtype and
    form its calls can take: ``single_op.family``), which a run that meets every variant (a
    conformance suite) needs, where a script meets a few."""
    try:
        manifest = json.loads(MANIFEST.read_text())
    except (OSError, ValueError):
        return []
    if every_kernel:
        manifest = {**manifest, "models": manifest.get("models", []) + _every_kernel_model(manifest)}
    out: list[Part] = []
    heavy, models = [], []
    recorded = manifest.get("models", [])
    for spec in list(recorded):
        partner = {**spec, "op": PARTNERS.get(spec["op"]), "first": spec.get("first", 0)}
        if partner["op"] is not None and not any(s["op"] == partner["op"] and s["kwargs"] == spec["kwargs"]
                                                 and s["dtypes"] == spec["dtypes"] for s in recorded):
            recorded.append(partner)
    for spec in sorted(recorded, key=lambda s: s.get("first", 0)):
        name = spec_name(spec)
        if name is not None and not engine.single_op_model_known(name):
            (heavy if spec["op"] in HEAVY else models).append({**spec, "name": name})
    # (split across free workers only where each bundle's own work outweighs another fixed cost)
    bundles = max(1, min(workers - len(out), len(models) // SPLIT), -(-len(models) // BUNDLE))
    size = -(-len(models) // bundles) if models else 1
    for label, group, step in (("models", models, size), ("heavy", heavy, 1)):
        for at in range(0, len(group), step):
            members = group[at:at + step]
            out.append(Part(len(out), {"models": members, "first": members[0].get("first", 0), "group": label},
                            [s["name"] for s in members]))
    return out


class Build:
    """The manifest's parts, compiled by ``workers`` processes; ``pending(name)`` is the Future of
    the part that will hold ``name`` while it is being built."""

    def __init__(self, todo: list[Part], workers: int, ahead: bool = False):
        self.parts = todo
        self.ahead = ahead  # built ahead of use (``python -m nabla.build``): no process waits on a part
        self._by_name = {name: part for part in todo for name in part.names}
        self._taken: set[int] = set()
        self._asked: list[Part] = []  # parts a wait is on, not yet handed out: they go next
        self._awaited: dict[int, Part] = {}  # parts the process has waited on
        self._lock = threading.Lock()
        self._procs: list[subprocess.Popen] = []
        self._extra = None  # the worker of asked parts, once one is asked for
        self._more = threading.Condition(self._lock)
        self._stopped = False
        self.started = time.perf_counter()
        self.workers = max(1, min(workers, len(todo)))

    def start(self) -> None:
        for _ in range(self.workers):
            self._spawn()

    def _spawn(self, asked_only: bool = False):
        env = {**os.environ, "NABLA_COMPILE_PROCESS": "0", "NABLA_FIRST_RUN": "0", "NABLA_PROGRESS": "0",
               "NABLA_FIRST_RUN_WORKER": "asked" if asked_only else "build"}
        # (the kernel's parent-death signal follows the thread that started the worker: the main one only)
        tie = die_with_parent if threading.current_thread() is threading.main_thread() else None
        proc = subprocess.Popen([sys.executable, "-m", "nabla.runtime.first_run"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True,
                                start_new_session=True, preexec_fn=tie)
        self._procs.append(proc)
        threading.Thread(target=self._feed, args=(proc, asked_only), name="nabla-first-run", daemon=True).start()
        return proc

    def _take(self, asked_only: bool = False) -> Part | None:
        """The next part: one the process is waiting for, else the next in the manifest's order
        once ``_may_start`` allows it."""
        with self._lock:
            while True:
                waiting = [p for p in self._asked if p.index not in self._taken]
                rest = [p for p in self.parts if p.index not in self._taken]
                part = waiting[0] if waiting else None if asked_only or not rest else rest[0]
                if part is None or waiting or self._stopped or self._may_start(part):
                    break
                self._more.wait(timeout=5.0)
            if part is not None:
                self._taken.add(part.index)
            return part

    def _may_start(self, part: Part) -> bool:
        """Whether a worker may start ``part``, a part nothing waits on, now. Not while the process
        waits on another: two compiles at once on a 2-core machine each take 1.25-2.4 times as long
        as alone, and the one waited for should land first. A heavy part waits for every other
        part, unless the build runs ahead of use. Under the lock."""
        if self.ahead:
            return True
        if any(not p.future.done() for p in self._awaited.values()):
            return False
        return part.task.get("group") != "heavy" or all(
            p.future.done() for p in self.parts if p is not part and p.task.get("group") != "heavy")

    def _feed(self, proc, asked_only: bool = False) -> None:
        """Hand ``proc`` one part at a time; a worker that dies fails its part (the engine then
        compiles what it needs itself). The extra worker takes only parts a wait is on, and
        waits for more while the build runs."""
        while True:
            part = self._take(asked_only)
            if part is None:
                if not asked_only:
                    break
                with self._lock:  # (the extra worker: until the process stops the build)
                    if self._stopped:
                        self._extra = None
                        break
                    if not any(p.index not in self._taken for p in self._asked):
                        self._more.wait(timeout=5.0)
                continue
            t0 = time.perf_counter()
            try:
                proc.stdin.write(json.dumps({"index": part.index, **part.task}) + "\n")
                proc.stdin.flush()
                answer = proc.stdout.readline()
            except (OSError, ValueError):
                answer = ""
            part.seconds = time.perf_counter() - t0
            self._settle(part, answer.startswith("done"))
            if not answer:  # the worker is gone: nothing more goes to it
                break
        try:
            proc.stdin.close()  # the worker's loop ends: it exits, and is reaped here
            proc.wait()
        except OSError:
            pass

    def _settle(self, part: Part, built: bool) -> None:
        with self._lock:
            if not part.future.done():
                part.future.set_result(built)
            self._more.notify_all()

    def _to_extra(self, part: Part) -> None:
        """Hand ``part`` to the extra worker (started on the first such part). Under the lock."""
        self._asked.append(part)
        if self._extra is None and not self._stopped:
            self._extra = self._spawn(asked_only=True)
        self._more.notify_all()

    def ask(self, spec: dict) -> Future | None:
        """The Future of a part building ``spec``'s model, a model the manifest lacks that the
        process needs now: an extra worker builds it (and later such parts) at once, beside the
        manifest's, instead of MAX's interpreter, which a cold machine serves a kernel op's first
        call in 15-65 s (an ``ifft``, a float32 ``svd``, a descending ``sort``); None once that
        part is done (a model it failed to build is left to the engine)."""
        with self._lock:
            part = self._by_name.get(spec["name"])
            if part is None:
                part = Part(len(self.parts), {"models": [spec], "first": 0, "group": "asked"}, [spec["name"]])
                self.parts.append(part)
                self._by_name[spec["name"]] = part
                self._to_extra(part)
            elif part.future.done():  # built and still missing, or failed: the engine's own way
                return None
            self._awaited[part.index] = part
        part.future.nabla_what = _Status(self)
        return part.future

    def pending(self, name: str) -> Future | None:
        part = self._by_name.get(name)
        if part is None or part.future.done():
            return None
        with self._lock:
            if part.index not in self._taken and part not in self._asked:
                # needed now and not started: the extra worker builds it at once (the two workers
                # may be minutes from done with the parts before it)
                self._to_extra(part)
            self._awaited[part.index] = part
        fut = part.future
        fut.nabla_what = _Status(self)
        return fut

    def done(self) -> int:
        return sum(p.future.done() for p in self.parts)

    def wait(self, report=None) -> bool:
        """Block until every part is done; whether all were built."""
        for part in self.parts:
            part.future.result()
            if report is not None:
                report(self, part)
        return all(p.future.result() for p in self.parts)

    def stop(self) -> None:
        """Stop the workers (at exit: nothing of Nabla's computes after the user's program)."""
        with self._lock:
            self._stopped = True
            self._more.notify_all()
        for proc in self._procs:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, 9)
                except OSError:
                    pass
        for part in self.parts:
            self._settle(part, False)


class _Status:
    """What a wait on a part says (read each time the progress line is redrawn)."""

    def __init__(self, build: Build):
        self.build = build

    def __str__(self) -> str:
        return f"Nabla's first-run models, {self.build.done()} of {len(self.build.parts)} parts done"


_BUILD: list = []  # the process's build, once started (or None when there is nothing to build)
_START_LOCK = threading.Lock()


def enabled(engine) -> bool:
    """Whether first-run builds start on their own: the default policy, a kernel cache, the setting
    on. A machine whose interpreter is warm builds them too: there each kernel op of every process
    would otherwise bind its kernel in the interpreter (seconds each, in every run: a script's
    later runs would take many times as long)."""
    return os.environ.get("NABLA_FIRST_RUN", "1") != "0" and engine.policy == "auto" \
        and engine.single_op_disk is not None


def _started(engine, name: str) -> bool:
    """Whether this process has started its first-run build (None in ``_BUILD`` when it had
    nothing to build), starting it on a cold machine's first ask for a model not on disk."""
    if not _BUILD:
        # (a model on disk needs no build: asked first)
        if engine.single_op_model_known(name) or not enabled(engine):
            return False
        with _START_LOCK:
            if not _BUILD:
                _BUILD.append(start(engine))
    return True


def pending(engine, name: str) -> Future | None:
    """The Future of the part that will hold the model ``name``, starting the machine's first-run
    build if this is a cold machine's first ask; None when no build is making it."""
    if not _started(engine, name) or _BUILD[0] is None:
        return None
    return _BUILD[0].pending(name)


def ask(engine, spec: dict) -> Future | None:
    """On a cold machine, the Future of a worker building ``spec``'s model (one the manifest
    lacks) now; None where no first-run build runs or may start."""
    if not _started(engine, spec["name"]):
        return None
    with _START_LOCK:
        if _BUILD[0] is None:  # the manifest's models are all here: a build of asked models alone
            _BUILD[0] = Build([], 1)
            atexit.register(_BUILD[0].stop)
    return _BUILD[0].ask(spec)


def _every_kernel_model(manifest: dict) -> list:
    """The specs of every kernel op's family the manifest does not list, after its own."""
    last = 1 + max([s.get("first", 0) for s in manifest.get("models", [])], default=0)
    listed = {spec_name(s) for s in manifest.get("models", [])}
    out = []
    for _, op in sorted(registry().items()):
        if op.single_op:
            out += [{**_encoded(spec), "first": last} for spec in family(op) if spec["name"] not in listed]
    return out


def start(engine, workers: int | None = None, every_kernel: bool = False, ahead: bool = False) -> Build | None:
    """Start building what the manifest lists and this machine lacks (None when nothing); ``ahead``:
    for no process that waits on it (``python -m nabla.build``)."""
    workers = workers or os.cpu_count() or 1
    if not program_kernel.ready():  # (its build, a compiler process of its own, takes a core)
        program_kernel.build_async()
        workers = max(1, workers - 1)
    todo = parts(engine, every_kernel, workers)
    if not todo:
        return None
    build = Build(todo, workers, ahead)
    build.start()
    atexit.register(build.stop)
    return build


def _work() -> None:
    """A worker: build the parts given on stdin, one JSON line each; answer ``done`` or ``failed``."""
    from .single_op_compiler import compile_specs  # lazy: only workers compile; keeps import nabla light

    # The build's workers run below the user's process (each worker's session is a scheduling
    # group of its own, which would otherwise compete with the user's as an equal); the worker of
    # asked parts, what the script waits for now, does not, so it takes a core from them.
    if os.environ.get("NABLA_FIRST_RUN_WORKER") != "asked":
        _background_priority()
    engine = GRAPH.engine
    for line in sys.stdin:
        task = json.loads(line)
        try:
            names = [spec["name"] for spec in task.get("models", ())]
            with _part_claimed(engine, names):  # (another process's build may be making this part)
                if not all(engine.single_op_model_known(name) for name in names):
                    compile_specs(task["models"])
                ok = all(engine.single_op_model_known(name) for name in names)
            print("done" if ok else "failed", task["index"], flush=True)
        except Exception as e:  # noqa: BLE001 - the parent compiles what it needs itself
            print("failed", task["index"], type(e).__name__, flush=True)


@contextlib.contextmanager
def _part_claimed(engine, names: list):
    """Hold the kernel cache's claim on building a part, waiting while another process holds it:
    processes started together on a cold machine (a pool's workers) each start a build of the same
    parts, and each part is then compiled once, the others reading it from disk."""
    disk = engine.single_op_disk
    claim = None if disk is None else disk.claim(ModelDiskCache.key_digest("first-run part:" + ",".join(sorted(names))))
    if claim is not None:
        claim.take()
    try:
        yield
    finally:
        if claim is not None:
            claim.release()


def _record_at_exit(path: str) -> None:
    """Write what this process asked for (``python -m nabla.build --record`` reads it): the
    single-op models, each once, in the order met."""
    models = []
    for name, spec in sorted({**single_op._MET, **single_op._WANTED}.items(), key=lambda item: item[1]["first"]):
        try:
            spec = {**spec, "kwargs": single_op._encode(spec["kwargs"]) if name in single_op._MET
                    and name not in single_op._WANTED else spec["kwargs"],
                    "layout": single_op._encode(spec["layout"]) if name in single_op._MET
                    and name not in single_op._WANTED else spec["layout"]}
        except TypeError:
            continue
        models.append({k: spec[k] for k in ("name", "op", "kwargs", "dtypes", "dims", "picks", "layout", "reuse",
                                            "first")})
    Path(path).write_text(json.dumps({"models": models}))


if os.environ.get("NABLA_FIRST_RUN_RECORD"):
    atexit.register(_record_at_exit, os.environ["NABLA_FIRST_RUN_RECORD"])


if __name__ == "__main__":  # a worker of a first-run build
    _work()
