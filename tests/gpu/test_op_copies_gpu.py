"""Copies of an op that has run (copy.deepcopy, copy.copy, pickle for mode none) launch like the
original: a new op of the same arguments, sharing the group (before: deepcopy / pickle raised on
the launch plans' ctypes buffers or the group's lock)."""
import copy
import pickle

import pytest

from codegen.runtime import GemmRsAr, VirtualGroup
from gpu_common import assert_close, check_outputs, fresh, requires_gpu, run_poisoned


@pytest.mark.gpu
@requires_gpu
def test_mode_none_copies_run():
    M, N, K = 200, 1024, 512
    op = GemmRsAr(512, N, K, "none", device=0)
    x, w = fresh((M, K)), fresh((N, K))
    op(0, x, w)
    for new in (copy.deepcopy(op), copy.copy(op), pickle.loads(pickle.dumps(op))):
        assert new.device == op.device and new._plans == {}
        out = new(0, x, w)
        assert_close(out, x.float() @ w.float().T, f"copy {new.last_launch[0]['variant']}")


@pytest.mark.gpu
@requires_gpu
def test_rs_copy_shares_the_group_and_alternates_with_the_original():
    tp, N, K = 2, 1024, 768
    op = GemmRsAr(1024, N, K, "rs", VirtualGroup(tp, 1024, N, "rs"), timeout_ms=5000)
    run_poisoned(op, tp, 64, N, K)
    twin = copy.deepcopy(op)
    assert twin.group is op.group
    calls = [(M, *run_poisoned(o, tp, M, N, K))
             for o, M in ((twin, 64), (op, 700), (twin, 700), (op, 64))]
    op.synchronize()
    twin.synchronize()
    for M, xs, ws, outs in calls:
        check_outputs("rs", outs, xs, ws, f"original / copy alternating, M={M}")
