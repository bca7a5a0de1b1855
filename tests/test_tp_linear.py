"""RowParallelLinear / TPContext on CPU: per-M dispatch, the CODEGEN_DISABLE_FUSED switch, the
fallback chain and its single log line, the unfused RS padding, torch.compile(fullgraph) with
aot_eager; over a one-process gloo group with a stand-in group and op, and over two gloo
processes for the real unfused collectives."""
from __future__ import annotations

import logging
import os
import socket
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
import torch.distributed as dist

from codegen.runtime import CacheMissError, torch_ops
from codegen.runtime import tp_linear
from codegen.runtime.symm_group import SymmetricMemoryUnavailable
from codegen.runtime.tp_linear import RowParallelLinear, TPContext, should_run_runs
from standin_op import StandInOp

N, MAX_M = 256, 300
LOGGER = "codegen.runtime.tp_linear"


@pytest.fixture
def gloo():
    """A one-process gloo group (WORLD), destroyed afterwards."""
    dist.init_process_group("gloo", rank=0, world_size=1, store=dist.HashStore())
    try:
        yield dist.group.WORLD
    finally:
        dist.destroy_process_group()


@pytest.fixture(autouse=True)
def _fused_enabled(monkeypatch):
    monkeypatch.delenv("CODEGEN_DISABLE_FUSED", raising=False)


class FakeGroup:
    """The Group parts TPContext reads: one local rank on the caller's stream."""

    def __init__(self, max_M, N, mode, process_group=None, *, multicast_ptr=0, **kw):
        self.max_M, self.N, self.mode = max_M, N, mode
        self.tp = dist.get_world_size(process_group)
        self.device = torch.device("cpu")
        self.local_ranks = (dist.get_rank(process_group),)
        self._buf = SimpleNamespace(multicast_ptr=multicast_ptr)

    def stream(self, rank):
        return None

    def workspace(self, rank):
        return self._buf

    ar_buffer = landing = workspace


def standin_factory(built=None, fail=None):
    """An op_factory making StandInOps; `fail(K, transport)` may return an exception to raise."""
    def factory(max_M, N, K, mode, group, *, transport, min_m=128, **kw):
        if fail is not None and (exc := fail(K, transport)) is not None:
            raise exc
        op = StandInOp(max_M, N, K, mode, tp=group.tp, rank=group.local_ranks[0], min_m=min_m,
                       transport=transport)
        if built is not None:
            built.append(op)
        return op
    return factory


def make_ctx(mode="ar", **kw):
    kw.setdefault("group_factory", FakeGroup)
    kw.setdefault("op_factory", standin_factory())
    return TPContext(MAX_M, N, mode, **kw)


def bf16(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g) * 0.1).to(torch.bfloat16)


def warnings_of(caplog):
    return [r for r in caplog.records if r.name == LOGGER and r.levelno >= logging.WARNING]


# ---- per-M dispatch ------------------------------------------------------------------------
def test_runs_reproduce_should_run_for_every_m():
    def should_run(x):  # fused at decode, unfused in between, fused from 128
        M = x.shape[0]
        return M <= 16 or 128 <= M <= 200
    runs = should_run_runs(should_run, MAX_M, 64)
    assert runs == ((16, True), (127, False), (200, True), (MAX_M, False))


@pytest.mark.parametrize("mode", ["ar", "rs"])
def test_path_per_m_follows_should_run(gloo, mode):
    built = []
    ctx = make_ctx(mode, op_factory=standin_factory(built))
    layer = RowParallelLinear(bf16(N, 64), ctx)
    assert ctx.fused_available and layer.fallback_reason is None and len(built) == 1
    for M, path in [(1, "unfused"), (127, "unfused"), (128, "fused"), (MAX_M, "fused"),
                    (MAX_M + 1, "unfused")]:
        x = bf16(M, 64, seed=M)
        y = layer(x)
        assert layer.last_path == path, M
        assert tuple(y.shape) == built[0].out_shape(M)
        ref = (x.float() @ layer.weight.float().t())
        torch.testing.assert_close(y.float(), ref, rtol=2e-2, atol=2e-2)
    assert built[0].calls == [128, MAX_M]


