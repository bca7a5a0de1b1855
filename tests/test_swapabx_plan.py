"""The swapabx schedule's host side (CPU): the last token tile's partial slice each CTA of a
cluster loads (contract.x_tail_rows with slice rows, the box the runtime encodes), its grid
(a cluster per cta_group neighbouring W tiles, bounded by the budget and by the clusters the
device holds), what the op takes when fixed to it and what it refuses."""
import pytest

from codegen import contract
from codegen.runtime import GemmRsAr, InputError, dispatch
from codegen.runtime.launch_plan import tma_geometry
from codegen.spec import Variant


@pytest.mark.parametrize("M,bt,xm,want", [
    (160, 160, 2, 80),    # whole tiles: every slice full (the tail box unused, full size)
    (150, 160, 2, 70),    # slice 0 full, slice 1 70 rows
    (70, 160, 2, 70),     # slice 0 partial, slice 1 empty
    (1, 160, 4, 1),
    (161, 160, 4, 1),     # the second token tile: one row
    (200, 64, 4, 8),      # 200 = 3 x 64 + 8: the last tile's first slice (16 rows) partial
    (256, 64, 4, 16),
])
def test_tail_slice_rows(M, bt, xm, want):
    assert contract.x_tail_rows(M, bt, bt // xm) == want
    rows = contract.x_tail_rows(M, bt)
    # the partial slice is the one whose rows straddle the last tile's end; its rows are the
    # box's, every slice before it is full
    assert rows - (rows - 1) // (bt // xm) * (bt // xm) == want


def test_every_tail_slice_is_rows_of_the_last_tile():
    for bt in contract.SWAPABX_BNS:
        for xm in contract.SWAPABX_CTA_GROUPS:
            xs = contract.x_slice_rows("swapabx", bt, xm)
            assert xs * xm == bt and xs % 8 == 0, (bt, xm)
            for M in range(1, 3 * bt + 1):
                rows = contract.x_tail_rows(M, bt)
                got = contract.x_tail_rows(M, bt, xs)
                assert 1 <= got <= xs
                full = rows // xs
                assert got == (rows - full * xs if rows % xs else xs), (M, bt, xm)


class _Entry:
    def __init__(self, meta):
        self.meta = meta


class _Kern:
    def __init__(self, meta):
        self.entry = _Entry(meta)


def test_tail_box_the_runtime_encodes():
    meta = {"tma": {"a": {"box": [64, 40], "swizzle": "128B"},
                    "t": {"box": [64, 40], "swizzle": "128B", "tail_tile": 160}}}
    assert tma_geometry(_Kern(meta), "t", 150) == ((64, 30), "128B")
    assert tma_geometry(_Kern(meta), "t", 160) == ((64, 40), "128B")
    assert tma_geometry(_Kern(meta), "a", 150) == ((64, 40), "128B")
    older = {"tma": {"t": {"box": [64, 160], "swizzle": "128B"}}}    # no slices: the whole tail
    assert tma_geometry(_Kern(older), "t", 150) == ((64, 150), "128B")


@pytest.mark.parametrize("N,budget,xm,max_clusters,want", [
    (7168, 132, 2, 66, 112),   # 56 clusters of 2, one per pair of W tiles
    (7168, 132, 4, 30, 112),   # 28 clusters of 4
    (8192, 132, 4, 30, 120),   # 32 groups, the device holds 30 clusters of 4: they loop
    (1216, 132, 2, 66, 20),    # 19 W tiles: 10 clusters, the last one's second CTA spare
    (7168, 7, 4, 30, 4),       # a budget below two clusters: one
    (1088, 3, 4, 30, 4),       # below one cluster: still one (the budget is the caller's cap)
    (64, 132, 4, None, 4),
])
def test_grid(N, budget, xm, max_clusters, want):
    v = Variant("sm_90a", "none", None, 128, xm, None, schedule="swapabx")
    grid = dispatch.launch_grid(v, {}, xm, 160, N, budget, max_clusters)
    assert grid == want and grid % xm == 0


def test_op_fixed_to_swapabx():
    op = GemmRsAr(512, 7168, 2360, "none", schedule="swapabx", arch="sm_90a", sm_budget=132)
    assert op.choice(16) == ("swapabx", 32, 2)
    assert op.choice(100) == ("swapabx", 128, 2)
    assert op.choice(500) == ("swapabx", 256, 2)   # two token tiles of the largest
    op4 = GemmRsAr(512, 7168, 2360, "none", schedule="swapabx", bn=160, cta_group=4,
                   arch="sm_90a", sm_budget=132)
    assert op4.choice(200) == ("swapabx", 160, 4)
    assert op.max_served_m == 512


@pytest.mark.parametrize("kwargs,words", [
    (dict(N=1000, K=1024, mode="none"), ["N = 1000", "64", "swapabx"]),
    (dict(N=1024, K=1024, mode="none", bn=16), ["bn = 16"]),
    (dict(N=1024, K=1024, mode="none", cta_group=1), ["cta_group = 1", "2, 4"]),
    (dict(N=1024, K=1024, mode="none", arch="sm_100a"), ["swapabx", "sm_90a"]),
])
def test_op_refuses(kwargs, words):
    with pytest.raises(InputError) as ei:
        GemmRsAr(512, kwargs.pop("N"), kwargs.pop("K"), kwargs.pop("mode"), schedule="swapabx",
                 **kwargs)
    assert all(w in str(ei.value) for w in words), str(ei.value)


def test_fused_modes_have_no_swapabx():
    assert contract.schedule_bns("sm_90a", "rs", "swapabx") == ()
    with pytest.raises(InputError, match="mode 'none' only"):
        GemmRsAr(64, 1024, 1024, "rs", None, schedule="swapabx")


H200_SLOTS = {2: 66, 4: 30}


@pytest.mark.parametrize("M,N,K,slots,want", [
    (128, 7168, 2360, H200_SLOTS, ("swapabx", 128, 4)),    # 28 groups of 4: one round
    (160, 4096, 4104, H200_SLOTS, ("swapabx", 160, 4)),
    (64, 8192, 3696, H200_SLOTS, ("swapabx", 64, 2)),      # 32 groups of 4 > 30: clusters of 2
    (100, 8000, 4888, H200_SLOTS, ("swapabx", 128, 2)),    # 63 groups of 2 <= 66
    (100, 8512, 8632, H200_SLOTS, None),                   # 67 groups of 2: a second wave
    (100, 15936, 2056, H200_SLOTS, None),
    (192, 7168, 2360, H200_SLOTS, ("swapabx", 192, 4)),
    (128, 7168, 2304, H200_SLOTS, None),                   # rows on the lines: not taken
    (31, 7168, 2360, H200_SLOTS, None),                    # M below SWAPABX_MIN_M
    (32, 7168, 2360, H200_SLOTS, ("swapabx", 32, 4)),
    (193, 7168, 2360, H200_SLOTS, None),                   # M past SWAPABX_MAX_M
    (128, 3968, 2360, H200_SLOTS, None),                   # 62 W tiles: below the bound
    (64, 4416, 11552, H200_SLOTS, None),                   # 69 W tiles: M 64 waits for 97
    (97, 4416, 11552, H200_SLOTS, ("swapabx", 128, 4)),
    (64, 5120, 2360, H200_SLOTS, ("swapabx", 64, 4)),      # 80 W tiles
    (128, 7168, 2360, {}, None),                           # no swapabx kernel loadable
])
def test_rule(M, N, K, slots, want):
    got = dispatch.choose_none_by_fill(M, N, "sm_90a", 132, 512, K=K,
                                       cluster_slots=H200_SLOTS, xcast_slots=slots)
    if want is None:
        assert got is None or got[0] != "swapabx"
    else:
        assert got == want


def test_rule_follows_the_call_layout():
    """A ragged K kept in 128-byte-row buffers (aligned True) keeps the rule before; a K that is
    a multiple of 64 read through views off the lines (aligned False) takes swapabx."""
    kw = dict(cluster_slots=H200_SLOTS, xcast_slots=H200_SLOTS)
    assert dispatch.choose_none_by_fill(128, 7168, "sm_90a", 132, 512, K=2360, aligned=True,
                                        **kw)[0] != "swapabx"
    assert dispatch.choose_none_by_fill(128, 7168, "sm_90a", 132, 512, K=2304, aligned=False,
                                        **kw) == ("swapabx", 128, 4)


def test_small_budget():
    # a budget below the clusters' groups: more than one wave, not taken
    assert dispatch.choose_swapabx(128, 7168, 120, H200_SLOTS, True) == ("swapabx", 128, 4)
    assert dispatch.choose_swapabx(128, 7168, 100, H200_SLOTS, True) is None
    assert dispatch.choose_swapabx(128, 7168, 64, H200_SLOTS, True) is None
    assert dispatch.choose_swapabx(128, 4096, 64, H200_SLOTS, True) == ("swapabx", 128, 4)
    assert dispatch.choose_swapabx(128, 7168, 1, H200_SLOTS, True) is None


def test_tuning_sweeps_swapabx_where_rows_are_off_the_lines():
    from codegen.runtime import tuning
    off = [c for c in tuning.candidates(160, 7168, "sm_90a", "none", K=2360) if c[0] == "swapabx"]
    assert ("swapabx", 160, 4) in off and ("swapabx", 160, 2) in off
    assert all(c[1] in contract.SWAPABX_BNS and c[2] in (2, 4) for c in off)
    assert not [c for c in tuning.candidates(160, 7168, "sm_90a", "none", K=2304)
                if c[0] == "swapabx"]                              # rows on the lines
    assert not [c for c in tuning.candidates(160, 7000, "sm_90a", "none", K=2360)
                if c[0] == "swapabx"]                              # N no multiple of 64
    assert not [c for c in tuning.candidates(160, 7168, "sm_90a", "rs", K=2360)
                if c[0] == "swapabx"]                              # mode none only
    assert not [c for c in tuning.candidates(160, 7168, "sm_100a", "none", K=2360)
                if c[0] == "swapabx"]
    assert not [c for c in tuning.candidates(600, 7168, "sm_90a", "none", K=2360)
                if c[0] == "swapabx"]                              # past the decode rows


def test_tables_name_it_and_apply_to_their_own_layout(tmp_path):
    """A mode-none table (measured on contiguous tensors) may name swapabx; the op takes a
    table's choice only for calls laid out as the table's were (rows off the lines at K 2360):
    a call with rows on the lines (padded buffers) takes the rules. rs/ar tables naming it are
    refused."""
    from codegen.runtime.tuning import TuningError, table_path, write_table

    rows = [{"M": m, "schedule": "swapabx", "bn": 160, "cta_group": 4, "fused_us": 9.0,
             "best_unfused_us": 10.0, "best_unfused": "torch.mm"} for m in (160, 512)]
    write_table(table_path(tmp_path, "sm_90a", "none", 1, 7168, 2360), arch="sm_90a",
                mode="none", tp=1, N=7168, K=2360, rows=rows)
    op = GemmRsAr(512, 7168, 2360, "none", arch="sm_90a", sm_budget=132, cache_dir=tmp_path)
    assert op.choice(160) == op.choice(160, aligned=False) == ("swapabx", 160, 4)
    assert op.choice(160, aligned=True) == ("swapab", 80, 2)     # the aligned rule
    with pytest.raises(TuningError, match="swapabx"):
        write_table(table_path(tmp_path, "sm_90a", "rs", 2, 7168, 2360), arch="sm_90a",
                    mode="rs", tp=2, N=7168, K=2360, rows=rows)
