"""Dispatch rules, grid rule and buffer geometry (CPU only)."""
import pytest

from codegen import contract
from codegen.runtime import dispatch
from codegen.spec import SpecError, Variant


@pytest.mark.parametrize("M,N,bn", [
    (1, 7168, 128), (2047, 7168, 128), (2048, 7168, 256), (8205, 7168, 256),
    (4096, 1024, 256), (4096, 1152, 128),  # 1152 % 256 != 0
])
def test_bn_rule(M, N, bn):
    assert dispatch.choose_bn(M, N) == bn


@pytest.mark.parametrize("M,ctas,cluster,bn", [
    (512, 132, 2, 128),     # small M: latency-bound, narrow tiles
    (2048, 132, 2, 224),    # BN 224: 512 tiles = 3.9 waves (4 x 224 x 0.95); 256: 3.4 (4 x 256
                            # x 0.95); 128: 896 tiles = 6.8 waves (7 x 128)
    (4096, 132, 2, 256),    # 256: 6.8 waves x 256 = 224: 7.8 waves x 224 (a tie: the wider)
    (8192, 132, 2, 256),    # 13.6 x 256 = 15.5 x 224: a tie again
    (32768, 132, 2, 256),   # 55 x 256 < 63 x 224
    (16384, 16, 2, 256),    # virtual rank of tp 8: many waves either way
])
def test_bn_wave_rule(M, ctas, cluster, bn):
    assert dispatch.choose_bn(M, 7168, ctas=ctas, cluster=cluster) == bn
    assert dispatch.choose_bn(M, 7168 + 128, ctas=ctas, cluster=cluster) == 128  # only 128 divides
    # N = 8192: 224 does not divide it; 256 = 4 x 32 tiles = 1 wave at M 512.. 1024
    assert dispatch.choose_bn(M, 8192, ctas=ctas, cluster=cluster) in (128, 256)


@pytest.mark.parametrize("M,bn", [(448, 128), (449, 224), (512, 224), (700, 128), (2048, 224)])
def test_bn_wave_rule_mode_none(M, bn):
    """Mode none applies the wave rule from M = 449 (past the decode default): BN 224 fills one
    wave at M 449..512 (4 row tiles x 32 = 128 tiles on 132 CTAs) where BN 128 needs two."""
    assert dispatch.choose_bn(M, 7168, ctas=132, cluster=2, mode="none") == bn


def test_tile_widths():
    assert dispatch.tile_widths(7168) == (128, 224, 256)
    assert dispatch.tile_widths(8192) == (128, 256)
    assert dispatch.tile_widths(1792) == (128, 224, 256)
    assert dispatch.tile_widths(896) == (128, 224)
    assert dispatch.tile_widths(7296) == (128,)


def test_bn_override():
    assert dispatch.choose_bn(1, 7168, fixed=256) == 256
    assert dispatch.choose_bn(9000, 7168, fixed=128) == 128


@pytest.mark.parametrize("M,cg", [(1, 1), (128, 1), (256, 1), (257, 2), (8205, 2)])
def test_cta_group_rule(M, cg):
    assert dispatch.choose_cta_group(M) == cg
    assert dispatch.choose_cta_group(M, fixed=3 - cg) == 3 - cg


def test_gemm_tiles():
    assert dispatch.gemm_tiles(1, 7168, 128, 1) == 56
    assert dispatch.gemm_tiles(129, 7168, 128, 1) == 2 * 56
    assert dispatch.gemm_tiles(129, 7168, 256, 2) == 2 * 28
    assert dispatch.gemm_tiles(257, 1024, 128, 2) == 4 * 8  # 3 M tiles rounded up to 4


@pytest.mark.parametrize("M,N,bn,cluster,budget,want", [
    (1, 1024, 128, 1, 132, 8),        # fewer tiles than SMs: one CTA per tile
    (8205, 7168, 256, 2, 132, 132),   # many tiles: the whole budget
    (8205, 7168, 256, 2, 33, 32),     # budget rounded down to the cluster
    (8205, 7168, 256, 2, 1, 2),       # at least one cluster
    (1, 128, 128, 2, 66, 2),          # 1 tile rounded up to the cluster
    (257, 1024, 128, 2, 16, 16),
])
def test_grid_rule(M, N, bn, cluster, budget, want):
    g = dispatch.grid_size(M, N, bn, cluster, budget)
    assert g == want and g % cluster == 0


def test_grid_min_multiple():
    assert dispatch.grid_size(8205, 7168, 128, 2, 132, multiple=4) == 132
    assert dispatch.grid_size(8205, 7168, 128, 2, 130, multiple=4) == 128


def test_geometry():
    assert contract.m_tiles_max(1) == 2
    assert contract.m_tiles_max(256) == 2
    assert contract.m_tiles_max(257) == 4
    assert contract.m_tiles_max(8205) == 66
    assert contract.rows_pad(8205) == 66 * 128
    mt, nt, tp = 66, 7168 // 128, 8
    assert contract.flag_words(8205, 7168, tp) == 16 + 2 * mt * nt * tp + mt * nt * tp
    assert contract.out_shape("rs", 1000, 7168, 8) == (125, 7168)
    assert contract.out_shape("rs", 7, 7168, 8) == (1, 7168)
    assert contract.out_shape("ar", 7, 7168, 8) == (7, 7168)
    assert contract.out_shape("none", 7, 7168, 8) == (7, 7168)


@pytest.mark.parametrize("M, K, fused", [
    (1, 9216, True), (256, 9216, True), (257, 768, True), (512, 1536, True), (512, 2304, True),
    (512, 3584, False), (513, 2304, False), (513, 1536, True),
    (1023, 768, True), (1024, 768, False), (2048, 2304, False), (4095, 768, False),
    (4096, 9216, True), (32768, 768, True)])
def test_default_should_run_follows_the_measured_pattern(M, K, fused):
    """Without a tuning table: fused at decode sizes and at large M; in between only where it
    was measured to win (K <= 2304 up to M 512, the decode schedule; K <= 1536 up to M 1023)."""
    assert dispatch.default_should_run(M, K) is fused


