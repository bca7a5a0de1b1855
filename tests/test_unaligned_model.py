"""Mode none's L2-traffic model where x's or W's rows are off the 128-byte lines
(dispatch.choose_none_unaligned, twentieth session): where it acts, what it weighs, that every
pick serves the call, and the picks one H200 measured (BENCHMARKS.md, twentieth session)."""
import pytest

from codegen import contract
from codegen.runtime import GemmRsAr, dispatch

H200 = {2: 66, 4: 30}   # clusters of 2 / 4 an H200 holds at once (splitk / splitkw / swapabx)


def fill(M, N, K, budget=132, slots=H200, aligned=None, **kw):
    return dispatch.choose_none_by_fill(M, N, "sm_90a", budget, 512, K=K, cluster_slots=slots,
                                        xcast_slots=slots, splitkw_slots=slots, aligned=aligned,
                                        **kw)


@pytest.mark.parametrize("N,K,M,before,want", [
    # fit set (share of the best candidate before -> with the model)
    (13056, 7008, 312, ("tile", 224, 2), ("swapab", 160, 2)),     # 0.72 -> 1.0
    (6744, 16272, 300, ("tile", 224, 2), ("swapab", 160, 2)),     # 0.71 -> 0.98
    (2976, 16160, 200, ("tile", 128, 2), ("splitkw", 128, 2)),    # 0.66 -> 1.0
    # 0.77 -> 1.0 with splitkw128c2; twenty-ninth session: splitkw96c2, 1.026x over it
    (6416, 12120, 64, ("swapab", 32, 2), ("splitkw", 96, 2)),
    (1128, 6632, 408, ("tile", 128, 2), ("splitkw", 128, 2)),     # 0.69 -> 1.0
    # held out (call 3, every candidate timed): 0.68 -> 0.91, 0.79 -> 0.91
    (5152, 15696, 120, ("tile", 128, 2), ("splitkw", 128, 2)),
    (1944, 6376, 380, ("tile", 128, 2), ("splitkw", 128, 2)),
])
def test_measured_picks(N, K, M, before, want, monkeypatch):
    assert K % 64
    assert fill(M, N, K) == want
    monkeypatch.setattr(dispatch, "UNALIGNED_MODEL", False)
    assert fill(M, N, K) == before


@pytest.mark.parametrize("N", [256, 704, 1000, 2880, 4096, 5120, 7168, 9000, 13056, 16384])
@pytest.mark.parametrize("K", [520, 2360, 3696, 9416, 16272])
@pytest.mark.parametrize("budget", [132, 131, 40, 8])
def test_every_pick_serves_the_call(N, K, budget):
    """Over N (multiples of 8, of 64 and not), K off the lines and SM budgets (odd, small): the
    model's pick is a kernel the arch builds, which serves N, K and M, never a schedule it does
    not weigh (splitk only through choose_splitk, swapabx only through choose_swapabx), never a
    cluster size the device holds none of, and never the decode schedules past land_rows."""
    for M in (1, 7, 16, 33, 64, 100, 128, 129, 200, 256, 257, 300, 384, 385, 448, 449, 512):
        got = fill(M, N, K, budget)
        if got is None:   # a tile pick past two token tiles at an N no multiple of 64: the rules
            assert N % 64 and M > dispatch.SWAPAB_DEFAULT_MAX_M_TWO_TILES
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(dispatch, "FILL_RAGGED_TILE_TO_RULES", False)
                assert fill(M, N, K, budget)[0] == "tile"
            continue
        schedule, bn, cg = got
        assert contract.choice_fits_n(N, schedule, bn, cg, "sm_90a", "none"), got
        assert bn in contract.schedule_bns("sm_90a", "none", schedule), got
        if schedule in contract.CLUSTER_SCHEDULES:
            assert cg in H200 and cg <= budget, got
            assert K >= contract.splitk_min_k(cg) or schedule == "swapabx", got
        if schedule == "splitk":
            assert got == dispatch.choose_splitk(M, N, K, "sm_90a", budget, H200)
        if schedule == "swapabx":
            assert got == dispatch.choose_swapabx(M, N, budget, H200, True)
        if schedule == "splitkw":
            assert dispatch.k_tiles_of(K) >= dispatch.SPLITKW_MIN_K_TILES[cg]
        if schedule == "swapab":
            assert M <= contract.SWAPAB_MAX_ROWS
            assert dispatch.decode_kernel_exists("sm_90a", "none", bn, cg)


