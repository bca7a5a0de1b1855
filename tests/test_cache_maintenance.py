"""`cache verify` / `cache prune` / argument checks against a hostile user (issue 8, items 2, 5,
8): prune only removes what the cache made, never races a build, reports what it really
removed; verify checks manifests and refuses a root that is not a cache. CPU only."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from cache_helpers import B, TP2, TP4, build_b, fake_build, read_only, run, spawn_cli  # noqa: F401
from codegen.cli import main
from codegen.runtime.cache_index import find_entry


def _entry_dir(root, name=TP2):
    (d,) = [p for p in (root / "sm_90a" / name).iterdir() if not p.name.startswith(".")]
    return d


# ---- item 2: prune vs a running build; verify checks manifests -------------------------------
def test_prune_during_a_build_cannot_delete_what_it_builds(capsys, fake_build, tmpl_dir, pkg_dir):
    root = fake_build
    build_b(capsys, "8")  # a manifest exists, so a plain prune runs
    proc = spawn_cli(tmpl_dir, pkg_dir, root, "build", "--tp", "2,4", *B, "--no-progress", "-j", "1",
                     env={"FAKE_COMPILE_SLEEP": "1.5"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not list(root.glob("sm_90a/*_tp[24]_*/[0-9a-f]*/meta.json")):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        rc, out, err = run(capsys, "cache", "prune")  # the first entry is published, no manifest yet
        build_out, build_err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, build_err
    for name in (TP2, TP4):
        find_entry(root, "sm_90a", name, "x")  # was CacheMissError: prune deleted a fresh entry
    assert rc == 1 and "build" in err  # refused while the build holds the cache
    assert run(capsys, "cache", "verify")[0] == 0


def test_verify_checks_manifests_against_entries(capsys, fake_build):
    root = fake_build
    build_b(capsys, "2,4")
    assert run(capsys, "cache", "verify")[0] == 0
    shutil.rmtree(_entry_dir(root, TP2))  # deleted by hand
    rc, out, err = run(capsys, "cache", "verify")
    assert rc == 1 and "tp2_4_sm_90a_ar_unicast_128_1.json" in err and TP2 in err
    assert "1 problems" in out or "1 problem" in out


def test_verify_reports_a_malformed_manifest(capsys, fake_build):
    root = fake_build
    build_b(capsys, "2")
    (root / "manifests" / "junk.json").write_text('{"entries": [{"path": 5}]}')
    rc, out, err = run(capsys, "cache", "verify")
    assert rc == 1 and "junk.json" in err


# ---- item 5: prune removes only what the cache made, and says what it really removed ---------
def test_prune_all_leaves_foreign_directories_alone(capsys, fake_build):
    root = fake_build
    build_b(capsys, "2")
    entry = _entry_dir(root, TP2)
    foreign = [root / "sm_data" / "experiments" / "run1" / "result.txt",
               root / "sm_90a" / "notes" / "run1" / "a.txt",
               root / "sm_90a" / TP2 / "mydata" / "b.txt",
               root / "sm_90a" / TP2 / "0123456789abcdef" / "results.csv"]  # key-shaped, not ours
    for f in foreign:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("mine\n")
    rc, out, err = run(capsys, "cache", "prune", "--all")
    assert rc == 0, err
    assert all(f.read_text() == "mine\n" for f in foreign)
    assert not entry.exists() and f"removed {entry}" in out and " removed\n" in out


def test_prune_removes_the_key_locks_of_entries_it_removed(capsys, fake_build):
    """A build leaves a key lock per entry; prune unlinks those whose entry is gone (before, they
    stayed forever) and keeps the others', cache.lock and anything not shaped like a key lock."""
    root = fake_build
    build_b(capsys, "2")
    build_b(capsys, "4")
    locks = root / ".locks"
    before = sorted(f.name for f in locks.iterdir())
    tp2_lock = [n for n in before if n.startswith(TP2 + "-")]
    assert len(tp2_lock) == 1 and (locks / "cache.lock").exists()
    (locks / "notes.txt").write_text("mine\n")
    (locks / f"{TP2}-0123456789abcdef.lock").write_text("not empty\n")   # key-shaped, not empty
    _entry_dir(root, TP2)
    for m in (root / "manifests").iterdir():    # keep only TP4's entry
        if "tp2" in m.name:
            m.unlink()
    rc, out, err = run(capsys, "cache", "prune")
    assert rc == 0, err
    assert not (locks / tp2_lock[0]).exists() and "key lock files" in out
    assert [n for n in os_names(locks) if n.startswith(TP4 + "-")]      # TP4's entry and lock stay
    assert (locks / "cache.lock").exists() and (locks / "notes.txt").read_text() == "mine\n"
    assert (locks / f"{TP2}-0123456789abcdef.lock").exists()


def os_names(d):
    return sorted(f.name for f in d.iterdir())


def test_prune_on_a_read_only_root_reports_nothing_removed(capsys, fake_build):
    root = fake_build
    build_b(capsys, "2")
    entry = _entry_dir(root, TP2)
    with read_only(root):
        rc, out, err = run(capsys, "cache", "prune", "--all")
    assert entry.is_dir() and (entry / "kernel.cubin").is_file()
    assert rc == 1 and "0 removed" in out and "error:" in err  # was "1 removed", exit 0


# ---- item 8: a root that is not a cache, empty --cache-dir, bad -j ----------------------------
@pytest.mark.parametrize("where", ["/", "/etc/passwd", "missing", "plain_dir"])
def test_verify_refuses_a_root_that_is_not_a_cache(capsys, tmp_path, where):
    root = {"missing": tmp_path / "nope", "plain_dir": tmp_path}.get(where, where)
    (tmp_path / "notes.txt").write_text("x")
    rc, out, err = run(capsys, "--cache-dir", str(root), "cache", "verify")
    assert rc == 1 and "0 entries, 0 problems" not in out
    assert "not a kernel cache" in err or "does not exist" in err or "not a directory" in err


def test_prune_refuses_a_root_that_is_not_a_cache(capsys, tmp_path):
    keep = tmp_path / "sm_data" / "experiments" / "run1"
    keep.mkdir(parents=True)
    rc, out, err = run(capsys, "--cache-dir", str(tmp_path), "cache", "prune", "--all")
    assert rc == 1 and "not a kernel cache" in err and keep.is_dir()


@pytest.mark.parametrize("argv", [["--cache-dir", "", "cache", "verify"],
                                  ["build", "--tp", "8", "-j", "0"],
                                  ["build", "--tp", "8", "-j", "-1"],
                                  ["build", "--tp", "8", "-j", "x"]])
def test_bad_arguments_are_usage_errors(capsys, tmp_path, monkeypatch, argv):
    work, cache = tmp_path / "work", tmp_path / "cache"
    work.mkdir()
    monkeypatch.chdir(work)  # an empty --cache-dir must not mean "here"
    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(cache))  # never the repo's generated/
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    assert "error:" in capsys.readouterr().err
    assert list(work.iterdir()) == [] and not cache.exists()


def test_build_refuses_a_file_as_root(capsys, fake_build, tmp_path):
    root = tmp_path / "a_file"
    root.write_text("x")
    rc, out, err = run(capsys, "--cache-dir", str(root), "build", "--tp", "2", *B, "--no-progress")
    assert rc == 1 and err.startswith("error:") and "Traceback" not in err and root.read_text() == "x"
