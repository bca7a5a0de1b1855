"""An op's first call inside a CUDA-graph capture, with no eager call before it: the kernel is
loaded (module loads are not allowed in a global-mode capture: runtime/driver.capture_relaxed),
the launch plan is built and, for streamk, the stream's buffers are made (outside the graph's
memory: streamk_buffers) during the capture. The graph must replay right on fresh inputs with
the outputs poisoned first, and once the graph is gone and its memory handed out again, eager
calls must still be right. The process-wide kernel cache and the streamk buffers are emptied
for each test, so the capture is the first use of both."""
import pytest
import torch

from codegen.runtime import GemmRsAr, VirtualGroup
from codegen.runtime import kernel as kernel_mod
from codegen.runtime import streamk_buffers
from gpu_common import (assert_close, check_graph_replays, fresh, poisoned, rank_inputs,
                        requires_gpu)


@pytest.fixture
def cold(monkeypatch):
    monkeypatch.setattr(kernel_mod, "_loaded", {})
    monkeypatch.setattr(streamk_buffers, "_BY_DEVICE", {})


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("N,K,M,kw", [
    (7168, 2304, 64, {}),                                   # the dispatch's decode pick
    (4096, 2048, 1000, {}),                                 # a tile kernel
    (7168, 4096, 384, {"schedule": "streamk", "cta_group": 1}),
    (6000, 2304, 640, {"schedule": "streamk", "bn": 192, "cta_group": 3}),
])
def test_first_mode_none_call_inside_a_capture(cold, N, K, M, kw):
    op = GemmRsAr(1024, N, K, "none", **kw)
    x, w = fresh((M, K)), fresh((N, K))
    out = poisoned((M, N))
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        op(0, x, w, out=out)
    what = f"cold capture N={N} K={K} M={M} {op.last_launch[0]['variant']}"
    for i in range(3):
        x.copy_(fresh((M, K)))
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert_close(out, x.float() @ w.float().T, f"{what} replay {i}")
    del graph
    junk = [torch.full((1 << 22,), 7, dtype=torch.int64, device="cuda") for _ in range(8)]
    for i in range(2):
        x.copy_(fresh((M, K)))
        got = op(0, x, w, out=poisoned((M, N)))
        torch.cuda.synchronize()
        assert_close(got, x.float() @ w.float().T, f"{what} eager call {i} after the graph")
    assert all(int(j[0]) == 7 for j in junk)
    op.check_errors()


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("mode", ["rs", "ar"])
@pytest.mark.parametrize("M", [48, 640])
def test_first_group_call_inside_a_capture(cold, mode, M):
    tp, N, K = 2, 4096, 1024
    op = GemmRsAr(1024, N, K, mode, VirtualGroup(tp, 1024, N, mode))
    xs, ws = rank_inputs(tp, M, N, K)
    check_graph_replays(op, mode, xs, ws, f"cold capture {mode} M={M}")
