#!/usr/bin/env python3
"""Summarise a choice_ab sweep (host only): per point the dispatch and the best candidate against
torch.mm (the worse of warm and cold, torch.mm / ours) and the dispatch's share of the best, then
the geometric means per M and per region, and the points below a threshold.

    python3 docs/results/2026-12-03_h200_twentysixth/summ.py FILE.json|CALL_DIR:STEM [--below 0.9]
"""
import argparse
import json
import math
import tarfile
from collections import defaultdict
from pathlib import Path


def load(spec: str) -> list[dict]:
    if ":" in spec:                       # callN:stem -> callN/r.tgz's r/stem.json
        call, stem = spec.split(":", 1)
        with tarfile.open(Path(__file__).resolve().parent / call / "r.tgz") as tar:
            return json.load(tar.extractfile(f"r/{stem}.json"))
    return json.loads(Path(spec).read_text())


def geo(xs) -> float:
    xs = list(xs)
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def region(r: dict) -> str:
    n, k = r["N"], r["K"]
    lines = "on" if k % 64 == 0 else "off"
    size = "N<2048" if n < 2048 else ("N<6144" if n < 6144 else "N>=6144")
    return f"{size} rows {lines}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("spec")
    ap.add_argument("--below", type=float, default=0.9)
    a = ap.parse_args()
    rows = load(a.spec)
    per_m, per_reg = defaultdict(list), defaultdict(list)
    lows = []
    for r in rows:
        vt = r["vs_torch"]
        cands = {k: v for k, v in vt.items() if k not in ("torch.mm", "dispatch")}
        best = max(cands.items(), key=lambda kv: kv[1]) if cands else ("dispatch", vt["dispatch"])
        best_v = max(best[1], vt["dispatch"])
        share = vt["dispatch"] / best_v
        t = (r, vt["dispatch"], best, share)
        per_m[r["M"]].append(t)
        per_reg[region(r)].append(t)
        if vt["dispatch"] < a.below or share < 0.95:
            lows.append(t)
    for title, groups in (("per M", per_m), ("per region", per_reg)):
        print(title)
        for key in sorted(groups):
            ts = groups[key]
            print(f"  {key!s:>20}: n {len(ts):3d}  dispatch {geo(t[1] for t in ts):.3f}x torch.mm  "
                  f">=0.9x {sum(t[1] >= 0.9 for t in ts):3d}  of best {geo(t[3] for t in ts):.3f}  "
                  f">=0.95 of best {sum(t[3] >= 0.95 for t in ts):3d}  best {geo(max(t[2][1], t[1]) for t in ts):.3f}x")
    allt = [t for ts in per_m.values() for t in ts]
    print(f"all {len(allt)}: dispatch {geo(t[1] for t in allt):.3f}x torch.mm, >= 0.9x at "
          f"{sum(t[1] >= 0.9 for t in allt)}, of best {geo(t[3] for t in allt):.3f}, >= 0.95 of best at "
          f"{sum(t[3] >= 0.95 for t in allt)}")
    print(f"below {a.below}x torch.mm or < 0.95 of the best:")
    for r, d, (bname, bv), share in sorted(lows, key=lambda t: (t[0]["N"], t[0]["K"], t[0]["M"])):
        print(f"  N {r['N']:5d} K {r['K']:5d} M {r['M']:4d}: dispatch {d:.2f}x "
              f"({r['variants']['dispatch'].replace('gemm_none_sm90a_', '')})  best {bname} {bv:.2f}x  "
              f"share {share:.3f}")


if __name__ == "__main__":
    main()
