#!/usr/bin/env python3
"""Mode none and torch.mm where a row of x / W is not a multiple of 128 bytes, against the same
matrices in row-padded buffers (a probe, not a test; needs a GPU).

The eighteenth session measured the decode kernels ~1.9x slower (warm weights) at K 2360 / 2312
than at K 2304 / 2368 (N 7168, M 160), torch.mm ~1.2x: each 128-byte TMA box row then spans two
128-byte lines. The op takes row-strided views (validate.check_matrix: a row stride >= K, a
multiple of 8), so a caller can hold W (static) and x in buffers whose rows are padded to
`--pad` elements. This probe times, per (N, K, M): the op's own choice and torch.mm with x / W
contiguous or padded (x, W, both), warm and cold weights (cold: copies cycled past the L2), and
the op on contiguous tensors with the TMA descriptors' L2 promotion at 256B
(codegen.runtime.tma.L2_PROMOTION). Every output is checked against an fp32 reference first.

    PYTHONPATH=. python3 tools/probes/row_pitch.py --shapes 7168:2360,8192:3696 --ms 16,160
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
from arg_types import ints, shapes  # noqa: E402  (tools/ is on sys.path)

#: Largest relative error (baselines.relerr against fp32) a path may show.
MAX_RELERR = 2e-2


def padded(t, pad: int):
    """`t` (2-D) copied into a zeroed buffer whose rows are rounded up to `pad` elements; the
    view of its first t.shape[1] columns."""
    import torch
    rows, k = t.shape
    buf = torch.zeros(rows, -(-k // pad) * pad, device=t.device, dtype=t.dtype)
    buf[:, :k].copy_(t)
    return buf[:, :k]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", type=shapes, required=True, help="N:K,N:K,...")
    ap.add_argument("--ms", type=ints, required=True)
    ap.add_argument("--pad", type=int, default=64, help="row multiple, elements (64: 128 bytes)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--replays", type=int, default=10)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)

    import torch

    from baselines import relerr
    from codegen.runtime import GemmRsAr, tma
    from graph_timing import interleaved_medians, rotating, weight_of

    rng = random.Random(0)
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    rows, bad = [], 0
    for N, K in args.shapes:
        w = (torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16)
        copies = 1 + math.ceil(2.0 * l2 / (N * K * 2))
        ws = {False: w, True: padded(w, args.pad)}
        cold = {p: rotating([ws[p]] + [padded(w, args.pad) if p else w.clone()
                                       for _ in range(copies - 1)]) for p in (False, True)}
        for M in args.ms:
            x0 = (torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16)
            xs = {False: x0, True: padded(x0, args.pad)}
            ref = x0.float() @ w.float().t()
            calls, labels = {}, {}
            for promo in ("128B", "256B"):
                tma.L2_PROMOTION = promo   # encoded when the op builds its descriptors
                layouts = [(px, pw) for px in (False, True) for pw in (False, True)]
                for px, pw in (layouts if promo == "128B" else [(False, False)]):
                    op = GemmRsAr(max(args.ms), N, K, "none")
                    name = f"x{'pad' if px else 'cont'}-w{'pad' if pw else 'cont'}"
                    for path in (("ours", "torch") if promo == "128B" else ("ours",)):
                        out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
                        x = xs[px]
                        if path == "ours":
                            run = (lambda src, o=out, op=op, x=x: op(0, x, weight_of(src), out=o))
                        else:
                            run = (lambda src, o=out, x=x: torch.mm(x, weight_of(src).t(), out=o))
                        run(ws[pw])
                        torch.cuda.synchronize()
                        err = relerr(out, ref)
                        label = f"{path}/{name}" + ("/l2-256B" if promo == "256B" else "")
                        if not err <= MAX_RELERR:
                            bad += 1
                            print(f"WRONG {label} N={N} K={K} M={M}: relerr {err}", flush=True)
                            continue
                        for reg, src in (("warm", ws[pw]), ("cold", cold[pw])):
                            calls[(label, reg)] = (lambda run=run, src=src: run(src))
                        if path == "ours":
                            labels[label] = op.last_launch.get(0, {}).get("variant")
            tma.L2_PROMOTION = "128B"
            med = interleaved_medians(calls, args.iters, args.replays, args.rounds, rng)
            row = {"N": N, "K": K, "M": M, "pad": args.pad,
                   "us": {f"{k[0]}/{k[1]}": v for k, v in med.items()}, "variants": labels}
            rows.append(row)
            if args.json:
                args.json.write_text(json.dumps(rows, indent=1))
            base = med[("torch/xcont-wcont", "warm")]
            cells = "  ".join(f"{lab}:{med[(lab, 'warm')]:.1f}/{med[(lab, 'cold')]:.1f}"
                              for lab in sorted({k[0] for k in med}))
            print(f"N={N:5d} K={K:5d} M={M:4d} (torch.mm {base:.1f} us) warm/cold us: {cells}",
                  flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
