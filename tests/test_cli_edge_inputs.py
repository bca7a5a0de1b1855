"""`codegen` against inputs and situations of a careless or hurried user (CPU only, fake compile):
options that select no variant, a `~user` that does not exist, a cache path with spaces in the
command check-deploy prints, a manifest written outside <root>/manifests, and Ctrl-C / SIGTERM
in the middle of a build."""

from __future__ import annotations

import os
import pwd
import shlex
import signal
import subprocess
import time
from pathlib import Path

import pytest

from cache_helpers import B, TP2, build_b, fake_build, run, spawn_cli  # noqa: F401 - a fixture
from codegen import env
from codegen.cli import main

NOBODY = "~codegen-no-such-user-7x"


@pytest.fixture(autouse=True)
def _switch_restored(monkeypatch):
    """check-deploy turns CODEGEN_NO_COMPILE on in its process, here the test's: undone after."""
    monkeypatch.setenv("CODEGEN_NO_COMPILE", "0")


# ---- options that select no variant ------------------------------------------------------------
@pytest.mark.parametrize("narrow, culprits", [
    (["--arch", "sm_100a", "--schedule", "splitkw"], ["--arch", "--schedule"]),   # splitkw: sm_90a only
    (["--mode", "rs", "--schedule", "splitkw"], ["--mode", "--schedule"]),        # splitkw: mode none only
    (["--cta-group", "4", "--schedule", "tile"], ["--cta-group", "--schedule"]),  # tile: cta_group 1, 2
])
def test_options_that_select_no_variant_are_usage_errors(capsys, fake_build, narrow, culprits):
    root = fake_build
    build_b(capsys, "2")  # a deployment's manifest
    manifests = sorted(p.name for p in (root / "manifests").iterdir())
    for argv in (["build", "--tp", "2", *narrow, "--no-progress"], ["list", "--tp", "2", *narrow]):
        rc, out, err = run(capsys, *argv)
        # before: exit 0, "built 0, cached 0, failed 0" and an empty manifest that became the newest
        assert rc == 2 and out == "", (argv, out, err)
        assert err.startswith("error: ") and "select no kernel variant" in err
        assert all(f"without {flag}" in err for flag in culprits), err
    assert sorted(p.name for p in (root / "manifests").iterdir()) == manifests
    assert run(capsys, "check-deploy", "--host-only")[0] == 0  # the newest is still the real one


# ---- ~user that cannot be expanded ---------------------------------------------------------------
def _no_such_user():
    try:
        pwd.getpwnam(NOBODY[1:])
    except KeyError:
        return
    pytest.skip(f"user {NOBODY[1:]} exists here")


@pytest.mark.parametrize("argv", [["--cache-dir", f"{NOBODY}/c", "cache", "ls"],
                                  ["build", "--tp", "2", "--manifest", f"{NOBODY}/m.json"],
                                  ["check-deploy", "--manifest", f"{NOBODY}/m.json"]])
def test_tilde_of_an_unknown_user_is_a_usage_error(capsys, tmp_path, monkeypatch, argv):
    _no_such_user()
    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(SystemExit) as e:  # was a RuntimeError traceback out of argparse
        main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and NOBODY in err and "cannot expand '~'" in err
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("name", ["CODEGEN_CACHE_DIR", "CODEGEN_MANIFEST"])
def test_tilde_of_an_unknown_user_in_the_environment_names_the_variable(capsys, monkeypatch, tmp_path, name):
    _no_such_user()
    field = {"CODEGEN_CACHE_DIR": "cache_dir", "CODEGEN_MANIFEST": "manifest"}[name]
    with pytest.raises(ValueError, match=f"{name}=.*cannot expand"):  # was RuntimeError, no name
        getattr(env.load({name: f"{NOBODY}/x"}), field)   # read when used (env.Settings)
    monkeypatch.setenv(name, f"{NOBODY}/x")
    if name == "CODEGEN_MANIFEST":
        rc, out, err = run(capsys, "--cache-dir", str(tmp_path), "check-deploy", "--host-only")
    else:
        rc, out, err = run(capsys, "cache", "ls")
    assert rc == 1 and err.startswith(f"error: {name}=")


# ---- check-deploy's rebuild command is a shell line --------------------------------------------------
def test_rebuild_command_quotes_a_cache_dir_with_spaces(capsys, fake_build, tmp_path, monkeypatch):
    root = tmp_path / "my caches" / "ü ñ"
    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(tmp_path / "unused"))
    assert run(capsys, "--cache-dir", str(root), "build", "--tp", "2", *B, "--no-progress")[0] == 0
    custom = tmp_path / "deploy it" / "tp2.json"
    custom.parent.mkdir()
    assert run(capsys, "--cache-dir", str(root), "build", "--tp", "2", *B, "--no-progress",
               "--manifest", str(custom))[0] == 0
    (entry,) = (root / "sm_90a" / TP2).iterdir()
    (entry / "kernel.cubin").unlink()
    for manifest in ([], ["--manifest", str(custom)]):
        rc, out, err = run(capsys, "--cache-dir", str(root), "check-deploy", "--host-only", *manifest)
        assert rc == 1
        (line,) = [x for x in err.splitlines() if x.startswith("error: rebuild with: ")]
        argv = shlex.split(line.removeprefix("error: rebuild with: "))  # was split at the spaces
        assert argv[:3] == ["codegen", "--cache-dir", str(root)], line
        if manifest:
            assert argv[-2:] == ["--manifest", str(custom)], line
        monkeypatch.setenv("CODEGEN_NO_COMPILE", "0")  # check-deploy turned it on in this process
        assert run(capsys, *argv[1:], "--no-progress")[0] == 0  # the command fixes it
        rc, out, err = run(capsys, "--cache-dir", str(root), "check-deploy", "--host-only", *manifest)
        assert rc == 0, err
        (entry,) = (root / "sm_90a" / TP2).iterdir()
        (entry / "kernel.cubin").unlink()


