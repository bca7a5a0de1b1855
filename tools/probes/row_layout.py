#!/usr/bin/env python3
"""Mode none at a K no multiple of 64 with the rows of x and W laid out five ways (a probe, not a
test; needs a GPU): contiguous (rows start off the 128-byte lines), W in a zero-padded buffer
whose rows start on them (a row-strided view, stride = K rounded up to 64), x alone so, x and
W both so, and the padded K itself (contiguous, the extra columns zeros). torch.mm on the
contiguous tensors is the baseline; every path is checked against an fp32 reference first, and
the paths are timed by CUDA-graph replay in `--rounds` rounds of random order (medians).
`--choices` runs each layout with the op's dispatch (`dispatch`, which weighs the layout since
the eighteenth session) and / or fixed kernels (choice_ab's labels, e.g. swapab80c2,
tile128c2), so one kernel's cost of each layout is seen apart from the dispatch moving.

    PYTHONPATH=. python3 tools/probes/row_layout.py --shapes 2048:4104,4096:1000 --ms 64,512
"""
from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from arg_types import ints, shapes  # noqa: E402
from choice_ab import (MAX_RELERR, add_l2_promotion, apply_l2_promotion,  # noqa: E402
                       label, resolve)
from codegen import contract  # noqa: E402


def padded(torch, t, ld: int):
    """`t` [rows, K] copied into a zero buffer [rows, ld], returned as the [rows, K] view."""
    buf = torch.zeros(t.shape[0], ld, dtype=t.dtype, device=t.device)
    buf[:, : t.shape[1]] = t
    return buf[:, : t.shape[1]]


def layouts(torch, x, w, K: int) -> dict:
    """name -> (x, w, K of the op) of the five layouts."""
    kp = contract.cdiv(K, contract.BK) * contract.BK
    wide_x, wide_w = padded(torch, x, kp), padded(torch, w, kp)
    return {"contiguous": (x, w, K), "w_aligned": (x, wide_w, K),
            "x_aligned": (wide_x, w, K), "both_aligned": (wide_x, wide_w, K),
            "k_padded": (wide_x.as_strided((x.shape[0], kp), (kp, 1)),
                         wide_w.as_strided((w.shape[0], kp), (kp, 1)), kp)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", type=shapes, required=True, help="N:K,N:K,...")
    ap.add_argument("--ms", type=ints, required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--replays", type=int, default=10)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--choices", default="dispatch",
                    help="comma-separated: dispatch and / or fixed kernels such as swapab80c2")
    add_l2_promotion(ap)
    args = ap.parse_args(argv)
    apply_l2_promotion(args)
    choices = {c: resolve(c, 16, 4096, "sm_90a", 132, 512)   # a typo fails here, before the GPU
               for c in args.choices.split(",") if c}

    import torch
    from codegen.runtime import GemmRsAr
    from codegen.runtime.errors import InputError
    from graph_timing import interleaved_medians

    rng = random.Random(0)
    rows = []
    for N, K in args.shapes:
        for M in args.ms:
            x = (torch.randn(M, K, device="cuda") * 0.1).to(torch.bfloat16)
            w = (torch.randn(N, K, device="cuda") * 0.1).to(torch.bfloat16)
            ref = x.float() @ w.float().t()
            calls, wrong, ran, refused = {}, {}, {}, {}
            out_t = torch.empty(M, N, dtype=torch.bfloat16, device="cuda")
            calls["torch.mm"] = lambda x=x, w=w, o=out_t: torch.mm(x, w.t(), out=o)
            for (lay, (xl, wl, k)), (cname, c) in itertools.product(
                    layouts(torch, x, w, K).items(), choices.items()):
                name = lay if len(choices) == 1 else f"{lay}/{label(c)}"
                kw = {} if c is None else dict(schedule=c[0], bn=c[1], cta_group=c[2])
                out = torch.full((M, N), float("nan"), dtype=torch.bfloat16, device="cuda")
                try:
                    op = GemmRsAr(max(args.ms), N, k, "none", **kw)
                    op(0, xl, wl, out=out)
                    torch.cuda.synchronize()
                except InputError as exc:   # a fixed kernel that cannot serve this N / M
                    refused[name] = str(exc)[:160]
                    continue
                err = float((out.float() - ref).norm() / ref.norm())
                if not err < MAX_RELERR:
                    wrong[name] = err
                    continue
                calls[name] = lambda op=op, xl=xl, wl=wl, o=out: op(0, xl, wl, out=o)
                ran[name] = op.last_launch.get(0, {}).get("variant")   # the op's choice there
            us = interleaved_medians(calls, args.iters, args.replays, args.rounds, rng)
            row = {"N": N, "K": K, "M": M, "us": us, "wrong": wrong, "refused": refused, "variants": ran,
                   "vs_torch": {k: us["torch.mm"] / v for k, v in us.items()}}
            rows.append(row)
            print(f"N={N:5d} K={K:5d} M={M:4d} torch.mm {us['torch.mm']:6.1f} us | " +
                  "  ".join(f"{k}={v:6.1f}" for k, v in us.items() if k != "torch.mm") +
                  (f"  WRONG {wrong}" if wrong else ""), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 1 if any(r["wrong"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
