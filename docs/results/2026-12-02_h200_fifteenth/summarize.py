#!/usr/bin/env python3
"""Print this session's tables (BENCHMARKS.md, "One H200, 2026-12-02 (fifteenth session)") from
the calls' r.tgz: `python3 summarize.py [call1|call2|call3|call4|call5|all]`.

Each probe JSON is tools/probes/choice_ab.py's: per point the median us of every path (warm
weight), the rule names and the kernel the op's dispatch ran."""
from __future__ import annotations

import json
import math
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def probe(call: str, name: str = "r/probe.json") -> list[dict]:
    with tarfile.open(HERE / call / "r.tgz") as tar:
        return json.load(tar.extractfile(name))


def us_of(row: dict) -> dict[str, float]:
    return {k.split("/")[0]: v for k, v in row["us"].items()}


def ran(row: dict) -> str:
    v = row["variants"].get("dispatch", "")
    return v.replace("gemm_none_sm90a_", "").replace("_bf16", "")


def geo(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def call1() -> None:
    """Every fixed choice at 9 shapes x 6 M (the fit)."""
    print("| N | K | M | torch.mm us | tile 128 / 192 / 256 (x torch.mm) | splitkw 128 c2 / c4 | "
          "splitkw 64 c2 / c4 | splitkw pairs | best splitkw / best tile |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in probe("call1"):
        us = us_of(r)
        mm = us["torch.mm"]
        x = {k: mm / v for k, v in us.items()}
        tile = min(us[k] for k in us if k.startswith("tile"))
        kw = min(us[k] for k in us if k.startswith("splitkw"))
        pairs = -(-r["N"] // 128) * -(-r["M"] // 128)
        print(f"| {r['N']} | {r['K']} | {r['M']} | {mm:.1f} | {x['tile128c2']:.2f} / "
              f"{x['tile192c2']:.2f} / {x['tile256c2']:.2f} | {x['splitkw128c2']:.2f} / "
              f"{x['splitkw128c4']:.2f} | {x['splitkw64c2']:.2f} / {x['splitkw64c4']:.2f} | "
              f"{pairs} | {kw / tile:.2f} |")


def held_out(call: str) -> None:
    """The op's dispatch against the rule before (nosplitkw) and splitkw fixed."""
    rows = probe(call)
    print("| N | K | k-tiles | M | torch.mm us | dispatch (x torch.mm) | its kernel | rule before | "
          "splitkw c2 / c4 | dispatch speed-up |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ups, moved = [], []
    for r in rows:
        us = us_of(r)
        mm = us["torch.mm"]
        before = us[r["rules"]["nosplitkw"]]
        up = before / us["dispatch"]
        ups.append(up)
        if "splitkw" in ran(r):
            moved.append(up)
        print(f"| {r['N']} | {r['K']} | {-(-r['K'] // 64)} | {r['M']} | {mm:.1f} | "
              f"{mm / us['dispatch']:.2f} | {ran(r)} | {mm / before:.2f} "
              f"({r['rules']['nosplitkw']}) | {mm / us['splitkw128c2']:.2f} / "
              f"{mm / us['splitkw128c4']:.2f} | {up:.2f} |")
    print(f"\nall {len(ups)} points: geometric mean speed-up {geo(ups):.3f} "
          f"({min(ups):.2f}-{max(ups):.2f}); the {len(moved)} where dispatch ran splitkw: "
          f"{min(moved, default=float('nan')):.2f}-{max(moved, default=float('nan')):.2f}")


def call3_ragged() -> None:
    """Mode none at N no multiple of 64 (before the fill rule took such N)."""
    print("| N | K | M | torch.mm us | dispatch (x torch.mm) | its kernel |")
    print("|---|---|---|---|---|---|")
    for r in probe("call3", "r/probe_n8.json"):
        us = us_of(r)
        print(f"| {r['N']} | {r['K']} | {r['M']} | {us['torch.mm']:.1f} | "
              f"{us['torch.mm'] / us['dispatch']:.2f} | {ran(r)} |")


def call4() -> None:
    """The fill rule at N no multiple of 64: dispatch, the rule before, the best candidate."""
    print("| N | K | M | torch.mm us | dispatch (x torch.mm) | its kernel | rule before "
          "(nofill) | best candidate | dispatch / best |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in probe("call4"):
        us = us_of(r)
        mm = us["torch.mm"]
        best = min((v, k) for k, v in us.items() if k not in ("torch.mm", "dispatch"))
        before = r["rules"]["nofill"]
        print(f"| {r['N']} | {r['K']} | {r['M']} | {mm:.1f} | {mm / us['dispatch']:.2f} | "
              f"{ran(r)} | {mm / us[before]:.2f} ({before}) | {mm / best[0]:.2f} ({best[1]}) | "
              f"{best[0] / us['dispatch']:.2f} |")


def main(argv: list[str]) -> int:
    what = argv[1] if len(argv) > 1 else "all"
    parts = {"call1": call1, "call2": lambda: held_out("call2"),
             "call3": lambda: (held_out("call3"), print(), call3_ragged()), "call4": call4,
             "call5": lambda: held_out("call5")}
    for name, fn in parts.items():
        if what in (name, "all"):
            print(f"## {name}\n")
            fn()
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
