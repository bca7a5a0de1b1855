"""More hostile states of a cache, its manifests, a build and the CLI (beyond issue 8's list):
each must end in a clean error (a CacheMissError for the runtime), never a hang, a read or a
deletion outside the cache, or a silent wrong answer. CPU only."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess

import pytest

from cache_helpers import B, TP2, TP4, build_b, fake_build, run, spawn_cli  # noqa: F401 - a fixture
from codegen.cli import main
from codegen.runtime.cache_index import find_entry
from codegen.runtime.errors import CacheMissError


def _entry(root, name=TP2):
    (d,) = [p for p in (root / "sm_90a" / name).iterdir() if not p.name.startswith(".")]
    return d


def _rewrite_meta(entry, **changes):
    meta = json.loads((entry / "meta.json").read_text())
    meta.update(changes)
    (entry / "meta.json").write_text(json.dumps(meta))


def _find(root, name=TP2):
    return find_entry(root, "sm_90a", name, "x")


def test_fifo_in_an_entry_is_refused_not_waited_on(capsys, fake_build):
    root = fake_build
    build_b(capsys, "2")
    cubin = _entry(root) / "kernel.cubin"
    cubin.unlink()
    os.mkfifo(cubin)  # open() of a FIFO with no writer blocks forever
    with pytest.raises(CacheMissError, match="not a regular file"):
        _find(root)
    rc, out, err = run(capsys, "cache", "verify")
    assert rc == 1 and "not a regular file" in err


def test_cubin_linked_outside_the_root_is_not_read(capsys, fake_build, tmp_path):
    root = fake_build
    build_b(capsys, "2")
    entry = _entry(root)
    outside = tmp_path / "secret.bin"
    outside.write_bytes(b"not the cache's")
    (entry / "kernel.cubin").unlink()
    (entry / "kernel.cubin").symlink_to(outside)
    meta = json.loads((entry / "meta.json").read_text())
    _rewrite_meta(entry, files=dict(meta["files"], **{"kernel.cubin": hashlib.sha256(outside.read_bytes()).hexdigest()}))
    with pytest.raises(CacheMissError):
        _find(root)
    assert run(capsys, "cache", "verify")[0] == 1


def test_meta_files_naming_paths_outside_the_entry_are_refused(capsys, fake_build, tmp_path):
    root = fake_build
    build_b(capsys, "2")
    entry = _entry(root)
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    meta = json.loads((entry / "meta.json").read_text())
    rel = os.path.relpath(outside, entry)  # a file that verify would hash
    _rewrite_meta(entry, files=dict(meta["files"], **{rel: hashlib.sha256(b"x").hexdigest()}))
    rc, out, err = run(capsys, "cache", "verify")
    assert rc == 1 and "'files' must map exactly" in err


def test_oversize_meta_is_refused(capsys, fake_build):
    root = fake_build
    build_b(capsys, "2")
    with open(_entry(root) / "meta.json", "r+b") as f:
        f.truncate(200 << 20)  # sparse: 200 MiB of NULs
    with pytest.raises(CacheMissError, match="larger than"):
        _find(root)


def test_manifest_links_are_refused(capsys, fake_build, tmp_path):
    root = fake_build
    build_b(capsys, "2")
    (manifest,) = (root / "manifests").iterdir()
    outside = tmp_path / "elsewhere.json"
    outside.write_bytes(manifest.read_bytes())
    manifest.unlink()
    manifest.symlink_to(outside)
    with pytest.raises(CacheMissError, match="symbolic link|not a regular file|cannot open"):
        _find(root)
    manifest.unlink()
    (root / "manifests").rmdir()
    (root / "manifests").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(CacheMissError, match="symbolic link"):
        _find(root)


def test_prune_does_not_follow_a_linked_quarantine(capsys, fake_build, tmp_path):
    root = fake_build
    build_b(capsys, "2")
    precious = tmp_path / "precious"
    (precious / f"{TP2}-0123456789abcdef-20260101T000000-1").mkdir(parents=True)
    (precious / "data").mkdir()
    (root / ".quarantine").symlink_to(precious, target_is_directory=True)
    assert run(capsys, "cache", "prune")[0] == 0
    assert sorted(p.name for p in precious.iterdir()) == ["data", f"{TP2}-0123456789abcdef-20260101T000000-1"]


def test_prune_does_not_follow_a_linked_entry(capsys, fake_build, tmp_path):
    root = fake_build
    build_b(capsys, "2")
    target = tmp_path / "not_the_cache"
    target.mkdir()
    (target / "kernel.cubin").write_bytes(b"mine")
    (root / "sm_90a" / TP2 / "0123456789abcdef").symlink_to(target, target_is_directory=True)
    rc, out, err = run(capsys, "cache", "prune", "--all")
    assert rc == 0 and "0123456789abcdef" not in out
    assert (target / "kernel.cubin").read_bytes() == b"mine"


@pytest.mark.parametrize("argv", [["cache", "prune", "--older-than", "nan"],
                                  ["cache", "prune", "--older-than", "-1"],
                                  ["cache", "prune", "--older-than", "inf"],
                                  ["build", "--tp", "2", "--manifest", ""]])
def test_bad_numbers_and_paths_are_usage_errors(capsys, tmp_path, monkeypatch, argv):
    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2 and "error:" in capsys.readouterr().err
    assert not (tmp_path / "cache").exists()


def test_manifest_path_that_is_a_directory(capsys, fake_build, tmp_path):
    """Refused before anything is built (sixteenth session; before, the build ran and failed at
    writing the manifest, exit 1)."""
    rc, out, err = run(capsys, "build", "--tp", "2", *B, "--no-progress", "--manifest", str(tmp_path))
    assert rc == 2 and "built" not in out
    assert "is not a regular file" in err and "Traceback" not in err


def test_logs_path_that_is_a_file_keeps_the_summary(capsys, fake_build, monkeypatch):
    root = fake_build
    root.mkdir()
    (root / "logs").write_text("not a directory")
    monkeypatch.setenv("FAKE_COMPILE_FAIL", TP2)
    rc, out, err = run(capsys, "build", "--tp", "2", *B, "--no-progress")
    assert rc == 1 and re.search(r"failed 1 in ", out) and f"error: {TP2}: " in err
    logdir = re.search(r"full error text: (\S+)/<variant>.log", err).group(1)
    assert "second line of the DSL error" in open(f"{logdir}/{TP2}.log").read()


def _limit_file_size():
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))  # workers inherit it: a full disk


def test_full_disk_while_publishing_an_entry(capsys, fake_build, tmpl_dir, pkg_dir):
    root = fake_build
    build_b(capsys, "4")  # the root exists, a manifest too
    proc = spawn_cli(tmpl_dir, pkg_dir, root, "build", "--tp", "2", *B, "--no-progress", "-j", "1",
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_limit_file_size)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1 and re.search(r"built 0, cached 0, failed [1-9]\d* in ", out), err
    assert f"error: {TP2}: " in err and "Traceback" not in err
    assert not [p for p in root.rglob("*") if p.name.startswith(".tmp") or p.name.endswith(".tmp")]
    assert not (root / "sm_90a" / TP2).exists()
    _find(root, TP4)  # what was there still loads


def test_compile_workers_that_cannot_start(capsys, fake_build, monkeypatch):
    from codegen import build as buildmod

    def no_pool(*a, **k):
        raise OSError(28, "No space left on device")  # e.g. /dev/shm full: no semaphores

    monkeypatch.setattr(buildmod, "ProcessPoolExecutor", no_pool)
    rc, out, err = run(capsys, "build", "--tp", "2", *B, "--no-progress")
    assert rc == 1 and re.search(r"built 0, cached 0, failed [1-9]\d* in ", out)
    assert f"error: {TP2}: cannot start compile workers: No space left on device" in err
