#!/usr/bin/env python3
"""Print the tables of BENCHMARKS.md's section "One H200, 2026-12-01 (eleventh session)" from
the JSON the device calls left (callN/r/*.json, written by tools/probes/choice_ab.py). Each
ratio is torch.mm / ours, the worse of warm and cold weights (> 1: ours faster)."""
import glob
import json
import math
from pathlib import Path

HERE = Path(__file__).resolve().parent


def rows(pattern):
    out = []
    for f in sorted(glob.glob(str(HERE / pattern))):
        out += json.load(open(f))
    return out


def short(v):
    return (v or "-").replace("gemm_none_sm90a_", "").replace("_bf16", "")


def ab_table(title, pattern, new="dispatch", old=None):
    print(f"## {title}")
    head = "| N | K | M | torch.mm warm (us) | old pick | old | new pick | new | new / old |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    gains = []
    for r in rows(pattern):
        v = r["vs_torch"]
        o = r["rules"].get(old) if old else None
        ov = v.get(o) if o else None
        nv = v.get(new)
        g = nv / ov if (ov and nv) else None
        if g:
            gains.append(g)
        print(f"| {r['N']} | {r['K']} | {r['M']} | {r['us']['torch.mm/warm']:.1f} | "
              f"{o or '-'} | {'%.2f' % ov if ov else 'refused'} | {short(r['variants'].get(new))} | "
              f"{nv:.2f} | {'%.3f' % g if g else '-'} |")
    if gains:
        gm = math.exp(sum(map(math.log, gains)) / len(gains))
        print(f"new / old: geomean {gm:.3f}, {min(gains):.3f}..{max(gains):.3f} ({len(gains)} points)")
    print()


def cands_table(title, pattern, top=4):
    print(f"## {title}")
    print("| N | K | M | torch.mm warm (us) | dispatch | best candidates (torch.mm / ours) |")
    print("|---|---|---|---|---|---|")
    for r in rows(pattern):
        v = {k: x for k, x in r["vs_torch"].items() if k != "torch.mm"}
        best = sorted(((x, k) for k, x in v.items() if k != "dispatch"), reverse=True)[:top]
        d = v.get("dispatch")
        print(f"| {r['N']} | {r['K']} | {r['M']} | {r['us']['torch.mm/warm']:.1f} | "
              f"{short(r['variants'].get('dispatch'))} {'%.2f' % d if d else 'refused'} | "
              + ", ".join(f"{k} {x:.2f}" for x, k in best) + " |")
    print()


if __name__ == "__main__":
    cands_table("Call 1: every candidate at the weak model points (before)", "call1/r/*.json")
    cands_table("Call 2: prototype tile 160 / 192 (fixed) with every candidate", "call2/r/*.json", top=5)
    ab_table("Call 3 (a): M <= 512, the fill rule with / without 160 / 192", "call3/r/small*.json",
             old="fillk-bns")
    ab_table("Call 3 (b): M > 512 held out (seed 20261215), choose_bn with / without",
             "call3/r/big*.json", old="rules")
    ab_table("Call 3 (b'): N no old width divides (refused past 512 rows before)",
             "call3/r/new*.json")
    ab_table("Call 4: model shapes at N 5120, M 512 (fill rule) with / without",
             "call4/r/m512.json", old="fillk-bns")
    ab_table("Call 4: model shapes at N 5120, M 1024..4096 (choose_bn) with / without",
             "call4/r/m1k*.json", old="rules")
    ab_table("Call 4: N 2880 (gpt-oss) past 512 rows (refused before)", "call4/r/g2880.json")
