"""``codegen check-deploy``: can this machine serve every kernel a deployment manifest names?

For each entry of the manifest it runs the runtime's own path, never a compile and never the DSL:
1. host: :func:`codegen.runtime.cache_index.find_entry` (the entry dir and its meta.json, the
   cubin's sha256 against meta.json and the manifest), then
   :class:`codegen.runtime.kernel.LoadedKernel` (the ABI through the runtime's parser, the
   launch facts, the parameter list against the contract);
2. GPU: ``LoadedKernel.function`` (cuLibraryLoadData, cuLibraryGetKernel, cuKernelGetFunction,
   the dynamic shared-memory attribute) for every entry of the GPU's arch, timed.

Which manifest: ``--manifest`` (a path, or a file name under ``<root>/manifests/``), else
``CODEGEN_MANIFEST`` (as the runtime reads it), else the newest build's (largest ``written_ns``);
only then are lookups unpinned, exactly as the runtime's are.

Exit status: 0 every entry checked and every entry of the GPU's arch loaded (``--host-only``:
every entry passed the host checks); 1 a manifest problem, an entry missing, corrupt or failing
to load, or no entry for this GPU's arch; 3 the host checks passed but no GPU could be used, so
nothing was loaded (``--host-only`` is the CI form of that check, which exits 0).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

from codegen.entry_format import FormatError, Manifest, load_manifest, manifest_paths
from codegen.runtime.cache_index import build_command, find_entry
from codegen.runtime.errors import CacheMissError
from codegen.runtime.kernel import LoadedKernel
from codegen.spec import (ARCHS, MODES, SCHEDULES, TPS, TRANSPORTS, SpecError, Variant,
                          deployment_matrix)

EXIT_OK, EXIT_PROBLEM, EXIT_NO_GPU = 0, 1, 3
SLOWEST = 5


class NoGpu(Exception):
    """No GPU can be used here; the message says why."""


@dataclass
class Row:
    """One variant of the manifest: ``status`` is loaded, verified (host checks passed, not
    loaded), skipped (another arch than the GPU's: host checks only), missing, corrupt or failed
    (the driver refused it)."""

    variant: str
    arch: str
    status: str
    reason: str = ""
    load_ms: float | None = None
    kernel: object = field(default=None, repr=False)  # the LoadedKernel, once the host checks pass

    @property
    def bad(self) -> bool:
        return self.status in ("missing", "corrupt", "failed")


@dataclass
class Report:
    manifest: Path | None
    chosen_by: str  # "--manifest", "CODEGEN_MANIFEST" or "newest"
    root: Path
    rebuild: str = ""
    rows: list[Row] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # problems that are not one entry's
    gpu: str | None = None  # "GPU 0: NVIDIA H200 (sm_90a)", None if nothing was loaded
    gpu_arch: str | None = None
    no_gpu: str | None = None  # why nothing was loaded on a GPU
    host_only: bool = False
    host_ms: float = 0.0
    context_ms: float | None = None
    load_ms: float | None = None  # wall time of loading every entry of the GPU's arch

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.rows)

    @property
    def exit_code(self) -> int:
        if self.errors or any(r.bad for r in self.rows):
            return EXIT_PROBLEM
        if self.host_only:
            return EXIT_OK
        if self.gpu is None:
            return EXIT_NO_GPU
        return EXIT_OK

    def slowest(self, n: int = SLOWEST) -> list[Row]:
        timed = [r for r in self.rows if r.load_ms is not None]
        return sorted(timed, key=lambda r: -r.load_ms)[:n]

    def to_json(self) -> dict:
        return {
            "manifest": str(self.manifest) if self.manifest else None, "chosen_by": self.chosen_by,
            "cache_root": str(self.root), "rebuild": self.rebuild, "errors": self.errors,
            "gpu": self.gpu, "gpu_arch": self.gpu_arch, "no_gpu": self.no_gpu,
            "loaded_on_gpu": self.gpu is not None and self.count("loaded") > 0,
            "host_only": self.host_only,
            "counts": {s: self.count(s) for s in ("loaded", "verified", "skipped", "missing",
                                                  "corrupt", "failed")},
            "host_ms": _ms(self.host_ms), "context_ms": _ms(self.context_ms), "load_ms": _ms(self.load_ms),
            "slowest": [{"variant": r.variant, "ms": _ms(r.load_ms)} for r in self.slowest()],
            "entries": [{"variant": r.variant, "status": r.status, "reason": r.reason,
                         "load_ms": _ms(r.load_ms), **({"rebuild": self.rebuild} if r.bad else {})}
                        for r in self.rows],
            "exit": self.exit_code,
        }


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


# ---- which manifest -----------------------------------------------------------------------------
def choose_manifest(root: Path, given: Path | None, env_manifest: Path | None) -> tuple[Path, str]:
    """(path, chosen_by); FormatError if there is none to check."""
    for path, by in ((given, "--manifest"), (env_manifest, "CODEGEN_MANIFEST")):
        if path is None:
            continue
        if len(path.parts) == 1:  # a bare file name: under <root>/manifests/, as the runtime does
            bare = root / "manifests" / path
            if by == "--manifest" and not bare.exists() and path.suffix != ".json":
                bare = bare.with_name(bare.name + ".json")
            path = bare
        return path, by
    if not root.is_dir():
        what = "is not a directory" if root.exists() else "does not exist"
        raise FormatError(root, f"the kernel cache {what}: pass the deployed cache's directory "
                                f"(--cache-dir or CODEGEN_CACHE_DIR), or build one there with "
                                f"codegen --cache-dir {root} build ...")
    newest, unreadable = None, []
    for path in manifest_paths(root):
        try:
            m = load_manifest(path)
        except FormatError as e:
            unreadable.append(str(e))
            continue
        if newest is None or m.written_ns > newest.written_ns:
            newest = m
    if newest is None:
        why = f" ({'; '.join(unreadable)})" if unreadable else ""
        raise FormatError(root / "manifests", f"holds no readable manifest{why}: run codegen build first")
    return newest.path, "newest"


# ---- the command that rebuilds a manifest ---------------------------------------------------------
def rebuild_command(m: Manifest, root: Path, cache_flag: str | None) -> str:
    """The ``codegen build`` that rewrites manifest ``m`` with every variant it names (a cached
    variant costs nothing), when its variants are one build's matrix; else the runtime's hint."""
    from codegen.cli import manifest_name  # the name a build gives its manifest

    variants: list[Variant] = [e.variant for e in m.entries.values()]
    for name in m.failed:
        try:
            variants.append(Variant.parse(name))
        except SpecError:
            pass
    prefix = "codegen" + (f" --cache-dir {shlex.quote(cache_flag)}" if cache_flag else "")  # a shell line
    args = _build_args(set(variants), m.path.stem)
    if args is None:
        hints = sorted({build_command(v.arch, v.mode, v.tp) for v in variants})
        return " && ".join(h.replace("codegen", prefix, 1) for h in hints) or f"{prefix} build --tp 8"
    parts = [prefix, "build", "--tp", ",".join(map(str, args.tp))]
    for flag, values, default in (("--arch", args.arch, ARCHS), ("--mode", args.mode, MODES),
                                  ("--transport", args.transport, TRANSPORTS), ("--bn", args.bn, None),
                                  ("--cta-group", args.cta_group, None),
                                  ("--schedule", args.schedule, SCHEDULES)):
        if values is not None and tuple(values) != tuple(default or ()):
            parts += [flag, ",".join(map(str, values))]
    default_path = root / "manifests" / f"{manifest_name(args)}.json"
    if os.path.abspath(m.path) != os.path.abspath(default_path):
        parts += ["--manifest", shlex.quote(str(m.path))]
    return " ".join(parts)


def _build_args(variants: set[Variant], stem: str) -> argparse.Namespace | None:
    """``codegen build`` arguments whose matrix is exactly ``variants``, each axis at its default
    where that changes nothing; None if no build's matrix is exactly this set."""
    if not variants:
        return None
    tps = sorted({v.tp for v in variants if v.tp})
    if not tps:  # mode none only: no tp in any variant; the manifest's name has the build's
        found = re.match(r"tp(\d+(?:_\d+)*)", stem)
        tps = [int(t) for t in found.group(1).split("_")] if found else [8]
        if not set(tps) <= set(TPS):
            tps = [8]
    axes = {
        "arch": [a for a in ARCHS if any(v.arch == a for v in variants)],
        "mode": [x for x in MODES if any(v.mode == x for v in variants)],
        "transport": [t for t in TRANSPORTS if any(v.transport == t for v in variants)] or list(TRANSPORTS),
        "bn": sorted({v.bn for v in variants}),
        "cta_group": sorted({v.cta_group for v in variants}),
        "schedule": [s for s in SCHEDULES if any(v.schedule == s for v in variants)],
    }
    defaults = {"arch": ARCHS, "mode": MODES, "transport": TRANSPORTS, "bn": None,
                "cta_group": None, "schedule": SCHEDULES}

    def matrix(ax) -> set[Variant]:
        return set(deployment_matrix(tps, ax["arch"], ax["mode"], ax["transport"], ax["bn"],
                                     ax["cta_group"], schedules=ax["schedule"]))

    if matrix(axes) != variants:
        return None
    for name, default in defaults.items():  # a default the build needs no flag for
        trial = dict(axes, **{name: default})
        if matrix(trial) == variants:
            axes = trial
    return argparse.Namespace(tp=tuple(tps), **{k: None if v is None else tuple(v) for k, v in axes.items()})


# ---- the checks ---------------------------------------------------------------------------------
def probe_gpu(device: int) -> tuple[str, str | None]:
    """(description, arch) of CUDA device ``device``; NoGpu if none can be used."""
    try:
        import torch
    except ImportError as e:
        raise NoGpu(f"torch cannot be imported ({e})") from None
    if not torch.cuda.is_available():
        raise NoGpu("torch.cuda.is_available() is false (no GPU or no driver)")
    count = torch.cuda.device_count()
    if not 0 <= device < count:
        raise ValueError(f"--device {device}: this machine has {count} CUDA device(s)")
    from codegen.contract import ARCH_OF_CAPABILITY

    cap = tuple(torch.cuda.get_device_capability(device))
    arch = ARCH_OF_CAPABILITY.get(cap)
    name = torch.cuda.get_device_name(device)
    return f"GPU {device}: {name} (sm_{cap[0]}{cap[1]}, {arch or 'no arch of this toolkit'})", arch


def open_context(device: int) -> None:
    """Make the device's primary context current (what every load needs first), so that the
    loads' timing does not include creating it."""
    import torch

    from codegen.runtime.driver import ensure_context

    with torch.cuda.device(device):
        ensure_context(device)


def _host_check(root: Path, v: Variant, pinned: Path | None, command: str, device: int) -> Row:
    try:
        entry = find_entry(root, v.arch, v.name, command, pinned)
    except CacheMissError as e:
        # the detail alone: the variant and the command are on the report's lines already
        detail = str(e).removeprefix(f"no valid cached kernel for variant {v.name} (")
        detail = detail.removesuffix(f"); run: {command}").removesuffix("; rebuild it")
        return Row(v.name, v.arch, "corrupt", detail.replace(f"{root}{os.sep}", ""))
    try:
        kernel = LoadedKernel(entry, device)  # the runtime's ABI parser and launch facts
        why = kernel.contract_mismatch()
    except (ValueError, KeyError, TypeError) as e:
        return Row(v.name, v.arch, "corrupt", f"entry {entry.dir}: the runtime cannot use it: {e}")
    if why:
        return Row(v.name, v.arch, "corrupt", f"entry {entry.dir} was built by an older codegen: {why}")
    return Row(v.name, v.arch, "verified", kernel=kernel)


def _is_missing(root: Path, m: Manifest, name: str) -> bool:
    """The manifest's entry for ``name`` (or its cubin or meta.json) is not on disk at all."""
    e = m.entries.get(name)
    return e is not None and not all(os.path.lexists(root / e.path / f) for f in ("meta.json", "kernel.cubin"))


def check(root: Path, manifest: Path | None = None, env_manifest: Path | None = None, device: int = 0,
          host_only: bool = False, cache_flag: str | None = None) -> Report:
    """Run every check (module docstring) and return the report; never compiles."""
    root = Path(root)
    try:
        path, by = choose_manifest(root, manifest, env_manifest)
    except FormatError as e:
        return Report(None, "newest", root, errors=[str(e)], host_only=host_only)
    report = Report(path, by, root, host_only=host_only)
    try:
        m = load_manifest(path)
    except FormatError as e:
        report.errors.append(str(e))
        return report
    report.rebuild = rebuild_command(m, root, cache_flag)
    if not m.entries and not m.failed:
        report.errors.append(f"{path}: names no kernel")
    pinned = path if by != "newest" else None  # unpinned: resolved as the runtime resolves it

    t0 = time.perf_counter()
    for e in sorted(m.entries.values(), key=lambda e: e.variant.sort_key()):
        row = _host_check(root, e.variant, pinned, report.rebuild, device)
        if row.status == "corrupt" and _is_missing(root, m, e.variant.name):
            row.status = "missing"
        report.rows.append(row)
    for name, error in sorted(m.failed.items()):
        try:
            arch = Variant.parse(name).arch
        except SpecError:
            arch = "?"
        report.rows.append(Row(name, arch, "missing",
                               f"the build that wrote {path.name} failed to compile it: {error}"))
    report.host_ms = (time.perf_counter() - t0) * 1e3
    if not host_only:
        _load_on_gpu(report, device)
    return report


def _load_on_gpu(report: Report, device: int) -> None:
    try:
        report.gpu, report.gpu_arch = probe_gpu(device)
    except NoGpu as e:
        report.no_gpu = str(e)
        return
    ours = [r for r in report.rows if r.arch == report.gpu_arch]
    for r in report.rows:
        if r.status == "verified" and r.arch != report.gpu_arch:
            r.status, r.reason = "skipped", f"built for {r.arch}; host checks only on this GPU"
    if not ours:
        report.errors.append(f"the manifest names no kernel for this GPU ({report.gpu})")
        return
    t0 = time.perf_counter()
    open_context(device)
    report.context_ms = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    for r in ours:
        if r.status != "verified":
            continue
        t1 = time.perf_counter()
        try:
            r.kernel.function  # cuLibraryLoadData + get kernel/function + smem attribute
        except Exception as e:  # noqa: BLE001 - the driver's refusal is this entry's result
            r.status, r.reason = "failed", f"{type(e).__name__}: {e}"
        else:
            r.status = "loaded"
        r.load_ms = (time.perf_counter() - t1) * 1e3
    report.load_ms = (time.perf_counter() - t0) * 1e3


# ---- output -------------------------------------------------------------------------------------
def text_lines(report: Report) -> tuple[list[str], list[str]]:
    """(stdout lines, stderr ``error:`` lines) of the human-readable report."""
    out, err = [], [f"error: {e}" for e in report.errors]
    if report.manifest is not None:
        out.append(f"manifest  {report.manifest} ({report.chosen_by})")
    out.append(f"cache     {report.root}")
    for r in report.rows:
        if r.bad:
            err.append(f"error: {r.variant}: {r.status}: {r.reason}")
    if any(r.bad for r in report.rows):
        err.append(f"error: rebuild with: {report.rebuild}")
    counts = ", ".join(f"{report.count(s)} {s}" for s in ("loaded", "verified", "skipped", "missing",
                                                             "corrupt", "failed") if report.count(s))
    out.append(f"entries   {len(report.rows)}: {counts or 'none'}")
    if report.gpu is not None:
        out.append(f"device    {report.gpu}")
    timing = f"host checks {report.host_ms:.1f} ms"
    if report.load_ms is not None:
        n = report.count("loaded") + report.count("failed")
        timing += (f"; CUDA context {report.context_ms:.1f} ms; load all {n}: "
                   f"{report.load_ms:.1f} ms wall")
    out.append(f"time      {timing}")
    for r in report.slowest():
        out.append(f"slowest   {r.load_ms:7.2f} ms  {r.variant}")
    if report.host_only:
        out.append("NOT LOADED ON A GPU: --host-only (files, sha256 and ABI checked on the host only)")
    elif report.no_gpu is not None:
        out.append(f"NOT LOADED ON A GPU: {report.no_gpu}; only the host checks ran (files, sha256, "
                   "ABI); exit 3 (--host-only makes that check exit 0)")
    rc = report.exit_code
    verdict = {EXIT_OK: "OK", EXIT_PROBLEM: "FAILED", EXIT_NO_GPU: "HOST CHECKS OK, NOTHING LOADED"}[rc]
    out.append(f"result    {verdict} (exit {rc})")
    return out, err
