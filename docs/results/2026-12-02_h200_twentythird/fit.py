#!/usr/bin/env python3
"""Replays the twenty-third session's rs/ar dispatch scores offline (run from the repository
root): every rule scored against every candidate of a point (fused_choice_ab.py --choices
default,cands on virtual ranks of one H200) as the geometric mean of best / pick, per call, TP
and M; over the twenty-second session's calls 1-4 and this session's calls.

Rules: `dispatch` (the code checked out), `tile1` (the tile clause past one wave of the default
at every TP: the twenty-second session's rule), `tile2` (only past two waves at every TP: the
candidate that session left, fitted on its call 4), `tp2at2` (past two waves at TP 2, one
elsewhere: dispatch.FUSED_FILL_TILE_MIN_WAVES = {2: 2}, fitted on the twenty-second session's
calls 1-4 and this session's call 1), `notile` (no tile clause: the twenty-second's `prices`)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
PREV = HERE.parent / "2026-12-02_h200_twentysecond" / "fit.py"
spec = importlib.util.spec_from_file_location("fit22", PREV)
fit22 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fit22)
dispatch = fit22.dispatch
choice_name = fit22.choice_name


def rows_here(call: str, pattern: str = "held*.json") -> list[dict]:
    return [r for f in fit22.json_files(HERE / call, pattern) for r in json.loads(f.read_text())
            if "tp" in r]   # (call 5's held_splitk.json: mode none, choice_ab's rows)


def rule_of(waves: dict | None, tiles: bool = True):
    """choose_fused_by_fill at FUSED_FILL_TILE_MIN_WAVES = `waves` (None: the checked-out one),
    without the tile clause if not `tiles`; the default decode kernel where it returns None."""
    def rule(M, N, mode, sb, land, tp):
        saved = (dispatch.FUSED_FILL_TILE_MIN_WAVES, dispatch.FUSED_FILL_TILE_MIN_M)
        if waves is not None:
            dispatch.FUSED_FILL_TILE_MIN_WAVES = waves
        if not tiles:
            dispatch.FUSED_FILL_TILE_MIN_M = 1 << 30
        try:
            c = dispatch.choose_fused_by_fill(M, N, mode, fit22.ARCH, sb, land, tp)
        finally:
            dispatch.FUSED_FILL_TILE_MIN_WAVES, dispatch.FUSED_FILL_TILE_MIN_M = saved
        return fit22.default_of(M, N, mode) if c is None else c
    return rule


RULES = {"dispatch": rule_of(None), "tile1": rule_of({}), "tile2": rule_of({2: 2, 4: 2, 8: 2}),
         "tp2at2": rule_of({2: 2}), "notile": rule_of(None, tiles=False)}


def score(rows: list[dict], rule) -> dict:
    by_m: dict[int, list[float]] = {}
    for r in rows:
        us = {k: v for k, v in r["us"].items() if k != "default"}
        land = max(x["M"] for x in rows if x["tp"] == r["tp"])
        pick = choice_name(rule(r["M"], r["N"], r["mode"], r["sm_budget"], land, r["tp"]))
        if pick not in us:
            raise SystemExit(f"{pick} not timed at {r['mode']} N {r['N']} M {r['M']}")
        by_m.setdefault(r["M"], []).append(min(us.values()) / us[pick])
    return by_m


def moved(rows: list[dict], old, new) -> None:
    """The points where `new` picks otherwise than `old`: per mode, the geometric mean of
    old's time / new's (> 1: new faster) and its range."""
    for mode in ("rs", "ar"):
        ratios = []
        for r in rows:
            if r["mode"] != mode:
                continue
            land = max(x["M"] for x in rows if x["tp"] == r["tp"])
            a, b = (choice_name(f(r["M"], r["N"], mode, r["sm_budget"], land, r["tp"]))
                    for f in (old, new))
            if a != b:
                ratios.append(r["us"][a] / r["us"][b])
        if ratios:
            print(f"  {mode}: {len(ratios)} moved, new / old speed {fit22.gm(ratios):.3f} "
                  f"({min(ratios):.2f}..{max(ratios):.2f})")


#: clusters of 2 / 4 one rank holds at once (op.splitk_slots): an H200's 66 / 30, shared by the
#: virtual ranks on it
SLOTS = {2: {2: 33, 4: 15}, 4: {2: 16, 4: 7}, 8: {2: 8, 4: 3}}


def splitk_rule(on: bool):
    """The checked-out rule with (dispatch.FUSED_SPLITK) or without rs/ar's splitk clause, given
    K and each TP's cluster slots."""
    def rule(r):
        saved = dispatch.FUSED_SPLITK
        dispatch.FUSED_SPLITK = on
        try:
            c = dispatch.choose_fused_by_fill(r["M"], r["N"], r["mode"], fit22.ARCH, r["sm_budget"],
                                              128, r["tp"], K=r["K"], cluster_slots=SLOTS[r["tp"]])
        finally:
            dispatch.FUSED_SPLITK = saved
        return fit22.default_of(r["M"], r["N"], r["mode"]) if c is None else c
    return rule


def splitk_report(call: str) -> None:
    """Call 6 / 7 (rs/ar splitk): each rule's best / pick per TP and N, and the moved points."""
    rows = rows_here(call, "sk_*.json")
    if not rows:
        return
    for name, rule in (("without splitk", splitk_rule(False)), ("with splitk", splitk_rule(True))):
        by: dict = {}
        for r in rows:
            us = {k: v for k, v in r["us"].items() if k != "default"}
            by.setdefault((r["tp"], r["N"]), []).append(min(us.values()) / us[choice_name(rule(r))])
        allv = [x for v in by.values() for x in v]
        print(f"  {name:15s} all={fit22.gm(allv):.3f} [{min(allv):.3f}]  "
              + "  ".join(f"tp{tp}/N{N}={fit22.gm(v):.3f}" for (tp, N), v in sorted(by.items())))
    ratios = [r["us"][choice_name(splitk_rule(False)(r))] / r["us"][choice_name(splitk_rule(True)(r))]
              for r in rows if splitk_rule(False)(r) != splitk_rule(True)(r)]
    if ratios:
        print(f"  moved {len(ratios)} of {len(rows)}: with / without speed {fit22.gm(ratios):.3f} "
              f"({min(ratios):.2f}..{max(ratios):.2f})")


def main() -> None:
    calls = [(f"22/{c}", fit22.rows_of(c)) for c in ("call1", "call2", "call3", "call4")]
    calls += [(f"23/{c}", rows_here(c)) for c in ("call1", "call2", "call3", "call4")]
    for name, rows in calls:
        fit22.report(name, rows, RULES, score)
    print("23/call2 (held out), tp2at2 against tile1 where they differ:")
    moved(rows_here("call2"), RULES["tile1"], RULES["tp2at2"])
    for call, what in (("call6", "fit"), ("call7", "held out")):
        print(f"23/{call} ({what}): rs/ar's splitk clause (dispatch.FUSED_SPLITK)")
        splitk_report(call)


if __name__ == "__main__":
    main()
