"""The decode (swapab) schedule on one H200: mode none against torch, and fused RS / AR on
virtual ranks against an fp32 reference, at the decode sizes of issue 9, with outputs kept
across calls, calls alternating with the tile schedule on the same group, and graph replay."""
import pytest

from codegen import contract
from codegen.runtime import GemmRsAr, VirtualGroup
from gpu_common import (ISSUE9_MS, check_first_output_survives, check_graph_replays, check_none,
                        check_outputs, rank_inputs, requires_gpu, run_poisoned)

DECODE_MS = ISSUE9_MS
TIMEOUT_MS = 1000


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("N,K", [(7168, 768), (7168, 2304), (1024, 1536)])
def test_none_swapab_matches_torch(N, K):
    op = GemmRsAr(512, N, K, "none", schedule="swapab")
    for M in DECODE_MS + DECODE_MS[::-1]:
        check_none(op, M, N, K, f"none swapab N={N} K={K}")
        assert op.last_launch[0]["schedule"] == "swapab"


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("bt,cg", [(bt, cg) for cg in contract.swapab_cta_groups("sm_90a", "none")
                                    for bt in contract.swapab_cta_group_bns("sm_90a", "none", cg)])
def test_none_every_token_tile(bt, cg):
    N, K = (1024, 768) if cg < 3 else (1280, 832)   # cta_group 3: N / 192 leaves a partial W tile
    op = GemmRsAr(512, N, K, "none", schedule="swapab", bn=bt, cta_group=cg)
    for M in sorted({*DECODE_MS, bt - 1 or 1, bt, bt + 1}):
        check_none(op, M, N, K, f"none swapab bt={bt} cg={cg}")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("cg", contract.swapab_cta_groups("sm_90a", "rs"))
@pytest.mark.parametrize("mode", ["rs", "ar"])
@pytest.mark.parametrize("tp", [2, 4, 8])
def test_fused_swapab_decode_sizes(tp, mode, cg):
    """Every decode M forward and backward; a tile-schedule call after each keeps the shared
    epochs and flags honest across schedules."""
    for N, K in ((7168, 768), (1024, 2304)):
        group = VirtualGroup(tp, 4096, N, mode)
        op = GemmRsAr(4096, N, K, mode, group, schedule="swapab", cta_group=cg,
                      timeout_ms=TIMEOUT_MS)
        tile = GemmRsAr(4096, N, K, mode, group, schedule="tile", timeout_ms=TIMEOUT_MS)
        for M in DECODE_MS + DECODE_MS[::-1]:
            xs, ws, outs = run_poisoned(op, tp, M, N, K)
            M2 = 1000 if M % 2 else 129
            xs2, ws2, outs2 = run_poisoned(tile, tp, M2, N, K)
            op.synchronize()
            assert op.last_launch[0]["schedule"] == "swapab"
            check_outputs(mode, outs, xs, ws, f"swapab tp={tp} {mode} N={N} K={K} M={M} {op.config(M)}")
            check_outputs(mode, outs2, xs2, ws2, f"tile after swapab tp={tp} {mode} M={M2}")


def _extra_fused_tiles():
    """(mode, token tile) of the rs/ar decode kernels beyond SWAPAB_BNS (sm_90a: 160)."""
    return [(mode, bt) for mode in ("rs", "ar") for bt in contract.swapab_bns("sm_90a", mode)
            if bt not in contract.SWAPAB_BNS]


def _epi_pass_tiles():
    """(mode, token tile) of the wide rs/ar decode kernels whose epilogue goes in passes
    (contract.decode_epi_tokens below the token tile)."""
    return [(mode, bt) for mode in ("rs", "ar") for bt in contract.swapab_bns("sm_90a", mode)
            if contract.decode_epi_passes(bt, contract.swapab_w_rows(2)) > 1]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("mode,bt", _epi_pass_tiles())
@pytest.mark.parametrize("tp", [2, 8])
def test_fused_wide_epilogue_passes(tp, mode, bt):
    """The wide rs/ar kernels whose transposed tile is stored in passes (token tile 256):
    pushes from every pass, ragged last passes, several token tiles per call."""
    assert _epi_pass_tiles(), "no wide rs/ar kernel stores in passes: drop this test"
    test_fused_extra_token_tiles(tp, mode, bt, 2)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("cg", contract.swapab_cta_groups("sm_90a", "rs"))
