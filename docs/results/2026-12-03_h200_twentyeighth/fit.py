#!/usr/bin/env python3
"""Offline replay (host only, no GPU) for the twenty-eighth session: the L2-traffic model's
share where every row starts on a 32-byte sector (dispatch.UNALIGNED_L2_SHARE_SECTOR_ROWS),
fitted on the pooled points with rows off the lines where every mode-none candidate was timed on
one H200 (the twenty-seventh session's fit.py sets + its call 4), scored as the pick's share of
the best candidate (worse of warm and cold): the grid it was chosen from (by 2K % 128), every
point it moves against the rule before (choice_ab `l2share27`), left out one call at a time;
then the held-out calls where they exist.

    PYTHONPATH=. python3 docs/results/2026-12-03_h200_twentyeighth/fit.py
"""
import importlib.util
import math
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE.parents[2] / "tools" / "probes"))
_spec = importlib.util.spec_from_file_location(
    "fit27", HERE.parent / "2026-12-03_h200_twentyseventh" / "fit.py")
fit27 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fit27)
from codegen.runtime import dispatch  # noqa: E402
from choice_ab import OP_RULES  # noqa: E402

fit24, fit26, geo = fit27.fit24, fit27.fit26, fit27.geo
CALL4 = ("2026-12-03_h200_twentyseventh", "call4", "offlines_mid")


def rows_off() -> list[dict]:
    """The pooled points with rows off the 128-byte lines (where the model decides)."""
    return [r for r in fit27.rows_all() + fit24.load(*CALL4)
            if not dispatch.rows_aligned(r["K"])]


def offset(K: int) -> int:
    """Bytes a row's start steps off the lines per row: the largest power of 2 dividing 2K, <= 128."""
    return math.gcd(2 * K, 128)


def by_offset(rows, **consts) -> tuple[float, dict, int]:
    s = fit26.shares(rows, **consts)
    groups = defaultdict(list)
    for r, x in zip(rows, s):
        if x is not None:
            groups[offset(r["K"])].append(x)
    allx = [x for x in s if x is not None]
    return geo(allx), {k: round(geo(v), 4) for k, v in sorted(groups.items())}, \
        sum(x < 0.9 for x in allx)


def grid(rows) -> None:
    print("share at 16 bytes / at 32-64 (rows on sectors): all, by 2K's step, below 0.9 of the best")
    for s16 in (2.25, 2.5, 2.75):
        for s32 in (1.25, 1.5, 1.75, 2.0, 2.25, 2.5):
            print(f"  {s16:4.2f} / {s32:4.2f}: " + "  ".join(map(str, by_offset(
                rows, UNALIGNED_L2_SHARE=s16, UNALIGNED_L2_SHARE_SECTOR_ROWS=s32))))


def leave_one_out(rows) -> None:
    """The sector share refitted without each call's points, scored on that call's moved points."""
    calls = sorted({r["src"] for r in rows})
    for c in calls:
        fit = [r for r in rows if r["src"] != c]
        best = max((1.25, 1.5, 1.75, 2.0, 2.25, 2.5), key=lambda s: by_offset(
            fit, UNALIGNED_L2_SHARE_SECTOR_ROWS=s)[0])
        held = [r for r in rows if r["src"] == c]
        a = fit26.shares(held, UNALIGNED_L2_SHARE_SECTOR_ROWS=best)
        b = fit26.shares(held, **OP_RULES["l2share27"])
        mv = [x / y for x, y in zip(a, b) if x and y and abs(x - y) > 1e-9]
        print(f"  {c:28s} fitted without it: {best:4.2f}; {len(mv)} of {len(held)} moved "
              f"{geo(mv):.3f}x")


def main():
    rows = rows_off()
    print(f"{len(rows)} points with rows off the lines, every candidate timed")
    print("before (l2share27):", by_offset(rows, **OP_RULES["l2share27"]))
    print("as checked out:    ", by_offset(rows))
    fit27.moved(rows, "the sector share", **OP_RULES["l2share27"])
    grid(rows)
    print("left out one call at a time:")
    leave_one_out(rows)
    for call, stem in (("call1", "held_sector"),):
        if (HERE / call / "r.tgz").exists():
            fit27.ab(HERE / call / "r.tgz", stem, "l2share27")


if __name__ == "__main__":
    main()
