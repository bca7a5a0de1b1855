#!/usr/bin/env python3
"""Single-GPU benchmark of the generated kernels (a script, not a test; no assertions on time).

(a) mode `none` (the template's plain GEMM) against torch.mm.
(b) fused GEMM + RS / AR on `tp` virtual ranks of one GPU against the unfused sequence on the
    same GPU: each rank's torch.mm on its own stream, then the reduction (RS: each rank's rows
    summed over the ranks into its output; AR: the sum, then a copy to every rank's output).

Timing: `--iters` launches captured in one CUDA graph, warm-up replays, then the median over
`--replays` replays divided by `--iters`. Prints a table and writes JSON with `--json PATH`.

    PYTHONPATH=. python3 tools/bench_single_gpu.py --part a --k 1024 --json out/a.json
    PYTHONPATH=. python3 tools/bench_single_gpu.py --part b --tp 8 --m 1024,4096
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from pathlib import Path

# Virtual ranks need distinct hardware queues per stream (see VirtualGroup); before CUDA init.
os.environ.setdefault("CUDA_DEVICE_MAX_CONNECTIONS", "32")

import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from codegen.runtime import GemmRsAr, VirtualGroup  # noqa: E402
from graph_timing import graph_time_us  # noqa: E402  (tools/ is the script's directory)
from arg_types import ints  # noqa: E402  (tools/ is on sys.path)

PART_A_M = [128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768]
PART_B_M = [128, 1024, 4096, 16384]
KS = [1024, 2304]
TPS = [2, 4, 8]



def rand(shape):
    return (torch.randn(shape, device="cuda") * 0.1).to(torch.bfloat16)


def part_a(ms, ks, N, iters, replays) -> list[dict]:
    rows = []
    print(f"\n(a) mode none vs torch.mm, N={N}")
    print(f"{'M':>6} {'K':>5} {'torch us':>9} {'TF/s':>6} {'none us':>9} {'TF/s':>6} {'speedup':>7}  variant / grid")
    for K in ks:
        op = GemmRsAr(max(ms), N, K, "none")
        w = rand((N, K))
        for M in ms:
            row = {"part": "a", "M": M, "N": N, "K": K}
            try:
                x = rand((M, K))
                out_t = torch.empty(M, N, dtype=torch.bfloat16, device="cuda")
                out_o = torch.empty_like(out_t)
                t_torch = graph_time_us(lambda: torch.mm(x, w.t(), out=out_t), iters, replays)
                t_op = graph_time_us(lambda: op(0, x, w, out=out_o), iters, replays)
                flop = 2.0 * M * N * K
                info = op.last_launch[0]
                row.update(torch_us=t_torch, op_us=t_op, torch_tflops=flop / t_torch / 1e6,
                           op_tflops=flop / t_op / 1e6, speedup=t_torch / t_op, **info)
                print(f"{M:>6} {K:>5} {t_torch:>9.1f} {row['torch_tflops']:>6.0f} {t_op:>9.1f} "
                      f"{row['op_tflops']:>6.0f} {row['speedup']:>7.2f}  {info['variant']} grid={info['grid']}",
                      flush=True)
            except Exception as exc:  # keep going: one missing variant should not end the run
                row["error"] = f"{type(exc).__name__}: {exc}"
                print(f"{M:>6} {K:>5}  ERROR {row['error'][:200]}", flush=True)
            rows.append(row)
        del op
        torch.cuda.empty_cache()
    return rows


class Unfused:
    """torch.mm per rank on its own stream, then the reduction on the current stream."""

    def __init__(self, mode, tp, M, N, xs, ws, outs):
        self.mode, self.tp, self.M, self.xs, self.ws, self.outs = mode, tp, M, xs, ws, outs
        self.parts = torch.empty(tp, M, N, dtype=torch.bfloat16, device="cuda")
        self.total = torch.empty(M, N, dtype=torch.bfloat16, device="cuda") if mode == "ar" else None
        self.streams = [torch.cuda.Stream() for _ in range(tp)]
        self.chunk = -(-M // tp)
        for o in outs:
            o.zero_()  # RS pad rows stay zero (never written below)

    def __call__(self):
        cur = torch.cuda.current_stream()
        for r, s in enumerate(self.streams):
            s.wait_stream(cur)
            with torch.cuda.stream(s):
                torch.mm(self.xs[r], self.ws[r].t(), out=self.parts[r])
        for s in self.streams:
            cur.wait_stream(s)
        if self.mode == "ar":
            torch.sum(self.parts, dim=0, out=self.total)
            for o in self.outs:
                o.copy_(self.total)
        else:
            for r, o in enumerate(self.outs):
                lo, hi = r * self.chunk, min(self.M, (r + 1) * self.chunk)
                if hi > lo:
                    torch.sum(self.parts[:, lo:hi], dim=0, out=o[: hi - lo])


def part_b(ms, ks, tps, modes, N, iters, replays) -> list[dict]:
    rows = []
    print(f"\n(b) fused GEMM+RS/AR on virtual ranks vs torch.mm per rank + reduction, N={N}")
    print(f"{'tp':>3} {'mode':>4} {'M':>6} {'K':>5} {'unfused us':>10} {'fused us':>9} {'speedup':>7}  variant / bn / cg / grid")
    for tp in tps:
        for mode in modes:
            group = VirtualGroup(tp, max(ms), N, mode)
            for K in ks:
                op = GemmRsAr(max(ms), N, K, mode, group)
                ws = [rand((N, K)) for _ in range(tp)]
                for M in ms:
                    row = {"part": "b", "tp": tp, "mode": mode, "M": M, "N": N, "K": K}
                    try:
                        xs = [rand((M, K)) for _ in range(tp)]
                        shape = op.out_shape(M)
                        outs_f = [torch.empty(shape, dtype=torch.bfloat16, device="cuda") for _ in range(tp)]
                        outs_u = [torch.empty(shape, dtype=torch.bfloat16, device="cuda") for _ in range(tp)]
                        unfused = Unfused(mode, tp, M, N, xs, ws, outs_u)
                        t_u = graph_time_us(unfused, iters, replays)
                        t_f = graph_time_us(lambda: op.run_all(xs, ws, out=outs_f), iters, replays)
                        op.synchronize()  # surfaces a kernel time-out as an error in this row
                        info = op.last_launch[0]
                        row.update(unfused_us=t_u, fused_us=t_f, speedup=t_u / t_f, **info)
                        print(f"{tp:>3} {mode:>4} {M:>6} {K:>5} {t_u:>10.1f} {t_f:>9.1f} {t_u / t_f:>7.2f}  "
                              f"{info['variant']} bn={info['bn']} cg={info['cta_group']} grid={info['grid']}",
                              flush=True)
                        del unfused
                    except Exception as exc:
                        row["error"] = f"{type(exc).__name__}: {exc}"
                        print(f"{tp:>3} {mode:>4} {M:>6} {K:>5}  ERROR {row['error'][:200]}", flush=True)
                        try:
                            op.reset_errors()
                            group.reset_state()
                        except Exception:
                            traceback.print_exc()
                    rows.append(row)
                del op
            del group
            torch.cuda.empty_cache()
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["a", "b", "ab"], default="ab")
    ap.add_argument("--m", type=ints, default=None, help="comma-separated M values")
    ap.add_argument("--k", type=ints, default=KS, help="K per rank (default 1024,2304)")
    ap.add_argument("--tp", type=ints, default=TPS, help="part b: tp values (default 2,4,8)")
    ap.add_argument("--mode", default="rs,ar", help="part b: rs,ar")
    ap.add_argument("--n", type=int, default=7168)
    ap.add_argument("--iters", type=int, default=20, help="launches per captured graph")
    ap.add_argument("--replays", type=int, default=20, help="timed replays (median taken)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        print("needs a GPU", file=sys.stderr)
        return 2
    t0 = time.time()
    rows = []
    props = torch.cuda.get_device_properties(0)
    print(f"device: {props.name}, {props.multi_processor_count} SMs; torch {torch.__version__}")
    if "a" in args.part:
        rows += part_a(args.m or PART_A_M, args.k, args.n, args.iters, args.replays)
    if "b" in args.part:
        rows += part_b(args.m or PART_B_M, args.k, args.tp, args.mode.split(","), args.n,
                       args.iters, args.replays)
    print(f"\n{len(rows)} rows in {time.time() - t0:.0f} s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"device": props.name, "sms": props.multi_processor_count,
                                         "torch": torch.__version__, "iters": args.iters,
                                         "replays": args.replays, "rows": rows}, indent=1))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
