"""The last row tile of x (sm_90a): its TMA box holds exactly the rows that exist
(contract.x_tail_rows) and the producer completes the missing bytes itself, so shared memory past
M keeps whatever it held. These tests make that stale data hostile and x a view into a larger
buffer whose rows around it are NaN: every output must still match the fp32 reference.

- x = buf[off:off + M] of a NaN-filled buffer: a descriptor reaching one row past M (or before
  the view) would read NaN into a stored row.
- before each ragged call, the same op runs a full-tile call on all-NaN x, so the CTAs' shared
  memory (and the accumulators of the rows past M) are full of NaN when the ragged call starts.
"""
import pytest
import torch

from codegen import contract
from codegen.runtime import GemmRsAr, VirtualGroup
from gpu_common import assert_close, check_outputs, fresh, poisoned, requires_gpu

N, K = 1024, 768
TIMEOUT_MS = 1000


def _x_in_nan_buffer(M: int, off: int) -> torch.Tensor:
    buf = torch.full((off + M + 300, K), float("nan"), dtype=torch.bfloat16, device="cuda")
    buf[off:off + M] = fresh((M, K))
    return buf[off:off + M]


def _nan_call(op, M: int, tp: int = 0) -> None:
    """A call on all-NaN x: leaves NaN in the shared memory the next call's CTAs get."""
    w = fresh((N, K))
    x = torch.full((M, K), float("nan"), dtype=torch.bfloat16, device="cuda")
    if tp:
        op.run_all([x] * tp, [w] * tp)
    else:
        op(0, x, w, out=poisoned((M, N)))


def _tile(schedule: str, bn: int) -> int:
    return contract.BM if schedule == "tile" else bn


def _ragged_ms(tile: int) -> list[int]:
    """M values whose last row tile is short (and M = 1): 512 rows (a multiple of every tile)
    fill every tile of the NaN call before them."""
    return sorted(M for M in {1, tile - 1, tile + 1, 2 * tile - 5, 300, 511} if 1 <= M < 512
                  and M % tile)


NONE_KERNELS = [("tile", 128, 1), ("tile", 128, 2), ("tile", 256, 2), ("swapab", 16, 1),
                ("swapab", 64, 1), ("swapab", 128, 1), ("swapab", 128, 2), ("swapab", 160, 1),
                ("swapab", 224, 2), ("swapab", 256, 1)]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("schedule,bn,cg", NONE_KERNELS, ids=lambda v: str(v))
def test_none_ragged_last_tile(schedule, bn, cg):
    tile = _tile(schedule, bn)
    op = GemmRsAr(512, N, K, "none", schedule=schedule, bn=bn, cta_group=cg)
    for M in _ragged_ms(tile):
        _nan_call(op, 512)
        for off in (0, 3):
            x, w = _x_in_nan_buffer(M, off), fresh((N, K))
            out = op(0, x, w, out=poisoned((M, N)))
            torch.cuda.synchronize()
            assert_close(out, x.float() @ w.float().T,
                         f"none {schedule} bn={bn} cg={cg} M={M} x at row {off} of a NaN buffer")


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("mode", ["rs", "ar"])
@pytest.mark.parametrize("schedule,bn,cg", [("swapab", 64, 1), ("swapab", 128, 2), ("tile", 128, 1),
                                            ("tile", 128, 2)], ids=lambda v: str(v))
def test_fused_ragged_last_tile(mode, schedule, bn, cg):
    tp = 2
    group = VirtualGroup(tp, 512, N, mode)
    op = GemmRsAr(512, N, K, mode, group, schedule=schedule, bn=bn, cta_group=cg,
                  timeout_ms=TIMEOUT_MS)
    tile = _tile(schedule, bn)
    for M in _ragged_ms(tile):
        _nan_call(op, 512, tp)
        op.synchronize()
        xs = [_x_in_nan_buffer(M, 3 * r) for r in range(tp)]
        ws = [fresh((N, K)) for _ in range(tp)]
        outs = op.run_all(xs, ws)
        op.synchronize()
        op.check_errors()
        check_outputs(mode, outs, xs, ws, f"{mode} {schedule} bn={bn} cg={cg} M={M}")
