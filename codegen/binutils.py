"""Find NVIDIA's binary utilities (nvdisasm, cuobjdump) without a CUDA toolkit install.

(Not to be confused with tools/, the benchmark scripts, or compiler_id.py, the toolchain
identity in cache keys.)
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

#: tool -> the pip package that ships it
PACKAGES = {"nvdisasm": "nvidia-cuda-nvdisasm", "cuobjdump": "nvidia-cuda-cuobjdump"}


class ToolNotFound(RuntimeError):
    """A CUDA tool is missing; the message says what to install."""


def _wheel_dirs() -> list[Path]:
    """bin/ dirs of NVIDIA's pip wheels (namespace package ``nvidia``), newest CUDA first."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    out = []
    for base in map(Path, spec.submodule_search_locations):
        # cu13/cu12 wheels share one bin dir; older cu12 wheels had one dir per component.
        out += [base / "cu13" / "bin", base / "cu12" / "bin"]
        out += [base / "cuda_nvdisasm" / "bin", base / "cuda_cuobjdump" / "bin"]
    return out


def candidates(name: str) -> list[Path]:
    """Every place searched for ``name``, in order (PATH first, then wheels, then CUDA_HOME)."""
    places = []
    on_path = shutil.which(name)
    if on_path:
        places.append(Path(on_path))
    places += [d / name for d in _wheel_dirs()]
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            places.append(Path(os.environ[var]) / "bin" / name)
    places.append(Path("/usr/local/cuda/bin") / name)
    return places


def find_tool(name: str) -> Path | None:
    """Path of an executable ``name``, or None."""
    for path in candidates(name):
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


def require_tool(name: str) -> Path:
    """Like :func:`find_tool` but raises ToolNotFound naming the pip package to install."""
    path = find_tool(name)
    if path is None:
        package = PACKAGES.get(name, "a CUDA toolkit")
        raise ToolNotFound(
            f"{name} not found on PATH, in NVIDIA pip wheels or in $CUDA_HOME/bin: "
            f"run pip install {package}"
        )
    return path


class DisassemblyFailed(RuntimeError):
    """nvdisasm ran and refused the cubin; the message has its first error line."""


def disassemble(cubin: Path) -> str:
    """The SASS of `cubin` (``nvdisasm -c``): ToolNotFound without nvdisasm, DisassemblyFailed
    when it refuses the file."""
    proc = subprocess.run([str(require_tool("nvdisasm")), "-c", str(cubin)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["(no message)"])[0]
        raise DisassemblyFailed(f"nvdisasm failed on {cubin}: {first}")
    return proc.stdout
