"""Render a variant's Jinja2 template into CuTe DSL source, and find what that source depends on.

Pure: the output depends only on the variant and the files read, never on the cwd.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import jinja2
import jinja2.meta

from codegen import contract
from codegen.env import repo_root
from codegen.spec import Variant


def default_templates_dir() -> Path:
    """``templates/`` next to the ``codegen`` package (an editable install keeps them together)."""
    return repo_root() / "templates"


def default_package_dir() -> Path:
    """The ``codegen`` package directory whose modules a rendered kernel may import."""
    return Path(__file__).resolve().parent


@dataclass(frozen=True)
class Rendered:
    """A rendered kernel and the files its text depends on (absolute, sorted)."""

    source: str
    template_files: tuple[Path, ...]
    helpers: tuple[Path, ...]


def trace_supported(variant: Variant) -> bool:
    """Whether ``render(..., trace=True)`` adds %globaltimer stamps to this variant's kernel
    (templates/trace.py.j2, layout codegen/trace_layout.py): the sm_90a tile schedule, rs/ar.
    Every other variant renders exactly as without trace."""
    return variant.arch == "sm_90a" and variant.schedule == "tile" and variant.mode in contract.COLLECTIVE_MODES


def _epi_tokens(variant: Variant, ksplit: int) -> int:
    """Tokens of the decode kernels' transposed epilogue tile in shared memory at once (the
    whole token tile but in the wide sm_90a kernel's token tiles of 192+); the tile width
    elsewhere (unused there)."""
    if variant.schedule == "splitkw":   # the rows each CTA of the cluster sums and stores
        return variant.bn // ksplit
    if not contract.decode_schedule(variant.schedule):
        return variant.bn
    w_rows = (contract.swapab_w_rows(variant.cta_group)
              if ksplit == 1 and variant.schedule == "swapab" else contract.SWAPAB_BM)
    return contract.decode_epi_tokens(variant.bn, w_rows, ksplit, variant.arch)


def template_context(variant: Variant, trace: bool = False) -> dict:
    """The named variables every template sees (StrictUndefined: a typo is an error).

    ``trace`` is true only for a trace build (``codegen build --trace``) of a variant that
    :func:`trace_supported`; with it false every template renders as it did before it existed.
    """
    ksplit = contract.ksplit(variant.schedule, variant.cta_group)
    epi_tokens = _epi_tokens(variant, ksplit)
    splitkw = variant.schedule == "splitkw"
    return {
        "arch": variant.arch,
        "arch_num": variant.arch_num,
        "mode": variant.mode,
        "transport": variant.transport,
        "bm": contract.BM,
        "bn": variant.bn,
        "bk": contract.BK,
        "cta_group": variant.cta_group,
        "tp": variant.tp,
        "dtype": variant.dtype,
        "variant_name": variant.name,
        "is_rs": variant.mode == "rs",
        "is_ar": variant.mode == "ar",
        "is_none": variant.mode == "none",
        "is_multicast": variant.transport == "multicast",
        # the epilogue stores each owner's rows into that owner's workspace slot (TMA, through
        # push_tmap_ptr) and the owner sums local slots; else owners pull peers' partials
        "push": contract.pushes_partials(variant.arch, variant.schedule, variant.mode,
                                         variant.transport),
        # the decode schedule's cta_group 2 / 3 and splitkw: one CTA (splitkw: cluster) per
        # (W tile of 64 x w_groups rows, token tile)
        "wide": splitkw or (variant.schedule == "swapab" and contract.swapab_wide(variant.cta_group)),
        # MMA warpgroups along the W rows of a wide kernel (64 rows each)
        "w_groups": (contract.SPLITKW_W_ROWS // contract.SWAPAB_BM if splitkw
                     else 1 if variant.schedule == "swapabx" else variant.cta_group),
        # splitk / splitkw: CTAs per cluster splitting K over one W tile (else 1)
        "ksplit": ksplit,
        # swapabx: CTAs per cluster sharing each x tile by multicast (else 1)
        "xmc": variant.cta_group if variant.schedule == "swapabx" else 1,
        # the splitk kernel spreads (W tile, token tile) pairs over its clusters (mode none,
        # sm_90a: contract.splitk_spread; splitkw: always); else a cluster loops over a W
        # tile's token tiles
        "splitk_spread": ksplit > 1 and (splitkw or contract.splitk_spread(variant.arch,
                                                                          variant.mode)),
        # the decode kernels: tokens of the transposed epilogue tile in shared memory at once,
        # and the passes that stores a tile in (contract.decode_epi_tokens); splitk: the tile's
        # tokens, splitkw: the KS-th of them each CTA stores (one pass either way)
        "epi_tokens": epi_tokens,
        "epi_passes": 1 if splitkw else contract.cdiv(variant.bn, epi_tokens),
        # the decode kernel's W tile can reach past N (contract.swapab_ragged_n: cta_group 3,
        # and the wide kernel on sm_90a), or the tile kernel's last N tile
        # (contract.tile_ragged_n: every mode on sm_90a)
        "ragged_n": contract.variant_ragged_n(variant.schedule, variant.cta_group, variant.arch,
                                              variant.mode),
        # the kernel's scalar parameters in PTX order (templates/params.j2 renders them)
        "scalar_params": contract.scalar_params(variant.arch, variant.mode, variant.schedule),
        "schedule": variant.schedule,
        "trace": bool(trace) and trace_supported(variant),
    }


def _fingerprint(templates_dir: Path) -> str:
    """Hash of every file's name and content: templates are small, and unlike mtimes (coarse on
    some filesystems) content cannot let an edited template render stale under an old key."""
    h = hashlib.sha256()
    for path in sorted(p for p in templates_dir.rglob("*") if p.is_file()):
        h.update(path.relative_to(templates_dir).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


@lru_cache(maxsize=8)
def _environment(templates_dir: str, fingerprint: str) -> jinja2.Environment:
    del fingerprint  # only part of the cache key: new content, new Environment
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        auto_reload=False,
    )


@lru_cache(maxsize=32)
def _template_closure(env: jinja2.Environment, name: str, templates_dir: Path) -> frozenset[Path]:
    """The template and everything it includes/imports/extends, transitively.

    A dynamic reference (``{% include some_var %}``) cannot be resolved statically, so then
    every file of the templates dir counts: over-approximating only costs a rebuild.
    """
    seen: dict[str, Path] = {}
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        text, filename, _ = env.loader.get_source(env, current)
        seen[current] = Path(filename).resolve()
        for ref in jinja2.meta.find_referenced_templates(env.parse(text)):
            if ref is None:
                return frozenset(p.resolve() for p in templates_dir.rglob("*") if p.is_file())
            todo.append(ref)
    return frozenset(seen.values())


def _module_file(module: str, package_dir: Path) -> Path | None:
    """File of ``codegen.x.y`` under ``package_dir`` (a package's ``__init__.py``), or None."""
    parts = module.split(".")
    if parts[0] != "codegen":
        return None
    base = package_dir.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py") if len(parts) > 1 else None, base / "__init__.py"):
        if candidate is not None and candidate.is_file():
            return candidate.resolve()
    return None


def _imported_modules(source: str, module: str, is_package: bool) -> set[str]:
    """Absolute names of every module ``source`` imports (including parent packages)."""
    if not module.startswith("codegen") and "codegen" not in source:
        # Cheap exit for a kernel (no relative imports possible): parsing a 1,000-line kernel
        # only to find no codegen import costs 30 ms.
        return set()
    found: set[str] = set()
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".") if package else []
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            found.add(base)
            # `from codegen import ptx` may name a submodule rather than an attribute.
            found.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
    closed: set[str] = set()
    for name in found:
        parts = name.split(".")
        # Importing a.b.c runs a/__init__ and a/b/__init__ first.
        closed.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return {m for m in closed if m == "codegen" or m.startswith("codegen.")}


