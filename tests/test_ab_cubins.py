"""tools/ab_cubins.py: another revision's kernels built into a root of their own (CPU, a real
compile of one small variant from HEAD through a temporary git worktree)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import ab_cubins  # noqa: E402


def test_refuses_the_serving_root_and_a_second_cache_dir(tmp_path):
    with pytest.raises(SystemExit, match="serving root"):
        ab_cubins.build_revision("HEAD", ROOT / "generated", ["--tp", "2"])
    with pytest.raises(SystemExit, match="before `--`"):
        ab_cubins.build_revision("HEAD", tmp_path / "ab", ["--cache-dir", "x"])
    with pytest.raises(SystemExit):
        ab_cubins.main(["HEAD", "--cache-dir", str(tmp_path / "ab")])   # no build options


def test_builds_a_revision_and_copies_the_tuning_tables(tmp_path):
    tuning = tmp_path / "tuning_src"
    tuning.mkdir()
    (tuning / "sm_90a_ar_tp2_n7168_k768.json").write_text('{"format": 1}')
    out = tmp_path / "ab_old"
    commit = ab_cubins.build_revision(
        "HEAD", out, ["--tp", "2", "--arch", "sm_90a", "--mode", "none", "--schedule", "tile",
                      "--bn", "128", "--cta-group", "1"], tuning_src=tuning)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()
    assert commit == head
    manifests = list((out / "manifests").glob("*.json"))
    assert len(manifests) == 1
    entries = json.loads(manifests[0].read_text())
    assert "gemm_none_sm90a_bn128_cg1_bf16" in json.dumps(entries)
    assert list((out / "sm_90a").glob("*/*/kernel.cubin")), "no cubin built"
    assert (out / "tuning" / "sm_90a_ar_tp2_n7168_k768.json").read_text() == '{"format": 1}'
    worktrees = subprocess.run(["git", "worktree", "list"], cwd=ROOT, capture_output=True,
                               text=True, check=True).stdout
    assert "ab_cubins_" not in worktrees, "the temporary worktree was left behind"
    # --cubins-only: the runtime still resolves the entry from the cubin and meta.json alone
    from codegen.runtime.cache_index import find_entry
    freed = ab_cubins.strip_to_cubins(out)
    assert freed > 0
    assert not list((out / "sm_90a").glob("*/*/kernel.ptx"))
    assert not list((out / "sm_90a").glob("*/*/kernel.py"))
    entry = find_entry(out, "sm_90a", "gemm_none_sm90a_bn128_cg1_bf16", "codegen build")
    assert entry.cubin[:4] == b"\x7fELF"
