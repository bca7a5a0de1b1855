"""N a multiple of 64 but not of 128 (contract.N_MULTIPLE; e.g. gpt-oss's hidden size 2880):
which kernels serve it, the dispatch never picking one that does not, and the rows an op serves
when no tile-schedule width divides N (CPU only; the GPU side: tests/gpu/test_ragged_n.py)."""
from types import SimpleNamespace

import pytest
import torch

from codegen import contract
from codegen.runtime import InputError, dispatch, tuning
from codegen.runtime.op import GemmRsAr
from codegen.runtime.op_args import check_op_args
from test_runtime_validate import CpuGroup

H200_SLOTS = {2: 66, 4: 30}


def _args(N, mode="none", arch="sm_90a", **kw):
    group = None if mode == "none" else SimpleNamespace(mode=mode, N=N, max_M=1024, tp=2,
                                                        device=None, sm_budget=66,
                                                        local_ranks=(0, 1))
    base = dict(bn=None, cta_group=None, sm_budget=None, transport=None, schedule=None,
                arch=arch, min_m=None, timeout_ms=2000)
    base.update(kw)
    check_op_args(1024, N, 1024, mode, group, **base)


def test_which_kernels_serve_n():
    assert contract.decode_fits_n(2880, 1, "sm_90a")
    assert contract.decode_fits_n(2880, 1, "sm_90a", "splitk")
    assert contract.decode_fits_n(2944, 2, "sm_90a")
    assert contract.decode_fits_n(2880, 3, "sm_90a")    # the 192-row W tile: past N
    # the wide kernel's 128-row W tiles reach past N on sm_90a (every mode, twelfth session:
    # mode none first, then rs/ar's landing stores and reduction masked at N)
    assert contract.decode_fits_n(2880, 2, "sm_90a") and contract.decode_fits_n(2880, 2, None)
    assert not contract.swapab_ragged_n(2, "sm_100a")
    assert contract.swapab_ragged_n(3, "sm_90a")
    assert not contract.swapab_ragged_n(1, "sm_90a")
    assert [bn for bn in contract.BNS if contract.tile_fits_n(2240, bn)] == [224]
    assert not any(contract.tile_fits_n(2880, bn) for bn in contract.BNS)
    # ...but sm_90a has widths 160 and 192 too (contract.TILE_EXTRA_BNS; rs/ar since the
    # thirteenth session)
    for mode in ("none", "rs", "ar"):
        assert contract.tile_widths(2880, "sm_90a", mode) == (160, 192)
    assert contract.tile_widths(2880) == contract.tile_widths(2880, "sm_100a", "rs") == ()
    assert contract.tile_widths(2880, "sm_100a", "none") == ()
    # 704 = 11 x 64: no width divides it; the tile kernels on sm_90a reach past N
    # (contract.tile_ragged_n: mode none since the thirteenth session, rs/ar since the
    # fourteenth), sm_100a's do not
    for mode in ("none", "rs", "ar"):
        assert contract.tile_widths(704, "sm_90a", mode) == contract.tile_bns("sm_90a", mode)
        assert contract.tile_fits_n(704, 128, "sm_90a", mode)
        assert contract.tile_fits_n(2880, 256, "sm_90a", mode)
    assert contract.tile_widths(704, "sm_100a", "rs") == contract.tile_widths(704, "sm_100a") == ()
    assert contract.tile_widths(704) == ()                      # arch / mode not known
    assert not contract.tile_fits_n(704, 128, "sm_100a", "ar") and not contract.tile_fits_n(704, 128)
    assert not contract.tile_fits_n(700, 128, "sm_90a", "none")  # (no multiple of 64)
    # a width that divides N is never passed over for one reaching past it
    assert contract.tile_widths(2880, "sm_90a", "none") == (160, 192)
    assert contract.flag_words(64, 64, 2) > 0       # a group of N 64 sizes its flags sanely


