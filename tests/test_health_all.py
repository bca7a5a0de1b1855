"""Error records read without an op call (health.py): check_all_errors over every live op's
group ranks and streamk records (a server replaying CUDA graphs never calls its ops, so their
per-call check never runs), TPContext.check_errors, and an error naming the kernel that last ran
on the timed-out rank, whichever op of the group launched it (CPU: records are plain tensors;
a kernel would write them through UVA)."""
import gc

import pytest

from codegen import contract
from codegen.runtime import GemmRsAr, KernelTimeoutError, check_all_errors
from codegen.runtime import health as health_mod

from test_runtime_validate import MAX_M, N, CpuGroup
from test_tp_linear import gloo, make_ctx  # noqa: F401  (gloo: a fixture)


def _record(code=contract.ERR_TIMEOUT_STREAMK, rank=1, peer=0):
    rec = [0] * contract.ERROR_RECORD_WORDS
    rec[0], rec[1], rec[4] = code, rank, peer
    return rec


@pytest.fixture
def clean():
    gc.collect()         # ops of earlier tests that are gone leave the registry
    yield
    gc.collect()


def test_check_all_errors_reads_every_group(clean):
    g1, g2 = CpuGroup(), CpuGroup()
    ops = [GemmRsAr(MAX_M, N, 64, "rs", g1, arch="sm_90a"),
           GemmRsAr(MAX_M, N, 128, "rs", g1, arch="sm_90a"),
           GemmRsAr(MAX_M, N, 64, "rs", g2, arch="sm_90a")]
    check_all_errors()
    g2._err[1][:] = torch_tensor(_record(code=1, rank=1, peer=0))
    ops[0].check_errors()                       # g1's records are clear
    with pytest.raises(KernelTimeoutError, match="rank 1"):
        check_all_errors()
    with pytest.raises(KernelTimeoutError):
        ops[2].check_errors()
    g2._err[1].zero_()
    check_all_errors()


def test_a_dead_op_is_not_checked(clean):
    g = CpuGroup()
    op = GemmRsAr(MAX_M, N, 64, "rs", g, arch="sm_90a")
    g._err[0][:] = torch_tensor(_record(code=1, rank=0, peer=1))
    with pytest.raises(KernelTimeoutError):
        check_all_errors()
    del op
    gc.collect()
    check_all_errors()                          # no live op on g: its record is nobody's


def test_the_error_names_the_groups_last_kernel(clean):
    """Ops A and B share a group; A's kernel ran last on rank 0 and timed out: B's check names
    A's variant (it was per op: B named its own last kernel, or 'unknown variant')."""
    g = CpuGroup()
    a = GemmRsAr(MAX_M, N, 64, "rs", g, arch="sm_90a")
    b = GemmRsAr(MAX_M, N, 128, "rs", g, arch="sm_90a")
    a.health.last_variant[0] = "gemm_rs_sm90a_tp4_unicast_tile_bn128_cg1_bf16"
    g._err[0][:] = torch_tensor(_record(code=1, rank=0, peer=2))
    with pytest.raises(KernelTimeoutError, match="bn128_cg1"):
        b.check_errors()
    g._err[0].zero_()


def test_tp_context_check_errors(clean, gloo):
    ctx = make_ctx()
    checked = []

    class Op:
        def check_errors(self):
            checked.append(1)
            raise KernelTimeoutError("v", 0, _record(code=1, rank=0, peer=1))

    class Fused:
        op = Op()
    ctx._ops = {64: (Fused(), None), 128: (Fused(), None)}
    with pytest.raises(KernelTimeoutError):
        ctx.check_errors()
    assert checked == [1]                       # one op covers the group's records
    ctx._ops = {64: (None, None)}
    ctx.check_errors()                          # no fused op: nothing to check


def torch_tensor(values):
    import torch

    return torch.tensor(values, dtype=torch.int32)


def test_registry_holds_only_live_ops(clean):
    n0 = len(health_mod._LIVE)
    ops = [GemmRsAr(MAX_M, N, 64, "rs", CpuGroup(), arch="sm_90a") for _ in range(5)]
    assert len(health_mod._LIVE) == n0 + 5
    del ops
    gc.collect()
    assert len(health_mod._LIVE) == n0
