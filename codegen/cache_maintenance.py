"""``cache verify`` and ``cache prune`` over a :class:`codegen.cache.Cache`.

verify checks every entry against its meta.json and every manifest against the entries it
names, so a cache it calls clean is one the runtime loads from. prune removes only what the
cache itself made (``<arch>/<variant>/<key16>`` dirs, crashed builds' temp dirs and temp
manifests, quarantined entries) and only when they hold nothing but the files the cache writes;
it takes ``<root>/.locks/cache.lock`` exclusively (every build holds it shared), skips an entry
whose key lock a builder holds, and reports what it really removed and what the OS refused.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import stat
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from codegen.cache import STALE_TMP_S, Cache, CacheBusyError, open_lock, real_subdirs
from codegen.entry_format import KEY16, OWNED_FILES, FormatError, check_entry, load_manifest, manifest_paths

_QUARANTINED = re.compile(r"gemm_[a-z0-9_]+-[0-9a-f]{16}-\d{8}T\d{6}-\d+")
#: an entry's key lock, <root>/.locks/<variant>-<key16>.lock (Cache.build's, _remove_one's)
_KEY_LOCK = re.compile(r"(?P<variant>gemm_[a-z0-9_]+)-(?P<key>[0-9a-f]{16})\.lock")
_MANIFEST_TMP = re.compile(r"\..+\.json\.\d+\.\d+\.tmp")


@dataclass
class PruneResult:
    removed: list[Path] = field(default_factory=list)  # with dry_run: what would be removed
    failed: list[tuple[Path, str]] = field(default_factory=list)  # tried, the OS refused
    skipped: list[tuple[Path, str]] = field(default_factory=list)  # not the cache's, or locked
    locks_removed: int = 0   # key lock files of entries that no longer exist (not in a dry run)


def _stale(cache: Cache) -> Iterator[Path]:
    """Crashed builds' temp dirs and manifest temp files, older than STALE_TMP_S."""
    mdir = cache.root / "manifests"
    try:
        tmp_files = [mdir / n for n in sorted(os.listdir(mdir)) if _MANIFEST_TMP.fullmatch(n)]
    except OSError:
        tmp_files = []
    now = time.time()
    for path in [*cache.temp_dirs(), *tmp_files]:
        with contextlib.suppress(OSError):
            if now - os.lstat(path).st_mtime > STALE_TMP_S:
                yield path


def verify(cache: Cache) -> list[str]:
    """One line per problem: corrupt entries, crashed builds' leftovers, and every manifest
    entry that is not exactly the valid entry it names (or a manifest that does not parse).
    NotACacheError if the root is not a kernel cache."""
    cache.require_root()
    root = cache.root
    problems = [f"{row['path']}: {row['problem']}" for row in cache.ls() if not row["valid"]]
    problems += [f"{p.relative_to(root).as_posix()}: leftover of a crashed build" for p in _stale(cache)]
    try:
        paths = manifest_paths(root)
    except FormatError as e:
        return problems + [str(e)]
    for path in paths:
        rel = path.relative_to(root).as_posix()
        try:
            manifest = load_manifest(path)
        except FormatError as e:
            problems.append(f"{rel}: {e.problem}")
            continue
        for name, e in sorted(manifest.entries.items()):
            try:
                check_entry(root, e.variant, e.key, cubin_sha=e.cubin_sha256)
            except FormatError as exc:
                problems.append(f"{rel}: {name}: entry {e.path}: {exc.relative(root / e.path)}")
    return problems


def manifest_keys(cache: Cache) -> set[str]:
    """Keys referenced by any manifest under ``<root>/manifests/``; ValueError if one is unreadable."""
    keys: set[str] = set()
    try:
        for path in manifest_paths(cache.root):
            keys.update(e.key for e in load_manifest(path).entries.values())
    except FormatError as e:
        raise ValueError(f"manifest {e}; fix or delete it before pruning") from None
    return keys


@contextlib.contextmanager
def maintenance_lock(cache: Cache) -> Iterator[None]:
    """``cache.lock`` held exclusively; CacheBusyError at once while any build runs."""
    lock = cache.root / ".locks" / "cache.lock"
    fd = open_lock(lock)
    try:
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise CacheBusyError(f"a build is running on {cache.root} (it holds {lock}); "
                                     "prune when it has finished") from None
        yield
    finally:
        if fd is not None:
            os.close(fd)


