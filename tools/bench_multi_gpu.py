#!/usr/bin/env python3
"""Multi-GPU benchmark: fused GEMM + RS / AR vs the strongest unfused paths, one process per GPU.

    PYTHONPATH=. torchrun --nproc-per-node 2 tools/bench_multi_gpu.py \
        --json out/bench_tp2.json --png out/bench_tp2.png --md out/bench_tp2.md [--tune-out generated]

Per (mode, K, M), all in one run (NCCL with NVLS off, symmetric memory without multicast):
  gemm      torch.mm alone
  unfused   every baseline of tools/baselines.py (AR: torch.mm + NCCL all_reduce, + symm-mem
            two-shot, + symm-mem one-shot; RS: torch.mm + NCCL reduce_scatter_tensor, + symm-mem
            reduce_scatter_out); the best one and which; a failing baseline is recorded, skipped
  fused     GemmRsAr over SymmMemGroup (unicast), dispatching (or --schedule/--bn/--cta-group);
            when its variant is not in the cache it falls back to the tile schedule and says so
  vs best   best unfused / fused (> 1: fused wins)
  T_link    bytes each GPU sends over NVLink (tools/link_bound.py: RS M*N*2*(tp-1)/tp, AR twice
            that) / the peer bandwidth measured once per run, before the first row: a copy of
            --link-mib MiB from the peer's symmetric buffer, every rank at once, by an SM kernel
            and by memcpy (--link-copy picks which one T_link uses); --link-mib 0 skips it
  T_phys    max(torch.mm alone, T_link); eff = T_phys / fused (1.0 = at the bound)
  ours GEMM OUR GEMM alone (--no-ours-gemm skips it): GemmRsAr mode 'none' (no group, no
            exchange) with exactly the schedule, BN and CTA group of the fused row's variant and
            the fused op's SM budget, same M, N, K, timed like the rest on every rank at once
            (slowest rank) and checked against torch.mm; a missing mode-none kernel (built by
            `codegen build --tp 2 --arch sm_90a`) is recorded in the row (ours_gemm_error)
  breakdown gemm_eff = T_gemm / ours GEMM; exposed = fused - max(ours GEMM, T_link); overlap =
            1 - exposed / min(ours GEMM, T_link) in [0, 1] (tools/link_bound.py time_breakdown)
With --tune-out DIR, every candidate (codegen.runtime.tuning.candidates: tile BN 128/256 x CTA
group 1/2, swapab at its token tile) is timed too; the fastest per M is 'tuned', and rank 0
writes one tuning table per (mode, K) to DIR/tuning/ (DIR is a cache root, e.g. generated).
A candidate whose construction or prepare raises CacheMissError / InputError is skipped with
the reason. A result off by more than baselines.MAX_RELERR is recorded as wrong and skipped.
Timing: every path of a row (torch.mm, the baselines, fused, ours GEMM, the candidates) is built
and checked first, then timed: `--iters` calls captured in one CUDA graph, `--warmup` replays,
median of `--replays` replays / iters, per rank; with `--rounds R` every path R times, rounds
after the first in a fresh random order (`--seed`, the same on every rank), the median of the
rounds; the reported time is the slowest rank's (all_reduce MAX). With
`--cold-weights` every call of every path (ours and the baselines) reads the next of several
copies of W that span twice the L2, so W comes from HBM as in a model; without it one W of
11-33 MB stays in the L2 across replays.
Crossover M per (mode, K): the smallest M from which fused is never slower than the best.

Not a test: it asserts nothing about speed. It refuses to run when the environment enables
multicast (see codegen/runtime/symm_env.py) unless --allow-multicast (never on our machines).
"""
from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import shlex
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from baselines import BASELINES, MAX_RELERR, Unfused, relerr  # noqa: E402  (tools/ is the script's directory)
from arg_types import ints  # noqa: E402  (tools/ is on sys.path)
from bench_report import crossovers, markdown_table, plot_png, summarize, text_line, tuning_rows  # noqa: E402
from graph_timing import after_elementwise, graph_time_us, rotating, weight_copies, weight_of  # noqa: E402
from link_bound import COPIES, PeerCopy, gbps  # noqa: E402

