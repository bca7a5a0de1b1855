#!/usr/bin/env python3
"""Replays the twenty-second session's rs/ar dispatch numbers offline (run from the repository
root; reads callN/r.tgz, extracting them next to this script): every rule scored against every
candidate of a point (fused_choice_ab.py --choices default,cands; two / four virtual ranks of
one H200), as the geometric mean of best candidate / pick, per call and M.

Rules: `old` (before this session: the wave-fill rule only where the default leaves SMs idle,
at mode none's decode prices), `wave` (dispatch.FUSED_FILL_PAST_ONE_WAVE: also past one wave;
what call 2 held out), `prices` (the same at rs/ar's own decode prices, FUSED_FILL_PRICE_DECODE,
fitted to calls 1-2: what call 3 held out), `dispatch` (the code checked out: since call 4 the
tile schedule among the options from M 200, FUSED_FILL_TILE_MIN_M / FUSED_FILL_PRICE_TILE,
fitted to calls 1-2 and scored on call 3 before call 4 held it out).
Picks are replayed with the code checked out, so a rule that later changes moves its numbers.
(The rules here call choose_fused_by_fill without a TP, so the tile clause starts past one wave
at every TP, as in this session; since the twenty-third session the op passes its TP and two
ranks start past two waves: that session's fit.py scores it.)"""
from __future__ import annotations

import json
import math
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE.parents[2] / "tools"))
sys.path.insert(0, str(HERE.parents[2] / "tools" / "probes"))
from choice_ab import choice_name  # noqa: E402
from codegen.runtime import dispatch  # noqa: E402

ARCH = "sm_90a"


def json_files(d: Path, pattern: str = "*.json") -> list[Path]:
    """The JSON files of a call's results (d/r.tgz, extracted next to it once); none if the
    call has no r.tgz."""
    if not (d / "r.tgz").exists():
        return []
    if not (d / "r").exists():
        with tarfile.open(d / "r.tgz") as t:
            t.extractall(d)
    return sorted((d / "r").glob(pattern))


def rows_of(call: str) -> list[dict]:
    out = []
    for f in json_files(HERE / call):
        if f.name.startswith(("fused_cands", "held")):  # (call 3: held3_tp*)
            out += json.loads(f.read_text())
    return out


def default_of(M: int, N: int, mode: str) -> tuple[str, int, int]:
    return ("swapab", dispatch.swapab_default_token_tile(M, mode, arch=ARCH),
            dispatch.swapab_cta_group(None, M, mode, ARCH, N))


def rule_fill(M, N, mode, sb, land, past_one_wave: bool, prices=None, tiles: bool = True):
    """choose_fused_by_fill with FUSED_FILL_PAST_ONE_WAVE = `past_one_wave`, the decode prices
    `prices` (None: the checked-out FUSED_FILL_PRICE_DECODE) and, `tiles` False, without the
    tile schedule among its options (FUSED_FILL_TILE_MIN_M out of reach)."""
    saved = (dispatch.FUSED_FILL_PAST_ONE_WAVE, dispatch.FUSED_FILL_PRICE_DECODE,
             dispatch.FUSED_FILL_TILE_MIN_M)
    dispatch.FUSED_FILL_PAST_ONE_WAVE = past_one_wave
    if prices is not None:
        dispatch.FUSED_FILL_PRICE_DECODE = prices
    if not tiles:
        dispatch.FUSED_FILL_TILE_MIN_M = 1 << 30
    try:
        c = dispatch.choose_fused_by_fill(M, N, mode, ARCH, sb, land)
    finally:
        (dispatch.FUSED_FILL_PAST_ONE_WAVE, dispatch.FUSED_FILL_PRICE_DECODE,
         dispatch.FUSED_FILL_TILE_MIN_M) = saved
    return default_of(M, N, mode) if c is None else c


NONE_PRICES = dispatch.FILL_PRICE_DECODE   # mode none's (the fused rule's before call 3)
RULES = {
    "old": lambda M, N, mode, sb, land: rule_fill(M, N, mode, sb, land, False, NONE_PRICES,
                                                  tiles=False),
    "wave": lambda M, N, mode, sb, land: rule_fill(M, N, mode, sb, land, True, NONE_PRICES,
                                                   tiles=False),
    "prices": lambda M, N, mode, sb, land: rule_fill(M, N, mode, sb, land, True, tiles=False),
    "dispatch": lambda M, N, mode, sb, land: rule_fill(M, N, mode, sb, land, True),
}


def score(rows: list[dict], rule) -> dict:
    by_m: dict[int, list[float]] = {}
    for r in rows:
        us = {k: v for k, v in r["us"].items() if k != "default"}
        pick = choice_name(rule(r["M"], r["N"], r["mode"], r["sm_budget"], max(x["M"] for x in rows
                                                                          if x["tp"] == r["tp"])))
        if pick not in us:
            raise SystemExit(f"{pick} not timed at {r['mode']} N {r['N']} M {r['M']}")
        by_m.setdefault(r["M"], []).append(min(us.values()) / us[pick])
    return by_m


def gm(xs) -> float:
    return math.exp(sum(map(math.log, xs)) / len(xs))


def report(call: str, rows: list[dict], rules: dict, score_fn=score) -> None:
    """Per TP: each rule's geometric mean of best / pick over the call's points, all and per M
    (`score_fn(rows, rule)` -> {M: [best / pick]}; the twenty-third session's fit.py reuses it)."""
    for tp in sorted({r["tp"] for r in rows}):
        sub = [r for r in rows if r["tp"] == tp]
        print(f"{call} tp={tp} ({len(sub)} points): best / pick, geometric mean [worst]")
        for rname, rule in rules.items():
            by_m = score_fn(sub, rule)
            cells = "  ".join(f"M{M}={gm(v):.3f}" for M, v in sorted(by_m.items()))
            allv = [x for v in by_m.values() for x in v]
            print(f"  {rname:10s} all={gm(allv):.3f} [{min(allv):.3f}]  {cells}")


def main() -> None:
    for call in ("call1", "call2", "call3", "call4"):
        rows = rows_of(call)
        if not rows:
            print(f"{call}: not run (no {call}/r.tgz)")
        report(call, rows, RULES)


if __name__ == "__main__":
    main()
