"""The streamk schedule (mode none, sm_90a: the tile kernel whose CTAs split the last waves'
k-tiles evenly, a tile shared by two or more CTAs summed in f32 through the device's workspace
and per-CTA flags) on one H200 against an fp32 reference, with a per-element bound as well as
assert_close's: a partial tile summed twice or not at all is wrong in one tile only, which the
norm would average away over a large output.

Covered: issue 9's rows and past them, odd and even row tiles (cta_group 2 pads an odd count
with a CTA on rows past M), N off the tile width (the last N tile reaches past N), K off the
128-byte lines and shorter than the minimum share, budgets that give a tile to several CTAs
(several partials per tile) or leave whole tiles after the split, the flags staying valid
call after call (one op and two ops of other shapes on one device's buffers, up and down M),
graph replay, calls on two streams, and the error record: a time-out it holds fails the next
call until reset_errors."""
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
    """Three streamk ops of other shapes and cluster sizes share the device's buffers: 42 calls
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


@pytest.mark.gpu
@requires_gpu
def test_streamk_two_streams():
    """Calls alternating between two streams without a sync: the second stream waits for the
    first's last streamk call (the buffers are one per device), so every output is right."""
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
    sk = streamk_buffers.existing(torch.device("cuda", torch.cuda.current_device()))
    assert sk is not None and int(sk.error[0]) == 0
    sk.error[0] = contract.ERR_TIMEOUT_STREAMK
    x, w = fresh((M, K)), fresh((N, K))
    for o in (op, other):
        with pytest.raises(KernelTimeoutError, match="stream-K"):
            o(0, x, w)
    op.reset_errors()
    assert int(sk.error[0]) == 0 and int(sk.flags.abs().sum()) == 0
    check_streamk(op, M, N, K, "streamk after reset", 1)


@pytest.mark.gpu
@requires_gpu
def test_streamk_refuses_what_it_cannot_serve():
    with pytest.raises(InputError):
        GemmRsAr(1024, 4096, 2304, "rs", schedule="streamk")
    with pytest.raises(InputError):
        GemmRsAr(1024, 4096, 2304, "none", schedule="streamk", bn=128)
    with pytest.raises(InputError):
        GemmRsAr(1024, 4096, 2304, "none", schedule="streamk", bn=256, cta_group=3)