@pytest.mark.parametrize("mode,bt", _extra_fused_tiles())
@pytest.mark.parametrize("tp", [2, 8])
def test_fused_extra_token_tiles(tp, mode, bt, cg):
    """The rs/ar token tiles outside SWAPAB_BNS, forced: every decode M, the tile's edges and
    several token tiles (M > bt loops over them), forward and backward."""
    N, K = 1024, 1536
    group = VirtualGroup(tp, 512, N, mode)
    op = GemmRsAr(512, N, K, mode, group, schedule="swapab", bn=bt, cta_group=cg,
                  timeout_ms=TIMEOUT_MS)
    Ms = sorted({*DECODE_MS, bt - 1, bt, bt + 1, min(2 * bt + 7, contract.SWAPAB_MAX_ROWS)})
    for M in Ms + Ms[::-1]:
        xs, ws, outs = run_poisoned(op, tp, M, N, K)
        op.synchronize()
        assert op.last_launch[0]["schedule"] == "swapab" and op.last_launch[0]["bn"] == bt
        check_outputs(mode, outs, xs, ws, f"swapab bt={bt} cg={cg} tp={tp} {mode} M={M}")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("mode", ["ar", "rs"])
def test_swapab_outputs_survive_and_graph_replays(mode):
    tp, M, N, K = 4, 16, 7168, 768
    op = GemmRsAr(512, N, K, mode, VirtualGroup(tp, 512, N, mode), timeout_ms=TIMEOUT_MS)
    assert op.choice(M)[0] == "swapab"
    xs, ws = rank_inputs(tp, M, N, K)
    check_first_output_survives(op, mode, xs, ws, "swapab")
    check_graph_replays(op, mode, xs, ws, "swapab", replays=4)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("N,K,max_M,tp,budget", [
    (1152, 64, 16, 2, None),      # one k-tile, 18 W tiles, the smallest landing buffer
    (128, 1536, 33, 4, None),     # two W tiles: most CTAs of the budget idle
    (16384, 768, 512, 8, 3),      # many W tiles per CTA (persistent loop), an odd SM budget
    (3200, 320, 300, 2, 7),       # N not a power of two, K not either
])
@pytest.mark.parametrize("cg", contract.swapab_cta_groups("sm_90a", "rs"))
def test_swapab_unusual_shapes(N, K, max_M, tp, budget, cg):
    """Shapes and budgets outside the benchmark grid, both modes and mode none."""
    Ms = sorted({1, 3, min(max_M, 17), max_M})
    for mode in ("rs", "ar"):
        group = VirtualGroup(tp, max_M, N, mode)
        if budget is not None:
            group.sm_budget = budget
        op = GemmRsAr(max_M, N, K, mode, group, schedule="swapab", cta_group=cg,
                      timeout_ms=TIMEOUT_MS)
        for M in Ms + Ms[::-1]:
            xs, ws, outs = run_poisoned(op, tp, M, N, K)
            op.synchronize()
            check_outputs(mode, outs, xs, ws, f"swapab {mode} tp={tp} N={N} K={K} M={M}")
    none = GemmRsAr(max_M, N, K, "none", schedule="swapab", cta_group=cg, sm_budget=budget)
    for M in Ms:
        check_none(none, M, N, K, f"none swapab N={N} K={K}")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("N,K,max_M,budget", [
    (128, 1536, 33, None),        # N below one 192-row W tile: rows 128..191 past N
    (3200, 320, 300, 7),          # 16 2/3 W tiles, an odd SM budget (the CTAs loop)
    (16384, 768, 512, 3),         # 85 1/3 W tiles on 3 CTAs
    (7168, 2304, 512, None),      # 37 1/3 W tiles, every token tile of cta_group 3 below
])
@pytest.mark.parametrize("bt", [None, 64, 192])
def test_none_w192_unusual_shapes(N, K, max_M, budget, bt):
    """cta_group 3 (the 192-row W tile, mode none) where N is no multiple of 192 (the last W
    tile reaches past N: its rows load as zeros and are not stored), with looping grids and the
    default token tile of a fixed cta_group 3."""
    op = GemmRsAr(max_M, N, K, "none", schedule="swapab", bn=bt, cta_group=3, sm_budget=budget)
    for M in sorted({1, 3, min(max_M, 17), min(max_M, 113), max_M}):
        check_none(op, M, N, K, f"none swapab cg3 bt={bt} N={N} K={K}")
        assert op.last_launch[0]["cta_group"] == 3
