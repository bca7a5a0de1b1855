#!/usr/bin/env python3
"""NVLink peer bandwidth by direction (a probe, torchrun): SM-driven pull (loads from the peer's
buffer) against SM-driven push (stores into the peer's buffer), and cudaMemcpyAsync both ways,
every rank at once (every link direction busy, as in the fused exchange).

Why: the fused tile kernels push their partials (TMA stores into the owners' workspaces), while
T_link in tools/bench_multi_gpu.py is measured with a pull (link_bound.PeerCopy). If stores to
a peer run slower than loads from it, a push exchange cannot reach that T_link.

    TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 PYTHONPATH=. \\
      torchrun --nproc-per-node 2 tools/probes/link_push_pull.py --mib 256,512

Each copy is checked (the destination holds the source's fill) and timed with CUDA events over
`--reps` back-to-back copies after a warm-up, slowest rank; GB/s = 1e9 B/s per GPU. It never
creates a multicast object (plain symmetric allocations, the switches above kept set).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_common import peer_buffer, settle, slowest_us  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", default="256,512", help="buffer sizes, comma-separated")
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args(argv)
    from codegen.runtime.symm_env import run_torchrun

    return run_torchrun(lambda torch, dist, device: _run(args, torch, dist, device), False, 300)


def _run(args, torch, dist, device) -> int:
    rank, tp = dist.get_rank(), dist.get_world_size()
    peer = (rank + 1) % tp
    for mib in (int(v) for v in args.mib.split(",") if v):
        words = (mib << 20) // 4
        # [0]: pulled from, [1]: pushed into
        bufs, views = zip(*(peer_buffer(torch, dist, device, words, torch.int32)
                            for _ in range(2)))
        local_src = torch.full((words,), rank + 1, dtype=torch.int32, device=device)
        local_dst = torch.zeros(words, dtype=torch.int32, device=device)
        bufs[0].fill_(rank + 1)
        settle(torch, dist, device)
        copies = {
            "sm pull": (lambda: torch.bitwise_or(views[0], 0, out=local_dst), "local"),
            "sm push": (lambda: torch.bitwise_or(local_src, 0, out=views[1]), "pushed"),
            "memcpy pull": (lambda: local_dst.copy_(views[0]), "local"),
            "memcpy push": (lambda: views[1].copy_(local_src), "pushed"),
        }
        line = []
        for name, (fn, where) in copies.items():
            local_dst.zero_()
            bufs[1].zero_()
            settle(torch, dist, device)
            fn()
            settle(torch, dist, device)
            got = local_dst if where == "local" else bufs[1]   # pushed: the peer wrote mine
            want = peer + 1 if where == "local" else (rank - 1) % tp + 1
            bad = int((got != want).sum())
            us = slowest_us(torch, dist, device, fn, reps=args.reps)
            flags = [None] * tp
            dist.all_gather_object(flags, bad)
            bad_all = sum(flags)
            line.append(f"{name} {words * 4 / (us * 1e3):.0f} GB/s"
                        + (f" (WRONG in {bad_all} words)" if bad_all else ""))
            dist.barrier(device_ids=[device.index])
        if rank == 0:
            print(f"{mib} MiB, tp={tp}, every rank at once, slowest rank: " + "; ".join(line),
                  flush=True)
        settle(torch, dist, device)   # the next size's buffers replace these
    return 0


if __name__ == "__main__":
    sys.exit(main())
