"""The splitkw schedule on the CPU (mode none, sm_90a: 128-row W tiles, K split over a cluster,
any M): its variant names, grid, the rule that takes it past the decode rows, tuning rows and
candidates, and that an op that cannot load its kernels never picks it (its argument checks:
test_splitk_dispatch.py, beside splitk's)."""
import pytest

from codegen import contract
from codegen.render import render, template_context
from codegen.runtime import GemmRsAr, dispatch
from codegen.runtime.tuning import candidates
from codegen.spec import SpecError, Variant, deployment_matrix

SLOTS = {2: 66, 4: 30}   # clusters an H200 holds at once (the splitk kernels'; same smem class)


def test_names_and_contract():
    v = Variant("sm_90a", "none", None, 128, 4, None, schedule="splitkw")
    assert v.name == "gemm_none_sm90a_splitkw_bn128_cg4_bf16"
    assert Variant.parse(v.name) == v and v.template_name == "sm90_swapab.py.j2"
    # splitk still parses as splitk (the alternation must not stop at its prefix)
    k = Variant("sm_90a", "none", None, 128, 4, None, schedule="splitk")
    assert Variant.parse(k.name) == k
    assert (contract.kernel_params("sm_90a", "none", "splitkw")
            == contract.kernel_params("sm_90a", "none", "swapab"))
    with pytest.raises(SpecError, match="mode 'none' only"):
        Variant("sm_90a", "rs", "unicast", 128, 2, 2, schedule="splitkw")
    with pytest.raises(SpecError, match="sm_90a"):
        Variant("sm_100a", "none", None, 128, 2, None, schedule="splitkw")
    with pytest.raises(SpecError, match="cta_group=1"):
        Variant("sm_90a", "none", None, 128, 1, None, schedule="splitkw")
    with pytest.raises(SpecError, match="bn=256"):
        Variant("sm_90a", "none", None, 256, 2, None, schedule="splitkw")
    assert not contract.decode_schedule("splitkw")   # no landing rows: any M
    assert contract.ksplit("splitkw", 4) == 4 and contract.ksplit("swapab", 2) == 1
    assert contract.variant_ragged_n("splitkw", 2, "sm_90a", "none")
    assert contract.choice_fits_n(4000, "splitkw", 128, 2, "sm_90a", "none")
    assert not contract.choice_fits_n(4004, "splitkw", 128, 2, "sm_90a", "none")


def test_deployment_matrix_builds_it_for_mode_none_on_sm_90a_only():
    kw = [v for v in deployment_matrix(8) if v.schedule == "splitkw"]
    assert {(v.arch, v.mode) for v in kw} == {("sm_90a", "none")}
    assert {(v.bn, v.cta_group) for v in kw} == {(bt, cg) for bt in contract.SPLITKW_BNS
                                                 for cg in contract.SPLITKW_CTA_GROUPS}


@pytest.mark.parametrize("bt,ks", [(bt, ks) for bt in contract.SPLITKW_BNS
                                   for ks in contract.SPLITKW_CTA_GROUPS])
def test_rendered_kernel(bt, ks):
    """Two MMA warpgroups over the 128 W rows, a cluster of ks, sT holding the KS-th of the
    tokens each CTA stores, one epilogue pass, the stages the contract prices."""
    v = Variant("sm_90a", "none", None, bt, ks, None, schedule="splitkw")
    ctx = template_context(v)
    assert ctx["wide"] and ctx["w_groups"] == 2 and ctx["ksplit"] == ks
    assert ctx["splitk_spread"] and ctx["ragged_n"] and ctx["epi_passes"] == 1
    assert ctx["epi_tokens"] == bt // ks
    src = render(v).source
    assert "BMW = 2 * SWAPAB_BM" in src and f"KS = {ks}" in src
    assert f"EPI_TOK = {bt // ks}" in src and "splitkw_stages(BT, KS)" in src
    # token tile 128: 4 stages; 96: 5; 160: 3 (the f32 partial tile takes the rest)
    assert contract.splitkw_stages(bt, ks) == {96: 5, 128: 4, 160: 3}[bt]


def test_grid_a_cluster_per_pair_within_what_the_device_holds():
    v = Variant("sm_90a", "none", None, 128, 4, None, schedule="splitkw")
    # N 704: 6 W tiles (the last past N) x 8 token tiles at M 1024 = 48 pairs
    assert dispatch.splitkw_units(1024, 704, 128) == 48
    assert dispatch.launch_grid(v, {}, 4, 1024, 704, 132) == 4 * 33
    assert dispatch.launch_grid(v, {}, 4, 1024, 704, 132, max_clusters=30) == 4 * 30
    assert dispatch.launch_grid(v, {}, 4, 513, 704, 132) == 4 * 30    # 6 x 5 pairs
    assert dispatch.launch_grid(v, {}, 4, 1, 8, 132) == 4             # one pair
    assert dispatch.launch_grid(v, {}, 4, 1024, 704, 3) == 4          # at least one cluster


