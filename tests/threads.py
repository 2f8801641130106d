"""Threads in tests, every wait bounded: a deadlock fails its test, with the stuck threads' stacks
in its report, instead of hanging the run (a pool's exit, or a plain ``join()``, waits forever;
daemon threads also let a stuck worker process exit)."""

import sys
import threading
import time
import traceback

TIMEOUT = 300  # seconds: far above the work, far below CI's patience


def join_all(threads, timeout: float = TIMEOUT) -> None:
    """Join ``threads`` within ``timeout`` seconds in all; AssertionError if any still runs."""
    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    stuck = [t for t in threads if t.is_alive()]
    if stuck:
        frames = sys._current_frames()
        stacks = "\n".join(f"{t.name}:\n" + "".join(traceback.format_stack(frames[t.ident]))
                           for t in stuck if t.ident in frames)
        raise AssertionError(f"{len(stuck)} threads still running after {timeout} s: a deadlock\n{stacks}")


def start(fn, *args) -> threading.Thread:
    """``fn(*args)`` on a daemon thread, started."""
    t = threading.Thread(target=fn, args=args, daemon=True)
    t.start()
    return t


def run_threads(fn, n: int, *args, timeout: float = TIMEOUT) -> list:
    """``fn(i, *args)`` in ``n`` threads released together; the results in order, re-raising the
    first error."""
    barrier = threading.Barrier(n)
    results, errors = [None] * n, [None] * n

    def go(i):
        try:
            barrier.wait(timeout=timeout)
            results[i] = fn(i, *args)
        except BaseException as e:  # (re-raised in the caller's thread)
            errors[i] = e

    join_all([start(go, i) for i in range(n)], timeout)
    for e in errors:
        if e is not None:
            raise e
    return results


def call_in_thread(fn, timeout: float = TIMEOUT):
    """``fn()``'s result, computed on another thread (its error re-raised here)."""
    return run_threads(lambda i: fn(), 1, timeout=timeout)[0]
