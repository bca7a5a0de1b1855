"""Old/new A/B table from alternating bench_multi_gpu JSON runs: old1 new1 old2 new2."""
import json, sys, statistics as st
d = sys.argv[1]
runs = {k: json.load(open(f"{d}/{k}.json")) for k in ("old1", "new1", "old2", "new2")}
key = lambda r: (r["mode"], r["K"], r["M"])
tab = {k: {key(r): r for r in v["rows"]} for k, v in runs.items()}
link = 373.0  # GB/s memcpy probe of the issue (T_link at this rate for context)
print("| mode | K | M | variant (new) | torch.mm | best unfused | old | new | new vs old | new vs best | T_phys (337 GB/s) | eff new |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for k in sorted(tab["new1"]):
    o = [tab[x][k]["fused_us"] for x in ("old1", "old2")]
    n = [tab[x][k]["fused_us"] for x in ("new1", "new2")]
    r = tab["new1"][k]
    best = min(tab[x][k]["best_unfused_us"] for x in ("new1", "new2", "old1", "old2"))
    gemm = statistics = st.median([tab[x][k]["gemm_us"] for x in tab])
    lb = r["link_bytes"] / 337e9 * 1e6
    phys = max(gemm, lb)
    on, nn = st.mean(o), st.mean(n)
    print(f"| {k[0]} | {k[1]} | {k[2]} | {r['variant'].split('_sm90a_')[1].replace('_bf16','')} | {gemm:.1f} | {best:.1f} | {o[0]:.1f}/{o[1]:.1f} | {n[0]:.1f}/{n[1]:.1f} | {100*(nn/on-1):+.1f}% | {best/nn:.2f}x | {phys:.1f} | {phys/nn:.2f} |")
