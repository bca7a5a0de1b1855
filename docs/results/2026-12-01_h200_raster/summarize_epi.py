"""The epilogue's share of the mode none tile kernels (call4/: real, no epilogue, no TMA store;
us, means of two runs each; TFLOP/s of the no-epilogue kernel as a sanity check: < 989)."""
import json
import statistics as st
from pathlib import Path

HERE = Path(__file__).parent / "call4"
d = {}
for s in ("real1", "real2", "noepi1", "noepi2", "nostore1", "nostore2"):
    for r in json.loads((HERE / f"e_{s}.json").read_text()):
        d.setdefault((r["K"], r["M"], r["bn"], r["cg"], s[:-1]), []).append(r["us"])
print("| K | M | BN | cg | kernel | no TMA store | no epilogue | epilogue share | "
      "no-epilogue TFLOP/s |")
print("|---|---|---|---|---|---|---|---|---|")
for k in sorted({k[:4] for k in d}):
    real, nost, noep = (st.mean(d[k + (s,)]) for s in ("real", "nostore", "noepi"))
    tf = 2 * k[1] * 7168 * k[0] / noep / 1e6
    print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {real:.1f} | {nost:.1f} | {noep:.1f} | "
          f"{(real - noep) / real * 100:.0f}% | {tf:.0f} |")
