"""SymmMemGroup and the multi-GPU scripts, as far as a CPU can check them (no GPU, no NCCL)."""
from __future__ import annotations

import ast
import logging
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from codegen import contract
from codegen.runtime.errors import CacheMissError
from codegen.runtime.symm_env import (SAFE_ENV, MulticastSafetyError, apply_safe_defaults,
                                      enforce_no_multicast, multicast_enabling_settings)
from codegen.runtime.fallback import make_fused_or_fallback
from codegen.runtime.symm_group import (SymmetricMemoryUnavailable, SymmMemGroup, _peer_access_reason,
                                        buffer_specs, choose_multicast_ptr, peer_addresses)

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = [ROOT / "tests" / "multigpu" / "run_correctness.py", ROOT / "tools" / "bench_multi_gpu.py"]
SAFE = {name: value for name, value in SAFE_ENV}


@pytest.fixture
def safe_env(monkeypatch):
    for name, value in SAFE_ENV:
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("CODEGEN_DISABLE_MULTICAST", raising=False)


# ---- the environment guard ----------------------------------------------------------------------
def test_defaults_fill_only_unset_switches():
    env = {"NCCL_NVLS_ENABLE": "1"}
    apply_safe_defaults(env)
    assert env == {**SAFE, "NCCL_NVLS_ENABLE": "1"}
    assert multicast_enabling_settings(env) == ["NCCL_NVLS_ENABLE='1' (needs '0')"]


def test_enforce_sets_safe_values_on_empty_env():
    env: dict[str, str] = {}
    assert enforce_no_multicast(False, env) == []
    assert env == SAFE


@pytest.mark.parametrize("name,bad", [("TORCH_SYMM_MEM_DISABLE_MULTICAST", "0"),
                                      ("TORCH_SYMM_MEM_DISABLE_MULTICAST", ""),
                                      ("NCCL_NVLS_ENABLE", "1"),
                                      ("NVSHMEM_DISABLE_NVLS", "0")])
def test_enforce_refuses_each_enabling_switch(name, bad):
    env = {name: bad}
    with pytest.raises(MulticastSafetyError, match=name):
        enforce_no_multicast(False, env)
    assert env[name] == bad  # an explicit value is never overwritten


def test_allow_multicast_changes_nothing_and_reports():
    env = {"NCCL_NVLS_ENABLE": "1"}
    assert enforce_no_multicast(True, env) == ["NCCL_NVLS_ENABLE='1' (needs '0')"]
    assert env == {"NCCL_NVLS_ENABLE": "1"}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
@pytest.mark.parametrize("name,bad", [("NCCL_NVLS_ENABLE", "1"),
                                      ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "0"),
                                      ("NVSHMEM_DISABLE_NVLS", "0")])
def test_scripts_refuse_multicast_env(script, name, bad):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT), name: bad}
    r = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 3, (r.stdout, r.stderr)
    assert "refusing to run" in r.stderr and name in r.stderr


@pytest.mark.parametrize("probe", [["link_push_pull.py"], ["tma_push_probe.py", "x.cubin"],
                                   ["tma_hol_probe.py", "x.cubin"]], ids=lambda p: p[0])
def test_link_probes_refuse_multicast_env(probe):
    """The NVLink probes (no --allow-multicast at all) refuse like the scripts."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT),
           "NCCL_NVLS_ENABLE": "1"}
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "probes" / probe[0]), *probe[1:]],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 3 and "refusing to run" in r.stderr, (r.stdout, r.stderr)


def test_scripts_document_the_allow_flag():
    for script in SCRIPTS:
        text = script.read_text()
        assert "--allow-multicast" in text and "run_torchrun" in text


def test_init_torchrun_refuses_before_distributed(safe_env, monkeypatch):
    """The scripts' common start refuses a multicast-enabling environment before any NCCL."""
    from codegen.runtime.symm_env import init_torchrun

    monkeypatch.setenv("NCCL_NVLS_ENABLE", "1")
    with pytest.raises(MulticastSafetyError):
        init_torchrun(allow_multicast=False)