def helper_closure(source: str, package_dir: Path | None = None, module: str = "__kernel__") -> tuple[Path, ...]:
    """Files of every ``codegen.*`` module ``source`` imports, transitively (sorted)."""
    package_dir = Path(package_dir or default_package_dir()).resolve()
    files: set[Path] = set()
    todo = list(_imported_modules(source, module, False))
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path = _module_file(name, package_dir)
        if path is None:
            continue  # an attribute (from codegen.x import func) or a module that does not exist
        files.add(path)
        text = path.read_text(encoding="utf-8")
        todo.extend(_imported_modules(text, name, path.name == "__init__.py"))
    return tuple(sorted(files))


def render(
    variant: Variant,
    templates_dir: Path | str | None = None,
    package_dir: Path | str | None = None,
    *,
    trace: bool = False,
) -> Rendered:
    """Render ``variant``'s template; ``templates_dir``/``package_dir`` are injectable for tests.
    ``trace``: the trace kernel (see :func:`template_context`), never a serving kernel."""
    tdir = Path(templates_dir or default_templates_dir()).resolve()
    if not (tdir / variant.template_name).is_file():
        raise FileNotFoundError(
            f"template {variant.template_name} not found in {tdir} (the templates/ dir next to "
            "the codegen package: install from a checkout with pip install -e .)"
        )
    env = _environment(str(tdir), _fingerprint(tdir))
    source = env.get_template(variant.template_name).render(**template_context(variant, trace))
    return Rendered(
        source=source,
        template_files=tuple(sorted(_template_closure(env, variant.template_name, tdir))),
        helpers=helper_closure(source, package_dir),
    )
