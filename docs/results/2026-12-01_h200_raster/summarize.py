"""Print the two A/B tables of BENCHMARKS.md "One H200, 2026-12-01 (second session)" from
call1/ (mode none, bench_decode.py) and call2/ (rs/ar on two virtual ranks, fused_ab.py)."""
import json
import statistics as st
from pathlib import Path

HERE = Path(__file__).parent


def none_table():
    d = {}
    for side in ("new", "old"):
        for rep in (1, 2):
            for r in json.loads((HERE / f"call1/{side}_{rep}.json").read_text())["rows"]:
                for k, v in r["fused"].items():
                    if "us" in v:
                        d.setdefault((r["K"], r["M"], k, side), []).append((v["us"], v["us_cold"]))
                d.setdefault((r["K"], r["M"], "torch", side), []).append(
                    (r["torch_mm_us"], r["torch_mm_cold_us"]))
    print("| K | M | torch.mm warm / cold | new dispatch warm / cold | old dispatch warm / cold "
          "| best candidate (worse of two) new / old | old / new |")
    print("|---|---|---|---|---|---|---|")
    for K, M in sorted({(k[0], k[1]) for k in d}):
        def m(lbl, side, i):
            return st.mean(x[i] for x in d[(K, M, lbl, side)])
        tw = st.mean([m("torch", s, 0) for s in ("new", "old")])
        tc = st.mean([m("torch", s, 1) for s in ("new", "old")])
        cands = {k[2] for k in d if k[:2] == (K, M) and k[2] not in ("torch", "dispatch")}
        bn = min(max(m(c, "new", 0), m(c, "new", 1)) for c in cands)
        bo = min(max(m(c, "old", 0), m(c, "old", 1)) for c in cands)
        print(f"| {K} | {M} | {tw:.1f} / {tc:.1f} | {m('dispatch', 'new', 0):.1f} / "
              f"{m('dispatch', 'new', 1):.1f} | {m('dispatch', 'old', 0):.1f} / "
              f"{m('dispatch', 'old', 1):.1f} | {bn:.1f} / {bo:.1f} | {bo / bn:.3f} |")


def fused_table():
    d = {}
    for s in ("new1", "new2", "old1", "old2"):
        for r in json.loads((HERE / f"call2/f_{s}.json").read_text()):
            d.setdefault((r["mode"], r["K"], r["M"], s[:3]), []).append(r["us"])
            d[(r["mode"], r["K"], r["M"], "cfg")] = r["config"]
    print("| mode | K | M | BN, cg | new (2 runs) | old (2 runs) | old / new |")
    print("|---|---|---|---|---|---|---|")
    for k in sorted({k[:3] for k in d}):
        n, o = d[k + ("new",)], d[k + ("old",)]
        print(f"| {k[0]} | {k[1]} | {k[2]} | {d[k + ('cfg',)]} | {n[0]:.1f}, {n[1]:.1f} | "
              f"{o[0]:.1f}, {o[1]:.1f} | {st.mean(o) / st.mean(n):.3f} |")


if __name__ == "__main__":
    none_table()
    print()
    fused_table()
