"""Rows, tables, tuning rows and plots of tools/bench_multi_gpu.py (pure; imported, never run).

A row (one per mode, K, M) holds: gemm_us (torch.mm alone); baselines {name: us or None},
baseline_errors {name: why skipped}; fused_us and the dispatching op's launch (variant, bn,
cta_group, grid, fused_note when it fell back to the tile schedule); with a sweep, candidates
[{schedule, bn, cta_group, us or None, skipped?}]; link_gbps (the run's peer bandwidth, or None);
ours_gemm_us (our GEMM alone: mode none, the fused variant's schedule / BN / CTA group and SM
budget; None when not measured) with ours_gemm_variant, ours_gemm_grid, ours_gemm_relerr, or
ours_gemm_error.
:func:`summarize` adds best_unfused(_us), speedup (best unfused / fused), tuned {schedule, bn,
cta_group, us}, tuned_speedup, and the physical bound of tools/link_bound.py: link_bytes,
link_us (T_link), phys_us (T_phys = max(T_gemm, T_link)), phys_eff (T_phys / fused) and
tuned_phys_eff; and its time breakdown: gemm_eff (T_gemm / ours GEMM), exposed_us (fused -
max(ours GEMM, T_link)) and overlap (1 - exposed / min(ours GEMM, T_link), in [0, 1]).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

from baselines import best_baseline  # tools/ is the script's directory
from link_bound import breakdown_note, link_note, physical_bound, time_breakdown

from codegen.runtime.tuning import crossover_m


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def pick_fastest(cands: list[dict]) -> dict | None:
    """The candidate with the smallest finite `us` that was not skipped (None if none ran)."""
    ok = [c for c in cands if _finite(c.get("us")) and not c.get("skipped")]
    return min(ok, key=lambda c: c["us"]) if ok else None


def _ratio(num, den):
    return num / den if _finite(num) and _finite(den) and den > 0 else None


def summarize(row: dict) -> dict:
    """Add the best unfused path, fused vs best, the fastest swept candidate and the physical
    bound to `row`."""
    row["best_unfused"], row["best_unfused_us"] = best_baseline(row.get("baselines", {}))
    row["speedup"] = _ratio(row["best_unfused_us"], row.get("fused_us"))
    best = pick_fastest(row.get("candidates", []))
    row["tuned"] = ({k: best[k] for k in ("schedule", "bn", "cta_group", "us")}
                    if best else None)
    row["tuned_speedup"] = _ratio(row["best_unfused_us"], best["us"] if best else None)
    row.update(physical_bound(row))
    row.update(time_breakdown(row))
    return row


def tuning_rows(rows: list[dict], mode: str, K: int) -> list[dict]:
    """The rows of a tuning table (codegen.runtime.tuning) for (mode, K): every M whose sweep
    and best unfused path both have a time."""
    out = []
    for r in rows:
        if r["mode"] != mode or r["K"] != K or not r.get("tuned") or r.get("best_unfused") is None:
            continue
        t = r["tuned"]
        out.append({"M": r["M"], "schedule": t["schedule"], "bn": t["bn"],
                    "cta_group": t["cta_group"], "fused_us": t["us"],
                    "best_unfused_us": r["best_unfused_us"], "best_unfused": r["best_unfused"]})
    return out


def crossovers(rows: list[dict], tp: int) -> list[dict]:
    """Per (mode, K): the crossover M of the dispatching op and of the tuned choice."""
    out = []
    for mode, K in dict.fromkeys((r["mode"], r["K"]) for r in rows):
        mine = [r for r in rows if r["mode"] == mode and r["K"] == K]
        out.append({"tp": tp, "mode": mode, "K": K,
                    "crossover_M": crossover_m((r["M"], r["speedup"]) for r in mine
                                               if _finite(r.get("speedup"))),
                    "tuned_crossover_M": crossover_m((r["M"], r["tuned_speedup"]) for r in mine
                                                     if _finite(r.get("tuned_speedup")))})
    return out


def _us(v) -> str:
    return f"{v:.1f}" if _finite(v) else "-"


def _x(v) -> str:
    return f"{v:.2f}x" if _finite(v) else "-"


def _frac(v) -> str:
    return f"{v:.2f}" if _finite(v) else "-"


def _tuned(r: dict) -> str:
    t = r.get("tuned")
    return f"{_us(t['us'])} {t['schedule']} bn{t['bn']} cg{t['cta_group']}" if t else "-"


def cells(r: dict) -> list[str]:
    """mode, K, M, torch.mm, each baseline, best (which), fused, vs best, T_link, T_phys, eff,
    ours GEMM, gemm_eff, exposed, tuned, vs best, variant."""
    base = " ".join(f"{n}={_us(v)}" for n, v in r.get("baselines", {}).items())
    best = f"{_us(r.get('best_unfused_us'))} ({r.get('best_unfused') or 'none'})"
    variant = r.get("variant", "-") + (" [tile fallback]" if r.get("fused_note") else "")
    if r.get("error"):
        variant = f"error: {r['error'][:160]}"
    elif r.get("ours_gemm_error"):  # (a failed fused op leaves nothing to mirror: said above)
        variant += " [ours GEMM failed]"
    return [r["mode"], str(r["K"]), str(r["M"]), _us(r.get("gemm_us")), base, best,
            _us(r.get("fused_us")), _x(r.get("speedup")), _us(r.get("link_us")),
            _us(r.get("phys_us")), _frac(r.get("phys_eff")), _us(r.get("ours_gemm_us")),
            _frac(r.get("gemm_eff")), _us(r.get("exposed_us")), _tuned(r),
            _x(r.get("tuned_speedup")), variant]


HEADER = ["mode", "K", "M", "torch.mm (T_gemm)", "unfused (us)", "best unfused", "fused", "vs best",
          "T_link", "T_phys", "eff = T_phys/fused", "ours GEMM (us)", "gemm_eff", "exposed (us)",
          "tuned (config)", "vs best", "variant"]


#: Short names of some columns in the printed header (the printed line is narrow).
_SHORT = {"torch.mm (T_gemm)": "torch.mm", "eff = T_phys/fused": "eff", "ours GEMM (us)": "ours",
          "exposed (us)": "exposed"}


def text_line(r: dict | None = None) -> str:
    """One printed row (the header without `r`)."""
    c = cells(r) if r is not None else [_SHORT.get(h, h) for h in HEADER]
    return (f"{c[0]:>4} {c[1]:>5} {c[2]:>6} {c[3]:>8} {c[5]:>24} {c[6]:>7} {c[7]:>6} "
            f"{c[8]:>7} {c[9]:>7} {c[10]:>5} {c[11]:>7} {c[12]:>8} {c[13]:>7} {c[14]:>26} "
            f"{c[15]:>6}  {c[4]}  {c[16]}")


def markdown_table(rows: list[dict], cross: list[dict], meta: dict) -> str:
    """The rows and crossovers as Markdown (for BENCHMARKS.md)."""
    out = [f"TP{meta['tp']}, {meta['device']}, torch {meta['torch']}, NCCL NVLS off, symmetric "
           f"memory without multicast; us, slowest rank, median of {meta['replays']} graph "
           f"replays of {meta['iters']} calls. vs best = best unfused / fused. T_gemm = torch.mm "
           f"alone, in the same run. {link_note(meta.get('link'))} "
           f"{breakdown_note(meta.get('ours_gemm', True))}", "",
           "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for r in rows:
        out.append("| " + " | ".join(c.replace("|", "/") for c in cells(r)) + " |")
    skipped = sorted({f"{n}: {why}" for r in rows for n, why in r.get("baseline_errors", {}).items()})
    if skipped:
        out += ["", "Skipped baselines: " + "; ".join(s[:200] for s in skipped)]
    ours_failed = [f"{r['mode']} K={r['K']} M={r['M']}: {r['ours_gemm_error'][:200]}"
                   for r in rows if r.get("ours_gemm_error") and not r.get("error")]
    if ours_failed:
        out += ["", "ours GEMM not measured: " + "; ".join(ours_failed)]
    out += ["", "| mode | K | crossover M (dispatch) | crossover M (tuned) |", "|---|---|---|---|"]
    out += [f"| {c['mode']} | {c['K']} | {c['crossover_M']} | {c['tuned_crossover_M']} |" for c in cross]
    return "\n".join(out) + "\n"


def plot_png(rows: list[dict], path: Path, meta: dict) -> None:
    """Per mode: fused (and tuned) vs the best unfused path, and their times with the physical
    bound T_phys, vs M (lazy matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no PNG", file=sys.stderr)
        return
    modes = sorted({r["mode"] for r in rows})
    fig, axes = plt.subplots(2, len(modes), figsize=(6 * len(modes), 8), squeeze=False)
    for j, mode in enumerate(modes):
        for K in sorted({r["K"] for r in rows if r["mode"] == mode}):
            pts = [r for r in rows if r["mode"] == mode and r["K"] == K and _finite(r.get("speedup"))]
            ms = [r["M"] for r in pts]
            line = axes[0][j].plot(ms, [r["speedup"] for r in pts], marker="o", label=f"K={K}")[0]
            tuned = [(r["M"], r["tuned_speedup"]) for r in pts if _finite(r.get("tuned_speedup"))]
            if tuned:
                axes[0][j].plot(*zip(*tuned), linestyle="--", color=line.get_color(),
                                label=f"K={K} tuned")
            axes[1][j].plot(ms, [r["fused_us"] for r in pts], marker="o", color=line.get_color(),
                            label=f"K={K} fused")
            axes[1][j].plot(ms, [r["best_unfused_us"] for r in pts], linestyle=":",
                            color=line.get_color(), label=f"K={K} best unfused")
            ours = [(r["M"], r["ours_gemm_us"]) for r in pts if _finite(r.get("ours_gemm_us"))]
            if ours:
                axes[1][j].plot(*zip(*ours), linestyle="--", color=line.get_color(),
                                label=f"K={K} ours GEMM alone")
            bound = [(r["M"], r["phys_us"]) for r in pts if _finite(r.get("phys_us"))]
            if bound:
                axes[1][j].plot(*zip(*bound), linestyle="-.", color=line.get_color(),
                                label=f"K={K} T_phys = max(T_gemm, T_link)")
        for i, ylabel in enumerate(("best unfused / fused", "us")):
            ax = axes[i][j]
            ax.set_xscale("log", base=2)
            if i:
                ax.set_yscale("log")
            else:
                ax.axhline(1.0, color="grey", linestyle="--", linewidth=1)
            ax.set_xlabel("M")
            ax.set_ylabel(ylabel)
            ax.set_title(f"TP{meta['tp']} {mode.upper()}, N={meta.get('N', 7168)}")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")
