"""One group called from several threads, and a virtual rank's inputs freed before it ran."""
import threading

import pytest
import torch

from codegen.runtime import GemmRsAr, VirtualGroup
from gpu_common import check_outputs, fresh, rank_inputs, requires_gpu

N, K = 1024, 768


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("mode", ["rs", "ar"])
def test_run_all_from_four_threads(mode):
    """Four threads call run_all on one VirtualGroup at once, each on a stream of its own with
    inputs of its own (two Ms: two launch plans). The group's lock keeps one thread's launches
    over the ranks together, so every rank stream runs the calls in the same order: without
    it two ranks could each wait for the other's call and time out, or sum wrong partials."""
    tp, iters = 2, 12
    group = VirtualGroup(tp, 256, N, mode)
    op = GemmRsAr(256, N, K, mode, group, schedule="tile", bn=128, cta_group=1, timeout_ms=2000)
    errors, start = [], threading.Barrier(4)

    def hammer(t):
        M = (64, 200)[t % 2]
        stream = torch.cuda.Stream()
        try:
            with torch.cuda.stream(stream):
                start.wait()
                for i in range(iters):
                    xs, ws = rank_inputs(tp, M, N, K)
                    outs = op.run_all(xs, ws)
                    stream.synchronize()
                    check_outputs(mode, outs, xs, ws, f"thread {t} call {i} M={M}")
        except Exception as exc:  # noqa: BLE001 - re-raised below, with the thread's name
            errors.append(f"thread {t}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=hammer, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    op.synchronize()   # a timed-out kernel raises KernelTimeoutError here
    assert errors == []
    assert not any(th.is_alive() for th in threads)


@pytest.mark.gpu
@requires_gpu
def test_single_call_keeps_its_inputs_alive_on_the_rank_stream():
    """op(r, x, w) launches on rank r's stream and returns before the caller joins: x freed
    right after the call must not be handed out again (and overwritten) while the kernel, held
    back on its stream, has not read it yet (x.record_stream on the rank stream)."""
    tp, M = 2, 128
    group = VirtualGroup(tp, M, N, "rs")
    op = GemmRsAr(M, N, K, "rs", group, schedule="tile", bn=128, cta_group=1, timeout_ms=5000)
    ws = [fresh((N, K)) for _ in range(tp)]
    warm, _ = rank_inputs(tp, M, N, K)
    op.run_all(warm, ws)                  # plans and kernels ready
    op.synchronize()
    for r in range(tp):                   # hold both ranks' next kernels back ~100 ms
        with torch.cuda.stream(group.stream(r)):
            torch.cuda._sleep(200_000_000)
    refs, outs = [], []
    for r in range(tp):
        x = fresh((M, K))
        refs.append(x.clone())
        outs.append(op(r, x, ws[r]))
        del x                             # freed on the current stream, still to be read
    junk = [torch.full((M, K), float("nan"), dtype=torch.bfloat16, device="cuda")
            for _ in range(8)]            # would take x's blocks and poison them first
    op.join()
    op.synchronize()
    del junk
    check_outputs("rs", outs, refs, ws, "inputs freed after the call")
