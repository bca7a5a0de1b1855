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


if __name__ == "__main__":
    widths_table()
