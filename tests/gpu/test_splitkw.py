"""The splitkw schedule (mode none, sm_90a: the wide decode kernel's 128-row W tile with K split
over a cluster of 2 or 4 CTAs per (W tile, token tile), any M) on one H200 against an fp32
reference: every token tile and cluster size at issue 9's decode rows and past them (M up to
4096, up and down), N no multiple of 128 (the last W tile past N, a NaN guard row after the
output), K not a multiple of the cluster's k-tiles, the smallest K, budgets below a cluster,
graph replay, and the dispatcher taking it where its rule says."""
import pytest

from codegen import contract
from codegen.runtime import GemmRsAr, InputError, dispatch
from gpu_common import (ISSUE9_MS, check_none, check_none_cluster_sweep, check_none_graph,
                        requires_gpu)

CGS = contract.SPLITKW_CTA_GROUPS
PAST_DECODE_MS = (513, 640, 1000, 2048, 4096)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("cg", CGS)
@pytest.mark.parametrize("bt", contract.SPLITKW_BNS)
def test_none_splitkw_every_token_tile(bt, cg):
    """N 704 = 5.5 W tiles (the last one past N), K 1600 = 25 k-tiles (uneven over 2 or 4 CTAs);
    every M forward and backward on one op, the row after the output kept NaN."""
    N, K = 704, 1600
    op = GemmRsAr(4096, N, K, "none", schedule="splitkw", bn=bt, cta_group=cg)
    ms = sorted({*ISSUE9_MS, bt - 1, bt, bt + 1, *PAST_DECODE_MS})
    check_none_cluster_sweep(op, ms, N, K, ("splitkw", bt, cg))


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("N,K,budget", [
    (2048, 128, None),     # cluster of 2: one k-tile per CTA; of 4: refused (below)
    (2048, 256, None),     # one k-tile per CTA of a 4-cluster
    (8, 4096, None),       # one W tile of 8 rows: 120 of its 128 rows past N
    (4000, 1000, None),    # N and K no multiple of 64: ragged W tile and last k-tile
    (7168, 2304, 7),       # a budget below two 4-clusters: pairs loop in few clusters
    (1088, 320, 3),        # a budget below one 4-cluster: one cluster, every pair
])
@pytest.mark.parametrize("cg", CGS)
def test_none_splitkw_unusual_shapes(N, K, budget, cg):
    if K < contract.splitk_min_k(cg):
        with pytest.raises(InputError, match="splitkw"):
            GemmRsAr(64, N, K, "none", schedule="splitkw", cta_group=cg)
        return
    op = GemmRsAr(1024, N, K, "none", schedule="splitkw", cta_group=cg, sm_budget=budget)
    for M in (1, 3, 17, 130, 513, 1024):
        check_none(op, M, N, K, f"none splitkw cg={cg} N={N} K={K} budget={budget}", guard=True)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("cg", CGS)
def test_none_splitkw_graph_replay(cg):
    M, N, K = 700, 704, 8192
    op = GemmRsAr(1024, N, K, "none", schedule="splitkw", cta_group=cg)
    check_none_graph(op, M, N, K, f"none splitkw cg={cg}")


@pytest.mark.gpu
@requires_gpu
def test_none_dispatch_takes_splitkw_where_the_rule_says():
    """Without a table, mode none past the decode rows at N 704, K 8192 (30..48 tiles of the
    tile schedule on 132 SMs, 128 k-tiles each) dispatches splitkw while its pairs fit one wave
    of clusters (dispatch.choose_none_splitkw), the tile schedule past that, at N 7168, K 3072,
    M 4096 (896 tiles) and at a short K; every call correct, the row after the output kept NaN."""
    op = GemmRsAr(4096, 704, 8192, "none")
    slots = op.splitkw_slots()
    assert set(slots) == set(CGS) and all(v >= 1 for v in slots.values())
    # 30 pairs at M 513..640 (clusters of 4 where the device holds 30 of them), 48 at 1000..1024
    for M in (513, 640, 1000, 1024, 2048):
        check_none(op, M, 704, 8192, "none dispatch", guard=True)
        launch = op.last_launch[0]
        pairs = dispatch.splitkw_units(M, 704, 128)
        if pairs <= min(slots[4], op.sm_budget // 4):
            want = ("splitkw", 4)
        elif pairs <= min(slots[2], op.sm_budget // 2):
            want = ("splitkw", 2)
        else:
            want = ("tile", launch["cta_group"])
        assert (launch["schedule"], launch["cta_group"]) == want, (M, pairs, slots, launch)
        assert launch["grid"] <= op.sm_budget
    assert op.last_launch[0]["schedule"] == "tile"   # M 2048: 96 pairs
    big = GemmRsAr(4096, 7168, 3072, "none")   # (no tuning table of the test caches there)
    check_none(big, 4096, 7168, 3072, "none dispatch N 7168")
    assert big.last_launch[0]["schedule"] == "tile"
    short = GemmRsAr(4096, 704, 1024, "none")   # 16 k-tiles: the split does not pay
    check_none(short, 1000, 704, 1024, "none dispatch K 1024")
    assert short.last_launch[0]["schedule"] == "tile"


@pytest.mark.gpu
@requires_gpu
def test_none_dispatch_at_decode_sizes_past_n():
    """N 1000 (no multiple of 64), K 8192: since splitk reaches past N (sixteenth session) the
    dispatcher takes splitk with clusters of 4 up to M 192 (16 W tiles, one wave), clusters of 2
    at token tile 128 while every pair gets one (choose_splitk's spread clause) up to the rows
    the fill rule takes at an N no multiple of 64 (dispatch.FILL_RAGGED_MAX_M: M 448 until the
    twenty-seventh session, now every decode row), past them the tile schedule's rule, whose
    splitkw rule takes clusters of 2 (M 513 / 640: 40 pairs of 128-row W and token tiles).
    N 3696 (Qwen2-72B's 29568 / 8), M 100: 58 W tiles in clusters of 2 at token tile 128 (K 128
    k-tiles: dispatch.SPLITK_LONG_K_TILES). Every call correct, the row after the output kept
    NaN, a graph replayed."""
    N, K = 1000, 8192
    op = GemmRsAr(640, N, K, "none")
    slots = op.splitkw_slots()
    for M in (1, 16, 64, 192, 193, 256, 257, 448, 449, 512, 513, 640):
        check_none(op, M, N, K, "none dispatch N 1000", guard=True)
        launch = op.last_launch[0]
        got = (launch["schedule"], launch["bn"], launch["cta_group"])
        if M <= dispatch.SPLITK_MAX_M[4]:
            assert got[0::2] == ("splitk", 4), (M, launch)
        elif M <= dispatch.FILL_RAGGED_MAX_M:
            assert got == ("splitk", 128, 2), (M, launch)
            assert launch["grid"] == 2 * 16 * -(-M // 128)     # a cluster per pair
        else:
            assert got == dispatch.choose_none_splitkw(M, N, K, op.arch, op.sm_budget, slots)
            assert got == ("splitkw", 128, 2), (M, launch)
    check_none_graph(op, 64, N, K, "none dispatch N 1000")
    N = 3696
    op = GemmRsAr(512, N, K, "none")
    check_none(op, 100, N, K, "none dispatch N 3696", guard=True)
    launch = op.last_launch[0]
    assert (launch["schedule"], launch["bn"], launch["cta_group"]) == ("splitk", 128, 2), launch
    assert launch["grid"] == 2 * 58
