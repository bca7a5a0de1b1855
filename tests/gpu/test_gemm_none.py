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


#: (N, bn): the mode-none tile widths beyond BNS (contract.TILE_EXTRA_BNS, sm_90a) where they
#: divide N: 2880 (gpt-oss; a multiple of neither 128 nor 224), 5120, 3072
EXTRA_TILE_CASES = [(2880, 160), (2880, 192), (5120, 160), (3072, 192)]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("N,bn", EXTRA_TILE_CASES)
@pytest.mark.parametrize("cta_group", contract.CTA_GROUPS)
def test_none_extra_tile_widths(N, bn, cta_group):
    """Tile widths 160 / 192 at every edge of their tiles: M 1..8205 (one row tile, several, a
    partial last one, past one wave), K a multiple of 8 but not of the k-tile, called up and
    down so the grid shrinks and grows between calls."""
    K = 1000
    op = GemmRsAr(8205, N, K, "none", bn=bn, cta_group=cta_group, schedule="tile")
    ms = [1, 2, 15, 16, 17, 63, 64, 65, 127, 129, 255, 511, 513, 1000, 4096, 8205]
    for M in ms + ms[::-1]:
        check_none(op, M, N, K, f"none N={N} bn={bn} cg={cta_group}")


@pytest.mark.gpu
@requires_gpu
def test_none_n2880_served_past_the_decode_rows():
    """N 2880 is a multiple of 160 and 192 only: the dispatcher serves M > 512 (until the
    eleventh session the op refused it past 512 rows) with the wave rule's width: 160 / 192, or
    since the seventeenth session 224 / 256 reaching past N where they fill the waves better
    (M 2049 / 4096; the thirteenth session measured 256 and 192 level at M 4096), and since the
    twentieth session cta_group 1 at an odd count of 128-row tiles at the wave rule's width,
    which may reach past N (M 513 / 640 on an H200: 128; dispatch.TILE_CG1_PRICE_ALIGNED)."""
    N, K = 2880, 2880
    op = GemmRsAr(4096, N, K, "none")
    assert op.max_served_m == 4096
    for M in (1, 300, 512, 513, 1024, 2049, 4096, 640):
        schedule, bn, cg = op.choice(M)
        assert schedule != "tile" or bn in (160, 192) or M > 2048 or cg == 1, (M, op.choice(M))
        check_none(op, M, N, K, "none N=2880 dispatch")
