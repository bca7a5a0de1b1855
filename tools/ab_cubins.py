#!/usr/bin/env python3
"""Build the kernels of another git revision into a cache root of their own, for an A/B run.

A kernel change is judged against the kernels it replaces, timed in the same device call
(METHOD: old and new alternating, twice each). This script makes the "old" side:

    python tools/ab_cubins.py HEAD~1 --cache-dir generated/ab_old -- \\
        --tp 2 --arch sm_90a --transport unicast --schedule tile --mode rs,ar

It checks REV out into a temporary git worktree, runs that revision's own `codegen build`
(its templates and its generator: PYTHONPATH points at the worktree) with the build options
after `--` into --cache-dir, copies this checkout's tuning tables (<repo>/generated/tuning) there
so the dispatcher picks the same variants on both sides, and removes the worktree. On the GPU
machine, time both with the same command and `CODEGEN_CACHE_DIR=generated` /
`CODEGEN_CACHE_DIR=generated/ab_old` in alternation: `tools/ab_time.py --side new=generated
--side old=generated/ab_old --out DIR -- <command with {json}>` (carry `generated`, which
holds both roots).

The old kernels run under this checkout's runtime, so REV must share the kernel contract
(codegen/contract.py's parameter list and buffer layout) with the working tree; the build
refuses nothing here, the runtime's checks at load time do. Never run on the serving root.

`--cubins-only` then deletes each entry's kernel.ptx and kernel.py: the runtime reads only
kernel.cubin and meta.json (entry_format.check_entry with hash_all=False), and they are ~75% of
an entry, so more old roots fit in the device tool's carry (64 MiB with the checkout).
`codegen cache verify` reports such a root as damaged: it is for timing, never for shipping.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def build_revision(rev: str, cache_dir: Path, build_args: list[str],
                   tuning_src: Path | None = None) -> Path:
    """Build `rev`'s kernels into cache_dir; returns the revision's full commit id."""
    cache_dir = cache_dir.resolve()
    if cache_dir == (ROOT / "generated").resolve():
        raise SystemExit("ab_cubins: --cache-dir must not be the serving root "
                         f"({cache_dir}); use e.g. generated/ab_old")
    if "--cache-dir" in build_args:
        raise SystemExit("ab_cubins: give --cache-dir before `--`, not in the build options")
    commit = _git("rev-parse", "--verify", f"{rev}^{{commit}}")
    with tempfile.TemporaryDirectory(prefix="ab_cubins_") as tmp:
        tree = Path(tmp) / "tree"
        _git("worktree", "add", "--detach", str(tree), commit)
        try:
            env = dict(os.environ, PYTHONPATH=str(tree))
            env.pop("CODEGEN_CACHE_DIR", None)
            cmd = [sys.executable, "-m", "codegen.cli", "build", *build_args,
                   "--cache-dir", str(cache_dir), "--no-progress"]
            done = subprocess.run(cmd, cwd=tree, env=env)
            if done.returncode != 0:
                raise SystemExit(f"ab_cubins: the build of {commit[:12]} failed "
                                 f"(exit {done.returncode}): {' '.join(cmd)}")
        finally:
            _git("worktree", "remove", "--force", str(tree))
    src = tuning_src if tuning_src is not None else ROOT / "generated" / "tuning"
    if src.is_dir():
        dst = cache_dir / "tuning"
        dst.mkdir(parents=True, exist_ok=True)
        for table in sorted(src.glob("*.json")):
            shutil.copy2(table, dst / table.name)
    return commit


def strip_to_cubins(cache_dir: Path) -> int:
    """Delete kernel.ptx and kernel.py under cache_dir's entries; returns the bytes freed. The
    runtime and `check-deploy` still load such entries, but `codegen cache verify` calls them
    corrupt and `codegen cache prune` removes every one of them: prune before stripping, never
    after (twenty-ninth session: a prune after a strip emptied a whole cache)."""
    freed = 0
    for name in ("kernel.ptx", "kernel.py"):
        for f in cache_dir.glob(f"sm_*/*/*/{name}"):
            freed += f.stat().st_size
            f.unlink()
    return freed


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    build_args: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, build_args = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="git revision whose kernels to build (e.g. HEAD~1, a commit)")
    ap.add_argument("--cache-dir", type=Path, required=True,
                    help="cache root of its own for the old kernels (e.g. generated/ab_old)")
    ap.add_argument("--cubins-only", action="store_true",
                    help="keep only kernel.cubin and meta.json per entry (timing roots)")
    a = ap.parse_args(argv)
    if not build_args:
        ap.error("give the build options after `--`, e.g. -- --tp 2 --arch sm_90a")
    commit = build_revision(a.rev, a.cache_dir, build_args)
    print(f"built {commit[:12]} into {a.cache_dir}")
    if a.cubins_only:
        print(f"kept the cubins only: {strip_to_cubins(a.cache_dir) / 2**20:.1f} MiB freed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
