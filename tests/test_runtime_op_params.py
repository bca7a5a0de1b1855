"""What GemmRsAr passes to a kernel, by name: exactly codegen/contract.py's list (CPU only).

TMA encoding needs the driver, so it is replaced by a stub that records its arguments.
"""
import dataclasses
import json
import struct
from pathlib import Path

import pytest
import torch

import codegen.runtime.launch_plan as plan_mod
from codegen import contract
from codegen.runtime.cache_index import CacheEntry, build_command, find_entry
from codegen.runtime.errors import CacheMissError
from codegen.runtime.group import SymmetricBuffer
from codegen.runtime.kernel import LoadedKernel
from codegen.runtime.op import GemmRsAr
from codegen.runtime.params import pack_params
from codegen.spec import Variant, deployment_matrix

from fake_compile import contract_abi
from test_runtime_validate import CpuGroup

N, K, MAX_M, TP = 1024, 256, 300, 4


TMA = {"a": {"box": [64, 128], "swizzle": "128B"}, "b": {"box": [64, 64], "swizzle": "128B"},
       "c": {"box": [32, 128], "swizzle": "64B"}, "t": {"box": [64, 128], "swizzle": "128B"}}


def _kernel(variant: Variant):
    meta = {"symbol": "k", "abi": contract_abi(variant.arch, variant.mode, variant.schedule), "tma": TMA,
            "variant": variant.to_dict(),
            "launch": {"block": [384, 1, 1], "cluster": [variant.cta_group, 1, 1],
                       "dynamic_smem": 1}}
    return LoadedKernel(CacheEntry(variant.name, "k", None, b"", "0" * 64, meta), 0)


@pytest.fixture
def encoded(monkeypatch):
    calls = []

    def fake(ptr, rows, inner, row_stride, box, swizzle):
        calls.append((ptr, rows, inner, row_stride, tuple(box), swizzle))
        return struct.pack("<QQQQII", ptr, rows, inner, row_stride, *box).ljust(128, b"\0")

    monkeypatch.setattr(plan_mod, "encode_bf16_2d", fake)
    return calls


class PtrGroup(CpuGroup):
    """CpuGroup with distinct fake buffer addresses per rank."""

    def __init__(self, mode="rs", tp=TP):
        super().__init__(mode=mode, tp=tp)
        self._tab = torch.arange(tp, dtype=torch.int64) * 0x1000 + 0x10000
        self._ws = [SymmetricBuffer(torch.empty(16, dtype=torch.bfloat16), self._tab) for _ in range(tp)]
        self._ar = [SymmetricBuffer(torch.empty(16, dtype=torch.bfloat16), self._tab) for _ in range(tp)]

    def workspace(self, rank):
        return self._ws[rank]

    def ar_buffer(self, rank):
        return self._ar[rank] if self.mode == "ar" else None

    def landing(self, rank):
        return self._ar[rank]


def test_rs_params_sm90(encoded):
    g = PtrGroup()
    op = GemmRsAr(MAX_M, N, K, "rs", g, arch="sm_90a", timeout_ms=200)
    x = torch.zeros(129, K, dtype=torch.bfloat16)
    w = torch.zeros(N, K, dtype=torch.bfloat16)
    out = torch.zeros(contract.chunk(129, TP), N, dtype=torch.bfloat16)
    kern = _kernel(Variant("sm_90a", "rs", "unicast", 128, 2, TP))
    p = op._params(2, x, w, out, 129, kern)
    rp = contract.rows_pad(MAX_M)
    assert p["tma_a_shape"] == (129, K) and p["tma_b_shape"] == (N, K)
    wr = contract.workspace_rows(rp, TP)
    assert p["tma_c_shape"] == (2 * wr, N)
    assert encoded == [
        (x.data_ptr(), 129, K, 2 * K, (64, 128), "128B"),
        (w.data_ptr(), N, K, 2 * K, (64, 64), "128B"),
        (g.workspace(2).ptr, 2 * wr, N, 2 * N, (32, 128), "64B"),  # the workspace, both parities
        (x.data_ptr(), 129, K, 2 * K, (64, 1), "128B"),  # x's last row tile: row 128 only
    ]
    assert p["rank"] == 2 and p["m"] == 129 and p["out_ptr"] == out.data_ptr()
    assert p["timeout_ns"] == 200_000_000
    assert p["rows_pad"] == rp and p["m_tiles_max"] == contract.m_tiles_max(MAX_M)
    assert p["ar_ptr"] == 0 and p["peer_ar_ptr"] == 0 and p["mc_ws_ptr"] == 0
    assert p["err_ptr"] == g.error_record(2).data_ptr()
    assert "ws_ptr" not in p  # sm_90a reaches its workspace through tma_c
    assert p["push_tmap_ptr"] == g.push_tmaps(2).data_ptr()  # rank 2's own table
    b = pack_params(kern.specs, p).bytes()
    assert struct.unpack_from("<ii", b, 128) == (129, K)


