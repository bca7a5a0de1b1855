"""The tables of BENCHMARKS.md's section on these runs (run here: python3 summarize.py).

Mode none: per (K, M), the dispatched variant of none_final.json (the tables in tuning/) timed
three times (none_final's dispatch and candidate columns, none_all's candidate column, each
warm and cold): the median of the three ratios torch.mm / ours per regime. Fused: vs best
unfused per (mode, K, M), cold (fused_cold.json) and warm (fused_warm.json)."""
import json
import statistics
from collections import defaultdict

sweep = {(r["K"], r["M"]): r for r in json.load(open("none_all.json"))["rows"]}
final = json.load(open("none_final.json"))["rows"]
med = {}
for r in final:
    key, f = (r["K"], r["M"]), r["fused"]
    variant = f["dispatch"]["variant"]
    w = [r["torch_mm_us"] / f["dispatch"]["us"]]
    c = [r["torch_mm_cold_us"] / f["dispatch"]["us_cold"]]
    for rr in (r, sweep[key]):
        for label, v in rr["fused"].items():
            if label != "dispatch" and v.get("variant") == variant:
                w.append(rr["torch_mm_us"] / v["us"])
                c.append(rr["torch_mm_cold_us"] / v["us_cold"])
    med[key] = (statistics.median(w), statistics.median(c), len(w))
Ms = sorted({m for _, m in med})
print("| K | regime | " + " | ".join(map(str, Ms)) + " |")
print("|---|---|" + "---|" * len(Ms))
for K in sorted({k for k, _ in med}):
    for i, regime in enumerate(("warm", "cold")):
        print(f"| {K} | {regime} | " + " | ".join(
            (f"**{med[(K, m)][i]:.2f}**" if med[(K, m)][i] < 0.9 else f"{med[(K, m)][i]:.2f}")
            for m in Ms) + " |")
print("measurements per point:", sorted({v[2] for v in med.values()}))
for name in ("fused_cold.json", "fused_warm.json"):
    t = defaultdict(dict)
    rows = json.load(open(name))["rows"]
    for r in rows:
        t[(r["mode"], r["K"])][r["M"]] = r["speedup"]
    Ms = sorted({r["M"] for r in rows})
    print(f"\n{name}\n| mode | K | " + " | ".join(map(str, Ms)) + " |")
    print("|---|---|" + "---|" * len(Ms))
    for (mode, K), v in sorted(t.items(), key=lambda kv: (kv[0][0] != "rs", kv[0][1])):
        print(f"| {mode} | {K} | " + " | ".join(f"{v[m]:.2f}" for m in Ms) + " |")
