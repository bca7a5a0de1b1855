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

H200_SLOTS = {2: 66, 4: 30}


def _args(N, mode="none", arch="sm_90a", **kw):
    group = None if mode == "none" else SimpleNamespace(mode=mode, N=N, max_M=1024, tp=2)
    base = dict(bn=None, cta_group=None, sm_budget=None, transport=None, schedule=None,
                arch=arch, min_m=None, timeout_ms=2000)
    base.update(kw)
    check_op_args(1024, N, 1024, mode, group, **base)


def test_which_kernels_serve_n():
    assert contract.decode_fits_n(2880, 1) and contract.decode_fits_n(2880, 1, "splitk")
    assert contract.decode_fits_n(2880, 3)          # the 192-row W tile may reach past N
    assert not contract.decode_fits_n(2880, 2)      # 128-row W tiles
    assert contract.decode_fits_n(2944, 2)
    assert [bn for bn in contract.BNS if contract.tile_fits_n(2240, bn)] == [224]
    assert not any(contract.tile_fits_n(2880, bn) for bn in contract.BNS)
    # ...but mode none on sm_90a has widths 160 and 192 too (contract.TILE_EXTRA_BNS)
    assert contract.tile_widths(2880, "sm_90a", "none") == (160, 192)
    assert contract.tile_widths(2880, "sm_90a", "rs") == contract.tile_widths(2880) == ()
    assert contract.tile_widths(2880, "sm_100a", "none") == ()
    assert contract.tile_widths(704, "sm_90a", "none") == ()     # 11 x 64
    assert contract.flag_words(64, 64, 2) > 0       # a group of N 64 sizes its flags sanely


def test_op_arguments():
    for N in (64, 192, 2880):
        _args(N)
        _args(N, "rs")
        _args(N, schedule="swapab", cta_group=1)
        _args(N, schedule="splitk", cta_group=2)
    _args(2240, schedule="tile", bn=224)
    with pytest.raises(InputError, match="N = 2880 is no multiple of 128: the swapab kernels "
                                         "with cta_group 2 cannot serve it"):
        _args(2880, "ar", schedule="swapab", cta_group=2)
    with pytest.raises(InputError, match=r"N = 2880: no tile-schedule width \(128, 224, 256\) "
                                         r"divides it"):
        _args(2880, "rs", schedule="tile")
    _args(2880, schedule="tile")                 # mode none: 160 / 192 on sm_90a
    _args(2880, schedule="tile", bn=160)
    with pytest.raises(InputError, match=r"N = 704: no tile-schedule width \(128, 160, 192, 224, "
                                         r"256\) divides it"):
        _args(704, schedule="tile")
    with pytest.raises(InputError, match="N = 2880 must be a positive multiple of 256$"):
        _args(2880, schedule="tile", bn=256)
    with pytest.raises(InputError, match="N = 2880 must be a positive multiple of 128$"):
        _args(2880, bn=128)
    with pytest.raises(InputError, match="N = 2880 must be a positive multiple of 128 on sm_100a"):
        _args(2880, arch="sm_100a")
    with pytest.raises(InputError, match="N = 2900 must be a positive multiple of 64"):
        _args(2900)


@pytest.mark.parametrize("N", [64, 192, 1088, 2880, 5056])
def test_dispatch_picks_only_kernels_that_serve_n(N):
    """Every rule, every decode M, both budgets: a decode pick's W tiles fit N, a tile pick's
    width divides it."""
    for M in range(1, 513, 7):
        for budget in (132, 66):
            picks = [dispatch.choose_none_by_fill(M, N, "sm_90a", budget, 512, K=4096,
                                                  cluster_slots=H200_SLOTS)]
            picks += [dispatch.choose_fused_by_fill(M, N, mode, "sm_90a", budget, 512)
                      for mode in ("rs", "ar")]
            for mode in ("none", "rs"):
                picks += tuning.candidates(M, N, "sm_90a", mode, K=4096)
            for p in picks:
                if p is None:
                    continue
                schedule, bn, cg = p
                if contract.decode_schedule(schedule):
                    assert contract.decode_fits_n(N, cg, schedule), (M, p)
                else:
                    assert contract.tile_fits_n(N, bn), (M, p)


def test_op_serves_decode_rows_only_where_no_tile_width_divides_n():
    op = GemmRsAr(2048, 704, 1024, "none", arch="sm_90a", device="cpu", sm_budget=132)
    assert op.max_served_m == 512
    x = torch.zeros(600, 1024, dtype=torch.bfloat16)
    assert not op.should_run(x) and op.should_run(x[:512])
    for M in (1, 100, 300, 512):
        schedule, bn, cg = op.choice(M)
        assert schedule != "tile" and cg != 2
    # N 2880 (gpt-oss): widths 160 / 192 serve every M in mode none on sm_90a (eleventh session)
    full = GemmRsAr(2048, 2880, 1024, "none", arch="sm_90a", device="cpu", sm_budget=132)
    assert full.max_served_m == 2048 and full.should_run(x)
    for M in (513, 600, 1024, 2048):
        schedule, bn, cg = full.choice(M)
        assert schedule == "tile" and bn in (160, 192), (M, full.choice(M))
    fixed = GemmRsAr(512, 2880, 1024, "none", arch="sm_90a", device="cpu", sm_budget=132,
                     schedule="swapab")
    assert all(fixed.choice(M)[2] == 1 for M in (257, 400, 512))   # not the wide default
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
    # N 2880: served past the decode rows on sm_90a only (sm_100a takes no N % 128 != 0)
    assert GemmRsAr(4096, 2880, 1024, "none", arch="sm_90a", device="cpu").max_served_m == 4096
