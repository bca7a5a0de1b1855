"""PDL on/off table of BENCHMARKS.md 2026-12-01 from the JSONs beside this file (python3 summarize.py)."""
import json
import os
import statistics

D = os.path.dirname(os.path.abspath(__file__))


def load(n):
    d = json.load(open(f"{D}/{n}.json"))
    rows = d["rows"] if isinstance(d, dict) else d
    return {(r["K"], r["M"]): (r["torch_mm_us"], r["torch_mm_cold_us"], r["fused"]["dispatch"]["us"],
                               r["fused"]["dispatch"]["us_cold"]) for r in rows}


for pat in ["b2b", "ew"]:
    on = [load(f"{pat}_ON_{i}") for i in (1, 2)]
    off = [load(f"{pat}_OFF_{i}") for i in (1, 2)]
    gains = []
    for k in sorted(on[0]):
        w_on, c_on = (statistics.mean(d[k][j] for d in on) for j in (2, 3))
        w_off, c_off = (statistics.mean(d[k][j] for d in off) for j in (2, 3))
        gains.append((w_off / w_on, c_off / c_on))
        print(pat, k, f"on {w_on:.1f}/{c_on:.1f} us, off {w_off:.1f}/{c_off:.1f} us")
    for j, reg in enumerate(("warm", "cold")):
        g = [x[j] for x in gains]
        print(f"{pat} {reg}: off/on median {statistics.median(g):.3f} min {min(g):.3f} max {max(g):.3f}")
