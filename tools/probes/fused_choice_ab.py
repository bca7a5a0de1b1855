#!/usr/bin/env python3
"""Fused RS / AR at fixed decode choices on virtual ranks of one GPU, timed in alternation (a
probe, not a test; needs a GPU).

One GPU cannot show the NVLink exchange, but it runs the same kernels, the same pushes and
reduces (into local memory) and, with `tp` virtual ranks, the same grids on SMs // tp SMs per
rank. This probe asks one question of them: where the default fused rule's decode kernel (one
CTA per 64-row W tile) leaves most of a rank's SMs idle, is another decode kernel of the mode
(the wide one: a CTA per (128-row W tile, token tile)) faster end to end, exchange included?

Choices: `default` (the op's rule, no table), `cands` (every (schedule, bn, cta_group) the
tuning sweep of the mode times at that M, tuning.candidates; the best of them is reported as
`best`) or a fixed one written `swapab64c2`. `--relay-weight` passes each rank's weight re-laid
(weight_in_aligned_rows: what RowParallelLinear does at K % 64 != 0), x left contiguous;
without it both are contiguous (a direct GemmRsAr user). Every choice's
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
from choice_ab import _FIXED, MAX_RELERR, choice_name  # noqa: E402


def parse_choice(text: str) -> dict:
    """GemmRsAr keyword arguments of a choice: {} for `default`, else schedule / bn / cta_group
    (`cands` is expanded per point by expand_choices)."""
    if text in ("default", "cands"):
        return {}
    m = _FIXED.match(text)
    if not m:
        raise ValueError(f"unknown choice '{text}': default, or e.g. swapab64c2 / tile128c1")
    return dict(schedule=m.group(1), bn=int(m.group(2)), cta_group=int(m.group(3)))


def expand_choices(choices: list[str], M: int, N: int, K: int, mode: str,
                   arch: str = "sm_90a") -> list[str]:
    """The choices of one point: `cands` replaced by every tuning candidate of the mode at M
    (tuning.candidates), each once, in the order given."""
    from codegen.runtime import tuning

    out: list[str] = []
    for c in choices:
        names = ([choice_name(t) for t in tuning.candidates(M, N, arch, mode, K)]
                 if c == "cands" else [c])
        out += [n for n in names if n not in out]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modes", default="rs,ar")
    ap.add_argument("--tp", type=ints, default=[2], help="virtual ranks, e.g. 2 or 2,4")
    ap.add_argument("--shapes", type=shapes, required=True, help="N:K,N:K,...")
    ap.add_argument("--ms", type=ints, required=True)
    ap.add_argument("--choices", default="default,swapab64c2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--replays", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--relay-weight", action="store_true",
                    help="each rank's weight re-laid (weight_in_aligned_rows), x contiguous")
    args = ap.parse_args(argv)
    choices = [c for c in args.choices.split(",") if c]
    for c in choices:
        parse_choice(c)   # a typo fails before the GPU is touched

    rng = random.Random(args.seed)
    rows, wrong_any = [], False
    max_m = max(args.ms)
    for tp in args.tp:
        for mode in [m for m in args.modes.split(",") if m]:
            for N, K in args.shapes:
                wrong_any |= _shape(args, rows, rng, tp, mode, N, K, max_m, choices)
                if args.json:   # after each shape: a run cut short keeps what it measured
                    args.json.write_text(json.dumps(rows, indent=1))
    return 1 if wrong_any else 0


def _shape(args, rows: list, rng, tp: int, mode: str, N: int, K: int, max_m: int,
           choices: list[str]) -> bool:
    """Every M of one (tp, mode, N, K): check then time each choice; True if any was wrong."""
    import torch

    from baselines import relerr
    from codegen import contract
    from codegen.runtime import GemmRsAr, VirtualGroup, weight_in_aligned_rows
    from graph_timing import interleaved_medians

    wrong_any = False
    group = VirtualGroup(tp, max_m, N, mode)
    ws = [(torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16) for _ in range(tp)]
    if args.relay_weight:
        ws = [weight_in_aligned_rows(w) for w in ws]
    ops: dict = {}

    def op_of(c: str):
        if c not in ops:
            ops[c] = GemmRsAr(max_m, N, K, mode, group, **parse_choice(c))
        return ops[c]

    for M in args.ms:
        xs = [(torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16) for _ in range(tp)]
        full = sum(x.float() @ w.float().t() for x, w in zip(xs, ws))
        rows_each = contract.chunk(M, tp)
        calls, wrong, ran = {}, {}, {}
        for c in expand_choices(choices, M, N, K, mode):
            try:
                op = op_of(c)
                shape = op.out_shape(M)
                outs = [torch.full(shape, float("nan"), device="cuda", dtype=torch.bfloat16)
                        for _ in range(tp)]
                op.run_all(xs, ws, out=outs)
                op.synchronize()
            except Exception as exc:   # a kernel the build lacks: recorded, not fatal
                wrong[c] = f"{type(exc).__name__}: {str(exc)[:160]}"
                if c in ops:
                    ops[c].reset_errors()
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
        fixed = {c: t for c, t in us.items() if c != "default"}
        best = min(fixed, key=fixed.get) if fixed else None
        row = {"mode": mode, "tp": tp, "N": N, "K": K, "M": M, "us": us,
               "ran": ran, "wrong": {c: str(v) for c, v in wrong.items()},
               "sm_budget": group.sm_budget, "relay_weight": args.relay_weight,
               "best": best, "default_of_best": (us[best] / base) if base and best else None,
               "vs_default": {c: base / t for c, t in us.items()} if base else {}}
        rows.append(row)
        wrong_any = wrong_any or bool(wrong)
        pick = (ran["default"]["variant"].split("_sm90a_")[-1] + f" g{ran['default']['grid']}"
                if "default" in ran else "-")
        head = (f"{mode} tp={tp} N={N:5d} K={K:5d} M={M:4d} | default={base or 0:.1f}us [{pick}]"
                + (f" best={best} {us[best]:.1f}us ({row['default_of_best']:.3f} of best)"
                   if best and base else ""))
        print(head + (f" | WRONG {row['wrong']}" if wrong else ""), flush=True)
    ops.clear()
    torch.cuda.empty_cache()
    return wrong_any


if __name__ == "__main__":
    sys.exit(main())
