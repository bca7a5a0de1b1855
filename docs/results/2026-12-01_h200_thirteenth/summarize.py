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


if __name__ == "__main__":
    widths_table()
    print()
    ab_table()
    print()
    ragged_table()
