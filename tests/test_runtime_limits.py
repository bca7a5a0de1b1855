"""Shapes and settings past what the kernels' integer arithmetic holds are refused at
construction, by name, before anything is allocated or launched (CPU only).

The kernels compute row / column / k indices, tile counts and TMA coordinates in signed 32-bit
integers (op_args.MAX_EXTENT): before these checks, e.g. mode none with max_M = 2^31 - 100 was
accepted and its tile kernel's row-tile count, (m + 255) // 256 in Int32, came out negative
(nothing stored), and M >= 2^31 failed only at the first call's parameter packing with a message
about `tma_a_shape`. CODEGEN_WAIT_TIMEOUT_MS had no upper bound (timeout_ms= has one hour): the
kernels double it for their pipeline waits in signed 64-bit.
"""
import pytest
import torch

import codegen.runtime.launch_plan as plan_mod
from codegen import contract
from codegen import env as codegen_env
from codegen.runtime import op_args
from codegen.runtime.errors import InputError
from codegen.runtime.op import GemmRsAr
from codegen.runtime.params import pack_params
from codegen.spec import Variant

from test_runtime_op_params import _kernel
from test_runtime_validate import CpuGroup

BIG = 2**30


def none_op(max_M, N, K, **kw):
    return GemmRsAr(max_M, N, K, "none", arch="sm_90a", device="cpu", **kw)


@pytest.mark.parametrize("max_M, N, K, name", [
    (2**31 - 100, 1024, 256, "max_M"),      # the tile kernel's (m + 255) // 256 overflowed
    (2**31, 1024, 256, "max_M"),            # `m` / tma_a_shape no longer pack into i32
    (BIG + 1, 8, 8, "max_M"),
    (512, 2**31 - 8, 256, "N"),             # (n + 127) // 128 overflowed
    (512, 1024, 2**31 - 8, "K"),            # (k + 63) // 64 overflowed: no k-tile loaded
    (512, 1024, 2**31, "K"),
])
def test_dims_past_the_kernels_int32_are_refused(max_M, N, K, name):
    with pytest.raises(InputError, match=rf"{name} = {dict(max_M=max_M, N=N, K=K)[name]} "
                                         rf"exceeds 1073741824 \(2\^30\): the kernels compute "
                                         rf"row, column and k indices .* 32-bit signed"):
        none_op(max_M, N, K)


def test_the_largest_dims_are_accepted_and_pack():
    """At the bound every per-call i32 parameter packs (M = 2^30 rows: an expanded view, no
    memory), and each dimension alone may reach it."""
    none_op(BIG, 8, 8)
    none_op(1, BIG, 8)
    none_op(1, 8, BIG)
    op = none_op(BIG, 64, 64, sm_budget=132)
    kern = _kernel(Variant("sm_90a", "none", None, 128, 2, None))
    x = torch.zeros(1, 64, dtype=torch.bfloat16).expand(BIG, 64)
    out = torch.zeros(1, 64, dtype=torch.bfloat16).expand(BIG, 64)
    w = torch.zeros(64, 64, dtype=torch.bfloat16)
    orig = plan_mod.encode_bf16_2d
    plan_mod.encode_bf16_2d = lambda *a: b"\0" * 128
    try:
        p = op._params(0, x, w, out, BIG, kern)
    finally:
        plan_mod.encode_bf16_2d = orig
    assert p["m"] == BIG and p["tma_a_shape"] == (BIG, 64) and p["tma_c_shape"] == (BIG, 64)
    pack_params(kern.specs, p)


def test_output_tiles_past_int32_are_refused():
    """The tile / splitkw kernels number (row tile, column tile) work items in 32 bits."""
    with pytest.raises(InputError, match=r"max_M = 1073741824 x N = 32768 is 2147483648 output "
                                         r"tiles of 128 x 128, more than the 1073741824"):
        none_op(BIG, 2**15, 8)
    none_op(BIG, 2**14, 8)       # 2^23 x 2^7 = 2^30 tiles: at the bound


def test_group_buffers_past_int32_are_refused():
    """rs/ar address rows [0, 2 x workspace_rows) of both workspace parities and the flag
    words in 32 bits: a group whose geometry passes either is refused by name."""
    g = CpuGroup(max_M=BIG, N=1024)          # rows_pad 2^30: 2 x (2^30 + 4 x 128) rows
    with pytest.raises(InputError, match=r"group\.max_M = 1073741824: the workspace's two "
                                         r"parities span 2147484672 rows .* 32-bit row "
                                         r"coordinates \(at most 2147483647\)"):
        GemmRsAr(512, 1024, 256, "rs", g, arch="sm_90a")
    ok = BIG - 4096                           # 2 x (2^30 - 4096 + 512) < 2^31
    GemmRsAr(512, 1024, 256, "rs", CpuGroup(max_M=ok, N=1024), arch="sm_90a")
    assert 2 * contract.workspace_rows(contract.rows_pad(ok), 4) <= op_args.INT32_MAX
    wide = CpuGroup(max_M=ok, N=8192)         # 3 x 2^23 x 64 x 4 flag words
    with pytest.raises(InputError, match=r"the flag area has \d+ words, past the kernels' 32-bit "
                                         r"word index"):
        GemmRsAr(512, 8192, 256, "rs", wide, arch="sm_90a")


def test_wait_timeout_env_is_bounded_like_timeout_ms(monkeypatch):
    """CODEGEN_WAIT_TIMEOUT_MS takes the range of timeout_ms=: past it the variable is named at
    construction, instead of a u64 packing error at the first call (from ~1.8e13 ms) or, from
    ~4.6e12 ms, pipeline waits whose doubled bound is negative in the kernels' signed compare
    (on one H200, 5e12 ms ended an rs call with 'unspecified launch failure')."""
    assert op_args.MAX_TIMEOUT_MS == codegen_env.MAX_WAIT_TIMEOUT_MS == 3_600_000
    for bad in ("3600001", str(10**14), "5000000000000"):
        monkeypatch.setenv("CODEGEN_WAIT_TIMEOUT_MS", bad)
        with pytest.raises(ValueError, match=rf"CODEGEN_WAIT_TIMEOUT_MS='{bad}' must be at most "
                                             rf"3600000"):
            GemmRsAr(300, 1024, 256, "rs", CpuGroup(), arch="sm_90a")
    monkeypatch.setenv("CODEGEN_WAIT_TIMEOUT_MS", "3600000")
    op = GemmRsAr(300, 1024, 256, "rs", CpuGroup(), arch="sm_90a")
    assert op.timeout_ns == 3_600_000 * 10**6 < 2**62    # doubled, still a positive i64
