"""K not a multiple of the 64-column k-tile (contract.K_MULTIPLE: any multiple of 8): every
schedule loops over ceil(K / 64) k-tiles and the last one's columns past K load as zeros (TMA
out-of-bounds fill). A wrong fill (the next row's columns, or stale shared memory) adds
non-zero products, which the fp32 reference sees: the inputs are fresh random data, the outputs
NaN-poisoned first (gpu_common)."""
import pytest

from codegen import contract
from codegen.runtime import GemmRsAr, VirtualGroup
from gpu_common import (check_graph_replays, check_none, check_outputs, rank_inputs,
                        requires_gpu, run_poisoned)

#: K values: below one k-tile, one tile and a bit, odd multiples of 8, a long K with a short tail
RAGGED_KS = (8, 72, 200, 1000, 4104)
#: M values crossing the decode token tiles and the tile schedule's rows
MS = (1, 17, 129, 511, 600, 1100)
TIMEOUT_MS = 1000


def _none_configs():
    """(schedule, bn, cta_group) of mode none on sm_90a: the dispatch and one kernel of each
    family (tile cg 1 / 2, swapab cg 1 / 2 (wide) / 3 (192-row W tile), splitk cg 2 / 4)."""
    return [(None, None, None), ("tile", 128, 1), ("tile", 256, 2), ("swapab", 64, 1),
            ("swapab", 128, 2), ("swapab", 96, 3), ("splitk", 64, 2), ("splitk", 128, 4)]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("schedule,bn,cg", _none_configs())
@pytest.mark.parametrize("K", RAGGED_KS)
def test_none_ragged_k(K, schedule, bn, cg):
    N = 1536
    if schedule == "splitk" and K < contract.splitk_min_k(cg):
        pytest.skip(f"splitk cg {cg} wants K >= {contract.splitk_min_k(cg)} (refused: "
                    f"test_runtime_validate)")
    op = GemmRsAr(max(MS), N, K, "none", schedule=schedule, bn=bn, cta_group=cg)
    for M in MS:
        if schedule not in (None, "tile") and M > contract.SWAPAB_MAX_ROWS:
            continue
        check_none(op, M, N, K, f"none K={K} {schedule} bn={bn} cg={cg}")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("schedule", [None, "tile", "swapab", "splitk"])
@pytest.mark.parametrize("mode", ["rs", "ar"])
@pytest.mark.parametrize("tp", [2, 8])
def test_fused_ragged_k(tp, mode, schedule):
    """rs / ar on virtual ranks at ragged K, every M forward and back, then a graph replay on
    fresh inputs."""
    N = 1024
    for K in (72, 1000, 4104):
        if schedule == "splitk" and K < contract.splitk_min_k(max(contract.SPLITK_CTA_GROUPS)):
            continue    # (the splitk kernels want a whole k-tile per CTA: test_runtime_validate)
        group = VirtualGroup(tp, max(MS), N, mode)
        op = GemmRsAr(max(MS), N, K, mode, group, schedule=schedule, timeout_ms=TIMEOUT_MS)
        ms = [M for M in MS if schedule in (None, "tile") or M <= contract.SWAPAB_MAX_ROWS]
        for M in ms + ms[::-1]:
            xs, ws, outs = run_poisoned(op, tp, M, N, K)
            op.synchronize()
            check_outputs(mode, outs, xs, ws, f"{mode} tp={tp} K={K} M={M} {schedule}")
        xs, ws = rank_inputs(tp, 129, N, K)
        check_graph_replays(op, mode, xs, ws, f"graph {mode} tp={tp} K={K} {schedule}")
