"""Input validation and error records of GemmRsAr with a CPU stand-in group (no GPU needed)."""
import pytest
import torch

from codegen import contract
from codegen.runtime.errors import InputError, KernelTimeoutError
from codegen.runtime.group import Group, SymmetricBuffer
from codegen.runtime.op import GemmRsAr
from codegen.runtime.validate import check_no_overlap

N, K, MAX_M, TP = 1024, 256, 300, 4


class _Stream:
    def synchronize(self):
        pass


class CpuGroup(Group):
    """Only what validation and error handling read; nothing here is launchable."""

    def __init__(self, tp=TP, max_M=MAX_M, N=N, mode="rs", device="cpu"):
        self.tp, self.max_M, self.N, self.mode = tp, max_M, N, mode
        self.device, self.sm_budget = torch.device(device), 132 // tp
        self._err = [torch.zeros(8, dtype=torch.int32) for _ in range(tp)]
        self._stream = _Stream()

    local_ranks = property(lambda self: tuple(range(self.tp)))

    def workspace(self, rank):
        return SymmetricBuffer(torch.empty(0), torch.zeros(self.tp, dtype=torch.int64))

    flags = workspace

    def ar_buffer(self, rank):
        return self.workspace(rank) if self.mode == "ar" else None

    landing = workspace

    def push_tmaps(self, rank):
        """A fake table per rank (distinct: packing tests see which rank's was passed)."""
        if not hasattr(self, "_push"):
            self._push = [torch.empty(256, dtype=torch.uint8) for _ in range(self.tp)]
        return self._push[rank]

    def error_record(self, rank):
        return self._err[rank]

    def error_record_device_ptr(self, rank):
        return self._err[rank].data_ptr()

    def stream(self, rank):
        return self._stream


def bf16(*shape):
    return torch.randn(*shape).to(torch.bfloat16)


def misaligned(rows, cols):
    flat = torch.empty(rows * cols + 8, dtype=torch.bfloat16)
    return flat[1:1 + rows * cols].view(rows, cols)  # 2 bytes past a 16-byte boundary


@pytest.fixture
def op():
    return GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), arch="sm_90a")


def check(op, rank, x, w, match):
    with pytest.raises(InputError, match=match):
        op._validate(rank, x, w)


def test_good_input_passes(op):
    assert op._validate(2, bf16(129, K), bf16(N, K)) == 129


