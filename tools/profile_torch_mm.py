#!/usr/bin/env python3
"""What torch.mm launches at each shape: kernel name, grid, block, cluster-free facts from
the profiler trace (a script, not a test; needs a GPU).

The decode GEMM is compared against torch.mm (cuBLAS); its kernel's tile shape, grid and
split-K tell how it reaches the bandwidth it does. For every (M, K) it runs `x @ W.T`
(x [M, K], W [N, K], bf16) under torch.profiler and prints one row per GPU kernel.

    PYTHONPATH=. python3 tools/profile_torch_mm.py --ms 16,128,512 --ks 768,2304 --json out/mm.json
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile

from arg_types import ints  # tools/ is the script's directory



def kernels_of(trace_path: str) -> list[dict]:
    """The GPU kernel events of a chrome trace: name, grid, block, registers, shared memory,
    duration (us)."""
    with open(trace_path) as f:
        events = json.load(f).get("traceEvents", [])
    out = []
    for ev in events:
        if ev.get("cat") != "kernel":
            continue
        args = ev.get("args", {})
        out.append({"name": ev.get("name", "?"), "grid": args.get("grid"), "block": args.get("block"),
                    "regs": args.get("registers per thread"),
                    "smem": args.get("shared memory"), "dur_us": ev.get("dur")})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ms", type=ints, default=[16, 32, 64, 128, 256, 512])
    ap.add_argument("--ks", type=ints, default=[768, 1536, 2304])
    ap.add_argument("--n", type=int, default=7168)
    ap.add_argument("--json", help="write every row here")
    args = ap.parse_args(argv)

    import torch
    from torch.profiler import ProfilerActivity, profile

    rows = []
    for K in args.ks:
        w = torch.randn(args.n, K, device="cuda", dtype=torch.bfloat16)
        for M in args.ms:
            x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
            for _ in range(3):
                torch.mm(x, w.t())
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(5):
                    torch.mm(x, w.t())
                torch.cuda.synchronize()
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "trace.json")
                prof.export_chrome_trace(path)
                ks = kernels_of(path)
            durs = sorted(k["dur_us"] for k in ks if k["dur_us"] is not None)
            for k in {k["name"]: k for k in ks}.values():
                row = {"M": M, "K": K, "N": args.n, **k,
                       "median_dur_us": durs[len(durs) // 2] if durs else None}
                rows.append(row)
                print(f"M={M:5d} K={K:5d} grid={k['grid']} block={k['block']} regs={k['regs']} "
                      f"smem={k['smem']} dur~{row['median_dur_us']}us  {k['name'][:160]}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
