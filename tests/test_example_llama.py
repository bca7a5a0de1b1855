"""examples/llama_block_tp.py on the CPU at tiny sizes, so the example cannot rot: the sharding
(TP2 over two threads equals TP1), the bf16 tolerance against fp32, the row-parallel factory,
RowParallelLinear's unfused path under CODEGEN_DISABLE_FUSED in a one-process gloo group, and
the command line / table helpers. No GPU, no torchrun."""
from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path

import pytest
import torch

PATH = Path(__file__).resolve().parent.parent / "examples" / "llama_block_tp.py"


def _load():
    spec = importlib.util.spec_from_file_location("llama_block_tp", PATH)
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("llama_block_tp", mod)
    spec.loader.exec_module(mod)
    return mod


ex = _load()
CFG = ex.LlamaConfig(hidden=64, n_heads=4, n_kv_heads=2, head_dim=16, intermediate=96)
M = 8


def _shards(cfg, tp, rank, layers=2, dtype=torch.float32):
    return [ex.shard_layer_weights(ex.make_layer_weights(cfg, i, 0, "cpu", dtype), cfg, rank, tp)
            for i in range(layers)]


def _x(cfg, m=M, dtype=torch.float32):
    g = torch.Generator().manual_seed(7)
    return torch.randn(m, cfg.hidden, generator=g).to(dtype)


class ThreadAllReduce:
    """tp ranks as threads of one process: each rank's row-parallel layer publishes its partial,
    every rank sums all of them in rank order (so every rank gets the same bits)."""

    def __init__(self, tp: int):
        self.tp, self.barrier, self.slots = tp, threading.Barrier(tp, timeout=30), [None] * tp

    def factory(self, rank: int):
        hub = self

        class RowParallel(torch.nn.Module):
            def __init__(self, w):
                super().__init__()
                self.w = w

            def forward(self, x):
                hub.slots[rank] = torch.mm(x, self.w.t())
                hub.barrier.wait()
                total = sum(hub.slots[1:], hub.slots[0].clone())
                hub.barrier.wait()  # nobody overwrites a slot before every rank has read it
                return total

        return RowParallel