def test_k_not_a_multiple_of_the_k_tile():
    """K need only give 16-byte rows (a multiple of 8): the kernels' last k-tile is partial, its
    columns past K load as zeros (contract.k_tiles); K = 100 is refused, K = 72 / 200 run."""
    for k in (8, 72, 200, 1000):
        op = GemmRsAr(MAX_M, N, k, "rs", CpuGroup(), arch="sm_90a")
        assert op._validate(1, bf16(17, k), bf16(N, k)) == 17
        assert contract.k_tiles(k) == -(-k // contract.BK)
    with pytest.raises(InputError, match=r"K = 100 must be a positive multiple of 8 \(16-byte"):
        GemmRsAr(MAX_M, N, 100, "rs", CpuGroup(), arch="sm_90a")
    # the splitk kernels still want a whole k-tile per CTA of the cluster
    with pytest.raises(InputError, match=r"K = 104 is too small for the splitk schedule with "
                                         r"cta_group 2: it needs K >= 128"):
        GemmRsAr(MAX_M, N, 104, "rs", CpuGroup(), arch="sm_90a", schedule="splitk", cta_group=2)


def test_dtype(op):
    check(op, 0, torch.randn(8, K), bf16(N, K), r"x\.dtype must be torch\.bfloat16, got torch\.float32")
    check(op, 0, bf16(8, K), torch.randn(N, K).half(), r"weight\.dtype .* torch\.float16")


def test_device():
    op = GemmRsAr(MAX_M, N, K, "rs", CpuGroup(device="cuda:0"), arch="sm_90a")
    check(op, 0, bf16(8, K), bf16(N, K), r"x\.device must be cuda:0 .*got cpu")


def test_dims(op):
    check(op, 0, bf16(2, 8, K), bf16(N, K), r"x must be 2-D, got shape \(2, 8, 256\)")


def test_k(op):
    check(op, 0, bf16(8, 100), bf16(N, K), r"x\.shape\[1\] \(K\) = 100 must be a multiple of 8")
    check(op, 0, bf16(8, 320), bf16(N, 320), r"x\.shape\[1\] \(K\) = 320 must equal the op's K = 256")
    check(op, 0, bf16(8, K), bf16(N, 320), r"weight\.shape\[1\] \(K\) = 320")


def test_weight_shape(op):
    check(op, 0, bf16(8, K), bf16(N + 128, K), r"weight\.shape must be \(1024, 256\), got \(1152, 256\)")


def test_strides(op):
    """Row-major with unit column stride and a row stride >= K, a multiple of 8 (16-byte rows):
    contiguous tensors and column slices / padded views of wider ones pass; a transposed view,
    a row stride off the 16 bytes, or rows that overlap are refused."""
    x = bf16(K, 8).t()
    check(op, 0, x, bf16(N, K), r"x must be row-major with unit column stride .* got strides "
                                r"\(1, 8\) for shape \(8, 256\); pass x\.contiguous\(\)")
    wide = bf16(8, 2 * K)[:, :K]                       # a column slice: row stride 512
    assert op._validate(0, wide, bf16(N, K)) == 8
    assert op._validate(0, bf16(8, K + 64)[:, 64:], bf16(2 * N, K + 8)[::2, :K]) == 8
    assert op._validate(0, bf16(1, K + 4)[:, :K], bf16(N, K)) == 1      # one row: any stride
    check(op, 0, bf16(8, K + 4)[:, :K], bf16(N, K), r"x must be row-major .* got strides "
                                                    r"\(260, 1\)")
    overlapping = torch.as_strided(bf16(N * K), (N, K), (K - 64, 1))    # rows overlap
    check(op, 0, bf16(8, K), overlapping, r"weight must be row-major")


def test_output_overlap_sees_the_gaps_of_a_strided_view(op):
    """check_no_overlap spans a strided input from its first to its last element."""
    base = torch.zeros(4 * K, 2 * K, dtype=torch.bfloat16)
    x = base[:, :K]                                    # rows 2K apart: the gaps hold ...
    out = base[0:1, K:K + 8].reshape(1, 8)             # ... an output in row 0's gap
    with pytest.raises(InputError, match="out overlaps x"):
        check_no_overlap("out", out, x=x)


def test_alignment(op):
    check(op, 0, misaligned(8, K), bf16(N, K), r"x\.data_ptr\(\) = 0x[0-9a-f]+ must be 16-byte aligned")
    check(op, 0, bf16(8, K), misaligned(N, K), r"weight\.data_ptr\(\)")


def test_m_range(op):
    check(op, 0, bf16(MAX_M + 1, K), bf16(N, K), r"\(M\) = 301 must be in \[1, max_M = 300\]")
    check(op, 0, bf16(0, K), bf16(N, K), r"\(M\) = 0")


def test_rank(op):
    check(op, TP, bf16(8, K), bf16(N, K), r"rank = 4 must be an int in \[0, 4\)")
    check(op, -1, bf16(8, K), bf16(N, K), r"rank = -1")


def test_run_all_validates_every_rank_before_launch(op):
    xs = [bf16(8, K) for _ in range(TP)]
    ws = [bf16(N, K) for _ in range(TP)]
    ws[3] = bf16(N, 64)
    with pytest.raises(InputError, match="weight"):
        op.run_all(xs, ws)
    assert op.last_launch == {}
    with pytest.raises(InputError, match="same M"):
        op.run_all([bf16(8 + r, K) for r in range(TP)], [bf16(N, K) for _ in range(TP)])
    with pytest.raises(InputError, match=r"out\[0\]\.shape must be \(2, 1024\)"):
        op.run_all([bf16(8, K) for _ in range(TP)], [bf16(N, K) for _ in range(TP)],
                   out=[bf16(8, N) for _ in range(TP)])


def test_can_run_should_run(op):
    assert op.can_run(bf16(N, K))
    assert not op.can_run(bf16(N, K + 64))
    assert not op.can_run(torch.randn(N, K))
    assert op.should_run(bf16(1, K)) and op.should_run(bf16(MAX_M, K))  # no table: the rule
    assert not op.should_run(bf16(MAX_M + 1, K))
    with_min = GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), arch="sm_90a", min_m=128)
    assert with_min.should_run(bf16(128, K)) and not with_min.should_run(bf16(127, K))


def test_constructor_checks():
    g = CpuGroup()
    with pytest.raises(InputError, match="mode"):
        GemmRsAr(MAX_M, N, K, "xx", g)
    with pytest.raises(InputError, match="group.mode"):
        GemmRsAr(MAX_M, N, K, "ar", g)
    with pytest.raises(InputError, match="K = 100"):
        GemmRsAr(MAX_M, N, 100, "rs", g)
    with pytest.raises(InputError, match="group.max_M = 300 is smaller"):
        GemmRsAr(MAX_M + 1, N, K, "rs", g)
    with pytest.raises(InputError, match=r"bn = 80: the splitk kernels \(named by cta_group = "
                                         r"4\) have widths \[16, 32, 64, 128, 160, 192\] only"):
        GemmRsAr(512, 1024, 4096, "none", bn=80, cta_group=4, arch="sm_90a")
    with pytest.raises(InputError, match="N = 1152 must be a positive multiple of 256"):
        GemmRsAr(MAX_M, 1152, K, "rs", CpuGroup(N=1152), bn=256, arch="sm_100a")
    # (sm_90a: width 256 reaches past N 1152 = 4.5 x 256: contract.tile_ragged_n)
    GemmRsAr(MAX_M, 1152, K, "rs", CpuGroup(N=1152), bn=256, arch="sm_90a")
    with pytest.raises(InputError, match="needs a group"):
        GemmRsAr(MAX_M, N, K, "rs")


