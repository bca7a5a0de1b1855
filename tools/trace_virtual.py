#!/usr/bin/env python3
"""The trace kernels' phase stamps on virtual ranks of ONE GPU (no torchrun): a one-GPU stand-in
for tools/trace_phases.py when two GPUs are not available.

    codegen build --tp 2 --arch sm_90a --transport unicast --schedule tile --trace --cache-dir generated/trace
    CODEGEN_CACHE_DIR=generated/trace PYTHONPATH=. CUDA_DEVICE_MAX_CONNECTIONS=32 \\
      python3 tools/trace_virtual.py [--tp 2] [--modes rs,ar] [--ks 768,2304] [--ms 4096,16384] [--json PATH]

Each virtual rank gets SMs // tp SMs and its peers' memory is the same GPU's, so the numbers
say how the kernel's phases line up (GEMM, reduction, AR copy-out tail, waits), not what two
GPUs over NVLink take. Per (mode, K, M): three calls through `run_all` (the dispatch's tile
BN / cta_group), then every rank's stamps of the last call (codegen/runtime/trace.py) and the
output's relative error against fp32 torch.mm. Prints one JSON line per rank.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from arg_types import ints  # noqa: E402  (tools/ is on sys.path)

KEYS = ("kernel_us", "gemm_done_us", "tail_us", "p1_tail_global_us", "entry_skew_us", "gemm_us",
        "publish_wait_us", "phase1_wait_us", "phase2_wait_us", "comm_tail_us")



def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tp", type=int, default=2)
    ap.add_argument("--modes", default="rs,ar")
    ap.add_argument("--ks", type=ints, default=[768, 2304])
    ap.add_argument("--ms", type=ints, default=[4096, 16384])
    ap.add_argument("--n", type=int, default=7168)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    if not os.environ.get("CODEGEN_CACHE_DIR"):
        print("trace_virtual: set CODEGEN_CACHE_DIR to the trace kernels' root", file=sys.stderr)
        return 2
    import torch

    from codegen import contract
    from codegen.runtime import GemmRsAr, VirtualGroup
    from codegen.runtime.trace import last_epoch, read_stamps, summarize

    # room for the stamps after the partials: past the tiles (pulled) or past each owner's
    # chunk in its slot (pushed: codegen.trace_layout.fits)
    rows, max_M = [], max(a.ms) + 512 + 160 * a.tp
    for mode in a.modes.split(","):
        group = VirtualGroup(tp=a.tp, max_M=max_M, N=a.n, mode=mode)
        for K in a.ks:
            op = GemmRsAr(max_M, a.n, K, mode, group, schedule="tile")
            for M in a.ms:
                xs = [(torch.randn(M, K, device="cuda") * 0.1).bfloat16() for _ in range(a.tp)]
                ws = [(torch.randn(a.n, K, device="cuda") * 0.1).bfloat16() for _ in range(a.tp)]
                for _ in range(3):
                    outs = op.run_all(xs, ws)
                op.synchronize()
                ref = sum(x.float() @ w.float().T for x, w in zip(xs, ws))
                chunk = contract.chunk(M, a.tp)
                variant = op.variant(M)
                for r in range(a.tp):
                    epoch = last_epoch(group, r)
                    s = summarize(read_stamps(group, r, M, epoch % 2, epoch=epoch,
                                              cta_group=variant.cta_group))
                    want = ref if mode == "ar" else ref[r * chunk:min(M, (r + 1) * chunk)]
                    got = outs[r].float()[:want.shape[0]]
                    row = {"mode": mode, "K": K, "M": M, "rank": r, "variant": variant.name,
                           "relerr": float((got - want).norm() / want.norm()),
                           **{k: s[k] for k in KEYS}}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
