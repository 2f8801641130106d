"""The process-wide record of pending work.

Ops record a light trace of ``Node``s and ``Value``s (``values.py``; about a microsecond each)
instead of MAX graph nodes (about 130 us each). When data is needed, the
``ComputeGraph`` gathers the pending values of the calling thread and hands them to
the realization ``Engine`` (``engine.py``), which keys the trace by its structure and
runs it. See docs/realization.md.
"""

from __future__ import annotations

import contextlib
import gc
import threading
import weakref

from .engine import Engine, RealizationError  # noqa: F401  (RealizationError re-exported)
from .engine import EngineStats
from .values import HostValue, Node, Value, give_up, host_value, host_view  # noqa: F401  (the trace's types, re-exported)


class _ThreadRecord:
    """What one thread has recorded and not yet realized, and how many evaluations it ran (a plain
    object a ``threading.local`` holds: its fields are then read at a plain attribute's cost, where
    a ``threading.local``'s own cost twice as much, and recording reads them at every op)."""

    __slots__ = ("pending", "purge_at", "purges", "epoch", "declined", "declined_read")

    def __init__(self):
        # weakrefs without callbacks, in creation order: cheaper than a WeakSet on the recording
        # path, and the order (which fixes the structure key) does not depend on memory reuse
        self.pending: list[weakref.ref] = []
        self.purge_at = 4096
        self.purges = 0  # purges since the last evaluation: each follows 4096 or more new records
        self.epoch = 0
        self.declined = 0  # probes of reads like ``declined_read`` declined in a row (``_evaluate``)
        self.declined_read = None


#: ops recorded since the last realization past which a trace counts as long (``_Collector``)
_LONG_TRACE = 4096


class _Collector:
    """Python's cyclic collector, paused while a long trace is being recorded. It runs every 700
    allocations and walks the young objects (every op makes several), then the older ones, and a
    long trace's nodes, values and tensors are kept alive until it is realized: a loop recording
    32,000 ops spent a quarter of its time in the collector (lu of npbench), and raised thresholds
    still left a fifth. They hold no cycles (reference counting frees them), so from the first
    4,096 records after a realization the collector is paused, and it runs again, as it was, when
    the trace is realized (a program that had paused it keeps it paused)."""

    def __init__(self):
        self._saved = None
        self._lock = threading.Lock()

    def lift(self) -> None:
        with self._lock:
            if self._saved is None:
                self._saved = gc.isenabled()
                gc.disable()

    def restore(self) -> None:
        if self._saved is None:
            return
        with self._lock:
            if self._saved is not None:
                if self._saved:
                    gc.enable()
                self._saved = None


COLLECTOR = _Collector()


