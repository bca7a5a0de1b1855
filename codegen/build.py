"""Build a set of variants into the cache: render and key in this process, compile the misses in
GPU-blind spawned worker processes, publish through the cache, write a deployment manifest.

A fully cached request spawns nothing and imports no DSL: it renders, hashes and checks files.

Manifest format (``<root>/manifests/<name>.json``; read by :mod:`codegen.entry_format`)::

    {"format": 2, "written_ns": <time.time_ns() when the build finished>, "created": ...,
     "cache_root": <root, relative to the manifest's dir>, "toolchain": {...}, "env": {...},
     "entries": [{"variant", "spec", "key", "path" (``<arch>/<variant>/<key[:16]>``),
                  "cubin_sha256", "symbol", "launch"}],
     "failed": [{"variant", "error"}]}

The runtime resolves a variant to the outcome recorded by the newest manifest naming it, so a
manifest is written (atomically) at the end of every build, also when nothing was compiled.
Compile workers die with the build process (parent-death signal plus a watchdog thread).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

from codegen import env as envmod
from codegen.cache import Cache, Entry, cache_key
from codegen.compile import refuse_if_no_compile
from codegen.entry_format import MANIFEST_FORMAT, entry_rel, write_atomic
from codegen.render import default_package_dir, helper_closure, render, trace_supported
from codegen.spec import Variant
from codegen.compiler_id import identity

#: The lead's compile step, resolved only inside workers so the parent never imports the DSL.
DEFAULT_COMPILE = "codegen.compile:compile_source"


@dataclass(frozen=True)
class Job:
    """Everything a worker needs: picklable, no GPU, no tensors."""

    variant: Variant
    key: str
    source: str
    meta: dict  # provenance recorded in meta.json (helpers, toolchain, env)


@dataclass
class BuildReport:
    built: list[Variant] = field(default_factory=list)
    cached: list[Variant] = field(default_factory=list)
    failed: list[tuple[Variant, str]] = field(default_factory=list)
    seconds: float = 0.0
    entries: dict[Variant, Entry] = field(default_factory=dict)
    logs: dict[Variant, str] = field(default_factory=dict)  # full error text of each failure
    manifest: Path | None = None
    manifest_error: str | None = None  # why the manifest could not be written
    trace: bool = False  # a trace build (codegen build --trace): its manifest says so

    @property
    def ok(self) -> bool:
        return not self.failed and self.manifest_error is None

    def summary(self) -> str:
        return (f"built {len(self.built)}, cached {len(self.cached)}, "
                f"failed {len(self.failed)} in {self.seconds:.1f} s")


def _rel(path: Path, base: Path) -> str:
    try:
        return path.resolve().relative_to(base).as_posix()
    except ValueError:
        return path.resolve().as_posix()  # outside the repo: still deterministic on this machine


def _helper_sources(paths: Iterable[Path], package_dir: Path) -> dict[str, str]:
    base = package_dir.resolve().parent  # the repo root, so keys read "codegen/x.py"
    return {_rel(p, base): p.read_text(encoding="utf-8") for p in paths}


@dataclass(frozen=True)
class KeyContext:
    """What every key of one request shares: computed once (identity() scans site-packages)."""

    toolchain: dict
    env: dict
    driver: tuple[Path, ...]
    templates_dir: Path | None
    package_dir: Path
    trace: bool = False  # render the trace kernels (codegen build --trace; never for serving)

    @classmethod
    def current(cls, compile_fn: Callable | str = DEFAULT_COMPILE, templates_dir: Path | None = None,
                package_dir: Path | None = None, trace: bool = False) -> KeyContext:
        package_dir = Path(package_dir or default_package_dir())
        # The compile driver shapes the artifacts and meta (fake tensors, options, ABI), so its
        # codegen.* sources are part of every key, like the kernel's own helpers.
        driver: tuple[Path, ...] = ()
        if isinstance(compile_fn, str):
            driver = helper_closure(f"import {compile_fn.partition(':')[0]}\n", package_dir)
        return cls(identity(), envmod.affecting_env(), driver, templates_dir, package_dir, trace)


def prepare_job(variant: Variant, ctx: KeyContext) -> Job:
    """Render ``variant`` and compute its cache key (parent process, cheap)."""
    rendered = render(variant, ctx.templates_dir, ctx.package_dir, trace=ctx.trace)
    helpers = _helper_sources(sorted(set(rendered.helpers) | set(ctx.driver)), ctx.package_dir)
    key = cache_key(variant, rendered.source, helpers, ctx.toolchain, ctx.env)
    meta = {"helpers": sorted(helpers), "toolchain": ctx.toolchain, "env": ctx.env}
    if ctx.trace and trace_supported(variant):
        meta["trace"] = True  # its kernel carries %globaltimer stamps (codegen/trace_layout.py)
    return Job(variant, key, rendered.source, meta)


def _init_worker() -> None:
    # Compilation is GPU-blind by design; this also keeps a stray CUDA init from grabbing a GPU.
    os.environ["CUDA_VISIBLE_DEVICES"] = ""


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _start_worker(parent: int) -> None:
    """Pool initializer: GPU-blind, and dead as soon as the build process ``parent`` is (killed by
    SIGTERM or SIGKILL, crashed): Linux's parent-death signal, else a watchdog thread. Ctrl-C is
    the build process's to handle (it stops every worker at once: _stop_workers)."""
    _init_worker()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # it died before the signal was armed
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch", daemon=True).start()


