import json
import multiprocessing as mp
import os
from pathlib import Path

import pytest

import fake_compile
from codegen import build as buildmod
from codegen.build import KeyContext, build, prepare_job
from codegen.cache import Cache
from codegen.spec import Variant, deployment_matrix

V = Variant("sm_90a", "ar", "unicast", 128, 1, 8)


@pytest.fixture
def cache(tmp_path):
    return Cache(tmp_path / "cache")


def _build(variants, cache, tmpl_dir, pkg_dir, **kw):
    return build(variants, jobs=2, cache=cache, progress=False, compile_fn=fake_compile.compile_source,
                 templates_dir=tmpl_dir, package_dir=pkg_dir, **kw)


def _snapshot(root: Path) -> dict:
    return {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in root.rglob("*")}


def test_build_then_warm_rebuild_spawns_nothing(cache, tmpl_dir, pkg_dir, monkeypatch, tmp_path):
    variants = deployment_matrix(8, ["sm_90a"], bns=[128], cta_groups=[1])
    manifest = cache.root / "manifests" / "tp8.json"
    report = _build(variants, cache, tmpl_dir, pkg_dir, manifest_path=manifest)
    assert report.ok and sorted(report.built, key=Variant.sort_key) == variants and not report.cached
    assert report.summary().startswith(f"built {len(variants)}, cached 0, failed 0 in ")
    for v in variants:
        e = report.entries[v]
        assert e.path == cache.root / "sm_90a" / v.name / e.key[:16]
        assert sorted(p.name for p in e.path.iterdir()) == ["kernel.cubin", "kernel.ptx", "kernel.py", "meta.json"]
        assert e.meta["symbol"] == f"k_{v.name}" and e.meta["variant"] == v.to_dict()
        assert e.meta["resources"]["kernels"]  # filled from the cubin when compile gives none
        assert "codegen/helper_a.py" in e.meta["helpers"]
    data = json.loads(manifest.read_text())
    assert [e["variant"] for e in data["entries"]] == [v.name for v in variants]
    first = data["entries"][0]
    assert set(first) == {"variant", "spec", "key", "path", "cubin_sha256", "symbol", "launch"}
    assert (manifest.parent / data["cache_root"] / first["path"] / "kernel.cubin").is_file()
    assert data["failed"] == []

    def no_pool(*a, **k):
        raise AssertionError("a fully cached build must not start workers")

    monkeypatch.setattr(buildmod, "ProcessPoolExecutor", no_pool)
    warm = _build(variants, cache, tmpl_dir, pkg_dir, manifest_path=manifest)
    assert warm.ok and not warm.built and warm.cached == variants


def test_failed_compile_reported_and_others_built(cache, tmpl_dir, pkg_dir, monkeypatch):
    variants = deployment_matrix(4, ["sm_100a"], modes=["rs"], transports=["unicast"], cta_groups=[1])
    bad = variants[0]
    monkeypatch.setenv("FAKE_COMPILE_FAIL", bad.name)
    report = _build(variants, cache, tmpl_dir, pkg_dir)
    assert not report.ok
    assert report.failed == [(bad, f"error: {bad.name} does not compile")]
    assert "second line of the DSL error" in report.logs[bad]
    assert report.built == variants[1:]
    assert not (cache.root / bad.arch / bad.name).exists() or not any((cache.root / bad.arch / bad.name).iterdir())


def test_render_error_fails_only_that_variant(cache, tmpl_dir, pkg_dir):
    (tmpl_dir / "sm100_gemm.py.j2").write_text("{{ undefined_thing }}\n")
    v90, v100 = Variant("sm_90a", "none", None, 128, 1, None), Variant("sm_100a", "none", None, 128, 1, None)
    report = _build([v90, v100], cache, tmpl_dir, pkg_dir)
    assert report.built == [v90]
    assert report.failed[0][0] == v100 and "undefined_thing" in report.failed[0][1]


def test_missing_compile_module_is_a_clear_failure(cache, tmpl_dir, pkg_dir):
    report = build([V], cache=cache, progress=False, compile_fn="codegen.no_such_module:compile_source",
                   templates_dir=tmpl_dir, package_dir=pkg_dir)
    assert report.failed == [(V, "compile step codegen.no_such_module:compile_source is not available "
                                 "(module codegen.no_such_module not found)")]


