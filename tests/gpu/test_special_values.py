"""Inputs with special values, every schedule family: rows of zeros (padding tokens) against a
weight of negative entries, so every partial of those rows is -0.0 (the decode exchange's
Lamport sentinel until its writers scrub it: a missed scrub would leave a reader polling until
its wait bound), and x entries of +Inf / NaN. The outputs must be what the fp32 reference says:
exact zeros in the zero rows, Inf (with its sign) and NaN exactly where the reference has them,
the other rows within gpu_common's tolerance; no wait may time out. Mode none on one H200 and
rs / ar on two virtual ranks, outputs poisoned first, eager and graph replay."""
import pytest
import torch

from codegen.runtime import GemmRsAr, VirtualGroup
from gpu_common import (assert_special, fresh, poisoned, reference_sum, requires_gpu,
                        rs_slice)

N, K, M = 1536, 2048, 64
TIMEOUT_MS = 3000
ZERO_ROWS = slice(40, 64)      # padding rows (zeros); 40 real tokens
INF_AT, NAN_AT = (3, 100), (17, 2000)   # (row, column) of x's +Inf (rank 0) and NaN (last rank)

#: (schedule, bn, cta_group) of every family: the tile kernels (cta_group 1 / 2), the decode
#: kernel (64-row W tiles) and the wide one (128-row W tiles; 192 for mode none's cta_group 3),
#: splitk in clusters of 2 / 4, and mode none's splitkw / swapabx clusters.
FUSED_CHOICES = [("tile", 128, 1), ("tile", 256, 2), ("swapab", 64, 1), ("swapab", 64, 2),
                 ("splitk", 64, 2), ("splitk", 32, 4)]
NONE_CHOICES = FUSED_CHOICES + [("swapab", 64, 3), ("splitkw", 128, 2), ("splitkw", 128, 4),
                                ("swapabx", 64, 2)]


def special_inputs(tp: int):
    """Per rank: x (fresh, rows ZERO_ROWS zero; rank 0 has +Inf at INF_AT, the last rank NaN at
    NAN_AT) and W = -(|fresh| + 0.01) (every entry negative: 0 * W is -0.0)."""
    xs, ws = [], []
    for r in range(tp):
        x = fresh((M, K))
        x[ZERO_ROWS] = 0.0
        if r == 0:
            x[INF_AT] = float("inf")
        if r == tp - 1:
            x[NAN_AT] = float("nan")
        xs.append(x)
        ws.append(-(fresh((N, K)).abs() + 0.01))
    return xs, ws


def _check_fused(op, mode, tp, xs, ws, outs, what):
    op.synchronize()
    op.check_errors()
    ref = reference_sum(xs, ws)
    zero = torch.zeros(M, dtype=torch.bool, device=ref.device)
    zero[ZERO_ROWS] = True
    for r, o in enumerate(outs):
        if mode == "rs":
            chunk = -(-M // tp)
            expect = rs_slice(ref, r, tp)
            rows = torch.zeros(chunk, dtype=torch.bool, device=ref.device)
            rows[:min(M, (r + 1) * chunk) - r * chunk] = zero[r * chunk:(r + 1) * chunk]
        else:
            expect, rows = ref, zero
        assert_special(o, expect, rows, f"{what} rank {r}")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("choice", FUSED_CHOICES, ids=lambda c: f"{c[0]}{c[1]}c{c[2]}")
@pytest.mark.parametrize("mode", ["rs", "ar"])
def test_fused_special_values(mode, choice):
    tp = 2
    schedule, bn, cg = choice
    group = VirtualGroup(tp, M, N, mode)
    op = GemmRsAr(M, N, K, mode, group, schedule=schedule, bn=bn, cta_group=cg,
                  timeout_ms=TIMEOUT_MS)
    xs, ws = special_inputs(tp)
    outs = [poisoned(op.out_shape(M)) for _ in range(tp)]
    op.run_all(xs, ws, out=outs)
    assert (op.last_launch[0]["schedule"], op.last_launch[0]["bn"],
            op.last_launch[0]["cta_group"]) == choice
    _check_fused(op, mode, tp, xs, ws, outs, f"{mode} {choice} eager")
    # graph replay: the same special rows, the outputs poisoned before each replay
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        gouts = op.run_all(xs, ws)
    for i in range(2):
        for o in gouts:
            o.fill_(float("nan"))
        graph.replay()
        _check_fused(op, mode, tp, xs, ws, gouts, f"{mode} {choice} graph replay {i}")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("choice", NONE_CHOICES, ids=lambda c: f"{c[0]}{c[1]}c{c[2]}")
def test_none_special_values(choice):
    schedule, bn, cg = choice
    op = GemmRsAr(M, N, K, "none", schedule=schedule, bn=bn, cta_group=cg)
    (x,), (w,) = special_inputs(1)
    out = op(0, x, w, out=poisoned((M, N)))
    torch.cuda.synchronize()
    launch = op.last_launch[0]
    assert (launch["schedule"], launch["bn"], launch["cta_group"]) == choice
    zero = torch.zeros(M, dtype=torch.bool, device=x.device)
    zero[ZERO_ROWS] = True
    assert_special(out, x.float() @ w.float().T, zero, f"none {choice}")