def test_dispatch_and_variant_names(op):
    # decode sizes take the swapab schedule with the smallest token tile >= M
    assert op.variant(1).name == "gemm_rs_unicast_sm90a_swapab_bn16_cg1_tp4_bf16"
    assert op.variant(17).name == "gemm_rs_unicast_sm90a_swapab_bn32_cg1_tp4_bf16"
    # N 1024: 16 CTAs of one per 64-row W tile leave half of the group's 33 SMs idle, so from
    # M 100 the wide kernel (a CTA per (128-row W tile, token tile)) fills them
    # (dispatch.choose_fused_by_fill)
    assert op.variant(100).name == "gemm_rs_unicast_sm90a_swapab_bn32_cg2_tp4_bf16"
    assert op.variant(300).name == "gemm_rs_unicast_sm90a_swapab_bn128_cg2_tp4_bf16"
    # where they fill 75% of the budget: one CTA per W tile, token tiles of at most 128 up to M
    # 512 (none: up to 256), then the tile schedule
    full = GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), arch="sm_90a", sm_budget=20)
    assert full.variant(100).name == "gemm_rs_unicast_sm90a_swapab_bn128_cg1_tp4_bf16"
    assert full.variant(300).name == "gemm_rs_unicast_sm90a_swapab_bn128_cg1_tp4_bf16"
    assert op.variant(513).name == "gemm_rs_unicast_sm90a_bn128_cg2_tp4_bf16"
    tile = GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), schedule="tile", arch="sm_90a")
    assert tile.variant(100).name == "gemm_rs_unicast_sm90a_bn128_cg1_tp4_bf16"
    assert GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), bn=32, arch="sm_90a").choice(5) == ("swapab", 32, 1)
    assert GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), bn=128, arch="sm_90a").choice(5) == ("tile", 128, 1)
    # a token tile only the decode kernels have (160) names the swapab schedule: N need only be
    # a multiple of its 64-row W tiles, not of 160
    assert N % 160
    assert GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), bn=160, arch="sm_90a").choice(150) == (
        "swapab", 160, 1)
    assert GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), bn=160, cta_group=2,
                    arch="sm_90a").choice(150) == ("swapab", 160, 2)
    # sm_100a has the decode schedule too (tcgen05, 64 W rows per CTA tile)
    b200 = GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), arch="sm_100a")
    assert b200.choice(5) == ("swapab", 16, 1)
    assert b200.variant(5).name == "gemm_rs_unicast_sm100a_swapab_bn16_cg1_tp4_bf16"
    assert b200.choice(513)[0] == "tile"
    fixed = GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), bn=256, cta_group=1, arch="sm_90a")
    assert fixed.variant(300).name == "gemm_rs_unicast_sm90a_bn256_cg1_tp4_bf16"
    none = GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cpu")
    assert none.variant(1).name == "gemm_none_sm90a_swapab_bn16_cg1_bf16"
    assert none.variant(1000).name == "gemm_none_sm90a_bn128_cg2_bf16"
    assert none.out_shape(7) == (7, N) and op.out_shape(7) == (2, N)


def test_virtual_style_group_never_uses_multicast(op, monkeypatch):
    assert op.transport == "unicast"  # pointer 0: decided without any device query
    g = CpuGroup()
    with pytest.raises(InputError, match="multicast.*no multicast pointer"):
        GemmRsAr(MAX_M, N, K, "rs", g, transport="multicast", arch="sm_90a").transport


def test_error_record_raises_until_reset(op):
    op.check_errors()
    rec = op.group.error_record(1)
    rec.copy_(torch.tensor([1, 1, 3, 5, 0, 7, 6, 7], dtype=torch.int32))
    with pytest.raises(KernelTimeoutError) as ei:
        op.check_errors()
    e = ei.value
    assert (e.code, e.rank, e.tile, e.peer, e.expected, e.seen, e.epoch) == (1, 1, (3, 5), 0, 7, 6, 7)
    assert "rank 1" in str(e) and "peer 0" in str(e) and "tile (m=3, n=5)" in str(e)
    with pytest.raises(KernelTimeoutError):  # a call checks first, before validating
        op(0, bf16(8, K), bf16(N, K))
    with pytest.raises(KernelTimeoutError):
        op.synchronize()
    op.reset_errors()
    op.check_errors()


def test_geometry_of_group(op):
    assert op.group.rows_pad == contract.rows_pad(MAX_M) == 512
    assert op.group.m_tiles_max == 4


@pytest.mark.parametrize("kwargs, match", [
    ({"timeout_ms": 0}, r"timeout_ms = 0 must be an int \[1, 3600000\]"),
    ({"timeout_ms": -5}, r"timeout_ms = -5"),
    ({"timeout_ms": 10**13}, r"timeout_ms = 10000000000000"),
    ({"sm_budget": 0}, r"sm_budget = 0 must be an int >= 1"),
    ({"sm_budget": -1}, r"sm_budget = -1"),
    ({"min_m": -1}, r"min_m = -1"),
    ({"min_m": 1.5}, r"min_m = 1.5"),
])
def test_runtime_knobs_are_bounded(kwargs, match):
    """Issue 8, case 10: every runtime knob is checked at construction, before any launch."""
    with pytest.raises(InputError, match=match):
        GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), arch="sm_90a", **kwargs)


