#!/usr/bin/env python3
"""Print the seventeenth session's tables from the calls' r.tgz (one H200, 2026-12-02).

    PYTHONPATH=<checkout> python3 summarize.py [call1|...|call8|all]

ab: new (cache_gpu) against old (cache_old) for every fixed kernel timed on both sides (median
of the two runs of each side); old / new > 1: the new kernel is faster. ks: the K sweep."""
from __future__ import annotations

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


def worse(p: dict, path: str) -> float | None:
    """torch.mm time / the path's, the worse of the point's regimes."""
    vals = [p["us"][f"torch.mm/{r}"] / p["us"][f"{path}/{r}"] for r in p["regimes"]
            if f"{path}/{r}" in p["us"]]
    return min(vals) if vals else None


def rules_table(files: dict[str, bytes]) -> None:
    """Calls 2-3: each probe's rules at each point (x torch.mm, worse of warm and cold); with
    `bounds16`, new (dispatch) / old (bounds16) where the kernel moved."""
    import re
    moved = []
    for name, data in sorted(files.items()):
        if not (name.endswith(".json") and name.count("/") == 1 and "/ks_" not in name):
            continue
        rows = json.loads(data)
        print(f"\n{name}: N K (k-tiles) M | " + " | ".join(rows[0]["rules"]))
        for p in rows:
            cells = []
            for rule, path in p["rules"].items():
                r = worse(p, path)
                cells.append(f"{rule} {path if path != 'dispatch' else p['variants'].get('dispatch', '?').replace('gemm_none_sm90a_', '').replace('_bf16', '')} "
                             + ("-" if r is None else f"{r:.2f}"))
            line = f"| {p['N']} | {p['K']} ({(p['K'] + 63) // 64}) | {p['M']} | " + " | ".join(cells)
            if "bounds16" in p["rules"]:
                new, old = worse(p, p["rules"]["dispatch"]), worse(p, p["rules"]["bounds16"])
                m = re.match(r"(tile|swapab|splitkw|splitk)(\d+)c(\d)", p["rules"]["bounds16"])
                oname = ((("" if m.group(1) == "tile" else m.group(1) + "_") + f"bn{m.group(2)}_cg{m.group(3)}")
                         if m else "?")
                nname = p["variants"].get("dispatch", "").replace("gemm_none_sm90a_", "").replace("_bf16", "")
                if new and old and oname != nname:
                    moved.append(new / old)
                    line += f" | moved: {new / old:.2f}"
            print(line + " |")
    if moved:
        print(f"moved {len(moved)}: new / old geometric mean {statistics.geometric_mean(moved):.3f}, "
              f"{min(moved):.2f}-{max(moved):.2f}")


def probe_files(files: dict[str, bytes], rule: str):
    """(name, rows) of each probe JSON at the top of r/ whose points timed `rule`."""
    for name, data in sorted(files.items()):
        if name.endswith(".json") and name.count("/") == 1:
            rows = json.loads(data)
            if rule in rows[0]["rules"]:
                yield name, rows


def spread_table(files: dict[str, bytes]) -> None:
    """Calls 4-5: the spread clause as committed against the clause before it (clusters of 2
    only, after the one-token-tile choice, from 44 k-tiles), both computed here from dispatch.py
    (H200 slots {2: 66, 4: 30}, 132 SMs) and timed through the call's fixed kernels (the
    dispatch as run, splitk128c2 / splitk128c4, bounds16). Needs PYTHONPATH at the checkout."""
    import re
    from codegen.runtime import dispatch

    def pick(p, before):
        saved = (dispatch.SPLITK_SPREAD_MIN_K_TILES, dispatch.SPLITK_SPREAD_FIRST_KS)
        if before:
            dispatch.SPLITK_SPREAD_MIN_K_TILES, dispatch.SPLITK_SPREAD_FIRST_KS = 44, None
        try:
            s, b, g = dispatch.choose_none_by_fill(p["M"], p["N"], "sm_90a", 132, 512, K=p["K"],
                                                   cluster_slots={2: 66, 4: 30})
        finally:
            dispatch.SPLITK_SPREAD_MIN_K_TILES, dispatch.SPLITK_SPREAD_FIRST_KS = saved
        return ("" if s == "tile" else s + "_") + f"bn{b}_cg{g}"

    for name, rows in probe_files(files, "splitk128c2"):
        moved = []
        print(f"\n{name}: N K (k-tiles) M | clause before | as committed | moved")
        for p in rows:
            times = {"splitk_bn128_cg2": worse(p, "splitk128c2"),
                     "splitk_bn128_cg4": worse(p, "splitk128c4")}
            ran = p["variants"].get("dispatch", "").replace("gemm_none_sm90a_", "").replace("_bf16", "")
            times[ran] = worse(p, "dispatch")
            if "bounds16" in p["rules"]:
                m = re.match(r"(tile|swapab|splitkw|splitk)(\d+)c(\d)", p["rules"]["bounds16"])
                times[("" if m.group(1) == "tile" else m.group(1) + "_") + f"bn{m.group(2)}_cg{m.group(3)}"] = \
                    worse(p, p["rules"]["bounds16"])
            old, new = pick(p, True), pick(p, False)
            if old == new:
                continue
            o, n = times.get(old), times.get(new)
            cell = f"{n / o:.2f}" if o and n else "not timed"
            if o and n:
                moved.append(n / o)
            print(f"| {p['N']} | {p['K']} ({(p['K'] + 63) // 64}) | {p['M']} | {old} "
                  f"{o if o is None else round(o, 2)} | {new} {n if n is None else round(n, 2)} | {cell} |")
        if moved:
            print(f"moved {len(moved)}: geometric mean {statistics.geometric_mean(moved):.3f}, "
                  f"{min(moved):.2f}-{max(moved):.2f}")


