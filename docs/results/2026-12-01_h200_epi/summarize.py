#!/usr/bin/env python3
"""The numbers of BENCHMARKS.md's sixth-session section, from the JSON of the calls here.

    python3 docs/results/2026-12-01_h200_epi/summarize.py
"""
import glob
import gzip
import json
import math
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
from codegen.runtime import dispatch  # noqa: E402

SLOTS = {2: 66, 4: 30}     # cuOccupancyMaxActiveClusters of the splitk kernels on this H200


def _rows(pattern: str) -> list[dict]:
    out = []
    for f in sorted(glob.glob(str(HERE / pattern))):
        out += json.load(gzip.open(f))
    return out


def _span(ratios: list[float]) -> str:
    return (f"{min(ratios):.3f}-{max(ratios):.3f}, geometric mean "
            f"{statistics.geometric_mean(ratios):.3f} ({len(ratios)} points)")


def epilogue_passes() -> None:
    """Calls 1-2: old (38f0d1f) against new at fixed wide tiles; best of the two runs per side."""
    print("epilogue in passes, new / old per token tile:")
    for call, tiles in (("call1", (192, 208, 224)), ("call2", (256,))):
        sides = {s: [_rows(f"{call}/r/ab/{s}{i}.json.gz") for i in (1, 2)] for s in ("new", "old")}
        for bt in tiles:
            key = f"swapab{bt}c2"
            best = {s: {} for s in sides}
            for s, runs in sides.items():
                for run in runs:
                    for r in run:
                        v = r["vs_torch"].get(key, float("nan"))
                        if not math.isnan(v):
                            k = (r["N"], r["K"], r["M"])
                            best[s][k] = max(best[s].get(k, 0.0), v)
            ratios = [best["new"][k] / best["old"][k] for k in best["new"] if k in best["old"]]
            print(f"  {bt}: {_span(ratios)}")


def _two_rules(pattern: str, a: str, b: str) -> None:
    mine, other, ratios = [], [], []
    for r in _rows(pattern):
        va = r["vs_torch"][r["rules"].get(a, a) if a != "dispatch" else "dispatch"]
        vb = r["vs_torch"][r["rules"][b]]
        mine.append(va)
        other.append(vb)
        ratios.append(va / vb)
    print(f"  {a} / {b}: {_span(ratios)}")
    print(f"  torch.mm / ours median {statistics.median(other):.2f} -> {statistics.median(mine):.2f}, "
          f"min {min(other):.2f} -> {min(mine):.2f}, below 0.9 at "
          f"{sum(v < 0.9 for v in other)} -> {sum(v < 0.9 for v in mine)}")


def splitk_call6() -> None:
    """Call 6: where the committed rule now takes splitk 160 / 192, its kernel against the
    dispatch of that call (no splitk above M 128)."""
    ratios = []
    for r in _rows("call6/r/s_*.json.gz"):
        pick = dispatch.choose_none_by_fill(r["M"], r["N"], "sm_90a", 132, 512, K=r["K"],
                                            cluster_slots=SLOTS)
        if pick[0] == "splitk":
            ratios.append(r["vs_torch"][f"splitk{pick[1]}c{pick[2]}"] / r["vs_torch"]["dispatch"])
    print(f"  the rule's splitk picks / the call's dispatch: {_span(ratios)}")


def main() -> int:
    epilogue_passes()
    print("cta_group 3, held out (call 4):")
    _two_rules("call4/r/h_*.json.gz", "fill", "fill-cg12")
    print("cta_group 3 at the fifth session's random shapes (call 5):")
    _two_rules("call5/r/g_*.json.gz", "dispatch", "fill-cg12")
    print("splitk 160 / 192 (call 6):")
    splitk_call6()
    print("splitk 160 / 192, held out (call 7):")
    _two_rules("call7/r/k_*.json.gz", "dispatch", "fill")
    return 0


if __name__ == "__main__":
    sys.exit(main())
