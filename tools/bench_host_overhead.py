#!/usr/bin/env python3
"""Host time of one eager call: fused GemmRsAr against torch.mm + NCCL, same process (torchrun).

    PYTHONPATH=. torchrun --nproc-per-node 2 tools/bench_host_overhead.py [--ms 16,128,1024]
        [--k 768] [--n 7168] [--calls 200] [--reps 7] [--json PATH] [--md PATH]

Per mode (ar, rs) and M, on every rank at once (a barrier before each measurement):
- host us/call: wall time of `--calls` eager calls in a row, without a sync inside the loop
  (the launch queue never fills at these counts), median over `--reps`, of the slowest rank
  (every per-rank figure below is the slowest rank's). Fused: `op(rank, x, w)`
  with a fresh output each call, as a serving loop calls it; unfused: `torch.mm` into a fresh
  tensor + `dist.all_reduce` (AR) / `dist.reduce_scatter_tensor` (RS).
- eager us/call: CUDA events around the same loop (device time per call while the host issues
  it: above the graph time when the host cannot keep up or the ranks drift apart).
- kernel us in the eager loop: the fused kernel's own average duration from torch.profiler
  (a kernel that waits for a late peer is long), against the graph-replay time of one call.
- graph us/call: CUDA-graph replay (tools/graph_timing.py).
Rank 0 prints a markdown table; `host ratio` = fused host / unfused host (issue 11's target:
<= 0.3).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
from arg_types import ints  # noqa: E402  (tools/ is on sys.path)



def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modes", default="ar,rs")
    ap.add_argument("--ms", type=ints, default=[16, 128, 1024])
    ap.add_argument("--k", type=int, default=768)
    ap.add_argument("--n", type=int, default=7168)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--md", type=Path)
    return ap.parse_args(argv)


class HostBench:
    def __init__(self, torch, dist, device, args):
        self.torch, self.dist, self.device, self.a = torch, dist, device, args
        self.rank, self.tp = dist.get_rank(), dist.get_world_size()
        self._profiler_warm = False

    def barrier(self):
        self.torch.cuda.synchronize(self.device)
        self.dist.barrier()

    def slowest(self, value: float) -> float:
        """The largest of every rank's `value` (a collective step waits for the slowest)."""
        t = self.torch.tensor([value], dtype=self.torch.float64, device=self.device)
        self.dist.all_reduce(t, op=self.dist.ReduceOp.MAX)
        return float(t.item())

    def host_us(self, fn) -> float:
        """Median host us per call of the slowest rank."""
        times = []
        for _ in range(self.a.reps):
            self.barrier()
            t0 = time.perf_counter()
            for _ in range(self.a.calls):
                fn()
            times.append((time.perf_counter() - t0) * 1e6 / self.a.calls)
        self.barrier()
        return self.slowest(statistics.median(times))

    def eager_us(self, fn) -> float:
        torch = self.torch
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(self.a.reps):
            self.barrier()
            start.record()
            for _ in range(self.a.calls):
                fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1e3 / self.a.calls)
        self.barrier()
        return statistics.median(times)

    def kernel_us_in_loop(self, fn, symbol: str) -> float | None:
        from torch.profiler import ProfilerActivity, profile

        if not self._profiler_warm:  # the first session initialises CUPTI for ~100 ms, at a
            with profile(activities=[ProfilerActivity.CUDA]):  # different time on each rank
                self.torch.cuda.synchronize(self.device)
            self._profiler_warm = True
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            self.barrier()  # inside the session: both ranks start the loop together
            for _ in range(self.a.calls):
                fn()
            self.torch.cuda.synchronize(self.device)
        total, count = 0.0, 0
        for evt in prof.key_averages():
            if evt.key == symbol or evt.key.startswith(symbol[:60]):
                t = getattr(evt, "device_time_total", None)
                if t is None:
                    t = evt.cuda_time_total
                total, count = total + t, count + evt.count
        self.barrier()
        return self.slowest(total / count) if count else None

    def parts_us(self, op, M: int, x, w) -> dict:
        """Host cost of the pieces of one fused call (us, median of --reps x --calls)."""
        from codegen.runtime.call_plan import current_stream_handle
        from codegen.runtime.tma import encode_bf16_2d

        out = op(self.rank, x, w)
        plan = op._plan(self.rank, x, w, out, M)
        xp, wp, op_ = x.data_ptr(), w.data_ptr(), out.data_ptr()
        idx = self.device.index

        def timed(fn, calls=self.a.calls, settle=None):
            times = []
            for _ in range(self.a.reps):
                if settle is not None:
                    settle()
                t0 = time.perf_counter()
                for _ in range(calls):
                    fn()
                times.append((time.perf_counter() - t0) * 1e6 / calls)
            return statistics.median(times)

        parts = {
            "validate": timed(lambda: op._validate(self.rank, x, w)),
            "check_errors": timed(op.check_errors),
            "alloc_out": timed(lambda: self.torch.empty(op.out_shape(M), dtype=x.dtype,
                                                        device=self.device)),
            "alloc_new_empty": timed(lambda: x.new_empty(op.out_shape(M))),
            "stream_handle": timed(lambda: current_stream_handle(idx)),
            "tma_encode": timed(lambda: encode_bf16_2d(xp, M, x.shape[1], 2 * x.shape[1],
                                                       (64, 64), "128B")),
        }
        self.barrier()
        # launches with unchanged pointers: the driver call alone (all ranks launch the same
        # count, so every kernel finds its peers)
        parts["launch"] = timed(lambda: plan.launch(xp, wp, op_, current_stream_handle(idx)),
                                calls=50, settle=self.barrier)
        parts.update(self.driver_parts(plan, current_stream_handle(idx), timed))
        op.synchronize()
        self.barrier()
        return parts

    def driver_parts(self, plan, stream: int, timed) -> dict:
        """The driver call alone, three ways, on the plan's packed parameters: the raw
        cuLaunchKernelEx pointer, cuda-python's cuLaunchKernelEx, and (cluster 1 only) the raw
        cuLaunchKernel pointer. Same launch counts on every rank."""
        import ctypes

        from codegen.runtime.driver import cuda
        from codegen.runtime.raw_launch import launch_function

        cfg, raw, _ = plan._config(stream)
        func, func_int = plan._func
        params = plan._packed.address
        out = {}
        fn = launch_function()
        if raw is not None and fn is not None:
            out["driver_raw_ex"] = timed(lambda: fn(raw.address, func_int, params, None),
                                         calls=50, settle=self.barrier)
        out["driver_binding_ex"] = timed(lambda: cuda.cuLaunchKernelEx(cfg, func, params, 0),
                                         calls=50, settle=self.barrier)
        if plan.kern.cluster[0] == 1:
            flags = cuda.CUdriverProcAddress_flags.CU_GET_PROC_ADDRESS_DEFAULT
            err, pfn, _ = cuda.cuGetProcAddress(b"cuLaunchKernel", 12000, flags)
            plain = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, *[ctypes.c_uint] * 7,
                                     ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(int(pfn))
            b, smem = plan.kern.block, plan.kern.dynamic_smem
            out["driver_raw_plain"] = timed(
                lambda: plain(func_int, plan.grid, 1, 1, b[0], b[1], b[2], smem, stream, params,
                              None), calls=50, settle=self.barrier)
        return out

    def row(self, mode: str, op, M: int) -> dict:
        from graph_timing import graph_time_us

        torch, dist = self.torch, self.dist
        K, N = self.a.k, self.a.n
        gen = torch.Generator(device=self.device).manual_seed(1000 + self.rank)
        x = torch.randn(M, K, device=self.device, generator=gen).to(torch.bfloat16)
        w = torch.randn(N, K, device=self.device, generator=gen).to(torch.bfloat16)

        def fused():
            return op(self.rank, x, w)

        if mode == "ar":
            def unfused():
                y = torch.mm(x, w.t())
                dist.all_reduce(y)
                return y
        else:
            def unfused():
                y = torch.mm(x, w.t())
                out = torch.empty(M // self.tp, N, dtype=y.dtype, device=self.device)
                dist.reduce_scatter_tensor(out, y)
                return out

        fused(), unfused()  # load kernels, settle the allocator and NCCL
        symbol = op.kernel(op.variant(M)).entry.symbol
        row = {"mode": mode, "M": M, "K": K, "N": N, "variant": op.variant(M).name}
        row["fused_host_us"] = self.host_us(fused)
        row["unfused_host_us"] = self.host_us(unfused)
        row["host_ratio"] = row["fused_host_us"] / row["unfused_host_us"]
        row["fused_eager_us"] = self.slowest(self.eager_us(fused))
        row["unfused_eager_us"] = self.slowest(self.eager_us(unfused))
        row["fused_kernel_eager_us"] = self.kernel_us_in_loop(fused, symbol)
        self.barrier()
        row["fused_graph_us"] = self.slowest(graph_time_us(fused, iters=20, replays=10))
        self.barrier()
        row["unfused_graph_us"] = self.slowest(graph_time_us(unfused, iters=20, replays=10))
        op.synchronize()
        row["fused_parts_us"] = {k: self.slowest(v) for k, v in self.parts_us(op, M, x, w).items()}
        row["raw_launch"] = op._plan(self.rank, x, w, op(self.rank, x, w), M).uses_raw_launch
        return row


def _fmt(v):
    return "-" if v is None else f"{v:.1f}" if isinstance(v, float) else str(v)


def markdown(rows: list[dict]) -> str:
    cols = ["mode", "M", "fused_host_us", "unfused_host_us", "host_ratio", "fused_eager_us",
            "unfused_eager_us", "fused_kernel_eager_us", "fused_graph_us", "unfused_graph_us"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        vals = [f"{r[c]:.2f}" if c == "host_ratio" else _fmt(r.get(c)) for c in cols]
        lines.append("| " + " | ".join(vals) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    from codegen.runtime.symm_env import run_torchrun

    args = parse_args(argv)

    def body(torch, dist, device) -> int:
        from codegen.runtime.op import GemmRsAr
        from codegen.runtime.symm_group import SymmMemGroup

        bench = HostBench(torch, dist, device, args)
        rows = []
        for mode in args.modes.split(","):
            group = SymmMemGroup(max(args.ms), args.n, mode)
            op = GemmRsAr(max(args.ms), args.n, args.k, mode, group)
            op.prepare(args.ms)
            for M in args.ms:
                rows.append(bench.row(mode, op, M))
                if bench.rank == 0:
                    print(json.dumps(rows[-1]), flush=True)
            del op, group
        if bench.rank == 0:
            table = markdown(rows)
            print(table)
            if args.md:
                args.md.write_text(table + "\n")
            if args.json:
                args.json.write_text(json.dumps({"device": torch.cuda.get_device_name(device),
                                                 "tp": bench.tp, "rows": rows}, indent=1))
        return 0

    return run_torchrun(body)


if __name__ == "__main__":
    sys.exit(main())
