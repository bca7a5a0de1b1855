#!/usr/bin/env python3
"""A Llama-style decoder block on two GPUs (TP2): fused GEMM + all-reduce against torch.mm + NCCL.

    codegen build --tp 2 --arch sm_90a --transport unicast      # on the CPU machine; carry generated/
    PYTHONPATH=. torchrun --nproc-per-node 2 examples/llama_block_tp.py [--layers 4] [--json out.json]

The block (random weights from a seeded generator, nothing downloaded), bf16, Megatron-style
tensor parallelism over `tp` ranks (one process per GPU):

    h   = x + o_proj(attention(rope(qkv_proj(rmsnorm(x)))))
    out = h + down_proj(silu(gate(rmsnorm(h))) * up(rmsnorm(h)))

qkv_proj, gate and up are column-parallel (each rank its heads / its slice of the
intermediate); o_proj and down_proj are ROW-parallel (each rank a partial sum, all-reduced).

Default sizes: hidden 7168, 56 query heads x 128 (28 per rank), GQA with 8 KV heads (4 per rank),
intermediate 18432. Per rank: qkv [4608, 7168], o_proj [7168, 3584], gate_up [18432, 7168],
down_proj [7168, 9216]. The two row-parallel layers of every layer are the only cross-rank
communication; both are built by a factory passed to the model, so the same model code runs:
  fused      codegen.runtime.tp_linear.RowParallelLinear over ONE TPContext (mode "ar",
             N = hidden) shared by every row-parallel layer of every layer;
  reference  torch.mm, then an in-place NCCL dist.all_reduce (`NcclRowParallel`): what a
             Megatron-style layer does, the strongest simple unfused path.
Both are built from the same bf16 weight tensors.

Attention: **no KV cache**. Each forward is one sequence of M tokens attending causally to each
other (torch SDPA, is_causal) after a rotary embedding: a prefill-style block. At the decode
sizes (M = 16..128) it stands for M decode tokens going through the layer's GEMMs and all-reduces
(those shapes are the real decode ones), but its attention is not a decode attention over a KV
cache: it is cheaper here, so the row-parallel layers' share of the time is larger than in a
real decode step.

Which path a fused layer takes is RowParallelLinear's per-M dispatch: the op's tuning table
for (arch, ar, tp, N, K) where one exists, else fused from M = 128 on (so without tables for
K = 3584 / 9216 the decode sizes 16..64 run unfused: the "path used" column says so).
`--min-m 1` makes the fused kernel run at every size; tables come from
`tools/bench_multi_gpu.py --modes ar --ks 3584,9216 --tune-out generated`.

What the run does (rank 0 prints; both ranks do the same work):
 1. Checks (PASS/FAIL lines; the tolerances and their derivation are the constants below):
    - at a few sizes (--fp32-ms), against an fp32 computation with the same (bf16-valued)
      weights (no TF32, SDPA's math backend): layer 0 of each bf16 model elementwise,
      |out - ref| <= ATOL + RTOL |ref|; the whole stack of each by relative norm error, the
      fused one no worse than FP32_RATIO x the reference's;
    - at every decode and prefill size, fused against reference: layer 0 elementwise (twice the
      fp32 tolerance), the stack by relative norm error (<= 0.015 sqrt(L)), which path every
      row-parallel layer took (`last_path`, against the op's own dispatch verdict: "fused"
      wherever the fused path is expected), and whether the ranks' outputs are bit-identical
      (printed, not checked);
    - torch.compile(fullgraph=True) of layer 0 of the fused model (--compile-ms, the second size
      recompiles with a dynamic M): runs, takes the expected path, matches fp32 with the
      one-layer tolerance. A failure is reported and the run goes on (--no-compile skips it).
 2. Timing (skipped with --check-only), ms per forward of the L-layer stack, the slowest rank's
    median of --iters: decode sizes by CUDA-graph replay (tools/graph_timing.py,
    DECODE_CALLS_PER_GRAPH forwards per graph), prefill sizes eager (torch.cuda.Event around
    one forward) and by graph replay; warm-up first, a barrier before every measurement. The
    input is allocated once (rows of one [max M, hidden] tensor); activations come from the
    caching allocator (eager) or the graph's pool (graph). A markdown table; --json writes the
    configuration, every check and every row.

The environment is made multicast-free before torch.distributed starts
(TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1; a value that
enables multicast is refused with exit status 3). CODEGEN_DISABLE_FUSED=1 makes the "fused"
model run unfused too (a useful A/B of the layer's own fallback). Exit status: 0 all checks
passed, 1 some check failed.

The model code (LlamaConfig, make_layer_weights, shard_layer_weights, LlamaStack, ...) imports
only torch, so tests/test_example_llama.py runs it on the CPU.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

ROOT = Path(__file__).resolve().parent.parent

# ---- tolerances (see Run.check_fp32 / Run.check_pair) ---------------------------------------
#: bf16 keeps 8 significant bits: one rounding is off by up to half an ulp, 2^-9 relative. A
#: layer's bf16 output went through a dozen roundings (the norms, q/k/v, rope, attention, the
#: GEMM outputs, silu * up, the residual adds), each a small error of random sign, carried
#: through GEMMs of K = 3584..18432 that add thousands of them: the error of an output element
#: is close to Gaussian, with a standard deviation sigma of about 0.5% of the output's RMS
#: (measured on the CPU at the default sizes, TP1, M = 32: relative norm error 0.44%; each
#: branch 0.5%). The largest of n such errors is about sqrt(2 ln n) sigma: 5 sigma for 10^5
#: elements, 6 for 10^8. On the GPU, cuBLAS may reduce split-K partials in bf16 and flash
#: attention rounds its probabilities to bf16, so sigma may be larger there. The elementwise
#: bound is |out - ref| <= ATOL + RTOL |ref| with ATOL = 2^-4 * RMS(ref) (16 x 2^-8, bf16's relative
#: ulp: about 12 sigma at sigma = 0.5%, 6 sigma even at 1%) and RTOL = 2^-6 (4 ulps, for the
#: large elements). It still fails any element off by more than 6% of the RMS: what a
#: wrong, stale or missing partial sum gives (O(100%)). CPU, TP1: worst
#: |err| / (ATOL + RTOL |ref|) = 0.28 (M=32), 0.30 (M=512).
LAYER_RTOL = 2.0**-6
LAYER_ATOL_RMS = 2.0**-4  # times the RMS of the fp32 reference output
#: Fused against reference, one layer, elementwise: both are off from the exact result by at
#: most the bound above, so they differ by at most twice it (the triangle inequality):
#: |fused - ref| <= PAIR_FACTOR * (ATOL + RTOL |ref|), ATOL from the reference's RMS.
PAIR_FACTOR = 2.0
#: The L-layer stack: per layer, a bf16 output is eps ~ 0.45% (relative norm) off the exact one;
#: over L layers the errors add like a random walk (measured on the CPU, TP1, M=32: 0.44% after
#: one layer, 0.86% after four = sqrt(4) * 0.43%). Fused and reference differ by at most the sum
#: of their errors, 2 sqrt(L) eps; the bound takes eps = 0.75% (1.5x margin):
#: ||fused - ref|| / ||ref|| <= 0.015 sqrt(L) (3% at L = 4). A kernel bug (a missing rank's
#: partial, a stale or misplaced tile) is an O(1) error of the elements it touches; the
#: elementwise one-layer check above catches one wrong tile, which this norm would dilute.
STACK_EPS = 0.0075
#: Fused no less accurate than the reference: against the fp32 stack (at the fp32 sizes),
#: relerr(fused) <= FP32_RATIO * relerr(reference) + 1e-3. With two ranks both round the sum of
#: the two bf16 partials once (the kernel sums in fp32, NCCL adds two bf16 values); the GEMMs'
#: accumulation orders differ.
FP32_RATIO = 1.5
#: A torch.compile'd layer may keep intermediates in fp32 where eager rounds to bf16: it is
#: checked against fp32 with the one-layer tolerance, not bitwise against eager.
ENV_RECORDED = ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS",
                "CODEGEN_DISABLE_FUSED", "CODEGEN_CACHE_DIR", "CODEGEN_MANIFEST")
DECODE_MS = [16, 32, 64, 128]
PREFILL_MS = [2048, 4096, 8192]
DECODE_CALLS_PER_GRAPH = 10  # forwards captured in one graph at decode sizes (amortises replay)
PREFILL_CALLS_PER_GRAPH = 1


def stack_relerr_bound(layers: int) -> float:
    return 2.0 * STACK_EPS * layers**0.5


# ---- the model (torch only) -------------------------------------------------------------------
@dataclass(frozen=True)
class LlamaConfig:
    hidden: int = 7168
    n_heads: int = 56
    n_kv_heads: int = 8
    head_dim: int = 128
    intermediate: int = 18432
    rms_eps: float = 1e-5
    rope_theta: float = 500000.0

    def check_tp(self, tp: int) -> None:
        bad = [f"{name}={v} is not a multiple of tp={tp}"
               for name, v in (("n_heads", self.n_heads), ("n_kv_heads", self.n_kv_heads),
                               ("intermediate", self.intermediate)) if v % tp]
        if self.n_heads % self.n_kv_heads:
            bad.append(f"n_heads={self.n_heads} is not a multiple of n_kv_heads={self.n_kv_heads}")
        if bad:
            raise ValueError("; ".join(bad))


def make_layer_weights(cfg: LlamaConfig, layer: int, seed: int, device, dtype=torch.bfloat16) -> dict:
    """The full (unsharded) weights of one layer, seeded by (seed, layer): every rank makes the
    same ones. Linear weights [out, in] ~ N(0, 1/in) (keeps activations O(1)); norm weights
    1 + N(0, 0.1^2)."""
    g = torch.Generator(device=device)
    g.manual_seed(seed * 1_000_003 + layer)

    def lin(out_f: int, in_f: int):
        return (torch.randn(out_f, in_f, generator=g, device=device) * in_f**-0.5).to(dtype)

    def norm():
        return (1.0 + 0.1 * torch.randn(cfg.hidden, generator=g, device=device)).to(dtype)

    q, kv = cfg.n_heads * cfg.head_dim, cfg.n_kv_heads * cfg.head_dim
    return {"attn_norm": norm(), "q": lin(q, cfg.hidden), "k": lin(kv, cfg.hidden),
            "v": lin(kv, cfg.hidden), "o": lin(cfg.hidden, q), "mlp_norm": norm(),
            "gate": lin(cfg.intermediate, cfg.hidden), "up": lin(cfg.intermediate, cfg.hidden),
            "down": lin(cfg.hidden, cfg.intermediate)}


def shard_layer_weights(full: dict, cfg: LlamaConfig, rank: int, tp: int) -> dict:
    """Rank `rank`'s shards (contiguous copies), Megatron-style:
    qkv   rows of this rank's query heads, then of its KV heads (column-parallel, one GEMM);
    o     columns of this rank's query heads: [hidden, n_heads/tp * head_dim] (row-parallel);
    gate_up  this rank's rows of gate, then of up (column-parallel, one GEMM);
    down  this rank's columns: [hidden, intermediate/tp] (row-parallel).
    Query head h uses KV head h // (n_heads / n_kv_heads); with both split in rank order, a
    rank's query heads use exactly its KV heads."""
    cfg.check_tp(tp)
    d = cfg.head_dim
    hq, hkv, inter = cfg.n_heads // tp * d, cfg.n_kv_heads // tp * d, cfg.intermediate // tp

    def rows(w, n):
        return w[rank * n:(rank + 1) * n]

    def cols(w, n):
        return w[:, rank * n:(rank + 1) * n]

    return {"attn_norm": full["attn_norm"].clone(), "mlp_norm": full["mlp_norm"].clone(),
            "qkv": torch.cat([rows(full["q"], hq), rows(full["k"], hkv),
                              rows(full["v"], hkv)]).contiguous(),
            "o": cols(full["o"], hq).contiguous(),
            "gate_up": torch.cat([rows(full["gate"], inter), rows(full["up"], inter)]).contiguous(),
            "down": cols(full["down"], inter).contiguous()}


