"""The splitk decode schedule (K split over a cluster of 2 or 4 CTAs per 64-row W tile, the f32
partial tiles summed through distributed shared memory) on one H200: mode none against an fp32
reference, fused RS / AR on virtual ranks, at the decode sizes of issue 9, K not a multiple of
the cluster's k-tiles, the smallest K, budgets below a cluster, outputs kept across calls,
calls alternating with the other schedules on one group, and graph replay."""
import pytest

from codegen import contract
from codegen.runtime import GemmRsAr, InputError, VirtualGroup, dispatch
from gpu_common import (ISSUE9_MS, check_first_output_survives, check_graph_replays, check_none,
                        check_none_graph, check_outputs, rank_inputs, requires_gpu, run_poisoned)

DECODE_MS = ISSUE9_MS
TIMEOUT_MS = 1000
CGS = contract.SPLITK_CTA_GROUPS


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("cg", CGS)
@pytest.mark.parametrize("bt", contract.splitk_bns("sm_90a", "none"))
def test_none_splitk_every_token_tile(bt, cg):
    """Every token tile and cluster size; K = 1600 is 25 k-tiles (uneven over 2 or 4 CTAs)."""
    N, K = 2048, 1600
    op = GemmRsAr(512, N, K, "none", schedule="splitk", bn=bt, cta_group=cg)
    for M in sorted({*DECODE_MS, bt - 1 or 1, bt, bt + 1}):
        check_none(op, M, N, K, f"none splitk bt={bt} cg={cg}")
        assert op.last_launch[0]["schedule"] == "splitk"


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("N,K,budget", [
    (2048, 128, None),     # cluster of 2: one k-tile per CTA; of 4: refused (below)
    (2048, 256, None),     # one k-tile per CTA of a 4-cluster
    (128, 4096, None),     # two W tiles: most clusters idle
    (16384, 1024, 7),      # a budget below two 4-clusters: W tiles loop in few clusters
    (3200, 320, 3),        # a budget below one 4-cluster: one cluster, every W tile
])
@pytest.mark.parametrize("cg", CGS)
def test_none_splitk_unusual_shapes(N, K, budget, cg):
    if K < contract.splitk_min_k(cg):
        with pytest.raises(InputError, match="splitk"):
            GemmRsAr(64, N, K, "none", schedule="splitk", cta_group=cg)
        return
    op = GemmRsAr(512, N, K, "none", schedule="splitk", cta_group=cg, sm_budget=budget)
    for M in (1, 3, 17, 130, 512):
        check_none(op, M, N, K, f"none splitk cg={cg} N={N} K={K} budget={budget}")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("cg", CGS)
@pytest.mark.parametrize("mode", ["rs", "ar"])
@pytest.mark.parametrize("tp", [2, 4, 8])
def test_fused_splitk_decode_sizes(tp, mode, cg):
    """Every decode M forward and backward; a swapab and a tile-schedule call after each keep
    the shared epochs, landing slots and flags honest across schedules."""
    for N, K in ((2048, 2304), (1024, 832)):
        group = VirtualGroup(tp, 1024, N, mode)
        op = GemmRsAr(1024, N, K, mode, group, schedule="splitk", cta_group=cg,
                      timeout_ms=TIMEOUT_MS)
        swapab = GemmRsAr(1024, N, K, mode, group, schedule="swapab", timeout_ms=TIMEOUT_MS)
        tile = GemmRsAr(1024, N, K, mode, group, schedule="tile", timeout_ms=TIMEOUT_MS)
        for M in DECODE_MS + DECODE_MS[::-1]:
            xs, ws, outs = run_poisoned(op, tp, M, N, K)
            op.synchronize()
            assert op.last_launch[0]["schedule"] == "splitk"
            check_outputs(mode, outs, xs, ws, f"splitk tp={tp} {mode} N={N} K={K} M={M} cg={cg}")
            other = swapab if M % 2 else tile
            M2 = 33 if M % 2 else 1000
            xs2, ws2, outs2 = run_poisoned(other, tp, M2, N, K)
            other.synchronize()
            check_outputs(mode, outs2, xs2, ws2, f"{other.choice(M2)[0]} after splitk tp={tp} "
                                                 f"{mode} M={M2}")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("mode", ["ar", "rs"])
def test_splitk_outputs_survive_and_graph_replays(mode):
    tp, M, N, K = 4, 16, 2048, 1536
    op = GemmRsAr(512, N, K, mode, VirtualGroup(tp, 512, N, mode), schedule="splitk",
                  timeout_ms=TIMEOUT_MS)
    xs, ws = rank_inputs(tp, M, N, K)
    check_first_output_survives(op, mode, xs, ws, "splitk")
    check_graph_replays(op, mode, xs, ws, "splitk", replays=4)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("N,K", [(2048, 4096), (1000, 8192)])   # (1000: the last W tile past N)
def test_none_splitk_graph_replay(N, K):
    M = 100
    op = GemmRsAr(256, N, K, "none", schedule="splitk", cta_group=4)
    check_none_graph(op, M, N, K, f"none splitk N={N}")


