"""What GemmRsAr passes to a kernel, by name, for an ABI like the sm_90a template's (CPU only).

TMA encoding needs the driver, so it is replaced by a stub that records its arguments.
"""
import json
import struct
from pathlib import Path

import pytest
import torch

import codegen.runtime.op as op_mod
from codegen.runtime import geometry
from codegen.runtime.cache_index import CacheEntry, build_command, find_entry
from codegen.runtime.errors import CacheMissError
from codegen.runtime.group import SymmetricBuffer
from codegen.runtime.kernel import LoadedKernel
from codegen.runtime.op import GemmRsAr
from codegen.runtime.params import pack_params

from test_runtime_validate import CpuGroup

N, K, MAX_M, TP = 1024, 256, 300, 4


def _abi(names_kinds):
    return {"params": [{"name": n, "kind": k,
                        "size": {"tma_desc": 128, "i32x2": 8, "u32": 4, "u64": 8, "i32": 4}[k],
                        "align": {"tma_desc": 64, "u64": 8}.get(k, 4)} for n, k in names_kinds]}


RS_ABI = _abi([
    ("tma_a", "tma_desc"), ("tma_a_shape", "i32x2"), ("tma_b", "tma_desc"), ("tma_b_shape", "i32x2"),
    ("tma_c", "tma_desc"), ("tma_c_shape", "i32x2"), ("m", "u32"), ("rank", "u32"),
    ("out_ptr", "u64"), ("flag_ptr", "u64"), ("ar_ptr", "u64"), ("peer_ws_ptr", "u64"),
    ("peer_flag_ptr", "u64"), ("peer_ar_ptr", "u64"), ("mc_ws_ptr", "u64"), ("mc_ar_ptr", "u64"),
    ("err_ptr", "u64"), ("timeout_ns", "u64"), ("rows_pad", "u32"), ("m_tiles_max", "u32")])
CONTRACT_ABI = _abi([  # the contract's spelling: i32 M, a ws_ptr, no tma_c
    ("tma_a", "tma_desc"), ("tma_a_shape", "i32"), ("tma_b", "tma_desc"), ("m", "u32"),
    ("rank", "u32"), ("out_ptr", "u64"), ("ws_ptr", "u64"), ("flag_ptr", "u64"), ("ar_ptr", "u64"),
    ("peer_ws_ptr", "u64"), ("peer_flag_ptr", "u64"), ("peer_ar_ptr", "u64"), ("mc_ws_ptr", "u64"),
    ("mc_ar_ptr", "u64"), ("err_ptr", "u64"), ("timeout_ns", "u64"), ("rows_pad", "u32"),
    ("m_tiles_max", "u32")])
TMA = {"a": {"box": [64, 128], "swizzle": "128B"}, "b": {"box": [64, 64], "swizzle": "128B"},
       "c": {"box": [32, 128], "swizzle": "64B"}}


def _kernel(abi, cluster=2):
    meta = {"symbol": "k", "abi": abi, "tma": TMA,
            "launch": {"block": [384, 1, 1], "cluster": [cluster, 1, 1], "dynamic_smem": 1}}
    return LoadedKernel(CacheEntry("v", "k", None, b"", "0" * 64, meta), 0)


@pytest.fixture
def encoded(monkeypatch):
    calls = []

    def fake(ptr, rows, inner, row_stride, box, swizzle):
        calls.append((ptr, rows, inner, row_stride, tuple(box), swizzle))
        return struct.pack("<QQQQ", ptr, rows, inner, row_stride).ljust(128, b"\0")

    monkeypatch.setattr(op_mod, "encode_bf16_2d", fake)
    return calls


class PtrGroup(CpuGroup):
    """CpuGroup with distinct fake buffer addresses per rank."""

    def __init__(self, mode="rs"):
        super().__init__(mode=mode)
        self._tab = torch.arange(TP, dtype=torch.int64) * 0x1000 + 0x10000
        self._ws = [SymmetricBuffer(torch.empty(16, dtype=torch.bfloat16), self._tab) for _ in range(TP)]
        self._ar = [SymmetricBuffer(torch.empty(16, dtype=torch.bfloat16), self._tab) for _ in range(TP)]

    def workspace(self, rank):
        return self._ws[rank]

    def ar_buffer(self, rank):
        return self._ar[rank] if self.mode == "ar" else None


