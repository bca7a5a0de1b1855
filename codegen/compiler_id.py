"""Identity of the compiler toolchain, for the cache key: distribution names and versions.

(binutils.py finds nvdisasm/cuobjdump; tools/ holds the benchmark scripts.)

Read from installed distribution metadata, so it never imports cutlass (0.5 s) or CUDA.
"""

from __future__ import annotations

import importlib.metadata as md
import re
import sys

_PREFIXES = ("nvidia-cutlass-dsl",)
_EXACT = ("cuda-bindings", "cuda-python")


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def identity() -> dict[str, str]:
    """``{distribution: version}`` for the DSL (all its parts), cuda-bindings/cuda-python, and python."""
    found: dict[str, str] = {}
    for dist in md.distributions():
        name = dist.metadata.get("Name")
        if not name:
            continue
        norm = _normalize(name)
        if norm.startswith(_PREFIXES) or norm in _EXACT:
            found[norm] = dist.version
    found["python"] = f"{sys.version_info.major}.{sys.version_info.minor}"
    return dict(sorted(found.items()))
