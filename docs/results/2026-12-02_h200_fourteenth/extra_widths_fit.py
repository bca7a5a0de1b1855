#!/usr/bin/env python3
"""rs/ar where 160 / 192 and a width of BNS divide N: the rule now (dispatch.choose_bn: the wave
rule over every dividing width) against the BNS-only rule it replaced, each as the time of the
best dividing width over the time of its pick, from a fused_choice_ab.py JSON (call 4). The
table lists the points where the two rules pick differently; the summary covers every point.

    python3 docs/results/2026-12-02_h200_fourteenth/extra_widths_fit.py call4/r/fit.json
"""
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from codegen.runtime import dispatch  # noqa: E402


def main(paths):
    got = {"new": [], "bns": []}
    print("| mode | N | K | M | best | BNS rule | best / it | new rule | best / it |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        for r in json.load(open(path)):
            fixed = {int(k[4:7]): us for k, us in r["us"].items()
                     if k.startswith("tile") and r["N"] % int(k[4:7]) == 0}
            best = min(fixed, key=fixed.get)
            new = dispatch.choose_bn(r["M"], r["N"], None, r["sm_budget"], 2, r["mode"], "sm_90a")
            # the BNS-only rule (before): choose_bn with no arch weighs BNS only
            bns = dispatch.choose_bn(r["M"], r["N"], None, r["sm_budget"], 2, r["mode"], None)
            a, b = fixed[best] / fixed[bns], fixed[best] / fixed[new]
            got["bns"].append(a)
            got["new"].append(b)
            if new != bns:
                print(f"| {r['mode']} | {r['N']} | {r['K']} | {r['M']} | {best} | {bns} | "
                      f"{a:.2f} | {new} | {b:.2f} |")
    for k, v in got.items():
        gm = math.exp(sum(map(math.log, v)) / len(v))
        print(f"\n{k} rule, all {len(v)} points: geometric mean {gm:.3f}, worst {min(v):.3f}",
              end="")
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
