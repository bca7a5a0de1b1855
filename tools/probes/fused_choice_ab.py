#!/usr/bin/env python3
"""Fused RS / AR at fixed decode choices on virtual ranks of one GPU, timed in alternation (a
probe, not a test; needs a GPU).

One GPU cannot show the NVLink exchange, but it runs the same kernels, the same pushes and
reduces (into local memory) and, with `tp` virtual ranks, the same grids on SMs // tp SMs per
rank. This probe asks one question of them: where the default fused rule's decode kernel (one
CTA per 64-row W tile) leaves most of a rank's SMs idle, is another decode kernel of the mode
(the wide one: a CTA per (128-row W tile, token tile)) faster end to end, exchange included?

Choices: `default` (the op's rule, no table) or a fixed one written `swapab64c2`. Every choice's
output is checked first against an fp32 reference (outputs poisoned with NaN; tolerance
MAX_RELERR): the sum over ranks of x_r @ W_r^T (RS: each rank's rows). Then every choice of a
point is timed in `--rounds` rounds (CUDA graph of `--iters` calls of all ranks, median of
`--replays` replays), each round in a fresh random order, and the medians kept.

    PYTHONPATH=. python3 tools/probes/fused_choice_ab.py --modes rs,ar --tp 2 \\
        --shapes 2048:4096 --ms 64,128,256 --choices default,swapab64c2,swapab128c2
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from arg_types import ints, shapes  # noqa: E402
from choice_ab import _FIXED, MAX_RELERR  # noqa: E402


def parse_choice(text: str) -> dict:
    """GemmRsAr keyword arguments of a choice: {} for `default`, else schedule / bn / cta_group."""
    if text == "default":
        return {}
    m = _FIXED.match(text)
    if not m:
        raise ValueError(f"unknown choice '{text}': default, or e.g. swapab64c2 / tile128c1")
    return dict(schedule=m.group(1), bn=int(m.group(2)), cta_group=int(m.group(3)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modes", default="rs,ar")
    ap.add_argument("--tp", type=int, default=2)
    ap.add_argument("--shapes", type=shapes, required=True, help="N:K,N:K,...")
    ap.add_argument("--ms", type=ints, required=True)
    ap.add_argument("--choices", default="default,swapab64c2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--replays", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    choices = [c for c in args.choices.split(",") if c]
    kws = {c: parse_choice(c) for c in choices}   # a typo fails before the GPU is touched

    import torch

    from baselines import relerr
    from codegen import contract
    from codegen.runtime import GemmRsAr, VirtualGroup
    from graph_timing import interleaved_medians

    rng = random.Random(args.seed)
    rows, wrong_any = [], False
    max_m = max(args.ms)
    for mode in [m for m in args.modes.split(",") if m]:
        for N, K in args.shapes:
            group = VirtualGroup(args.tp, max_m, N, mode)
            ws = [(torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16)
                  for _ in range(args.tp)]
            ops = {c: GemmRsAr(max_m, N, K, mode, group, **kws[c]) for c in choices}
            for M in args.ms:
                xs = [(torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16)
                      for _ in range(args.tp)]
                full = sum(x.float() @ w.float().t() for x, w in zip(xs, ws))
                rows_each = contract.chunk(M, args.tp)
                calls, wrong, ran = {}, {}, {}
                for c, op in ops.items():
                    shape = op.out_shape(M)
                    outs = [torch.full(shape, float("nan"), device="cuda", dtype=torch.bfloat16)
                            for _ in range(args.tp)]
                    try:
                        op.run_all(xs, ws, out=outs)
                        op.synchronize()
                    except Exception as exc:   # a kernel the build lacks: recorded, not fatal
                        wrong[c] = f"{type(exc).__name__}: {str(exc)[:160]}"
                        op.reset_errors()
                        group.reset_state()
                        continue
                    worst = 0.0
                    for r, o in enumerate(outs):
                        if mode == "ar":
                            ref = full
                        else:
                            lo, hi = r * rows_each, min(M, (r + 1) * rows_each)
                            ref, o = full[lo:hi], o[: max(0, hi - lo)]
                        if ref.numel():
                            worst = max(worst, relerr(o, ref))
                    ran[c] = op.last_launch[0]
                    if not worst <= MAX_RELERR:
                        wrong[c] = worst
                        continue
                    calls[c] = (lambda op=op, outs=outs: op.run_all(xs, ws, out=outs))
                us = interleaved_medians(calls, args.iters, args.replays, args.rounds, rng)
                base = us.get("default")
                row = {"mode": mode, "tp": args.tp, "N": N, "K": K, "M": M, "us": us,
                       "ran": ran, "wrong": wrong, "sm_budget": group.sm_budget,
                       "vs_default": {c: base / t for c, t in us.items()} if base else {}}
                rows.append(row)
                wrong_any = wrong_any or bool(wrong)
                cells = "  ".join(f"{c}={us[c]:.1f}us" + (f"({base / us[c]:.2f}x)" if base else "")
                                  + (f"[{ran[c]['variant'].split('_sm90a_')[-1]} g{ran[c]['grid']}]"
                                     if c == "default" else "")
                                  for c in us)
                print(f"{mode} tp={args.tp} N={N:5d} K={K:5d} M={M:4d} | {cells}"
                      + (f" | WRONG {wrong}" if wrong else ""), flush=True)
            del ops, group
            torch.cuda.empty_cache()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 1 if wrong_any else 0


if __name__ == "__main__":
    sys.exit(main())
