#!/usr/bin/env python3
"""Offline replay (host only, no GPU) of mode none's wave-fill rule over every point where every
candidate was timed on one H200 (choice_ab `cands` rows: the eighteenth session's calls 2-3 on,
and this session's call 2 sweep), scoring a rule's pick as its ratio to the best candidate (the
worse of warm and cold, torch.mm / ours): the rule as checked out against variants of the tile
options the fill rule weighs on aligned rows; then the held-out calls' summaries (3, 5, 6) and
the partial-row-tile price replayed on calls 3 and 5.

    PYTHONPATH=. python3 docs/results/2026-12-03_h200_twentyfourth/fit.py
"""
import json
import math
import re
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE.parents[2] / "tools" / "probes"))
from codegen.runtime import GemmRsAr, dispatch  # noqa: E402
from choice_ab import OP_RULES, patched  # noqa: E402  (dispatch constants set back in a block)

SLOTS = {2: 66, 4: 30}
CAND = re.compile(r"^(tile|swapabx|swapab|splitkw|splitk)(\d+)c([1-4])$")
#: (session dir, call, json stem or None for all): the fit sets
SOURCES = [("2026-12-02_h200_eighteenth", "call2", None),
           ("2026-12-02_h200_eighteenth", "call3", None),
           ("2026-12-02_h200_twentieth", "call1", None),
           ("2026-12-02_h200_twentieth", "call3", None),
           ("2026-12-02_h200_twentyfirst", "call1", None),
           ("2026-12-02_h200_twentyfirst", "call2", None),
           ("2026-12-03_h200_twentyfourth", "call2", "sweep_decode")]


def load(session, call, stem) -> list[dict]:
    out = []
    with tarfile.open(RESULTS / session / call / "r.tgz") as tar:
        for m in sorted(tar.getmembers(), key=lambda m: m.name):
            if not m.name.endswith(".json") or (stem and Path(m.name).stem != stem):
                continue
            for r in json.load(tar.extractfile(m)):
                cands = {k: v for k, v in r.get("vs_torch", {}).items() if CAND.match(k)}
                if len(cands) >= 6 and r["M"] <= 512 and "gemm_none" in r["variants"].get(
                        "dispatch", "gemm_none"):
                    r["cands"], r["src"] = cands, f"{session[11:]}/{call}"
                    out.append(r)
    return out


def geo(xs) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


_OPS: dict = {}


def choice(N: int, K: int, M: int) -> str:
    if (N, K) not in _OPS:
        op = GemmRsAr(4096, N, K, "none", arch="sm_90a", sm_budget=132, device="cpu")
        op._slots = {s: dict(SLOTS) for s in ("splitk", "splitkw", "swapabx")}
        _OPS[N, K] = op
    s, bn, cg = _OPS[N, K].choice(M)
    return f"{s}{bn}c{cg}"


def score(rows, label, subset=lambda r: True):
    got, missing = [], 0
    for r in rows:
        if not subset(r):
            continue
        pick = choice(r["N"], r["K"], r["M"])
        best = max(r["cands"].values())
        if pick not in r["cands"]:
            missing += 1
            continue
        got.append(r["cands"][pick] / best)
    print(f"  {label:28s} {len(got):4d} pts  best/pick {geo(got):.3f}  >=0.95: "
          f"{sum(g >= 0.95 for g in got)}  <0.85: {sum(g < 0.85 for g in got)}  (pick not timed: {missing})")
    return got


BEFORE = OP_RULES["filltile23"]   # the rule before the session


def fit_set():
    """The rule as checked out against the one before (filltile23) on every point."""
    rows = [r for s in SOURCES for r in load(*s)]
    print(f"fit: {len(rows)} points where every candidate was timed")
    subsets = {"all": lambda r: True,
               "aligned rows": lambda r: dispatch.rows_aligned(r["K"]),
               "aligned rows, M > 128": lambda r: dispatch.rows_aligned(r["K"]) and r["M"] > 128}
    for name, sub in subsets.items():
        print(name)
        with patched(dispatch, **BEFORE):
            score(rows, "before (filltile23)", sub)
        with patched(dispatch, FILL_TILE_EVERY_WIDTH=False):
            score(rows, "price 1.25 only", sub)
        with patched(dispatch, FILL_PRICE_TILE=1.35):
            score(rows, "every width only", sub)
        score(rows, "as checked out", sub)


def held_out(call: str, name: str, against: str):
    """A held-out call: the dispatch (the rule as checked out then) against rule `against`
    (choice_ab), worse of warm and cold; moved = the two ran different kernels."""
    with tarfile.open(HERE / call / "r.tgz") as tar:
        rows = json.load(tar.extractfile(f"r/{name}.json"))
    moved, every = [], []
    for r in rows:
        old = r["rules"][against]
        ratio = r["vs_torch"]["dispatch"] / r["vs_torch"][old]
        every.append(ratio)
        if r["variants"]["dispatch"] != r["variants"][old]:
            moved.append((r["M"], ratio))
    print(f"held out ({call}, against {against}): {len(every)} points, all {geo(every):.3f}x; "
          f"{len(moved)} moved {geo([x for _, x in moved]):.3f}x "
          f"({min(x for _, x in moved):.2f}..{max(x for _, x in moved):.2f})")
    for M in sorted({m for m, _ in moved}):
        xs = [x for m, x in moved if m == M]
        print(f"  M {M}: {len(xs)} moved, {geo(xs):.3f}x")


def partial_replay():
    """The partial-row-tile price (FILL_TILE_PARTIAL_ROWS, fitted on calls 3 and 5) replayed on
    calls 3 and 5: the picks of the rule as checked out, where the held-out call timed them."""
    for call, name in (("call3", "held_tile"), ("call5", "held_tile2")):
        with tarfile.open(HERE / call / "r.tgz") as tar:
            rows = json.load(tar.extractfile(f"r/{name}.json"))
        for label, values in (("without it", dict(FILL_TILE_PARTIAL_ROWS=0)), ("with it", {})):
            got = []
            with patched(dispatch, **values):
                for r in rows:
                    old = r["rules"]["filltile23"]
                    m = VARIANT.match(r["variants"]["dispatch"])
                    ran = f"{m.group(1) or 'tile'}{m.group(2)}c{m.group(3)}"
                    timed = {ran: r["vs_torch"]["dispatch"], old: r["vs_torch"][old]}
                    got.append(timed[choice(r["N"], r["K"], r["M"])] / timed[old])
            print(f"  {call} {label}: {geo(got):.3f}x filltile23 over {len(got)} points")


VARIANT = re.compile(r"gemm_none_sm90a_(?:(swapabx|swapab|splitkw|splitk)_)?bn(\d+)_cg(\d)")


def main():
    fit_set()
    held_out("call3", "held_tile", "filltile23")
    held_out("call5", "held_tile2", "filltile23")
    print("the partial-row-tile price, replayed on the calls it was fitted to:")
    partial_replay()
    held_out("call6", "held_partial", "filltile24")
    held_out("call6", "held_partial", "filltile23")


if __name__ == "__main__":
    main()
