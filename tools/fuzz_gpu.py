#!/usr/bin/env python3
"""Random shapes, call patterns and bad inputs on one GPU (virtual ranks): a script, not a test.

Each case draws a mode (none / rs / ar), a TP (2/4/8 virtual ranks), N (a multiple of 128, or
in a fifth of the cases of 64 only, sm_90a), K (a multiple of 64, or in a quarter of the cases
of 8 only), max_M, a fixed or dispatched (schedule, bn, cta_group), sometimes an odd SM budget,
then calls the op on a sequence of M values (edges of token tiles, row tiles and the landing
rows, and random ones, forward then back) with NaN-poisoned outputs and checks each against an
fp32 reference with the GPU tests' tolerance (tests/gpu/gpu_common.py); a quarter of the cases
pass x and the weights as row-strided views (NaN in the gaps). Between calls it slips in bad
inputs, each of which must raise InputError before any launch (the next valid call must still be
right), and once per case it captures a CUDA graph and replays it on fresh inputs. A failure
prints the case and its seed; `--seed S --cases 1` draws it again.

    PYTHONPATH=. CUDA_DEVICE_MAX_CONNECTIONS=32 python3 tools/fuzz_gpu.py --cases 200 --json out/fuzz.json

`draw_case` is plain Python (tests/test_fuzz_cases.py checks on the CPU that every case it
draws is a configuration the op accepts).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "gpu"))  # gpu_common: the tolerance and references

from codegen import contract  # noqa: E402

#: M values where a kernel's behaviour changes: token tiles, 128-row tiles, landing rows
EDGE_MS = (1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 143, 144, 145, 159, 160, 161,
           191, 192, 193, 207, 208, 209, 223, 224, 225, 255, 256, 257, 383, 384, 385, 511, 512,
           513, 1023, 1024, 1025)


def draw_case(rng: random.Random, arch: str = "sm_90a") -> dict:
    """One random configuration: mode, tp, N, K, max_M, fixed choices and the Ms to call."""
    mode = rng.choice(("none", "rs", "ar", "rs", "ar"))
    tp = rng.choice((2, 4, 8)) if mode != "none" else 1
    # (23: N 2944, less 64 below 2880: a multiple of 160 and 192, not of 128; 40: 5120; 64 /
    # 96 / 128: a model's hidden size 8192 / 12288 / 16384, past one wave of 64-row W tiles on a
    # whole H200, not only on a virtual rank's share)
    N = 128 * rng.choice((1, 2, 3, 5, 8, 9, 13, 16, 23, 25, 32, 40, 56, 64, 96, 128))
    K = 64 * rng.choice((1, 2, 3, 5, 7, 12, 16, 24, 36))
    if rng.random() < 0.25:
        # a K that is no multiple of the k-tile (any multiple of 8 runs: contract.K_MULTIPLE)
        K -= 8 * rng.randint(1, 7)
    if rng.random() < 0.2 and arch != "sm_100a":
        N -= 64     # no multiple of 128 (contract.N_MULTIPLE): no wide decode kernel, few tiles
    if rng.random() < 0.15 and arch != "sm_100a" and mode == "none" and N > 64:
        # no multiple of 64 (mode none on sm_90a: contract.N_MULTIPLE_NONE): only the kernels
        # whose last tile reaches past N (the tile schedule, the wide decode kernels, splitkw and
        # splitk)
        N -= 8 * rng.randint(1, 7)
    max_M = rng.choice((1, 7, 16, 33, 100, 128, 257, 512, 600, 1024, 2048, 4096))
    schedule = bn = cta_group = None
    pick = rng.random()
    widths = contract.tile_widths(N, arch, mode)
    if pick < 0.3 and widths:
        schedule = "tile"
        bn = rng.choice(widths)
        cta_group = rng.choice(contract.CTA_GROUPS)
    elif pick < 0.6:
        schedule = "swapab"
        cta_group = rng.choice([cg for cg in contract.swapab_cta_groups(arch, mode)
                                if contract.decode_fits_n(N, cg, arch)])
        bn = rng.choice(contract.swapab_cta_group_bns(arch, mode, cta_group))
    elif pick < 0.75 and arch in contract.SCHEDULE_ARCHS["splitk"]:
        # the K split: a cluster size K allows (one k-tile per CTA), else the decode schedule
        cgs = [c for c in contract.SPLITK_CTA_GROUPS if K >= contract.splitk_min_k(c)
               and contract.decode_fits_n(N, c, arch, "splitk", mode)]
        schedule = "splitk" if cgs else "swapab"
        bn = rng.choice(contract.splitk_bns(arch, mode))
        cta_group = rng.choice(cgs) if cgs else 1
        if not cgs and not contract.decode_fits_n(N, 1, arch):
            cta_group = 2     # (N no multiple of 64: only the wide decode kernels serve it)
    elif (pick < 0.85 and mode == "none" and arch in contract.SCHEDULE_ARCHS["splitkw"]
          and K >= contract.splitk_min_k(min(contract.SPLITKW_CTA_GROUPS))):
        # the wide K split (any M, any N a multiple of 8): a cluster size K allows
        schedule = "splitkw"
        bn = rng.choice(contract.SPLITKW_BNS)
        cta_group = rng.choice([c for c in contract.SPLITKW_CTA_GROUPS
                                if K >= contract.splitk_min_k(c)])
    elif (pick < 0.9 and mode == "none" and arch in contract.SCHEDULE_ARCHS["swapabx"]
          and contract.decode_fits_n(N, 2, arch, "swapabx")):
        # the cta_group 1 decode kernel in clusters sharing x (N a multiple of 64)
        schedule = "swapabx"
        bn = rng.choice(contract.SWAPABX_BNS)
        cta_group = rng.choice(contract.SWAPABX_CTA_GROUPS)
    elif pick < 0.95 and mode == "none" and arch in contract.SCHEDULE_ARCHS["streamk"]:
        # the tile kernel with the last waves' k-tiles spread over the CTAs (any M and N)
        schedule = "streamk"
        bn, cta_group = rng.choice(contract.streamk_pairs())
    budget = rng.choice((None, None, None, 1, 3, 7, 16))
    land = contract.land_rows(max_M)
    # the rows the op serves: past the landing rows only the tile schedule, if a width fits N
    served = max_M if widths else min(max_M, land, contract.SWAPAB_MAX_ROWS)
    pool = [m for m in EDGE_MS if m <= max_M] + [rng.randint(1, max_M) for _ in range(4)]
    if contract.decode_schedule(schedule):
        served = min(served, land)
    if served < max_M:
        # M past the served rows must be refused (InputError) before any launch
        pool = [m for m in pool if m <= served] + [served + 1]
    ms = rng.sample(pool, min(len(pool), 8))
    ms = ms + ms[::-1][1:]
    # a quarter of the cases pass x and the weights as row-strided views (rows 8..64 elements
    # apart beyond K, the gaps NaN): the kernels must read them in place
    views = 8 * rng.randint(1, 8) if rng.random() < 0.25 else 0
    return {"mode": mode, "tp": tp, "N": N, "K": K, "max_M": max_M, "schedule": schedule,
            "bn": bn, "cta_group": cta_group, "sm_budget": budget, "ms": ms,
            "land_rows": land, "views": views, "served": served}


def expect_refused(case: dict, M: int) -> bool:
    """Whether a call with M rows must raise InputError: past the rows the op serves (a fixed
    decode schedule's landing rows; the decode rows where no tile width divides N)."""
    return M > case["served"]


def bad_inputs(torch, M: int, N: int, K: int, max_M: int, out_rows: int, device) -> dict:
    """One rank's bad inputs for a call with M rows: name -> (x, weight, out or None). Each must
    raise InputError before any launch (tools/fuzz_gpu.py and run_correctness.py --fuzz)."""
    def bf16(*shape):
        return torch.zeros(*shape, device=device, dtype=torch.bfloat16)

    x, w = bf16(M, K), bf16(N, K)
    bad = {
        "x float32": (x.float(), w, None),
        "weight K + 64": (x, bf16(N, K + 64), None),
        "x K + 4": (bf16(M, K + 4), w, None),
        "out wrong shape": (x, w, bf16(out_rows + 1, N)),
        "M = max_M + 1": (bf16(max_M + 1, K), w, None),
    }
    if M > 1:   # (a one-row transposed view is contiguous)
        bad["x transposed view"] = (bf16(K, M).t(), w, None)
    return bad


def run_sequence(case: dict, one_call, call_bad, refused_error) -> None:
    """A case's calls: `one_call(M)` for each of its Ms, where an M past the rows the op serves
    (expect_refused) must raise `refused_error` (InputError); after the second call every bad input
    of `call_bad(M)` (name -> a call of it) must raise it too, and the calls after still be
    right."""
    for i, M in enumerate(case["ms"]):
        if expect_refused(case, M):
            try:
                one_call(M)
            except refused_error:
                continue
            raise AssertionError(f"M = {M} past the {case['served']} rows the op serves (N "
                                 f"{case.get('N')}, schedule {case['schedule']}) was not refused")
        one_call(M)
        if i == 1:
            for name, call in call_bad(M).items():
                try:
                    call()
                except refused_error:
                    continue
                raise AssertionError(f"bad input '{name}' was not refused with InputError")


class _OneRank:
    """A mode-none op seen as a group of one rank (run_all / check_errors)."""

    def __init__(self, op):
        self.op = op

    def run_all(self, xs, ws, out=None):
        return [self.op(0, xs[0], ws[0], out=None if out is None else out[0])]

    def check_errors(self):
        pass


class Runner:
    """Runs drawn cases on the GPU (imports torch and the runtime only here)."""

    def __init__(self, timeout_ms: int):
        import torch

        from codegen.runtime import GemmRsAr, VirtualGroup
        from codegen.runtime.errors import InputError, KernelTimeoutError
        import gpu_common

        self.torch, self.GemmRsAr, self.VirtualGroup = torch, GemmRsAr, VirtualGroup
        self.InputError, self.KernelTimeoutError, self.g = InputError, KernelTimeoutError, gpu_common
        self.timeout_ms = timeout_ms

    def op(self, case: dict):
        kw = dict(schedule=case["schedule"], bn=case["bn"], cta_group=case["cta_group"],
                  timeout_ms=self.timeout_ms)
        if case["mode"] == "none":
            return self.GemmRsAr(case["max_M"], case["N"], case["K"], "none",
                                 sm_budget=case["sm_budget"], **kw)
        group = self.VirtualGroup(case["tp"], case["max_M"], case["N"], case["mode"])
        if case["sm_budget"] is not None:
            group.sm_budget = min(group.sm_budget, case["sm_budget"])
        return self.GemmRsAr(case["max_M"], case["N"], case["K"], case["mode"], group, **kw)

    def call(self, op, case, xs, ws, outs=None):
        if case["mode"] == "none":
            out = op(0, xs[0], ws[0], out=None if outs is None else outs[0])
            return [out]
        return op.run_all(xs, ws, out=outs)

    def check(self, case, outs, xs, ws, what):
        g = self.g
        if case["mode"] == "none":
            g.assert_close(outs[0], xs[0].float() @ ws[0].float().T, what)
        else:
            g.check_outputs(case["mode"], outs, xs, ws, what)

    def one_call(self, op, case, M, what):
        g, tp = self.g, max(case["tp"], 1)
        xs, ws = g.rank_inputs(tp, M, case["N"], case["K"])
        if case.get("views"):
            xs, ws = ([g.strided_view(t, case["views"]) for t in ts] for ts in (xs, ws))
        outs = [g.poisoned(op.out_shape(M)) for _ in range(tp)]
        self.call(op, case, xs, ws, outs)
        if case["mode"] == "none":
            self.torch.cuda.synchronize()
        else:
            op.synchronize()
        self.check(case, outs, xs, ws, what)

    def bad_calls(self, op, case, M) -> dict:
        """name -> a call of every rank with that bad input (bad_inputs, its own per rank)."""
        ranks = [bad_inputs(self.torch, M, case["N"], case["K"], case["max_M"],
                            op.out_shape(M)[0], "cuda") for _ in range(max(case["tp"], 1))]

        def call(name):
            xs, ws, outs = zip(*(r[name] for r in ranks))
            return self.call(op, case, list(xs), list(ws), None if outs[0] is None else list(outs))
        return {name: (lambda name=name: call(name)) for name in ranks[0]}

    def graph(self, op, case, M, what):
        """One capture, two replays on fresh inputs (gpu_common.check_graph_replays); mode none
        through a one-rank stand-in, checked as an all-reduce over one rank (its product)."""
        g, tp = self.g, max(case["tp"], 1)
        xs, ws = g.rank_inputs(tp, M, case["N"], case["K"])
        if case.get("views"):   # replays copy fresh data into the same strided views
            xs, ws = ([g.strided_view(t, case["views"]) for t in ts] for ts in (xs, ws))
        ranks = op if case["mode"] != "none" else _OneRank(op)
        ranks.run_all(xs, ws)                # load the kernel, build the plan: not in capture
        self.torch.cuda.synchronize()
        g.check_graph_replays(ranks, "ar" if case["mode"] == "none" else case["mode"], xs, ws,
                              what, replays=2)

    def run(self, case: dict) -> None:
        op = self.op(case)
        ok_ms = [m for m in case["ms"] if not expect_refused(case, m)]
        run_sequence(case, lambda M: self.one_call(op, case, M, f"M={M}"),
                     lambda M: self.bad_calls(op, case, M), self.InputError)
        if ok_ms:
            self.graph(op, case, ok_ms[0], f"M={ok_ms[0]}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--seed", type=int, default=None, help="first case's seed (default: time)")
    ap.add_argument("--timeout-ms", type=int, default=2000)
    ap.add_argument("--budget-s", type=float, default=None, help="stop drawing cases after this")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    import torch

    from codegen.contract import ARCH_OF_CAPABILITY

    arch = ARCH_OF_CAPABILITY[torch.cuda.get_device_capability()]
    runner = Runner(args.timeout_ms)
    seed0 = args.seed if args.seed is not None else int(time.time())
    t0, results = time.monotonic(), []
    for i in range(args.cases):
        if args.budget_s is not None and time.monotonic() - t0 > args.budget_s:
            break
        seed = seed0 + i
        case = draw_case(random.Random(seed), arch)
        desc = {k: v for k, v in case.items() if k != "ms"}
        start = time.monotonic()
        try:
            runner.run(case)
            status, err = "pass", None
        except Exception as exc:  # noqa: BLE001 - every failure is reported with its seed
            status, err = "FAIL", f"{type(exc).__name__}: {exc}"
            traceback.print_exc()
            torch.cuda.synchronize()
        results.append({"seed": seed, "status": status, "error": err, "case": case,
                        "s": round(time.monotonic() - start, 2)})
        print(f"{status} seed={seed} {desc} Ms={case['ms']}" + (f"\n    {err}" if err else ""),
              flush=True)
    failed = [r for r in results if r["status"] != "pass"]
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed "
          f"({time.monotonic() - t0:.0f} s); rerun one: --seed S --cases 1")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"device": torch.cuda.get_device_name(),
                                         "results": results}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
