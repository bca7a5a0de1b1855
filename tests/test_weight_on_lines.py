"""Mode none where only x's rows are off the 128-byte lines and the weight's are on them (a
weight re-laid once, tp_linear.weight_in_aligned_rows; dispatch.WEIGHT_ON_LINES_RULE, twenty-first
session): the op reads that layout from each call's strides and start addresses and dispatches
by choose_swapabx and then the rules of rows on the lines; both off keeps the L2-traffic model."""
import pytest
import torch

from codegen.runtime import GemmRsAr, dispatch
from codegen.runtime import weight_in_aligned_rows

H200 = {2: 66, 4: 30}   # clusters of 2 / 4 an H200 holds at once (splitk / splitkw / swapabx)


def op_of(N, K):
    op = GemmRsAr(512, N, K, "none", arch="sm_90a", sm_budget=132)
    op._slots = {s: dict(H200) for s in ("splitk", "splitkw", "swapabx")}
    return op


@pytest.mark.parametrize("N,K,M,off,w_on", [
    # measured (call 2; torch.mm / ours, the worse of warm and cold): both-off's pick on the
    # re-laid weight -> the rule's
    (15264, 9736, 384, ("tile", 256, 2), ("swapab", 128, 3)),     # 0.81 -> 1.08
    # (at K on 32-byte sectors both off has picked the re-laid weight's kernel too since the
    # twenty-eighth session's UNALIGNED_L2_SHARE_SECTOR_ROWS; that session measured both off
    # only: the tile pair gave way to it at 0.59-0.90 -> 0.97-1.0 of the best)
    (8192, 3696, 384, ("swapab", 192, 2), ("swapab", 192, 2)),    # re-laid 0.80 -> 1.00
    (5440, 6288, 384, ("swapab", 128, 2), ("swapab", 128, 2)),    # re-laid 0.69 -> 0.98
    # 0.70 -> 0.91 (twenty-first session); since the twenty-sixth session's decode price 1.6
    # in the L2-traffic model, both off picks the re-laid weight's kernel too
    (3584, 1480, 176, ("swapab", 64, 2), ("swapab", 64, 2)),
    (7168, 2360, 176, ("swapabx", 192, 4), ("swapabx", 192, 4)),  # 0.99: swapabx kept
])
def test_measured_picks(N, K, M, off, w_on, monkeypatch):
    # (both off at N 15264 M 384 takes streamk192c3 since the thirtieth session's streamk rule,
    # tests/test_streamk_split.py; these picks are the rules' before it)
    monkeypatch.setattr(dispatch, "STREAMK_RULE", False)
    op = op_of(N, K)
    assert K % 64
    assert op.choice(M, aligned=False) == off
    assert op.choice(M, aligned=False, weight_aligned=False) == off
    assert op.choice(M, aligned=False, weight_aligned=True) == w_on


@pytest.mark.parametrize("N,K", [(8192, 3696), (7168, 2360), (3584, 1480), (1608, 10128),
                                 (16304, 2504), (2880, 1000), (984, 1480)])
def test_rows_on_lines_rules_after_swapabx(N, K):
    """Wherever choose_swapabx has no choice, W on the lines picks what rows on the lines pick
    (the rule takes no part of the L2-traffic model); where it has one, that."""
    op = op_of(N, K)
    for M in list(range(1, 65)) + list(range(65, 513, 7)) + [512]:
        x_off = op.choice(M, aligned=False, weight_aligned=True)
        xcast = dispatch.choose_swapabx(M, N, 132, H200, True)
        assert x_off == (xcast or op.choice(M, aligned=True)), M


def test_switch_off_restores_the_model(monkeypatch):
    op = op_of(8192, 3696)
    monkeypatch.setattr(dispatch, "WEIGHT_ON_LINES_RULE", False)
    assert op.choice(384, aligned=False, weight_aligned=True) == op.choice(384, aligned=False)


def test_weight_aligned_cannot_undo_both_on_lines():
    op = op_of(8192, 3584)      # K % 64 == 0: contiguous rows on the lines
    for M in (16, 100, 300, 512):
        assert op.choice(M, aligned=True, weight_aligned=False) == op.choice(M)


class _Seen(Exception):
    pass


def stopped_at_dispatch(op, monkeypatch):
    """`op` whose variant() raises _Seen((aligned, weight_aligned, sectors)): what op._plan
    hands the dispatch."""
    def variant(M, aligned=None, weight_aligned=None, sectors=None):
        raise _Seen((aligned, weight_aligned, sectors))

    monkeypatch.setattr(op, "variant", variant)
    return op


