"""The largest in-kernel wait bound the runtime accepts (op_args.MAX_TIMEOUT_MS, one hour, also
CODEGEN_WAIT_TIMEOUT_MS's limit) runs like the default one.

The kernels double the bound for their pipeline waits and compare it as a signed 64-bit value:
on one H200 a bound of 5e12 ms (accepted from CODEGEN_WAIT_TIMEOUT_MS before it had a limit)
ended an rs call with 'unspecified launch failure'. This checks the bound kept well inside that."""
import pytest

from codegen.runtime import GemmRsAr, VirtualGroup
from codegen.runtime.op_args import MAX_TIMEOUT_MS
from gpu_common import run_poisoned, check_outputs, requires_gpu


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("from_env", [False, True])
def test_largest_wait_bound_runs(monkeypatch, from_env):
    tp, N, K = 2, 7168, 2048
    g = VirtualGroup(tp, 1024, N, "rs")
    if from_env:
        monkeypatch.setenv("CODEGEN_WAIT_TIMEOUT_MS", str(MAX_TIMEOUT_MS))
        op = GemmRsAr(1024, N, K, "rs", g)
    else:
        op = GemmRsAr(1024, N, K, "rs", g, timeout_ms=MAX_TIMEOUT_MS)
    assert op.timeout_ns == MAX_TIMEOUT_MS * 10**6
    calls = [(M, *run_poisoned(op, tp, M, N, K)) for M in (1024, 64, 1024, 300)]
    op.synchronize()                     # raises KernelTimeoutError on any recorded stall
    for M, xs, ws, outs in calls:
        check_outputs("rs", outs, xs, ws, f"timeout_ms={MAX_TIMEOUT_MS} M={M} {op.config(M)}")
