"""Bounded waits surface as KernelTimeoutError; bad input is rejected before any launch."""
import time

import pytest
import torch

from codegen.runtime import GemmRsAr, InputError, KernelTimeoutError, VirtualGroup
from gpu_common import check_outputs, fresh, rank_inputs, requires_gpu


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("schedule", ["tile", "swapab"])
@pytest.mark.parametrize("mode", ["rs", "ar"])
def test_missing_peer_times_out(mode, schedule):
    tp, M, N, K = 2, 256, 1024, 768
    group = VirtualGroup(tp, M, N, mode)
    op = GemmRsAr(M, N, K, mode, group, timeout_ms=200, schedule=schedule)
    xs, ws = rank_inputs(tp, M, N, K)
    t0 = time.monotonic()
    op(0, xs[0], ws[0])  # rank 1 never launches
    with pytest.raises(KernelTimeoutError) as ei:
        op.synchronize()
    elapsed = time.monotonic() - t0
    e = ei.value
    assert e.rank == 0 and e.peer == 1, str(e)
    assert e.code in (1, 2, 3) and e.epoch >= 1, str(e)
    assert "rank 0" in str(e) and "peer 1" in str(e) and op.variant(M).name in str(e)
    assert elapsed < 20, f"time-out took {elapsed:.1f} s with a 200 ms bound"
    with pytest.raises(KernelTimeoutError):  # sticky until reset
        op.check_errors()
    op.reset_errors()
    op.check_errors()
    # The epochs are now out of step; reset_state makes the group usable again.
    group.reset_state()
    out = op.run_all(xs, ws)
    op.synchronize()
    check_outputs(mode, out, xs, ws, "after reset_state")


@pytest.mark.gpu
@requires_gpu
def test_bad_input_raises_before_launch():
    tp, M, N, K = 2, 256, 1024, 768
    group = VirtualGroup(tp, M, N, "rs")
    op = GemmRsAr(M, N, K, "rs", group)
    xs, ws = rank_inputs(tp, M, N, K)
    epochs = [int(group.flags(r).local[0]) for r in range(tp)]
    bad = [
        ([fresh((M, K + 64)), xs[1]], ws, r"x\.shape\[1\] \(K\) = 832"),
        ([xs[0].float(), xs[1]], ws, r"x\.dtype"),
        ([xs[0].cpu(), xs[1]], ws, r"x\.device must be cuda:0"),
        ([fresh((M + 1, K)), fresh((M + 1, K))], ws, r"\(M\) = 257 must be in \[1, max_M = 256\]"),
        (xs, [ws[0], fresh((N, K)).t().contiguous().t()], r"weight"),
        ([fresh((2 * M * K + 8,))[1:1 + M * K].view(M, K), xs[1]], ws, r"16-byte aligned"),
    ]
    for bx, bw, match in bad:
        with pytest.raises(InputError, match=match):
            op.run_all(bx, bw)
    with pytest.raises(InputError, match="rank = 2"):
        op(2, xs[0], ws[0])
    op.synchronize()
    assert [int(group.flags(r).local[0]) for r in range(tp)] == epochs, "a kernel ran"
    assert op.last_launch == {}
    torch.cuda.synchronize()


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("mode", ["rs", "ar"])
def test_epochs_past_32_bits(mode):
    """Epochs are 64-bit: start every rank just below 2^32 and cross it; results stay right."""
    tp, M, N, K = 2, 257, 1024, 768
    group = VirtualGroup(tp, M, N, mode)
    op = GemmRsAr(M, N, K, mode, group, timeout_ms=2000)
    start = 2**32 - 2
    for r in range(tp):
        group.flags(r).local[0] = start  # as if 2^32 - 2 calls had completed
    torch.cuda.synchronize()
    for i in range(4):
        xs, ws = rank_inputs(tp, M, N, K)
        out = op.run_all(xs, ws)
        op.synchronize()
        check_outputs(mode, out, xs, ws, f"call {i} from epoch {start + i + 1}")
    assert [int(group.flags(r).local[0]) for r in range(tp)] == [start + 4] * tp


@pytest.mark.gpu
@requires_gpu
def test_time_out_in_a_graph_replay_is_seen_without_a_call():
    """Serving by graph replay never calls the op, so its per-call check never runs: a time-out
    inside a replay must show in codegen.runtime.check_all_errors, which reads every live op's
    records without a sync; after recovery the group is right again. The time-out is real: rank
    0's epoch is pushed 4 calls ahead after the capture, so in the replay its kernel waits for
    rank 1 to catch up (ERR_TIMEOUT_EPOCH) and rank 1's waits for rank 0's tiles end with it.
    (Thirty-first session, call 6: capturing rank 0's call alone through the per-rank call
    failed inside the capture (op.join waited on rank 1's stream, not in the capture: fixed, see
    the next test), and the next test's MemPool aborted the process.)"""
    from codegen import contract
    from codegen.runtime import check_all_errors

    tp, M, N, K = 2, 256, 1024, 768
    group = VirtualGroup(tp, M, N, "rs")
    op = GemmRsAr(M, N, K, "rs", group, timeout_ms=200)
    xs, ws = rank_inputs(tp, M, N, K)
    op.run_all(xs, ws)                   # warm-up: kernel loaded, plans built
    op.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        op.run_all(xs, ws)
    torch.cuda.synchronize()
    check_all_errors()
    group._flags[0][contract.FLAG_EPOCH] += 4
    graph.replay()
    torch.cuda.synchronize()
    with pytest.raises(KernelTimeoutError) as ei:
        check_all_errors()
    assert ei.value.rank in (0, 1) and ei.value.code in (1, 2, 3), str(ei.value)
    op.reset_errors()
    group.reset_state()
    check_all_errors()
    out = op.run_all(xs, ws)
    op.synchronize()
    check_outputs("rs", out, xs, ws, "after the replay's time-out and reset_state")
    del graph


@pytest.mark.gpu
@requires_gpu
def test_a_lone_ranks_call_captures_and_its_time_out_is_seen():
    """`op(0, x, w); op.join()` inside a capture, rank 1 never called: join waits only for the
    rank streams in the capture (call 7: it raised cudaErrorStreamCaptureIsolation), the replay
    times out on rank 0 waiting for peer 1, and check_all_errors sees it without an op call."""
    from codegen.runtime import check_all_errors

    tp, M, N, K = 2, 256, 1024, 768
    group = VirtualGroup(tp, M, N, "rs")
    op = GemmRsAr(M, N, K, "rs", group, timeout_ms=200)
    xs, ws = rank_inputs(tp, M, N, K)
    op.run_all(xs, ws)
    op.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        op(0, xs[0], ws[0])
        op.join()
    check_all_errors()
    graph.replay()
    torch.cuda.synchronize()
    with pytest.raises(KernelTimeoutError) as ei:
        check_all_errors()
    assert ei.value.rank == 0 and ei.value.peer == 1, str(ei.value)
    op.reset_errors()
    group.reset_state()
    out = op.run_all(xs, ws)
    op.synchronize()
    check_outputs("rs", out, xs, ws, "after the lone rank's replay and reset_state")
    del graph
