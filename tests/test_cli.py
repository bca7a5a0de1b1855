import json

import pytest

from cache_helpers import fake_build, run  # noqa: F401 - fake_build is a fixture
from codegen import binutils as tools
from codegen.cli import main

AR8 = "gemm_ar_unicast_sm90a_bn128_cg1_tp8_bf16"
NONE = "gemm_none_sm90a_bn128_cg1_bf16"


@pytest.fixture(autouse=True)
def _never_the_repo_cache(monkeypatch, tmp_path):
    """A command that builds by mistake (an argument that became valid) must not fill generated/."""
    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(tmp_path / "default-cache"))


def test_inspect_missing_says_what_to_run(capsys, tmp_path):
    rc, out, err = run(capsys, "--cache-dir", str(tmp_path), "inspect", AR8)
    assert rc == 1
    assert f"error: {AR8}: not in cache" in err
    assert err.strip().endswith("run codegen build --tp 8 --arch sm_90a")
    rc, out, err = run(capsys, "--cache-dir", str(tmp_path), "inspect", NONE, "--ptx")
    assert rc == 1 and "run codegen build --tp 8 --arch sm_90a --mode none" in err


def test_inspect_malformed_name(capsys, tmp_path):
    rc, out, err = run(capsys, "--cache-dir", str(tmp_path), "inspect", "gemm_ar_sm90a")
    assert rc == 1 and err.startswith("error: malformed variant name 'gemm_ar_sm90a'")


@pytest.mark.parametrize("argv, words", [
    (["build", "--tp", "3"], ["'3' is not supported", "2, 4, 8, 16"]),
    (["build", "--tp", "8", "--arch", "sm_80"], ["'sm_80' is not supported", "sm_90a, sm_100a"]),
    (["build", "--tp", "8", "--bn", "88"], ["'88' is not supported"]),
    (["build", "--tp", "8", "--schedule", "streamk-k"], ["'streamk-k' is not supported"]),
    (["build", "--tp", "8", "--cta-group", "5"], ["'5' is not supported", "1, 2, 3, 4"]),
    (["build", "--arch", "sm_90a"], ["--tp"]),
    (["list", "--mode", "foo"], ["'foo' is not supported"]),
])
def test_bad_arguments_exit_2(capsys, argv, words):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    for w in words:
        assert w in err