def test_op_arguments():
    for N in (64, 192, 2880):
        _args(N)
        _args(N, "rs")
        _args(N, schedule="swapab", cta_group=1)
        _args(N, schedule="splitk", cta_group=2)
    _args(2240, schedule="tile", bn=224)
    for mode in ("none", "rs", "ar"):   # the wide kernel reaches past N (twelfth session)
        _args(2880, mode, schedule="swapab", cta_group=2)
    # rs/ar on sm_90a: the last N tile reaches past N too (fourteenth session)
    for mode in ("rs", "ar"):
        _args(704, mode, schedule="tile")
        _args(704, mode, schedule="tile", bn=256)
        _args(2880, mode, schedule="tile", bn=256)
        _args(2880, mode, bn=128)
    with pytest.raises(InputError, match=r"N = 704 must be a positive multiple of 128 on sm_100a"):
        _args(704, "rs", schedule="tile", arch="sm_100a")
    with pytest.raises(InputError, match=r"N = 384 must be a positive multiple of 256$"):
        _args(384, "rs", schedule="tile", bn=256, arch="sm_100a")
    # every N a multiple of 64 (sm_90a rs/ar), 8 (sm_90a mode none, fourteenth session) or 128
    # (sm_100a) has a tile width in every mode
    for arch in ("sm_90a", "sm_100a"):
        for mode in ("none", "rs", "ar"):
            step = contract.n_multiple(arch, mode)
            assert step == {"sm_100a": 128}.get(arch, 8 if mode == "none" else 64)
            for N in range(step, 20000, step):
                assert contract.tile_widths(N, arch, mode), (arch, mode, N)
    for mode in ("rs", "ar"):                    # 160 / 192 on sm_90a (thirteenth session)
        _args(2880, mode, schedule="tile")
        _args(2880, mode, schedule="tile", bn=192)
    _args(2880, schedule="tile")                 # mode none: 160 / 192 on sm_90a
    _args(2880, schedule="tile", bn=160)
    # mode none on sm_90a: the last N tile reaches past N (contract.tile_ragged_n)
    _args(704, schedule="tile")
    _args(704, schedule="tile", bn=256)
    _args(704, schedule="tile", arch=None)      # (arch not known yet: sm_90a may serve it)
    with pytest.raises(InputError, match=r"N = 704 must be a positive multiple of 128 on sm_100a"):
        _args(704, schedule="tile", arch="sm_100a")
    _args(2880, schedule="tile", bn=256)         # mode none: reaching past N
    _args(2880, bn=128)
    with pytest.raises(InputError, match="N = 2880 must be a positive multiple of 128 on sm_100a"):
        _args(2880, arch="sm_100a")
    with pytest.raises(InputError, match="N = 2900 must be a positive multiple of 8$"):
        _args(2900)
    with pytest.raises(InputError, match=r"N = 1000 must be a positive multiple of 64 in mode "
                                         r"'rs' \(mode 'none' on sm_90a: of 8\)"):
        _args(1000, "rs")
    # mode none on sm_90a: N any multiple of 8 (fourteenth session): the tile schedule, the
    # wide decode kernels and (sixteenth session) splitk reach past N; cta_group 1 does not
    for N in (8, 24, 1000, 4000, 7176):
        _args(N)
        _args(N, schedule="tile", bn=128)
        _args(N, schedule="swapab")
        _args(N, schedule="swapab", cta_group=2)
        _args(N, schedule="swapab", cta_group=3, bn=96)
        _args(N, schedule="splitk")
        _args(N, schedule="splitk", cta_group=4)
        _args(N, schedule="splitk", arch=None)      # (arch not known yet: sm_90a may serve it)
        with pytest.raises(InputError, match="W tiles are 64 rows"):
            _args(N, schedule="swapab", cta_group=1)
        with pytest.raises(InputError, match=f"N = {N} must be a positive multiple of 128 on "
                                             f"sm_100a"):
            _args(N, arch="sm_100a")


