"""Compile one rendered variant to PTX + cubin with the CuTe DSL, on a machine with no GPU.

Runs inside a GPU-blind worker process (see codegen.build). The DSL reads its dump switches
once, when `cutlass` is first imported, so `compile_source` sets them before that import and
every worker keeps one private dump directory for its lifetime.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from codegen import contract, ptxabi
from codegen.spec import Variant

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class CompileError(RuntimeError):
    """The DSL could not compile a variant; the message is the DSL's own error."""


class NoCompileError(RuntimeError):
    """CODEGEN_NO_COMPILE is on: this process must not compile anything."""


def refuse_if_no_compile(what: str) -> None:
    """NoCompileError naming the switch if CODEGEN_NO_COMPILE is on (read now, at call time)."""
    # codegen.env by name, not by an import statement: this module's imports are part of every
    # cache key (the compile driver's closure), and env.py's text shapes no cubin.
    if importlib.import_module("codegen.env").load().no_compile:
        raise NoCompileError(
            f"{what} refused: CODEGEN_NO_COMPILE={os.environ.get('CODEGEN_NO_COMPILE', '')!r} is "
            "set, so this process must not compile (it may only load kernels already in the "
            "cache); unset it to build")


@dataclass
class Artifacts:
    ptx: bytes
    cubin: bytes
    symbol: str
    abi: dict
    launch: dict
    tma: dict
    resources: dict = field(default_factory=dict)
    seconds: float = 0.0


def _prepare_dsl_env() -> Path:
    """Point the DSL's artifact dump at a private directory (before cutlass is imported)."""
    if "cutlass" in sys.modules:
        dump = os.environ.get("CUTE_DSL_DUMP_DIR")
        if not dump or "ptx" not in os.environ.get("CUTE_DSL_KEEP", ""):
            raise CompileError(
                "cutlass was imported before codegen.compile could set CUTE_DSL_KEEP; "
                "compile in a fresh process (codegen build does)")
        return Path(dump)
    dump = Path(tempfile.mkdtemp(prefix="codegen-dump-"))
    atexit.register(shutil.rmtree, dump, True)
    os.environ["CUTE_DSL_KEEP"] = "ptx,cubin"
    os.environ["CUTE_DSL_DUMP_DIR"] = str(dump)
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    return dump


def _load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    return module


def abi_from_ptx(ptx: str, declared: list[tuple[str, str]]) -> tuple[str, dict]:
    """Match the contract's parameter list (contract.kernel_params) against the PTX .entry.

    Returns (kernel symbol, abi dict). Raises CompileError on any mismatch, so a kernel whose
    parameters drifted from the contract never reaches a cache.
    """
    entries = ptxabi.parse_entries(ptx)
    if len(entries) != 1:
        raise CompileError(f"expected exactly one .entry in the PTX, found {len(entries)}")
    entry = entries[0]
    if len(entry.params) != len(declared):
        raise CompileError(
            f"the contract lists {len(declared)} kernel parameters, the PTX has "
            f"{len(entry.params)}: {[p.size for p in entry.params]}")
    params = []
    offset = 0
    for (name, kind), p in zip(declared, entry.params):
        try:
            want = contract.kind_size(kind)
        except ValueError:
            raise CompileError(f"parameter {name}: unknown kind {kind!r}") from None
        if p.size != want:
            raise CompileError(
                f"parameter {name} ({kind}) should be {want} bytes, PTX param {p.index} "
                f"is {p.size} bytes ({p.ptx_type})")
        offset = (offset + p.align - 1) // p.align * p.align
        params.append({"name": name, "kind": kind, "size": p.size, "align": p.align,
                       "offset": offset, "ptx_type": p.ptx_type})
        offset += p.size
    return entry.name, {"params": params, "param_bytes": offset}


