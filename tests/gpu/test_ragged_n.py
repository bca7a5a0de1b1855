"""N a multiple of 64 but not of 128 (contract.N_MULTIPLE; gpt-oss's hidden size is 2880): the
decode kernels with 64-row W tiles (cta_group 1, splitk), the 192-row W tile reaching past N
(cta_group 3, mode none), the wide kernel (cta_group 2, every mode) likewise, and the tile
schedule at a width dividing N (224) against fp32 references on fresh data, outputs NaN-poisoned
first (gpu_common); past the decode rows the tile schedule at a width dividing N (sm_90a, every
mode: 128, 160, 192, 224 or 256; N 2880 = 18 x 160 = 15 x 192), or at any width with its last
N tile past N (contract.tile_ragged_n: mode none since the thirteenth session, rs/ar since the
fourteenth); a fixed decode schedule past its rows is refused before any launch."""
import pytest
import torch

from codegen.runtime import GemmRsAr, InputError, VirtualGroup, dispatch
from gpu_common import (ISSUE9_MS, assert_guards, check_first_output_survives,
                        check_graph_replays, check_none, check_none_graph, check_outputs, fresh,
                        rank_inputs, requires_gpu, run_poisoned)

DECODE_MS = (1, 17, 100, 129, 257, 511, 512)
WIDE_MS = ISSUE9_MS + (512,)
TIMEOUT_MS = 1000


def check_fixed_tile(tp, mode, bn, cg, shapes):
    """rs / ar's tile kernel (bn, cg) fixed, on `tp` virtual ranks, at each (N, K) of `shapes`:
    M past the decode rows up and down and below them (row tiles straddling owners, a short last
    tile, several waves), every rank's output NaN-poisoned first; the first call's output kept
    across a second call; a graph replayed on fresh inputs."""
    for N, K in shapes:
        group = VirtualGroup(tp, 4096, N, mode)
        op = GemmRsAr(4096, N, K, mode, group, schedule="tile", bn=bn, cta_group=cg,
                      timeout_ms=TIMEOUT_MS)
        for M in (1, 129, 513, 1000, 4096, 2049, 777):
            guard = []   # (a store past N on the output's last row would land past its end)
            xs, ws, outs = run_poisoned(op, tp, M, N, K, guard)
            op.synchronize()
            assert (op.last_launch[0]["bn"], op.last_launch[0]["cta_group"]) == (bn, cg)
            what = f"{mode} tp={tp} N={N} M={M} tile bn={bn} cg={cg}"
            check_outputs(mode, outs, xs, ws, what)
            assert_guards(guard, what)
        xs, ws = rank_inputs(tp, 1500, N, K)
        check_first_output_survives(op, mode, xs, ws, f"{mode} tp={tp} N={N} bn={bn} cg={cg}")
        check_graph_replays(op, mode, xs, ws, f"graph {mode} tp={tp} N={N} bn={bn} cg={cg}")
        torch.cuda.synchronize()


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("schedule,bn,cg", [(None, None, None), ("swapab", 64, 1),
                                            ("swapab", 96, 3), ("splitk", 64, 2),
                                            ("splitk", 128, 4)])
