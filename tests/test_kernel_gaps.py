"""tools/probes/kernel_gaps.py's arithmetic on synthetic kernel records (CPU only)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools" / "probes"))
import kernel_gaps  # noqa: E402


def _replays(n_rep, iters, kernels, idle, host_gap=100.0):
    """Records of n_rep replays of `iters` calls; each call runs `kernels` (durations) with
    `idle` us after each kernel."""
    recs, t = [], 0.0
    for _ in range(n_rep):
        for _ in range(iters):
            for i, d in enumerate(kernels):
                recs.append((t, d, f"k{i}"))
                t += d + idle
        t += host_gap
    return recs


def test_one_kernel_per_call():
    got = kernel_gaps.split_calls(_replays(3, 5, [7.0], 1.5), 1, 5)
    assert got == {"kernel_us": 7.0, "gap_us": 1.5, "per_call_us": 8.5, "samples": 12}


def test_two_kernels_per_call_count_both_idles():
    got = kernel_gaps.split_calls(_replays(2, 4, [2.0, 3.0], 0.5), 2, 4)
    assert got["kernel_us"] == 5.0 and got["gap_us"] == 1.0 and got["samples"] == 6


def test_the_gap_after_a_replay_is_not_counted():
    got = kernel_gaps.split_calls(_replays(2, 3, [4.0], 1.0, host_gap=1e6), 1, 3)
    assert got["gap_us"] == 1.0


def test_partial_replays_are_refused():
    with pytest.raises(ValueError, match="not whole replays"):
        kernel_gaps.split_calls(_replays(1, 5, [1.0], 0.0)[:-1], 1, 5)