def test_group_refuses_before_touching_anything(safe_env, monkeypatch):
    monkeypatch.setenv("TORCH_SYMM_MEM_DISABLE_MULTICAST", "0")
    with pytest.raises(MulticastSafetyError):
        SymmMemGroup(128, 1024, "rs")


# ---- the multicast decision ---------------------------------------------------------------------
@pytest.mark.parametrize("env,why", [
    ({"TORCH_SYMM_MEM_DISABLE_MULTICAST": "1"}, "TORCH_SYMM_MEM_DISABLE_MULTICAST=1"),
    ({"NCCL_NVLS_ENABLE": "0"}, "NCCL_NVLS_ENABLE=0"),
    ({"CODEGEN_DISABLE_MULTICAST": "1"}, "CODEGEN_DISABLE_MULTICAST"),
])
def test_multicast_pointer_dropped_by_each_switch(env, why):
    ptr, reason = choose_multicast_ptr(0x7F0000000000, 0, env)
    assert ptr == 0 and why in reason


@pytest.mark.parametrize("mc", [0, None])
def test_multicast_pointer_zero_is_unavailable(mc):
    ptr, reason = choose_multicast_ptr(mc, 0, {})
    assert ptr == 0 and "no multicast pointer" in reason


def test_multicast_pointer_needs_device_support(monkeypatch):
    from codegen.runtime import driver

    seen = []
    monkeypatch.setattr(driver, "device_attribute", lambda a, d: seen.append((a, d)) or 0)
    ptr, reason = choose_multicast_ptr(0x1000, 3, {})
    assert ptr == 0 and "reports no multicast support" in reason
    assert seen == [("MULTICAST_SUPPORTED", 3)]
    monkeypatch.setattr(driver, "device_attribute", lambda a, d: 1)
    assert choose_multicast_ptr(0x1000, 3, {}) == (0x1000, None)


