"""x and the weight as row-strided views (a column slice of a wider tensor, rows in a padded
buffer): the TMA descriptors take the row stride, so the kernels read them in place. Against
fp32 references on fresh data, outputs NaN-poisoned first (gpu_common); the same address with
another row stride must get its own descriptor (launch plans patch by address and stride)."""
import pytest
import torch

from codegen.runtime import GemmRsAr, VirtualGroup
from gpu_common import (assert_close, check_graph_replays, check_outputs, fresh, poisoned,
                        requires_gpu, strided_view)

MS = (1, 17, 129, 600)
TIMEOUT_MS = 1000


def column_slice(rows: int, K: int, extra: int = 64) -> torch.Tensor:
    """Fresh [rows, K] data as columns [extra, extra + K) of a [rows, K + 2 * extra] tensor whose
    other columns are NaN (read by mistake, they poison the result)."""
    return strided_view(fresh((rows, K)), 2 * extra, extra)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("schedule,bn,cg", [(None, None, None), ("tile", 128, 1),
                                            ("tile", 256, 2), ("swapab", 64, 2),
                                            ("splitk", 64, 2)])
@pytest.mark.parametrize("K", [1000, 1024])
def test_none_strided_views(K, schedule, bn, cg):
    N = 1536
    op = GemmRsAr(max(MS), N, K, "none", schedule=schedule, bn=bn, cta_group=cg)
    w = column_slice(N, K, extra=8 if K % 64 else 64)
    for M in MS:
        if schedule not in (None, "tile") and M > 512:
            continue
        x = column_slice(M, K)
        out = op(0, x, w, out=poisoned((M, N)))
        torch.cuda.synchronize()
        assert_close(out, x.float() @ w.float().T, f"none strided K={K} {schedule} M={M}")


@pytest.mark.gpu
@requires_gpu
def test_same_address_other_stride_gets_its_own_descriptor():
    """One buffer read as a contiguous [N, K] weight and as a [N, K] view with rows K + 64
    apart, alternately, from the same address: each call must read its own layout."""
    N, K, M = 1024, 512, 64
    buf = fresh((N * (K + 64),))
    w_flat = buf[: N * K].view(N, K)
    w_wide = buf.view(N, K + 64)[:, :K]
    assert w_flat.data_ptr() == w_wide.data_ptr()
    for schedule in (None, "tile"):
        op = GemmRsAr(M, N, K, "none", schedule=schedule)
        for w in (w_flat, w_wide, w_flat, w_wide):
            x = fresh((M, K))
            out = op(0, x, w, out=poisoned((M, N)))
            torch.cuda.synchronize()
            assert_close(out, x.float() @ w.float().T, f"same address stride {w.stride()}")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("schedule", [None, "tile", "swapab"])
@pytest.mark.parametrize("mode", ["rs", "ar"])
def test_fused_strided_views(mode, schedule):
    """rs / ar at TP 2 on virtual ranks with every rank's x and weight strided views, then a
    graph replay on fresh data copied into the same views."""
    tp, N, K = 2, 1024, 1000
    group = VirtualGroup(tp, max(MS), N, mode)
    op = GemmRsAr(max(MS), N, K, mode, group, schedule=schedule, timeout_ms=TIMEOUT_MS)
    ws = [column_slice(N, K, extra=8) for _ in range(tp)]
    for M in MS:
        if schedule == "swapab" and M > 512:
            continue
        xs = [column_slice(M, K) for _ in range(tp)]
        outs = op.run_all(xs, ws, out=[poisoned(op.out_shape(M)) for _ in range(tp)])
        op.synchronize()
        check_outputs(mode, outs, xs, ws, f"{mode} strided {schedule} M={M}")
    xs = [column_slice(129, K) for _ in range(tp)]
    check_graph_replays(op, mode, xs, ws, f"graph {mode} strided {schedule}")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("N,K", [(8192, 3696), (3584, 1480), (7168, 2360), (1608, 10128)])
def test_none_weight_on_lines_x_off(N, K):
    """Mode none's dispatch where only the weight's rows are on the lines (re-laid once,
    tp_linear.weight_in_aligned_rows) and x's are not (contiguous at K % 64 != 0): the kernel
    op.choice(M, aligned=False, weight_aligned=True) names (dispatch.WEIGHT_ON_LINES_RULE), right
    against fp32; the contiguous weight in alternate calls at the same M keeps its own plan."""
    from codegen.runtime.tp_linear import weight_in_aligned_rows
    assert K % 64
    op = GemmRsAr(512, N, K, "none")
    w = fresh((N, K))
    wp = weight_in_aligned_rows(w)
    assert wp.stride(0) % 64 == 0 and wp.data_ptr() % 128 == 0
    for M in (1, 16, 63, 176, 255, 384, 512):
        x = fresh((M, K))
        ref = x.float() @ w.float().T
        for weight, layout in ((wp, (False, True)), (w, (False, False)), (wp, (False, True))):
            out = op(0, x, weight, out=poisoned((M, N)))
            torch.cuda.synchronize()
            assert_close(out, ref, f"none N={N} K={K} M={M} weight layout {layout}")
            want = op.variant(M, *layout).name
            assert op.last_launch[0]["variant"] == want, (M, layout)
