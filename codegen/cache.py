"""Content-addressed on-disk kernel cache (the format itself: :mod:`codegen.entry_format`).

Layout: ``<root>/<arch>/<variant name>/<key[:16]>/{kernel.py, kernel.ptx, kernel.cubin, meta.json}``.
An entry is built in a temp dir beside its final place, ``meta.json`` is written last, and the
dir is renamed into place, so a half-written entry is never visible under its final name.
Builders serialise per key on ``<root>/.locks/<name>-<key16>.lock`` and re-check after
acquiring, so concurrent builders make exactly one entry. A whole build also holds
``<root>/.locks/cache.lock`` shared, from its first lookup to its manifest; prune takes it
exclusively, so it never removes what a running build made. Lookups only read: a read-only root
(a deployment's copy) loads fine. A corrupt entry is moved to ``<root>/.quarantine/`` by the
next builder, then rebuilt. Prune removes only directories of the shapes the cache creates that
hold only files it writes.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from codegen.entry_format import (ENTRY_FILES, KEY16, MARKER, META, META_FORMAT, FormatError, check_entry,
                                  check_meta, write_atomic)
from codegen.spec import ARCHS, SpecError, Variant

log = logging.getLogger(__name__)

FILES = ENTRY_FILES
KEY_FORMAT = 1
#: How long a builder waits for another builder of the same key (one compile takes seconds).
LOCK_TIMEOUT_S = 1800.0
#: A temp dir older than this is a crashed build's leftover (prune removes it).
STALE_TMP_S = 3600.0


class NotACacheError(ValueError):
    """The root is missing, not a directory, or holds no kernel cache."""


class CacheBusyError(RuntimeError):
    """A build holds the cache; maintenance must wait."""


def cache_key(
    variant: Variant,
    source: str,
    helper_sources: dict[str, str],
    toolchain: dict[str, str],
    env: dict[str, str],
) -> str:
    """sha256 hex over canonical JSON of exactly these inputs.

    ``helper_sources`` maps repo-relative posix paths to file text, so the key does not
    depend on where the checkout lives.
    """
    for path in helper_sources:
        if path.startswith("/") or "\\" in path or (len(path) > 1 and path[1] == ":"):
            raise ValueError(f"helper path {path!r} must be repo-relative posix, not absolute")
    payload = {
        "format": KEY_FORMAT,
        "variant": variant.to_dict(),
        "source": source,
        "helpers": dict(sorted(helper_sources.items())),
        "toolchain": dict(sorted(toolchain.items())),
        "env": dict(sorted(env.items())),
    }
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@dataclass(frozen=True)
class Entry:
    """A valid cache entry; ``meta`` is its parsed meta.json."""

    variant: Variant
    key: str
    path: Path
    meta: dict

    def file(self, name: str) -> Path:
        return self.path / name

    @property
    def cubin(self) -> bytes:
        return (self.path / "kernel.cubin").read_bytes()


def real_subdirs(path: Path) -> list[os.DirEntry]:
    """Real subdirectories (no links), sorted; none if ``path`` is unreadable."""
    try:
        with os.scandir(path) as it:
            return sorted((d for d in it if d.is_dir(follow_symlinks=False)), key=lambda d: d.name)
    except OSError:
        return []


def open_lock(path: Path) -> int | None:
    """A descriptor of lock file ``path`` to flock (created if it can be), None if there is none."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        try:
            return os.open(path, os.O_RDONLY)  # read-only root: flock works on it too
        except OSError:
            return None  # nobody can write here, so nobody can prune either