# ---- buffer sizes and peer addresses ------------------------------------------------------------
@pytest.mark.parametrize("tp", [2, 4, 8])
@pytest.mark.parametrize("max_M", [1, 257, 32768])
def test_buffer_specs_follow_the_contract(tp, max_M):
    N = 7168
    rs = {s.name: s for s in buffer_specs(max_M, N, tp, "rs")}
    ar = {s.name: s for s in buffer_specs(max_M, N, tp, "ar")}
    rp = contract.cdiv(max_M, 256) * 2 * 128
    wr = rp + tp * 128       # a guard of 128 rows per pushed slot
    assert rs["workspace"].shape == (2, wr, N) and rs["workspace"].dtype == "bfloat16"
    assert rs["workspace"].nbytes == 2 * wr * N * 2
    mt, nt = rp // 128, N // 128
    assert rs["flags"].shape == (16 + 2 * mt * nt * tp + mt * nt * tp,)
    lr = min(-(-max_M // 16) * 16, 512)
    assert rs["landing"].shape == ar["landing"].shape == (2, tp, lr, N) and rs["landing"].symmetric
    assert rs["flags"].dtype == "int64" and rs["flags"].symmetric
    assert "ar" not in rs and ar["ar"].shape == (2, rp, N) and ar["ar"].symmetric
    assert not rs["error_record"].symmetric and rs["error_record"].shape == (8,)


def test_buffer_specs_32768_sizes():
    specs = {s.name: s for s in buffer_specs(32768, 7168, 8, "ar")}
    assert specs["workspace"].nbytes == 2 * (32768 + 8 * 128) * 7168 * 2  # 924 MiB per buffer
    assert specs["flags"].nbytes == 8 * (16 + 2 * 256 * 56 * 8 + 256 * 56 * 8)
    assert specs["landing"].nbytes == 2 * 8 * 512 * 7168 * 2  # 112 MiB: M <= 512 only


@pytest.mark.parametrize("args", [(128, 7168, 3, "rs"), (128, 7168, 2, "none"), (0, 7168, 2, "ar"),
                                  (128, 1000, 2, "ar")])
def test_buffer_specs_reject_bad_geometry(args):
    with pytest.raises(ValueError):
        buffer_specs(*args)


def test_peer_addresses_apply_the_tensor_offset():
    ptrs = [0x10000, 0x20000, 0x30000]
    assert peer_addresses(ptrs, 1, 0x20000, 64, 4096) == ptrs
    assert peer_addresses(ptrs, 1, 0x20100, 64, 4096) == [0x10100, 0x20100, 0x30100]
    with pytest.raises(SymmetricMemoryUnavailable):
        peer_addresses(ptrs, 1, 0x1FFF0, 64, 4096)
    with pytest.raises(SymmetricMemoryUnavailable):
        peer_addresses(ptrs, 1, 0x20F00, 512, 4096)


def test_peer_access_reason():
    infos = [("a", "GPU-0"), ("a", "GPU-1"), ("b", "GPU-0")]
    local = {"GPU-0": 0, "GPU-1": 1}
    assert _peer_access_reason(infos, 0, local, lambda d, p: True) is None
    assert "cannot access peer GPU 1" in _peer_access_reason(infos, 0, local, lambda d, p: False)
    assert _peer_access_reason(infos, 2, local, lambda d, p: False) is None  # alone on its host
    # a peer GPU this process cannot see (per-process CUDA_VISIBLE_DEVICES): left to rendezvous
    assert _peer_access_reason(infos, 0, {"GPU-0": 0}, lambda d, p: False) is None
    assert "share GPU GPU-0" in _peer_access_reason([("a", "GPU-0"), ("a", "GPU-0")], 1, local,
                                                    lambda d, p: True)


def test_ranks_with_different_arguments_are_refused_on_every_rank(monkeypatch):
    """Construction is collective: the all-gather that exchanges (host, device) carries each
    rank's (max_M, N, mode) too, and every rank raises the same InputError naming the ranks'
    values (unequal buffers would be read out of bounds, or wait for flags never set)."""
    import socket

    import codegen.runtime.symm_group as sg
    from codegen.runtime.errors import InputError

    monkeypatch.setattr(sg, "_device_id", lambda index: "GPU-0")
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    peer = {"max_M": 256, "N": 1024, "mode": "rs"}

    def all_gather_object(out, obj, group=None):
        if isinstance(obj, tuple):                   # (host, device, arguments); we are rank 1
            out[0], out[1] = (socket.gethostname(), "GPU-0", peer), obj
            gathered.append(obj)
        else:                                        # the agreed peer reason
            out[0] = out[1] = obj

    gathered = []
    g = _bare_group()
    g.max_M, g.N, g.mode = 512, 1024, "rs"
    with pytest.raises(InputError, match=r"every rank must pass the same max_M, got rank 0: "
                                         r"max_M=256; rank 1: max_M=512"):
        g._check_peers_collectively(SimpleNamespace(all_gather_object=all_gather_object))
    assert gathered[0][2] == {"max_M": 512, "N": 1024, "mode": "rs"}
    g.max_M, g.mode = 256, "ar"
    with pytest.raises(InputError, match=r"same mode, got rank 0: mode='rs'; rank 1: mode='ar'"):
        g._check_peers_collectively(SimpleNamespace(all_gather_object=all_gather_object))
    g.mode = "rs"             # equal arguments: on to the peer check (one GPU for two ranks)
    with pytest.raises(SymmetricMemoryUnavailable, match="share GPU GPU-0"):
        g._check_peers_collectively(SimpleNamespace(all_gather_object=all_gather_object))


def test_rendezvous_registers_the_group_only_when_torch_asks():
    from codegen.runtime.symm_group import _rendezvous

    calls = []

    def rendezvous(t, name):
        calls.append(("rdv", name))
        if len(calls) == 1:
            raise RuntimeError("group 0 is not registered: call enable_symm_mem_for_group")
        return "handle"

    symm = SimpleNamespace(rendezvous=rendezvous, enable_symm_mem_for_group=lambda n: calls.append(("en", n)))
    assert _rendezvous(symm, None, "0") == "handle"
    assert calls == [("rdv", "0"), ("en", "0"), ("rdv", "0")]

    def broken(t, name):
        raise RuntimeError("cuMemImportFromShareableHandle failed")

    with pytest.raises(RuntimeError, match="cuMemImport"):
        _rendezvous(SimpleNamespace(rendezvous=broken, enable_symm_mem_for_group=None), None, "0")


class _FakeHandle:
    def __init__(self, ptrs, size, mc=0):
        self.buffer_ptrs, self.buffer_size, self.multicast_ptr = ptrs, size, mc


def _bare_group(tp=2, rank=1):
    g = object.__new__(SymmMemGroup)
    g.tp, g.rank, g.device = tp, rank, torch.device("cpu")
    g.process_group = SimpleNamespace(group_name="0")
    g.multicast_note, g._handles = {}, {}
    return g


def test_allocate_builds_the_peer_table_and_drops_a_zero_multicast_pointer():
    spec = buffer_specs(128, 1024, 2, "rs")[0]
    made = {}

    def empty(shape, dtype, device):
        made["t"] = torch.zeros(shape, dtype=dtype)
        return made["t"]

    def rendezvous(t, name):
        base = t.data_ptr()
        return _FakeHandle([base - 0x1000000, base], spec.nbytes)

    g = _bare_group()
    buf = g._allocate(SimpleNamespace(empty=empty, rendezvous=rendezvous), spec)
    assert buf.local is made["t"] and buf.multicast_ptr == 0
    base = made["t"].data_ptr()
    assert buf.peer_ptrs.dtype == torch.int64 and buf.peer_ptrs.tolist() == [base - 0x1000000, base]
    assert "no multicast pointer" in g.multicast_note["workspace"]


def test_allocate_turns_a_rendezvous_failure_into_unavailable():
    spec = buffer_specs(128, 1024, 2, "ar")[0]

    def rendezvous(t, name):
        raise RuntimeError("CUDA driver error: cuMemImportFromShareableHandle failed")

    g = _bare_group()
    symm = SimpleNamespace(empty=lambda s, dtype, device: torch.zeros(s, dtype=dtype), rendezvous=rendezvous)
    with pytest.raises(SymmetricMemoryUnavailable, match="workspace.*cuMemImportFromShareableHandle"):
        g._allocate(symm, spec)


# ---- graceful degradation -----------------------------------------------------------------------
def test_fallback_returns_none_and_logs_why(caplog):
    def factory(*a, **k):
        raise SymmetricMemoryUnavailable("peers cannot map each other: rank 1: no P2P")

    with caplog.at_level(logging.WARNING, logger="codegen.runtime.symm_group"):
        assert make_fused_or_fallback(4096, 7168, 768, "ar", group_factory=factory) is None
    assert "falling back to torch.mm + NCCL" in caplog.text and "no P2P" in caplog.text


def test_fallback_on_cache_miss(caplog, monkeypatch):
    class FakeGroup:
        tp, mode, N, max_M, sm_budget = 2, "rs", 1024, 4096, 132
        device = torch.device("cpu")
        local_ranks = (0,)

    def factory(*a, **k):
        return FakeGroup()

    import codegen.runtime.op as op_mod

    def prepare(self, Ms=None):
        raise CacheMissError("gemm_rs_unicast_sm90a_bn128_cg1_tp2_bf16", "codegen build ...")

    monkeypatch.setattr(op_mod.GemmRsAr, "prepare", prepare)
    with caplog.at_level(logging.WARNING, logger="codegen.runtime.symm_group"):
        assert make_fused_or_fallback(4096, 1024, 768, "rs", group_factory=factory) is None
    assert "codegen build" in caplog.text


def test_fallback_when_no_variant_exists(caplog, monkeypatch):
    """tp=1 (seen on one H200 with torchrun --nproc-per-node 1): SpecError -> fallback."""
    class FakeGroup:
        tp, mode, N, max_M, sm_budget = 1, "rs", 1024, 4096, 132
        device = torch.device("cpu")
        local_ranks = (0,)
        rows_pad, m_tiles_max = 4096, 32

        def workspace(self, r):
            return SimpleNamespace(multicast_ptr=0)

    import codegen.runtime.op as op_mod

    monkeypatch.setattr(op_mod.GemmRsAr, "arch", property(lambda self: "sm_90a"))
    with caplog.at_level(logging.WARNING, logger="codegen.runtime.symm_group"):
        assert make_fused_or_fallback(4096, 1024, 768, "rs", group_factory=lambda *a, **k: FakeGroup()) is None
    assert "tp=1 is not supported" in caplog.text


def test_fallback_does_not_swallow_a_safety_refusal():
    def factory(*a, **k):
        raise MulticastSafetyError("refusing to run")

    with pytest.raises(MulticastSafetyError):
        make_fused_or_fallback(4096, 7168, 768, "rs", group_factory=factory)


def test_fallback_without_cuda_is_graceful(safe_env, caplog):
    if torch.cuda.is_available():
        pytest.skip("checks the no-CUDA path")
    with caplog.at_level(logging.WARNING, logger="codegen.runtime.symm_group"):
        assert make_fused_or_fallback(4096, 7168, 768, "rs") is None
    assert "no CUDA device" in caplog.text


# ---- nothing creates multicast objects ----------------------------------------------------------
_MC_CALLS = ("cuMulticast",)  # cuMulticastCreate / AddDevice / BindMem / BindAddr ...


def _violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    bad = []
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Attribute):
            name = node.attr
        elif isinstance(node, ast.Name):
            name = node.id
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            s = node.value.strip()
            if s.isidentifier() and (s.startswith(_MC_CALLS) or "multimem" in s):
                bad.append(f"{where}:{node.lineno}: string {s!r}")
            continue
        if name and (name.startswith(_MC_CALLS) or "multimem" in name):
            bad.append(f"{where}:{node.lineno}: {name}")
    return bad


def test_no_multicast_object_creation_or_multimem_ops():
    files = [p for d in ("codegen", "tools", "tests/multigpu") for p in (ROOT / d).rglob("*.py")]
    assert any(p.name == "symm_group.py" for p in files)
    bad = [v for p in files for v in _violations(p)]
    assert not bad, bad


def test_violation_scanner_catches_calls(tmp_path):
    f = tmp_path / "probe.py"
    f.write_text("call('cuMulticastCreate', 1)\ntorch.ops.symm_mem.multimem_all_reduce_(t)\n")
    assert len(_violations(f)) == 2


def test_multigpu_scripts_are_not_collected():
    assert not list((ROOT / "tests" / "multigpu").glob("test_*.py"))
    assert not list((ROOT / "tests" / "multigpu").glob("*_test.py"))
    assert "multigpu" not in (ROOT / "tests" / "conftest.py").read_text()


def test_a_tp_without_kernels_is_refused_at_construction():
    """A group of a TP no kernel is built for (1, 3, 32) is a SpecError when the op is built
    (make_fused_or_fallback and TPContext fall back on it); before, construction passed and the
    first call or prepare() raised it."""
    from codegen.runtime.op import GemmRsAr
    from codegen.spec import SpecError

    for tp in (1, 3, 32):
        class Group:
            mode, N, max_M, sm_budget = "rs", 1024, 4096, 132
            device = torch.device("cpu")
            local_ranks = (0,)
            rows_pad, m_tiles_max = 4096, 32

            def workspace(self, r):
                return SimpleNamespace(multicast_ptr=0)
        Group.tp = tp
        with pytest.raises(SpecError, match=rf"tp={tp} is not supported; allowed: 2, 4, 8, 16"):
            GemmRsAr(4096, 1024, 768, "rs", Group(), arch="sm_90a")