#: A row-parallel linear: weight shard [N, K_shard] -> module mapping [M, K_shard] to the
#: all-reduced [M, N] (every rank gets the sum over ranks of x_r @ W_r^T).
RowParallelFactory = Callable[[torch.Tensor], Callable[[torch.Tensor], torch.Tensor]]


class NcclRowParallel(nn.Module):
    """The reference row-parallel linear: torch.mm, then an in-place NCCL all_reduce (SUM) over
    `group`. Without an initialised process group (or with one rank) it is the plain GEMM."""

    last_path = "unfused"

    def __init__(self, weight: torch.Tensor, group=None):
        super().__init__()
        self.register_buffer("weight", weight, persistent=False)
        import torch.distributed as dist

        self.group = group
        self.reduce = dist.is_available() and dist.is_initialized() and dist.get_world_size(group) > 1

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.mm(x, self.weight.t())
        if self.reduce:
            import torch.distributed as dist

            dist.all_reduce(y, group=self.group)
        return y


class RMSNorm(nn.Module):
    def __init__(self, weight: torch.Tensor, eps: float):
        super().__init__()
        self.register_buffer("weight", weight, persistent=False)
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return xf.to(x.dtype) * self.weight


class Rotary(nn.Module):
    """Rotate-half rotary embedding; cos/sin for positions 0..max_positions-1, made once."""

    def __init__(self, head_dim: int, max_positions: int, theta: float, device, dtype):
        super().__init__()
        inv = 1.0 / theta ** (torch.arange(0, head_dim, 2, device=device, dtype=torch.float32) / head_dim)
        freqs = torch.outer(torch.arange(max_positions, device=device, dtype=torch.float32), inv)
        emb = torch.cat([freqs, freqs], dim=-1)
        self.register_buffer("cos", emb.cos().to(dtype), persistent=False)
        self.register_buffer("sin", emb.sin().to(dtype), persistent=False)

    def forward(self, t: torch.Tensor) -> torch.Tensor:  # t: [M, heads, head_dim]
        M, half = t.shape[0], t.shape[-1] // 2
        cos, sin = self.cos[:M, None, :], self.sin[:M, None, :]
        rot = torch.cat([-t[..., half:], t[..., :half]], dim=-1)
        return t * cos + rot * sin


