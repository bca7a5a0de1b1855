"""Calls 9-12 on nvidia-h200-x2 as BENCHMARKS tables and one plot per issue (run on the CPU:
python3 summarize_x2.py). Decode rows: per (mode, K, M) the latest call's (K 2304 M 16/128 ran
in calls 9 and 12: both are printed); large-M rows: calls 10-11."""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2] / "tools"))
import bench_report  # noqa: E402

DECODE = ["call9/r/decode.json", "call10/r/decode768.json", "call11/r/decode768b.json",
          "call11/r/decode1536.json", "call12/r/decode2304.json"]
LARGE = ["call10/r/large.json", "call11/r/large2.json"]


def merged(files):
    rows, meta, seen = {}, None, []
    for f in files:
        doc = json.loads((HERE / f).read_text())
        meta = meta or doc
        for r in doc["rows"]:
            key = (r["mode"], r["K"], r["M"])
            if key in rows:
                seen.append((key, rows[key]["speedup"], r["speedup"], f))
            rows[key] = r
    return [rows[k] for k in sorted(rows)], meta, seen


for name, files in (("decode", DECODE), ("large", LARGE)):
    rows, meta, seen = merged(files)
    print(f"## {name}\n")
    print(bench_report.markdown_table(rows, bench_report.crossovers(rows, meta["tp"]), meta))
    for key, a, b, f in seen:
        print(f"repeated {key}: {a:.2f}x earlier, {b:.2f}x in {f}")
    bench_report.plot_png(rows, HERE / f"x2_{name}.png", meta)
