"""The streamk schedule (mode none, sm_90a: the tile kernel whose CTAs split the last waves'
k-tiles evenly, a tile shared by two or more CTAs summed in f32 through its stream's workspace
and per-CTA flags) on one H200 against an fp32 reference, with a per-element bound as well as
assert_close's: a partial tile summed twice or not at all is wrong in one tile only, which the
norm would average away over a large output.

Covered: issue 9's rows and past them, odd and even row tiles (cta_group 2 pads an odd count
with a CTA on rows past M), N off the tile width (the last N tile reaches past N), K off the
128-byte lines and shorter than the minimum share, budgets that give a tile to several CTAs
(several partials per tile) or leave whole tiles after the split, the flags staying valid
call after call (one op and two ops of other shapes on one stream's buffers, up and down M),
graph replay, calls on two streams at once (a set each), on more streams than there are sets
(shared sets, ordered), the branches of a graph captured on forked streams, and the error
record: a time-out it holds fails the next call until reset_errors, written as a kernel would
and provoked in the kernel (half its CTAs kept off the SMs by a long GEMM)."""
import time

import pytest
import torch

from codegen import contract
from codegen.runtime import GemmRsAr, InputError, KernelTimeoutError
from codegen.runtime import streamk_buffers
from gpu_common import ISSUE9_MS, assert_close, check_none_graph, fresh, poisoned, requires_gpu

#: every (BN, cta_group) a streamk kernel exists for
PAIRS = contract.streamk_pairs()


def check_streamk(op, M, N, K, what, cg, bn=None):
    """One call on fresh inputs into a poisoned output one row longer (that row must stay NaN),
    against x @ W^T in fp32: assert_close, and every element within 2% of the largest |ref| (a
    bf16 rounding is 0.4% of it; a partial tile lost or added twice moves elements by far more
    than that); the launch ran the streamk kernel on whole clusters."""
    x, w = fresh((M, K)), fresh((N, K))
    whole = poisoned((M + 1, N))
    out = op(0, x, w, out=whole[:M])
    torch.cuda.synchronize()
    ref = x.float() @ w.float().T
    assert_close(out, ref, f"{what} M={M}")
    worst = float((out.float() - ref).abs().max())
    assert worst <= 0.02 * float(ref.abs().max()) + 1e-3, f"{what} M={M}: max error {worst}"
    assert bool(torch.isnan(whole[M]).all()), f"{what} M={M}: a store past out's end"
    launch = op.last_launch[0]
    assert (launch["schedule"], launch["cta_group"]) == ("streamk", cg), launch
    assert bn is None or launch["bn"] == bn, launch
    assert launch["grid"] % cg == 0
    op.check_errors()


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("bn,cg", PAIRS)
@pytest.mark.parametrize("N,K", [
    (13944, 2672),    # N off the width (the last N tile reaches past N), K off the lines
    (7168, 2304),
    (4096, 8192),     # fewer tiles than CTAs at small M: every tile split over several CTAs
])
def test_streamk_rows(N, K, bn, cg):
    """Every row count of issue 9 and past it, up and down on one op (a cluster of 3 / 4 pads
    most of them with row tiles past M)."""
    op = GemmRsAr(4096, N, K, "none", schedule="streamk", bn=bn, cta_group=cg)
    ms = [*ISSUE9_MS, 384, 640, 1000, 2049, 4096]
    for M in ms + ms[::-1]:
        check_streamk(op, M, N, K, f"streamk bn={bn} cg={cg} N={N} K={K}", cg, bn)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("bn,cg", PAIRS)
@pytest.mark.parametrize("N,K,budget", [
    (2048, 4096, 4),      # 4 CTAs: each tile's 64 k-tiles over up to 3 of them
    (2048, 4096, 6),
    (5000, 1000, 10),     # K off the lines, N off the width
    (1024, 128, None),    # 2 k-tiles: fewer than STREAMK_MIN_UNITS, one cluster
    (8192, 640, 130),     # whole waves plus a short one (tiles left after the split)
    (8192, 640, 66),
])
def test_streamk_budgets(N, K, budget, bn, cg):
    op = GemmRsAr(2048, N, K, "none", schedule="streamk", bn=bn, cta_group=cg, sm_budget=budget)
    for M in (1, 130, 300, 777, 2048):
        check_streamk(op, M, N, K, f"streamk bn={bn} cg={cg} N={N} K={K} budget={budget}", cg,
                      bn)


