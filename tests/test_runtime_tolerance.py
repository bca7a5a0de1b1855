"""The GPU tests' tolerance check catches what it must (CPU only: it is plain torch)."""
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent / "gpu"))
from gpu_common import assert_close, reference_sum, rs_slice  # noqa: E402


def _inputs(tp=4, M=33, N=256, K=128):
    g = torch.Generator().manual_seed(0)
    xs = [(torch.randn(M, K, generator=g) * 0.1).bfloat16() for _ in range(tp)]
    ws = [(torch.randn(N, K, generator=g) * 0.1).bfloat16() for _ in range(tp)]
    return xs, ws


def test_bf16_partials_pass():
    xs, ws = _inputs()
    ref = reference_sum(xs, ws)
    out = sum((x.float() @ w.float().T).bfloat16().float() for x, w in zip(xs, ws)).bfloat16()
    assert_close(out, ref, "bf16 partials")


def test_missing_rank_fails():
    xs, ws = _inputs()
    ref = reference_sum(xs, ws)
    with pytest.raises(AssertionError, match="relative error"):
        assert_close(reference_sum(xs[:-1], ws[:-1]).bfloat16(), ref, "missing rank")


def test_nan_and_one_bad_element_fail():
    xs, ws = _inputs()
    ref = reference_sum(xs, ws)
    out = ref.bfloat16().clone()
    out[3, 7] = float("nan")
    with pytest.raises(AssertionError, match="non-finite"):
        assert_close(out, ref, "nan")
    out = ref.clone()
    out[5, 3] += 0.05 * float(ref.abs().max()) + 0.06  # too small for the norm, not for max-abs
    assert float((out - ref).norm() / ref.norm()) < 1e-2
    with pytest.raises(AssertionError, match="max abs"):
        assert_close(out, ref, "one bad element")


def test_rs_slice_pads_with_zeros():
    ref = torch.arange(7 * 2, dtype=torch.float32).view(7, 2) + 1
    assert rs_slice(ref, 3, 4).tolist() == [[13.0, 14.0], [0.0, 0.0]]
    assert rs_slice(ref, 0, 8).tolist() == [[1.0, 2.0]]
    assert rs_slice(ref, 7, 8).tolist() == [[0.0, 0.0]]
    with pytest.raises(AssertionError, match="exact zeros"):
        assert_close(torch.ones(1, 2), torch.zeros(1, 2), "pad")
