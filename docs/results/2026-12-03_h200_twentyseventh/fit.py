#!/usr/bin/env python3
"""Offline replay (host only, no GPU) for the twenty-seventh session: the pooled points where
every mode-none candidate was timed on one H200 (the twenty-sixth session's fit.py sets + this
session's call 1: the seed-2604 sweep and the ragged small-N points at M 448..512), scored as
the pick's share of the best candidate (worse of warm and cold); the session's two changes
against the rule before (choice_ab `rules26`) and each alone, with every point each moves; call
1's sweep as an unbiased A/B of the twenty-sixth session's rules (`rules25`); then the held-out
calls (call 2 B / C: the dispatch as it ran against the rule without each change; call 3 B: the
ragged-N change with its tile picks left to the rules, FILL_RAGGED_TILE_TO_RULES); call 4's
fit data for the next session (N 2048..6143, rows off the lines, M 200..512), scored as is.

    PYTHONPATH=. python3 docs/results/2026-12-03_h200_twentyseventh/fit.py
"""
import importlib.util
import json
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE.parents[2] / "tools" / "probes"))
_spec = importlib.util.spec_from_file_location(   # (a module named fit is the 24th's)
    "fit26", HERE.parent / "2026-12-03_h200_twentysixth" / "fit.py")
fit26 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fit26)
from choice_ab import OP_RULES  # noqa: E402

fit24, geo = fit26.fit24, fit26.geo
CALL1 = [("2026-12-03_h200_twentyseventh", "call1", "sweep_decode"),
         ("2026-12-03_h200_twentyseventh", "call1", "ragged_small_n")]


def rows_all() -> list[dict]:
    return fit26.rows_all() + [r for s in CALL1 for r in fit24.load(*s)]


def moved(rows, label, **consts) -> None:
    """Every point whose pick `consts` (the rule before) changes: the share of the best under
    the rule before and as checked out."""
    now, before = fit26.shares(rows), fit26.shares(rows, **consts)
    out = [(r["N"], r["K"], r["M"], r["src"], b, n) for r, n, b in zip(rows, now, before)
           if n and b and abs(n - b) > 1e-9]
    print(f"{label}: {len(out)} moved, {geo(n / b for *_, b, n in out):.3f}x")
    for N, K, M, src, b, n in sorted(out):
        print(f"  N {N:5d} K {K:5d} M {M:3d} {src:26s} {b:.3f} -> {n:.3f} ({n / b:.3f}x)")


def ab(path: Path, stem: str, rule: str) -> None:
    """A choice_ab sweep's dispatch against rule `rule` where they ran different kernels (worse
    of warm and cold), and every point's dispatch / best candidate."""
    with tarfile.open(path) as tar:
        rows = json.load(tar.extractfile(f"r/{stem}.json"))
    mv, t_old, t_new, share = [], [], [], []
    for r in rows:
        vt, old = r["vs_torch"], r["rules"][rule]
        cands = [v for k, v in vt.items() if fit24.CAND.match(k)]
        if cands:
            share.append(vt["dispatch"] / max(cands))
        if r["variants"]["dispatch"] != r["variants"][old]:
            mv.append(vt["dispatch"] / vt[old])
            t_old.append(vt[old])
            t_new.append(vt["dispatch"])
            print(f"  N {r['N']:5d} K {r['K']:5d} M {r['M']:3d} {r['variants'][old][15:]:28s} -> "
                  f"{r['variants']['dispatch'][15:]:28s} {mv[-1]:.3f}x")
    print(f"{path.parent.name} {stem} against {rule}: {len(rows)} points, {len(mv)} moved "
          f"{geo(mv):.3f}x ({sum(x > 1 for x in mv)} won), torch.mm where moved "
          f"{geo(t_old):.3f} -> {geo(t_new):.3f}; dispatch {geo(share):.3f} of the best")


def main():
    rows = rows_all()
    print(f"{len(rows)} points where every candidate was timed")
    fit26.report(rows, "before (rules26)", **OP_RULES["rules26"])
    fit26.report(rows, "the clause to 66 W tiles only", **OP_RULES["ragged26"])
    fit26.report(rows, "ragged N to M 512 only", **OP_RULES["splitkshort26"])
    fit26.report(rows, "as checked out")
    moved(rows, "the short clause to 66 W tiles", **OP_RULES["splitkshort26"])
    moved(rows, "the fill rule at ragged N to M 512", **OP_RULES["ragged26"])
    ab(HERE / "call1" / "r.tgz", "sweep_decode", "rules25")
    if (HERE / "call2" / "r.tgz").exists():
        ab(HERE / "call2" / "r.tgz", "held_short", "splitkshort26")
        ab(HERE / "call2" / "r.tgz", "held_ragged", "ragged26")
        held = fit24.load("2026-12-03_h200_twentyseventh", "call2", "held_ragged")
        moved(rows + held, "call 2 C's tile picks back to the rules (fitted on its N 10288)",
              FILL_RAGGED_TILE_TO_RULES=False)
    if (HERE / "call3" / "r.tgz").exists():
        ab(HERE / "call3" / "r.tgz", "held_ragged_tile", "ragged26")
    if (HERE / "call4" / "r.tgz").exists():   # fit data for the next session (not fitted on)
        c4 = fit24.load("2026-12-03_h200_twentyseventh", "call4", "offlines_mid")
        fit26.report(c4, "call 4 (N 2048..6143 off, M 200..512)")


if __name__ == "__main__":
    main()