from codegen.runtime.tuning import SCHEDULES, candidates, table_path, write_table  # noqa: E402

MS = [16, 32, 64, 128, 256, 512, 2048, 8192]  # decode sizes, then two for context
KS = [768, 1536, 2304]
INF = float("inf")  # a failed time: all_reduce MAX keeps it failed on every rank



def parse_args(argv=None):
    from codegen.runtime.symm_env import ALLOW_FLAG_HELP

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modes", default="rs,ar")
    ap.add_argument("--ms", type=ints, default=MS)
    ap.add_argument("--ks", type=ints, default=KS, help="K per rank")
    ap.add_argument("--n", type=int, default=7168)
    ap.add_argument("--schedule", choices=list(SCHEDULES), default=None,
                    help="fix the schedule of the 'fused' column (default: dispatch)")
    ap.add_argument("--bn", type=int, default=None, help="fix BN (default: dispatch)")
    ap.add_argument("--cta-group", type=int, default=None, help="fix the CTA group (default: dispatch)")
    ap.add_argument("--baselines", default=None, help="comma list (default: all of tools/baselines.py)")
    ap.add_argument("--tune-out", type=Path, default=None, metavar="DIR",
                    help="sweep every fused candidate; write DIR/tuning/<arch>_<mode>_tp<tp>_n<N>_k<K>.json")
    ap.add_argument("--iters", type=int, default=10, help="calls per captured graph")
    ap.add_argument("--replays", type=int, default=50, help="timed replays (median taken)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed replays")
    ap.add_argument("--rounds", type=int, default=1,
                    help="time every path of a row this many times, each round after the first "
                         "in a fresh random order (the same on every rank), and take medians")
    ap.add_argument("--seed", type=int, default=0, help="the rounds' order (every rank the same)")
    ap.add_argument("--timeout-ms", type=int, default=2000)
    ap.add_argument("--link-mib", type=int, default=512,
                    help="MiB copied from the peer to measure the NVLink bandwidth (0: not measured)")
    ap.add_argument("--link-copy", choices=COPIES, default="sm",
                    help="which measured copy gives T_link: an SM kernel (default) or memcpy")
    ap.add_argument("--cold-weights", action="store_true",
                    help="every timed path cycles through copies of W spanning twice the L2 (each "
                         "call reads W from HBM, as in a model: graph_timing.weight_copies)")
    ap.add_argument("--after-elementwise", action="store_true",
                    help="precede every timed call (each baseline's, torch.mm's, ours) by an "
                         "in-place elementwise kernel writing x (x *= 1), as a norm precedes a "
                         "projection in a model: no call then directly follows a GEMM")
    ap.add_argument("--no-ours-gemm", action="store_true",
                    help="do not time our GEMM alone (mode none) for the time breakdown")
    ap.add_argument("--sm-margin", type=int, default=0)
    ap.add_argument("--symm-backend", default=None)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--png", type=Path, default=None)
    ap.add_argument("--md", type=Path, default=None, help="write the table as Markdown")
    ap.add_argument("--allow-multicast", action="store_true", help=ALLOW_FLAG_HELP)
    args = ap.parse_args(argv)
    args.baselines = args.baselines.split(",") if args.baselines else None
    unknown = set(args.baselines or ()) - {n for names in BASELINES.values() for n in names}
    if unknown:
        ap.error(f"--baselines: unknown {', '.join(sorted(unknown))}; known: {BASELINES}")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    from codegen.runtime.symm_env import run_torchrun

    return run_torchrun(lambda torch, dist, device: Bench(args, torch, dist, device).run(),
                        args.allow_multicast, None)


