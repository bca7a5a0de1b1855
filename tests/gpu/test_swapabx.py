"""The swapabx schedule (mode none, sm_90a: the cta_group 1 decode kernel in clusters of 2 or 4
CTAs on neighbouring 64-row W tiles, each CTA loading a slice of every x tile and multicasting
it to the cluster) on one H200 against an fp32 reference: every token tile and cluster size at
issue 9's decode rows (up and down on one op, so the last token tile's partial slice changes
size call to call), N / 64 W tiles that the cluster size does not divide (a spare CTA with no
W rows), x and W rows off the 128-byte lines and row-strided views, budgets below a cluster,
and graph replay."""
import pytest
import torch

from codegen import contract
from codegen.runtime import GemmRsAr, InputError
from gpu_common import (ISSUE9_MS, assert_close, check_none, check_none_cluster_sweep,
                        check_none_graph, fresh, poisoned, requires_gpu)

CGS = contract.SWAPABX_CTA_GROUPS


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("cg", CGS)
@pytest.mark.parametrize("bt", contract.SWAPABX_BNS)
def test_none_swapabx_every_token_tile(bt, cg):
    """N 1216 = 19 W tiles (odd: the last cluster has a spare CTA), K 1000 (rows off the
    128-byte lines, a ragged last k-tile); every M forward and backward on one op (the tail
    slice of each size, more token tiles than one), the row after the output kept NaN."""
    N, K = 1216, 1000
    op = GemmRsAr(512, N, K, "none", schedule="swapabx", bn=bt, cta_group=cg)
    ms = sorted({*ISSUE9_MS, bt // cg - 1, bt // cg, bt // cg + 1, bt - 1, bt, bt + 1})
    check_none_cluster_sweep(op, [m for m in ms if m <= 512], N, K, ("swapabx", bt, cg))


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("N,K,budget", [
    (64, 4096, None),      # one W tile: one cluster, every CTA but one spare
    (7168, 2360, None),    # 112 W tiles, K off the lines (the case the schedule is for)
    (8192, 2304, None),    # 128 W tiles: more clusters of 4 than the device holds at once
    (7168, 2304, 7),       # a budget below two 4-clusters: clusters loop over groups
    (1088, 320, 3),        # a budget below one 4-cluster: one cluster
])
@pytest.mark.parametrize("cg", CGS)
def test_none_swapabx_unusual_shapes(N, K, budget, cg):
    op = GemmRsAr(512, N, K, "none", schedule="swapabx", bn=64, cta_group=cg, sm_budget=budget)
    for M in (1, 3, 17, 64, 130, 512):
        check_none(op, M, N, K, f"none swapabx cg={cg} N={N} K={K} budget={budget}", guard=True)
        assert op.last_launch[0]["grid"] % cg == 0


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("cg", CGS)
def test_none_swapabx_strided_views(cg):
    """x and W as [:, :K] views of buffers with 64-aligned rows (NaN in the gaps) and as
    contiguous tensors, alternately through one op: each layout its own descriptors."""
    M, N, K = 160, 2048, 2360
    op = GemmRsAr(512, N, K, "none", schedule="swapabx", bn=160, cta_group=cg)
    for _ in range(2):
        for padded in (True, False):
            x, w = fresh((M, K)), fresh((N, K))
            if padded:
                bx = torch.full((M, 2368), float("nan"), dtype=x.dtype, device=x.device)
                bw = torch.full((N, 2368), float("nan"), dtype=w.dtype, device=w.device)
                bx[:, :K], bw[:, :K] = x, w
                x, w = bx[:, :K], bw[:, :K]
            out = op(0, x, w, out=poisoned((M, N)))
            torch.cuda.synchronize()
            assert_close(out, x.float() @ w.float().T, f"swapabx cg={cg} padded={padded}")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("cg", CGS)
def test_none_swapabx_graph_replay(cg):
    M, N, K = 200, 3072, 2304
    op = GemmRsAr(512, N, K, "none", schedule="swapabx", bn=128, cta_group=cg)
    check_none_graph(op, M, N, K, f"none swapabx cg={cg}")


@pytest.mark.gpu
@requires_gpu
def test_none_swapabx_refuses_what_it_cannot_serve():
    with pytest.raises(InputError, match="64"):
        GemmRsAr(512, 1000, 1024, "none", schedule="swapabx", cta_group=2)
    op = GemmRsAr(1024, 1024, 1024, "none", schedule="swapabx", cta_group=2)
    with pytest.raises(InputError, match="513|exceeds"):
        op(0, fresh((513, 1024)), fresh((1024, 1024)))
