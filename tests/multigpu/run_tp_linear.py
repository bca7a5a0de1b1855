#!/usr/bin/env python3
"""RowParallelLinear on real GPUs (one process per GPU); a torchrun script, not a pytest module:

    PYTHONPATH=. torchrun --nproc-per-node 2 tests/multigpu/run_tp_linear.py

For AR and RS, one TPContext (N = 7168, max_M = 4096) shared by an o_proj (K = 3584) and a
down_proj (K = 9216) layer, in three contexts: the default dispatch (should_run per M), every
M fused (min_m=1) and CODEGEN_DISABLE_FUSED=1 (every M unfused). Cases: eager at M in
{1, 16, 17, 128, 1000, 4096} for both layers against fp32 torch.mm + NCCL (tolerance
tests/gpu/gpu_common.py; RS pad rows exact zeros); one CUDA graph holding both layers, replayed
on fresh inputs with the outputs poisoned; torch.compile(fullgraph=True) (inductor) of a small
module using both layers, and with mode="reduce-overhead"; torch.library.opcheck on the real
codegen::gemm_ar / gemm_rs ops. The multicast switches are set before torch.distributed starts
and nothing here creates a multicast object. Rank 0 prints PASS/FAIL per case and
`N passed, M failed`; exit 1 on any failure, 3 when the environment enables multicast.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "gpu"))
sys.path.insert(0, str(ROOT / "tests" / "multigpu"))

from codegen.runtime.symm_env import MulticastSafetyError, enforce_no_multicast  # noqa: E402

MS = [1, 16, 17, 128, 1000, 4096]
N, MAX_M, K_O, K_DOWN = 7168, 4096, 3584, 9216


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modes", default="ar,rs")
    ap.add_argument("--ms", default=",".join(map(str, MS)), help="M values of the eager sweep")
    ap.add_argument("--graph-ms", default="16,1000", help="M values of the CUDA-graph case")
    ap.add_argument("--skip-compile", action="store_true", help="no torch.compile / opcheck cases")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--nccl-timeout-s", type=int, default=600)
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:  # the three switches, set before torch.distributed starts (no --allow-multicast here)
        enforce_no_multicast(False)
    except MulticastSafetyError as exc:
        print(exc, file=sys.stderr)
        return 3
    from codegen.runtime.symm_env import run_torchrun

    return run_torchrun(lambda torch, dist, device: _run(args, torch, dist, device),
                        False, args.nccl_timeout_s)


class Layers:
    """The o_proj and down_proj of one context, with this rank's weight shards."""

    def __init__(self, torch, ctx, w_o, w_down):
        from codegen.runtime.tp_linear import RowParallelLinear

        self.ctx = ctx
        self.o = RowParallelLinear(w_o, ctx)
        self.down = RowParallelLinear(w_down, ctx)
        self.module = _two_layer_module(torch, self.o, self.down)
        self.recover = ctx.recover  # after a failed case (e.g. a peer's kernel timed out)