def test_ar_params_sm100(encoded):
    op = GemmRsAr(MAX_M, N, K, "ar", PtrGroup("ar"), arch="sm_100a")
    x = torch.zeros(7, K, dtype=torch.bfloat16)
    w = torch.zeros(N, K, dtype=torch.bfloat16)
    out = torch.zeros(7, N, dtype=torch.bfloat16)
    kern = _kernel(Variant("sm_100a", "ar", "unicast", 128, 1, TP))
    p = op._params(0, x, w, out, 7, kern)
    assert p["ws_ptr"] == op.group.workspace(0).ptr and p["ar_ptr"] == op.group.ar_buffer(0).ptr
    assert p["peer_ar_ptr"] == op.group.ar_buffer(0).peer_ptrs.data_ptr() != 0
    assert len(encoded) == 2 and "tma_c" not in p  # sm_100a stores C from registers
    assert "push_tmap_ptr" not in p  # sm_100a pulls the partials (nothing pushed)
    pack_params(kern.specs, p)


def test_none_params_target_out(encoded):
    op = GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cpu")
    x = torch.zeros(5, K, dtype=torch.bfloat16)
    w = torch.zeros(N, K, dtype=torch.bfloat16)
    out = torch.zeros(5, N, dtype=torch.bfloat16)
    p = op._params(0, x, w, out, 5, _kernel(Variant("sm_90a", "none", None, 128, 1, None)))
    assert p["tma_c_shape"] == (5, N) and encoded[2][:3] == (out.data_ptr(), 5, N)
    # the one row tile is the last: its descriptor's box holds the 5 rows that exist
    assert p["tma_t_shape"] == (5, K) and encoded[3] == (x.data_ptr(), 5, K, 2 * K, (64, 5), "128B")
    assert "rank" not in p


@pytest.mark.parametrize("variant", deployment_matrix([2, 4, 8, 16]), ids=str)
def test_runtime_packs_exactly_the_contract(encoded, variant):
    """For every variant of the matrix the op supplies exactly contract.kernel_params, in order,
    and each value packs into its ABI kind."""
    tp = variant.tp or TP
    if variant.mode == "none":
        op = GemmRsAr(MAX_M, N, K, "none", arch=variant.arch, device="cpu", schedule=variant.schedule)
    else:
        op = GemmRsAr(MAX_M, N, K, variant.mode, PtrGroup(variant.mode, tp), arch=variant.arch,
                      schedule=variant.schedule)
    M = 129
    kern = _kernel(variant)
    p = op._params(0, torch.zeros(M, K, dtype=torch.bfloat16), torch.zeros(N, K, dtype=torch.bfloat16),
                   torch.zeros(op.out_shape(M), dtype=torch.bfloat16), M, kern)
    assert list(p) == [name for name, _ in contract.kernel_params(variant.arch, variant.mode,
                                                                 variant.schedule)]
    pack_params(kern.specs, p)  # every value fits its kind


def test_entry_of_an_older_contract_is_a_cache_miss(tmp_path, encoded, monkeypatch):
    v = Variant("sm_90a", "rs", "unicast", 128, 1, TP)
    kern = _kernel(v)
    kern.specs.pop()  # an entry built before the contract gained its last parameter
    assert "not the contract's" in kern.contract_mismatch()
    import codegen.runtime.op as op_mod
    monkeypatch.setattr(op_mod, "find_entry", lambda *a: kern.entry)
    monkeypatch.setattr(op_mod, "load_kernel", lambda entry, dev: kern)
    op = GemmRsAr(MAX_M, N, K, "rs", PtrGroup(), arch="sm_90a", cache_dir=tmp_path)
    with pytest.raises(CacheMissError, match="older codegen"):
        op.kernel(v)


def test_entry_whose_w_tile_cannot_reach_past_n_is_a_cache_miss():
    """The wide decode kernel reaches past N since the twelfth session (launch "ragged_n"): an
    entry built before (no key, or False) would leave N's last 64 columns unwritten (mode none)
    or land them in the next row (rs/ar) at N = 64 mod 128, so it is refused however N is;
    cta_group 3's older entries were ragged already, cta_group 1 never is."""
    for wide in (Variant("sm_90a", "none", None, 128, 2, None, schedule="swapab"),
                 Variant("sm_90a", "rs", "unicast", 128, 2, TP, schedule="swapab"),
                 Variant("sm_90a", "ar", "unicast", 64, 2, TP, schedule="swapab")):
        kern = _kernel(wide)
        assert "cannot reach past N" in kern.contract_mismatch()
        kern.entry.meta["launch"]["ragged_n"] = False
        assert "cannot reach past N" in kern.contract_mismatch()
        kern.entry.meta["launch"]["ragged_n"] = True
        assert kern.contract_mismatch() is None
        assert _kernel(dataclasses.replace(wide, cta_group=1)).contract_mismatch() is None
    none_cg3 = Variant("sm_90a", "none", None, 96, 3, None, schedule="swapab")
    assert _kernel(none_cg3).contract_mismatch() is None