def test_inputs_the_kernel_cannot_take_go_unfused(gloo):
    layer = RowParallelLinear(bf16(N, 64), make_ctx())
    assert not layer.takes_fused(bf16(200, 64).float())     # not bf16
    assert not layer.takes_fused(bf16(200, 128))            # another K
    assert not layer.takes_fused(bf16(4, 200, 64))          # not 2-D
    assert not layer.takes_fused(bf16(0, 64))               # M = 0
    assert layer.takes_fused(bf16(200, 64))
    strided = bf16(200, 128)[:, :64]                        # taken: the custom op copies it
    assert layer.takes_fused(strided)
    torch.testing.assert_close(layer(strided).float(), strided.float() @ layer.weight.float().t(),
                               rtol=2e-2, atol=2e-2)


def test_layers_with_the_same_k_share_one_op(gloo):
    built = []
    ctx = make_ctx(op_factory=standin_factory(built))
    a, b = RowParallelLinear(bf16(N, 64), ctx), RowParallelLinear(bf16(N, 64, seed=1), ctx)
    c = RowParallelLinear(bf16(N, 128), ctx)
    assert [op.K for op in built] == [64, 128] and all(op.prepared for op in built)
    assert a._handle == b._handle != c._handle
    resets = []
    for op in built:
        op.reset_errors = lambda op=op: resets.append(op.K)
    ctx.group.reset_state = lambda: resets.append("group")
    ctx.recover()
    assert resets == [64, 128, "group"]
    ctx.release()
    with pytest.raises(Exception, match="not registered"):
        torch_ops.lookup(a._handle)


# ---- the disable switch and the fallback chain ------------------------------------------------
def test_disable_switch_builds_nothing_and_logs_once(gloo, monkeypatch, caplog):
    monkeypatch.setenv("CODEGEN_DISABLE_FUSED", "1")

    def never(*a, **k):
        raise AssertionError("a group was built although CODEGEN_DISABLE_FUSED is set")

    with caplog.at_level(logging.INFO, logger=LOGGER):
        ctx = make_ctx(group_factory=never, op_factory=never)
        layers = [RowParallelLinear(bf16(N, k), ctx) for k in (64, 128, 64)]
        for layer in layers:
            for M in (1, 200):
                layer(bf16(M, layer.K))
                assert layer.last_path == "unfused"
    assert not ctx.fused_available and "CODEGEN_DISABLE_FUSED" in ctx.fallback_reason
    lines = warnings_of(caplog)
    assert len(lines) == 1 and "CODEGEN_DISABLE_FUSED" in lines[0].getMessage()


def test_group_failure_falls_back_with_one_line(gloo, caplog):
    def no_p2p(*a, **k):
        raise SymmetricMemoryUnavailable("peers cannot map each other: rank 1: no P2P")

    with caplog.at_level(logging.INFO, logger=LOGGER):
        ctx = make_ctx("rs", group_factory=no_p2p)
        layers = [RowParallelLinear(bf16(N, 64), ctx), RowParallelLinear(bf16(N, 128), ctx)]
        for layer in layers:
            y = layer(bf16(200, layer.K))
            assert layer.last_path == "unfused" and tuple(y.shape) == (200, N)
    assert not ctx.fused_available and "no P2P" in ctx.fallback_reason
    lines = warnings_of(caplog)
    assert len(lines) == 1 and "falls back to torch.mm + NCCL" in lines[0].getMessage()
    assert "no P2P" in lines[0].getMessage()


def test_transport_line_says_why_multicast_is_not_used(gloo, monkeypatch, caplog):
    monkeypatch.setenv("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")

    def group_with_mc(*a, **k):
        return FakeGroup(*a, multicast_ptr=0x1000, **k)

    with caplog.at_level(logging.INFO, logger=LOGGER):
        ctx = make_ctx(group_factory=group_with_mc)
        RowParallelLinear(bf16(N, 64), ctx)
    assert ctx.transport == "unicast"
    info = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert len(info) == 1
    assert "transport unicast (multicast not used: disabled by TORCH_SYMM_MEM_DISABLE_MULTICAST=1)" \
        in info[0]