@pytest.mark.parametrize("mode,M,schedule,bt", [
    ("ar", 16, "swapab", 16), ("rs", 100, "swapab", 128), ("ar", 256, "swapab", 128),
    ("rs", 512, "swapab", 128), ("ar", 513, "tile", None),
    ("none", 16, "swapab", 16), ("none", 256, "swapab", 256), ("none", 257, "swapab", 144),
    ("none", 129, "swapab", 144), ("none", 145, "swapab", 160), ("none", 170, "swapab", 192),
    ("none", 200, "swapab", 208), ("none", 209, "swapab", 224), ("none", 289, "swapab", 160),
    # rs/ar on sm_90a: one token tile of 160 at M 129..160, else tiles of at most 128
    ("rs", 129, "swapab", 160), ("ar", 160, "swapab", 160), ("rs", 161, "swapab", 128),
    ("ar", 200, "swapab", 128),
    # mode none, sm_90a: two token tiles of 144/160/192/208/224 up to M = 448
    ("none", 300, "swapab", 160), ("none", 384, "swapab", 192), ("none", 400, "swapab", 208),
    ("none", 416, "swapab", 208), ("none", 448, "swapab", 224),
    ("none", 449, "tile", None),
])
def test_default_schedule_and_token_tile(mode, M, schedule, bt):
    """rs/ar keep the decode schedule up to M 512 with token tiles of at most 128 (one tile's
    push overlaps the next one's MMA) but for one tile of 160 at M 129..160; mode none (sm_90a) hands over to the tile schedule above
    448, with two token tiles from 257."""
    got = dispatch.choose_schedule(M, "sm_90a", 512, mode=mode)
    assert got == schedule
    if got == "swapab":
        assert dispatch.swapab_default_token_tile(M, mode) == bt
        # cta_group 1, but mode none's two token tiles take the wide kernel (cta_group 2)
        wide = mode == "none" and M > dispatch.SWAPAB_DEFAULT_MAX_M
        assert dispatch.swapab_cta_group(None, M, mode) == (2 if wide else 1)
        assert dispatch.swapab_cta_group(None, M, mode, "sm_100a") == 1
        assert dispatch.swapab_cta_group(fixed=2) == 2
        assert dispatch.swapab_cta_group(fixed=1, M=M, mode=mode) == 1
    assert dispatch.choose_schedule(M, "sm_90a", 64, mode=mode) == ("swapab" if M <= 64 else "tile")
    assert dispatch.swapab_default_token_tile(M, mode, fixed=64) == 64


# ---- the wave-fill rule (mode none, M <= 512, sm_90a) -------------------------------------

@pytest.mark.parametrize("N,M,choice", [
    # the measured best candidate of the 2026-12-01 (fourth session) sweeps, one H200, 132 SMs
    (2048, 128, ("swapab", 16, 2)), (2048, 256, ("swapab", 32, 2)),
    (2048, 384, ("swapab", 64, 2)), (2048, 512, ("swapab", 64, 2)),
    (4096, 128, ("swapab", 32, 2)), (4096, 256, ("swapab", 64, 2)),
    (4096, 16, ("swapab", 16, 1)), (4096, 64, ("swapab", 64, 1)),
    (8192, 16, ("swapab", 16, 1)), (8192, 64, ("swapab", 64, 1)),
    (8192, 384, ("swapab", 192, 2)),
    # N = 7168: where the rules before it (and most table rows) already chose
    (7168, 16, ("swapab", 16, 1)), (7168, 64, ("swapab", 64, 1)),
    (7168, 128, ("swapab", 128, 1)), (7168, 300, ("swapab", 160, 2)),
    (7168, 384, ("swapab", 192, 2)), (7168, 416, ("swapab", 208, 2)),
    (7168, 512, ("tile", 224, 2)),
])
def test_fill_rule_picks_the_measured_best(N, M, choice):
    assert dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512) == choice


@pytest.mark.parametrize("N,M,full,partial", [
    # twenty-fourth session, one H200 (worse of warm and cold, against the wide decode kernel):
    # at the 1.25 tile price the tile schedule took these and measured 0.94x / 0.88x / 0.85x
    (7168, 416, ("tile", 224, 2), ("swapab", 208, 2)),     # call 3 (K 1024 / 3584)
    (6528, 408, ("tile", 224, 2), ("swapab", 96, 2)),      # call 5 (K 4224)
    (6400, 448, ("tile", 224, 2), ("swapab", 96, 2)),      # call 3 (K 8192)
])
def test_fill_rule_prices_a_partial_last_row_tile(N, M, full, partial, monkeypatch):
    # a last 128-row tile of at most FILL_TILE_PARTIAL_ROWS rows: FILL_PRICE_TILE_PARTIAL
    assert 0 < M % 128 <= dispatch.FILL_TILE_PARTIAL_ROWS
    assert dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512) == partial
    monkeypatch.setattr(dispatch, "FILL_TILE_PARTIAL_ROWS", 0)
    assert dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512) == full


def test_fill_rule_fills_the_sms_where_the_old_default_left_half_idle():
    """N = 4096, M = 256: one 64-row W tile per CTA is 64 CTAs (0.68x torch.mm measured); the
    rule takes 32 W tiles x 4 token tiles = 128 CTAs of the wide kernel (1.04x)."""
    opt = dispatch.choose_none_by_fill(256, 4096, "sm_90a", 132, 512)
    assert opt == ("swapab", 64, 2)
    old = ("swapab", 256, 1)
    assert dispatch.fill_cost(opt, 256, 4096, 132) < dispatch.fill_cost(old, 256, 4096, 132)
    assert old in dispatch.fill_options(256, 4096, "sm_90a")