def test_acts_only_off_the_lines(monkeypatch):
    """Rows on the lines (K a multiple of 64, or `aligned` given) keep the rule before; without
    splitkw slots no splitkw; without K no model."""
    for N in (2048, 4096, 7168, 12288):
        for M in (16, 64, 160, 300, 448):
            on = fill(M, N, 4096)
            forced = fill(M, N, 4104, aligned=True)
            monkeypatch.setattr(dispatch, "UNALIGNED_MODEL", False)
            assert fill(M, N, 4096) == on
            assert fill(M, N, 4104, aligned=True) == forced
            monkeypatch.undo()
            assert fill(M, N, 4104, aligned=False) == fill(M, N, 4104)
            nokw = dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512, K=16264,
                                                cluster_slots=H200, xcast_slots=H200)
            assert nokw is None or nokw[0] != "splitkw"
            nok = dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512, aligned=False)
            assert nok is None or nok[0] in ("swapab", "tile")


def test_cost_model_pieces(monkeypatch):
    """What the model counts: W read once per token tile from L2 (two token tiles of 32 read it
    twice: by L2 traffic one of 64 is cheaper, by the busiest CTA's rows the 32s); a split divides
    the k-steps between a cluster's CTAs; an option it has no model of is an error, not a
    guess."""
    cost = dispatch.unaligned_cost
    monkeypatch.setattr(dispatch, "UNALIGNED_L2_SHARE", 100.0)
    assert cost(("swapab", 64, 2), 64, 7008, 4184, 132) < cost(("swapab", 32, 2), 64, 7008, 4184, 132)
    monkeypatch.setattr(dispatch, "UNALIGNED_L2_SHARE", 0.0)
    assert cost(("swapab", 64, 2), 64, 7008, 4184, 132) > cost(("swapab", 32, 2), 64, 7008, 4184, 132)
    monkeypatch.undo()
    # a K split in clusters of 4 does a quarter of the k-steps per CTA (more clusters than fit:
    # more waves)
    one = cost(("splitkw", 128, 2), 128, 1024, 16384, 132, H200)
    assert cost(("splitkw", 128, 4), 128, 1024, 16384, 132, H200) < one
    # no clusters loadable: never one wave
    assert cost(("splitkw", 128, 2), 128, 1024, 16384, 132, {}) > one
    with pytest.raises(ValueError, match="no model of schedule 'splitk'"):
        cost(("splitk", 64, 2), 64, 4096, 4104, 132, H200)


def test_the_op_weighs_the_call_layout(monkeypatch):
    """op.choice takes the model for a call whose rows are off the lines (contiguous tensors at
    K % 64 != 0, or a view off them), the rule before for one on them."""
    op = GemmRsAr(4096, 13056, 7008, "none", arch="sm_90a", sm_budget=132)
    op._slots = {s: dict(H200) for s in ("splitk", "splitkw", "swapabx")}
    assert op.choice(312) == ("swapab", 160, 2)
    assert op.choice(312, aligned=False) == ("swapab", 160, 2)
    on_lines = op.choice(312, aligned=True)
    monkeypatch.setattr(dispatch, "UNALIGNED_MODEL", False)
    assert op.choice(312, aligned=True) == on_lines
    assert op.choice(312) != ("swapab", 160, 2)   # (the rule before: tile 224, cta_group 2)


