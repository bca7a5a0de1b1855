#!/usr/bin/env python3
"""The eighth session's tables from the calls' JSON (BENCHMARKS.md, "One H200, 2026-12-01
(eighth session)"). Ratios are torch.mm / path, the worse of warm and cold weights."""
import glob
import json
import math
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load(pattern):
    out = []
    for f in sorted(glob.glob(str(HERE / pattern))):
        out += json.loads(Path(f).read_text())
    return sorted(out, key=lambda r: (r["N"], r["K"], r["M"]))


def short(name):
    return name.replace("gemm_none_sm90a_", "").replace("_bf16", "")


def survey():
    rows = load("call1/r/s_*.json")
    vs = [r["vs_torch"]["dispatch"] for r in rows]
    print(f"call 1: {len(rows)} model points, geomean "
          f"{math.exp(statistics.mean(map(math.log, vs))):.3f}, below 0.92x:")
    for r in rows:
        if r["vs_torch"]["dispatch"] < 0.92:
            print(f"  N {r['N']} K {r['K']} M {r['M']}: {r['vs_torch']['dispatch']:.2f} "
                  f"{short(r['variants']['dispatch'])}")


def ragged():
    us = {(r["N"], r["K"], r["M"]): r for r in load("call2/r/s_*.json")}
    print("call 2: dispatch us (warm / cold) at ragged K and the multiples of 64 beside it")
    for n, ks in ((8192, (3648, 3696, 3712)), (8192, (7392, 7424)), (4096, (1000, 1024)),
                  (2048, (4104, 4096))):
        for m in (1, 16, 64, 128, 256, 512, 2048):
            cells = []
            for k in ks:
                r = us[(n, k, m)]
                cells.append(f"K {k}: {r['us']['dispatch/warm']:.1f}/{r['us']['dispatch/cold']:.1f}")
            print(f"  N {n} M {m}: " + "  ".join(cells))


def splitk_bound():
    for pattern, title in (("call5/r/f_*.json", "call 5 fit"), ("call5/r/h_*.json", "call 5 held out")):
        print(f"{title}: splitk-c2 / dispatch")
        for r in load(pattern):
            v = r["vs_torch"]
            print(f"  N {r['N']} K {r['K']} M {r['M']}: "
                  f"{v[r['rules']['splitk-c2']] / v['dispatch']:.2f}x")
    print("call 6: the new dispatch / the old pick")
    for r in load("call6/r/s_*.json"):
        v = r["vs_torch"]
        old = "swapab16c1" if r["M"] <= 16 else "swapab64c1"
        print(f"  N {r['N']} K {r['K']} M {r['M']}: {v['dispatch'] / v[old]:.2f}x "
              f"({short(r['variants']['dispatch'])})")


if __name__ == "__main__":
    survey()
    ragged()
    splitk_bound()