@pytest.mark.parametrize("damage", ["truncate_cubin", "delete_meta", "garble_meta", "delete_ptx"])
def test_corrupt_entry_detected_quarantined_rebuilt(cache, tmpl_dir, pkg_dir, damage, caplog):
    first = _build([V], cache, tmpl_dir, pkg_dir).entries[V]
    cubin = first.file("kernel.cubin").read_bytes()
    if damage == "truncate_cubin":
        first.file("kernel.cubin").write_bytes(cubin[: len(cubin) // 2])
    elif damage == "delete_meta":
        first.file("meta.json").unlink()
    elif damage == "garble_meta":
        first.file("meta.json").write_text("{not json")
    else:
        first.file("kernel.ptx").unlink()
    entry, problem = cache.check(V, first.key)
    assert entry is None and problem
    assert cache.lookup(V, first.key) is None
    assert any("corrupt" in r.getMessage() for r in caplog.records)
    assert cache.verify() and "sm_90a/" in cache.verify()[0]

    report = _build([V], cache, tmpl_dir, pkg_dir)
    assert report.built == [V]
    quarantined = list((cache.root / ".quarantine").iterdir())
    assert len(quarantined) == 1 and quarantined[0].name.startswith(f"{V.name}-{first.key[:16]}-")
    fresh = cache.lookup(V, first.key)
    assert fresh is not None and fresh.cubin == cubin
    assert cache.verify() == []


def test_lookup_never_writes(cache, tmpl_dir, pkg_dir, monkeypatch):
    entry = _build([V], cache, tmpl_dir, pkg_dir).entries[V]
    other = Variant("sm_90a", "rs", "unicast", 128, 1, 8)
    before = _snapshot(cache.root)
    monkeypatch.setattr(os, "replace", lambda *a: pytest.fail("lookup renamed something"))
    monkeypatch.setattr(Path, "mkdir", lambda *a, **k: pytest.fail("lookup created a directory"))
    assert cache.lookup(V, entry.key) is not None
    assert cache.lookup(other, "0" * 64) is None
    entry.file("kernel.cubin").write_bytes(b"garbage")  # corrupt: still only reported
    before[entry.file("kernel.cubin")] = (entry.file("kernel.cubin").stat().st_mtime_ns, 7)
    assert cache.lookup(V, entry.key) is None
    assert cache.ls() and cache.verify()
    assert _snapshot(cache.root) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores permissions; test_lookup_never_writes covers it")
def test_read_only_root_still_loads(cache, tmpl_dir, pkg_dir):
    entry = _build([V], cache, tmpl_dir, pkg_dir).entries[V]
    dirs = [cache.root, *(p for p in cache.root.rglob("*") if p.is_dir())]
    for d in dirs:
        d.chmod(0o555)
    try:
        assert cache.lookup(V, entry.key) is not None
        report = _build([V], cache, tmpl_dir, pkg_dir)
        assert report.cached == [V]
    finally:
        for d in dirs:
            d.chmod(0o755)


def _concurrent_builder(root, job, barrier, results):
    barrier.wait()
    results.put(buildmod._run_job(root, job, fake_compile.compile_source))


def test_two_processes_build_same_entry_once(cache, tmpl_dir, pkg_dir, tmp_path, monkeypatch):
    counts = tmp_path / "counts"
    counts.mkdir()
    monkeypatch.setenv("FAKE_COMPILE_COUNT_DIR", str(counts))
    monkeypatch.setenv("FAKE_COMPILE_SLEEP", "0.5")
    job = prepare_job(V, KeyContext.current(fake_compile.compile_source, tmpl_dir, pkg_dir))
    ctx = mp.get_context("spawn")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_concurrent_builder, args=(str(cache.root), job, barrier, results))
             for _ in range(2)]
    for p in procs:
        p.start()
    outcomes = sorted(results.get(timeout=60)[0] for _ in procs)
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert outcomes == ["built", "cached"]
    assert len(list(counts.iterdir())) == 1  # the second builder waited and re-checked
    name_dir = cache.root / V.arch / V.name
    assert [p.name for p in name_dir.iterdir()] == [job.key[:16]]  # no temp dirs left either
    assert cache.lookup(V, job.key) is not None


def test_prune_keeps_manifest_entries(cache, tmpl_dir, pkg_dir):
    keep = deployment_matrix(8, ["sm_90a"], modes=["none"], bns=[128])
    drop = Variant("sm_90a", "rs", "unicast", 128, 1, 8)
    _build(keep, cache, tmpl_dir, pkg_dir, manifest_path=cache.root / "manifests" / "tp8.json")
    dropped = _build([drop], cache, tmpl_dir, pkg_dir).entries[drop]
    assert cache.prune(dry_run=True).removed == [dropped.path]
    assert dropped.path.exists()
    assert cache.prune(older_than_s=3600).removed == []  # too young
    assert cache.prune().removed == [dropped.path]
    assert not (cache.root / "sm_90a" / drop.name).exists()
    assert sorted(r["name"] for r in cache.ls()) == sorted(v.name for v in keep)
