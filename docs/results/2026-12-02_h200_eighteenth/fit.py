#!/usr/bin/env python3
"""Offline check of mode none's dispatch against calls 2-3 of the eighteenth session (every
candidate timed at 113 points, one H200; host only, no GPU).

For each point the op's choice (GemmRsAr with arch sm_90a, a budget of 132 and the H200's
cluster slots) is replayed and scored as its time's ratio to the best candidate's (torch.mm /
ours, the worse of warm and cold). First the replay is checked against the kernel the dispatch
ran on the GPU; then the rules are compared: today's, the one before this session (rows always
taken as 128-byte lines, the tile schedule's cta_group by M alone), and each of today's two
changes alone; last, the unaligned-row model's prices left out one shape at a time.

    PYTHONPATH=. python3 docs/results/2026-12-02_h200_eighteenth/fit.py
"""
import glob
import json
import math
import re
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE.parents[2] / "tools" / "probes"))
from choice_ab import patched  # noqa: E402
from codegen.runtime import GemmRsAr, dispatch  # noqa: E402

SLOTS = {2: 66, 4: 30}
_VARIANT = re.compile(r"gemm_none_sm90a_(?:(swapab|splitkw|splitk)_)?bn(\d+)_cg(\d)")


def points() -> list[dict]:
    """The rows of calls 2 and 3 (their r.tgz unpacked next to it on first use)."""
    rows = []
    for call in ("call2", "call3"):
        if not (HERE / call / "r").is_dir():
            with tarfile.open(HERE / call / "r.tgz") as t:
                t.extractall(HERE / call, filter="data")
        for f in sorted(glob.glob(str(HERE / call / "r" / "*.json"))):
            rows += json.load(open(f))
    return rows


_OPS: dict = {}


def choice(N: int, K: int, M: int) -> str:
    if (N, K) not in _OPS:
        op = GemmRsAr(4096, N, K, "none", arch="sm_90a", sm_budget=132)
        op._slots = {"splitk": dict(SLOTS), "splitkw": dict(SLOTS)}
        _OPS[N, K] = op
    s, bn, cg = _OPS[N, K].choice(M)
    return f"{s}{bn}c{cg}"


def ran(row: dict) -> str:
    m = _VARIANT.match(row["variants"]["dispatch"])
    return f"{m.group(1) or 'tile'}{m.group(2)}c{m.group(3)}"


def score(row: dict) -> float:
    """The op's choice's score over the best candidate's at this point."""
    v = row["vs_torch"]
    best = max(x for n, x in v.items() if n != "torch.mm")
    c = choice(row["N"], row["K"], row["M"])
    return (v[c] if c in v else v["dispatch"] if c == ran(row) else float("nan")) / best


def geo(xs) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


BEFORE_FILL = {"rows_aligned": lambda K: True}
BEFORE_TILE = {"TILE_CG1_PRICE": float("inf")}


def main() -> int:
    rows = points()
    with patched(dispatch, **BEFORE_FILL, **BEFORE_TILE):   # the dispatch those calls ran
        bad = [r for r in rows if choice(r["N"], r["K"], r["M"]) != ran(r)]
    _OPS.clear()
    print(f"{len(rows)} points; the replayed choice of the rule then differs from what ran at "
          f"{len(bad)}")
    parts = {"M <= 512": lambda r: r["M"] <= 512, "M > 448": lambda r: r["M"] > 448,
             "all": lambda r: True}
    rules = {"today": {}, "before this session": {**BEFORE_FILL, **BEFORE_TILE},
             "fill model only": BEFORE_TILE, "tile cta_group only": BEFORE_FILL}
    for name, values in rules.items():
        with patched(dispatch, **values):
            cells = []
            for part, keep in parts.items():
                s = [score(r) for r in rows if keep(r)]
                cells.append(f"{part}: {geo(s):.3f} ({sum(x < 0.93 for x in s)} of {len(s)} "
                             f"below 0.93)")
            print(f"{name:22s} " + "; ".join(cells))
    # the unaligned-row prices, left out one shape at a time (M <= 512, K % 64 != 0)
    pts = [r for r in rows if r["M"] <= 512 and r["K"] % 64]
    shapes = sorted({(r["N"], r["K"]) for r in pts})
    grid = [(pu, pt) for pu in (1.0, 1.2, 1.4, 1.6) for pt in (1.0, 1.2, 1.35)]
    table = {}
    for pu, pt in grid:
        with patched(dispatch, FILL_PRICE_UNALIGNED_DECODE=pu, FILL_PRICE_TILE=pt):
            table[pu, pt] = {sh: [math.log(score(r)) for r in pts if (r["N"], r["K"]) == sh]
                             for sh in shapes}
    held, before = [], []
    with patched(dispatch, **BEFORE_FILL):
        base = {sh: [math.log(score(r)) for r in pts if (r["N"], r["K"]) == sh] for sh in shapes}
    for sh in shapes:
        fit = max(grid, key=lambda g: sum(sum(table[g][s]) for s in shapes if s != sh))
        held += table[fit][sh]
        before += base[sh]
    print(f"unaligned rows, M <= 512, {len(pts)} points at {len(shapes)} shapes: prices fitted "
          f"to the other shapes, scored on the one left out: {math.exp(sum(held) / len(held)):.3f} "
          f"of the best (the rule before: {math.exp(sum(before) / len(before)):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
