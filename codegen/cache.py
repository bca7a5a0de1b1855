"""Content-addressed on-disk kernel cache.

Layout: ``<root>/<arch>/<variant name>/<key[:16]>/{kernel.py, kernel.ptx, kernel.cubin, meta.json}``.
An entry is built in a temp dir beside its final place, ``meta.json`` is written last, and the
dir is renamed into place, so a half-written entry is never visible under its final name.
Builders serialise per key on ``<root>/.locks/<name>-<key16>.lock`` and re-check after
acquiring, so concurrent builders make exactly one entry. Lookups only read: a read-only root
(a deployment's copy) loads fine. A corrupt entry is moved to ``<root>/.quarantine/`` by the
next builder, then rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from codegen.spec import SpecError, Variant

log = logging.getLogger(__name__)

FILES = ("kernel.py", "kernel.ptx", "kernel.cubin")
META = "meta.json"
KEY_FORMAT = 1
#: How long a builder waits for another builder of the same key (one compile takes seconds).
LOCK_TIMEOUT_S = 1800.0
#: A temp dir older than this is a crashed build's leftover (prune removes it).
STALE_TMP_S = 3600.0


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


def _validate(path: Path, variant: Variant | None, key: str | None) -> tuple[dict | None, str | None]:
    """(meta, None) for a valid entry dir, else (None, problem). Reads only."""
    try:
        meta = json.loads((path / META).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, "meta.json missing (partial entry)"
    except (OSError, ValueError) as e:
        return None, f"meta.json unreadable: {e}"
    if not isinstance(meta, dict) or not isinstance(meta.get("files"), dict):
        return None, "meta.json has no files table"
    if key is not None and meta.get("key") != key:
        return None, f"meta.json key {str(meta.get('key'))[:16]}... does not match {key[:16]}..."
    if variant is not None and meta.get("variant") != variant.to_dict():
        return None, f"meta.json variant {meta.get('variant')!r} does not match {variant.name}"
    for name in FILES:
        if name not in meta["files"]:
            return None, f"meta.json lists no {name}"
    for name, digest in meta["files"].items():
        try:
            actual = sha256_file(path / name)
        except OSError:
            return None, f"{name} missing"
        if actual != digest:
            return None, f"{name} sha256 mismatch (truncated or modified)"
    return meta, None


class Cache:
    """The cache under ``root``; see the module docstring for layout and guarantees."""

    def __init__(self, root: Path | str):
        self.root = Path(root)

    def entry_dir(self, variant: Variant, key: str) -> Path:
        return self.root / variant.arch / variant.name / key[:16]

    def check(self, variant: Variant, key: str) -> tuple[Entry | None, str | None]:
        """(entry, None) if valid; (None, None) if absent; (None, problem) if corrupt. Never writes."""
        path = self.entry_dir(variant, key)
        if not path.exists():
            return None, None
        meta, problem = _validate(path, variant, key)
        if meta is None:
            return None, problem
        return Entry(variant, key, path, meta), None

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
            tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{key[:16]}-", dir=final.parent))
            try:
                os.chmod(tmp, 0o755)  # mkdtemp's 0700 would hide the entry from other users
                extra = make(tmp)
                meta = dict(extra)
                meta.update({
                    "format": KEY_FORMAT,
                    "name": variant.name,
                    "variant": variant.to_dict(),
                    "key": key,
                    "files": {name: sha256_file(tmp / name) for name in FILES},
                    "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                })
                # Written last: its presence is what makes the entry complete.
                (tmp / META).write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
                os.replace(tmp, final)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                try:
                    final.parent.rmdir()  # only if empty: a failed first build leaves no trace
                except OSError:
                    pass
                raise
        entry, problem = self.check(variant, key)
        if entry is None:
            raise RuntimeError(f"cache entry {final} invalid right after publishing: {problem}")
        return entry, True

    # ---- maintenance -------------------------------------------------------------------

    def entry_dirs(self) -> Iterator[Path]:
        """Every ``<arch>/<name>/<key16>`` dir (valid or not), temp dirs excluded."""
        if not self.root.is_dir():
            return
        for arch_dir in sorted(self.root.glob("sm_*")):
            for name_dir in sorted(p for p in arch_dir.iterdir() if p.is_dir()):
                for key_dir in sorted(p for p in name_dir.iterdir() if p.is_dir()):
                    if not key_dir.name.startswith("."):
                        yield key_dir

    def temp_dirs(self) -> Iterator[Path]:
        if self.root.is_dir():
            yield from sorted(self.root.glob("sm_*/*/.tmp-*"))

    def inspect_dir(self, path: Path) -> dict:
        """ls/verify row for an entry dir: name, key, path, valid, problem, bytes, mtime."""
        problem = None
        try:
            variant = Variant.parse(path.parent.name)
        except SpecError as e:
            variant, problem = None, str(e)
        meta, bad = _validate(path, variant, None)
        problem = problem or bad
        if meta is not None and not str(meta.get("key", "")).startswith(path.name):
            problem = f"directory {path.name} does not match meta.json key {meta.get('key')}"
        size = sum(p.stat().st_size for p in path.iterdir() if p.is_file())
        return {
            "name": path.parent.name,
            "key": (meta or {}).get("key", path.name),
            "path": path.relative_to(self.root).as_posix(),
            "valid": problem is None,
            "problem": problem,
            "bytes": size,
            "mtime": path.stat().st_mtime,
        }

    def ls(self) -> list[dict]:
        return [self.inspect_dir(p) for p in self.entry_dirs()]

    def verify(self) -> list[str]:
        """One line per problem: corrupt entries and crashed builds' temp dirs."""
        problems = [f"{row['path']}: {row['problem']}" for row in self.ls() if not row["valid"]]
        now = time.time()
        for tmp in self.temp_dirs():
            if now - tmp.stat().st_mtime > STALE_TMP_S:
                problems.append(f"{tmp.relative_to(self.root).as_posix()}: leftover temp dir of a crashed build")
        return problems

    def manifest_keys(self) -> set[str]:
        """Keys referenced by any manifest under ``<root>/manifests/``."""
        keys: set[str] = set()
        for path in sorted((self.root / "manifests").glob("*.json")):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                keys.update(e["key"] for e in data.get("entries", []))
            except (OSError, ValueError, KeyError, TypeError) as e:
                raise ValueError(f"manifest {path} unreadable ({e}); fix or delete it before pruning") from None
        return keys

    def prune(
        self,
        keep_keys: Iterable[str] | None = None,
        older_than_s: float | None = None,
        dry_run: bool = False,
    ) -> list[Path]:
        """Remove entries whose key is not in ``keep_keys`` (default: keys of every manifest),
        only those older than ``older_than_s`` if given; also every corrupt entry, the
        quarantine and stale temp dirs. Returns what was (or, with dry_run, would be) removed."""
        keep = self.manifest_keys() if keep_keys is None else set(keep_keys)
        now = time.time()
        doomed: list[Path] = []
        for row in self.ls():
            path = self.root / row["path"]
            if row["valid"] and row["key"] in keep:
                continue
            if older_than_s is not None and row["valid"] and now - row["mtime"] < older_than_s:
                continue
            doomed.append(path)
        doomed += [t for t in self.temp_dirs() if now - t.stat().st_mtime > STALE_TMP_S]
        qdir = self.root / ".quarantine"
        if qdir.is_dir():
            doomed += sorted(qdir.iterdir())
        if not dry_run:
            for path in doomed:
                shutil.rmtree(path, ignore_errors=True)
            for name_dir in self.root.glob("sm_*/*"):
                if name_dir.is_dir() and not any(name_dir.iterdir()):
                    name_dir.rmdir()
        return doomed