@pytest.mark.gpu
@requires_gpu
def test_none_dispatch_takes_splitk_where_the_rule_says():
    """Without a table, mode none at N 1536, K 4096 (24 W tiles) dispatches the splitk kernel
    with clusters of 4 up to M = 192 (dispatch.choose_splitk, SPLITK_MAX_M; the device holds 24
    clusters of 4; token tiles 160 / 192 above 128), then clusters of 2 at token tile 128 while
    every (W tile, token tile) pair gets one (48 pairs at M 193..256; the device holds 66), and
    the decode kernels above (72 pairs at M 300); every call correct."""
    N, K = 1536, 4096
    op = GemmRsAr(512, N, K, "none")
    slots = op.splitk_slots()
    assert set(slots) == set(CGS) and slots[4] >= 24 and 48 <= slots[2] < 72
    top = dispatch.SPLITK_MAX_M[4]
    for M in (1, 16, 64, 100, 128, 129, 160, 161, top, top + 1, 256, 257, 300):
        check_none(op, M, N, K, "none dispatch")
        launch = op.last_launch[0]
        if M <= top:
            assert (launch["schedule"], launch["cta_group"]) == ("splitk", 4), (M, launch)
        elif M <= 256:
            assert (launch["schedule"], launch["bn"], launch["cta_group"]) == ("splitk", 128, 2), (M, launch)
            assert launch["grid"] == 2 * 24 * -(-M // 128)     # a cluster per pair
        else:
            assert launch["schedule"] == "swapab", (M, launch)
    assert op.last_launch[0]["grid"] > 0


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("N,K,budget", [
    (1000, 8192, None),    # 15.6 W tiles: the last one 40 rows, 24 past N
    (8, 4096, None),       # one W tile of 8 rows: 56 of its 64 rows past N
    (3696, 2000, None),    # 57.75 W tiles (Qwen2-72B's 29568 / 8), K no multiple of 64
    (4040, 1600, 7),       # a budget below two 4-clusters: W tiles loop in few clusters
])
@pytest.mark.parametrize("cg", CGS)
def test_none_splitk_past_n(N, K, budget, cg):
    """Mode none's splitk kernels at an N no multiple of 64 (contract.splitk_ragged_n): the last
    W tile's rows past N load as zeros and nothing past N is stored; every token tile the
    default picks, M forward and backward, the row after the output kept NaN."""
    op = GemmRsAr(512, N, K, "none", schedule="splitk", cta_group=cg, sm_budget=budget)
    ms = sorted({*DECODE_MS, 100, 160, 192, 200, 256, 300, 448, 512})
    for M in ms + ms[::-1]:
        check_none(op, M, N, K, f"none splitk cg={cg} N={N} K={K} budget={budget}", guard=True)
        launch = op.last_launch[0]
        assert (launch["schedule"], launch["cta_group"]) == ("splitk", cg), (M, launch)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("N,K", [
    (960, 1472),     # 15 W tiles, 23 k-tiles: clusters of 4 at token tiles 16 / 32 / 64 / 128
    (1344, 1824),    # 21 W tiles, 29 k-tiles, rows off the 128-byte lines: clusters of 2 and 4
    (1000, 1096),    # 16 W tiles, the last one 40 rows (past N), 18 k-tiles, K % 64 = 8
])
def test_none_dispatch_small_n_short_k(N, K):
    """Without a table, mode none at small N and short K dispatches choose_splitk_short's pick
    (token tiles spread over clusters of 2 or 4, one wave) up to M = SPLITK_SHORT_MAX_M, the
    rules after it above; every call correct, M forward and backward, then graph replay."""
    op = GemmRsAr(512, N, K, "none")
    slots = op.splitk_slots()
    ms = sorted({*DECODE_MS, 17, 33, 48, 65, 80, 129, 176, 192, 193, 256, 384, 385, 448, 512})
    taken = set()
    for M in ms + ms[::-1]:
        check_none(op, M, N, K, f"none dispatch small N={N} K={K}")
        launch = op.last_launch[0]
        # (where the fill rule does not decide, e.g. an N no multiple of 64 past two token
        # tiles of 224, neither does the clause: the rules' tile schedule past N)
        decides = dispatch.fill_rule_decides(M, N, op.arch, op.land_rows)
        want = (dispatch.choose_splitk_short(M, N, K, "sm_90a", op.sm_budget, slots)
                if decides else None)
        # None only there and where the pairs of M's 128-row token tiles fit no wave of
        # clusters of 2
        pairs = (dispatch.cdiv(N, dispatch.SWAPAB_BM)
                 * dispatch.cdiv(M, dispatch.SPLITK_SHORT_MAX_BT))
        assert want is not None or not decides or pairs > min(slots[2], op.sm_budget // 2), (
            M, want)
        if want is not None:
            assert (launch["schedule"], launch["bn"], launch["cta_group"]) == want, (M, launch)
            taken.add(want)
    assert {ks for _, _, ks in taken} == set(CGS) or N == 960, taken   # both cluster sizes ran
    check_none_graph(op, 80, N, K, f"none dispatch small N={N} K={K} graph")