def test_the_plan_reads_both_layouts(monkeypatch):
    """What op._plan hands the dispatch for contiguous, re-laid-weight and re-laid-both tensors
    (CPU tensors stand in: it reads strides and addresses; the call stops at the dispatch)."""
    N, K, M = 256, 1000, 8
    op = stopped_at_dispatch(op_of(N, K), monkeypatch)
    w = torch.zeros(N, K, dtype=torch.bfloat16)
    x = torch.zeros(M, K, dtype=torch.bfloat16)
    wp, xp = weight_in_aligned_rows(w), weight_in_aligned_rows(x)
    assert wp.stride(0) % 64 == 0 and wp.data_ptr() % 128 == 0 and torch.equal(wp, w)
    out = torch.empty(M, N, dtype=torch.bfloat16)
    # (K 1000: rows 2000 bytes apart, every other one 16 bytes into a 32-byte sector)
    for xx, ww, want in ((x, w, (False, False, False)), (x, wp, (False, True, False)),
                         (xp, wp, (True, True, None)), (xp, w, (False, False, False))):
        with pytest.raises(_Seen) as seen:
            op._plan(0, xx, ww, out, M)
        assert seen.value.args[0] == want


def test_the_plan_reads_sectors(monkeypatch):
    """Off the lines, op._plan tells the dispatch whether every row of x and W starts on a
    32-byte sector (the L2-traffic model prices that: dispatch.UNALIGNED_L2_SHARE_SECTOR_ROWS)
    from the call's strides and addresses, not from K: contiguous rows of K 1008 (2016 bytes
    apart) do; a view 8 columns into wider rows does not, nor does one whose row stride is 16
    bytes off a sector; a view 16 columns in does."""
    N, K, M = 256, 1008, 8
    op = stopped_at_dispatch(op_of(N, K), monkeypatch)
    w = torch.zeros(N, K, dtype=torch.bfloat16)
    wide = torch.zeros(M, K + 64, dtype=torch.bfloat16)
    odd = torch.zeros(M, K + 8, dtype=torch.bfloat16)
    out = torch.empty(M, N, dtype=torch.bfloat16)
    for xx, want in ((torch.zeros(M, K, dtype=torch.bfloat16), True),
                     (wide[:, 8:8 + K], False), (wide[:, 16:16 + K], True), (odd[:, :K], False)):
        with pytest.raises(_Seen) as seen:
            op._plan(0, xx, w, out, M)
        assert seen.value.args[0] == (False, False, want)


def test_the_splitkw_candidate_is_off_and_acts_only_when_on(monkeypatch):
    """dispatch.WEIGHT_ON_LINES_SPLITKW (held out a wash in call 6): off, picks unchanged; on,
    the model's splitkw where it picks one (N 4048 K 11664 M 256: call 5, 0.82x -> 0.99x)."""
    assert dispatch.WEIGHT_ON_LINES_SPLITKW is False
    op = op_of(4048, 11664)
    assert op.choice(256, aligned=False, weight_aligned=True) == ("swapab", 64, 2)
    monkeypatch.setattr(dispatch, "WEIGHT_ON_LINES_SPLITKW", True)
    assert op.choice(256, aligned=False, weight_aligned=True) == ("splitkw", 128, 2)
    assert op.choice(256, aligned=True, weight_aligned=True) == ("swapab", 64, 2)


def test_a_weight_off_the_lines_is_hinted_once(monkeypatch, caplog):
    """The first plan built for a weight whose rows are off the lines logs (INFO, once per op)
    how to re-lay it; a re-laid weight logs nothing."""
    import logging
    N, K, M = 256, 1000, 8
    for weight, hinted in ((torch.zeros(N, K, dtype=torch.bfloat16), True),
                           (weight_in_aligned_rows(torch.zeros(N, K, dtype=torch.bfloat16)), False)):
        op = stopped_at_dispatch(op_of(N, K), monkeypatch)
        x, out = torch.zeros(M, K, dtype=torch.bfloat16), torch.empty(M, N, dtype=torch.bfloat16)
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="codegen.runtime.op"):
            for m in (M, M + 1):
                with pytest.raises(_Seen):
                    op._plan(0, x[:m] if m <= M else torch.zeros(m, K, dtype=torch.bfloat16),
                             weight, out, m)
        hints = [r for r in caplog.records if "weight_in_aligned_rows" in r.getMessage()]
        assert len(hints) == (1 if hinted else 0)