def test_fill_rule_applies_only_where_it_can():
    # no wide decode kernel on sm_100a; M above the decode rows; N not a multiple of 8
    assert dispatch.choose_none_by_fill(256, 4096, "sm_100a", 148, 512) is None
    assert dispatch.choose_none_by_fill(513, 4096, "sm_90a", 132, 512) is None
    assert dispatch.choose_none_by_fill(300, 4096, "sm_90a", 132, 256) is None
    assert dispatch.choose_none_by_fill(16, 64 * 67 + 4, "sm_90a", 132, 512) is None
    # N a multiple of 8, not of 64 (fifteenth session): the wide decode kernels (they reach past
    # N) and, since the sixteenth session, splitk (its last 64-row W tile past N: N 4000 is 63 W
    # tiles, one wave of clusters of 2 to M 64); past two token tiles the rules' tile schedule
    # until the twenty-seventh session, since then every decode row (dispatch.FILL_RAGGED_MAX_M)
    n = 4000
    for M in (1, 16, 64, 256, 448, 449, 512):
        opt = dispatch.choose_none_by_fill(M, n, "sm_90a", 132, 512, K=8192,
                                           cluster_slots={2: 66, 4: 30})
        if M <= dispatch.SPLITK_MAX_M[2]:
            assert opt == ("splitk", M if M > 1 else 16, 2), (M, opt)
        else:
            assert opt[0] == "swapab" and opt[2] in (2, 3), (M, opt)
        opt = dispatch.choose_none_by_fill(M, n, "sm_90a", 132, 512)   # (no K: no splitk)
        assert opt[0] == "swapab" and opt[2] in (2, 3), (M, opt)
    # (M 256: 32 W tiles x 4 token tiles of 64, where one of 256 ran 0.45x torch.mm)
    assert dispatch.choose_none_by_fill(256, n, "sm_90a", 132, 512) == ("swapab", 64, 2)
    assert dispatch.choose_none_by_fill(449, n, "sm_90a", 132, 512) is not None
    assert dispatch.choose_none_by_fill(513, n, "sm_90a", 132, 512) is None   # past land_rows
    with pytest.MonkeyPatch.context() as mp:   # the bound before (M 448) still holds its rows
        mp.setattr(dispatch, "FILL_RAGGED_MAX_M", dispatch.SWAPAB_DEFAULT_MAX_M_TWO_TILES)
        assert dispatch.choose_none_by_fill(449, n, "sm_90a", 132, 512) is None
        assert dispatch.choose_none_by_fill(448, n, "sm_90a", 132, 512) is not None
    # N a multiple of 64, not of 128 (eighth session): the rule applies without the wide
    # kernel's 128-row W tiles (tests/test_n_multiple.py)
    assert dispatch.choose_none_by_fill(16, 64 * 67, "sm_90a", 132, 512) == ("swapab", 16, 1)


@pytest.mark.parametrize("N", [128, 256, 384, 1024, 2048, 4096, 5120, 7168, 8192, 16384])
@pytest.mark.parametrize("budget", [1, 7, 64, 132])
def test_fill_rule_only_returns_built_kernels_that_fit(N, budget):
    """Every choice is a kernel the build has (a token tile of the arch's list with one of its
    cta_groups, cta_group 3 at its own token tiles; a tile width serving N at cta_group 1 or 2:
    since the twenty-fourth session also past N, FILL_TILE_EVERY_WIDTH), for every M."""
    bns = set(contract.swapab_bns("sm_90a", "none"))
    for M in range(1, 513):
        s, bn, cg = dispatch.choose_none_by_fill(M, N, "sm_90a", budget, 512)
        if s == "swapab":
            assert bn in bns and contract.decode_kernel_exists("sm_90a", "none", bn, cg)
            assert bn * dispatch.FILL_MAX_TOKEN_TILES >= M
        else:
            assert bn in contract.tile_widths_serving(N, "sm_90a", "none") and cg in (1, 2)
            assert contract.tile_fits_n(N, bn, "sm_90a", "none")


def test_fill_rule_is_constant_between_multiples_of_16():
    """op.prepare() loads the kernels of M = 1 and every multiple of 16: the rule's choice
    must not change inside (16k, 16k + 16]."""
    for N in (2048, 4096, 5120, 7168, 8192):
        for M in range(1, 513):
            rep = max(16, -(-M // 16) * 16)
            assert (dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512)
                    == dispatch.choose_none_by_fill(rep, N, "sm_90a", 132, 512)), (N, M)
    # ...with the splitk kernels too (token tiles 160 / 192 up to M = 192 at small N)
    slots = {2: 66, 4: 30}
    for N, K in ((1024, 14336), (1280, 8192), (1792, 4096), (3072, 8192)):
        for M in range(1, 513):
            rep = max(16, -(-M // 16) * 16)
            assert (dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512, K=K, cluster_slots=slots)
                    == dispatch.choose_none_by_fill(rep, N, "sm_90a", 132, 512, K=K,
                                                    cluster_slots=slots)), (N, K, M)


@pytest.mark.parametrize("N,M,flat,priced", [
    # one H200, shapes the prices were not fitted to (BENCHMARKS.md 2026-12-01 fifth session,
    # call 8): the priced rule's pick was 1.1x-1.5x faster, the unpriced one's a wide tile of
    # 192..256 with 3-4 pipeline stages
    (9984, 227, ("swapab", 256, 2), ("swapab", 80, 2)),
    (9472, 248, ("swapab", 256, 2), ("swapab", 96, 2)),
    (9216, 173, ("swapab", 192, 2), ("swapab", 64, 2)),
    (9984, 492, ("swapab", 192, 2), ("swapab", 112, 2)),
    # ...and where the N 7168 sweeps found the wide 208 / 192 best, it stays
    (7168, 416, ("swapab", 208, 2), ("swapab", 208, 2)),
    (7168, 384, ("swapab", 192, 2), ("swapab", 192, 2)),
])
def test_fill_prices(N, M, flat, priced, monkeypatch):
    # (the rule as the fifth session had it: without cta_group 3, the 192-row W tile, the tile
    # widths 160 / 192 of the eleventh session, and the twenty-fourth session's tile options and
    # price)
    monkeypatch.setattr(dispatch, "FILL_TILE_EVERY_WIDTH", False)
    monkeypatch.setattr(dispatch, "FILL_PRICE_TILE", 1.35)
    old = dict(cta_groups=(1, 2), widths=contract.tile_widths(N))
    assert dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512, priced=False, **old) == flat
    assert dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512, **old) == priced
    # the prices follow a work unit's rows per k-step (W rows + token tile), not the kernels'
    # pipeline depth: the wide 192..256 kernels got a stage more (the epilogue in passes) and
    # stayed as slow (sixth session), so their prices stay
    prices = {(bt, cg): dispatch.fill_cost(("swapab", bt, cg), M, N, 132)
              / dispatch.fill_cost(("swapab", bt, cg), M, N, 132, priced=False)
              for bt in (96, 160, 192, 208, 224, 256) for cg in (1, 2)}
    assert dispatch.FILL_PRICE_DECODE == ((336, 1.4), (320, 1.25))
    assert prices == pytest.approx({
        (96, 1): 1.0, (160, 1): 1.0, (192, 1): 1.0, (208, 1): 1.0, (224, 1): 1.0, (256, 1): 1.25,
        (96, 2): 1.0, (160, 2): 1.0, (192, 2): 1.25, (208, 2): 1.4, (224, 2): 1.4, (256, 2): 1.4})
    assert [contract.decode_stages(bt, 128) for bt in (96, 160, 192, 208, 256)] == [7, 5, 5, 4, 4]
    assert dispatch.fill_cost(("tile", 256, 1), M, N, 132) == pytest.approx(
        dispatch.FILL_PRICE_TILE * dispatch.fill_cost(("tile", 256, 1), M, N, 132, priced=False))