@pytest.mark.parametrize("N", [64, 192, 1088, 2880, 5056])
def test_dispatch_picks_only_kernels_that_serve_n(N):
    """Every rule, every decode M, both budgets: a decode pick's W tiles fit N, a tile pick's
    width serves it (rs/ar's rules: divides it; mode none's fill rule and a tuning candidate's
    may reach past N)."""
    for M in range(1, 513, 7):
        for budget in (132, 66):
            picks = [("none", dispatch.choose_none_by_fill(M, N, "sm_90a", budget, 512, K=4096,
                                                           cluster_slots=H200_SLOTS))]
            picks += [(mode, dispatch.choose_fused_by_fill(M, N, mode, "sm_90a", budget, 512))
                      for mode in ("rs", "ar")]
            for mode in ("none", "rs"):
                picks += [(mode, c) for c in tuning.candidates(M, N, "sm_90a", mode, K=4096)]
            for i, (mode, p) in enumerate(picks):
                if p is None:
                    continue
                schedule, bn, cg = p
                if contract.decode_schedule(schedule):
                    assert contract.decode_fits_n(N, cg, "sm_90a", schedule, mode), (M, p)
                else:
                    assert contract.tile_fits_n(N, bn, "sm_90a", mode), (M, p)
                    # rs/ar's rules at decode sizes take no width reaching past N (mode none's
                    # fill rule weighs them since the twenty-fourth session: FILL_TILE_EVERY_WIDTH)
                    assert i == 0 or i >= 3 or N % bn == 0, (M, p)


def test_op_serves_decode_rows_only_where_no_tile_width_divides_n():
    # mode none on sm_90a: every M (the tile kernels' last N tile reaches past N,
    # contract.tile_ragged_n, thirteenth session); sm_100a takes no N % 128 != 0
    op = GemmRsAr(2048, 704, 1024, "none", arch="sm_90a", device="cpu", sm_budget=132)
    assert op.max_served_m == 2048
    x = torch.zeros(600, 1024, dtype=torch.bfloat16)
    assert op.should_run(x) and op.should_run(x[:512])
    assert [op.choice(M) for M in (513, 2048)] == [("tile", 128, 2)] * 2
    for M in (1, 100, 300, 512):
        schedule, bn, cg = op.choice(M)
        # (cta_group 2 at N 704 = 5.5 x 128: mode none's wide kernel reaches past N)
        assert schedule != "tile" and contract.choice_fits_n(704, schedule, bn, cg, "sm_90a")
    assert {op.choice(M)[2] for M in range(16, 513, 16)} >= {2}
    for mode in ("rs", "ar"):   # rs/ar's wide kernel serves N 704, but no rule takes it there
        assert all(dispatch.swapab_cta_group(None, M, mode, "sm_90a", 704) == 1
                   for M in range(1, 513, 17))
        picks = {dispatch.choose_fused_by_fill(M, N, mode, "sm_90a", 132, 512)
                 for M in range(16, 513, 16) for N in (704, 2880)}
        assert all(p is None or p[2] == 1 for p in picks), picks
        assert any(p is not None and p[2] == 2      # (where 128 | N it weighs it)
                   for p in {dispatch.choose_fused_by_fill(M, 768, mode, "sm_90a", 132, 512)
                             for M in range(16, 513, 16)})
    # N 2880 (gpt-oss): widths 160 / 192 serve every M in mode none on sm_90a (eleventh session);
    # since the twentieth session cta_group 1 at an odd count of 128-row tiles (M 513 / 600: 5)
    # where its waves cost TILE_CG1_PRICE_ALIGNED x less, at the wave rule's width (128, past N)
    full = GemmRsAr(2048, 2880, 1024, "none", arch="sm_90a", device="cpu", sm_budget=132)
    assert full.max_served_m == 2048 and full.should_run(x)
    for M in (513, 600, 1024, 2048):
        schedule, bn, cg = full.choice(M)
        assert schedule == "tile" and (bn in (160, 192) or cg == 1), (M, full.choice(M))
        assert contract.choice_fits_n(2880, schedule, bn, cg, "sm_90a", "none")
    fixed = GemmRsAr(512, 2880, 1024, "none", arch="sm_90a", device="cpu", sm_budget=132,
                     schedule="swapab")
    # the wide default past 256 rows (its last W tile reaches past N in mode none)
    assert all(fixed.choice(M)[2] == 2 for M in (257, 400, 512))
    wide = GemmRsAr(2048, 2240, 1024, "none", arch="sm_90a", device="cpu", sm_budget=132)
    assert wide.max_served_m == 2048 and wide.choice(2048)[0] == "tile"
    assert wide.choice(2048)[1] in (160, 224)     # 2240 = 10 x 224 = 14 x 160
    # 2944 = 23 x 128: the tile schedule serves every M at width 128
    assert GemmRsAr(2048, 2944, 1024, "none", arch="sm_90a", device="cpu").max_served_m == 2048


