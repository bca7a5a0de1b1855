"""tools/fuzz_gpu.py's CPU-side pieces: every case the generator draws is a configuration the
op accepts (the same argument checks GemmRsAr runs), with Ms in range and, for a fixed decode
schedule, every M past the landing rows marked as one the op must refuse; every bad input it
makes is refused before a launch; run_sequence fails a case whose refusals do not happen."""
import random
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from codegen import contract
from codegen.runtime.errors import InputError
from codegen.runtime.op import GemmRsAr
from codegen.runtime.op_args import check_op_args
from codegen.spec import Variant

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from fuzz_gpu import bad_inputs, draw_case, expect_refused, run_sequence  # noqa: E402


def test_drawn_cases_are_valid_configurations():
    modes, schedules, refused, odd_n, ragged_wide, ragged_fused = set(), set(), 0, 0, 0, 0
    for seed in range(400):
        case = draw_case(random.Random(seed))
        mode, N, K, max_M = case["mode"], case["N"], case["K"], case["max_M"]
        # as fuzz_gpu's op(): rs / ar cap the group's budget, mode none the op's
        group = None if mode == "none" else SimpleNamespace(
            mode=mode, N=N, max_M=max_M, tp=case["tp"], device=None,
            local_ranks=tuple(range(case["tp"])),
            sm_budget=min(132 // case["tp"], case["sm_budget"] or 132))
        check_op_args(max_M, N, K, mode, group, bn=case["bn"], cta_group=case["cta_group"],
                      sm_budget=case["sm_budget"] if mode == "none" else None, transport=None,
                      schedule=case["schedule"], arch="sm_90a", min_m=None, timeout_ms=2000)
        if case["schedule"] is not None:   # a fixed choice names a kernel that exists
            Variant("sm_90a", mode, None if mode == "none" else "unicast", case["bn"],
                    case["cta_group"], None if mode == "none" else case["tp"],
                    schedule=case["schedule"])
        assert case["ms"] and all(1 <= m <= max_M for m in case["ms"])
        assert case["land_rows"] == contract.land_rows(max_M)
        refused += sum(expect_refused(case, m) for m in case["ms"])
        tiles = bool(contract.tile_widths(N, "sm_90a", mode))
        assert all(not expect_refused(case, m) for m in case["ms"]
                   if m <= case["land_rows"] or (tiles and case["schedule"] in (None, "tile")))
        if case["cta_group"] == 2 and case["schedule"] == "swapab":
            # the wide kernel's W tiles divide N, or reach past it (twelfth session)
            ragged_wide += N % 128 != 0
            ragged_fused += N % 128 != 0 and mode != "none"
        odd_n += N % 128 != 0
        modes.add(mode)
        schedules.add(case["schedule"])
    assert modes == {"none", "rs", "ar"} and schedules == {None, "tile", "swapab", "splitk", "splitkw",
                                                        "swapabx", "streamk"}
    assert refused > 0      # some cases check the refusal past the rows the op serves
    assert odd_n > 0        # and some have N no multiple of 128
    assert ragged_wide > 0 and ragged_fused > 0   # some on the wide kernel past N (rs/ar too)


def test_same_seed_same_case():
    assert draw_case(random.Random(7)) == draw_case(random.Random(7))


@pytest.mark.parametrize("M", [1, 17])
def test_bad_inputs_are_refused_before_a_launch(M):
    """On a CPU op (nothing launchable): each bad input raises InputError in validation."""
    N, K, max_M = 256, 128, 64
    op = GemmRsAr(max_M, N, K, "none", arch="sm_90a", device="cpu")
    bad = bad_inputs(torch, M, N, K, max_M, op.out_shape(M)[0], "cpu")
    assert ("x transposed view" in bad) == (M > 1) and len(bad) == 5 + (M > 1)
    why = {"x float32": "dtype", "weight K + 64": r"\(K\)", "out wrong shape": "out.shape",
           "x K + 4": r"x\.shape\[1\] \(K\) = 132 must be a multiple of 8",
           "M = max_M + 1": "max_M", "x transposed view": "contiguous"}
    for name, (x, w, out) in bad.items():
        with pytest.raises(InputError, match=why[name]):    # refused for its own reason
            op(0, x, w, out=out)


def test_run_sequence_enforces_the_refusals():
    case = {"schedule": "swapab", "land_rows": 16, "served": 16, "N": 1024, "ms": [5, 8, 17, 8]}
    calls = []

    def one_call(M):
        calls.append(M)
        if M > 16:
            raise InputError("past the landing rows")

    def refused():
        raise InputError("bad")

    run_sequence(case, one_call, lambda M: {"bad": refused}, InputError)
    assert calls == [5, 8, 17, 8]
    with pytest.raises(AssertionError, match="was not refused with InputError"):
        run_sequence(case, one_call, lambda M: {"accepted": lambda: None}, InputError)
    with pytest.raises(AssertionError, match="past the 16 rows the op serves"):
        run_sequence(case, lambda M: None, lambda M: {}, InputError)
