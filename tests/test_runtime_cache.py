"""Cache lookup: manifest rule, meta.json scan, sha256 check, miss message (CPU only).

Entries are written by the real writer (``Cache.build``), so the runtime reads the real format."""
import hashlib
import json
import os
import stat
import time

import pytest

from codegen.cache import Cache
from codegen.runtime.cache_index import build_command, find_entry
from codegen.runtime.errors import CacheMissError
from codegen.spec import Variant

ARCH = "sm_90a"
VARIANT = "gemm_rs_unicast_sm90a_bn128_cg1_tp8_bf16"
V = Variant.parse(VARIANT)
CMD = build_command(ARCH, "rs", 8)
EXTRA = {"symbol": "kernel_x", "abi": {"params": [{"name": "m", "kind": "u32", "size": 4, "align": 4}]},
         "launch": {"block": [384, 1, 1], "cluster": [1, 1, 1], "dynamic_smem": 1024}}


def _entry(root, tag: str, cubin=b"CUBIN", variant=V):
    """A real entry of ``variant`` whose key is derived from ``tag``; returns (key, dir)."""
    key = hashlib.sha256(tag.encode()).hexdigest()

    def make(tmp):
        (tmp / "kernel.py").write_text("# k\n")
        (tmp / "kernel.ptx").write_text(".entry kernel_x\n")
        (tmp / "kernel.cubin").write_bytes(cubin)
        return dict(EXTRA)

    entry, built = Cache(root).build(variant, key, make)
    assert built
    return key, entry.path


def _manifest(root, name, entries, failed=(), written_ns=None):
    (root / "manifests").mkdir(exist_ok=True)
    doc = {"format": 2, "written_ns": written_ns or time.time_ns(),
           "entries": [{"variant": VARIANT, "key": k, "path": f"{ARCH}/{VARIANT}/{k[:16]}",
                        "cubin_sha256": sha} for k, sha in entries],
           "failed": [{"variant": VARIANT, "error": e} for e in failed]}
    (root / "manifests" / name).write_text(json.dumps(doc))


def _sha(b):
    return hashlib.sha256(b).hexdigest()


def test_build_command():
    assert build_command("sm_90a", "rs", 8) == "codegen build --tp 8 --arch sm_90a"
    assert build_command("sm_90a", "none", None).endswith("--arch sm_90a --mode none")


def test_miss_names_command(tmp_path):
    with pytest.raises(CacheMissError) as ei:
        find_entry(tmp_path, ARCH, VARIANT, CMD)
    msg = str(ei.value)
    assert VARIANT in msg and "run: codegen build --tp 8 --arch sm_90a" in msg


def test_scan_finds_valid_entry(tmp_path):
    key, _ = _entry(tmp_path, "a")
    e = find_entry(tmp_path, ARCH, VARIANT, CMD)
    assert e.cubin == b"CUBIN" and e.symbol == "kernel_x" and e.key == key


def test_corrupt_entry_says_rebuild(tmp_path):
    _, d = _entry(tmp_path, "k1")
    (d / "kernel.cubin").write_bytes(b"CUBIM")
    with pytest.raises(CacheMissError) as ei:
        find_entry(tmp_path, ARCH, VARIANT, CMD)
    msg = str(ei.value)
    assert "kernel.cubin sha256 mismatch" in msg and "rebuild" in msg and "run: codegen build" in msg


def test_valid_entry_beside_corrupt_one(tmp_path):
    _, bad = _entry(tmp_path, "bad")
    (bad / "kernel.cubin").write_bytes(b"x")
    good, _ = _entry(tmp_path, "good", cubin=b"OTHER")
    assert find_entry(tmp_path, ARCH, VARIANT, CMD).key == good


def test_two_valid_entries_and_no_manifest_is_ambiguous(tmp_path):
    _entry(tmp_path, "a", cubin=b"A")
    _entry(tmp_path, "b", cubin=b"B")
    with pytest.raises(CacheMissError, match="2 valid entries"):
        find_entry(tmp_path, ARCH, VARIANT, CMD)


def test_manifest_decides(tmp_path):
    scanned, _ = _entry(tmp_path, "scanned", cubin=b"A")
    listed, d = _entry(tmp_path, "listed", cubin=b"B")
    _manifest(tmp_path, "tp8.json", [(listed, _sha(b"B"))])
    os.utime(d / "meta.json", (1, 1))  # older: mtimes do not matter
    assert find_entry(tmp_path, ARCH, VARIANT, CMD).key == listed


def test_newest_manifest_wins_whatever_its_name(tmp_path):
    old, _ = _entry(tmp_path, "old", cubin=b"A")
    new, _ = _entry(tmp_path, "new", cubin=b"B")
    _manifest(tmp_path, "a.json", [(old, _sha(b"A"))], written_ns=2)
    _manifest(tmp_path, "z.json", [(new, _sha(b"B"))], written_ns=3)
    assert find_entry(tmp_path, ARCH, VARIANT, CMD).key == new
    _manifest(tmp_path, "z.json", [(new, _sha(b"B"))], written_ns=1)
    assert find_entry(tmp_path, ARCH, VARIANT, CMD).key == old
    # a deployment may pin its manifest
    assert find_entry(tmp_path, ARCH, VARIANT, CMD, manifest=tmp_path / "manifests" / "z.json").key == new


def test_same_time_different_outcomes_is_a_miss(tmp_path):
    a, _ = _entry(tmp_path, "a", cubin=b"A")
    b, _ = _entry(tmp_path, "b", cubin=b"B")
    _manifest(tmp_path, "x.json", [(a, _sha(b"A"))], written_ns=5)
    _manifest(tmp_path, "y.json", [(b, _sha(b"B"))], written_ns=5)
    with pytest.raises(CacheMissError, match="same time"):
        find_entry(tmp_path, ARCH, VARIANT, CMD)


def test_manifest_sha_mismatch_is_a_miss_not_a_scan(tmp_path):
    key, _ = _entry(tmp_path, "only", cubin=b"B")
    _manifest(tmp_path, "m.json", [(key, "1" * 64)])
    with pytest.raises(CacheMissError, match="not the cubin the manifest records"):
        find_entry(tmp_path, ARCH, VARIANT, CMD)


def test_format_1_manifest_still_resolves(tmp_path):
    key, _ = _entry(tmp_path, "v1", cubin=b"B")
    _entry(tmp_path, "other", cubin=b"C")
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "tp8.json").write_text(json.dumps({
        "format": 1, "created": "2026-01-02T03:04:05+0000", "entries": [
            {"variant": VARIANT, "key": key, "path": f"{ARCH}/{VARIANT}/{key[:16]}",
             "cubin_sha256": _sha(b"B")}], "failed": []}))
    assert find_entry(tmp_path, ARCH, VARIANT, CMD).key == key


def test_wrong_arch_or_bad_name_is_a_miss(tmp_path):
    _entry(tmp_path, "a")
    with pytest.raises(CacheMissError):
        find_entry(tmp_path, "sm_100a", VARIANT, CMD)
    with pytest.raises(CacheMissError):
        find_entry(tmp_path, ARCH, "../../etc", CMD)


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="root ignores file modes")
def test_read_only_root(tmp_path):
    key, _ = _entry(tmp_path, "ro")
    for p in sorted(tmp_path.rglob("*"), reverse=True):
        p.chmod(stat.S_IREAD | (stat.S_IEXEC if p.is_dir() else 0))
    try:
        assert find_entry(tmp_path, ARCH, VARIANT, CMD).key == key
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