@pytest.mark.gpu
@requires_gpu
def test_streamk_flags_stay_valid_across_ops_and_calls():
    """Three streamk ops of other shapes and cluster sizes share the stream's buffers: 42 calls
    alternating between them and their row counts, no sync between calls; every output checked
    at the end (a flag left raised would hand a later call a stale partial)."""
    ops = [(GemmRsAr(1024, 6144, 3000, "none", schedule="streamk", cta_group=1), 6144, 3000),
           (GemmRsAr(1024, 3000, 5120, "none", schedule="streamk", cta_group=2), 3000, 5120),
           (GemmRsAr(1024, 7000, 4000, "none", schedule="streamk", bn=192, cta_group=3), 7000,
            4000)]
    pending = []
    for i in range(42):
        op, N, K = ops[i % 3]
        M = (200, 900, 333, 1024)[i % 4]
        x, w = fresh((M, K)), fresh((N, K))
        pending.append((op(0, x, w, out=poisoned((M, N))), x, w))
    torch.cuda.synchronize()
    for i, (out, x, w) in enumerate(pending):
        assert_close(out, x.float() @ w.float().T, f"streamk call {i}")
    for op, _, _ in ops:
        op.check_errors()


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("bn,cg", PAIRS)
def test_streamk_graph_replay(bn, cg):
    op = GemmRsAr(1024, 6000, 2304, "none", schedule="streamk", bn=bn, cta_group=cg)
    check_none_graph(op, 640, 6000, 2304, f"streamk bn={bn} cg={cg}")


def _device_buffers():
    return streamk_buffers.existing(torch.device("cuda", torch.cuda.current_device()))


@pytest.mark.gpu
@requires_gpu
def test_streamk_two_streams():
    """Calls alternating between two streams without a sync or a wait between them: each stream
    has its own set (streamk_buffers), so they may run at once, and every output is right."""
    N, K, M = 7168, 4096, 384
    op = GemmRsAr(1024, N, K, "none", schedule="streamk", cta_group=1)
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    x, w = fresh((M, K)), fresh((N, K))
    ref = x.float() @ w.float().T
    torch.cuda.synchronize()
    outs = []
    for i in range(12):
        with torch.cuda.stream(streams[i % 2]):
            outs.append(op(0, x, w, out=poisoned((M, N))))
    torch.cuda.synchronize()
    for i, out in enumerate(outs):
        assert_close(out, ref, f"streamk stream {i % 2} call {i}")
    sets = [_device_buffers().eager.get(s.cuda_stream) for s in streams]
    assert sets[0] is not sets[1]
    assert all(st.order.waits == 0 for st in sets), "a stream waited for the other"


@pytest.mark.gpu
@requires_gpu
def test_streamk_more_streams_than_sets():
    """Streams past SETS_MAX share sets: calls round-robin over SETS_MAX + 3 new streams, two ops,
    no sync; a shared set's calls are ordered (its StreamOrder waits), so every output is
    right, and the device never holds more than SETS_MAX sets."""
    shapes = [(6144, 3000, 700), (3000, 5120, 333)]
    ops = [GemmRsAr(1024, N, K, "none", schedule="streamk", cta_group=1) for N, K, _ in shapes]
    streams = [torch.cuda.Stream() for _ in range(streamk_buffers.SETS_MAX + 3)]
    pending = []
    for i in range(3 * len(streams)):
        (N, K, M), op = shapes[i % 2], ops[i % 2]
        x, w = fresh((M, K)), fresh((N, K))
        with torch.cuda.stream(streams[i % len(streams)]):
            pending.append((op(0, x, w, out=poisoned((M, N))), x, w))
    torch.cuda.synchronize()
    for i, (out, x, w) in enumerate(pending):
        assert_close(out, x.float() @ w.float().T, f"streamk call {i} on stream {i % len(streams)}")
    assert len(_device_buffers().eager.sets) == streamk_buffers.SETS_MAX


