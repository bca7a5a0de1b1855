#!/usr/bin/env python3
"""Mode none at a K whose rows lie off the 128-byte lines, with the same values laid out three
ways (a probe, not a test; needs a GPU).

At K no multiple of 64 a contiguous bf16 row of K starts off the 128-byte lines, and mode none's
kernels (and its dispatch, which prices such rows: dispatch.choose_none_unaligned) run far
below their aligned speed. A serving stack can lay its static weight out once with a row stride
rounded up to 64 elements (a view [N, K] of an [N, K64] buffer: RowParallelLinear does that by
default, tp_linear.weight_in_aligned_rows); x comes from the layer before, off the lines. Per
point this probe times, in rounds of random order, with a warm and with a cold weight (the
copies cycled past the L2; the worse ratio counts, as choice_ab.py). (row_layout.py, the
nineteenth session's, times five layouts with a warm weight only and without the choices
below; this one was written beside it for the cold regime and those choices.)

- `mm`, `mm/padW`, `mm/pad`: torch.mm on contiguous x and W, on the padded W, on both padded
- `op`, `op/padW`, `op/pad`: the op's own dispatch on the same three layouts (it reads the
  layout of each call: rows on the lines only where x's and W's both are)
- `op/padW@a`: the op on padded W and contiguous x at the choice it makes for rows on the lines
  (op.choice(M, aligned=True)), to see whether the dispatch should price x's rows apart from W's
- `op/padW@before`: the same layout at the choice the op made for it before the twenty-first
  session's dispatch.WEIGHT_ON_LINES_RULE (as for both rows off the lines)
- `op/stage`: x copied into a padded buffer first (one copy kernel), then `op/pad`'s call

`--paths` times a subset (torch.mm on contiguous tensors, `mm`, always: the ratios' base).

Every path's output is checked against an fp32 reference (NaN-poisoned first; MAX_RELERR).

    PYTHONPATH=. python3 tools/probes/padded_rows.py --shapes 7168:2360,... --ms 16,64,176,384 \\
        --json out.json
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
from choice_ab import MAX_RELERR  # noqa: E402

PATHS = ("mm", "mm/padW", "mm/pad", "op", "op/padW", "op/pad", "op/padW@a", "op/padW@before",
         "op/stage")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", type=shapes, required=True, help="N:K,N:K,...")
    ap.add_argument("--ms", type=ints, required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--replays", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--paths", default=",".join(PATHS), help="comma-separated, of: " + ",".join(PATHS))
    args = ap.parse_args(argv)
    wanted = {"mm"} | set(args.paths.split(","))
    if wanted - set(PATHS):
        ap.error(f"unknown paths {sorted(wanted - set(PATHS))}; known: {','.join(PATHS)}")

    import torch

    from baselines import relerr
    from codegen.runtime import GemmRsAr, dispatch
    from codegen.runtime.tp_linear import weight_in_aligned_rows as pad_rows
    from graph_timing import interleaved_medians, rotating, weight_copies

    rng = random.Random(args.seed)
    dev = torch.cuda.current_device()
    l2_bytes = torch.cuda.get_device_properties(dev).L2_cache_size
    rows = []
    for N, K in args.shapes:
        w = (torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16)
        wp = pad_rows(w)
        copies = weight_copies(w, l2_bytes)
        cold = {"": copies, "pad": [wp] + [pad_rows(c) for c in copies[1:]]}
        srcs = {("", "warm"): w, ("pad", "warm"): wp,
                ("", "cold"): rotating(cold[""]), ("pad", "cold"): rotating(cold["pad"])}
        op = GemmRsAr(max(args.ms), N, K, "none")
        fixed = {}
        for M in args.ms:
            x = (torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16)
            xp = pad_rows(x)
            ref = x.float() @ w.float().t()
            a_choice = op.choice(M, aligned=True)
            saved, dispatch.WEIGHT_ON_LINES_RULE = dispatch.WEIGHT_ON_LINES_RULE, False
            try:
                b_choice = op.choice(M, aligned=False, weight_aligned=True)
            finally:
                dispatch.WEIGHT_ON_LINES_RULE = saved
            for c in (a_choice, b_choice):
                if c not in fixed:
                    fixed[c] = GemmRsAr(max(args.ms), N, K, "none", schedule=c[0], bn=c[1],
                                        cta_group=c[2])
            op_a, op_b = fixed[a_choice], fixed[b_choice]
            # name -> (weight layout, fn(weight) writing out)
            layouts = {"mm": ("", lambda o, W: torch.mm(x, W.t(), out=o)),
                       "mm/padW": ("pad", lambda o, W: torch.mm(x, W.t(), out=o)),
                       "mm/pad": ("pad", lambda o, W: torch.mm(xp, W.t(), out=o)),
                       "op": ("", lambda o, W: op(0, x, W, out=o)),
                       "op/padW": ("pad", lambda o, W: op(0, x, W, out=o)),
                       "op/pad": ("pad", lambda o, W: op(0, xp, W, out=o)),
                       "op/padW@a": ("pad", lambda o, W: op_a(0, x, W, out=o)),
                       "op/padW@before": ("pad", lambda o, W: op_b(0, x, W, out=o)),
                       "op/stage": ("pad", lambda o, W: (xp.copy_(x), op(0, xp, W, out=o)))}
            calls, errors, ran = {}, {}, {}
            for name, (lay, f) in layouts.items():
                if name not in wanted:
                    continue
                out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
                try:
                    f(out, srcs[(lay, "warm")])
                    torch.cuda.synchronize()
                except Exception as exc:   # recorded, not fatal
                    errors[name] = f"{type(exc).__name__}: {str(exc)[:160]}"
                    continue
                rel = relerr(out, ref)
                if not rel <= MAX_RELERR:
                    errors[name] = rel
                    continue
                if name.startswith("op"):
                    who = {"op/padW@a": op_a, "op/padW@before": op_b}.get(name, op)
                    ran[name] = who.last_launch.get(0, {}).get("variant")
                calls[name] = (lambda f=f, o=out, lay=lay: (lambda src: f(o, src)))()
            timed = {}
            for n, fn in calls.items():
                for reg in ("warm", "cold"):
                    src = srcs[(layouts[n][0], reg)]
                    timed[n, reg] = (lambda fn=fn, src=src: (
                        lambda: fn(src() if callable(src) else src)))()
            med = interleaved_medians(timed, args.iters, args.replays, args.rounds, rng)
            t = {n: {reg: med[n, reg] for reg in ("warm", "cold")} for n in calls}
            base = t.get("mm", {})
            ratio = {n: min(base[r] / t[n][r] for r in ("warm", "cold")) for n in t if base}
            row = {"N": N, "K": K, "M": M, "us": t, "vs_mm": ratio, "variants": ran,
                   "aligned_choice": list(a_choice), "before_choice": list(b_choice),
                   "wrong": errors}
            rows.append(row)
            if args.json:
                args.json.write_text(json.dumps(rows, indent=1))
            cells = "  ".join(f"{n}:{ratio[n]:.2f}" for n in layouts if n in ratio)
            print(f"N={N:5d} K={K:5d} M={M:4d} mm {base.get('warm', float('nan')):6.1f} us | "
                  f"{cells} | ran {ran.get('op')} / {ran.get('op/pad')}"
                  + (f" | WRONG {errors}" if errors else ""), flush=True)
    return 1 if any(r["wrong"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
