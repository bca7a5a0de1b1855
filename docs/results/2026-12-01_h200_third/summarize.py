"""Print this directory's A/B tables (new / old, mean of the two runs of each side, ABBA order)
and the as-dispatched mode-none rows. argv: a call directory and a file prefix (f, n, e)."""
import collections
import json
import sys
from pathlib import Path

call, prefix = Path(sys.argv[1]), sys.argv[2]
sides = {"new": ("new1", "new2")}
sides["old"] = ("cur1", "cur2") if (call / f"{prefix}_cur1.json").exists() else ("old1", "old2")
t = collections.defaultdict(dict)
err = 0.0
for s in sides["new"] + sides["old"]:
    for r in json.loads((call / f"{prefix}_{s}.json").read_text()):
        t[(r.get("mode", "none"), r["K"], r["M"], r["bn"], r["cg"])][s] = r["us"]
        err = max(err, r.get("max_abs_err", 0.0))
print(f"| mode | K | M | BN x cg | new (us) | old (us) | new vs old |   (max abs err {err:.3g})")
print("|---|---|---|---|---|---|---|")
for k, v in sorted(t.items()):
    n = sum(v[s] for s in sides["new"]) / 2
    o = sum(v[s] for s in sides["old"]) / 2
    print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]}x{k[4]} | {n:.1f} | {o:.1f} | {(n / o - 1) * 100:+.1f}% |")
