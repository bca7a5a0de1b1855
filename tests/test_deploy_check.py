"""``codegen check-deploy`` on fake caches (CPU): the host checks, the exit codes and the output;
the GPU is simulated where a test needs one (tests/gpu/test_check_deploy.py loads real cubins)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cache_helpers import fake_build, run  # noqa: F401 - fake_build is a fixture
from codegen import deploy_check
from codegen.runtime.errors import DriverError
from codegen.runtime.kernel import LoadedKernel

AR8 = "gemm_ar_unicast_sm90a_bn128_cg1_tp8_bf16"
NONE = "gemm_none_sm90a_bn128_cg1_bf16"
BUILD = ["build", "--tp", "8", "--arch", "sm_90a", "--mode", "ar,none", "--transport", "unicast",
         "--bn", "128", "--cta-group", "1", "--schedule", "tile", "--no-progress"]
MANIFEST = "tp8_sm_90a_ar-none_unicast_128_1_tile.json"
REBUILD = ("codegen build --tp 8 --arch sm_90a --mode ar,none --transport unicast --bn 128 "
           "--cta-group 1 --schedule tile")


@pytest.fixture(autouse=True)
def _switch_restored(monkeypatch):
    """check-deploy turns CODEGEN_NO_COMPILE on in its process, here the test's: undone after."""
    monkeypatch.setenv("CODEGEN_NO_COMPILE", "0")


@pytest.fixture
def cache(capsys, fake_build, monkeypatch):
    """Two fake entries (AR8, NONE) and their manifest; no GPU (probe_gpu says so)."""
    assert run(capsys, *BUILD)[0] == 0

    def no_gpu(device):
        raise deploy_check.NoGpu("no GPU in this test")
    monkeypatch.setattr(deploy_check, "probe_gpu", no_gpu)
    return fake_build


@pytest.fixture
def gpu(monkeypatch):
    """A simulated sm_90a GPU: loading a kernel records it instead of calling the driver."""
    loaded = []
    monkeypatch.setattr(deploy_check, "probe_gpu", lambda device: (f"GPU {device}: fake (sm_90, sm_90a)", "sm_90a"))
    monkeypatch.setattr(deploy_check, "open_context", lambda device: None)

    def load(self):
        loaded.append(self.entry.variant)
        self._function = object()
    monkeypatch.setattr(LoadedKernel, "_load", load)
    return loaded


def _entry_dir(root: Path, name: str) -> Path:
    (d,) = (root / "sm_90a" / name).iterdir()
    return d


def test_good_cache_host_only_exits_0_and_says_nothing_was_loaded(capsys, cache):
    rc, out, err = run(capsys, "check-deploy", "--host-only")
    assert rc == 0 and err == ""
    assert f"manifest  {cache / 'manifests' / MANIFEST} (newest)" in out
    assert "entries   2: 2 verified" in out
    assert "NOT LOADED ON A GPU: --host-only" in out and out.rstrip().endswith("result    OK (exit 0)")


def test_good_cache_without_a_gpu_exits_3(capsys, cache):
    rc, out, err = run(capsys, "check-deploy")
    assert rc == 3
    assert "NOT LOADED ON A GPU: no GPU in this test; only the host checks ran" in out
    assert "result    HOST CHECKS OK, NOTHING LOADED (exit 3)" in out


def test_good_cache_on_a_gpu_loads_every_entry_and_times_it(capsys, cache, gpu):
    rc, out, err = run(capsys, "check-deploy", "--device", "0")
    assert rc == 0, err
    assert sorted(gpu) == [AR8, NONE]  # each loaded once, through LoadedKernel
    assert "entries   2: 2 loaded" in out and "device    GPU 0: fake (sm_90, sm_90a)" in out
    assert "; load all 2: " in out and " ms wall" in out
    assert sum(line.startswith("slowest ") for line in out.splitlines()) == 2
    assert "NOT LOADED" not in out and out.rstrip().endswith("result    OK (exit 0)")