class FusedOps:
    """The fused ops of one (mode, K), one per (schedule, bn, cta_group, sm_budget), made on
    first use. A GemmRsAr without the `schedule=` keyword runs the tile schedule only."""

    def __init__(self, bench, K: int):
        from codegen.runtime import GemmRsAr

        self.b, self.K, self.cls, self.ops = bench, K, GemmRsAr, {}
        self.has_schedule = "schedule" in inspect.signature(GemmRsAr.__init__).parameters

    def get(self, M: int, schedule, bn, cg, sm_budget=None):
        """The op, with the variant of M loaded; CacheMissError / InputError when it cannot be.
        `sm_budget` None: the op's default (the group's)."""
        from codegen.runtime import InputError

        key = (schedule, bn, cg, sm_budget)
        if key not in self.ops:
            kw = {"bn": bn, "cta_group": cg, "timeout_ms": self.b.args.timeout_ms}
            if sm_budget is not None:
                kw["sm_budget"] = sm_budget
            if self.has_schedule:
                kw["schedule"] = schedule
            elif schedule not in (None, "tile"):
                raise InputError(f"this GemmRsAr has no schedule= keyword (no {schedule} schedule)")
            self.ops[key] = self.make(kw)
        op = self.ops[key]
        op.prepare([M])
        return op

    def make(self, kw: dict):
        b = self.b
        return self.cls(b.max_M, b.N, self.K, b.mode, b.group, **kw)


class GemmOps(FusedOps):
    """Our plain GEMMs of one K (GemmRsAr mode 'none': no group, this rank's device, launched
    on the current stream as local rank 0), one per (schedule, bn, cta_group, sm_budget)."""

    def make(self, kw: dict):
        b = self.b
        return self.cls(b.max_M, b.N, self.K, "none", None, device=b.device, **kw)