def _artifact_bytes(value, what: str, dump: Path) -> bytes:
    """The DSL hands back either the artifact itself or the path it dumped it to."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        if "\n" not in value and Path(value).exists():
            path = Path(value)
            data = path.read_bytes()
            path.unlink()
            return data
        if what == "PTX" and ".entry" in value:
            return value.encode()
    raise CompileError(f"the DSL produced no {what} (dump dir {dump})")


def _reqntid(ptx: str) -> list[int] | None:
    m = re.search(r"\.reqntid\s+(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?", ptx)
    return [int(g) for g in m.groups() if g] if m else None


#: A PTX instruction that may touch global memory: a load/store/atomic/reduction not in the
#: shared, param, local or const space (generic addresses count), any bulk or multimem copy.
_GLOBAL_ACCESS = re.compile(
    r"^\s*(?:@!?%\w+\s+)?(?:(?:ld|st|atom|red)\.(?!(?:[\w]+\.)*?(?:shared|param|local|const)\b)"
    r"|cp\.async|cp\.reduce\.async|multimem\.|prefetch\.global|fence\.proxy\.tensormap)",
    re.M)


def check_pdl_prologue(ptx: str, launch: dict) -> None:
    """A kernel the runtime launches with programmatic serialization (launch "pdl") must wait
    for the previous grid (griddepcontrol.wait) before its first instruction that may touch
    global memory, or it could read inputs the previous kernel is still writing. Checked on
    the PTX text: the prologue before the wait is straight-line code."""
    if launch.get("pdl") is not True:
        return
    wait = ptx.find("griddepcontrol.wait")
    if wait < 0:
        raise CompileError('launch "pdl" is set but the PTX has no griddepcontrol.wait '
                           "(call await_previous_grid() in the kernel's prologue)")
    first = _GLOBAL_ACCESS.search(ptx)
    if first and first.start() < wait:
        line = ptx.count("\n", 0, first.start()) + 1
        raise CompileError(f"PTX line {line} ({first.group(0).strip()}...) may touch global memory "
                           "before griddepcontrol.wait: move it below await_previous_grid()")


def check_dynamic_smem(host_ir: str, dynamic_smem: int) -> None:
    """The runtime launches with the launch dict's `dynamic_smem`; the DSL sizes its own launch
    (a constant in the host module). They must agree, or a kernel would read past its smem."""
    if f"llvm.mlir.constant({dynamic_smem} : i64)" in host_ir:
        return
    found = sorted({int(v) for v in re.findall(r"llvm\.mlir\.constant\((\d{4,6}) : i64\)", host_ir)})
    raise CompileError(f"launch dynamic_smem={dynamic_smem} is not the DSL's shared-memory size "
                       f"(host-module constants {found})")


def compile_source(variant: Variant, source: str, workdir: Path) -> Artifacts:
    """Compile a rendered kernel module; return its PTX, cubin, symbol, ABI and launch facts.

    NoCompileError (before the DSL is imported) if CODEGEN_NO_COMPILE is on."""
    refuse_if_no_compile(f"compiling {variant.name}")
    dump = _prepare_dsl_env()
    t0 = time.perf_counter()
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    src_path = workdir / "kernel.py"
    src_path.write_text(source)
    try:
        module = _load_module(src_path, f"codegen_kernel_{variant.name}")
        compiled, launch = module.compile_kernel(variant.arch)
    except CompileError:
        raise
    except Exception as exc:  # the DSL raises many types; keep its message, name the variant
        text = _ANSI.sub("", str(exc)).strip()
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        # the DSL's first line is often just "error:"; keep the first line that says something
        first = next((ln for ln in lines if ln.rstrip(":").lower() not in ("error", "")), text)
        raise CompileError(f"{type(exc).__name__}: {first}") from exc

    ptx = _artifact_bytes(compiled.artifacts.PTX, "PTX", dump)
    cubin = _artifact_bytes(compiled.artifacts.CUBIN, "cubin", dump)

    ptx_text = ptx.decode()
    symbol, abi = abi_from_ptx(ptx_text, list(contract.kernel_params(variant.arch, variant.mode, variant.schedule)))
    if symbol not in compiled.kernel_info:
        raise CompileError(f"PTX entry {symbol} is not the DSL's kernel {list(compiled.kernel_info)}")
    if symbol != contract.kernel_symbol(variant.name):
        raise CompileError(f"PTX entry {symbol[:80]} is not {contract.kernel_symbol(variant.name)}: the "
                           "template must name its kernel (see codegen.contract.SYMBOL_SUFFIX)")
    check_dynamic_smem(str(compiled.ir_module), int(launch["dynamic_smem"]))
    check_pdl_prologue(ptx_text, launch)
    reqntid = _reqntid(ptx_text)
    if reqntid and reqntid[0] != launch["block"][0]:
        raise CompileError(f".reqntid {reqntid} differs from the launch block {launch['block']}")
    try:
        from codegen.resources import resources_from_cubin
        resources = resources_from_cubin(cubin)
    except Exception as exc:  # resource report is informative; never fail a good build on it
        resources = {"error": f"{type(exc).__name__}: {exc}"}
    return Artifacts(ptx=ptx, cubin=cubin, symbol=symbol, abi=abi, launch=launch,
                     tma=dict(module.TMA), resources=resources,
                     seconds=round(time.perf_counter() - t0, 3))
