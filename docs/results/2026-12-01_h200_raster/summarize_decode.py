"""Mode none as dispatched against torch.mm, M 16..512 (call5/: new vs old ABBA with the
2026-11-30 tables; call7/: new with ./tuning/): the worse of warm / cold per point."""
import json
from pathlib import Path

HERE = Path(__file__).parent


def worse_of_two(r):
    """The dispatch's worse ratio, from the two bench_decode stored per row."""
    return min(r["dispatch_vs_torch"], r["dispatch_cold_vs_torch"])


def summary(path):
    rows = json.loads(path.read_text())["rows"]
    v = sorted((worse_of_two(r), r["K"], r["M"]) for r in rows)
    low = ", ".join(f"{a:.3f} (K {k}, M {m})" for a, k, m in v[:3])
    return f"{len(v)} points, {sum(a < 0.9 for a, _, _ in v)} below 0.90x; lowest {low}; " \
           f"highest {v[-1][0]:.2f}"


for d, runs in (("call5", ("new1", "new2", "old1", "old2", "new_ew", "old_ew")),
                ("call7", ("b2b1", "b2b2", "ew"))):
    for s in runs:
        print(f"- `{d}/n_{s}`: {summary(HERE / d / f'n_{s}.json')}")