@pytest.mark.parametrize("N,K,M,want", [
    # twenty-first session (every candidate timed; share of the best: choose_splitk's -> now)
    (1144, 16152, 250, ("splitkw", 128, 4)),   # splitk 128 c2 0.69 -> 1.0
    (1192, 6760, 384, ("splitkw", 128, 4)),    # 0.81 -> 1.0
    (1624, 9224, 250, ("splitkw", 128, 4)),    # 0.81 -> 1.0
    # choose_splitk's choice stays first: clusters of 4, clusters of 2 up to M 64 (128 before
    # the twenty-ninth session)
    (976, 15024, 120, ("splitk", 128, 4)),     # 1.0 (the model's pick 0.68)
    (536, 10576, 250, ("splitk", 128, 4)),     # 1.0 (0.74)
    (2976, 16160, 64, ("splitk", 64, 2)),      # 1.0 (0.92)
    # ... past M 64 they yield to splitkw in clusters of 4 (twenty-ninth session, held out in
    # its call 3: 9 of 10 such moves won or tied, 0.998x-1.36x); the loss is pinned too
    (1944, 6376, 120, ("splitkw", 128, 4)),    # 1.36x over splitk128c2
    (3536, 12152, 120, ("splitkw", 128, 4)),   # 1.28x
    (3184, 2672, 120, ("splitkw", 128, 4)),    # 0.887x (lost; short K: 42 k-tiles)
    # ... and past M 128 where the model's pick is not splitkw in clusters of 4 (call 3, held
    # out, torch.mm / ours: splitk -> the model's pick)
    (1936, 4208, 144, ("splitk", 128, 2)),     # 1.03x -> 0.81x (decode kernel)
    (1960, 3480, 200, ("splitk", 128, 2)),     # 0.82x -> 0.70x (splitkw, clusters of 2)
])
def test_splitk_spread_clause_goes_after_the_model(N, K, M, want, monkeypatch):
    assert K % 64
    assert fill(M, N, K) == want
    monkeypatch.setattr(dispatch, "UNALIGNED_SPLITK_FIRST_MAX_M", {2: 512, 4: 512})
    before = fill(M, N, K)
    assert before[0] == "splitk"
    assert (before == want) == (want[0] == "splitk")
    # rows on the lines (or only x's off them): choose_splitk's choice first, as before
    monkeypatch.undo()
    assert fill(M, N, K, aligned=True)[0] == "splitk" or M > 128
    assert fill(M, N, K, weight_aligned=True)[0] in ("splitk", "swapabx") or M > 128


def test_every_deferred_splitk_gets_a_choice():
    """Off the lines past UNALIGNED_SPLITK_FIRST_MAX_M, choose_splitk's choice goes after the
    model; where the model has no option (none serves N) that choice is still taken, so a call
    choose_splitk serves never falls to the fill rule without splitk."""
    for N in range(64, 4200, 136):
        for K in (1000, 2744, 6760, 16152):
            for M in (129, 200, 300, 512):
                split = dispatch.choose_splitk(M, N, K, "sm_90a", 132, H200)
                got = fill(M, N, K)
                if N % 64 and M > dispatch.FILL_RAGGED_MAX_M:
                    assert got is None   # (the fill rule leaves such N there to the rules)
                elif got is None:        # (past two token tiles its tile picks, too)
                    assert N % 64 and M > dispatch.SWAPAB_DEFAULT_MAX_M_TWO_TILES
                elif split is not None:
                    assert got is not None
                    assert contract.choice_fits_n(N, *got, "sm_90a", "none"), (N, K, M, got)


@pytest.mark.parametrize("N,K,M,want", [
    # twenty-seventh session, one H200 (worse of warm and cold, against the rules' pick before):
    # the fill rule at an N no multiple of 64 past M 448 (dispatch.FILL_RAGGED_MAX_M)
    (528, 1152, 480, ("splitk", 128, 2)),     # 1.46x over the rules' tile128c2 (call 2)
    (680, 1408, 512, ("splitk", 128, 2)),     # 1.34x over splitkw128c2 (call 2)
    (1240, 1920, 449, ("swapab", 64, 2)),     # 1.23x over splitkw128c2 (call 2)
    (5400, 2496, 449, ("swapab", 160, 2)),    # 1.13x over tile192c2 (call 2)
    (2920, 1792, 449, ("swapab", 96, 2)),     # 1.22x over tile128c2 (call 3, held out)
    # ... and a tile pick of its own goes back to the rules (FILL_RAGGED_TILE_TO_RULES): its
    # tile192c2 ran 0.87x-0.92x the rules' tile160c2 here (call 2)
    (10288, 3024, 449, None),
])
def test_fill_rule_at_ragged_n_past_two_token_tiles(N, K, M, want):
    assert N % 64 and M > dispatch.SWAPAB_DEFAULT_MAX_M_TWO_TILES
    assert fill(M, N, K) == want
    if want is None:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(dispatch, "FILL_RAGGED_TILE_TO_RULES", False)
            assert fill(M, N, K)[0] == "tile"
        op = GemmRsAr(512, N, K, "none", arch="sm_90a", sm_budget=132, device="cpu")
        op._slots = {s: dict(H200) for s in ("splitk", "splitkw", "swapabx")}
        assert tuple(op.choice(M)) == ("tile", 160, 2)   # the rules' pick


