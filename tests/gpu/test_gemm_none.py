"""Mode none (plain GEMM, same template) against torch: x @ W^T in fp32."""
import pytest

from codegen import contract
from codegen.runtime import GemmRsAr
from gpu_common import check_none, requires_gpu

MS = [1, 7, 127, 128, 129, 257, 1000, 4096, 8205]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("N", [7168, 1024])
@pytest.mark.parametrize("K", [768, 1024, 2304])
def test_none_matches_torch(K, N):
    op = GemmRsAr(max(MS), N, K, "none")
    for M in MS + MS[::-1]:
        check_none(op, M, N, K, f"none N={N} K={K}")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("bn,cta_group", [(bn, cg) for bn in contract.BNS for cg in contract.CTA_GROUPS])
def test_none_fixed_tiles(bn, cta_group):
    N, K = 7168, 1024                  # 7168 = 32 x 224: every tile width divides it
    op = GemmRsAr(8205, N, K, "none", bn=bn, cta_group=cta_group, schedule="tile")
    for M in [1, 129, 257, 4096, 8205]:
        check_none(op, M, N, K, f"none bn={bn} cg={cta_group}")
