"""tools/graph_timing.py's cold-weight helpers (CPU): enough copies to overflow the L2, equal to
the weight, cycled in order."""
from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import graph_timing  # noqa: E402


def test_weight_copies_span_twice_the_l2():
    w = torch.randn(64, 128).to(torch.bfloat16)          # 16 KiB
    ws = graph_timing.weight_copies(w, l2_bytes=50 * 1024)
    assert ws[0] is w and len(ws) == 1 + 7                 # ceil(2 * 50 / 16) = 7 more
    assert all(torch.equal(c, w) and c.data_ptr() != w.data_ptr() for c in ws[1:])
    # the copies read between two uses of one weight span at least twice the L2
    assert (len(ws) - 1) * w.numel() * w.element_size() >= 2 * 50 * 1024
    big = torch.empty(1024, 1024, dtype=torch.bfloat16)   # 2 MiB, larger than the L2
    assert len(graph_timing.weight_copies(big, l2_bytes=1024 * 1024)) == 1 + 1


def test_rotating_cycles_in_order():
    nxt = graph_timing.rotating(["a", "b", "c"])
    assert [nxt() for _ in range(7)] == ["a", "b", "c", "a", "b", "c", "a"]


def test_interleaved_medians_shuffles_every_round_and_takes_medians():
    import random

    order = []
    fake = {"a": iter([5.0, 1.0, 3.0]), "b": iter([2.0, 2.0, 9.0])}

    def timer(fn, iters, replays):
        order.append(fn())
        return next(fake[order[-1]])
    got = graph_timing.interleaved_medians({"a": lambda: "a", "b": lambda: "b"}, 20, 10, 3,
                                           random.Random(1), timer=timer)
    assert got == {"a": 3.0, "b": 2.0}
    assert sorted(order) == ["a"] * 3 + ["b"] * 3
    rounds = [order[i:i + 2] for i in range(0, 6, 2)]
    assert all(sorted(r) == ["a", "b"] for r in rounds)
