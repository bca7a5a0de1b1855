"""Find a variant's cubin in the (read-only) kernel cache; nothing here writes to it.

The rule, which can never pick a stale kernel:
- With manifests under ``<root>/manifests/``, the variant resolves to what the newest build that
  named it (largest ``written_ns``) produced. If that build failed for it, or its entry is
  missing, corrupt or not the cubin the manifest records, that is a CacheMissError: an older
  build's kernel is never loaded in its place. An unreadable manifest is a CacheMissError too
  (it might be the newest).
- ``manifest=`` names one manifest instead (a deployment pinning its build).
- With no manifest naming the variant, a scan of ``<root>/<arch>/<variant>/`` must find exactly
  one valid entry; several are ambiguous (a CacheMissError saying to rebuild).

Files are read through :mod:`codegen.entry_format`: strict parsing, paths confined to the root.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from codegen.entry_format import (KEY16, Checked, FormatError, check_entry, load_manifest,
                                  manifest_paths, newest_outcome)
from codegen.spec import SpecError, Variant

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


def _scan(root: Path, v: Variant) -> Checked:
    vdir = root / v.arch / v.name
    try:
        names = sorted(n for n in os.listdir(vdir) if KEY16.fullmatch(n)) if vdir.is_dir() else []
    except OSError as e:
        raise FormatError(vdir, f"unreadable ({e.strerror or e})") from None
    valid, problems = [], []
    for name in names:
        try:
            valid.append(check_entry(root, v, rel=f"{v.arch}/{v.name}/{name}", hash_all=False))
        except FormatError as e:
            problems.append(f"{name}: {e.relative(vdir / name)}")
    if len(valid) == 1:
        return valid[0]
    if valid:
        raise FormatError(vdir, f"holds {len(valid)} valid entries and no manifest names the variant, "
                                "so nothing says which is current")
    raise FormatError(vdir, "; ".join(problems) if problems else "no entry")


def _resolve(root: Path, v: Variant, manifest: Path | None) -> Checked:
    if manifest is not None:
        m = load_manifest(Path(manifest))
        outcome = m.outcome(v.name)
        if outcome is None:
            raise FormatError(m.path, f"does not name {v.name}")
        chosen = m, outcome
    else:
        chosen = newest_outcome([load_manifest(p) for p in manifest_paths(root)], v.name)
    if chosen is None:
        return _scan(root, v)
    m, outcome = chosen
    if isinstance(outcome, str):
        raise FormatError(m.path, f"the newest build of {v.name} failed: {outcome}")
    try:
        return check_entry(root, v, outcome.key, rel=outcome.path, cubin_sha=outcome.cubin_sha256,
                           hash_all=False)
    except FormatError as e:
        raise FormatError(m.path, f"names entry {outcome.path}, which is unusable: {e}") from None


def find_entry(root: Path, arch: str, variant: str, command: str,
               manifest: Path | str | None = None) -> CacheEntry:
    """The cache entry `variant` resolves to under `root` (module docstring); a CacheMissError
    naming `command`, the file and the problem if there is none. Never another exception."""
    root = Path(root)
    try:
        v = Variant.parse(variant)
        if v.arch != arch:
            raise FormatError(root, f"{variant} is not a variant of {arch}")
        checked = _resolve(root, v, manifest)
    except SpecError as e:
        raise CacheMissError(str(variant), command, str(e)) from None
    except FormatError as e:
        raise CacheMissError(variant, command, f"{e}; rebuild it") from None
    meta = checked.meta
    return CacheEntry(variant, meta["key"], checked.path, checked.cubin, meta["files"]["kernel.cubin"], meta)