def _resolve(compile_fn: Callable | str) -> Callable:
    if callable(compile_fn):
        return compile_fn
    module, _, name = compile_fn.partition(":")
    return getattr(importlib.import_module(module), name)


_ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _first_line(text: str) -> str:
    """First non-blank line, without terminal colour codes (the DSL colours its errors)."""
    for line in _ANSI_RE.sub("", str(text)).splitlines():
        if line.strip():
            return line.strip()
    return "(empty error message)"


def _run_job(root: str, job: Job, compile_fn: Callable | str) -> tuple[str, str, str]:
    """Worker: build one entry through the cache. Returns (status, first line, full text)."""
    _init_worker()
    try:
        fn = _resolve(compile_fn)
        from codegen.resources import resources_from_cubin

        def make(tmp: Path) -> dict:
            (tmp / "kernel.py").write_text(job.source, encoding="utf-8")
            # The DSL's dump dir stays outside the entry, so the entry holds only our files.
            with tempfile.TemporaryDirectory(prefix="codegen-work-") as work:
                art = fn(job.variant, job.source, Path(work))
            (tmp / "kernel.ptx").write_bytes(art.ptx)
            (tmp / "kernel.cubin").write_bytes(art.cubin)
            resources = art.resources or resources_from_cubin(art.cubin)
            return {"symbol": art.symbol, "abi": art.abi, "launch": art.launch, "tma": art.tma,
                    "resources": resources, "compile_seconds": getattr(art, "seconds", None),
                    **job.meta}

        _, built = Cache(root).build(job.variant, job.key, make)
        return ("built" if built else "cached"), "", ""
    except Exception as e:  # noqa: BLE001 - every failure is reported per variant
        is_compile_error = type(e).__name__ == "CompileError"
        line = _first_line(e) if is_compile_error else f"{type(e).__name__}: {_first_line(e)}"
        return "failed", line, traceback.format_exc()


def _compile_available(compile_fn: Callable | str) -> str | None:
    """None if the compile function can be found, else why not (checked without importing it)."""
    if callable(compile_fn):
        return None
    module = compile_fn.partition(":")[0]
    try:
        found = importlib.util.find_spec(module) is not None
    except ImportError:
        found = False
    return None if found else f"compile step {compile_fn} is not available (module {module} not found)"