def test_rule_takes_it_while_its_pairs_fit_one_wave():
    """The measured pattern (dispatch.SPLITKW_MIN_K_TILES): splitkw won at all 15 points whose
    pairs fit one wave of clusters and lost at all 39 where they did not."""
    budget = 132
    rule = dispatch.choose_none_splitkw
    # N 704, K 8192: 30 pairs at M 513 (clusters of 4: the device holds 30), 48 at M 1024
    assert rule(513, 704, 8192, "sm_90a", budget, SLOTS) == ("splitkw", 128, 4)
    assert rule(768, 704, 8192, "sm_90a", budget, SLOTS) == ("splitkw", 128, 2)
    assert rule(1024, 704, 8192, "sm_90a", budget, SLOTS) == ("splitkw", 128, 2)
    # ...96 pairs at M 1536..2048, N 2048 / 4544 / 7168 at M 513: more than a wave
    assert rule(1536, 704, 8192, "sm_90a", budget, SLOTS) is None
    for N in (2048, 4544, 7168):
        assert rule(513, N, 8192, "sm_90a", budget, SLOTS) is None
    # K: clusters of 2 from 22 k-tiles, of 4 from 32 (seventeenth session, the cheaper handoff:
    # N 704 K 1408 / N 1088 K 1472 clusters of 2 1.08x-1.17x the tile schedule; N 512 K 2048,
    # N 640 K 2432 clusters of 4 up to 1.21x over 2; before: 24 / 40 k-tiles)
    assert rule(513, 512, 1408, "sm_90a", budget, SLOTS) == ("splitkw", 128, 2)
    assert rule(513, 512, 1344, "sm_90a", budget, SLOTS) is None
    assert rule(520, 640, 1984, "sm_90a", budget, SLOTS) == ("splitkw", 128, 2)
    assert rule(520, 640, 2048, "sm_90a", budget, SLOTS) == ("splitkw", 128, 4)
    # a budget: clusters that fit it, at most
    assert rule(1024, 704, 8192, "sm_90a", 80, SLOTS) is None      # 48 pairs > 40 clusters
    assert rule(513, 704, 8192, "sm_90a", 100, SLOTS) == ("splitkw", 128, 2)   # 30 > 25
    # nothing loadable, another arch: no splitkw
    assert rule(1024, 704, 8192, "sm_90a", budget, {}) is None
    assert rule(1024, 704, 8192, "sm_100a", budget, SLOTS) is None
    assert rule(513, 704, 8192, "sm_90a", budget, {2: 66}) == ("splitkw", 128, 2)