def test_transport_line_names_why_the_group_dropped_the_pointer(gloo, caplog):
    def symm_like(*a, **k):
        g = FakeGroup(*a, **k)
        g.multicast_note = {"workspace": "disabled by NCCL_NVLS_ENABLE=0", "flags": None}
        return g

    with caplog.at_level(logging.INFO, logger=LOGGER):
        make_ctx(group_factory=symm_like)
    (line,) = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert ("transport unicast (multicast not used: the group supplies no multicast pointer "
            "(disabled by NCCL_NVLS_ENABLE=0))") in line


def test_missing_multicast_kernels_fall_back_to_unicast_once(gloo, monkeypatch, caplog):
    monkeypatch.setattr(tp_linear, "transport_choice", lambda *a: ("multicast", None))
    tried = []

    def fail(K, transport):
        tried.append((K, transport))
        if transport == "multicast":
            return CacheMissError("gemm_ar_multicast_sm90a_bn128_cg1_tp2_bf16", "codegen build ...")
        return None

    with caplog.at_level(logging.INFO, logger=LOGGER):
        ctx = make_ctx(op_factory=standin_factory(fail=fail))
        a = RowParallelLinear(bf16(N, 64), ctx)
        b = RowParallelLinear(bf16(N, 128), ctx)
    assert tried == [(64, "multicast"), (64, "unicast"), (128, "unicast")]
    assert ctx.transport == "unicast" and a._handle is not None and b._handle is not None
    lines = warnings_of(caplog)
    assert len(lines) == 1 and "using the unicast transport" in lines[0].getMessage()


def test_a_k_without_kernels_goes_unfused_with_one_line(gloo, caplog):
    def fail(K, transport):
        if K == 128:
            return CacheMissError("gemm_ar_unicast_sm90a_bn128_cg1_tp1_bf16", "codegen build --tp 2")
        return None

    with caplog.at_level(logging.INFO, logger=LOGGER):
        ctx = make_ctx(op_factory=standin_factory(fail=fail))
        ok = RowParallelLinear(bf16(N, 64), ctx)
        missing = [RowParallelLinear(bf16(N, 128), ctx) for _ in range(2)]
    assert ctx.fused_available and ok.fallback_reason is None
    ok(bf16(200, 64))
    assert ok.last_path == "fused"
    for layer in missing:
        assert "codegen build --tp 2" in layer.fallback_reason
        layer(bf16(200, 128))
        assert layer.last_path == "unfused"
    lines = warnings_of(caplog)
    assert len(lines) == 1 and "K=128" in lines[0].getMessage()


def test_a_weight_the_kernel_cannot_take_goes_unfused(gloo, caplog):
    with caplog.at_level(logging.INFO, logger=LOGGER):
        ctx = make_ctx()
        layer = RowParallelLinear(bf16(N, 64).half(), ctx)
    assert "does not fit the fused op" in layer.fallback_reason
    assert len(warnings_of(caplog)) == 1
    layer(bf16(200, 64).half())
    assert layer.last_path == "unfused"


# ---- inputs the layer takes, or names ---------------------------------------------------------
def test_leading_dims_are_flattened_in_ar(gloo):
    """Model code passes [B, S, K]: 'ar' runs it as [B*S, K] (on the fused path where M says
    so) and returns [B, S, N]; 'rs' names what to pass (its rows are of the flattened tokens)."""
    built = []
    layer = RowParallelLinear(bf16(N, 64), make_ctx(op_factory=standin_factory(built)))
    for shape, path in [((2, 100, 64), "fused"), ((2, 3, 64), "unfused"), ((64,), "unfused")]:
        x = bf16(*shape, seed=len(shape))
        y = layer(x)
        assert tuple(y.shape) == shape[:-1] + (N,) and layer.last_path == path, shape
        ref = x.float().reshape(-1, 64) @ layer.weight.float().t()
        torch.testing.assert_close(y.float().reshape(-1, N), ref, rtol=2e-2, atol=2e-2)
    assert built[0].calls == [200]
    with pytest.raises(ValueError, match=r"x must be \[\.\.\., K=64\], got shape \(2, 3, 32\)"):
        layer(bf16(2, 3, 32))
    rs = RowParallelLinear(bf16(N, 64), make_ctx("rs"))
    with pytest.raises(ValueError, match=r"x must be 2-D \[M, K\] in mode 'rs', got shape "
                                         r"\(2, 100, 64\).*x\.reshape\(-1, 64\)"):
        rs(bf16(2, 100, 64))


