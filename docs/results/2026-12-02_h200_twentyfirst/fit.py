#!/usr/bin/env python3
"""Offline replay of the twenty-first session's numbers (host only, no GPU): the calls' JSON
under call*/r.tgz, scored with today's dispatch code.

1. Call 1: the twentieth session's L2-traffic model at 36 fresh points off the lines with every
   candidate timed (held out: the model was fitted before them), against the rule before it.
2. Call 2 (tools/probes/padded_rows.py): the same values laid out three ways; the ratio to
   torch.mm of each path, per M; dispatch.WEIGHT_ON_LINES_RULE replayed (its pick's measured
   ratio, from whichever timed path ran that kernel).
3. dispatch.UNALIGNED_SPLITK_FIRST_MAX_M over every point at M <= 512 with every candidate timed
   (eighteenth session calls 2-3, twentieth calls 1 and 3, calls 1-2 here): share of the best.
4. Call 3 (held out): WEIGHT_ON_LINES_RULE against the choice before it on a re-laid weight, and
   the splitk deferral against `splitk20` (A/B); call 4 (held out): the narrowed deferral.
5. Call 5: every candidate with W re-laid (x contiguous): WEIGHT_ON_LINES_RULE's pick against the
   best, and the candidate WEIGHT_ON_LINES_SPLITKW (in sample); call 6: that candidate held out.

    PYTHONPATH=. python3 docs/results/2026-12-02_h200_twentyfirst/fit.py
"""
import json
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
sys.path.insert(0, str(HERE.parent / "2026-12-02_h200_twentieth"))
import fit as twentieth  # noqa: E402  (rows_of, scores, constants, geo, line, ab, VARIANT)
from codegen.runtime import GemmRsAr, dispatch  # noqa: E402

geo, line = twentieth.geo, twentieth.line


def json_of(tgz: Path, name: str) -> list[dict]:
    with tarfile.open(tgz) as tar:
        return json.load(tar.extractfile(f"r/{name}.json"))


def label(variant: str) -> str:
    m = twentieth.VARIANT.match(variant)
    return f"{m.group(1) or 'tile'}{m.group(2)}c{m.group(3)}"


def w_on_lines_pick(N: int, K: int, M: int) -> str:
    op = GemmRsAr(512, N, K, "none", arch="sm_90a", sm_budget=132)
    op._slots = {s: dict(twentieth.SLOTS) for s in ("splitk", "splitkw", "swapabx")}
    s, bn, cg = op.choice(M, aligned=False, weight_aligned=True)
    return f"{s}{bn}c{cg}"


def inverse_ab(rows: list[dict], rule: str) -> str:
    """An A/B whose `rule` is the candidate (on) and `dispatch` the code as committed (off)."""
    moved = []
    for r in rows:
        if label(r["variants"]["dispatch"]) != r["rules"][rule]:
            moved.append(r["vs_torch"][r["rules"][rule]] / r["vs_torch"]["dispatch"])
    moved.sort()
    return (f"  {len(moved)} of {len(rows)} points moved: {geo(moved):.3f}x the code as "
            f"committed ({moved[0]:.2f}x..{moved[-1]:.2f}x; {sum(x > 1 for x in moved)} won)")


def padded(rows: list[dict], new_path: str, old_path: str) -> None:
    paths = [p for p in ("mm/padW", "mm/pad", "op", "op/padW", "op/pad", "op/padW@a",
                         "op/padW@before", "op/stage") if p in rows[0]["vs_mm"]]
    print(f"  {'M':>5s} " + " ".join(f"{p:>14s}" for p in paths) + f" {'the rule':>14s}")
    scored = {}
    for M in sorted({r["M"] for r in rows}) + [None]:
        sel = [r for r in rows if M is None or r["M"] == M]
        cells = [geo([r["vs_mm"][p] for r in sel]) for p in paths]
        rule = []
        for r in sel:
            pick = w_on_lines_pick(r["N"], r["K"], r["M"])
            got = [r["vs_mm"][p] for p in (new_path, old_path, "op/padW@a")
                   if p in r["variants"] and label(r["variants"][p]) == pick]
            if got:
                rule.append(got[0])
                scored[r["N"], r["K"], r["M"]] = got[0]
        print(f"  {'all' if M is None else M:>5} " + " ".join(f"{c:14.3f}" for c in cells)
              + f" {geo(rule):10.3f} ({len(rule)})")
    old = [r["vs_mm"][old_path] for r in rows]
    new = [scored[r["N"], r["K"], r["M"]] for r in rows if (r["N"], r["K"], r["M"]) in scored]
    print(f"  below 0.9x torch.mm: {old_path} {sum(x < 0.9 for x in old)} of {len(old)}, the "
          f"rule {sum(x < 0.9 for x in new)} of {len(new)}")


