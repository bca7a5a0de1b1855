"""A stand-in for codegen.compile.compile_source, so build/cache tests need no DSL.

Behaviour is steered by the rendered source and by environment variables (workers are
spawned, so they see the parent's environment):
- FAKE_COMPILE_COUNT_DIR: each call leaves a file there (to count compiles across processes);
- FAKE_COMPILE_SLEEP: seconds to sleep (to make two builders overlap);
- FAKE_COMPILE_FAIL: variant names (comma-separated) whose compile raises CompileError.
"""

from __future__ import annotations

import hashlib
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

# Not a real cubin: the fake build only needs bytes that differ per entry (sha256 checks).
# A test that disassembles the result sets FAKE_COMPILE_CUBIN to a real one (tiny_dir fixture).
FAKE_CUBIN = b"\x7fELF fake cubin of tests/fake_compile.py "


def _cubin_bytes() -> bytes:
    real = os.environ.get("FAKE_COMPILE_CUBIN")
    return Path(real).read_bytes() if real else FAKE_CUBIN


class CompileError(Exception):
    pass


@dataclass
class Artifacts:
    ptx: bytes
    cubin: bytes
    symbol: str
    abi: dict = field(default_factory=dict)
    launch: dict = field(default_factory=dict)
    tma: dict = field(default_factory=dict)
    resources: dict = field(default_factory=dict)


def contract_abi(arch, mode, schedule="tile") -> dict:
    """meta.json `abi` as the build records it for a kernel that follows the contract."""
    from codegen import contract

    def align(kind):
        return contract.TMA_DESC_ALIGN if kind == "tma_desc" else 4 if "x" in kind else contract.kind_size(kind)
    return {"params": [{"name": n, "kind": k, "size": contract.kind_size(k), "align": align(k)}
                       for n, k in contract.kernel_params(arch, mode, schedule)]}


def compile_source(variant, source: str, workdir: Path) -> Artifacts:
    assert os.environ.get("CUDA_VISIBLE_DEVICES") == "", "workers must be GPU-blind"
    assert Path(workdir).is_dir()
    count_dir = os.environ.get("FAKE_COMPILE_COUNT_DIR")
    if count_dir:
        Path(count_dir, f"{variant.name}-{uuid.uuid4().hex}").write_text(str(os.getpid()))
    time.sleep(float(os.environ.get("FAKE_COMPILE_SLEEP", "0")))
    if variant.name in os.environ.get("FAKE_COMPILE_FAIL", "").split(","):
        raise CompileError(f"error: {variant.name} does not compile\nsecond line of the DSL error")
    from codegen import contract
    digest = hashlib.sha256(source.encode()).hexdigest()
    return Artifacts(
        ptx=f"// fake ptx {digest}\n.visible .entry k_{variant.name}(\n\t.param .u64 p0\n)\n{{}}\n".encode(),
        cubin=_cubin_bytes() + digest.encode(),
        symbol=f"k_{variant.name}",
        abi=contract_abi(variant.arch, variant.mode, variant.schedule),  # what the runtime accepts
        launch={"block": [384, 1, 1], "cluster": [variant.cta_group, 1, 1],
                # as the real templates write it (codegen.render: ragged_n)
                "ragged_n": contract.variant_ragged_n(variant.schedule, variant.cta_group,
                                                      variant.arch, variant.mode)},
        resources={"kernels": {f"k_{variant.name}": {"registers": 0}}},  # no real cubin to read
    )
