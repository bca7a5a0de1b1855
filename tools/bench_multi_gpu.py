#!/usr/bin/env python3
"""Multi-GPU benchmark (issue 4): fused GEMM + RS / AR vs torch.mm + NCCL, one process per GPU.

    PYTHONPATH=. torchrun --nproc-per-node 8 tools/bench_multi_gpu.py \
        --json out/bench_tp8.json --png out/bench_tp8.png --md out/bench_tp8.md

Per (mode, K, M), all in one run (NCCL with NVLS off, as on our machines):
  T_fused  the fused kernel (GemmRsAr over SymmMemGroup, unicast transport)
  T_base   torch.mm into a bf16 buffer, then dist.all_reduce (AR) or dist.reduce_scatter_tensor
           (RS, M padded with zero rows to a multiple of tp)
  T_gemm   the torch.mm alone;  T_coll  the collective alone (same buffer)
  bound    (T_gemm + T_coll) / max(T_gemm, T_coll): the speed-up perfect overlap could give
  frac     max(T_gemm, T_coll) / T_fused: how close fused gets to that bound (1.0 = reached)
Timing: `--iters` calls captured in one CUDA graph, `--warmup` replays, median of `--replays`
replays / iters, per rank; the reported time is the slowest rank's (all_reduce MAX).
Crossover M per (mode, K): the smallest M from which fused is never slower than T_base.

Not a test: it asserts nothing about speed. It refuses to run when the environment enables
multicast (see codegen/runtime/symm_env.py) unless --allow-multicast (never on our machines).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from graph_timing import graph_time_us  # noqa: E402  (tools/ is the script's directory)

MS = [1 << i for i in range(4, 16)]  # 16 .. 32768
KS = [768, 1536, 2304]


def _ints(text: str) -> list[int]:
    return [int(v) for v in text.split(",") if v]


def parse_args(argv=None):
    from codegen.runtime.symm_env import ALLOW_FLAG_HELP

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modes", default="rs,ar")
    ap.add_argument("--ms", type=_ints, default=MS)
    ap.add_argument("--ks", type=_ints, default=KS, help="K per rank")
    ap.add_argument("--n", type=int, default=7168)
    ap.add_argument("--bn", type=int, default=None, help="fix BN (default: dispatch)")
    ap.add_argument("--cta-group", type=int, default=None, help="fix the CTA group (default: dispatch)")
    ap.add_argument("--iters", type=int, default=10, help="calls per captured graph")
    ap.add_argument("--replays", type=int, default=50, help="timed replays (median taken)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed replays")
    ap.add_argument("--timeout-ms", type=int, default=2000)
    ap.add_argument("--sm-margin", type=int, default=0)
    ap.add_argument("--symm-backend", default=None)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--png", type=Path, default=None)
    ap.add_argument("--md", type=Path, default=None, help="write the table as Markdown")
    ap.add_argument("--allow-multicast", action="store_true", help=ALLOW_FLAG_HELP)
    return ap.parse_args(argv)


def overlap_metrics(t_gemm: float, t_coll: float, t_base: float, t_fused: float) -> dict:
    """The bound (T_gemm + T_coll) / max(...), fused's fraction of it, and the speed-up."""
    bound_time = max(t_gemm, t_coll)
    return {"bound_ratio": (t_gemm + t_coll) / bound_time, "bound_us": bound_time,
            "frac_of_bound": bound_time / t_fused, "speedup": t_base / t_fused}


def crossover_m(points: list[tuple[int, float]]) -> int | None:
    """Smallest M from which fused is never slower (speed-up >= 1 for it and every larger M);
    `points` = [(M, speedup)]. None when fused loses at the largest M."""
    best = None
    for M, s in sorted(points, reverse=True):
        if s < 1.0:
            break
        best = M
    return best


def main(argv=None) -> int:
    args = parse_args(argv)
    from codegen.runtime.symm_env import run_torchrun

    return run_torchrun(lambda torch, dist, device: _bench(args, torch, dist, device),
                        args.allow_multicast, None)


