"""Building the kernel libraries: published whole or not at all, and nothing left computing by a
process that dies mid-build."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from nabla.core.compiler import die_with_parent
from nabla.runtime import program_kernel


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # (a zombie has stopped computing)
    except FileNotFoundError:
        return False


def test_a_child_started_with_die_with_parent_dies_with_a_killed_process():
    # The program kernel's build runs its compiler from a thread, as here; SIGKILL runs no exit hook.
    code = ("import subprocess, sys, threading, time\n"
            "from nabla.core.compiler import die_with_parent\n"
            "def go():\n"
            "    p = subprocess.Popen(['sleep', '60'], preexec_fn=die_with_parent)\n"
            "    print(p.pid, flush=True)\n"
            "    p.wait()\n"
            "threading.Thread(target=go, daemon=True).start()\n"
            "time.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    assert _alive(child)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def test_a_build_clears_killed_builds_staging_and_publishes_whole(tmp_path, monkeypatch):
    target = tmp_path / "vm" / "digest" / "vm.so"
    target.parent.mkdir(parents=True)
    stale = target.parent / ".staging.999999.1"
    (stale / "packages").mkdir(parents=True)
    (stale / "vm.so").write_bytes(b"half")
    seen = {}

    def fake_run(cmd, **kwargs):
        seen.update(kwargs)
        out = cmd[cmd.index("-o") + 1]
        assert not os.path.exists(target)  # (written to staging first)
        with open(out, "wb") as f:
            f.write(b"whole")
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(program_kernel.subprocess, "run", fake_run)
    lib = program_kernel.KernelLibrary("vm", program_kernel.ENTRY, lambda: "digest", {}, "a test library")
    assert lib.build(target) == target
    assert target.read_bytes() == b"whole"
    assert seen["preexec_fn"] is die_with_parent
    assert sorted(p.name for p in target.parent.iterdir()) == [".lock", "vm.so"]