class Attention(nn.Module):
    def __init__(self, cfg: LlamaConfig, tp: int, w: dict, rotary: Rotary,
                 row_parallel: RowParallelFactory):
        super().__init__()
        self.hq, self.hkv, self.d = cfg.n_heads // tp, cfg.n_kv_heads // tp, cfg.head_dim
        self.register_buffer("qkv_weight", w["qkv"], persistent=False)
        self.rotary = rotary
        self.o_proj = row_parallel(w["o"])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        M, d = x.shape[0], self.d
        q, k, v = F.linear(x, self.qkv_weight).split([self.hq * d, self.hkv * d, self.hkv * d], dim=-1)
        q = self.rotary(q.view(M, self.hq, d)).transpose(0, 1).unsqueeze(0)   # [1, hq, M, d]
        k = self.rotary(k.view(M, self.hkv, d)).transpose(0, 1).unsqueeze(0)  # [1, hkv, M, d]
        v = v.view(M, self.hkv, d).transpose(0, 1).unsqueeze(0)
        if self.hq != self.hkv:  # GQA: query head h reads KV head h // (hq / hkv)
            # (repeated here rather than SDPA's enable_gqa, so every SDPA backend, flash
            # included, takes it; a [M, hq, d] copy is small next to the GEMMs)
            k = k.repeat_interleave(self.hq // self.hkv, dim=1)
            v = v.repeat_interleave(self.hq // self.hkv, dim=1)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(a.squeeze(0).transpose(0, 1).reshape(M, self.hq * d))


class MLP(nn.Module):
    def __init__(self, w: dict, row_parallel: RowParallelFactory):
        super().__init__()
        self.register_buffer("gate_up_weight", w["gate_up"], persistent=False)
        self.down_proj = row_parallel(w["down"])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = F.linear(x, self.gate_up_weight).chunk(2, dim=-1)
        return self.down_proj(F.silu(gate) * up)


class LlamaLayer(nn.Module):
    def __init__(self, cfg: LlamaConfig, tp: int, w: dict, rotary: Rotary,
                 row_parallel: RowParallelFactory):
        super().__init__()
        self.attn_norm = RMSNorm(w["attn_norm"], cfg.rms_eps)
        self.attn = Attention(cfg, tp, w, rotary, row_parallel)
        self.mlp_norm = RMSNorm(w["mlp_norm"], cfg.rms_eps)
        self.mlp = MLP(w, row_parallel)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x + self.attn(self.attn_norm(x))
        return h + self.mlp(self.mlp_norm(h))

    def row_parallel_layers(self) -> dict:
        return {"o_proj": self.attn.o_proj, "down_proj": self.mlp.down_proj}


class LlamaStack(nn.Module):
    """`len(shards)` layers from per-rank weight shards (shard_layer_weights), all of whose
    row-parallel layers come from `row_parallel(weight_shard)`. Input/output: [M, hidden],
    replicated on every rank; M <= max_positions."""

    def __init__(self, cfg: LlamaConfig, tp: int, shards: list[dict], row_parallel: RowParallelFactory,
                 max_positions: int):
        super().__init__()
        w0 = shards[0]["qkv"]
        rotary = Rotary(cfg.head_dim, max_positions, cfg.rope_theta, w0.device, w0.dtype)
        self.layers = nn.ModuleList(LlamaLayer(cfg, tp, w, rotary, row_parallel) for w in shards)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return x

    def paths(self) -> dict:
        """{'o_proj': {...}, 'down_proj': {...}}: the set of last_path values of each kind."""
        out: dict = {}
        for layer in self.layers:
            for kind, lin in layer.row_parallel_layers().items():
                out.setdefault(kind, set()).add(getattr(lin, "last_path", "?"))
        return out


def paths_text(paths: dict) -> str:
    """'fused' / 'unfused' when every row-parallel layer took it, else per kind."""
    values = set().union(*paths.values()) if paths else set()
    if len(values) == 1:
        return next(iter(values))
    return ", ".join(f"{k} {'/'.join(sorted(v))}" for k, v in paths.items())


def relerr(out: torch.Tensor, ref: torch.Tensor) -> float:
    """||out - ref|| / ||ref|| in fp32."""
    out, ref = out.float(), ref.float()
    return float((out - ref).norm() / ref.norm().clamp_min(1e-30))


def layer_error(out: torch.Tensor, ref: torch.Tensor, factor: float = 1.0) -> dict:
    """Elementwise check of a layer output against a reference: the worst
    |out - ref| / (ATOL + RTOL |ref|) (<= 1 passes), ATOL = factor * LAYER_ATOL_RMS * rms(ref),
    RTOL = factor * LAYER_RTOL (factor 1: against fp32; PAIR_FACTOR: two bf16 paths)."""
    out, ref = out.float(), ref.float()
    atol = factor * LAYER_ATOL_RMS * float(ref.pow(2).mean().sqrt())
    rtol = factor * LAYER_RTOL
    diff = (out - ref).abs()
    ratio = float((diff / (atol + rtol * ref.abs())).max())
    return {"worst_ratio": ratio, "relerr": relerr(out, ref), "max_abs": float(diff.max()),
            "atol": atol, "rtol": rtol, "ok": ratio <= 1.0}


# ---- the two-GPU run --------------------------------------------------------------------------
def _ints(text: str) -> list[int]:
    return [int(v) for v in text.split(",") if v.strip()]


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=4, help="layers in the stack (default 4)")
    ap.add_argument("--ms-decode", type=_ints, default=DECODE_MS, help="decode M list (graph timing)")
    ap.add_argument("--ms-prefill", type=_ints, default=PREFILL_MS, help="prefill M list (eager and graph)")
    ap.add_argument("--iters", type=int, default=30, help="timed repetitions per measurement (median)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed repetitions first")
    ap.add_argument("--json", type=Path, default=None, help="write config, checks and timings here")
    ap.add_argument("--check-only", action="store_true", help="checks only, no timing")
    ap.add_argument("--no-compile", dest="compile", action="store_false",
                    help="skip the torch.compile(fullgraph=True) check")
    ap.add_argument("--compile-ms", type=_ints, default=[128, 2048],
                    help="sizes of the compile check, in order (the second one recompiles with a "
                         "dynamic M); default 128 and 2048, where the default dispatch is fused")
    ap.add_argument("--fp32-ms", type=_ints, default=None,
                    help="sizes of the fp32 checks (default: first and last decode M, first "
                         "prefill M)")
    ap.add_argument("--min-m", type=int, default=None,
                    help="TPContext(min_m=...): fused from this M on (1: at every size); default: the "
                         "op's dispatch (a tuning table's per-M verdict for the shape, else M >= 128)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hidden", type=int, default=LlamaConfig.hidden)
    ap.add_argument("--heads", type=int, default=LlamaConfig.n_heads)
    ap.add_argument("--kv-heads", type=int, default=LlamaConfig.n_kv_heads)
    ap.add_argument("--head-dim", type=int, default=LlamaConfig.head_dim)
    ap.add_argument("--intermediate", type=int, default=LlamaConfig.intermediate)
    args = ap.parse_args(argv)
    if args.layers < 1:
        ap.error("--layers must be >= 1")
    if args.iters < 1:
        ap.error("--iters must be >= 1")
    if not args.ms_decode and not args.ms_prefill:
        ap.error("give at least one M (--ms-decode / --ms-prefill)")
    if any(m < 1 for m in args.ms_decode + args.ms_prefill + args.compile_ms):
        ap.error("every M must be >= 1")
    if args.fp32_ms is None:
        picks = ([args.ms_decode[0], args.ms_decode[-1]] if args.ms_decode else []) + args.ms_prefill[:1]
        args.fp32_ms = list(dict.fromkeys(picks))
    args.cfg = LlamaConfig(hidden=args.hidden, n_heads=args.heads, n_kv_heads=args.kv_heads,
                           head_dim=args.head_dim, intermediate=args.intermediate)
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    from codegen.runtime.symm_env import run_torchrun  # sets the multicast-free env before NCCL

    return run_torchrun(lambda torch_, dist, device: Run(args, dist, device).run())


class Run:
    def __init__(self, args, dist, device):
        self.a, self.dist, self.device = args, dist, device
        self.rank, self.tp = dist.get_rank(), dist.get_world_size()
        self.cfg: LlamaConfig = args.cfg
        self.ms = list(dict.fromkeys(args.ms_decode + args.ms_prefill))
        self.max_M = max(self.ms + args.fp32_ms + (args.compile_ms if args.compile else []))
        self.checks: list[dict] = []
        self.rows: list[dict] = []

    def say(self, text: str = "") -> None:
        if self.rank == 0:
            print(text, flush=True)

    def barrier(self) -> None:
        if self.device.type == "cuda":
            self.dist.barrier(device_ids=[self.device.index])
        else:
            self.dist.barrier()

    def sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def agree(self, err: str | None) -> str | None:
        errs: list = [None] * self.tp
        self.dist.all_gather_object(errs, err)
        bad = [f"rank {r}: {e}" for r, e in enumerate(errs) if e]
        return " | ".join(bad) if bad else None

    def step(self, fn):
        """fn() on every rank: (result, None), or (None, every rank's error) if any rank raised."""
        try:
            res, err = fn(), None
        except Exception as exc:  # noqa: BLE001 - recorded; the run goes on
            res, err = None, f"{type(exc).__name__}: {_short(exc)}"
            if os.environ.get("LLAMA_EXAMPLE_TRACEBACK"):
                traceback.print_exc()
        err = self.agree(err)
        return (None, err) if err else (res, None)

    def slowest(self, value: float) -> float:
        t = torch.tensor([value], dtype=torch.float64, device=self.device)
        self.dist.all_reduce(t, op=self.dist.ReduceOp.MAX)
        return float(t.item())

    def check(self, name: str, passed: bool, detail: str, **data) -> bool:
        data.pop("ok", None)
        self.checks.append({"name": name, "ok": bool(passed), "detail": detail, **data})
        self.say(f"{'PASS' if passed else 'FAIL'} {name}: {detail}")
        return bool(passed)

    # ---- set-up -------------------------------------------------------------------------------
    def build(self) -> None:
        from codegen.runtime.tp_linear import RowParallelLinear, TPContext

        cfg, a, dev = self.cfg, self.a, self.device
        cfg.check_tp(self.tp)
        t0 = time.time()
        self.shards = []
        for i in range(a.layers):
            full = make_layer_weights(cfg, i, a.seed, dev)
            self.shards.append(shard_layer_weights(full, cfg, self.rank, self.tp))
            del full
        self.sync()
        w = self.shards[0]
        self.say(f"weights: {a.layers} layers, per rank qkv {list(w['qkv'].shape)} o_proj "
                 f"{list(w['o'].shape)} gate_up {list(w['gate_up'].shape)} down_proj "
                 f"{list(w['down'].shape)} bf16 ({time.time() - t0:.1f} s)")
        kw = {} if a.min_m is None else {"min_m": a.min_m}
        self.ctx = TPContext(max_M=self.max_M, N=cfg.hidden, mode="ar", process_group=None, **kw)
        self.say(f"TPContext(max_M={self.max_M}, N={cfg.hidden}, mode='ar'"
                 + (f", min_m={a.min_m}" if kw else "") + f"): fused_available="
                 f"{self.ctx.fused_available}" + (f", fallback_reason: {self.ctx.fallback_reason}"
                                                 if self.ctx.fallback_reason else ""))
        self.fused = LlamaStack(cfg, self.tp, self.shards, lambda w: RowParallelLinear(w, self.ctx),
                                self.max_M)
        self.ref = LlamaStack(cfg, self.tp, self.shards, NcclRowParallel, self.max_M)
        g = torch.Generator(device=dev)
        g.manual_seed(a.seed + 12345)
        self.x_all = torch.randn(self.max_M, cfg.hidden, generator=g, device=dev).to(torch.bfloat16)
        self.dist.broadcast(self.x_all, src=0)  # the hidden states are replicated in TP

    def x(self, M: int) -> torch.Tensor:
        return self.x_all[:M]  # the first M rows: contiguous

    def expected_paths(self, M: int, layers=None) -> dict:
        """{'o_proj': {...}, 'down_proj': {...}}: the path each row-parallel layer of the fused
        model should take at M: fused iff the layer has the fused op of its K and that op's
        `should_run` says so for an input of M rows (its tuning table's per-M verdict, else
        M >= min_m or 128); the layer itself decides from a cached copy of these verdicts."""
        out: dict = {}
        for layer in self.fused.layers if layers is None else layers:
            for kind, lin in layer.row_parallel_layers().items():
                fused, _ = self.ctx.fused_op(lin.K)
                probe = torch.empty(M, lin.K, dtype=torch.bfloat16, device=lin.weight.device)
                ok = (fused is not None and lin.fallback_reason is None and M <= self.ctx.max_M
                      and fused.op.should_run(probe))
                out.setdefault(kind, set()).add("fused" if ok else "unfused")
        return out

    # ---- checks -------------------------------------------------------------------------------
    def check_fused_available(self) -> None:
        from codegen import env as codegen_env

        if codegen_env.load().disable_fused:
            self.say("CODEGEN_DISABLE_FUSED is set: the 'fused' model runs unfused on purpose")
            return
        if not self.check("fused path available", bool(self.ctx.fused_available),
                          f"TPContext over a symmetric-memory group, transport {self.ctx.transport}"
                          if self.ctx.fused_available else
                          f"fell back: {self.ctx.fallback_reason}"):
            return
        layer = self.fused.layers[0].row_parallel_layers()
        for kind, lin in layer.items():
            why = lin.fallback_reason
            self.check(f"fused kernels for {kind} (K={lin.K})", why is None,
                       "loaded" if why is None else f"{why} (build: codegen build --tp {self.tp} "
                       f"--arch sm_90a --transport unicast)")
        for M in self.ms:
            self.say(f"     dispatch at M={M}: {paths_text(self.expected_paths(M))}")

    def fp32_stack(self) -> LlamaStack:
        """The same L layers in fp32 (the bf16 weight values, upcast), torch.mm + NCCL."""
        shards32 = [{k: v.float() for k, v in w.items()} for w in self.shards]
        return LlamaStack(self.cfg, self.tp, shards32, NcclRowParallel, self.max_M)

    def run_fp32(self, model, x):
        """`model(x)` in exact fp32: no TF32, SDPA's math backend."""
        from torch.nn.attention import SDPBackend, sdpa_kernel

        with _fp32_exact(), sdpa_kernel(SDPBackend.MATH):
            return model(x.float())

    def check_fp32(self) -> None:
        """At the fp32 sizes: layer 0 of both bf16 models against fp32 (elementwise), and the
        whole stack of both against the fp32 stack (fused no less accurate than reference)."""
        self.ref32, err = self.step(self.fp32_stack)
        if err:
            self.check("fp32 reference", False, err)
            return
        for M in self.a.fp32_ms:
            x = self.x(M)
            want, err = self.step(lambda: self.run_fp32(self.ref32.layers[0], x))
            if err:
                self.check(f"fp32 reference M={M}", False, err)
                continue
            for name, model in (("reference", self.ref), ("fused", self.fused)):
                got, err = self.step(lambda: model.layers[0](x))
                if err:
                    self.check(f"one layer {name} vs fp32 M={M}", False, err)
                    continue
                e = layer_error(got, want)
                e["ok"] = self.all_ok(e["ok"])
                path = f", path {paths_text(_one(model.layers[0]))}" if name == "fused" else ""
                self.check(f"one layer {name} vs fp32 M={M}", e["ok"],
                           f"worst |err|/(atol+rtol|ref|) {e['worst_ratio']:.3f} (<= 1), relerr "
                           f"{e['relerr']:.2e}, max |err| {e['max_abs']:.3g}, atol {e['atol']:.3g} "
                           f"rtol {e['rtol']:.3g}{path}", M=M, model=name, **e)
            want, err = self.step(lambda: self.run_fp32(self.ref32, x))
            errs = {}
            for name, model in (("reference", self.ref), ("fused", self.fused)):
                if not err:
                    got, err = self.step(lambda: model(x))
                if not err:
                    errs[name] = self.slowest(relerr(got, want))
            if err:
                self.check(f"stack of {self.a.layers} vs fp32 M={M}", False, err)
                continue
            bound = FP32_RATIO * errs["reference"] + 1e-3
            self.check(f"stack of {self.a.layers} vs fp32 M={M}", errs["fused"] <= bound,
                       f"relerr fused {errs['fused']:.2e}, reference {errs['reference']:.2e} "
                       f"(fused <= {FP32_RATIO} x reference + 1e-3)", M=M, relerr=errs, bound=bound)

    def all_ok(self, ok: bool) -> bool:
        t = torch.tensor([0 if ok else 1], device=self.device)
        self.dist.all_reduce(t)
        return int(t.item()) == 0

    def check_pair(self) -> None:
        """At every size: layer 0 fused vs reference (elementwise), the stack fused vs reference
        (relative norm), which path each row-parallel layer took, replica agreement."""
        bound = stack_relerr_bound(self.a.layers)
        for M in self.ms:
            x = self.x(M)
            want, err = self.step(lambda: self.ref.layers[0](x))
            if not err:
                got, err = self.step(lambda: self.fused.layers[0](x))
            if err:
                self.check(f"one layer fused vs reference M={M}", False, err)
            else:
                e = layer_error(got, want, PAIR_FACTOR)
                e["ok"] = self.all_ok(e["ok"])
                self.check(f"one layer fused vs reference M={M}", e["ok"],
                           f"worst |diff|/(atol+rtol|ref|) {e['worst_ratio']:.3f} (<= 1), relerr "
                           f"{e['relerr']:.2e}, atol {e['atol']:.3g} rtol {e['rtol']:.3g}",
                           M=M, **e)
            want, err = self.step(lambda: self.ref(x))
            if not err:
                got, err = self.step(lambda: self.fused(x))
            name = f"stack of {self.a.layers} fused vs reference M={M}"
            if err:
                self.check(name, False, err)
                continue
            e = self.slowest(relerr(got, want))  # the worst rank
            paths = self.fused.paths()
            self.check(name, e <= bound, f"relerr {e:.2e} (<= {bound:.3g}); path {paths_text(paths)}",
                       M=M, relerr=e, bound=bound, paths={k: sorted(v) for k, v in paths.items()})
            want_paths = self.expected_paths(M)
            self.check(f"last_path M={M}", paths == want_paths,
                       f"took {paths_text(paths)}, expected {paths_text(want_paths)}", M=M)
            d = self.replica_diff(got)
            self.say(f"     replicas: max |rank 0 - rank r| of the fused output at M={M}: {d:.3g}"
                     + ("" if d == 0 else "  (the ranks' residual streams are not bit-identical)"))

    def replica_diff(self, out: torch.Tensor) -> float:
        ref = out.clone()
        self.dist.broadcast(ref, src=0)
        return self.slowest(float((out.float() - ref.float()).abs().max()))

    def check_compile(self) -> None:
        if getattr(self, "ref32", None) is None:
            self.check("torch.compile(fullgraph=True)", False, "no fp32 reference to compare with")
            return
        try:
            layer = torch.compile(self.fused.layers[0], fullgraph=True)
        except Exception as exc:  # noqa: BLE001
            self.check("torch.compile(fullgraph=True)", False, f"{type(exc).__name__}: {_short(exc)}")
            return
        layer0 = self.fused.layers[0]
        for M in self.a.compile_ms:
            x = self.x(M)
            for lin in layer0.row_parallel_layers().values():
                lin.last_path = None  # what the compiled call sets (Dynamo replays the side effect)
            t0 = time.time()
            got, err = self.step(lambda: layer(x).clone())
            dt = time.time() - t0
            compiled = _one(layer0)
            if err:
                self.check(f"torch.compile(fullgraph=True) one fused layer M={M}", False,
                           f"failed after {dt:.0f} s: {err}")
                continue
            res, err = self.step(lambda: (self.run_fp32(self.ref32.layers[0], x), self.fused.layers[0](x)))
            if err:
                self.check(f"torch.compile(fullgraph=True) one fused layer M={M}", False,
                           f"the references failed: {err}")
                continue
            want, eager = res
            e = layer_error(got, want)
            e["ok"] = self.all_ok(e["ok"])
            expected = self.expected_paths(M, [layer0])
            self.check(f"torch.compile(fullgraph=True) one fused layer M={M}",
                       e["ok"] and compiled == expected,
                       f"first call {dt:.1f} s; vs fp32: worst ratio {e['worst_ratio']:.3f} (<= 1), "
                       f"relerr {e['relerr']:.2e}; vs eager fused relerr {relerr(got, eager):.2e}; path "
                       f"compiled {paths_text(compiled)} (expected {paths_text(expected)}), eager "
                       f"{paths_text(_one(layer0))}", M=M, seconds=dt, **e)

    # ---- timing -------------------------------------------------------------------------------
    def eager_ms(self, fn) -> float:
        a = self.a
        for _ in range(a.warmup):
            fn()
        torch.cuda.synchronize(self.device)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(a.iters):
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return statistics.median(times)

    def graph_ms(self, fn, calls: int) -> float:
        if str(ROOT / "tools") not in sys.path:
            sys.path.insert(0, str(ROOT / "tools"))
        from graph_timing import graph_time_us  # tools/graph_timing.py, as the benchmarks time

        return graph_time_us(fn, calls, self.a.iters, self.a.warmup) / 1000.0

    def measure(self, fn, how: str, M: int) -> tuple[float | None, str | None]:
        calls = DECODE_CALLS_PER_GRAPH if M in self.a.ms_decode else PREFILL_CALLS_PER_GRAPH

        def go():
            self.barrier()
            t = self.eager_ms(fn) if how == "eager" else self.graph_ms(fn, calls)
            self.sync()
            return t

        t, err = self.step(go)
        if err:
            return None, err
        return self.slowest(t), None

    def time_all(self) -> None:
        plan = [(M, "graph") for M in self.a.ms_decode]
        plan += [(M, how) for M in self.a.ms_prefill for how in ("eager", "graph")]
        self.say(f"\ntiming: ms per forward of the {self.a.layers}-layer stack, median of "
                 f"{self.a.iters}, slowest rank; graph = {DECODE_CALLS_PER_GRAPH} (decode) / "
                 f"{PREFILL_CALLS_PER_GRAPH} (prefill) forwards per CUDA graph replay")
        self.say(table_header())
        for M, how in plan:
            x = self.x(M)
            row = {"M": M, "mode": how, "phase": "decode" if M in self.a.ms_decode else "prefill"}
            for name, model in (("unfused", self.ref), ("fused", self.fused)):
                t, err = self.measure(lambda: model(x), how, M)
                row[f"{name}_ms"] = t
                if err:
                    row[f"{name}_error"] = err
            row["path"] = paths_text(self.fused.paths())
            self.rows.append(row)
            self.say(table_row(row))
            for k in ("unfused_error", "fused_error"):
                if k in row:
                    self.say(f"     {k}: {row[k]}")

    # ---- the run ------------------------------------------------------------------------------
    def run(self) -> int:
        a, dev = self.a, self.device
        self.device_name = (torch.cuda.get_device_properties(dev).name if dev.type == "cuda"
                            else str(dev))
        self.say(f"tp={self.tp} {self.device_name} torch {torch.__version__} NCCL "
                 f"{_nccl_version()}; {a.layers} layers, {self.cfg}; "
                 f"NCCL_NVLS_ENABLE={os.environ.get('NCCL_NVLS_ENABLE')} TORCH_SYMM_MEM_DISABLE_MULTICAST="
                 f"{os.environ.get('TORCH_SYMM_MEM_DISABLE_MULTICAST')} CODEGEN_DISABLE_FUSED="
                 f"{os.environ.get('CODEGEN_DISABLE_FUSED', '')}")
        try:
            with torch.no_grad():
                return self._run(t0=time.time())
        finally:
            if getattr(self, "ctx", None) is not None:
                self.ctx.release()  # unregister its ops from the custom-op registry

    def _run(self, t0: float) -> int:
        a, dev = self.a, self.device
        _, err = self.step(self.build)
        if err:
            self.say(f"FAIL set-up: {err}")
            return 1
        self.say("\nchecks:")
        self.check_fused_available()
        self.check_fp32()
        self.check_pair()
        if a.compile:
            self.check_compile()
        else:
            self.say("torch.compile check skipped (--no-compile)")
        self.ref32 = None
        if dev.type == "cuda":
            torch.cuda.empty_cache()
        if not a.check_only:
            self.time_all()
        failed = [c["name"] for c in self.checks if not c["ok"]]
        errors = [r for r in self.rows if "unfused_error" in r or "fused_error" in r]
        self.say(f"\n{len(self.checks) - len(failed)} checks passed, {len(failed)} failed"
                 + (f" ({'; '.join(failed)})" if failed else "")
                 + (f"; {len(errors)} timing rows with errors" if errors else "")
                 + f"; {time.time() - t0:.0f} s")
        if self.rank == 0 and a.json:
            self.write_json()
        return 1 if failed or errors else 0

    def write_json(self) -> None:
        a = self.a
        doc = {"tp": self.tp, "device": self.device_name, "torch": torch.__version__,
               "nccl": _nccl_version(), "layers": a.layers,
               "config": asdict(self.cfg), "iters": a.iters, "warmup": a.warmup,
               "decode_calls_per_graph": DECODE_CALLS_PER_GRAPH,
               "prefill_calls_per_graph": PREFILL_CALLS_PER_GRAPH,
               "fused_available": bool(self.ctx.fused_available),
               "fallback_reason": self.ctx.fallback_reason,
               "env": {k: os.environ.get(k) for k in ENV_RECORDED},
               "command": "torchrun --nproc-per-node %d examples/llama_block_tp.py %s"
                          % (self.tp, " ".join(sys.argv[1:])),
               "checks": self.checks, "rows": self.rows}
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(doc, indent=1, default=str))
        print(f"wrote {a.json}", flush=True)