@pytest.mark.parametrize("N", [192, 704, 2880])
def test_none_n_not_a_multiple_of_128(N, schedule, bn, cg):
    K = 1000
    op = GemmRsAr(1024, N, K, "none", schedule=schedule, bn=bn, cta_group=cg)
    for M in DECODE_MS:
        check_none(op, M, N, K, f"none N={N} {schedule} bn={bn} cg={cg}")
    if schedule is None:
        # 192 and 2880 are multiples of the sm_90a mode-none tile widths 160 / 192
        # (contract.TILE_EXTRA_BNS); 704 = 11 x 64 of none, but the tile kernels' last N tile
        # reaches past N (contract.tile_ragged_n): the dispatcher serves every M
        for M in (513, 1000, 1024):
            check_none(op, M, N, K, f"none N={N} past the decode rows")
            assert op.last_launch[0]["schedule"] == "tile"
        return
    # a fixed decode schedule serves its landing rows only
    with pytest.raises(InputError, match="exceeds"):
        op(0, fresh((513, K)), fresh((N, K)))


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("bn", [16, 64, 128, 224, 256])
@pytest.mark.parametrize("N", [64, 704, 2880, 1088])
def test_none_wide_kernel_past_n(N, bn):
    """Mode none's wide decode kernel (cta_group 2, 128-row W tiles) at N = 64 mod 128
    (contract.swapab_ragged_n): its last W tile's rows past N load as zeros and are not stored
    (out is exactly [M, N], NaN-poisoned first, so a store past N or a missed column shows);
    issue 9's decode M list up and down, K ragged; then N 2944 (a multiple of 128) unchanged."""
    K = 1000
    for n in (N, 2944):
        op = GemmRsAr(512, n, K, "none", schedule="swapab", bn=bn, cta_group=2)
        for M in WIDE_MS + WIDE_MS[::-1]:
            check_none(op, M, n, K, f"none N={n} wide bn={bn} M={M}")
            assert op.last_launch[0]["cta_group"] == 2


@pytest.mark.gpu
@requires_gpu
def test_none_wide_kernel_past_n_dispatched():
    """N 2880 through the dispatcher at every decode M a rule may give the ragged wide kernel,
    and under CUDA-graph replay on fresh inputs."""
    N, K = 2880, 2048
    op = GemmRsAr(512, N, K, "none")
    seen = set()
    for M in range(16, 513, 16):
        check_none(op, M, N, K, f"none N={N} M={M} dispatched")
        seen.add((op.last_launch[0]["schedule"], op.last_launch[0]["cta_group"]))
    check_none_graph(op, 256, N, K, "none N=2880 M=256 graph")
    assert ("swapab", 2) in seen, seen


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("cg", [1, 2])
@pytest.mark.parametrize("bn", [128, 160, 192, 224, 256])
def test_none_tile_past_n(bn, cg):
    """Mode none's tile kernels with their last N tile past N (contract.tile_ragged_n, sm_90a,
    thirteenth session): N 64 (one tile, mostly past N), 704 = 11 x 64, 4544 (Falcon-7B's
    hidden size, 71 x 64), 2880 at a width not dividing it; rows past N load as zeros, nothing
    past N is stored (out is exactly [M, N], NaN-poisoned first); K ragged; M across the row
    tiles, up and down; then a CUDA graph replayed on fresh x."""
    K = 1000
    for N in (64, 704, 4544, 2880):
        if N % bn == 0:
            continue
        op = GemmRsAr(4096, N, K, "none", schedule="tile", bn=bn, cta_group=cg)
        for M in (1, 129, 513, 1000, 4096, 2049, 300):
            check_none(op, M, N, K, f"none N={N} tile bn={bn} cg={cg} past N")
            assert (op.last_launch[0]["bn"], op.last_launch[0]["cta_group"]) == (bn, cg)
        check_none_graph(op, 700, N, K, f"none N={N} tile bn={bn} cg={cg} graph")


@pytest.mark.gpu
@requires_gpu
def test_none_tile_past_n_dispatched():
    """N 704 / 4544 / 1088 through the dispatcher past the decode rows (before: refused past 512
    rows): the tile schedule at every M, or splitkw where its rule says (fifteenth session: at
    N 704 / 1088 while its pairs fit one wave), the decode picks below unchanged."""
    K = 2048
    for N in (704, 4544, 1088):
        op = GemmRsAr(8192, N, K, "none")
        for M in (256, 512, 513, 1024, 3000, 8192):
            check_none(op, M, N, K, f"none N={N} M={M} dispatched")
            split = dispatch.choose_none_splitkw(M, N, K, op.arch, op.sm_budget,
                                                 op.splitkw_slots())
            want = "tile" if split is None else "splitkw"
            if M > 512:
                assert op.last_launch[0]["schedule"] == want, op.last_launch[0]
                assert split is None or N < 4544
            else:   # the decode picks
                assert op.last_launch[0]["schedule"] in ("swapab", "splitk"), op.last_launch[0]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("cg", [1, 2])