def test_tp2_over_threads_equals_tp1():
    x = _x(CFG)
    full = ex.LlamaStack(CFG, 1, _shards(CFG, 1, 0), ex.NcclRowParallel, 64)
    want = full(x)
    hub, outs = ThreadAllReduce(2), [None, None]
    models = [ex.LlamaStack(CFG, 2, _shards(CFG, 2, r), hub.factory(r), 64) for r in range(2)]

    def run(r):
        outs[r] = models[r](x)

    threads = [threading.Thread(target=run, args=(r,)) for r in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert torch.equal(outs[0], outs[1])
    torch.testing.assert_close(outs[0], want, rtol=1e-5, atol=1e-5)


def test_shard_shapes_and_factory_calls():
    cfg = ex.LlamaConfig(hidden=64, n_heads=8, n_kv_heads=4, head_dim=16, intermediate=128)
    w = ex.shard_layer_weights(ex.make_layer_weights(cfg, 0, 0, "cpu"), cfg, 1, 2)
    assert w["qkv"].shape == (4 * 16 + 2 * 2 * 16, 64) and w["qkv"].dtype == torch.bfloat16
    assert w["o"].shape == (64, 4 * 16) and w["o"].is_contiguous()
    assert w["gate_up"].shape == (128, 64) and w["down"].shape == (64, 64) and w["down"].is_contiguous()
    seen = []

    def factory(weight):
        seen.append(tuple(weight.shape))
        return ex.NcclRowParallel(weight)

    model = ex.LlamaStack(cfg, 2, [w, w, w], factory, 32)
    assert seen == [(64, 64), (64, 64)] * 3  # o_proj [hidden, 4 heads x 16], down [hidden, 64]
    assert model(_x(cfg, 5, torch.bfloat16)).shape == (5, 64)
    assert ex.paths_text(model.paths()) == "unfused"
    with pytest.raises(ValueError, match="n_kv_heads=4 is not a multiple of tp=8"):
        ex.shard_layer_weights(ex.make_layer_weights(cfg, 0, 0, "cpu"), cfg, 0, 8)


def test_weights_are_seeded_and_differ_per_layer():
    a, b = ex.make_layer_weights(CFG, 0, 3, "cpu"), ex.make_layer_weights(CFG, 0, 3, "cpu")
    c = ex.make_layer_weights(CFG, 1, 3, "cpu")
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not torch.equal(a["q"], c["q"])


def test_bf16_layer_within_the_fp32_tolerance():
    shards = _shards(CFG, 1, 0, layers=1, dtype=torch.bfloat16)
    m16 = ex.LlamaStack(CFG, 1, shards, ex.NcclRowParallel, 64)
    m32 = ex.LlamaStack(CFG, 1, [{k: v.float() for k, v in s.items()} for s in shards],
                        ex.NcclRowParallel, 64)
    x = _x(CFG, 32, torch.bfloat16)
    e = ex.layer_error(m16(x), m32(x.float()))
    assert e["ok"], e
    assert e["relerr"] < 0.02
    bad = m16(x).float()
    bad[3, 5] += 1.0  # one wrong element is caught elementwise
    assert not ex.layer_error(bad, m32(x.float()))["ok"]
    assert ex.stack_relerr_bound(4) == pytest.approx(0.03)
    assert ex.stack_relerr_bound(16) == pytest.approx(0.06)


def test_row_parallel_linear_unfused_in_a_gloo_group(monkeypatch):
    """The example's fused factory over the real RowParallelLinear, fused disabled: the layer's
    own unfused path (torch.mm + functional all_reduce) matches the reference factory."""
    tp_linear = pytest.importorskip("codegen.runtime.tp_linear")
    import torch.distributed as dist

    monkeypatch.setenv("CODEGEN_DISABLE_FUSED", "1")
    dist.init_process_group("gloo", rank=0, world_size=1, store=dist.HashStore())
    try:
        ctx = tp_linear.TPContext(max_M=64, N=CFG.hidden, mode="ar")
        assert not ctx.fused_available
        shards = _shards(CFG, 1, 0)
        fused = ex.LlamaStack(CFG, 1, shards, lambda w: tp_linear.RowParallelLinear(w, ctx), 64)
        ref = ex.LlamaStack(CFG, 1, shards, ex.NcclRowParallel, 64)
        x = _x(CFG)
        torch.testing.assert_close(fused(x), ref(x), rtol=1e-5, atol=1e-5)
        assert fused.paths() == {"o_proj": {"unfused"}, "down_proj": {"unfused"}}
    finally:
        dist.destroy_process_group()


def test_command_line_and_table():
    a = ex.parse_args([])
    assert (a.layers, a.ms_decode, a.ms_prefill, a.check_only, a.compile) == (
        4, [16, 32, 64, 128], [2048, 4096, 8192], False, True)
    assert a.fp32_ms == [16, 128, 2048] and a.min_m is None and a.json is None
    assert a.cfg == ex.LlamaConfig()
    b = ex.parse_args(["--layers", "2", "--ms-decode", "16", "--ms-prefill", "", "--check-only",
                       "--no-compile", "--iters", "5", "--json", "o.json", "--min-m", "1"])
    assert (b.layers, b.ms_decode, b.ms_prefill, b.check_only, b.compile, b.iters, b.min_m) == (
        2, [16], [], True, False, 5, 1)
    assert b.fp32_ms == [16] and str(b.json) == "o.json"
    with pytest.raises(SystemExit):
        ex.parse_args(["--layers", "0"])
    row = {"M": 16, "mode": "graph", "unfused_ms": 2.0, "fused_ms": 1.6, "path": "fused"}
    assert ex.table_row(row) == "| 16 | graph | 2.000 | 1.600 | 1.25x | fused |"
    assert ex.table_row({**row, "fused_ms": None}) == "| 16 | graph | 2.000 | error | - | fused |"
    assert ex.table_header().splitlines()[0] == "| M | mode | unfused ms | fused ms | speedup | path used |"
    assert ex.paths_text({"o_proj": {"fused"}, "down_proj": {"unfused"}}) == \
        "o_proj fused, down_proj unfused"


class _FakeGroup:
    """The parts of a Group that TPContext reads: one local rank on the caller's stream."""

    def __init__(self, max_M, N, mode, process_group=None, **kw):
        import torch.distributed as dist

        self.max_M, self.N, self.mode = max_M, N, mode
        self.tp, self.local_ranks = dist.get_world_size(process_group), (dist.get_rank(process_group),)
        self.device = torch.device("cpu")

    def stream(self, rank):
        return None

    def workspace(self, rank):
        return type("Buf", (), {"multicast_ptr": 0})()

    ar_buffer = landing = workspace


class _StandInOp:
    """GemmRsAr's dispatch questions, the math by torch.mm (one rank: the partial is the sum)."""

    group = None

    def __init__(self, max_M, N, K, mode, group, *, transport, min_m=128, **kw):
        self.max_M, self.N, self.K, self.mode, self.min_m = max_M, N, K, mode, min_m
        self.local_ranks, self.calls = group.local_ranks, []

    def out_shape(self, M):
        return (M, self.N)

    def can_run(self, w):
        return w.dtype == torch.bfloat16 and tuple(w.shape) == (self.N, self.K)

    def should_run(self, x):
        return 1 <= x.shape[0] <= self.max_M and x.shape[0] >= self.min_m

    def prepare(self, Ms=None):
        return []

    def __call__(self, rank, x, w, out=None):
        self.calls.append(x.shape[0])
        return (x.float() @ w.float().t()).to(torch.bfloat16)


def _run_example(monkeypatch, tmp_path, extra, fused_standin):
    pytest.importorskip("codegen.runtime.tp_linear")
    import json

    import torch.distributed as dist

    from codegen.runtime import tp_linear

    if fused_standin:
        real = tp_linear.TPContext
        monkeypatch.setattr(tp_linear, "TPContext", lambda *a, **kw: real(
            *a, group_factory=_FakeGroup, op_factory=_StandInOp, **kw))
    else:
        monkeypatch.setenv("CODEGEN_DISABLE_FUSED", "1")
    monkeypatch.setattr(ex.Run, "eager_ms", lambda self, fn: (fn(), 2.0)[1])
    monkeypatch.setattr(ex.Run, "graph_ms", lambda self, fn, calls: (fn(), 1.0)[1])
    out = tmp_path / "r.json"
    args = ex.parse_args(["--hidden", "64", "--heads", "4", "--kv-heads", "2", "--head-dim", "16",
                          "--intermediate", "96", "--layers", "2", "--ms-decode", "4,8",
                          "--ms-prefill", "32", "--no-compile", "--iters", "2", "--json", str(out)]
                         + extra)
    dist.init_process_group("gloo", rank=0, world_size=1, store=dist.HashStore())
    try:
        rc = ex.Run(args, dist, torch.device("cpu")).run()
    finally:
        dist.destroy_process_group()
    return rc, json.loads(out.read_text())


def test_whole_run_unfused_in_a_one_process_gloo_group(monkeypatch, tmp_path, capsys):
    """Run.run() end to end on the CPU at tiny sizes (fused disabled, timing faked): every check
    and the table and the JSON come out, exit status 0."""
    rc, doc = _run_example(monkeypatch, tmp_path, [], fused_standin=False)
    text = capsys.readouterr().out
    assert rc == 0, text
    assert "FAIL" not in text and "CODEGEN_DISABLE_FUSED is set" in text
    assert "| 8 | graph | 1.000 | 1.000 | 1.00x | unfused |" in text
    assert "| 32 | eager | 2.000 | 2.000 | 1.00x | unfused |" in text
    names = [c["name"] for c in doc["checks"]]
    assert "one layer fused vs fp32 M=4" in names and "stack of 2 vs fp32 M=32" in names
    assert "stack of 2 fused vs reference M=32" in names and "last_path M=8" in names
    assert all(c["ok"] for c in doc["checks"])
    assert [(r["M"], r["mode"]) for r in doc["rows"]] == [(4, "graph"), (8, "graph"), (32, "eager"),
                                                           (32, "graph")]
    assert doc["fused_available"] is False


def test_whole_run_with_a_standin_fused_op(monkeypatch, tmp_path, capsys):
    """The same with a CPU stand-in for the fused op behind the real TPContext /
    RowParallelLinear (--min-m 8): M=4 unfused, M=8 and 32 through the custom-op registry."""
    rc, doc = _run_example(monkeypatch, tmp_path, ["--min-m", "8"], fused_standin=True)
    text = capsys.readouterr().out
    assert rc == 0, text
    assert "PASS fused path available" in text and "PASS fused kernels for down_proj (K=96)" in text
    assert "dispatch at M=4: unfused" in text and "dispatch at M=8: fused" in text
    assert "PASS last_path M=8: took fused, expected fused" in text
    assert "| 4 | graph | 1.000 | 1.000 | 1.00x | unfused |" in text
    assert "| 32 | graph | 1.000 | 1.000 | 1.00x | fused |" in text
    assert all(c["ok"] for c in doc["checks"]) and doc["fused_available"] is True
