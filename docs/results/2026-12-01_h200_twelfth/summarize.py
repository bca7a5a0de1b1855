#!/usr/bin/env python3
"""Print the twelfth session's tables (one H200): call 1's N 2880 points against the eleventh
session's picks, call 2's A/B of the 13 rebuilt kernels at N = 0 mod 128, and the two held-out
sets (calls 2 and 3) of the ragged wide kernel against the rule before it.

    python3 docs/results/2026-12-01_h200_twelfth/summarize.py
"""
import glob
import json
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent


def rows(pattern):
    out = []
    for f in sorted(glob.glob(str(HERE / pattern))):
        out += json.load(open(f))
    return out


def held_out(call, bounded_multiwave=False):
    """dispatch / fillk-noragged per point (call 2's multi-wave points: 1.0 under the bounded
    rule, which picks what the rule before picked there)."""
    print(f"\n{call}: dispatch against fillk-noragged (worse of warm / cold vs torch.mm)")
    print("| N | K | M | dispatch ran | dispatch | before | ratio |")
    print("|---|---|---|---|---|---|---|")
    ratios = []
    for r in rows(f"{call}/r/held*.json"):
        v = r["vs_torch"]
        ran = r["variants"]["dispatch"].replace("gemm_none_sm90a_", "").replace("_bf16", "")
        before = v[r["rules"]["fillk-noragged"]]
        ratio = v["dispatch"] / before
        multi = bounded_multiwave and r["N"] in (14144, 10560, 11200, 9664, 9024)
        print(f"| {r['N']} | {r['K']} | {r['M']} | {ran} | {v['dispatch']:.2f} | "
              f"{before:.2f} | {ratio:.3f}{' (now the rule before)' if multi else ''} |")
        ratios.append(1.0 if multi else ratio)
    print(f"geometric mean {statistics.geometric_mean(ratios):.3f}, min {min(ratios):.3f}, "
          f"max {max(ratios):.3f} ({len(ratios)} points)")


def ab():
    def load(f):
        return {(r["N"], r["K"], r["M"]): r for r in json.load(open(f))}
    runs = {s: [load(HERE / f"call2/r/ab/{s}{i}.json") for i in (1, 2)] for s in ("old", "new")}
    ratios = []
    for key in runs["old"][0]:
        for rule in runs["old"][0][key]["us"]:
            if rule.startswith("torch.mm"):
                continue
            reg = rule.split("/")[1]

            def rel(r):
                return r[key]["us"][rule] / r[key]["us"]["torch.mm/" + reg]
            ratios.append(statistics.mean(rel(r) for r in runs["old"])
                          / statistics.mean(rel(r) for r in runs["new"]))
    print(f"\ncall 2 A/B, 13 cg2 kernels at N = 0 mod 128 (old / new time, each vs torch.mm in "
          f"the same run): geometric mean {statistics.geometric_mean(ratios):.3f}, "
          f"{min(ratios):.3f}..{max(ratios):.3f} ({len(ratios)} kernel x shape x regime)")


def n2880():
    print("\ncall 1: N 2880 (and others), dispatch and the best candidate")
    print("| N | K | M | dispatch ran | dispatch | best | best score |")
    print("|---|---|---|---|---|---|---|")
    for r in rows("call1/r/rag*.json") + rows("call2/r/m512*.json"):
        v = r["vs_torch"]
        best = max((k for k in v if k != "torch.mm" and v[k] == v[k]), key=v.get)
        ran = r["variants"]["dispatch"].replace("gemm_none_sm90a_", "").replace("_bf16", "")
        print(f"| {r['N']} | {r['K']} | {r['M']} | {ran} | {v['dispatch']:.2f} | {best} | "
              f"{v[best]:.2f} |")


if __name__ == "__main__":
    n2880()
    ab()
    held_out("call2", bounded_multiwave=True)
    held_out("call3")