def _plan(cache: Cache, keep: set[str], older_than_s: float | None) -> list[Path]:
    now = time.time()
    doomed: list[Path] = []
    for row in cache.ls():
        if row["valid"] and row["key"] in keep:
            continue
        if older_than_s is not None and row["valid"] and now - row["mtime"] < older_than_s:
            continue
        doomed.append(cache.root / row["path"])
    doomed += list(_stale(cache))
    qdir = cache.root / ".quarantine"
    if qdir.is_dir() and not qdir.is_symlink():
        doomed += [Path(d.path) for d in real_subdirs(qdir) if _QUARANTINED.fullmatch(d.name)]
    return doomed


def prune(cache: Cache, keep_keys: Iterable[str] | None = None, older_than_s: float | None = None,
          dry_run: bool = False) -> PruneResult:
    """Remove entries whose key is not in ``keep_keys`` (default: keys of every manifest), only
    those older than ``older_than_s`` if given; also every corrupt entry, quarantined entries and
    stale temp files (see the module docstring for what is never removed). CacheBusyError while
    a build runs; NotACacheError if the root is not a kernel cache."""
    cache.require_root()
    keep = manifest_keys(cache) if keep_keys is None else set(keep_keys)
    result = PruneResult()
    if dry_run:
        result.removed = _plan(cache, keep, older_than_s)
        return result
    with maintenance_lock(cache):
        for path in _plan(cache, keep, older_than_s):
            _remove_one(cache, path, result)
        for _, name_dir in list(cache.variant_dirs()):
            with contextlib.suppress(OSError):
                name_dir.rmdir()  # only an empty one
        result.locks_removed = _remove_orphan_locks(cache)
    return result


def _remove_orphan_locks(cache: Cache) -> int:
    """Unlink every key lock (`.locks/<variant>-<key16>.lock`, a regular empty file) whose entry
    no longer exists under any arch: each build leaves one per entry, and before this a pruned
    entry's stayed forever. Only under the exclusive maintenance lock, so no build has one open
    (a build holds cache.lock shared while it takes key locks). Returns how many were removed."""
    ldir = cache.root / ".locks"
    if not ldir.is_dir() or ldir.is_symlink():
        return 0
    archs = [d.name for d in real_subdirs(cache.root) if d.name.startswith("sm_")]
    removed = 0
    for f in os.scandir(ldir):
        m = _KEY_LOCK.fullmatch(f.name)
        if m is None or not f.is_file(follow_symlinks=False) or f.stat(follow_symlinks=False).st_size:
            continue
        if any((cache.root / a / m["variant"] / m["key"]).exists() for a in archs):
            continue
        with contextlib.suppress(OSError):
            os.unlink(f.path)
            removed += 1
    return removed


def _remove_owned(path: Path) -> None:
    """Remove ``path`` if it is a real directory holding only regular files the cache writes;
    ValueError (not ours) or OSError (the OS refused) otherwise."""
    if not stat.S_ISDIR(os.lstat(path).st_mode):
        raise ValueError("not a directory")
    names = os.listdir(path)
    foreign = [n for n in names if n not in OWNED_FILES or not stat.S_ISREG(os.lstat(path / n).st_mode)]
    if foreign:
        raise ValueError(f"holds {', '.join(sorted(foreign)[:3])}, which the cache does not write")
    for name in names:
        os.unlink(path / name)
    os.rmdir(path)


def _remove_one(cache: Cache, path: Path, result: PruneResult) -> None:
    fd = None
    if KEY16.fullmatch(path.name) and path.parent.parent.parent == cache.root:  # an entry
        fd = open_lock(cache.root / ".locks" / f"{path.parent.name}-{path.name}.lock")
    try:
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                result.skipped.append((path, "a builder holds its lock"))
                return
        if path.parent.name == "manifests":
            os.unlink(path)  # a crashed build's temp manifest
        else:
            _remove_owned(path)
        result.removed.append(path)
    except ValueError as e:
        result.skipped.append((path, str(e)))
    except OSError as e:
        result.failed.append((path, e.strerror or str(e)))
    finally:
        if fd is not None:
            os.close(fd)
