"""Shared by the cache-integrity tests: the CLI over the fake compile step, a read-only root."""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codegen import build as buildmod
from codegen.build import KeyContext
from codegen.cli import main

FAKE = "fake_compile:compile_source"
#: The issue's `$B`: one kernel per tp.
B = ["--arch", "sm_90a", "--mode", "ar", "--transport", "unicast", "--bn", "128", "--cta-group", "1"]
TP2 = "gemm_ar_unicast_sm90a_bn128_cg1_tp2_bf16"
TP4 = "gemm_ar_unicast_sm90a_bn128_cg1_tp4_bf16"


@pytest.fixture
def fake_build(monkeypatch, tmpl_dir, pkg_dir, tmp_path):
    """Point the CLI at the test templates and the fake compile step; returns the cache root."""
    orig_build, orig_ctx = buildmod.build, KeyContext.current
    monkeypatch.setattr(buildmod, "build", functools.partial(
        orig_build, compile_fn=FAKE, templates_dir=tmpl_dir, package_dir=pkg_dir))
    monkeypatch.setattr(KeyContext, "current", classmethod(
        lambda cls, *a, **k: orig_ctx(FAKE, tmpl_dir, pkg_dir)))
    root = tmp_path / "cache"
    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(root))
    return root


def run(capsys, *argv):
    """``codegen *argv`` in this process: (exit status, stdout, stderr)."""
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def build_b(capsys, tp: str, *extra):
    rc, out, err = run(capsys, "build", "--tp", tp, *B, "--no-progress", *extra)
    assert rc == 0, err
    return out


def spawn_cli(tmpl_dir, pkg_dir, root, *argv, env=None, **popen_kw) -> subprocess.Popen:
    """``codegen --cache-dir root *argv`` over the fake compile step, in a new process."""
    runner = Path(__file__).resolve().parent / "cli_runner.py"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **(env or {}))
    return subprocess.Popen([sys.executable, str(runner), str(tmpl_dir), str(pkg_dir),
                             "--cache-dir", str(root), *argv], env=env, text=True, **popen_kw)


@contextlib.contextmanager
def read_only(path: Path):
    """Make ``path`` read-only for this process: chmod for a normal user; as root (which ignores
    modes) a read-only bind mount, or skip where mounting is not allowed."""
    path = Path(path)
    if os.geteuid() != 0:
        dirs = [path, *(p for p in path.rglob("*") if p.is_dir())]
        for d in dirs:
            d.chmod(0o555)
        try:
            yield
        finally:
            for d in dirs:
                d.chmod(0o755)
        return
    ok = subprocess.run(["mount", "--bind", str(path), str(path)], capture_output=True).returncode == 0
    if ok and subprocess.run(["mount", "-o", "remount,ro,bind", str(path)],
                             capture_output=True).returncode != 0:
        subprocess.run(["umount", str(path)], check=True)
        ok = False
    if not ok:
        pytest.skip("root ignores file modes and cannot bind-mount read-only here")
    try:
        yield
    finally:
        subprocess.run(["umount", str(path)], check=True)