def test_inputs_torch_mm_would_reject_are_named(gloo):
    """Where the unfused path would pass torch.mm's own error on, the layer names the input."""
    from codegen.runtime import InputError

    layer = RowParallelLinear(bf16(N, 64), make_ctx())
    for x, match in [(bf16(8, 64).half(), r"x\.dtype must be the weight's torch\.bfloat16 .*got "
                                          r"torch\.float16"),
                     (bf16(8, 64).float(), r"got torch\.float32"),
                     (bf16(8, 32), r"x must be \[M, K=64\], got shape \(8, 32\)"),
                     ([[0.0] * 64], r"x must be a torch\.Tensor \[\.\.\., K=64\], got list")]:
        with pytest.raises(InputError, match=match):
            layer(x)
    fp16 = RowParallelLinear(bf16(N, 64).half(), make_ctx())    # an fp16 layer: unfused, works
    assert tuple(fp16(bf16(8, 64).half()).shape) == (8, N) and fp16.last_path == "unfused"


def test_inference_only(gloo):
    """With grad mode on, an x (or a weight made to) require grad is an InputError on both
    paths; under no_grad / inference_mode the layer runs (its weight never requires grad)."""
    from codegen.runtime import InputError

    layer = RowParallelLinear(bf16(N, 64), make_ctx())
    assert not layer.weight.requires_grad
    for M in (200, 8):                                   # fused, unfused
        x = bf16(M, 64).requires_grad_()
        with pytest.raises(InputError, match=r"x requires grad, but RowParallelLinear is "
                                             r"inference only .*torch\.no_grad\(\)"):
            layer(x)
        with torch.no_grad():
            assert not layer(x).requires_grad
        with torch.inference_mode():
            layer(x)
    layer.requires_grad_(True)
    with pytest.raises(InputError, match=r"the weight requires grad"):
        layer(bf16(8, 64))
    with torch.no_grad():
        layer(bf16(8, 64))


def test_compile_fullgraph_with_leading_dims(gloo):
    torch._dynamo.reset()
    layer = RowParallelLinear(bf16(N, 64), make_ctx())
    compiled = torch.compile(layer, fullgraph=True, backend="aot_eager")
    for shape in ((2, 100, 64), (1, 5, 64)):
        x = bf16(*shape)
        got = compiled(x)
        path = layer.last_path
        torch.testing.assert_close(got, layer(x), rtol=0, atol=0)
        assert layer.last_path == path and tuple(got.shape) == shape[:-1] + (N,)


def test_bad_arguments_say_what_to_pass(gloo):
    with pytest.raises(ValueError, match="mode = 'none' must be one of"):
        TPContext(MAX_M, N, "none")
    with pytest.raises(ValueError, match="weight must be this rank's shard"):
        RowParallelLinear(bf16(N + 128, 64), make_ctx())


def test_context_needs_torch_distributed():
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match="needs torch.distributed initialised"):
        TPContext(MAX_M, N, "ar")


