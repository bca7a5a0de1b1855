#!/usr/bin/env python3
"""Decode sizes on one GPU: mode none of each schedule against torch.mm (a script, not a test).

For every K and M (default M 16..512, K 768/1536/2304, N 7168) it times torch.mm, the tile
schedule (dispatched BN / CTA group) and the swapab schedule at every token tile >= M (and
256), by CUDA-graph replay (tools/graph_timing.py), and prints a table: best fused / torch.mm.
`--json PATH` writes every row.

    PYTHONPATH=. python3 tools/bench_decode.py --json out/decode_none.json
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from codegen import contract  # noqa: E402
from codegen.runtime import CacheMissError, GemmRsAr  # noqa: E402
from graph_timing import graph_time_us  # noqa: E402  (tools/ is the script's directory)


def _ints(text: str) -> list[int]:
    return [int(v) for v in text.split(",") if v]


def candidates(M: int) -> list[tuple[str, int | None]]:
    """(schedule, bn) to time at M: the tile schedule's dispatch, and every token tile that
    covers M in one tile plus 256 (several token tiles)."""
    tiles = [bt for bt in contract.SWAPAB_BNS if bt >= M] or [contract.SWAPAB_BNS[-1]]
    return [("tile", None)] + [("swapab", bt) for bt in tiles[:2]]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ms", type=_ints, default=[16, 32, 64, 128, 256, 512])
    ap.add_argument("--ks", type=_ints, default=[768, 1536, 2304])
    ap.add_argument("--n", type=int, default=7168)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--replays", type=int, default=30)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    rows = []
    print(f"{'K':>5} {'M':>5} {'torch.mm':>9} | " + "  ".join(f"{'cand':>14}" for _ in range(3))
          + " | best/torch")
    for K in args.ks:
        w = torch.randn(args.n, K, device="cuda").to(torch.bfloat16)
        for M in args.ms:
            x = torch.randn(M, K, device="cuda").to(torch.bfloat16)
            ref_out = torch.empty(M, args.n, device="cuda", dtype=torch.bfloat16)
            t_mm = graph_time_us(lambda: torch.mm(x, w.t(), out=ref_out), args.iters, args.replays)
            row = {"K": K, "M": M, "N": args.n, "torch_mm_us": t_mm, "fused": {}}
            for schedule, bn in candidates(M):
                label = f"{schedule}{'' if bn is None else bn}"
                try:
                    op = GemmRsAr(max(args.ms), args.n, K, "none", schedule=schedule, bn=bn)
                    out = torch.empty(M, args.n, device="cuda", dtype=torch.bfloat16)
                    op(0, x, w, out=out)
                    torch.cuda.synchronize()
                    err = float((out.float() - x.float() @ w.float().t()).abs().max())
                    t = graph_time_us(lambda: op(0, x, w, out=out), args.iters, args.replays)
                    row["fused"][label] = {"us": t, "max_abs_err": err, "variant": op.variant(M).name}
                except (CacheMissError, ValueError) as exc:
                    row["fused"][label] = {"error": str(exc)[:200]}
            timed = {k: v["us"] for k, v in row["fused"].items() if "us" in v}
            best = min(timed, key=timed.get) if timed else None
            row["best"] = best
            row["best_vs_torch"] = t_mm / timed[best] if best else None
            rows.append(row)
            cells = "  ".join(f"{k}:{v:6.1f}" for k, v in timed.items())
            print(f"{K:>5} {M:>5} {t_mm:9.1f} | {cells} | {best} {row['best_vs_torch'] or 0:.2f}x",
                  flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"device": torch.cuda.get_device_name(), "rows": rows},
                                        indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
