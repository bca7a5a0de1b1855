"""Launch plans (call_plan.py): a plan built once and patched per call passes exactly the bytes
a fresh packing of that call would (CPU only: TMA encoding is a stub that records its inputs)."""
import random

import pytest
import torch

from codegen import contract
from codegen.runtime.call_plan import CallPlan
from codegen.runtime.launch_plan import CallTensors, Descriptors
from codegen.runtime.op import GemmRsAr
from codegen.runtime.params import pack_params
from codegen.spec import Variant, deployment_matrix

from test_runtime_op_params import K, MAX_M, N, TP, PtrGroup, _kernel, encoded  # noqa: F401


class _Fake:
    """Stands in for a tensor: only what the plan reads (its address, shape and strides; `ld` is
    the row stride, K or N when contiguous)."""

    def __init__(self, ptr, rows=2, cols=K, ld=None):
        self.ptr, self.shape, self.ld = ptr, (rows, cols), ld or cols

    def data_ptr(self):
        return self.ptr

    def stride(self, dim=None):
        s = (self.ld, 1)
        return s if dim is None else s[dim]


class _StableGroup(PtrGroup):
    """PtrGroup whose flag area is one buffer per rank (CpuGroup makes a new one per call; a
    real group's buffers never move)."""

    def __init__(self, mode, tp):
        super().__init__(mode, tp)
        self._flags = [super(PtrGroup, self).flags(r) for r in range(tp)]

    def flags(self, rank):
        return self._flags[rank]


def _op(variant):
    if variant.mode == "none":
        return GemmRsAr(MAX_M, N, K, "none", arch=variant.arch, device="cpu",
                        schedule=variant.schedule)
    return GemmRsAr(MAX_M, N, K, variant.mode, _StableGroup(variant.mode, variant.tp or TP),
                    arch=variant.arch, schedule=variant.schedule)


def _fresh_bytes(op, kern, rank, x, w, out, M):
    return pack_params(kern.specs, op._params(rank, x, w, out, M, kern)).bytes()


@pytest.mark.parametrize("variant", [v for v in deployment_matrix([4]) if v.tp in (None, 4)],
                         ids=str)
def test_patched_plan_equals_fresh_packing(encoded, variant):
    """Every variant of the matrix: after any sequence of calls with new or repeated x, weight
    and out addresses, the plan's bytes are the fresh packing's, byte for byte."""
    op, kern, M, rank = _op(variant), _kernel(variant), 129, (1 if variant.tp else 0)
    rng = random.Random(7)
    addr = lambda: rng.randrange(1, 1 << 40) * 16  # noqa: E731
    x, w, out = _Fake(addr()), _Fake(addr()), _Fake(addr())
    tensors = CallTensors(x, w, out, M, N, K)
    plan = CallPlan(kern, 2 * kern.cluster[0], op._params(rank, x, w, out, M, kern), tensors,
                    op._descriptors, op.group, rank)
    assert plan.packed_bytes() == _fresh_bytes(op, kern, rank, x, w, out, M)
    pool = [addr() for _ in range(4)]
    lds = [K, K, K + 8, K + 64]      # contiguous, or a row-strided view (validate.row_stride)
    for _ in range(40):
        x, w = (_Fake(rng.choice(pool + [addr()]), ld=rng.choice(lds)) for _ in range(2))
        out = _Fake(rng.choice(pool + [addr()]))
        plan.bind(x.ptr, w.ptr, out.ptr, 0 if x.ld == K else x.ld, 0 if w.ld == K else w.ld)
        assert plan.packed_bytes() == _fresh_bytes(op, kern, rank, x, w, out, M)


def test_descriptor_reencoded_only_for_new_addresses(encoded):
    variant = Variant("sm_90a", "none", None, 128, 1, None)
    op, kern = _op(variant), _kernel(variant)
    x, w, out = _Fake(0x1000), _Fake(0x2000), _Fake(0x3000)
    plan = CallPlan(kern, 1, op._params(0, x, w, out, 5, kern), CallTensors(x, w, out, 5, N, K),
                    op._descriptors)
    before = len(encoded)
    plan.bind(0x1000, 0x2000, 0x3000)  # same call: nothing to encode
    assert len(encoded) == before
    plan.bind(0x1000, 0x2000, 0x4000)  # new out: its tma_c descriptor, once
    plan.bind(0x1000, 0x2000, 0x4000)
    assert encoded[before:] == [(0x4000, 5, N, 2 * N, (32, 128), "64B")]
    before = len(encoded)
    plan.bind(0x1000, 0x2000, 0x4000, 0, K + 64)   # the same weight address, as a strided view
    plan.bind(0x1000, 0x2000, 0x4000, 0, K + 64)
    assert [e[:4] for e in encoded[before:]] == [(0x2000, N, K, 2 * (K + 64))]


def test_plan_rejects_a_grid_that_splits_a_cluster(encoded):
    variant = Variant("sm_90a", "rs", "unicast", 128, 2, TP)
    op, kern = _op(variant), _kernel(variant)
    x, w, out = _Fake(0x1000), _Fake(0x2000), _Fake(0x3000)
    with pytest.raises(ValueError, match="multiple of the cluster"):
        CallPlan(kern, 3, op._params(0, x, w, out, 5, kern), CallTensors(x, w, out, 5, N, K),
                 Descriptors(), op.group, 0)


def test_op_builds_one_plan_per_rank_and_m(encoded, monkeypatch):
    """The op reuses its plan for a repeated (rank, M) and builds a new one for a new M; the
    plan records the dispatch choice it was built for."""
    op = GemmRsAr(MAX_M, N, K, "rs", PtrGroup("rs", TP), arch="sm_90a")
    monkeypatch.setattr(op, "kernel", _kernel)
    x = torch.zeros(64, K, dtype=torch.bfloat16)
    w = torch.zeros(N, K, dtype=torch.bfloat16)
    out = torch.zeros(contract.chunk(64, TP), N, dtype=torch.bfloat16)
    p1 = op._plan(2, x, w, out, 64)
    assert op._plan(2, x, w, out, 64) is p1
    assert op._plan(1, x, w, out, 64) is not p1
    x2 = torch.zeros(200, K, dtype=torch.bfloat16)
    out2 = torch.zeros(contract.chunk(200, TP), N, dtype=torch.bfloat16)
    p2 = op._plan(2, x2, w, out2, 200)
    assert p2 is not p1 and p2.M == 200 and p1.M == 64
    assert p1.info["variant"] == op.variant(64).name and p1.info["grid"] == p1.grid