@pytest.mark.parametrize("bad", ["8", 8.0, True, None])
def test_max_m_type(bad):
    with pytest.raises(InputError, match=r"max_M = .* must be an int >= 1"):
        GemmRsAr(bad, N, K, "rs", CpuGroup(), arch="sm_90a")


def test_sm_budget_above_the_device(monkeypatch):
    op = GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cpu", sm_budget=10**6)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)

    class Props:
        multi_processor_count = 132

    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda dev: Props())
    with pytest.raises(InputError, match=r"sm_budget = 1000000 exceeds the 132 SMs"):
        op.sm_budget


def test_out_sharing_memory_with_an_input_is_refused():
    op = GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cpu")
    x, w = bf16(8, K), bf16(N, K)
    alias = w.view(-1)[: 8 * N].view(8, N)        # out inside the weight's storage
    with pytest.raises(InputError, match=r"out overlaps weight"):
        op(0, x, w, out=alias)
    big = bf16(8 + 8 * N // K, K)                  # x and out carved from one tensor, overlapping
    with pytest.raises(InputError, match=r"out overlaps x"):
        op(0, big[:8], w, out=big.view(-1)[8 * K - 8: 8 * K - 8 + 8 * N].view(8, N))


def _table(root, rows, mode="rs", K=K):
    from codegen.runtime.tuning import table_path, write_table

    write_table(table_path(root, "sm_90a", mode, TP, N, K), arch="sm_90a", mode=mode, tp=TP, N=N,
                K=K, rows=[dict(zip(("M", "schedule", "bn", "cta_group", "fused_us",
                                     "best_unfused_us", "best_unfused"), r)) for r in rows])


def test_tuning_table_drives_dispatch_and_should_run(tmp_path):
    """Issue 9: the op picks schedule/BN/CTA group per M from the measured table next to the
    manifests, and should_run uses its crossover instead of a fixed min_m."""
    _table(tmp_path, [(16, "swapab", 32, 1, 9.0, 8.0, "nccl"),      # fused loses at 16
                      (64, "swapab", 64, 1, 9.0, 12.0, "nccl"),
                      (256, "tile", 256, 2, 20.0, 30.0, "nccl")])
    op = GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), arch="sm_90a", cache_dir=tmp_path)
    assert op.choice(10) == ("swapab", 32, 1) and op.choice(17) == ("swapab", 64, 1)
    assert op.choice(100) == ("tile", 256, 2) and op.choice(MAX_M) == ("tile", 256, 2)
    # should_run follows the measured verdict of the row that covers M (the smallest measured
    # M >= M): fused lost at 16, won at 64 (covers 17..64) and 256 (covers 65..MAX_M)
    assert op.tuning_table().crossover_m == 64
    assert not op.should_run(bf16(16, K)) and op.should_run(bf16(17, K))
    assert op.should_run(bf16(MAX_M, K))
    fixed = GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), arch="sm_90a", cache_dir=tmp_path,
                     schedule="tile", min_m=1)
    assert fixed.choice(10)[0] == "tile" and fixed.should_run(bf16(1, K))
    # no table for another K: the built-in rules
    other = GemmRsAr(MAX_M, N, 2 * K, "rs", CpuGroup(), arch="sm_90a", cache_dir=tmp_path)
    assert other.choice(10) == ("swapab", 16, 1) and other.should_run(bf16(128, 2 * K))


def test_tuning_table_with_a_losing_middle(tmp_path):
    """Measured on two H200s: fused wins at M <= 64 and at large M but loses at 128..512."""
    _table(tmp_path, [(16, "swapab", 16, 1, 9.0, 12.6, "nccl"), (128, "swapab", 128, 1, 18.4, 17.5, "nccl"),
                      (4096, "tile", 256, 2, 300.0, 330.0, "nccl")])
    op = GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), arch="sm_90a", cache_dir=tmp_path)
    assert op.should_run(bf16(8, K)) and not op.should_run(bf16(100, K)) and op.should_run(bf16(200, K))


def test_malformed_tuning_table_is_loud(tmp_path):
    from codegen.runtime.tuning import TuningError, table_path

    path = table_path(tmp_path, "sm_90a", "rs", TP, N, K)
    path.parent.mkdir(parents=True)
    path.write_text('{"format": 1, "rows": "x"}')
    op = GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), arch="sm_90a", cache_dir=tmp_path)
    with pytest.raises(TuningError, match="rs_tp4"):
        op.choice(16)


def test_swapab_past_its_landing_rows_is_refused_before_launch():
    """A forced decode schedule with more rows than the group's landing buffer holds."""
    op = GemmRsAr(600, N, K, "rs", CpuGroup(max_M=600), schedule="swapab", arch="sm_90a")
    assert op.land_rows == 512
    with pytest.raises(InputError, match=r"\(M\) = 513 exceeds the 512 landing rows"):
        op(0, bf16(513, K), bf16(N, K))
    assert op.last_launch == {}
    # dispatched (not forced): 513 rows take the tile schedule
    assert GemmRsAr(600, N, K, "rs", CpuGroup(max_M=600), arch="sm_90a").choice(513)[0] == "tile"
    # mode none (no group): the same refusal, not an AttributeError on the missing group
    none = GemmRsAr(600, N, K, "none", schedule="swapab", arch="sm_90a", device="cpu")
    with pytest.raises(InputError, match=r"\(M\) = 513 exceeds the 512 rows the swapab schedule"):
        none(0, bf16(513, K), bf16(N, K))