@pytest.mark.gpu
@requires_gpu
def test_streamk_graph_of_forked_streams():
    """Two streamk ops in the two branches of one CUDA graph (captured on forked streams, as a
    shared expert on a side stream is), replayed on fresh inputs: each branch has its stream's
    set, so the branches run at once without racing, and every replay is right."""
    shapes = [(7168, 4096, 384), (6000, 2304, 640)]
    ops = [GemmRsAr(1024, N, K, "none", schedule="streamk", cta_group=cg)
           for (N, K, _), cg in zip(shapes, (1, 2))]
    xs = [fresh((M, K)) for N, K, M in shapes]
    ws = [fresh((N, K)) for N, K, M in shapes]
    outs = [poisoned((M, N)) for N, K, M in shapes]
    side = torch.cuda.Stream()
    for op, x, w, out in zip(ops, xs, ws, outs):   # warm-up: plans and kernels built
        op(0, x, w, out=out)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        main = torch.cuda.current_stream()
        side.wait_stream(main)
        with torch.cuda.stream(side):
            ops[1](0, xs[1], ws[1], out=outs[1])
        ops[0](0, xs[0], ws[0], out=outs[0])
        main.wait_stream(side)
    for i in range(4):
        for x in xs:
            x.copy_(fresh(x.shape))
        for out in outs:
            out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        for j, (x, w, out) in enumerate(zip(xs, ws, outs)):
            assert_close(out, x.float() @ w.float().T, f"forked graph replay {i} branch {j}")
    for op in ops:
        op.check_errors()


