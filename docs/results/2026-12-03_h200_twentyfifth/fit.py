#!/usr/bin/env python3
"""Offline replay (host only, no GPU) of the twenty-fifth session's small-N, short-K splitk clause
(dispatch.choose_splitk_short) over the calls that timed it on one H200: the fit (call 1, every
candidate timed), its hold-out (call 2 B), the fit of its M bound 192 -> 384 (call 2 C) and that
bound's hold-out (call 3). Scores are the worse of warm and cold, torch.mm / ours; "of the best"
is the share of the best timed candidate.

    PYTHONPATH=. python3 docs/results/2026-12-03_h200_twentyfifth/fit.py
"""
import json
import math
import sys
import tarfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE.parent / "2026-12-03_h200_twentyfourth"))
sys.path.insert(0, str(HERE.parents[2] / "tools" / "probes"))
from codegen.runtime import dispatch  # noqa: E402
from choice_ab import patched  # noqa: E402  (dispatch constants set back in a block)
import fit as fit24  # noqa: E402  (choice(N, K, M): an H200 op's own pick, on the CPU)


def load(call: str, stem: str) -> list[dict]:
    with tarfile.open(HERE / call / "r.tgz") as tar:
        return json.load(tar.extractfile(f"r/{stem}.json"))


def geo(xs) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def candidates(r: dict) -> dict:
    return {k: v for k, v in r["vs_torch"].items() if k not in ("torch.mm", "dispatch")}


def pick(r: dict, **consts) -> str:
    """The op's pick at r's point with dispatch constants set to `consts` (cached ops cleared)."""
    fit24._OPS.clear()
    try:
        with patched(dispatch, **consts):
            return fit24.choice(r["N"], r["K"], r["M"])
    finally:
        fit24._OPS.clear()


def replay(title: str, rows: list[dict], before: dict) -> None:
    """Per M: the share of the best candidate of the rule `before` and of the tree's rule."""
    print(title)
    per_m = defaultdict(lambda: ([], []))
    for r in rows:
        c = candidates(r)
        best = max(c.values())
        old, new = pick(r, **before), pick(r)
        per_m[r["M"]][0].append(c[old] / best)
        per_m[r["M"]][1].append(c[new] / best)
    for M in sorted(per_m):
        print(f"  M {M:4d}: before {geo(per_m[M][0]):.3f}  now {geo(per_m[M][1]):.3f}")
    olds = [x for o, _ in per_m.values() for x in o]
    news = [x for _, n in per_m.values() for x in n]
    print(f"  all {len(news)}: before {geo(olds):.3f}  now {geo(news):.3f} of the best")


def held_out(title: str, rows: list[dict], rule: str) -> None:
    """The dispatch as it ran against the rule `rule` (choice_ab's label for it), per M."""
    print(title)
    per_m = defaultdict(list)
    for r in rows:
        vt, label = r["vs_torch"], r["rules"][rule]
        moved = r["variants"]["dispatch"] != r["variants"][label]
        per_m[r["M"]].append((moved, vt["dispatch"], vt[label]))
    every = [p for ps in per_m.values() for p in ps]
    for M, ps in sorted(per_m.items()) + [("all", every)]:
        mv = [d / o for m, d, o in ps if m]
        print(f"  M {M!s:>4}: moved {len(mv):2d} of {len(ps):2d}  new/old {geo(mv):.3f}  "
              f"torch.mm {geo([o for _, _, o in ps]):.3f} -> {geo([d for _, d, _ in ps]):.3f}  "
              f"below 0.9x {sum(o < 0.9 for _, _, o in ps)} -> {sum(d < 0.9 for _, d, _ in ps)}")


def main() -> None:
    off = {"SPLITK_SHORT_MAX_W_TILES": 0}
    replay("call 1 (fit): without the clause vs with it", load("call1", "small_n"), off)
    held_out("call 2 B (held out, M <= 192): the dispatch vs splitkshort24",
             load("call2", "held_short"), "splitkshort24")
    replay("call 2 C (fit of the M bound): bound 192 vs 384", load("call2", "past_short"),
           {"SPLITK_SHORT_MAX_M": 192})
    held_out("call 3 (held out, M 200..384): the dispatch vs splitkshort192",
             load("call3", "held_m384"), "splitkshort192")


if __name__ == "__main__":
    main()
