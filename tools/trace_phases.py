#!/usr/bin/env python3
"""Where the time goes inside the fused tile kernel: the %globaltimer phase stamps of trace kernels.

Build the trace kernels first (CPU; a cache root of their own, never the serving root):

    codegen build --tp 2 --arch sm_90a --transport unicast --schedule tile --trace --cache-dir generated/trace

then, on the GPUs (one process per GPU; builds nothing, loads from $CODEGEN_CACHE_DIR):

    CODEGEN_CACHE_DIR=generated/trace TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_NVLS_ENABLE=0 \
      NVSHMEM_DISABLE_NVLS=1 PYTHONPATH=. torchrun --nproc-per-node 2 tools/trace_phases.py \
      --ms 4096,16384 --ks 768,2304 --json out/trace_phases.json

Per (mode, K, M): one SymmMemGroup per mode (unicast, max_M = max(ms) + 832 so the stamp rows
at the end of each workspace parity stay free), a GemmRsAr with the tile schedule and the
(BN, cta_group) the benchmark's fused row used (the tuning table under --tuning-root, default
the repo's generated/, at M; else the built-in dispatch; --bn / --cta-group fix them). After
--warmup calls, each of --reps repetitions is: a device-complete barrier of all ranks, then
--burst calls back to back (as in the benchmark's graphs), timed with CUDA events, then the
stamps of the LAST call are read on every rank (its parity: flags[FLAG_EPOCH] % 2 after the
sync: codegen/runtime/trace.py). Printed per rank (rank 0 prints every rank's row): the
median repetition (by kernel_us) of codegen.runtime.trace.summarize, and `none_us`: the same
template's plain GEMM (mode none, same BN / cta_group / SM budget; no stamps: mode none
kernels take no pointer the stamps could go through) timed with CUDA events the same way.
The result of the last call is checked against torch.mm + the NCCL collective (relerr).

Columns (us): event = CUDA-event time per call of the burst; kernel = max CTA end - min CTA
entry (stamps); gemm med/max = the consumers' GEMM per CTA; gemm_done = when the last CTA's
GEMM was done (from the first entry); pub_wait = TMA-store-completion wait before tile flags
(per CTA, summed over its tiles); p1_wait = comm wait for every rank's tile flags (per CTA);
p1_tail = last reduction end - last GEMM end; tail = last comm end (AR: its copy-out share) -
last GEMM end; p2_wait = the comm warps' AR flag waits before their copy-out items; none = our
plain GEMM alone. AR: the consumer warps also take copy-out items after their last tile
(KERNEL-CONTRACT step 4) and carry no stamps of their own; `kernel` includes their work.

Not a test: it asserts nothing about speed. It refuses to run when the environment enables
multicast (codegen/runtime/symm_env.py) and never creates a multicast object.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
from arg_types import ints  # noqa: E402  (tools/ is on sys.path)

BUILD = ("codegen build --tp {tp} --arch sm_90a --transport unicast --schedule tile --trace "
         "--cache-dir generated/trace")



def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modes", default="rs,ar")
    ap.add_argument("--ms", type=ints, default=[4096, 16384])
    ap.add_argument("--ks", type=ints, default=[768, 2304], help="K per rank")
    ap.add_argument("--n", type=int, default=7168)
    ap.add_argument("--bn", type=int, default=None, help="fix BN (default: as the benchmark)")
    ap.add_argument("--cta-group", type=int, default=None, help="fix the CTA group")
    ap.add_argument("--tuning-root", type=Path, default=ROOT / "generated",
                    help="cache root whose tuning/ tables pick BN / cta_group per M, as the "
                         "benchmark's fused row did (default: <repo>/generated); a missing "
                         "table: the built-in dispatch")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--reps", type=int, default=3, help="repetitions (the median one is printed)")
    ap.add_argument("--burst", type=int, default=4, help="calls back to back per repetition; "
                                                         "the last one's stamps are read")
    ap.add_argument("--no-none", action="store_true", help="skip the mode-none GEMM timing")
    ap.add_argument("--timeout-ms", type=int, default=2000)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if min(args.warmup, args.reps - 1, args.burst - 1) < 0:
        ap.error("--warmup >= 0, --reps >= 1, --burst >= 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    from codegen.env import load, repo_root

    root = os.environ.get("CODEGEN_CACHE_DIR")
    if not root or load().cache_dir == (repo_root() / "generated").resolve():
        print("trace_phases: set CODEGEN_CACHE_DIR to the trace kernels' root (e.g. "
              f"generated/trace, built by: {BUILD.format(tp='<tp>')})", file=sys.stderr)
        return 2
    from codegen.runtime.symm_env import run_torchrun

    return run_torchrun(lambda torch, dist, device: Tracer(args, torch, dist, device).run())


class Tracer:
    def __init__(self, args, torch, dist, device):
        self.args, self.torch, self.dist, self.device = args, torch, dist, device
        self.rank, self.tp = dist.get_rank(), dist.get_world_size()
        self.N = args.n
        self.max_M = max(args.ms) + 512 + 160 * 2   # stamp room (codegen.trace_layout.fits)
        self.ops: dict = {}

    def say(self, text: str) -> None:
        if self.rank == 0:
            print(text, flush=True)

    # ---- configuration --------------------------------------------------------------------
    def config(self, mode: str, K: int, M: int) -> tuple[int | None, int | None, str]:
        """(bn, cta_group, where from): fixed, the tuning table's tile row, or dispatch (None)."""
        a = self.args
        if a.bn is not None or a.cta_group is not None:
            return a.bn, a.cta_group, "fixed"
        from codegen.runtime.tuning import find_table

        table = find_table(a.tuning_root, "sm_90a", mode, self.tp, self.N, K) if a.tuning_root else None
        if table is not None:
            schedule, bn, cg = table.choice(M)
            if schedule == "tile":
                return bn, cg, f"table {a.tuning_root.name}/tuning"
        return None, None, "dispatch"

    def op(self, mode: str, K: int, bn, cg, sm_budget=None):
        from codegen.runtime import GemmRsAr

        key = (mode, K, bn, cg, sm_budget)
        if key not in self.ops:
            kw = {"bn": bn, "cta_group": cg, "schedule": "tile", "timeout_ms": self.args.timeout_ms}
            if mode == "none":
                self.ops[key] = GemmRsAr(self.max_M, self.N, K, "none", None, device=self.device,
                                         sm_budget=sm_budget, **kw)
            else:
                self.ops[key] = GemmRsAr(self.max_M, self.N, K, mode, self.group, **kw)
        return self.ops[key]

    # ---- timing -------------------------------------------------------------------------------
    def burst(self, call, sync) -> float:
        """Barrier (every rank idle), --burst calls back to back; us per call (CUDA events)."""
        torch = self.torch
        self.dist.barrier(device_ids=[self.device.index])
        torch.cuda.synchronize(self.device)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(self.args.burst):
            call()
        end.record()
        sync()
        return start.elapsed_time(end) * 1000.0 / self.args.burst

    def reference(self, mode: str, x, w, M: int):
        """torch.mm + the NCCL collective: what this rank's output must be."""
        torch = self.torch
        ref = torch.mm(x, w.t()).float()
        self.dist.all_reduce(ref)
        if mode == "rs":
            chunk = -(-M // self.tp)
            out = torch.zeros(chunk, self.N, dtype=torch.float32, device=self.device)
            rows = ref[self.rank * chunk: min(M, (self.rank + 1) * chunk)]
            out[: rows.shape[0]] = rows
            return out
        return ref

    def step(self, fn):
        """fn() on every rank: (its result, None), or (None, every rank's error) if any failed.
        A collective inside fn comes first in it, so every rank reaches it."""
        try:
            res, err = fn(), None
        except Exception as exc:  # noqa: BLE001 - recorded; the run goes on
            res, err = None, f"{type(exc).__name__}: {exc}"
        errs: list = [None] * self.tp
        self.dist.all_gather_object(errs, err)
        bad = [f"rank {r}: {e}" for r, e in enumerate(errs) if e]
        return (None, " | ".join(bad)) if bad else (res, None)

    def prepare(self, mode: str, K: int, M: int):
        bn, cg, source = self.config(mode, K, M)
        op = self.op(mode, K, bn, cg)
        op.prepare([M])
        variant = op.variant(M)
        if op.kernel(variant).entry.meta.get("trace") is not True:
            raise RuntimeError(f"{variant.name} in {op.cache_dir} is not a trace kernel: build it "
                               f"with {BUILD.format(tp=self.tp)}")
        return op, variant, source

    def one_rep(self, op, variant, call, M: int) -> dict:
        from codegen.runtime.trace import last_epoch, read_stamps, summarize

        event_us = self.burst(call, op.synchronize)
        epoch = last_epoch(self.group, self.rank)
        stamps = read_stamps(self.group, self.rank, M, epoch % 2, epoch=epoch,
                             cta_group=variant.cta_group)
        return {"event_us": event_us, "epoch": epoch, **summarize(stamps), "stamps": stamps.tolist()}

    @staticmethod
    def loaded(op, M: int):
        op.prepare([M])
        return op

    def gemm_alone(self, gemm, K: int, M: int, x, w) -> dict:
        """The same template's plain GEMM (mode none), timed like the fused calls."""
        torch, a = self.torch, self.args
        gout = torch.empty(M, self.N, dtype=torch.bfloat16, device=self.device)
        gcall = lambda: gemm(0, x, w, out=gout)  # noqa: E731
        for _ in range(a.warmup):
            gcall()
        gemm.synchronize()
        times = [self.burst(gcall, gemm.synchronize) for _ in range(a.reps)]
        return {"none_us": statistics.median(times), "none_variant": gemm.variant(M).name}

    def measure(self, mode: str, K: int, M: int, w) -> dict:
        torch, a = self.torch, self.args
        row = {"mode": mode, "K": K, "M": M, "N": self.N, "tp": self.tp, "rank": self.rank}
        x = (torch.randn((M, K), device=self.device) * 0.1).to(torch.bfloat16)
        ref = self.reference(mode, x, w, M)   # collective: first, before anything can fail
        got, err = self.step(lambda: self.prepare(mode, K, M))
        if err:
            return {**row, "error": err}
        op, variant, source = got
        out = torch.empty(op.out_shape(M), dtype=torch.bfloat16, device=self.device)
        call = lambda: op(self.rank, x, w, out=out)  # noqa: E731
        _, err = self.step(lambda: ([call() for _ in range(a.warmup)], op.synchronize()))
        reps = []
        for _ in range(a.reps if not err else 0):
            rep, err = self.step(lambda: self.one_rep(op, variant, call, M))
            if err:
                break
            reps.append(rep)
        if err:
            _, why = self.step(lambda: (op.reset_errors(), self.group.reset_state()))
            return {**row, "error": err + (f"; then the reset failed: {why}" if why else "")}
        row.update({"variant": variant.name, "config_from": source,
                    "grid": op.last_launch[self.rank]["grid"],
                    "relerr": float((out.float() - ref).norm() / ref.norm().clamp_min(1e-30)),
                    "reps": reps})
        if not a.no_none:
            # same BN / cta_group / SM budget; loaded in a step of its own (the timing's
            # barrier must be reached by every rank)
            gemm, err = self.step(lambda: self.loaded(self.op("none", K, variant.bn,
                                                              variant.cta_group, op.sm_budget), M))
            if not err:
                got, err = self.step(lambda: self.gemm_alone(gemm, K, M, x, w))
            row.update(got if not err else {"none_us": None, "none_error": err})
        return row

    # ---- the run ------------------------------------------------------------------------------
    def run(self) -> int:
        from codegen.runtime.symm_group import SymmMemGroup

        torch, a = self.torch, self.args
        props = torch.cuda.get_device_properties(self.device)
        self.say(f"tp={self.tp} {props.name} {props.multi_processor_count} SMs, N={self.N}, "
                 f"cache {os.environ.get('CODEGEN_CACHE_DIR')}, warmup {a.warmup}, reps {a.reps} "
                 f"x burst {a.burst}; NCCL_NVLS_ENABLE={os.environ.get('NCCL_NVLS_ENABLE')}")
        rows, failures, t_start = [], 0, time.time()
        for mode in a.modes.split(","):
            self.group = SymmMemGroup(self.max_M, self.N, mode)
            self.say(f"\n{mode}: symm backend {self.group.symm_backend}, multicast "
                     f"{self.group.multicast_note}")
            self.say(header())
            for K in a.ks:
                w = (torch.randn((self.N, K), device=self.device) * 0.1).to(torch.bfloat16)
                for M in a.ms:
                    got: list = [None] * self.tp
                    self.dist.all_gather_object(got, self.measure(mode, K, M, w))
                    for r in got:
                        rows.append(r)
                        failures += "error" in r
                        self.say(f"{mode} K={K} M={M} rank {r['rank']}: {r['error']}"
                                 if "error" in r else line(r))
            self.ops = {k: v for k, v in self.ops.items() if k[0] == "none"}
            self.group = None
            torch.cuda.synchronize(self.device)
            torch.cuda.empty_cache()
        self.say(f"{len(rows)} rows in {time.time() - t_start:.0f} s")
        if self.rank == 0 and a.json:
            a.json.parent.mkdir(parents=True, exist_ok=True)
            a.json.write_text(json.dumps({"tp": self.tp, "N": self.N, "device": props.name,
                                          "args": {k: str(v) for k, v in vars(a).items()},
                                          "rows": rows}, indent=1))
            print(f"wrote {a.json}")
        return 1 if failures else 0


def median_rep(row: dict) -> dict:
    """The repetition with the median kernel_us (an actual call, not a mix of calls)."""
    reps = sorted(row["reps"], key=lambda r: r["kernel_us"])
    return reps[(len(reps) - 1) // 2]


COLUMNS = ("mode", "K", "M", "rk", "bn/cg", "event", "kernel", "gemm med/max", "gemm_done",
           "pub_wait med/max", "p1_wait med/max", "p1_tail", "tail", "p2_wait med/max",
           "tiles", "units", "none", "relerr")


def header() -> str:
    return " | ".join(COLUMNS)


def line(row: dict) -> str:
    r = median_rep(row)
    v = row["variant"]
    bn_cg = v.split("_bn")[1].split("_tp")[0].replace("_cg", "/") if "_bn" in v else "?"

    def mm(name):
        return f"{r[name]['median']:.0f}/{r[name]['max']:.0f}"

    none = f"{row['none_us']:.0f}" if row.get("none_us") is not None else "-"
    cells = (row["mode"], row["K"], row["M"], row["rank"], bn_cg, f"{r['event_us']:.0f}",
             f"{r['kernel_us']:.0f}", mm("gemm_us"), f"{r['gemm_done_us']:.0f}", mm("publish_wait_us"),
             mm("phase1_wait_us"), f"{r['p1_tail_global_us']:.0f}", f"{r['tail_us']:.0f}",
             mm("phase2_wait_us"), f"{r['tiles']['min']}-{r['tiles']['max']}",
             f"{r['units']['min']}-{r['units']['max']}", none, f"{row['relerr']:.1e}")
    return " | ".join(str(c) for c in cells)


if __name__ == "__main__":
    sys.exit(main())
