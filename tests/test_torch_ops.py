"""codegen::gemm_ar / gemm_rs / gemm custom ops on CPU: the registry, the fake impls (also for
a real GemmRsAr, on fake CUDA tensors: no GPU touched), opcheck and torch.compile(fullgraph)
with the aot_eager backend, through the torch.mm stand-in (tests/standin_op.py)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from codegen.runtime import GemmRsAr, InputError, torch_ops
from standin_op import StandInOp

N, K = 256, 128
MODES_TP = [("ar", 2), ("rs", 2), ("rs", 4), ("none", 1)]


def _bf16(*shape):
    return torch.randn(*shape).to(torch.bfloat16)


@pytest.fixture
def handles():
    made = []

    def register(op, rank=None):
        h = torch_ops.register(op, rank)
        made.append(h)
        return h

    yield register
    for h in made:
        torch_ops.unregister(h)


# ---- the registry ----------------------------------------------------------------------------
def test_register_returns_one_handle_per_op_and_rank(handles):
    op = StandInOp(64, N, K, "ar", tp=2, rank=1)
    h = handles(op)
    assert handles(op) == h and handles(op, 1) == h
    assert torch_ops.lookup(h).op is op and torch_ops.lookup(h).rank == 1
    other = handles(StandInOp(64, N, K, "ar", tp=2, rank=1))
    assert other != h


def test_handles_are_never_reused(handles):
    h = handles(StandInOp(64, N, K, "ar"))
    torch_ops.unregister(h)
    with pytest.raises(InputError, match=f"handle {h} is not registered"):
        torch_ops.lookup(h)
    assert handles(StandInOp(64, N, K, "ar")) > h


def test_register_rejects_a_rank_the_op_does_not_drive(handles):
    with pytest.raises(InputError, match=r"rank = 0 is not one of the op's local ranks \(1,\)"):
        handles(StandInOp(64, N, K, "rs", tp=2, rank=1), 0)


def test_register_rejects_what_is_not_an_op():
    with pytest.raises(InputError, match="is not an op"):
        torch_ops.register(SimpleNamespace(mode="ar"))
    bad = StandInOp(64, N, K, "ar")
    bad.mode = "sum"
    with pytest.raises(InputError, match="mode = 'sum'"):
        torch_ops.register(bad)


class _Group:
    """The parts of a Group the registry and GemmRsAr's constructor read."""

    def __init__(self, local_ranks, own_streams: bool, mode="ar"):
        self.local_ranks, self._own = tuple(local_ranks), own_streams
        self.tp, self.mode, self.N, self.max_M, self.sm_budget = 2, mode, N, 64, 66
        self.device = torch.device("cuda", 0)

    def stream(self, rank):
        return object() if self._own else None


def test_register_refuses_an_op_over_virtual_ranks():
    op = GemmRsAr(64, N, K, "ar", _Group((0, 1), own_streams=True), arch="sm_90a")
    with pytest.raises(InputError, match=r"drives ranks \(0, 1\).*op.run_all"):
        torch_ops.register(op, 0)


def test_register_takes_a_one_rank_group_on_the_current_stream(handles):
    op = GemmRsAr(64, N, K, "rs", _Group((1,), own_streams=False, mode="rs"), arch="sm_90a")
    h = handles(op)
    assert torch_ops.lookup(h, "rs").rank == 1


def test_a_handle_of_another_mode_names_the_right_op(handles):
    h = handles(StandInOp(64, N, K, "rs", tp=2))
    with pytest.raises(InputError, match="mode 'rs' op: call torch.ops.codegen.gemm_rs"):
        torch.ops.codegen.gemm_ar(_bf16(4, K), _bf16(N, K), h)