def test_tile_entry_that_stops_at_a_multiple_of_its_width_is_refused_only_past_it(
        tmp_path, monkeypatch):
    """Mode none's tile kernels reach past N since the thirteenth session (launch "ragged_n"):
    an older entry (no key) serves every N its width divides, and is a cache miss (naming the
    rebuild) only for an op whose N it does not divide -- it would leave N's last columns
    unwritten."""
    v = Variant("sm_90a", "none", None, 128, 2, None)
    kern = _kernel(v)
    assert kern.contract_mismatch(768) is None
    assert "cannot serve N = 704" in kern.contract_mismatch(704)
    # N unknown (codegen check-deploy): it cannot serve every N an op may have
    assert "cannot serve an N it does not divide" in kern.contract_mismatch()
    kern.entry.meta["launch"]["ragged_n"] = True
    assert kern.contract_mismatch(704) is None and kern.contract_mismatch() is None
    # rs/ar's since the fourteenth session: the same rule
    for mode in ("rs", "ar"):
        fused = _kernel(Variant("sm_90a", mode, "unicast", 128, 2, TP))
        assert fused.contract_mismatch(768) is None
        assert "cannot serve N = 704" in fused.contract_mismatch(704)
        fused.entry.meta["launch"]["ragged_n"] = True
        assert fused.contract_mismatch(704) is None and fused.contract_mismatch() is None
    # sm_100a's never reach past N (N % 128 == 0 there): no such key needed
    assert _kernel(Variant("sm_100a", "rs", "unicast", 128, 2, TP)).contract_mismatch() is None
    import codegen.runtime.op as op_mod
    old = _kernel(v)
    monkeypatch.setattr(op_mod, "find_entry", lambda *a: old.entry)
    monkeypatch.setattr(op_mod, "load_kernel", lambda entry, dev: old)
    monkeypatch.setattr(type(old), "function", property(lambda self: None))
    for n, refused in ((704, True), (768, False)):
        op = GemmRsAr(MAX_M, n, K, "none", arch="sm_90a", device="cpu", cache_dir=tmp_path)
        if refused:
            with pytest.raises(CacheMissError, match="older codegen.*cannot serve N = 704"):
                op.kernel(v)
        else:
            assert op.kernel(v) is old


def test_splitk_entry_that_stops_at_a_multiple_of_64_is_refused_only_past_it():
    """Mode none's splitk kernels reach past N since the sixteenth session (launch "ragged_n"):
    an older entry (no key) serves every N a multiple of 64 and is a cache miss only for an N
    that is not (it would leave N's last columns unwritten); rs/ar's and sm_100a's never reach
    past N (their N is a multiple of 64 / 128) and need no key."""
    kern = _kernel(Variant("sm_90a", "none", None, 16, 4, None, schedule="splitk"))
    assert kern.contract_mismatch(1024) is None
    assert "cannot serve N = 1000" in kern.contract_mismatch(1000)
    assert "cannot serve an N that 64 does not divide" in kern.contract_mismatch()
    kern.entry.meta["launch"]["ragged_n"] = True
    assert kern.contract_mismatch(1000) is None and kern.contract_mismatch() is None
    for v in (Variant("sm_90a", "rs", "unicast", 16, 2, TP, schedule="splitk"),
              Variant("sm_100a", "none", None, 16, 2, None, schedule="splitk")):
        assert _kernel(v).contract_mismatch() is None


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
    with pytest.raises(CacheMissError, match=r"gemm_none_sm90a_swapab_bn16_cg1_bf16.*--mode none"):
        none.kernel(none.variant(1))
    assert build_command("sm_90a", "ar", 4) == "codegen build --tp 4 --arch sm_90a"


def test_entry_the_runtime_cannot_parse_is_a_cache_miss(tmp_path, monkeypatch):
    """A malformed ABI in a cache entry (parse_abi's ValueError) must be a CacheMissError, so
    make_fused_or_fallback falls back instead of crashing."""
    import codegen.runtime.op as op_mod

    v = Variant("sm_90a", "rs", "unicast", 128, 1, TP)
    kern = _kernel(v)
    monkeypatch.setattr(op_mod, "find_entry", lambda *a: kern.entry)

    def bad(entry, dev):
        raise ValueError("ABI param 'm': kind u32 has size 4, meta says 8; rebuild the cache entry")

    monkeypatch.setattr(op_mod, "load_kernel", bad)
    op = GemmRsAr(MAX_M, N, K, "rs", PtrGroup(), arch="sm_90a", cache_dir=tmp_path)
    with pytest.raises(CacheMissError, match="kind u32 has size 4"):
        op.kernel(v)