class Bench:
    def __init__(self, args, torch, dist, device):
        self.args, self.torch, self.dist, self.device = args, torch, dist, device
        self.rank, self.tp, self.N = dist.get_rank(), dist.get_world_size(), args.n
        self.max_M = max(args.ms)
        self.link: dict = {}  # the peer-bandwidth probe's result (measure_link)
        self.prelude_x = None  # the x that --after-elementwise rewrites before each timed call
        self.rng = random.Random(args.seed)  # the rounds' orders: the same draws on every rank

    def say(self, text: str) -> None:
        if self.rank == 0:
            print(text, flush=True)

    # ---- collective helpers -----------------------------------------------------------------
    def agree(self, err: str | None) -> str | None:
        """Every rank's error joined ('rank r: ...'), or None when no rank had one."""
        errs: list = [None] * self.tp
        self.dist.all_gather_object(errs, err)
        bad = [f"rank {r}: {e}" for r, e in enumerate(errs) if e]
        return " | ".join(bad) if bad else None

    def slowest(self, values: list[float]) -> list[float]:
        t = self.torch.tensor(values, dtype=self.torch.float64, device=self.device)
        self.dist.all_reduce(t, op=self.dist.ReduceOp.MAX)
        return t.tolist()

    def step(self, fn):
        """fn() on every rank: (its result, None), or (None, every rank's error) if any failed."""
        try:
            res, err = fn(), None
        except Exception as exc:  # noqa: BLE001 - recorded; the run goes on
            res, err = None, f"{type(exc).__name__}: {exc}"
        err = self.agree(err)
        return (None, err) if err else (res, None)

    def timed(self, fn) -> float:
        self.dist.barrier(device_ids=[self.device.index])
        a = self.args
        return graph_time_us(self.with_prelude(fn), a.iters, a.replays, a.warmup)

    def with_prelude(self, fn):
        """fn, or with --after-elementwise while a row is measured: x *= 1, then fn()."""
        x = self.prelude_x
        if not self.args.after_elementwise or x is None:
            return fn
        return after_elementwise(fn, x)

    def result(self, fn, ref, sync=None):
        """A copy of `fn()`'s result (eager, synced); ValueError if it is off from `ref`."""
        out = fn()
        (sync or (lambda: self.torch.cuda.synchronize(self.device)))()
        err = relerr(out, ref) if ref is not None else None
        if err is not None and err > MAX_RELERR:
            raise ValueError(f"wrong result: relerr {err:.2e} against the first baseline")
        return out.clone(), err

    # ---- one (mode, K, M): every path is built and checked first, then timed together --------
    def time_paths(self, paths: dict) -> dict:
        """{key: (us, None) or (None, why)} of every `paths[key]` = (call, after): `call` timed
        (self.timed, then `after()`, e.g. the op's synchronize that raises a recorded kernel
        error) in --rounds rounds, each in a fresh order drawn from the same seed on every rank
        (round 1 in the given order), on every rank at once; the median per path, then the
        slowest rank's. A path failing on any rank is dropped from later rounds with the reason.
        Timing paths one after another in a fixed order lets the GPU's recent clock and power rank
        two close paths by when they ran (graph_timing.interleaved_medians)."""
        samples = {k: [] for k in paths}
        why: dict = {}
        keys = list(paths)
        for r in range(max(1, self.args.rounds)):
            order = list(keys)
            if r:
                self.rng.shuffle(order)
            for k in order:
                if k in why:
                    continue
                call, after = paths[k]
                us, err = self.step(lambda: (self.timed(call), after())[0])
                if err:
                    why[k] = err
                else:
                    samples[k].append(us)
        med = [statistics.median(samples[k]) if k not in why else INF for k in keys]
        slow = self.slowest(med) if keys else []
        return {k: ((None, why[k]) if k in why else (t, None)) for k, t in zip(keys, slow)}

    def check_baselines(self, row: dict, x, w, M: int) -> tuple:
        """Run and check every baseline once: (reference, {name: call} of those that ran right);
        the failures go to row["baseline_errors"]. The reference is the first good result."""
        calls, why = self.unfused.calls(x, w, M)
        ref, good = None, {}
        for name in self.unfused.names:
            err = self.agree(why.get(name))  # a set-up failure on any rank: no rank runs it
            if not err:
                res, err = self.step(lambda: self.result(calls[name], ref))
            if err:
                why[name] = err
                continue
            good[name] = calls[name]
            if ref is None:
                ref = res[0]
        row["baseline_errors"] = why
        return ref, good

    def check_fused(self, M: int, x, w, ref, schedule, bn, cg) -> dict:
        """Build and check one fused configuration on every rank: {call, after, op, relerr} or
        {skipped: why}. A construction or prepare error (CacheMissError, InputError: e.g. the
        variant is not in the cache) or a wrong or failed call skips it (the group's state reset
        after a failed call)."""
        op, err = self.step(lambda: self.ops.get(M, schedule, bn, cg))
        if err:
            return {"skipped": err}
        out = self.torch.empty(op.out_shape(M), dtype=self.torch.bfloat16, device=self.device)
        call = lambda: op(self.rank, x, weight_of(w), out=out)  # noqa: E731
        res, err = self.step(lambda: self.result(call, ref, op.synchronize))
        if err:
            return {"skipped": self.reset_after(op, err)}
        return {"call": call, "after": op.synchronize, "op": op, "relerr": res[1]}

    def reset_after(self, op, err: str, group: bool = True) -> str:
        """Clear a failed op's error record (and the group's state): the reason, with the
        reset's failure if any."""
        _, why = self.step(lambda: (op.reset_errors(), self.group.reset_state() if group else None))
        return err + (f"; then the reset failed: {why}" if why else "")

    def fused_info(self, f: dict) -> dict:
        op = f["op"]
        return {**op.last_launch[self.rank], "sm_budget": op.sm_budget}

    def check_ours_gemm(self, M: int, x, w, row: dict, ref) -> dict:
        """Our GEMM alone, as the fused row ran it: GemmRsAr mode 'none' with the schedule, BN
        and CTA group of the row's variant (codegen.spec.Variant.parse) and its sm_budget, checked
        against `ref` (torch.mm's result, or None): {call, after, op, relerr} or {ours_gemm_us:
        None, ours_gemm_error: why}, or {ours_gemm_us: None} with --no-ours-gemm."""
        from codegen.spec import Variant

        if self.args.no_ours_gemm:
            return {"ours_gemm_us": None}
        if not row.get("variant") or row.get("error"):
            return {"ours_gemm_us": None,
                    "ours_gemm_error": "no fused variant to mirror (the fused op did not run)"}

        def make():
            v = Variant.parse(row["variant"])
            return self.gemm_ops.get(M, v.schedule, v.bn, v.cta_group, row.get("sm_budget"))
        op, err = self.step(make)
        if err:
            return {"ours_gemm_us": None, "ours_gemm_error": err}
        out = self.torch.empty(op.out_shape(M), dtype=self.torch.bfloat16, device=self.device)
        call = lambda: op(0, x, weight_of(w), out=out)  # noqa: E731  (group-less: local rank 0)
        res, err = self.step(lambda: self.result(call, ref, op.synchronize))
        if err:
            return {"ours_gemm_us": None,
                    "ours_gemm_error": self.reset_after(op, err, group=False)}
        return {"call": call, "after": op.synchronize, "op": op, "relerr": res[1]}

    def measure(self, K: int, M: int, w) -> dict:
        row = {"tp": self.tp, "mode": self.mode, "K": K, "M": M, "N": self.N,
               "link_gbps": self.link.get("gbps")}
        x = (self.torch.randn((M, K), device=self.device) * 0.1).to(self.torch.bfloat16)
        self.prelude_x = x
        try:
            return self._measure(row, K, M, x, w)
        finally:
            self.prelude_x = None

    def _measure(self, row: dict, K: int, M: int, x, w) -> dict:
        a, torch = self.args, self.torch
        mm_out = torch.empty(M, self.N, dtype=torch.bfloat16, device=self.device)
        mm = lambda: torch.mm(x, weight_of(w).t(), out=mm_out)  # noqa: E731
        mm_ok, mm_err = self.step(lambda: (mm(), torch.cuda.synchronize(self.device)))
        # 1. build and check every path (timing comes after, all paths together)
        ref, good = self.check_baselines(row, x, w, M)
        fused = self.check_fused(M, x, w, ref, a.schedule, a.bn, a.cta_group)
        if "skipped" in fused and a.schedule != "tile":
            note = f"{fused['skipped']}; fell back to the tile schedule"
            fused = {**self.check_fused(M, x, w, ref, "tile", a.bn, a.cta_group),
                     "fused_note": note}
            self.say(f"  M={M}: {note}")
        if "skipped" in fused:
            row["error"] = fused.pop("skipped")
        else:
            row.update(self.fused_info(fused))
        if "fused_note" in fused:
            row["fused_note"] = fused["fused_note"]
        mm_ref = mm_out if mm_err is None else None  # this rank's x @ w^T
        ours = self.check_ours_gemm(M, x, w, row, mm_ref)
        cands = []
        if a.tune_out is not None:
            for s_, bn, cg in candidates(M, self.N, mode=self.mode, K=K):
                c = self.check_fused(M, x, w, ref, s_, bn, cg)
                if c.get("skipped") and s_ != "tile":
                    self.say(f"  M={M}: {s_} bn{bn} c{cg} skipped ({c['skipped'][:200]}); "
                             f"the tile schedule stands in")
                if "op" in c:
                    c["info"] = c["op"].last_launch[self.rank]
                cands.append(((s_, bn, cg), c))
        # 2. time them together: torch.mm, the baselines, fused, ours, the candidates
        none = lambda: None  # noqa: E731
        paths = {} if mm_err else {"gemm": (mm, none)}
        paths.update({("base", n): (c, none) for n, c in good.items()})
        if "call" in fused:
            paths["fused"] = (fused["call"], fused["after"])
        if "call" in ours:
            paths["ours"] = (ours["call"], ours["after"])
        for i, (_, c) in enumerate(cands):
            if "call" in c:
                paths[("cand", i)] = (c["call"], c["after"])
        t = self.time_paths(paths)
        # 3. the row
        row["gemm_us"] = t["gemm"][0] if "gemm" in t else None
        for n in self.unfused.names:
            if ("base", n) in t and t[("base", n)][1]:
                row["baseline_errors"][n] = t[("base", n)][1]
        row["baselines"] = {n: t[("base", n)][0] if ("base", n) in t else None
                            for n in self.unfused.names}
        row["fused_us"], row["fused_relerr"] = None, None
        if "fused" in t:
            us, err = t["fused"]
            if err:
                row["error"] = self.reset_after(fused["op"], err)
            else:
                row["fused_us"], row["fused_relerr"] = us, fused["relerr"]
        if "call" in ours:
            us, err = t["ours"]
            launch = ours["op"].last_launch[0]
            row.update({"ours_gemm_us": us, "ours_gemm_relerr": ours["relerr"],
                        "ours_gemm_variant": launch["variant"], "ours_gemm_grid": launch["grid"]}
                       if not err else
                       {"ours_gemm_us": None,
                        "ours_gemm_error": self.reset_after(ours["op"], err, group=False)})
        else:
            row.update(ours)
        if a.tune_out is not None:
            row["candidates"] = []
            for i, ((s_, bn, cg), c) in enumerate(cands):
                if "call" not in c:
                    entry = {"skipped": c["skipped"]}
                else:
                    us, err = t[("cand", i)]
                    entry = ({"skipped": self.reset_after(c["op"], err)} if err else
                             {"us": us, "relerr": c["relerr"], **c["info"],
                              "sm_budget": c["op"].sm_budget})
                row["candidates"].append({**entry, "schedule": s_, "bn": bn, "cta_group": cg})
        return summarize(row)

    # ---- the peer bandwidth ---------------------------------------------------------------------
    def measure_link(self) -> dict:
        """Every rank copies --link-mib MiB from its peer's symmetric buffer at once, timed like a
        row (slowest rank) for each copy of link_bound.COPIES and checked: {bytes, peer, copy,
        gbps (the --link-copy one's, or None), <copy>_us, <copy>_gbps, errors?} or {error}."""
        a = self.args
        if a.link_mib <= 0:
            return {"error": "not measured (--link-mib 0)"}
        probe, err = self.step(lambda: PeerCopy(self.torch, self.dist, self.device, a.link_mib << 20))
        if err:
            return {"error": f"peer buffer: {err}"}
        link = {"bytes": probe.nbytes, "peer": "rank r reads rank (r + 1) % tp", "copy": a.link_copy}
        errors = {}
        for name, call in probe.calls().items():
            us, err = self.step(lambda: self.timed(call))
            if not err:
                _, err = self.step(lambda: probe.check(call))
            us = self.slowest([INF if err else us])[0]
            link[f"{name}_us"] = None if us == INF else us
            link[f"{name}_gbps"] = gbps(probe.nbytes, link[f"{name}_us"])
            if err:
                errors[name] = err
        _, err = self.step(probe.finish)  # every rank's copies are done before any buffer is freed
        if err:
            errors["finish"] = err
        link["gbps"] = link[f"{a.link_copy}_gbps"]
        if errors:
            link["errors"] = errors
        if link["gbps"] is None:
            link["error"] = f"the {a.link_copy} copy failed: {errors.get(a.link_copy)}"
        return link

    def say_link(self) -> None:
        link = self.link
        if "bytes" not in link:
            self.say(f"peer bandwidth: {link.get('error')}")
            return
        each = "; ".join(f"{c} {link[c + '_us']:.0f} us = {link[c + '_gbps']:.0f} GB/s"
                         if link.get(c + "_gbps") else f"{c} failed: {link['errors'].get(c)}"
                         for c in COPIES)
        self.say(f"peer bandwidth ({link['bytes'] >> 20} MiB, {link['peer']}, every rank at once, "
                 f"slowest rank, per GPU): {each}; T_link uses {link['copy']}")

    # ---- the run ------------------------------------------------------------------------------
    def run(self) -> int:
        from codegen.runtime.symm_group import SymmMemGroup

        torch, a = self.torch, self.args
        self.props = torch.cuda.get_device_properties(self.device)
        self.say(f"tp={self.tp} {self.props.name} {self.props.multi_processor_count} SMs torch "
                 f"{torch.__version__} NCCL {torch.cuda.nccl.version()} N={self.N} iters={a.iters} "
                 f"replays={a.replays}; NCCL_NVLS_ENABLE={os.environ.get('NCCL_NVLS_ENABLE')}")
        rows, t_start = [], time.time()
        for mode in a.modes.split(","):
            self.mode = mode
            self.group = SymmMemGroup(self.max_M, self.N, mode, sm_margin=a.sm_margin,
                                      allow_multicast=a.allow_multicast, backend=a.symm_backend)
            self.unfused = Unfused(torch, self.dist, self.device, mode, self.max_M, self.N, a.baselines)
            if not self.link:  # once, after the group chose the symmetric-memory backend
                self.link = self.measure_link()
                self.say_link()
            self.say(f"\n{mode}: symm backend {self.group.symm_backend}, multicast "
                     f"{self.group.multicast_note}; baselines {', '.join(self.unfused.names)}"
                     + (f" ({self.unfused.symm_error})" if self.unfused.symm_error else ""))
            self.say(text_line())
            for K in a.ks:
                self.ops, self.gemm_ops = FusedOps(self, K), GemmOps(self, K)
                w = (torch.randn((self.N, K), device=self.device) * 0.1).to(torch.bfloat16)
                if a.cold_weights:   # every call of every path reads the next copy of W
                    w = rotating(weight_copies(w, self.props.L2_cache_size))
                for M in a.ms:
                    rows.append(self.measure(K, M, w))
                    self.say(text_line(rows[-1]))
            # free symmetric memory before the next mode
            self.ops = self.gemm_ops = self.group = self.unfused = None
            torch.cuda.synchronize(self.device)
            torch.cuda.empty_cache()
        cross = crossovers(rows, self.tp)
        self.say("\ncrossover M (smallest M from which fused is never slower than the best unfused):")
        for c in cross:
            self.say(f"  tp={self.tp} {c['mode']} K={c['K']}: dispatch {c['crossover_M']}, "
                     f"tuned {c['tuned_crossover_M']}")
        self.say(f"{len(rows)} rows in {time.time() - t_start:.0f} s")
        if self.rank == 0:
            self.write_outputs(rows, cross)
        return 0 if not any("error" in r for r in rows) else 1

    def write_outputs(self, rows: list[dict], cross: list[dict]) -> None:
        a, torch = self.args, self.torch
        meta = {"tp": self.tp, "N": self.N, "device": self.props.name,
                "sms": self.props.multi_processor_count, "torch": torch.__version__,
                "iters": a.iters, "replays": a.replays,
                "nccl_nvls_enable": os.environ.get("NCCL_NVLS_ENABLE"),
                "link": self.link, "link_gbps": self.link.get("gbps"),
                "ours_gemm": not a.no_ours_gemm, "cold_weights": a.cold_weights,
                "after_elementwise": a.after_elementwise}
        if a.json:
            a.json.parent.mkdir(parents=True, exist_ok=True)
            a.json.write_text(json.dumps({**meta, "rows": rows, "crossovers": cross}, indent=1))
            print(f"wrote {a.json}")
        if a.md:
            a.md.parent.mkdir(parents=True, exist_ok=True)
            a.md.write_text(markdown_table(rows, cross, meta))
            print(f"wrote {a.md}")
        if a.png:
            plot_png(rows, a.png, meta)
        if a.tune_out is not None:
            write_tables(a.tune_out, rows, arch=arch_of(torch, self.device), tp=self.tp, N=self.N,
                         device=self.props.name, command=command_line(self.tp))