def build(
    variants: Iterable[Variant],
    jobs: int | None = None,
    cache: Cache | None = None,
    progress: bool = True,
    compile_fn: Callable | str = DEFAULT_COMPILE,
    manifest_path: Path | None = None,
    templates_dir: Path | None = None,
    package_dir: Path | None = None,
    trace: bool = False,
) -> BuildReport:
    """Make sure every variant has a valid cache entry; never raises for one variant's failure.

    ``compile_fn(variant, source, workdir) -> Artifacts`` (or ``"module:function"``) must be
    picklable: it runs in spawned workers. ``manifest_path``: write a deployment manifest.
    ``trace``: render the trace kernels (codegen.render.trace_supported variants get
    %globaltimer stamps; meta.json and the manifest record ``"trace": true``); only for a
    cache root of their own (the CLI refuses otherwise).
    With CODEGEN_NO_COMPILE on it raises codegen.compile.NoCompileError before anything else
    (also when every variant is cached: a build is what a no-compile process must not run).
    """
    refuse_if_no_compile("codegen build")
    t0 = time.perf_counter()
    settings = envmod.load()
    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1):
        raise ValueError(f"jobs = {jobs!r} must be an int >= 1")
    jobs = jobs or settings.jobs   # (CODEGEN_JOBS is read only where no jobs are given)
    cache = cache or Cache(settings.cache_dir)
    if cache.root.exists() and not cache.root.is_dir():
        raise ValueError(f"cache root {cache.root} is not a directory")
    # Shared with every other build; prune refuses to run while it is held, so nothing built
    # here is pruned before the manifest names it.
    with cache.build_lock():
        report = _build_locked(variants, jobs, cache, progress, compile_fn,
                               manifest_path, KeyContext.current(compile_fn, templates_dir, package_dir,
                                                                 trace=trace))
    report.seconds = time.perf_counter() - t0
    return report


def _build_locked(variants: Iterable[Variant], jobs: int, cache: Cache, progress: bool,
                  compile_fn: Callable | str, manifest_path: Path | None, ctx: KeyContext) -> BuildReport:
    try:
        cache.mark()
    except OSError:
        pass  # a read-only root: fine while everything is cached
    report = BuildReport(trace=ctx.trace)
    todo: list[Job] = []
    for variant in variants:
        try:
            job = prepare_job(variant, ctx)
        except Exception as e:  # noqa: BLE001 - a template error fails its variant, not the build
            report.failed.append((variant, f"render: {type(e).__name__}: {_first_line(e)}"))
            report.logs[variant] = traceback.format_exc()
            continue
        entry = cache.lookup(job.variant, job.key)
        if entry is not None:
            report.cached.append(job.variant)
            report.entries[job.variant] = entry
        else:
            todo.append(job)
    if todo:
        missing = _compile_available(compile_fn)
        if missing:
            report.failed += [(job.variant, missing) for job in todo]
        else:
            _compile_all(todo, jobs, cache, progress, compile_fn, report)
    report.failed.sort(key=lambda f: f[0].sort_key())
    report.built.sort(key=Variant.sort_key)
    report.cached.sort(key=Variant.sort_key)
    if manifest_path is not None:
        try:
            report.manifest = write_manifest(manifest_path, cache, report)
        except OSError as e:
            report.manifest_error = (f"manifest {manifest_path} not written: {e.strerror or e}; "
                                     "the runtime keeps loading what earlier manifests name")
    return report


def _compile_all(todo: list[Job], jobs: int, cache: Cache, progress: bool,
                 compile_fn: Callable | str, report: BuildReport) -> None:
    from tqdm import tqdm

    workers = max(1, min(jobs, len(todo)))
    bar = tqdm(total=len(todo), desc="compile", unit="kernel", file=sys.stderr, disable=not progress)
    try:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=_start_worker,
                                 initargs=(os.getpid(),)) as pool:
            try:
                futures = {pool.submit(_run_job, str(cache.root), job, compile_fn): job for job in todo}
                for fut in as_completed(futures):
                    _collect(futures[fut], fut, cache, report)
                    bar.set_postfix_str(futures[fut].variant.name, refresh=False)
                    bar.update(1)
            except KeyboardInterrupt:  # else leaving the pool would first compile every queued job
                _stop_workers(pool, todo, cache)
                raise
    except OSError as e:  # no worker could start: no /dev/shm, a process limit, ...
        done = set(report.entries) | {v for v, _ in report.failed}
        report.failed += [(job.variant, f"cannot start compile workers: {e.strerror or e}")
                          for job in todo if job.variant not in done]
    finally:
        bar.close()