@pytest.mark.parametrize("given, expect", [
    (None, None),                                           # the newest build of each variant
    ("tp4.json", "CACHE/manifests/tp4.json"),               # a bare name: under the cache root
    ("/ship/tp4.json", "/ship/tp4.json"),
])
def test_manifest_pin_reaches_the_lookup(tmp_path, monkeypatch, given, expect):
    """A deployment can pin the build it shipped: `manifest=` or CODEGEN_MANIFEST."""
    import codegen.runtime.op as op_mod

    v = Variant("sm_90a", "rs", "unicast", 128, 1, TP)
    kern = _kernel(v)
    seen = []
    monkeypatch.setattr(op_mod, "find_entry", lambda *a: seen.append(a[-1]) or kern.entry)
    monkeypatch.setattr(op_mod, "load_kernel", lambda entry, dev: kern)
    monkeypatch.setattr(LoadedKernel, "function", property(lambda self: None))
    for use_env in (False, True):
        if use_env:
            if given is None:
                monkeypatch.delenv("CODEGEN_MANIFEST", raising=False)
            else:
                monkeypatch.setenv("CODEGEN_MANIFEST", given)
        op = GemmRsAr(MAX_M, N, K, "rs", PtrGroup(), arch="sm_90a", cache_dir=tmp_path,
                      manifest=None if use_env else given)
        op.kernel(v)
        want = None if expect is None else Path(expect.replace("CACHE", str(tmp_path)))
        assert seen[-1] == want


@pytest.mark.parametrize("tile", [16, 64, 128, 256])
def test_x_tail_rows_covers_m_exactly(tile):
    """The last row tile's box rows: the full tiles plus it are exactly M rows, never past M."""
    for M in range(1, 3 * tile + 2):
        tail = contract.x_tail_rows(M, tile)
        assert 1 <= tail <= tile and (contract.cdiv(M, tile) - 1) * tile + tail == M
    with pytest.raises(ValueError):
        contract.x_tail_rows(0, tile)


@pytest.mark.parametrize("schedule,bn", [("tile", 128), ("swapab", 16), ("swapab", 64),
                                         ("swapab", 128)])
@pytest.mark.parametrize("M", [1, 2, 15, 16, 17, 63, 64, 65, 127, 128, 129, 255, 300])
def test_last_row_tile_descriptor(encoded, schedule, bn, M):
    """sm_90a kernels get x twice: `tma_a` with the full tile box, `tma_t` with a box of the last
    row tile's rows (contract.x_tail_rows), both over exactly M rows."""
    tile = 128 if schedule == "tile" else bn
    v = Variant("sm_90a", "none", None, bn, 1, None, schedule=schedule)
    kern = _kernel(v)
    kern.entry.meta["tma"] = dict(TMA, a={"box": [64, tile], "swizzle": "128B"},
                                  t={"box": [64, tile], "swizzle": "128B"})
    op = GemmRsAr(MAX_M, N, K, "none", arch="sm_90a", device="cpu", schedule=schedule)
    x = torch.zeros(M, K, dtype=torch.bfloat16)
    w = torch.zeros(N, K, dtype=torch.bfloat16)
    out = torch.zeros(M, N, dtype=torch.bfloat16)
    p = op._params(0, x, w, out, M, kern)
    by_box = {e[4]: e for e in encoded if e[0] == x.data_ptr()}
    assert by_box[(64, tile)][1:3] == (M, K)
    tail = contract.x_tail_rows(M, tile)
    assert by_box[(64, tail)][1:3] == (M, K) and p["tma_t_shape"] == (M, K)
    assert struct.unpack_from("<QQQQII", p["tma_t"])[4:] == (64, tail)


def test_implied_schedule_of_a_fixed_bn_or_cta_group():
    """The one rule the constructor's checks and the dispatcher share: a width only the decode
    kernels have names the swapab schedule; any other fixed BN or CTA group the tile schedule."""
    only_decode = sorted(set(contract.SWAPAB_ALL_BNS) - set(contract.BNS))
    assert only_decode and all(contract.implied_schedule(bn, None) == "swapab" for bn in only_decode)
    assert all(contract.implied_schedule(bn, cg) == "tile" for bn in contract.BNS for cg in (None, 2))
    assert contract.implied_schedule(None, 2) == "tile"
    assert contract.implied_schedule(None, None) is None
