#!/usr/bin/env python3
"""rs/ar at an N no tile width divides: the rule's width (dispatch.choose_bn with the op's SM
budget and cluster) against every width timed at cta_group 2 in a fused_choice_ab.py JSON.

    python3 docs/results/2026-12-02_h200_fourteenth/rule_fit.py call1/r/ragged.json [...]
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from codegen.runtime import dispatch  # noqa: E402


def main(paths):
    worst = 1.0
    print("| mode | N | K | M | rule | best | best / rule (time) | the default then (best / it) |")
    print("|---|---|---|---|---|---|---|---|")
    for path in paths:
        for r in json.load(open(path)):
            if any(r["N"] % bn == 0 for bn in (128, 160, 192, 224, 256)):
                continue
            fixed = {int(k[4:7]): us for k, us in r["us"].items() if k.startswith("tile")
                     and k.endswith("c2")}
            pick = dispatch.choose_bn(r["M"], r["N"], None, r["sm_budget"], 2, r["mode"],
                                      "sm_90a")
            best = min(fixed, key=fixed.get)
            ratio = fixed[best] / fixed[pick] if pick in fixed else float("nan")
            worst = min(worst, ratio)
            then = r["ran"]["default"]["bn"]
            print(f"| {r['mode']} | {r['N']} | {r['K']} | {r['M']} | {pick} | {best} | "
                  f"{ratio:.2f} | {then} ({fixed[best] / r['us']['default']:.2f}) |")
    print(f"worst rule / best: {worst:.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
