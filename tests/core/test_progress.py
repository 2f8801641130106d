"""A wait on a one-time build says on stderr what it builds and how far it is: updated in place on a
terminal, a new line every few seconds (or when the text changes) in a log."""

import time
from concurrent.futures import Future

from nabla.core import progress

from ..threads import start


class _Parts:
    def __init__(self):
        self.done = 0

    def __str__(self):
        return f"the toy parts, {self.done} of 3 done"


def test_a_log_gets_a_line_every_few_seconds_and_when_the_parts_done_change(monkeypatch, capsys):
    monkeypatch.setattr(progress, "QUIET", 0.05)
    monkeypatch.setattr(progress, "LOG_EVERY", 0.3)
    fut, parts = Future(), _Parts()

    def build():
        time.sleep(0.5)
        parts.done = 1
        time.sleep(1.0)
        fut.set_result(None)

    start(build)
    progress.wait(fut, parts)
    lines = capsys.readouterr().err.splitlines()
    waits = [ln for ln in lines if ln.startswith("nabla: building the toy parts")]
    assert any("0 of 3 done" in ln for ln in waits) and any("1 of 3 done" in ln for ln in waits)
    texts = [ln.split(" ... ")[0] for ln in waits]
    assert len(texts) > len(set(texts))  # (a text that holds is said again, LOG_EVERY later)
    assert lines[-1].startswith("nabla: built the toy parts, 1 of 3 done in ")


def test_a_failed_build_says_it_failed(monkeypatch, capsys):
    """A build that raises is not reported as built: its last line says it failed, and why."""
    monkeypatch.setattr(progress, "QUIET", 0.05)
    fut = Future()

    def build():
        time.sleep(0.3)
        fut.set_exception(RuntimeError("the compiler said no\nmore lines"))

    start(build)
    progress.wait(fut, "the toy library")
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("nabla: building the toy library failed after ") and "the compiler said no)" in last