def test_swapab_cta_group_2_takes_any_k():
    """The decode schedule's cta_group 2 is the wide tile (contract.swapab_wide), no K split
    (the CTA pair it replaced needed K >= 128): K = 64 is accepted in every mode."""
    GemmRsAr(MAX_M, N, 64, "rs", CpuGroup(), schedule="swapab", cta_group=2, arch="sm_90a")
    GemmRsAr(MAX_M, N, 64, "ar", CpuGroup(mode="ar"), schedule="swapab", cta_group=2,
             arch="sm_90a")
    GemmRsAr(MAX_M, N, 64, "none", schedule="swapab", cta_group=2, arch="sm_90a", device="cpu")


def test_wide_decode_grid():
    """The cta_group 2 decode kernel (every mode): one CTA per (128-row W tile, token tile), at
    most the SM budget; cta_group 1: one CTA per 64-row W tile."""
    from codegen.runtime.dispatch import launch_grid
    from codegen.spec import Variant
    wide = Variant("sm_90a", "none", None, 160, 2, None, schedule="swapab")
    assert launch_grid(wide, {}, 1, 288, 7168, 132) == 112      # 56 W tiles x 2 token tiles
    assert launch_grid(wide, {}, 1, 160, 7168, 132) == 56
    assert launch_grid(wide, {}, 1, 512, 7168, 132) == 132      # 56 x 4, capped: CTAs loop
    assert launch_grid(wide, {}, 1, 1, 128, 132) == 1
    rs = Variant("sm_90a", "rs", "unicast", 160, 2, 2, schedule="swapab")
    assert launch_grid(rs, {}, 1, 300, 7168, 132) == 112
    one = Variant("sm_90a", "rs", "unicast", 160, 1, 2, schedule="swapab")
    assert launch_grid(one, {}, 1, 300, 7168, 132) == 112       # 112 x 64-row W tiles
    assert launch_grid(one, {}, 1, 300, 16384, 132) == 132


def test_default_swapab_choice():
    """Without a table: cta_group 1 (the pair lost once the cta_group 1 WGMMAs were pipelined),
    rs/ar token tiles of at most 128 up to M 512, then the tile schedule."""
    def choice(K, M, mode="rs", arch="sm_90a"):
        # a budget the 16 W tiles fill (else dispatch.choose_fused_by_fill weighs wide kernels)
        return GemmRsAr(MAX_M, N, K, mode, CpuGroup(mode=mode), arch=arch,
                        sm_budget=20).choice(M)
    assert choice(2304, 64) == ("swapab", 64, 1) and choice(1536, 16) == ("swapab", 16, 1)
    assert choice(2304, 200) == ("swapab", 128, 1) and choice(768, 300, "ar") == ("swapab", 128, 1)
    assert choice(768, 513)[0] == "tile"
    assert choice(2304, 64, arch="sm_100a")[2] == 1
    # a fixed cta_group still takes the pair
    assert GemmRsAr(MAX_M, N, 2304, "rs", CpuGroup(), arch="sm_90a", schedule="swapab",
                    cta_group=2).choice(64) == ("swapab", 64, 2)


def test_mode_none_without_a_table_dispatches_by_wave_fill(tmp_path):
    """Mode none at M <= 512 without a tuning table (sm_90a, an SM budget known): the wave-fill
    rule (dispatch.choose_none_by_fill); a table for the shape still decides, and any fixed
    schedule / BN / CTA group bypasses the rule."""
    op = GemmRsAr(1024, 4096, 2048, "none", arch="sm_90a", sm_budget=132, cache_dir=tmp_path)
    assert op.choice(256) == ("swapab", 64, 2)       # 32 W tiles x 4 token tiles: 128 CTAs
    assert op.choice(16) == ("swapab", 16, 1)
    assert op.choice(513)[0] == "tile"               # above the decode rows: the tile rules
    fixed = GemmRsAr(1024, 4096, 2048, "none", arch="sm_90a", sm_budget=132, cta_group=1,
                     schedule="swapab", cache_dir=tmp_path)
    assert fixed.choice(256) == ("swapab", 256, 1)
    from codegen.runtime.tuning import table_path, write_table

    write_table(table_path(tmp_path, "sm_90a", "none", 1, 4096, 2048), arch="sm_90a",
                mode="none", tp=1, N=4096, K=2048,
                rows=[dict(M=512, schedule="tile", bn=128, cta_group=1, fused_us=9.0,
                           best_unfused_us=9.5, best_unfused="torch.mm")])
    tabled = GemmRsAr(1024, 4096, 2048, "none", arch="sm_90a", sm_budget=132, cache_dir=tmp_path)
    assert tabled.choice(256) == ("tile", 128, 1)