# ---- a manifest outside <root>/manifests ------------------------------------------------------------
def test_a_manifest_outside_the_root_says_prune_will_not_see_it(capsys, fake_build, tmp_path):
    root = fake_build
    rc, out, err = run(capsys, "build", "--tp", "2", *B, "--no-progress", "--manifest", str(tmp_path / "d.json"))
    assert rc == 0 and err.startswith("note: ") and "codegen cache prune" in err and "will remove" in err
    rc, out, err = run(capsys, "build", "--tp", "2", *B, "--no-progress",
                       "--manifest", str(root / "manifests" / "mine.json"))
    assert rc == 0 and err == ""


def test_a_manifest_path_that_is_no_regular_file_is_refused(capsys, fake_build, tmp_path):
    """The manifest is written through a temp file and a rename: over a symlink (or, as root,
    /dev/stdout) it would replace the link or the device node with a file. Refused before any
    build; a new path or a regular file is fine."""
    target = tmp_path / "real.json"
    target.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    for path in (link, tmp_path, Path("/dev/null")):
        rc, out, err = run(capsys, "build", "--tp", "2", *B, "--no-progress", "--manifest", str(path))
        assert rc == 2 and "is not a regular file" in err, (path, err)
    assert link.is_symlink() and target.read_text() == "{}"
    rc, out, err = run(capsys, "build", "--tp", "2", *B, "--no-progress", "--manifest", str(target))
    assert rc == 0 and not target.read_text() == "{}"


# ---- Ctrl-C and SIGTERM in the middle of a build -------------------------------------------------
def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc")
@pytest.mark.parametrize("how, rc", [("ctrl-c", 130), ("sigint", 130), ("sigterm", 143)])
def test_interrupted_build_stops_at_once_and_leaves_no_temp_dir(tmp_path, tmpl_dir, pkg_dir, how, rc):
    root, counts = tmp_path / "cache", tmp_path / "counts"
    counts.mkdir()
    # 10 variants, one worker, 60 s each: before, Ctrl-C waited for every queued compile (10 min)
    # and ended in a traceback; SIGTERM left the killed worker's .tmp-* dir in the cache
    proc = spawn_cli(tmpl_dir, pkg_dir, root, "build", "--tp", "2", "--arch", "sm_90a", "--mode", "ar",
                     "--transport", "unicast", "--schedule", "tile", "--no-progress", "-j", "1",
                     env={"FAKE_COMPILE_SLEEP": "60", "FAKE_COMPILE_COUNT_DIR": str(counts)},
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    worker = None
    try:
        deadline = time.monotonic() + 60
        while not list(counts.iterdir()):  # the worker is inside its compile, its temp dir made
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        worker = int(next(counts.iterdir()).read_text())
        assert list(root.glob("sm_90a/*/.tmp-*"))
        if how == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C: the whole process group
        else:
            os.kill(proc.pid, signal.SIGINT if how == "sigint" else signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == rc, err
    assert "error: interrupted: no manifest written" in err and "Traceback" not in err
    assert not list(root.rglob(".tmp*")) and not (root / "manifests").exists()
    assert not (root / "sm_90a").exists() or not list((root / "sm_90a").iterdir())
    deadline = time.monotonic() + 15
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(worker)


def test_ctrl_c_in_another_command_is_one_line(capsys, fake_build, monkeypatch):
    from codegen.cache import Cache

    build_b(capsys, "2")

    def interrupted(self):
        raise KeyboardInterrupt
    monkeypatch.setattr(Cache, "ls", interrupted)
    try:
        rc, out, err = run(capsys, "cache", "ls")
    except KeyboardInterrupt:  # (caught here: uncaught, it would end the whole test session)
        pytest.fail("Ctrl-C ended codegen cache ls with a traceback")
    assert rc == 130 and err == "error: interrupted\n"


# ---- a junk switch the command does not read, or that an option overrides -------------------------
def test_jobs_option_overrides_a_junk_codegen_jobs(capsys, fake_build, monkeypatch):
    """-j overrides CODEGEN_JOBS (README), and check-deploy never compiles: neither fails on a
    junk CODEGEN_JOBS, nor a build on a junk CODEGEN_WAIT_TIMEOUT_MS (a runtime switch). Before,
    every command parsed every switch first: `CODEGEN_JOBS=0 codegen build -j 1` said
    "error: CODEGEN_JOBS='0' must be >= 1"."""
    monkeypatch.setenv("CODEGEN_JOBS", "0")
    monkeypatch.setenv("CODEGEN_WAIT_TIMEOUT_MS", "soon")
    build_b(capsys, "2", "-j", "1")
    rc, out, err = run(capsys, "build", "--tp", "2", *B, "--no-progress")  # no -j: it is read
    assert rc == 1 and "error: CODEGEN_JOBS='0' must be >= 1" in err
    rc, out, err = run(capsys, "check-deploy", "--host-only")
    assert rc == 0, err