def test_json_report(capsys, cache, gpu):
    rc, out, err = run(capsys, "check-deploy", "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["exit"] == 0 and doc["loaded_on_gpu"] is True
    assert doc["counts"]["loaded"] == 2 and doc["gpu_arch"] == "sm_90a"
    assert {e["variant"]: e["status"] for e in doc["entries"]} == {AR8: "loaded", NONE: "loaded"}
    assert doc["load_ms"] >= 0 and len(doc["slowest"]) == 2 and doc["rebuild"] == REBUILD


def test_missing_cubin_is_named_with_the_rebuild_command_which_fixes_it(capsys, cache, monkeypatch):
    (_entry_dir(cache, AR8) / "kernel.cubin").unlink()
    rc, out, err = run(capsys, "check-deploy", "--host-only")
    assert rc == 1
    entry = _entry_dir(cache, AR8).relative_to(cache)
    assert (f"error: {AR8}: missing: manifests/{MANIFEST}: names entry {entry}, which is unusable: "
            f"{entry}/kernel.cubin: missing\n") in err
    assert f"error: rebuild with: {REBUILD}\n" in err
    assert "entries   2: 1 verified, 1 missing" in out and "result    FAILED (exit 1)" in out
    # the command it names rewrites this manifest, and then the check passes
    monkeypatch.setenv("CODEGEN_NO_COMPILE", "0")  # check-deploy turned it on in this process
    assert run(capsys, *REBUILD.split()[1:], "--no-progress")[0] == 0
    assert run(capsys, "check-deploy", "--host-only")[0] == 0


def test_corrupt_cubin(capsys, cache, gpu):
    (_entry_dir(cache, NONE) / "kernel.cubin").write_bytes(b"\x7fELF truncated")
    rc, out, err = run(capsys, "check-deploy")
    assert rc == 1
    assert f"error: {NONE}: corrupt: " in err and "sha256 mismatch" in err
    assert gpu == [AR8]  # the good one is still loaded, the corrupt one never reaches the driver
    assert "entries   2: 1 loaded, 1 corrupt" in out


@pytest.mark.parametrize("edit, words", [
    (lambda p: p[1].update(kind="u32", size=8), "the runtime cannot use it"),   # the ABI parser refuses
    (lambda p: p[1].update(name="renamed"), "was built by an older codegen"),  # not the contract's list
])
def test_abi_the_runtime_cannot_use_is_corrupt(capsys, cache, edit, words):
    meta_path = _entry_dir(cache, AR8) / "meta.json"
    meta = json.loads(meta_path.read_text())
    edit(meta["abi"]["params"])
    meta_path.write_text(json.dumps(meta))
    rc, out, err = run(capsys, "check-deploy", "--host-only")
    assert rc == 1 and f"error: {AR8}: corrupt: " in err and words in err


def test_driver_refusal_fails_that_entry(capsys, cache, gpu, monkeypatch):
    def load(self):
        if self.entry.variant == NONE:
            raise DriverError("cuLibraryLoadData", 209, "CUDA_ERROR_NO_BINARY_FOR_GPU")
        self._function = object()
    monkeypatch.setattr(LoadedKernel, "_load", load)
    rc, out, err = run(capsys, "check-deploy")
    assert rc == 1
    assert f"error: {NONE}: failed: DriverError: cuLibraryLoadData failed: CUDA_ERROR_NO_BINARY_FOR_GPU" in err
    assert "entries   2: 1 loaded, 1 failed" in out


def test_another_archs_entries_are_host_checked_only(capsys, cache, monkeypatch):
    monkeypatch.setattr(deploy_check, "probe_gpu", lambda d: ("GPU 0: fake (sm_100, sm_100a)", "sm_100a"))
    rc, out, err = run(capsys, "check-deploy")
    assert rc == 1 and "error: the manifest names no kernel for this GPU (GPU 0: fake" in err
    assert "entries   2: 2 skipped" in out


def test_a_failed_build_is_missing(capsys, cache, monkeypatch):
    monkeypatch.setenv("FAKE_COMPILE_FAIL", NONE)
    (_entry_dir(cache, NONE) / "kernel.cubin").write_bytes(b"x")  # the rebuild compiles it again
    assert run(capsys, *BUILD)[0] == 1
    rc, out, err = run(capsys, "check-deploy", "--host-only")
    assert rc == 1
    assert f"error: {NONE}: missing: the build that wrote {MANIFEST} failed to compile it: " in err


def test_no_manifest(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(tmp_path))
    rc, out, err = run(capsys, "check-deploy", "--host-only")
    assert rc == 1 and "holds no readable manifest" in err and "run codegen build first" in err


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_cache_dir_that_is_no_directory(capsys, tmp_path, monkeypatch, kind):
    root = tmp_path / "cache"
    if kind == "file":
        root.write_text("not a cache")
    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(root))
    rc, out, err = run(capsys, "check-deploy", "--host-only")
    what = "does not exist" if kind == "missing" else "is not a directory"
    assert rc == 1 and f"{root}: the kernel cache {what}" in err and "--cache-dir" in err