def _bench(args, torch, dist, device) -> int:
    from codegen.runtime import GemmRsAr
    from codegen.contract import chunk as chunk_of
    from codegen.runtime.symm_group import SymmMemGroup

    rank, tp, N = dist.get_rank(), dist.get_world_size(), args.n
    props = torch.cuda.get_device_properties(device)
    say = (lambda s: print(s, flush=True)) if rank == 0 else (lambda s: None)
    say(f"tp={tp} {props.name} {props.multi_processor_count} SMs torch {torch.__version__} "
        f"NCCL {torch.cuda.nccl.version()} N={N} iters={args.iters} "
        f"replays={args.replays}; NCCL_NVLS_ENABLE={os.environ.get('NCCL_NVLS_ENABLE')}")
    header = (f"{'tp':>2} {'mode':>4} {'K':>5} {'M':>6} {'gemm':>8} {'coll':>8} {'base':>8} "
              f"{'fused':>8} {'speedup':>7} {'bound':>5} {'frac':>5} {'relerr':>7}  variant")
    rows, t_start = [], time.time()

    def rand(shape):
        return (torch.randn(shape, device=device) * 0.1).to(torch.bfloat16)

    def slowest(values: list[float]) -> list[float]:
        t = torch.tensor(values, dtype=torch.float64, device=device)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return t.tolist()

    max_M = max(args.ms)
    for mode in args.modes.split(","):
        group = SymmMemGroup(max_M, N, mode, sm_margin=args.sm_margin,
                             allow_multicast=args.allow_multicast, backend=args.symm_backend)
        say(f"\n{mode}: symm backend {group.symm_backend}, multicast {group.multicast_note}")
        say(header)
        for K in args.ks:
            op = GemmRsAr(max_M, N, K, mode, group, bn=args.bn, cta_group=args.cta_group,
                          timeout_ms=args.timeout_ms)
            w = rand((N, K))
            for M in args.ms:
                row = {"tp": tp, "mode": mode, "K": K, "M": M, "N": N}
                err = None
                try:
                    x = rand((M, K))
                    rows_p = chunk_of(M, tp) * tp if mode == "rs" else M
                    part = torch.zeros(rows_p, N, dtype=torch.bfloat16, device=device)  # pad rows 0
                    part_m = part[:M]
                    out_rs = torch.empty(chunk_of(M, tp), N, dtype=torch.bfloat16, device=device)
                    out_f = torch.empty(op.out_shape(M), dtype=torch.bfloat16, device=device)

                    def gemm():
                        torch.mm(x, w.t(), out=part_m)

                    def coll():
                        if mode == "ar":
                            dist.all_reduce(part)
                        else:
                            dist.reduce_scatter_tensor(out_rs, part)

                    def base():
                        gemm()
                        coll()

                    def fused():
                        op(rank, x, w, out=out_f)

                    times = {}
                    for name, fn in (("gemm", gemm), ("coll", coll), ("base", base), ("fused", fused)):
                        dist.barrier(device_ids=[device.index])
                        times[name] = graph_time_us(fn, args.iters, args.replays, args.warmup)
                    op.synchronize()  # a kernel time-out surfaces here, as this row's error
                    # sanity: fused vs the baseline's result (eager, fresh)
                    base()
                    fused()
                    op.synchronize()
                    ref = (part_m if mode == "ar" else out_rs).float()
                    relerr = float((out_f.float() - ref).norm() / ref.norm().clamp_min(1e-30))
                    t_gemm, t_coll, t_base, t_fused = slowest(
                        [times["gemm"], times["coll"], times["base"], times["fused"]])
                    row.update(gemm_us=t_gemm, coll_us=t_coll, base_us=t_base, fused_us=t_fused,
                               relerr=relerr, **overlap_metrics(t_gemm, t_coll, t_base, t_fused),
                               **op.last_launch[rank])
                except Exception as exc:  # noqa: BLE001 - one bad row must not end the run
                    err = f"{type(exc).__name__}: {exc}"
                errs: list = [None] * tp
                dist.all_gather_object(errs, err)
                bad = [f"rank {r}: {e}" for r, e in enumerate(errs) if e]
                if bad:
                    row["error"] = " | ".join(bad)
                    say(f"{tp:>2} {mode:>4} {K:>5} {M:>6}  ERROR {row['error'][:300]}")
                    op.reset_errors()
                    group.reset_state()
                else:
                    say(f"{tp:>2} {mode:>4} {K:>5} {M:>6} {row['gemm_us']:>8.1f} {row['coll_us']:>8.1f} "
                        f"{row['base_us']:>8.1f} {row['fused_us']:>8.1f} {row['speedup']:>7.2f} "
                        f"{row['bound_ratio']:>5.2f} {row['frac_of_bound']:>5.2f} {row['relerr']:>7.1e}  "
                        f"{row['variant']} grid={row['grid']}")
                rows.append(row)
        op = group = None  # drop the symmetric buffers before the next mode allocates
        torch.cuda.synchronize(device)
        torch.cuda.empty_cache()

    crossovers = []
    for mode in args.modes.split(","):
        for K in args.ks:
            pts = [(r["M"], r["speedup"]) for r in rows
                   if r["mode"] == mode and r["K"] == K and "speedup" in r]
            crossovers.append({"tp": tp, "mode": mode, "K": K, "crossover_M": crossover_m(pts)})
    say("\ncrossover M (smallest M from which fused is never slower than torch.mm + NCCL):")
    for c in crossovers:
        say(f"  tp={tp} {c['mode']} K={c['K']}: {c['crossover_M']}")
    say(f"{len(rows)} rows in {time.time() - t_start:.0f} s")
    if rank == 0:
        meta = {"tp": tp, "device": props.name, "sms": props.multi_processor_count,
                "torch": torch.__version__, "iters": args.iters, "replays": args.replays,
                "nccl_nvls_enable": os.environ.get("NCCL_NVLS_ENABLE")}
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps({**meta, "rows": rows, "crossovers": crossovers}, indent=1))
            print(f"wrote {args.json}")
        if args.md:
            args.md.parent.mkdir(parents=True, exist_ok=True)
            args.md.write_text(markdown_table(rows, crossovers, meta))
            print(f"wrote {args.md}")
        if args.png:
            plot_png(rows, args.png, meta)
    return 0 if not any("error" in r for r in rows) else 1


