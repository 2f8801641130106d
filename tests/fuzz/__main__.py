"""The long mode: ``python -m tests.fuzz --minutes 30 --seed N [--families a,b] [--paths p,q]``.

Runs programs of every family round robin, in one process (as a long-lived user process does, on
this machine's caches as they are), down the given realization paths; prints each mismatch shrunk
to a reproducer, and each program whose run waited on a compile in the foreground (first sight
should serve every trace), and at the end how many programs each family ran and what they found.
Exits 1 when anything mismatched.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time

from .differential import PATHS, Verdict, execute, run, shrink
from .programs import FAMILIES, generate


def _loop(families, paths, args, end, counts, found, unsupported, amplified, waited, seed_box) -> None:
    """Programs of each family in turn until ``end``; ``seed_box[0]`` the next seed."""
    import numpy as onp

    from nabla import engine_stats

    while time.monotonic() < end:
        for family in families:
            if time.monotonic() >= end:
                break
            program = generate(family, seed_box[0], big=not args.small)
            oracle = execute(program, onp)
            for on in paths:
                before = engine_stats()["trace_waits"]
                verdict = run(program, on, oracle)
                if on in ("default", "thread") and engine_stats()["trace_waits"] > before:
                    waited[family] += 1
                    print(f"WAITED ON A COMPILE {Verdict(program, 'waited', '', on).report()}", flush=True)
                if verdict.status == "unsupported":
                    unsupported[family] += 1
                elif verdict.status == "amplified":
                    amplified[family] += 1
                elif verdict.status == "mismatch":
                    small = shrink(program, on)
                    shrunk = run(small, on)
                    found[family].append(shrunk if shrunk.status == "mismatch" else verdict)
                    print(f"MISMATCH {found[family][-1].report()}", flush=True)
                    break
            counts[family] += 1
        seed_box[0] += 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=0, help="first seed; each family counts up from it")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--paths", default="default,interpreter,thread",
                    help=f"comma-separated, from {', '.join(PATHS)}; each program runs down each path")
    ap.add_argument("--small", action="store_true", help="no sizes above 4097 elements")
    args = ap.parse_args(argv)
    families = [f for f in args.families.split(",") if f]
    paths = [p for p in args.paths.split(",") if p]
    counts = collections.Counter()
    found = collections.defaultdict(list)
    unsupported = collections.Counter()
    amplified = collections.Counter()  # (float mismatches of the program's conditioning: ``differential.amplified``)
    waited = collections.Counter()  # (programs whose run waited on a compile in the foreground)
    end = time.monotonic() + 60 * args.minutes
    seed = args.seed
    try:
        _loop(families, paths, args, end, counts, found, unsupported, amplified, waited, seed_box := [seed])
    except KeyboardInterrupt:  # (a compile of minutes can outlast the deadline: a count all the same)
        print("\ninterrupted: the program in progress is not counted", flush=True)
    seed = seed_box[0]
    print(f"\nprograms per family (seeds {args.seed}..{seed - 1}, paths {', '.join(paths)}):")
    for family in families:
        print(f"  {family:13s} {counts[family]:6d} run, {len(found[family])} mismatched, "
              f"{unsupported[family]} unsupported, {amplified[family]} amplified, {waited[family]} waited on a compile")
    total = sum(len(v) for v in found.values())
    print(f"{sum(counts.values())} programs, {total} mismatched")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