def test_none_tile_width_224(cg):
    N, K = 2240, 768                         # 35 x 64 = 10 x 224
    op = GemmRsAr(2048, N, K, "none", schedule="tile", bn=224, cta_group=cg)
    for M in (1, 129, 600, 2048):
        check_none(op, M, N, K, f"none N={N} tile 224 cg={cg}")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("schedule", [None, "splitk"])
@pytest.mark.parametrize("mode", ["rs", "ar"])
@pytest.mark.parametrize("tp", [2, 8])
def test_fused_n_not_a_multiple_of_128(tp, mode, schedule):
    """rs / ar on virtual ranks, every decode M forward and back, past them the tile schedule
    (dispatched) or a refusal (splitk fixed), then a graph replay on fresh inputs."""
    for N, K in ((2880, 512), (1088, 2048)):
        group = VirtualGroup(tp, 1024, N, mode)
        op = GemmRsAr(1024, N, K, mode, group, schedule=schedule, timeout_ms=TIMEOUT_MS)
        for M in DECODE_MS + DECODE_MS[::-1]:
            xs, ws, outs = run_poisoned(op, tp, M, N, K)
            op.synchronize()
            check_outputs(mode, outs, xs, ws, f"{mode} tp={tp} N={N} M={M} {schedule}")
            # (no table: the default decode kernel, or past one wave of the budget from M 200
            # the tile schedule at a width dividing N (dispatch.FUSED_FILL_TILE_MIN_M), or where
            # a cluster per 64-row W tile fits the rank's share of the device splitk
            # (dispatch.FUSED_SPLITK, twenty-third session: N 1088 K 2048 on two ranks); the
            # wide decode kernel past N only from a table or fixed)
            ran = op.last_launch[0]
            slots = op.splitk_slots()
            if schedule is not None:
                assert ran["cta_group"] in (2, 4), ran
            elif ran["schedule"] == "tile":
                assert (M >= dispatch.FUSED_FILL_TILE_MIN_M and N // 64 > group.sm_budget
                        and N % ran["bn"] == 0), ran
            elif ran["schedule"] == "splitk":
                assert dispatch.FUSED_SPLITK and -(-N // 64) <= slots[ran["cta_group"]], ran
            else:
                assert ran["cta_group"] == 1, ran
        if schedule is None:
            # 2880 = 18 x 160 = 15 x 192 (contract.TILE_EXTRA_BNS, rs/ar since the thirteenth
            # session): past the decode rows the tile schedule serves it; 1088 = 17 x 64 (no
            # width divides it): the tile schedule with its last N tile past N
            # (contract.tile_ragged_n, rs/ar since the fourteenth session)
            for M in (513, 600, 1024):
                xs, ws, outs = run_poisoned(op, tp, M, N, K)
                op.synchronize()
                assert op.last_launch[0]["schedule"] == "tile"
                assert N != 2880 or op.last_launch[0]["bn"] == 192
                check_outputs(mode, outs, xs, ws, f"{mode} tp={tp} N={N} M={M} tile")
        else:
            xs, ws = rank_inputs(tp, 600, N, K)
            with pytest.raises(InputError, match="exceeds (the )?512"):
                op.run_all(xs, ws)
            assert not op.should_run(xs[0])
        xs, ws = rank_inputs(tp, 129, N, K)
        check_graph_replays(op, mode, xs, ws, f"graph {mode} tp={tp} N={N} {schedule}")
        torch.cuda.synchronize()


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("bn", [16, 64, 128, 256])
@pytest.mark.parametrize("mode", ["rs", "ar"])
@pytest.mark.parametrize("tp", [2, 8])
def test_fused_wide_kernel_past_n(tp, mode, bn):
    """rs / ar's wide decode kernel (cta_group 2) at N = 64 mod 128 on virtual ranks: the last W
    tile's landing stores and reduction stop at N (a store past N would land in the next row of
    the slot), every rank's output NaN-poisoned first; issue 9's M list up and down, then N 2944
    (a multiple of 128) on the same kernel, then a graph replayed on fresh inputs."""
    for N, K in ((2880, 1000), (704, 512), (2944, 1000)):
        group = VirtualGroup(tp, 512, N, mode)
        op = GemmRsAr(512, N, K, mode, group, schedule="swapab", bn=bn, cta_group=2,
                      timeout_ms=TIMEOUT_MS)
        for M in WIDE_MS + WIDE_MS[::-1]:
            xs, ws, outs = run_poisoned(op, tp, M, N, K)
            op.synchronize()
            assert op.last_launch[0]["cta_group"] == 2
            check_outputs(mode, outs, xs, ws, f"{mode} tp={tp} N={N} M={M} wide bn={bn}")
        xs, ws = rank_inputs(tp, 200, N, K)
        check_graph_replays(op, mode, xs, ws, f"graph {mode} tp={tp} N={N} wide bn={bn}")
        torch.cuda.synchronize()


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("mode", ["rs", "ar"])
@pytest.mark.parametrize("tp", [2, 8])
def test_fused_tile_width_224(tp, mode):
    """N 3136 = 14 x 224 (no multiple of 128) past the decode rows: the tile schedule at width
    224 (the fuzz found the dispatch taking 128 here: AR left 64 columns unwritten)."""
    N, K = 3136, 320
    group = VirtualGroup(tp, 1024, N, mode)
    op = GemmRsAr(1024, N, K, mode, group, timeout_ms=TIMEOUT_MS)
    for M in (513, 820, 1024, 100, 513):
        xs, ws, outs = run_poisoned(op, tp, M, N, K)
        op.synchronize()
        check_outputs(mode, outs, xs, ws, f"{mode} tp={tp} N={N} M={M}")
        if M > 512:
            assert op.last_launch[0]["schedule"] == "tile" and op.last_launch[0]["bn"] == 224


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("bn,cg", [(160, 1), (160, 2), (192, 1), (192, 2)])
@pytest.mark.parametrize("mode", ["rs", "ar"])
@pytest.mark.parametrize("tp", [2, 4, 8])
def test_fused_tile_widths_160_192(tp, mode, bn, cg):
    """rs / ar's tile kernels at widths 160 and 192 (sm_90a, thirteenth session) on virtual
    ranks: N 2880 (gpt-oss: no width of 128 / 224 / 256 divides it), then N 5760 (a multiple of
    128 too), K ragged; M past the decode rows up and down (row tiles straddling owners, a short
    last tile, several waves), every rank's output NaN-poisoned first; the first call's output
    kept across a second call; a graph replayed on fresh inputs."""
    check_fixed_tile(tp, mode, bn, cg, ((2880, 1000), (5760, 520)))


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("mode", ["rs", "ar"])
def test_fused_n_2880_dispatched_past_the_decode_rows(mode):
    """N 2880 through the dispatcher (TP 2, virtual ranks) from the decode rows into the tile
    schedule's: every M served, the tile schedule at 160 or 192 past 512 rows."""
    N, K, tp = 2880, 2048, 2
    group = VirtualGroup(tp, 8192, N, mode)
    op = GemmRsAr(8192, N, K, mode, group, timeout_ms=TIMEOUT_MS)
    for M in (16, 512, 513, 1024, 3000, 8192):
        xs, ws, outs = run_poisoned(op, tp, M, N, K)
        op.synchronize()
        if M > 512:
            assert op.last_launch[0]["schedule"] == "tile" and op.last_launch[0]["bn"] == 192
        check_outputs(mode, outs, xs, ws, f"{mode} N={N} M={M} dispatched")
    assert op.should_run(fresh((8192, K)))


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("bn,cg", [(128, 1), (128, 2), (160, 1), (192, 2), (224, 2), (256, 1),
                                   (256, 2)])
@pytest.mark.parametrize("mode", ["rs", "ar"])
@pytest.mark.parametrize("tp", [2, 4, 8])
def test_fused_tile_past_n(tp, mode, bn, cg):
    """rs / ar's tile kernels with their last N tile past N (contract.tile_ragged_n, sm_90a,
    fourteenth session) on virtual ranks: N 704 = 11 x 64, 4544 = 71 x 64 (Falcon's hidden
    size; no width divides either) and 64 (one N tile, mostly past N), K ragged. The partial tiles' TMA stores (pushed into the
    owners' slots) stop at N, the reduction and the AR copy-out stop at N: every rank's output
    NaN-poisoned first, so a missed column or a store past N (it would land in the next row)
    shows. M past the decode rows up and down and below them (a fixed tile width serves every
    M), the first output kept across a second call, a graph replayed on fresh inputs; then N
    7168 (a multiple of every width but 160 / 192) on the same op kind unchanged."""
    check_fixed_tile(tp, mode, bn, cg, ((704, 1000), (4544, 520), (64, 256),
                                        (7168 if bn not in (160, 192) else 5760, 264)))


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("mode", ["rs", "ar"])
def test_fused_tile_past_n_dispatched(mode):
    """N 704 / 1088 / 4544 through the dispatcher (TP 2, virtual ranks) from the decode rows into
    the tile schedule's: every M served (before the fourteenth session rs/ar refused M > 512
    there), should_run True at max_M."""
    K, tp = 1536, 2
    for N in (704, 1088, 4544):
        group = VirtualGroup(tp, 8192, N, mode)
        op = GemmRsAr(8192, N, K, mode, group, timeout_ms=TIMEOUT_MS)
        assert op.max_served_m == 8192 and op.should_run(fresh((8192, K)))
        for M in (16, 512, 513, 1024, 3000, 8192, 700):
            xs, ws, outs = run_poisoned(op, tp, M, N, K)
            op.synchronize()
            if M > 512:
                assert op.last_launch[0]["schedule"] == "tile"
            check_outputs(mode, outs, xs, ws, f"{mode} N={N} M={M} dispatched")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("N", [8, 24, 1000, 4000, 7176])
def test_none_n_a_multiple_of_8(N):
    """Mode none on sm_90a at an N no multiple of 64 (fourteenth session: N any multiple of 8,
    contract.N_MULTIPLE_NONE): the dispatcher (the wide decode kernels, then the tile schedule,
    their last W / N tile past N; at small N splitk, choose_splitk_short), each tile width at
    both cta_groups, the wide decode kernels fixed (cta_group 2 and 3); K ragged; outputs
    NaN-poisoned with a guard row past their end; a graph replayed on fresh inputs."""
    K = 1000
    op = GemmRsAr(4096, N, K, "none")
    for M in (1, 7, 16, 100, 257, 300, 448, 512, 513, 1000, 2049, 4096, 129):
        check_none(op, M, N, K, f"none N={N} dispatched", guard=True)
        launch = op.last_launch[0]
        # (since the twenty-fifth session also splitk at small N, its last W tile past N:
        # dispatch.choose_splitk_short, K 1000 being 16 k-tiles)
        short = dispatch.choose_splitk_short(M, N, K, "sm_90a", op.sm_budget, op.splitk_slots())
        assert (launch["schedule"] == "tile" or launch["cta_group"] in (2, 3)
                or (launch["schedule"], launch["bn"], launch["cta_group"]) == short), launch
    check_none_graph(op, 300, N, K, f"none N={N} dispatched")
    check_none_graph(op, 1500, N, K, f"none N={N} dispatched")
    for bn in (128, 160, 192, 224, 256):
        for cg in (1, 2):
            fixed = GemmRsAr(4096, N, K, "none", schedule="tile", bn=bn, cta_group=cg)
            for M in (1, 513, 2049):
                check_none(fixed, M, N, K, f"none N={N} tile bn={bn} cg={cg}", guard=True)
    for bn, cg in ((64, 2), (256, 2), (96, 3)):
        fixed = GemmRsAr(512, N, K, "none", schedule="swapab", bn=bn, cta_group=cg)
        for M in (1, 100, 512):
            check_none(fixed, M, N, K, f"none N={N} swapab bn={bn} cg={cg}", guard=True)
