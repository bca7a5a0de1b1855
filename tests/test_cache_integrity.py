"""The runtime reads exactly what the builder wrote, picks the newest build of a variant, and
answers every malformed or out-of-root entry or manifest with a CacheMissError (issue 8, items
1, 3, 4). CPU only: real cache entries from the fake compile step, read back by the runtime."""

from __future__ import annotations

import json
import logging
import shutil
from types import SimpleNamespace

import pytest

import fake_compile
from cache_helpers import TP2, TP4, build_b, fake_build, run  # noqa: F401 - fake_build is a fixture
from codegen.build import build
from codegen.cache import Cache
from codegen.runtime.cache_index import build_command, find_entry
from codegen.runtime.errors import CacheMissError
from codegen.spec import Variant

CMD = build_command("sm_90a", "ar", 2)


def _find(root, name=TP2):
    return find_entry(root, "sm_90a", name, CMD)


def _one_entry(cache, tmpl_dir, pkg_dir, name=TP2):
    v = Variant.parse(name)
    report = build([v], jobs=1, cache=cache, progress=False, compile_fn=fake_compile.compile_source,
                   templates_dir=tmpl_dir, package_dir=pkg_dir,
                   manifest_path=cache.root / "manifests" / "m.json")
    assert report.ok, report.failed
    return report.entries[v]


# ---- round trip ------------------------------------------------------------------------------
def test_round_trip_writer_to_runtime(tmp_path, tmpl_dir, pkg_dir, tiny_dir, monkeypatch):
    monkeypatch.setenv("FAKE_COMPILE_CUBIN", str(tiny_dir / "tiny.cubin"))
    cache = Cache(tmp_path / "cache")
    variants = [Variant(arch, mode, None if mode == "none" else "unicast", 128, cg, None if mode == "none" else 4)
                for arch in ("sm_90a", "sm_100a") for mode in ("rs", "ar", "none") for cg in (1, 2)]
    report = build(variants, jobs=2, cache=cache, progress=False, compile_fn=fake_compile.compile_source,
                   templates_dir=tmpl_dir, package_dir=pkg_dir,
                   manifest_path=cache.root / "manifests" / "tp4.json")
    assert report.ok and len(report.entries) == len(variants)
    for v, written in report.entries.items():
        got = find_entry(cache.root, v.arch, v.name, "x")
        assert got.variant == v.name and got.key == written.key
        assert got.dir.resolve() == written.path.resolve()
        assert got.cubin == written.cubin == (written.path / "kernel.cubin").read_bytes()
        assert got.cubin_sha256 == written.meta["files"]["kernel.cubin"]
        assert got.meta == written.meta and got.symbol == f"k_{v.name}"
    # and without the manifest (a copy that lost it) the scan finds the same entries
    shutil.rmtree(cache.root / "manifests")
    for v, written in report.entries.items():
        assert find_entry(cache.root, v.arch, v.name, "x").key == written.key


# ---- item 1: never a stale kernel ------------------------------------------------------------
def test_runtime_takes_the_newest_build_not_the_first_manifest(capsys, fake_build, tmpl_dir):
    root = fake_build
    build_b(capsys, "2,4")
    old = _find(root)
    template = tmpl_dir / "sm90_gemm.py.j2"
    original = template.read_text()
    template.write_text(original + "# changed\n")
    build_b(capsys, "2")
    rc, out, err = run(capsys, "list", "--tp", "2", *["--arch", "sm_90a", "--mode", "ar",
                       "--transport", "unicast", "--bn", "128", "--cta-group", "1"])
    status, key16 = {line.split()[0]: line.split()[1:] for line in out.splitlines()}[TP2]
    assert status == "cached" and not old.key.startswith(key16)
    assert _find(root).key.startswith(key16)  # was the old entry: first manifest by file name
    assert _find(root, TP4).key != _find(root).key  # tp4 was built once: its only entry
    # back to the old template: the newest build of tp2 now names the old entry again
    template.write_text(original)
    build_b(capsys, "2,4")
    assert _find(root).key == old.key


def test_newest_build_failed_is_a_miss_not_an_older_kernel(capsys, fake_build, tmpl_dir, monkeypatch):
    root = fake_build
    build_b(capsys, "2")
    (tmpl_dir / "sm90_gemm.py.j2").write_text((tmpl_dir / "sm90_gemm.py.j2").read_text() + "# v2\n")
    monkeypatch.setenv("FAKE_COMPILE_FAIL", TP2)
    assert run(capsys, "build", "--tp", "2", "--arch", "sm_90a", "--mode", "ar", "--transport",
               "unicast", "--bn", "128", "--cta-group", "1", "--no-progress")[0] == 1
    with pytest.raises(CacheMissError, match="failed"):
        _find(root)


# ---- item 3: malformed JSON is a CacheMissError naming the file ------------------------------
DEEP = "[" * 200_000 + "]" * 200_000


@pytest.mark.parametrize("text", ["[]", "null", '{"files": "x"}', '{"files": {"kernel.cubin": 5}}',
                                  pytest.param(DEEP, id="deep"), "", "\udcff", "LAUNCH", "SYMBOL"])