def test_build_list_inspect_and_cache_commands(capsys, fake_build, tiny_dir, monkeypatch):
    monkeypatch.setenv("FAKE_COMPILE_CUBIN", str(tiny_dir / "tiny.cubin"))  # --sass needs a real one
    root = fake_build
    rc, out, err = run(capsys, "build", "--tp", "8", "--arch", "sm_90a", "--mode", "none,ar",
                       "--transport", "unicast", "--bn", "128", "--cta-group", "1", "--schedule", "tile",
                       "--no-progress", "-j", "2")
    assert rc == 0, err
    assert "built 2, cached 0, failed 0 in " in out
    manifest = root / "manifests" / "tp8_sm_90a_ar-none_unicast_128_1_tile.json"
    assert f"manifest: {manifest}" in out
    assert [e["variant"] for e in json.loads(manifest.read_text())["entries"]] == [AR8, NONE]

    rc, out, err = run(capsys, "list", "--tp", "8", "--arch", "sm_90a", "--bn", "128", "--cta-group", "1")
    assert rc == 0
    status = {line.split()[0]: line.split()[1] for line in out.splitlines()}
    assert status[AR8] == "cached" and status[NONE] == "cached"
    assert status["gemm_rs_unicast_sm90a_bn128_cg1_tp8_bf16"] == "missing"

    rc, out, err = run(capsys, "inspect", AR8)
    assert rc == 0 and f"symbol    k_{AR8}" in out
    assert run(capsys, "inspect", f"{AR8}_cutlass_0")[1] == out  # a profiler's kernel name
    assert run(capsys, "inspect", AR8, "--source")[1].startswith(f"# {AR8}\n")
    assert ".entry" in run(capsys, "inspect", AR8, "--ptx")[1]
    assert json.loads(run(capsys, "inspect", AR8, "--meta")[1])["symbol"] == f"k_{AR8}"
    assert "registers" in run(capsys, "inspect", AR8, "--resources")[1]
    if tools.find_tool("nvdisasm"):
        rc, out, err = run(capsys, "inspect", AR8, "--sass")
        assert rc == 0 and "SR_TID" in out

    rc, out, err = run(capsys, "cache", "ls")
    assert rc == 0 and out.count("  ok") == 2
    assert run(capsys, "cache", "verify")[0] == 0

    # damage one entry: verify fails naming it, a rebuild quarantines and replaces it
    entry = next((root / "sm_90a" / AR8).iterdir())
    (entry / "kernel.cubin").write_bytes(b"\x7fELF")
    rc, out, err = run(capsys, "cache", "verify")
    assert rc == 1 and f"error: sm_90a/{AR8}/{entry.name}: kernel.cubin sha256 mismatch" in err
    rc, out, err = run(capsys, "build", "--tp", "8", "--arch", "sm_90a", "--mode", "none,ar",
                       "--transport", "unicast", "--bn", "128", "--cta-group", "1", "--schedule", "tile",
                       "--no-progress")
    assert rc == 0 and "built 1, cached 1, failed 0" in out
    assert run(capsys, "cache", "verify")[0] == 0

    # prune: both entries are in a manifest; the quarantined copy goes
    rc, out, err = run(capsys, "cache", "prune", "--dry-run")
    assert rc == 0 and "would remove" in out and ".quarantine" in out
    rc, out, err = run(capsys, "cache", "prune", "--all")
    assert rc == 0 and run(capsys, "cache", "ls")[1] == ""


def test_build_failure_exit_code_and_line(capsys, fake_build, monkeypatch):
    monkeypatch.setenv("FAKE_COMPILE_FAIL", NONE)
    rc, out, err = run(capsys, "build", "--tp", "8", "--arch", "sm_90a", "--mode", "none", "--bn", "128",
                       "--cta-group", "1,2", "--schedule", "tile", "--no-progress")
    assert rc == 1
    assert f"error: {NONE}: error: {NONE} does not compile\n" in err
    assert "built 1, cached 0, failed 1" in out
    assert (fake_build / "logs" / f"{NONE}.log").read_text().endswith("second line of the DSL error\n")


def test_prune_without_manifest_refuses(capsys, tmp_path):
    (tmp_path / ".codegen-cache").write_text('{"format": 1}\n')  # a cache, but no manifest
    rc, out, err = run(capsys, "--cache-dir", str(tmp_path), "cache", "prune")
    assert rc == 1 and "no manifests under" in err and "--all" in err


def test_sass_without_nvdisasm_names_the_package(capsys, fake_build, monkeypatch):
    assert run(capsys, "build", "--tp", "8", "--arch", "sm_90a", "--mode", "none", "--bn", "128",
               "--cta-group", "1", "--schedule", "tile", "--no-progress")[0] == 0
    monkeypatch.setattr(tools, "find_tool", lambda name: None)
    rc, out, err = run(capsys, "inspect", NONE, "--sass")
    assert rc == 1 and "pip install nvidia-cuda-nvdisasm" in err


def test_list_with_real_templates_never_imports_the_dsl(tmp_path):
    """Keying (render + hash) is what a warm build does: it must not import cutlass (0.5 s+)."""
    import subprocess
    import sys

    code = ("import sys; from codegen.cli import main; "
            f"rc = main(['--cache-dir', {str(tmp_path)!r}, 'list', '--tp', '8', '--arch', 'sm_90a']); "
            "print('DSL' if 'cutlass' in sys.modules else 'no DSL', rc)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    assert out.strip().splitlines()[-1] in ("no DSL 0", "no DSL 1")  # 1: a template that does not render yet
    assert "missing" in out or "error" in out
