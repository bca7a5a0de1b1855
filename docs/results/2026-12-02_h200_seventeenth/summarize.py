#!/usr/bin/env python3
"""Print the seventeenth session's tables from the calls' r.tgz (one H200, 2026-12-02).

    python3 summarize.py [call1|...|all]

ab: new (cache_gpu) against old (cache_old) for every fixed kernel timed on both sides (median
of the two runs of each side); old / new > 1: the new kernel is faster. ks: the K sweep."""
from __future__ import annotations

import io
import json
import statistics
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def members(call: str) -> dict[str, bytes]:
    with tarfile.open(HERE / call / "r.tgz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def ab_table(files: dict[str, bytes], sub: str) -> None:
    sides: dict[str, list[dict]] = {}
    for name, data in files.items():
        parts = name.split("/")
        if len(parts) == 3 and parts[1] == sub and name.endswith(".json"):
            side = parts[2].rstrip("0123456789.json")
            sides.setdefault(side, []).append({(p["N"], p["K"], p["M"]): p["us"]
                                               for p in json.loads(data)})
    if set(sides) != {"new", "old"}:
        return
    def med(side, key, path):
        vals = [run[key][path] for run in sides[side] if key in run and path in run[key]]
        return statistics.median(vals) if vals else None
    print(f"\n{sub}: N K M | kernel | old us | new us | old/new | torch.mm us")
    ratios = []
    for key in sorted(sides["new"][0]):
        for path in sorted(sides["new"][0][key]):
            if path.startswith("torch.mm") or path.startswith("dispatch"):
                continue
            o, n = med("old", key, path), med("new", key, path)
            if o is None or n is None:
                continue
            ratios.append(o / n)
            print(f"| {key[0]} | {key[1]} | {key[2]} | {path.split('/')[0]} | {o:.2f} | {n:.2f} | "
                  f"{o / n:.3f} | {med('new', key, 'torch.mm/warm'):.2f} |")
    if ratios:
        g = statistics.geometric_mean(ratios)
        print(f"{len(ratios)} points: old/new geometric mean {g:.3f}, {min(ratios):.3f}-{max(ratios):.3f}")


def ks_table(files: dict[str, bytes]) -> None:
    rows = []
    for name, data in sorted(files.items()):
        if "/ks_k" in name and name.endswith(".json"):
            for p in json.loads(data):
                rows.append((p["K"], p["M"], p["us"]))
    if not rows:
        return
    print("\nks: K M | kernel us ...")
    for K, M, us in sorted(rows):
        print(f"| {K} | {M} | " + " | ".join(f"{k.split('/')[0]} {v:.2f}" for k, v in sorted(us.items())))


def main(which: str) -> None:
    calls = sorted(p.name for p in HERE.iterdir() if (p / "r.tgz").exists())
    for call in calls if which == "all" else [which]:
        print(f"==== {call}")
        files = members(call)
        for sub in ("abk", "abkw", "ab"):
            ab_table(files, sub)
        ks_table(files)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "all")
