"""Print the thirteenth session's tables (BENCHMARKS.md, "One H200, 2026-12-01 (thirteenth
session)") from the call directories beside this file."""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def widths_table(call="call1"):
    """rs/ar at N 2880 (two virtual ranks): the four extra-width kernels, and us per output
    column against BN 128 at N 2944 (the default there) in the same call."""
    rows = json.loads((HERE / call / "r" / "w2880.json").read_text())
    ref = {(r["mode"], r["K"], r["M"]): r["us"]["default"]
           for r in json.loads((HERE / call / "r" / "w2944.json").read_text())}
    print("| mode | K | M | 160 cg1 | 160 cg2 | 192 cg1 | 192 cg2 | best 192 / best 160 | "
          "192 cg2 per column / N 2944 BN 128 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        us = r["us"]
        b160 = min(us["tile160c1"], us["tile160c2"])
        b192 = min(us["tile192c1"], us["tile192c2"])
        col = (us["tile192c2"] / 2880) / (ref[(r["mode"], r["K"], r["M"])] / 2944)
        print(f"| {r['mode']} | {r['K']} | {r['M']} | {us['tile160c1']:.1f} | "
              f"{us['tile160c2']:.1f} | {us['tile192c1']:.1f} | {us['tile192c2']:.1f} | "
              f"{b192 / b160:.2f} | {col:.2f} |")


def ab_table(call="call2"):
    """Old (floor(N / BN) tiles) against new (ceil) mode-none tile kernels where BN divides N:
    median of the two runs of each side, old / new (> 1: new faster)."""
    import glob
    import math
    import statistics
    d = {}
    for f in sorted(glob.glob(str(HERE / call / "r" / "ab" / "*.json"))):
        side = Path(f).name[:3]
        for r in json.loads(Path(f).read_text()):
            for k, v in r["us"].items():
                d.setdefault((r["N"], r["K"], r["M"], k.split("/")[0]), {}).setdefault(side, []).append(v)
    print("| N | K | M | kernel | old us | new us | old / new |")
    print("|---|---|---|---|---|---|---|")
    rat = []
    for (N, K, M, k), v in sorted(d.items()):
        o, n = statistics.median(v["old"]), statistics.median(v["new"])
        if k != "torch.mm":
            rat.append(o / n)
        print(f"| {N} | {K} | {M} | {k} | {o:.1f} | {n:.1f} | {o / n:.3f} |")
    print(f"geometric mean (kernels) {math.exp(sum(map(math.log, rat)) / len(rat)):.3f}, "
          f"{min(rat):.3f}-{max(rat):.3f}")


def ragged_table(call="call2"):
    """Mode none past the decode rows at N no width divides (and N 2880 for reference): torch.mm
    / ours, worse of warm and cold weight, per rule; the dispatch's kernel."""
    print("| N | K | M | torch.mm us | dispatch | (its kernel) | tile128c2 | tile192c2 | tile256c2 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in ("ragged", "ref2880"):
        for r in json.loads((HERE / call / "r" / f"{name}.json").read_text()):
            v = r["vs_torch"]
            t = max(r["us"]["torch.mm/warm"], r["us"]["torch.mm/cold"])
            k = r["variants"]["dispatch"].split("sm90a_")[1].replace("_bf16", "")
            cells = " | ".join(f"{v[c]:.2f}" if c in v else "" for c in
                               ("tile128c2", "tile192c2", "tile256c2"))
            print(f"| {r['N']} | {r['K']} | {r['M']} | {t:.1f} | {v['dispatch']:.2f} | {k} | {cells} |")


def host_table(calls=("call3", "call4")):
    """Host us per eager call, old runtime (1de4e8e^1) against new, per process; the ratio to
    torch.mm in the same process (the processes differ by up to 2x)."""
    import glob
    import statistics
    print("| M | runtime | processes | mode none us (median, range) | / torch.mm (median, range) "
          "| rs run_all us (median) |")
    print("|---|---|---|---|---|---|")
    rows = {}
    for call in calls:
        for f in sorted(glob.glob(str(HERE / call / "r" / "host_*.json"))):
            for r in json.loads(Path(f).read_text()):
                rows.setdefault((r["M"], r["label"][:3]), []).append(r)
    for (M, side), v in sorted(rows.items()):
        none = [x["none"] for x in v]
        rat = [x["none"] / x["mm"] for x in v]
        rs = [x["rs_run_all"] for x in v]
        print(f"| {M} | {side} | {len(v)} | {statistics.median(none):.1f} ({min(none):.1f}-"
              f"{max(none):.1f}) | {statistics.median(rat):.2f} ({min(rat):.2f}-{max(rat):.2f}) "
              f"| {statistics.median(rs):.0f} |")


def past512_table(call="call3"):
    """Mode none at M 513..1024 (small N), the decode schedules allowed past 512 rows (probe
    only): torch.mm / ours per fixed choice, warm weight; the dispatch is the tile schedule."""
    rows = json.loads((HERE / call / "r" / "past512.json").read_text())
    rules = [k for k in rows[0]["vs_torch"] if k != "torch.mm"]
    print("| N | K | M | torch.mm us | " + " | ".join(rules) + " |")
    print("|---|---|---|---|" + "---|" * len(rules))
    for r in rows:
        v = r["vs_torch"]
        print(f"| {r['N']} | {r['K']} | {r['M']} | {r['us']['torch.mm/warm']:.1f} | "
              + " | ".join(f"{v[c]:.2f}" for c in rules) + " |")


if __name__ == "__main__":
    widths_table()
    print()
    ab_table()
    print()
    ragged_table()
    print()
    host_table()
    print()
    past512_table()
