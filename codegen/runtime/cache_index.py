"""Find a variant's cubin in the (read-only) kernel cache.

Order: deployment manifests `<root>/manifests/*.json`, then a scan of
`<root>/<arch>/<variant>/*/meta.json`. An entry is valid only when kernel.cubin's sha256
equals the one its meta.json (or manifest) records; nothing here writes to the cache.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from .errors import CacheMissError


@dataclass(frozen=True)
class CacheEntry:
    variant: str
    key: str
    dir: Path
    cubin: bytes
    cubin_sha256: str
    meta: dict

    @property
    def symbol(self) -> str:
        return self.meta["symbol"]


def build_command(arch: str, mode: str, tp: int | None) -> str:
    """The `codegen build` command that fills the cache for this (arch, mode, tp)."""
    if mode == "none":
        # mode-none kernels do not depend on tp; any --tp builds them (same as cli.build_hint)
        return f"codegen build --tp {tp or 8} --arch {arch} --mode none"
    return f"codegen build --tp {tp} --arch {arch}"


def _read_json(path: Path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _manifest_entries(doc) -> list[dict]:
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict):
        for k in ("entries", "kernels", "variants"):
            if isinstance(doc.get(k), list):
                return doc[k]
    return []


def _manifest_sha(e: dict) -> str | None:
    for k in ("cubin_sha256", "sha256", "cubin"):
        v = e.get(k)
        if isinstance(v, str) and len(v) == 64:
            return v
    return None


def _variant_name(meta: dict) -> str | None:
    """The entry's variant name: meta `name`, or `variant` as a name or a Variant dict."""
    v = meta.get("variant")
    if isinstance(v, dict):
        from codegen.spec import Variant

        try:
            return Variant.from_dict(v).name
        except ValueError:
            return repr(v)
    return v if isinstance(v, str) else meta.get("name")


class _Corrupt(Exception):
    pass


def _load_entry(variant: str, entry_dir: Path, expect_sha: str | None) -> CacheEntry:
    meta_path = entry_dir / "meta.json"
    cubin_path = entry_dir / "kernel.cubin"
    try:
        meta = _read_json(meta_path)
        cubin = cubin_path.read_bytes()
    except (OSError, ValueError) as exc:
        raise _Corrupt(f"unreadable entry {entry_dir}: {exc}") from None
    sha = hashlib.sha256(cubin).hexdigest()
    recorded = (meta.get("files") or {}).get("kernel.cubin")
    if recorded != sha or (expect_sha is not None and expect_sha != sha):
        raise _Corrupt(f"corrupt entry {entry_dir}: kernel.cubin sha256 {sha[:12]}.. does not match "
                       f"the recorded {str(expect_sha or recorded)[:12]}..")
    held = _variant_name(meta)
    if held not in (None, variant):
        raise _Corrupt(f"entry {entry_dir} holds variant {held}, not {variant}")
    for field in ("symbol", "abi", "launch"):
        if field not in meta:
            raise _Corrupt(f"entry {entry_dir}: meta.json lacks {field!r}")
    return CacheEntry(variant, str(meta.get("key", entry_dir.name)), entry_dir, cubin, sha, meta)


def find_entry(root: Path, arch: str, variant: str, command: str) -> CacheEntry:
    """The valid cache entry of `variant` under `root`; CacheMissError names `command` if none.

    A manifest entry wins over a directory scan; among several valid scanned entries (e.g. from
    different toolchains) the most recently written meta.json wins.
    """
    root = Path(root)
    problems: list[str] = []
    mdir = root / "manifests"
    if mdir.is_dir():
        for mpath in sorted(mdir.glob("*.json")):
            try:
                entries = _manifest_entries(_read_json(mpath))
            except (OSError, ValueError) as exc:
                problems.append(f"unreadable manifest {mpath}: {exc}")
                continue
            for e in entries:
                if not isinstance(e, dict) or e.get("variant") != variant or "path" not in e:
                    continue
                p = root / e["path"]
                entry_dir = p.parent if p.suffix == ".cubin" or p.name == "meta.json" else p
                try:
                    return _load_entry(variant, entry_dir, _manifest_sha(e))
                except _Corrupt as exc:
                    problems.append(str(exc))
    vdir = root / arch / variant
    # Hidden dirs are the builder's temp dirs (`.tmp-*`): not entries yet.
    metas = [p for p in vdir.glob("*/meta.json") if not p.parent.name.startswith(".")] \
        if vdir.is_dir() else []
    candidates = sorted(metas, key=lambda p: p.stat().st_mtime, reverse=True)
    for meta_path in candidates:
        try:
            return _load_entry(variant, meta_path.parent, None)
        except _Corrupt as exc:
            problems.append(str(exc))
    if problems:
        raise CacheMissError(variant, command, "; ".join(problems) + "; rebuild it")
    raise CacheMissError(variant, command, f"nothing under {vdir}")