def markdown_table(rows: list[dict], crossovers: list[dict], meta: dict) -> str:
    """The rows and crossovers as Markdown (for BENCHMARKS.md)."""
    out = [f"TP{meta['tp']}, {meta['device']}, torch {meta['torch']}, NCCL NVLS off; µs, "
           f"slowest rank, median of {meta['replays']} graph replays of {meta['iters']} calls.", "",
           "| mode | K | M | torch.mm | NCCL | mm+NCCL | fused | speed-up | bound | frac of bound |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['mode']} | {r['K']} | {r['M']} | error | | | | | | |")
            continue
        out.append(f"| {r['mode']} | {r['K']} | {r['M']} | {r['gemm_us']:.1f} | {r['coll_us']:.1f} | "
                   f"{r['base_us']:.1f} | {r['fused_us']:.1f} | {r['speedup']:.2f} | "
                   f"{r['bound_ratio']:.2f} | {r['frac_of_bound']:.2f} |")
    out += ["", "| mode | K | crossover M |", "|---|---|---|"]
    out += [f"| {c['mode']} | {c['K']} | {c['crossover_M']} |" for c in crossovers]
    return "\n".join(out) + "\n"


def plot_png(rows: list[dict], path: Path, meta: dict) -> None:
    """Speed-up and fraction of the overlap bound vs M, one column per mode (matplotlib, lazy)."""
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
            pts = [r for r in rows if r["mode"] == mode and r["K"] == K and "speedup" in r]
            ms = [r["M"] for r in pts]
            axes[0][j].plot(ms, [r["speedup"] for r in pts], marker="o", label=f"K={K}")
            axes[1][j].plot(ms, [r["frac_of_bound"] for r in pts], marker="o", label=f"K={K}")
        for i, ylabel in enumerate(("speed-up vs torch.mm + NCCL", "fraction of overlap bound")):
            ax = axes[i][j]
            ax.set_xscale("log", base=2)
            ax.axhline(1.0 if i == 0 else 0.9, color="grey", linestyle="--", linewidth=1)
            ax.set_xlabel("M")
            ax.set_ylabel(ylabel)
            ax.set_title(f"TP{meta['tp']} {mode.upper()}, N=7168")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