def _stop_workers(pool: ProcessPoolExecutor, todo: list[Job], cache: Cache) -> None:
    """Ctrl-C / SIGTERM: cancel the queued jobs, kill the workers now, and remove the temp dirs
    of the entries they were writing (Cache.build names them ``.tmp-<key16>-<pid>-``)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        with contextlib.suppress(OSError, ValueError):
            proc.kill()
    for proc in procs:
        with contextlib.suppress(OSError, ValueError, AssertionError):
            proc.join(10)
    pids = {str(proc.pid) for proc in procs}
    for job in todo:
        parent = cache.entry_dir(job.variant, job.key).parent
        for tmp in parent.glob(f".tmp-{job.key[:16]}-*-*"):
            if tmp.name.split("-")[2] in pids:
                shutil.rmtree(tmp, ignore_errors=True)
                with contextlib.suppress(OSError):
                    parent.rmdir()  # only if empty: as a failed first build leaves it


def _collect(job: Job, fut, cache: Cache, report: BuildReport) -> None:
    try:
        status, line, text = fut.result()
    except BrokenProcessPool as e:  # a worker died (OOM kill, segfault in the compiler)
        status, line, text = "failed", f"worker process died: {e}", repr(e)
    entry = None if status == "failed" else cache.lookup(job.variant, job.key)
    if status != "failed" and entry is None:  # cannot happen unless someone deletes it under us
        line = "entry vanished right after it was built"
        status, text = "failed", line
    if status == "failed":
        report.failed.append((job.variant, line))
        report.logs[job.variant] = text
    else:
        (report.built if status == "built" else report.cached).append(job.variant)
        report.entries[job.variant] = entry


def write_manifest(path: Path, cache: Cache, report: BuildReport) -> Path:
    """Write the deployment manifest atomically (see the module docstring for its format).

    Each entry is checked again first: one that vanished or changed since the build saw it
    moves to ``failed`` (a manifest never names an entry that is not there)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for variant in list(report.entries):
        e = report.entries[variant]
        again, problem = cache.check(variant, e.key)
        if again is None or again.meta["files"] != e.meta["files"]:
            del report.entries[variant]
            for group in (report.built, report.cached):
                if variant in group:
                    group.remove(variant)
            report.failed.append((variant, f"entry {e.path} changed or vanished during the build "
                                           f"({problem or 'not found'})"))
    report.failed.sort(key=lambda f: f[0].sort_key())
    entries = []
    for variant in sorted(report.entries, key=Variant.sort_key):
        e = report.entries[variant]
        entries.append({
            "variant": variant.name,
            "spec": variant.to_dict(),
            "key": e.key,
            "path": entry_rel(variant, e.key),
            "cubin_sha256": e.meta["files"]["kernel.cubin"],
            "symbol": e.meta.get("symbol"),
            "launch": e.meta.get("launch"),
        })
    any_meta = next(iter(report.entries.values())).meta if report.entries else {}
    data = {
        "format": MANIFEST_FORMAT,
        "written_ns": time.time_ns(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "cache_root": os.path.relpath(cache.root.resolve(), path.parent.resolve()),
        "toolchain": any_meta.get("toolchain", identity()),
        "env": any_meta.get("env", envmod.affecting_env()),
        "entries": entries,
        "failed": [{"variant": v.name, "error": line} for v, line in report.failed],
    }
    if report.trace:
        data["trace"] = True  # trace kernels: never a serving root's manifest
    write_atomic(path, (json.dumps(data, indent=1) + "\n").encode("utf-8"))
    return path