# ---- memory, neg views, autograd, devices, groups, threads (the review's gaps) ---------------
def _launch_recorder(op):
    """Replace the launch below the group's lock by a recorder of (rank, lock held)."""
    seen = []
    op._launch = lambda rank, x, w, out, M, ordered_after=None: seen.append(
        (rank, op.group._launch_lock.locked()))
    return seen


def test_freed_or_shrunk_storage_is_refused(op):
    """A storage freed (resize_(0): address 0, which passes every alignment check) or shrunk
    below the view would be read at address 0 or past its allocation."""
    seen = _launch_recorder(op)
    freed = bf16(N, K)
    freed.untyped_storage().resize_(0)
    check(op, 0, bf16(8, K), freed, r"weight\.data_ptr\(\) is 0: its storage was freed")
    shrunk = bf16(8, K)
    shrunk.untyped_storage().resize_(100)
    check(op, 0, shrunk, bf16(N, K), r"x reaches byte 4096 of its storage, which holds only "
                                     r"100 bytes")
    view = bf16(16, 2 * K)[8:, K:]                     # a view at an offset: its end counts
    assert op._validate(0, view, bf16(N, K)) == 8
    view.untyped_storage().resize_(16 * 2 * K * 2 - 2)
    check(op, 0, view, bf16(N, K), r"x reaches byte 16384 of its storage, which holds only 16382")
    out = torch.empty(op.out_shape(8), dtype=torch.bfloat16)
    out.untyped_storage().resize_(0)
    with pytest.raises(InputError, match=r"out\.data_ptr\(\) is 0"):
        op(0, bf16(8, K), bf16(N, K), out=out)
    small = torch.empty(op.out_shape(8), dtype=torch.bfloat16)
    small.untyped_storage().resize_(64)
    with pytest.raises(InputError, match=r"out reaches byte 4096 of its storage, which holds "
                                         r"only 64 bytes"):
        op(0, bf16(8, K), bf16(N, K), out=small)
    assert seen == []


def test_negated_views_are_refused(op):
    """torch._neg_view sets the neg bit: the memory holds x, reads give -x. The kernels read the
    memory, so the result would have the wrong sign (a conj bit needs a complex dtype)."""
    seen = _launch_recorder(op)
    x, w = bf16(8, K), bf16(N, K)
    check(op, 0, torch._neg_view(x), w, r"x is a negated view \(is_neg\(\).*x\.resolve_neg\(\)")
    check(op, 0, x, torch._neg_view(w), r"weight is a negated view")
    out = torch._neg_view(torch.empty(op.out_shape(8), dtype=torch.bfloat16))
    with pytest.raises(InputError, match=r"out is a negated view"):
        op(0, x, w, out=out)
    assert seen == []
    op(0, torch._neg_view(x).resolve_neg(), w)
    assert seen == [(0, True)]


def test_autograd_is_refused_with_grad_mode_on(op):
    """The kernels have no autograd: an x, weight or out that requires grad is an InputError in
    grad mode (the result would silently not be differentiable); under no_grad or
    inference_mode (a weight that is an nn.Parameter included) the call runs."""
    seen = _launch_recorder(op)
    x, w = bf16(8, K), torch.nn.Parameter(bf16(N, K))
    assert w.requires_grad
    check(op, 0, x, w, r"weight requires grad, but the fused kernels are inference only .*"
                       r"torch\.no_grad\(\) or torch\.inference_mode\(\)")
    check(op, 0, x.clone().requires_grad_(), bf16(N, K), r"x requires grad")
    out = torch.empty(op.out_shape(8), dtype=torch.bfloat16, requires_grad=True)
    with pytest.raises(InputError, match=r"out requires grad"):
        op(0, x, bf16(N, K), out=out)
    assert seen == []
    with torch.no_grad():
        op(0, x.clone().requires_grad_(), w, out=out)
    with torch.inference_mode():
        op(1, x, w)
    assert seen == [(0, True), (1, True)]


def test_sparse_inputs_are_refused_by_name(op):
    check(op, 0, bf16(8, K).to_sparse(), bf16(N, K), r"x must be a dense \(strided\) tensor, "
                                                     r"got layout torch\.sparse_coo")
    check(op, 0, bf16(8, K), bf16(N, K).to_sparse_csr(), r"weight must be a dense \(strided\) "
                                                         r"tensor, got layout torch\.sparse_csr")


def test_run_all_needs_sized_sequences(op):
    seen = _launch_recorder(op)
    xs, ws = [bf16(8, K) for _ in range(TP)], [bf16(N, K) for _ in range(TP)]
    with pytest.raises(InputError, match=r"xs must be a list or tuple of 4 tensors .*got a "
                                         r"generator"):
        op.run_all((x for x in xs), ws)
    with pytest.raises(InputError, match=r"out must be a list or tuple of 4 tensors"):
        op.run_all(xs, ws, out=iter([]))
    assert seen == []


def test_sm_budget_above_the_groups_share_is_refused():
    """Eight virtual ranks of a 132-SM device get 16 SMs each: a grid of 132 per rank cannot be
    resident with the others, and every call would time out."""
    g = CpuGroup(tp=8)
    assert g.sm_budget == 16
    with pytest.raises(InputError, match=r"sm_budget = 132 exceeds the group's sm_budget = 16 "
                                         r".*pass at most 16"):
        GemmRsAr(MAX_M, N, K, "rs", g, arch="sm_90a", sm_budget=132)
    assert GemmRsAr(MAX_M, N, K, "rs", g, arch="sm_90a", sm_budget=16).sm_budget == 16


