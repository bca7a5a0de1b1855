"""Every environment switch of the toolkit, typed, with its default and effect.

Read with :func:`load` at call time (never at import), so a test or a caller may change
``os.environ`` and see the effect; nothing here creates directories.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

#: The default bound of every in-kernel spin-wait (CODEGEN_WAIT_TIMEOUT_MS). It was 2 s until
#: the first call of the Llama example's torch.compile'd layer timed out on two H200s: compiling
#: took ~11 s, and one rank's kernel gave up after 2 s waiting for the other, still compiling.
DEFAULT_WAIT_TIMEOUT_MS = 60_000
#: The largest CODEGEN_WAIT_TIMEOUT_MS (and GemmRsAr's `timeout_ms`): one hour. The kernels take
#: the bound as u64 nanoseconds and double it for their pipeline waits, compared as signed
#: 64-bit: from about 4.6e12 ms that doubled bound is negative and every such wait gives up at
#: once (on one H200 an rs call at 5e12 ms ended with 'unspecified launch failure'); from about
#: 1.8e13 ms it no longer packs at all. A wait longer than an hour is a hang by any serving
#: standard.
MAX_WAIT_TIMEOUT_MS = 3_600_000

#: name -> (default, effect). The README's list of switches is generated from this.
SWITCHES: dict[str, tuple[str, str]] = {
    "CODEGEN_CACHE_DIR": (
        "<repo>/generated",
        "root of the kernel cache (build output, manifests, locks); the runtime loads from it",
    ),
    "CODEGEN_JOBS": (
        "os.cpu_count()",
        "number of parallel compile worker processes of `codegen build` (-j overrides it)",
    ),
    "CODEGEN_MANIFEST": (
        "unset",
        "runtime: load kernels only through this deployment manifest (a path; a bare file name is "
        "looked up in <cache root>/manifests/), pinning the build a deployment shipped; unset: "
        "the newest build of each variant",
    ),
    "CODEGEN_DISABLE_MULTICAST": (
        "0",
        "runtime: never use the multicast transport, even where the device supports it; fails "
        "closed (any value but 0/false/no/off/empty disables it) and implies the three "
        "MULTICAST_SAFE_ENV switches before torch.distributed starts",
    ),
    "CODEGEN_WAIT_TIMEOUT_MS": (
        str(DEFAULT_WAIT_TIMEOUT_MS),
        "runtime: bound of every in-kernel spin-wait, 1..3600000 (one hour); on time-out the "
        "kernel records an error. "
        "Generous on purpose: ranks reach a call seconds apart when one is still compiling "
        "(torch.compile) or warming up, and a peer that is late looks like a peer that is gone",
    ),
    "CODEGEN_DISABLE_FUSED": (
        "0",
        "runtime: the tensor-parallel layers and custom ops never launch a fused kernel and use "
        "torch.mm + the torch.distributed collective instead; any value but 0/false/no/off/empty "
        "disables the fused path",
    ),
    "CODEGEN_PDL": (
        "0",
        "runtime: launch kernels with programmatic dependent launch (each sets up while the "
        "previous kernel on its stream drains, then waits for it); one H200, mode none, M 16..512: "
        "5% faster (median) when calls follow each other back to back, 1.5% slower after a plain "
        "kernel such as a norm, so off by default; read when a process first loads a kernel; any "
        "value but 0/false/no/off/empty turns it on",
    ),
    "CODEGEN_NO_COMPILE": (
        "0",
        "refuse to compile anything in this process: `codegen build` and codegen.compile raise "
        "naming this switch (the runtime itself never compiles: a missing kernel is a "
        "CacheMissError); any value but 0/false/no/off/empty turns it on",
    ),
}

#: Other software's switches that keep NVLink multicast objects from being created (torch
#: reads the first at symmetric-memory rendezvous, NCCL the second at communicator creation,
#: NVSHMEM the third at init), each with the value that keeps multicast off. Any other value
#: counts as enabling multicast; any of them at its safe value also disables the project's
#: multicast transport.
MULTICAST_SAFE_ENV: tuple[tuple[str, str], ...] = (
    ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
    ("NCCL_NVLS_ENABLE", "0"),
    ("NVSHMEM_DISABLE_NVLS", "1"),
)

#: Environment variables that change the generated code, so they are part of the cache key.
#: These are the CuTe DSL 4.8.1 settings its own env manager marks ``affects_compile=True``
#: (base_dsl/env_manager.py, cutlass_dsl/cutlass.py), plus AUTO_M2S (changes what compiles)
#: and OPT_LEVEL (not read by 4.8.1; kept so a release that reads it cannot serve stale code).
#: Logging, dump and keep switches (LOG_*, KEEP, DUMP_DIR, PRINT_IR, ...) are left out: they
#: change what is written beside the compile, not the cubin.
CODEGEN_AFFECTING_ENV: tuple[str, ...] = (
    "CUTE_DSL_ARCH",
    "CUTE_DSL_OPT_LEVEL",
    "CUTE_DSL_COMPILER_OPT",
    "CUTE_DSL_COMPILER_BACKEND",
    "CUTE_DSL_DEBUG",
    "CUTE_DSL_DRYRUN",
    "CUTE_DSL_LINEINFO",
    "CUTE_DSL_ENABLE_ASSERTIONS",
    "CUTE_DSL_ENABLE_PYIR",
    "CUTE_DSL_ENABLE_TVM_FFI",
    "CUTE_DSL_LOC_TRACEBACKS",
    "CUTE_DSL_LIBS",
    "CUTE_DSL_USE_EXTENSION_COMPILER",
    "CUTE_DSL_WARNINGS_AS_ERRORS",
    "CUTE_DSL_AUTO_M2S",
)

_FALSE = frozenset({"", "0", "false", "no", "off"})


def repo_root() -> Path:
    """The directory that holds the ``codegen`` package (and ``templates/``, ``generated/``)."""
    return Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Settings:
    """A snapshot of the switches; see :data:`SWITCHES` for defaults and effects.

    The on/off switches are read at :func:`load`; the valued ones (cache_dir, manifest, jobs,
    wait_timeout_ms) when first asked for, each raising a ValueError that names its variable.
    So a bad value fails exactly the processes that use it, and an explicit argument overrides
    it: ``codegen build -j 4`` with a junk CODEGEN_JOBS, ``GemmRsAr(timeout_ms=...)`` with a
    junk CODEGEN_WAIT_TIMEOUT_MS, a serving process with a junk build-only CODEGEN_JOBS.
    """

    environ: Mapping[str, str] = field(repr=False, compare=False)
    disable_multicast: bool
    disable_fused: bool = False
    no_compile: bool = False
    pdl: bool = False

    @property
    def cache_dir(self) -> Path:
        raw = self.environ.get("CODEGEN_CACHE_DIR", "").strip()
        return _user_path("CODEGEN_CACHE_DIR", raw).resolve() if raw else repo_root() / "generated"

    @property
    def manifest(self) -> Path | None:
        raw = self.environ.get("CODEGEN_MANIFEST", "").strip()
        return _user_path("CODEGEN_MANIFEST", raw) if raw else None

    @property
    def jobs(self) -> int:
        return _positive_int(self.environ, "CODEGEN_JOBS", os.cpu_count() or 1)

    @property
    def wait_timeout_ms(self) -> int:
        return _positive_int(self.environ, "CODEGEN_WAIT_TIMEOUT_MS", DEFAULT_WAIT_TIMEOUT_MS,
                             MAX_WAIT_TIMEOUT_MS)


def _disabled_fail_closed(environ: Mapping[str, str], name: str) -> bool:
    """A disable switch: unset or an explicit false value keeps the feature; anything else,
    unparseable values included, disables it (a typo must never turn a safety switch off)."""
    raw = environ.get(name)
    return raw is not None and raw.strip().lower() not in _FALSE


def multicast_disabled_by(environ: Mapping[str, str] | None = None) -> str | None:
    """The setting that disables the multicast transport (e.g. 'NCCL_NVLS_ENABLE=0'), or None."""
    env = os.environ if environ is None else environ
    if _disabled_fail_closed(env, "CODEGEN_DISABLE_MULTICAST"):
        return f"CODEGEN_DISABLE_MULTICAST={env['CODEGEN_DISABLE_MULTICAST']}"
    for name, safe in MULTICAST_SAFE_ENV:
        if env.get(name, "").strip() == safe:
            return f"{name}={safe}"
    return None


_ASCII_DIGITS = re.compile(r"-?[0-9]+")


def _positive_int(environ: Mapping[str, str], name: str, default: int,
                  most: int | None = None) -> int:
    raw = environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    if not _ASCII_DIGITS.fullmatch(raw.strip()):   # int() also takes '+5', '1_000', '５'
        raise ValueError(f"{name}={raw!r} is not an integer (ASCII digits only, e.g. {name}="
                         f"{default})")
    value = int(raw)
    if value < 1:
        raise ValueError(f"{name}={raw!r} must be >= 1")
    if most is not None and value > most:
        raise ValueError(f"{name}={raw!r} must be at most {most}")
    return value


def _user_path(name: str, raw: str) -> Path:
    try:
        return Path(raw).expanduser()
    except RuntimeError as e:  # ~user of no such user, or ~ with no home directory
        raise ValueError(f"{name}={raw!r}: cannot expand '~' ({e})") from None


def load(environ: Mapping[str, str] | None = None) -> Settings:
    """The switches of ``environ`` (default ``os.environ``), copied now; a bad value of a valued
    switch raises ValueError when that field is read (see :class:`Settings`)."""
    env = dict(os.environ if environ is None else environ)
    return Settings(
        environ=env,
        disable_multicast=_disabled_fail_closed(env, "CODEGEN_DISABLE_MULTICAST"),
        disable_fused=_disabled_fail_closed(env, "CODEGEN_DISABLE_FUSED"),
        no_compile=_disabled_fail_closed(env, "CODEGEN_NO_COMPILE"),
        pdl=_disabled_fail_closed(env, "CODEGEN_PDL"),
    )


def affecting_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The codegen-affecting variables that are set, name -> value (part of the cache key)."""
    env = os.environ if environ is None else environ
    return {name: env[name] for name in CODEGEN_AFFECTING_ENV if name in env}
