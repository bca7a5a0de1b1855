#!/usr/bin/env python3
"""Correctness of the fused GEMM + RS / AR kernels on real GPUs (issue 4); a torchrun script.

Not a pytest module (its name does not match test_*.py): run one process per GPU,

    PYTHONPATH=. torchrun --nproc-per-node 8 tests/multigpu/run_correctness.py

(see tests/multigpu/README.md). Every rank draws its own x and W from a seeded generator; the
reference is torch.mm in fp32, then dist.all_reduce (AR) or dist.reduce_scatter_tensor over M
padded with zero rows to a multiple of tp (RS: only the valid rows are compared, the op's pad
rows must be exact zeros). Outputs are NaN-poisoned first; tolerance = tests/gpu/gpu_common.py.

Cases: mode RS/AR x K x (BN, cta_group) fixed x M; the dispatching op (M forward then backward);
output lifetime; back-to-back calls; CUDA-graph replay; a peer that never joins (rank tp-1 skips
a call: the others must raise KernelTimeoutError within a bound, then the group recovers).
Rank 0 prints one PASS/FAIL line per case and `N passed, M failed`; the exit status is 1 on any
failure, 2 when a kernel hung past the bound, 3 when the environment enables multicast.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "gpu"))  # gpu_common: the shared tolerance
sys.path.insert(0, str(ROOT / "tools"))          # arg_types, fuzz_gpu

from arg_types import ints  # noqa: E402
from codegen import contract  # noqa: E402  (standard library only; after the path setup)

MS = [1, 127, 128, 257, 4096, 8205, 32768]
KS = [768, 1536, 2304]
CONFIGS = [(bn, cg) for bn in contract.BNS for cg in contract.CTA_GROUPS]


def _configs(text: str) -> list[tuple[int, int]]:
    out = []
    for item in text.split(","):
        if item:
            bn, cg = item.split("x")
            out.append((int(bn), int(cg)))
    return out


def parse_args(argv=None):
    from codegen.runtime.symm_env import ALLOW_FLAG_HELP

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modes", default="rs,ar")
    ap.add_argument("--ms", type=ints, default=MS, help="M values (default: issue 4's list)")
    ap.add_argument("--ks", type=ints, default=KS, help="K per rank")
    ap.add_argument("--n", type=int, default=7168)
    ap.add_argument("--configs", type=_configs, default=CONFIGS, help="BNxCG list, e.g. 128x1,256x2")
    ap.add_argument("--no-dispatch", action="store_true", help="skip the dispatching op's sweep")
    ap.add_argument("--skip-extra", action="store_true", help="skip lifetime / graph / hang cases")
    ap.add_argument("--quick", action="store_true", help="M 1,257,4096; K 768; configs 128x1,256x2")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout-ms", type=int, default=2000, help="in-kernel wait bound")
    ap.add_argument("--hang-timeout-ms", type=int, default=300, help="wait bound of the hang case")
    ap.add_argument("--hang-bound-s", type=float, default=30.0,
                    help="the hang case fails if the peers' error takes longer than this")
    ap.add_argument("--sm-margin", type=int, default=0)
    ap.add_argument("--symm-backend", default=None, help="torch symmetric-memory backend (e.g. CUDA)")
    ap.add_argument("--nccl-timeout-s", type=int, default=600)
    ap.add_argument("--allow-multicast", action="store_true", help=ALLOW_FLAG_HELP)
    ap.add_argument("--fuzz", type=int, default=0, metavar="CASES",
                    help="instead of the fixed cases: CASES random rs/ar configurations "
                         "(tools/fuzz_gpu.draw_case: N, K, max_M, schedule, BN, cta_group, SM "
                         "budget, M sequences, bad inputs), a group each; --seed is the first's")
    ap.add_argument("--fuzz-budget-s", type=float, default=None,
                    help="stop drawing fuzz cases after this many seconds (rank 0 decides)")
    args = ap.parse_args(argv)
    if args.quick:
        args.ms, args.ks, args.configs = [1, 257, 4096], [768], [(128, 1), (256, 2)]
    return args


class Runner:
    """Runs cases collectively, agrees on their outcome across ranks, prints on rank 0."""

    def __init__(self, dist, torch, rank: int, tp: int, device, hang_bound_s: float):
        self.dist, self.torch, self.rank, self.tp, self.device = dist, torch, rank, tp, device
        self.hang_bound_s = hang_bound_s
        self.passed = self.failed = 0

    def say(self, text: str) -> None:
        if self.rank == 0:
            print(text, flush=True)

    def case(self, name: str, fn, recover=None) -> bool:
        """Run fn() on every rank; PASS only if every rank passed. `recover()` runs on every
        rank after a failure (e.g. op.reset_errors + group.reset_state)."""
        t0 = time.time()
        try:
            fn()
            mine = None
        except HungKernel as exc:
            self._abort(name, str(exc))
        except Exception as exc:  # noqa: BLE001 - a case failure is reported, not fatal
            mine = f"{type(exc).__name__}: {exc}"
            if os.environ.get("MULTIGPU_TRACEBACK"):
                traceback.print_exc()
        results: list = [None] * self.tp
        self.dist.all_gather_object(results, mine)
        bad = [f"rank {r}: {m}" for r, m in enumerate(results) if m]
        if bad:
            self.failed += 1
            self.say(f"FAIL {name} ({time.time() - t0:.1f}s): " + " | ".join(b[:400] for b in bad))
            if recover is not None:
                try:
                    recover()
                except Exception as exc:  # noqa: BLE001
                    self.say(f"     recovery after {name} raised {type(exc).__name__}: {exc}")
        else:
            self.passed += 1
            self.say(f"PASS {name} ({time.time() - t0:.1f}s)")
        return not bad

    def _abort(self, name: str, why: str) -> None:
        # A hung kernel never returns: no collective can follow, so report and leave.
        print(f"FAIL {name}: rank {self.rank}: {why}", flush=True)
        print(f"{self.passed} passed, {self.failed + 1} failed (aborted: hung kernel)", flush=True)
        sys.stdout.flush()
        os._exit(2)


class HungKernel(RuntimeError):
    """A launched kernel did not finish within the bound (the peer-never-joins case)."""


def main(argv=None) -> int:
    args = parse_args(argv)
    from codegen.runtime.symm_env import run_torchrun

    return run_torchrun(lambda torch, dist, device: _run(args, torch, dist, device),
                        args.allow_multicast, args.nccl_timeout_s)


def _import_assert_close():
    """tests/gpu/gpu_common.assert_close (the one tolerance). gpu_common imports pytest only for
    a skip marker; where pytest is absent, a stand-in marker keeps the import working."""
    try:
        import pytest  # noqa: F401
    except ImportError:
        import types

        stub = types.ModuleType("pytest")
        stub.mark = types.SimpleNamespace(skipif=lambda *a, **k: (lambda f: f))
        sys.modules["pytest"] = stub
    from gpu_common import assert_close

    return assert_close


def _run(args, torch, dist, device) -> int:
    assert_close = _import_assert_close()
    from gpu_common import strided_view   # (importable once _import_assert_close has run)

    from codegen.runtime import GemmRsAr, KernelTimeoutError
    from codegen.contract import chunk as chunk_of
    from codegen.runtime.symm_group import SymmMemGroup

    rank, tp = dist.get_rank(), dist.get_world_size()
    N = args.n
    max_M = max(args.ms + [4096])
    R = Runner(dist, torch, rank, tp, device, args.hang_bound_s)
    props = torch.cuda.get_device_properties(device)
    R.say(f"tp={tp} device={props.name} SMs={props.multi_processor_count} torch={torch.__version__} "
          f"N={N} max_M={max_M} env: " + " ".join(
              f"{k}={os.environ.get(k)}" for k in ("TORCH_SYMM_MEM_DISABLE_MULTICAST",
                                                    "NCCL_NVLS_ENABLE", "NVSHMEM_DISABLE_NVLS")))

    case_ids = iter(range(1, 1 << 30))

    def inputs(case_id: int, M: int, K: int, sign: float = 1.0, n: int | None = None):
        """This rank's x [M, K] and W [n or N, K]: seeded by (seed, case, rank), so reruns
        repeat."""
        g = torch.Generator(device=device)
        g.manual_seed(args.seed * 1_000_003 + case_id * 1009 + rank)
        x = (torch.randn(M, K, generator=g, device=device) * 0.1 * sign).to(torch.bfloat16)
        w = (torch.randn(n or N, K, generator=g, device=device) * 0.1).to(torch.bfloat16)
        return x, w

    def reference(mode: str, x, w):
        """fp32 torch.mm, then NCCL: all_reduce, or reduce_scatter over zero-padded rows."""
        N = w.shape[0]
        part = torch.mm(x.float(), w.float().t())
        if mode == "ar":
            dist.all_reduce(part)
            return part
        M = x.shape[0]
        c = chunk_of(M, tp)
        padded = torch.zeros(c * tp, N, dtype=torch.float32, device=device)
        padded[:M] = part
        del part
        out = torch.empty(c, N, dtype=torch.float32, device=device)
        dist.reduce_scatter_tensor(out, padded)
        return out

    def check(mode: str, out, ref, M: int, what: str) -> None:
        N = ref.shape[1]
        if mode == "ar":
            assert_close(out, ref, what)
            return
        c = chunk_of(M, tp)
        assert tuple(out.shape) == (c, N), f"{what}: shape {tuple(out.shape)} != {(c, N)}"
        valid = max(0, min(M, (rank + 1) * c) - rank * c)
        if valid:
            assert_close(out[:valid], ref[:valid], what)
        pad = out[valid:]
        if pad.numel():
            nz = int((pad != 0).sum())  # NaN != 0 too: an unwritten pad row fails here
            assert nz == 0, f"{what}: {nz} non-zero elements in the {c - valid} pad rows"

    def poisoned(shape):
        return torch.full(shape, float("nan"), dtype=torch.bfloat16, device=device)

    def one_call(op, mode, M, K, what, gap=0):
        x, w = inputs(next(case_ids), M, K, n=op.N)
        if gap:   # x and W as row-strided views, NaN in the gaps (gpu_common.strided_view)
            x, w = strided_view(x, gap), strided_view(w, gap)
        ref = reference(mode, x, w)
        torch.cuda.synchronize(device)
        out = poisoned(op.out_shape(M))
        got = op(rank, x, w, out=out)
        op.synchronize()
        assert got is out, f"{what}: the op did not write into the given out tensor"
        check(mode, out, ref, M, what)

    def recover_fn(op, group):
        def recover():
            op.reset_errors()
            group.reset_state()
        return recover

    if args.fuzz:
        _fuzz(R, args, torch, dist, device, one_call, recover_fn, GemmRsAr, SymmMemGroup)
        R.say(f"{R.passed} passed, {R.failed} failed")
        return 1 if R.failed else 0

    for mode in args.modes.split(","):
        group = _make_group(R, args, SymmMemGroup, max_M, N, mode, mode)
        if group is None:
            continue
        R.say(f"{mode}: symmetric-memory backend {group.symm_backend}, multicast: "
              f"{group.multicast_note}, sm_budget {group.sm_budget}")
        for K in args.ks:
            for bn, cg in args.configs:
                op = GemmRsAr(max_M, N, K, mode, group, bn=bn, cta_group=cg, timeout_ms=args.timeout_ms)
                if mode == "rs" and K == args.ks[0] and (bn, cg) == args.configs[0]:
                    R.case(f"{mode} transport is unicast", lambda: _assert_unicast(op, args))
                for M in args.ms:
                    what = f"tp={tp} {mode} K={K} bn={bn} cg={cg} M={M}"
                    R.case(what, lambda: one_call(op, mode, M, K, what), recover_fn(op, group))
            for cg in contract.SPLITK_CTA_GROUPS:   # the K-split decode kernels, fixed
                if K < contract.splitk_min_k(cg):
                    continue
                op = GemmRsAr(max_M, N, K, mode, group, schedule="splitk", cta_group=cg,
                              timeout_ms=args.timeout_ms)
                for M in [m for m in args.ms if m <= op.land_rows]:
                    what = f"tp={tp} {mode} K={K} splitk cg={cg} M={M}"
                    R.case(what, lambda: one_call(op, mode, M, K, what), recover_fn(op, group))
            for bt in _epi_pass_tiles(mode):   # wide decode kernels storing in passes, fixed
                op = GemmRsAr(max_M, N, K, mode, group, schedule="swapab", bn=bt, cta_group=2,
                              timeout_ms=args.timeout_ms)
                for M in [m for m in args.ms if m <= op.land_rows]:
                    what = f"tp={tp} {mode} K={K} swapab wide bn={bt} (epilogue in passes) M={M}"
                    R.case(what, lambda: one_call(op, mode, M, K, what), recover_fn(op, group))
            if not args.no_dispatch:
                op = GemmRsAr(max_M, N, K, mode, group, timeout_ms=args.timeout_ms)
                for M in args.ms + args.ms[::-1]:
                    what = f"tp={tp} {mode} K={K} dispatch bn/cg={op.config(M)} M={M}"
                    R.case(what, lambda: one_call(op, mode, M, K, what), recover_fn(op, group))
        if not args.skip_extra:
            _extra_cases(R, args, torch, dist, device, group, mode, inputs, reference, check,
                         poisoned, case_ids, GemmRsAr, KernelTimeoutError, recover_fn)
        del group
        gc.collect()
        torch.cuda.synchronize(device)
        torch.cuda.empty_cache()
        dist.barrier(device_ids=[device.index])

    R.say(f"{R.passed} passed, {R.failed} failed")
    return 1 if R.failed else 0


def _epi_pass_tiles(mode: str) -> list[int]:
    """Token tiles of the wide (cta_group 2) sm_90a decode kernels of `mode` whose transposed
    tile is stored in passes (contract.decode_epi_tokens; 2026-12-01 sixth session: token tile
    256 for rs/ar), which only the fixed cases reach (no rs/ar rule picks them)."""
    return [bt for bt in contract.swapab_bns("sm_90a", mode)
            if contract.decode_epi_passes(bt, contract.swapab_w_rows(2)) > 1]


def _assert_unicast(op, args) -> None:
    if not args.allow_multicast:
        assert op.transport == "unicast", f"transport {op.transport!r} with multicast disabled"


def _make_group(R, args, SymmMemGroup, max_M, N, mode, what):
    """The group of a run's cases, or None after counting and reporting its failure (raised on
    every rank: an agreed reason)."""
    try:
        return SymmMemGroup(max_M, N, mode, sm_margin=args.sm_margin,
                            allow_multicast=args.allow_multicast, backend=args.symm_backend)
    except Exception as exc:  # noqa: BLE001
        R.failed += 1
        R.say(f"FAIL {what} group: {type(exc).__name__}: {exc}")
        return None


def _fuzz(R, args, torch, dist, device, one_call, recover_fn, GemmRsAr, SymmMemGroup):
    """--fuzz: random rs/ar configurations of tools/fuzz_gpu.draw_case at this world size,
    every rank drawing the same case from the same seed; per case a fresh group, the M sequence
    (a fixed decode schedule past the landing rows must raise InputError before any launch),
    and bad inputs that must raise InputError on every rank with the next call still right."""
    import random

    from fuzz_gpu import bad_inputs, draw_case, run_sequence

    from codegen.runtime import InputError

    arch = contract.ARCH_OF_CAPABILITY[torch.cuda.get_device_capability(device)]
    t0 = time.time()
    for i in range(args.fuzz):
        go = [args.fuzz_budget_s is None or time.time() - t0 < args.fuzz_budget_s]
        dist.broadcast_object_list(go, src=0)
        if not go[0]:
            break
        seed = args.seed + i
        rng = random.Random(seed)
        case = draw_case(rng, arch)
        while case["mode"] == "none":          # real ranks: the collective modes only
            case = draw_case(rng, arch)
        mode, N, K, max_M = case["mode"], case["N"], case["K"], case["max_M"]
        desc = (f"fuzz seed={seed} {mode} N={N} K={K} max_M={max_M} schedule={case['schedule']} "
                f"bn={case['bn']} cg={case['cta_group']} budget={case['sm_budget']} "
                f"views={case['views']}")
        group = _make_group(R, args, SymmMemGroup, max_M, N, mode, desc)
        if group is None:
            continue
        if case["sm_budget"] is not None:
            group.sm_budget = min(group.sm_budget, case["sm_budget"])
        op = GemmRsAr(max_M, N, K, mode, group, schedule=case["schedule"], bn=case["bn"],
                      cta_group=case["cta_group"], timeout_ms=args.timeout_ms)

        def bad_calls(M, op=op, case=case):
            bad = bad_inputs(torch, M, case["N"], case["K"], case["max_M"], op.out_shape(M)[0],
                             device)
            return {name: (lambda x=x, w=w, o=o: op(R.rank, x, w, out=o))
                    for name, (x, w, o) in bad.items()}

        def run_case(op=op, case=case):
            run_sequence(case, lambda M: one_call(op, case["mode"], M, case["K"], f"M={M}",
                                                  case["views"]), bad_calls, InputError)

        R.case(f"{desc} Ms={case['ms']}", run_case, recover_fn(op, group))
        del op, group
        gc.collect()
        torch.cuda.synchronize(device)
        dist.barrier(device_ids=[device.index])


def _extra_cases(R, args, torch, dist, device, group, mode, inputs, reference, check, poisoned,
                 case_ids, GemmRsAr, KernelTimeoutError, recover_fn):
    """Lifetime, back-to-back, CUDA-graph replay, and a peer that never joins."""
    rank, tp, N = R.rank, R.tp, args.n

    # -- output lifetime: the first result survives a second call (seed: M=257, K=768) --
    M, K = 257, 768
    op = GemmRsAr(group.max_M, N, K, mode, group, timeout_ms=args.timeout_ms)

    def lifetime():
        cid = next(case_ids)
        x, w = inputs(cid, M, K)
        ref1 = reference(mode, x, w)
        ref2 = reference(mode, -x, w)
        torch.cuda.synchronize(device)
        first = op(rank, x, w)
        op.synchronize()
        snap = first.clone()
        second = op(rank, -x, w)
        op.synchronize()
        assert torch.equal(first, snap), "the first output changed after the second call"
        assert second.data_ptr() != first.data_ptr(), "the second call reused the first output"
        check(mode, snap, ref1, M, "first call")
        check(mode, second, ref2, M, "second call on -x")

    R.case(f"tp={tp} {mode} output lifetime M={M} K={K}", lifetime, recover_fn(op, group))

    # -- back-to-back: three calls with different M, no sync in between --
    K = 1536
    op = GemmRsAr(group.max_M, N, K, mode, group, timeout_ms=args.timeout_ms)

    def back_to_back():
        calls = []
        for M in (300, 1000, 64):
            x, w = inputs(next(case_ids), M, K)
            calls.append((M, x, w, reference(mode, x, w)))
        torch.cuda.synchronize(device)
        outs = [op(rank, x, w, out=poisoned(op.out_shape(M))) for M, x, w, _ in calls]
        op.synchronize()
        for (M, _, _, ref), out in zip(calls, outs):
            check(mode, out, ref, M, f"back-to-back M={M}")

    R.case(f"tp={tp} {mode} back-to-back calls K={K}", back_to_back, recover_fn(op, group))

    # -- CUDA-graph replay: capture one call, replay on fresh inputs --
    M = 1000
    state = {}

    def graph_replay():
        x, w = inputs(next(case_ids), M, K)
        op(rank, x, w)  # eager warm-up: loads the kernel outside the capture
        op.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = op(rank, x, w)
        state["graph"] = graph
        for i in range(3):
            nx, nw = inputs(next(case_ids), M, K)
            ref = reference(mode, nx, nw)
            x.copy_(nx)
            w.copy_(nw)
            out.fill_(float("nan"))
            torch.cuda.synchronize(device)
            graph.replay()
            torch.cuda.synchronize(device)
            op.check_errors()
            check(mode, out, ref, M, f"graph replay {i}")

    R.case(f"tp={tp} {mode} CUDA-graph replay M={M} K={K}", graph_replay, recover_fn(op, group))
    state.clear()

    # -- special values (tests/gpu/test_special_values.py on real ranks): zero padding rows
    # against a negative weight (every partial -0.0: the decode exchange's Lamport sentinel
    # before the writers scrub it), +Inf on rank 0 and NaN on rank tp-1 in x; the dispatch's
    # decode kernel, splitk in clusters of 2 and the tile schedule --
    M, K = 64, 1536
    from gpu_common import assert_special   # (importable once _run's _import_assert_close ran)
    special_ops = [("dispatch", GemmRsAr(group.max_M, N, K, mode, group,
                                         timeout_ms=args.timeout_ms)),
                   ("splitk cg=2", GemmRsAr(group.max_M, N, K, mode, group, schedule="splitk",
                                            cta_group=2, timeout_ms=args.timeout_ms)),
                   ("tile bn=128 cg=1", GemmRsAr(group.max_M, N, K, mode, group, schedule="tile",
                                                 bn=128, cta_group=1,
                                                 timeout_ms=args.timeout_ms))]

    def special_values(sop):
        x, w = inputs(next(case_ids), M, K)
        x[40:] = 0.0
        w = -(w.abs() + 0.01)
        if rank == 0:
            x[3, 100] = float("inf")
        if rank == tp - 1:
            x[17, 200] = float("nan")
        ref = reference(mode, x, w)
        torch.cuda.synchronize(device)
        out = sop(rank, x, w, out=poisoned(sop.out_shape(M)))
        sop.synchronize()
        sop.check_errors()
        rows = ref.shape[0] if mode == "ar" else max(0, min(M, (rank + 1) * out.shape[0])
                                                         - rank * out.shape[0])
        first = 0 if mode == "ar" else rank * out.shape[0]
        zero = torch.tensor([first + i >= 40 for i in range(rows)], device=device)
        assert_special(out[:rows], ref[:rows], zero, "special values")
        assert bool((out[rows:] == 0).all()), "RS pad rows not zero"

    for name, sop in special_ops:
        R.case(f"tp={tp} {mode} special values (-0.0 partials, Inf, NaN) {name} M={M} K={K}",
               lambda sop=sop: special_values(sop), recover_fn(sop, group))

    # -- a peer that never joins: rank tp-1 skips one call; the others must raise in time --
    M = 4096
    short = GemmRsAr(group.max_M, N, K, mode, group, timeout_ms=args.hang_timeout_ms)

    def missing_peer():
        x, w = inputs(next(case_ids), M, K)
        short.prepare([M])  # kernel load outside the timed part
        torch.cuda.synchronize(device)
        group.barrier()
        if rank == tp - 1:
            return  # never joins this call
        t0 = time.time()
        short(rank, x, w)
        done = torch.cuda.Event()
        done.record()
        while not done.query():  # poll: a hung kernel must not hang the script
            if time.time() - t0 > R.hang_bound_s:
                raise HungKernel(f"kernel still running after {R.hang_bound_s:.0f}s: it hangs "
                                 f"instead of timing out (bound {args.hang_timeout_ms} ms)")
            time.sleep(0.001)
        elapsed = time.time() - t0
        try:
            short.check_errors()
        except KernelTimeoutError as exc:
            assert exc.record_rank == rank, f"error record of rank {exc.record_rank}"
            print(f"     rank {rank}: KernelTimeoutError after {elapsed:.2f}s (code {exc.code}, "
                  f"waited for peer {exc.peer}, tile {exc.tile})", flush=True)
            return
        raise AssertionError(f"no KernelTimeoutError although rank {tp - 1} never joined "
                             f"(kernel finished after {elapsed:.2f}s)")

    R.case(f"tp={tp} {mode} peer never joins -> KernelTimeoutError", missing_peer)

    # Recovery is part of the protocol: every rank clears errors and flags, then a call works.
    def recovered():
        short.reset_errors()
        group.reset_state()
        x, w = inputs(next(case_ids), M, K)
        ref = reference(mode, x, w)
        torch.cuda.synchronize(device)
        out = op(rank, x, w, out=poisoned(op.out_shape(M)))
        op.synchronize()
        check(mode, out, ref, M, "call after reset_state")

    R.case(f"tp={tp} {mode} recovery after the time-out", recovered, recover_fn(op, group))


if __name__ == "__main__":
    sys.exit(main())