def test_mode_none_takes_no_group():
    with pytest.raises(InputError, match=r"mode 'none' is a plain GEMM .* takes no group \(got a "
                                         r"CpuGroup\)"):
        GemmRsAr(MAX_M, N, K, "none", CpuGroup(N=2048), arch="sm_90a")


def test_a_group_must_be_a_group():
    with pytest.raises(InputError, match=r"group must be a codegen\.runtime Group .*got a object "
                                         r"without tp, device, mode, max_M, N, sm_budget"):
        GemmRsAr(MAX_M, N, K, "rs", object(), arch="sm_90a")
    g = CpuGroup()
    g.device = torch.device("cuda")         # the Group interface: a device with its index
    with pytest.raises(InputError, match=r"group\.device = device\(type='cuda'\) must be a "
                                         r"torch\.device with its index"):
        GemmRsAr(MAX_M, N, K, "rs", g, arch="sm_90a")


def test_op_device(monkeypatch):
    """Mode none's device: 'cuda' without an index is the current device (resolved now where
    CUDA is, else at first use, never a None index later); devices no kernel runs on are
    refused; 'cpu' (the CPU tests' stand-in) validates but never loads or launches."""
    for bad, match in [("meta", r"device = 'meta': the kernels run on CUDA devices only"),
                       ("bogus", r"device = 'bogus' is not a device"),
                       (-1, r"device = -1 is not a device")]:
        with pytest.raises(InputError, match=match):
            GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device=bad)
    assert GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device=2).device == torch.device("cuda", 2)
    assert GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cuda:1").device.index == 1
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 3)
    assert GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cuda").device == \
        torch.device("cuda", 3)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cuda").device is None


def test_a_cpu_op_never_loads_or_launches(monkeypatch):
    """An op on 'cpu' (validation only) refuses to load a kernel (its device has no index for
    cuDeviceGet) and run_all refuses before recording a CUDA event."""
    import codegen.runtime.op as op_mod
    from codegen.runtime.kernel import LoadedKernel
    from codegen.spec import Variant
    from test_runtime_op_params import _kernel

    v = Variant("sm_90a", "none", None, 128, 1, None)
    entry = _kernel(v).entry
    monkeypatch.setattr(op_mod, "find_entry", lambda *a: entry)
    monkeypatch.setattr(LoadedKernel, "function", property(
        lambda self: pytest.fail("a cubin load was attempted")))
    none = GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cpu")
    with pytest.raises(InputError, match=r"this op's device is cpu: .*CUDA devices only"):
        none.kernel(v)
    rs = GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), arch="sm_90a")
    seen = _launch_recorder(rs)
    with pytest.raises(InputError, match=r"this op's device is cpu"):
        rs.run_all([bf16(8, K) for _ in range(TP)], [bf16(N, K) for _ in range(TP)])
    assert seen == []


def test_launches_hold_the_group_lock(op):
    """A single call's launch and run_all's launches over every rank (and its join) hold the
    group's lock, one lock shared by every op on the group; mode none has none."""
    from codegen.runtime.group import launch_lock

    seen = _launch_recorder(op)
    op(2, bf16(8, K), bf16(N, K))
    assert seen == [(2, True)]
    joined = []
    op._ready_event = lambda: None
    op.join = lambda: joined.append(op.group._launch_lock.locked())
    op.run_all([bf16(8, K) for _ in range(TP)], [bf16(N, K) for _ in range(TP)])
    assert seen[1:] == [(r, True) for r in range(TP)] and joined == [True]
    assert not op.group._launch_lock.locked()
    other = GemmRsAr(MAX_M, N, 2 * K, "rs", op.group, arch="sm_90a")
    assert other._launch_lock is op._launch_lock is launch_lock(op.group)
    assert GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cpu")._launch_lock is None
    seen.clear()
    with pytest.raises(InputError):                    # a failed call leaves it released
        op(0, bf16(8, K), bf16(N, K), out=bf16(1, 1))
    assert not op.group._launch_lock.locked()


def test_a_threads_run_all_is_never_interleaved_with_another_threads_call(op):
    """Thread A's run_all stalls inside its first rank's launch; thread B's call on the same
    group must wait until A launched every rank (without the lock B's launch lands between
    A's ranks: each rank stream would then order the two calls differently)."""
    import threading

    order, started, go = [], threading.Event(), threading.Event()

    def launch(rank, x, w, out, M, ordered_after=None):
        order.append((threading.current_thread().name, rank))
        if threading.current_thread().name == "A" and rank == 0:
            started.set()
            go.wait(5)

    op._launch = launch
    op._ready_event = lambda: None
    op.join = lambda: None
    a = threading.Thread(name="A", target=op.run_all,
                         args=([bf16(8, K) for _ in range(TP)], [bf16(N, K) for _ in range(TP)]))
    b = threading.Thread(name="B", target=op, args=(1, bf16(8, K), bf16(N, K)))
    a.start()
    assert started.wait(5)
    b.start()
    b.join(0.5)                 # B finishes now only if nothing holds it back
    go.set()
    a.join(5)
    b.join(5)
    assert order == [("A", 0), ("A", 1), ("A", 2), ("A", 3), ("B", 1)]