@pytest.mark.parametrize("N", [2240, 3136, 4032])
def test_tile_width_divides_n_past_the_decode_rows(N):
    """N a multiple of 224 but not of 128: every tile pick past the decode rows is width 224
    (the fuzz found choose_bn's narrow default, 128, picked here: AR left 64 columns unwritten)."""
    for mode in ("none", "rs", "ar"):
        for ctas in (None, 3, 66, 132):
            for M in (513, 600, 820, 1025, 2048, 8192):
                for cluster in (1, 2):
                    assert dispatch.choose_bn(M, N, None, ctas, cluster, mode) == 224
    op = GemmRsAr(8192, N, 320, "none", arch="sm_90a", device="cpu", sm_budget=3)
    # (mode none on sm_90a weighs 160 / 192 too where they divide N: 2240 = 14 x 160)
    for M in (513, 820, 8192):
        schedule, bn, _ = op.choice(M)
        assert schedule == "tile" and N % bn == 0 and bn in (160, 192, 224), (M, op.choice(M))


def test_should_run_is_false_where_the_device_arch_takes_no_such_n(monkeypatch):
    """N 192 on an sm_100a device (its kernels keep N % 128): should_run answers False (the
    serving layer falls back) instead of raising; a call raises InputError naming it."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a: (10, 0))
    op = GemmRsAr(64, 192, 256, "none", device="cpu", sm_budget=148)
    assert not op.should_run(torch.zeros(16, 256, dtype=torch.bfloat16))
    with pytest.raises(InputError, match="N = 192 must be a multiple of 128 on sm_100a"):
        op.arch


def test_op_weighs_the_tile_widths_of_its_arch():
    """The op's dispatch takes its arch's mode-none tile widths: 160 / 192 on sm_90a
    (contract.TILE_EXTRA_BNS), BNS on sm_100a and in rs/ar."""
    picks = {}
    for arch in ("sm_90a", "sm_100a"):
        op = GemmRsAr(4096, 5120, 2560, "none", arch=arch, device="cpu", sm_budget=132)
        picks[arch] = {M: op.choice(M) for M in (1024, 2048)}
    assert {bn for _, bn, _ in picks["sm_90a"].values()} == {160}
    assert all(s == "tile" and bn in contract.BNS for s, bn, _ in picks["sm_100a"].values())
    # N 2880: served past the decode rows on sm_90a only (sm_100a takes no N % 128 != 0); rs/ar
    # too since the thirteenth session, at 160 / 192
    for mode in ("none", "rs", "ar"):
        group = None if mode == "none" else CpuGroup(tp=2, max_M=4096, N=2880, mode=mode)
        op = GemmRsAr(4096, 2880, 1024, mode, group, arch="sm_90a",
                      **({"device": "cpu", "sm_budget": 132} if group is None else {}))
        assert op.max_served_m == 4096
        # (mode none at M 4096: since the seventeenth session the wave rule weighs the widths
        # reaching past N too, and 12 tiles of 256 fill the waves better than 15 of 192; the
        # thirteenth session measured both at 1.00x torch.mm there, K 4096)
        want = [("tile", 192, 2), ("tile", 256 if mode == "none" else 192, 2)]
        assert [op.choice(M) for M in (1024, 4096)] == want, mode


def test_a_fixed_tile_width_reaching_past_n_is_refused_on_an_arch_that_cannot(monkeypatch):
    """Constructed without an arch, a fixed tile width not dividing N passes (sm_90a's mode-none
    tiles reach past N); once the device names sm_100a, whose tiles do not, it is an InputError
    (before: dispatched, then a CacheMissError that no rebuild could mend)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a: (10, 0))
    op = GemmRsAr(2048, 640, 1024, "none", schedule="tile", bn=256, device="cpu", sm_budget=132)
    with pytest.raises(InputError, match="multiple of 256 on sm_100a"):
        op.arch
    ok = GemmRsAr(2048, 768, 1024, "none", schedule="tile", bn=256, device="cpu", sm_budget=132)
    assert ok.arch == "sm_100a"
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a: (9, 0))
    assert GemmRsAr(2048, 640, 1024, "none", schedule="tile", bn=256, device="cpu",
                    sm_budget=132).arch == "sm_90a"


