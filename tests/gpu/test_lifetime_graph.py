"""Output lifetime, back-to-back calls and CUDA-graph replay on virtual ranks."""
import pytest
import torch

from codegen.runtime import GemmRsAr, VirtualGroup
from gpu_common import (check_first_output_survives, check_graph_replays, check_outputs, poisoned,
                        rank_inputs, requires_gpu, run_poisoned)


@pytest.mark.gpu
@requires_gpu
def test_ar_output_survives_next_call():
    tp, M, N, K = 4, 257, 7168, 768
    op = GemmRsAr(1024, N, K, "ar", VirtualGroup(tp, 1024, N, "ar"))
    xs, ws = rank_inputs(tp, M, N, K)
    check_first_output_survives(op, "ar", xs, ws, "tile")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("mode", ["ar", "rs"])
def test_three_back_to_back_calls(mode):
    tp, N, K = 8, 1024, 1024
    op = GemmRsAr(2048, N, K, mode, VirtualGroup(tp, 2048, N, mode))
    calls = []
    for M in (300, 1000, 64):  # different inputs and shapes, no sync in between
        calls.append((M, *run_poisoned(op, tp, M, N, K)))
    op.synchronize()
    for M, xs, ws, outs in calls:
        check_outputs(mode, outs, xs, ws, f"back-to-back M={M}")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("mode", ["ar", "rs"])
def test_cuda_graph_replay(mode):
    tp, M, N, K = 4, 1000, 7168, 1024
    op = GemmRsAr(M, N, K, mode, VirtualGroup(tp, M, N, mode))
    xs, ws = rank_inputs(tp, M, N, K)
    op.run_all(xs, ws)  # eager warm-up: loads the kernel outside the capture
    op.synchronize()
    check_graph_replays(op, mode, xs, ws, "tile")


@pytest.mark.gpu
@requires_gpu
def test_caller_on_any_pool_stream():
    """torch hands out its 32 pool streams round-robin; whichever one the caller runs on (it
    may be the very stream a rank would use), the ranks must still run together."""
    tp, M, N, K = 8, 129, 1024, 768
    op = GemmRsAr(M, N, K, "rs", VirtualGroup(tp, M, N, "rs"), timeout_ms=1000)
    for i in range(40):
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            xs, ws = rank_inputs(tp, M, N, K)
            outs = op.run_all(xs, ws, out=[poisoned(op.out_shape(M)) for _ in range(tp)])
        torch.cuda.current_stream().wait_stream(side)
        op.synchronize()
        check_outputs("rs", outs, xs, ws, f"caller on pool stream {i}")
