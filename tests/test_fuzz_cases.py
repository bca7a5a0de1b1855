"""tools/fuzz_gpu.py's case generator (CPU): every case it draws is a configuration the op
accepts (the same argument checks GemmRsAr runs), with Ms in range and, for a fixed decode
schedule, every M past the landing rows marked as one the op must refuse."""
import random
import sys
from pathlib import Path
from types import SimpleNamespace

from codegen import contract
from codegen.runtime.op_args import check_op_args
from codegen.spec import Variant

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from fuzz_gpu import draw_case, expect_refused  # noqa: E402


def test_drawn_cases_are_valid_configurations():
    modes, schedules, refused = set(), set(), 0
    for seed in range(400):
        case = draw_case(random.Random(seed))
        mode, N, K, max_M = case["mode"], case["N"], case["K"], case["max_M"]
        group = None if mode == "none" else SimpleNamespace(
            mode=mode, N=N, max_M=max_M, tp=case["tp"])
        check_op_args(max_M, N, K, mode, group, bn=case["bn"], cta_group=case["cta_group"],
                      sm_budget=case["sm_budget"], transport=None, schedule=case["schedule"],
                      arch="sm_90a", min_m=None, timeout_ms=2000)
        if case["schedule"] is not None:   # a fixed choice names a kernel that exists
            Variant("sm_90a", mode, None if mode == "none" else "unicast", case["bn"],
                    case["cta_group"], None if mode == "none" else case["tp"],
                    schedule=case["schedule"])
        assert case["ms"] and all(1 <= m <= max_M for m in case["ms"])
        assert case["land_rows"] == contract.land_rows(max_M)
        refused += sum(expect_refused(case, m) for m in case["ms"])
        assert all(not expect_refused(case, m) for m in case["ms"]
                   if case["schedule"] != "swapab" or m <= case["land_rows"])
        modes.add(mode)
        schedules.add(case["schedule"])
    assert modes == {"none", "rs", "ar"} and schedules == {None, "tile", "swapab"}
    assert refused > 0      # some cases check the refusal past the landing rows


def test_same_seed_same_case():
    assert draw_case(random.Random(7)) == draw_case(random.Random(7))