def test_a_fixed_decode_schedule_serves_its_landing_rows_only():
    """should_run and the call agree where the schedule is fixed to a decode one (before: N 2880
    in rs/ar gained tile widths, should_run said True past the landing rows of a fixed splitk op
    whose call then raised; the GPU test caught it)."""
    x = torch.zeros(600, 2048, dtype=torch.bfloat16)
    for mode, N, kw in (("rs", 2880, dict(schedule="splitk")), ("ar", 7168, dict(bn=64)),
                        ("none", 7168, dict(schedule="swapab")), ("none", 704, dict(cta_group=3)),
                        ("rs", 7168, dict(bn=64, cta_group=2))):
        group = None if mode == "none" else CpuGroup(tp=2, max_M=1024, N=N, mode=mode)
        kw = dict(kw, **({"device": "cpu", "sm_budget": 132} if group is None else {}))
        op = GemmRsAr(1024, N, 2048, mode, group, arch="sm_90a", **kw)
        assert op.max_served_m == 512, (mode, N, kw)
        assert not op.should_run(x), (mode, N, kw)
        assert op.max_served_m == op.land_rows
    for mode, N, kw in (("rs", 2880, {}), ("rs", 2880, dict(schedule="tile")),
                        ("none", 704, dict(bn=128)), ("none", 7168, dict(cta_group=2))):
        group = None if mode == "none" else CpuGroup(tp=2, max_M=1024, N=N, mode=mode)
        kw = dict(kw, **({"device": "cpu", "sm_budget": 132} if group is None else {}))
        op = GemmRsAr(1024, N, 2048, mode, group, arch="sm_90a", **kw)
        assert op.max_served_m == 1024, (mode, N, kw)


def test_fill_rule_weighs_the_ragged_wide_kernel_in_one_wave_only():
    """Mode none's wide kernel past N (N = 64 mod 128) is weighed only where its (W tile, token
    tile) pairs fit the SM budget (dispatch.ragged_wide_past_one_wave: multi-wave picks of it
    lost 19%-27% at held-out shapes); at N = 0 mod 128 the rule is as before."""
    def pick(M, N, K, budget=132):
        return dispatch.choose_none_by_fill(M, N, "sm_90a", budget, 512, K=K,
                                            cluster_slots=H200_SLOTS)
    assert pick(256, 2880, 2048) == ("swapab", 64, 2)         # 23 x 4 = 92 pairs
    assert pick(297, 9024, 3496)[2] != 2                      # 71 x 3 = 213 pairs
    assert pick(322, 11200, 3208)[2] != 2
    assert dispatch.ragged_wide_past_one_wave(("swapab", 112, 2), 297, 9024, 132)
    assert not dispatch.ragged_wide_past_one_wave(("swapab", 112, 2), 297, 9088, 132)  # 128 | N
    assert not dispatch.ragged_wide_past_one_wave(("swapab", 64, 3), 512, 9024, 132)   # cg 3
    assert not dispatch.ragged_wide_past_one_wave(("swapab", 64, 2), 256, 2880, 132)
    assert dispatch.ragged_wide_past_one_wave(("swapab", 64, 2), 256, 2880, 66)   # half budget
    for M in range(1, 513, 5):
        for N in (704, 2880, 9024, 14528):
            for budget in (132, 66):
                p = pick(M, N, 4096, budget)
                assert not dispatch.ragged_wide_past_one_wave(p, M, N, budget), (M, N, p)


