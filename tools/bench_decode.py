#!/usr/bin/env python3
"""Decode sizes on one GPU: mode none of each schedule against torch.mm (a script, not a test).

For every K and M (default M 16..512, K 768/1536/2304, N 7168) it times torch.mm, the op's own
dispatch (the tuning table of the cache root, if any: the unbiased number) and every candidate
the tuning sweep tries (codegen.runtime.tuning.candidates: the tile schedule at each BN and CTA
group, the swapab schedule at each token tile), by CUDA-graph replay (tools/graph_timing.py),
and prints a table: dispatch and best candidate, each against torch.mm. `--json PATH` writes
every row; `--tune-out ROOT` writes mode none's tuning tables (ROOT/tuning/, read by GemmRsAr's
dispatch) from the best candidates. `--cold-weights` cycles every timed path through copies of W
that together exceed the L2 twice (graph_timing.weight_copies): each call then streams W from
HBM, as in a model whose other layers' weights pass through the L2 in between; without it a
W of up to ~40 MB stays L2-resident across replays. `--both-regimes` times every path both ways
(warm first: a row's `us` / `torch_mm_us`; cold: `us_cold` / `torch_mm_cold_us`) and the best
candidate, the one a table takes, is the one whose worse ratio to torch.mm of the two is highest.
torch.mm and every path of a row are timed in `--rounds` rounds, each in a fresh random order,
and the medians kept (a fixed order let the GPU's clock rank close paths by when they ran).
Every candidate's result is checked against torch.mm's first: one off by more than
baselines.MAX_RELERR is recorded as wrong (its `error`) and never picked.

    PYTHONPATH=. python3 tools/bench_decode.py --json out/decode_none.json
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from codegen import env  # noqa: E402
from codegen.contract import ARCH_OF_CAPABILITY  # noqa: E402
from codegen.runtime import CacheMissError, DriverError, GemmRsAr  # noqa: E402
from codegen.runtime.tuning import candidates as sweep_candidates  # noqa: E402
from codegen.runtime.tuning import table_path, write_table  # noqa: E402
from baselines import MAX_RELERR, relerr  # noqa: E402  (tools/ is the script's directory)
from arg_types import ints  # noqa: E402  (tools/ is on sys.path)
from graph_timing import after_elementwise, interleaved_medians, rotating, weight_copies, weight_of  # noqa: E402



def candidates(M: int, N: int, K: int | None = None) -> list[tuple[str, int | None, int | None]]:
    """(schedule, bn, cta_group) to time at M: every candidate of the tuning sweep (the tile
    schedule at each width that serves N (tuning.candidates) and each CTA group, the swapab
    token tiles; given K, the splitk ones too)."""
    return list(sweep_candidates(M, N, mode="none", K=K))


def paths_to_time(M: int, N: int, dispatch_only: bool, K: int | None = None) -> list[tuple]:
    """(schedule, bn, cta_group) of each path timed at M: first the op's own dispatch
    (None, None, None), then, unless dispatch_only, every candidate of the sweep."""
    return [(None, None, None)] + ([] if dispatch_only else candidates(M, N, K))


def time_paths(fns: dict, regimes, w_calls: dict, iters: int, replays: int, rounds: int, rng,
               x=None) -> dict:
    """{label: {regime: us}}: every `fns[label](weight source)` timed by graph replay in each
    regime, all (path, regime) pairs in `rounds` rounds of random order, medians
    (graph_timing.interleaved_medians); `w_calls[regime]` is the weight source
    (graph_timing.weight_of); with `x` (--after-elementwise) every call follows an elementwise
    kernel writing x (graph_timing.after_elementwise)."""
    def call(fn, reg):
        c = lambda: fn(w_calls[reg])  # noqa: E731
        return c if x is None else after_elementwise(c, x)
    med = interleaved_medians({(label, reg): call(fn, reg) for label, fn in fns.items()
                               for reg in regimes}, iters, replays, rounds, rng)
    return {label: {reg: med[(label, reg)] for reg in regimes} for label in fns}


def pick_best(fused: dict, t_mm: float, t_mm_cold: float | None) -> tuple[str | None, dict]:
    """The best candidate of a row (`fused`: label -> {us[, us_cold]} or {error}; 'dispatch'
    is not a candidate): the highest ratio to torch.mm, with t_mm_cold (both regimes) the
    highest of its worse ratio warm/cold. Returns (label or None, {label: that ratio})."""
    ratios = {}
    for label, v in fused.items():
        if label == "dispatch" or "us" not in v:
            continue
        r = t_mm / v["us"]
        ratios[label] = min(r, t_mm_cold / v["us_cold"]) if t_mm_cold is not None else r
    return (max(ratios, key=ratios.get) if ratios else None), ratios


def write_tables(args, rows) -> None:
    """One mode-none table per K: the fastest fused candidate per M against torch.mm."""
    arch = ARCH_OF_CAPABILITY[torch.cuda.get_device_capability()]
    for K in args.ks:
        table_rows = []
        for row in (r for r in rows if r["K"] == K and r["best"]):
            best = row["fused"][row["best"]]
            schedule, bn, cg = best["choice"]
            table_rows.append({"M": row["M"], "schedule": schedule, "bn": bn, "cta_group": cg,
                               "fused_us": best["us"], "best_unfused_us": row["torch_mm_us"],
                               "best_unfused": "torch_mm"})
        path = table_path(args.tune_out, arch, "none", 1, args.n, K)
        if not table_rows:
            print(f"no table for K = {K}: no candidate ran (see the errors above); not writing {path}")
            continue
        write_table(path, arch=arch, mode="none", tp=1, N=args.n, K=K, rows=table_rows,
                    device=torch.cuda.get_device_name(), command=" ".join(sys.argv))
        print(f"wrote {path}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # the table's rows: a call takes the row of the smallest M >= its own, so the grid is fine
    # where the best kernel changes (token tiles 16..256, two token tiles up to 448)
    ap.add_argument("--ms", type=ints, default=[16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160,
                                                 176, 192, 208, 224, 240, 256, 288, 320, 352, 384,
                                                 448, 512, 1024, 2048])
    ap.add_argument("--ks", type=ints, default=[768, 1536, 2304])
    ap.add_argument("--n", type=int, default=7168)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--replays", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3,
                    help="time torch.mm and every path this many times, each round in a fresh "
                         "random order, and take medians (graph_timing.interleaved_medians)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the rounds' orders")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--tune-out", type=Path, default=None, metavar="ROOT",
                    help="write mode none's tuning tables under ROOT/tuning/")
    ap.add_argument("--cold-weights", action="store_true",
                    help="cycle through copies of W that exceed the L2 (each call reads W from HBM)")
    ap.add_argument("--both-regimes", action="store_true",
                    help="time every path with warm and with cold weights; the best candidate "
                         "maximizes the worse of its two ratios to torch.mm")
    ap.add_argument("--after-elementwise", action="store_true",
                    help="precede every timed call (torch.mm's and ours) by an in-place "
                         "elementwise kernel writing x (x *= 1), standing for the norm that "
                         "precedes a projection: no call then follows another GEMM, so a "
                         "kernel's programmatic launch overlaps only that small kernel")
    ap.add_argument("--dispatch-only", action="store_true",
                    help="time only the op's own dispatch (the tables of the cache root) "
                         "against torch.mm: no candidate sweep, so no --tune-out")
    args = ap.parse_args(argv)
    if args.dispatch_only and args.tune_out:
        ap.error("--tune-out needs the candidate sweep: drop --dispatch-only")
    regimes = ["warm", "cold"] if args.both_regimes else ["cold" if args.cold_weights else "warm"]
    rng = random.Random(args.seed)
    l2_bytes = torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size
    rows = []
    print(f"{'K':>5} {'M':>5} {'torch.mm':>9} | dispatch (us, vs torch.mm) | candidates | best, "
          "best/torch")
    for K in args.ks:
        w = torch.randn(args.n, K, device="cuda").to(torch.bfloat16)
        # the timed calls' weight per regime: w (warm), or the next of its copies (cold,
        # graph_timing.weight_of)
        copies = weight_copies(w, l2_bytes) if "cold" in regimes else [w]
        w_calls = {"warm": w, "cold": rotating(copies)}

        for M in args.ms:
            x = torch.randn(M, K, device="cuda").to(torch.bfloat16)
            ref_out = torch.empty(M, args.n, device="cuda", dtype=torch.bfloat16)
            torch.mm(x, w.t(), out=ref_out)     # the reference of every candidate's check
            ref32 = x.float() @ w.float().t()   # and its fp32 one (max abs error), once per M
            mm_out = torch.empty_like(ref_out)
            fns = {"torch.mm": lambda src: torch.mm(x, weight_of(src).t(), out=mm_out)}
            row = {"K": K, "M": M, "N": args.n, "weight_copies": len(copies),
                   "after_elementwise": args.after_elementwise, "pdl": env.load().pdl,
                   "rounds": args.rounds, "fused": {}}
            for schedule, bn, cg in paths_to_time(M, args.n, args.dispatch_only, K):
                # first the op's own dispatch (the tuning table in the cache root, if any): the
                # unbiased number; the candidates' best is what a new table would pick
                label = "dispatch" if schedule is None else (
                    f"{schedule}{bn}" + ("" if cg in (None, 1) else f"c{cg}"))
                try:
                    op = GemmRsAr(max(args.ms), args.n, K, "none", schedule=schedule, bn=bn,
                                  cta_group=cg)
                    out = torch.empty(M, args.n, device="cuda", dtype=torch.bfloat16)
                    op(0, x, w, out=out)
                    torch.cuda.synchronize()
                    err = float((out.float() - ref32).abs().max())
                    rel = relerr(out, ref_out)
                    if rel > MAX_RELERR:   # wrong, not fast: never a table's pick
                        raise ValueError(f"wrong result: relerr {rel:.2e} against torch.mm "
                                         f"(max abs error {err:.3g})")
                    fns[label] = (lambda op, out: (
                        lambda src: op(0, x, weight_of(src), out=out)))(op, out)
                    row["fused"][label] = {"max_abs_err": err, "variant": op.variant(M).name,
                                           "choice": list(op.choice(M))}
                except (CacheMissError, DriverError, ValueError) as exc:
                    # recorded per candidate: one a driver call refuses (e.g. a TMA box the
                    # encoder rejects) must not end the sweep
                    row["fused"][label] = {"error": str(exc)[:200]}
                    print(f"  K={K} M={M} {label}: {type(exc).__name__}: {str(exc)[:200]}",
                          file=sys.stderr)
            # torch.mm and every path in the same rounds, each in a fresh random order
            t = time_paths(fns, regimes, w_calls, args.iters, args.replays, args.rounds, rng,
                           x if args.after_elementwise else None)
            mm = t.pop("torch.mm")
            t_mm = row["torch_mm_us"] = mm[regimes[0]]
            if args.both_regimes:
                row["torch_mm_cold_us"] = mm["cold"]
            for label, tl in t.items():
                row["fused"][label]["us"] = tl[regimes[0]]
                if args.both_regimes:
                    row["fused"][label]["us_cold"] = tl["cold"]
            timed = {k: v["us"] for k, v in row["fused"].items() if "us" in v and k != "dispatch"}
            best, ratios = pick_best(row["fused"], t_mm, mm["cold"] if args.both_regimes else None)
            row["best"] = best
            row["best_vs_torch"] = t_mm / timed[best] if best else None
            disp = row["fused"]["dispatch"].get("us")
            row["dispatch_vs_torch"] = t_mm / disp if disp else None
            if args.both_regimes:
                row["best_worse_ratio"] = ratios[best] if best else None
                d = row["fused"]["dispatch"]
                row["dispatch_cold_vs_torch"] = mm["cold"] / d["us_cold"] if disp else None
            rows.append(row)
            cells = "  ".join(f"{k}:{v:6.1f}" for k, v in timed.items())
            cold = ""
            if args.both_regimes:
                cold = (f" (cold: torch.mm {mm['cold']:.1f}, dispatch "
                        f"{row['dispatch_cold_vs_torch'] or 0:.2f}x, best worse-of-two "
                        f"{row['best_worse_ratio'] or 0:.2f}x)")
            print(f"{K:>5} {M:>5} {t_mm:9.1f} | dispatch:{disp or 0:6.1f} {row['dispatch_vs_torch'] or 0:.2f}x"
                  f" | {cells} | {best} {row['best_vs_torch'] or 0:.2f}x{cold}", flush=True)
    if args.tune_out:
        write_tables(args, rows)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"device": torch.cuda.get_device_name(), "rows": rows},
                                        indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
