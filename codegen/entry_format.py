"""The on-disk format of the kernel cache: the one reader (and the atomic writer) of entries and
manifests, shared by the builder (``codegen.cache``, ``codegen.build``) and the runtime
(``codegen.runtime.cache_index``). Standard library only: the runtime imports it.

An entry is ``<root>/<arch>/<variant>/<key[:16]>/`` holding ``kernel.py``, ``kernel.ptx``,
``kernel.cubin`` and ``meta.json``. A manifest is ``<root>/manifests/<name>.json``. Parsing is
strict: anything malformed raises :class:`FormatError` naming the file and what is wrong, never
another exception, and every path is confined to the cache root (no absolute paths, no ``..``,
no symbolic links, only regular files).
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from codegen.spec import SpecError, Variant

ENTRY_FILES = ("kernel.py", "kernel.ptx", "kernel.cubin")
META = "meta.json"
#: Every file an entry dir may hold; prune removes a dir only if it holds nothing else.
OWNED_FILES = frozenset(ENTRY_FILES + (META,))
#: Written into the root by the first build: what makes a directory a kernel cache.
MARKER = ".codegen-cache"
META_FORMAT = 1
#: 2 adds ``written_ns``, the order in which builds finished (format 1: ``created``, seconds).
MANIFEST_FORMAT = 2
MAX_META_BYTES = 16 << 20
MAX_MANIFEST_BYTES = 64 << 20
MAX_CUBIN_BYTES = 1 << 30

_SHA = re.compile(r"[0-9a-f]{64}")
KEY16 = re.compile(r"[0-9a-f]{16}")


class FormatError(ValueError):
    """A cache file that does not follow the format; ``str()`` names the file and the problem."""

    def __init__(self, path: Path | str, problem: str):
        self.path, self.problem = Path(path), problem
        super().__init__(f"{path}: {problem}")

    def relative(self, base: Path) -> str:
        """``kernel.cubin sha256 mismatch...``: the problem, with the file relative to ``base``."""
        try:
            rel = self.path.relative_to(base).as_posix()
        except ValueError:
            return str(self)
        return self.problem if rel == "." else f"{rel} {self.problem}"


# ---- reading files, confined -----------------------------------------------------------------
def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, a regular file (not a link, FIFO or device) of at most ``limit``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise FormatError(path, "missing") from None
    except OSError as e:
        if e.errno == errno.ELOOP and os.path.islink(path):  # O_NOFOLLOW's answer to any link
            raise FormatError(path, "is a symbolic link: cache files are read only as regular "
                                    "files (no link is followed); copy the file there instead "
                                    "of linking it") from None
        raise FormatError(path, f"cannot open ({e.strerror or e})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise FormatError(path, "is not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise FormatError(path, f"unreadable ({e.strerror or e})") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise FormatError(path, f"larger than {limit} bytes")
    return data


def read_json(path: Path, limit: int):
    """Parsed JSON of ``path``; FormatError for anything unreadable (bad UTF-8, deep nesting...)."""
    return _json_of(read_regular(path, limit), path)


def _json_of(data: bytes, path: Path):
    try:
        return json.loads(data.decode("utf-8"))
    except RecursionError:
        raise FormatError(path, "not valid JSON (nested too deeply)") from None
    except ValueError as e:  # JSONDecodeError, UnicodeDecodeError, int too long
        raise FormatError(path, f"not valid JSON ({e})") from None


def sha256_bytes(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def entry_rel(variant: Variant, key: str) -> str:
    """``<arch>/<variant>/<key[:16]>``: where an entry lives, relative to the root."""
    return f"{variant.arch}/{variant.name}/{key[:16]}"


def confined_dir(root: Path, rel: str) -> Path:
    """``root/rel`` if it is a real directory at exactly that place (no link on the way)."""
    path = Path(root) / rel
    real_root = os.path.realpath(root)
    if os.path.realpath(path) != os.path.join(real_root, *rel.split("/")):
        raise FormatError(path, f"leads outside the cache root {root} (a symbolic link)")
    if not path.is_dir():
        raise FormatError(path, "missing (no such entry directory)")
    return path


# ---- meta.json ---------------------------------------------------------------------------------
def _is_int(v, lo: int = 0) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= lo


def _dims(v) -> bool:
    return isinstance(v, list) and 1 <= len(v) <= 3 and all(_is_int(x, 1) for x in v)


def _meta_problem(doc, variant: Variant, key: str | None) -> str | None:
    if not isinstance(doc, dict):
        return f"is a JSON {type(doc).__name__}, not an object"
    files = doc.get("files")
    if not isinstance(files, dict) or sorted(files) != sorted(ENTRY_FILES):
        return f"'files' must map exactly {', '.join(ENTRY_FILES)} to their sha256"
    bad = [n for n, d in files.items() if not (isinstance(d, str) and _SHA.fullmatch(d))]
    if bad:
        return f"'files' has no sha256 hex digest for {', '.join(sorted(bad))}"
    if doc.get("format") != META_FORMAT:
        return f"format {doc.get('format')!r} is not {META_FORMAT}"
    if not (isinstance(doc.get("key"), str) and _SHA.fullmatch(doc["key"])):
        return "'key' is not a sha256 hex digest"
    if key is not None and doc["key"] != key:
        return f"key {doc['key'][:16]}... is not the expected {key[:16]}..."
    if doc.get("name") != variant.name or doc.get("variant") != variant.to_dict():
        return f"holds variant {doc.get('name')!r}, not {variant.name}"
    if not (isinstance(doc.get("symbol"), str) and doc["symbol"]):
        return "'symbol' is not a non-empty string"
    abi, launch = doc.get("abi"), doc.get("launch")
    if not (isinstance(abi, dict) and isinstance(abi.get("params"), list)):
        return "'abi.params' is not a list"
    for p in abi["params"]:
        if not (isinstance(p, dict) and isinstance(p.get("name"), str) and isinstance(p.get("kind"), str)
                and _is_int(p.get("size")) and all(_is_int(p[k]) for k in ("align", "offset") if k in p)):
            return f"'abi.params' has a malformed parameter {str(p)[:80]}"
    if not (isinstance(launch, dict) and _dims(launch.get("block"))
            and ("cluster" not in launch or _dims(launch["cluster"]))
            and _is_int(launch.get("dynamic_smem", 0))):
        return "'launch' needs block (and cluster) as 1-3 positive ints, dynamic_smem as an int"
    return None


def check_meta(doc, path: Path, variant: Variant, key: str | None = None) -> dict:
    """``doc`` if it is a valid meta.json of ``variant`` (and ``key``), else FormatError."""
    problem = _meta_problem(doc, variant, key)
    if problem:
        raise FormatError(path, problem)
    return doc


@dataclass(frozen=True)
class Checked:
    """A checked entry: its dir, meta.json and (when read) the cubin bytes."""

    path: Path
    meta: dict
    cubin: bytes | None


def check_entry(root: Path, variant: Variant, key: str | None = None, *, rel: str | None = None,
                cubin_sha: str | None = None, hash_all: bool = True) -> Checked:
    """Check the entry dir ``rel`` (default: the place of ``variant``/``key``) against its meta.json
    (and a manifest's ``cubin_sha``). ``hash_all``: every file's sha256 (builder, verify); else
    only the cubin's, which is returned (runtime). FormatError on any problem."""
    if rel is None:
        rel = entry_rel(variant, key)
    path = confined_dir(root, rel)
    meta = check_meta(read_json(path / META, MAX_META_BYTES), path / META, variant, key)
    if not meta["key"].startswith(path.name):
        raise FormatError(path / META, f"key {meta['key'][:16]}... does not match its directory")
    cubin = None
    for name in ENTRY_FILES if hash_all else ("kernel.cubin",):
        data = read_regular(path / name, MAX_CUBIN_BYTES)
        if sha256_bytes(data) != meta["files"][name]:
            raise FormatError(path / name, "sha256 mismatch with meta.json (truncated or modified)")
        if name == "kernel.cubin":
            cubin = data
    if cubin_sha is not None and meta["files"]["kernel.cubin"] != cubin_sha:
        raise FormatError(path / "kernel.cubin", "is not the cubin the manifest records (rebuilt since)")
    return Checked(path, meta, cubin)


# ---- manifests -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ManifestEntry:
    variant: Variant
    key: str
    path: str  # entry_rel(variant, key)
    cubin_sha256: str


@dataclass(frozen=True)
class Manifest:
    path: Path
    written_ns: int  # when the build that wrote it finished
    entries: dict[str, ManifestEntry]  # variant name -> entry
    failed: dict[str, str]  # variant name -> first error line

    def outcome(self, name: str) -> ManifestEntry | str | None:
        """The entry this build gave ``name``, its error text if it failed, or None."""
        return self.entries.get(name) or self.failed.get(name)


def _written_ns(doc: dict) -> int | None:
    if doc.get("format") == MANIFEST_FORMAT:
        return doc["written_ns"] if _is_int(doc.get("written_ns"), 1) else None
    try:  # format 1: only the second it was written
        created = datetime.strptime(doc.get("created"), "%Y-%m-%dT%H:%M:%S%z")
        return int(created.timestamp()) * 10**9
    except (TypeError, ValueError, OverflowError):
        return None


def _manifest_entry(e, i: int) -> ManifestEntry:
    if not isinstance(e, dict):
        raise ValueError(f"entries[{i}] is not an object")
    try:
        variant = Variant.parse(e.get("variant"))
    except SpecError as exc:
        raise ValueError(f"entries[{i}]: {exc}") from None
    key, sha = e.get("key"), e.get("cubin_sha256")
    if not (isinstance(key, str) and _SHA.fullmatch(key) and isinstance(sha, str) and _SHA.fullmatch(sha)):
        raise ValueError(f"entries[{i}] ({variant.name}): key and cubin_sha256 must be sha256 hex digests")
    if e.get("path") != entry_rel(variant, key):
        raise ValueError(f"entries[{i}] ({variant.name}): path {e.get('path')!r} is not "
                         f"{entry_rel(variant, key)!r} (paths are relative to the cache root)")
    return ManifestEntry(variant, key, e["path"], sha)


def parse_manifest(doc, path: Path) -> Manifest:
    """A checked manifest, else FormatError naming ``path`` and the first problem."""
    try:
        if not isinstance(doc, dict):
            raise ValueError(f"is a JSON {type(doc).__name__}, not an object")
        if doc.get("format") not in (1, MANIFEST_FORMAT):
            raise ValueError(f"format {doc.get('format')!r} is not 1 or {MANIFEST_FORMAT}")
        written = _written_ns(doc)
        if written is None:
            raise ValueError("has no valid written_ns (format 2) or created (format 1) time")
        raw, failed_raw = doc.get("entries"), doc.get("failed", [])
        if not isinstance(raw, list) or not isinstance(failed_raw, list):
            raise ValueError("'entries' and 'failed' must be lists")
        entries: dict[str, ManifestEntry] = {}
        for i, e in enumerate(raw):
            me = _manifest_entry(e, i)
            if me.variant.name in entries:
                raise ValueError(f"names {me.variant.name} twice")
            entries[me.variant.name] = me
        failed: dict[str, str] = {}
        for i, f in enumerate(failed_raw):
            if not (isinstance(f, dict) and isinstance(f.get("variant"), str) and isinstance(f.get("error"), str)):
                raise ValueError(f"failed[{i}] is not {{variant, error}}")
            if f["variant"] in entries:
                raise ValueError(f"lists {f['variant']} as built and as failed")
            failed[f["variant"]] = f["error"]
    except ValueError as e:
        raise FormatError(path, str(e)) from None
    return Manifest(path, written, entries, failed)


def manifest_paths(root: Path) -> list[Path]:
    """``<root>/manifests/*.json`` (temp files excluded), FormatError if the dir is a link."""
    mdir = Path(root) / "manifests"
    if os.path.islink(mdir):
        raise FormatError(mdir, "is a symbolic link (manifests must live in the cache root)")
    if not mdir.is_dir():
        return []
    try:
        names = os.listdir(mdir)
    except OSError as e:
        raise FormatError(mdir, f"unreadable ({e.strerror or e})") from None
    return [mdir / n for n in sorted(names) if n.endswith(".json") and not n.startswith(".")]


#: path -> (the bytes last parsed there, their Manifest); see load_manifest.
_parsed_manifests: dict[Path, tuple[bytes, Manifest]] = {}
_PARSED_MAX = 64


def load_manifest(path: Path) -> Manifest:
    """The manifest at ``path``. The file is read (with read_regular's checks) on every call and
    parsed again only when its bytes differ from the last parse of that path, so a changed
    manifest is always seen and an unchanged one costs a read, not a parse (every kernel lookup
    loads every manifest of the root)."""
    path = Path(path)
    data = read_regular(path, MAX_MANIFEST_BYTES)
    hit = _parsed_manifests.get(path)
    if hit is not None and hit[0] == data:
        return hit[1]
    manifest = parse_manifest(_json_of(data, path), path)
    if len(_parsed_manifests) >= _PARSED_MAX:
        _parsed_manifests.clear()
    _parsed_manifests[path] = (data, manifest)
    return manifest


def newest_outcome(manifests: list[Manifest], name: str) -> tuple[Manifest, ManifestEntry | str] | None:
    """(manifest, outcome) of the newest build that named ``name``, None if none did; FormatError
    if two builds finished at the same time with different outcomes (nothing says which is current)."""
    naming = sorted((m for m in manifests if m.outcome(name) is not None), key=lambda m: m.written_ns)
    if not naming:
        return None
    newest = naming[-1]
    for other in naming[:-1]:
        if other.written_ns == newest.written_ns and other.outcome(name) != newest.outcome(name):
            raise FormatError(newest.path, f"and {other.path.name} were written at the same time with "
                                           f"different outcomes for {name}; rebuild it")
    return newest, newest.outcome(name)


# ---- writing ------------------------------------------------------------------------------------
def write_atomic(path: Path, data: bytes) -> None:
    """Write ``path`` through a temp file beside it and a rename: readers see the old file or the
    whole new one; on any error (read-only, disk full) the temp file is removed and it raises."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
