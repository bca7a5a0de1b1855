"""``codegen``: build, list, inspect and maintain the kernel cache.

Exit status: 0 on success, 1 on any failure (one ``error: ...`` line each), 2 on bad usage
(options that select no variant too), 130 on Ctrl-C (143: a build's SIGTERM), 141 (quietly)
when stdout is closed early, as in ``codegen list | head``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import os
import signal
import sys
import tempfile
from pathlib import Path

from codegen import env as envmod
from codegen.entry_format import manifest_paths
from codegen.contract import (ALL_CTA_GROUPS, SPLITK_BNS, SPLITK_CTA_GROUPS, SPLITK_EXTRA_BNS, SPLITKW_BNS, SPLITKW_CTA_GROUPS,
                              STREAMK_BNS, SWAPABX_BNS, SWAPABX_CTA_GROUPS,
                              SWAPAB_CG3_BNS, SWAPAB_EXTRA_BNS, TILE_EXTRA_BNS, tile_bns)
from codegen.spec import (ARCHS, BNS, MODES, SCHEDULES, SWAPAB_ALL_BNS, SWAPAB_BNS, TPS, TRANSPORTS, SpecError,
                          Variant, deployment_matrix)

PRUNE_HELP = """\
Remove what no deployment needs:
  - entries whose key is listed in no manifest under <root>/manifests/ (every `codegen build`
    writes one; a manifest is the newest build of its name, so an entry superseded by a
    rebuild with changed sources/toolchain is dropped once every manifest naming it is rebuilt);
  - corrupt entries, quarantined entries, and crashed builds' temp files (> 1 h old);
  - the key lock files (<root>/.locks/<variant>-<key16>.lock) of entries no longer there.
With --older-than DAYS only unreferenced entries older than DAYS are removed. With no manifest
at all prune refuses (nothing says what to keep) unless --all is given, which removes every entry.
Only what the cache made is removed: <arch>/<variant>/<key16> dirs holding nothing but the
entry's own files; anything else under the root is left alone. Prune refuses while a build runs,
and refuses a root that is not a kernel cache.
"""


DEPLOY_HELP = """\
Check, on the serving machine, that every kernel a deployment manifest names is usable: the
runtime's own lookup (files, meta.json, the cubin's sha256 against the manifest, the ABI through
the runtime's parser, the parameter list against the contract), then a load on the GPU
(cuLibraryLoadData, the kernel function, its dynamic shared-memory attribute) of every entry of
the GPU's arch, timed. Entries of another arch get the host checks only. Never compiles (it sets
CODEGEN_NO_COMPILE for itself) and never imports the DSL.

Manifest: --manifest, else $CODEGEN_MANIFEST (what the runtime pins), else the newest build's.
Exit status: 0 all loaded (--host-only: all host checks passed); 1 a manifest problem, an entry
missing, corrupt or refused by the driver (each one `error:` line with the reason, then the
command that rebuilds them), or no entry for this GPU's arch; 3 the host checks passed but no
GPU could be used, so nothing was loaded.
"""


def _csv(kind, allowed):
    def parse(text: str):
        values = []
        for item in text.split(","):
            item = item.strip()
            try:
                value = kind(item)
            except ValueError:
                raise argparse.ArgumentTypeError(f"{item!r} is not a valid value; allowed: "
                                                 f"{', '.join(map(str, allowed))}") from None
            if value not in allowed:
                raise argparse.ArgumentTypeError(f"{item!r} is not supported; allowed: "
                                                 f"{', '.join(map(str, allowed))}")
            values.append(value)
        return tuple(dict.fromkeys(values))
    return parse


def _path(text: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty (it would mean the current directory)")
    try:
        return Path(text).expanduser()
    except RuntimeError as e:  # ~user of no such user, or ~ with no home directory
        raise argparse.ArgumentTypeError(f"{text!r}: cannot expand '~' ({e})") from None


def _int_at_least(lo: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < lo:
            raise argparse.ArgumentTypeError(f"{text!r} must be >= {lo}")
        return value
    return parse


_positive_int = _int_at_least(1)


def _days(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a finite number of days >= 0")
    return value


def _extra_bns_help(extra: dict = SWAPAB_EXTRA_BNS) -> str:
    """The arch- and mode-specific token tiles (contract.SWAPAB_EXTRA_BNS, SPLITK_EXTRA_BNS), for
    --bn's help."""
    parts = []
    for arch, per_mode in extra.items():
        by_bns: dict[tuple[int, ...], list[str]] = {}
        for mode, bns in per_mode.items():
            by_bns.setdefault(tuple(bns), []).append(mode)
        parts += [f"on {arch} also {','.join(map(str, bns))} ({'/'.join(modes)})"
                  for bns, modes in by_bns.items()]
    return "; ".join(parts) or "no others"