@pytest.mark.parametrize("N,K,M,with_cg3,without", [
    # one H200, 2026-12-01 sixth session, call 4: random shapes cta_group 3 was not seen at
    # (torch.mm / ours, worse of warm and cold): the rule with it against the rule without it
    (12416, 7936, 214, ("swapab", 112, 3), ("swapab", 112, 2)),    # 1.04x against 0.76x
    (12672, 10752, 237, ("swapab", 128, 3), ("swapab", 128, 2)),   # 1.00x against 0.77x
    (11520, 5568, 161, ("swapab", 96, 3), ("swapab", 192, 2)),     # 0.92x against 0.78x
    (11776, 7680, 354, ("swapab", 192, 3), ("swapab", 96, 2)),     # 0.94x against 0.90x
    (12544, 1664, 387, ("swapab", 112, 3), ("swapab", 112, 2)),    # 0.91x against 0.92x
    # ... and call 3 (seen): N 5888 K 13312 M 425, cuBLAS's 192 x 112 (0.92x against 0.78x)
    (5888, 13312, 425, ("swapab", 112, 3), ("swapab", 96, 2)),
])
def test_fill_rule_with_the_192_row_w_tile(N, K, M, with_cg3, without):
    slots = {2: 66, 4: 30}
    assert dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512, K=K, cluster_slots=slots) == with_cg3
    assert dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512, K=K, cluster_slots=slots,
                                        cta_groups=(1, 2), widths=contract.tile_widths(N)) == without
    # its work units: ceil(N / 192) W tiles (the last one partial) x token tiles
    bt = with_cg3[1]
    v = Variant("sm_90a", "none", None, bt, 3, None, schedule="swapab")
    assert dispatch.launch_grid(v, {}, 1, M, N, 132) == min(132, -(-N // 192) * -(-M // bt))
    assert contract.swapab_w_rows(3) == 192 and contract.swapab_wide(3)


@pytest.mark.parametrize("N,K,M,busiest,first", [
    # one H200, 2026-12-01 seventh session (torch.mm / ours, worse of warm and cold): wide
    # options the model prices the same; the one with 1.1x the busy SMs or more (call 6, held
    # out: 1.00x-1.13x, geomean 1.06x)
    (9728, 8320, 118, ("swapab", 64, 3), ("swapab", 128, 2)),    # 102 CTAs against 76: 0.94x / 0.86x
    (4352, 5248, 393, ("swapab", 80, 3), ("swapab", 144, 2)),    # 115 against 102: 1.07x / 0.95x
    (5888, 5056, 234, ("swapab", 64, 3), ("swapab", 128, 2)),    # 124 against 92: 1.13x / 1.02x
    # ...not within 10% (call 5: 0.96x-0.99x), nor against cta_group 1 (call 5: 0.95x-0.99x)
    (8320, 6528, 389, ("swapab", 208, 2), ("swapab", 208, 2)),   # 132 against 130 CTAs
    (7168, 11008, 412, ("swapab", 208, 2), ("swapab", 208, 2)),
    (4224, 14336, 94, ("swapab", 96, 1), ("swapab", 96, 1)),     # cta_group 1 (66 CTAs) first
])
def test_fill_rule_tie_break(N, K, M, busiest, first):
    slots = {2: 66, 4: 30}
    got = dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512, K=K, cluster_slots=slots)
    old = dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512, K=K, cluster_slots=slots,
                                       busiest=False)
    assert (got, old) == (busiest, first)
    assert dispatch.fill_cost(got, M, N, 132) == dispatch.fill_cost(old, M, N, 132)
    if got != old:
        assert (dispatch.fill_busy(got, M, N, 132)
                >= dispatch.FILL_BUSY_MARGIN * dispatch.fill_busy(old, M, N, 132))


def test_cta_group_3_exists_for_mode_none_on_sm90a_only():
    assert contract.swapab_cta_groups("sm_90a", "none") == (1, 2, 3)
    assert contract.swapab_cta_groups("sm_90a", "rs") == (1, 2)
    assert contract.swapab_cta_groups("sm_100a", "none") == (1,)
    assert contract.swapab_cta_group_bns("sm_90a", "none", 3) == contract.SWAPAB_CG3_BNS
    assert not contract.decode_kernel_exists("sm_90a", "ar", 64, 3)
    assert not contract.decode_kernel_exists("sm_90a", "none", 256, 3)
    assert contract.implied_schedule(None, 3) == "swapab"
    # a fixed cta_group 3 without a token tile takes its own token tiles only
    assert dispatch.swapab_default_token_tile(400, "none", None, "sm_90a", 3) == 192
    assert dispatch.swapab_default_token_tile(100, "none", None, "sm_90a", 3) == 112
    assert dispatch.swapab_default_token_tile(10, "none", None, "sm_90a", 3) == 64
    with pytest.raises(SpecError, match="cta_group=3"):
        Variant("sm_90a", "rs", "unicast", 64, 3, 2, schedule="swapab")


def test_fused_fill_rule_only_where_the_default_leaves_sms_idle():
    """rs/ar without a table: the default decode kernel (N / 64 CTAs) where it keeps 75% of the
    budget busy in one wave (N 7168 at 132 SMs: what two H200s measured); else the cheapest of
    it and the mode's wide kernels under the wave-fill model (the exchange spreads over the
    same CTAs)."""
    for mode in ("rs", "ar"):
        for M in (1, 16, 100, 128, 256, 300, 512):
            assert dispatch.choose_fused_by_fill(M, 7168, mode, "sm_90a", 132, 512) is None
        # N 4096: 64 CTAs of 132
        assert dispatch.choose_fused_by_fill(256, 4096, mode, "sm_90a", 132, 512) == ("swapab", 64, 2)
        assert dispatch.choose_fused_by_fill(512, 4096, mode, "sm_90a", 132, 512) == ("swapab", 128, 2)
        # few tokens: the default streams fewer rows per CTA and every W tile has its CTA
        assert dispatch.choose_fused_by_fill(16, 4096, mode, "sm_90a", 132, 512) == ("swapab", 16, 1)
        # two virtual ranks of one H200 (66 SMs each): N 4096 keeps 64 of 66 busy
        assert dispatch.choose_fused_by_fill(256, 4096, mode, "sm_90a", 66, 512) is None
        assert dispatch.choose_fused_by_fill(256, 2048, mode, "sm_90a", 66, 512) == ("swapab", 64, 2)
        # no wide kernel (sm_100a), the tile schedule's M, fewer landing rows: the rules decide
        assert dispatch.choose_fused_by_fill(256, 4096, mode, "sm_100a", 148, 512) is None
        assert dispatch.choose_fused_by_fill(600, 4096, mode, "sm_90a", 132, 1024) is None
        assert dispatch.choose_fused_by_fill(256, 4096, mode, "sm_90a", 132, 128) is None
    assert dispatch.choose_fused_by_fill(256, 4096, "none", "sm_90a", 132, 512) is None
    # every choice is a kernel the mode has
    for N in range(128, 6400, 128):
        for M in range(1, 513, 7):
            c = dispatch.choose_fused_by_fill(M, N, "rs", "sm_90a", 132, 512)
            if c is not None:
                assert contract.decode_kernel_exists("sm_90a", "rs", c[1], c[2]), (N, M, c)