def arch_of(torch, device) -> str:
    from codegen.contract import ARCH_OF_CAPABILITY

    return ARCH_OF_CAPABILITY.get(torch.cuda.get_device_capability(device), "unknown")


def command_line(tp: int) -> str:
    argv = " ".join(shlex.quote(v) for v in sys.argv[1:])
    return f"torchrun --nproc-per-node {tp} tools/bench_multi_gpu.py {argv}".strip()


def write_tables(root: Path, rows: list[dict], *, arch: str, tp: int, N: int, device: str,
                 command: str) -> list[Path]:
    """One tuning table per (mode, K) with a swept row; a table that cannot be written is said."""
    written = []
    for mode, K in dict.fromkeys((r["mode"], r["K"]) for r in rows):
        trows = tuning_rows(rows, mode, K)
        path = table_path(root, arch, mode, tp, N, K)
        if not trows:
            print(f"no tuning table for {mode} K={K}: no M with both a fused and an unfused time")
            continue
        try:
            write_table(path, arch=arch, mode=mode, tp=tp, N=N, K=K, rows=trows, device=device,
                        command=command)
        except (ValueError, OSError) as exc:
            print(f"tuning table {path} not written: {exc}", file=sys.stderr)
            continue
        written.append(path)
        print(f"wrote {path}")
    return written


if __name__ == "__main__":
    sys.exit(main())
