#!/usr/bin/env python3
"""Print the tables of BENCHMARKS.md's section "One H200, 2026-12-01 (tenth session)" from the
JSON under callN/r/ (choice_ab.py and ab_time.py output). Ratios are torch.mm / path; "worse"
is the worse of the warm-weight and cold-weight ratios, as the tables and rules use."""
from __future__ import annotations

import glob
import json
import math
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODEL_MS = (1, 16, 32, 64, 128, 256, 512)


def rows(pattern: str) -> list[dict]:
    out = []
    for f in sorted(glob.glob(str(HERE / pattern))):
        out += json.load(open(f))
    return out


def gmean(xs) -> float:
    xs = list(xs)
    return math.exp(sum(map(math.log, xs)) / len(xs))


def pick(v: dict, prefix: str) -> float:
    return next(x for k, x in v.items() if k.startswith(prefix))


def models(call: str) -> dict:
    t = {}
    for r in rows(f"{call}/r/models*.json"):
        us = r["us"]
        t[(r["N"], r["K"], r["M"])] = (r["vs_torch"]["dispatch"],
                                       us["torch.mm/warm"] / us["dispatch/warm"],
                                       us["torch.mm/cold"] / us["dispatch/cold"])
    return t


def survey() -> None:
    a, b = models("call1"), models("call5")
    print("## Model shapes, mode none dispatch vs torch.mm, worse of warm/cold: call 1 -> call 5")
    print("| N | K | " + " | ".join(f"M {m}" for m in MODEL_MS) + " |")
    print("|---|---|" + "---|" * len(MODEL_MS))
    for n, k in dict.fromkeys(key[:2] for key in a):
        cells = [f"{a[(n, k, m)][0]:.2f} -> {b[(n, k, m)][0]:.2f}" for m in MODEL_MS]
        print(f"| {n} | {k} | " + " | ".join(cells) + " |")
    for j, name in ((0, "worse"), (1, "warm"), (2, "cold")):
        xa, xb = [v[j] for v in a.values()], [v[j] for v in b.values()]
        print(f"{name}: geomean {gmean(xa):.3f} -> {gmean(xb):.3f}, below 0.90x "
              f"{sum(x < 0.9 for x in xa)} -> {sum(x < 0.9 for x in xb)} of {len(xa)}")


def ab() -> None:
    print("\n## Call 3: restored k-tile count (fix) vs HEAD e749cf3 (new), us, mean of 2 runs")
    for part in ("decode", "large"):
        data = defaultdict(lambda: defaultdict(list))
        for lab in ("new1", "new2", "fix1", "fix2"):
            for r in json.load(open(HERE / f"call3/r/{part}/{lab}.json")):
                us = r["us"]
                data[(r["N"], r["K"], r["M"])][lab[:3]].append(
                    (us.get("dispatch/warm", us.get("dispatch")), us.get("dispatch/cold"),
                     r["variants"]["dispatch"]))
        print("| N | K | M | kernel | warm new -> fix | cold new -> fix |")
        print("|---|---|---|---|---|---|")
        ratios = []
        for (n, k, m), v in data.items():
            mean = lambda side, i: sum(x[i] for x in v[side]) / len(v[side])  # noqa: E731
            kern = v["new"][0][2].replace("gemm_none_sm90a_", "").replace("_bf16", "")
            warm = f"{mean('new', 0):.1f} -> {mean('fix', 0):.1f}"
            ratios.append(mean("new", 0) / mean("fix", 0))
            cold = "-"
            if v["new"][0][1] is not None:
                cold = f"{mean('new', 1):.1f} -> {mean('fix', 1):.1f}"
                ratios.append(mean("new", 1) / mean("fix", 1))
            print(f"| {n} | {k} | {m} | {kern} | {warm} | {cold} |")
        print(f"{part}: new / fix geomean {gmean(ratios):.3f}, "
              f"{min(ratios):.3f}..{max(ratios):.3f}")


def split_table(pattern: str, title: str, n_max: int | None = None) -> None:
    t = defaultdict(dict)
    for r in rows(pattern):
        v = r["vs_torch"]
        t[(r["N"], r["K"])][r["M"]] = pick(v, "splitk") / pick(v, "swapab")
    ns = sorted({n for n, _ in t if n_max is None or n <= n_max})
    ks = sorted({k for _, k in t})
    ms = sorted({m for d in t.values() for m in d})
    print(f"\n## {title}: splitk (clusters of 2) / decode kernel, worse of warm and cold")
    for m in ms:
        print(f"M {m}: | N \\ K | " + " | ".join(map(str, ks)) + " |")
        for n in ns:
            print(f"| {n} | " + " | ".join(f"{t[(n, k)][m]:.2f}" for k in ks) + " |")


def bound_scan() -> None:
    pts = []
    for pattern, held in (("call4/r/fit_*.json", 0), ("call5/r/held_*.json", 1),
                          ("call6/r/held2_*.json", 2)):
        for r in rows(pattern):
            if r["N"] > 3584:
                continue
            v = r["vs_torch"]
            sw = pick(v, "swapab") if any(k.startswith("swapab") for k in v) else v["dispatch"]
            pts.append((r["K"], sw, pick(v, "splitk"), held))
    print("\n## The k-tile bound for clusters of 2: pick / better of the two (geomean, worst)")
    print("| bound | calls 4+5 | call 6 (held out for 36) | worst (4+5) |")
    print("|---|---|---|---|")
    for b in (25, 30, 32, 34, 36, 38, 40, 44):
        def rel(p):
            k, sw, sk, _ = p
            return (sk if -(-k // 64) >= b else sw) / max(sw, sk)
        fit = [rel(p) for p in pts if p[3] < 2]
        held = [rel(p) for p in pts if p[3] == 2]
        print(f"| {b} | {gmean(fit):.4f} | {gmean(held):.4f} | {min(fit):.3f} |")


def held_wide() -> None:
    q = [r["vs_torch"]["dispatch"] / pick(r["vs_torch"], "swapab")
         for r in rows("call8/r/held3_*.json")]
    print(f"\n## Call 8, held out (57..64 W tiles): dispatch (splitk) / decode kernel: "
          f"geomean {gmean(q):.3f}, {min(q):.2f}..{max(q):.2f} over {len(q)} points")


def band() -> None:
    print("\n## Issue 9's mode-none band (N 7168), call 5, worse of warm and cold")
    d = rows("call5/r/band.json")
    ms = sorted({r["M"] for r in d})
    print("| K | " + " | ".join(f"M {m}" for m in ms) + " |")
    for k in (768, 1536, 2304):
        by_m = {r["M"]: r["vs_torch"]["dispatch"] for r in d if r["K"] == k}
        print(f"| {k} | " + " | ".join(f"{by_m[m]:.2f}" for m in ms) + " |")


if __name__ == "__main__":
    survey()
    ab()
    split_table("call4/r/fit_*.json", "Call 4 (fit)")
    bound_scan()
    split_table("call7/r/wide_*.json", "Call 7 (57..64 W tiles)")
    held_wide()
    band()