@pytest.mark.parametrize("N,M,budget,pick", [
    # twenty-second session, two virtual ranks of one H200 (66 SMs each), the measured best
    # candidate of call 1 (every candidate timed; docs/results/2026-12-02_h200_twentysecond):
    # the default (cta_group 1, a second wave of W tiles) ran 0.52-0.91 of these
    (5120, 48, 66, ("swapab", 64, 2)),
    (7040, 160, 66, ("swapab", 160, 2)),
    (8192, 320, 66, ("swapab", 160, 2)),
    (5248, 320, 66, ("swapab", 128, 2)),
    # held out (call 2, four virtual ranks: 33 SMs each)
    (3840, 96, 33, ("swapab", 128, 2)),
    (7040, 16, 33, ("swapab", 16, 2)),
    # past one wave from M 200 the tile schedule too (call 3, the measured best: 1.2x-2.5x the
    # decode kernel the rule took before)
    (7296, 384, 33, ("tile", 192, 2)),
    (12672, 512, 66, ("tile", 192, 2)),
    (4352, 512, 16, ("tile", 256, 2)),
])
def test_fused_fill_rule_past_one_wave(N, M, budget, pick):
    """Where the default decode kernel needs more than one wave of the budget (N / 64 > its
    CTAs), the wave-fill rule decides at rs/ar's own decode prices (FUSED_FILL_PRICE_DECODE)."""
    assert N // dispatch.SWAPAB_BM > budget
    for mode in ("rs", "ar"):
        assert dispatch.choose_fused_by_fill(M, N, mode, "sm_90a", budget, 512) == pick


@pytest.mark.parametrize("N,M,budget,tp,pick", [
    # twenty-third session call 1 (two virtual ranks, 66 SMs each, N / 64 between one and two
    # waves): the tile schedule the one-wave clause took ran 0.78-0.93 of the best in AR; the
    # wide decode kernels were the best or within 4% (docs/results/2026-12-02_h200_twentythird)
    (5120, 448, 66, 2, ("swapab", 160, 2)),
    (8192, 448, 66, 2, ("swapab", 160, 2)),
    # past two waves at two ranks the tile schedule stays (call 3 of the twenty-second session)
    (12672, 384, 66, 2, ("tile", 192, 2)),
    # at four ranks from one wave (twenty-third call 1: the tile schedule was the best, the
    # wide decode kernel 0.76-0.85 of it)
    (8192, 448, 33, 4, ("tile", 256, 2)),
    (5120, 256, 33, 4, ("tile", 160, 2)),
])
def test_fused_fill_tile_clause_per_tp(N, M, budget, tp, pick):
    """The tile schedule's clause starts past FUSED_FILL_TILE_MIN_WAVES of the default per TP:
    two waves at two ranks, one elsewhere (and one without a TP)."""
    assert dispatch.choose_fused_by_fill(M, N, "ar", "sm_90a", budget, 512, tp) == pick
    waves = dispatch.FUSED_FILL_TILE_MIN_WAVES.get(tp, 1)
    for N2 in range(128, 20000, 128):
        for M2 in (200, 320, 512):
            c = dispatch.choose_fused_by_fill(M2, N2, "rs", "sm_90a", budget, 512, tp)
            if c is not None and c[0] == "tile":
                assert N2 // dispatch.SWAPAB_BM > waves * budget, (N2, M2, c)


def test_fused_fill_rule_bounds():
    """The rule stays out exactly where one wave of the default keeps 75% of the budget busy
    (what two H200s measured at N 7168), and weighs every N past one wave, at any M the decode
    schedule serves; its picks are kernels the mode has; its prices are rs/ar's own."""
    for budget in (16, 33, 66, 132):
        for N in range(128, 20000, 128):
            tiles = N // dispatch.SWAPAB_BM
            stays = dispatch.FUSED_FILL_MAX_SHARE * budget <= tiles <= budget
            for M in (1, 16, 64, 200, 512):
                c = dispatch.choose_fused_by_fill(M, N, "ar", "sm_90a", budget, 512)
                assert (c is None) == stays, (N, M, budget, c)
                if c is not None and c[0] == "swapab":
                    assert contract.decode_kernel_exists("sm_90a", "ar", c[1], c[2]), (N, M, c)
                elif c is not None:
                    assert contract.tile_fits_n(N, c[1], "sm_90a", "ar"), (N, M, c)
    # rows >= 320 per k-step: mode none's 1.25 / 1.4, rs/ar's 1.15
    opt = ("swapab", 256, 2)
    none_cost = dispatch.fill_cost(opt, 256, 8192, 66)
    fused_cost = dispatch.fill_cost(opt, 256, 8192, 66,
                                    decode_prices=dispatch.FUSED_FILL_PRICE_DECODE)
    assert fused_cost == pytest.approx(none_cost * 1.15 / 1.4)
    # with mode none's prices the fused rule took two token tiles of 128 at M 256 (measured
    # 0.86-0.91 of one of 256 at N 13696 / 4992, call 2)
    assert dispatch.choose_fused_by_fill(256, 13696, "rs", "sm_90a", 66, 512) == ("swapab", 256, 2)
    # the tile schedule only past one wave and from FUSED_FILL_TILE_MIN_M: where the default
    # leaves SMs idle it lost (N 1152 / 1664 at 66 SMs, call 3: 0.64-0.87 of the decode kernel)
    for M in (200, 300, 512):
        assert dispatch.choose_fused_by_fill(M, 1152, "ar", "sm_90a", 66, 512)[0] == "swapab"
        assert dispatch.choose_fused_by_fill(M, 1664, "rs", "sm_90a", 66, 512)[0] == "swapab"
    assert dispatch.choose_fused_by_fill(dispatch.FUSED_FILL_TILE_MIN_M - 1, 12672, "ar",
                                         "sm_90a", 66, 512)[0] == "swapab"
    for budget in (16, 33, 66, 132):
        for N in range(128, 20000, 384):
            for M in (1, 100, 199, 200, 384, 512):
                c = dispatch.choose_fused_by_fill(M, N, "rs", "sm_90a", budget, 512)
                if c is not None and c[0] == "tile":
                    assert M >= dispatch.FUSED_FILL_TILE_MIN_M and N // 64 > budget
                    assert N % c[1] == 0 and c[2] == 2, (N, M, budget, c)