def test_group_lock_of_a_group_with_slots():
    from codegen.runtime.group import launch_lock

    class Slotted:
        __slots__ = ("tp",)

    g = Slotted()
    assert launch_lock(g) is launch_lock(g)
    assert launch_lock(g) is not launch_lock(Slotted())


# ---- argument types an untested caller passes (a helper's review, twenty-third session) ---------
@pytest.mark.parametrize("kwargs, match", [
    ({"bn": 128.0}, r"bn = 128\.0 must be an int or None, not a float"),
    ({"bn": "128"}, r"bn = '128' must be an int or None, not a str"),
    ({"cta_group": True}, r"cta_group = True must be an int or None, not a bool"),
    ({"cta_group": 2.0}, r"cta_group = 2\.0 must be an int or None, not a float"),
])
def test_bn_and_cta_group_types_are_refused_at_construction(kwargs, match):
    """A float 128.0 or True (== 1) passed the membership checks, and the first call (or
    prepare()) raised Variant's SpecError 'bn=128.0 must be an int', not an InputError, after
    construction had accepted it."""
    with pytest.raises(InputError, match=match):
        GemmRsAr(MAX_M, N, K, "rs", CpuGroup(), arch="sm_90a", **kwargs)
    with pytest.raises(InputError, match=match):
        GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cpu", **kwargs)


def test_numpy_bn_is_refused_at_construction():
    np = pytest.importorskip("numpy")
    with pytest.raises(InputError, match=r"bn = .*128.* must be an int or None, not a int64"):
        GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cpu", bn=np.int64(128))


def test_cache_dir_and_manifest_arguments(monkeypatch, tmp_path):
    """cache_dir / manifest: '~' expanded as in CODEGEN_CACHE_DIR / CODEGEN_MANIFEST (before:
    kept literally, so a manifest under ~ was 'missing'), an empty one refused (before: the
    current directory), one that is no path an InputError (before: TypeError from pathlib)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    op = GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cpu", cache_dir="~/c",
                  manifest="~/deploy/tp8.json")
    assert op.cache_dir == tmp_path / "c" and op.manifest == tmp_path / "deploy" / "tp8.json"
    bare = GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cpu", cache_dir="~/c",
                    manifest="tp8.json")
    assert bare.manifest == tmp_path / "c" / "manifests" / "tp8.json"
    for kw, match in [({"cache_dir": ""}, r"cache_dir = '' must be a non-empty path"),
                      ({"manifest": " "}, r"manifest = ' ' must be a non-empty path"),
                      ({"cache_dir": 5}, r"cache_dir = 5 must be a path .* not a int"),
                      ({"manifest": ["m.json"]}, r"manifest = \['m.json'\] must be a path")]:
        with pytest.raises(InputError, match=match):
            GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cpu", **kw)


@pytest.mark.parametrize("attr, value", [("sm_budget", 16.5), ("sm_budget", 0), ("tp", 0),
                                         ("max_M", True), ("N", "1024")])
def test_a_groups_sizes_must_be_ints(attr, value):
    """A group's tp / max_M / N / sm_budget (the Group interface) must be ints >= 1: a float
    sm_budget (a SymmMemGroup's SMs - sm_margin with a float margin) was taken as the grid."""
    g = CpuGroup()
    setattr(g, attr, value)
    with pytest.raises(InputError, match=rf"group\.{attr} = {value!r}: the Group interface"):
        GemmRsAr(MAX_M, N, K, "rs", g, arch="sm_90a")


def test_prepare_takes_the_rows_a_call_may_have(op):
    """prepare(Ms): a list of ints in [1, max_M]; before, prepare(16) was a TypeError ('int'
    object is not iterable) and prepare([0]) / prepare([10**6]) loaded kernels no call can use."""
    for bad, match in [(16, r"Ms = 16 must be a list of row counts"),
                       ([0], r"Ms holds 0: each M must be an int in \[1, 300\]"),
                       ([16, MAX_M + 1], r"Ms holds 301"),
                       ([16.0], r"Ms holds 16\.0")]:
        with pytest.raises(InputError, match=match):
            op.prepare(bad)


@pytest.mark.parametrize("M", [0, -1, 1.5, "16", True, None])
def test_choice_refuses_an_m_that_is_no_positive_int(M):
    # op.choice / op.config answer for rows a call can have; anything else is named, not priced
    op = GemmRsAr(MAX_M, N, 2304, "rs", CpuGroup(mode="rs"), arch="sm_90a", sm_budget=20)
    with pytest.raises(InputError, match="positive int"):
        op.choice(M)
    with pytest.raises(InputError, match="positive int"):
        op.config(M)
    assert op.choice(1)[0] == "swapab"
    assert op.choice(torch.tensor(64).numpy()[()]) == op.choice(64)   # a numpy int counts