def table_header() -> str:
    return ("| M | mode | unfused ms | fused ms | speedup | path used |\n"
            "|---|---|---|---|---|---|")


def table_row(row: dict) -> str:
    u, f = row.get("unfused_ms"), row.get("fused_ms")
    sp = f"{u / f:.2f}x" if u and f else "-"
    fmt = lambda t: "error" if t is None else f"{t:.3f}"  # noqa: E731
    return f"| {row['M']} | {row['mode']} | {fmt(u)} | {fmt(f)} | {sp} | {row['path']} |"


def _one(layer: LlamaLayer) -> dict:
    return {k: {getattr(v, "last_path", "?")} for k, v in layer.row_parallel_layers().items()}


def _nccl_version() -> str:
    try:
        v = torch.cuda.nccl.version()
    except Exception:  # noqa: BLE001 - a CPU-only torch
        return "none"
    return ".".join(map(str, v)) if isinstance(v, tuple) else str(v)


def _short(exc: BaseException, limit: int = 1200) -> str:
    text = str(exc).strip()
    return text if len(text) <= limit else text[:limit] + " ..."


class _fp32_exact:
    """No TF32 in fp32 matmuls (the fp32 reference must be fp32)."""

    def __enter__(self):
        self.saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False

    def __exit__(self, *exc):
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = self.saved
        return False


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