def test_ragged_n_takes_splitk_wherever_the_old_splitkw_rule_did():
    """The fifteenth session's choose_ragged_splitkw (splitkw with clusters of 4 at an N no
    multiple of 64, M <= 256, K >= 64 k-tiles, every pair in one wave) left the dispatcher in the
    sixteenth, when splitk reached past N: wherever it had a choice, choose_splitk has one too
    (64-row W tiles in clusters of 2, of which a device holds about twice as many as of 4), which
    measured 1.0x-2.2x it at M <= 128 (BENCHMARKS.md, sixteenth session), or, with rows off the
    lines past M 128 (twenty-first session), the old rule's splitkw itself. Checked over a grid
    of N, K, M, budgets and cluster slots (the probe keeps the old rule: ragged_splitkw_before)."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools" / "probes"))
    from choice_ab import ragged_splitkw_before

    fill = dispatch.choose_none_by_fill
    took = 0
    for slots in (SLOTS, {2: 64, 4: 28}, {2: 39, 4: 18}, {2: 57, 4: 24}):
        for budget in (132, 114, 78, 66, 40):
            for N in range(8, 4200, 88):
                if N % 64 == 0:
                    continue
                for K in (4096, 4104, 8192, 14336):
                    for M in (1, 16, 64, 100, 128, 129, 200, 256):
                        if ragged_splitkw_before(M, N, K, "sm_90a", budget, slots) is None:
                            continue
                        took += 1
                        got = fill(M, N, "sm_90a", budget, 512, K=K, cluster_slots=slots,
                                   splitkw_slots=slots)
                        # (rows off the lines past dispatch.UNALIGNED_SPLITK_FIRST_MAX_M's
                        # M: choose_splitk's clusters of 2 go after the L2-traffic model, which
                        # takes splitkw in clusters of 4 there, as the old rule did)
                        first = dispatch.UNALIGNED_SPLITK_FIRST_MAX_M[2]
                        deferred = (K % 64 and M > first and got[0] == "splitkw"
                                    and got[2] == 4)
                        assert got is not None and (got[0] == "splitk" or deferred), (
                            slots, budget, N, K, M, got)
    assert took > 1000
    # e.g. N 1000 (16 W tiles of 64, the last past N) in one wave of clusters of 4; N 3696 at M
    # 100 in clusters of 2 (58 W tiles, K 128 k-tiles: dispatch.SPLITK_LONG_K_TILES)
    assert fill(64, 1000, "sm_90a", 132, 512, K=8192, cluster_slots=SLOTS) == ("splitk", 64, 4)
    assert fill(100, 3696, "sm_90a", 132, 512, K=8192, cluster_slots=SLOTS) == ("splitk", 128, 2)
    # without the splitk kernels (an op that cannot load them): the wide decode kernels
    assert fill(100, 3696, "sm_90a", 132, 512, K=8192, cluster_slots={})[0] == "swapab"


def test_op_picks_it_only_where_it_can_load_it():
    op = GemmRsAr(4096, 704, 8192, "none", arch="sm_90a", sm_budget=132)
    assert op.splitkw_slots() == {}   # no GPU: nothing loadable, the tile schedule
    assert op.choice(1000)[0] == "tile"
    op._slots["splitkw"] = dict(SLOTS)
    assert op.choice(1000) == ("splitkw", 128, 2)
    assert op.choice(256)[0] != "splitkw"    # the decode rows keep their rule
    assert op.choice(4096)[0] == "tile"      # 192 pairs
    fixed = GemmRsAr(4096, 704, 8192, "none", arch="sm_90a", sm_budget=132, schedule="tile")
    fixed._slots["splitkw"] = dict(SLOTS)
    assert fixed.choice(1000)[0] == "tile"
    # fixed to splitkw: every M, its token tile and the cluster size K feeds
    kw = GemmRsAr(4096, 704, 8192, "none", arch="sm_90a", sm_budget=132, schedule="splitkw")
    assert kw.max_served_m == 4096
    # (the smallest token tile the model weighs that covers M; past them, loops of 128)
    assert kw.choice(1) == ("splitkw", 96, 4) and kw.choice(150) == ("splitkw", 160, 4)
    assert kw.choice(161) == ("splitkw", 128, 4) and kw.choice(4096) == ("splitkw", 128, 4)
    assert GemmRsAr(64, 704, 1024, "none", arch="sm_90a",
                    schedule="splitkw").choice(64) == ("splitkw", 96, 2)


def test_tuning_candidates_include_it_at_every_m():
    for M in (16, 512, 513, 4096):
        got = [c for c in candidates(M, 704, "sm_90a", "none", K=8192) if c[0] == "splitkw"]
        assert sorted(got) == sorted(("splitkw", bt, cg) for bt in contract.SPLITKW_BNS
                                     for cg in contract.SPLITKW_CTA_GROUPS)
    assert not [c for c in candidates(1024, 704, "sm_90a", "none", K=192) if c[2] == 4
                and c[0] == "splitkw"]
    assert not [c for c in candidates(1024, 704, "sm_90a", "rs", K=8192) if c[0] == "splitkw"]
    assert not [c for c in candidates(1024, 768, "sm_100a", "none", K=8192)
                if c[0] == "splitkw"]


def test_tuning_tables_name_it_at_any_m(tmp_path):
    """A measured table may name splitkw at any M (no landing rows); a table for a K its cluster
    cannot feed falls back to the rules; rs/ar and sm_100a tables naming it are refused."""
    from codegen.runtime.tuning import TuningError, find_table, table_path, write_table

    rows = [{"M": m, "schedule": "splitkw", "bn": 128, "cta_group": 4, "fused_us": 9.0,
             "best_unfused_us": 10.0, "best_unfused": "torch.mm"} for m in (600, 4096)]
    write_table(table_path(tmp_path, "sm_90a", "none", 1, 704, 8192), arch="sm_90a",
                mode="none", tp=1, N=704, K=8192, rows=rows)
    op = GemmRsAr(4096, 704, 8192, "none", arch="sm_90a", sm_budget=132, cache_dir=tmp_path)
    assert op.land_rows == 512
    assert op.choice(600) == ("splitkw", 128, 4) and op.choice(4096) == ("splitkw", 128, 4)
    # a table for K 192 naming clusters of 4 (one k-tile per CTA needs K >= 256): the rules
    write_table(table_path(tmp_path, "sm_90a", "none", 1, 704, 192), arch="sm_90a",
                mode="none", tp=1, N=704, K=192, rows=rows)
    short = GemmRsAr(4096, 704, 192, "none", arch="sm_90a", sm_budget=132, cache_dir=tmp_path)
    assert short.choice(4096)[0] == "tile"
    for arch, mode, tp in (("sm_100a", "none", 1), ("sm_90a", "rs", 2)):
        with pytest.raises(TuningError, match="splitkw"):
            write_table(table_path(tmp_path, arch, mode, tp, 768, 8192), arch=arch, mode=mode,
                        tp=tp, N=768, K=8192, rows=rows)
    assert find_table(tmp_path, "sm_100a", "none", 1, 768, 8192) is None


def test_an_op_fixed_to_splitkw_serves_every_row_before_the_arch_is_known():
    op = GemmRsAr(4096, 4000, 1024, "none", schedule="splitkw", device="cpu")
    assert op.max_served_m == 4096