@pytest.mark.parametrize("N,K,M,pick,before", [
    # one H200, 2026-12-01 eleventh session (BENCHMARKS.md), torch.mm / ours, worse of warm and
    # cold: the tile widths 160 / 192 (mode none, sm_90a) against the rules without them
    (5120, 13824, 512, ("tile", 160, 2), ("swapab", 192, 2)),     # 1.05x against 0.87x
    (5120, 2560, 1024, ("tile", 160, 2), ("tile", 128, 2)),       # 1.00x against 0.80x
    (3072, 8192, 1024, ("tile", 192, 2), ("tile", 256, 2)),       # 0.99x against 0.72x (call 2)
    # 1.03x against 0.91x with cta_group 1; since the twenty-fourth session the fill rule weighs
    # both cta_groups on aligned rows and a tie at two row tiles keeps 2 (call 2: within 2% of 1
    # at four such points)
    (10240, 2048, 256, ("tile", 160, 2), ("swapab", 128, 3)),
    (5760, 3672, 1447, ("tile", 192, 2), ("tile", 128, 2)),       # 0.95x against 0.77x (held out)
    (5120, 640, 4096, ("tile", 256, 2), ("tile", 256, 2)),        # unchanged
])
def test_extra_tile_widths_in_the_rules(N, K, M, pick, before):
    slots = {2: 66, 4: 30}

    def rule(**kw):
        by_fill = dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512, K=K, cluster_slots=slots,
                                               **kw)
        if by_fill is not None:
            return by_fill
        cg = dispatch.choose_cta_group(M)
        arch = None if "widths" in kw else "sm_90a"    # (choose_bn without arch: BNS)
        return "tile", dispatch.choose_bn(M, N, None, 132, cg, "none", arch=arch), cg

    assert rule() == pick
    assert rule(widths=contract.tile_widths(N)) == before
    # rs/ar weigh the extra widths where they divide N as mode none's wave rule does (since the
    # fourteenth session; every N here is a multiple of 128 too); sm_100a has BNS only
    for mode in ("rs", "ar"):
        bn = dispatch.choose_bn(M, N, None, 132, 2, mode, arch="sm_90a")
        assert N % bn == 0
        if M > contract.SWAPAB_MAX_ROWS:
            assert bn == dispatch.choose_bn(M, N, None, 132, 2, "none", arch="sm_90a")
    assert dispatch.choose_bn(M, N, None, 132, 2, "none", arch="sm_100a") in contract.BNS
    for mode in ("none", "rs", "ar"):
        assert contract.tile_bns("sm_90a", mode) == (128, 160, 192, 224, 256)
    assert contract.tile_bns("sm_100a", "none") == contract.tile_bns("sm_100a", "rs") == contract.BNS


@pytest.mark.parametrize("mode", ["rs", "ar"])
def test_fused_extra_widths(mode):
    # N 2880 (gpt-oss): 160 / 192 are the only tile widths, so past the decode rows rs/ar run
    # them (the op used to refuse M > its landing rows there); where only BNS divides N (7168)
    # the rule is the one measured across two GPUs; where both do, the wave rule over every
    # dividing width (fourteenth session, two virtual ranks)
    for M in (513, 1000, 1024, 4096, 16384, 32768):
        for cg in (1, 2):
            assert dispatch.choose_bn(M, 2880, None, 132, cg, mode, arch="sm_90a") in (160, 192)
            for N in (3072, 5120, 5760, 6144, 10240):
                assert N % dispatch.choose_bn(M, N, None, 132, cg, mode, arch="sm_90a") == 0
            for N in (7168, 4096, 2048 + 1024 + 512):
                assert dispatch.choose_bn(M, N, None, 132, cg, mode, arch="sm_90a") in contract.BNS
                assert (dispatch.choose_bn(M, N, None, 132, cg, mode, arch="sm_90a")
                        == dispatch.choose_bn(M, N, None, 132, cg, mode, arch=None))
    # the picks of points timed on two virtual ranks (sm_budget 66, cluster 2; BENCHMARKS.md),
    # where the BNS rule lost 3-14%
    picks = {(N, M): dispatch.choose_bn(M, N, None, 66, 2, mode, arch="sm_90a")
             for N, M in ((4608, 1024), (4608, 2048), (6144, 600), (2560, 1024), (7680, 2048),
                          (3072, 1024))}
    assert picks == {(4608, 1024): 192, (4608, 2048): 192, (6144, 600): 192, (2560, 1024): 160,
                     (7680, 2048): 192, (3072, 1024): 192}
    # no SM budget known: the BNS rule
    assert dispatch.choose_bn(4096, 4608, None, None, 2, mode, arch="sm_90a") == 256
    # ...the widest of them at every M and SM budget where only they divide N (192 beat or tied
    # 160 at all 16 points on two virtual ranks, also at M 4096 where 160 has fewer waves)
    for M, ctas in ((513, 132), (600, 132), (4096, 132), (4096, 66), (4096, None), (32768, 7)):
        assert dispatch.choose_bn(M, 2880, None, ctas, 2, mode, arch="sm_90a") == 192
    assert dispatch.choose_bn(4096, 1600, None, 132, 2, mode, arch="sm_90a") == 160  # 10 x 160
    assert dispatch.choose_bn(4096, 2880, 160, None, 2, mode, arch="sm_90a") == 160
    # mode none keeps its wave price over 160 / 192
    assert dispatch.choose_bn(4096, 2880, None, 66, 2, "none", arch="sm_90a") == 160


