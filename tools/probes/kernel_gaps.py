#!/usr/bin/env python3
"""Where a back-to-back call's time goes: the kernel itself or the gap before the next one
(a probe, not a test; needs a GPU).

For each (K, M) it captures `--iters` calls of one path in a CUDA graph (torch.mm, and mode
none as the op dispatches it from the cache root's tables), replays the graph under
torch.profiler and reads the GPU kernel records: per call the kernel's duration and the gap
from the end of one kernel to the start of the next (median over the replays' inner calls).
Graph replay is what the benchmarks time, so `dur + gap` is the benchmarks' per-call time;
the split says whether a path loses inside the kernel or between kernels.

    PYTHONPATH=. python3 tools/probes/kernel_gaps.py --ms 352,512 --ks 2304 --json gaps.json

`--cold` cycles the weight through copies that exceed the L2 (graph_timing.weight_copies), as
the benchmarks' cold regime does.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
from arg_types import ints  # noqa: E402  (tools/ is on sys.path)



def kernel_records(trace_path: str) -> list[tuple[float, float, str]]:
    """(start us, duration us, name) of every GPU kernel in a chrome trace, by start time."""
    with open(trace_path) as f:
        events = json.load(f).get("traceEvents", [])
    recs = [(float(ev["ts"]), float(ev["dur"]), ev.get("name", "?")) for ev in events
            if ev.get("cat") == "kernel" and "ts" in ev and "dur" in ev]
    return sorted(recs)


def split_calls(recs: list[tuple[float, float, str]], per_call: int,
                iters: int) -> dict:
    """Median kernel time and gap per call from `recs`, replays of `iters` calls of
    `per_call` kernels each. A call's kernel time = the sum of its kernels' durations; its gap
    = the idle time between its kernels plus the gap to the next call's first kernel (calls
    inside a replay only: the gap after a replay's last call is the host's, not the GPU's)."""
    n_call = per_call * iters
    if len(recs) % n_call:
        raise ValueError(f"{len(recs)} kernel records are not whole replays of {iters} calls "
                         f"x {per_call} kernels")
    busy, gaps = [], []
    for r0 in range(0, len(recs), n_call):
        rep = recs[r0:r0 + n_call]
        for c in range(iters - 1):
            call = rep[c * per_call:(c + 1) * per_call]
            nxt = rep[(c + 1) * per_call][0]
            work = sum(d for _, d, _ in call)
            busy.append(work)
            gaps.append(nxt - call[0][0] - work)
    return {"kernel_us": statistics.median(busy), "gap_us": statistics.median(gaps),
            "per_call_us": statistics.median(b + g for b, g in zip(busy, gaps)),
            "samples": len(busy)}


def profile_graph(fn, iters: int, replays: int) -> tuple[list[tuple[float, float, str]], float]:
    """Kernel records of `replays` replays of a graph of `iters` calls of fn, and the time per
    call of the same graph by CUDA events without the profiler (graph_timing.replay_time_us,
    as the benchmarks time it), taken just before."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    from graph_timing import captured_graph, replay_time_us

    graph = captured_graph(fn, iters)
    events_us = replay_time_us(graph, iters, replays)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(replays):
            graph.replay()
        torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(path)
        return kernel_records(path), events_us


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ms", type=ints, default=[176, 352, 384, 512])
    ap.add_argument("--ks", type=ints, default=[2304])
    ap.add_argument("--n", type=int, default=7168)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--replays", type=int, default=10)
    ap.add_argument("--cold", action="store_true")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)

    import torch

    from codegen.runtime.op import GemmRsAr
    from graph_timing import rotating, weight_copies, weight_of

    l2 = torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size
    rows = []
    for K in args.ks:
        w = torch.randn(args.n, K, device="cuda").to(torch.bfloat16)
        src = rotating(weight_copies(w, l2)) if args.cold else w
        op = GemmRsAr(max(args.ms), args.n, K, "none")   # one op per K: kernels load once
        for M in args.ms:
            x = torch.randn(M, K, device="cuda").to(torch.bfloat16)
            out = torch.empty(M, args.n, device="cuda", dtype=torch.bfloat16)
            paths = {"torch.mm": lambda: torch.mm(x, weight_of(src).t(), out=out),
                     "ours": lambda: op(0, x, weight_of(src), out=out)}
            for name, fn in paths.items():
                recs, events_us = profile_graph(fn, args.iters, args.replays)
                per_call = len(recs) // (args.iters * args.replays)
                row = {"K": K, "M": M, "path": name, "cold": args.cold,
                       "kernels": sorted({r[2] for r in recs}),
                       **split_calls(recs, per_call, args.iters), "events_us": events_us}
                if name == "ours":
                    row["variant"] = op.variant(M).name
                rows.append(row)
                print(f"K={K:5d} M={M:5d} {name:9s} kernel {row['kernel_us']:7.2f} us  gap "
                      f"{row['gap_us']:6.2f} us  per call {row['per_call_us']:7.2f} us "
                      f"(events {events_us:7.2f} us)  "
                      f"{row.get('variant', row['kernels'][0][:60])}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
