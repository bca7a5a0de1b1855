import json, sys, statistics
D = sys.argv[1]
def load(name):
    rows = json.load(open(f"{D}/{name}.json"))
    rows = rows["rows"] if isinstance(rows, dict) else rows
    out = {}
    for r in rows:
        f = r["fused"]
        out[(r["K"], r["M"])] = {"mm": r["torch_mm_us"], "mmc": r.get("torch_mm_cold_us"),
            **{k: (v.get("us"), v.get("us_cold")) for k, v in f.items() if "us" in v}}
    return out
for pat in ["b2b", "ew"]:
    print(f"=== {pat}: dispatch warm/cold us (ratio torch/ours, worse of two), per config, 2 reps")
    data = {c: [load(f"{pat}_{c}_{rep}") for rep in (1, 2)] for c in "A B C OFF".split()}
    keys = sorted(data["A"][0])
    print("   K     M  " + "  ".join(f"{c:>22}" for c in data))
    for k in keys:
        cells = []
        for c in data:
            rs = []
            for d in data[c]:
                e = d[k]; w, co = e["dispatch"]
                rs.append(min(e["mm"] / w, e["mmc"] / co))
            ws = [d[k]["dispatch"][0] for d in data[c]]
            cells.append(f"{statistics.mean(ws):5.1f}us {rs[0]:.2f}/{rs[1]:.2f}")
        print(f"{k[0]:5d} {k[1]:5d}  " + "  ".join(f"{x:>22}" for x in cells))
