#!/usr/bin/env python3
"""Print BENCHMARKS.md's tables of the fourteenth session (section "One H200, 2026-12-02").

    python3 docs/results/2026-12-02_h200_fourteenth/summarize.py
"""
import json
import math
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import extra_widths_fit  # noqa: E402
import rule_fit  # noqa: E402


def ab_table(call: str) -> None:
    """old (375628f) / new tile kernels, tools/ab_time.py A B B A: the mean of each side's runs."""
    runs = {}
    for f in sorted((HERE / call / "r" / "ab").glob("*.json")):
        side = f.stem.rstrip("0123456789")
        for r in json.loads(f.read_text()):
            for choice, us in r["us"].items():
                key = (r["mode"], r["N"], r["K"], r["M"], choice)
                runs.setdefault(key, {}).setdefault(side, []).append(us)
    print(f"\n{call}: old / new tile kernels (us, mean of 2 runs each)\n")
    print("| mode | N | K | M | kernel | old us | new us | new / old |")
    print("|---|---|---|---|---|---|---|---|")
    ratios = []
    for (mode, N, K, M, choice), sides in sorted(runs.items()):
        old, new = statistics.mean(sides["old"]), statistics.mean(sides["new"])
        ratios.append(new / old)
        print(f"| {mode} | {N} | {K} | {M} | {choice} | {old:.1f} | {new:.1f} | {new / old:.3f} |")
    gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"\ngeometric mean new / old {gm:.3f} ({min(ratios):.3f}-{max(ratios):.3f})")


def main() -> None:
    ab_table("call1")
    ab_table("call2")
    print("\ncall 1: the widths at N no width divides (fitted)\n")
    rule_fit.main([str(HERE / "call1" / "r" / "ragged.json")])
    print("\ncall 2: held out (N 1472 / 3008 / 6208, and M 600)\n")
    rule_fit.main([str(HERE / "call2" / "r" / "heldout.json")])
    print("\ncall 4: the extra widths where BNS divides N too (fit)\n")
    extra_widths_fit.main([str(HERE / "call4" / "r" / "fit.json")])
    print("\ncall 4: held out (N 2560 / 7680 / 12288)\n")
    extra_widths_fit.main([str(HERE / "call4" / "r" / "heldout.json")])


if __name__ == "__main__":
    main()
