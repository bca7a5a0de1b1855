"""`codegen build` as a process (issue 8, items 6, 7, 11): its workers die with it, a read-only
or full disk gives clean errors with the summary line and no temp files, and a closed stdout is
not an error. CPU only; the build runs the fake compile step."""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import time
from pathlib import Path

import pytest

from cache_helpers import B, TP4, build_b, fake_build, read_only, run, spawn_cli  # noqa: F401


def _children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie holds no memory; its new parent reaps it


# ---- item 6: no orphaned compile workers --------------------------------------------------------
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_killing_the_build_kills_its_workers(tmp_path, tmpl_dir, pkg_dir, sig):
    counts = tmp_path / "counts"
    counts.mkdir()
    proc = spawn_cli(tmpl_dir, pkg_dir, tmp_path / "cache", "build", "--tp", "2", *B, "--no-progress",
                     "-j", "1", env={"FAKE_COMPILE_SLEEP": "60", "FAKE_COMPILE_COUNT_DIR": str(counts)},
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kids: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while not list(counts.iterdir()):  # the worker is compiling
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        kids = _children(proc.pid)  # the compile worker and multiprocessing's resource tracker
        worker = int(next(counts.iterdir()).read_text())
        assert worker in kids and len(kids) >= 2, kids
        os.kill(proc.pid, sig)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 15
        while any(_alive(k) for k in kids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [k for k in kids if _alive(k)] == []
    finally:
        proc.kill()
        for k in kids:  # only the processes this test started
            if _alive(k):
                os.kill(k, signal.SIGKILL)


# ---- item 7: read-only root, full disk -----------------------------------------------------------
def test_read_only_root_fully_cached_build_reports_cleanly(capsys, fake_build):
    root = fake_build
    build_b(capsys, "2")
    with read_only(root):
        rc, out, err = run(capsys, "build", "--tp", "2", *B, "--no-progress")
    assert rc == 1 and re.search(r"built 0, cached \d+, failed 0 in ", out)
    assert err.count("error: ") == 1 and "manifest" in err and "Traceback" not in err
    assert not [p for p in root.rglob("*") if p.name.endswith(".tmp")]


def test_read_only_root_shows_the_per_variant_error_too(capsys, fake_build):
    root = fake_build
    build_b(capsys, "2")
    with read_only(root):
        rc, out, err = run(capsys, "build", "--tp", "2,4", *B, "--no-progress", "-j", "1")
    assert rc == 1 and re.search(r"built 0, cached \d+, failed [1-9]\d* in ", out)
    assert f"error: {TP4}: " in err and "manifest" in err


def _limit_file_size():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a kill: a full disk
    resource.setrlimit(resource.RLIMIT_FSIZE, (300, 300))


def test_full_disk_leaves_no_temp_manifest(capsys, fake_build, tmpl_dir, pkg_dir):
    root = fake_build
    build_b(capsys, "2")
    manifest = root / "manifests" / "tp2_sm_90a_ar_unicast_128_1.json"
    before = manifest.read_bytes()
    proc = spawn_cli(tmpl_dir, pkg_dir, root, "build", "--tp", "2", *B, "--no-progress",
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_limit_file_size)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1 and re.search(r"built 0, cached \d+, failed 0 in ", out)
    assert "error: " in err and "manifest" in err and "Traceback" not in err
    assert sorted(p.name for p in manifest.parent.iterdir()) == [manifest.name]  # no .tmp
    assert manifest.read_bytes() == before  # the previous manifest is intact


# ---- item 11: a closed stdout ------------------------------------------------------------------------
def test_list_into_a_closed_pipe_is_quiet(tmp_path, tmpl_dir, pkg_dir):
    proc = spawn_cli(tmpl_dir, pkg_dir, tmp_path / "cache", "list", "--tp", "2",
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # `| head` that has already exited
    err = proc.stderr.read()
    proc.wait(timeout=120)
    assert err == "" and proc.returncode == 141  # 128 + SIGPIPE, like any tool killed by it
