#!/usr/bin/env python3
"""Replay the committed swapabx rule (dispatch.choose_swapabx, H200 cluster slots {2: 66, 4: 30},
132 SMs) over calls 3 and 4, whose `dispatch` path ran the rule as it stood in each call (call 3:
more rounds of clusters allowed; call 4: one wave, without the small-N bound added after it). A
point the committed rule moves must be one where that call's dispatch ran the same kernel; the
others count at the `noswapabx` path. Run from the repository root:
    PYTHONPATH=. python3 docs/results/2026-12-02_h200_nineteenth/replay.py"""
import json
import math
import tarfile
from pathlib import Path

from codegen.runtime import dispatch

HERE = Path(__file__).resolve().parent
SLOTS = {2: 66, 4: 30}


def rows(call: str, names) -> list:
    with tarfile.open(HERE / call / "r.tgz") as tar:
        return [r for n in names for r in json.load(tar.extractfile(f"r/{n}.json"))]


def gmean(xs) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main() -> None:
    for call, names in (("call3", ("h1", "h2")), ("call4", ("g1", "g2"))):
        pts = []
        for r in rows(call, names):
            vt, before = r["vs_torch"], r["vs_torch"][r["rules"]["noswapabx"]]
            pick = dispatch.choose_swapabx(r["M"], r["N"], 132, SLOTS, True)
            if pick is not None:
                ran = r["variants"]["dispatch"]
                assert f"swapabx_bn{pick[1]}_cg{pick[2]}_" in ran, (call, r["N"], r["M"], ran)
            pts.append((r["N"], r["M"], vt["dispatch"] if pick else before, before, pick))
        moved = [p for p in pts if p[4]]
        ratios = sorted(p[2] / p[3] for p in moved)
        print(f"{call}: {len(pts)} points, {len(moved)} moved "
              f"({ratios[0]:.2f}x..{ratios[-1]:.2f}x, geometric mean {gmean(ratios):.3f}); "
              f"vs torch.mm {gmean([p[3] for p in pts]):.3f} -> {gmean([p[2] for p in pts]):.3f}; "
              f"below 0.9x {sum(p[3] < 0.9 for p in pts)} -> {sum(p[2] < 0.9 for p in pts)}")


if __name__ == "__main__":
    main()
