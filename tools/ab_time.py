#!/usr/bin/env python3
"""Run one timing command against two cache roots in alternation (A B B A ...), on the GPU
machine, so that drift in clocks or temperature falls on both sides (METHOD: old and new
alternating, twice each). A script, not a test; it times nothing itself.

    python3 tools/ab_time.py --side new=generated --side old=generated/ab_old --out $OUT/ab \\
        --reps 2 --timeout 90 -- \\
        python3 tools/bench_decode.py --dispatch-only --ms 1024,2048 --ks 768 --json {json}

Each run gets CODEGEN_CACHE_DIR=<root of its side>; `{json}` and `{label}` in the command become
<out>/<label>.json and <label> (label = <side><rep>, e.g. new1, old1, old2, new2); its stdout and
stderr go to <out>/<label>.txt. The order is A B B A for two repetitions (A B, B A, A B, ...).
One line per run says its label, exit status and seconds; the exit status is the number of runs
that failed. Build the other side first with tools/ab_cubins.py.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path


def schedule(sides: list[str], reps: int) -> list[tuple[str, int]]:
    """(side, repetition) in run order: the sides forward on odd repetitions, backward on even
    ones (A B, B A, A B, ...), so each side runs first as often as last."""
    runs = []
    for rep in range(1, reps + 1):
        order = sides if rep % 2 else list(reversed(sides))
        runs += [(side, rep) for side in order]
    return runs


def parse_side(text: str) -> tuple[str, str]:
    name, sep, root = text.partition("=")
    if not sep or not name or not root or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"--side wants NAME=ROOT (e.g. old=generated/ab_old), "
                                         f"got {text!r}")
    return name, root


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--side", type=parse_side, action="append", required=True,
                    help="NAME=ROOT: a cache root to time (give two or more)")
    ap.add_argument("--out", type=Path, required=True, help="folder for <label>.txt / .json")
    ap.add_argument("--reps", type=int, default=2, help="repetitions of every side (default 2)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    ap.add_argument("--dry-run", action="store_true", help="print the runs, run nothing")
    ap.add_argument("command", nargs=argparse.REMAINDER,
                    help="after --: the timing command ({json}, {label} are filled in)")
    args = ap.parse_args(argv)
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    names = [n for n, _ in args.side]
    if len(args.side) < 2 or len(set(names)) != len(names):
        ap.error("give two or more --side NAME=ROOT with different names")
    if not cmd:
        ap.error("no command after --")
    if args.reps < 1:
        ap.error("--reps must be >= 1")
    roots = dict(args.side)
    missing = [r for r in roots.values() if not Path(r).is_dir()]
    if missing and not args.dry_run:
        ap.error(f"no such cache root: {', '.join(missing)} (build it first: tools/ab_cubins.py)")
    if not args.dry_run:
        args.out.mkdir(parents=True, exist_ok=True)
    failed = 0
    for side, rep in schedule(names, args.reps):
        label = f"{side}{rep}"
        argv_run = [a.replace("{json}", str(args.out / f"{label}.json")).replace("{label}", label)
                    for a in cmd]
        if args.dry_run:
            print(f"{label}: CODEGEN_CACHE_DIR={roots[side]} {' '.join(argv_run)}")
            continue
        env = dict(os.environ, CODEGEN_CACHE_DIR=roots[side])
        t0 = time.monotonic()
        with open(args.out / f"{label}.txt", "w") as log:
            try:
                rc = subprocess.run(argv_run, env=env, stdout=log, stderr=subprocess.STDOUT,
                                    timeout=args.timeout).returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
        failed += rc != 0
        print(f"{label} ({roots[side]}): exit {rc}, {time.monotonic() - t0:.0f} s", flush=True)
    return failed


if __name__ == "__main__":
    sys.exit(main())
