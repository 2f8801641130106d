"""What a wait on a one-time compile says on stderr: one line, updated in place as pip's are (a line
every few seconds where stderr is not a terminal).

A compile the caller must wait for (a structure the interpreter cannot run, one of Nabla's kernels
on a machine that has not built it) says what it builds and for how long it has been building,
once the wait passes ``QUIET`` seconds; at the end it says how long it took. ``NABLA_PROGRESS=0``
keeps it quiet.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent import futures

#: a wait shorter than this says nothing
QUIET = 1.0
#: where stderr is not a terminal (a log, a pipe), a new line this often, or when the text changes
LOG_EVERY = 5.0


def wait(fut, what: str) -> None:
    """Block until ``fut`` is done, telling stderr about it if it takes a while."""
    if fut.done():
        return
    urge = getattr(fut, "nabla_urge", None)
    if urge is not None:  # (a compile queued behind background ones goes first)
        urge()
    if os.environ.get("NABLA_PROGRESS", "1") == "0":
        futures.wait([fut])
        return
    t0 = time.perf_counter()
    tty = getattr(sys.stderr, "isatty", lambda: False)()
    shown = False
    logged, logged_at = None, 0.0  # (``what`` may say how far it is: its text is read each time)
    while not futures.wait([fut], timeout=QUIET if not shown else 0.5)[0]:
        elapsed = time.perf_counter() - t0
        text = f"nabla: building {what} (once per machine)"
        if tty:
            sys.stderr.write(f"\r{text} ... {elapsed:.0f} s")
            sys.stderr.flush()
        elif text != logged or elapsed - logged_at >= LOG_EVERY:
            print(f"{text} ... {elapsed:.0f} s", file=sys.stderr, flush=True)
            logged, logged_at = text, elapsed
        shown = True
    if shown:
        error = fut.exception() if not fut.cancelled() else None
        end = f"nabla: built {what} in {time.perf_counter() - t0:.1f} s" if error is None else \
            f"nabla: building {what} failed after {time.perf_counter() - t0:.1f} s ({str(error).splitlines()[0][:120]})"
        sys.stderr.write(("\r" + end + " " * 8 + "\n") if tty else end + "\n")
        sys.stderr.flush()