def test_l2_share_by_row_start():
    """The model where rows start on 32-byte sectors (twenty-eighth session): the share
    UNALIGNED_L2_SHARE_SECTOR_ROWS and the row prices x UNALIGNED_SECTOR_ROW_FACTOR where every
    row of K bf16 columns starts on one (K % 16 == 0: 32, 64 or 96 bytes off the lines); the
    share and prices as fitted where every other row starts 16 bytes into one (K % 16 == 8)."""
    for K in (4112, 4128, 4144, 4176, 1168, 2080, 7472, 16336):
        assert K % 16 == 0 and K % 64 and dispatch.sector_rows(K)
        assert dispatch.unaligned_l2_share(K) == dispatch.UNALIGNED_L2_SHARE_SECTOR_ROWS
    for K in (4104, 4120, 1608, 5320, 728, 16376):
        assert not dispatch.sector_rows(K)
        assert dispatch.unaligned_l2_share(K) == dispatch.UNALIGNED_L2_SHARE
    assert dispatch.UNALIGNED_L2_SHARE_SECTOR_ROWS < dispatch.UNALIGNED_L2_SHARE
    assert 0 < dispatch.UNALIGNED_SECTOR_ROW_FACTOR < 1


def test_sector_rows_price_rows_less():
    """On sectors a decode kernel bound by the rows its CTAs receive costs the factor less than
    at 16 bytes off (same N, M; K one k-step apart); at 16 bytes off the model is as before."""
    cost = dispatch.unaligned_cost
    opt = ("swapab", 64, 2)
    on, off = cost(opt, 64, 1024, 4112, 132), cost(opt, 64, 1024, 4104, 132)
    assert on == pytest.approx(off * dispatch.UNALIGNED_SECTOR_ROW_FACTOR)


#: (N, K, M, the pick before (share 2.5, prices x 1), the pick now): one H200, every candidate
#: timed, the share of the best candidate in the comment (docs/results/2026-12-03_h200_
#: twentyeighth/fit.py)
SECTOR_PICKS = [
    # fit set
    (2368, 1168, 400, ("tile", 128, 2), ("swapab", 80, 2)),       # 0.79 -> 1.0
    (15296, 7008, 333, ("tile", 256, 2), ("swapab", 112, 3)),     # 0.69 -> 1.0
    (4864, 7248, 333, ("swapab", 112, 3), ("swapab", 112, 2)),    # 0.73 -> 1.0
    (4264, 9040, 303, ("tile", 160, 2), ("swapab", 112, 2)),      # 0.74 -> 1.0
    (3536, 1392, 256, ("tile", 128, 2), ("swapab", 64, 2)),       # 0.76 -> 1.0
    (2872, 2080, 256, ("splitkw", 128, 2), ("swapab", 64, 2)),    # 0.85 -> 1.0
    (6568, 2224, 120, ("splitkw", 128, 2), ("swapab", 64, 2)),    # 1.0 -> 0.96 (lost)
    # held out (call 2)
    (4216, 13552, 320, ("tile", 160, 2), ("swapab", 112, 2)),     # 0.59 -> 1.0
    (14384, 7184, 288, ("swapab", 144, 3), ("swapab", 96, 3)),    # 0.67 -> 0.98
    (13992, 3040, 384, ("tile", 224, 2), ("tile", 160, 1)),       # 0.78 -> 1.0
    (5424, 11168, 384, ("tile", 192, 2), ("swapab", 128, 2)),     # 0.72 -> 0.97
    (5424, 11168, 256, ("tile", 128, 2), ("splitkw", 128, 4)),    # 0.90 -> 0.79 (lost)
    (4496, 2128, 448, ("tile", 160, 2), ("swapab", 96, 3)),       # 0.99 -> 0.92 (lost)
]


@pytest.mark.parametrize("N,K,M,before,want", SECTOR_PICKS)
def test_sector_share_measured_picks(N, K, M, before, want, monkeypatch):
    assert K % 16 == 0 and K % 64
    assert fill(M, N, K) == want
    monkeypatch.setattr(dispatch, "UNALIGNED_L2_SHARE_SECTOR_ROWS", dispatch.UNALIGNED_L2_SHARE)
    monkeypatch.setattr(dispatch, "UNALIGNED_SECTOR_ROW_FACTOR", 1.0)
    assert fill(M, N, K) == before