class Cache:
    """The cache under ``root``; see the module docstring for layout and guarantees."""

    def __init__(self, root: Path | str):
        self.root = Path(root)

    def entry_dir(self, variant: Variant, key: str) -> Path:
        return self.root / variant.arch / variant.name / key[:16]

    def check(self, variant: Variant, key: str) -> tuple[Entry | None, str | None]:
        """(entry, None) if valid; (None, None) if absent; (None, problem) if corrupt. Never writes."""
        path = self.entry_dir(variant, key)
        if not os.path.lexists(path):
            return None, None
        try:
            checked = check_entry(self.root, variant, key)
        except FormatError as e:
            return None, e.relative(path)
        return Entry(variant, key, checked.path, checked.meta), None

    def lookup(self, variant: Variant, key: str) -> Entry | None:
        """The valid entry or None (a corrupt one is logged and left for the next builder)."""
        entry, problem = self.check(variant, key)
        if problem is not None:
            log.warning("cache entry %s is corrupt (%s); the next build replaces it",
                        self.entry_dir(variant, key), problem)
        return entry

    def quarantine(self, path: Path, reason: str) -> Path:
        """Move a bad entry aside to ``<root>/.quarantine/`` (kept for a post-mortem)."""
        qdir = self.root / ".quarantine"
        qdir.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%S")
        dest = qdir / f"{path.parent.name}-{path.name}-{stamp}-{os.getpid()}"
        os.replace(path, dest)
        log.warning("quarantined cache entry %s (%s) -> %s", path, reason, dest)
        return dest

    def build(self, variant: Variant, key: str, make: Callable[[Path], dict]) -> tuple[Entry, bool]:
        """Return (entry, built). If absent, ``make(tmpdir)`` writes FILES into tmpdir and
        returns extra meta (JSON-able); the entry is then published atomically under the lock."""
        entry, _ = self.check(variant, key)
        if entry is not None:
            return entry, False
        from filelock import FileLock  # build-only dependency; lookups must not need it

        locks = self.root / ".locks"
        locks.mkdir(parents=True, exist_ok=True)
        final = self.entry_dir(variant, key)
        with FileLock(str(locks / f"{variant.name}-{key[:16]}.lock"), timeout=LOCK_TIMEOUT_S):
            # Another builder may have published while we waited.
            entry, problem = self.check(variant, key)
            if entry is not None:
                return entry, False
            if problem is not None:
                self.quarantine(final, problem)
            final.parent.mkdir(parents=True, exist_ok=True)
            # the pid: an interrupted build removes the temp dirs of the workers it killed
            tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{key[:16]}-{os.getpid()}-", dir=final.parent))
            try:
                os.chmod(tmp, 0o755)  # mkdtemp's 0700 would hide the entry from other users
                meta = dict(make(tmp))
                meta.update({
                    "format": META_FORMAT,
                    "name": variant.name,
                    "variant": variant.to_dict(),
                    "key": key,
                    "files": {name: sha256_file(tmp / name) for name in FILES},
                    "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                })
                check_meta(meta, tmp / META, variant, key)  # what the runtime will demand
                # Written last: its presence is what makes the entry complete.
                (tmp / META).write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
                os.replace(tmp, final)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)  # ours: mkdtemp made it
                with contextlib.suppress(OSError):
                    final.parent.rmdir()  # only if empty: a failed first build leaves no trace
                raise
        entry, problem = self.check(variant, key)
        if entry is None:
            raise RuntimeError(f"cache entry {final} invalid right after publishing: {problem}")
        return entry, True

    # ---- the root, and the build/maintenance lock ----------------------------------------------
    def mark(self) -> None:
        """Record that this root is a kernel cache (what verify and prune ask for)."""
        if not (self.root / MARKER).is_file():
            self.root.mkdir(parents=True, exist_ok=True)
            write_atomic(self.root / MARKER, b'{"format": 1}\n')

    def require_root(self) -> None:
        """NotACacheError unless the root is a kernel cache: the marker, or (a cache from before
        the marker) a manifests dir or an ``<arch>/<variant>`` dir."""
        root = self.root
        if not root.exists():
            raise NotACacheError(f"cache root {root} does not exist")
        if not root.is_dir():
            raise NotACacheError(f"cache root {root} is not a directory")
        if (root / MARKER).is_file() or (root / "manifests").is_dir() or any(True for _ in self.variant_dirs()):
            return
        raise NotACacheError(f"{root} is not a kernel cache (no {MARKER}, no manifests/, no "
                             "<arch>/<variant>/ directory): check --cache-dir / CODEGEN_CACHE_DIR")

    @contextlib.contextmanager
    def build_lock(self) -> Iterator[None]:
        """Held shared by a build from its first lookup to its manifest."""
        fd = open_lock(self.root / ".locks" / "cache.lock")
        try:
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_SH)
            yield
        finally:
            if fd is not None:
                os.close(fd)

    # ---- maintenance ---------------------------------------------------------------------------
    def variant_dirs(self) -> Iterator[tuple[Variant, Path]]:
        for arch in ARCHS:
            for d in real_subdirs(self.root / arch):
                try:
                    variant = Variant.parse(d.name)
                except SpecError:
                    continue
                if variant.arch == arch:
                    yield variant, Path(d.path)

    def entry_dirs(self) -> Iterator[Path]:
        """Every ``<arch>/<variant>/<key16>`` dir (valid or not); nothing of another shape."""
        for _, name_dir in self.variant_dirs():
            yield from (Path(d.path) for d in real_subdirs(name_dir) if KEY16.fullmatch(d.name))

    def temp_dirs(self) -> Iterator[Path]:
        for _, name_dir in self.variant_dirs():
            yield from (Path(d.path) for d in real_subdirs(name_dir) if re.fullmatch(r"\.tmp-[0-9a-f]{16}-.+", d.name))

    def inspect_dir(self, path: Path) -> dict:
        """ls/verify row for an entry dir: name, key, path, valid, problem, bytes, mtime."""
        variant = Variant.parse(path.parent.name)
        meta, problem = None, None
        try:
            meta = check_entry(self.root, variant, rel=path.relative_to(self.root).as_posix()).meta
        except FormatError as e:
            problem = e.relative(path)
        try:
            size = sum(p.lstat().st_size for p in path.iterdir() if p.is_file())
            mtime = path.lstat().st_mtime
        except OSError:
            size, mtime = 0, 0.0
        return {
            "name": path.parent.name,
            "key": meta["key"] if meta else path.name,
            "path": path.relative_to(self.root).as_posix(),
            "valid": problem is None,
            "problem": problem,
            "bytes": size,
            "mtime": mtime,
        }

    def ls(self) -> list[dict]:
        return [self.inspect_dir(p) for p in self.entry_dirs()]

    # ---- verify and prune: codegen.cache_maintenance -------------------------------------------
    def verify(self) -> list[str]:
        from codegen.cache_maintenance import verify

        return verify(self)

    def manifest_keys(self) -> set[str]:
        from codegen.cache_maintenance import manifest_keys

        return manifest_keys(self)

    def prune(self, keep_keys: Iterable[str] | None = None, older_than_s: float | None = None,
              dry_run: bool = False):
        from codegen.cache_maintenance import prune

        return prune(self, keep_keys, older_than_s, dry_run)
