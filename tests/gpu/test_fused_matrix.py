"""Fused GEMM + RS / AR on virtual ranks (one H200) against an fp32 torch reference.

One group per (tp, mode, N) and one op per (tp, mode, K, N); every op runs the M list forward
then backward, so BN (contract.BNS), CTA group (1/2) and the grid change between calls on the same
flags and epochs. Extra ops with a fixed BN / CTA group cover every (BN, CTA group) pair, including those the
dispatch rules never pick (BN 256 with cta_group 1, BN 128 with cta_group 2 at large M).
"""
import gc

import pytest
import torch

from codegen import contract
from codegen.runtime import GemmRsAr, VirtualGroup
from gpu_common import check_outputs, poisoned, rank_inputs, requires_gpu

MS = [1, 7, 127, 128, 129, 257, 1000, 4096, 8205]
KS = [768, 1024, 2304]
NS = [7168, 1024]
MAX_M = max(MS)
TIMEOUT_MS = 1000  # a broken kernel fails in a second instead of the default two


def _run(op, tp, M, N, K, what):
    xs, ws = rank_inputs(tp, M, N, K)
    outs = [poisoned(op.out_shape(M)) for _ in range(tp)]
    got = op.run_all(xs, ws, out=outs)
    op.synchronize()
    assert all(g is o for g, o in zip(got, outs))
    bn, cg = op.config(M)
    check_outputs(op.mode, outs, xs, ws, f"{what} M={M} bn={bn} cg={cg}")


def _release():
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("mode", ["rs", "ar"])
@pytest.mark.parametrize("tp", [2, 4, 8])
def test_fused_forward_backward(tp, mode):
    for N in NS:
        group = VirtualGroup(tp, MAX_M, N, mode)
        for K in KS:
            op = GemmRsAr(MAX_M, N, K, mode, group, timeout_ms=TIMEOUT_MS)
            assert op.transport == "unicast"  # a virtual group never has a multicast pointer
            for M in MS + MS[::-1]:
                _run(op, tp, M, N, K, f"tp={tp} {mode} N={N} K={K}")
        del group, op
        _release()


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("bn,cta_group", [(bn, cg) for bn in contract.BNS for cg in contract.CTA_GROUPS])
@pytest.mark.parametrize("mode", ["rs", "ar"])
@pytest.mark.parametrize("tp", [2, 4, 8])
def test_fixed_tile_config(tp, mode, bn, cta_group):
    # N: 1024 where the width divides it; else 1792 (= 8 x 224 = 14 x 128)
    N, K = 1024 if 1024 % bn == 0 else 1792, 768 if tp != 4 else 2304
    group = VirtualGroup(tp, MAX_M, N, mode)
    op = GemmRsAr(MAX_M, N, K, mode, group, bn=bn, cta_group=cta_group, schedule="tile",
                  timeout_ms=TIMEOUT_MS)
    for M in [1, 129, 257, 4096, 8205, 127]:
        assert op.config(M) == (bn, cta_group)
        _run(op, tp, M, N, K, f"tp={tp} {mode} fixed")
    assert op.last_launch[0]["bn"] == bn and op.last_launch[0]["cta_group"] == cta_group