# ---- the unfused RS: fused RS's shape and padding ---------------------------------------------
@pytest.mark.parametrize("tp,M", [(2, 1), (2, 16), (2, 17), (4, 5), (8, 1000)])
def test_unfused_rs_pads_rows_to_a_multiple_of_tp(monkeypatch, tp, M):
    seen = {}

    def reduce_scatter_tensor(t, op, group_size, name):
        seen["input"] = t
        assert (op, group_size, name) == ("sum", tp, "g")
        return t[: t.shape[0] // group_size]  # rank 0's rows

    monkeypatch.setattr(tp_linear, "_c10d", SimpleNamespace(
        reduce_scatter_tensor=reduce_scatter_tensor, wait_tensor=lambda t: t))
    x, w = bf16(M, 64), bf16(N, 64)
    y = tp_linear.unfused(x, w, "rs", tp, "g")
    c = -(-M // tp)
    assert tuple(y.shape) == (c, N) == StandInOp(MAX_M, N, 64, "rs", tp=tp).out_shape(M)
    padded = seen["input"]
    assert tuple(padded.shape) == (c * tp, N)
    assert torch.equal(padded[:M], x @ w.t()) and not padded[M:].any()


# ---- torch.compile ----------------------------------------------------------------------------
class TwoLayers(torch.nn.Module):
    """An attention o_proj and an MLP down_proj (different K) on one context."""

    def __init__(self, ctx, k_o=64, k_down=192):
        super().__init__()
        self.o_proj = RowParallelLinear(bf16(N, k_o, seed=1), ctx)
        self.down_proj = RowParallelLinear(bf16(N, k_down, seed=2), ctx)

    def forward(self, x_o, x_down):
        return self.o_proj(x_o) + self.down_proj(torch.relu(x_down))


@pytest.mark.parametrize("mode", ["ar", "rs"])
def test_compile_fullgraph_both_paths(gloo, mode):
    torch._dynamo.reset()
    model = TwoLayers(make_ctx(mode))
    compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
    for M in (16, 200, 17, 128, 127, MAX_M + 5):
        x_o, x_down = bf16(M, 64, seed=M), bf16(M, 192, seed=M + 1)
        got = compiled(x_o, x_down)
        path = model.o_proj.last_path
        want = model(x_o, x_down)
        assert model.o_proj.last_path == path, f"M={M}: compiled took {path}"
        torch.testing.assert_close(got, want, rtol=0, atol=0)
        assert path == ("fused" if 128 <= M <= MAX_M else "unfused"), M


# ---- two gloo processes: the real unfused collectives -----------------------------------------
def _two_rank_worker(rank: int, port: int, result_dir: str) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    os.environ["CODEGEN_DISABLE_FUSED"] = "1"
    dist.init_process_group("gloo", rank=rank, world_size=2, init_method=f"tcp://127.0.0.1:{port}")
    try:
        for mode in ("ar", "rs"):
            model = TwoLayers(TPContext(MAX_M, N, mode))
            model.o_proj.weight.data = bf16(N, 64, seed=10 + rank)
            compiled = torch.compile(model.o_proj, fullgraph=True, backend="aot_eager")
            for M in (1, 5, 16):
                xs = [bf16(M, 64, seed=100 * M + r) for r in range(2)]
                ws = [bf16(N, 64, seed=10 + r) for r in range(2)]
                ref = sum(x.float() @ w.float().t() for x, w in zip(xs, ws))
                if mode == "rs":
                    c = -(-M // 2)
                    ref = torch.cat([ref, ref.new_zeros(2 * c - M, N)])[rank * c:(rank + 1) * c]
                for fn in (model.o_proj, compiled):
                    y = fn(xs[rank])
                    assert tuple(y.shape) == tuple(ref.shape), (mode, M, y.shape)
                    torch.testing.assert_close(y.float(), ref, rtol=2e-2, atol=2e-2)
        Path(result_dir, f"ok{rank}").write_text("ok")
    finally:
        dist.destroy_process_group()


class _TabledOp(StandInOp):
    """A stand-in whose tuning table's choice rows are given (the per-rank table a real op reads
    from its cache root)."""

    table_rows = None

    def tuning_table(self):
        if self.table_rows is None:
            return None
        return SimpleNamespace(rows=[SimpleNamespace(M=m, schedule=s, bn=b, cta_group=c)
                                     for m, s, b, c in self.table_rows])


def _disagreeing_worker(rank: int, port: int, result_dir: str) -> None:
    """Two ranks whose verdicts differ at K 64 (min_m 128 vs 192) and whose tables' choice rows
    differ at K 128: both layers go unfused on both ranks; K 192 agrees and stays fused."""
    sys.path.insert(0, str(Path(__file__).parent))
    dist.init_process_group("gloo", rank=rank, world_size=2, init_method=f"tcp://127.0.0.1:{port}")
    try:
        def factory(max_M, N, K, mode, group, *, transport, **kw):
            op = _TabledOp(max_M, N, K, mode, tp=2, rank=rank,
                           min_m=128 + 64 * rank if K == 64 else 128)
            if K == 128:
                op.table_rows = [(64, "swapab", 64, 1), (256, "tile", 128, 1 + rank)]
            return op

        ctx = TPContext(MAX_M, N, "ar", group_factory=FakeGroup, op_factory=factory)
        layers = {k: RowParallelLinear(bf16(N, k, seed=k + rank), ctx) for k in (64, 128, 192)}
        lines = []
        for k, layer in layers.items():
            x = bf16(200, k, seed=k)
            y = layer(x)
            lines.append(f"{k} {layer.last_path} {tuple(y.shape)} {layer.fallback_reason}")
        Path(result_dir, f"r{rank}").write_text("\n".join(lines))
    finally:
        dist.destroy_process_group()


def test_ranks_with_different_verdicts_agree_on_unfused(tmp_path):
    """Each rank's fused/unfused verdict per M and its kernel choices come from its own tuning
    table: a layer where they differ across ranks must take torch.mm + NCCL on every rank (a
    rank on the fused kernel while its peer calls NCCL would hang)."""
    import torch.multiprocessing as mp

    mp.spawn(_disagreeing_worker, args=(_free_port(), str(tmp_path)), nprocs=2, join=True)
    for rank in (0, 1):
        k64, k128, k192 = Path(tmp_path, f"r{rank}").read_text().splitlines()
        assert k64.startswith("64 unfused (200, 256) ranks disagree on the per-M fused/unfused "
                              "dispatch"), k64
        assert "rank 0: fused at M 128..300" in k64 and "rank 1: fused at M 192..300" in k64
        assert k128.startswith("128 unfused (200, 256) ranks disagree") and \
            "(256, 'tile', 128, 2)" in k128, k128
        assert k192 == "192 fused (200, 256) None"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unfused_collectives_over_two_gloo_ranks(tmp_path):
    import torch.multiprocessing as mp

    mp.spawn(_two_rank_worker, args=(_free_port(), str(tmp_path)), nprocs=2, join=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok0", "ok1"]


# ---- the weight's rows on 128-byte lines (align_rows) ----------------------------------------
def on_a_line(rows, cols):
    """A contiguous bf16 [rows, cols] starting on a 128-byte line (the CPU allocator aligns to
    64 bytes; CUDA's to 512)."""
    flat = torch.zeros(rows * cols + 64, dtype=torch.bfloat16)
    skip = (-flat.data_ptr() % 128) // 2
    return flat[skip:skip + rows * cols].view(rows, cols)


def test_weight_rows_off_the_lines_are_relaid_once(gloo):
    """K 1000 (2000-byte rows): the layer holds a [:, :K] view of a zero-padded copy with rows
    1024 elements apart, the same values; a call (fused or not) matches the reference; K 1024,
    an already padded view and align_rows=False keep the tensor passed."""
    built = []
    ctx = make_ctx(op_factory=standin_factory(built))
    w = bf16(N, 1000)
    layer = RowParallelLinear(w, ctx)
    assert layer.weight.shape == (N, 1000) and layer.weight.stride() == (1024, 1)
    assert layer.weight.data_ptr() != w.data_ptr() and layer.weight.data_ptr() % 128 == 0
    assert torch.equal(layer.weight, w)
    assert not layer.weight.requires_grad
    for M in (4, 200):
        x = bf16(M, 1000, seed=M)
        torch.testing.assert_close(layer(x).float(), x.float() @ w.float().t(), rtol=2e-2,
                                   atol=2e-2)
    aligned = on_a_line(N, 1024)
    assert RowParallelLinear(aligned, ctx).weight.data_ptr() == aligned.data_ptr()
    padded = on_a_line(N, 1024)[:, :1000]
    assert RowParallelLinear(padded, ctx).weight.data_ptr() == padded.data_ptr()
    kept = RowParallelLinear(w, ctx, align_rows=False)
    assert kept.weight.data_ptr() == w.data_ptr() and kept.weight.stride() == (1000, 1)


def test_weight_in_aligned_rows_edges():
    # a start off the line with an aligned stride is re-laid too; fp32 rows are 32 elements
    base = bf16(8, 136)
    off = base[:, 8:]                                  # stride 136: off; start +16 bytes
    assert tp_linear.weight_in_aligned_rows(off).stride() == (128, 1)
    f32 = torch.zeros(4, 40)
    assert tp_linear.weight_in_aligned_rows(f32).stride() == (64, 1)
    col_major = bf16(64, 8).t()                        # not row-major: left as it is
    assert tp_linear.weight_in_aligned_rows(col_major) is col_major
    empty = torch.zeros(0, 100, dtype=torch.bfloat16)
    assert tp_linear.weight_in_aligned_rows(empty) is empty


def test_context_copies_are_the_context_and_pickle_is_refused(gloo):
    """copy.copy / copy.deepcopy of a TPContext return it (before: deepcopy raised "cannot pickle
    ...ProcessGroup"); a deep-copied model keeps one context and its layers still take the fused
    path; pickling one says why it cannot be."""
    import copy
    import pickle

    ctx = make_ctx()
    layer = RowParallelLinear(bf16(N, 64), ctx)
    assert copy.copy(ctx) is ctx and copy.deepcopy(ctx) is ctx
    held = copy.deepcopy({"ctx": ctx, "layer": layer})
    assert held["ctx"] is ctx and held["layer"] is not layer
    x = bf16(200, 64, seed=3)
    y = held["layer"](x)
    assert held["layer"].last_path == "fused"
    torch.testing.assert_close(y.float(), x.float() @ layer.weight.float().t(), rtol=2e-2, atol=2e-2)
    with pytest.raises(TypeError, match="TPContext cannot be pickled"):
        pickle.dumps(ctx)


# ---- the arguments every op gets are checked by the context --------------------------------------
@pytest.mark.parametrize("kwargs, match", [
    ({"timeout_ms": 0}, r"timeout_ms = 0 must be an int \[1, 3600000\]"),
    ({"min_m": "16"}, r"min_m = '16' must be an int >= 1"),
    ({"sm_margin": 1.5}, r"sm_margin = 1\.5 must be an int >= 0"),
    ({"sm_margin": -1}, r"sm_margin = -1 must be an int >= 0"),
    ({"cache_dir": 5}, r"cache_dir = 5 must be a path"),
    ({"manifest": ""}, r"manifest = '' must be a non-empty path"),
])
def test_bad_op_arguments_are_the_callers_error(gloo, caplog, kwargs, match):
    """A bad min_m / timeout_ms / cache_dir / manifest / sm_margin raises at construction.
    Before, the ops' InputError was taken as 'no kernel for this K': every layer silently ran
    torch.mm + NCCL, with one warning line per K."""
    with pytest.raises(ValueError, match=match):
        TPContext(MAX_M, N, "ar", group_factory=FakeGroup, **kwargs)
    assert not warnings_of(caplog)


def test_group_shapes_must_be_ints():
    """check_group_shape (VirtualGroup, SymmMemGroup's buffer_specs): a float or bool size
    passed its range checks (128 % 2.0 == 0) and failed later, in torch.zeros or range()."""
    from codegen.runtime.group import check_group_shape
    from codegen.runtime.symm_group import buffer_specs

    for args, match in [((300.0, 256, 2, "ar"), r"max_M=300\.0: must be an int"),
                        ((300, 256, 2.0, "ar"), r"tp=2\.0: must be an int"),
                        ((300, True, 2, "rs"), r"N=True: must be an int")]:
        with pytest.raises(ValueError, match=match):
            check_group_shape(*args)
        with pytest.raises(ValueError, match=match):
            buffer_specs(*args)


def test_symm_group_sm_margin_is_checked_first():
    """SymmMemGroup(sm_margin=1.5) made sm_budget, the persistent grid, a float (the range
    check passed); now a ValueError before anything else (here: before 'no CUDA device')."""
    from codegen.runtime.symm_group import SymmMemGroup

    for bad in (1.5, True, -1, None):
        with pytest.raises(ValueError, match=r"sm_margin=.*must be an int >= 0"):
            SymmMemGroup(MAX_M, N, "ar", sm_margin=bad)