def test_malformed_meta_is_a_cache_miss(tmp_path, tmpl_dir, pkg_dir, text):
    cache = Cache(tmp_path / "cache")
    entry = _one_entry(cache, tmpl_dir, pkg_dir)
    meta = entry.path / "meta.json"
    if text in ("LAUNCH", "SYMBOL"):  # well-formed JSON, wrong types where the loader looks
        doc = json.loads(meta.read_text())
        doc.update({"launch": {"block": "384"}} if text == "LAUNCH" else {"symbol": 5})
        text = json.dumps(doc)
    meta.write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(CacheMissError) as ei:
        _find(cache.root)
    assert str(meta) in str(ei.value) or "meta.json" in str(ei.value)


@pytest.mark.parametrize("path", [5, None, ["x"], "", "sm_90a"])
def test_malformed_manifest_entry_is_a_cache_miss(tmp_path, tmpl_dir, pkg_dir, path):
    cache = Cache(tmp_path / "cache")
    _one_entry(cache, tmpl_dir, pkg_dir)
    manifest = cache.root / "manifests" / "m.json"
    doc = json.loads(manifest.read_text())
    doc["entries"][0]["path"] = path
    manifest.write_text(json.dumps(doc))
    with pytest.raises(CacheMissError, match="m.json"):
        _find(cache.root)


@pytest.mark.parametrize("doc", ["[]", "null", '{"entries": "x"}', '{"entries": [5]}',
                                 pytest.param(DEEP, id="deep"), "{"])
def test_malformed_manifest_is_a_cache_miss(tmp_path, tmpl_dir, pkg_dir, doc):
    cache = Cache(tmp_path / "cache")
    _one_entry(cache, tmpl_dir, pkg_dir)
    (cache.root / "manifests" / "m.json").write_text(doc)
    with pytest.raises(CacheMissError, match="m.json"):
        _find(cache.root)


def test_cli_survives_a_deeply_nested_meta(capsys, fake_build):
    root = fake_build
    build_b(capsys, "2")
    meta = next((root / "sm_90a" / TP2).iterdir()) / "meta.json"
    meta.write_text(DEEP)
    rc, out, err = run(capsys, "cache", "verify")
    assert rc == 1 and "meta.json" in err and "Recursion" not in err
    assert run(capsys, "cache", "ls")[0] == 0
    rc, out, err = run(capsys, "list", "--tp", "2", "--arch", "sm_90a", "--mode", "ar",
                       "--transport", "unicast", "--bn", "128", "--cta-group", "1")
    assert "corrupt" in out
    assert run(capsys, "inspect", TP2)[0] == 1


def test_make_fused_or_fallback_falls_back_on_a_malformed_manifest(tmp_path, tmpl_dir, pkg_dir, caplog):
    try:  # where it lives is being moved
        from codegen.runtime.fallback import make_fused_or_fallback
    except ImportError:
        from codegen.runtime.symm_group import make_fused_or_fallback

    cache = Cache(tmp_path / "cache")
    _one_entry(cache, tmpl_dir, pkg_dir)
    manifest = cache.root / "manifests" / "m.json"
    doc = json.loads(manifest.read_text())
    doc["entries"][0]["path"] = 5
    manifest.write_text(json.dumps(doc))

    import torch

    class FakeGroup:
        tp, mode, N, max_M, sm_budget = 2, "ar", 1024, 4096, 132
        device = torch.device("cpu")
        local_ranks = (0,)

        def workspace(self, r):
            return SimpleNamespace(multicast_ptr=0)

        ar_buffer = workspace
        landing = workspace   # the Group interface's decode landing buffer

    with caplog.at_level(logging.WARNING, logger=make_fused_or_fallback.__module__):
        op = make_fused_or_fallback(4096, 1024, 768, "ar", group_factory=lambda *a, **k: FakeGroup(),
                                    arch="sm_90a", transport="unicast", bn=128, cta_group=1,
                                    cache_dir=cache.root)
    assert op is None and "m.json" in caplog.text


# ---- item 4: nothing outside the cache root --------------------------------------------------
@pytest.mark.parametrize("how", ["absolute", "dotdot", "symlink"])
def test_manifest_path_outside_the_root_is_refused(tmp_path, tmpl_dir, pkg_dir, how):
    cache = Cache(tmp_path / "cache")
    entry = _one_entry(cache, tmpl_dir, pkg_dir)
    outside = tmp_path / "elsewhere" / entry.path.name
    shutil.copytree(entry.path, outside)
    shutil.rmtree(entry.path)  # only the outside copy remains valid
    manifest = cache.root / "manifests" / "m.json"
    doc = json.loads(manifest.read_text())
    if how == "absolute":
        doc["entries"][0]["path"] = str(outside)
    elif how == "dotdot":
        doc["entries"][0]["path"] = f"../elsewhere/{outside.name}"
    else:
        entry.path.symlink_to(outside, target_is_directory=True)
    manifest.write_text(json.dumps(doc))
    with pytest.raises(CacheMissError):
        _find(cache.root)