def fused_ab_table(files: dict[str, bytes]) -> None:
    """Call 6 B: rs / ar splitk kernels on virtual ranks (TP 2), new against old (median of the
    two runs of each side)."""
    sides: dict[str, dict] = {}
    for name, data in files.items():
        parts = name.split("/")
        if len(parts) == 3 and parts[1] == "abf" and name.endswith(".json"):
            side = parts[2].rstrip("0123456789.json")
            for p in json.loads(data):
                for path, us in p["us"].items():
                    sides.setdefault(side, {}).setdefault(
                        (p["mode"], p["N"], p["K"], p["M"], path), []).append(us)
    if set(sides) != {"new", "old"}:
        return
    print("\nabf: mode N K M | kernel | old us | new us | old/new")
    ratios = []
    for key in sorted(sides["new"]):
        o, n = statistics.median(sides["old"][key]), statistics.median(sides["new"][key])
        ratios.append(o / n)
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {key[4]} | {o:.1f} | {n:.1f} | {o / n:.3f} |")
    print(f"{len(ratios)} points: geometric mean {statistics.geometric_mean(ratios):.3f}, "
          f"{min(ratios):.3f}-{max(ratios):.3f}")


def width_table(files: dict[str, bytes]) -> None:
    """Call 8: mode none's tile width, the wave rule over the dividing widths (before) and over
    every width (as committed), both computed here from dispatch.choose_bn (132 CTAs, clusters
    of 2), timed through the call's fixed widths. Needs PYTHONPATH at the checkout."""
    from codegen.runtime import dispatch

    for name, rows in probe_files(files, "tile224c2"):
        moved = []
        print(f"\n{name}: N K M | tile 128 / 160 / 192 / 224 / 256 (x torch.mm) | before | now | now / before")
        for p in rows:
            N, M = p["N"], p["M"]
            vt = p["vs_torch"]
            now = dispatch.choose_bn(M, N, ctas=132, cluster=2, mode="none", arch="sm_90a")
            # before: the same wave rule over the sm_90a widths dividing N
            exact = [b for b in (128, 160, 192, 224, 256) if N % b == 0]
            before = min(exact, key=lambda b: (-(-dispatch.gemm_tiles(M, N, b, 2) // 132) * b * (
                dispatch.BN_WIDE_CREDIT if b > dispatch.MIN_BN else 1.0), -b))
            r = vt[f"tile{now}c2"] / vt[f"tile{before}c2"]
            if now != before:
                moved.append(r)
            cells = " / ".join(f"{vt[f'tile{b}c2']:.2f}" for b in (128, 160, 192, 224, 256))
            print(f"| {N} | {p['K']} | {M} | {cells} | {before} | {now} | {r:.2f} |")
        if moved:
            print(f"moved {len(moved)}: geometric mean {statistics.geometric_mean(moved):.3f}, "
                  f"{min(moved):.2f}-{max(moved):.2f}")


def main(which: str) -> None:
    calls = sorted(p.name for p in HERE.iterdir() if (p / "r.tgz").exists())
    for call in calls if which == "all" else [which]:
        print(f"==== {call}")
        files = members(call)
        for sub in ("abk", "abkw", "ab"):
            ab_table(files, sub)
        ks_table(files)
        if call in ("call2", "call3", "call6"):
            rules_table(files)
        fused_ab_table(files)
        if call in ("call4", "call5"):
            spread_table(files)
        if call == "call8":
            width_table(files)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "all")