class ComputeGraph:
    """Pending work, per thread: a thread's data access realizes what *it* recorded (plus the
    tensor it reads), so its structure keys, and so its cache hits, are the same whatever other
    threads do. ``epoch`` counts this thread's evaluations."""

    def __init__(self):
        self._threads = threading.local()  # its ``record``: this thread's ``_ThreadRecord``
        # tensors whose realization raised: left out of later joint runs, so one bad
        # expression cannot block every other read (reading one again re-raises)
        self._failed = weakref.WeakSet()
        self._failed_lock = threading.Lock()
        self.captures = 0  # threads inside ``capturing``
        self._captures_lock = threading.Lock()
        self.engine = Engine()

    @property
    def _local(self) -> _ThreadRecord:
        """This thread's record."""
        try:
            return self._threads.record
        except AttributeError:
            rec = self._threads.record = _ThreadRecord()
            return rec

    @property
    def epoch(self) -> int:
        return self._local.epoch

    @contextlib.contextmanager
    def capturing(self):
        """A thread records a function's whole trace to be run again on other inputs
        (``nabla.compile``): every op is recorded, none computed as it is made (``Engine.scalars``),
        or its value would be baked into the trace. (Counted for every thread: an op asks a
        plain attribute, and a compile's trace is short.)"""
        with self._captures_lock:
            self.captures += 1
        try:
            yield
        finally:
            with self._captures_lock:
                self.captures -= 1

    def add_pending(self, impl) -> None:
        """Record ``impl`` as pending (None: only purge the record of dead or realized ones, when it
        has grown past its mark)."""
        try:
            rec = self._threads.record
        except AttributeError:
            rec = self._local
        pending = rec.pending
        if impl is not None:
            pending.append(weakref.ref(impl))
        if len(pending) > rec.purge_at:
            rec.pending = [r for r in rec.pending if (i := r()) is not None and not i.is_realized]
            rec.purge_at = max(4096, 2 * len(rec.pending))
            rec.purges += 1
            if rec.purges * 4096 >= _LONG_TRACE:
                COLLECTOR.lift()

    def _live_pending(self) -> list:
        with self._failed_lock:
            failed = set(self._failed) if self._failed else ()
        return [i for i in (r() for r in self._local.pending)
                if i is not None and not i.is_realized and i not in failed]

    def _not_failed(self, impls) -> list:
        with self._failed_lock:
            if not self._failed:
                return impls
            failed = set(self._failed)
        return [i for i in impls if i not in failed]

    @property
    def num_pending(self) -> int:
        return len(self._live_pending())

    def evaluate(self, requested=None) -> None:
        """Realize this thread's live unrealized tensors in one MAX graph, with ``requested``
        (a TensorImpl, or a list of them, possibly recorded by other threads)."""
        try:
            self._evaluate(requested)
        finally:
            if self._local.purges:
                self._local.purges = 0
                COLLECTOR.restore()

    def _evaluate(self, requested) -> None:
        rec = self._local
        wanted = [] if requested is None else requested if isinstance(requested, list) else [requested]
        # (the probe comes before the scan of pending work: reading n pending scalars one by one,
        # ``[float(t) for t in ts]``, would otherwise scan the other pending tensors n times; a short
        # record is looked at first, once: see ``_other_work`` and ``_probe_refused``)
        others = _other_work(rec.pending, wanted) if wanted else None
        alone = others is not None and not others[0]
        probe = wanted and not alone and len(rec.pending) > len(wanted) and not _probe_refused(others, wanted)
        if probe:
            read = _read_kind(wanted)
            if read == rec.declined_read and rec.declined >= _DECLINED and rec.declined % _REPROBE:
                # a loop whose every read of this kind was declined (its value needs most of the
                # step's work: a trace longer than a probe takes) runs with the rest at once, as a
                # declined probe then does, without tracing the probe's part first; asked again
                # now and then
                rec.declined += 1
                probe = False
            elif self.engine.run(_pending_values(_with_siblings(wanted)), fast_only=True):
                # what was read runs at once on a compiled model or the fused kernel; the rest of the
                # pending work waits for its own read rather than make a joint graph that runs slowly
                rec.declined, rec.declined_read = 0, None
                rec.epoch += 1
                return
            elif read == rec.declined_read:
                rec.declined += 1
            else:
                rec.declined, rec.declined_read = 1, read
        if alone:
            impls = [i for i in wanted if not i.is_realized]
        elif others is None or probe:  # (a declined probe may have realized some of them: stages)
            impls = self._live_pending()
        else:  # (the short record's scan found them)
            impls = self._not_failed(others[2])
        if wanted and not alone:
            # a read realizes the other live pending work with it, but views of realized data stay
            # pending: whatever reads them computes them for free (see the paths' ``deferrable``)
            asked = set(map(id, wanted))
            impls = [i for i in impls if id(i) in asked or not self.engine.deferrable(i)]
        known = set(map(id, impls))
        impls += [i for i in wanted if id(i) not in known and not i.is_realized]
        count = len(rec.pending)
        try:
            self._run(impls)
        except Exception:
            if not wanted or len(impls) == len(wanted):
                raise
            # something in the batch failed: the tensors being read get a run of their own
            try:
                self._run(wanted)
            except Exception:
                with self._failed_lock:
                    self._failed.update(wanted)
                raise
            rec.epoch += 1
            return
        del rec.pending[:count]  # what was recorded meanwhile (by a hook, say) stays pending
        rec.purge_at = 4096
        rec.epoch += 1

    def _run(self, impls) -> None:
        outputs = _pending_values(impls)
        if outputs:
            self.engine.run(outputs)


