#!/usr/bin/env python3
"""Summarise a streamk sweep (host only): per point torch.mm, the dispatch, tile256c1/c2 and
streamk256c1/c2 (the worse of warm and cold weights, us), streamk over tile256 of the same
cta_group, the best of the two streamk over the dispatch, and the tile kernel's waves (128 x
256 tiles, in clusters of cta_group, on 132 SMs); then geometric means.

    python3 docs/results/2026-12-03_h200_thirtieth/summ_streamk.py CALL_DIR:STEM [...]
"""
import json
import math
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load(spec: str) -> list[dict]:
    if ":" in spec:                       # callN:stem -> callN/r.tgz's r/stem.json
        call, stem = spec.split(":", 1)
        with tarfile.open(HERE / call / "r.tgz") as tar:
            return json.load(tar.extractfile(f"r/{stem}.json"))
    return json.loads(Path(spec).read_text())


def worse(us: dict, name: str) -> float | None:
    v = [us[name + s] for s in ("/warm", "/cold") if name + s in us]
    return max(v) if v else None


def geo(xs) -> float:
    xs = [x for x in xs if x]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main() -> None:
    ratios = {1: [], 2: []}
    over_dispatch, vs_torch = [], []
    for spec in sys.argv[1:]:
        print(spec)
        print("     N      K     M  torch  dispatch  tile c1  sk c1  x    tile c2  sk c2  x   "
              "waves c1/c2  best sk / dispatch")
        for r in load(spec):
            us, (N, K, M) = r["us"], (r["N"], r["K"], r["M"])
            torch_us = min(v for k, v in us.items() if k.startswith("torch.mm"))
            d = worse(us, "dispatch")
            cols, sk_best = [], None
            for cg in (1, 2):
                t, s = worse(us, f"tile256c{cg}"), worse(us, f"streamk256c{cg}")
                x = t / s if t and s else None
                if x:
                    ratios[cg].append(x)
                sk_best = s if sk_best is None or (s and s < sk_best) else sk_best
                cols.append(f"{t or 0:7.1f} {s or 0:7.1f} {x or 0:4.2f}")
            waves = [math.ceil(math.ceil(M / 128) / cg) * math.ceil(N / 256) / (132 // cg)
                     for cg in (1, 2)]
            over_dispatch.append(d / sk_best)
            vs_torch.append(torch_us / sk_best)
            print(f"{N:6d} {K:6d} {M:5d} {torch_us:6.1f} {d:8.1f}  {cols[0]}   {cols[1]}   "
                  f"{waves[0]:4.2f}/{waves[1]:4.2f}  {d / sk_best:5.2f}")
    print(f"streamk / tile256 (same cta_group): c1 {geo(ratios[1]):.3f}, c2 {geo(ratios[2]):.3f}; "
          f"best streamk: {geo(vs_torch):.3f}x torch.mm, {geo(over_dispatch):.3f}x the dispatch, "
          f"faster than the dispatch at {sum(x > 1 for x in over_dispatch)} of "
          f"{len(over_dispatch)}")


if __name__ == "__main__":
    main()