def _matrix_args(p: argparse.ArgumentParser, tp_required: bool) -> None:
    p.add_argument("--tp", type=_csv(int, TPS), required=tp_required, default=None if tp_required else TPS,
                   help="tensor-parallel size(s), comma-separated: " + ",".join(map(str, TPS)))
    p.add_argument("--arch", type=_csv(str, ARCHS), default=ARCHS, help="default: sm_90a,sm_100a")
    p.add_argument("--mode", type=_csv(str, MODES), default=MODES, help="default: rs,ar,none")
    p.add_argument("--transport", type=_csv(str, TRANSPORTS), default=TRANSPORTS,
                   help="default: multicast,unicast")
    p.add_argument("--bn", type=_csv(int, tuple(sorted(set(tile_bns(None, 'none')) | set(SWAPAB_ALL_BNS)))), default=None,
                   help="tile widths (default: every one of each schedule: tile "
                        f"{','.join(map(str, BNS))} (on sm_100a a width serves only an N it divides; on sm_90a the last N tile may reach past N); "
                        f"{_extra_bns_help(TILE_EXTRA_BNS)}; "
                        f"swapab token tiles {','.join(map(str, SWAPAB_BNS))}; {_extra_bns_help()}; "
                        f"splitk {','.join(map(str, SPLITK_BNS))}; "
                        f"{_extra_bns_help(SPLITK_EXTRA_BNS)}; splitkw (sm_90a, none) "
                        f"{','.join(map(str, SPLITKW_BNS))}; swapabx (sm_90a, none) "
                        f"{','.join(map(str, SWAPABX_BNS))})")
    p.add_argument("--schedule", type=_csv(str, SCHEDULES), default=SCHEDULES,
                   help=f"default: {','.join(SCHEDULES)} (swapab: the decode schedule for M <= "
                        "512; splitk: the decode schedule with K split over a cluster; splitkw "
                        "(mode none, sm_90a): the wide decode kernel's 128-row W tiles with K "
                        "split over a cluster, any M; swapabx (mode none, sm_90a): the decode "
                        "kernel's 64-row W tiles in clusters sharing each x tile by multicast; "
                        "streamk (mode none, sm_90a): the tile kernel at BN "
                        f"{','.join(map(str, STREAMK_BNS))} (clusters of 1-4 along M) with the "
                        "last waves' k-tiles spread over the CTAs; dispatched only in place of "
                        "a tile pair at three row tiles)")
    p.add_argument("--cta-group", type=_csv(int, ALL_CTA_GROUPS), default=None,
                   help="default: every one of each schedule (tile 1,2; swapab 1,2 (2: the "
                        "wide kernel, 128-row W tiles), on sm_90a for mode none also 3 (192-row W "
                        f"tiles, token tiles {','.join(map(str, SWAPAB_CG3_BNS))}); splitk "
                        f"{','.join(map(str, SPLITK_CTA_GROUPS))} and splitkw "
                        f"{','.join(map(str, SPLITKW_CTA_GROUPS))}: the K-split cluster size; "
                        f"swapabx {','.join(map(str, SWAPABX_CTA_GROUPS))}: the cluster sharing x)")


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="codegen", description=__doc__.splitlines()[0])
    ap.add_argument("--cache-dir", type=_path, default=None,
                    help="cache root (default: $CODEGEN_CACHE_DIR, else <repo>/generated)")
    sub = ap.add_subparsers(dest="cmd", required=True)

    b = sub.add_parser("build", help="compile a deployment's variants into the cache")
    _matrix_args(b, tp_required=True)
    b.add_argument("-j", "--jobs", type=_positive_int, default=None, help="compile workers (default: $CODEGEN_JOBS or cpu count)")
    b.add_argument("--manifest", type=_path, default=None,
                   help="manifest path (default: <root>/manifests/tp<N>.json; narrowed axes "
                        "are appended to the name, e.g. tp8_sm_90a_none.json)")
    b.add_argument("--no-progress", action="store_true", help="no progress bar")
    # also after the sub-command (codegen build --trace --cache-dir DIR); SUPPRESS keeps the
    # sub-parser from overwriting a --cache-dir given before it
    b.add_argument("--cache-dir", type=_path, default=argparse.SUPPRESS,
                   help="cache root, as the option before the sub-command")
    b.add_argument("--trace", action="store_true",
                   help="build trace kernels: the sm_90a tile rs/ar kernels get %%globaltimer phase "
                        "stamps (codegen/trace_layout.py, read by tools/trace_phases.py); other "
                        "variants build unchanged. Needs --cache-dir naming a root of its own (not "
                        "the default root, not a root with a non-trace manifest), so trace kernels "
                        "never shadow serving kernels")

    ls = sub.add_parser("list", help="the variants of a matrix and whether they are cached")
    _matrix_args(ls, tp_required=False)
    ls.add_argument("--trace", action="store_true",
                    help="the keys of trace kernels (a root built with codegen build --trace)")

    ins = sub.add_parser("inspect", help="show a cached variant (summary by default)")
    ins.add_argument("variant", help="canonical name, e.g. gemm_ar_unicast_sm90a_bn128_cg1_tp8_bf16, "
                                     "or its kernel's symbol (a profiler's name: <variant>_cutlass_0)")
    what = ins.add_mutually_exclusive_group()
    for flag in ("source", "ptx", "sass", "resources", "meta"):
        what.add_argument(f"--{flag}", dest="what", action="store_const", const=flag)

    d = sub.add_parser("check-deploy", help="load every kernel of a deployment manifest on a GPU "
                                            "(never compiles)", description=DEPLOY_HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    d.add_argument("--manifest", type=_path, default=None, metavar="PATH|NAME",
                   help="the manifest (a bare name is under <root>/manifests/; default: "
                        "$CODEGEN_MANIFEST, else the newest build's)")
    d.add_argument("--device", type=_int_at_least(0), default=0, help="CUDA device index (default 0)")
    d.add_argument("--host-only", action="store_true",
                   help="check files, sha256 and ABI on the host only, never touch a GPU; exit 0 if "
                        "they pass (for CI)")
    d.add_argument("--json", action="store_true", help="one JSON object on stdout instead of text")

    c = sub.add_parser("cache", help="cache maintenance")
    csub = c.add_subparsers(dest="cache_cmd", required=True)
    csub.add_parser("ls", help="every entry: path, validity, size")
    csub.add_parser("verify", help="check every entry against its meta.json and every manifest "
                                   "against the entries it names")
    pr = csub.add_parser("prune", help="remove entries no manifest needs", description=PRUNE_HELP,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    pr.add_argument("--older-than", type=_days, default=None, metavar="DAYS")
    pr.add_argument("--all", action="store_true", help="remove every entry (no manifest needed)")
    pr.add_argument("--dry-run", action="store_true", help="only print what would be removed")
    return ap


def _error(msg: str) -> None:
    print(f"error: {msg}", file=sys.stderr)


def build_hint(variant: Variant) -> str:
    """The command that fills the cache for ``variant``."""
    if variant.mode == "none":
        return f"codegen build --tp 8 --arch {variant.arch} --mode none"
    return f"codegen build --tp {variant.tp} --arch {variant.arch}"


def _matrix(args) -> list[Variant]:
    return deployment_matrix(args.tp, args.arch, args.mode, args.transport, args.bn, args.cta_group,
                             schedules=args.schedule)


#: The matrix options besides --tp: (flag, attribute, default; None: each schedule's own).
_AXES = (("--arch", "arch", ARCHS), ("--mode", "mode", MODES), ("--transport", "transport", TRANSPORTS),
         ("--bn", "bn", None), ("--cta-group", "cta_group", None), ("--schedule", "schedule", SCHEDULES))


def empty_selection(args, what: str = "nothing was built or written") -> str:
    """Why the options select no variant (``_matrix(args)`` is empty): the narrowed options, and
    which one of them, left at its default, would select some."""
    narrowed = [(flag, attr, default) for flag, attr, default in _AXES
                if getattr(args, attr) is not None and set(getattr(args, attr)) != set(default or ())]
    given = " ".join(f"{flag} {','.join(map(str, getattr(args, attr)))}" for flag, attr, _ in narrowed)
    culprits = [flag for flag, attr, default in narrowed
                if _matrix(argparse.Namespace(**dict(vars(args), **{attr: default})))]
    hint = f" (without {' or without '.join(culprits)} they would select some)" if culprits else ""
    return (f"{given or 'these options'} select no kernel variant{hint}: a schedule exists only on "
            "some archs and modes (splitkw: sm_90a, mode none) and has its own --bn and "
            "--cta-group values (codegen build --help); " + what)


def trace_root_problem(cache_dir: Path | None, root: Path) -> str | None:
    """Why ``codegen build --trace`` must not write into ``root``, or None.

    A trace build needs an explicit ``--cache-dir`` that is not the default root
    (<repo>/generated) nor contains it, and whose manifests (if any) are all trace manifests:
    the runtime resolves a variant to the newest manifest naming it, so a trace build into a
    serving root would make serving load the trace kernels.
    """
    if cache_dir is None:
        return ("--trace needs --cache-dir naming a cache root of its own (e.g. --cache-dir "
                "generated/trace), so trace kernels never shadow serving kernels")
    default = (envmod.repo_root() / "generated").resolve()
    root = root.resolve()
    if root == default or default.is_relative_to(root):
        return f"--trace: {root} is (or holds) the default cache root {default}; pick another --cache-dir"
    try:
        manifests = manifest_paths(root)
    except ValueError as e:  # entry_format.FormatError: e.g. manifests/ is a link
        return f"--trace: cannot read the manifests of {root}: {e}"
    for path in manifests:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            return f"--trace: cannot read manifest {path}: {e}"
        if not (isinstance(doc, dict) and doc.get("trace") is True):
            return (f"--trace: {root} holds a manifest of normal kernels ({path.name}): it is a "
                    "serving cache root; pick another --cache-dir")
    return None


def _cmd_build(args, cache) -> int:
    from codegen.build import build

    if args.trace:
        problem = trace_root_problem(args.cache_dir, cache.root)
        if problem:
            _error(problem)
            return 2
    variants = _matrix(args)
    if not variants:  # else a build of nothing exits 0 and its empty manifest becomes the newest
        _error(empty_selection(args))
        return 2
    manifest = args.manifest or cache.root / "manifests" / f"{manifest_name(args)}.json"
    if args.manifest is not None and os.path.lexists(manifest) and (
            manifest.is_symlink() or not manifest.is_file()):
        # (the manifest is written through a temp file and a rename, which would replace a
        # symlink, a device such as /dev/stdout, or fail on a directory)
        _error(f"--manifest {manifest} exists and is not a regular file (a symlink, directory or "
               f"device): the build replaces the file it names; give the path of a regular file "
               f"or a new one")
        return 2
    if args.manifest is not None and not _in_dir(args.manifest, cache.root / "manifests"):
        print(f"note: {args.manifest} is outside {cache.root / 'manifests'}: `codegen cache prune` "
              "keeps only what the manifests there name, so it will remove the entries this one "
              "names, and the runtime reads it only when pinned (CODEGEN_MANIFEST or "
              "check-deploy --manifest)", file=sys.stderr)
    # CODEGEN_NO_COMPILE: build raises NoCompileError (a RuntimeError: main prints it, exit 1)
    # before it renders anything or starts a worker
    try:
        with _sigterm_interrupts():
            report = build(variants, jobs=args.jobs, cache=cache, progress=not args.no_progress,
                           manifest_path=manifest, **({"trace": True} if args.trace else {}))
    except KeyboardInterrupt as e:  # Ctrl-C or SIGTERM: the workers are stopped, their temp dirs gone
        _error(f"interrupted: no manifest written ({manifest} is as it was); the kernels built "
               "so far stay in the cache and the same command reuses them")
        return 128 + (signal.SIGTERM if isinstance(e, Terminated) else signal.SIGINT)
    for variant, line in report.failed:
        _error(f"{variant.name}: {line}")
    if report.logs:
        logdir = _write_logs(cache.root / "logs", report.logs)
        if logdir is not None:
            print(f"full error text: {logdir}/<variant>.log", file=sys.stderr)
    if report.manifest_error:
        _error(report.manifest_error)
    print(report.summary())
    if report.manifest is not None:
        print(f"manifest: {report.manifest}")
    return 0 if report.ok else 1


class Terminated(KeyboardInterrupt):
    """SIGTERM during a build: stopped as Ctrl-C stops it (workers killed, temp dirs removed)."""


@contextlib.contextmanager
def _sigterm_interrupts():
    """While a build runs, SIGTERM raises Terminated (the default action would leave the killed
    workers' temp dirs behind until a prune an hour later)."""
    def on_term(signum, frame):
        raise Terminated()

    try:
        previous = signal.signal(signal.SIGTERM, on_term)
    except ValueError:  # not the main thread: leave SIGTERM alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _in_dir(path: Path, directory: Path) -> bool:
    """``path`` is a file directly in ``directory`` (manifest_paths does not look deeper)."""
    return os.path.dirname(os.path.realpath(path)) == os.path.realpath(directory)


def _write_logs(logdir: Path, logs: dict) -> Path | None:
    """Each failure's full text under ``logdir``, else (read-only root) a temp dir, else (full
    disk) nowhere: the build's summary matters more than its logs."""
    for where in (logdir, None):
        try:
            target = where or Path(tempfile.mkdtemp(prefix="codegen-logs-"))
            target.mkdir(parents=True, exist_ok=True)
            for variant, text in logs.items():
                (target / f"{variant.name}.log").write_text(text, encoding="utf-8")
            return target
        except OSError as e:
            print(f"note: cannot write the full error text under {where or tempfile.gettempdir()} "
                  f"({e.strerror or e})", file=sys.stderr)
    return None


def _subdirs(path: Path) -> list[Path]:
    return [p for p in path.iterdir() if p.is_dir()] if path.is_dir() else []


def manifest_name(args) -> str:
    """``tp8`` for a whole deployment; axes narrowed from their defaults are appended
    (``tp8_sm_90a_none``), so a partial build never overwrites the deployment's manifest."""
    parts = ["tp" + "_".join(map(str, sorted(args.tp)))]
    all_bns = tuple(sorted(set(BNS) | set(SWAPAB_ALL_BNS)))
    for values, default in ((args.arch, ARCHS), (args.mode, MODES), (args.transport, TRANSPORTS),
                            (args.bn or all_bns, all_bns),
                            (args.cta_group or ALL_CTA_GROUPS, ALL_CTA_GROUPS),
                            (args.schedule, SCHEDULES)):
        if set(values) != set(default):
            parts.append("-".join(str(v) for v in default if v in values))  # order-independent
    return "_".join(parts)


def _cmd_list(args, cache) -> int:
    from codegen.build import KeyContext, prepare_job

    ctx = KeyContext.current(**({"trace": True} if args.trace else {}))
    failures = 0
    variants = _matrix(args)
    if not variants:
        _error(empty_selection(args, "nothing to list"))
        return 2
    for variant in variants:
        try:
            job = prepare_job(variant, ctx)
        except Exception as e:  # noqa: BLE001 - report, keep listing
            print(f"{variant.name}  error  {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            failures += 1
            continue
        entry, problem = cache.check(variant, job.key)
        if entry is not None:
            status = "cached"
        elif problem is not None:
            status = f"corrupt ({problem})"
        elif any(not p.name.startswith(".") for p in _subdirs(cache.root / variant.arch / variant.name)):
            status = "stale"  # entries exist, but for other sources/toolchain
        else:
            status = "missing"
        print(f"{variant.name}  {status}  {job.key[:16]}")
    return 1 if failures else 0


def _find_entry(cache, variant: Variant):
    """The entry for the current sources, else the newest valid one (with a note), else None."""
    from codegen.build import KeyContext, prepare_job

    try:
        job = prepare_job(variant, KeyContext.current())
        entry = cache.lookup(variant, job.key)
        if entry is not None:
            return entry
    except Exception as e:  # noqa: BLE001 - e.g. a deployment copy without templates
        print(f"note: cannot compute the current key ({type(e).__name__}: {e})", file=sys.stderr)
    rows = [r for r in cache.ls() if r["name"] == variant.name and r["valid"]]
    if not rows:
        return None
    newest = max(rows, key=lambda r: r["mtime"])
    entry, _ = cache.check(variant, newest["key"])
    if entry is not None:
        print(f"note: {variant.name}: showing entry {newest['path']}, not built from the current sources",
              file=sys.stderr)
    return entry


def _cmd_inspect(args, cache) -> int:
    from codegen.contract import variant_name_of

    variant = Variant.parse(variant_name_of(args.variant) or args.variant)
    entry = _find_entry(cache, variant)
    if entry is None:
        _error(f"{variant.name}: not in cache {cache.root}: run {build_hint(variant)}")
        return 1
    what = args.what
    if what == "source":
        sys.stdout.write(entry.file("kernel.py").read_text(encoding="utf-8"))
    elif what == "ptx":
        sys.stdout.write(entry.file("kernel.ptx").read_text(encoding="utf-8", errors="replace"))
    elif what == "sass":
        from codegen.binutils import DisassemblyFailed, disassemble

        try:
            sys.stdout.write(disassemble(entry.file("kernel.cubin")))
        except DisassemblyFailed as e:
            _error(f"{variant.name}: {e}")
            return 1
    elif what == "resources":
        resources = entry.meta.get("resources")
        if not resources:
            from codegen.resources import resources_from_cubin

            resources = resources_from_cubin(entry.cubin)
        print(json.dumps(resources, indent=1))
    elif what == "meta":
        print(json.dumps(entry.meta, indent=1, sort_keys=True))
    else:
        m = entry.meta
        print(f"variant   {variant.name}\nkey       {entry.key}\npath      {entry.path}")
        print(f"symbol    {m.get('symbol')}\nlaunch    {json.dumps(m.get('launch'))}")
        print(f"resources {json.dumps(m.get('resources'))}")
    return 0


def _cmd_check_deploy(args, cache) -> int:
    from codegen import deploy_check

    os.environ["CODEGEN_NO_COMPILE"] = "1"  # this process loads kernels; it never compiles one
    env_manifest = envmod.load().manifest if args.manifest is None else None  # (--manifest wins)
    report = deploy_check.check(cache.root, args.manifest, env_manifest, args.device,
                                args.host_only, str(args.cache_dir) if args.cache_dir else None)
    if args.json:
        print(json.dumps(report.to_json(), indent=1))
    else:
        out, err = deploy_check.text_lines(report)
        for line in err:
            print(line, file=sys.stderr)
        print("\n".join(out))
    return report.exit_code


def _cmd_cache(args, cache) -> int:
    cache.require_root()
    if args.cache_cmd == "ls":
        for row in cache.ls():
            state = "ok" if row["valid"] else f"BAD: {row['problem']}"
            print(f"{row['path']}  {row['bytes']:>10}  {state}")
        return 0
    if args.cache_cmd == "verify":
        problems = cache.verify()
        for line in problems:
            _error(line)
        print(f"{len(cache.ls())} entries, {len(problems)} problems")
        return 1 if problems else 0
    keep: set[str] | None = set() if args.all else None
    if keep is None and not manifest_paths(cache.root):
        _error(f"no manifests under {cache.root / 'manifests'}: nothing says what to keep; "
               "run codegen build first, or pass --all to remove every entry")
        return 1
    older = None if args.older_than is None else args.older_than * 86400.0
    result = cache.prune(keep_keys=keep, older_than_s=older, dry_run=args.dry_run)
    for path in result.removed:
        print(f"{'would remove' if args.dry_run else 'removed'} {path}")
    for path, why in result.skipped:
        print(f"note: left {path}: {why}", file=sys.stderr)
    for path, why in result.failed:
        _error(f"could not remove {path}: {why}")
    if result.locks_removed:
        print(f"removed {result.locks_removed} key lock files of entries no longer there")
    tail = f", {len(result.failed)} could not be removed" if result.failed else ""
    print(f"{len(result.removed)} {'to remove' if args.dry_run else 'removed'}{tail}")
    return 1 if result.failed else 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``codegen`` console script."""
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s", stream=sys.stderr)
    from codegen.cache import Cache

    try:
        root = args.cache_dir.resolve() if args.cache_dir else envmod.load().cache_dir
        cache = Cache(root)
        handler = {"build": _cmd_build, "list": _cmd_list, "inspect": _cmd_inspect, "cache": _cmd_cache,
                   "check-deploy": _cmd_check_deploy}
        rc = handler[args.cmd](args, cache)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return rc
    except KeyboardInterrupt:
        _error("interrupted")
        return 128 + signal.SIGINT
    except BrokenPipeError:
        _silence_stdout()
        return 141  # 128 + SIGPIPE: what a tool killed by the signal reports, without a message
    except (SpecError, ValueError, OSError, RuntimeError) as e:
        _error(str(e).splitlines()[0] if str(e) else type(e).__name__)
        return 1


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the exit's flush of what is left cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (captured by a test): nothing will flush to the pipe


if __name__ == "__main__":
    sys.exit(main())