#: probes of one kind of read declined in a row after which such reads skip them, but for every
#: ``_REPROBE``-th (``_read_kind``)
_DECLINED, _REPROBE = 2, 16


def _read_kind(wanted) -> tuple | None:
    """What tells a loop's read from another: the op, shape and dtype of the first value read."""
    values = wanted[0]._values
    if type(values) is not list:
        return None
    v = values[0]
    return None if v.node is None else (v.node.op, v.shape, v.dtype, len(wanted))


#: the most records a read scans for other live work rather than probe (see ``_evaluate``)
_SHORT_RECORD = 64


def _other_work(pending, wanted):
    """A short pending record, scanned once: (whether it holds live pending work other than
    ``wanted``, the ids of that work's nodes, every live pending tensor in the record's order);
    None for a long record. No other work (a loop's read: what it recorded since the last read is
    dead but the value read) means the read runs what it needs, with no probe and no scan."""
    if len(pending) > _SHORT_RECORD:
        return None
    asked = set(map(id, wanted))
    live, nodes, found = False, set(), []
    for r in pending:
        i = r()
        if i is not None and not i.is_realized:
            found.append(i)
            if id(i) not in asked:
                live = True
                if type(i._values) is list:
                    nodes.update(id(v.node) for v in i._values if v.node is not None)
    return live, nodes, found


def _probe_refused(others, wanted) -> bool:
    """Whether a probe of ``wanted`` would be refused, seen from a short record's other work
    (``_other_work``) without tracing: that work is computed inside the read's trace (a loop's step
    ``u[1:-1] = ...`` and its read ``abs(u - un).max()``), or that trace is longer than a probe
    takes. The read then runs with the other work at once, where the probe keyed the trace only to
    give up."""
    if others is None:
        return False
    stack = [v.node for i in wanted if type(i._values) is list for v in i._values if v.node is not None]
    nodes = others[1] - set(map(id, stack))  # (another output of a node read: its sibling, not work inside)
    if not nodes:
        return False
    seen = set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        if id(n) in nodes:
            return True
        seen.add(id(n))
        if len(seen) > _PROBE_WALK:
            return True
        stack.extend(v.node for v in n.inputs if v.node is not None)
    return False


#: the most nodes ``_probe_refused`` walks (the engine's probe traces 128)
_PROBE_WALK = 128


def _with_siblings(wanted) -> list:
    """``wanted`` and the pending tensors holding other outputs of the same calls: reading one
    result of a multi-output op (eigh's eigenvalues) realizes its siblings in the same run, where
    reading each apart would run the op once per output (twice for eigh, three times for svd)."""
    have = set(map(id, wanted))
    extra = []
    for i in wanted:
        refs = i.output_refs
        if refs is None or len(refs.refs) == 1:
            continue
        for r in refs.refs:
            o = r()
            if o is not None and id(o) not in have and not o.is_realized:
                have.add(id(o))
                extra.append(o)
    return wanted + extra if extra else wanted


def _pending_values(impls) -> list:
    outputs, seen = [], set()
    for impl in impls:
        for v in impl._values:
            if v.node is not None and id(v) not in seen:
                seen.add(id(v))
                outputs.append(v)
    return outputs


GRAPH = ComputeGraph()


def engine_stats() -> dict:
    """Counters of the realization engine: evaluations, cache hits, interpreted runs, compiles."""
    return GRAPH.engine.snapshot_stats()


def reset_engine_stats() -> None:
    GRAPH.engine.stats = EngineStats()