def test_fused_width_where_none_divides_n():
    """rs/ar where no tile width divides N (the last N tile reaches past N, fourteenth session):
    the wave rule over dispatch.RAGGED_FUSED_BNS at every M past the decode rows; the picks of
    the points timed on two virtual ranks (sm_budget 66, cluster 2; BENCHMARKS.md)."""
    for mode in ("rs", "ar"):
        for N in (704, 1088, 4544, 1472, 6208):
            for M in (513, 600, 1024, 2048, 8192):
                for ctas in (None, 66, 132, 7):
                    bn = dispatch.choose_bn(M, N, None, ctas, 2, mode, "sm_90a")
                    assert bn in dispatch.RAGGED_FUSED_BNS, (mode, N, M, ctas, bn)
        picks = {(N, M): dispatch.choose_bn(M, N, None, 66, 2, mode, "sm_90a")
                 for N, M in ((704, 1024), (704, 2048), (1088, 1024), (1088, 8192),
                              (4544, 2048), (4544, 8192))}
        assert picks == {(704, 1024): 128, (704, 2048): 192, (1088, 1024): 192,
                         (1088, 8192): 192, (4544, 2048): 192, (4544, 8192): 256}
        # a width dividing N keeps the rules before (N 7168: BNS; N 2880: 192)
        assert dispatch.choose_bn(600, 7168, None, 66, 2, mode, "sm_90a") == 128
        assert dispatch.choose_bn(600, 2880, None, 66, 2, mode, "sm_90a") == 192


@pytest.mark.parametrize("N", [8, 24, 1000, 4000, 7176])
def test_none_n_a_multiple_of_8(N):
    """Mode none on sm_90a, N no multiple of 64 (fourteenth session): every M is served, every
    choice (the rules, a fixed swapab op, the tuning candidates) is a kernel that reaches past N
    -- the tile schedule, the wide decode kernels, splitkw or (sixteenth session) splitk --
    never cta_group 1."""
    ops = [GemmRsAr(4096, N, 1024, "none", arch="sm_90a", device="cpu", sm_budget=budget)
           for budget in (132, 66, 7)]
    ops.append(GemmRsAr(512, N, 1024, "none", arch="sm_90a", device="cpu", sm_budget=132,
                        schedule="swapab"))
    for op in ops:
        assert op.max_served_m == op.max_M
        assert op.should_run(torch.zeros(op.max_M, 1024, dtype=torch.bfloat16)) in (True, False)
        for M in list(range(1, 520, 11)) + [600, 1024, 2048, 4096]:
            if M > op.max_M:
                continue
            schedule, bn, cg = op.choice(M)
            assert contract.choice_fits_n(N, schedule, bn, cg, "sm_90a", "none"), (M, schedule, bn, cg)
            # (splitkw: its 128-row W tiles reach past N; K 1024 is too short for its rule)
            assert schedule in ("tile", "swapab") and (schedule == "tile" or cg in (2, 3))
            if schedule == "swapab":
                assert contract.decode_kernel_exists("sm_90a", "none", bn, cg)
    for M in (16, 256, 512, 1024):
        cands = tuning.candidates(M, N, "sm_90a", "none", K=4096)
        assert cands and all(contract.choice_fits_n(N, *c, "sm_90a", "none") for c in cands)
        # a sweep times the wide decode kernels and splitk at decode sizes (never cta_group 1)
        decode = {(s, cg) for s, _, cg in cands if s not in ("tile", "splitkw")}
        assert {(s, cg) for s, _, cg in cands if s == "splitkw"} == {("splitkw", 2), ("splitkw", 4)}
        splitk = {("splitk", 2), ("splitk", 4)}
        assert (decode in ({("swapab", 2), ("swapab", 3)} | splitk, {("swapab", 2)} | splitk)
                if M <= contract.SWAPAB_MAX_ROWS else not decode), (M, decode)