def _two_layer_module(torch, o, down):
    class TwoLayers(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.o, self.down = o, down

        def forward(self, x_o, x_down):
            return self.o(x_o) + self.down(torch.relu(x_down))

    return TwoLayers()


def _run(args, torch, dist, device) -> int:
    from run_correctness import Runner, _import_assert_close

    assert_close = _import_assert_close()
    from gpu_common import rs_slice

    from codegen import contract
    from codegen.runtime import torch_ops
    from codegen.runtime.tp_linear import TPContext

    rank, tp = dist.get_rank(), dist.get_world_size()
    R = Runner(dist, torch, rank, tp, device, 30.0)
    R.say(f"tp={tp} {torch.cuda.get_device_name(device)} torch={torch.__version__} env: " + " ".join(
        f"{k}={os.environ.get(k)}" for k in ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "NCCL_NVLS_ENABLE",
                                              "NVSHMEM_DISABLE_NVLS")))
    seeds = iter(range(1, 1 << 30))

    def rand(*shape):
        g = torch.Generator(device=device)
        g.manual_seed(args.seed * 1_000_003 + next(seeds) * 1009 + rank)
        return (torch.randn(*shape, generator=g, device=device) * 0.1).to(torch.bfloat16)

    def reference(mode, pairs):
        """sum over (x, W) of x @ W^T in fp32, all-reduced over the ranks; RS: this rank's
        rows of it, padded with zero rows."""
        part = sum(x.float() @ w.float().t() for x, w in pairs)
        dist.all_reduce(part)
        return part if mode == "ar" else rs_slice(part, rank, tp)

    def check(mode, out, ref, M, what):
        assert tuple(out.shape) == contract.out_shape(mode, M, N, tp), f"{what}: shape {tuple(out.shape)}"
        valid = M if mode == "ar" else max(0, min(M, (rank + 1) * ref.shape[0]) - rank * ref.shape[0])
        if valid:
            assert_close(out[:valid], ref[:valid], what)
        nz = int((out[valid:] != 0).sum())  # NaN != 0: an unwritten pad row fails
        assert nz == 0, f"{what}: {nz} non-zero elements in the pad rows"

    def poison_next(shape):
        """Free a NaN block of `shape`: the next allocation of that size gets it."""
        block = torch.full(shape, float("nan"), dtype=torch.bfloat16, device=device)
        del block

    ms = [int(m) for m in args.ms.split(",") if m]
    for mode in args.modes.split(","):
        variants = {}
        for name, kw in (("default", {}), ("fused", {"min_m": 1}), ("disabled", None)):
            if kw is None:
                os.environ["CODEGEN_DISABLE_FUSED"] = "1"
            try:
                ctx = TPContext(MAX_M, N, mode, **(kw or {}))
            finally:
                os.environ.pop("CODEGEN_DISABLE_FUSED", None)
            variants[name] = Layers(torch, ctx, rand(N, K_O), rand(N, K_DOWN))
        default, fused, disabled = variants["default"], variants["fused"], variants["disabled"]

        def contexts_ok():
            for name, v in (("default", default), ("fused", fused)):
                assert v.ctx.fused_available, f"{name}: {v.ctx.fallback_reason}"
                assert v.ctx.transport == "unicast", f"{name}: transport {v.ctx.transport}"
                for layer in (v.o, v.down):
                    assert layer.fallback_reason is None, layer.fallback_reason
            assert not disabled.ctx.fused_available
            assert "CODEGEN_DISABLE_FUSED" in disabled.ctx.fallback_reason

        R.case(f"{mode}: contexts (fused over unicast; disabled by the switch)", contexts_ok)

        def eager(v, layer, M, want_path, what):
            x = rand(M, layer.K)
            ref = reference(mode, [(x, layer.weight)])
            torch.cuda.synchronize(device)
            poison_next(contract.out_shape(mode, M, N, tp))
            out = layer(x)
            torch.cuda.synchronize(device)
            if want_path is not None:
                assert layer.last_path == want_path, f"{what}: took {layer.last_path}"
            check(mode, out, ref, M, f"{what} ({layer.last_path})")

        for name, v in variants.items():
            for M in ms:
                for lname, layer in (("o_proj", v.o), ("down_proj", v.down)):
                    want = {"fused": "fused", "disabled": "unfused"}.get(name)
                    what = f"{mode} {name} {lname} K={layer.K} M={M}"
                    R.case(what, lambda: eager(v, layer, M, want, what), v.recover)

        def graph_case(v, M, what):
            xs = [rand(M, K_O), rand(M, K_DOWN)]
            for _ in range(2):  # warm-up outside the capture (kernels, NCCL)
                v.o(xs[0]), v.down(xs[1])
            torch.cuda.synchronize(device)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                outs = [v.o(xs[0]), v.down(xs[1])]
            paths = (v.o.last_path, v.down.last_path)
            for i in range(3):
                for x in xs:
                    x.copy_(rand(*x.shape))
                refs = [reference(mode, [(xs[0], v.o.weight)]),
                        reference(mode, [(xs[1], v.down.weight)])]
                for o in outs:
                    o.fill_(float("nan"))
                torch.cuda.synchronize(device)
                graph.replay()
                torch.cuda.synchronize(device)
                for o, ref, lname in zip(outs, refs, ("o_proj", "down_proj")):
                    check(mode, o, ref, M, f"{what} replay {i} {lname} {paths}")

        for name in ("default", "fused", "disabled"):
            for M in [int(m) for m in args.graph_ms.split(",") if m]:
                v = variants[name]
                what = f"{mode} {name} one CUDA graph, both layers, M={M}"
                R.case(what, lambda: graph_case(v, M, what), v.recover)

        if args.skip_compile:
            continue

        def compiled_case(v, compile_kw, Ms, what):
            torch._dynamo.reset()
            run = torch.compile(v.module, fullgraph=True, **compile_kw)
            for M in Ms:
                for i in range(3 if compile_kw else 1):  # reduce-overhead: warm-up, record, replay
                    x_o, x_down = rand(M, K_O), rand(M, K_DOWN)
                    ref = reference(mode, [(x_o, v.o.weight), (torch.relu(x_down), v.down.weight)])
                    torch.cuda.synchronize(device)
                    out = run(x_o, x_down)
                    torch.cuda.synchronize(device)
                    check(mode, out, ref, M, f"{what} M={M} call {i} ({v.o.last_path}, "
                                             f"{v.down.last_path})")

        R.case(f"{mode} default compile fullgraph M=16,1000,17",
               lambda: compiled_case(default, {}, [16, 1000, 17], f"{mode} default compiled"),
               default.recover)
        R.case(f"{mode} fused compile fullgraph M=16",
               lambda: compiled_case(fused, {}, [16], f"{mode} fused compiled"), fused.recover)
        R.case(f"{mode} fused compile reduce-overhead M=1000",
               lambda: compiled_case(fused, {"mode": "reduce-overhead"}, [1000],
                                     f"{mode} fused reduce-overhead"), fused.recover)

        def opcheck_case():
            fused_op, _ = fused.ctx.fused_op(K_O)
            custom = torch_ops.CUSTOM_OPS[mode]
            torch.library.opcheck(custom, (rand(17, K_O), fused.o.weight, fused_op.handle))

        R.case(f"{mode} opcheck codegen::{torch_ops.OP_NAMES[mode]}", opcheck_case, fused.recover)
        for v in variants.values():
            v.ctx.release()

    R.say(f"{R.passed} passed, {R.failed} failed")
    return 1 if R.failed else 0


if __name__ == "__main__":
    sys.exit(main())
