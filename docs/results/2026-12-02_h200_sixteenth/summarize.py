#!/usr/bin/env python3
"""Print this session's tables (BENCHMARKS.md, "One H200, 2026-12-02 (sixteenth session)") from
the calls' r.tgz: `python3 summarize.py [call1|call2|call3|call4|all]`.

call1: tools/ab_time.py runs of tools/probes/choice_ab.py (new / old cache roots alternating,
two runs each); call2 / call3: one choice_ab.py JSON each (per point the median us of every
path, the rule names and the kernel the op's dispatch ran; call3 warm and cold weight); call4:
three such JSONs (fit.json / held.json: splitk with clusters of 2 at M 65..128; kwcold.json:
the fifteenth session's splitkw rule, warm and cold)."""
from __future__ import annotations

import json
import math
import statistics
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load(call: str, name: str) -> list[dict]:
    with tarfile.open(HERE / call / "r.tgz") as tar:
        return json.load(tar.extractfile(name))


def geo(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def short(variant: str) -> str:
    return variant.replace("gemm_none_sm90a_", "").replace("_bf16", "")


def call1() -> None:
    """The batched handoff: old / new kernel time per fixed choice (median of two runs each)."""
    for probe in ("abkw", "abk"):
        runs = {side: [load("call1", f"r/{probe}/{side}{i}.json") for i in (1, 2)]
                for side in ("new", "old")}
        print("| N | K | M | kernel: old us -> new us (old / new) |")
        print("|---|---|---|---|")
        ratios = []
        for idx, row in enumerate(runs["new"][0]):
            cells = []
            for key in (k for k in row["us"] if not k.startswith("torch")):
                new = statistics.median(r[idx]["us"][key] for r in runs["new"])
                old = statistics.median(r[idx]["us"][key] for r in runs["old"])
                ratios.append(old / new)
                cells.append(f"{key.split('/')[0]} {old:.1f} -> {new:.1f} ({old / new:.3f})")
            print(f"| {row['N']} | {row['K']} | {row['M']} | {'; '.join(cells)} |")
        print(f"\n{probe}: {len(ratios)} kernel points, old / new geometric mean "
              f"{geo(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})\n")


def _rule_rows(call: str, regime: str) -> list[float]:
    """Print one table row per point; returns the dispatch speed-ups where it moved (another
    kernel than the rule before)."""
    speedups = []
    for r in load(call, "r/probe.json"):
        us = {k: v for k, v in r["us"].items()}
        key = lambda path: f"{path}/{regime}"   # noqa: E731
        mm, disp = us[key("torch.mm")], us[key("dispatch")]
        before_path = r["rules"]["noraggedsplitk"]
        before = us[key(before_path)]
        fixed = {k.split("/")[0] for k in us} - {"torch.mm", "dispatch", before_path}
        best = min([disp, before] + [us[key(p)] for p in fixed])
        if r["variants"].get("dispatch") != r["variants"].get(before_path):
            speedups.append(before / disp)
        print(f"| {r['N']} | {r['K']} | {r['M']} | {mm:.1f} | {mm / disp:.2f} | "
              f"{short(r['variants'].get('dispatch', ''))} | {mm / before:.2f} ({before_path}) | "
              f"{best / disp:.2f} | {before / disp:.2f} |")
    return speedups


def call2() -> None:
    """Splitk past N: the op's dispatch against the rule before, at 9 N no multiple of 64."""
    print("| N | K | M | torch.mm us | dispatch (x torch.mm) | its kernel | rule before | "
          "best path / dispatch | dispatch speed-up |")
    print("|---|---|---|---|---|---|---|---|---|")
    s = _rule_rows("call2", "warm")
    print(f"\nthe {len(s)} points where the dispatch moved: geometric mean speed-up {geo(s):.3f} "
          f"({min(s):.2f}-{max(s):.2f})")


def call3() -> None:
    """The same held out at 6 new shapes, warm and cold weight."""
    for regime in ("warm", "cold"):
        print(f"\n{regime} weight:\n")
        print("| N | K | M | torch.mm us | dispatch (x torch.mm) | its kernel | rule before | "
              "best path / dispatch | dispatch speed-up |")
        print("|---|---|---|---|---|---|---|---|---|")
        s = _rule_rows("call3", regime)
        print(f"\n{regime}: the {len(s)} points where the dispatch moved, geometric mean "
              f"speed-up {geo(s):.3f} ({min(s):.2f}-{max(s):.2f})")


def call4() -> None:
    """Clusters of 2 at M 65..128 (fit set, held-out set) and the splitkw rule cold."""
    for name in ("fit", "held"):
        print(f"\n{name} set (dispatch time / splitk c2 time, > 1: splitk faster; the worse of "
              f"warm and cold):\n")
        print("| N | K | k-tiles | M | the dispatch's kernel | warm | cold | worse |")
        print("|---|---|---|---|---|---|---|---|")
        for r in load("call4", f"r/{name}.json"):
            gain = {reg: r["us"][f"dispatch/{reg}"] / r["us"][f"splitk128c2/{reg}"]
                    for reg in ("warm", "cold")}
            print(f"| {r['N']} | {r['K']} | {-(-r['K'] // 64)} | {r['M']} | "
                  f"{short(r['variants']['dispatch'])} | {gain['warm']:.2f} | {gain['cold']:.2f} | "
                  f"{min(gain.values()):.2f} |")
    print("\nthe splitkw rule (fifteenth session) against the rule before it (nosplitkw):\n")
    print("| N | K | M | dispatch's kernel | rule before | speed-up warm | speed-up cold |")
    print("|---|---|---|---|---|---|---|")
    for r in load("call4", "r/kwcold.json"):
        before = r["rules"]["nosplitkw"]
        gain = {reg: r["us"][f"{before}/{reg}"] / r["us"][f"dispatch/{reg}"]
                for reg in ("warm", "cold")}
        print(f"| {r['N']} | {r['K']} | {r['M']} | {short(r['variants']['dispatch'])} | {before} | "
              f"{gain['warm']:.2f} | {gain['cold']:.2f} |")


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    for name, fn in (("call1", call1), ("call2", call2), ("call3", call3), ("call4", call4)):
        if which in (name, "all"):
            print(f"## {name}\n")
            fn()
            print()
