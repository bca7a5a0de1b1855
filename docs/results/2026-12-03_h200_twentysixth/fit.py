#!/usr/bin/env python3
"""Offline replay (host only, no GPU) for the twenty-sixth session: every point where every
mode-none candidate was timed on one H200 (the twenty-fourth session's fit sets, the twenty-
fifth's calls 1 / 2 C, this session's call 1 sweep), scored as the pick's ratio to the best
candidate (the worse of warm and cold, torch.mm / ours): the rule as checked out against the
rule before the session (choice_ab `rules25`) and each change alone, the grid the L2-traffic
model's constants were refitted on (rows off the lines), then the held-out calls' summaries
(call 2 B / C: the dispatch as it ran against the rule without each change).

    PYTHONPATH=. python3 docs/results/2026-12-03_h200_twentysixth/fit.py
"""
import itertools
import json
import math
import sys
import tarfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE.parents[2] / "tools" / "probes"))
sys.path.insert(0, str(HERE.parent / "2026-12-03_h200_twentyfourth"))
from codegen.runtime import dispatch  # noqa: E402
from choice_ab import OP_RULES, patched  # noqa: E402  (dispatch constants set back in a block)
import fit as fit24  # noqa: E402  (load(), choice(N, K, M): an H200 op's own pick, on the CPU)

SOURCES = fit24.SOURCES + [("2026-12-03_h200_twentyfifth", "call1", None),
                           ("2026-12-03_h200_twentyfifth", "call2", "past_short"),
                           ("2026-12-03_h200_twentysixth", "call1", "sweep_decode")]


def geo(xs) -> float:
    xs = list(xs)
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def rows_all() -> list[dict]:
    return [r for s in SOURCES for r in fit24.load(*s)]


def shares(rows, **consts) -> list[float | None]:
    fit24._OPS.clear()
    out = []
    try:
        with patched(dispatch, **consts):
            for r in rows:
                p = fit24.choice(r["N"], r["K"], r["M"])
                out.append(r["cands"][p] / max(r["cands"].values()) if p in r["cands"] else None)
    finally:
        fit24._OPS.clear()
    return out


def region(r) -> str:
    lines = "on" if dispatch.rows_aligned(r["K"]) else "off"
    size = "N<2048" if r["N"] < 2048 else ("N<6144" if r["N"] < 6144 else "N>=6144")
    return f"{size} rows {lines}"


def report(rows, label, **consts) -> float:
    s = shares(rows, **consts)
    groups = defaultdict(list)
    for r, x in zip(rows, s):
        if x is not None:
            groups[region(r)].append(x)
    allx = [x for x in s if x is not None]
    per = "  ".join(f"{k}: {geo(v):.3f} ({len(v)})" for k, v in sorted(groups.items()))
    print(f"{label:30s} all {geo(allx):.4f} ({len(allx)}, untimed {s.count(None)})  {per}")
    return geo(allx)


def grid(rows) -> None:
    """The L2-traffic model's constants over a grid, on the points with rows off the lines (the
    session's refit: the decode price 1.8 -> 1.6); prints the best settings."""
    off = [r for r in rows if not dispatch.rows_aligned(r["K"])]
    res = []
    for t, d, mma, l2 in itertools.product((1.0, 1.1, 1.2, 1.3, 1.4), (1.4, 1.6, 1.8, 2.0, 2.2),
                                           (32, 48, 64), (2.0, 2.5, 3.0)):
        s = [x for x in shares(off, UNALIGNED_ROW_COST={"tile": t, "decode": d},
                                UNALIGNED_MMA_PER_ROW=mma, UNALIGNED_L2_SHARE=l2) if x is not None]
        res.append((geo(s), sum(x < 0.9 for x in s), t, d, mma, l2))
    print(f"grid over {len(res)} settings on {len(off)} points off the lines (share of the best, "
          "points below 0.9 of it; tile / decode price, MMA per row, L2 share):")
    for g, n, *c in sorted(res, reverse=True)[:6]:
        print(f"  {g:.4f} {n:3d}  {c}")


def held_out(stem: str, rule: str) -> None:
    """A held-out part of call 2: the dispatch against rule `rule` (choice_ab's label) where
    they ran different kernels (worse of warm and cold)."""
    with tarfile.open(HERE / "call2" / "r.tgz") as tar:
        rows = json.load(tar.extractfile(f"r/{stem}.json"))
    moved, every, t_old, t_new = [], [], [], []
    for r in rows:
        vt, old = r["vs_torch"], r["rules"][rule]
        every.append(vt["dispatch"] / vt[old])
        if r["variants"]["dispatch"] != r["variants"][old]:
            moved.append(vt["dispatch"] / vt[old])
            t_old.append(vt[old])
            t_new.append(vt["dispatch"])
    print(f"held out (call 2 {stem}, against {rule}): {len(every)} points, all {geo(every):.3f}x; "
          f"{len(moved)} moved {geo(moved):.3f}x ({min(moved):.2f}..{max(moved):.2f}; "
          f"{sum(x > 1 for x in moved)} won), torch.mm where moved {geo(t_old):.3f} -> "
          f"{geo(t_new):.3f}")


def main():
    rows = rows_all()
    print(f"{len(rows)} points where every candidate was timed")
    report(rows, "before (rules25)", **OP_RULES["rules25"])
    report(rows, "decode price 1.6 only", **OP_RULES["splitkshort25"])
    report(rows, "the clause to M 512 only", **OP_RULES["unaligned25"])
    report(rows, "as checked out")
    grid(rows)
    held_out("held_unaligned1", "unaligned25")
    held_out("held_unaligned2", "unaligned25")
    held_out("held_short512", "splitkshort25")


if __name__ == "__main__":
    main()
