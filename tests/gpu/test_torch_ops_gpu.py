"""The codegen::gemm custom op over a real mode-none kernel from the cache (one GPU): opcheck,
torch.compile(fullgraph=True) with the default inductor backend, CUDA-graph capture and
torch.compile(mode="reduce-overhead"); against x @ W^T in fp32 with gpu_common.assert_close
(relative Frobenius error < 1e-2, max abs error < 0.05 * max|ref| + 0.05).

The op allocates its own output, so "poisoned first" means: a NaN-filled block of the output's
size is freed just before the call, and the caching allocator hands that block to the op (the
eager case asserts it did); in graphs the static output is NaN-filled before each replay.
"""
from __future__ import annotations

import pytest
import torch

from codegen.runtime import GemmRsAr, InputError, VirtualGroup, torch_ops
from gpu_common import assert_close, fresh, poisoned, requires_gpu

N, K, MAX_M = 7168, 1536, 4096
MS = [1, 17, 128, 1000, MAX_M]


@pytest.fixture(scope="module")
def handle():
    op = GemmRsAr(MAX_M, N, K, "none")
    op.prepare()  # every kernel loaded before any capture
    h = torch_ops.register(op)
    yield h
    torch_ops.unregister(h)


def _call_on_poisoned_block(fn, x, w):
    """fn(x, w) right after freeing a NaN block of the output's size; (out, block address).

    Both happen in a fresh private memory pool, where the freed NaN block is the only free
    block, so the op's output allocation lands on it (in the shared pool, another cached block
    of the same size may be preferred: seen at M=1 after the other GPU tests)."""
    pool = torch.cuda.MemPool()
    with torch.cuda.use_mem_pool(pool):
        block = poisoned((x.shape[0], N))
        addr = block.data_ptr()
        del block
        out = fn(x, w)
    out._test_pool = pool  # the pool lives as long as the output
    return out, addr


def _ref(x, w):
    return x.float() @ w.float().T


@pytest.mark.gpu
@requires_gpu
def test_eager_call_writes_the_whole_output(handle):
    w = fresh((N, K))
    for M in MS:
        x = fresh((M, K))
        out, addr = _call_on_poisoned_block(lambda a, b: torch.ops.codegen.gemm(a, b, handle), x, w)
        torch.cuda.synchronize()
        assert_close(out, _ref(x, w), f"codegen::gemm M={M}")
        # the test's precondition (the output landed on NaN, so every element was written)
        assert out.data_ptr() == addr, (f"M={M}: the allocator did not hand the poisoned block "
                                        f"to the op's output (test precondition, not the op)")


@pytest.mark.gpu
@requires_gpu
def test_opcheck(handle):
    w = fresh((N, K))
    for M in (1, 17, 1000):
        torch.library.opcheck(torch.ops.codegen.gemm.default, (fresh((M, K)), w, handle))


class _Gemm(torch.nn.Module):
    def __init__(self, weight, handle):
        super().__init__()
        self.weight = torch.nn.Parameter(weight, requires_grad=False)
        self.handle = handle

    def forward(self, x):
        return torch.ops.codegen.gemm(x, self.weight, self.handle)


@pytest.mark.gpu
@requires_gpu
def test_compile_fullgraph_inductor(handle):
    torch._dynamo.reset()
    model = _Gemm(fresh((N, K)), handle)
    compiled = torch.compile(model, fullgraph=True)
    for M in MS + [33]:
        x = fresh((M, K))
        out, _ = _call_on_poisoned_block(lambda a, _w: compiled(a), x, None)
        torch.cuda.synchronize()
        assert_close(out, _ref(x, model.weight), f"compiled codegen::gemm M={M}")


@pytest.mark.gpu
@requires_gpu
def test_cuda_graph_capture(handle):
    M = 1000
    x, w = fresh((M, K)), fresh((N, K))
    torch.ops.codegen.gemm(x, w, handle)  # warm-up outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = torch.ops.codegen.gemm(x, w, handle)
    for i in range(3):
        x.copy_(fresh((M, K)))
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert_close(out, _ref(x, w), f"graph replay {i}")


@pytest.mark.gpu
@requires_gpu
def test_compile_reduce_overhead(handle):
    torch._dynamo.reset()
    model = _Gemm(fresh((N, K)), handle)
    compiled = torch.compile(model, mode="reduce-overhead", fullgraph=True)
    M, prev = 128, None
    for i in range(5):  # warm-up runs, then recorded, then replayed
        x = fresh((M, K))
        if prev is not None:
            prev.fill_(float("nan"))  # the static output of the last replay
        out = compiled(x)
        torch.cuda.synchronize()
        assert_close(out, _ref(x, model.weight), f"reduce-overhead call {i}")
        prev = out


@pytest.mark.gpu
@requires_gpu
def test_an_op_over_virtual_ranks_is_refused():
    op = GemmRsAr(256, 1024, 768, "ar", VirtualGroup(2, 256, 1024, "ar"))
    with pytest.raises(InputError, match="op.run_all"):
        torch_ops.register(op, 0)