def test_manifest_by_name_by_env_and_unknown(capsys, cache, monkeypatch):
    assert run(capsys, *BUILD[:3], "--arch", "sm_90a", "--mode", "none", "--bn", "128",
               "--cta-group", "1", "--schedule", "tile", "--no-progress")[0] == 0  # a newer manifest
    rc, out, err = run(capsys, "check-deploy", "--host-only")
    assert "tp8_sm_90a_none_128_1_tile.json (newest)" in out and "entries   1:" in out
    rc, out, err = run(capsys, "check-deploy", "--host-only", "--manifest", MANIFEST.removesuffix(".json"))
    assert rc == 0 and f"{MANIFEST} (--manifest)" in out and "entries   2:" in out
    monkeypatch.setenv("CODEGEN_MANIFEST", MANIFEST)
    rc, out, err = run(capsys, "check-deploy", "--host-only")
    assert rc == 0 and f"{MANIFEST} (CODEGEN_MANIFEST)" in out
    rc, out, err = run(capsys, "check-deploy", "--host-only", "--manifest", "nope.json")
    assert rc == 1 and "nope.json: missing" in err


def test_rebuild_command_of_a_build_that_is_not_one_matrix(tmp_path):
    """Entries of two builds' matrices in one manifest: no single build makes exactly them, so
    the hint is the runtime's per-(arch, mode, tp) command."""
    from codegen.entry_format import Manifest, ManifestEntry
    from codegen.spec import Variant

    names = [AR8, "gemm_rs_unicast_sm90a_bn256_cg2_tp4_bf16"]
    entries = {n: ManifestEntry(Variant.parse(n), "0" * 64, "x", "0" * 64) for n in names}
    m = Manifest(tmp_path / "manifests" / "mixed.json", 1, entries, {})
    assert deploy_check.rebuild_command(m, tmp_path, None) == (
        "codegen build --tp 4 --arch sm_90a && codegen build --tp 8 --arch sm_90a")
    # a whole deployment's manifest needs no flag but --tp
    full = {v.name: ManifestEntry(v, "0" * 64, "x", "0" * 64) for v in deploy_check.deployment_matrix(8)}
    m = Manifest(tmp_path / "manifests" / "tp8.json", 1, full, {})
    assert deploy_check.rebuild_command(m, tmp_path, "/c") == "codegen --cache-dir /c build --tp 8"


def test_never_compiles_never_imports_the_dsl(cache):
    """Its own process: CODEGEN_NO_COMPILE on, no cutlass, no jinja2 (a serving machine has neither)."""
    code = ("import os, sys; from codegen.cli import main; rc = main(['check-deploy', '--host-only']); "
            "print(rc, os.environ.get('CODEGEN_NO_COMPILE'), "
            "sorted(m for m in ('cutlass', 'jinja2') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, CODEGEN_CACHE_DIR=str(cache)))
    assert proc.stdout.strip().splitlines()[-1] == "0 1 []", proc.stderr
