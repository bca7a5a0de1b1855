#!/usr/bin/env python3
"""The tables of BENCHMARKS.md's fifth-session section from call 4's JSON (choice_ab.py, rules
`fill` = the wave-fill rule without splitk, `dispatch` = with splitk as call 4 ran it).

Call 4 ran the rule before its last refinement (clusters of 2 only up to M = 64); the committed
rule (dispatch.choose_none_by_fill with this H200's cluster slots) is applied here: where it
picks splitk, its number is call 4's `dispatch` (the same kernel and grid), elsewhere `fill`.

    python3 docs/results/2026-12-01_h200_splitk/summarize.py
"""
import glob
import gzip
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))
from codegen.runtime import dispatch  # noqa: E402

SLOTS = {2: 66, 4: 30}     # call 2: cuOccupancyMaxActiveClusters on this H200
FITTED = {(1024, 4096), (1536, 4096), (2048, 5632), (2560, 4096), (3072, 3072)}


def main() -> int:
    rows = []
    for f in sorted(glob.glob(str(HERE / "call4/r/v_*.json.gz"))):
        rows += json.load(gzip.open(f))
    rows.sort(key=lambda r: (r["N"], r["K"], r["M"]))
    print("| N | K | set | M | torch.mm (us) | fill rule | with splitk | kernel | speed-up |")
    print("|---|---|---|---|---|---|---|---|---|")
    gains, before, after = [], [], []
    for r in rows:
        N, K, M = r["N"], r["K"], r["M"]
        fill = r["vs_torch"][r["rules"]["fill"]]
        pick = dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512, K=K, cluster_slots=SLOTS)
        split = pick[0] == "splitk"
        now = r["vs_torch"]["dispatch"] if split else fill
        kernel = f"splitk{pick[1]}c{pick[2]}" if split else r["rules"]["fill"]
        before.append(fill)
        after.append(now)
        if split:
            gains.append(now / fill)
        mm = r["us"]["torch.mm/warm"]
        print(f"| {N} | {K} | {'fitted' if (N, K) in FITTED else 'held out'} | {M} | {mm:.1f} | "
              f"{fill:.2f}x | {now:.2f}x | {kernel} | {now / fill:.2f}x |")
    print(f"\n{len(rows)} points; splitk at {len(gains)}: speed-up {min(gains):.2f}x-"
          f"{max(gains):.2f}x (geometric mean "
          f"{statistics.geometric_mean(gains):.2f}x); torch.mm / ours median "
          f"{statistics.median(before):.2f}x -> {statistics.median(after):.2f}x, minimum "
          f"{min(before):.2f}x -> {min(after):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