@pytest.mark.gpu
@requires_gpu
def test_streamk_set_made_in_a_capture_outlives_the_graph(monkeypatch):
    """A stream whose first streamk launch is inside a capture gets a capture set that is not
    the graph's memory, and that eager calls on the same stream never get (torch's capture
    stream comes from its pool, which hands it out again): after the graph is deleted and its
    memory handed out again (filled with junk), eager calls and a new graph on that stream are
    still right. (The device's buffers start afresh here, so the capture stream is sure to get
    a set of its own.)"""
    monkeypatch.setattr(streamk_buffers, "_BY_DEVICE", {})
    N, K, M = 7168, 4096, 384
    op = GemmRsAr(1024, N, K, "none", schedule="streamk", cta_group=1)
    x, w = fresh((M, K)), fresh((N, K))
    out = poisoned((M, N))
    op(0, x, w, out=out)                  # warm-up on the current stream only
    torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    sk = _device_buffers()
    assert not sk.eager.has_own(stream.cuda_stream)
    assert not sk.captured.has_own(stream.cuda_stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        op(0, x, w, out=out)
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert_close(out, x.float() @ w.float().T, "graph whose capture made the set")
    assert sk.captured.has_own(stream.cuda_stream)
    assert not sk.eager.has_own(stream.cuda_stream)     # the capture made no eager set
    del graph
    torch.cuda.synchronize()
    junk = [torch.full((1 << 22,), 7, dtype=torch.int64, device="cuda") for _ in range(16)]
    torch.cuda.synchronize()
    for i in range(3):
        x.copy_(fresh((M, K)))
        with torch.cuda.stream(stream):
            got = op(0, x, w, out=poisoned((M, N)))
        stream.synchronize()
        assert_close(got, x.float() @ w.float().T, f"eager call {i} on the capture stream")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        op(0, x, w, out=out)
    x.copy_(fresh((M, K)))
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert_close(out, x.float() @ w.float().T, "a second graph on that stream")
    assert all(int(j[0]) == 7 for j in junk)
    assert sk.eager.get(stream.cuda_stream) is not sk.captured.get(stream.cuda_stream)
    op.check_errors()


@pytest.mark.gpu
@requires_gpu
def test_streamk_error_record_fails_the_next_call_until_reset():
    """A time-out in the device's error record (written here as a kernel would) fails the next
    call of any mode-none op before its launch, naming the streamk record; reset_errors clears
    it and the flags, and calls are right again."""
    N, K, M = 4096, 2304, 640
    op = GemmRsAr(1024, N, K, "none", schedule="streamk", cta_group=1)
    other = GemmRsAr(1024, N, K, "none")
    check_streamk(op, M, N, K, "streamk before", 1)
    sk = _device_buffers()
    assert sk is not None and int(sk.error[0]) == 0
    sk.error[0] = contract.ERR_TIMEOUT_STREAMK
    x, w = fresh((M, K)), fresh((N, K))
    for o in (op, other):
        with pytest.raises(KernelTimeoutError, match="stream-K"):
            o(0, x, w)
    op.reset_errors()
    assert int(sk.error[0]) == 0 and sum(int(st.flags.abs().sum()) for st in sk.sets) == 0
    check_streamk(op, M, N, K, "streamk after reset", 1)


@pytest.mark.gpu
@requires_gpu
def test_streamk_time_out_in_the_kernel():
    """A real time-out of a streamk wait: a long GEMM (a persistent tile kernel on 66 CTAs,
    ~100 ms) holds half the SMs, so a streamk grid of every SM launched beside it on another
    stream gets only the rest. A CTA that waits for the partial of a CTA still off the SMs gets
    it only once a resident CTA has ended and made room (each CTA's share is ~5 ms of work at
    K = 131072), so with a 1 ms bound it gives up and writes the record (code 5, the CTA it
    waited for), and the abort word ends every other wait. (Call 2 of the thirty-first session:
    at K = 8192 and a 5 ms bound the same wait was met in time, the whole call took 1.1 ms.)
    The record fails the streamk op's next call (and any mode-none op's) until reset_errors,
    which also clears the flags its partials left raised; then calls are right."""
    Mb, Nb, Kb = 16384, 16384, 65536
    big = GemmRsAr(Mb, Nb, Kb, "none", schedule="tile", sm_budget=66)
    xb, wb = fresh((Mb, Kb)), fresh((Nb, Kb))
    big(0, xb, wb)                         # warm-up (kernel loaded, plan built)
    N, K, M = 8192, 131072, 640
    op = GemmRsAr(1024, N, K, "none", schedule="streamk", cta_group=1, timeout_ms=1)
    other = GemmRsAr(1024, N, K, "none")
    check_streamk(op, M, N, K, "streamk before the blocker", 1)
    grid, big_grid = op.last_launch[0]["grid"], big.last_launch[0]["grid"]
    assert grid > 66 >= big_grid, (op.last_launch[0], big.last_launch[0])
    x, w = fresh((M, K)), fresh((N, K))
    side = torch.cuda.Stream()
    torch.cuda.synchronize()
    big(0, xb, wb)
    big_done = torch.cuda.Event()
    big_done.record()
    time.sleep(0.005)                      # (the blocker is on the SMs)
    t0 = time.perf_counter()
    with torch.cuda.stream(side):
        op(0, x, w)
    side.synchronize()
    took = time.perf_counter() - t0
    blocker_running = not big_done.query()
    torch.cuda.synchronize()
    sk = _device_buffers()
    record = [int(v) for v in sk.error]
    what = (f"record {record}, streamk grid {grid} took {1e3 * took:.1f} ms, blocker grid "
            f"{big_grid} still running after it: {blocker_running}")
    assert record[0] == contract.ERR_TIMEOUT_STREAMK, f"no streamk time-out: {what}"
    assert 0 <= record[4] < grid, what
    assert blocker_running, what
    for o in (op, other):
        with pytest.raises(KernelTimeoutError, match="stream-K"):
            o(0, x, w)
    op.reset_errors()
    assert int(sk.error[0]) == 0 and sk.raised_flags() == 0
    check_streamk(op, M, N, K, "streamk after the time-out and reset", 1)
    print(what)


@pytest.mark.gpu
@requires_gpu
def test_streamk_refuses_what_it_cannot_serve():
    with pytest.raises(InputError):
        GemmRsAr(1024, 4096, 2304, "rs", schedule="streamk")
    with pytest.raises(InputError):
        GemmRsAr(1024, 4096, 2304, "none", schedule="streamk", bn=128)
    with pytest.raises(InputError):
        GemmRsAr(1024, 4096, 2304, "none", schedule="streamk", bn=256, cta_group=3)