# ---- fake impls --------------------------------------------------------------------------------
@pytest.mark.parametrize("mode,tp", MODES_TP)
def test_fake_impl_shapes_on_fake_cuda_tensors(handles, mode, tp):
    h = handles(StandInOp(64, N, K, mode, tp=tp))
    with FakeTensorMode():
        for M in (1, 17, 64):
            x = torch.empty(M, K, dtype=torch.bfloat16, device="cuda")
            w = torch.empty(N, K, dtype=torch.bfloat16, device="cuda")
            y = torch_ops.CUSTOM_OPS[mode](x, w, h)
            rows = -(-M // tp) if mode == "rs" else M
            assert tuple(y.shape) == (rows, N) and y.dtype == torch.bfloat16
            assert y.device == torch.device("cuda", 0)


def test_fake_impl_of_a_real_op_touches_no_gpu(handles):
    """A GemmRsAr (mode none) built and traced without a device: the fake impl only reads
    out_shape."""
    op = GemmRsAr(64, N, K, "none")
    h = handles(op)
    with FakeTensorMode():
        y = torch.ops.codegen.gemm(torch.empty(9, K, dtype=torch.bfloat16, device="cuda"),
                                   torch.empty(N, K, dtype=torch.bfloat16, device="cuda"), h)
    assert tuple(y.shape) == (9, N)
    assert op.device is None  # never resolved: no CUDA query happened


def test_fake_impl_rejects_a_1d_x(handles):
    h = handles(StandInOp(64, N, K, "ar"))
    with FakeTensorMode(), pytest.raises(InputError, match="x must be 2-D"):
        torch.ops.codegen.gemm_ar(torch.empty(K, dtype=torch.bfloat16), torch.empty(N, K), h)


# ---- real impl, opcheck, torch.compile -------------------------------------------------------
@pytest.mark.parametrize("mode,tp", MODES_TP)
def test_opcheck(handles, mode, tp):
    h = handles(StandInOp(64, N, K, mode, tp=tp))
    for M in (1, 17):
        torch.library.opcheck(torch_ops.CUSTOM_OPS[mode], (_bf16(M, K), _bf16(N, K), h))


def test_misaligned_x_is_copied_before_the_op_sees_it(handles):
    seen = []

    class Recording(StandInOp):
        def __call__(self, rank, x, weight, out=None):
            seen.append((x.data_ptr() % 16, x.is_contiguous()))
            return super().__call__(rank, x, weight, out)

    h = handles(Recording(64, N, K, "none"))
    flat = _bf16(5 * K + 1)
    x = flat[1:].view(5, K)  # 2 bytes past an aligned start
    w = _bf16(N, K)
    y = torch.ops.codegen.gemm(x, w, h)
    y_t = torch.ops.codegen.gemm(_bf16(K, 5).t(), w, h)  # not contiguous
    wide = _bf16(5, 2 * K)
    y_s = torch.ops.codegen.gemm(wide[:, :K], w, h)     # a column slice: TMA reads it as it is
    assert seen == [(0, True), (0, True), (0, False)]
    torch.testing.assert_close(y, (x.float() @ w.float().t()).to(torch.bfloat16))
    torch.testing.assert_close(y_s, (wide[:, :K].float() @ w.float().t()).to(torch.bfloat16))
    assert tuple(y_t.shape) == (5, N)


def test_run_names_an_x_it_cannot_copy(handles):
    """Not a tensor, or a sparse one: an InputError from run itself (before the copy that
    would raise torch's own error), whatever op is registered."""
    op = StandInOp(64, N, K, "none")
    h = handles(op)
    w = _bf16(N, K)
    with pytest.raises(InputError, match=r"x must be a dense \(strided\) torch\.Tensor \[M, K\], "
                                         r"got list"):
        torch_ops.run(h, [[1.0] * K], w, "none")
    with pytest.raises(InputError, match=r"got layout torch\.sparse_coo"):
        torch_ops.run(h, _bf16(4, K).to_sparse(), w, "none")
    with pytest.raises(InputError, match=r"got layout torch\.sparse_csr"):
        torch_ops.run(h, _bf16(4, K).to_sparse_csr(), w, "none")
    assert op.calls == []


def test_run_of_a_real_op_refuses_grad(handles):
    """The eager path (run, as RowParallelLinear calls it): with grad mode on, an x that
    requires grad is an InputError from the op's validation; it used to launch and return an
    output that silently dropped autograd. (Through the dispatcher, torch's autograd fallback
    sees the op first: its output's backward raises.)"""
    op = GemmRsAr(64, N, K, "none", device="cpu", arch="sm_90a")
    h = handles(op)
    with pytest.raises(InputError, match=r"x requires grad, but the fused kernels are inference "
                                         r"only"):
        torch_ops.run(h, _bf16(4, K).requires_grad_(), _bf16(N, K), "none")


class _Caller(torch.nn.Module):
    def __init__(self, mode, weight, handle):
        super().__init__()
        self.op = torch_ops.CUSTOM_OPS[mode]
        self.weight = torch.nn.Parameter(weight, requires_grad=False)
        self.handle = handle

    def forward(self, x):
        return torch.relu(self.op(x * 2, self.weight, self.handle)) + 1


@pytest.mark.parametrize("mode,tp", MODES_TP)
def test_compile_fullgraph_aot_eager_matches_eager(handles, mode, tp):
    torch._dynamo.reset()
    op = StandInOp(64, N, K, mode, tp=tp)
    m = _Caller(mode, _bf16(N, K), handles(op))
    compiled = torch.compile(m, fullgraph=True, backend="aot_eager")
    for M in (16, 17, 33, 64):  # the second size compiles a dynamic-M graph
        x = _bf16(M, K)
        torch.testing.assert_close(compiled(x), m(x), rtol=0, atol=0)
    assert op.calls[-2:] == [64, 64]


def test_compile_with_the_handle_as_an_argument(handles):
    """One compiled function called with several handles (a shared helper for several layers):
    from the second handle on dynamo makes the int symbolic, and the fake impl specialises it
    (it raised `unhashable type: SymInt`); each call runs its own op."""
    torch._dynamo.reset()
    ops = [StandInOp(64, N, K, "none") for _ in range(3)]
    hs = [handles(op) for op in ops]
    w = _bf16(N, K)
    compiled = torch.compile(lambda x, w, h: torch.ops.codegen.gemm(x, w, h), fullgraph=True,
                             backend="aot_eager")
    x = _bf16(16, K)
    for i, h in enumerate(hs):
        torch.testing.assert_close(compiled(x, w, h), torch.ops.codegen.gemm(x, w, h),
                                   rtol=0, atol=0)
        assert [len(op.calls) for op in ops] == [2] * (i + 1) + [0] * (2 - i)
