#!/usr/bin/env python3
"""Offline replay (host only, no GPU) for the twenty-eighth session: the L2-traffic model where
every row starts on a 32-byte sector (K % 16 == 0; dispatch.UNALIGNED_L2_SHARE_SECTOR_ROWS and
UNALIGNED_SECTOR_ROW_FACTOR), fitted on the pooled points with rows off the lines where every
mode-none candidate was timed on one H200 (the twenty-seventh session's fit.py sets + its call
4), scored as the pick's share of the best candidate (worse of warm and cold). First cut (the
share alone, 2.5 -> 2.0: choice_ab `sector28a`): the grid it was chosen from (by 2K % 128), the
points it moved, call 1's held-out A/B of it. Then the refit on the fit set's points on sectors
(share and row-price factor), scored on call 1 too (held out from it), left out one call at a
time, call 2's held-out A/B (against the rule before and the first cut) and call 3's unbiased
sweep.

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
                rows, UNALIGNED_L2_SHARE=s16, UNALIGNED_L2_SHARE_SECTOR_ROWS=s32,
                UNALIGNED_SECTOR_ROW_FACTOR=1.0))))


def leave_one_out(rows) -> None:
    """The sector share refitted without each call's points, scored on that call's moved points."""
    calls = sorted({r["src"] for r in rows})
    for c in calls:
        fit = [r for r in rows if r["src"] != c]
        best = max((1.25, 1.5, 1.75, 2.0, 2.25, 2.5), key=lambda s: by_offset(
            fit, UNALIGNED_L2_SHARE_SECTOR_ROWS=s, UNALIGNED_SECTOR_ROW_FACTOR=1.0)[0])
        held = [r for r in rows if r["src"] == c]
        a = fit26.shares(held, UNALIGNED_L2_SHARE_SECTOR_ROWS=best, UNALIGNED_SECTOR_ROW_FACTOR=1.0)
        b = fit26.shares(held, **OP_RULES["l2share27"])
        mv = [x / y for x, y in zip(a, b) if x and y and abs(x - y) > 1e-9]
        print(f"  {c:28s} fitted without it: {best:4.2f}; {len(mv)} of {len(held)} moved "
              f"{geo(mv):.3f}x")


def moved_between(rows, label, new: dict, old: dict) -> None:
    """fit27.moved with the rule `new` (dispatch constants) in place of the checkout's."""
    now, before = fit26.shares(rows, **new), fit26.shares(rows, **old)
    out = [(r["N"], r["K"], r["M"], r["src"], b, n) for r, n, b in zip(rows, now, before)
           if n and b and abs(n - b) > 1e-9]
    print(f"{label}: {len(out)} moved, {geo(n / b for *_, b, n in out):.3f}x, "
          f"{sum(n > b for *_, b, n in out)} won")
    for N, K, M, src, b, n in sorted(out):
        print(f"  N {N:5d} K {K:5d} M {M:3d} {src:26s} {b:.3f} -> {n:.3f} ({n / b:.3f}x)")


def refit(fit, held) -> None:
    """The sector share and row-price factor over a grid, on the fit set's points on sectors,
    with call 1's (held out from it) beside: (geometric mean of the share of the best, points
    below 0.9 of it)."""
    def sc(rows, **consts):
        s = [x for x in fit26.shares(rows, **consts) if x]
        return f"{geo(s):.4f} ({sum(x < 0.9 for x in s)} < 0.9)"
    print(f"refit on {len(fit)} fit points on sectors; call 1 ({len(held)}) held out")
    for f in (0.7, 0.75, 0.8, 0.85, 0.9, 1.0):
        for s in (1.25, 1.5, 1.75, 2.0, 2.25):
            c = dict(UNALIGNED_L2_SHARE_SECTOR_ROWS=s, UNALIGNED_SECTOR_ROW_FACTOR=f)
            print(f"  x {f:4.2f} share {s:4.2f}: fit {sc(fit, **c)}  call 1 {sc(held, **c)}")


def leave_one_out_both(rows) -> None:
    """(factor, share) refitted without each call's points on sectors, scored on that call."""
    grid_fs = [(f, s) for f in (0.7, 0.75, 0.8, 0.85, 0.9, 1.0) for s in (1.25, 1.5, 1.75, 2.0)]
    sec = [r for r in rows if dispatch.sector_rows(r["K"])]
    for c in sorted({r["src"] for r in sec}):
        fit = [r for r in sec if r["src"] != c]
        held = [r for r in sec if r["src"] == c]
        f, s = max(grid_fs, key=lambda fs: geo(x for x in fit26.shares(
            fit, UNALIGNED_SECTOR_ROW_FACTOR=fs[0], UNALIGNED_L2_SHARE_SECTOR_ROWS=fs[1]) if x))
        a = fit26.shares(held, UNALIGNED_SECTOR_ROW_FACTOR=f, UNALIGNED_L2_SHARE_SECTOR_ROWS=s)
        b = fit26.shares(held, **OP_RULES["l2share27"])
        mv = [x / y for x, y in zip(a, b) if x and y and abs(x - y) > 1e-9]
        print(f"  {c:28s} fitted without it: x {f} share {s}; {len(mv)} of {len(held)} moved "
              f"{geo(mv):.3f}x")


def main():
    rows = rows_off()
    first = OP_RULES["sector28a"]
    print(f"{len(rows)} points with rows off the lines, every candidate timed")
    print("before (l2share27):  ", by_offset(rows, **OP_RULES["l2share27"]))
    print("first cut (sector28a)", by_offset(rows, **first))
    print("as checked out:      ", by_offset(rows))
    moved_between(rows, "first cut: the sector share 2.0", first, OP_RULES["l2share27"])
    print("first cut's grid (row prices as before):")
    grid(rows)
    print("left out one call at a time (first cut):")
    leave_one_out(rows)
    call1 = fit24.load("2026-12-03_h200_twentyeighth", "call1", "held_sector")
    print("call 1 (held out from the first cut): as it ran against l2share27:")
    fit27.ab(HERE / "call1" / "r.tgz", "held_sector", "l2share27")
    refit([r for r in rows if dispatch.sector_rows(r["K"])], call1)
    print("as checked out against before, on the fit set and on call 1:")
    fit27.moved(rows + call1, "the refit", **OP_RULES["l2share27"])
    print("left out one call at a time (the refit, with call 1):")
    leave_one_out_both(rows + call1)
    for call, stem in (("call2", "held_sector2b"), ("call2", "held_sector2")):
        if (HERE / call / "r.tgz").exists():
            fit27.ab(HERE / call / "r.tgz", stem, "l2share27")
            fit27.ab(HERE / call / "r.tgz", stem, "sector28a")
    if (HERE / "call3" / "r.tgz").exists():   # the unbiased sweep after the change
        fit27.ab(HERE / "call3" / "r.tgz", "sweep", "l2share27")


if __name__ == "__main__":
    main()