def test_the_op_passes_the_calls_sectors():
    """op.choice(M, aligned=False, sectors=...) prices the layout the call has (op._plan reads it
    from strides and addresses), K's only where not given: at K 1168 (on sectors) a call whose
    rows are not (e.g. a view 8 columns into its rows) gets the 16-byte prices; at K 2304 (on
    the lines) a call off them, not knowing its sectors, gets them too."""
    op = GemmRsAr(512, 2368, 1168, "none", arch="sm_90a", sm_budget=132)
    op._slots = {s: dict(H200) for s in ("splitk", "splitkw", "swapabx")}
    assert op.choice(400) == op.choice(400, aligned=False, sectors=True) == ("swapab", 80, 2)
    assert op.choice(400, aligned=False, sectors=False) == ("tile", 128, 2)
    assert fill(400, 2368, 1168, sectors=False) == ("tile", 128, 2)
    op = GemmRsAr(512, 2368, 2304, "none", arch="sm_90a", sm_budget=132)
    op._slots = {s: dict(H200) for s in ("splitk", "splitkw", "swapabx")}
    assert op.choice(400, aligned=False) == op.choice(400, aligned=False, sectors=False)


#: (N, K, M, the pick now, the pick before the twenty-ninth session): the L2-traffic model
#: weighing splitkw at token tiles 96 / 160 (dispatch.SPLITKW_MODEL_TILES), held out on one H200
#: (docs/results/2026-12-03_h200_twentyninth/fit.py, call 3; torch.mm-relative speed of the pick
#: over the pick before in the comment)
SPLITKW_TILE_PICKS = [
    (2152, 13024, 160, ("splitkw", 160, 4), ("splitkw", 128, 2)),   # 1.146x
    (2904, 12448, 192, ("splitkw", 96, 2), ("splitkw", 128, 2)),    # 1.194x (two tiles of 96)
    (1352, 11752, 320, ("splitkw", 160, 4), ("splitk", 128, 2)),    # 1.387x
    (6008, 11488, 96, ("splitkw", 96, 2), ("splitkw", 128, 2)),     # 1.140x
    (5720, 5592, 1, ("splitkw", 96, 2), ("swapab", 16, 2)),         # 0.950x (lost)
    # splitkw160 in clusters of 2 is not weighed: it lost at 6 of 8 such points (0.77x-0.97x)
    (6008, 11488, 160, ("swapab", 80, 2), ("swapab", 80, 2)),
    (2904, 12448, 320, ("swapab", 80, 2), ("swapab", 80, 2)),
]


@pytest.mark.parametrize("N,K,M,want,before", SPLITKW_TILE_PICKS)
def test_splitkw_tile_measured_picks(N, K, M, want, before, monkeypatch):
    assert K % 64
    assert fill(M, N, K) == want
    monkeypatch.setattr(dispatch, "SPLITKW_MODEL_TILES", {128: (2, 4)})
    monkeypatch.setattr(dispatch, "UNALIGNED_SPLITK_FIRST_MAX_M", {2: 128, 4: 512})
    assert fill(M, N, K) == before


def test_splitkw_small_tiles_only_in_one_wave_and_two_tiles():
    """The model weighs splitkw at a token tile other than 128 only where it covers M in at
    most two tiles and every (W tile, token tile) pair gets a cluster at once; 160 only in
    clusters of 4; every option it weighs is a built kernel."""
    for N in (704, 2152, 4936, 8192, 16384):
        for M in (1, 64, 96, 97, 160, 192, 193, 320, 321, 512):
            for K in (4104, 13024):
                opts = dispatch.unaligned_options(M, N, K, "sm_90a", 132, H200)
                for s, bt, ks in opts:
                    if s != "splitkw":
                        continue
                    assert bt in contract.SPLITKW_BNS
                    assert ks in dispatch.SPLITKW_MODEL_TILES[bt]
                    if bt != dispatch.SPLITKW_RULE_BT:
                        assert -(-M // bt) <= dispatch.SPLITKW_MODEL_MAX_TILES
                        assert dispatch.splitkw_units(M, N, bt) <= min(H200[ks], 132 // ks)
    assert ("splitkw", 160, 2) not in dispatch.unaligned_options(160, 2152, 13024, "sm_90a",
                                                                 132, H200)
    assert ("splitkw", 160, 4) in dispatch.unaligned_options(160, 2152, 13024, "sm_90a", 132,
                                                             H200)
    assert ("splitkw", 96, 2) not in dispatch.unaligned_options(193, 2152, 13024, "sm_90a",
                                                                132, H200)