def replay_ab(rows: list[dict], rule: str) -> str:
    """twentieth.ab with today's pick instead of the one the call ran, scored from the timed
    paths that ran that kernel (the dispatch's or `rule`'s)."""
    replayed = []
    for r in rows:
        pick = twentieth.choice(r["N"], r["K"], r["M"])
        ran = label(r["variants"]["dispatch"])
        if pick not in (ran, r["rules"][rule]):
            return f"  untimed pick {pick} at N {r['N']} K {r['K']} M {r['M']}"
        new = r["vs_torch"]["dispatch" if pick == ran else r["rules"][rule]]
        replayed.append({**r, "vs_torch": {**r["vs_torch"], "dispatch": new},
                         "variants": {**r["variants"], "dispatch": f"gemm_none_sm90a_{variant_of(pick)}"}})
    return twentieth.ab(replayed, rule)


def variant_of(lab: str) -> str:
    m = twentieth.CAND.match(lab)
    return ("" if m.group(1) == "tile" else m.group(1) + "_") + f"bn{m.group(2)}_cg{m.group(3)}"


def main() -> int:
    ours = HERE / "call1" / "r.tgz"
    c1 = [r for r in twentieth.rows_of(ours, {"cands"}) if len(r["cands"]) >= 10]
    print(f"1. call 1: the twentieth session's model at {len(c1)} fresh points (held out)")
    print(line("the model", twentieth.scores(c1)))
    with twentieth.constants(UNALIGNED_MODEL=False):
        print(line("the rule before it (fill19)", twentieth.scores(c1)))

    print("2. call 2: 12 shapes off the lines x M 16 / 64 / 176 / 384, ratio to torch.mm "
          "(contiguous), geometric means; `the rule`: WEIGHT_ON_LINES_RULE's pick")
    padded(json_of(HERE / "call2" / "r.tgz", "padded"), "op/padW", "op/padW")

    E, T = twentieth.EIGHTEENTH, twentieth.HERE
    every = (twentieth.rows_of(E / "call2" / "r.tgz") + twentieth.rows_of(E / "call3" / "r.tgz")
             + twentieth.rows_of(T / "call1" / "r.tgz", {"cands"})
             + twentieth.rows_of(T / "call3" / "r.tgz", {"c1", "c2"})
             + c1 + twentieth.rows_of(HERE / "call2" / "r.tgz", {"smalln"}))
    every = [r for r in every if len(r["cands"]) >= 10 and r["M"] <= 512]
    print(f"3. choose_splitk before the model off the lines: {len(every)} points with every "
          f"candidate timed, share of the best")
    for bound in ({2: 512, 4: 512}, {2: 128, 4: 512}, {2: 64, 4: 512}, {2: 0, 4: 512},
                  {2: 0, 4: 0}):
        kept = " (kept)" if bound == dispatch.UNALIGNED_SPLITK_FIRST_MAX_M else ""
        with twentieth.constants(UNALIGNED_SPLITK_FIRST_MAX_M=bound):
            print(line(f"first up to M {bound}{kept}", twentieth.scores(every)))

    c3 = HERE / "call3" / "r.tgz"
    if c3.exists():
        print("4. call 3 (held out)")
        print(" WEIGHT_ON_LINES_RULE (op/padW) against the choice before it (op/padW@before):")
        padded(json_of(c3, "padw"), "op/padW", "op/padW@before")
        rows = twentieth.rows_of(c3, {"splitk"})
        print(" UNALIGNED_SPLITK_FIRST_MAX_M (yielding to any pick of the model, as run) against "
              "splitk20:")
        print(twentieth.ab(rows, "splitk20"))
        print(" ... replayed with UNALIGNED_SPLITK_YIELDS_TO (fitted to this call):")
        print(replay_ab(rows, "splitk20"))
    c4 = HERE / "call4" / "r.tgz"
    if c4.exists():
        print(" call 4 (held out): UNALIGNED_SPLITK_YIELDS_TO against splitk20")
        print(twentieth.ab(twentieth.rows_of(c4, {"splitk"}), "splitk20"))
    c5 = [r for r in twentieth.rows_of(HERE / "call5" / "r.tgz", {"relaid"}) if len(r["cands"]) >= 10]
    print(f"5. call 5: every candidate with W re-laid, x contiguous ({len(c5)} points)")
    print(line("WEIGHT_ON_LINES_RULE", twentieth.scores(c5, w_on_lines_pick)))
    print(f"  (ratio to torch.mm: the pick {geo([r['vs_torch']['dispatch'] for r in c5]):.3f}, the "
          f"best candidate {geo([max(r['cands'].values()) for r in c5]):.3f})")
    with twentieth.constants(WEIGHT_ON_LINES_SPLITKW=True):
        print(line("+ WEIGHT_ON_LINES_SPLITKW (in sample)", twentieth.scores(c5, w_on_lines_pick)))
    print(" call 6 (held out): WEIGHT_ON_LINES_SPLITKW on (relaidsplitkw) against off")
    print(inverse_ab(twentieth.rows_of(HERE / "call6" / "r.tgz", {"relaid_ab"}), "relaidsplitkw"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