def test_rs_params_like_template(encoded):
    g = PtrGroup()
    op = GemmRsAr(MAX_M, N, K, "rs", g, arch="sm_90a", timeout_ms=200)
    x = torch.zeros(129, K, dtype=torch.bfloat16)
    w = torch.zeros(N, K, dtype=torch.bfloat16)
    out = torch.zeros(geometry.chunk(129, TP), N, dtype=torch.bfloat16)
    kern = _kernel(RS_ABI)
    p = op._params(2, x, w, out, 129, kern)
    rp = geometry.rows_pad(MAX_M)
    assert p["tma_a_shape"] == (129, K) and p["tma_b_shape"] == (N, K)
    assert p["tma_c_shape"] == (2 * rp, N)
    assert encoded == [
        (x.data_ptr(), 129, K, 2 * K, (64, 128), "128B"),
        (w.data_ptr(), N, K, 2 * K, (64, 64), "128B"),
        (g.workspace(2).ptr, 2 * rp, N, 2 * N, (32, 128), "64B"),  # the workspace, both parities
    ]
    assert p["rank"] == 2 and p["m"] == 129 and p["out_ptr"] == out.data_ptr()
    assert p["timeout_ns"] == 200_000_000
    assert p["rows_pad"] == rp and p["m_tiles_max"] == geometry.m_tiles_max(MAX_M)
    assert p["ar_ptr"] == 0 and p["peer_ar_ptr"] == 0 and p["mc_ws_ptr"] == 0
    assert p["err_ptr"] == g.error_record(2).data_ptr()
    b = pack_params(kern.specs, p).bytes()
    assert struct.unpack_from("<ii", b, 128) == (129, K)


def test_contract_spelling_also_packs(encoded):
    op = GemmRsAr(MAX_M, N, K, "ar", PtrGroup("ar"), arch="sm_90a")
    x = torch.zeros(7, K, dtype=torch.bfloat16)
    w = torch.zeros(N, K, dtype=torch.bfloat16)
    out = torch.zeros(7, N, dtype=torch.bfloat16)
    kern = _kernel(CONTRACT_ABI, cluster=1)
    p = op._params(0, x, w, out, 7, kern)
    assert p["tma_a_shape"] == 7  # i32 M
    assert p["ws_ptr"] == op.group.workspace(0).ptr and p["ar_ptr"] == op.group.ar_buffer(0).ptr
    assert p["peer_ar_ptr"] == op.group.ar_buffer(0).peer_ptrs.data_ptr() != 0
    assert len(encoded) == 2  # no tma_c in this ABI: not encoded
    pack_params(kern.specs, p)


def test_none_params_target_out(encoded):
    op = GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cpu")
    abi = _abi([("tma_a", "tma_desc"), ("tma_a_shape", "i32x2"), ("tma_b", "tma_desc"),
                ("tma_b_shape", "i32x2"), ("tma_c", "tma_desc"), ("tma_c_shape", "i32x2"), ("m", "u32")])
    x = torch.zeros(5, K, dtype=torch.bfloat16)
    w = torch.zeros(N, K, dtype=torch.bfloat16)
    out = torch.zeros(5, N, dtype=torch.bfloat16)
    p = op._params(0, x, w, out, 5, _kernel(abi, cluster=1))
    assert p["tma_c_shape"] == (5, N) and encoded[2][:3] == (out.data_ptr(), 5, N)
    assert "rank" not in p


REPO_CACHE = Path(__file__).resolve().parent.parent / "generated"


@pytest.mark.skipif(not (REPO_CACHE / "sm_90a").is_dir(), reason="no built cache here")
def test_every_cached_abi_name_is_supplied(encoded):
    """Every parameter name of every cached sm_90a entry gets a value from the op."""
    metas = [p for p in (REPO_CACHE / "sm_90a").glob("*/*/meta.json") if not p.parent.name.startswith(".")]
    for mp in metas:
        meta = json.loads(mp.read_text())
        try:
            entry = find_entry(REPO_CACHE, "sm_90a", mp.parent.parent.name, "x")
        except CacheMissError:
            continue
        v = meta["variant"]
        mode = v["mode"] if isinstance(v, dict) else v.split("_")[1]
        if mode == "none":
            op = GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cpu")
        else:
            op = GemmRsAr(MAX_M, N, K, mode, PtrGroup(mode), arch="sm_90a")
        kern = LoadedKernel(entry, 0)
        M = 129
        out = torch.zeros(op.out_shape(M), dtype=torch.bfloat16)
        p = op._params(1 if mode != "none" else 0, torch.zeros(M, K, dtype=torch.bfloat16),
                       torch.zeros(N, K, dtype=torch.bfloat16), out, M, kern)
        pack_params(kern.specs, p)  # raises naming any missing parameter


def test_miss_names_build_command_for_op(tmp_path):
    op = GemmRsAr(MAX_M, N, K, "rs", CpuGroup(tp=8), arch="sm_90a", cache_dir=tmp_path)
    with pytest.raises(CacheMissError, match=r"run: codegen build --tp 8 --arch sm_90a"):
        op.kernel(op.variant(1))
    none = GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cpu", cache_dir=tmp_path)
    with pytest.raises(CacheMissError, match=r"gemm_none_sm90a_bn128_cg1_bf16.*--mode none"):
        none.kernel(none.variant(1))
    assert build_command("sm_90a", "ar", 4) == "codegen build --tp 4 --arch sm_90a"