def test_tuning_candidates_weigh_the_extra_widths():
    from codegen.runtime import tuning
    none = {c for c in tuning.candidates(1024, 5760, "sm_90a", "none") if c[0] == "tile"}
    # 5760 = 45 x 128 = 36 x 160 = 30 x 192, and mode none's sweep weighs 224 / 256 reaching
    # past N too, as its dispatch does (seventeenth session); sm_100a: the dividing widths only
    assert {bn for _, bn, _ in none} == {128, 160, 192, 224, 256}
    none = {c for c in tuning.candidates(1024, 5760, "sm_100a", "none") if c[0] == "tile"}
    assert {bn for _, bn, _ in none} == {128}
    # rs/ar measure them too (a table may pick them; the rule weighs them where BNS does not
    # divide N); sm_100a has none
    rs = {c for c in tuning.candidates(1024, 5760, "sm_90a", "rs") if c[0] == "tile"}
    assert {bn for _, bn, _ in rs} == {128, 160, 192}
    rs = {c for c in tuning.candidates(1024, 5760, "sm_100a", "rs") if c[0] == "tile"}
    assert {bn for _, bn, _ in rs} == {128}


@pytest.mark.parametrize("N,M,want", [
    # one H200, seventeenth session (call 8, K 4096; the fastest width measured in brackets):
    # a width dividing N left the waves short where one reaching past N fills them
    (3264, 1024, 224),    # 192 divides: 0.65x torch.mm; 224 1.12x
    (1728, 768, 128),     # 192: 0.60x; 128 (14 tiles, the last past N) 0.84x
    (1728, 2048, 224),    # 192: 0.58x; 224 0.98x
    (2944, 768, 160),     # 128: 0.60x; 160 0.92x
    (2432, 1024, 160),    # 128: 0.68x; 160 1.02x
    (4160, 768, 192),     # 160: 0.62x; 192 0.99x
    (3328, 768, 160),     # 256: 0.65x; 160 0.96x
    (1600, 2048, 224),    # 160: 0.68x; 224 0.98x
    (4416, 2048, 192),    # the dividing width is the wave rule's pick too (0.98x)
    (2432, 768, 128),
])
def test_mode_none_tile_width_weighs_widths_past_n(N, M, want):
    """Mode none past the decode rows on sm_90a (its tile kernels reach past N): the wave rule
    over every width, not only those dividing N (dispatch.choose_bn; held out at 8 random shapes:
    the 18 points it moved 1.01x-1.37x faster). sm_100a (tiles never past N) and rs/ar keep the
    dividing widths."""
    assert dispatch.choose_bn(M, N, ctas=132, cluster=2, mode="none", arch="sm_90a") == want
    for arch, mode in (("sm_100a", "none"), ("sm_90a", "rs")):
        if N % contract.n_multiple(arch, mode):
            continue   # (an N the arch's kernels do not serve)
        got = dispatch.choose_bn(M, N, ctas=132, cluster=2, mode=mode, arch=arch)
        assert N % got == 0, (arch, mode, got)
    # no budget known, or below the wide widths' rows: the dividing defaults as before
    assert N % dispatch.choose_bn(M, N, mode="none", arch="sm_90a") == 0
    assert N % dispatch.choose_bn(300, N, ctas=132, cluster=2, mode="none", arch="sm_90a") == 0


@pytest.mark.parametrize("N,M,aligned,want", [
    # one H200, eighteenth session (calls 2-3 fit, call 4 held out; torch.mm / ours, worse of
    # warm and cold; K mostly no multiple of 64, so rows off the 128-byte lines): an odd count
    # of 128-row tiles that a pair rounds up into a second wave
    (5712, 640, False, (224, 1)),    # (160, 2): 0.74x; (224, 1) 0.99x
    (6504, 571, False, (256, 1)),    # (160, 2): 0.70x; (256, 1) 0.90x
    (13056, 632, False, (256, 1)),   # (160, 2): 0.77x; (256, 1) 0.98x
    (4264, 792, False, (256, 1)),    # (160, 2): 0.73x; (256, 1) 0.92x
    (6632, 580, False, (256, 1)),    # held out: (160, 2) 0.74x; (256, 1) 0.94x
    (3544, 1088, False, (256, 1)),   # held out: (160, 2) 0.76x; (256, 1) 0.96x
    # a pair's wave as full as the single CTAs', or nearly: cta_group 2 as before
    (7664, 595, False, (192, 2)),    # (160, 1) measured 0.59x against (192, 2) 0.77x
    (8544, 640, False, (224, 2)),
    (7168, 4096, False, (160, 2)),
    (7168, 768, False, (192, 2)),
    (7168, 4096, True, (160, 2)),
    (7168, 768, True, (192, 2)),
    # twentieth session, call 4 (rows on the lines: K 5248 / 1984 / 16000): cta_group 1 at 1.1x
    (7856, 640, True, (160, 1)),     # (192, 2): 0.83x; (160, 1) 0.99x
    (12304, 576, True, (160, 1)),    # (192, 2): 0.79x; (160, 1) 0.97x
    (9000, 896, True, (256, 1)),     # (192, 2): 0.89x; (256, 1) 1.05x
    (2552, 640, True, (128, 2)),     # (128, 2) 0.90x, the best tile was (128, 1) 0.92x
])
def test_mode_none_tile_cta_group_with_its_width(N, M, aligned, want):
    """Mode none's tile schedule past the decode rows on sm_90a: width and cta_group by the wave
    rule together (dispatch.choose_tile), cta_group 1 only where it costs TILE_CG1_PRICE x less
    (TILE_CG1_PRICE_ALIGNED where the rows are 128-byte lines); cta_group 2 with choose_bn's
    width otherwise, and everywhere for rs / ar, sm_100a, a fixed width or cta_group, or no
    known budget."""
    assert dispatch.choose_tile(M, N, ctas=132, mode="none", arch="sm_90a",
                                aligned=aligned) == want
    pair = (dispatch.choose_bn(M, N, ctas=132, cluster=2, mode="none", arch="sm_90a"), 2)
    if want[1] == 1:
        price = dispatch.TILE_CG1_PRICE_ALIGNED if aligned else dispatch.TILE_CG1_PRICE
        single = dispatch.wave_cost(M, N, want[0], 1, 132) * price
        assert single < dispatch.wave_cost(M, N, pair[0], 2, 132)
    else:
        assert want == pair
    for kw in (dict(mode="rs", arch="sm_90a", ctas=132), dict(mode="none", arch="sm_100a", ctas=132),
               dict(mode="none", arch="sm_90a", ctas=None),
               dict(mode="none", arch="sm_90a", ctas=132, fixed_cg=2)):
        assert dispatch.choose_tile(M, N, **kw)[1] == 2, kw
    assert dispatch.choose_tile(M, N, fixed_cg=1, ctas=132, mode="none", arch="sm_90a")[1] == 1
    assert dispatch.choose_tile(M, N, fixed_bn=128, ctas=132, mode="none",
                                arch="sm_90a") == (128, 2)


