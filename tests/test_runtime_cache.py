"""Cache lookup: manifest first, then meta.json scan, sha256 check, miss message (CPU only)."""
import hashlib
import json
import os
import stat

import pytest

from codegen.runtime.cache_index import build_command, find_entry
from codegen.runtime.errors import CacheMissError

ARCH = "sm_90a"
VARIANT = "gemm_rs_unicast_sm90a_bn128_cg1_tp8_bf16"
CMD = build_command(ARCH, "rs", 8)
META = {"symbol": "kernel_x", "abi": {"params": []},
        "launch": {"block": [384, 1, 1], "cluster": [1, 1, 1], "dynamic_smem": 1024}}


def _entry(root, key, cubin=b"CUBIN", variant=VARIANT, sha=None):
    d = root / ARCH / variant / key
    d.mkdir(parents=True)
    (d / "kernel.cubin").write_bytes(cubin)
    meta = dict(META, variant=variant, key=key,
                files={"kernel.cubin": sha or hashlib.sha256(cubin).hexdigest()})
    (d / "meta.json").write_text(json.dumps(meta))
    return d


def test_build_command():
    assert build_command("sm_90a", "rs", 8) == "codegen build --tp 8 --arch sm_90a"
    assert build_command("sm_90a", "none", None).endswith("--arch sm_90a --mode none")


def test_miss_names_command(tmp_path):
    with pytest.raises(CacheMissError) as ei:
        find_entry(tmp_path, ARCH, VARIANT, CMD)
    msg = str(ei.value)
    assert VARIANT in msg and "run: codegen build --tp 8 --arch sm_90a" in msg


def test_scan_finds_valid_entry(tmp_path):
    _entry(tmp_path, "abcd" * 4)
    e = find_entry(tmp_path, ARCH, VARIANT, CMD)
    assert e.cubin == b"CUBIN" and e.symbol == "kernel_x" and e.key == "abcd" * 4


def test_corrupt_entry_says_rebuild(tmp_path):
    _entry(tmp_path, "k1", sha="0" * 64)
    with pytest.raises(CacheMissError) as ei:
        find_entry(tmp_path, ARCH, VARIANT, CMD)
    msg = str(ei.value)
    assert "corrupt" in msg and "rebuild" in msg and "run: codegen build" in msg


def test_valid_entry_beside_corrupt_one(tmp_path):
    _entry(tmp_path, "bad", sha="0" * 64)
    _entry(tmp_path, "good", cubin=b"OTHER")
    assert find_entry(tmp_path, ARCH, VARIANT, CMD).key == "good"


def test_manifest_preferred(tmp_path):
    _entry(tmp_path, "scanned", cubin=b"A")
    d = _entry(tmp_path, "listed", cubin=b"B")
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "tp8.json").write_text(json.dumps({"entries": [
        {"variant": VARIANT, "key": "listed", "path": str(d.relative_to(tmp_path)),
         "cubin_sha256": hashlib.sha256(b"B").hexdigest(), "symbol": "kernel_x"}]}))
    os.utime(d / "meta.json", (1, 1))  # older: the scan alone would pick "scanned"
    assert find_entry(tmp_path, ARCH, VARIANT, CMD).key == "listed"


def test_manifest_sha_mismatch_falls_back_to_scan(tmp_path):
    d = _entry(tmp_path, "only", cubin=b"B")
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "m.json").write_text(json.dumps([
        {"variant": VARIANT, "path": str(d.relative_to(tmp_path)), "cubin_sha256": "1" * 64}]))
    assert find_entry(tmp_path, ARCH, VARIANT, CMD).key == "only"


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="root ignores file modes")
def test_read_only_root(tmp_path):
    _entry(tmp_path, "ro")
    for p in sorted(tmp_path.rglob("*"), reverse=True):
        p.chmod(stat.S_IREAD | (stat.S_IEXEC if p.is_dir() else 0))
    try:
        assert find_entry(tmp_path, ARCH, VARIANT, CMD).key == "ro"
    finally:
        for p in tmp_path.rglob("*"):
            p.chmod(0o755)


def test_lookup_writes_nothing(tmp_path):
    _entry(tmp_path, "k")
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    find_entry(tmp_path, ARCH, VARIANT, CMD)
    with pytest.raises(CacheMissError):
        find_entry(tmp_path, ARCH, VARIANT.replace("tp8", "tp4"), CMD)
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before