def test_mode_none_tile_cta_group_in_the_op():
    """The op's choice without a table takes choose_tile's (width, cta_group) past the decode
    rows (no GPU: budget given)."""
    from codegen.runtime import GemmRsAr
    op = GemmRsAr(1024, 5712, 4096, "none", arch="sm_90a", sm_budget=132)
    assert op.choice(640) == ("tile", 224, 1)
    assert op.choice(768)[2] == 2


def test_rows_aligned():
    assert dispatch.rows_aligned(2304) and dispatch.rows_aligned(64)
    assert not dispatch.rows_aligned(2360) and not dispatch.rows_aligned(3696)
    assert not dispatch.rows_aligned(8)


@pytest.mark.parametrize("N,K,M,want", [
    # one H200, eighteenth session (torch.mm / ours, worse of warm and cold)
    (7168, 2360, 160, ("tile", 128, 2)),     # call 4: swapab80c2 0.66x, tile128c2 0.77x
    (7232, 2360, 160, ("tile", 128, 2)),     # call 4: swapab80c2 0.70x, tile128c2 0.82x
    (13664, 12936, 217, ("tile", 224, 2)),   # call 3: tile224c1 0.75x, tile224c2 0.95x
    (8840, 10328, 166, ("tile", 160, 2)),    # call 3: swapab96c3 0.79x, tile160c2 1.06x
    (7168, 2304, 160, ("swapab", 80, 2)),    # aligned rows: the model as before (0.98x)
])
def test_fill_rule_where_rows_are_not_128_byte_lines(N, K, M, want):
    """At a K whose bf16 rows are not whole 128-byte lines the decode kernels' TMA loads cost
    ~1.9x (warm), the tile kernel's ~1.1x: the fill rule prices the decode kernels
    FILL_PRICE_UNALIGNED_DECODE more and weighs the tile schedule at every serving width and both
    cta_groups (dispatch.fill_options / fill_cost with K)."""
    slots = {2: 66, 4: 30}
    assert dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512, K=K,
                                        cluster_slots=slots) == want


#: choose_none_by_fill at K 4096 (budget 132, the H200's cluster slots) as 320220c computed it
BEFORE_18 = {
    (2880, 16): ("splitk", 16, 2), (2880, 100): ("splitk", 128, 2), (2880, 160): ("swapab", 32, 2),
    (2880, 256): ("swapab", 64, 2), (2880, 320): ("swapab", 64, 2), (2880, 448): ("swapab", 96, 2),
    (2880, 512): ("swapab", 112, 2), (4096, 16): ("splitk", 16, 2), (4096, 100): ("splitk", 128, 2),
    (4096, 160): ("swapab", 64, 2), (4096, 256): ("swapab", 64, 2), (4096, 320): ("swapab", 80, 2),
    (4096, 448): ("swapab", 112, 2), (4096, 512): ("swapab", 128, 2),
    (7168, 16): ("swapab", 16, 1), (7168, 100): ("swapab", 112, 1), (7168, 160): ("swapab", 80, 2),
    (7168, 256): ("swapab", 128, 2), (7168, 320): ("swapab", 160, 2), (7168, 448): ("tile", 224, 2),
    (7168, 512): ("tile", 224, 2), (12288, 16): ("swapab", 16, 2), (12288, 100): ("swapab", 112, 2),
    (12288, 160): ("swapab", 80, 3), (12288, 256): ("swapab", 128, 3),
    (12288, 320): ("swapab", 160, 3), (12288, 448): ("swapab", 112, 3),
    (12288, 512): ("swapab", 128, 2)}


@pytest.mark.parametrize("N", [1024, 2880, 4096, 5760, 7168, 8000, 12288])
def test_fill_rule_unchanged_where_rows_are_aligned(N):
    """Where x's and W's rows are whole 128-byte lines the fill rule is the one fitted before
    the eighteenth session (its choices at an aligned K pinned as 320220c made them; aligned=True
    at a ragged K the same); where not, every option is a kernel the build has for N
    (contract.choice_fits_n, tuning.candidates)."""
    from codegen.runtime.tuning import candidates

    slots = {2: 66, 4: 30}
    for M in (1, 16, 100, 160, 256, 320, 448, 512):
        base = dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512, K=4096, cluster_slots=slots)
        if (N, M) in BEFORE_18:   # as 320220c (before the eighteenth session) chose
            assert base == BEFORE_18[N, M]
        assert dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512, K=4100, cluster_slots=slots,
                                            aligned=True) == base
        built = set(candidates(M, N, "sm_90a", "none", K=4100))
        for o in dispatch.fill_options(M, N, "sm_90a", unaligned=True):
            assert contract.choice_fits_n(N, *o, "sm_90a", "none"), (N, M, o)
            assert o in built, (N, M, o)   # the tuning sweep's candidates: kernels built


def test_op_weighs_the_calls_row_strides():
    """The op's choice in mode none follows the call's row strides, not K alone: a ragged K
    with x and W in 128-byte-row buffers (the README's advice) keeps the aligned rule; the
    plans are keyed by it, and prepare() loads both."""
    from codegen.runtime import GemmRsAr

    op = GemmRsAr(512, 7168, 2360, "none", arch="sm_90a", sm_budget=132)
    assert op.choice(160) == ("tile", 128, 2)                  # contiguous rows: unaligned
    assert op.choice(160, aligned=True) == ("swapab", 80, 2)   # padded rows
    assert op.choice(160, aligned=False) == op.choice(160)
    op = GemmRsAr(512, 7168, 2304, "none", arch="sm_90a", sm_budget=132)
    assert op.choice(160) == op.choice(160, aligned=True) == ("swapab", 80, 2)
    assert op.choice(160, aligned=False) == ("tile", 128, 2)   # e.g. x[:, :2304] of [M, 2312]


def test_wave_rule_counts_the_clusters_a_grid_holds():
    """An odd CTA budget holds one pair less than its CTAs suggest (grid_size rounds the grid to
    whole clusters): the wave rule counts the pairs, so cta_group 2 is not credited an SM it
    cannot use (N 9224 M 769 at 131 CTAs: (192, 2) is 392 tiles over 130 CTAs, 4 waves)."""
    assert dispatch.wave_cost(769, 9224, 192, 2, 131) == dispatch.wave_cost(769, 9224, 192, 2, 130)
    assert dispatch.choose_tile(769, 9224, ctas=131, mode="none", arch="sm_90a") == \
        dispatch.choose_tile(769, 9224, ctas=130, mode="none", arch="sm_90a")
    assert dispatch.grid_size(769, 9224, 192, 2, 131) == 130

